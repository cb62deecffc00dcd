/*
 * bound.c - the one bound classification (compute / memory / latency) and the
 * "already optimal" roof check, as ordered tables of rules.
 *
 * Order matters and encodes trust: a measured saturation (counters) beats a
 * stall share (trace), which beats a shape-only roofline guess. Within the
 * trace rules, global-memory waits with a measured LOW bandwidth are latency
 * (too few bytes in flight), not memory: that is the distinction the
 * prototype's report rule could not make.
 */
#include "flyprof/bound.h"

#include <stdio.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/report_doc.h"
#include "flyprof/tile_doc.h"
#include "flyprof/sol.h"

/* Thresholds (percent unless noted), docs/bound.md "Thresholds" with their sources.
 * Issue 17: the bound comes from the speed of light and the launch first (is a
 * unit near its practical peak, can the launch fill the SIMDs); the stall mix
 * explains a latency bound, it never decides memory or compute. */
/* Memory: HBM at >= 60 % of the arch's PRACTICAL ceiling (50 % of peak on MI350X):
 * the seed's decision tree calls 50-60 % of peak normal for clean streaming, i.e. a
 * kernel there is at its access pattern's bandwidth limit. */
#define HBM_OF_CEILING_PCT 60.0
/* Memory: the CUs' vector-memory path busy >= 80 % of its rate (rocprofiler-compute's
 * speed-of-light reading: a unit above ~80 % of its peak is the limiter). */
#define VMEM_ISSUE_SATURATED_PCT 80.0
#define MFMA_SATURATED_PCT 50.0 /* MFMA pipe busy half the time: compute (dense GEMMs reach 60-80 %) */
#define VALU_SATURATED_PCT 80.0 /* VALU issue nearly every cycle: compute */
#define TRACE_MFMA_STALL_PCT 25.0
/* The trace HBM figure is believed only up to what the HBM can physically do
 * (110 %: the timing comes from a separate run, +-10 %); above that the bytes are
 * cache traffic. */
#define TRACE_HBM_MAX_PLAUSIBLE_PCT FP_SOL_TRACE_PLAUSIBLE_PCT
/* The stall-mix explanations of a latency bound (prototype report, flyprof-spec.md §9.1). */
#define TRACE_VMEM_STALL_PCT 35.0
#define TRACE_LDS_STALL_PCT 35.0
/* Roof check. 85 % of peak HBM is what streaming kernels reach at best
 * (prototype §8.4); the seed's decision tree (000_*: "over-fetch ~1.0x, 32B ~0 %,
 * ~54 % of peak is healthy") makes a clean access pattern at >= 50 % the ceiling. */
#define ROOF_NEAR_PCT 85.0
#define CLEAN_MIN_HBM_PCT 50.0
#define CLEAN_OVERFETCH_LO 0.9
#define CLEAN_OVERFETCH_HI 1.1
#define CLEAN_MAX_32B_PCT 5.0

/* The practical HBM ceiling per arch (% of the theoretical peak): what a clean
 * streaming kernel reaches on the part. docs/bound.md lists the same rows. */
static const fp_hbm_ceiling hbm_ceilings[] = {
    {"gfx950", 84.0, "measured: the corpus's best pure streaming kernel, vec_add-big (every byte unique), moves "
                     "122.9 MB in 18.4 us (CSV median) = 83.5 % of the MI350X's 8 TB/s; the seed calls 50-60 % "
                     "normal clean streaming"},
    {"gfx942", 81.0, "public stream benchmarks on MI300X: ~4.3 of 5.3 TB/s"},
    {"default", 80.0, "no measurement for this arch: a typical HBM3 streaming efficiency"},
};
#define NCEIL (sizeof hbm_ceilings / sizeof hbm_ceilings[0])

const fp_hbm_ceiling *fp_bound_hbm_ceilings(size_t *n)
{
    *n = NCEIL;
    return hbm_ceilings;
}

const fp_hbm_ceiling *fp_bound_hbm_ceiling(const char *arch)
{
    for (size_t i = 0; arch && i + 1 < NCEIL; i++)
        if (!strcmp(hbm_ceilings[i].arch, arch))
            return &hbm_ceilings[i];
    return &hbm_ceilings[NCEIL - 1];
}

typedef bool (*rule_fn)(const fp_bound_in *in, char *ev, size_t n);


#define H(x) (in->x.have)
#define V(x) (in->x.v)

static double ceiling(const fp_bound_in *in)
{
    return H(hbm_ceiling_pct) && V(hbm_ceiling_pct) > 0 ? V(hbm_ceiling_pct) : fp_bound_hbm_ceiling(NULL)->pct;
}

