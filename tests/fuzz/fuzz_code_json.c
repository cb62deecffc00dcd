/* fuzz_code_json - code.json: the row parser (fp_code_parse), then hotspots on
 * the dispatch whose code.json it is (the seed analyzer's ranking and rendering). */
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
