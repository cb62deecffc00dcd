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
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bubbles_internal.h"
#include "flyprof/team.h"

/* The per-row tables of rows [lo, hi): each row's wait fields, class, whether it occupies
 * no pipe. Rows are independent, so two threads may take disjoint ranges. */
typedef struct rows_job {
    bub_ctx *c;
    size_t lo, hi;
} rows_job;

static void *classify_rows(void *p)
{
    const rows_job *j = p;
    bub_ctx *c = j->c;
    fp_bubbles *b = c->b;
    for (size_t i = j->lo; i < j->hi; i++) {
        const char *isa = b->code.rows[i].isa;
        fp_waitcnt_parse(isa, &c->row_wf[i]);
        c->row_static[i] = fp_classify_parsed(isa, &c->row_wf[i]); /* the wait parsed once */
        c->row_wait[i] = c->row_wf[i].is_wait;
        c->row_nopipe[i] = fp_bub_isa_nopipe(isa, c->row_static[i]);
        b->insts[i].cls = c->row_static[i];
    }
    return NULL;
}

/* Below this many rows one thread classifies: a thread costs more than it saves. */
#define CTX_SPLIT_MIN_ROWS 256

void fp_bub_ctx_init(bub_ctx *c, fp_bubbles *b, fp_bub_warn_fn warn, void *user)
{
    fp_bub_ctx_init_jobs(c, b, warn, user, 1);
}

void fp_bub_ctx_init_jobs(bub_ctx *c, fp_bubbles *b, fp_bub_warn_fn warn, void *user, int jobs)
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
    c->last_exe = NULL; /* keep_last's, on a wave read in chunks */
    if (!c->row_static || !c->row_wait || !c->row_nopipe || !c->row_wf)
        abort();
    for (int k = 0; k < FP_CL_COUNT; k++)
        for (int cat = 0; cat < BUB_CATS; cat++)
            c->cnt_of[k][cat] = (unsigned char)fp_counter_of((fp_class)k, cat);
    /* The classification is ~850 instructions a row (1.75 M of the main thread's serial
     * set-up on flash_attn_func-big): with two jobs a second thread takes the later half
     * of the rows while this one does the first (the CPU the walk's second worker will
     * use is idle here but for the wstates reader). Same tables either way. */
    rows_job all = {c, 0, b->code.n}, late = all;
    fp_task th;
    bool two = jobs >= 2 && b->code.n >= CTX_SPLIT_MIN_ROWS;
    if (two) {
        late.lo = all.hi = b->code.n / 2;
        two = fp_task_start(&th, classify_rows, &late) == 0;
        if (!two)
            all.hi = b->code.n;
    }
    classify_rows(&all);
    if (two)
        fp_task_join(&th);
    fp_bub_inst_tables_init(c);
}

void fp_bub_ctx_free(bub_ctx *c)
{
    fp_bub_inst_tables_free(c);
    free(c->row_static);
    free(c->row_wait);
    free(c->row_nopipe);
    free(c->row_wf);
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
    c->last_exe = NULL;
    c->st = NULL;
    c->ex = NULL;
    c->ptab = NULL;
    c->prod = NULL;
}

void fp_bub_ctx_own_tables(bub_ctx *c)
{
    c->last_exe = NULL; /* its own, made by keep_last when a wave comes in chunks */
    c->prod = c->ret = NULL;
    c->cap_prod = c->cap_ret = 0;
}

/* The category bits of a row of class st (nopipe: row_nopipe): per category key what the
 * pass did with fp_counter_of, row_nopipe || fp_bub_cat_nopipe and the drain test per
 * record (test_bub_inst holds the table to that computation). */
static uint64_t cat_bits(const bub_ctx *c, fp_class st, bool row_nopipe)
{
    uint64_t m = 0;
    for (unsigned k = 0; k < BUB_CATS; k++) {
        fp_counter kc = (fp_counter)c->cnt_of[st][k]; /* k = BUB_CAT_OTHER: the class's default */
        bool nopipe = row_nopipe || fp_bub_cat_nopipe((int)k);
        m |= (uint64_t)(kc == FP_CNT_VM) << (BUB_LB_VM + k) | (uint64_t)(kc == FP_CNT_LGKM) << (BUB_LB_LGKM + k) |
             (uint64_t)nopipe << (BUB_LB_NOPIPE + k) | (uint64_t)(nopipe && st == FP_CL_DRAIN) << (BUB_LB_DRAIN + k);
    }
    return m;
}

