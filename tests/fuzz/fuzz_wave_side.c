/* fuzz_wave_side - the small per-dispatch side files read with the wave reader:
 * occupancy.json (fp_occupancy_load) and wstates<k>.json (fp_wstates_integral).
 * NOT in run.sh's default list until perf's rewrite of src/att/wave.c lands:
 * tests/fuzz/pending/wave_side/ holds issue 10 (a) (a repeated "state"/"time"
 * key overflows read_int_array's buffer), and the integral's int64 overflow (d)
 * is reachable too; both are perf's to fix. */
#include <stdlib.h>

#include "flyprof/wave.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *o = fz_write("ws/occupancy.json", data, size);
    char *w = fz_write("ws/wstates3.json", data, size);
    char *dir = fz_path("ws");
    fp_occupancy occ;
    fp_err err = {0};
    int rc = fp_occupancy_load(dir, &occ, &err);
    fz_check_err(rc, &err, "fp_occupancy_load");
    if (rc == 0)
        fp_occupancy_free(&occ);
    fp_err_clear(&err);
    int64_t v = 0;
    rc = fp_wstates_integral(dir, 3, &v, &err);
    fz_check_err(rc, &err, "fp_wstates_integral");
    fp_err_clear(&err);
    free(o);
    free(w);
    free(dir);
    return 0;
}
