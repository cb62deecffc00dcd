/* fuzz_wave_side - the small per-dispatch side files read with the wave reader:
 * occupancy.json (fp_occupancy_load) and wstates<k>.json (fp_wstates_integral);
 * realtime.json (fp_realtime_load) and the trace facts computed from both
 * (fp_trace_facts, issue 23: sorting only, never a table indexed by a file's CU id).
 * It found issue 10 (a) in 2 s (a repeated "state"/"time" key overflowed
 * read_int_array's buffer; regressions/wave_side/issue10a_*). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/model.h"
#include "flyprof/realtime.h"
#include "flyprof/wave.h"
#include "flyprof/workdist.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *o = fz_write("ws/occupancy.json", data, size);
    char *w = fz_write("ws/wstates3.json", data, size);
    char *t = fz_write("ws/realtime.json", data, size);
    char *dir = fz_path("ws");
    fp_occupancy occ;
    fp_err err = {0};
    int rc = fp_occupancy_load(dir, &occ, &err);
    fz_check_err(rc, &err, "fp_occupancy_load");
    /* the fast path must read every document as the jscan reader (+ qsort) does */
    fp_occupancy ref;
    fp_err rerr = {0};
    int rrc = fp_occupancy_parse_jscan((const char *)data, size, &ref, &rerr);
    bool read = rc == 0 || err.code == FP_BAD_INPUT; /* the file itself was read */
    if (read && (rrc != rc || (rc != 0 && strcmp(rerr.message, err.message))))
        abort();
    if (rc == 0) {
        if (ref.n != occ.n)
            abort();
        for (size_t i = 0; i < occ.n; i++) {
            if (ref.ses[i].se != occ.ses[i].se || ref.ses[i].n != occ.ses[i].n)
                abort();
            for (size_t k = 0; k < occ.ses[i].n; k++) {
                const fp_occ_event *a = &occ.ses[i].ev[k], *b = &ref.ses[i].ev[k];
                if (a->time != b->time || a->cu != b->cu || a->simd != b->simd || a->slot != b->slot ||
                    a->start != b->start)
                    abort();
            }
        }
        fp_realtime rt;
        fp_err terr = {0};
        int trc = fp_realtime_load(dir, &rt, &terr);
        fz_check_err(trc, &terr, "fp_realtime_load");
        fp_launch_trace *lt;
        fp_workdist *wd;
        fp_trace_facts(&occ, trc == 0 ? &rt : NULL, NULL, 0, false, &lt, &wd);
        if (occ.n && (!lt || !wd || lt->waves < 0 || lt->traced_ses != (int64_t)occ.n))
            abort();
        if (lt)
            fp_model_free(&fp_launch_trace_schema, lt);
        if (wd)
            fp_model_free(&fp_workdist_schema, wd);
        free(lt);
        free(wd);
        if (trc == 0)
            fp_realtime_free(&rt);
        fp_err_clear(&terr);
        fp_occupancy_free(&occ);
    }
    if (rrc == 0)
        fp_occupancy_free(&ref);
    fp_err_clear(&rerr);
    fp_err_clear(&err);
    int64_t v = 0;
    bool saturated = false;
    rc = fp_wstates_integral(dir, 3, &v, &saturated, &err);
    fz_check_err(rc, &err, "fp_wstates_integral");
    fp_err_clear(&err);
    free(o);
    free(w);
    free(t);
    free(dir);
    return 0;
}
