/* fuzz_wave_chunked - one wave file read as a wave too big to hold is read (issue 22:
 * fp_wave_chunked, a limit and a chunk of 64 rows): written to a file, walked, and what
 * the chunks hand over - rows, spans, header, the waitcnt entries through their cursor -
 * checked against the whole read of the same bytes (fp_wave_parse). A file the chunked
 * reader declines must come back whole (the walk's callback) with the same content, or be
 * skipped with the whole read's error; never both, never neither. */
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/wave.h"
#include "fuzz_common.h"

typedef struct got {
    const fp_wave *ref;
    size_t rows, spans, rows2;
    int64_t waits;
    size_t prods;
    int begins, ends, wholes, skips;
} got;

static void same_inst(const fp_wave_inst *a, const fp_wave_inst *b)
{
    if (a->time != b->time || a->cat != b->cat || a->stall != b->stall || a->dur != b->dur || a->line != b->line)
        abort();
}

static int scan_rows(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    got *g = u;
    if (w->inst_base != g->rows || g->rows + w->n_insts > g->ref->n_insts || w->n_insts > 64)
        abort();
    for (size_t i = 0; i < w->n_insts; i++)
        same_inst(&w->insts[i], &g->ref->insts[g->rows + i]);
    g->rows += w->n_insts;
    return 0;
}

static int scan_spans(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    got *g = u;
    if (g->spans + w->n_spans > g->ref->n_spans)
        abort();
    for (size_t i = 0; i < w->n_spans; i++)
        if (w->spans[i].state != g->ref->spans[g->spans + i].state || w->spans[i].dur != g->ref->spans[g->spans + i].dur)
            abort();
    g->spans += w->n_spans;
    return 0;
}

static int on_begin(void *u, const fp_wave_file *f, const fp_wave *w, int64_t n_waits, fp_wave_wcur *wc)
{
    (void)f;
    got *g = u;
    const fp_wave *r = g->ref;
    g->begins++;
    if (g->rows != r->n_insts || g->spans != r->n_spans || w->begin != r->begin || w->end != r->end ||
        w->cu != r->cu || w->has_waitcnt != r->has_waitcnt || n_waits != (int64_t)r->n_waits)
        abort();
    const fp_wave_wait *e;
    const int64_t *pr;
    size_t n;
    while (fp_wave_wcur_next(wc, 5, &e, &pr, &n)) {
        for (size_t i = 0; i < n; i++) {
            const fp_wave_wait *x = &r->waits[g->waits + (int64_t)i];
            if (e[i].line != x->line || e[i].n != x->n)
                abort();
            for (size_t q = 0; q < x->n; q++)
                if (pr[e[i].first + q] != r->prods[x->first + q])
                    abort();
        }
        g->waits += (int64_t)n;
    }
    if (fp_wave_wcur_failed(wc) || g->waits != n_waits)
        abort();
    return 0;
}

static int on_rows(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    got *g = u;
    if (w->inst_base != g->rows2 || g->rows2 + w->n_insts > g->ref->n_insts)
        abort();
    for (size_t i = 0; i < w->n_insts; i++)
        same_inst(&w->insts[i], &g->ref->insts[g->rows2 + i]);
    g->rows2 += w->n_insts;
    return 0;
}

static int on_end(void *u, const fp_wave_file *f, const fp_wave *w, bool ok)
{
    (void)f;
    (void)w;
    got *g = u;
    if (!ok || g->rows2 != g->ref->n_insts)
        abort();
    g->ends++;
    return 0;
}

static int on_whole(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    got *g = u;
    if (w->n_insts != g->ref->n_insts || w->n_spans != g->ref->n_spans || w->n_waits != g->ref->n_waits)
        abort();
    for (size_t i = 0; i < w->n_insts; i++)
        same_inst(&w->insts[i], &g->ref->insts[i]);
    g->wholes++;
    return 0;
}

static void on_skip(void *u, const fp_wave_file *f, const fp_err *err)
{
    (void)f;
    (void)err;
    ((got *)u)->skips++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[64];
    static fp_wave ref;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fz_chunked_%d", (int)getpid());
        if (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0)
            abort();
        fp_wave_init(&ref);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/se0_sm0_sl0_wv0.json", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        abort();
    close(fd);
    fp_err err = {0};
    int rc = fp_wave_parse(&ref, (const char *)data, size, "se0_sm0_sl0_wv0.json", &err);
    fp_err_clear(&err);
    fp_wave_list list;
    if (fp_wave_list_dir(dir, &list, &err) != 0 || list.n != 1)
        abort();
    got g = {.ref = &ref};
    fp_wave_chunked ck = {64, 64, scan_rows, scan_spans, on_begin, on_rows, on_end};
    fp_wave_walker wk;
    fp_wave_walker_init(&wk);
    wk.chunked = &ck;
    if (fp_wave_walk_with(&wk, dir, &list, on_whole, on_skip, &g) != 0)
        abort();
    fp_wave_walker_free(&wk);
    fp_wave_list_free(&list);
    /* exactly one outcome, the whole read's: read (in chunks or whole) or skipped */
    int read = g.ends + g.wholes;
    if (read + g.skips != 1 || (rc == 0) != (read == 1) || g.begins != g.ends)
        abort();
    return 0;
}
