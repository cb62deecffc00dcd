/*
 * counters.c - the merged PMC records (the k-th selected dispatch of a kernel
 * over every pass) and the formula table that turns counters into named
 * metrics. The data set itself (passes, dispatches) is src/rocprof/pmc.c.
 *
 * Formulas are those of rocprofiler-compute 3.3.0 and the SDK's derived
 * counters for gfx942/gfx950 (rocprof-formats.md §6.2); each metric row says
 * its formula in the text that goes into counters.json, so a reader can check
 * every number by hand. Units: durations in ns, so bytes / ns = GB/s.
 */
#include "flyprof/counters.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flyprof/counters_doc.h"
#include "flyprof/json.h" /* fp_round */
#include "flyprof/model.h"
#include "flyprof/strbuf.h"

/* MFMA MOPS counters count matrix ops divided by 512 (counter_defs.yaml,
 * rocprof-formats.md §6.1): FLOPs = 512 x value. */
#define MOPS_FLOPS 512.0
/* rocprofiler-compute's MFMA utilisation divides by 4 SIMDs per CU. */
#define SIMDS_PER_CU 4.0
/* Seed decision tree (000_*, "L2 / HBM efficiency analysis"). */
#define STREAMING_L2_HIT_PCT 5.0
#define REUSE_L2_HIT_PCT 70.0
#define FULL_LINES_32B_PCT 5.0
#define SCATTERED_32B_PCT 15.0
#define CLEAN_OVERFETCH_LO 0.9
#define CLEAN_OVERFETCH_HI 1.1

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q && n)
        abort();
    return q;
}

/* ------------------------------------------------------------ records */

const char **fp_pmc_kernels(const fp_pmc_set *s, size_t *n)
{
    const char **v = xrealloc(NULL, (s->nd + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < s->nd; i++) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = !strcmp(v[j], s->d[i].kernel);
        if (!seen)
            v[k++] = s->d[i].kernel;
    }
    *n = k;
    return v;
}

static int cmp_dispatch_ptr(const void *a, const void *b)
{
    const fp_pmc_dispatch *x = *(const fp_pmc_dispatch *const *)a, *y = *(const fp_pmc_dispatch *const *)b;
    int c = strcmp(x->agent, y->agent);
    if (c)
        return c;
    return (x->dispatch_id > y->dispatch_id) - (x->dispatch_id < y->dispatch_id);
}

int fp_pmc_records(const fp_pmc_set *s, const char *kernel, fp_pmc_record **out, size_t *n, bool *uneven,
                   fp_err *err)
{
    *out = NULL;
    *n = 0;
    *uneven = false;
    if (!kernel) {
        size_t nk;
        const char **ks = fp_pmc_kernels(s, &nk);
        if (nk > 1) {
            fp_err_set(err, FP_BAD_ARGS, "the counters hold %zu kernels; choose one with --kernel", nk);
            fp_err_extra_strs(err, "kernels", ks, nk < 20 ? nk : 20);
            free(ks);
            return fp_err_help(err, "--kernel NAME selects rows whose Kernel_Name contains NAME");
        }
        free(ks);
    }
    /* per pass: the selected dispatches, ordered by (agent, dispatch id) */
    const fp_pmc_dispatch ***sel = xrealloc(NULL, (s->npasses + 1) * sizeof *sel);
    size_t *cnt = xrealloc(NULL, (s->npasses + 1) * sizeof *cnt);
    size_t common = SIZE_MAX, total = 0;
    for (size_t p = 0; p < s->npasses; p++) {
        sel[p] = xrealloc(NULL, (s->nd + 1) * sizeof **sel);
        cnt[p] = 0;
        for (size_t i = 0; i < s->nd; i++)
            if (s->d[i].pass == p && (!kernel || strstr(s->d[i].kernel, kernel)))
                sel[p][cnt[p]++] = &s->d[i];
        qsort(sel[p], cnt[p], sizeof *sel[p], cmp_dispatch_ptr);
        total += cnt[p];
        if (cnt[p] && cnt[p] < common)
            common = cnt[p];
        if (cnt[p] && common != SIZE_MAX && cnt[p] != common)
            *uneven = true;
    }
    int rc = 0;
    if (total == 0) {
        rc = fp_err_set(err, FP_KERNEL_NOT_FOUND, "no counter rows for kernel '%s'", kernel ? kernel : "");
        size_t nk;
        const char **ks = fp_pmc_kernels(s, &nk);
        if (nk)
            fp_err_help(err, "the kernels present are listed in the error's \"kernels\" member");
        else
            fp_err_help(err, "the inputs hold no counter rows at all: did the profiler's kernel filter match?");
        fp_err_extra_strs(err, "kernels", ks, nk < 20 ? nk : 20);
        free(ks);
    } else {
        for (size_t p = 0; p < s->npasses; p++)
            if (cnt[p] && cnt[p] != common)
                *uneven = true;
        fp_pmc_record *r = xrealloc(NULL, common * sizeof *r);
        for (size_t k = 0; k < common; k++) {
            r[k] = (fp_pmc_record){0};
            r[k].ordinal = k;
            r[k].npasses = s->npasses;
            r[k].per_pass = xrealloc(NULL, s->npasses * sizeof *r[k].per_pass);
            for (size_t p = 0; p < s->npasses; p++) {
                r[k].per_pass[p] = cnt[p] > k ? sel[p][k] : NULL;
                const fp_pmc_dispatch *d = r[k].per_pass[p];
                if (d && r[k].duration_ns <= 0 && d->start_ns >= 0 && d->end_ns > d->start_ns) {
                    r[k].duration_ns = (double)(d->end_ns - d->start_ns);
                    r[k].duration_source = "counter pass timestamps";
                }
            }
        }
        *out = r;
        *n = common;
    }
    for (size_t p = 0; p < s->npasses; p++)
        free(sel[p]);
    free(sel);
    free(cnt);
    return rc;
}

