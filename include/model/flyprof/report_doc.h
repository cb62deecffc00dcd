/*
 * report_doc.h - report.json and headlines.json as C structs (the typed model, model.h).
 *
 * report.json is what `flyprof report` writes and what every rendering (REPORT.md,
 * report.html, the -f table text, headlines.json), `diff`, `history` and `check` read:
 * fp_report_doc is that document, fp_report_schema its one table (src/model/report_doc.c,
 * the only place a key of report.json is spelled). Conventions (model.h): strings are
 * owned `char *` (NULL = null), optional numbers fp_optd, lists pointer + count, a
 * nested object that may be null a pointer (NULL = null).
 *
 * Units: cycles are shader-clock cycles summed over the traced waves; "pct" fields are
 * percent (0..100), "frac"/"mix"/"util" fields fractions (0..1); gains are upper bounds
 * in % of kernel time. Decimals written are those of the table (e.g. pct 2, cycles 0).
 */
#ifndef FLYPROF_REPORT_DOC_H
#define FLYPROF_REPORT_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/model.h"
#include "flyprof/trace_facts_doc.h"

/* report.json "schema" */
#define FP_REPORT_DOC_SCHEMA 1

/* "dispatch": which ATT dispatch was analysed. */
typedef struct fp_report_dispatch {
    char *name; /* base name of the dispatch dir (ui_output_agent_*_dispatch_*) */
    char *tag;  /* capture tag analysed, or NULL */
} fp_report_dispatch;

/* "bound": the one bound decision (bound.h fp_bound_result). */
typedef struct fp_report_bound {
    char *bound;            /* "compute" | "memory" | "latency" | "parallelism" | "unknown" */
    char *rule;             /* the rule that decided it (e.g. "trace_vmem"), or NULL */
    char *basis;            /* "counters" | "trace" | ... */
    char *confidence;       /* "high" | "medium" | "low" */
    char *evidence;         /* the sentence that decided it */
    bool optimal;           /* at its roof: no change recommended */
    char *optimal_rule;     /* the roof rule, or NULL */
    char *optimal_evidence; /* written only when optimal (else NULL) */
    char *within;           /* the bound within the launch (a parallelism bound's inner bound) */
    char *within_rule;
    bool at_roof;           /* memory-bound at the HBM roof */
    fp_optd roof_pct_of_peak; /* % of peak HBM when at_roof, else null */
    char *roof_source;      /* "counters" | "trace", or NULL */
} fp_report_bound;

/* "launch": the launch model (launch.h); the whole object is null when unknown. */
typedef struct fp_report_launch {
    double workgroups;
    int wg_waves;                 /* waves per workgroup */
    double grid_waves;            /* waves the dispatch launches */
    fp_optd cus;                  /* CUs of the product (null = unknown) */
    fp_optd resident_wgs_per_cu;
    fp_optd concurrent_wgs;
    fp_optd rounds;
    fp_optd fill_pct;             /* % of CUs given a workgroup */
    fp_optd tail_efficiency_pct;  /* last-round efficiency, % */
    fp_optb underfilled;          /* null when the CU count is unknown */
    fp_optd grid_waves_per_cu;
    char *text;                   /* fp_launch_sentence */
    /* issue 23 (trace_facts_doc.h; keys optional for older documents) */
    char *source;                 /* "csv" | "trace": where workgroups / waves come from */
    fp_optd simds;                /* SIMDs of the product */
    fp_optd simd_fill_pct;        /* % of SIMDs given a wave (grid waves spread over SIMDs) */
    fp_optd waves_per_simd_limit; /* the occupancy model's resident waves per SIMD */
    fp_optd resident_waves_per_simd; /* what the launch puts on a busy SIMD: min(limit, ceil(grid waves / SIMDs)) */
    fp_rl_trace *trace;           /* null without occupancy.json */
    fp_rl_csv *csv;               /* null without kernel_trace.csv rows of this kernel */
    char **warnings;              /* the CSV disagrees with the trace, ... */
    size_t nwarnings;
} fp_report_launch;

