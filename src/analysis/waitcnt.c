/*
 * waitcnt.c - one wave's instruction stream: per-instruction sums, the dynamic
 * class of combined waits, and the s_waitcnt -> producer attribution.
 *
 * Evidence, in order of preference:
 *  - decoder: wave.waitcnt lists, per s_waitcnt execution that had something
 *    outstanding and in execution order, the producer lines. A combined wait
 *    (vmcnt + lgkmcnt) may get one entry per counter kind, consecutively; they
 *    are merged back onto the one execution. Executions with nothing
 *    outstanding have no entry.
 *  - inferred: when a wave carries no waitcnt list at all, the vmcnt/lgkmcnt
 *    counters are replayed in program order (gfx9: vector memory returns in
 *    order; LDS/SMEM are treated in order too, which is exact for LDS alone and
 *    approximate when SMEM is mixed in).
 * A decoder edge names a producer LINE; the execution is found by replaying the
 * counters: the most recent execution of that line among the ones this wait
 * retires (so in a pipelined loop, `s_waitcnt vmcnt(1)` after this iteration's
 * load is charged to the previous iteration's load, not the one just issued).
 * When the replay does not retire that line (SMEM out of order, a queue
 * deeper than the counter), its most recent execution is used.
 */
#include <stdio.h>
#include <string.h>

#include "bubbles_internal.h"

void fp_bub_ctx_init(bub_ctx *c, fp_bubbles *b, fp_bub_warn_fn warn, void *user)
{
    memset(c, 0, sizeof *c);
    c->b = b;
    c->warn = warn;
    c->user = user;
    size_t n = b->code.n + 1;
    c->row_static = calloc(n, sizeof *c->row_static);
    c->row_wait = calloc(n, 1);
    c->row_nopipe = calloc(n, 1);
    c->row_wf = calloc(n, sizeof *c->row_wf);
    c->last_stamp = calloc(n, sizeof *c->last_stamp);
    c->last_exe = calloc(n, sizeof *c->last_exe);
    if (!c->row_static || !c->row_wait || !c->row_nopipe || !c->row_wf || !c->last_stamp || !c->last_exe)
        abort();
    for (int k = 0; k < FP_CL_COUNT; k++)
        for (int cat = 0; cat < BUB_CATS; cat++)
            c->cnt_of[k][cat] = (unsigned char)fp_counter_of((fp_class)k, cat);
    for (size_t i = 0; i < b->code.n; i++) {
        const char *isa = b->code.rows[i].isa;
        fp_waitcnt_parse(isa, &c->row_wf[i]);
        c->row_static[i] = fp_classify_parsed(isa, &c->row_wf[i]); /* the wait parsed once */
        c->row_wait[i] = c->row_wf[i].is_wait;
        c->row_nopipe[i] = fp_bub_isa_nopipe(isa, c->row_static[i]);
        b->insts[i].cls = c->row_static[i];
    }
}

void fp_bub_ctx_free(bub_ctx *c)
{
    free(c->row_static);
    free(c->row_wait);
    free(c->row_nopipe);
    free(c->row_wf);
    free(c->last_stamp);
    free(c->last_exe);
    fp_bub_sweep_free(c);
    free(c->st);
    free(c->ex);
    free(c->ptab);
    free(c->prod);
    free(c->ret);
    c->ret = NULL;
    c->row_static = NULL;
    c->row_wait = NULL;
    c->row_nopipe = NULL;
    c->row_wf = NULL;
    c->last_stamp = NULL;
    c->last_exe = NULL;
    c->st = c->ex = NULL;
    c->ptab = NULL;
    c->prod = NULL;
}

void fp_bub_ctx_own_tables(bub_ctx *c)
{
    size_t n = c->b->code.n + 1;
    c->last_stamp = calloc(n, sizeof *c->last_stamp);
    c->last_exe = calloc(n, sizeof *c->last_exe);
    if (!c->last_stamp || !c->last_exe)
        abort();
    c->stamp = 0;
    c->prod = c->ret = NULL;
    c->cap_prod = c->cap_ret = 0;
}

static size_t row_of(const fp_code *code, int64_t line)
{
    if (line < 0 || line > code->max_index || !code->pos_of_index)
        return SIZE_MAX;
    return code->pos_of_index[line];
}