void fp_pmc_records_free(fp_pmc_record *r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++)
        free(r[i].per_pass);
    free(r);
}

/* X and X_sum name the same counter in a CSV (the writer sums instances, §3.6). */
static bool same_counter(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la == lb)
        return !strcmp(a, b);
    const char *lng = la > lb ? a : b, *sht = la > lb ? b : a;
    size_t ls = strlen(sht);
    return strlen(lng) == ls + 4 && !strncmp(lng, sht, ls) && !strcmp(lng + ls, "_sum");
}

static fp_pmc_value get_in(const fp_pmc_record *r, const char *name, int pref_pass)
{
    fp_pmc_value v = {false, 0.0, -1};
    for (size_t pass = 0; pass < r->npasses; pass++) {
        const fp_pmc_dispatch *d = r->per_pass[pass];
        if (!d)
            continue;
        for (size_t i = 0; i < d->n; i++)
            if (same_counter(d->c[i].name, name)) {
                if (!v.have || (int)pass == pref_pass) {
                    v.have = true;
                    v.v = d->c[i].value;
                    v.pass = (int)pass;
                }
                break;
            }
        if (v.have && (pref_pass < 0 || v.pass == pref_pass))
            break;
    }
    return v;
}

fp_pmc_value fp_pmc_get(const fp_pmc_record *r, const char *name)
{
    return get_in(r, name, -1);
}

/* ------------------------------------------------------------ metric table */

#define MAX_INPUTS 16

typedef struct mctx {
    const fp_pmc_record *r;
    size_t n;
    const fp_counters_opts *o;
    double duration_ns;
    /* per metric */
    const char *in_name[MAX_INPUTS];
    double in_val[MAX_INPUTS];
    size_t nin;
    uint64_t passes;      /* bit mask */
    const char *missing[MAX_INPUTS];
    size_t nmissing;
    int pref_pass;        /* pass of the first counter read */
    const char *formula;  /* may be set by the metric when it has variants */
    char fbuf[160];       /* storage for a formula built at run time */
    bool approximate;
    const fp_counters_doc *done; /* metrics computed so far (for derived metrics) */
} mctx;

/* Mean value of a counter over the records, preferring the pass of the
 * metric's first counter so that ratios stay within one pass when possible. */
static bool need(mctx *m, const char *name, double *out)
{
    double sum = 0;
    size_t have = 0;
    int pass = -1;
    for (size_t i = 0; i < m->n; i++) {
        fp_pmc_value v = get_in(&m->r[i], name, m->pref_pass);
        if (v.have) {
            sum += v.v;
            have++;
            if (pass < 0)
                pass = v.pass;
        }
    }
    if (!have) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = name;
        return false;
    }
    *out = sum / (double)have;
    if (m->pref_pass < 0)
        m->pref_pass = pass;
    if (pass >= 0 && pass < 64)
        m->passes |= (uint64_t)1 << pass;
    if (m->nin < MAX_INPUTS) {
        m->in_name[m->nin] = name;
        m->in_val[m->nin++] = *out;
    }
    return true;
}

/* Optional counter: read without recording it as missing. */
static bool maybe(mctx *m, const char *name, double *out)
{
    size_t nm = m->nmissing;
    bool ok = need(m, name, out);
    m->nmissing = nm;
    return ok;
}

/* A metric computed earlier in the table. */
static bool prior(mctx *m, const char *id, double *out)
{
    const fp_cnt_metric *o = fp_counters_metric(m->done, id);
    if (!o) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = id;
        return false;
    }
    *out = o->value;
    /* the listed (1-based) pass numbers, taken as bit numbers as they always were */
    for (size_t i = 0; i < o->npasses; i++) {
        int p = (int)o->passes[i];
        if (p >= 0 && p < 64)
            m->passes |= (uint64_t)1 << p;
    }
    return true;
}

static bool duration(mctx *m, double *t)
{
    if (m->duration_ns <= 0) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = "duration";
        return false;
    }
    *t = m->duration_ns;
    return true;
}

static bool gui_per_xcd(mctx *m, double *gui)
{
    double g;
    if (!need(m, "GRBM_GUI_ACTIVE", &g))
        return false;
    /* the CSV sums GRBM_GUI_ACTIVE over XCDs; rocprofiler-compute divides by Num_Xcc (§3.6) */
    int xcds = m->o->agent_xcds > 0 ? m->o->agent_xcds : m->o->soc && m->o->soc->product ? m->o->soc->product->xcds : 0;
    if (xcds <= 0) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = "product (XCD count)";
        return false;
    }
    *gui = g / xcds;
    return *gui > 0;
}

static int cus(mctx *m)
{
    int c = m->o->agent_cus > 0 ? m->o->agent_cus : m->o->soc && m->o->soc->product ? m->o->soc->product->cus : 0;
    if (c <= 0 && m->nmissing < MAX_INPUTS)
        m->missing[m->nmissing++] = "product (CU count)";
    return c;
}

typedef bool (*metric_fn)(mctx *m, double *v);

/* The metrics below combine inputs with `|`, not `||`, so that every missing
 * input is recorded, not only the first; the (int) cast tells clang
 * (-Wbitwise-instead-of-logical) that this is intended. */

static bool m_l2_hit(mctx *m, double *v)
{
    double h, x;
    if (!need(m, "TCC_HIT_sum", &h) | (int)!need(m, "TCC_MISS_sum", &x) || h + x <= 0)
        return false;
    *v = 100.0 * h / (h + x);
    return true;
}

