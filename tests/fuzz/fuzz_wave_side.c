/* fuzz_wave_side - the small per-dispatch side files read with the wave reader:
 * occupancy.json (fp_occupancy_load) and wstates<k>.json (fp_wstates_integral).
 * It found issue 10 (a) in 2 s (a repeated "state"/"time" key overflowed
 * read_int_array's buffer; regressions/wave_side/issue10a_*). */
#include <stdbool.h>
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
    bool saturated = false;
    rc = fp_wstates_integral(dir, 3, &v, &saturated, &err);
    fz_check_err(rc, &err, "fp_wstates_integral");
    fp_err_clear(&err);
    free(o);
    free(w);
    free(dir);
    return 0;
}
