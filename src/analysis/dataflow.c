/*
 * dataflow.c - workgroup-id taint over the kernel's ISA (dataflow.h,
 * docs/sol.md "Requested vs unique bytes").
 *
 * Registers are bits of a 1024-bit set: s0..s127, vcc, exec, m0, scc, ttmp0..15,
 * v0..v511, a0..a255. An instruction's destinations get the OR of its sources'
 * taint (flow-sensitive: a redefinition by untainted sources clears it), over a
 * control-flow graph of basic blocks (branch targets from the simm16 offset and
 * code.json's vaddr) iterated to a fixed point; taint only grows along the
 * iteration, so it terminates. The semantics are data (OPS below); what the
 * table does not know is "first operand written, the rest read".
 *
 * Assumptions (docs/sol.md): the trace has no kernel descriptor, so the
 * workgroup-id SGPRs are found as the SGPRs read before any write that are not
 * the base of a scalar load (that is the kernarg / dispatch pointer: FlyDSL and
 * LLVM kernels get s[0:1] = kernarg pointer as user SGPRs and workgroup_id_x/y/z
 * in the system SGPRs right after); ttmp registers (gfx940+ architected
 * workgroup ids) are tainted too, and so is a VGPR other than v0 (the packed
 * work-item ids) read before any write: its origin is unknown. Control dependence is not followed (a value
 * chosen by a branch on the workgroup id is not tainted, nor the lanes a
 * masked VGPR write leaves alone); LDS reads are tainted (LDS holds
 * per-workgroup data). Except for those two, every error
 * of these makes an address look workgroup-dependent, i.e. counts bytes as
 * unique: the unique figure stays an upper bound on what must cross HBM.
 */
#include "flyprof/dataflow.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/taxonomy.h"

#define NREG 1024
#define NW (NREG / 64)
enum { R_S = 0, R_VCC = 128, R_EXEC = 130, R_M0 = 132, R_SCC = 133, R_TTMP = 134, R_V = 256, R_A = 768 };

typedef struct regset {
    uint64_t w[NW];
} regset;

static void rs_set(regset *r, int i, bool on)
{
    if (on)
        r->w[i / 64] |= 1ull << (i % 64);
    else
        r->w[i / 64] &= ~(1ull << (i % 64));
}
static bool rs_get(const regset *r, int i) { return r->w[i / 64] >> (i % 64) & 1; }

/* One operand: a register range [lo, hi] or none (a literal, "off", a modifier). */
typedef struct opnd {
    int lo, hi;
} opnd;
#define MAX_OPS 12

/* name -> base bit, for the register files spelled "<name>N" / "<name>[a:b]" */
static const struct {
    const char *name;
    int base, count;
} FILES[] = {{"ttmp", R_TTMP, 16}, {"s", R_S, 128}, {"v", R_V, 512}, {"a", R_A, 256}};
static const struct {
    const char *name;
    int lo, hi;
} SPECIAL[] = {{"vcc", R_VCC, R_VCC + 1}, {"vcc_lo", R_VCC, R_VCC},         {"vcc_hi", R_VCC + 1, R_VCC + 1},
               {"exec", R_EXEC, R_EXEC + 1}, {"exec_lo", R_EXEC, R_EXEC}, {"exec_hi", R_EXEC + 1, R_EXEC + 1},
               {"m0", R_M0, R_M0},           {"scc", R_SCC, R_SCC}};

static opnd parse_reg(const char *t, size_t n)
{
    opnd o = {-1, -1};
    while (n && (*t == '-' || *t == '|' || *t == '!')) { /* neg / abs modifiers */
        t++;
        n--;
    }
    while (n && (t[n - 1] == '|'))
        n--;
    for (size_t i = 0; i < sizeof SPECIAL / sizeof *SPECIAL; i++)
        if (strlen(SPECIAL[i].name) == n && !strncmp(t, SPECIAL[i].name, n))
            return (opnd){SPECIAL[i].lo, SPECIAL[i].hi};
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++) {
        size_t k = strlen(FILES[i].name);
        if (n <= k || strncmp(t, FILES[i].name, k))
            continue;
        const char *p = t + k;
        long lo, hi;
        char *e;
        if (*p == '[') {
            lo = strtol(p + 1, &e, 10);
            if (*e != ':')
                return o;
            hi = strtol(e + 1, &e, 10);
            if (*e != ']')
                return o;
        } else if (isdigit((unsigned char)*p)) {
            lo = hi = strtol(p, &e, 10);
            if ((size_t)(e - t) != n)
                return o;
        } else {
            continue;
        }
        if (lo < 0 || hi < lo || hi >= FILES[i].count)
            return o;
        return (opnd){FILES[i].base + (int)lo, FILES[i].base + (int)hi};
    }
    return o;
}

