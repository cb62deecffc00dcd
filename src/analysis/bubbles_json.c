/*
 * bubbles_json.c - fp_bubbles -> the bubbles.json document (fp_bubbles_doc,
 * bubbles_doc.h), in ONE place; the model's table (src/model/bubbles_doc.c)
 * writes it with the fixed key order documented in docs/commands/bubbles.md.
 * Lists are ranked with stable sorts (ties keep code order) so the artifact is
 * byte-for-byte reproducible. Percentages are rounded here as the file has them
 * (pct()); every other number is rounded by the table's decimals when written.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bubbles_internal.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/json.h"
#include "flyprof/satmath.h"
#include "flyprof/team.h"


static const char *const RANK_NAMES[] = {"exposed", "stall", "latency"};

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? fp_round(100.0 * (double)part / (double)whole, 2) : 0.0;
}

/* ---- stable ranking helpers ---- */

typedef struct keyed {
    int64_t k1, k2;
    size_t i;
} keyed;

/* k1 descending, then k2 descending, then i ascending: a total order (the i are
 * distinct), so any correct sort gives the one result qsort gave. */
static inline bool keyed_before(const keyed *x, const keyed *y)
{
    if (x->k1 != y->k1)
        return x->k1 > y->k1;
    if (x->k2 != y->k2)
        return x->k2 > y->k2;
    return x->i < y->i;
}

/* Sort v[0 .. n) by keyed_before: insertion sort for short runs, then bottom-up
 * merges, the comparison inlined (qsort's callback per comparison was ~0.9 M
 * instructions for the 1.5k hotspots of one dispatch). */
static void sort_keyed(keyed *v, size_t n)
{
    enum { RUN = 16 };
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            keyed x = v[i];
            size_t j = i;
            for (; j > lo && keyed_before(&x, &v[j - 1]); j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
    }
    if (n <= RUN)
        return;
    keyed *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        abort();
    keyed *src = v, *dst = tmp;
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                dst[o++] = keyed_before(&src[b], &src[a]) ? src[b++] : src[a++];
            while (a < mid)
                dst[o++] = src[a++];
            while (b < hi)
                dst[o++] = src[b++];
        }
        keyed *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    free(tmp);
}

static int64_t rank_key(fp_rank_by r, int64_t exposed, int64_t stall, int64_t latency)
{
    return r == FP_RANK_EXPOSED ? exposed : r == FP_RANK_STALL ? stall : latency;
}

size_t *fp_bubbles_hotspot_order(const fp_bubbles *b, size_t *n)
{
    keyed *v = malloc((b->code.n + 1) * sizeof *v);
    if (!v)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < b->code.n; i++) {
        const fp_inst *r = &b->code.rows[i];
        if (!r->index_ok || r->isa[0] == ';' || r->stall <= 0)
            continue;
        v[k++] = (keyed){rank_key(b->rank_by, b->insts[i].exposed, r->stall, r->latency), r->stall, i};
    }
    sort_keyed(v, k);
    size_t *out = malloc((k + 1) * sizeof *out);
    if (!out)
        abort();
    for (size_t i = 0; i < k; i++)
        out[i] = v[i].i;
    free(v);
    *n = k;
    return out;
}

static int64_t hidden_of(int64_t wave_stall, int64_t exposed)
{
    return wave_stall > exposed ? wave_stall - exposed : 0;
}


static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

/* For arrays whose every entry is written before anything reads it: calloc's zeroing
 * was most of the document's calloc cost (a memset of each block: 0.47 M instructions
 * on flash_attn_func-big). */
static void *xmalloc(size_t n, size_t size)
{
    void *p = malloc((n ? n : 1) * size);
    if (!p)
        abort();
    return p;
}

static fp_bub_doc_cycles cycles_of(int64_t sum, int64_t count, int64_t mn, int64_t mx)
{
    return (fp_bub_doc_cycles){count ? (double)sum / (double)count : 0.0, count ? mn : 0, count ? mx : 0};
}

