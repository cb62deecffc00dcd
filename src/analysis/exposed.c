/*
 * exposed.c - exposed vs hidden stall on one SIMD (docs/exposed-stall.md),
 * as a streaming sweep whose memory follows the resident waves.
 *
 * Waves resident on the same (SE, CU, SIMD) share its issue slots: while one
 * wave stalls, another may issue, and the stall costs the SIMD nothing. A
 * wave keeps the SIMD busy only while it has an instruction IN FLIGHT: the
 * union of its issue windows [time + stall, time + max(stall, duration)),
 * branches included, while s_waitcnt / s_nop / s_barrier / messages occupy no
 * pipe (issue 23: the EXEC state of the timeline also covers cycles with
 * nothing in flight, 16 % of them in the corpus). A sweep over the in-flight
 * and stall intervals of one SIMD computes, for every stalled cycle of every
 * instruction execution:
 *   exposed - no OTHER wave of that SIMD has an instruction in flight (the
 *             union over the other waves, not a per-pipe priority);
 *   lost    - no wave at all has one: a SIMD cycle lost, counted once per
 *             class / instruction / source line however many waves stall in it
 *             (the numerator of the gain upper bound).
 * The wave-end drain (s_endpgm waiting for the wave's stores) is swept the same
 * way into figures of its own (fp_bubbles.drain_*), outside the stall sums.
 *
 * How it stays bounded and sort-free:
 *  - each wave's intervals come out of its file already in time order (records
 *    are in issue order, so windows start in order and their union is built in
 *    one pass), so a wave becomes one sorted run of 24-byte items, one per
 *    in-flight span carrying the stall bounds at its ends (build_run: its stalls
 *    go in between its spans; build_any and an LSD radix sort on the time only
 *    when its stalls overlap or a hostile file is out of order);
 *  - the walk hands a group's waves over in begin order (filenames.json), and
 *    after each wave the runs are k-way merged (a heap of resident waves) up to
 *    the next wave's begin: no later wave can have an item before it. A wave
 *    whose run is consumed is retired, so memory is the events of the waves
 *    resident at one moment, not of the whole group;
 *  - nothing is accumulated cycle by cycle: every figure is a difference of
 *    integer clocks read where a stall opens and closes ("the sweep" below), so
 *    the order among events of one cycle - hence the merge order - cannot
 *    change any result.
 */
#include <errno.h>
#include <string.h>

#include "bubbles_internal.h"


/* Opcodes that occupy no pipe whatever the decoder's category (a synthetic or
 * old trace may give none): counter waits, hazard padding, barriers, messages. */
static const char *const NOPIPE_PREFIX[] = {"s_waitcnt", "s_wait_", "s_nop", "s_barrier", "s_endpgm",
                                            "s_sendmsg", "s_sleep", "s_setprio", "s_ttracedata"};

/* Whether the opcode at op (blanks skipped) starts with the lower-case prefix p, its
 * letters compared case-blind: strncmp of fp_opcode_lc's copy, without the copy (a
 * prefix has no blank, so the opcode's end or a blank differs from it). */
static bool opcode_starts(const char *op, const char *p)
{
    for (; *p; op++, p++) {
        char c = *op >= 'A' && *op <= 'Z' ? (char)(*op - 'A' + 'a') : *op;
        if (c != *p)
            return false;
    }
    return true;
}

bool fp_bub_isa_nopipe(const char *isa, fp_class cls)
{
    if (fp_class_table[cls].is_bubble)
        return true; /* waits, barrier, nop, drain */
    while (*isa == ' ' || *isa == '\t')
        isa++;
    /* compared in place, the first byte first: most rows are v_/buffer_/ds_ (the
     * lower-cased copy and a strncmp per prefix were ~580 instructions a row of
     * code.json, 1.2 M on flash_attn_func-big) */
    char c0 = *isa >= 'A' && *isa <= 'Z' ? (char)(*isa - 'A' + 'a') : *isa;
    for (size_t i = 0; i < sizeof NOPIPE_PREFIX / sizeof *NOPIPE_PREFIX; i++)
        if (c0 == NOPIPE_PREFIX[i][0] && opcode_starts(isa, NOPIPE_PREFIX[i]))
            return true;
    return false;
}