/* Comma-separated operands (commas inside [] / () belong to a modifier such as
 * op_sel_hi:[0,0,0]); an operand's first word is the operand, the rest of it
 * (offen, offset:16, lds ...) modifiers. */
static int parse_ops(const char *isa, opnd *ops)
{
    const char *p = isa + strspn(isa, " \t");
    p += strcspn(p, " \t"); /* the opcode */
    int n = 0;
    while (*p && n < MAX_OPS) {
        p += strspn(p, " \t");
        ops[n++] = parse_reg(p, strcspn(p, " \t,"));
        int depth = 0;
        while (*p && (depth > 0 || *p != ',')) { /* to the next top-level comma */
            if (*p == '[' || *p == '(')
                depth++;
            else if ((*p == ']' || *p == ')') && depth > 0)
                depth--;
            p++;
        }
        if (*p == ',')
            p++;
    }
    return n;
}

/* Semantics by opcode prefix, first match wins. ndst: leading operands written.
 * LOADV: the destination gets the taint of the address (all other operands).
 * TAINT: the destination is always tainted. RSCC / WSCC: reads / writes SCC.
 * RMW: the destination is also read (s_addk, v_fmac ...; _sdwa / _dpp / op_sel
 * partial writes are found by name in decode()). A VGPR write under a partial
 * EXEC keeps the old value in the other lanes; like a compiler, the analysis
 * takes those lanes as dead (they are not the ones that later form an address). */
enum { F_TAINT = 1, F_RSCC = 2, F_WSCC = 4, F_RMW = 8 };
typedef struct op_sem {
    const char *prefix;
    int ndst;
    unsigned flags;
} op_sem;
static const op_sem OPS[] = {
    {"s_waitcnt", 0, 0}, {"s_wait_", 0, 0}, {"s_nop", 0, 0}, {"s_barrier", 0, 0}, {"s_endpgm", 0, 0},
    {"s_sendmsg", 0, 0}, {"s_sleep", 0, 0}, {"s_setprio", 0, 0}, {"s_branch", 0, 0}, {"s_cbranch", 0, 0},
    {"s_dcache", 0, 0}, {"s_icache", 0, 0}, {"s_cmp", 0, F_WSCC}, {"s_bitcmp", 0, F_WSCC}, {"s_store", 0, 0},
    {"s_buffer_store", 0, 0}, {"s_cselect", 1, F_RSCC}, {"s_cmov", 1, F_RSCC}, {"s_addc", 1, F_RSCC | F_WSCC},
    {"s_subb", 1, F_RSCC | F_WSCC}, {"s_mov", 1, 0}, {"s_getpc", 1, 0}, {"s_addk", 1, F_RMW | F_WSCC},
    {"s_mulk", 1, F_RMW}, {"s_", 1, F_WSCC}, {"v_fmac", 1, F_RMW}, {"v_mac", 1, F_RMW}, {"v_pk_fmac", 1, F_RMW},
    {"v_writelane", 1, F_RMW}, {"v_dot2c", 1, F_RMW},
    {"buffer_store", 0, 0}, {"global_store", 0, 0}, {"flat_store", 0, 0}, {"scratch_store", 0, 0},
    {"tbuffer_store", 0, 0}, {"buffer_wbl2", 0, 0}, {"buffer_inv", 0, 0}, {"ds_write", 0, 0}, {"ds_store", 0, 0},
    {"ds_read", 1, F_TAINT}, {"ds_load", 1, F_TAINT},
    /* carry-out / second-result ops: vdst and sdst (vcc in the e32 text) */
    {"v_add_co_", 2, 0}, {"v_sub_co_", 2, 0}, {"v_subrev_co_", 2, 0}, {"v_addc_co_", 2, 0}, {"v_subb_co_", 2, 0},
    {"v_subbrev_co_", 2, 0}, {"v_div_scale", 2, 0}, {"v_mad_u64_u32", 2, 0}, {"v_mad_i64_i32", 2, 0},
};