static const char *evidence(int64_t count, int64_t inferred)
{
    return inferred == 0 ? "decoder" : inferred == count ? "inferred" : "mixed";
}

/* The waitcnt pairs by wait row: pairs of row r are idx[start[r] .. start[r + 1]), in
 * pair order. Built once (a counting sort), so the hotspots' waits_on lists cost the
 * pairs once in all, not once per hotspot (quadratic: 1.9 G instructions at 101k rows). */
typedef struct pair_index {
    size_t *start, *idx;
} pair_index;

static void pair_index_build(const fp_bubbles *b, pair_index *px)
{
    size_t nr = b->code.n;
    px->start = xcalloc(nr + 2, sizeof *px->start);
    px->idx = xmalloc(b->n_pairs + 1, sizeof *px->idx); /* read only where written */
    /* counts one slot up (start[r + 2]), so that after the sums start[r + 1] is where row
     * r begins, and after the fill, where it ends: no second counter array */
    for (size_t i = 0; i < b->n_pairs; i++) {
        size_t r = (size_t)b->pairs[i].wait_line;
        if (r < nr)
            px->start[r + 2]++;
    }
    for (size_t r = 0; r + 2 < nr + 2; r++)
        px->start[r + 2] += px->start[r + 1];
    for (size_t i = 0; i < b->n_pairs; i++) {
        size_t r = (size_t)b->pairs[i].wait_line;
        if (r < nr)
            px->idx[px->start[r + 1]++] = i;
    }
}

/* waits_on of one wait row: its pairs, most frequent first. v: scratch of n_pairs + 1. */
static void waits_on(const fp_bubbles *b, const pair_index *px, size_t row, keyed *v, fp_bub_doc_hotspot *h,
                     fp_model_pool **pool)
{
    size_t k = 0;
    if (row < b->code.n)
        for (size_t j = px->start[row]; j < px->start[row + 1]; j++) {
            size_t i = px->idx[j];
            v[k++] = (keyed){b->pairs[i].count, (int64_t)b->pairs[i].stall_share, i};
        }
    sort_keyed(v, k);
    h->waits_on = k ? xcalloc(k, sizeof *h->waits_on) : NULL;
    h->n_waits_on = k;
    for (size_t q = 0; q < k; q++) {
        const fp_bub_pair *p = &b->pairs[v[q].i];
        const fp_inst *pr = &b->code.rows[p->prod_line];
        fp_bub_doc_wait *o = &h->waits_on[q];
        o->code_line = pr->index;
        o->inst = fp_model_pool_dup(pool, pr->isa);
        o->source = fp_model_pool_dup(pool, pr->source);
        o->count = p->count;
        o->load_to_use_cycles = cycles_of(p->cycles_sum, p->count, p->cycles_min, p->cycles_max);
        o->distance_mean = p->count ? (double)p->distance_sum / (double)p->count : 0.0;
        o->stall_share = p->stall_share;
        o->evidence = fp_model_pool_dup(pool, evidence(p->count, p->count_inferred));
    }
}

static void totals_of(const fp_bubbles *b, fp_bub_doc_totals *t, fp_model_pool **pool)
{
    t->instructions = (int64_t)b->n_rows_counted;
    t->latency = b->t_latency;
    t->stall = b->t_stall;
    t->idle = b->t_idle;
    bool ov = false; /* already warned by the analysis (b->overflow) */
    t->issue = fp_sat_sub(b->t_latency, b->t_stall, &ov);
    t->hit = b->t_hit;
    t->stall_pct = pct(b->t_stall, b->t_latency);
    t->waves = (int64_t)b->waves_read;
    t->wave_records = b->w_records;
    t->wave_stall = b->w_stall;
    t->exposed = b->w_exposed;
    t->hidden = hidden_of(b->w_stall, b->w_exposed);
    t->exposed_pct = pct(b->w_exposed, b->w_stall);
    t->hidden_by = fp_model_pool_dup(pool, "issue_windows");
    t->drain_stall = b->drain_stall;
    t->drain_exposed = b->drain_exposed;
    t->drain_hidden = hidden_of(b->drain_stall, b->drain_exposed);
    t->drain_lost = b->drain_wall;
    t->drain_waves = b->drain_waves;
}