static bool m_partial_32b(mctx *m, double *v)
{
    double r32, r;
    if (!need(m, "TCC_EA0_RDREQ_32B_sum", &r32) | (int)!need(m, "TCC_EA0_RDREQ_sum", &r) || r <= 0)
        return false;
    *v = 100.0 * r32 / r;
    return true;
}

static bool m_fetch_bytes(mctx *m, double *v)
{
    double r32, r64, r128, r, bub;
    double ea = m->o->ea_channels > 0 ? m->o->ea_channels : 1.0;
    /* gfx950 has exact 64 B and 128 B request counters (rocprofiler-compute panel 1700) */
    if (maybe(m, "TCC_EA0_RDREQ_64B_sum", &r64) && maybe(m, "TCC_EA0_RDREQ_128B_sum", &r128) &&
        need(m, "TCC_EA0_RDREQ_32B_sum", &r32)) {
        m->formula = "(32*TCC_EA0_RDREQ_32B_sum + 64*TCC_EA0_RDREQ_64B_sum + 128*TCC_EA0_RDREQ_128B_sum) * "
                     "ea_channels  [gfx950]";
        *v = (32.0 * r32 + 64.0 * r64 + 128.0 * r128) * ea;
        return true;
    }
    m->nin = 0;
    m->passes = 0;
    m->pref_pass = -1;
    m->nmissing = 0;
    if (!need(m, "TCC_EA0_RDREQ_sum", &r) | (int)!need(m, "TCC_EA0_RDREQ_32B_sum", &r32))
        return false;
    if (maybe(m, "TCC_BUBBLE_sum", &bub)) {
        /* the SDK's FETCH_SIZE (gfx942 & gfx950): TCC_BUBBLE counts 128 B requests */
        m->formula = "(128*TCC_BUBBLE_sum + 64*(TCC_EA0_RDREQ_sum - TCC_BUBBLE_sum - TCC_EA0_RDREQ_32B_sum) + "
                     "32*TCC_EA0_RDREQ_32B_sum) * ea_channels";
        double mid = r - bub - r32;
        *v = (128.0 * bub + 64.0 * (mid > 0 ? mid : 0) + 32.0 * r32) * ea;
        return true;
    }
    /* without TCC_BUBBLE a 128 B request is counted as 64 B: a lower bound */
    m->formula = "(64*(TCC_EA0_RDREQ_sum - TCC_EA0_RDREQ_32B_sum) + 32*TCC_EA0_RDREQ_32B_sum) * ea_channels  "
                 "[lower bound: TCC_BUBBLE missing]";
    m->approximate = true;
    double mid = r - r32;
    *v = (64.0 * (mid > 0 ? mid : 0) + 32.0 * r32) * ea;
    return true;
}

static bool m_write_bytes(mctx *m, double *v)
{
    double w, w64;
    double ea = m->o->ea_channels > 0 ? m->o->ea_channels : 1.0;
    if (!need(m, "TCC_EA0_WRREQ_sum", &w) | (int)!need(m, "TCC_EA0_WRREQ_64B_sum", &w64))
        return false;
    double small = w - w64;
    *v = (64.0 * w64 + 32.0 * (small > 0 ? small : 0)) * ea;
    return true;
}

static bool m_over_fetch(mctx *m, double *v)
{
    double f;
    if (!prior(m, "fetch_bytes", &f))
        return false;
    if (m->o->ideal_bytes <= 0) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = "--ideal-gb";
        return false;
    }
    *v = f / m->o->ideal_bytes;
    return true;
}

static bool m_read_gbs(mctx *m, double *v)
{
    double f, t;
    if (!prior(m, "fetch_bytes", &f) | (int)!duration(m, &t))
        return false;
    *v = f / t;
    return true;
}

static bool m_write_gbs(mctx *m, double *v)
{
    double w, t;
    if (!prior(m, "write_bytes", &w) | (int)!duration(m, &t))
        return false;
    *v = w / t;
    return true;
}

static bool m_hbm_gbs(mctx *m, double *v)
{
    double rd, wr;
    if (!prior(m, "hbm_read_gbs", &rd))
        return false;
    size_t nm = m->nmissing;
    if (prior(m, "hbm_write_gbs", &wr)) {
        *v = rd + wr;
        return true;
    }
    m->nmissing = nm;
    m->formula = "hbm_read_gbs  [write counters missing: reads only]";
    m->approximate = true;
    *v = rd;
    return true;
}

static bool peak_hbm(mctx *m, double *p)
{
    *p = m->o->peak_hbm_gbs > 0 ? m->o->peak_hbm_gbs : m->o->soc ? m->o->soc->hbm_gbs : 0;
    if (*p <= 0 && m->nmissing < MAX_INPUTS)
        m->missing[m->nmissing++] = "product (peak HBM)";
    return *p > 0;
}

static bool m_hbm_pct(mctx *m, double *v)
{
    /* `|` (not `||`) so that both missing inputs are recorded; zero-initialised
     * because gcc -O2 cannot see that g is only read when prior() set it. */
    double g = 0, p = 0;
    if (!prior(m, "hbm_gbs", &g) | (int)!peak_hbm(m, &p))
        return false;
    *v = 100.0 * g / p;
    return true;
}

static bool m_ideal_gbs(mctx *m, double *v)
{
    double t;
    if (m->o->ideal_bytes <= 0) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = "--ideal-gb";
        return false;
    }
    if (!duration(m, &t))
        return false;
    *v = m->o->ideal_bytes / t;
    return true;
}

static bool m_ideal_pct(mctx *m, double *v)
{
    double g = 0, p = 0; /* see m_hbm_pct */
    if (!prior(m, "ideal_gbs", &g) | (int)!peak_hbm(m, &p))
        return false;
    *v = 100.0 * g / p;
    return true;
}

