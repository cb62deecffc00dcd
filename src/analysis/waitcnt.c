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
    c->last_i = calloc(n, sizeof *c->last_i);
    if (!c->row_static || !c->row_wait || !c->row_nopipe || !c->row_wf || !c->last_stamp || !c->last_i)
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
    free(c->last_i);
    fp_bub_sweep_free(c);
    free(c->st);
    free(c->ex);
    free(c->ptab);
    free(c->prod_i);
    free(c->ret_i);
    c->ret_i = NULL;
    c->row_static = NULL;
    c->row_wait = NULL;
    c->row_nopipe = NULL;
    c->row_wf = NULL;
    c->last_stamp = NULL;
    c->last_i = NULL;
    c->st = c->ex = NULL;
    c->ptab = NULL;
    c->prod_i = NULL;
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

static void add_prod(bub_ctx *c, size_t *np, size_t i)
{
    for (size_t k = 0; k < *np; k++)
        if (c->prod_i[k] == i)
            return; /* the same execution named twice */
    FP_GROW(c->prod_i, *np, c->cap_prod);
    c->prod_i[(*np)++] = i;
}

/* A producer line named by the decoder -> its latest execution index in this wave. */
static void named_producer(bub_ctx *c, const fp_wave *w, size_t nret, int64_t line, size_t *np)
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
    size_t best = SIZE_MAX;
    for (size_t k = 0; k < nret; k++) {
        size_t r = row_of(&b->code, w->insts[c->ret_i[k]].line);
        if (r == prow && (best == SIZE_MAX || c->ret_i[k] > best))
            best = c->ret_i[k];
    }
    add_prod(c, np, best != SIZE_MAX ? best : c->last_i[prow]);
}

typedef struct ring {
    size_t v[BUB_REPLAY_CAP];
    size_t head, n;
} ring;

static void ring_push(ring *r, size_t x)
{
    if (r->n == BUB_REPLAY_CAP) { /* deeper than any counter: the oldest has retired */
        r->head = (r->head + 1) % BUB_REPLAY_CAP;
        r->n--;
    }
    r->v[(r->head + r->n) % BUB_REPLAY_CAP] = x;
    r->n++;
}

/* Retire the oldest entries until at most `keep` are outstanding; they go to ret_i. */
static void ring_wait(bub_ctx *c, ring *r, int keep, size_t *nret)
{
    while (keep >= 0 && r->n > (size_t)keep) {
        FP_GROW(c->ret_i, *nret, c->cap_ret);
        c->ret_i[(*nret)++] = r->v[r->head];
        r->head = (r->head + 1) % BUB_REPLAY_CAP;
        r->n--;
    }
}