static void states_of(const fp_bubbles *b, fp_bub_doc_states *o)
{
    const int64_t *sc = b->state_cycles, *wc = b->wstates_cycles;
    int64_t sum = 0;
    bool ov = false;
    static const int order[] = {FP_WS_EXEC, FP_WS_WAIT, FP_WS_STALL, FP_WS_IDLE};
    for (int i = 0; i < 4; i++)
        sum = fp_sat_add(sum, sc[order[i]], &ov);
    o->exec = sc[FP_WS_EXEC];
    o->wait = sc[FP_WS_WAIT];
    o->stall = sc[FP_WS_STALL];
    o->idle = sc[FP_WS_IDLE];
    o->pct = (fp_bub_doc_states4){pct(sc[FP_WS_EXEC], sum), pct(sc[FP_WS_WAIT], sum), pct(sc[FP_WS_STALL], sum),
                                  pct(sc[FP_WS_IDLE], sum)};
    fp_bub_doc_wstates *w = &o->wstates;
    w->available = b->wstates_available;
    w->exec = wc[FP_WS_EXEC];
    w->wait = wc[FP_WS_WAIT];
    w->stall = wc[FP_WS_STALL];
    w->idle = wc[FP_WS_IDLE];
    bool agrees = b->wstates_available;
    for (int i = 0; i < 4; i++) {
        int s = order[i];
        /* in double: a saturated wstates integral must not wrap the difference */
        double d = (double)wc[s] - (double)sc[s];
        if (d < 0)
            d = -d;
        /* 1% tolerance: the step function merges equal timestamps */
        if (d * 100 > (double)(sc[s] > 0 ? sc[s] : 1))
            agrees = false;
    }
    w->agrees = agrees;
}

static void classes_of(const fp_bubbles *b, fp_bubbles_doc *d)
{
    fp_model_pool **pool = &d->pool;
    keyed v[FP_CL_COUNT];
    size_t k = 0;
    for (int c = 0; c < FP_CL_COUNT; c++)
        if (b->classes[c].cycles > 0 || b->classes[c].wave_stall > 0)
            v[k++] = (keyed){b->classes[c].cycles, b->classes[c].wave_stall, (size_t)c};
    sort_keyed(v, k);
    d->classes = k ? xcalloc(k, sizeof *d->classes) : NULL;
    d->n_classes = k;
    for (size_t i = 0; i < k; i++) {
        const fp_bub_class *c = &b->classes[v[i].i];
        fp_bub_doc_class *o = &d->classes[i];
        o->cls = fp_model_pool_dup(pool, fp_class_name((fp_class)v[i].i));
        o->rank = (int64_t)i + 1;
        o->cycles = c->cycles;
        o->pct = pct(c->cycles, b->t_stall);
        o->is_bubble = fp_class_is_bubble((fp_class)v[i].i);
        o->exposed = c->exposed;
        o->hidden = hidden_of(c->wave_stall, c->exposed);
        o->gain_upper_pct = fp_bubbles_gain_pct(b, c->wall);
        o->instructions = c->static_count;
        o->hit = c->hit;
    }
}

/* "0x%llx" of v (snprintf was ~700 instructions a hotspot) */
static char *hex_addr(int64_t v, fp_model_pool **pool)
{
    char buf[24], *e = buf + sizeof buf, *q = e;
    unsigned long long u = (unsigned long long)v;
    *--q = '\0';
    do {
        *--q = "0123456789abcdef"[u & 15];
        u >>= 4;
    } while (u);
    *--q = 'x';
    *--q = '0';
    return fp_model_pool_dup(pool, q);
}

/* Hotspots [lo, hi) of the ranked rows ord: each entry and its waits_on, strings into
 * *pool. Entries are independent: two threads may take disjoint ranges, each with a
 * pool of its own (and its own scratch). */
