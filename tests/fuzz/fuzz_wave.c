/* fuzz_wave - one se*_sm*_sl*_wv*.json wave file through fp_wave_parse (the
 * reader every wave-walking analysis uses), into one reused fp_wave as the walk does. */
#include "flyprof/wave.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fp_wave w;
    static int init;
    if (!init) {
        fp_wave_init(&w);
        init = 1;
    }
    fp_err err = {0};
    int rc = fp_wave_parse(&w, (const char *)data, size, "se0_sm0_sl0_wv0.json", &err);
    fz_check_err(rc, &err, "fp_wave_parse");
    fp_err_clear(&err);
    /* the arrays must be consistent with their counts: touch every record */
    volatile int64_t sink = 0;
    if (rc == 0) {
        for (size_t i = 0; i < w.n_insts; i++)
            sink += w.insts[i].time + w.insts[i].line;
        for (size_t i = 0; i < w.n_spans; i++)
            sink += w.spans[i].dur;
        for (size_t i = 0; i < w.n_waits; i++)
            for (size_t k = 0; k < w.waits[i].n; k++)
                sink += w.prods[w.waits[i].first + k];
    }
    (void)sink;
    return 0;
}
