/*
 * bubbles.c - the whole-trace stall analysis (see bubbles.h and
 * docs/commands/bubbles.md).
 *
 * One pass over the wave files, in (SE, SIMD, slot, wave) order. Per wave:
 * per-instruction sums, the waitcnt -> producer attribution (waitcnt.c), the
 * dynamic class of combined waits; the wave's issue (EXEC) intervals and its
 * stall intervals are buffered for its SIMD only. When the walk leaves a SIMD
 * the buffered intervals are swept (exposed.c) and dropped, so memory stays at
 * one file + one SIMD's intervals + the per-instruction results.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bubbles_internal.h"
#include "flyprof/cpus.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/loops.h"
#include "flyprof/order.h"
#include "flyprof/realtime.h"
#include "flyprof/satmath.h"
#include "flyprof/team.h"

/* ---- per-row setup ---- */

/* The distinct source strings of the listing, by content: an open-addressing set
 * of (string, line id), sized to twice the rows. */
typedef struct src_set {
    const char **s;
    int *id;
    size_t mask;
} src_set;

static size_t src_hash(const char *s)
{
    size_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The slot of s: its own, or the empty one where it goes. */
static size_t src_slot(const src_set *t, const char *s)
{
    size_t h = src_hash(s) & t->mask;
    while (t->s[h] && t->s[h] != s && strcmp(t->s[h], s))
        h = (h + 1) & t->mask;
    return h;
}

/* Innermost "file:line" of a source string "a.py:3 -> b.py:9". */
void fp_bub_split_source(const char *src, char **file, long *line)
{
    const char *arrow = strstr(src, " -> ");
    size_t n = arrow ? (size_t)(arrow - src) : strlen(src);
    const char *colon = NULL;
    for (size_t i = n; i-- > 0;)
        if (src[i] == ':') {
            colon = src + i;
            break;
        }
    *line = -1;
    if (colon && colon + 1 < src + n) {
        char *end = NULL;
        long v = strtol(colon + 1, &end, 10);
        if (end == src + n && v >= 0)
            *line = v;
    }
    size_t fl = (*line >= 0 && colon) ? (size_t)(colon - src) : n;
    *file = malloc(fl + 1);
    if (!*file)
        abort();
    memcpy(*file, src, fl);
    (*file)[fl] = '\0';
}

/* One line per distinct source string of the rows that have one (and a LineNumber),
 * ids in order of first appearance in code order; every such row gets its line's id.
 * One pass with a set keyed by the string (equal sources are interned, so most probes
 * end at a pointer compare; was a sort of the rows by strcmp, ~1.7 M instructions
 * for 2k rows). */
static void build_lines(fp_bubbles *b)
{
    size_t n = b->code.n, cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    src_set t = {calloc(cap, sizeof *t.s), calloc(cap, sizeof *t.id), cap - 1};
    size_t *first = malloc((n + 1) * sizeof *first); /* the first row of each line */
    if (!t.s || !t.id || !first)
        abort();
    size_t nl = 0;
    const char *prev = NULL;
    int prev_id = -1;
    for (size_t i = 0; i < n; i++) {
        const fp_inst *r = &b->code.rows[i];
        b->insts[i].line_id = -1;
        if (!r->source[0] || !r->index_ok)
            continue;
        if (r->source != prev) { /* a run of rows of one line: one lookup */
            size_t h = src_slot(&t, r->source);
            if (!t.s[h]) {
                t.s[h] = r->source;
                t.id[h] = (int)nl;
                first[nl++] = i;
            }
            prev = r->source;
            prev_id = t.id[h];
        }
        b->insts[i].line_id = prev_id;
    }
    b->lines = calloc(nl + 1, sizeof *b->lines);
    if (!b->lines)
        abort();
    b->n_lines = nl;
    for (size_t i = 0; i < nl; i++) {
        fp_bub_line *L = &b->lines[i];
        L->source = strdup(b->code.rows[first[i]].source);
        fp_bub_split_source(L->source, &L->file, &L->line);
    }
    free(first);
    free(t.s);
    free(t.id);
}

/* ---- the walk ---- */

static void group_reset(bub_ctx *c, int se, int simd)
{
    c->g_se = se;
    c->g_simd = simd;
    c->g_active = true;
    c->n_st = c->n_ex = 0;
    c->g_flushed = INT64_MIN;
}

/* The walk order and the sweep's watermarks. Groups (SE, SIMD) keep the
 * listing order; inside a group the waves go by begin cycle (filenames.json),
 * so after each wave everything before the next wave's begin can be swept and
 * retired. A group with a wave filenames.json does not date keeps the listing
 * order and is swept whole at its end (memory: the group, as before). */
typedef struct walk_plan {
    fp_wave_list list;  /* files in walk order: the listing's own array, reordered */
    int64_t *watermark; /* per position: sweep up to here after that wave */
} walk_plan;

#define WM_NONE INT64_MIN /* no sweep yet (more waves of an undated group follow) */

static int cmp_walk(const void *a, const void *b)
{
    const fp_wave_file *x = a, *y = b;
    if (x->se != y->se)
        return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* One (SE, SIMD) group in cmp_walk's order: the listing holds it in pos order, so a
 * stable order by begin alone (fp_order_u64) is that order; qsort when it does not. */
static void order_group(fp_wave_file *f, size_t n)
{
    bool by_pos = true;
    for (size_t i = 1; i < n && by_pos; i++)
        by_pos = f[i - 1].pos < f[i].pos;
    if (!by_pos || n < 2) {
        if (n)
            qsort(f, n, sizeof *f, cmp_walk);
        return;
    }
    uint64_t *key = malloc(n * sizeof *key);
    if (!key)
        abort();
    for (size_t i = 0; i < n; i++)
        key[i] = fp_order_key_i64(f[i].begin);
    fp_order_by_u64(f, n, sizeof *f, key);
    free(key);
}

/* The listing's files are put in walk order where they are (each keeps its listing
 * position, pos; nothing reads the listing order after this): a copy of them was a fresh
 * 56 bytes a file (moe_reduce-big's 4,112 files: ~56 page faults). */
static void plan_walk(fp_wave_list *in, bool bounded, walk_plan *p)
{
    p->list = *in;
    p->watermark = malloc((in->n + 1) * sizeof *p->watermark);
    if (!p->watermark)
        abort();
    size_t g0 = 0;
    while (g0 < in->n) {
        size_t g1 = g0;
        bool dated = bounded;
        while (g1 < in->n && in->files[g1].se == in->files[g0].se && in->files[g1].simd == in->files[g0].simd) {
            dated &= in->files[g1].has_begin;
            g1++;
        }
        fp_wave_file *f = p->list.files + g0;
        if (dated)
            order_group(f, g1 - g0);
        for (size_t i = g0; i < g1; i++)
            p->watermark[i] = i + 1 == g1 ? INT64_MAX : dated ? p->list.files[i + 1].begin : WM_NONE;
        g0 = g1;
    }
}


/* ---- workers (--jobs): one (SE, SIMD) group at a time each ----
 *
 * Every walk, --jobs 1 included, goes through workers: a worker analyses whole
 * groups into its own partial fp_bubbles (same code rows, its own sums, pairs,
 * SIMDs) and records what depends on the walk order per group: the warnings,
 * the skipped files named, the SEs seen, and each pair's stall_share added in
 * that group. The merge then adds the integer sums (order-free) and folds the
 * per-group records in group order, so the output cannot depend on how many
 * workers there were or which one took which group: the floating-point
 * stall_share is always ((g1 + g2) + g3)... over groups in walk order, each
 * group's partial summed in the group's own walk order. */

/* a warning said once per pass (waitcnt.c says it once per ctx; the ctx's
 * flags are reset per group, the merge keeps the first in group order) */
enum { WARN_PLAIN = 0, WARN_ONCE_MISSING, WARN_ONCE_UNKNOWN };

typedef struct grp_warn {
    char *msg;
    int once;
} grp_warn;

typedef struct grp_share {
    size_t pair; /* index into the worker's pairs */
    double share;
} grp_share;

typedef struct grp_out {
    int worker, se;
    size_t waves_read;
    grp_warn *warn;
    size_t n_warn, cap_warn;
    char **skipped;
    size_t n_skipped, cap_skipped;
    grp_share *sh;
    size_t n_sh, cap_sh;
} grp_out;

typedef struct bub_worker {
    bub_ctx c;
    fp_bubbles part;
    int64_t *pair_count; /* per pair: its count at the end of the previous group */
    size_t cap_pc;
    grp_out *cur;
    fp_wave_walker walker; /* read buffer and parsed wave, kept across groups */
    struct walk_job *job;
    int id;
    bool rows_ready;         /* part.insts set up (worker_rows) */
    const fp_bubbles *main_b; /* the main table, whose cls and line_id worker_rows copies */
    fp_wave_chunked chunked; /* how a wave too big to hold is read */
    struct chunk_scan {      /* pass 1 of the wave being read in chunks */
        const fp_wave_file *f;
        const char *why;     /* wave_insane's verdict, from the chunks */
        const char *why_ins; /* the first bad instruction record */
        int64_t tl_t;        /* wave_insane's timeline walk so far */
        int64_t tl_begin;    /* w->begin when the spans were summed */
        bool tl_seen;
        uint64_t state[FP_WS_COUNT];
        int64_t iterations;
        int64_t n_waits;     /* waitcnt entries (pass 1) */
        int cu;              /* the wave's, from pass 1 */
        fp_wave_wcur *wc;    /* ... read through this in pass 2 */
        int32_t last_cat;
    } scan;
} bub_worker;

/* Cycle values beyond 2^50 (~6 days at 2 GHz) are not a kernel trace: a wave
 * carrying one is skipped as malformed, which also keeps every sum below
 * overflow (at most 2^20 records per file x 2^50 fits int64). */
#define BUB_MAX_CYCLE ((int64_t)1 << 50)

static bool in_range(int64_t v) { return v >= 0 && v <= BUB_MAX_CYCLE; }

/* One timeline span on from *t (in range): why it is bad, or NULL with *t past it (no
 * overflow: both terms are at most 2^50). */
static const char *span_insane(int64_t *t, int64_t dur)
{
    if (!in_range(dur))
        return "a timeline duration is out of range";
    *t += dur;
    return in_range(*t) ? NULL : "the timeline runs out of range";
}

static const char *records_insane(const fp_wave_inst *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!in_range(r[i].time) || !in_range(r[i].stall) || !in_range(r[i].dur) || !in_range(r[i].time + r[i].stall))
            return "an instruction record has a cycle value out of range";
    return NULL;
}

static const char *wave_insane(const fp_wave *w)
{
    if (!in_range(w->begin) || !in_range(w->end))
        return "begin/end out of range";
    int64_t t = w->begin;
    for (size_t i = 0; i < w->n_spans; i++) {
        const char *why = span_insane(&t, w->spans[i].dur);
        if (why)
            return why;
    }
    return records_insane(w->insts, w->n_insts);
}

/* The one pass over a wave's timeline and records before anything is summed: wave_insane's
 * verdict and the state sums (into st[], unsigned: they wrap harmlessly when the wave is
 * refused). Every value below 2^49 (the OR of them, as unsigned: a negative one is huge)
 * keeps time + stall below 2^50, so wave_insane - the message - is needed only when one
 * is not. *o: the records' ORs, which also tell the pass whether it may skip its clamps. */
#define FAST_BOUND ((uint64_t)1 << 49)
static const char *wave_scan(const fp_wave *w, uint64_t *st, bub_rec_or *o)
{
    uint64_t acc = (uint64_t)w->begin | (uint64_t)w->end, t = (uint64_t)w->begin;
    for (size_t i = 0; i < w->n_spans; i++) {
        uint64_t d = (uint64_t)w->spans[i].dur;
        acc |= d;
        st[w->spans[i].state] += d;
    }
    for (int s = 0; s < FP_WS_COUNT; s++) /* the timeline's end: the sum of the state sums */
        t += st[s];
    /* 2^15 values under 2^49 cannot wrap the unsigned sum */
    bool ok = acc < FAST_BOUND && t <= (uint64_t)BUB_MAX_CYCLE && w->n_spans < ((size_t)1 << 15);
    *o = bub_rec_bits(w->insts, w->n_insts); /* 1.25 vector ORs per record where there is AVX2 */
    return ok && o->cyc < FAST_BOUND ? NULL : wave_insane(w);
}

/* Does the wave pass count the main loop's head line (its executions, fp_bub_line_hits)?
 * The records of that line are exactly the ones it counts when the line's row is known. */
static bool head_known(const fp_bubbles *b)
{
    return b->wd_head_line >= 0 && fp_code_at(&b->code, b->wd_head_line) != NULL;
}

/* The wave's executions of the main loop's head line (workdist.c), -1 without a main loop:
 * from the pass's count of the line before and after the wave, else by a walk of the records. */
static int64_t head_iterations(const bub_ctx *c, const fp_wave *w, bool known, int64_t hit0)
{
    const fp_bubbles *b = c->b;
    if (b->wd_head_line < 0)
        return -1;
    if (known)
        return fp_bub_line_hits(c, b->wd_head_line) - hit0;
    int64_t it = 0;
    for (size_t i = 0; i < w->n_insts; i++)
        it += w->insts[i].line == b->wd_head_line;
    return it;
}

static void on_skip(void *user, const fp_wave_file *f, const fp_err *err);

/* A wave read (whole or in chunks): skipped whole when `why` names a bad value, else it
 * opens - its group, its counts, its timeline sums - and true. */
static bool wave_open(bub_ctx *c, const fp_wave_file *f, const fp_wave *w, const char *why, bool truncated,
                      const uint64_t *st)
{
    fp_bubbles *b = c->b;
    if (why) {
        fp_err e = {0};
        fp_err_set(&e, FP_BAD_INPUT, "%s: %s", f->name, why);
        on_skip(c, f, &e);
        return false;
    }
    if (!c->g_active || c->g_se != w->se || c->g_simd != w->simd) {
        if (c->g_active)
            fp_bub_sweep_end_group(c);
        group_reset(c, w->se, w->simd);
    }
    b->waves_read++;
    /* the SE list is in order of first appearance: kept per group, merged in order */
    ((bub_worker *)c->user)->cur->waves_read++;
    b->waves_truncated += truncated;
    /* timeline: state sums (the sweep's in-flight intervals are the instructions' issue
     * windows, not the EXEC state: docs/exposed-stall.md) */
    c->n_ex = c->n_st = 0;
    for (int s = 0; s < FP_WS_COUNT; s++)
        b->state_cycles[s] += (int64_t)st[s];
    c->cur_pos = f->pos;
    return true;
}

/* The wave's intervals to the sweep, swept up to the next wave's begin: 1 when the pass
 * must be redone unbounded (filenames.json dates a wave after one of its events). */
static int wave_close(bub_ctx *c, const fp_wave_file *f, const fp_wave *w)
{
    fp_bub_sweep_add_wave(c, w->cu, w->begin, w->end, f->pos);
    if (c->order_broken)
        return 1;
    int64_t wm = c->watermark[f - c->walk_files];
    if (wm != WM_NONE)
        fp_bub_sweep_flush(c, wm);
    return 0;
}

static int on_wave(void *user, const fp_wave_file *f, const fp_wave *w)
{
    bub_ctx *c = user;
    fp_bubbles *b = c->b;
    uint64_t st[FP_WS_COUNT] = {0};
    bub_rec_or o;
    const char *why = wave_scan(w, st, &o);
    if (!wave_open(c, f, w, why, w->n_insts == 0 || w->insts[w->n_insts - 1].cat != FP_CAT_MESSAGE, st))
        return 0;
    bool known = head_known(b);
    int64_t hit0 = known ? fp_bub_line_hits(c, b->wd_head_line) : 0;
    fp_bub_wave_insts(c, w, 0, &o);
    FP_GROW(b->wd, b->n_wd, b->cap_wd); /* issue 23: the wave's work (workdist.c) */
    fp_wd_wave_of(w, head_iterations(c, w, known, hit0), &b->wd[b->n_wd++]);
    return wave_close(c, f, w);
}

static void on_skip(void *user, const fp_wave_file *f, const fp_err *err)
{
    bub_ctx *c = user;
    c->b->waves_skipped++;
    /* the first FP_BUB_MAX_NAMED in walk order: kept per group, merged in order */
    grp_out *g = ((bub_worker *)c->user)->cur;
    if (g->n_skipped < FP_BUB_MAX_NAMED) {
        FP_GROW(g->skipped, g->n_skipped, g->cap_skipped);
        g->skipped[g->n_skipped++] = strdup(err->message);
    }
    if (c->warn) {
        char msg[FP_ERR_MSG_MAX + 64];
        snprintf(msg, sizeof msg, "skipped wave file %s: %s", f->name, err->message);
        c->warn(c->user, msg);
    }
}


/* Warnings of one pass are held until it completes: a pass that has to be
 * redone unbounded must not leave half its warnings behind. */
typedef struct warn_buf {
    char **msg;
    size_t n, cap;
} warn_buf;

static void warn_collect(void *user, const char *msg)
{
    warn_buf *wb = user;
    FP_GROW(wb->msg, wb->n, wb->cap);
    wb->msg[wb->n++] = strdup(msg);
}

/* ---- the walk over groups, by `jobs` workers ---- */

typedef struct walk_job {
    const char *dir;
    const walk_plan *plan;
    const size_t *gstart; /* group g: plan files [gstart[g], gstart[g + 1]) */
    size_t n_groups;
    grp_out *out;         /* per group */
    atomic_size_t next;   /* next group to take */
    atomic_bool stop;     /* a worker found filenames.json misdating a wave */
    const volatile sig_atomic_t *cancel; /* SIGINT/SIGTERM seen (main.c), may be NULL */
    atomic_bool cancelled;               /* ... so the workers stopped taking groups */
    atomic_bool changed;                 /* a wave file read in chunks changed between passes */
} walk_job;

/* ---- a wave too big to hold, read in chunks (fp_wave_chunked; issue 22) ----
 * Pass 1 decides what wave_insane decides and sums the timeline, into the worker's
 * scratch only: a bad wave is skipped whole, before any sum, as a held one is. begin()
 * then opens the wave as on_wave does; pass 2 runs the instruction pass chunk by chunk
 * (waitcnt entries come through their own cursor); end() closes it as on_wave does. */

static struct chunk_scan *scan_of(bub_ctx *c, const fp_wave_file *f)
{
    struct chunk_scan *s = &((bub_worker *)c->user)->scan;
    if (s->f != f) { /* a new wave (a pass 1 that was declined leaves nothing behind) */
        memset(s, 0, sizeof *s);
        s->f = f;
    }
    return s;
}

static int scan_rows(void *user, const fp_wave_file *f, const fp_wave *w)
{
    struct chunk_scan *s = scan_of(user, f);
    int64_t head = ((bub_ctx *)user)->b->wd_head_line;
    if (!s->why_ins)
        s->why_ins = records_insane(w->insts, w->n_insts);
    for (size_t i = 0; head >= 0 && i < w->n_insts; i++)
        s->iterations += w->insts[i].line == head;
    if (w->n_insts)
        s->last_cat = w->insts[w->n_insts - 1].cat;
    return 0;
}

static int scan_spans(void *user, const fp_wave_file *f, const fp_wave *w)
{
    struct chunk_scan *s = scan_of(user, f);
    if (!s->tl_seen) { /* a begin out of range is the verdict anyway: the walk starts at 0 */
        s->tl_seen = true;
        s->tl_begin = w->begin;
        s->tl_t = in_range(w->begin) ? w->begin : 0;
    }
    for (size_t i = 0; i < w->n_spans && !s->why; i++) { /* the first bad span decides */
        if ((s->why = span_insane(&s->tl_t, w->spans[i].dur)) == NULL)
            s->state[w->spans[i].state] += (uint64_t)w->spans[i].dur;
    }
    return 0;
}

static bool more_waits(void *user, bub_waits *q)
{
    bub_worker *wk = user;
    size_t n, batch = wk->chunked.rows < 4096 ? wk->chunked.rows : 4096;
    bool got = fp_wave_wcur_next(wk->scan.wc, batch, &q->e, &q->prods, &n);
    q->n = n;
    q->k = 0;
    return got;
}

static int chunk_begin(void *user, const fp_wave_file *f, const fp_wave *w, int64_t n_waits, fp_wave_wcur *wc)
{
    bub_ctx *c = user;
    fp_bubbles *b = c->b;
    struct chunk_scan *s = scan_of(c, f);
    if (s->tl_seen && s->tl_begin != w->begin)
        return -1; /* "begin" after the timeline: the sums above used the wrong start */
    const char *why = !in_range(w->begin) || !in_range(w->end) ? "begin/end out of range" : s->why ? s->why : s->why_ins;
    if (!wave_open(c, f, w, why, w->inst_base == 0 || s->last_cat != FP_CAT_MESSAGE, s->state))
        return 1; /* skipped: no second pass */
    FP_GROW(b->wd, b->n_wd, b->cap_wd);
    fp_wd_wave *o = &b->wd[b->n_wd++];
    fp_wave hdr = *w; /* the header with the row count of pass 1 */
    hdr.n_insts = w->inst_base;
    fp_wd_wave_of(&hdr, b->wd_head_line >= 0 ? s->iterations : -1, o);
    s->n_waits = n_waits;
    s->cu = w->cu;
    s->wc = wc;
    bub_waits q = {NULL, NULL, 0, 0, 0, more_waits, c->user};
    fp_bub_wave_begin(c, w->has_waitcnt && n_waits > 0, &q);
    return 0;
}

/* After each chunk its intervals join the sweep and everything before the wave's next
 * possible event (and the next wave's begin) is swept, so memory stays at a chunk plus
 * the events still ahead. Only where the walk is bounded: elsewhere the wave's intervals
 * are held to its end, as for a wave read whole. Windows out of time order need the
 * whole wave's union: the pass is redone unbounded, which holds them. */
static int chunk_rows(void *user, const fp_wave_file *f, const fp_wave *w)
{
    bub_ctx *c = user;
    /* The scan pass checked these rows, but the file is read again: one changed since may
     * hold values the walk refuses, and the pass takes a stall as it is (waitcnt.c), so a
     * row out of range now is the file's change, as a different count of waits is. */
    if (records_insane(w->insts, w->n_insts)) {
        atomic_store(&((bub_worker *)c->user)->job->changed, true);
        return 3;
    }
    fp_bub_wave_chunk(c, w->insts, w->n_insts, 0, NULL);
    int64_t wm = c->watermark[f - c->walk_files];
    if (!c->bounded_pass || wm == WM_NONE || w->n_insts == 0)
        return 0;
    if (c->ex_unsorted) {
        c->order_broken = true;
        return 1;
    }
    int64_t safe = fp_bub_sweep_add_chunk(c, ((bub_worker *)c->user)->scan.cu, w->insts[w->n_insts - 1].time);
    if (c->order_broken)
        return 1;
    fp_bub_sweep_flush(c, safe < wm ? safe : wm);
    return c->order_broken ? 1 : 0;
}

static int chunk_end(void *user, const fp_wave_file *f, const fp_wave *w, bool ok)
{
    bub_ctx *c = user;
    bub_worker *wk = c->user;
    if (!ok) {
        atomic_store(&wk->job->changed, true);
        return 3;
    }
    fp_bub_wave_end(c, wk->scan.n_waits);
    return wave_close(c, f, w);
}

static fp_wave_chunked chunked_reader(void)
{
    fp_wave_chunked ck = {0, 0, scan_rows, scan_spans, chunk_begin, chunk_rows, chunk_end};
    fp_wave_chunked_sizes(&ck);
    return ck;
}

static bool starts_with(const char *m, const char *p) { return strncmp(m, p, strlen(p)) == 0; }

static void worker_warn(void *user, const char *msg)
{
    bub_worker *w = user;
    grp_out *g = w->cur;
    FP_GROW(g->warn, g->n_warn, g->cap_warn);
    /* waitcnt.c's once-per-pass warnings, known by their fixed openings */
    int once = starts_with(msg, "waitcnt producer line ")  ? WARN_ONCE_MISSING
               : starts_with(msg, "wave records name line ") ? WARN_ONCE_UNKNOWN
                                                              : WARN_PLAIN;
    g->warn[g->n_warn++] = (grp_warn){strdup(msg), once};
}

/* A worker's ctx is a copy of the main one (so every field fp_bub_ctx_init
 * sets is there) sharing its read-only per-row tables; the latest-execution table
 * and every walk buffer are its own. */
static void worker_init(bub_worker *w, bub_ctx *mc, walk_job *job, int id)
{
    memset(w, 0, sizeof *w);
    const fp_bubbles *b = mc->b;
    w->job = job;
    w->id = id;
    fp_wave_walker_init(&w->walker);
    w->chunked = chunked_reader();
    w->walker.chunked = &w->chunked;
    w->part.code = b->code; /* borrowed: never freed through part */
    /* cls and line_id as set up; every sum is still 0. Worker 0 sums into the main
     * table itself (its sums are what 0 + its own would be; merge_worker adds the
     * others'): one 216 B/row copy (~110 fresh pages on 2k rows) and its merge fewer. */
    w->part.insts = id == 0 ? b->insts : malloc((b->code.n + 1) * sizeof *w->part.insts);
    w->part.lines = calloc(b->n_lines + 1, sizeof *w->part.lines);
    if (!w->part.insts || !w->part.lines)
        abort();
    w->rows_ready = id == 0; /* the others' rows: worker_rows, on their own thread */
    w->main_b = b;
    w->part.n_lines = b->n_lines;
    w->part.wd_head_line = b->wd_head_line;
    w->c = *mc;
    w->c.b = &w->part;
    w->c.warn = worker_warn;
    w->c.user = w;
    w->c.keys_free = NULL; /* its own, on first use */
    w->c.n_keys_free = w->c.cap_keys_free = 0;
    fp_bub_ctx_own_tables(&w->c);
    /* Worker 0 sums into the main ctx's line table itself (the main ctx reads none after
     * the walk); the others fill their own at their first wave. It was copied by every
     * worker: 256 KB on flash_attn_func-big's 2,069 lines (4,096 with the sentinels), ~64
     * fresh pages a copy. */
    if (id == 0)
        fp_bub_inst_tables_adopt(&w->c, mc);
    /* The wave's rows and spans and its interval lists are kept from wave to wave and
     * grew by doubling on the first big wave; every doubling copied into fresh pages
     * (~440 of the 1,970 page faults of flash_attn_func-big). Reserved here at a chunk's
     * rows, at most FP_WAVE_CHUNK_ROWS: address space only, a page costs when a wave
     * reaches it; a bigger wave still doubles from there. A power-of-two multiple of 64
     * at most the whole read's row limit, so the capacities stay those the doublings
     * from 64 give (the limit is checked against the capacity: wave.c make_room). */
    size_t rows = 64;
    while (rows * 2 <= FP_WAVE_CHUNK_ROWS && rows * 2 <= w->chunked.limit)
        rows *= 2;
    FP_RESERVE(w->walker.w.insts, w->walker.w.n_insts, w->walker.w.cap_insts, rows);
    FP_RESERVE(w->walker.w.spans, w->walker.w.n_spans, w->walker.w.cap_spans, rows);
    FP_RESERVE(w->c.st, w->c.n_st, w->c.cap_st, rows);
    FP_RESERVE(w->c.ex, w->c.n_ex, w->c.cap_ex, rows);
    /* one wave summary per file at most: reserved as the rows are (doubling copied them,
     * ~30 fresh pages on moe_reduce-big's 4,112 waves) */
    FP_RESERVE(w->part.wd, w->part.n_wd, w->part.cap_wd, job->plan->list.n);
}

/* A worker's own row table, made on its own thread (a 216 B/row copy, 0.45 M instructions
 * of the main thread's set-up on flash_attn_func-big): before the walk a row holds only
 * cls and line_id, every sum 0. Worker 0 writes only sums into the main table meanwhile,
 * never these two members, so reading them here races with nothing. */
static void worker_rows(bub_worker *w)
{
    if (w->rows_ready)
        return;
    fp_bub_inst_tables_own(&w->c); /* its line table too, here on its thread */
    const fp_bubbles *b = w->main_b;
    for (size_t i = 0; i < b->code.n; i++)
        w->part.insts[i] = (fp_bub_inst){.cls = b->insts[i].cls, .line_id = b->insts[i].line_id};
    w->rows_ready = true;
}

static void worker_free(bub_worker *w)
{
    w->c.row_static = NULL; /* borrowed from the main ctx */
    w->c.row_wait = NULL;
    w->c.row_nopipe = NULL;
    w->c.row_wf = NULL;
    fp_bub_ctx_free(&w->c);
    if (w->id != 0)
        free(w->part.insts); /* worker 0's is the main table */
    free(w->part.lines);
    free(w->part.pairs);
    free(w->part.simds);
    free(w->part.wd);
    free(w->pair_count);
    fp_wave_walker_free(&w->walker);
}

static void worker_group(bub_worker *w, size_t g)
{
    walk_job *j = w->job;
    grp_out *o = &j->out[g];
    size_t a = j->gstart[g], z = j->gstart[g + 1];
    o->worker = w->id;
    o->se = j->plan->list.files[a].se;
    w->cur = o;
    bub_ctx *c = &w->c;
    c->warned_missing = c->warned_unknown = 0;
    fp_wave_list sub = j->plan->list;
    sub.files += a;
    sub.n = z - a;
    if (fp_wave_walk_with(&w->walker, j->dir, &sub, on_wave, on_skip, c) != 0 || c->order_broken) {
        atomic_store(&j->stop, true);
        return;
    }
    if (c->g_active)
        fp_bub_sweep_end_group(c);
    c->g_active = false;
    /* this group's stall_share of every pair it touched (count moved), then 0 */
    fp_bubbles *p = &w->part;
    if (w->cap_pc < p->n_pairs) {
        size_t nc = p->n_pairs * 2;
        w->pair_count = realloc(w->pair_count, nc * sizeof *w->pair_count);
        if (!w->pair_count)
            abort();
        memset(w->pair_count + w->cap_pc, 0, (nc - w->cap_pc) * sizeof *w->pair_count);
        w->cap_pc = nc;
    }
    for (size_t i = 0; i < p->n_pairs; i++) {
        if (p->pairs[i].count == w->pair_count[i])
            continue;
        FP_GROW(o->sh, o->n_sh, o->cap_sh);
        o->sh[o->n_sh++] = (grp_share){i, p->pairs[i].stall_share};
        p->pairs[i].stall_share = 0.0;
        w->pair_count[i] = p->pairs[i].count;
    }
}

static void *worker_main(void *arg)
{
    bub_worker *w = arg;
    walk_job *j = w->job;
    worker_rows(w);
    while (!atomic_load(&j->stop)) {
        if (j->cancel && *j->cancel) { /* a signal: stop between groups, not after the whole walk */
            atomic_store(&j->cancelled, true);
            atomic_store(&j->stop, true);
            break;
        }
        size_t g = atomic_fetch_add(&j->next, 1);
        if (g >= j->n_groups)
            break;
        worker_group(w, g);
    }
    return NULL;
}

static size_t pair_slot(const fp_bubbles *out, const size_t *tab, size_t cap, int64_t wl, int64_t pl)
{
    size_t h = (((size_t)wl * 0x9E3779B97F4A7C15ULL) ^ ((size_t)pl * 0xC2B2AE3D27D4EB4FULL)) & (cap - 1);
    while (tab[h] && (out->pairs[tab[h] - 1].wait_line != wl || out->pairs[tab[h] - 1].prod_line != pl))
        h = (h + 1) & (cap - 1);
    return h;
}

#define ADD(f) out->f += p->f
static void merge_worker(fp_bubbles *out, bub_worker *w, size_t **map, size_t *tab, size_t cap)
{
    fp_bub_inst_fold(&w->c); /* the instruction pass's per-line sums into w->part */
    const fp_bubbles *p = &w->part;
    for (size_t i = 0; i < out->code.n && p->insts != out->insts; i++) { /* worker 0 summed in place */
        fp_bub_inst *x = &out->insts[i];
        const fp_bub_inst *y = &p->insts[i];
        x->w_hit += y->w_hit;
        x->w_stall += y->w_stall;
        x->w_latency += y->w_latency;
        x->exposed += y->exposed;
        x->wall += y->wall;
        for (int q = 0; q < FP_CL_COUNT; q++)
            x->class_cycles[q] += y->class_cycles[q];
    }
    for (size_t i = 0; i < out->n_lines; i++)
        out->lines[i].wall += p->lines[i].wall;
    for (int q = 0; q < FP_CL_COUNT; q++) {
        ADD(classes[q].exposed);
        ADD(classes[q].wall);
    }
    for (int s = 0; s < FP_WS_COUNT; s++)
        ADD(state_cycles[s]);
    ADD(w_records);
    ADD(drain_stall);
    ADD(drain_exposed);
    ADD(drain_wall);
    ADD(drain_waves);
    ADD(unknown_line_records);
    ADD(producer_missing);
    ADD(producer_not_seen);
    ADD(waits_exec);
    ADD(waits_with_producers);
    ADD(waits_inferred);
    ADD(waits_unmatched_entries);
    ADD(waves_read);
    ADD(waves_skipped);
    ADD(waves_truncated);
    /* a worker sweeps one group at a time: the bound is per sweep */
    if (w->c.peak_resident_events > out->peak_resident_events)
        out->peak_resident_events = w->c.peak_resident_events;
    /* SIMDs: each belongs to one group, so to one worker */
    if (p->n_simds) {
        out->simds = realloc(out->simds, (out->n_simds + p->n_simds) * sizeof *out->simds);
        if (!out->simds)
            abort();
        memcpy(out->simds + out->n_simds, p->simds, p->n_simds * sizeof *p->simds);
        out->n_simds += p->n_simds;
    }
    /* wave summaries: workdist.c orders them. The first worker's become the table (a copy
     * of 4,112 of them was ~50 fresh pages on moe_reduce-big) */
    if (out->n_wd == 0 && p->n_wd) {
        free(out->wd);
        out->wd = w->part.wd;
        out->cap_wd = w->part.cap_wd;
        out->n_wd = p->n_wd;
        w->part.wd = NULL;
        w->part.n_wd = w->part.cap_wd = 0;
    }
    for (size_t i = 0; i < p->n_wd; i++) {
        FP_GROW(out->wd, out->n_wd, out->cap_wd);
        out->wd[out->n_wd++] = p->wd[i];
    }
    /* pairs: integer fields merged here; stall_share is folded per group later */
    *map = malloc((p->n_pairs + 1) * sizeof **map);
    if (!*map)
        abort();
    for (size_t i = 0; i < p->n_pairs; i++) {
        const fp_bub_pair *y = &p->pairs[i];
        size_t h = pair_slot(out, tab, cap, y->wait_line, y->prod_line);
        if (!tab[h]) {
            FP_GROW(out->pairs, out->n_pairs, out->cap_pairs);
            fp_bub_pair *x = &out->pairs[out->n_pairs++];
            *x = *y;
            x->stall_share = 0.0;
            tab[h] = out->n_pairs;
        } else {
            fp_bub_pair *x = &out->pairs[tab[h] - 1];
            x->count += y->count;
            x->count_inferred += y->count_inferred;
            x->cycles_sum += y->cycles_sum;
            x->distance_sum += y->distance_sum;
            x->cycles_min = y->cycles_min < x->cycles_min ? y->cycles_min : x->cycles_min;
            x->cycles_max = y->cycles_max > x->cycles_max ? y->cycles_max : x->cycles_max;
            if (y->first_pos < x->first_pos || (y->first_pos == x->first_pos && y->first_seq < x->first_seq)) {
                x->first_pos = y->first_pos;
                x->first_seq = y->first_seq;
            }
        }
        (*map)[i] = tab[h] - 1;
    }
}
#undef ADD

/* What the walk order decides, group by group in walk order. */
static void merge_group(fp_bubbles *out, const grp_out *o, size_t *const *map, bool *said, warn_buf *wb)
{
    if (o->waves_read) {
        size_t i = 0;
        while (i < out->n_ses && out->ses[i] != o->se)
            i++;
        if (i == out->n_ses && out->n_ses < sizeof out->ses / sizeof *out->ses)
            out->ses[out->n_ses++] = o->se;
        if (i < out->n_ses)
            out->ses_waves[i] += o->waves_read;
    }
    for (size_t i = 0; i < o->n_skipped && out->n_skipped_names < FP_BUB_MAX_NAMED; i++) {
        out->skipped_names = realloc(out->skipped_names, (out->n_skipped_names + 1) * sizeof *out->skipped_names);
        if (!out->skipped_names)
            abort();
        out->skipped_names[out->n_skipped_names++] = strdup(o->skipped[i]);
    }
    for (size_t i = 0; i < o->n_warn; i++) {
        int k = o->warn[i].once;
        if (k != WARN_PLAIN && said[k])
            continue;
        said[k] = true;
        warn_collect(wb, o->warn[i].msg);
    }
    for (size_t i = 0; i < o->n_sh; i++)
        out->pairs[map[o->worker][o->sh[i].pair]].stall_share += o->sh[i].share;
}

static void grp_out_free(grp_out *o)
{
    for (size_t i = 0; i < o->n_warn; i++)
        free(o->warn[i].msg);
    free(o->warn);
    for (size_t i = 0; i < o->n_skipped; i++)
        free(o->skipped[i]);
    free(o->skipped);
    free(o->sh);
}

/* The default worker count (docs/commands/bubbles.md, "Threads"): 2 when this process may
 * run on two CPUs (its affinity mask: a cpuset of one makes a second worker pure overhead),
 * else 1. The host's load was tried as a third input and measured out: with the other core
 * busy, a second worker won its CPU share back (flash_attn 0.87x the wall of one). At most
 * 2: more was never measured (and walk_groups starts no more workers than groups). */
int fp_bubbles_default_jobs(void) { return fp_cpus_usable() >= 2 ? 2 : 1; }

/* Walk every group of the plan with `jobs` workers and merge into mc->b.
 * Returns 1 when a wave was misdated (redo unbounded), 2 when *cancel was set, else 0. */
static int walk_groups(const char *dir, const walk_plan *plan, bub_ctx *mc, int jobs,
                       const volatile sig_atomic_t *cancel, warn_buf *wb)
{
    fp_bubbles *out = mc->b;
    const fp_wave_list *L = &plan->list;
    size_t *gstart = malloc((L->n + 2) * sizeof *gstart);
    if (!gstart)
        abort();
    size_t ng = 0;
    for (size_t i = 0; i < L->n; i++)
        if (i == 0 || L->files[i].se != L->files[i - 1].se || L->files[i].simd != L->files[i - 1].simd)
            gstart[ng++] = i;
    gstart[ng] = L->n;
    walk_job job = {.dir = dir, .plan = plan, .gstart = gstart, .n_groups = ng, .cancel = cancel};
    atomic_init(&job.next, 0);
    atomic_init(&job.stop, false);
    atomic_init(&job.cancelled, false);
    job.out = calloc(ng + 1, sizeof *job.out);
    int nw = jobs < 1 ? 1 : jobs;
    if ((size_t)nw > ng)
        nw = ng ? (int)ng : 1;
    bub_worker *ws = calloc((size_t)nw, sizeof *ws);
    if (!job.out || !ws)
        abort();
    for (int k = 0; k < nw; k++)
        worker_init(&ws[k], mc, &job, k);
    fp_task *th = calloc((size_t)nw, sizeof *th);
    int started = 1; /* worker 0 runs on this thread */
    for (int k = 1; k < nw; k++) {
        if (fp_task_start(&th[k], worker_main, &ws[k]) != 0)
            break; /* fewer workers: the others take its groups */
        started++;
    }
    worker_main(&ws[0]);
    for (int k = 1; k < started; k++)
        fp_task_join(&th[k]);
    for (int k = started; k < nw; k++)
        worker_rows(&ws[k]); /* never started: merged all the same */
    free(th);
    int rc = atomic_load(&job.cancelled) ? 2 : atomic_load(&job.changed) ? 3 : atomic_load(&job.stop) ? 1 : 0;
    if (rc == 0) {
        size_t np = 0;
        for (int k = 0; k < nw; k++)
            np += ws[k].part.n_pairs;
        size_t cap = 16;
        while (cap < 2 * np + 2)
            cap <<= 1;
        size_t *tab = calloc(cap, sizeof *tab);
        size_t **map = calloc((size_t)nw, sizeof *map);
        if (!tab || !map)
            abort();
        for (int k = 0; k < nw; k++)
            merge_worker(out, &ws[k], &map[k], tab, cap);
        bool said[3] = {false, false, false};
        for (size_t g = 0; g < ng; g++)
            merge_group(out, &job.out[g], map, said, wb);
        for (int k = 0; k < nw; k++)
            free(map[k]);
        free(map);
        free(tab);
    }
    for (size_t g = 0; g < ng; g++)
        grp_out_free(&job.out[g]);
    free(job.out);
    for (int k = 0; k < nw; k++)
        worker_free(&ws[k]);
    free(ws);
    free(gstart);
    return rc;
}

/* ---- after the walk ---- */

/* Split `total` in the proportions of w[] (Σ w = wsum > 0) exactly (largest remainder). */
static void split_exact(int64_t total, const int64_t *w, int64_t wsum, int64_t *out)
{
    int64_t given = 0;
    double rem[FP_CL_COUNT];
    for (int k = 0; k < FP_CL_COUNT; k++) {
        double exact = (double)total * (double)w[k] / (double)wsum;
        /* |exact| <= |total|, but (double)INT64_MAX rounds up to 2^63: clamp before the cast */
        if (exact >= 9223372036854775807.0)
            exact = 9223372036854775807.0 - 1024.0;
        else if (exact <= -9223372036854775807.0)
            exact = -9223372036854775807.0 + 1024.0;
        out[k] = (int64_t)exact;
        rem[k] = exact - (double)out[k];
        given += out[k];
    }
    while (given < total) {
        int best = -1;
        for (int k = 0; k < FP_CL_COUNT; k++)
            if (w[k] > 0 && (best < 0 || rem[k] > rem[best]))
                best = k;
        if (best < 0)
            break;
        out[best]++;
        rem[best] = -1;
        given++;
    }
}

static fp_class dominant(const int64_t *cc, fp_class fallback)
{
    int best = -1;
    for (int k = 0; k < FP_CL_COUNT; k++)
        if (cc[k] > 0 && (best < 0 || cc[k] > cc[best]))
            best = k;
    return best < 0 ? fallback : (fp_class)best;
}

static void finish_rows(fp_bubbles *b, bub_ctx *c)
{
    for (size_t i = 0; i < b->code.n; i++) {
        const fp_inst *r = &b->code.rows[i];
        fp_bub_inst *x = &b->insts[i];
        if (!r->index_ok || r->isa[0] == ';')
            continue;
        b->n_rows_counted++;
        fp_class st = c->row_static[i];
        int64_t part[FP_CL_COUNT] = {0};
        if (st == FP_CL_WAITCNT && x->w_stall > 0) {
            split_exact(r->stall, x->class_cycles, x->w_stall, part);
            x->cls = dominant(x->class_cycles, FP_CL_WAITCNT);
        } else {
            part[st] = r->stall;
            x->cls = st;
        }
        /* code.json cells are untrusted int64: every sum of them saturates (b->overflow) */
        bool *ov = &b->overflow;
        fp_bub_class *k = &b->classes[x->cls];
        k->static_count++;
        k->hit = fp_sat_add(k->hit, r->hit, ov);
        for (int q = 0; q < FP_CL_COUNT; q++) {
            b->classes[q].cycles = fp_sat_add(b->classes[q].cycles, part[q], ov);
            b->classes[q].wave_stall += x->class_cycles[q];
        }
        b->t_latency = fp_sat_add(b->t_latency, r->latency, ov);
        b->t_stall = fp_sat_add(b->t_stall, r->stall, ov);
        b->t_idle = fp_sat_add(b->t_idle, r->idle, ov);
        b->t_hit = fp_sat_add(b->t_hit, r->hit, ov);
        if (x->line_id >= 0) {
            fp_bub_line *L = &b->lines[x->line_id];
            L->stall = fp_sat_add(L->stall, r->stall, ov);
            L->latency = fp_sat_add(L->latency, r->latency, ov);
            L->hit = fp_sat_add(L->hit, r->hit, ov);
            L->exposed += x->exposed;
            L->wave_stall += x->w_stall;
            L->n_insts++;
            for (int q = 0; q < FP_CL_COUNT; q++)
                L->class_cycles[q] = fp_sat_add(L->class_cycles[q], part[q], ov);
        }
        b->w_stall += x->w_stall;
        b->w_latency += x->w_latency;
        b->w_exposed += x->exposed;
    }
}

/* occupancy.json and realtime.json read, and the launch facts that need only them
 * computed (fp_trace_facts_occ): on a thread of its own while the waves are walked
 * (--jobs 2+), else on this thread before the walk (analyze_pass). What went wrong is kept, not said: the warnings
 * come from finish_occupancy, after the walk's, in the order they always have. */
typedef struct occ_job {
    const char *dir;
    const volatile sig_atomic_t *cancel; /* a signal: stop (as the walk does) */
    atomic_bool stop;                    /* the pass ended early: nobody wants the result */
    bool stopped;                        /* stopped before the end: the result is incomplete */
    bub_side_probe *probe;               /* tests, or NULL */
    int occ_rc;
    fp_err occ_e;
    fp_occupancy occ;
    bool have_rt;
    fp_err rt_e;
    fp_realtime rt;
    fp_trace_part *part;
    fp_bub_occ_se *levels; /* fp_occ_levels of occ: on this job, beside the walk */
    size_t n_occ;          /* occ.n (occ itself is freed once part and levels are made) */
    bool ran;              /* occ_main ran (a second call does nothing) */
} occ_job;

static bool occ_stopping(const void *p)
{
    const occ_job *j = p;
    return atomic_load(&j->stop) || (j->cancel && *j->cancel);
}

/* Before each file: false (and j->stopped) when the pass no longer wants the job. */
static bool occ_go_on(occ_job *j)
{
    if (j->probe && j->probe->hook)
        j->probe->hook(j->probe->user, occ_stopping, j);
    if (occ_stopping(j)) {
        j->stopped = true;
        return false;
    }
    if (j->probe)
        atomic_fetch_add(&j->probe->files, 1);
    return true;
}

static void *occ_main(void *arg)
{
    occ_job *j = arg;
    if (j->ran) /* run before the walk already (analyze_pass) */
        return NULL;
    j->ran = true;
    j->occ_rc = -1;
    if (!occ_go_on(j))
        return NULL;
    /* loaded, not streamed (fp_occupancy_stream): the launch facts pair every wave's events */
    j->occ_rc = fp_occupancy_load(j->dir, &j->occ, &j->occ_e);
    if (j->occ_rc != 0 || !occ_go_on(j))
        return NULL;
    j->have_rt = fp_realtime_load(j->dir, &j->rt, &j->rt_e) == 0;
    j->levels = fp_occ_levels(&j->occ); /* workdist.c */
    /* the events are read by nothing after these two: freed as soon as the launch facts
     * have read them (before their per-wave distribution), so what comes later takes
     * their pages instead of fresh ones (moe_reduce-big: 1.5 MB of them) */
    j->n_occ = j->occ.n;
    j->part = fp_trace_facts_occ_drop(&j->occ, j->have_rt ? &j->rt : NULL);
    fp_occupancy_free(&j->occ); /* freed already, unless it has no SE */
    return NULL;
}

/* Beside the walk only while occupancy.json is small: its events are then held with the
 * walk's buffers, not after them (~2.2 bytes of memory per byte of file), and the peak
 * RSS of a 4 GB trace (6 MB of occupancy.json) must stay where it was. */
#define OCC_BESIDE_MAX (2 << 20)
static bool occ_beside(const char *dir)
{
    char *path = fp_path_join(dir, "occupancy.json");
    struct stat st;
    bool small = stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= OCC_BESIDE_MAX;
    free(path);
    return small;
}

static void occ_job_free(occ_job *j)
{
    if (j->occ_rc == 0)
        fp_occupancy_free(&j->occ);
    if (j->have_rt)
        fp_realtime_free(&j->rt);
    fp_err_clear(&j->occ_e);
    fp_err_clear(&j->rt_e);
    fp_trace_part_free(j->part);
    free(j->levels);
    j->levels = NULL;
    j->occ_rc = -1;
    j->have_rt = false;
    j->part = NULL;
}

/* issue 23: launch_trace and workdist from occupancy.json, realtime.json (when present; a
 * malformed one is warned about and ignored) and the wave summaries. j: the occupancy job
 * that ran, beside the walk or on this thread after the wstates files. */
static void finish_occupancy(fp_bubbles *b, bub_ctx *c, occ_job *j)
{
    if (j->occ_rc != 0) {
        if (j->occ_e.code != FP_NO_ARTIFACT && c->warn) {
            char msg[FP_ERR_MSG_MAX + 32];
            snprintf(msg, sizeof msg, "occupancy ignored: %s", j->occ_e.message);
            c->warn(c->user, msg);
        }
        occ_job_free(j);
        return;
    }
    b->occ_available = true;
    if (!j->have_rt && j->rt_e.code != FP_NO_ARTIFACT && c->warn) {
        char msg[FP_ERR_MSG_MAX + 32];
        snprintf(msg, sizeof msg, "realtime.json ignored: %s", j->rt_e.message);
        c->warn(c->user, msg);
    }
    fp_trace_facts_waves(j->part, b->wd, b->n_wd, b->wd_head_line >= 0, &b->launch_trace, &b->workdist);
    j->part = NULL;
    b->occ = j->levels;
    b->n_occ = j->n_occ;
    j->levels = NULL;
    occ_job_free(j);
}

static void add_reason(fp_bubbles *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_reason(fp_bubbles *b, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->reasons = realloc(b->reasons, (b->n_reasons + 1) * sizeof *b->reasons);
    if (!b->reasons)
        abort();
    b->reasons[b->n_reasons++] = strdup(msg);
}

static void finish_quality(fp_bubbles *b)
{
    int level = 0; /* 0 high, 1 medium, 2 low */
#define LOWER(to) level = level < (to) ? (to) : level
    size_t total = b->waves_read + b->waves_skipped;
    if (b->waves_skipped) {
        add_reason(b, "%zu of %zu wave files skipped (unreadable or malformed)", b->waves_skipped, total);
        LOWER(b->waves_skipped * 10 > total ? 2 : 1);
    }
    if (b->waves_read == 0) {
        add_reason(b, "no wave file could be read: exposed/hidden and waitcnt attribution are empty");
        LOWER(2);
    }
    if (b->waves_truncated) {
        add_reason(b, "%zu waves end without s_endpgm (trace truncated?)", b->waves_truncated);
        LOWER(1);
    }
    if (b->overflow) {
        add_reason(b, "cycle sums exceed 64 bits and were saturated");
        LOWER(1);
    }
    if (b->t_latency > 0) {
        int64_t mapped = 0;
        bool ov = false;
        for (size_t i = 0; i < b->n_lines; i++)
            mapped = fp_sat_add(mapped, b->lines[i].latency, &ov);
        if ((double)mapped * 2 < (double)b->t_latency) {
            add_reason(b, "only %.1f%% of latency maps to a source line", 100.0 * (double)mapped / (double)b->t_latency);
            LOWER(1);
        }
    }
    if (b->waves_skipped == 0 && b->waves_read > 0 && (b->w_records != b->t_hit || b->w_stall != b->t_stall)) {
        add_reason(b, "code.json and the wave files disagree (hit %lld vs %lld, stall %lld vs %lld)",
                   (long long)b->t_hit, (long long)b->w_records, (long long)b->t_stall, (long long)b->w_stall);
        LOWER(1);
    }
    if (b->unknown_line_records) {
        add_reason(b, "%lld wave records name lines absent from code.json", (long long)b->unknown_line_records);
        LOWER(1);
    }
    if (b->listed_missing) {
        add_reason(b, "%zu wave files listed in filenames.json are missing", b->listed_missing);
        LOWER(1);
    }
#undef LOWER
    static const char *const names[] = {"high", "medium", "low"};
    b->confidence = strdup(names[level]);
}

static void warn_buf_free(warn_buf *wb)
{
    for (size_t i = 0; i < wb->n; i++)
        free(wb->msg[i]);
    free(wb->msg);
    memset(wb, 0, sizeof *wb);
}

static int cmp_pair_first(const void *a, const void *b)
{
    const fp_bub_pair *x = a, *y = b;
    if (x->first_pos != y->first_pos)
        return x->first_pos < y->first_pos ? -1 : 1;
    return (x->first_seq > y->first_seq) - (x->first_seq < y->first_seq);
}

static int cmp_simd_first(const void *a, const void *b)
{
    const fp_bub_simd *x = a, *y = b;
    if (x->first_pos != y->first_pos)
        return x->first_pos < y->first_pos ? -1 : 1;
    return (x->cu > y->cu) - (x->cu < y->cu);
}

/* The wstates<k>.json integrals (a cross-check, independent of the walk): with
 * two or more jobs they are read by a thread of their own while the workers
 * walk - streaming, so in a few chunk buffers - and applied after the walk in
 * the same order with the same warnings as when read on this thread. */
typedef struct wstates_job {
    const char *dir;
    const volatile sig_atomic_t *cancel; /* a signal: stop (as the walk does) */
    atomic_bool stop;                    /* the pass ended early: nobody wants the integrals */
    bool stopped;                        /* stopped before the last file: incomplete */
    bub_side_probe *probe;               /* tests, or NULL */
    int rc[FP_WS_COUNT];
    int64_t v[FP_WS_COUNT];
    bool sat[FP_WS_COUNT];
    fp_err e[FP_WS_COUNT];
} wstates_job;

static bool ws_stopping(const void *p)
{
    const wstates_job *j = p;
    return atomic_load(&j->stop) || (j->cancel && *j->cancel);
}

static void *wstates_main(void *arg)
{
    wstates_job *j = arg;
    for (int s = FP_WS_IDLE; s < FP_WS_COUNT; s++) {
        /* checked per file: an early error of the pass waits for one file at most */
        if (j->probe && j->probe->hook)
            j->probe->hook(j->probe->user, ws_stopping, j);
        if (ws_stopping(j)) {
            j->stopped = true;
            break;
        }
        if (j->probe)
            atomic_fetch_add(&j->probe->files, 1);
        j->rc[s] = fp_wstates_integral(j->dir, s, &j->v[s], &j->sat[s], &j->e[s]);
    }
    return NULL;
}

/* The side jobs of one pass: started first thing (they need only the dir), so that they
 * run on the second CPU while this thread parses code.json and sets up (~5 M
 * instructions on flash_attn_func-big, that CPU idle then) instead of beside the two
 * walk workers. An early end stops them between files (side_abandon). */
typedef struct side_jobs {
    wstates_job ws;
    fp_task ws_th;
    bool ws_thread;
    occ_job occ;
    fp_task occ_th;
    bool occ_thread;
} side_jobs;

static void side_start(side_jobs *sj, const char *dir, int jobs, const volatile sig_atomic_t *cancel,
                       bub_side_probe *probe)
{
    memset(sj, 0, sizeof *sj);
    sj->ws.dir = dir;
    sj->ws.cancel = cancel;
    sj->ws.probe = probe;
    sj->occ.probe = probe;
    atomic_init(&sj->ws.stop, false);
    sj->ws_thread = jobs >= 2 && fp_task_start(&sj->ws_th, wstates_main, &sj->ws) == 0;
    sj->occ.dir = dir;
    sj->occ.cancel = cancel;
    sj->occ.occ_rc = -1;
    atomic_init(&sj->occ.stop, false);
    sj->occ_thread = jobs >= 2 && occ_beside(dir) && fp_task_start(&sj->occ_th, occ_main, &sj->occ) == 0;
}

/* The pass ends without using them: stop, wait (a file at most) and drop what they made. */
static void side_abandon(side_jobs *sj)
{
    atomic_store(&sj->ws.stop, true);
    atomic_store(&sj->occ.stop, true);
    if (sj->ws_thread)
        fp_task_join(&sj->ws_th);
    for (int s = 0; s < FP_WS_COUNT; s++)
        fp_err_clear(&sj->ws.e[s]);
    if (sj->occ_thread)
        fp_task_join(&sj->occ_th);
    occ_job_free(&sj->occ);
    sj->ws_thread = sj->occ_thread = false;
}

/* The main loop's head row of code.json (fp_loops_find), -1 without a main loop. */
typedef struct loops_job {
    const fp_code *code;
    int64_t head_line;
    fp_task th;
} loops_job;

static void *loops_main(void *p)
{
    loops_job *j = p;
    fp_loops loops;
    fp_loops_find(j->code, &loops);
    j->head_line = loops.main >= 0 ? loops.v[loops.main].head_line : -1;
    fp_loops_free(&loops);
    return NULL;
}

/* Returns 0, -1 (err set) or 1: redo with bounded = false. */
static int analyze_pass(const char *dir, fp_rank_by rank_by, fp_bubbles *out, bool bounded, int jobs,
                        const volatile sig_atomic_t *cancel, bub_side_probe *probe, warn_buf *wb, fp_err *err)
{
    fp_bub_warn_fn warn = warn_collect;
    void *user = wb;
    memset(out, 0, sizeof *out);
    out->rank_by = rank_by;
    side_jobs sj;
    side_start(&sj, dir, jobs, cancel, probe);
    if (fp_code_load(dir, &out->code, err) != 0) {
        side_abandon(&sj);
        fp_bubbles_free(out);
        return -1;
    }
    if (out->code.null_code || out->code.n == 0) {
        side_abandon(&sj);
        fp_err_set(err, FP_EMPTY_ATT, "%s: code.json has no instructions (an empty shell)", dir);
        fp_err_help(err, "this dispatch produced no waves on the traced CU; pick another with --dispatch N");
        fp_bubbles_free(out);
        return -1;
    }
    out->dispatch_dir = strdup(dir);
    char *abs = fp_path_abs(dir);
    out->dispatch_name = strdup(fp_path_base(abs));
    free(abs);
    out->symbol = out->code.symbol ? strdup(out->code.symbol) : NULL;
    out->insts = calloc(out->code.n + 1, sizeof *out->insts);
    if (!out->insts)
        abort();
    build_lines(out);
    /* Without a thread of its own the occupancy job runs here, before the walk rather than
     * after it: its 2.8 MB of events and waves (moe_reduce-big) are freed before the walk,
     * whose tables then take their pages, instead of being fresh pages on top of the walk's
     * (moe_reduce-big --jobs 1: 1,039 -> 996 page faults). Its warnings still come after
     * the walk's (finish_occupancy). */
    if (!sj.occ_thread)
        occ_main(&sj.occ);
    /* the loop finder reads only code.json: with two jobs it runs beside the
     * classification (0.47 M instructions on flash_attn_func-big) */
    loops_job lj = {.code = &out->code};
    bool loops_thread = jobs >= 2 && fp_task_start(&lj.th, loops_main, &lj) == 0;
    if (!loops_thread)
        loops_main(&lj);

    bub_ctx c;
    fp_bub_ctx_init_jobs(&c, out, warn, user, jobs);
    if (loops_thread)
        fp_task_join(&lj.th);
    out->wd_head_line = lj.head_line;

    fp_wave_list list;
    if (fp_wave_list_dir(dir, &list, err) != 0) {
        side_abandon(&sj);
        fp_bub_ctx_free(&c);
        fp_bubbles_free(out);
        return -1;
    }
    out->waves_listed = list.n;
    out->filenames_json = list.filenames_json;
    out->listed_missing = list.listed_missing;
    out->unlisted = list.unlisted;
    if (warn && list.filenames_json && (list.listed_missing || list.unlisted)) {
        char msg[256];
        snprintf(msg, sizeof msg, "filenames.json lists %zu wave files; %zu of them are missing, %zu on disk are unlisted",
                 list.listed, list.listed_missing, list.unlisted);
        warn(user, msg);
    }
    walk_plan plan;
    plan_walk(&list, bounded, &plan);
    c.watermark = plan.watermark;
    c.bounded_pass = bounded;
    c.walk_files = plan.list.files;
    int walked = walk_groups(dir, &plan, &c, jobs, cancel, wb);
    if (walked) {
        side_abandon(&sj);
        free(plan.watermark);
        fp_wave_list_free(&list);
        fp_bub_ctx_free(&c);
        fp_bubbles_free(out);
        if (walked == 2)
            return fp_err_set(err, FP_INTERRUPTED, "interrupted by signal %d", (int)*cancel);
        if (walked == 3)
            return fp_err_set(err, FP_IO_ERROR, "%s: a wave file changed while it was read (read twice: it is too big to hold)", dir);
        return 1;
    }
    free(plan.watermark);
    fp_wave_list_free(&list);
    /* the walk went by begin inside a group: restore the listing order of first
     * appearance for everything that is output in creation order */
    if (out->n_pairs)
        qsort(out->pairs, out->n_pairs, sizeof *out->pairs, cmp_pair_first);
    if (out->n_simds)
        qsort(out->simds, out->n_simds, sizeof *out->simds, cmp_simd_first);

    finish_rows(out, &c);
    for (size_t i = 0; i < out->n_simds; i++)
        out->w_span += out->simds[i].end - out->simds[i].begin;
    fp_bub_ctx_free(&c);

    static const char *const state_names[FP_WS_COUNT] = {"empty", "idle", "exec", "wait", "stall"};
    out->wstates_available = true;
    wstates_job *wsj = &sj.ws;
    if (sj.ws_thread)
        fp_task_join(&sj.ws_th);
    else
        wstates_main(wsj);
    sj.ws_thread = false;
    if (sj.occ_thread)
        fp_task_join(&sj.occ_th);
    else
        occ_main(&sj.occ); /* it ran before the walk: nothing left to do (occ_job.ran) */
    sj.occ_thread = false;
    if (wsj->stopped || sj.occ.stopped) {
        /* a signal after the walk, before a side job's last file: what it made is partial */
        side_abandon(&sj);
        fp_bubbles_free(out);
        return fp_err_set(err, FP_INTERRUPTED, "interrupted by signal %d", cancel ? (int)*cancel : 0);
    }
    for (int s = FP_WS_IDLE; s < FP_WS_COUNT; s++) {
        fp_err *e = &wsj->e[s];
        int64_t v = wsj->v[s];
        bool sat = wsj->sat[s];
        if (wsj->rc[s] != 0) {
            /* a state that never occurred has no file: 0, not unavailable */
            if (e->code != FP_NO_ARTIFACT) {
                out->wstates_available = false;
                if (warn) {
                    char msg[FP_ERR_MSG_MAX + 64];
                    snprintf(msg, sizeof msg, "wstates cross-check (%s) skipped: %s", state_names[s], e->message);
                    warn(user, msg);
                }
            }
            fp_err_clear(e);
        }
        out->wstates_cycles[s] = v;
        out->overflow |= sat;
    }
    if (out->overflow) {
        if (warn)
            warn(user, "cycle sums exceed 64 bits and were saturated (code.json or wstates values out of range)");
    }
    finish_occupancy(out, &c, &sj.occ);
    finish_quality(out);
    return 0;
}

int fp_bubbles_analyze(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn,
                       void *user, fp_err *err)
{
    return fp_bubbles_analyze_jobs(dir, rank_by, out, warn, user, 0, err);
}

int fp_bubbles_analyze_jobs(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn,
                            void *user, int jobs, fp_err *err)
{
    return fp_bubbles_analyze_cancel(dir, rank_by, out, warn, user, jobs, NULL, err);
}

int fp_bubbles_analyze_cancel(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn,
                              void *user, int jobs, const volatile sig_atomic_t *cancel, fp_err *err)
{
    return fp_bub_analyze_probed(dir, rank_by, out, warn, user, jobs, cancel, NULL, err);
}

int fp_bub_analyze_probed(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn, void *user,
                          int jobs, const volatile sig_atomic_t *cancel, bub_side_probe *probe, fp_err *err)
{
    if (jobs <= 0)
        jobs = fp_bubbles_default_jobs();
    /* the threads the pass's tasks run on, started before anything else: a new thread
     * may wait milliseconds for a CPU (team.h), this way while code.json is read */
    fp_team_warm(jobs - 1);
    if (jobs >= 2)
        fp_team_spread_begin(); /* the workers on CPUs of their own (team.h says why) */
    warn_buf wb = {0};
    int rc = analyze_pass(dir, rank_by, out, true, jobs, cancel, probe, &wb, err);
    if (rc == 1) {
        warn_buf_free(&wb);
        rc = analyze_pass(dir, rank_by, out, false, jobs, cancel, probe, &wb, err);
    }
    if (jobs >= 2)
        fp_team_spread_end();
    for (size_t i = 0; warn && i < wb.n; i++)
        warn(user, wb.msg[i]);
    warn_buf_free(&wb);
    return rc == 0 ? 0 : -1;
}

void fp_bubbles_free(fp_bubbles *b)
{
    if (!b)
        return;
    free(b->dispatch_dir);
    free(b->dispatch_name);
    free(b->symbol);
    fp_code_free(&b->code);
    free(b->insts);
    for (size_t i = 0; i < b->n_lines; i++) {
        free(b->lines[i].source);
        free(b->lines[i].file);
    }
    free(b->lines);
    free(b->pairs);
    free(b->simds);
    free(b->occ);
    free(b->wd);
    if (b->launch_trace)
        fp_model_free(&fp_launch_trace_schema, b->launch_trace);
    free(b->launch_trace);
    if (b->workdist)
        fp_model_free(&fp_workdist_schema, b->workdist);
    free(b->workdist);
    for (size_t i = 0; i < b->n_skipped_names; i++)
        free(b->skipped_names[i]);
    free(b->skipped_names);
    free(b->confidence);
    for (size_t i = 0; i < b->n_decoder_warnings; i++)
        free(b->decoder_warnings[i]);
    free(b->decoder_warnings);
    for (size_t i = 0; i < b->n_reasons; i++)
        free(b->reasons[i]);
    free(b->reasons);
    memset(b, 0, sizeof *b);
}

void fp_bubbles_add_decoder_warnings(fp_bubbles *b, char *const *lines, size_t n, size_t total)
{
    if (total == 0)
        return;
    bool lost = false;
    for (size_t i = 0; i < n; i++) {
        b->decoder_warnings = realloc(b->decoder_warnings, (b->n_decoder_warnings + 1) * sizeof *b->decoder_warnings);
        if (!b->decoder_warnings)
            abort();
        b->decoder_warnings[b->n_decoder_warnings++] = strdup(lines[i]);
        lost |= strcasestr(lines[i], "data lost") != NULL || strcasestr(lines[i], "stitch") != NULL;
    }
    add_reason(b, "%zu decoder warnings%s", total, lost ? " (trace data lost: waves are missing)" : "");
    const char *lvl = lost ? "low" : strcmp(b->confidence ? b->confidence : "high", "high") ? b->confidence : "medium";
    char *nc = strdup(lvl);
    free(b->confidence);
    b->confidence = nc;
}

double fp_bubbles_gain_pct(const fp_bubbles *b, int64_t wall)
{
    if (b->w_span <= 0)
        return 0.0;
    return fp_round(100.0 * (double)wall / (double)b->w_span, 2);
}