typedef struct hot_job {
    const fp_bubbles *b;
    fp_bubbles_doc *d;
    const size_t *ord;
    const pair_index *px;
    size_t lo, hi;
    fp_model_pool *pool;
    fp_task th;
} hot_job;

static void *hot_rows(void *p)
{
    hot_job *j = p;
    const fp_bubbles *b = j->b;
    keyed *v = xmalloc(b->n_pairs + 1, sizeof *v);
    for (size_t i = j->lo; i < j->hi; i++) {
        size_t row = j->ord[i];
        const fp_inst *r = &b->code.rows[row];
        const fp_bub_inst *x = &b->insts[row];
        fp_bub_doc_hotspot *o = &j->d->hotspots[i];
        o->rank = (int64_t)i + 1;
        o->code_line = r->index;
        o->addr = hex_addr(r->vaddr, &j->pool);
        o->inst = fp_model_pool_dup(&j->pool, r->isa);
        o->cls = fp_model_pool_dup(&j->pool, fp_class_name(x->cls));
        o->is_bubble = fp_class_is_bubble(x->cls);
        o->source = fp_model_pool_dup(&j->pool, r->source);
        o->hit = r->hit;
        o->latency = r->latency;
        o->stall = r->stall;
        o->idle = r->idle;
        o->exposed = x->exposed;
        o->hidden = hidden_of(x->w_stall, x->exposed);
        o->stall_pct = pct(r->stall, r->latency);
        o->share_pct = pct(r->stall, b->t_stall);
        o->gain_upper_pct = fp_bubbles_gain_pct(b, x->wall);
        waits_on(b, j->px, row, v, o, &j->pool);
    }
    free(v);
    return NULL;
}

/* Below this many hotspots one thread builds them: a thread costs more than it saves. */
#define HOT_SPLIT_MIN 64

/* The hotspots. With jobs >= 2 a second thread builds them all (~0.9 M instructions on
 * flash_attn_func-big) while this one, which ranked them (0.43 M), builds the other lists
 * (~0.45 M): about even (*late: join with hotspots_join). The entries are the same either
 * way and the strings end in one pool. */
static void hotspots_of(const fp_bubbles *b, fp_bubbles_doc *d, int jobs, hot_job *late, pair_index *px)
{
    size_t n;
    size_t *ord = fp_bubbles_hotspot_order(b, &n);
    pair_index_build(b, px);
    d->hotspots = n ? xmalloc(n, sizeof *d->hotspots) : NULL; /* hot_rows sets every field */
    d->n_hotspots = n;
    hot_job early = {.b = b, .d = d, .ord = ord, .px = px, .lo = 0, .hi = n, .pool = d->pool};
    *late = early;
    late->pool = NULL;
    late->lo = late->hi = n; /* nothing: no thread */
    if (jobs >= 2 && n >= HOT_SPLIT_MIN) {
        late->lo = early.hi = 0;
        if (fp_task_start(&late->th, hot_rows, late) != 0)
            late->lo = early.hi = n; /* no thread: all here */
    }
    hot_rows(&early);
    d->pool = early.pool;
}

/* The second thread's hotspots done: its strings into the document's pool. */
static void hotspots_join(fp_bubbles_doc *d, hot_job *late, pair_index *px)
{
    if (late->lo < late->hi)
        fp_task_join(&late->th);
    fp_model_pool_adopt(&d->pool, late->pool);
    free(px->start);
    free(px->idx);
    free((void *)late->ord);
}