static bool m_dram_share(mctx *m, double *v)
{
    double d, r;
    if (!need(m, "TCC_EA0_RDREQ_DRAM_sum", &d) | (int)!need(m, "TCC_EA0_RDREQ_sum", &r) || r <= 0)
        return false;
    *v = 100.0 * d / r;
    return true;
}

static bool m_kernel_cycles(mctx *m, double *v)
{
    return gui_per_xcd(m, v);
}

/* The SDK-derived counters the table prefers (counter_defs.yaml, each defined for gfx942 AND
 * gfx950, ROCm 7.0 rocm-systems tree): the SDK evaluates them per dispatch with its own
 * reduce(GRBM_GUI_ACTIVE, max) over XCDs and the agent's own CU_NUM / SIMD_NUM, so a
 * partitioned agent needs nothing from flyprof; the raw formula stays for offline data
 * collected without them. */
static bool sdk_derived(mctx *m, const char *name, const char *expr, double *v)
{
    if (!maybe(m, name, v))
        return false;
    m->formula = expr;
    return true;
}

static bool m_mfma_util(mctx *m, double *v)
{
    if (sdk_derived(m, "MfmaUtil", "MfmaUtil  [SDK derived: 100 * reduce(SQ_VALU_MFMA_BUSY_CYCLES,sum) / "
                                   "(reduce(GRBM_GUI_ACTIVE,max) * SIMD_NUM)]", v))
        return true;
    double b, g;
    if (!need(m, "SQ_VALU_MFMA_BUSY_CYCLES", &b))
        return false;
    int c = cus(m);
    if (!gui_per_xcd(m, &g) || c <= 0)
        return false;
    *v = 100.0 * b / (g * c * SIMDS_PER_CU);
    return true;
}

static bool m_valu_util(mctx *m, double *v)
{
    if (sdk_derived(m, "VALUBusy", "VALUBusy  [SDK derived: 100 * reduce(SQ_ACTIVE_INST_VALU,sum) / CU_NUM / "
                                   "reduce(GRBM_GUI_ACTIVE,max)]", v))
        return true;
    double a, g;
    if (!need(m, "SQ_ACTIVE_INST_VALU", &a))
        return false;
    int c = cus(m);
    if (!gui_per_xcd(m, &g) || c <= 0)
        return false;
    *v = 100.0 * a / (g * c);
    return true;
}

/* MOPS counter suffix -> dtype (gfx950 adds XF32 and F6F4, §6.1). */
static const struct {
    const char *counter;
    fp_dtype t;
} mops_rows[] = {
    {"SQ_INSTS_VALU_MFMA_MOPS_F16", FP_DT_FP16},  {"SQ_INSTS_VALU_MFMA_MOPS_BF16", FP_DT_BF16},
    {"SQ_INSTS_VALU_MFMA_MOPS_F8", FP_DT_FP8},    {"SQ_INSTS_VALU_MFMA_MOPS_F6F4", FP_DT_FP4},
    {"SQ_INSTS_VALU_MFMA_MOPS_I8", FP_DT_INT8},   {"SQ_INSTS_VALU_MFMA_MOPS_F32", FP_DT_FP32},
    {"SQ_INSTS_VALU_MFMA_MOPS_XF32", FP_DT_TF32}, {"SQ_INSTS_VALU_MFMA_MOPS_F64", FP_DT_FP64},
};
#define N_MOPS (sizeof mops_rows / sizeof mops_rows[0])

static bool m_mfma_flops(mctx *m, double *v)
{
    double sum = 0, x;
    bool any = false;
    for (size_t i = 0; i < N_MOPS; i++)
        if (maybe(m, mops_rows[i].counter, &x)) {
            sum += x;
            any = true;
        }
    if (!any) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = "SQ_INSTS_VALU_MFMA_MOPS_*";
        return false;
    }
    *v = MOPS_FLOPS * sum;
    return true;
}

static bool m_mfma_gflops(mctx *m, double *v)
{
    double f, t;
    if (!prior(m, "mfma_flops", &f) | (int)!duration(m, &t))
        return false;
    *v = f / t; /* FLOP / ns = GFLOP/s */
    return true;
}

/* The dtype for the % of peak: the one asked for, else the type with most MOPS. */
static fp_dtype mfma_dtype(mctx *m)
{
    if (m->o->dtype < FP_DT_COUNT)
        return m->o->dtype;
    fp_dtype best = FP_DT_COUNT;
    double bv = 0;
    for (size_t i = 0; i < N_MOPS; i++) {
        double s = 0;
        for (size_t k = 0; k < m->n; k++) {
            fp_pmc_value x = fp_pmc_get(&m->r[k], mops_rows[i].counter);
            if (x.have)
                s += x.v;
        }
        if (s > bv) {
            bv = s;
            best = mops_rows[i].t;
        }
    }
    return best;
}

static bool m_mfma_pct(mctx *m, double *v)
{
    double g;
    if (!prior(m, "mfma_gflops", &g))
        return false;
    fp_dtype t = mfma_dtype(m);
    double p = (t < FP_DT_COUNT && m->o->soc) ? fp_soc_peak_gflops(m->o->soc, t) : 0;
    if (p <= 0) {
        if (m->nmissing < MAX_INPUTS)
            m->missing[m->nmissing++] = "product (MFMA peak for the dtype)";
        return false;
    }
    snprintf(m->fbuf, sizeof m->fbuf, "100 * mfma_gflops / peak_gflops(%s) [%.1f GFLOP/s]", fp_dtype_name(t), p);
    m->formula = m->fbuf;
    *v = 100.0 * g / p;
    return true;
}