static op_sem sem_of(const char *op)
{
    for (size_t i = 0; i < sizeof OPS / sizeof *OPS; i++)
        if (!strncmp(op, OPS[i].prefix, strlen(OPS[i].prefix)))
            return OPS[i];
    return (op_sem){"", 1, 0};
}

static bool any_tainted(const regset *st, opnd o)
{
    for (int r = o.lo; o.lo >= 0 && r <= o.hi; r++)
        if (rs_get(st, r))
            return true;
    return false;
}

/* A decoded row: its operands and semantics, parsed once. */
typedef struct drow {
    opnd ops[MAX_OPS];
    int nops;
    op_sem sem;
    fp_class cls;
    bool lds_dma; /* every operand is an address (no register destination) */
} drow;

static void transfer(const drow *d, regset *st)
{
    int nd = d->sem.ndst;
    if (nd == 2 && (d->nops < 2 || d->ops[1].lo < 0 || d->ops[1].lo >= R_V))
        nd = 1; /* an e64 carry op whose second operand is not an SGPR pair */
    if (d->lds_dma)
        nd = 0;
    bool t = (d->sem.flags & F_TAINT) != 0;
    for (int i = nd; i < d->nops; i++)
        t |= any_tainted(st, d->ops[i]);
    if (d->sem.flags & F_RSCC)
        t |= rs_get(st, R_SCC);
    bool rmw = (d->sem.flags & F_RMW) != 0;
    for (int i = 0; i < nd && i < d->nops; i++)
        for (int r = d->ops[i].lo; d->ops[i].lo >= 0 && r <= d->ops[i].hi; r++)
            rs_set(st, r, t || (rmw && rs_get(st, r)));
    if ((d->sem.flags & F_WSCC) && t)
        rs_set(st, R_SCC, true); /* never cleared: an over-taint, the safe side */
}

static bool is_mem(fp_class c)
{
    return c == FP_CL_VMEM_LOAD || c == FP_CL_VMEM_STORE || c == FP_CL_LDS_DMA || c == FP_CL_SCRATCH ||
           c == FP_CL_ATOMIC;
}

/* The address operands of a vector-memory row are all but the first (data /
 * destination) one, or all of them for an LDS-DMA load. */
static fp_addr_kind classify(const drow *d, const regset *st)
{
    for (int i = d->lds_dma ? 0 : 1; i < d->nops; i++)
        if (any_tainted(st, d->ops[i]))
            return FP_ADDR_WG;
    return FP_ADDR_SHARED;
}

/* ---- the control-flow graph ---- */

typedef struct block {
    size_t first, last; /* row range, inclusive */
    size_t succ[2];
    int nsucc;
    regset in, out;
} block;

static bool is_code_row(const fp_inst *r) { return r->index_ok && r->index > 0 && r->isa[0] != ';'; }

/* The row a branch at row i jumps to (SIZE_MAX: none / unknown); the target
 * vaddr is fp_branch_target's, mapped to its code row by binary search. */
static size_t branch_target(const fp_code *code, size_t i)
{
    int64_t target;
    if (!fp_branch_target(&code->rows[i], &target))
        return SIZE_MAX;
    size_t lo = 0, hi = code->n; /* rows are in address order */
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (code->rows[m].vaddr < target)
            lo = m + 1;
        else
            hi = m;
    }
    for (; lo < code->n && code->rows[lo].vaddr == target; lo++)
        if (is_code_row(&code->rows[lo]))
            return lo;
    return SIZE_MAX;
}