/* HBM at which a kernel is memory-bound: a share of the practical ceiling. */
static double memory_hbm_pct(const fp_bound_in *in) { return ceiling(in) * HBM_OF_CEILING_PCT / 100.0; }

static bool r_hbm_saturated(const fp_bound_in *in, char *ev, size_t n)
{
    double thr = memory_hbm_pct(in);
    if (!H(hbm_pct_of_peak) || V(hbm_pct_of_peak) < thr)
        return false;
    snprintf(ev, n, "achieved HBM bandwidth is %.1f%% of peak (>= %.1f%% = %.0f%% of the %.0f%% practical ceiling)",
             V(hbm_pct_of_peak), thr, HBM_OF_CEILING_PCT, ceiling(in));
    return true;
}

static bool r_mfma_saturated(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(mfma_util_pct) || V(mfma_util_pct) < MFMA_SATURATED_PCT)
        return false;
    snprintf(ev, n, "MFMA utilisation is %.1f%% (>= %.0f%%)", V(mfma_util_pct), MFMA_SATURATED_PCT);
    return true;
}

static bool r_valu_saturated(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(valu_util_pct) || V(valu_util_pct) < VALU_SATURATED_PCT)
        return false;
    snprintf(ev, n, "VALU utilisation is %.1f%% (>= %.0f%%)", V(valu_util_pct), VALU_SATURATED_PCT);
    return true;
}

static bool r_launch_underfilled(const fp_bound_in *in, char *ev, size_t n)
{
    /* the launch cannot fill the SIMDs: fewer waves than SIMDs, else fewer workgroups than CUs */
    bool simd = H(simd_fill_pct) && V(simd_fill_pct) < 100.0;
    if (!simd && (!H(underfilled) || V(underfilled) < 0.5))
        return false;
    if (simd)
        snprintf(ev, n, "%.0f workgroups on %.0f CUs give only %.0f%% of the SIMDs a wave (%.0f%% of the CUs)",
                 H(workgroups) ? V(workgroups) : 0, H(cus) ? V(cus) : 0, V(simd_fill_pct), H(fill_pct) ? V(fill_pct) : 0);
    else
        snprintf(ev, n, "%.0f workgroups on %.0f CUs: only %.0f%% of the CUs get any work",
                 H(workgroups) ? V(workgroups) : 0, H(cus) ? V(cus) : 0, H(fill_pct) ? V(fill_pct) : 0);
    return true;
}

static bool r_mfma_busy(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(mfma_busy_trace_pct) || V(mfma_busy_trace_pct) < MFMA_SATURATED_PCT)
        return false;
    snprintf(ev, n, "the MFMA pipe is busy %.1f%% of traced SIMD cycles (>= %.0f%%)", V(mfma_busy_trace_pct),
             MFMA_SATURATED_PCT);
    return true;
}

static bool r_valu_busy(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(valu_busy_trace_pct) || V(valu_busy_trace_pct) < VALU_SATURATED_PCT)
        return false;
    snprintf(ev, n, "the VALU is busy %.1f%% of traced SIMD cycles (>= %.0f%%)", V(valu_busy_trace_pct),
             VALU_SATURATED_PCT);
    return true;
}

/* The trace's HBM figure: unique bytes when known (what must cross HBM), else the
 * requested bytes (an upper bound: L2 hits of shared operands count). */
static bool trace_hbm(const fp_bound_in *in, double *v, const char **what)
{
    if (H(hbm_unique_pct)) {
        *v = V(hbm_unique_pct);
        *what = "unique bytes";
    } else if (H(hbm_trace_pct)) {
        *v = V(hbm_trace_pct);
        *what = "requested bytes, an upper bound: L2 hits counted";
    } else
        return false;
    return *v <= TRACE_HBM_MAX_PLAUSIBLE_PCT;
}

static bool r_hbm_trace_saturated(const fp_bound_in *in, char *ev, size_t n)
{
    double v, thr = memory_hbm_pct(in);
    const char *what;
    if (!trace_hbm(in, &v, &what) || v < thr)
        return false;
    snprintf(ev, n, "the trace's %s over the kernel time are %.1f%% of peak HBM (>= %.1f%% = %.0f%% of the %.0f%% "
             "practical ceiling)", what, v, thr, HBM_OF_CEILING_PCT, ceiling(in));
    return true;
}

