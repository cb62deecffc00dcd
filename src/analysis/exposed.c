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
 *  - each wave's events come out of its file already in time order (records
 *    are in issue order, so windows start in order and their union is built in
 *    one pass), so a wave becomes one sorted run of 16-byte events (three
 *    sorted sequences merged: in-flight spans, stall starts, stall ends; an LSD
 *    radix sort on the time only when a hostile file is out of order);
 *  - the walk hands a group's waves over in begin order (filenames.json), and
 *    after each wave the runs are k-way merged (a heap of resident waves) up to
 *    the next wave's begin: no later wave can have an event before it. A wave
 *    whose run is consumed is retired, so memory is the events of the waves
 *    resident at one moment, not of the whole group;
 *  - every event at one cycle is applied before the interval to the next cycle
 *    of its CU is accumulated and all sums are integers, so the order among
 *    events of one cycle - hence the merge order - cannot change any result.
 */
#include <string.h>

#include "bubbles_internal.h"

enum { EV_EXEC_END = 0, EV_STALL_END = 1, EV_EXEC_START = 2, EV_STALL_START = 3 };

/* Opcodes that occupy no pipe whatever the decoder's category (a synthetic or
 * old trace may give none): counter waits, hazard padding, barriers, messages. */
static const char *const NOPIPE_PREFIX[] = {"s_waitcnt", "s_wait_", "s_nop", "s_barrier", "s_endpgm",
                                            "s_sendmsg", "s_sleep", "s_setprio", "s_ttracedata"};

bool fp_bub_isa_nopipe(const char *isa, fp_class cls)
{
    if (fp_class_table[cls].is_bubble)
        return true; /* waits, barrier, nop, drain */
    char op[32];
    fp_opcode_lc(isa, op, sizeof op);
    for (size_t i = 0; i < sizeof NOPIPE_PREFIX / sizeof *NOPIPE_PREFIX; i++)
        if (!strncmp(op, NOPIPE_PREFIX[i], strlen(NOPIPE_PREFIX[i])))
            return true;
    return false;
}

