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

#include "flyprof/json.h"

/* Thresholds (percent unless noted). They mirror rocprofiler-compute's
 * speed-of-light reading: a unit above ~60 % of its peak is the limiter;
 * the trace thresholds are the prototype report's (flyprof-spec.md §9.1:
 * MFMA inst mix > 40 %, MFMA stall > 25 %, VMEM stall > 35 %). */
#define HBM_SATURATED_PCT 60.0  /* achieved HBM >= 60 % of peak: bandwidth is the limiter */
#define HBM_BUSY_PCT 40.0       /* 40-60 %: memory-leaning without stall evidence */
#define HBM_STARVED_PCT 30.0    /* < 30 % of peak while waiting on memory: latency */
#define MFMA_SATURATED_PCT 50.0 /* MFMA pipe busy half the time: compute */
#define VALU_SATURATED_PCT 80.0 /* VALU issue nearly every cycle: compute */
#define TRACE_MFMA_INST_PCT 40.0
#define TRACE_MFMA_STALL_PCT 25.0
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

typedef bool (*rule_fn)(const fp_bound_in *in, char *ev, size_t n);

typedef struct bound_rule {
    const char *id;
    fp_bound bound;
    const char *basis;
    const char *confidence;
    rule_fn test;
} bound_rule;

#define H(x) (in->x.have)
#define V(x) (in->x.v)

static bool r_hbm_saturated(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(hbm_pct_of_peak) || V(hbm_pct_of_peak) < HBM_SATURATED_PCT)
        return false;
    snprintf(ev, n, "achieved HBM bandwidth is %.1f%% of peak (>= %.0f%%)", V(hbm_pct_of_peak),
             HBM_SATURATED_PCT);
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

static bool r_trace_mfma(const fp_bound_in *in, char *ev, size_t n)
{
    if (H(mfma_inst_pct) && V(mfma_inst_pct) > TRACE_MFMA_INST_PCT) {
        snprintf(ev, n, "MFMA is %.1f%% of executed instructions (> %.0f%%)", V(mfma_inst_pct),
                 TRACE_MFMA_INST_PCT);
        return true;
    }
    if (H(mfma_stall_share) && V(mfma_stall_share) > TRACE_MFMA_STALL_PCT) {
        snprintf(ev, n, "MFMA dependencies are %.1f%% of stall cycles (> %.0f%%)", V(mfma_stall_share),
                 TRACE_MFMA_STALL_PCT);
        return true;
    }
    return false;
}

static bool r_vmem_starved(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(vmem_stall_share) || V(vmem_stall_share) <= TRACE_VMEM_STALL_PCT || !H(hbm_pct_of_peak) ||
        V(hbm_pct_of_peak) >= HBM_STARVED_PCT)
        return false;
    snprintf(ev, n,
             "global-memory waits are %.1f%% of stall cycles but achieved HBM is only %.1f%% of peak "
             "(< %.0f%%): too few bytes in flight",
             V(vmem_stall_share), V(hbm_pct_of_peak), HBM_STARVED_PCT);
    return true;
}

static bool r_trace_vmem(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(vmem_stall_share) || V(vmem_stall_share) <= TRACE_VMEM_STALL_PCT)
        return false;
    snprintf(ev, n, "global-memory waits are %.1f%% of stall cycles (> %.0f%%)", V(vmem_stall_share),
             TRACE_VMEM_STALL_PCT);
    return true;
}

static bool r_trace_lds(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(lds_stall_share) || V(lds_stall_share) <= TRACE_LDS_STALL_PCT)
        return false;
    snprintf(ev, n, "LDS waits are %.1f%% of stall cycles (> %.0f%%): on-chip memory bound",
             V(lds_stall_share), TRACE_LDS_STALL_PCT);
    return true;
}

static bool r_hbm_busy(const fp_bound_in *in, char *ev, size_t n)
{
    if (!H(hbm_pct_of_peak) || V(hbm_pct_of_peak) < HBM_BUSY_PCT)
        return false;
    snprintf(ev, n, "achieved HBM bandwidth is %.1f%% of peak (>= %.0f%%), no unit saturated",
             V(hbm_pct_of_peak), HBM_BUSY_PCT);
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
           H(mfma_inst_pct);
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

/* THE table. First match wins. */
static const bound_rule bound_rules[] = {
    {"hbm_saturated", FP_BOUND_MEMORY, "counters", "high", r_hbm_saturated},
    {"mfma_saturated", FP_BOUND_COMPUTE, "counters", "high", r_mfma_saturated},
    {"valu_saturated", FP_BOUND_COMPUTE, "counters", "high", r_valu_saturated},
    {"trace_mfma", FP_BOUND_COMPUTE, "trace", "medium", r_trace_mfma},
    {"vmem_starved", FP_BOUND_LATENCY, "counters", "high", r_vmem_starved},
    {"trace_vmem", FP_BOUND_MEMORY, "trace", "medium", r_trace_vmem},
    {"trace_lds", FP_BOUND_MEMORY, "trace", "medium", r_trace_lds},
    {"hbm_busy", FP_BOUND_MEMORY, "counters", "medium", r_hbm_busy},
    {"trace_default", FP_BOUND_LATENCY, "trace", "low", r_trace_default},
    {"counters_default", FP_BOUND_LATENCY, "counters", "low", r_counters_default},
    {"ai_below_ridge", FP_BOUND_MEMORY, "shape", "low", r_ai_below_ridge},
    {"ai_above_ridge", FP_BOUND_COMPUTE, "shape", "low", r_ai_above_ridge},
};

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

#undef H
#undef V

void fp_bound_in_init(fp_bound_in *in)
{
    *in = (fp_bound_in){0};
}

void fp_bound_classify(const fp_bound_in *in, fp_bound_result *out)
{
    *out = (fp_bound_result){0};
    out->bound = FP_BOUND_UNKNOWN;
    out->rule = "none";
    out->basis = "none";
    out->confidence = "low";
    snprintf(out->evidence, sizeof out->evidence, "no trace, counter or shape input");
    for (size_t i = 0; i < sizeof bound_rules / sizeof bound_rules[0]; i++) {
        const bound_rule *r = &bound_rules[i];
        if (r->test(in, out->evidence, sizeof out->evidence)) {
            out->bound = r->bound;
            out->rule = r->id;
            out->basis = r->basis;
            out->confidence = r->confidence;
            break;
        }
    }
    if (out->bound != FP_BOUND_MEMORY)
        return;
    for (size_t i = 0; i < sizeof optimal_rules / sizeof optimal_rules[0]; i++)
        if (optimal_rules[i].test(in, out->optimal_evidence, sizeof out->optimal_evidence)) {
            out->optimal = true;
            out->optimal_rule = optimal_rules[i].id;
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
    default:
        return "unknown";
    }
}

cJSON *fp_bound_to_json(const fp_bound_result *r)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "bound", fp_bound_name(r->bound));
    fp_json_add_str(o, "rule", r->rule);
    fp_json_add_str(o, "basis", r->basis);
    fp_json_add_str(o, "confidence", r->confidence);
    fp_json_add_str(o, "evidence", r->evidence);
    fp_json_add_bool(o, "optimal", r->optimal);
    fp_json_add_str(o, "optimal_rule", r->optimal_rule);
    fp_json_add_str(o, "optimal_evidence", r->optimal ? r->optimal_evidence : NULL);
    return o;
}
