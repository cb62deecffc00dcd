/* fuzz_wave - one se*_sm*_sl*_wv*.json wave file through fp_wave_parse (the
 * reader every wave-walking analysis uses), into one reused fp_wave as the walk
 * does, checked against the jscan reader alone (the fast path must read every
 * document as it does); and through fp_wave_parse_windowed, the walk's way of
 * reading a file through a refilled window, at a window size taken from the input
 * (64 B .. ~4 KB: tokens and rows straddle its refills), checked the same way; then
 * both again with the baseline row scanners (fp_wave_baseline_rows: SSE2 where the
 * CPU has the AVX2 ones, issue 22), so each scanner is checked on any machine. */
#include <stdlib.h>
#include <string.h>

#include "flyprof/wave.h"
#include "fuzz_common.h"

static void same_wave(const fp_wave *w, const fp_wave *ref)
{
    if (ref->n_insts != w->n_insts || ref->n_spans != w->n_spans || ref->n_waits != w->n_waits ||
        ref->n_prods != w->n_prods || ref->begin != w->begin || ref->end != w->end || ref->cu != w->cu ||
        ref->has_waitcnt != w->has_waitcnt)
        abort();
    for (size_t i = 0; i < w->n_insts; i++) {
        const fp_wave_inst *a = &w->insts[i], *b = &ref->insts[i];
        if (a->time != b->time || a->cat != b->cat || a->stall != b->stall || a->dur != b->dur || a->line != b->line)
            abort();
    }
    for (size_t i = 0; i < w->n_spans; i++)
        if (w->spans[i].state != ref->spans[i].state || w->spans[i].dur != ref->spans[i].dur)
            abort();
    for (size_t i = 0; i < w->n_waits; i++)
        if (w->waits[i].line != ref->waits[i].line || w->waits[i].first != ref->waits[i].first ||
            w->waits[i].n != ref->waits[i].n)
            abort();
    for (size_t i = 0; i < w->n_prods; i++)
        if (w->prods[i] != ref->prods[i])
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fp_wave w, ww, ref;
    static int init;
    if (!init) {
        fp_wave_init(&w);
        fp_wave_init(&ww);
        fp_wave_init(&ref);
        init = 1;
    }
    fp_err err = {0};
    int rc = fp_wave_parse(&w, (const char *)data, size, "se0_sm0_sl0_wv0.json", &err);
    fz_check_err(rc, &err, "fp_wave_parse");
    fp_err rerr = {0};
    int rrc = fp_wave_parse_jscan(&ref, (const char *)data, size, "se0_sm0_sl0_wv0.json", &rerr);
    if (rrc != rc || (rc != 0 && strcmp(rerr.message, err.message)))
        abort();
    if (rc == 0)
        same_wave(&w, &ref);
    /* the windowed read: window size from the input's first and last bytes */
    size_t win = size ? 64 + ((size_t)data[0] << 4 | (data[size - 1] & 15)) : 64;
    fp_err werr = {0};
    int wrc = fp_wave_parse_windowed(&ww, (const char *)data, size, win, NULL, "se0_sm0_sl0_wv0.json", &werr);
    if (wrc != rc || (rc != 0 && strcmp(werr.message, err.message)))
        abort();
    if (rc == 0)
        same_wave(&ww, &ref);
    fp_err_clear(&werr);
    /* the baseline (SSE2 / scalar) row scanners where the CPU has the AVX2 ones: the
     * same result, whole and windowed */
    fp_wave_baseline_rows(true);
    fp_err berr = {0};
    int brc = fp_wave_parse(&ww, (const char *)data, size, "se0_sm0_sl0_wv0.json", &berr);
    if (brc != rc || (rc != 0 && strcmp(berr.message, err.message)))
        abort();
    if (rc == 0)
        same_wave(&ww, &ref);
    fp_err_clear(&berr);
    brc = fp_wave_parse_windowed(&ww, (const char *)data, size, win, NULL, "se0_sm0_sl0_wv0.json", &berr);
    if (brc != rc || (rc != 0 && strcmp(berr.message, err.message)))
        abort();
    if (rc == 0)
        same_wave(&ww, &ref);
    fp_err_clear(&berr);
    fp_wave_baseline_rows(false);
    fp_err_clear(&rerr);
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
