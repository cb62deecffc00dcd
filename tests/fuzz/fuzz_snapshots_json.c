/* fuzz_snapshots_json - snapshots.json (the decoder's source map) with one real
 * source copy next to it: fp_snapshots_load, lookups, and the snippet builder. */
#include <stdlib.h>

#include "flyprof/att.h"
#include "flyprof/map.h"
#include "flyprof/json.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char src[] = "import flydsl\n\ndef kernel(a, b):\r\n    return a + b\r    # tail";
    char *s = fz_write("s/source_0_k.py", (const uint8_t *)src, sizeof src - 1);
    char *p = fz_write("s/snapshots.json", data, size);
    char *dir = fz_path("s");
    fp_snapshots snaps;
    fp_err err = {0};
    int rc = fp_snapshots_load(dir, &snaps, &err);
    fz_check_err(rc, &err, "fp_snapshots_load");
    fp_err_clear(&err);
    if (rc == 0) {
        for (size_t i = 0; i < snaps.n; i++) {
            (void)fp_snapshots_find(&snaps, snaps.files[i].vpath);
            fp_map_snippet *sn = fp_snippet(&snaps, snaps.files[i].vpath, (long)(i % 6), 2);
            if (sn) {
                cJSON *j = fp_model_write(&fp_map_snippet_schema, sn);
                char *t = fp_json_print(j, false);
                fz_check_json_text(t, "a snippet");
                free(t);
                cJSON_Delete(j);
                fp_model_free(&fp_map_snippet_schema, sn);
                free(sn);
            }
        }
        (void)fp_snapshots_find(&snaps, "/w/k.py");
        fp_snapshots_free(&snaps);
    }
    free(s);
    free(p);
    free(dir);
    return 0;
}