static bool r_vmem_issue(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(vmem_issue_pct) || V(vmem_issue_pct) < VMEM_ISSUE_SATURATED_PCT)
        return false;
    snprintf(ev, n, "the CUs' vector-memory path moves %.1f%% of its bytes per cycle (>= %.0f%%): VMEM issue is "
             "saturated", V(vmem_issue_pct), VMEM_ISSUE_SATURATED_PCT);
    return true;
}

/* ---- latency: no unit near its limit; the stall mix says what the waves wait for ---- */

static bool r_vmem_starved(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(vmem_stall_share) || V(vmem_stall_share) <= TRACE_VMEM_STALL_PCT || !H(hbm_pct_of_peak))
        return false;
    snprintf(ev, n,
             "global-memory waits are %.1f%% of stall cycles but achieved HBM is only %.1f%% of peak (below %.1f%%): "
             "too few bytes in flight",
             V(vmem_stall_share), V(hbm_pct_of_peak), memory_hbm_pct(in));
    return true;
}

static bool r_vmem_starved_trace(const fp_bound_in *in, char *ev, size_t n)
{
    double v;
    const char *what;
    if (!H(vmem_stall_share) || V(vmem_stall_share) <= TRACE_VMEM_STALL_PCT)
        return false;
    if (trace_hbm(in, &v, &what))
        snprintf(ev, n,
                 "global-memory waits are %.1f%% of stall cycles but the trace's %s are only %.1f%% of peak HBM "
                 "(below %.1f%%): latency, too few bytes in flight",
                 V(vmem_stall_share), what, v, memory_hbm_pct(in));
    else
        snprintf(ev, n, "global-memory waits are %.1f%% of stall cycles and no unit is near its limit: latency",
                 V(vmem_stall_share));
    return true;
}

static bool r_trace_lds(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(lds_stall_share) || V(lds_stall_share) <= TRACE_LDS_STALL_PCT)
        return false;
    snprintf(ev, n, "LDS waits are %.1f%% of stall cycles (> %.0f%%) with no unit near its limit: LDS latency",
             V(lds_stall_share), TRACE_LDS_STALL_PCT);
    return true;
}

static bool r_trace_mfma_dep(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(mfma_stall_share) || V(mfma_stall_share) <= TRACE_MFMA_STALL_PCT)
        return false;
    snprintf(ev, n,
             "MFMA dependencies (MFMA issue stall and s_nop between MFMAs) are %.1f%% of stall cycles (> %.0f%%) "
             "while the pipe is not saturated: a dependency chain, not throughput",
             V(mfma_stall_share), TRACE_MFMA_STALL_PCT);
    return true;
}

static bool r_ai_below_ridge(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(ai) || !H(ridge_ai) || V(ai) >= V(ridge_ai))
        return false;
    snprintf(ev, n, "arithmetic intensity %.2f FLOP/B is below the ridge %.2f FLOP/B", V(ai), V(ridge_ai));
    return true;
}

static bool r_ai_above_ridge(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(ai) || !H(ridge_ai) || V(ai) < V(ridge_ai))
        return false;
    snprintf(ev, n, "arithmetic intensity %.2f FLOP/B is at or above the ridge %.2f FLOP/B", V(ai),
             V(ridge_ai));
    return true;
}

static bool have_trace(const fp_bound_in *in)
{
    return H(stall_pct) || H(vmem_stall_share) || H(lds_stall_share) || H(mfma_stall_share) ||
           H(mfma_inst_pct) || H(mfma_busy_trace_pct) || H(valu_busy_trace_pct) || H(hbm_trace_pct) ||
           H(hbm_unique_pct) || H(vmem_issue_pct);
}

static bool have_counters(const fp_bound_in *in)
{
    return H(hbm_pct_of_peak) || H(mfma_util_pct) || H(valu_util_pct) || H(l2_hit_pct) ||
           H(partial_32b_pct) || H(over_fetch);
}

static bool r_trace_default(const fp_bound_in *in, char *ev, size_t n)
{
    if (!have_trace(in))
        return false;
    if (H(stall_pct))
        snprintf(ev, n,
                 "%.1f%% of wave cycles stalled with no dominant class (memory, LDS or MFMA) and no "
                 "saturated unit",
                 V(stall_pct));
    else
        snprintf(ev, n, "no dominant stall class (memory, LDS or MFMA) and no saturated unit");
    return true;
}

static bool r_counters_default(const fp_bound_in *in, char *ev, size_t n)
{
    if (!have_counters(in))
        return false;
    snprintf(ev, n, "no unit near its peak in the counters (HBM, MFMA, VALU)");
    return true;
}