static void lines_of(const fp_bubbles *b, fp_bubbles_doc *d)
{
    fp_model_pool **pool = &d->pool;
    keyed *v = xcalloc(b->n_lines + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < b->n_lines; i++) {
        const fp_bub_line *L = &b->lines[i];
        if (L->stall > 0)
            v[k++] = (keyed){rank_key(b->rank_by, L->exposed, L->stall, L->latency), L->stall, i};
    }
    sort_keyed(v, k);
    d->lines = k ? xcalloc(k, sizeof *d->lines) : NULL;
    d->n_lines = k;
    for (size_t i = 0; i < k; i++) {
        const fp_bub_line *L = &b->lines[v[i].i];
        fp_bub_doc_line *o = &d->lines[i];
        o->source = fp_model_pool_dup(pool, L->source);
        o->file = fp_model_pool_dup(pool, L->file);
        o->line = L->line >= 0 ? fp_optd_of((double)L->line) : fp_optd_none();
        o->stall = L->stall;
        o->pct = pct(L->stall, b->t_stall);
        o->exposed = L->exposed;
        o->hidden = hidden_of(L->wave_stall, L->exposed);
        o->latency = L->latency;
        o->hit = L->hit;
        int best = 0;
        for (int c = 1; c < FP_CL_COUNT; c++)
            if (L->class_cycles[c] > L->class_cycles[best])
                best = c;
        o->dom_class = fp_model_pool_dup(pool, fp_class_name((fp_class)best));
        o->gain_upper_pct = fp_bubbles_gain_pct(b, L->wall);
        o->instructions = (int64_t)L->n_insts;
    }
    free(v);
}

static void files_of(const fp_bubbles *b, fp_bubbles_doc *d)
{
    fp_model_pool **pool = &d->pool;
    /* files in first-seen line order, then ranked by stall */
    typedef struct fagg {
        const char *file;
        int64_t stall, exposed, latency;
    } fagg;
    fagg *f = xcalloc(b->n_lines + 1, sizeof *f);
    size_t nf = 0;
    for (size_t i = 0; i < b->n_lines; i++) {
        const fp_bub_line *L = &b->lines[i];
        size_t j = 0;
        while (j < nf && strcmp(f[j].file, L->file))
            j++;
        if (j == nf)
            f[nf++].file = L->file;
        bool ov = false; /* saturation already warned by the analysis */
        f[j].stall = fp_sat_add(f[j].stall, L->stall, &ov);
        f[j].exposed = fp_sat_add(f[j].exposed, L->exposed, &ov);
        f[j].latency = fp_sat_add(f[j].latency, L->latency, &ov);
    }
    keyed *v = xcalloc(nf + 1, sizeof *v);
    for (size_t i = 0; i < nf; i++)
        v[i] = (keyed){f[i].stall, f[i].latency, i};
    sort_keyed(v, nf);
    d->files = nf ? xcalloc(nf, sizeof *d->files) : NULL;
    d->n_files = nf;
    for (size_t i = 0; i < nf; i++) {
        const fagg *x = &f[v[i].i];
        d->files[i] = (fp_bub_doc_file){fp_model_pool_dup(pool, x->file), x->stall, pct(x->stall, b->t_stall), x->exposed, x->latency};
    }
    free(v);
    free(f);
}

static void mix_of(const fp_bubbles *b, fp_bub_doc_inst_mix *o, fp_model_pool **pool)
{
    int64_t cnt[FP_CL_COUNT] = {0}, hit[FP_CL_COUNT] = {0}, tc = 0, th = 0;
    for (size_t i = 0; i < b->code.n; i++) {
        const fp_inst *r = &b->code.rows[i];
        if (!r->index_ok || r->isa[0] == ';')
            continue;
        fp_class c = b->insts[i].cls;
        cnt[c]++;
        bool ov = false; /* code.json hit cells are untrusted (warned by the analysis) */
        hit[c] = fp_sat_add(hit[c], r->hit, &ov);
        tc++;
        th = fp_sat_add(th, r->hit, &ov);
    }
    for (int pass = 0; pass < 2; pass++) {
        const int64_t *x = pass ? hit : cnt;
        int64_t tot = pass ? th : tc;
        keyed v[FP_CL_COUNT];
        size_t k = 0;
        for (int c = 0; c < FP_CL_COUNT; c++)
            if (x[c] > 0)
                v[k++] = (keyed){x[c], 0, (size_t)c};
        sort_keyed(v, k);
        fp_bub_doc_mix *a = k ? xcalloc(k, sizeof *a) : NULL;
        for (size_t i = 0; i < k; i++)
            a[i] = (fp_bub_doc_mix){fp_model_pool_dup(pool, fp_class_name((fp_class)v[i].i)), v[i].k1,
                                    tot ? fp_round((double)v[i].k1 / (double)tot, 4) : 0.0};
        if (pass) {
            o->dyn = a;
            o->n_dyn = k;
        } else {
            o->stat = a;
            o->n_stat = k;
        }
    }
}

