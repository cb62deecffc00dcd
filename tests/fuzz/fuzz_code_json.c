/* fuzz_code_json - code.json: the row parser (fp_code_parse), checked against
 * the jscan reader alone (the fast path must read every document as it does),
 * then hotspots on the dispatch whose code.json it is (the seed analyzer's
 * ranking and rendering). */
#include <stdlib.h>
#include <string.h>

#include "flyprof/att.h"
#include "flyprof/hotspots.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fp_code code;
    fp_err err = {0};
    int rc = fp_code_parse((const char *)data, size, "code.json", &code, &err);
    fz_check_err(rc, &err, "fp_code_parse");
    fp_code ref;
    fp_err rerr = {0};
    int rrc = fp_code_parse_jscan((const char *)data, size, "code.json", &ref, &rerr);
    if (rrc != rc || (rc != 0 && (rerr.code != err.code || strcmp(rerr.message, err.message))))
        abort();
    if (rc == 0) {
        if (ref.n != code.n || ref.coerced_cells != code.coerced_cells || ref.null_code != code.null_code ||
            ref.max_index != code.max_index || !ref.symbol != !code.symbol ||
            (ref.symbol && strcmp(ref.symbol, code.symbol)))
            abort();
        for (size_t i = 0; i < code.n; i++) {
            const fp_inst *a = &code.rows[i], *b = &ref.rows[i];
            if (strcmp(a->isa, b->isa) || strcmp(a->source, b->source) || a->index != b->index ||
                a->index_ok != b->index_ok || a->codeobj != b->codeobj || a->vaddr != b->vaddr ||
                a->hit != b->hit || a->latency != b->latency || a->stall != b->stall || a->idle != b->idle)
                abort();
        }
        fp_code_free(&ref);
    }
    fp_err_clear(&rerr);
    fp_err_clear(&err);
    if (rc == 0) {
        for (int64_t i = -1; i <= code.max_index + 1 && i < 64; i++)
            (void)fp_code_at(&code, i);
        fp_hotspots hs;
        if (fp_hotspots_compute(&code, &hs, &err) == 0)
            fp_hotspots_free(&hs);
        fp_err_clear(&err);
        fp_code_free(&code);
        /* the whole command on a dispatch dir holding only this code.json */
        char *p = fz_write("d/code.json", data, size);
        char *dir = fz_path("d");
        const char *argv[] = {"hotspots", dir, "--detail", "--topk", "5"};
        fz_run(NULL, 5, argv);
        free(dir);
        free(p);
    }
    return 0;
}