typedef struct cfg {
    block *b;
    size_t n;
    size_t *block_of; /* row -> block */
    bool exact;
} cfg;

static bool ends_flow(const char *op) { return !strncmp(op, "s_branch", 8) || !strncmp(op, "s_endpgm", 8) ||
                                               !strncmp(op, "s_setpc", 7); }

static void build_cfg(const fp_code *code, cfg *g)
{
    size_t n = code->n;
    unsigned char *lead = calloc(n + 1, 1);
    size_t *tgt = malloc((n + 1) * sizeof *tgt);
    g->block_of = malloc((n + 1) * sizeof *g->block_of);
    g->b = calloc(n + 1, sizeof *g->b);
    if (!lead || !tgt || !g->block_of || !g->b)
        abort();
    g->exact = true;
    g->n = 0;
    for (size_t i = 0; i < n; i++) {
        char op[32];
        fp_opcode_lc(code->rows[i].isa, op, sizeof op);
        tgt[i] = SIZE_MAX;
        bool br = fp_classify(code->rows[i].isa) == FP_CL_BRANCH;
        if (br && (!strncmp(op, "s_branch", 8) || !strncmp(op, "s_cbranch", 9))) {
            tgt[i] = branch_target(code, i);
            g->exact &= tgt[i] != SIZE_MAX;
        } else if (br) {
            g->exact = false; /* s_setpc / s_swappc: an indirect jump */
        }
        if (tgt[i] != SIZE_MAX)
            lead[tgt[i]] = 1;
        if (br || !strncmp(op, "s_endpgm", 8))
            lead[i + 1] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || lead[i]) {
            g->b[g->n].first = i;
            g->n++;
        }
        g->block_of[i] = g->n - 1;
        g->b[g->n - 1].last = i;
    }
    for (size_t k = 0; k < g->n; k++) {
        block *bl = &g->b[k];
        char op[32];
        fp_opcode_lc(code->rows[bl->last].isa, op, sizeof op);
        if (!ends_flow(op) && k + 1 < g->n)
            bl->succ[bl->nsucc++] = k + 1;
        if (tgt[bl->last] != SIZE_MAX)
            bl->succ[bl->nsucc++] = g->block_of[tgt[bl->last]];
    }
    free(lead);
    free(tgt);
}

/* ---- the workgroup-id SGPRs ---- */

/* Registers read before any write (in address order). SGPRs that are the base of a
 * scalar load are pointers (kernarg / dispatch), the others workgroup ids. */
static void entry_sgprs(const fp_code *code, const drow *d, regset *wg, fp_dataflow *out)
{
    regset written = {{0}}, ptr = {{0}}, read = {{0}};
    for (size_t i = 0; i < code->n; i++) {
        if (!is_code_row(&code->rows[i]))
            continue;
        const drow *r = &d[i];
        bool smem = r->cls == FP_CL_SMEM && r->nops >= 2;
        int nd = r->lds_dma ? 0 : r->sem.ndst;
        for (int k = nd; k < r->nops; k++)
            for (int q = r->ops[k].lo; r->ops[k].lo >= 0 && q <= r->ops[k].hi; q++) {
                bool entry = q < R_VCC || (q >= R_TTMP && q < R_TTMP + 16) || q >= R_V;
                if (!entry || rs_get(&written, q))
                    continue;
                rs_set(&read, q, true);
                if (smem && k == 1)
                    rs_set(&ptr, q, true);
            }
        for (int k = 0; k < nd && k < r->nops; k++)
            for (int q = r->ops[k].lo; r->ops[k].lo >= 0 && q <= r->ops[k].hi; q++)
                rs_set(&written, q, true);
    }
    for (int q = 0; q < R_VCC; q++) {
        bool pair_ptr = rs_get(&ptr, q) || rs_get(&ptr, q ^ 1);
        if (rs_get(&read, q) && !pair_ptr) {
            rs_set(wg, q, true);
            if (out->n_wg_sgprs < FP_DF_MAX_WG_SGPRS)
                out->wg_sgprs[out->n_wg_sgprs++] = q;
        }
    }
    for (int q = R_TTMP; q < R_TTMP + 16; q++)
        if (rs_get(&read, q)) {
            rs_set(wg, q, true);
            out->ttmp_ids = true;
        }
    /* a vector register read before any write other than v0 (the packed work-item
     * ids of gfx90a+) holds nothing the ABI defines: of unknown origin, so tainted */
    for (int q = R_V + 1; q < NREG; q++)
        if (rs_get(&read, q))
            rs_set(wg, q, true);
}