typedef struct pagg {
    int64_t count, inferred, cyc_sum, cyc_min, cyc_max, dist_sum;
    double share;
    bool used;
} pagg;

static void pagg_add(pagg *a, const fp_bub_pair *p)
{
    if (!a->used) {
        a->cyc_min = INT64_MAX;
        a->cyc_max = INT64_MIN;
        a->used = true;
    }
    a->count += p->count;
    a->inferred += p->count_inferred;
    a->cyc_sum += p->cycles_sum;
    a->dist_sum += p->distance_sum;
    a->share += p->stall_share;
    if (p->cycles_min < a->cyc_min)
        a->cyc_min = p->cycles_min;
    if (p->cycles_max > a->cyc_max)
        a->cyc_max = p->cycles_max;
}

/* pr[row] is set only where seen[row] (a producer row) */
static void producers_of(const fp_bubbles *b, const pagg *pr, const unsigned char *seen, keyed *v,
                         fp_bub_doc_waitcnt *o, fp_model_pool **pool)
{
    size_t k = 0;
    for (size_t i = 0; i < b->code.n; i++)
        if (seen[i])
            v[k++] = (keyed){(int64_t)pr[i].share, pr[i].count, i};
    sort_keyed(v, k);
    o->producers = k ? xcalloc(k, sizeof *o->producers) : NULL;
    o->n_producers = k;
    for (size_t q = 0; q < k; q++) {
        size_t row = v[q].i;
        const pagg *g = &pr[row];
        const fp_inst *r = &b->code.rows[row];
        fp_bub_doc_producer *e = &o->producers[q];
        e->code_line = r->index;
        e->inst = fp_model_pool_dup(pool, r->isa);
        e->source = fp_model_pool_dup(pool, r->source);
        e->cls = fp_model_pool_dup(pool, fp_class_name(b->insts[row].cls));
        e->count = g->count;
        size_t nw = 0;
        for (size_t i = 0; i < b->n_pairs; i++)
            nw += (size_t)b->pairs[i].prod_line == row;
        e->waits = nw ? xcalloc(nw, sizeof *e->waits) : NULL;
        for (size_t i = 0; i < b->n_pairs; i++)
            if ((size_t)b->pairs[i].prod_line == row)
                e->waits[e->n_waits++] = (double)b->code.rows[b->pairs[i].wait_line].index;
        e->load_to_use_cycles = cycles_of(g->cyc_sum, g->count, g->cyc_min, g->cyc_max);
        e->distance_mean = g->count ? (double)g->dist_sum / (double)g->count : 0.0;
        e->stall_share = g->share;
        e->evidence = fp_model_pool_dup(pool, evidence(g->count, g->inferred));
    }
}

