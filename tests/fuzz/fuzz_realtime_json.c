/* fuzz_realtime_json - realtime.json (the decoder's shader-clock <-> reference
 * clock pairs per SE) read by fp_realtime_parse: never crashes, and what it
 * accepts is usable as a time map (two increasing pairs per SE, a positive
 * frequency) - the timeline divides by both differences. */
#include <stdlib.h>

#include "flyprof/realtime.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fp_realtime rt;
    fp_err err = {0};
    int rc = fp_realtime_parse((const char *)data, size, "realtime.json", &rt, &err);
    fz_check_err(rc, &err, "fp_realtime_parse");
    fp_err_clear(&err);
    if (rc == 0) {
        if (!(rt.frequency > 0) || rt.n == 0)
            abort();
        for (size_t i = 0; i < rt.n; i++)
            if (rt.ses[i].g1 <= rt.ses[i].g0 || rt.ses[i].r1 <= rt.ses[i].r0 || !fp_realtime_se(&rt, rt.ses[i].se))
                abort();
        fp_realtime_free(&rt);
    }
    return 0;
}