void fp_bub_wave_insts(bub_ctx *c, const fp_wave *w, int gi)
{
    fp_bubbles *b = c->b;
    const fp_code *code = &b->code;
    c->stamp++;
    if (c->stamp == 0) { /* wrapped: clear so old stamps cannot match */
        memset(c->last_stamp, 0, (code->n + 1) * sizeof *c->last_stamp);
        c->stamp = 1;
    }
    bool replay = !w->has_waitcnt || w->n_waits == 0;
    ring vmq = {{0}, 0, 0}, lgq = {{0}, 0, 0};
    size_t k = 0; /* next unmatched decoder entry */
    for (size_t i = 0; i < w->n_insts; i++) {
        const fp_wave_inst *r = &w->insts[i];
        b->w_records++;
        size_t row = row_of(code, r->line);
        if (row == SIZE_MAX) {
            b->unknown_line_records++;
            if (!c->warned_unknown && c->warn) {
                char msg[160];
                snprintf(msg, sizeof msg, "wave records name line %lld, absent from code.json (ignored)", (long long)r->line);
                c->warn(c->user, msg);
                c->warned_unknown = 1;
            }
            continue;
        }
        int64_t stall = r->stall < 0 ? 0 : r->stall;
        fp_bub_inst *x = &b->insts[row];
        x->w_hit++;
        x->w_stall += stall;
        x->w_latency += r->dur;
        fp_class st = c->row_static[row];
        fp_class dyn = st;
        if (c->row_wait[row]) {
            b->waits_exec++;
            size_t np = 0;
            bool inferred = false;
            /* counter replay runs always: it resolves decoder edges to executions */
            size_t nret = 0;
            const fp_waitcnt_fields *f = &c->row_wf[row];
            if (f->vm)
                ring_wait(c, &vmq, f->vm_n, &nret);
            if (f->lgkm)
                ring_wait(c, &lgq, f->lgkm_n, &nret);
            if (!replay) {
                unsigned kinds = 0;
                while (k < w->n_waits && w->waits[k].line == r->line) {
                    const fp_wave_wait *e = &w->waits[k];
                    unsigned ek = 0;
                    for (size_t q = 0; q < e->n; q++) {
                        size_t pr = row_of(code, w->prods[e->first + q]);
                        ek |= pr == SIZE_MAX ? 0u : 1u << fp_counter_of(c->row_static[pr], -1);
                    }
                    if (kinds && (ek & kinds))
                        break; /* same kind again: the next execution's entry */
                    kinds |= ek ? ek : 1u;
                    for (size_t q = 0; q < e->n; q++)
                        named_producer(c, w, nret, w->prods[e->first + q], &np);
                    k++;
                }
            } else {
                for (size_t q = 0; q < nret; q++)
                    add_prod(c, &np, c->ret_i[q]);
                inferred = np > 0;
            }
            if (np > 0) {
                b->waits_with_producers++;
                b->waits_inferred += inferred;
                int64_t release = r->time + stall;
                double share = (double)stall / (double)np;
                int64_t nk[3] = {0, 0, 0};
                for (size_t q = 0; q < np; q++) {
                    size_t pi = c->prod_i[q];
                    const fp_wave_inst *p = &w->insts[pi];
                    size_t prow = row_of(code, p->line);
                    fp_bub_pair *pp = pair_get(c, row, prow);
                    uint64_t seq = ((uint64_t)i << 20) | (uint64_t)(q < 0xFFFFF ? q : 0xFFFFF);
                    if (c->cur_pos < pp->first_pos || (c->cur_pos == pp->first_pos && seq < pp->first_seq)) {
                        pp->first_pos = c->cur_pos;
                        pp->first_seq = seq;
                    }
                    int64_t cyc = release - (p->time + (p->stall < 0 ? 0 : p->stall));
                    pp->count++;
                    pp->count_inferred += inferred;
                    pp->cycles_sum += cyc;
                    if (cyc < pp->cycles_min)
                        pp->cycles_min = cyc;
                    if (cyc > pp->cycles_max)
                        pp->cycles_max = cyc;
                    pp->distance_sum += (int64_t)(i - pi - 1);
                    pp->stall_share += share;
                    nk[fp_counter_of(c->row_static[prow], p->cat)]++;
                }
                if (st == FP_CL_WAITCNT) {
                    /* combined wait: this execution's stall goes to the counter it really
                     * waited on - the kind of most of its producers (ties: vector memory,
                     * the longer latency) - so the class of every stalled cycle is one
                     * class and exposed <= stall holds per class */
                    dyn = nk[FP_CNT_VM] >= nk[FP_CNT_LGKM] ? (nk[FP_CNT_VM] ? FP_CL_VMCNT : FP_CL_WAITCNT)
                                                           : FP_CL_LGKMCNT;
                    x->class_cycles[dyn] += stall;
                } else {
                    x->class_cycles[st] += stall;
                }
            } else {
                x->class_cycles[st] += stall;
            }
        } else {
            x->class_cycles[st] += stall;
            {
                fp_counter kc = (unsigned)r->cat < BUB_CATS ? (fp_counter)c->cnt_of[st][r->cat] : fp_counter_of(st, r->cat);
                if (kc == FP_CNT_VM)
                    ring_push(&vmq, i);
                else if (kc == FP_CNT_LGKM)
                    ring_push(&lgq, i);
            }
        }
        if (stall > 0) {
            FP_GROW(c->st, c->n_st, c->cap_st);
            c->st[c->n_st++] = (bub_iv){r->time, r->time + stall, gi, (int32_t)dyn, (int64_t)row};
        }
        fp_bub_window(c, r, row, stall);
        c->last_stamp[row] = c->stamp;
        c->last_i[row] = i;
    }
    b->waits_unmatched_entries += (int64_t)(w->n_waits - k);
    fp_bub_windows_done(c);
}