static bool m_lds_conflicts_per_access(mctx *m, double *v)
{
    /* no LDS access (active <= conflict cycles): the SDK's divide by zero gives 0
     * (evaluate_ast.cpp DIVIDE_NODE), which is no rate: not listed, as without it */
    double rc = 0, ra = 0;
    if (maybe(m, "SQ_LDS_BANK_CONFLICT", &rc) && maybe(m, "SQ_LDS_IDX_ACTIVE", &ra) && ra - rc <= 0)
        return false;
    if (sdk_derived(m, "LdsBankConflict", "LdsBankConflict  [SDK derived: reduce(SQ_LDS_BANK_CONFLICT,sum) / "
                                          "(reduce(SQ_LDS_IDX_ACTIVE,sum) - reduce(SQ_LDS_BANK_CONFLICT,sum))]", v))
        return true;
    double c, a;
    if (!need(m, "SQ_LDS_BANK_CONFLICT", &c) | (int)!need(m, "SQ_LDS_IDX_ACTIVE", &a) || a - c <= 0)
        return false;
    *v = c / (a - c);
    return true;
}

static bool m_lds_conflict_pct(mctx *m, double *v)
{
    double c, a;
    if (!need(m, "SQ_LDS_BANK_CONFLICT", &c) | (int)!need(m, "SQ_LDS_IDX_ACTIVE", &a) || a <= 0)
        return false;
    *v = 100.0 * c / a;
    return true;
}

static bool m_occ_waves(mctx *m, double *v)
{
    double acc, g;
    /* the SDK's derived counter (what a live run asks for): already per CU */
    if (maybe(m, "MeanOccupancyPerCU", v)) {
        m->formula = "MeanOccupancyPerCU  [SDK derived: accumulate(SQ_LEVEL_WAVES,HIGH_RES) / "
                     "max(GRBM_GUI_ACTIVE) / CU_NUM]";
        return true;
    }
    /* raw counters (an offline CSV/db collected without it) */
    if (!need(m, "SQ_ACCUM_PREV_HIRES", &acc))
        return false;
    int c = cus(m);
    if (!gui_per_xcd(m, &g) || c <= 0)
        return false;
    *v = acc / g / c;
    return true;
}

static bool m_occ_pct(mctx *m, double *v)
{
    double w;
    if (!prior(m, "occupancy_waves_per_cu", &w))
        return false;
    int maxw = m->o->soc && m->o->soc->limits
                   ? m->o->soc->limits->max_waves_per_simd * m->o->soc->limits->simds_per_cu
                   : 0;
    if (maxw <= 0)
        return false;
    *v = 100.0 * w / maxw;
    return true;
}

static bool m_waves(mctx *m, double *v)
{
    return need(m, "SQ_WAVES", v);
}

typedef struct metric_def {
    const char *id;
    const char *unit;
    int decimals;
    const char *formula;
    metric_fn fn;
} metric_def;

/* THE formula table, in output order; later rows may use earlier ones. */
static const metric_def metric_defs[] = {
    {"l2_hit_pct", "%", 2, "100 * TCC_HIT_sum / (TCC_HIT_sum + TCC_MISS_sum)", m_l2_hit},
    {"partial_32b_pct", "%", 2, "100 * TCC_EA0_RDREQ_32B_sum / TCC_EA0_RDREQ_sum", m_partial_32b},
    {"fetch_bytes", "bytes/dispatch", 0, NULL, m_fetch_bytes},
    {"write_bytes", "bytes/dispatch", 0,
     "(64*TCC_EA0_WRREQ_64B_sum + 32*(TCC_EA0_WRREQ_sum - TCC_EA0_WRREQ_64B_sum)) * ea_channels", m_write_bytes},
    {"over_fetch", "x", 3, "fetch_bytes / ideal_bytes (--ideal-gb)", m_over_fetch},
    {"hbm_read_gbs", "GB/s", 1, "fetch_bytes / duration_ns", m_read_gbs},
    {"hbm_write_gbs", "GB/s", 1, "write_bytes / duration_ns", m_write_gbs},
    {"hbm_gbs", "GB/s", 1, "hbm_read_gbs + hbm_write_gbs", m_hbm_gbs},
    {"hbm_pct_of_peak", "%", 1, "100 * hbm_gbs / peak_hbm_gbs", m_hbm_pct},
    {"ideal_gbs", "GB/s", 1, "ideal_bytes / duration_ns (the seed's achieved bandwidth)", m_ideal_gbs},
    {"ideal_pct_of_peak", "%", 1, "100 * ideal_gbs / peak_hbm_gbs", m_ideal_pct},
    {"hbm_dram_read_pct", "%", 2, "100 * TCC_EA0_RDREQ_DRAM_sum / TCC_EA0_RDREQ_sum", m_dram_share},
    {"kernel_cycles", "cycles", 0, "GRBM_GUI_ACTIVE / num_xcd", m_kernel_cycles},
    {"mfma_util_pct", "%", 2, "100 * SQ_VALU_MFMA_BUSY_CYCLES / (GRBM_GUI_ACTIVE/num_xcd * CUs * 4)",
     m_mfma_util},
    {"valu_util_pct", "%", 2, "100 * SQ_ACTIVE_INST_VALU / (GRBM_GUI_ACTIVE/num_xcd * CUs)", m_valu_util},
    {"mfma_flops", "FLOP/dispatch", 0, "512 * sum(SQ_INSTS_VALU_MFMA_MOPS_*)", m_mfma_flops},
    {"mfma_gflops", "GFLOP/s", 1, "mfma_flops / duration_ns", m_mfma_gflops},
    {"mfma_pct_of_peak", "%", 2, "100 * mfma_gflops / peak_gflops(dtype)", m_mfma_pct},
    {"lds_bank_conflicts_per_access", "cycles/access", 4,
     "SQ_LDS_BANK_CONFLICT / (SQ_LDS_IDX_ACTIVE - SQ_LDS_BANK_CONFLICT)", m_lds_conflicts_per_access},
    {"lds_bank_conflict_pct", "%", 2, "100 * SQ_LDS_BANK_CONFLICT / SQ_LDS_IDX_ACTIVE", m_lds_conflict_pct},
    {"occupancy_waves_per_cu", "waves", 2, "SQ_ACCUM_PREV_HIRES / (GRBM_GUI_ACTIVE/num_xcd) / CUs", m_occ_waves},
    {"occupancy_pct", "%", 1, "100 * occupancy_waves_per_cu / (waves_per_simd * simds_per_cu)", m_occ_pct},
    {"waves", "waves/dispatch", 0, "SQ_WAVES", m_waves},
};
#define N_METRICS (sizeof metric_defs / sizeof metric_defs[0])