/* THE table. First match wins. The condition column is what docs/bound.md
 * states (tests/unit/test_bound.c checks the doc against this table). The rule's
 * test is in bound_tests[], same index: the public rows stay plain data.
 * Order: measured saturation, the launch, the trace's speed of light; then the
 * latency rules, whose stall-mix condition only says what the waves wait for. */
static const fp_bound_rule_info bound_info[] = {
    {"hbm_saturated", FP_BOUND_MEMORY, "counters", "high", "HBM >= 60 % of the practical ceiling"},
    {"mfma_saturated", FP_BOUND_COMPUTE, "counters", "high", "MFMA utilisation >= 50 %"},
    {"valu_saturated", FP_BOUND_COMPUTE, "counters", "high", "VALU utilisation >= 80 %"},
    {"launch_underfilled", FP_BOUND_PARALLELISM, "launch", "high", "SIMD fill < 100 % (else fewer workgroups than CUs)"},
    {"mfma_busy", FP_BOUND_COMPUTE, "trace", "medium", "trace MFMA busy >= 50 % of SIMD cycles"},
    {"valu_busy", FP_BOUND_COMPUTE, "trace", "medium", "trace VALU busy >= 80 % of SIMD cycles"},
    {"hbm_trace_saturated", FP_BOUND_MEMORY, "trace", "medium", "trace HBM (unique, else requested bytes) >= 60 % of the practical ceiling and <= 110 % of peak"},
    {"vmem_issue_saturated", FP_BOUND_MEMORY, "trace", "medium", "VMEM issue >= 80 % of the CUs' vector-memory rate"},
    {"vmem_starved", FP_BOUND_LATENCY, "counters", "high", "VMEM stall > 35 % of stall, counters HBM below the memory threshold"},
    {"vmem_starved_trace", FP_BOUND_LATENCY, "trace", "medium", "VMEM stall > 35 % of stall, no unit near its limit"},
    {"trace_lds", FP_BOUND_LATENCY, "trace", "medium", "LDS stall > 35 % of stall, no unit near its limit"},
    {"trace_mfma_dep", FP_BOUND_LATENCY, "trace", "medium", "MFMA stall + s_nop between MFMAs > 25 % of stall"},
    {"trace_default", FP_BOUND_LATENCY, "trace", "low", "any trace input, nothing above"},
    {"counters_default", FP_BOUND_LATENCY, "counters", "low", "any counter input, nothing above"},
    {"ai_below_ridge", FP_BOUND_MEMORY, "shape", "low", "AI < ridge"},
    {"ai_above_ridge", FP_BOUND_COMPUTE, "shape", "low", "AI >= ridge"},
};
static const rule_fn bound_tests[] = {
    r_hbm_saturated,
    r_mfma_saturated,
    r_valu_saturated,
    r_launch_underfilled,
    r_mfma_busy,
    r_valu_busy,
    r_hbm_trace_saturated,
    r_vmem_issue,
    r_vmem_starved,
    r_vmem_starved_trace,
    r_trace_lds,
    r_trace_mfma_dep,
    r_trace_default,
    r_counters_default,
    r_ai_below_ridge,
    r_ai_above_ridge,
};
#define NBOUND (sizeof bound_info / sizeof bound_info[0])
_Static_assert(sizeof bound_tests / sizeof bound_tests[0] == NBOUND, "one test per bound rule");

const fp_bound_rule_info *fp_bound_rules(size_t *n)
{
    *n = NBOUND;
    return bound_info;
}

typedef struct optimal_rule {
    const char *id;
    rule_fn test;
} optimal_rule;

static bool o_near_roof(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(hbm_pct_of_peak) || V(hbm_pct_of_peak) < ROOF_NEAR_PCT)
        return false;
    snprintf(ev, n, "achieved HBM bandwidth is %.1f%% of peak (>= %.0f%%): at the roof", V(hbm_pct_of_peak),
             ROOF_NEAR_PCT);
    return true;
}

static bool o_clean_stream(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(hbm_pct_of_peak) || !H(over_fetch) || !H(partial_32b_pct))
        return false;
    if (V(hbm_pct_of_peak) < CLEAN_MIN_HBM_PCT || V(over_fetch) < CLEAN_OVERFETCH_LO ||
        V(over_fetch) > CLEAN_OVERFETCH_HI || V(partial_32b_pct) > CLEAN_MAX_32B_PCT)
        return false;
    snprintf(ev, n,
             "clean memory subsystem: over-fetch %.2fx, 32B partial %.1f%%, %.1f%% of peak HBM: the achieved "
             "bandwidth is the ceiling of this access pattern",
             V(over_fetch), V(partial_32b_pct), V(hbm_pct_of_peak));
    return true;
}