/* "sol": speed of light (sol.h); null when not computed. Numbers as computed (no rounding). */
typedef struct fp_report_sol_hbm_trace {
    fp_optd bytes_per_dispatch, gbs, pct_of_peak;
    double load_bytes_traced, store_bytes_traced; /* bytes requested by the traced waves */
    /* issue 23 item 4 (facts-stall): bytes_per_dispatch / gbs / pct_of_peak above are the
     * REQUESTED bytes (every re-read counted: the upper bound); unique_* count a load whose
     * address does not depend on the workgroup id once (one workgroup's worth, dataflow.h) */
    fp_optd unique_bytes_per_dispatch, unique_gbs, unique_pct_of_peak; /* unique_pct clamped to 100 */
    double shared_load_bytes_traced;  /* bytes of such shared loads over the traced waves */
    double shared_load_instructions;  /* executed load instructions classified shared */
} fp_report_sol_hbm_trace;

typedef struct fp_report_sol_hbm_counters {
    fp_optd gbs, pct_of_peak;
} fp_report_sol_hbm_counters;

typedef struct fp_report_sol_hbm {
    fp_optd bytes_per_dispatch; /* of the chosen source */
    fp_optd gbs;                /* GB/s */
    fp_optd pct_of_peak;        /* % of peak_gbs */
    char *source;               /* "trace" | "counters" | NULL */
    fp_optd peak_gbs;           /* the agent's peak HBM GB/s: the product's, scaled for a partition (null = unknown) */
    char *peak_source;          /* why peak_gbs is not the product's figure (a partition's NPS mode), else omitted */
    fp_report_sol_hbm_trace trace;
    fp_report_sol_hbm_counters counters;
    char *caveat;               /* what the trace bytes are */
    bool clamped;               /* issue 23 (facts-stall): the trace figure exceeded 100 % of peak and
                                 * pct_of_peak says 100 (the bytes are cache traffic) */
} fp_report_sol_hbm;

typedef struct fp_report_sol_mfma {
    fp_optd busy_pct;           /* % of traced SIMD time (chosen source) */
    char *source;
    fp_optd trace_busy_pct, counters_util_pct;
    double flop_traced;
    double unknown_opcode_executions; /* MFMA executions whose cycles are unknown */
    /* issue 23 item 3 (facts-stall): the opcode cost table (opcost.h) */
    double cycles_traced;             /* matrix-pipe issue cycles summed over the traced waves */
    double rate_model_executions;     /* MFMA executions with no table row: FLOP / dense rate */
} fp_report_sol_mfma;

typedef struct fp_report_sol_valu {
    fp_optd busy_pct;
    char *source;
    fp_optd trace_busy_pct, counters_util_pct;
    /* issue 23 item 3 (facts-stall): VALU issue cycles from the opcode cost table */
    double cycles_traced;             /* VALU issue cycles summed over the traced waves */
    double slow_executions;           /* executions costing more than 4 cycles (transcendentals) */
} fp_report_sol_valu;

typedef struct fp_report_sol_lds {
    double bytes;               /* LDS bytes traced */
    fp_optd pct_of_peak;
} fp_report_sol_lds;

typedef struct fp_report_sol {
    fp_report_sol_hbm hbm;
    fp_report_sol_mfma mfma;
    fp_report_sol_valu valu;
    fp_report_sol_lds lds;
} fp_report_sol;

/* "drain": s_endpgm (outstanding stores at exit). */
typedef struct fp_report_drain {
    fp_optd cycles;          /* latency of s_endpgm over the traced waves */
    fp_optd pct_of_latency;  /* % of total latency */
    double stall;            /* stall of the "drain" class, cycles */
    /* issue 23 item 2 (facts-stall): the drain wait itself, s_endpgm's [time+stall,
     * time+duration) summed over the traced waves (bubbles totals.drain_*), cycles */
    double wait;             /* the drain's cycles */
    double exposed;          /* ... no other wave of the SIMD had an instruction in flight */
    double hidden;           /* wait - exposed */
    double lost;             /* ... no wave at all had one (once per SIMD cycle) */
} fp_report_drain;

/* "totals": of the traced waves. */
typedef struct fp_report_totals {
    int64_t instructions;    /* executed instruction records */
    int64_t latency;         /* cycles */
    int64_t stall;           /* cycles */
    double stall_pct;        /* % of latency */
    fp_optd waves;           /* traced waves */
    double exposed;          /* stall not hidden by other waves, cycles */
    double exposed_pct;      /* % of stall */
    char *hidden_by;         /* issue 23 (facts-stall): "issue_windows" (docs/exposed-stall.md); null = older */
} fp_report_totals;