/* The counter a row's execution of category key k counts on (fp_counter_of of its class). */
static inline fp_counter line_counter(const bub_line *L, unsigned k)
{
    return (L->cat >> (BUB_LB_VM + k)) & 1u ? FP_CNT_VM : (L->cat >> (BUB_LB_LGKM + k)) & 1u ? FP_CNT_LGKM : FP_CNT_NONE;
}

/* The instruction pass's table of c's code rows into lines[0 .. c->lines_cap), every sum
 * 0: from the per-row tables only, which nothing writes once they are made, so a worker
 * fills its own on its thread while another sums into its table. */
static void lines_fill(const bub_ctx *c, bub_line *lines)
{
    const fp_code *code = &c->b->code;
    uint64_t bits[FP_CL_COUNT][2]; /* they depend on the class and row_nopipe alone */
    for (int k = 0; k < FP_CL_COUNT; k++)
        for (int np = 0; np < 2; np++)
            bits[k][np] = cat_bits(c, (fp_class)k, np);
    /* the flags bytes of bub_line.fl: by class, no-pipe row and wait row, from the bits */
    uint8_t fl[FP_CL_COUNT][2][2][BUB_CATS];
    for (int k = 0; k < FP_CL_COUNT; k++)
        for (int np = 0; np < 2; np++)
            for (int w = 0; w < 2; w++)
                for (unsigned q = 0; q < BUB_CATS; q++) {
                    uint64_t cb = bits[k][np] >> q;
                    unsigned f = (unsigned)(cb >> BUB_LB_NOPIPE & 1u) * BUB_F_NOPIPE |
                                 (unsigned)(cb >> BUB_LB_DRAIN & 1u) * BUB_F_DRAIN;
                    if (w) /* a wait's record takes wait_record, never a queue */
                        f |= BUB_F_WAIT;
                    else
                        f |= (unsigned)(cb >> BUB_LB_VM & 1u) * BUB_F_VM | (unsigned)(cb >> BUB_LB_LGKM & 1u) * BUB_F_LGKM;
                    fl[k][np][w][q] = (uint8_t)f;
                }
    /* keys 13 and 14 are no category's (bub_cat_key gives them none), yet computed as
     * every category past FP_CAT_BVH is: they hold key OTHER's flags, so wave_pass_direct
     * reads fl[cat] for every cat below BUB_CATS (test_bub_inst check_table holds it) */
    for (size_t l = 0; l < c->n_lines; l++) {
        size_t row = code->pos_of_index[l];
        bub_line *L = &lines[l];
        *L = (bub_line){.row = BUB_LINE_NONE, .rare = BUB_LINE_UNKNOWN};
        if (row == SIZE_MAX) {
            memset(L->fl, BUB_F_UNKNOWN, sizeof L->fl);
            continue;
        }
        fp_class st = c->row_static[row];
        L->row = (uint32_t)row; /* code rows are uint32 everywhere in the pass (bub_exe.row) */
        L->cls = (uint8_t)st;
        L->rare = c->row_wait[row] ? BUB_LINE_WAIT : 0;
        L->cat = bits[st][c->row_nopipe[row] != 0];
        memcpy(L->fl, fl[st][c->row_nopipe[row] != 0][L->rare], sizeof L->fl);
        L->kbit = (uint8_t)(1u << line_counter(L, BUB_CAT_OTHER));
    }
    /* past the last line: the one every record of a line out of the table reads (the pass
     * takes min(line, n_lines) instead of a test), never folded nor named; and the ones
     * up to lines_cap, the same */
    for (size_t l = c->n_lines; l < c->lines_cap; l++) {
        lines[l] = (bub_line){.row = BUB_LINE_NONE, .rare = BUB_LINE_UNKNOWN};
        memset(lines[l].fl, BUB_F_UNKNOWN, sizeof lines[l].fl);
    }
}