static void decode(const fp_code *code, drow *d)
{
    for (size_t i = 0; i < code->n; i++) {
        const char *isa = code->rows[i].isa;
        char op[48];
        fp_opcode_lc(isa, op, sizeof op);
        d[i].cls = fp_classify(isa);
        d[i].sem = sem_of(op);
        if (strstr(op, "_sdwa") || strstr(op, "_dpp") || strstr(isa, "op_sel:"))
            d[i].sem.flags |= F_RMW; /* a partial write keeps the rest of the destination */
        d[i].nops = is_code_row(&code->rows[i]) ? parse_ops(isa, d[i].ops) : 0;
        d[i].lds_dma = d[i].cls == FP_CL_LDS_DMA;
    }
}

static void rs_or(regset *a, const regset *b)
{
    for (int k = 0; k < NW; k++)
        a->w[k] |= b->w[k];
}

/* Forward fixed point: in(b) = OR of out(preds) (entry: the workgroup ids);
 * without an exact CFG every block's in is the OR of every out. */
/* Passes before giving up (a real kernel converges in 2-3; a hostile listing
 * must not make report slow): then every access counts as per workgroup. */
#define MAX_PASSES 64

static int fixed_point(cfg *g, const drow *d, const regset *entry, bool *converged)
{
    int it = 0;
    bool changed = true;
    for (; changed && it < MAX_PASSES; it++) {
        changed = false;
        regset all = *entry;
        for (size_t k = 0; !g->exact && k < g->n; k++)
            rs_or(&all, &g->b[k].out);
        for (size_t k = 0; k < g->n; k++) {
            block *bl = &g->b[k];
            if (k == 0 || !g->exact)
                rs_or(&bl->in, g->exact ? entry : &all);
            regset st = bl->in;
            for (size_t i = bl->first; i <= bl->last; i++)
                transfer(&d[i], &st);
            for (int q = 0; q < NW; q++)
                changed |= (st.w[q] & ~bl->out.w[q]) != 0;
            rs_or(&bl->out, &st);
            for (int s = 0; s < bl->nsucc; s++) {
                block *nb = &g->b[bl->succ[s]];
                for (int q = 0; q < NW; q++) {
                    changed |= (bl->out.w[q] & ~nb->in.w[q]) != 0;
                    nb->in.w[q] |= bl->out.w[q];
                }
            }
        }
    }
    *converged = !changed;
    return it;
}

void fp_dataflow_run(const fp_code *code, fp_dataflow *out)
{
    memset(out, 0, sizeof *out);
    out->n = code->n;
    out->kind = calloc(code->n + 1, 1);
    drow *d = calloc(code->n + 1, sizeof *d);
    if (!out->kind || !d)
        abort();
    decode(code, d);
    regset entry = {{0}};
    entry_sgprs(code, d, &entry, out);
    cfg g;
    build_cfg(code, &g);
    out->cfg_exact = g.exact;
    bool converged = true;
    out->iterations = g.n ? fixed_point(&g, d, &entry, &converged) : 0;
    for (size_t k = 0; k < g.n; k++) {
        regset st = g.b[k].in;
        for (size_t i = g.b[k].first; i <= g.b[k].last; i++) {
            if (is_code_row(&code->rows[i]) && is_mem(d[i].cls))
                out->kind[i] = converged ? (unsigned char)classify(&d[i], &st) : FP_ADDR_WG;
            transfer(&d[i], &st);
        }
    }
    free(g.b);
    free(g.block_of);
    free(d);
}

void fp_dataflow_free(fp_dataflow *df)
{
    free(df->kind);
    df->kind = NULL;
    df->n = 0;
}