static size_t hash2(size_t a, size_t b) { return (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL); }

static fp_bub_pair *pair_get(bub_ctx *c, size_t wrow, size_t prow)
{
    fp_bubbles *b = c->b;
    if ((b->n_pairs + 1) * 2 > c->ptab_cap) {
        size_t nc = c->ptab_cap ? c->ptab_cap * 2 : 1024;
        size_t *nt = calloc(nc, sizeof *nt);
        if (!nt)
            abort();
        for (size_t i = 0; i < b->n_pairs; i++) {
            size_t h = hash2((size_t)b->pairs[i].wait_line, (size_t)b->pairs[i].prod_line) & (nc - 1);
            while (nt[h])
                h = (h + 1) & (nc - 1);
            nt[h] = i + 1;
        }
        free(c->ptab);
        c->ptab = nt;
        c->ptab_cap = nc;
    }
    /* keyed by row positions (stored in wait_line/prod_line as rows until fp_bubbles_json
     * maps them; rows and LineNumbers coincide in every known capture but need not) */
    size_t h = hash2(wrow, prow) & (c->ptab_cap - 1);
    while (c->ptab[h]) {
        fp_bub_pair *p = &b->pairs[c->ptab[h] - 1];
        if ((size_t)p->wait_line == wrow && (size_t)p->prod_line == prow)
            return p;
        h = (h + 1) & (c->ptab_cap - 1);
    }
    FP_GROW(b->pairs, b->n_pairs, b->cap_pairs);
    fp_bub_pair *p = &b->pairs[b->n_pairs++];
    memset(p, 0, sizeof *p);
    p->wait_line = (int64_t)wrow;
    p->prod_line = (int64_t)prow;
    p->cycles_min = INT64_MAX;
    p->first_pos = SIZE_MAX;
    p->first_seq = UINT64_MAX;
    c->ptab[h] = b->n_pairs;
    return p;
}

static void add_prod(bub_ctx *c, size_t *np, const bub_exe *x)
{
    for (size_t k = 0; k < *np; k++)
        if (c->prod[k].i == x->i)
            return; /* the same execution named twice */
    FP_GROW(c->prod, *np, c->cap_prod);
    c->prod[(*np)++] = *x;
}

/* A producer line named by the decoder -> its latest execution in this wave. */
static void named_producer(bub_ctx *c, size_t nret, int64_t line, size_t *np)
{
    fp_bubbles *b = c->b;
    size_t prow = row_of(&b->code, line);
    if (prow == SIZE_MAX) {
        b->producer_missing++;
        if (!c->warned_missing && c->warn) {
            char msg[160];
            snprintf(msg, sizeof msg, "waitcnt producer line %lld is not in code.json (ignored; counted in waitcnt.producer_missing)",
                     (long long)line);
            c->warn(c->user, msg);
            c->warned_missing = 1;
        }
        return;
    }
    if (c->last_stamp[prow] != c->stamp) {
        b->producer_not_seen++;
        return;
    }
    const bub_exe *best = NULL;
    for (size_t k = 0; k < nret; k++)
        if (c->ret[k].row == prow && (!best || c->ret[k].i > best->i))
            best = &c->ret[k];
    add_prod(c, np, best ? best : &c->last_exe[prow]);
}

static void ring_push(bub_ring *r, const bub_exe *x)
{
    if (r->n == BUB_REPLAY_CAP) { /* deeper than any counter: the oldest has retired */
        r->head = (r->head + 1) % BUB_REPLAY_CAP;
        r->n--;
    }
    r->v[(r->head + r->n) % BUB_REPLAY_CAP] = *x;
    r->n++;
}

/* Retire the oldest entries until at most `keep` are outstanding; they go to ret. */
static void ring_wait(bub_ctx *c, bub_ring *r, int keep, size_t *nret)
{
    while (keep >= 0 && r->n > (size_t)keep) {
        FP_GROW(c->ret, *nret, c->cap_ret);
        c->ret[(*nret)++] = r->v[r->head];
        r->head = (r->head + 1) % BUB_REPLAY_CAP;
        r->n--;
    }
}