static int cmp_iv_t0(const void *a, const void *b)
{
    const bub_iv *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Re-union c->ex in place after a sort (a hostile file: records out of order). */
static void union_sorted(bub_ctx *c)
{
    qsort(c->ex, c->n_ex, sizeof *c->ex, cmp_iv_t0);
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
    uint64_t span = (uint64_t)(tmax - tmin); /* times are in [0, 2^50] (wave_insane) */
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

/* The next event of each of the three sequences, or t = INT64_MAX when done. */
static inline bub_ev seq_ex(const bub_ctx *c, size_t k)
{
    if (k >= 2 * c->n_ex)
        return (bub_ev){INT64_MAX, 0, 0};
    const bub_iv *v = &c->ex[k / 2];
    return (k & 1) ? (bub_ev){v->t1, 0, EV_EXEC_END} : (bub_ev){v->t0, 0, EV_EXEC_START};
}

static bub_rwave *rwave_get(bub_ctx *c)
{
    if (c->n_free) {
        bub_rwave *r = c->free_rw[--c->n_free];
        r->n = r->k = 0;
        r->n_st = 0;
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
        *ws = (bub_wst){0, 1};
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

static inline int64_t rw_next(const bub_rwave *r) { return r->ev[r->k].t; }

static void heap_down(bub_rwave **h, size_t n, size_t i)
{
    bub_rwave *x = h[i];
    int64_t tx = rw_next(x);
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        size_t m = l + 1 < n && rw_next(h[l + 1]) < rw_next(h[l]) ? l + 1 : l;
        if (rw_next(h[m]) >= tx)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

static void heap_push(bub_ctx *c, bub_rwave *r)
{
    FP_GROW(c->heap, c->n_heap, c->cap_heap);
    size_t i = c->n_heap++;
    int64_t t = rw_next(r);
    while (i > 0 && rw_next(c->heap[(i - 1) / 2]) > t) {
        c->heap[i] = c->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->heap[i] = r;
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
    s->cu = cu;
    s->started = false;
    size_t idx;
    simd_for(c->b, c->g_se, cu, c->g_simd, &idx);
    s->simd_idx = idx;
    return s;
}

/* The current wave's c->ex[0 .. nex) and c->st as one run on CU state cs. */
static void add_run(bub_ctx *c, bub_cu *cs, size_t nex)
{
    fp_bubbles *b = c->b;
    size_t ne = 2 * (nex + c->n_st);
    if (ne == 0)
        return;
    bub_rwave *r = rwave_get(c);
    r->cu = (int)(cs - c->cus);
    r->ws = ws_current(c);
    r->ws->refs++;
    if (ne + 1 > r->cap_ev) {
        r->cap_ev = ne + 1;
        free(r->ev);
        r->ev = malloc(r->cap_ev * sizeof *r->ev);
        if (!r->ev)
            abort();
    }
    if (c->n_st > r->cap_st) {
        r->cap_st = c->n_st;
        free(r->st);
        r->st = malloc(r->cap_st * sizeof *r->st);
        if (!r->st)
            abort();
    }
    for (size_t i = 0; i < c->n_st; i++)
        r->st[i] = (bub_stall){c->st[i].row, c->st[i].t1 - c->st[i].t0, c->st[i].cls,
                               b->insts[c->st[i].row].line_id};
    r->n_st = c->n_st;
    /* three-way merge: exec spans (start, end, start, ...), stall starts, stall ends */
    size_t kx = 0, ks = 0, ke = 0, n = 0;
    bool sorted = true;
    int64_t last = INT64_MIN;
    size_t full = c->n_ex;
    c->n_ex = nex; /* seq_ex reads the first nex spans */
    bub_ev x = seq_ex(c, kx);
    while (n < ne) {
        int64_t ts = ks < c->n_st ? c->st[ks].t0 : INT64_MAX;
        int64_t te = ke < c->n_st ? c->st[ke].t1 : INT64_MAX;
        bub_ev e;
        if (x.t <= ts && x.t <= te) {
            e = x;
            e.idx = (uint32_t)(kx / 2);
            x = seq_ex(c, ++kx);
        } else if (ts <= te) {
            e = (bub_ev){ts, (uint32_t)ks, EV_STALL_START};
            ks++;
        } else {
            e = (bub_ev){te, (uint32_t)ke, EV_STALL_END};
            ke++;
        }
        sorted &= e.t >= last;
        last = e.t;
        r->ev[n++] = e;
    }
    c->n_ex = full;
    if (!sorted) { /* a hostile file: records out of time order */
        if (c->cap_tmp < ne + 1) {
            c->cap_tmp = ne + 1;
            c->tmp_ev = realloc(c->tmp_ev, c->cap_tmp * sizeof *c->tmp_ev);
            if (!c->tmp_ev)
                abort();
        }
        bub_ev *out = radix_by_time(r->ev, c->tmp_ev, ne);
        if (out != r->ev)
            memcpy(r->ev, out, ne * sizeof *out);
    }
    r->n = ne;
    r->k = 0;
    if (r->ev[0].t < c->g_flushed)
        c->order_broken = true; /* an event before what was already swept */
    heap_push(c, r);
    c->resident_events += ne;
    if (c->resident_events > c->peak_resident_events)
        c->peak_resident_events = c->resident_events;
}

int64_t fp_bub_sweep_add_chunk(bub_ctx *c, int cu, int64_t next_record_time)
{
    bub_cu *cs = cu_state(c, cu);
    size_t nex = c->n_ex ? c->n_ex - 1 : 0;
    add_run(c, cs, nex);
    int64_t safe = next_record_time;
    if (c->n_ex) { /* the held span moves to the front */
        c->ex[0] = c->ex[c->n_ex - 1];
        c->n_ex = 1;
        if (c->ex[0].t0 < safe)
            safe = c->ex[0].t0;
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
    add_run(c, cs, c->n_ex);
    ws_release(c, c->cur_ws); /* the wave is read: its runs hold it now */
    c->cur_ws = NULL;
}

/* The draining waves of [cs->t, t): exposed when no other wave has anything in
 * flight; lost once per SIMD cycle when no wave has (then all of them are exposed).
 * Kept apart from the stalls so the stall loop below is what it was. */
static void drain_cycles(fp_bubbles *b, const bub_cu *cs, int exec, int64_t len)
{
    for (size_t a = 0; a < cs->nd; a++)
        if (exec - cs->drain[a].rw->ws->wexec <= 0)
            b->drain_exposed += len;
    if (exec == 0)
        b->drain_wall += len;
}

/* A new generation of the lost-cycle marks (see bub_ctx); cleared when it wraps. */
static void marks_next(bub_ctx *c)
{
    const fp_bubbles *b = c->b;
    if (!c->mark_cls) {
        c->mark_cls = calloc(FP_CL_COUNT + 1, sizeof *c->mark_cls);
        c->mark_row = calloc(b->code.n + 1, sizeof *c->mark_row);
        c->mark_line = calloc(b->n_lines + 1, sizeof *c->mark_line);
        if (!c->mark_cls || !c->mark_row || !c->mark_line)
            abort();
    }
    if (++c->mark_gen == 0) {
        memset(c->mark_cls, 0, (FP_CL_COUNT + 1) * sizeof *c->mark_cls);
        memset(c->mark_row, 0, (b->code.n + 1) * sizeof *c->mark_row);
        memset(c->mark_line, 0, (b->n_lines + 1) * sizeof *c->mark_line);
        c->mark_gen = 1;
    }
}

/* Accumulate [cs->t, t) on CU state cs. */
static void accumulate(bub_ctx *c, bub_cu *cs, int64_t t)
{
    fp_bubbles *b = c->b;
    fp_bub_simd *cur = &b->simds[cs->simd_idx];
    int64_t len = t - cs->t;
    int exec = cs->exec;
    if (exec > 0)
        cur->issue += len;
    /* a wave's in-flight spans are a disjoint union (wexec is 0 or 1): with two or
     * more waves in flight every stall and drain has another wave to hide behind */
    if (exec >= 2)
        return;
    if (cs->na > 0 && exec == 0)
        cur->wall += len;
    if (cs->nd > 0)
        drain_cycles(b, cs, exec, len);
    /* exec is 0 or 1 here; at 0 the cycle is lost: once per class, instruction and line,
     * counted by the first stall (in active order) that has it - hidden ones included,
     * as they mark it too */
    bool lost = exec == 0 && cs->na > 0;
    if (lost)
        marks_next(c);
    uint32_t gen = c->mark_gen;
    for (size_t a = 0; a < cs->na; a++) {
        const bub_active *v = &cs->active[a];
        int line = v->line;
        bool dup_cls = false, dup_row = false, dup_line = false;
        if (lost) {
            dup_cls = c->mark_cls[v->cls] == gen;
            dup_row = c->mark_row[v->row] == gen;
            dup_line = line >= 0 && c->mark_line[line] == gen;
            c->mark_cls[v->cls] = c->mark_row[v->row] = gen;
            if (line >= 0)
                c->mark_line[line] = gen;
        }
        if (exec - v->rw->ws->wexec > 0)
            continue; /* another wave has an instruction in flight: hidden */
        b->insts[v->row].exposed += len;
        b->classes[v->cls].exposed += len;
        cur->exposed += len;
        if (!lost)
            continue;
        if (!dup_cls)
            b->classes[v->cls].wall += len;
        if (!dup_row)
            b->insts[v->row].wall += len;
        if (!dup_line && line >= 0)
            b->lines[line].wall += len;
    }
}

/* The top wave's events are applied in a run for as long as they come no later
 * than both of its heap children's next events: exactly the order a heap_down
 * after every event would give (on a tie the top stays on top), without the
 * call per event. */
void fp_bub_sweep_flush(bub_ctx *c, int64_t upto)
{
    fp_bubbles *b = c->b;
    while (c->n_heap && rw_next(c->heap[0]) < upto) {
        bub_rwave *r = c->heap[0];
        int64_t lim = upto - 1; /* upto > the top's next event, so no underflow */
        if (c->n_heap > 1 && rw_next(c->heap[1]) < lim)
            lim = rw_next(c->heap[1]);
        if (c->n_heap > 2 && rw_next(c->heap[2]) < lim)
            lim = rw_next(c->heap[2]);
        bub_cu *cs = &c->cus[r->cu];
        do {
            const bub_ev *x = &r->ev[r->k];
            if (!cs->started) {
                cs->started = true;
                cs->t = x->t;
            } else if (x->t > cs->t) {
                accumulate(c, cs, x->t);
                cs->t = x->t;
            }
            switch (x->kind) {
            case EV_EXEC_END:
                cs->exec--;
                r->ws->wexec--;
                break;
            case EV_EXEC_START:
                cs->exec++;
                r->ws->wexec++;
                break;
            case EV_STALL_END: {
                bool dr = r->st[x->idx].cls == BUB_CLS_DRAIN;
                bub_active *list = dr ? cs->drain : cs->active;
                size_t *n = dr ? &cs->nd : &cs->na;
                for (size_t a = 0; a < *n; a++)
                    if (list[a].rw == r && list[a].idx == x->idx) {
                        list[a] = list[--*n];
                        break;
                    }
                break;
            }
            case EV_STALL_START: {
                const bub_stall *st = &r->st[x->idx];
                bub_active v = {r, x->idx, st->row, st->cls, st->line};
                if (st->cls == BUB_CLS_DRAIN) {
                    FP_GROW(cs->drain, cs->nd, cs->cap_drain);
                    cs->drain[cs->nd++] = v;
                    break;
                }
                FP_GROW(cs->active, cs->na, cs->cap_active);
                cs->active[cs->na++] = v;
                b->simds[cs->simd_idx].stall += st->len;
                break;
            }
            default:
                break;
            }
        } while (++r->k < r->n && r->ev[r->k].t <= lim);
        if (r->k == r->n) { /* the wave is retired */
            c->n_heap--;
            c->resident_events -= r->n;
            if (c->n_heap) {
                c->heap[0] = c->heap[c->n_heap];
                heap_down(c->heap, c->n_heap, 0);
            }
            rwave_put(c, r);
        } else {
            heap_down(c->heap, c->n_heap, 0);
        }
    }
    if (upto > c->g_flushed)
        c->g_flushed = upto;
}

void fp_bub_sweep_end_group(bub_ctx *c)
{
    fp_bub_sweep_flush(c, INT64_MAX);
    for (size_t i = 0; i < c->n_cus; i++) {
        free(c->cus[i].active);
        free(c->cus[i].drain);
    }
    c->n_cus = 0;
    c->g_flushed = INT64_MIN;
}

void fp_bub_sweep_free(bub_ctx *c)
{
    for (size_t i = 0; i < c->n_heap; i++)
        rwave_put(c, c->heap[i]);
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
        free(c->free_rw[i]);
    }
    for (size_t i = 0; i < c->n_cus; i++) {
        free(c->cus[i].active);
        free(c->cus[i].drain);
    }
    free(c->cus);
    free(c->free_rw);
    free(c->heap);
    free(c->tmp_ev);
    free(c->mark_cls);
    free(c->mark_row);
    free(c->mark_line);
    c->mark_cls = c->mark_row = c->mark_line = NULL;
    c->mark_gen = 0;
    c->cus = NULL;
    c->free_rw = NULL;
    c->heap = NULL;
    c->tmp_ev = NULL;
    c->n_heap = c->n_free = c->n_cus = 0;
}
