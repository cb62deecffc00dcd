/*
 * trace_facts_doc.h - the traced dispatch's own facts (issue 23 items 1, 5, 8) as
 * typed blocks of bubbles.json: `launch_trace` (what occupancy.json, the wave files
 * and realtime.json say the dispatch was: waves, workgroups, SIMDs used, wave span
 * and its time) and `workdist` (how the work was spread over waves and CUs: quantiles,
 * the critical wave, imbalance). The tables are src/model/trace_facts_doc.c (the only
 * place these keys are spelled); docs/commands/bubbles.md and docs/launch.md describe
 * them. Filled by src/analysis/workdist.c.
 *
 * Units: cycles are shader-clock cycles of the SE they were measured on; *_ns are
 * nanoseconds on realtime.json's reference clock; quantiles are nearest-rank
 * (p-th = the smallest value with at least p % of the values <= it).
 */
#ifndef FLYPROF_TRACE_FACTS_DOC_H
#define FLYPROF_TRACE_FACTS_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/model.h"

/* One traced SE in occupancy.json. */
typedef struct fp_lt_se {
    int64_t se;
    int64_t waves;           /* wave starts on every CU of the SE */
    int64_t cus, simds;      /* CUs / SIMDs of the SE that ran a wave */
    int64_t t0, t1;          /* first start, last end (cycles of this SE) */
    fp_optd clock_mhz;       /* its shader clock from realtime.json, null without */
} fp_lt_se;

/* "launch_trace": the dispatch as the trace records it (the SEs it traced). */
typedef struct fp_launch_trace {
    int64_t traced_ses;      /* SEs with an occupancy.json array */
    int64_t waves;           /* wave starts over them (every CU of a traced SE) */
    int64_t cus, simds;      /* (SE, CU) / (SE, CU, SIMD) that ran a wave */
    int64_t max_cus_per_se;  /* most CUs with a wave in one SE: 1 = the file may hold the target CU only */
    bool covers_ses;         /* max_cus_per_se > 1: occupancy.json covers whole SEs (real rocprofv3 output) */
    fp_optd wg_waves;        /* waves per workgroup: the most common size of a burst of wave starts on one CU */
    int64_t peak_waves_per_simd, peak_waves_per_cu; /* most waves resident at once */
    int64_t span_cycles;     /* longest SE: last wave end - first wave start */
    fp_optd span_ns;         /* first start .. last end over every SE on the reference clock */
    fp_optd clock_mhz;       /* mean shader clock of the traced SEs (realtime.json) */
    char *clock_source;      /* "realtime.json" or null (then the agent's clock applies) */
    int64_t wave_files, wave_files_span_cycles; /* traced waves (wave files): count, first begin..last end */
    fp_lt_se *per_se;
    size_t n_per_se;
} fp_launch_trace;

/* Nearest-rank quantiles of one figure. */
typedef struct fp_wd_quant {
    int64_t n;
    double min, p50, p90, max;
} fp_wd_quant;

/* A wave the distribution points at. */
typedef struct fp_wd_wave_ref {
    int64_t se, cu, simd, slot;
    int64_t begin, cycles;   /* start and duration (cycles) */
    char *file;              /* its wave file, null when the wave was not traced in detail */
    fp_optd instructions;    /* instruction records of that file */
    fp_optd iterations;      /* main-loop iterations (header executions), null without a main loop */
} fp_wd_wave_ref;

/* The CU that was resident longest (the critical CU). */
typedef struct fp_wd_cu_ref {
    int64_t se, cu;
    int64_t busy_cycles; /* the union of its waves' residencies */
    int64_t waves;       /* waves it ran */
} fp_wd_cu_ref;

/* "workdist": per-wave and per-CU work (issue 23 item 8). */
typedef struct fp_workdist {
    fp_wd_quant wave_cycles;  /* every wave of the traced SEs (occupancy.json start..end) */
    fp_wd_quant cu_cycles;    /* per CU: the sum of its waves' durations (wave-cycles) */
    fp_wd_quant cu_waves;     /* per CU: waves it ran */
    fp_optd wave_imbalance;   /* max / median of wave_cycles */
    fp_optd cu_imbalance;     /* max / median of cu_cycles */
    /* per CU: the time it held at least one wave (the union of its waves' residencies, so
     * resident waves overlap once): the kernel ends when the busiest CU does */
    fp_wd_quant cu_busy_cycles;
    fp_optd cu_busy_mean;        /* mean over the CUs that ran a wave */
    fp_optd cu_busy_excess_pct;  /* 100 x (1 - mean / max): the critical CU's time above the mean CU's */
    fp_wd_cu_ref critical_cu;    /* the CU with the largest busy time (ties: first in SE, CU order) */
    int64_t heavy_waves;      /* waves longer than FP_WD_HEAVY x the median */
    int64_t heavy_cus;        /* CUs those ran on */
    fp_wd_wave_ref critical;  /* the longest wave (ties: first in SE, CU, SIMD, slot, start order) */
    /* the waves traced in detail (wave files, the target CU): work */
    fp_wd_quant traced_cycles, traced_instructions;
    fp_wd_quant *traced_iterations; /* null without a main loop */
    fp_optd traced_imbalance;  /* max / median of traced_cycles */
    fp_wd_wave_ref critical_traced; /* the longest traced wave */
} fp_workdist;