static void set_opt(fp_optnum *o, const fp_counters_doc *d, const char *id)
{
    const fp_cnt_metric *m = fp_counters_metric(d, id);
    if (m)
        *o = fp_some(m->value);
}

/* Whether the metric already lists that input (case-insensitively, as the JSON
 * object it used to be looked up in). */
static bool has_input(const fp_cnt_metric *e, const char *name)
{
    for (size_t k = 0; k < e->ninputs; k++)
        if (!strcasecmp(e->inputs[k].key, name))
            return true;
    return false;
}

void fp_counters_metrics(const fp_pmc_record *records, size_t n, const fp_counters_opts *o, fp_bound_in *bin,
                         fp_counters_doc *out)
{
    double dur = 0;
    size_t nd = 0;
    for (size_t i = 0; i < n; i++)
        if (records[i].duration_ns > 0) {
            dur += records[i].duration_ns;
            nd++;
        }
    for (size_t i = 0; i < N_METRICS; i++) {
        const metric_def *d = &metric_defs[i];
        mctx m = {.r = records, .n = n, .o = o, .duration_ns = nd ? dur / nd : 0, .pref_pass = -1,
                  .formula = d->formula, .done = out};
        double v = 0;
        bool ok = d->fn(&m, &v) && isfinite(v);
        if (!ok) {
            /* inputs present but degenerate (zero denominator): not listed */
            if (m.nmissing) {
                fp_cnt_missing *ms = fp_model_push((void **)&out->missing, &out->nmissing, sizeof *ms);
                ms->key = fp_model_strdup(d->id);
                for (size_t k = 0; k < m.nmissing; k++)
                    fp_model_push_str(&ms->inputs, &ms->ninputs, m.missing[k]);
            }
            continue;
        }
        fp_cnt_metric *e = fp_model_push((void **)&out->metrics, &out->nmetrics, sizeof *e);
        e->key = fp_model_strdup(d->id);
        e->value = fp_round(v, d->decimals);
        e->unit = fp_model_strdup(d->unit);
        e->formula = fp_model_strdup(m.formula);
        for (size_t k = 0; k < m.nin; k++)
            if (!has_input(e, m.in_name[k])) {
                fp_model_kv *kv = fp_model_push((void **)&e->inputs, &e->ninputs, sizeof *kv);
                kv->key = fp_model_strdup(m.in_name[k]);
                kv->v = m.in_val[k];
            }
        for (int p = 0; p < 64; p++)
            if (m.passes & ((uint64_t)1 << p)) {
                double *pv = fp_model_push((void **)&e->passes, &e->npasses, sizeof *pv);
                *pv = p + 1;
            }
        e->cross_pass = e->npasses > 1;
        if (m.approximate)
            e->approximate = (fp_optb){true, true};
    }
    if (bin) {
        set_opt(&bin->hbm_pct_of_peak, out, "hbm_pct_of_peak");
        set_opt(&bin->mfma_util_pct, out, "mfma_util_pct");
        set_opt(&bin->valu_util_pct, out, "valu_util_pct");
        set_opt(&bin->l2_hit_pct, out, "l2_hit_pct");
        set_opt(&bin->partial_32b_pct, out, "partial_32b_pct");
        set_opt(&bin->over_fetch, out, "over_fetch");
    }
}

static bool metric_value(const fp_counters_doc *d, const char *id, double *v)
{
    const fp_cnt_metric *m = fp_counters_metric(d, id);
    if (!m)
        return false;
    *v = m->value;
    return true;
}