static void waitcnt_of(const fp_bubbles *b, fp_bub_doc_waitcnt *o, fp_model_pool **pool)
{
    int64_t inf = 0, all = 0;
    for (size_t i = 0; i < b->n_pairs; i++) {
        inf += b->pairs[i].count_inferred;
        all += b->pairs[i].count;
    }
    o->evidence = fp_model_pool_dup(pool, all == 0 ? "none" : evidence(all, inf));
    o->executions = b->waits_exec;
    o->with_producers = b->waits_with_producers;
    o->inferred = b->waits_inferred;
    o->unmatched_entries = b->waits_unmatched_entries;
    o->producer_missing = b->producer_missing;
    o->producer_not_seen = b->producer_not_seen;

    /* a row's aggregate is zeroed when its first pair comes (a few hundred producer
     * rows of thousands: zeroing them all was a 64 B/row memset) */
    unsigned char *seen = xcalloc(b->code.n + 1, 1);
    pagg *pr = xmalloc(b->code.n + 1, sizeof *pr);
    pagg *pl = xcalloc(b->n_lines + 1, sizeof *pl);
    for (size_t i = 0; i < b->n_pairs; i++) {
        const fp_bub_pair *p = &b->pairs[i];
        size_t pr_row = (size_t)p->prod_line;
        if (!seen[pr_row]) {
            seen[pr_row] = 1;
            pr[pr_row] = (pagg){0};
        }
        pagg_add(&pr[pr_row], p);
        int lid = b->insts[p->prod_line].line_id;
        if (lid >= 0)
            pagg_add(&pl[lid], p);
    }
    keyed *v = xmalloc(b->code.n + b->n_lines + 1, sizeof *v);
    producers_of(b, pr, seen, v, o, pool);
    size_t k = 0;
    for (size_t i = 0; i < b->n_lines; i++)
        if (pl[i].used)
            v[k++] = (keyed){(int64_t)pl[i].share, pl[i].count, i};
    sort_keyed(v, k);
    o->producer_lines = k ? xcalloc(k, sizeof *o->producer_lines) : NULL;
    o->n_producer_lines = k;
    for (size_t q = 0; q < k; q++) {
        const pagg *g = &pl[v[q].i];
        o->producer_lines[q] = (fp_bub_doc_producer_line){
            fp_model_pool_dup(pool, b->lines[v[q].i].source), g->count, g->share,
            g->count ? (double)g->cyc_sum / (double)g->count : 0.0,
            g->count ? (double)g->dist_sum / (double)g->count : 0.0};
    }
    free(v);
    free(seen);
    free(pr);
    free(pl);
}

static void simds_of(const fp_bubbles *b, fp_bubbles_doc *d)
{
    d->simds = b->n_simds ? xcalloc(b->n_simds, sizeof *d->simds) : NULL;
    d->n_simds = b->n_simds;
    for (size_t i = 0; i < b->n_simds; i++) {
        const fp_bub_simd *s = &b->simds[i];
        d->simds[i] = (fp_bub_doc_simd){s->se,    s->cu,    s->simd,    (int64_t)s->waves, s->end - s->begin,
                                        s->issue, s->stall, s->exposed, s->wall};
    }
}

static void occupancy_of(const fp_bubbles *b, fp_bub_doc_occupancy *o)
{
    o->available = b->occ_available;
    o->traced_waves = (int64_t)b->waves_read;
    o->per_se = b->n_occ ? xcalloc(b->n_occ, sizeof *o->per_se) : NULL;
    o->n_per_se = b->n_occ;
    for (size_t i = 0; i < b->n_occ; i++) {
        const fp_bub_occ_se *s = &b->occ[i];
        fp_bub_doc_occ_se *e = &o->per_se[i];
        size_t traced = 0;
        for (size_t k = 0; k < b->n_ses; k++)
            if (b->ses[k] == s->se)
                traced = b->ses_waves[k];
        e->se = s->se;
        e->traced_waves = (int64_t)traced;
        e->events = (int64_t)s->events;
        e->peak = s->peak;
        e->mean = s->mean;
        e->t0 = s->t0;
        e->t1 = s->t1;
        size_t nb = s->n_buckets > 0 ? (size_t)s->n_buckets : 0;
        e->over_time = nb ? xcalloc(nb, sizeof *e->over_time) : NULL;
        e->n_over_time = nb;
        for (size_t q = 0; q < nb; q++)
            e->over_time[q] = s->buckets[q];
    }
}

static char **strs_of(char *const *v, size_t n, fp_model_pool **pool)
{
    char **a = n ? xcalloc(n, sizeof *a) : NULL;
    for (size_t i = 0; i < n; i++)
        a[i] = fp_model_pool_dup(pool, v[i]);
    return a;
}

