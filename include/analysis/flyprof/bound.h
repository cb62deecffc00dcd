/*
 * bound.h - THE bound classification (compute / memory / latency), shared by
 * `counters` and `report`, and the "already optimal" (roof) check.
 *
 * One idea: every input is optional (an fp_optnum with a `have` flag), and the
 * decision is an ordered table of rules (src/analysis/bound.c); the first rule
 * whose inputs are present and whose condition holds decides, and its id, basis,
 * confidence and a sentence with the numbers are returned as the evidence.
 * Counter rules (measured saturation) come before trace rules (stall shares),
 * and when any trace input is present the answer is never "unknown".
 *
 * Units: every *_pct / *_share input is a percentage in [0, 100]; over_fetch,
 * ai and ridge_ai are plain ratios (FLOP/byte for ai and ridge_ai).
 * See docs/bound.md for the rule table with its thresholds.
 */
#ifndef FLYPROF_BOUND_H
#define FLYPROF_BOUND_H

#include <stdbool.h>
#include <stddef.h>

/* An optional number: `have` false means "not measured" (never read v then). */
typedef struct fp_optnum {
    bool have;
    double v;
} fp_optnum;

static inline fp_optnum fp_some(double v)
{
    fp_optnum o = {true, v};
    return o;
}

typedef enum fp_bound {
    FP_BOUND_UNKNOWN = 0, /* only when no input at all is present */
    FP_BOUND_COMPUTE,
    FP_BOUND_MEMORY,
    FP_BOUND_LATENCY,
    FP_BOUND_PARALLELISM, /* the launch cannot fill the machine (fewer workgroups than CUs) */
} fp_bound;

typedef struct fp_bound_in {
    /* ---- from the ATT trace (bubbles), percentages ---- */
    fp_optnum stall_pct;        /* stalled share of wave cycles */
    fp_optnum vmem_stall_share; /* % of stall cycles on global memory: vmcnt waits + vmem load/store issue */
    fp_optnum lds_stall_share;  /* % of stall cycles on LDS: lgkmcnt waits + ds issue */
    fp_optnum mfma_stall_share; /* % of stall cycles on MFMA dependencies / pipe busy */
    fp_optnum mfma_inst_pct;    /* % of executed instructions that are MFMA (inst mix) */
    /* ---- from hardware counters ---- */
    fp_optnum hbm_pct_of_peak;  /* achieved fabric/HBM bandwidth as % of the SoC peak */
    fp_optnum mfma_util_pct;    /* SQ_VALU_MFMA_BUSY_CYCLES utilisation */
    fp_optnum valu_util_pct;    /* SQ_ACTIVE_INST_VALU utilisation */
    fp_optnum l2_hit_pct;       /* TCC hit rate (used only for the optimal check's evidence) */
    fp_optnum partial_32b_pct;  /* % of fabric read requests that are 32 B */
    fp_optnum over_fetch;       /* fetched bytes / ideal bytes */
    /* ---- from the launch model (kernel_trace.csv grid, SoC CUs) ---- */
    fp_optnum underfilled;      /* 1 when workgroups < CUs, 0 otherwise */
    fp_optnum fill_pct;         /* % of CUs given a workgroup */
    fp_optnum workgroups, cus;
    /* ---- speed of light from the trace (sol.h) ---- */
    fp_optnum hbm_trace_pct;    /* requested vector-memory bytes / time / peak HBM: an upper bound */
    fp_optnum hbm_unique_pct;   /* unique bytes (each address once per dispatch) / time / peak: what must cross HBM */
    fp_optnum vmem_issue_pct;   /* traced vector-memory bytes / (CU cycles x the CU's vector-memory rate) */
    fp_optnum simd_fill_pct;    /* % of the machine's SIMDs the launch gives a wave */
    fp_optnum hbm_ceiling_pct;  /* the arch's practical HBM ceiling, % of peak (fp_bound_hbm_ceiling) */
    fp_optnum mfma_busy_trace_pct; /* MFMA pipe cycles / traced SIMD cycles */
    fp_optnum valu_busy_trace_pct; /* VALU cycles / traced SIMD cycles */
    /* ---- from the shape (tile / roofline) ---- */
    fp_optnum ai;               /* arithmetic intensity, FLOP per HBM byte */
    fp_optnum ridge_ai;         /* peak FLOP/s / peak bytes/s for the dtype */
} fp_bound_in;

#define FP_BOUND_EVIDENCE_MAX 320

typedef struct fp_bound_result {
    fp_bound bound;
    const char *rule;       /* id of the rule that decided ("none" when unknown); static string */
    const char *basis;      /* "counters" | "trace" | "shape" | "none"; static string */
    const char *confidence; /* "high" | "medium" | "low"; static string */
    char evidence[FP_BOUND_EVIDENCE_MAX]; /* one sentence with the numbers that decided */
    /* the roof check: optimal == true means "no kernel-side change left at this level" */
    bool optimal;
    const char *optimal_rule; /* NULL when not optimal */
    char optimal_evidence[FP_BOUND_EVIDENCE_MAX];
    /* with bound == PARALLELISM: what bounds the work inside each busy CU (the
     * next rule of the table that holds); otherwise == bound. Rules gate on it. */
    fp_bound within;
    const char *within_rule;
    /* the roof verdict: a memory-bound kernel at >= 60 % of peak HBM (counters, or
     * the trace estimate when it is physically possible, <= 110 %) */
    bool at_roof;
    double roof_pct;           /* % of peak HBM the verdict used */
    const char *roof_source;   /* "counters" | "trace" | NULL */
    double ceiling_pct;        /* the practical HBM ceiling used, % of peak: gains at the roof stop there */
} fp_bound_result;

/* The rule table, for docs/bound.md (tested against it) and `flyprof rules`. */
typedef struct fp_bound_rule_info {
    const char *id;
    fp_bound bound;
    const char *basis;
    const char *confidence;
    const char *condition; /* the condition as docs/bound.md states it */
} fp_bound_rule_info;
const fp_bound_rule_info *fp_bound_rules(size_t *n);

/* The practical HBM ceiling of an arch, % of theoretical peak, and where the figure
 * comes from (docs/bound.md); the default row for an unknown arch (never NULL). */
typedef struct fp_hbm_ceiling {
    const char *arch;
    double pct;
    const char *source;
} fp_hbm_ceiling;
const fp_hbm_ceiling *fp_bound_hbm_ceiling(const char *arch);
const fp_hbm_ceiling *fp_bound_hbm_ceilings(size_t *n);

/* Zero every input (all `have` false). */
void fp_bound_in_init(fp_bound_in *in);

/* Classify. Never fails; out is fully written. */
void fp_bound_classify(const fp_bound_in *in, fp_bound_result *out);

/* "compute" | "memory" | "latency" | "parallelism" | "unknown". */
const char *fp_bound_name(fp_bound b);

/* The "bound" object of report.json / counters.json / tile.json as its struct
 * (report_doc.h fp_report_bound; out is overwritten: strings are new copies). */
struct fp_report_bound;
void fp_bound_to_doc(const fp_bound_result *r, struct fp_report_bound *out);


#endif