void fp_bub_inst_tables_init(bub_ctx *c)
{
    const fp_code *code = &c->b->code;
    c->n_lines = code->pos_of_index ? (size_t)code->max_index + 1 : 0;
    /* sentinels past the last line up to a power of two: a wave whose OR of lines is below
     * it reads its records' lines unclamped (wave_pass_direct); at most twice the table,
     * and not past 2^18 lines (16 MB), beyond which the one sentinel and the clamp stay */
    size_t cap = 1;
    while (cap < c->n_lines + 1 && cap < ((size_t)1 << 18))
        cap *= 2;
    c->lines_cap = cap < c->n_lines + 1 ? c->n_lines + 1 : cap;
    c->lines = malloc(c->lines_cap * sizeof *c->lines);
    if (!c->lines)
        abort();
    lines_fill(c, c->lines);
    c->lines_owner = c;
    c->g_wave = c->g_next = 0;
}

void fp_bub_inst_tables_adopt(bub_ctx *c, bub_ctx *from)
{
    c->lines = from->lines;
    c->lines_owner = c;
    from->lines = NULL;
    from->lines_owner = NULL;
}

void fp_bub_inst_tables_free(bub_ctx *c)
{
    if (c->lines_owner == c)
        free(c->lines);
    c->lines = NULL;
    c->lines_owner = NULL;
}

void fp_bub_inst_fold(bub_ctx *c)
{
    if (c->lines_owner != c)
        return; /* no wave read through this copy */
    for (size_t l = 0; l < c->n_lines; l++) {
        bub_line *L = &c->lines[l];
        if (L->row == BUB_LINE_NONE)
            continue;
        fp_bub_inst *x = &c->b->insts[L->row];
        x->w_hit += L->hit;
        x->w_stall += L->stall;
        x->w_latency += L->lat;
        if (!(L->rare & BUB_LINE_WAIT)) /* a wait's classes are dynamic: wait_record adds them */
            x->class_cycles[L->cls] += L->stall;
        L->hit = L->stall = L->lat = 0;
    }
}

int64_t fp_bub_line_hits(const bub_ctx *c, int64_t line)
{
    return (uint64_t)line < c->n_lines && c->lines[line].row != BUB_LINE_NONE ? c->lines[line].hit : 0;
}

/* The bub_line of a decoder line, NULL when it is not in code.json (row_of's SIZE_MAX). */
static inline bub_line *line_at(const bub_ctx *c, int64_t line)
{
    bub_line *L = &c->lines[(uint64_t)line < c->n_lines ? (uint64_t)line : c->n_lines]; /* the sentinel: NONE */
    return L->row == BUB_LINE_NONE ? NULL : L;
}

/* The latest execution in the wave in progress of line L's row into *x; false: none. */
static inline bool last_exe_of(const bub_ctx *c, const bub_line *L, bub_exe *x)
{
    if (L->last_g <= c->g_wave)
        return false;
    uint64_t i = L->last_g - 1 - c->g_wave;
    if (i < c->ck_wi0) { /* an earlier chunk's: kept at its end */
        *x = c->last_exe[L->row];
        return true;
    }
    const fp_wave_inst *r = &c->ck_rec[i - c->ck_wi0];
    *x = (bub_exe){i, r->time + (r->stall < 0 ? 0 : r->stall), L->row, r->cat};
    return true;
}

static size_t hash2(size_t a, size_t b) { return (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL); }

/* A pair not in the table yet: the table grows first when it would be half full. */
static __attribute__((noinline)) fp_bub_pair *pair_new(bub_ctx *c, size_t wrow, size_t prow)
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
    size_t h = hash2(wrow, prow) & (c->ptab_cap - 1);
    while (c->ptab[h]) /* it is absent: its slot is the first empty one */
        h = (h + 1) & (c->ptab_cap - 1);
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

/* The pair (wait row, producer row), keyed by row positions (stored in wait_line/prod_line
 * as rows until fp_bubbles_json maps them; rows and LineNumbers coincide in every known
 * capture but need not). The lookup inline, the insert out of line. */