/* "classes[]": stall classes with stall > 0, by rank. */
typedef struct fp_report_class {
    char *cls;               /* "class": taxonomy class name */
    int rank;
    int64_t cycles;          /* stall cycles */
    double pct;              /* % of total stall */
    bool is_bubble;          /* waiting, not working */
    fp_optd exposed;         /* exposed stall cycles */
    fp_optd gain_upper_pct;  /* kernel gain if hidden, % (upper bound) */
    fp_optd mix;             /* hit-weighted fraction of executed instructions */
} fp_report_class;

/* "occupancy": the 512-entry pool model (occupancy.h); null when no register counts. */
typedef struct fp_report_occupancy {
    fp_optd waves_per_cu, waves_per_simd;
    char *limiter;           /* "VGPR", "LDS", ... */
    fp_optd next_waves_per_cu; /* the next occupancy step */
    fp_optd vgprs_to_free;   /* registers to free to reach it */
    fp_optd arch_vgpr, accum_vgpr;
    fp_optd lds_bytes;       /* per workgroup */
    fp_optd sgpr, wg_size;
    fp_optd scratch_bytes;   /* per work-item */
    char *source;            /* where the register counts came from */
    char *model;             /* which occupancy model */
} fp_report_occupancy;

/* "counters": from counters.json; null when there is none. Keys in table order are also
 * what REPORT.md section 8 lists (fp_report_counters_each). */
typedef struct fp_report_counters {
    fp_optd l2_hit_pct;            /* % */
    fp_optd partial_32b_frac;      /* 0..1 of HBM requests */
    fp_optd lds_bank_conflict_pct; /* % */
    fp_optd mfma_util;             /* 0..1 */
    fp_optd achieved_hbm_gbs;      /* GB/s */
    fp_optd peak_hbm_gbs;          /* GB/s */
    fp_optd pct_of_hbm_roof;       /* % */
} fp_report_counters;

/* "workload": from capture.json / tile.json / kernel_trace.csv. */
typedef struct fp_report_workload {
    char *shape;
    char *invocation;
    char *tile;               /* "BM=.. BN=.. BK=.." when known */
    fp_optd time_ns_per_call; /* average ns per dispatch */
} fp_report_workload;

/* A producer an evidence wait waits on (recommendations[].evidence.hottest.waits_on[]). */
typedef struct fp_report_producer {
    int64_t code_line;
    char *inst;
    char *source;             /* NULL when unmapped */
    char *cls;                /* "class": taxonomy class of the producer, or NULL */
    fp_optd load_to_use_cycles; /* mean cycles from issue to the wait's release */
    fp_optd share;            /* fraction of the wait's stall (absent when unknown) */
} fp_report_producer;

/* recommendations[].evidence.hottest: the instruction the rule points at. */
typedef struct fp_report_hottest {
    int64_t code_line;
    char *inst;
    char *source;             /* NULL when unmapped */
    char *snippet;            /* the source line's text, or NULL */
    int64_t hit;
    int64_t stall;
    bool entry_line;          /* a kernel entry/decorator line */
    fp_optd exposed;
    char *explicit_line;      /* on an entry line: the next line with explicit ops (a producer's), or NULL */
    fp_report_producer *waits_on;
    size_t nwaits_on;
} fp_report_hottest;

typedef struct fp_report_ev_launch {
    double workgroups, cus, fill_pct, wg_waves;
    fp_optd simd_fill_pct, rounds, slots, tail_efficiency_pct; /* slots = resident workgroups (concurrent) */
} fp_report_ev_launch;

typedef struct fp_report_ev_roof {
    double hbm_pct_of_peak;
    char *source;
    double gain_cap_pct;      /* 100 - hbm_pct_of_peak */
} fp_report_ev_roof;

/* Each member absent when unknown. */
typedef struct fp_report_ev_occupancy {
    fp_optd waves_per_cu, next_waves_per_cu, vgprs_to_free, arch_vgpr, accum_vgpr;
    char *limiter;            /* always written */
} fp_report_ev_occupancy;