static void say(fp_counters_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(fp_counters_doc *d, const char *fmt, ...)
{
    fp_sb sb;
    fp_sb_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    fp_sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    fp_model_push_str(&d->interpretation, &d->ninterpretation, sb.buf);
    fp_sb_free(&sb);
}

void fp_counters_interpret(fp_counters_doc *metrics)
{
    fp_counters_doc *a = metrics;
    double l2 = 0, p32 = 0, of = 0, pct = 0, ideal_pct = 0;
    if (metric_value(metrics, "l2_hit_pct", &l2)) {
        if (l2 < STREAMING_L2_HIT_PCT)
            say(a, "L2 hit %.1f%% < %.0f%%: pure streaming, no reuse through L2. Expected when every byte is "
                   "read once; raising the L2 hit rate is a non-goal unless the workload shares data.",
                l2, STREAMING_L2_HIT_PCT);
        else if (l2 >= REUSE_L2_HIT_PCT)
            say(a, "L2 hit %.1f%%: data is reused through L2; HBM traffic is below the requested bytes.", l2);
        else
            say(a, "L2 hit %.1f%%: partial reuse; a layout or XCD remap that keeps reused tiles on one XCD "
                   "may raise it.",
                l2);
    }
    if (metric_value(metrics, "partial_32b_pct", &p32)) {
        if (p32 <= FULL_LINES_32B_PCT)
            say(a, "32B partial %.1f%% ~ 0: full cache lines, no spatial-locality waste at the line level.", p32);
        else if (p32 > SCATTERED_32B_PCT)
            say(a, "32B partial %.1f%% > %.0f%%: scattered or misaligned accesses; widen and align the loads.",
                p32, SCATTERED_32B_PCT);
        else
            say(a, "32B partial %.1f%%: some partial-line reads.", p32);
    }
    if (metric_value(metrics, "over_fetch", &of)) {
        if (of >= CLEAN_OVERFETCH_LO && of <= CLEAN_OVERFETCH_HI)
            say(a, "over-fetch %.2fx ~ 1.0: the kernel reads exactly the data it needs; the achieved bandwidth "
                   "is the ceiling of this access pattern.",
                of);
        else if (of > CLEAN_OVERFETCH_HI)
            say(a, "over-fetch %.2fx: the kernel fetches %.0f%% more than the ideal bytes (redundant or "
                   "misaligned reads).",
                of, 100.0 * (of - 1.0));
        else
            say(a, "over-fetch %.2fx < 1: fewer bytes than ideal came from the fabric (served by L2/MALL, or "
                   "--ideal-gb is too high).",
                of);
    }
    bool have_ideal = metric_value(metrics, "ideal_pct_of_peak", &ideal_pct);
    bool have_hbm = metric_value(metrics, "hbm_pct_of_peak", &pct);
    if (have_hbm || have_ideal) {
        double g = 0;
        if (have_ideal && metric_value(metrics, "ideal_gbs", &g))
            say(a, "achieved %.2f TB/s (ideal bytes / time) = %.0f%% of peak HBM; 50-60%% is normal for clean "
                   "streaming.",
                g / 1000.0, ideal_pct);
        else if (have_hbm && metric_value(metrics, "hbm_gbs", &g))
            say(a, "fabric traffic %.2f TB/s = %.0f%% of peak HBM.", g / 1000.0, pct);
    }
}


/* ------------------------------------------------------------ live groups */

/* Each group fits one pass: TCC <= 4, SQ <= 8, GRBM <= 2 (§6.3). GRBM_GUI_ACTIVE
 * is in every group so that per-cycle ratios stay within one pass. */
static const char *const g942_mem_l2[] = {"TCC_HIT_sum",      "TCC_MISS_sum",       "TCC_EA0_WRREQ_sum",
                                          "TCC_EA0_WRREQ_64B_sum", "GRBM_GUI_ACTIVE", "SQ_WAVES", NULL};
static const char *const g942_fetch[] = {"TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_BUBBLE_sum",
                                         "TCC_EA0_RDREQ_DRAM_sum", "GRBM_GUI_ACTIVE", NULL};
static const char *const g942_mfma[] = {"SQ_INSTS_VALU_MFMA_MOPS_F16", "SQ_INSTS_VALU_MFMA_MOPS_BF16",
                                        "SQ_INSTS_VALU_MFMA_MOPS_F8",  "SQ_INSTS_VALU_MFMA_MOPS_I8",
                                        "SQ_INSTS_VALU_MFMA_MOPS_F32", "SQ_INSTS_VALU_MFMA_MOPS_F64",
                                        "SQ_VALU_MFMA_BUSY_CYCLES",    "SQ_INSTS_MFMA",
                                        "GRBM_GUI_ACTIVE",             "MfmaUtil",
                                        NULL};
/* Occupancy through the SDK's derived MeanOccupancyPerCU (counter_defs.yaml, gfx942
 * and gfx950: accumulate(SQ_LEVEL_WAVES, HIGH_RES) / reduce(GRBM_GUI_ACTIVE, max) /
 * CU_NUM), not raw SQ_LEVEL_WAVES + SQ_ACCUM_PREV_HIRES: the SDK orders a request's
 * counters by internal id, so a raw accumulator is not guaranteed to integrate
 * SQ_LEVEL_WAVES (issue 18); the derived counter wires them together, and its
 * CU_NUM is the agent's own (right on a partitioned device). */
/* VALUBusy, LdsBankConflict and MfmaUtil (gfx942 and gfx950 definitions) likewise replace
 * flyprof's own arithmetic over the raw counters beside them; they occupy no extra hardware
 * counter (their bases are in the same group). L2CacheHit is defined for gfx9/gfx90a only,
 * so l2_hit_pct stays TCC_HIT_sum / (TCC_HIT_sum + TCC_MISS_sum) (both SDK-derived sums). */
static const char *const g_lds_occ[] = {"SQ_LDS_IDX_ACTIVE", "SQ_LDS_BANK_CONFLICT", "MeanOccupancyPerCU",
                                        "SQ_ACTIVE_INST_VALU", "SQ_INSTS_VALU",     "SQ_INSTS_LDS",
                                        "SQ_WAVES",            "GRBM_GUI_ACTIVE",   "VALUBusy",
                                        "LdsBankConflict",     NULL};
static const char *const g950_fetch[] = {"TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_EA0_RDREQ_64B_sum",
                                         "TCC_EA0_RDREQ_128B_sum", "GRBM_GUI_ACTIVE", NULL};
static const char *const g950_mfma[] = {"SQ_INSTS_VALU_MFMA_MOPS_F16", "SQ_INSTS_VALU_MFMA_MOPS_BF16",
                                        "SQ_INSTS_VALU_MFMA_MOPS_F8",  "SQ_INSTS_VALU_MFMA_MOPS_F6F4",
                                        "SQ_INSTS_VALU_MFMA_MOPS_I8",  "SQ_INSTS_VALU_MFMA_MOPS_F32",
                                        "SQ_INSTS_VALU_MFMA_MOPS_F64", "SQ_VALU_MFMA_BUSY_CYCLES",
                                        "GRBM_GUI_ACTIVE",             "MfmaUtil",
                                        NULL};

static const char *const *const groups_942[] = {g942_mem_l2, g942_fetch, g942_mfma, g_lds_occ, NULL};
static const char *const *const groups_950[] = {g942_mem_l2, g950_fetch, g950_mfma, g_lds_occ, NULL};

const char *const *const *fp_counters_groups(const char *arch, size_t *ngroups)
{
    const char *const *const *g = NULL;
    if (arch && !strcmp(arch, "gfx942"))
        g = groups_942;
    else if (arch && !strcmp(arch, "gfx950"))
        g = groups_950;
    size_t n = 0;
    while (g && g[n])
        n++;
    if (ngroups)
        *ngroups = n;
    return g;
}

static const struct {
    const char *prefix;
    const char *block;
    int limit;
} block_rows[] = {
    /* hardware counters per block per pass: AQL gfx9_block_info.h (§6.3) */
    {"TCC_", "TCC", 4}, {"SQ_", "SQ", 8}, {"GRBM_", "GRBM", 2}, {"TCP_", "TCP", 4},
    {"TA_", "TA", 2},   {"TD_", "TD", 2}, {"TCA_", "TCA", 4},   {"SPI_", "SPI", 6},
};

/* SDK-derived counters and the hardware counters they occupy in a pass. */
static const struct {
    const char *name;
    const char *base[4];
} derived_rows[] = {
    {"MeanOccupancyPerCU", {"SQ_LEVEL_WAVES", "SQ_ACCUM_PREV_HIRES", "GRBM_GUI_ACTIVE", NULL}},
    {"MfmaUtil", {"SQ_VALU_MFMA_BUSY_CYCLES", "GRBM_GUI_ACTIVE", NULL}},
    {"VALUBusy", {"SQ_ACTIVE_INST_VALU", "GRBM_GUI_ACTIVE", NULL}},
    {"LdsBankConflict", {"SQ_LDS_BANK_CONFLICT", "SQ_LDS_IDX_ACTIVE", NULL}},
};

const char *const *fp_counter_derived_base(const char *name)
{
    for (size_t i = 0; name && i < sizeof derived_rows / sizeof derived_rows[0]; i++)
        if (!strcmp(name, derived_rows[i].name))
            return derived_rows[i].base;
    return NULL;
}

/* The hardware counters of name (itself unless derived), appended to set (deduplicated). */
static void add_base(const char *name, const char **set, size_t *n, size_t cap)
{
    const char *one[] = {name, NULL};
    const char *const *base = one;
    for (size_t i = 0; i < sizeof derived_rows / sizeof derived_rows[0]; i++)
        if (!strcmp(name, derived_rows[i].name))
            base = derived_rows[i].base;
    for (; *base; base++) {
        bool have = false;
        for (size_t i = 0; i < *n && !have; i++)
            have = !strcmp(set[i], *base);
        if (!have && *n < cap)
            set[(*n)++] = *base;
    }
}

/* Whether the union of the pass so far and group g fits every block's limit. */
static bool fits(const char *const *pass, size_t np, const char *const *g)
{
    const char *hw[128];
    size_t n = 0;
    for (size_t i = 0; i < np; i++)
        add_base(pass[i], hw, &n, 128);
    for (; *g; g++)
        add_base(*g, hw, &n, 128);
    for (size_t b = 0; b < sizeof block_rows / sizeof block_rows[0]; b++) {
        int used = 0;
        for (size_t i = 0; i < n; i++)
            used += !strncmp(hw[i], block_rows[b].prefix, strlen(block_rows[b].prefix));
        if (used > block_rows[b].limit)
            return false;
    }
    return true;
}

int fp_counters_pack(const char *const *const *groups, size_t ngroups, fp_counter_passes *out)
{
    memset(out, 0, sizeof *out);
    size_t len[FP_MAX_PASSES] = {0};
    for (size_t g = 0; g < ngroups; g++) {
        size_t p = 0;
        while (p < out->n && !fits((const char *const *)out->pass[p], len[p], groups[g]))
            p++;
        if (p == out->n) {
            if (out->n == FP_MAX_PASSES || !fits(NULL, 0, groups[g])) {
                fp_counter_passes_free(out);
                return -1;
            }
            out->n++;
        }
        for (const char *const *c = groups[g]; *c; c++) {
            bool have = false;
            for (size_t i = 0; i < len[p] && !have; i++)
                have = !strcmp(out->pass[p][i], *c);
            if (have)
                continue;
            out->pass[p] = realloc(out->pass[p], (len[p] + 2) * sizeof *out->pass[p]);
            if (!out->pass[p])
                abort();
            out->pass[p][len[p]++] = *c;
            out->pass[p][len[p]] = NULL;
        }
    }
    return 0;
}

void fp_counter_passes_free(fp_counter_passes *p)
{
    for (size_t i = 0; i < FP_MAX_PASSES; i++)
        free(p->pass[i]);
    memset(p, 0, sizeof *p);
}

const char *fp_counter_block(const char *name)
{
    for (size_t i = 0; i < sizeof block_rows / sizeof block_rows[0]; i++)
        if (!strncmp(name, block_rows[i].prefix, strlen(block_rows[i].prefix)))
            return block_rows[i].block;
    return NULL;
}

int fp_counter_block_limit(const char *block)
{
    for (size_t i = 0; block && i < sizeof block_rows / sizeof block_rows[0]; i++)
        if (!strcmp(block, block_rows[i].block))
            return block_rows[i].limit;
    return 0;
}