static inline fp_bub_pair *pair_get(bub_ctx *c, size_t wrow, size_t prow)
{
    const size_t *tab = c->ptab;
    if (tab) {
        fp_bub_pair *pairs = c->b->pairs;
        const size_t mask = c->ptab_cap - 1;
        for (size_t h = hash2(wrow, prow) & mask; tab[h]; h = (h + 1) & mask) {
            fp_bub_pair *p = &pairs[tab[h] - 1];
            if ((size_t)p->wait_line == wrow && (size_t)p->prod_line == prow)
                return p;
        }
    }
    return pair_new(c, wrow, prow);
}

/* The caller made room for one more (FP_RESERVE of c->prod). */
static inline void add_prod(bub_ctx *c, size_t *np, const bub_exe *x)
{
    for (size_t k = 0; k < *np; k++)
        if (c->prod[k].i == x->i)
            return; /* the same execution named twice */
    c->prod[(*np)++] = *x;
}

/* A producer line that is not in code.json: counted, warned about once. */
static __attribute__((noinline)) void missing_producer(bub_ctx *c, int64_t line)
{
    c->b->producer_missing++;
    if (!c->warned_missing && c->warn) {
        char msg[160];
        snprintf(msg, sizeof msg, "waitcnt producer line %lld is not in code.json (ignored; counted in waitcnt.producer_missing)",
                 (long long)line);
        c->warn(c->user, msg);
        c->warned_missing = 1;
    }
}