/* evidence.imbalance (work_imbalance): the critical CU's busy time against the mean CU's. */
typedef struct fp_report_ev_imbalance {
    double excess_pct;        /* 100 x (1 - mean / critical CU busy cycles) */
    double critical_cycles, mean_cycles, median_cycles, p90_cycles; /* CU busy cycles */
    int64_t se, cu, waves;    /* the critical CU and the waves it ran */
    double longest_wave_cycles; /* the single longest wave (context: not the kernel's time when waves share a CU) */
    int64_t heavy_waves, heavy_cus;
    char *unit;               /* "cu_busy": the union of a CU's wave residencies */
} fp_report_ev_imbalance;

/* recommendations[].evidence: the optional parts (launch, roof, occupancy, selection)
 * are absent (not null) when they do not apply. */
typedef struct fp_report_rec_evidence {
    char *signal;             /* the signal that fired (rules' signal names) */
    double value;
    char *fired_because;
    double class_stall_pct;
    fp_optd exposed_stall;
    fp_optd class_gain_pct;
    fp_report_ev_launch *launch;       /* fill rules only */
    fp_report_ev_roof *roof;           /* when at the HBM roof */
    fp_report_ev_occupancy *occupancy; /* occupancy rules only */
    fp_report_ev_imbalance *imbalance; /* work_imbalance only */
    char *selection;                   /* rules that select by producer kind */
    fp_report_hottest *hottest;        /* null when no instruction */
} fp_report_rec_evidence;

/* recommendations[].acceptance: the test `diff` checks. Which keys exist depends on
 * `kind`: class_exposed_drop {class, metric, before, drop_pct, target}, line_stall_drop
 * {class, source, inst, before, drop_pct, target}, signal_below / signal_above {signal,
 * before, target}. before / target are stored already rounded (0 decimals for the drop
 * kinds, 4 for the signal kinds) and written as they are. */
typedef struct fp_report_acceptance {
    char *kind;
    char *cls;                /* "class" */
    char *metric;             /* "exposed" | "stall" */
    char *source;
    char *inst;
    char *signal;
    double before;
    fp_optd drop_pct;         /* % */
    double target;
    char *text;
} fp_report_acceptance;

typedef struct fp_report_rec {
    int rank;
    char *rule;
    char *bubble_class;
    fp_optd est_gain_pct;     /* upper bound, % of kernel time; null when the trace is not representative */
    double confidence;        /* 0..1 */
    char *confidence_label;
    double priority;
    char *priority_label;     /* "HIGH" | "MED" | "LOW": gain x confidence, capped by the confidence label */
    char *gain_model;         /* how est_gain_pct was estimated */
    char *knob, *api, *change, *expected;
    fp_report_rec_evidence evidence;
    fp_report_acceptance acceptance;
} fp_report_rec;

/* "hot_lines[]": the hottest source lines (at most FP_REPORT_HOT_LINES). */
typedef struct fp_report_hot_line {
    char *source;
    double stall, pct, exposed, gain_upper_pct;
    char *dom_class;
    char *text;               /* the line's text, or NULL */
    bool entry_line;
} fp_report_hot_line;

/* evidence_hotspots[].waits_on[] */
typedef struct fp_report_hs_producer {
    double code_line;
    char *inst;
    char *source;
    fp_optd load_to_use_cycles;
} fp_report_hs_producer;

/* "evidence_hotspots[]": the hottest instructions (at most FP_REPORT_EVIDENCE_HOTSPOTS). */
typedef struct fp_report_hotspot {
    double code_line;
    char *addr, *inst, *cls, *source;
    double stall, exposed, gain_upper_pct;
    fp_report_hs_producer *waits_on;
    size_t nwaits_on;
} fp_report_hotspot;

/* evidence.missing[] (also the report envelope's missing_evidence[]) */
typedef struct fp_report_missing {
    char *artifact;           /* "capture.json", "kernel_trace.csv", ... */
    char *effect;             /* what the report lacks without it */
} fp_report_missing;

typedef struct fp_report_evidence {
    char **available;         /* artifacts used */
    size_t navailable;
    fp_report_missing *missing;
    size_t nmissing;
} fp_report_evidence;

/* "capture_quality.debug_info": the debug-info quality gate (issue 17, seed pattern 5). */
typedef struct fp_report_debug_info {
    bool fired;                    /* more than threshold_pct of instructions or stall on `line` */
    char *line;                    /* the kernel entry/decorator line holding the most instructions */
    double instructions_pct, stall_pct, threshold_pct;
    char *fix;                     /* how to fix the mapping (written when fired) */
} fp_report_debug_info;