static int cmp_span_t0(const void *a, const void *b)
{
    const bub_span *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Re-union c->ex in place after a sort (a hostile file: records out of order). */
static void union_sorted(bub_ctx *c)
{
    qsort(c->ex, c->n_ex, sizeof *c->ex, cmp_span_t0);
    size_t n = 0;
    for (size_t i = 0; i < c->n_ex; i++) {
        if (n && c->ex[i].t0 <= c->ex[n - 1].t1) {
            if (c->ex[i].t1 > c->ex[n - 1].t1)
                c->ex[n - 1].t1 = c->ex[i].t1;
        } else {
            c->ex[n++] = c->ex[i];
        }
    }
    c->n_ex = n;
}

void fp_bub_windows_done(bub_ctx *c)
{
    if (c->ex_unsorted)
        union_sorted(c);
    c->ex_unsorted = false;
}

static fp_bub_simd *simd_for(fp_bubbles *b, int se, int cu, int simd, size_t *index)
{
    for (size_t i = b->n_simds; i-- > 0;)
        if (b->simds[i].se == se && b->simds[i].cu == cu && b->simds[i].simd == simd) {
            *index = i;
            return &b->simds[i];
        }
    b->simds = realloc(b->simds, (b->n_simds + 1) * sizeof *b->simds);
    if (!b->simds)
        abort();
    *index = b->n_simds;
    fp_bub_simd *s = &b->simds[b->n_simds++];
    memset(s, 0, sizeof *s);
    s->se = se;
    s->cu = cu;
    s->simd = simd;
    s->begin = INT64_MAX;
    s->end = INT64_MIN;
    s->first_pos = SIZE_MAX;
    return s;
}

/* ---- per-wave sorted runs ---- */

#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)

static bub_ev *radix_by_time(bub_ev *e, bub_ev *tmp, size_t n)
{
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        tmin = e[i].t < tmin ? e[i].t : tmin;
        tmax = e[i].t > tmax ? e[i].t : tmax;
    }
    uint64_t span = (uint64_t)(tmax - tmin); /* times are in [0, 2^51] (wave_insane) */
    size_t cnt[RADIX_N];
    for (unsigned shift = 0; shift < 64 && (span >> shift); shift += RADIX_BITS) {
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[((uint64_t)(e[i].t - tmin) >> shift) & (RADIX_N - 1)]++;
        size_t sum = 0;
        for (size_t b = 0; b < RADIX_N; b++) {
            size_t c = cnt[b];
            cnt[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[cnt[((uint64_t)(e[i].t - tmin) >> shift) & (RADIX_N - 1)]++] = e[i];
        bub_ev *sw = e;
        e = tmp;
        tmp = sw;
    }
    return e;
}

static bub_rwave *rwave_get(bub_ctx *c)
{
    if (c->n_free) {
        bub_rwave *r = c->free_rw[--c->n_free];
        r->n = 0;
        r->at = NULL;
        r->n_st = r->n_open = 0;
        r->ws = NULL;
        return r;
    }
    bub_rwave *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    return r;
}

static void ws_release(bub_ctx *c, bub_wst *ws)
{
    if (!ws || --ws->refs > 0)
        return;
    for (size_t i = 0; i < c->n_cus; i++) /* its last span may outlast it: who1's c1 is */
        if (c->cus[i].who1 == ws)        /* counted on, but no stall of it reads it again */
            c->cus[i].who1 = &c->ws_gone;
    FP_GROW(c->free_ws, c->n_free_ws, c->cap_free_ws);
    c->free_ws[c->n_free_ws++] = ws;
}

/* the state of the wave being read, opened by its first run */
static bub_wst *ws_current(bub_ctx *c)
{
    if (!c->cur_ws) {
        bub_wst *ws = c->n_free_ws ? c->free_ws[--c->n_free_ws] : malloc(sizeof *ws);
        if (!ws)
            abort();
        *ws = (bub_wst){0, INT64_MIN, 1};
        c->cur_ws = ws;
    }
    return c->cur_ws;
}

static void rwave_put(bub_ctx *c, bub_rwave *r)
{
    ws_release(c, r->ws);
    r->ws = NULL;
    FP_GROW(c->free_rw, c->n_free, c->cap_free);
    c->free_rw[c->n_free++] = r;
}

/* ---- heap of resident waves by next event time ---- */

static inline int64_t rw_next(const bub_rwave *r) { return r->at->t; }

static void heap_down(bub_hent *h, size_t n, size_t i)
{
    bub_hent x = h[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        size_t m = l + 1 < n && h[l + 1].t < h[l].t ? l + 1 : l;
        if (h[m].t >= x.t)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

/* While few waves are resident (the usual case: up to 8 per SIMD) the heap is kept fully
 * sorted - an ascending array is a valid min-heap, so the heap code takes over unchanged
 * when more come - and the top, after its run, moves to its place by a short insertion
 * instead of a heap walk (two compares per level). A sorted heap ends in a sentinel entry
 * {INT64_MAX, NULL} at heap[n_heap] (no bound checks; heap[1] is always there). */
#define HEAP_SORTED_MAX 16

static void heap_push(bub_ctx *c, bub_rwave *r)
{
    FP_RESERVE(c->heap, c->n_heap, c->cap_heap, 2); /* + the sentinel */
    size_t i = c->n_heap++;
    int64_t t = rw_next(r);
    if (!c->heap_unsorted && c->n_heap <= HEAP_SORTED_MAX) {
        for (; i > 0 && c->heap[i - 1].t > t; i--)
            c->heap[i] = c->heap[i - 1];
        c->heap[i] = (bub_hent){t, r};
        c->heap[c->n_heap] = (bub_hent){INT64_MAX, NULL};
        return;
    }
    c->heap_unsorted = true;
    while (i > 0 && c->heap[(i - 1) / 2].t > t) {
        c->heap[i] = c->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->heap[i] = (bub_hent){t, r};
}

/* The top's time grew: back to its place (sorted: by insertion, else heap_down). */
static inline void heap_fix_top(bub_ctx *c)
{
    if (c->heap_unsorted) {
        heap_down(c->heap, c->n_heap, 0);
        return;
    }
    bub_hent x = c->heap[0]; /* x.t < INT64_MAX: the sentinel stops the walk */
    size_t j = 0;
    for (; c->heap[j + 1].t < x.t; j++)
        c->heap[j] = c->heap[j + 1];
    c->heap[j] = x;
}

static int cmp_hent(const void *a, const void *b)
{
    const bub_hent *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* The top is retired. */
static void heap_pop(bub_ctx *c)
{
    c->n_heap--;
    if (!c->heap_unsorted) {
        memmove(c->heap, c->heap + 1, (c->n_heap + 1) * sizeof *c->heap); /* with the sentinel */
        return;
    }
    if (c->n_heap) {
        c->heap[0] = c->heap[c->n_heap];
        heap_down(c->heap, c->n_heap, 0);
    }
    if (c->n_heap <= HEAP_SORTED_MAX) { /* few again: sorted from now on */
        qsort(c->heap, c->n_heap, sizeof *c->heap, cmp_hent);
        c->heap[c->n_heap] = (bub_hent){INT64_MAX, NULL};
        c->heap_unsorted = false;
    }
}

/* Per-CU sweep state of the current group. */
static bub_cu *cu_state(bub_ctx *c, int cu)
{
    for (size_t i = 0; i < c->n_cus; i++)
        if (c->cus[i].cu == cu)
            return &c->cus[i];
    FP_GROW(c->cus, c->n_cus, c->cap_cus);
    bub_cu *s = &c->cus[c->n_cus++];
    memset(s, 0, sizeof *s);
    s->cu = cu; /* the clocks start at 0: cycle values are >= 0 (wave_insane) */
    s->m2 = INT64_MIN;
    size_t idx;
    simd_for(c->b, c->g_se, cu, c->g_simd, &idx);
    s->simd_idx = idx;
    for (size_t i = 0; i < c->n_heap; i++) { /* c->cus and b->simds may have moved */
        bub_rwave *r = c->heap[i].r;
        r->cs = &c->cus[r->cu];
        r->cur = &c->b->simds[r->cs->simd_idx];
    }
    return s;
}

/* ---- building a wave's run ---- */

/* The item codes of stall i: a drain has no index (only how many are open matters). */
static inline uint32_t stall_code(const bub_iv *s, size_t i, bool clean)
{
    return (s->cls == BUB_CLS_DRAIN ? BUB_EV_DRAIN : (uint32_t)i + 1) | (clean ? 0 : BUB_EV_UNCLEAN);
}

/* The usual wave: its stalls are in time order and do not overlap. One item per span, in
 * between them the stall bounds no span item carries, all in time order. A stall is clean
 * when no span of its wave meets it: none of this run (the last span starting before it
 * ends by its start, the next one starts at its end or later), none of an earlier run of
 * the wave (they end by lo) nor of a later one (they start at hi or later). A clean stall
 * opening where the span before it ends opens in that span's item (c0 is the same at both
 * ends of a span); a stall closing where a span starts closes in its item. Writes ev[1 ..]
 * (ev[0] a sentinel no time equals), its count to *count and the stall cycles to *stall;
 * false (nothing usable) when two stalls overlap or are out of order: then build_any. */
static bool build_run(const bub_ctx *c, bub_ev *ev, size_t *count, int64_t *stall, int64_t lo, int64_t hi)
{
    const bub_span *x = c->ex, *xe = c->ex + c->n_ex;
    const bub_iv *s = c->st, *se = c->st + c->n_st;
    bub_ev *o = ev; /* the last item written */
    *o = (bub_ev){INT64_MIN, BUB_EV_NOSPAN, 0, 0};
    /* locals, not c's fields (an item's int64_t may alias a size_t): xt the start of span
     * x (INT64_MAX: none left), pe the end of the last span before it (or lo) */
    int64_t xt = x < xe ? x->t0 : INT64_MAX, pe = lo, prev_end = INT64_MIN, sum = 0;
#define X_EMIT(close_code)                                                                         \
    do {                                                                                           \
        *++o = (bub_ev){xt, x->t1, (close_code), 0};                                               \
        pe = x->t1;                                                                                \
        xt = ++x < xe ? x->t0 : INT64_MAX;                                                         \
    } while (0)
    for (; s < se; s++) {
        if (s->t0 < prev_end)
            return false;
        prev_end = s->t1;
        while (xt < s->t0)
            X_EMIT(0);
        bool clean = pe <= s->t0 && xt >= s->t1 && s->t1 <= hi;
        uint32_t code = stall_code(s, (size_t)(s - c->st), clean);
        /* o ends at t0 only if it is the span just before (a bare item has e NOSPAN); an
         * item at t0 is a bare close (spans starting at t0 come below): either has room */
        if (((clean && o->e == s->t0) || o->t == s->t0) && !o->open)
            o->open = code;
        else
            *++o = (bub_ev){s->t0, BUB_EV_NOSPAN, 0, code};
        while (xt < s->t1) /* only for an unclean stall */
            X_EMIT(0);
        if (xt == s->t1)
            X_EMIT(code);
        else
            *++o = (bub_ev){s->t1, BUB_EV_NOSPAN, code, 0};
        sum += s->cls == BUB_CLS_DRAIN ? 0 : s->t1 - s->t0;
    }
    while (xt != INT64_MAX)
        X_EMIT(0);
#undef X_EMIT
    *count = (size_t)(o - ev);
    *stall = sum;
    return true;
}

/* Any wave (stalls overlapping each other, or out of order): an item per span and per
 * stall bound, every stall unclean (exact whatever its wave does while it lasts), then
 * sorted by time unless already in order (*sorted). */
static size_t build_any(const bub_ctx *c, bub_ev *ev, bool *sorted, int64_t *stall)
{
    bub_ev *o = ev;
    *o = (bub_ev){INT64_MIN, BUB_EV_NOSPAN, 0, 0};
    int64_t sum = 0;
    for (size_t i = 0; i < c->n_ex; i++)
        *++o = (bub_ev){c->ex[i].t0, c->ex[i].t1, 0, 0};
    for (size_t i = 0; i < c->n_st; i++) {
        const bub_iv *s = &c->st[i];
        uint32_t code = stall_code(s, i, false);
        *++o = (bub_ev){s->t0, BUB_EV_NOSPAN, 0, code};
        *++o = (bub_ev){s->t1, BUB_EV_NOSPAN, code, 0};
        sum += s->cls == BUB_CLS_DRAIN ? 0 : s->t1 - s->t0;
    }
    size_t n = (size_t)(o - ev);
    bool ok = true;
    for (size_t i = 2; i <= n && ok; i++)
        ok = ev[i].t >= ev[i - 1].t;
    *sorted = ok;
    *stall = sum;
    return n;
}

/* A CU's lost-cycle key counters: from the pool (all zero: every stall of a retired wave
 * closed) or new. */
static size_t n_keys(const bub_ctx *c) { return FP_CL_COUNT + c->b->code.n + c->b->n_lines; }

static void keys_get(bub_ctx *c, bub_cu *cs)
{
    if (c->n_keys_free) {
        cs->keys = c->keys_free[--c->n_keys_free];
        return;
    }
    bub_keys *k = malloc(sizeof *k);
    if (!k)
        abort();
    k->k = calloc(n_keys(c) + 1, sizeof *k->k);
    if (!k->k)
        abort();
    k->line0 = FP_CL_COUNT + c->b->code.n;
    cs->keys = k;
}

static void keys_put(bub_ctx *c, bub_cu *cs)
{
    FP_GROW(c->keys_free, c->n_keys_free, c->cap_keys_free);
    c->keys_free[c->n_keys_free++] = cs->keys;
    cs->keys = NULL;
}

/* The current wave's c->ex[0 .. nex) and c->st as one run on CU state cs; the spans of
 * the wave's later runs start at hi or later (build_run). */
static void add_run(bub_ctx *c, bub_cu *cs, size_t nex, int64_t hi)
{
    fp_bub_simd *s = &c->b->simds[cs->simd_idx];
    size_t full = c->n_ex;
    c->n_ex = nex; /* the builders read c->ex[0 .. n_ex) */
    size_t ne = c->n_ex + 2 * c->n_st; /* at most: an item per span and per stall bound */
    if (ne == 0) {
        c->n_ex = full;
        return;
    }
    if (c->n_st > BUB_EV_MAX_STALLS) { /* 2^31 stalls: ~86 GB of records, not held */
        errno = ENOMEM;
        abort();
    }
    bub_rwave *r = rwave_get(c);
    r->cu = (int)(cs - c->cus);
    r->cs = cs;
    r->cur = s;
    r->ws = ws_current(c);
    r->ws->refs++;
    if (ne + 2 > r->cap_ev) { /* + the sentinels before and after */
        r->cap_ev = ne + 2;
        free(r->ev);
        r->ev = malloc(r->cap_ev * sizeof *r->ev);
        if (!r->ev)
            abort();
    }
    int64_t stall;
    FP_RESERVE(r->open, 0, r->cap_open, 1);
    r->single = build_run(c, r->ev, &ne, &stall, r->ws->span_hi, hi);
    if (!r->single) {
        bool sorted;
        ne = build_any(c, r->ev, &sorted, &stall);
        if (!sorted) { /* a hostile file: records out of time order */
            if (c->cap_tmp < ne + 1) {
                c->cap_tmp = ne + 1;
                c->tmp_ev = realloc(c->tmp_ev, c->cap_tmp * sizeof *c->tmp_ev);
                if (!c->tmp_ev)
                    abort();
            }
            bub_ev *out = radix_by_time(r->ev + 1, c->tmp_ev, ne);
            if (out != r->ev + 1)
                memcpy(r->ev + 1, out, ne * sizeof *out);
        }
    }
    s->stall += stall; /* every stall of the SIMD, once */
    /* the stalls go with the run; the wave pass gets the retired buffer back */
    bub_iv *sw = r->st;
    size_t cap = r->cap_st;
    r->st = c->st;
    r->cap_st = c->cap_st;
    r->n_st = c->n_st;
    c->st = sw;
    c->cap_st = cap;
    c->n_st = 0;
    r->ev[ne + 1] = (bub_ev){INT64_MAX, BUB_EV_NOSPAN, 0, 0}; /* later than any limit: ends a run */
    if (c->n_ex)
        r->ws->span_hi = c->ex[c->n_ex - 1].t1;
    r->n = ne + 1;
    r->at = r->ev + 1;
    if (r->ev[1].t < c->g_flushed)
        c->order_broken = true; /* an event before what was already swept */
    heap_push(c, r);
    if (cs->n_waves++ == 0)
        keys_get(c, cs);
    c->resident_events += ne;
    if (c->resident_events > c->peak_resident_events)
        c->peak_resident_events = c->resident_events;
    c->n_ex = full;
}

int64_t fp_bub_sweep_add_chunk(bub_ctx *c, int cu, int64_t next_record_time)
{
    bub_cu *cs = cu_state(c, cu);
    int64_t safe = next_record_time;
    if (c->n_ex && c->ex[c->n_ex - 1].t0 < safe)
        safe = c->ex[c->n_ex - 1].t0;
    add_run(c, cs, c->n_ex ? c->n_ex - 1 : 0, safe);
    if (c->n_ex) { /* the held span moves to the front */
        c->ex[0] = c->ex[c->n_ex - 1];
        c->n_ex = 1;
    }
    c->n_st = 0;
    return safe;
}

void fp_bub_sweep_add_wave(bub_ctx *c, int cu, int64_t begin, int64_t end, size_t pos)
{
    fp_bubbles *b = c->b;
    bub_cu *cs = cu_state(c, cu);
    fp_bub_simd *s = &b->simds[cs->simd_idx];
    s->waves++;
    if (begin < s->begin)
        s->begin = begin;
    if (end > s->end)
        s->end = end;
    if (pos < s->first_pos)
        s->first_pos = pos;

    add_run(c, cs, c->n_ex, INT64_MAX);
    ws_release(c, c->cur_ws); /* the wave is read: its runs hold its state now */
    c->cur_ws = NULL;
}

/* ---- the sweep ----
 *
 * No cycle-by-cycle accumulation: every figure is a difference of clocks read where a stall
 * (or drain) opens and closes. Per CU, c0 counts the cycles with no wave in flight; per
 * wave, c1 the cycles in which it alone was in flight. A stall of wave w is exposed while
 * no OTHER wave is in flight - nothing in flight, or only w - so its exposed cycles are the
 * growth of c0 + c1(w) between its open and its close; for a clean stall (w has nothing in
 * flight while it lasts) c1(w) cannot grow, and the growth of c0 is enough. A cycle is lost
 * for a key (a class, a code row, a line; the SIMD; the drains) when nothing is in flight
 * and at least one open stall has the key: one counter per key, and the growth of c0 from
 * its 0 -> 1 to its 1 -> 0 is the key's lost cycles, counted once however many stalls share
 * it - the measure of the union of its stalls' [c0(open), c0(close)). That measure only
 * depends on the c0 values, so counter steps may come in any order that keeps those values
 * non-decreasing: a clean stall opening where a span ends may open at the span's start.
 *
 * The items are swept in time order, spans by their start: every cycle before the CU's q
 * is counted (c0) or covered by a span; a span [t, e) adds e - q to the SIMD's issue when
 * e > q, and keeps the two latest span ends (m1, wave who1; m2): a cycle after every span
 * start so far is covered by exactly one span iff m2 <= it < m1 (m1 is kept as q: span()).
 * All integers: the order
 * of the items of one cycle cannot change a result. */

static inline int key_cls(int cls) { return cls; }
static inline size_t key_row(int64_t row) { return FP_CL_COUNT + (size_t)row; }
static inline size_t key_line(const bub_keys *k, int line) { return k->line0 + (size_t)line; }

/* The sweep moves to t (no earlier than the last item's time). */
static inline void advance(bub_cu *cs, int64_t t)
{
    if (cs->n_uncl) { /* only who1 in flight on [max(p, m2), min(t, q)) (q is m1 past p) */
        int64_t lo = cs->p > cs->m2 ? cs->p : cs->m2, hi = t < cs->q ? t : cs->q;
        if (hi > lo)
            cs->who1->c1 += hi - lo;
        cs->p = t;
    }
    if (t > cs->q) { /* nothing in flight on [q, t) */
        cs->c0 += t - cs->q;
        cs->q = t;
    }
}

/* A span [t, e) of wave ws starts at t (the sweep is at t, so q >= t). The latest span
 * end m1 is q wherever it matters: past the last item's time q is m1, elsewhere m1 covers
 * nothing ahead. So a span ending after q makes q the second latest end (m2) - or, when q
 * is the sweep's time, a bound no span covers past, as good for the cycles ahead. */
static inline void span(bub_cu *cs, fp_bub_simd *cur, bub_wst *ws, int64_t e)
{
    if (e > cs->q) {
        cur->issue += e - cs->q;
        cs->m2 = cs->q;
        cs->q = e;
        cs->who1 = ws;
    } else if (e > cs->m2) {
        cs->m2 = e;
    }
}

/* The exposed-time clock of r's stall with that code: c0, + c1(r) for an unclean one. */
static inline int64_t exposed_clock(const bub_cu *cs, const bub_rwave *r, uint32_t code)
{
    return code & BUB_EV_UNCLEAN ? cs->c0 + r->ws->c1 : cs->c0;
}

static inline void key_open(bub_keys *k, size_t key, int64_t c0)
{
    bub_key *e = &k->k[key];
    if (e->cnt++ == 0)
        e->mark = c0;
}

/* The key's lost cycles when its last open stall closes, else 0. */
static inline void key_close(bub_keys *k, size_t key, int64_t c0, int64_t *wall)
{
    bub_key *e = &k->k[key];
    if (--e->cnt == 0)
        *wall += c0 - e->mark;
}

static inline void keys_open(const bub_ctx *c, bub_keys *k, const bub_iv *v, int64_t c0)
{
    int line = c->b->insts[v->row].line_id;
    key_open(k, key_cls(v->cls), c0);
    key_open(k, key_row(v->row), c0);
    if (line >= 0)
        key_open(k, key_line(k, line), c0);
}

/* A stall that opens on a CU with no stall open is "solo": until a second one opens its
 * keys are lost exactly when the SIMD is (na > 0), so they are only counted - from its
 * open, cs->mark_na - when that happens. The usual stall (one wave at a time waiting)
 * never touches the counters. */
/* A run built by build_run has at most one stall open at a time (its stalls do not
 * overlap, and an item closes before it opens): r->open[0], no search (r->single). */
static void open_stall(bub_ctx *c, bub_cu *cs, bub_rwave *r, uint32_t code, int64_t t)
{
    bub_open *o = r->open;
    if (!r->single) {
        FP_GROW(r->open, r->n_open, r->cap_open);
        o = &r->open[r->n_open++];
    }
    if (code & BUB_EV_UNCLEAN && cs->n_uncl++ == 0)
        cs->p = t; /* c1 is counted from here on */
    o->snap = exposed_clock(cs, r, code);
    int64_t c0 = cs->c0;
    code &= BUB_EV_CODE;
    if (code == BUB_EV_DRAIN) {
        o->idx = BUB_OPEN_DRAIN;
        if (cs->nd++ == 0)
            cs->mark_nd = c0;
        return;
    }
    o->idx = code - 1;
    if (cs->na++ == 0) {
        cs->mark_na = c0;
        cs->solo_w = r;
        cs->solo_idx = code - 1;
        return;
    }
    if (cs->solo_w) { /* no longer alone */
        keys_open(c, cs->keys, &cs->solo_w->st[cs->solo_idx], cs->mark_na);
        cs->solo_w = NULL;
    }
    keys_open(c, cs->keys, &r->st[code - 1], c0);
}

static void close_stall(bub_ctx *c, bub_cu *cs, fp_bub_simd *cur, bub_rwave *r, uint32_t code)
{
    fp_bubbles *b = c->b;
    uint32_t idx = r->open[0].idx;
    int64_t snap = r->open[0].snap;
    if (!r->single) {
        idx = (code & BUB_EV_CODE) == BUB_EV_DRAIN ? BUB_OPEN_DRAIN : (code & BUB_EV_CODE) - 1;
        size_t i = r->n_open - 1; /* the most recent: the only one unless stalls overlap */
        while (i > 0 && r->open[i].idx != idx)
            i--;
        snap = r->open[i].snap;
        r->open[i] = r->open[--r->n_open];
    }
    int64_t c0 = cs->c0, exposed = exposed_clock(cs, r, code) - snap;
    if (code & BUB_EV_UNCLEAN)
        cs->n_uncl--;
    if (idx == BUB_OPEN_DRAIN) { /* any open drain of r: only the sum of them is kept */
        b->drain_exposed += exposed;
        if (--cs->nd == 0)
            b->drain_wall += c0 - cs->mark_nd;
        return;
    }
    /* the stall's row and class in locals: the int64_t sums below could alias them */
    int64_t row = r->st[idx].row;
    int cls = r->st[idx].cls;
    fp_bub_inst *in = &b->insts[row];
    fp_bub_class *cl = &b->classes[cls];
    int line = in->line_id;
    in->exposed += exposed;
    cl->exposed += exposed;
    cur->exposed += exposed;
    if (--cs->na == 0) {
        int64_t lost = c0 - cs->mark_na;
        cur->wall += lost;
        if (cs->solo_w == r && cs->solo_idx == idx) { /* alone all along */
            cs->solo_w = NULL;
            cl->wall += lost;
            in->wall += lost;
            if (line >= 0)
                b->lines[line].wall += lost;
            return;
        }
    }
    bub_keys *k = cs->keys;
    key_close(k, key_cls(cls), c0, &cl->wall);
    key_close(k, key_row(row), c0, &in->wall);
    if (line >= 0)
        key_close(k, key_line(k, line), c0, &b->lines[line].wall);
}

/* Stall v of run r closes and w, the next of its wave, opens in the same item - at one c0
 * (a span's two ends, or a bare close and open at one time) - while another stall of the
 * CU stays open (na >= 2, so neither is solo): close_stall then open_stall, but a key the
 * two share is left counted. Its counter would go n -> n - 1 -> n at one c0: at n = 1 the
 * lost cycles c0 - mark added now and the mark moved to c0 sum to what the later 1 -> 0
 * adds from the old mark, so nothing changes (on moe_reduce-big 93 % of these pairs share
 * their line, a third their class). Only runs of build_run (one open stall, open[0]) and
 * no drain. */
static void pass_stall(bub_ctx *c, bub_cu *cs, fp_bub_simd *cur, bub_rwave *r, uint32_t cl, uint32_t op,
                       int64_t t)
{
    fp_bubbles *b = c->b;
    bub_open *o = r->open;
    const bub_iv *v = &r->st[(cl & BUB_EV_CODE) - 1], *w = &r->st[(op & BUB_EV_CODE) - 1];
    /* rows and classes in locals: the int64_t sums below could alias them */
    int64_t rv = v->row, rw = w->row;
    int cv = v->cls, cw = w->cls;
    fp_bub_inst *iv = &b->insts[rv];
    int64_t c0 = cs->c0, exposed = exposed_clock(cs, r, cl) - o->snap;
    if (cl & BUB_EV_UNCLEAN)
        cs->n_uncl--;
    if (op & BUB_EV_UNCLEAN && cs->n_uncl++ == 0)
        cs->p = t;
    o->snap = exposed_clock(cs, r, op);
    o->idx = (op & BUB_EV_CODE) - 1;
    int lv = iv->line_id, lw = b->insts[rw].line_id;
    iv->exposed += exposed;
    b->classes[cv].exposed += exposed;
    cur->exposed += exposed;
    bub_keys *k = cs->keys;
    if (cv != cw) {
        key_close(k, key_cls(cv), c0, &b->classes[cv].wall);
        key_open(k, key_cls(cw), c0);
    }
    if (rv != rw) {
        key_close(k, key_row(rv), c0, &iv->wall);
        key_open(k, key_row(rw), c0);
    }
    if (lv != lw) {
        if (lv >= 0)
            key_close(k, key_line(k, lv), c0, &b->lines[lv].wall);
        if (lw >= 0)
            key_open(k, key_line(k, lw), c0);
    }
}

/* The stall bounds of item x of run r (the sweep at its time). */
static inline void item_stalls(bub_ctx *c, bub_cu *cs, fp_bub_simd *cur, bub_rwave *r, const bub_ev *x)
{
    uint32_t cl = x->close, op = x->open;
    if (cl && op && cs->na >= 2 && r->single && (cl & BUB_EV_CODE) != BUB_EV_DRAIN &&
        (op & BUB_EV_CODE) != BUB_EV_DRAIN) {
        pass_stall(c, cs, cur, r, cl, op, x->t);
        return;
    }
    if (cl)
        close_stall(c, cs, cur, r, cl);
    if (op)
        open_stall(c, cs, r, op, x->t);
}

static void retire(bub_ctx *c, bub_cu *cs, bub_rwave *r)
{
    if (--cs->n_waves == 0)
        keys_put(c, cs);
    c->resident_events -= r->n - 1;
    rwave_put(c, r);
}

/* The top wave's items are applied in a run for as long as they come no later
 * than both of its heap children's next items: exactly the order a heap_down
 * after every item would give (on a tie the top stays on top), without the
 * call per item. */
void fp_bub_sweep_flush(bub_ctx *c, int64_t upto)
{
    if (!c->n_heap) /* also: no heap array yet */
        goto done;
    /* no n_heap test a step: with no wave left heap[0] is the sentinel (heap_pop leaves
     * the array sorted, with it, once 16 or fewer remain), whose INT64_MAX ends the loop */
    while (c->heap[0].t < upto) {
        bub_rwave *r = c->heap[0].r;
        int64_t lim = upto - 1; /* upto > the top's next event, so no underflow */
        if (c->heap[1].t < lim) /* sorted: the sentinel when alone; unsorted: more than 16 */
            lim = c->heap[1].t;
        if (c->heap_unsorted && c->heap[2].t < lim) /* sorted: heap[1] is the least */
            lim = c->heap[2].t;
        bub_cu *cs = r->cs;
        fp_bub_simd *cur = r->cur;
        const bub_ev *x = r->at;
        do {
            advance(cs, x->t);
            /* before the stall bounds: a span moves q, m2 and who1, which no stall bound
             * reads at its own time (only c0 and c1, which advance set) */
            span(cs, cur, r->ws, x->e); /* no span (e NOSPAN): no change */
            if (x->close | x->open)
                item_stalls(c, cs, cur, r, x);
        } while ((++x)->t <= lim); /* the sentinel after the run stops it */
        r->at = x;
        c->heap[0].t = x->t;
        if (x->t == INT64_MAX) { /* the sentinel after its run: the wave is retired */
            heap_pop(c);
            retire(c, cs, r);
        } else {
            heap_fix_top(c);
        }
    }
done:
    if (upto > c->g_flushed)
        c->g_flushed = upto;
}

void fp_bub_sweep_end_group(bub_ctx *c)
{
    fp_bub_sweep_flush(c, INT64_MAX);
    for (size_t i = 0; i < c->n_cus; i++)
        if (c->cus[i].keys) /* not after a misdated wave stopped the walk */
            keys_put(c, &c->cus[i]);
    c->n_cus = 0;
    c->g_flushed = INT64_MIN;
}

void fp_bub_sweep_free(bub_ctx *c)
{
    for (size_t i = 0; i < c->n_heap; i++)
        rwave_put(c, c->heap[i].r);
    c->n_heap = 0;
    ws_release(c, c->cur_ws);
    c->cur_ws = NULL;
    for (size_t i = 0; i < c->n_free_ws; i++)
        free(c->free_ws[i]);
    free(c->free_ws);
    c->free_ws = NULL;
    c->n_free_ws = c->cap_free_ws = 0;
    for (size_t i = 0; i < c->n_free; i++) {
        free(c->free_rw[i]->ev);
        free(c->free_rw[i]->st);
        free(c->free_rw[i]->open);
        free(c->free_rw[i]);
    }
    for (size_t i = 0; i < c->n_cus; i++)
        if (c->cus[i].keys)
            keys_put(c, &c->cus[i]);
    for (size_t i = 0; i < c->n_keys_free; i++) {
        free(c->keys_free[i]->k);
        free(c->keys_free[i]);
    }
    free(c->keys_free);
    free(c->cus);
    free(c->free_rw);
    free(c->heap);
    free(c->tmp_ev);
    c->keys_free = NULL;
    c->n_keys_free = c->cap_keys_free = 0;
    c->cus = NULL;
    c->free_rw = NULL;
    c->heap = NULL;
    c->tmp_ev = NULL;
    c->n_heap = c->n_free = c->n_cus = 0;
    c->heap_unsorted = false;
}