/* A producer line named by the decoder -> its latest execution in this wave. */
static void named_producer(bub_ctx *c, size_t nret, int64_t line, size_t *np)
{
    fp_bubbles *b = c->b;
    const bub_line *L = line_at(c, line);
    if (!L) {
        missing_producer(c, line);
        return;
    }
    const bub_exe *best = NULL;
    for (size_t k = 0; k < nret; k++)
        if (c->ret[k].row == L->row && (!best || c->ret[k].i > best->i))
            best = &c->ret[k];
    if (best) { /* retired in this wave: its row ran, and only line L names that row (code.c
                 * pos_of_index gives a row one line), so last_exe_of would say seen */
        add_prod(c, np, best);
        return;
    }
    bub_exe last;
    if (!last_exe_of(c, L, &last)) {
        b->producer_not_seen++;
        return;
    }
    add_prod(c, np, &last);
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

/* Retire the oldest entries until at most `keep` are outstanding; they go to ret (room
 * for two rings' worth is made at the wave's begin: a wait retires from each ring once). */
static inline void ring_wait(bub_ctx *c, bub_ring *r, int keep, size_t *nret)
{
    if (keep < 0 || r->n <= (size_t)keep)
        return;
    size_t k = r->n - (size_t)keep;
    bub_exe *out = c->ret + *nret;
    for (size_t j = 0; j < k; j++)
        out[j] = r->v[(r->head + j) % BUB_REPLAY_CAP];
    r->head = (r->head + k) % BUB_REPLAY_CAP;
    r->n -= k;
    *nret += k;
}

/* The counter kinds of a decoder entry's producer lines (bub_line.kbit; a line not in
 * code.json: 0, the sentinel's too). */
static inline unsigned entry_kinds(const bub_ctx *c, const int64_t *prods, size_t n)
{
    unsigned ek = 0;
    const bub_line *lines = c->lines;
    const uint64_t n_lines = c->n_lines;
    for (size_t q = 0; q < n; q++)
        ek |= lines[(uint64_t)prods[q] < n_lines ? (uint64_t)prods[q] : n_lines].kbit;
    return ek;
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

void fp_bub_inst_tables_own(bub_ctx *c)
{
    if (c->lines_owner == c)
        return;
    bub_line *own = malloc(c->lines_cap * sizeof *own);
    if (!own)
        abort();
    /* filled, not copied: the table it was copied from may be another worker's now
     * (fp_bub_inst_tables_adopt), summed into while this one starts */
    lines_fill(c, own);
    c->lines = own;
    c->lines_owner = c;
}

void fp_bub_wave_begin(bub_ctx *c, bool has_waits, const bub_waits *q)
{
    fp_bub_inst_tables_own(c); /* a worker's copy of the ctx: its own sums */
    c->g_wave = c->g_next; /* above every last_g of the waves before */
    FP_RESERVE(c->ret, 0, c->cap_ret, (size_t)2 * BUB_REPLAY_CAP); /* ring_wait's room */
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
    const bub_exe *prod = c->prod; /* invariants in locals: the pair stores could alias them */
    const size_t pos = c->cur_pos;
    for (size_t q = 0; q < np; q++) {
        const bub_exe *p = &prod[q];
        size_t prow = p->row;
        fp_bub_pair *pp = pair_get(c, row, prow);
        uint64_t seq = (i << 20) | (uint64_t)(q < 0xFFFFF ? q : 0xFFFFF);
        if (pos < pp->first_pos || (pos == pp->first_pos && seq < pp->first_seq)) {
            pp->first_pos = pos;
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
        nk[c->cnt_of[c->row_static[prow]][bub_cat_key(p->cat)]]++;
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
 * own, then the charge. Returns its dynamic class. Not inlined, as the other rare paths of
 * wave_pass: their registers would crowd out the per-record loop's. */
static __attribute__((noinline)) fp_class wait_record(bub_ctx *c, const fp_wave_inst *r, uint64_t gw, size_t row,
                                                     int64_t stall)
{
    fp_bubbles *b = c->b;
    c->wave_i = gw - c->g_wave - 1; /* gw: g_wave + 1 + its index in the wave */
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
        /* the kinds of the entries taken so far (0: none yet); an entry's kinds are needed
         * only when a next one is on this line too (rare): the first entry's are taken
         * when the next one is known to be on the line, or before a refill replaces it */
        unsigned kinds = 0;
        const fp_wave_wait *e = wq_peek(&c->wq);
        while (e && e->line == r->line) {
            const int64_t *prods = c->wq.prods + e->first;
            unsigned ek = 0;
            if (kinds) {
                ek = entry_kinds(c, prods, e->n);
                if (ek & kinds)
                    break; /* same kind again: the next execution's entry */
            }
            FP_RESERVE(c->prod, np, c->cap_prod, e->n); /* add_prod's room */
            for (size_t q = 0; q < e->n; q++)
                named_producer(c, nret, prods[q], &np);
            c->wq.k++;
            c->wq.matched++;
            if (c->wq.k < c->wq.n && c->wq.e[c->wq.k].line != r->line)
                break; /* the usual end: the next entry is another wait's */
            if (!kinds)
                ek = entry_kinds(c, prods, e->n);
            kinds |= ek ? ek : 1u;
            e = wq_peek(&c->wq);
        }
    } else {
        FP_RESERVE(c->prod, np, c->cap_prod, nret);
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

/* A record naming a line absent from code.json: counted, warned about once, ignored. */
static __attribute__((noinline)) void unknown_line(bub_ctx *c, const fp_wave_inst *r)
{
    c->b->unknown_line_records++;
    if (!c->warned_unknown && c->warn) {
        char msg[160];
        snprintf(msg, sizeof msg, "wave records name line %lld, absent from code.json (ignored)", (long long)r->line);
        c->warn(c->user, msg);
        c->warned_unknown = 1;
    }
}

/* An s_endpgm's issue window: the exit waits for outstanding memory. Room stays for the
 * stalls of the chunk's records after it (fewer than `left`). */
static __attribute__((noinline)) bub_iv *drain_window(bub_ctx *c, bub_iv *sp, size_t left, int64_t t0, int64_t t1,
                                                      size_t row)
{
    c->n_st = (size_t)(sp - c->st);
    FP_RESERVE(c->st, c->n_st, c->cap_st, left);
    c->st[c->n_st++] = (bub_iv){t0, t1, 0, BUB_CLS_DRAIN, (int64_t)row};
    c->b->drain_stall += t1 - t0;
    c->b->drain_waves++;
    return c->st + c->n_st;
}

/* The rows whose latest execution is in this chunk keep it in last_exe: the chunk's
 * records go, a later wait may still name them. */
static void keep_last(bub_ctx *c, const fp_wave_inst *rec, size_t n)
{
    /* made here, at the first chunk's end (last_exe_of reads it only for an earlier
     * chunk's record): a wave read whole never needs it, and the table made for every ctx
     * up front was 24 bytes a code row, ~12 fresh pages a worker on flash_attn_func-big */
    if (!c->last_exe) {
        c->last_exe = calloc(c->b->code.n + 1, sizeof *c->last_exe);
        if (!c->last_exe)
            abort();
    }
    const uint64_t g1 = c->g_wave + 1 + c->ck_wi0;
    for (size_t j = n; j-- > 0;) {
        const bub_line *L = line_at(c, rec[j].line);
        if (L && L->last_g == g1 + j)
            last_exe_of(c, L, &c->last_exe[L->row]);
    }
}

/* A memory instruction's execution (gw: g_wave + 1 + its index in the wave) joins its
 * counter's outstanding queue (f: its record's flags). In line: it runs on wave_pass's
 * rare path, outside the plain loop, whose registers it no longer competes for. */
static inline void mem_issue(bub_ctx *c, unsigned f, uint64_t gw, int64_t rel, size_t row, int32_t cat)
{
    bub_exe me = {gw - c->g_wave - 1, rel, (uint32_t)row, cat};
    ring_push(f & BUB_F_VM ? &c->vmq : &c->lgq, &me);
}

/* The pass over one chunk of records in stream order. Per record: one lookup of its line
 * (a line out of the table reads the one past it), the row's sums, one byte of flags
 * (bub_line.fl) that sends every rare record - a wait, a memory instruction, one that
 * occupies no pipe (a drain among them), a line not in code.json - off the plain loop
 * with one test, its stall interval (c->st), its issue window joining the wave's last
 * in-flight span or starting the next (c->ex; room for both made once per chunk: one of
 * each per record at most), its latest execution. The plain loop calls nothing, so the
 * compiler keeps its values in registers (the rare paths' calls are outside it). gw
 * counts records as g_wave + 1 + index in the wave. */
static inline __attribute__((always_inline)) void wave_pass_t(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi,
                                                              const bool direct)
{
    bub_line *lines = c->lines;
    const uint64_t n_lines = c->n_lines;
    c->b->w_records += (int64_t)n;
    c->ck_rec = rec;
    c->ck_wi0 = c->wave_i;
    uint64_t gw = c->g_wave + 1 + c->wave_i;
    FP_RESERVE(c->st, c->n_st, c->cap_st, n);
    FP_RESERVE(c->ex, c->n_ex, c->cap_ex, n);
    bub_iv *sp = c->st + c->n_st;
    bub_span *nx = c->ex + c->n_ex;
    /* the wave's last in-flight span; none yet: one no window joins (t0 > t1) */
    bub_span none = {INT64_MAX, INT64_MIN};
    bub_span *last = c->n_ex ? nx - 1 : &none;
    /* its bounds, kept here while windows join it: last->t1 is written when the next span
     * starts and at the chunk's end (nothing reads c->ex in between) */
    int64_t lt0 = last->t0, lt1 = last->t1;
    bool unsorted = c->ex_unsorted;
    const fp_wave_inst *r = rec, *end = rec + n;
    /* A record's stall interval and issue window (f its flags, dyn its class; RARE 0: a
     * plain record, whose window occupies a pipe and is no drain). */
#define REC_TAIL(RARE)                                                                                                 \
    do {                                                                                                               \
        if (stall > 0)                                                                                                 \
            *sp++ = (bub_iv){time, time + stall, gi, dyn, (int64_t)L->row};                                           \
        if (dur > stall) { /* the window [time + stall, time + dur) */                                                \
            int64_t t0 = time + stall, t1 = time + dur;                                                                \
            if (RARE && (f & BUB_F_NOPIPE)) {                                                                          \
                if (f & BUB_F_DRAIN)                                                                                   \
                    sp = drain_window(c, sp, (size_t)(end - r), t0, t1, L->row);                                       \
            } else if (t0 <= lt1 && t0 >= lt0) {                                                                       \
                lt1 = t1 > lt1 ? t1 : lt1; /* overlaps the window before: one span */                                  \
            } else {                                                                                                   \
                unsorted |= t0 < lt1; /* none: never */                                                                \
                last->t1 = lt1;                                                                                        \
                *nx = (bub_span){t0, t1};                                                                              \
                last = nx++;                                                                                           \
                lt0 = t0;                                                                                              \
                lt1 = t1;                                                                                              \
            }                                                                                                          \
        }                                                                                                              \
        L->last_g = gw;                                                                                                \
    } while (0)
    while (r < end) {
        /* the plain records: a loop of its own that calls nothing (a drain is rare), so
         * the compiler gives it the registers; it stops at the first rare one */
        bub_line *L;
        int64_t time, dur, stall;
        unsigned f;
        for (;; r++, gw++) {
            if (r == end)
                goto done;
            /* an unsigned compare also sends negative lines to "unknown"; direct: every
             * line is below lines_cap and every cat below BUB_CATS (fl[13..14] are OTHER's) */
            if (direct)
                L = &lines[(uint64_t)r->line];
            else
                L = &lines[(uint64_t)r->line < n_lines ? (uint64_t)r->line : n_lines];
            time = r->time;
            dur = r->dur;
            stall = r->stall; /* >= 0: the walk's check (fp_bub_wave_insts); no clamp, one register more */
            L->hit++; /* a line not in code.json too: never folded, one test less per record */
            L->stall += stall;
            L->lat += dur;
            f = L->fl[direct ? (uint32_t)r->cat : bub_cat_key(r->cat)];
            if (f & (BUB_F_RARE | BUB_F_NOPIPE)) /* no-pipe ones too (s_nop, s_barrier: few) */
                break;
            int32_t dyn = L->cls;
            REC_TAIL(0);
        }
        /* a rare record: a wait, a memory instruction, a no-pipe one, a line not in code.json */
        int32_t dyn = L->cls;
        if (f & BUB_F_UNKNOWN) {
            unknown_line(c, r);
        } else {
            if (f & BUB_F_WAIT)
                dyn = (int32_t)wait_record(c, r, gw, L->row, stall);
            else if (f & BUB_F_MEM)
                mem_issue(c, f, gw, time + stall, L->row, r->cat);
            REC_TAIL(1);
        }
        r++;
        gw++;
    }
done:
#undef REC_TAIL
    last->t1 = lt1;
    c->n_st = (size_t)(sp - c->st);
    c->n_ex = (size_t)(nx - c->ex);
    c->ex_unsorted = unsorted;
    c->wave_i = gw - c->g_wave - 1;
    c->g_next = gw; /* above every last_g of this wave */
}

/* The pass with every record's line and category clamped into the tables. */
static void wave_pass(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi) { wave_pass_t(c, rec, n, gi, false); }

/* The pass over records whose lines are all below lines_cap and categories below BUB_CATS
 * (bub_rec_bits said so): no clamp per record, the same result. */
static void wave_pass_direct(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi)
{
    wave_pass_t(c, rec, n, gi, true);
}

/* The pass over a chunk: direct when o shows every line and category in the tables. */
static void pass_chunk(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi, const bub_rec_or *o)
{
    if (o && o->line < c->lines_cap && o->cat < BUB_CATS)
        wave_pass_direct(c, rec, n, gi);
    else
        wave_pass(c, rec, n, gi);
}

void fp_bub_wave_chunk(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi, const bub_rec_or *o)
{
    pass_chunk(c, rec, n, gi, o);
    keep_last(c, rec, n);
}

void fp_bub_wave_end(bub_ctx *c, int64_t entries_total)
{
    c->b->waits_unmatched_entries += entries_total - c->wq.matched;
    c->wq = (bub_waits){0};
    fp_bub_windows_done(c);
}

void fp_bub_wave_insts(bub_ctx *c, const fp_wave *w, int gi, const bub_rec_or *o)
{
    bub_waits q = {w->waits, w->prods, w->n_waits, 0, 0, NULL, NULL};
    fp_bub_wave_begin(c, w->has_waitcnt && w->n_waits > 0, &q);
    pass_chunk(c, w->insts, w->n_insts, gi, o); /* one chunk: nothing to keep past it */
    fp_bub_wave_end(c, (int64_t)w->n_waits);
}