/* "capture_quality" */
typedef struct fp_report_quality {
    char *confidence;              /* bubbles quality confidence, "unknown" when none */
    double confidence_multiplier;  /* applied to every recommendation's confidence */
    fp_optd src_mapped_pct;        /* % of latency with a source line (map.json) */
    char **reasons;
    size_t nreasons;
    bool representative;
    fp_optd coverage_pct;
    int64_t static_instructions, executed_instructions;
    bool has_loop;
    fp_optb loop_executed;
    fp_optd traced_waves, launched_waves;
    fp_optd traced_pct_of_launched;
    char **representative_reasons;
    size_t nrepresentative_reasons;
    char *recapture;               /* written only when not representative */
    fp_rq_loop *loops;             /* issue 23 item 6: the back-edges and their kinds */
    size_t nloops;
    fp_report_debug_info *debug_info; /* NULL = null: the listing has no entry line */
} fp_report_quality;

/* "lines[]": every source line with its stall (what diff matches). */
typedef struct fp_report_line {
    char *source;
    double stall, exposed, pct;
    char *dom_class;
} fp_report_line;

/* "instructions[]": every executed instruction in code order. */
typedef struct fp_report_inst {
    int64_t code_line;
    char *inst;
    char *cls;                /* "class" */
    char *source;
    int64_t hit, stall;
    double exposed;
} fp_report_inst;

/* ---- diff's inputs (issue 17 item 6): the identity of the code and the work the
 * traced waves did, so that `diff` can say "code unchanged" and normalise per unit
 * of work with a noise floor from the trace's own wave-to-wave spread. Both objects
 * are null in a report that was not built from a dispatch dir (and absent from
 * reports written before them: FP_F_OPTIONAL). */

/* "isa": the code itself, independent of its source mapping and of what ran. */
typedef struct fp_report_isa {
    char *sha256;          /* SHA-256 of the instruction texts in code order, each + '\n' */
    char *opcodes_sha256;  /* the same over the opcodes alone: equal when only operands changed */
    int64_t instructions;  /* static instructions (code.json rows with LineNumber > 0) */
    double *block_starts;  /* code lines that start a basic block, ascending (integers) */
    size_t nblock_starts;
} fp_report_isa;

/* A per-wave figure over the traced waves: n, mean, sample sd (0 when n < 2), min, max. */
typedef struct fp_report_stat {
    int64_t n;
    double mean, sd, min, max;
} fp_report_stat;

/* "work.main_loop": the loop with the most latency (a back-edge whose body ran more than once). */
typedef struct fp_report_loop {
    int64_t head;             /* code line of the first body instruction (the branch target) */
    int64_t back_edge;        /* code line of the backward branch */
    char *source;             /* the back-edge's source line, or NULL */
    int64_t iterations;       /* back-edge executions over the traced waves (code.json Hit) */
    fp_report_stat iterations_per_wave;
    fp_report_stat cycles_per_iteration; /* per wave: first body issue -> last body end, / its iterations */
} fp_report_loop;

/* also_seen[]: a rule that fired but whose best case is below the noise floor a
 * re-capture can confirm (FP_RULES_MIN_GAIN_PCT): stated, never ranked. */
typedef struct fp_report_note {
    char *rule, *bubble_class;
    fp_optd est_gain_pct;     /* null when the trace is not representative */
    double confidence;
    char *reason;
} fp_report_note;

/* "work": per-wave figures from the wave files. */
typedef struct fp_report_work {
    char *source;                 /* "wave files" */
    fp_report_stat wave_cycles;   /* end - begin of each traced wave */
    fp_report_loop *main_loop;    /* NULL = null: no loop iterated */
    fp_model_kv *share_sd;        /* per class: sample sd over waves of its share of the wave's stall, points */
    size_t nshare_sd;
} fp_report_work;

