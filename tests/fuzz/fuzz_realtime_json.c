/* fuzz_realtime_json - realtime.json (the decoder's shader-clock <-> reference
 * clock pairs per SE) read by fp_realtime_parse: never crashes, and every SE it
 * accepts is found again and either gives a positive clock and finite
 * timestamps (what timeline and launch_trace divide by) or says it gives none. */
#include <stdbool.h>
#include <stdlib.h>

#include "flyprof/realtime.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fp_realtime rt;
    fp_err err = {0};
    int rc = fp_realtime_parse((const char *)data, size, &rt, &err);
    fz_check_err(rc, &err, "fp_realtime_parse");
    fp_err_clear(&err);
    if (rc == 0) {
        for (size_t i = 0; i < rt.n; i++) {
            const fp_rt_se *s = &rt.ses[i];
            double mhz = fp_realtime_mhz(&rt, s), ns = 0;
            bool have = fp_realtime_ns(&rt, s, s->gfx0, &ns);
            if (!fp_realtime_se(&rt, s->se) || mhz < 0 || have != (mhz > 0) || (have && !(ns == ns)))
                abort();
        }
        fp_realtime_free(&rt);
    }
    return 0;
}