/* The next unmatched decoder entry, refilling the window when a chunked wave has more. */
static inline const fp_wave_wait *wq_peek(bub_waits *q)
{
    if (q->k < q->n)
        return &q->e[q->k];
    if (q->more && q->more(q->user, q) && q->k < q->n)
        return &q->e[q->k];
    return NULL;
}

void fp_bub_wave_begin(bub_ctx *c, bool has_waits, const bub_waits *q)
{
    c->stamp++;
    if (c->stamp == 0) { /* wrapped: clear so old stamps cannot match */
        memset(c->last_stamp, 0, (c->b->code.n + 1) * sizeof *c->last_stamp);
        c->stamp = 1;
    }
    c->replay = !has_waits;
    c->vmq.head = c->vmq.n = c->lgq.head = c->lgq.n = 0;
    c->wave_i = 0;
    c->wq = *q;
    c->wq.matched = 0;
}

/* A wait with producers: the pairs it charges, and its dynamic class. */
static fp_class charge_wait(bub_ctx *c, const fp_wave_inst *r, size_t row, int64_t stall, size_t np, bool inferred)
{
    fp_bubbles *b = c->b;
    fp_bub_inst *x = &b->insts[row];
    fp_class st = c->row_static[row];
    uint64_t i = c->wave_i;
    b->waits_with_producers++;
    b->waits_inferred += inferred;
    int64_t release = r->time + stall;
    double share = (double)stall / (double)np;
    int64_t nk[3] = {0, 0, 0};
    for (size_t q = 0; q < np; q++) {
        const bub_exe *p = &c->prod[q];
        size_t prow = p->row;
        fp_bub_pair *pp = pair_get(c, row, prow);
        uint64_t seq = (i << 20) | (uint64_t)(q < 0xFFFFF ? q : 0xFFFFF);
        if (c->cur_pos < pp->first_pos || (c->cur_pos == pp->first_pos && seq < pp->first_seq)) {
            pp->first_pos = c->cur_pos;
            pp->first_seq = seq;
        }
        int64_t cyc = release - p->rel;
        pp->count++;
        pp->count_inferred += inferred;
        pp->cycles_sum += cyc;
        if (cyc < pp->cycles_min)
            pp->cycles_min = cyc;
        if (cyc > pp->cycles_max)
            pp->cycles_max = cyc;
        pp->distance_sum += (int64_t)(i - p->i - 1);
        pp->stall_share += share;
        nk[fp_counter_of(c->row_static[prow], p->cat)]++;
    }
    if (st != FP_CL_WAITCNT) {
        x->class_cycles[st] += stall;
        return st;
    }
    /* combined wait: this execution's stall goes to the counter it really waited on - the
     * kind of most of its producers (ties: vector memory, the longer latency) - so the
     * class of every stalled cycle is one class and exposed <= stall holds per class */
    fp_class dyn = nk[FP_CNT_VM] >= nk[FP_CNT_LGKM] ? (nk[FP_CNT_VM] ? FP_CL_VMCNT : FP_CL_WAITCNT) : FP_CL_LGKMCNT;
    x->class_cycles[dyn] += stall;
    return dyn;
}

/* A counter wait: the executions it retires (replay), the decoder entries that are its
 * own, then the charge. Returns its dynamic class. */
static fp_class wait_record(bub_ctx *c, const fp_wave_inst *r, size_t row, int64_t stall)
{
    fp_bubbles *b = c->b;
    const fp_code *code = &b->code;
    b->waits_exec++;
    size_t np = 0, nret = 0;
    bool inferred = false;
    /* counter replay runs always: it resolves decoder edges to executions */
    const fp_waitcnt_fields *f = &c->row_wf[row];
    if (f->vm)
        ring_wait(c, &c->vmq, f->vm_n, &nret);
    if (f->lgkm)
        ring_wait(c, &c->lgq, f->lgkm_n, &nret);
    if (!c->replay) {
        unsigned kinds = 0;
        const fp_wave_wait *e;
        while ((e = wq_peek(&c->wq)) && e->line == r->line) {
            const int64_t *prods = c->wq.prods + e->first;
            unsigned ek = 0;
            for (size_t q = 0; q < e->n; q++) {
                size_t pr = row_of(code, prods[q]);
                ek |= pr == SIZE_MAX ? 0u : 1u << fp_counter_of(c->row_static[pr], -1);
            }
            if (kinds && (ek & kinds))
                break; /* same kind again: the next execution's entry */
            kinds |= ek ? ek : 1u;
            for (size_t q = 0; q < e->n; q++)
                named_producer(c, nret, prods[q], &np);
            c->wq.k++;
            c->wq.matched++;
        }
    } else {
        for (size_t q = 0; q < nret; q++)
            add_prod(c, &np, &c->ret[q]);
        inferred = np > 0;
    }
    if (np > 0)
        return charge_wait(c, r, row, stall, np, inferred);
    fp_class st = c->row_static[row];
    b->insts[row].class_cycles[st] += stall;
    return st;
}