typedef struct fp_report_doc {
    int schema;               /* FP_REPORT_DOC_SCHEMA */
    char *kernel, *recipe_kernel, *arch, *product;
    fp_report_dispatch dispatch;
    char *bound_type;
    fp_report_bound bound;
    fp_report_launch *launch; /* NULL = null (launch not modelled) */
    char *launch_reason;      /* why, when launch is null */
    fp_report_time *time;     /* issue 23: the duration and its source (NULL = null) */
    fp_workdist *workdist;    /* issue 23: bubbles.json's workdist (NULL = null) */
    fp_report_sol *sol;       /* NULL = null */
    fp_report_drain drain;
    char **summary;           /* plain-number lines every rendering shows first */
    size_t nsummary;
    bool optimal;
    char *headline;
    fp_report_totals totals;
    fp_report_class *classes;
    size_t nclasses;
    fp_report_occupancy *occupancy; /* NULL = null */
    fp_report_counters *counters;   /* NULL = null */
    fp_report_workload workload;
    fp_named_optd *signals;   /* every signal kind by its name (rules.h), null when unknown */
    size_t nsignals;
    fp_report_rec *recs;      /* "recommendations" */
    size_t nrecs;
    fp_report_note *also_seen; /* rules that fired with a gain below the noise floor: not ranked */
    size_t nalso_seen;
    fp_report_hot_line *hot_lines;
    size_t nhot_lines;
    fp_report_hotspot *evidence_hotspots;
    size_t nevidence_hotspots;
    fp_report_evidence evidence;
    fp_report_quality capture_quality;
    char *repro;
    fp_report_isa *isa;       /* diff's inputs (above); NULL = null */
    fp_report_work *work;
    fp_report_line *lines;
    size_t nlines;
    fp_report_inst *instructions;
    size_t ninstructions;
} fp_report_doc;

/* headlines.json: the one-screen summary of a report. */
typedef struct fp_headlines_launch {
    fp_optd fill_pct;
    fp_optb underfilled;
} fp_headlines_launch;

typedef struct fp_headlines_sol {
    fp_optd hbm_pct_of_peak, mfma_busy_pct;
} fp_headlines_sol;

typedef struct fp_headlines_doc {
    char *kernel, *arch, *product, *bound_type, *headline;
    bool optimal;
    char **summary;
    size_t nsummary;
    fp_headlines_launch launch;
    fp_headlines_sol sol;
    bool representative;
    fp_report_rec *top_recommendation; /* NULL = null (no rule fired) */
} fp_headlines_doc;

/* The `report` command's envelope data: a view of the report. */
typedef struct fp_report_brief_rec {
    int rank;
    char *rule, *bubble_class;
    fp_optd est_gain_pct;     /* null when the trace is not representative */
    char *confidence_label, *knob;
    char *source;             /* the hottest instruction's source line, or NULL */
    char *acceptance;         /* the acceptance test's text */
} fp_report_brief_rec;

/* The files written (absolute paths), absent when not written. */
typedef struct fp_report_artifacts {
    char *report_json, *headlines_json, *report_md, *report_html;
} fp_report_artifacts;

typedef struct fp_report_envelope {
    char *kernel, *arch, *product, *bound_type, *headline;
    bool optimal;
    char **summary;
    size_t nsummary;
    fp_report_brief_rec *recs; /* "recommendations" */
    size_t nrecs;
    fp_report_missing *missing_evidence;
    size_t nmissing_evidence;
    fp_report_artifacts artifacts;
} fp_report_envelope;

extern const fp_schema fp_report_schema;
extern const fp_schema fp_report_bound_schema; /* also counters.json / tile.json "bound" */
extern const fp_schema fp_report_rec_schema;
extern const fp_schema fp_report_counters_schema;
extern const fp_schema fp_report_evidence_schema;
extern const fp_schema fp_headlines_schema;
extern const fp_schema fp_report_envelope_schema;
extern const fp_schema fp_report_artifacts_schema;

/* Typed entry points (model.h semantics: the strict reader, the one writer). */
int fp_report_read_file(const char *path, fp_report_doc *doc, fp_err *err);
int fp_report_write_file(const fp_report_doc *doc, const char *path, fp_err *err);
void fp_report_doc_free(fp_report_doc *doc);
int fp_headlines_write_file(const fp_headlines_doc *doc, const char *path, fp_err *err);
void fp_headlines_doc_free(fp_headlines_doc *doc);

/* The value of the signal `name` in doc->signals: true and *v when known. */
bool fp_report_signal(const fp_report_doc *doc, const char *name, double *v);

/* Each "counters" member in table order: its key and value (REPORT.md lists them). */
void fp_report_counters_each(const fp_report_counters *c, void (*fn)(const char *key, fp_optd v, void *user),
                             void *user);

#endif