/* Optimal only applies to memory-bound kernels: the roof is the HBM roof. */
static const optimal_rule optimal_rules[] = {
    {"near_roof", o_near_roof},
    {"clean_stream", o_clean_stream},
};


void fp_bound_in_init(fp_bound_in *in)
{
    *in = (fp_bound_in){0};
}

/* The roof verdict: memory-bound at >= 60 % of peak HBM. */
#define ROOF_VERDICT_PCT 60.0

void fp_bound_classify(const fp_bound_in *in, fp_bound_result *out)
{
    *out = (fp_bound_result){0};
    out->bound = FP_BOUND_UNKNOWN;
    out->rule = "none";
    out->basis = "none";
    out->confidence = "low";
    out->within = FP_BOUND_UNKNOWN;
    out->within_rule = "none";
    snprintf(out->evidence, sizeof out->evidence, "no trace, counter or shape input");
    size_t i = 0;
    for (; i < NBOUND; i++) {
        const fp_bound_rule_info *r = &bound_info[i];
        if (bound_tests[i](in, out->evidence, sizeof out->evidence)) {
            out->bound = r->bound;
            out->rule = r->id;
            out->basis = r->basis;
            out->confidence = r->confidence;
            break;
        }
    }
    out->within = out->bound;
    out->within_rule = out->rule;
    out->ceiling_pct = ceiling(in);
    if (out->bound == FP_BOUND_PARALLELISM) {
        /* what limits each busy CU: the next rule that holds */
        char scratch[FP_BOUND_EVIDENCE_MAX];
        out->within = FP_BOUND_LATENCY;
        out->within_rule = "trace_default";
        for (size_t j = i + 1; j < NBOUND; j++)
            if (bound_tests[j](in, scratch, sizeof scratch)) {
                out->within = bound_info[j].bound;
                out->within_rule = bound_info[j].id;
                break;
            }
    }
    if (out->bound == FP_BOUND_MEMORY || out->within == FP_BOUND_MEMORY) {
        if (H(hbm_pct_of_peak) && V(hbm_pct_of_peak) >= ROOF_VERDICT_PCT) {
            out->at_roof = true;
            out->roof_pct = V(hbm_pct_of_peak);
            out->roof_source = "counters";
        } else if (!H(hbm_pct_of_peak)) {
            double v;
            const char *what;
            if (trace_hbm(in, &v, &what) && v >= ROOF_VERDICT_PCT) {
                out->at_roof = true;
                out->roof_pct = v;
                out->roof_source = "trace";
            }
        }
    }
    if (out->bound != FP_BOUND_MEMORY)
        return;
    for (size_t k = 0; k < sizeof optimal_rules / sizeof optimal_rules[0]; k++)
        if (optimal_rules[k].test(in, out->optimal_evidence, sizeof out->optimal_evidence)) {
            out->optimal = true;
            out->optimal_rule = optimal_rules[k].id;
            return;
        }
    out->optimal_evidence[0] = '\0';
}

const char *fp_bound_name(fp_bound b)
{
    switch (b) {
    case FP_BOUND_COMPUTE:
        return "compute";
    case FP_BOUND_MEMORY:
        return "memory";
    case FP_BOUND_LATENCY:
        return "latency";
    case FP_BOUND_PARALLELISM:
        return "parallelism";
    default:
        return "unknown";
    }
}

void fp_bound_to_doc(const fp_bound_result *r, fp_report_bound *o)
{
    memset(o, 0, sizeof *o);
    o->bound = fp_model_strdup(fp_bound_name(r->bound));
    o->rule = fp_model_strdup(r->rule);
    o->basis = fp_model_strdup(r->basis);
    o->confidence = fp_model_strdup(r->confidence);
    o->evidence = fp_model_strdup(r->evidence);
    o->optimal = r->optimal;
    o->optimal_rule = fp_model_strdup(r->optimal_rule);
    o->optimal_evidence = fp_model_strdup(r->optimal ? r->optimal_evidence : NULL);
    o->within = fp_model_strdup(fp_bound_name(r->within));
    o->within_rule = fp_model_strdup(r->within_rule);
    o->at_roof = r->at_roof;
    o->roof_pct_of_peak = r->at_roof ? fp_optd_of(r->roof_pct) : fp_optd_none();
    o->roof_source = fp_model_strdup(r->roof_source);
}


#undef H
#undef V