void fp_bub_wave_chunk(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi)
{
    fp_bubbles *b = c->b;
    /* the per-row tables in locals: the stores below could alias them for the compiler */
    const size_t *pos_of = b->code.pos_of_index;
    const uint64_t max_line = pos_of ? (uint64_t)b->code.max_index : 0;
    const fp_class *row_static = c->row_static;
    const unsigned char *row_wait = c->row_wait;
    fp_bub_inst *insts = b->insts;
    uint32_t *last_stamp = c->last_stamp;
    bub_exe *last_exe = c->last_exe;
    const uint32_t stamp = c->stamp;
    b->w_records += (int64_t)n;
    uint64_t wi = c->wave_i;
    for (size_t j = 0; j < n; j++, wi++) {
        const fp_wave_inst *r = &rec[j];
        /* row_of: an unsigned compare also sends negative lines to "unknown" */
        if (!pos_of || (uint64_t)r->line > max_line || pos_of[r->line] == SIZE_MAX) {
            b->unknown_line_records++;
            if (!c->warned_unknown && c->warn) {
                char msg[160];
                snprintf(msg, sizeof msg, "wave records name line %lld, absent from code.json (ignored)", (long long)r->line);
                c->warn(c->user, msg);
                c->warned_unknown = 1;
            }
            continue;
        }
        size_t row = pos_of[r->line];
        int64_t stall = r->stall < 0 ? 0 : r->stall;
        fp_bub_inst *x = &insts[row];
        x->w_hit++;
        x->w_stall += stall;
        x->w_latency += r->dur;
        fp_class st = row_static[row];
        fp_class dyn = st;
        bub_exe me = {wi, r->time + stall, (uint32_t)row, r->cat};
        if (row_wait[row]) {
            c->wave_i = wi;
            dyn = wait_record(c, r, row, stall);
        } else {
            x->class_cycles[st] += stall;
            fp_counter kc = (unsigned)r->cat < BUB_CATS ? (fp_counter)c->cnt_of[st][r->cat] : fp_counter_of(st, r->cat);
            if (kc == FP_CNT_VM)
                ring_push(&c->vmq, &me);
            else if (kc == FP_CNT_LGKM)
                ring_push(&c->lgq, &me);
        }
        if (stall > 0) {
            FP_GROW(c->st, c->n_st, c->cap_st);
            c->st[c->n_st++] = (bub_iv){r->time, r->time + stall, gi, (int32_t)dyn, (int64_t)row};
        }
        fp_bub_window(c, r, row, stall);
        last_stamp[row] = stamp;
        last_exe[row] = me;
    }
    c->wave_i = wi;
}

void fp_bub_wave_end(bub_ctx *c, int64_t entries_total)
{
    c->b->waits_unmatched_entries += entries_total - c->wq.matched;
    c->wq = (bub_waits){0};
    fp_bub_windows_done(c);
}

void fp_bub_wave_insts(bub_ctx *c, const fp_wave *w, int gi)
{
    bub_waits q = {w->waits, w->prods, w->n_waits, 0, 0, NULL, NULL};
    fp_bub_wave_begin(c, w->has_waitcnt && w->n_waits > 0, &q);
    fp_bub_wave_chunk(c, w->insts, w->n_insts, gi);
    fp_bub_wave_end(c, (int64_t)w->n_waits);
}