/* A wave is heavy beyond this multiple of the median wave duration. */
#define FP_WD_HEAVY 2.0

/* ---- report.json (issue 23): the launch's sources and the time ---- */

/* report.launch.trace: the dispatch as the trace records it, scaled to the agent. */
typedef struct fp_rl_trace {
    int64_t traced_ses;       /* SEs in occupancy.json */
    fp_optd agent_ses;        /* SEs of the product (SoC table), null unknown */
    char *unit;               /* "xcd" (the traced SEs are whole XCDs) | "se" | null (not scaled) */
    int64_t traced_units;
    fp_optd agent_units;
    int64_t waves;            /* wave starts on the traced SEs */
    fp_optd waves_agent;      /* waves x agent_units / traced_units */
    fp_optd wg_waves;         /* waves per workgroup (the CSV row's when it matched, else the trace's bursts) */
    fp_optd workgroups;       /* waves_agent / wg_waves */
    fp_optd workgroups_min, workgroups_max; /* what the per-unit counts allow (round-robin dealing) */
    fp_optd simd_fill_pct;    /* SIMDs of the traced SEs that ran a wave, % */
    int64_t peak_waves_per_simd;
    char *text;               /* how it was scaled, said once */
} fp_rl_trace;

/* report.launch.csv.rejected: named rows refused, by the first test failed. */
typedef struct fp_rl_rejected {
    int64_t grid, workgroup, lds, vgpr;
} fp_rl_rejected;

/* report.launch.csv: the kernel_trace.csv rows and what was made of them. */
typedef struct fp_rl_csv {
    int64_t rows_named;       /* rows with the kernel's name */
    int64_t rows_used;        /* of them, the traced dispatch's launch */
    fp_rl_rejected rejected;
    fp_optd workgroups, wg_waves; /* of the used rows (null when none) */
} fp_rl_csv;

/* report.time.trace */
typedef struct fp_rtm_trace {
    int64_t span_cycles;      /* occupancy.json: first wave start .. last wave end (longest SE) */
    fp_optd span_ns;
    fp_optd clock_mhz;
    char *clock_source;       /* "realtime.json" | "agent clock (<product> <MHz> MHz)" | null */
} fp_rtm_trace;

/* report.time.csv */
typedef struct fp_rtm_csv {
    int64_t rows, timed, outliers; /* used rows, with usable timestamps, outside [median/2, 2 median] */
    fp_optd median_ns, min_ns, max_ns, mean_ns;
    char *rows_sha256;        /* content hash of the used rows: equal hashes = the same discovery run */
} fp_rtm_csv;

/* report.time: the dispatch's duration and where it came from. */
typedef struct fp_report_time {
    char *source;             /* "counters" | "csv" | "capture" | "trace" | null (unknown) */
    fp_optd ns;               /* the duration used (sol.hbm, workload.time_ns_per_call) */
    fp_rtm_trace *trace;      /* null without occupancy.json */
    fp_rtm_csv *csv;          /* null without used rows */
    fp_optd counters_ns, capture_ns;
    char **warnings;
    size_t nwarnings;
    char *text;
} fp_report_time;

/* report.capture_quality.loops[]: a back-edge of the listing and what it is (item 6). */
typedef struct fp_rq_loop {
    int64_t code_line;        /* the backward branch */
    int64_t head_line;        /* its target */
    char *kind;               /* "loop" | "loop_not_run" | "spin_wait" | "early_exit" (loops.h) */
    int64_t body;             /* instructions head..branch */
    int64_t taken;            /* times the branch was taken (Hit counts) */
    bool main;                /* the main loop: what representativeness and iterations go by */
} fp_rq_loop;

extern const fp_schema fp_rq_loop_schema;
extern const fp_schema fp_rl_trace_schema;
extern const fp_schema fp_rl_csv_schema;
extern const fp_schema fp_report_time_schema;

extern const fp_schema fp_launch_trace_schema;
extern const fp_schema fp_workdist_schema;

#endif
