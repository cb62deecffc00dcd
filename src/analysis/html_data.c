/*
 * html_data.c - what report.html reads from the dispatch dir beyond report.json
 * (report.h, fp_html_data): the source snapshots and an evenly spaced sample of
 * the wave files (state timeline + the stalled executions of the top hotspots).
 * A sample keeps the page small and the load bounded on a trace of thousands of
 * waves; the page says how many of how many it shows.
 */
#include <stdlib.h>
#include <string.h>

#include "flyprof/report.h"
#include "flyprof/wave.h"

typedef struct loader {
    fp_html_data *d;
    int64_t hot_line[FP_REPORT_EVIDENCE_HOTSPOTS]; /* code lines of the top hotspots */
    size_t n_hot;
} loader;

static void *dup_mem(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (!q)
        abort();
    if (n)
        memcpy(q, p, n);
    return q;
}

static int on_wave(void *user, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    loader *L = user;
    fp_html_wave *o = &L->d->waves[L->d->n_waves++];
    *o = (fp_html_wave){w->se, w->cu, w->simd, w->slot, w->id, w->begin, w->end, NULL, 0, NULL, NULL, 0};
    o->spans = dup_mem(w->spans, w->n_spans * sizeof *w->spans);
    o->n_spans = w->n_spans;
    o->hot = malloc((w->n_insts + 1) * sizeof *o->hot);
    o->hot_rank = malloc((w->n_insts + 1) * sizeof *o->hot_rank);
    if (!o->hot || !o->hot_rank)
        abort();
    for (size_t i = 0; i < w->n_insts; i++)
        for (size_t k = 0; k < L->n_hot && w->insts[i].stall > 0; k++)
            if (w->insts[i].line == L->hot_line[k]) {
                o->hot[o->n_hot] = w->insts[i].time;
                o->hot_rank[o->n_hot++] = (int)k + 1;
                break;
            }
    return 0;
}

void fp_html_data_load(const char *dir, const fp_report_doc *r, size_t max_waves, fp_html_data *out)
{
    memset(out, 0, sizeof *out);
    fp_err e = {0};
    if (!dir)
        return;
    if (fp_snapshots_load(dir, &out->snaps, &e) != 0)
        memset(&out->snaps, 0, sizeof out->snaps);
    fp_err_clear(&e);
    fp_wave_list list;
    if (fp_wave_list_dir(dir, &list, &e) != 0) {
        fp_err_clear(&e);
        return;
    }
    loader L = {out, {0}, 0};
    for (size_t i = 0; i < r->nevidence_hotspots && i < FP_REPORT_EVIDENCE_HOTSPOTS; i++)
        L.hot_line[L.n_hot++] = (int64_t)r->evidence_hotspots[i].code_line;
    /* the sample: file i when i * max / n steps to a new integer (the first always) */
    fp_wave_list pick = list;
    size_t max = max_waves && list.n > max_waves ? max_waves : list.n;
    pick.files = malloc((max + 1) * sizeof *pick.files);
    if (!pick.files)
        abort();
    pick.n = 0;
    for (size_t i = 0; i < list.n && pick.n < max; i++)
        if (i == 0 || (i * max) / list.n != ((i - 1) * max) / list.n)
            pick.files[pick.n++] = list.files[i];
    out->waves_total = list.n;
    out->waves = calloc(pick.n + 1, sizeof *out->waves);
    if (!out->waves)
        abort();
    fp_wave_walk(dir, &pick, on_wave, NULL, &L);
    free(pick.files);
    fp_wave_list_free(&list);
}

void fp_html_data_free(fp_html_data *d)
{
    for (size_t i = 0; i < d->n_waves; i++) {
        free(d->waves[i].spans);
        free(d->waves[i].hot);
        free(d->waves[i].hot_rank);
    }
    free(d->waves);
    fp_snapshots_free(&d->snaps);
    memset(d, 0, sizeof *d);
}
