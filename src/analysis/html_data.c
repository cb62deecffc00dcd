/*
 * html_data.c - what report.html reads from the dispatch dir beyond report.json
 * (report.h, fp_html_data): the source snapshots and an evenly spaced sample of
 * the wave files (state timeline + the stalled executions of the top hotspots).
 * A sample keeps the page small and the load bounded on a trace of thousands of
 * waves; the page says how many of how many it shows. A wave too big to hold
 * is read in chunks and kept as its columns (below).
 */
#include <stdlib.h>
#include <string.h>

#include "flyprof/mem.h"
#include "flyprof/report.h"
#include "flyprof/wave.h"

typedef struct loader {
    fp_html_data *d;
    int64_t hot_line[FP_REPORT_EVIDENCE_HOTSPOTS]; /* code lines of the top hotspots */
    size_t n_hot;
    /* waves too big to hold (fp_wave_chunked): the hot executions of the one being read,
     * kept once its header is known; then its file, to sum its spans once the axis is */
    fp_wave_chunked chunked;
    const fp_wave_file *cur;
    int64_t *hot;
    int *hot_rank;
    size_t n_cur, cap_cur;
    const fp_wave_file **big; /* per wave of d: the file of one read in chunks, else NULL */
    int64_t (*cols)[FP_WS_COUNT]; /* the columns being summed */
    int64_t t, t0;                /* the cycle they reached; the axis */
    double cpp;
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

/* The stalled executions of the top hotspots among records r[0 .. n), appended. */
static void add_hot(const loader *L, const fp_wave_inst *r, size_t n, int64_t *hot, int *rank, size_t *n_hot)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < L->n_hot && r[i].stall > 0; k++)
            if (r[i].line == L->hot_line[k]) {
                hot[*n_hot] = r[i].time;
                rank[(*n_hot)++] = (int)k + 1;
                break;
            }
}

static fp_html_wave *new_wave(loader *L, const fp_wave_file *f, const fp_wave *w)
{
    L->cur = NULL; /* a wave read in chunks that fell back to a whole read leaves nothing */
    L->big[L->d->n_waves] = NULL;
    fp_html_wave *o = &L->d->waves[L->d->n_waves++];
    *o = (fp_html_wave){f->se, w->cu, f->simd, f->slot, f->id, w->begin, w->end, NULL, 0, NULL, NULL, 0, NULL};
    return o;
}

static int on_wave(void *user, const fp_wave_file *f, const fp_wave *w)
{
    loader *L = user;
    fp_html_wave *o = new_wave(L, f, w);
    o->spans = dup_mem(w->spans, w->n_spans * sizeof *w->spans);
    o->n_spans = w->n_spans;
    o->hot = malloc((w->n_insts + 1) * sizeof *o->hot);
    o->hot_rank = malloc((w->n_insts + 1) * sizeof *o->hot_rank);
    if (!o->hot || !o->hot_rank)
        abort();
    add_hot(L, w->insts, w->n_insts, o->hot, o->hot_rank, &o->n_hot);
    return 0;
}

static void on_skip(void *user, const fp_wave_file *f, const fp_err *err)
{
    (void)f, (void)err;
    ((loader *)user)->cur = NULL;
}

/* ---- a wave too big to hold (issue 22): pass 1 finds its hot executions (in chunks of
 * records), begin() keeps them with the header and skips pass 2; its spans are summed
 * into columns after the walk, once every wave's begin and end give the axis. ---- */

static int ck_rows(void *user, const fp_wave_file *f, const fp_wave *w)
{
    loader *L = user;
    if (L->cur != f) {
        L->cur = f;
        L->n_cur = 0;
    }
    size_t cap = L->cap_cur;
    FP_RESERVE(L->hot, L->n_cur, L->cap_cur, w->n_insts);
    if (L->cap_cur != cap && !(L->hot_rank = realloc(L->hot_rank, L->cap_cur * sizeof *L->hot_rank)))
        abort();
    add_hot(L, w->insts, w->n_insts, L->hot, L->hot_rank, &L->n_cur);
    return 0;
}

static int ck_spans(void *user, const fp_wave_file *f, const fp_wave *w)
{
    (void)user, (void)f, (void)w;
    return 0;
}

static int ck_begin(void *user, const fp_wave_file *f, const fp_wave *w, int64_t n_waits, fp_wave_wcur *wc)
{
    (void)n_waits, (void)wc;
    loader *L = user;
    size_t n = L->cur == f ? L->n_cur : 0;
    fp_html_wave *o = new_wave(L, f, w);
    L->big[L->d->n_waves - 1] = f;
    o->hot = dup_mem(L->hot, n * sizeof *o->hot);
    o->hot_rank = dup_mem(L->hot_rank, n * sizeof *o->hot_rank);
    o->n_hot = n;
    return 1; /* no second pass */
}

static int sum_spans(void *user, const fp_wave *w)
{
    loader *L = user;
    fp_html_cols_add(L->cols, &L->t, w->spans, w->n_spans, L->t0, L->cpp);
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
    loader L = {.d = out};
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
    L.big = calloc(pick.n + 1, sizeof *L.big);
    if (!out->waves || !L.big)
        abort();
    L.chunked = (fp_wave_chunked){0, 0, ck_rows, ck_spans, ck_begin, ck_rows, NULL};
    fp_wave_chunked_sizes(&L.chunked);
    fp_wave_walker wk;
    fp_wave_walker_init(&wk);
    wk.chunked = &L.chunked;
    fp_wave_walk_with(&wk, dir, &pick, on_wave, on_skip, &L);
    fp_wave_walker_free(&wk);
    /* the columns of the waves read in chunks, on the axis of them all (a file that no
     * longer reads - changed since - is drawn empty) */
    fp_html_axis(out, &L.t0, &(int64_t){0}, &L.cpp);
    for (size_t i = 0; i < out->n_waves; i++) {
        if (!L.big[i])
            continue;
        L.cols = out->waves[i].cols = calloc(FP_HTML_TL_W, sizeof *out->waves[i].cols);
        if (!L.cols)
            abort();
        L.t = out->waves[i].begin;
        if (fp_wave_spans_chunked(dir, L.big[i], L.chunked.rows, sum_spans, &L) != 0)
            memset(L.cols, 0, FP_HTML_TL_W * sizeof *L.cols);
    }
    free(L.big);
    free(L.hot);
    free(L.hot_rank);
    free(pick.files);
    fp_wave_list_free(&list);
}

void fp_html_data_free(fp_html_data *d)
{
    for (size_t i = 0; i < d->n_waves; i++) {
        free(d->waves[i].spans);
        free(d->waves[i].hot);
        free(d->waves[i].hot_rank);
        free(d->waves[i].cols);
    }
    free(d->waves);
    fp_snapshots_free(&d->snaps);
    memset(d, 0, sizeof *d);
}