static void quality_of(const fp_bubbles *b, fp_bub_doc_quality *o, fp_model_pool **pool)
{
    o->waves_listed = (int64_t)b->waves_listed;
    o->waves_read = (int64_t)b->waves_read;
    o->waves_skipped = (int64_t)b->waves_skipped;
    o->skipped = strs_of(b->skipped_names, b->n_skipped_names, pool);
    o->n_skipped = b->n_skipped_names;
    o->waves_truncated = (int64_t)b->waves_truncated;
    o->filenames_json = b->filenames_json;
    o->listed_missing = (int64_t)b->listed_missing;
    o->unlisted = (int64_t)b->unlisted;
    int ses[64];
    size_t n = b->n_ses;
    memcpy(ses, b->ses, n * sizeof *ses);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && ses[j - 1] > ses[j]; j--) {
            int t = ses[j];
            ses[j] = ses[j - 1];
            ses[j - 1] = t;
        }
    o->ses = n ? xcalloc(n, sizeof *o->ses) : NULL;
    o->n_ses = n;
    for (size_t i = 0; i < n; i++)
        o->ses[i] = ses[i];
    int64_t mapped = 0;
    bool ov = false;
    for (size_t i = 0; i < b->n_lines; i++)
        mapped = fp_sat_add(mapped, b->lines[i].latency, &ov);
    o->latency_mapped_pct = pct(mapped, b->t_latency);
    o->unknown_line_records = b->unknown_line_records;
    o->code_vs_waves = (fp_bub_doc_code_vs_waves){b->t_hit, b->w_records, b->t_stall, b->w_stall,
                                                  b->t_hit == b->w_records && b->t_stall == b->w_stall};
    /* empty_shells: filled by the command from the dispatch inventory */
    o->decoder_warnings = strs_of(b->decoder_warnings, b->n_decoder_warnings, pool);
    o->n_decoder_warnings = b->n_decoder_warnings;
    o->confidence = fp_model_pool_dup(pool, b->confidence ? b->confidence : "low");
    o->reasons = strs_of(b->reasons, b->n_reasons, pool);
    o->n_reasons = b->n_reasons;
}

void fp_bubbles_doc_build(const fp_bubbles *b, fp_bubbles_doc *d) { fp_bubbles_doc_build_jobs(b, d, 1); }

void fp_bubbles_doc_build_jobs(const fp_bubbles *b, fp_bubbles_doc *d, int jobs)
{
    memset(d, 0, sizeof *d);
    fp_model_pool **pool = &d->pool; /* every string of the document (fp_bubbles_doc_free) */
    d->schema = FP_BUBBLES_SCHEMA;
    d->dispatch.dir = fp_model_pool_dup(pool, b->dispatch_dir);
    d->dispatch.name = fp_model_pool_dup(pool, b->dispatch_name);
    d->dispatch.symbol = fp_model_pool_dup(pool, b->symbol);
    d->rank_by = fp_model_pool_dup(pool, RANK_NAMES[b->rank_by]);
    totals_of(b, &d->totals, pool);
    states_of(b, &d->wave_states);
    classes_of(b, d);
    hot_job late; /* the later hotspots, on a second thread while the lists below are built */
    pair_index px;
    hotspots_of(b, d, jobs, &late, &px);
    lines_of(b, d);
    files_of(b, d);
    mix_of(b, &d->inst_mix, pool);
    waitcnt_of(b, &d->waitcnt, pool);
    simds_of(b, d);
    d->gain.span_total = b->w_span;
    d->gain.formula = fp_model_pool_dup(pool, "gain_upper_pct = 100 * lost / span_total; lost = SIMD cycles in which no wave issues and at "
                           "least one wave stalls on the class/instruction/line (counted once); span_total = sum over "
                           "traced SIMDs of (last wave end - first wave begin). See docs/exposed-stall.md");
    occupancy_of(b, &d->occupancy);
    fp_trace_facts_to_doc(b, d); /* issue 23 (workdist.c) */
    quality_of(b, &d->quality, pool);
    hotspots_join(d, &late, &px);
}
