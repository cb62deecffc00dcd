/*
 * diff_doc.h - the typed model of diff.json (`flyprof diff`) and of the `check`
 * envelope, which carries the same comparison pieces (noise floor, totals,
 * classes, verdict). The tables are in src/model/diff_doc.c: the only place a
 * key of these documents is spelled. See diff.h for how the figures are computed
 * and docs/commands/diff.md for what they mean.
 *
 * Units: "stall" / "exposed" are cycles (summed over the traced waves),
 * "*_per_wave" the same divided by the side's traced wave count, "pct" a share
 * of total stall in %, deltas are after - before in the same unit (share deltas
 * in percentage points).
 */
#ifndef FLYPROF_DIFF_DOC_H
#define FLYPROF_DIFF_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/model.h"

/* Who one side is: {kernel, arch, dispatch, bound_type, headline} of its report. */
typedef struct fp_diff_who {
    char *kernel;
    char *arch;
    char *dispatch;   /* the report's dispatch.name */
    char *bound_type;
    char *headline;
} fp_diff_who;

/* The floors the verdict and `significant` use (diff.h's FP_DIFF_NOISE_*). */
typedef struct fp_diff_noise_floor {
    double stall_pct_points; /* points of totals.stall_pct, 2 dp */
    double share_points;     /* points of a class / line share, 2 dp */
    double time_pct;         /* % of the duration per call, 2 dp */
    char *source;            /* where the floor was measured */
} fp_diff_noise_floor;

/* before / after / delta of one figure; null where a side lacks it (delta:
 * null unless both sides have it). The decimals depend on the figure: one
 * table per precision (fp_diff_change0/1/2_schema). */
typedef struct fp_diff_change {
    fp_optd before;
    fp_optd after;
    fp_optd delta;
} fp_diff_change;

typedef struct fp_diff_totals {
    fp_diff_change stall_pct;        /* stalled share of latency, %, 2 dp */
    fp_diff_change exposed_pct;      /* exposed share of latency, %, 2 dp */
    fp_diff_change waves;            /* traced waves, 0 dp */
    fp_diff_change latency_per_wave; /* latency cycles / traced waves, 1 dp (never null) */
    fp_diff_change time_ns_per_call; /* measured duration per call, ns, 1 dp */
} fp_diff_totals;

/* One side of a class / line row. */
typedef struct fp_diff_side {
    double stall;            /* cycles (a class's "cycles", a line's "stall"), 0 dp */
    double exposed;          /* exposed cycles, 0 dp */
    double pct;              /* share of total stall, %, 2 dp */
    double stall_per_wave;   /* 1 dp */
    double exposed_per_wave; /* 1 dp */
} fp_diff_side;

typedef struct fp_diff_row_delta {
    double pct;              /* points, 2 dp */
    double stall_per_wave;   /* 1 dp */
    double exposed_per_wave; /* 1 dp */
} fp_diff_row_delta;

/* A row of the class or line union: `key` is written as "class" in classes
 * (fp_diff_class_row_schema) and as "source" in lines (fp_diff_line_row_schema). */
typedef struct fp_diff_row {
    char *key;
    fp_diff_side *before; /* NULL (null): not on that side */
    fp_diff_side *after;
    fp_diff_row_delta delta;
    bool significant; /* outside the noise: |delta.pct| > ci_points (else >= FP_DIFF_NOISE_SHARE_PTS);
                       * never when the code is unchanged (a share then moves with what was sampled) */
    fp_optd ci_points; /* half-width of the 95 % CI of delta.pct from the waves' share spread
                        * (report.json work.share_sd); absent when unknown (and in `check`) */
} fp_diff_row;

typedef struct fp_diff_lines {
    int64_t total; /* rows of the union before the cut to FP_DIFF_MAX_ROWS */
    fp_diff_row *rows;
    size_t nrows;
} fp_diff_lines;

/* One side of a matched instruction. */
typedef struct fp_diff_inst_side {
    double code_line;      /* the instruction's line in the code listing, 0 dp */
    double stall;          /* cycles, 0 dp */
    double exposed;        /* cycles, 0 dp */
    double stall_per_wave; /* 1 dp */
} fp_diff_inst_side;

/* "code": is it the same code? From report.json "isa" of each side. */
typedef struct fp_diff_code {
    char *identity;             /* unchanged | operands_changed | changed | unknown */
    char *sha256_before;        /* isa.sha256, or null */
    char *sha256_after;
    fp_optd instructions_before; /* static instructions, 0 dp */
    fp_optd instructions_after;
    char *why;
} fp_diff_code;

/* One per-work figure compared with its noise: the means over the traced waves,
 * the relative change and its 95 % confidence interval (Welch, from each side's
 * wave-to-wave sd; null when a side has fewer than 2 waves), and what the
 * change is within that noise. */
typedef struct fp_diff_ci {
    fp_optd before, after;      /* means, cycles, 1 dp */
    fp_optd sd_before, sd_after; /* sample sd over the waves, 1 dp */
    int64_t n_before, n_after;  /* waves */
    fp_optd delta_pct;          /* 100 (after - before) / before, 2 dp */
    fp_optd ci_low_pct;         /* 95 % CI of delta_pct, 2 dp */
    fp_optd ci_high_pct;
    char *change;               /* improved | regressed | neutral | inconclusive, null when unknown */
} fp_diff_ci;

/* "work": per-unit-of-work comparison (report.json "work" of each side). */
typedef struct fp_diff_work {
    char *unit;                  /* the verdict's unit when it is one of these: "main-loop iteration" | "wave" | null */
    fp_diff_ci per_wave;         /* cycles per traced wave (end - begin) */
    fp_diff_ci per_iteration;    /* cycles per main-loop iteration */
    fp_diff_change iterations_per_wave; /* mean main-loop iterations per traced wave, 2 dp */
    char *loop_before;           /* "471..1781 (file.py:283)", or null */
    char *loop_after;
    bool time_void;              /* both durations come from the same kernel_trace.csv */
    char *why;                   /* one sentence: what per wave vs per iteration says */
} fp_diff_work;

/* A matched instruction whose stall per wave changed. */
typedef struct fp_diff_inst_change {
    char *source;       /* innermost "file:line" */
    char *opcode;
    int64_t occurrence; /* rank among the same (source, opcode) in code order */
    char *matched_by;   /* which identity matched it (diff.md: source+opcode+block position, ...) */
    char *inst;         /* the before side's instruction text */
    fp_diff_inst_side before;
    fp_diff_inst_side after;
    double delta_stall_per_wave; /* 1 dp */
} fp_diff_inst_change;

typedef struct fp_diff_insts {
    int64_t before; /* instructions of each side */
    int64_t after;
    int64_t matched;
    int64_t matched_by_source;
    int64_t moved; /* matched at another code line */
    int64_t unmatched_before;
    int64_t unmatched_after;
    int64_t changed; /* matched with a stall-per-wave change */
    fp_diff_inst_change *top_changes; /* largest |delta| first, <= FP_DIFF_MAX_ROWS */
    size_t ntop_changes;
} fp_diff_insts;

/* A before recommendation's acceptance test checked against the after report. */
typedef struct fp_diff_acceptance {
    char *rule;
    double rank;    /* 0 dp */
    char *test;     /* the test's text */
    char *kind;     /* class_exposed_drop | line_stall_drop | signal_below | signal_above */
    double before;  /* 2 dp (cycle tests: per traced wave) */
    fp_optd after;  /* 2 dp; null: undecidable */
    double target;  /* 2 dp */
    char *verdict;  /* met | not_met | unknown */
    char *note;     /* why unknown / "per traced wave", or null */
} fp_diff_acceptance;

/* The overall verdict; acceptance_met / _total only in diff.json (check has none). */
typedef struct fp_diff_verdict_doc {
    char *overall; /* improved | regressed | neutral | inconclusive */
    char *basis;   /* time_ns_per_call | cycles_per_iteration | wave_cycles | stall_pct */
    double delta;  /* % of duration / cycles, or points of stall_pct, 2 dp */
    fp_optd ci_low;  /* 95 % CI of delta (cycle bases); absent when unknown (and in `check`) */
    fp_optd ci_high;
    char *why;
    fp_optd acceptance_met;   /* a count; absent when unknown */
    fp_optd acceptance_total;
} fp_diff_verdict_doc;

/* diff.json. `artifact` is not in the file: it is the envelope's last key
 * (fp_diff_envelope_schema: the path written, or null with --no-write). */
typedef struct fp_diff_doc {
    int schema; /* 1 */
    fp_diff_who before;
    fp_diff_who after;
    fp_diff_noise_floor noise_floor;
    fp_diff_totals totals;
    fp_diff_code code;
    fp_diff_work work;
    fp_diff_row *classes; /* before's order, then after-only classes */
    size_t nclasses;
    fp_diff_lines lines;
    fp_diff_insts instructions;
    fp_diff_acceptance *acceptance;
    size_t nacceptance;
    fp_diff_verdict_doc verdict;
    char **notes; /* reasons the comparison may mislead (also envelope warnings) */
    size_t nnotes;
    char *artifact; /* envelope only */
} fp_diff_doc;

/* ---- the `check` envelope ---- */

/* One side of a check: a history record's identity. */
typedef struct fp_check_side {
    fp_optd id; /* entry id; null for the bundle not (yet) in the history */
    char *kernel;
    char *shape;
    char *arch;
    char *commit;
    fp_optb dirty;
    char *captured_at;
    char *bound;
    char *hash;
} fp_check_side;

typedef struct fp_check_gate {
    char *fail_on; /* regressed | any-change | never */
    bool tripped;
} fp_check_gate;

typedef struct fp_check_doc {
    char *db;
    char *baseline_ref; /* auto | latest | an entry id | a commit */
    char *baseline_policy; /* how the baseline was chosen: "pinned", "median of the last N", "latest", "entry", "commit" */
    fp_check_side baseline;
    fp_check_side current;
    fp_diff_noise_floor noise_floor;
    fp_diff_totals totals;
    fp_diff_row *classes;
    size_t nclasses;
    fp_diff_verdict_doc verdict;
    fp_check_gate gate;
    char **notes;
    size_t nnotes;
} fp_check_doc;

extern const fp_schema fp_diff_schema;          /* diff.json */
extern const fp_schema fp_diff_envelope_schema; /* diff.json + artifact: `diff`'s data */
extern const fp_schema fp_diff_noise_floor_schema;
extern const fp_schema fp_diff_totals_schema;
extern const fp_schema fp_diff_class_row_schema;
extern const fp_schema fp_diff_inst_change_schema;
extern const fp_schema fp_diff_verdict_schema;
extern const fp_schema fp_check_schema; /* `check`'s data */

/* `check`'s data when the history has no baseline for the bundle (NO_BASELINE without
 * --strict: exit 0 with a warning, so that a first run does not fail). */
typedef struct fp_check_none_doc {
    char *db;
    char *baseline_ref;
    char *status;            /* "no_baseline" */
    fp_check_side current;
    char *message;
} fp_check_none_doc;
extern const fp_schema fp_check_none_schema;

int fp_diff_read_file(const char *path, fp_diff_doc *doc, fp_err *err);
int fp_diff_write_file(const fp_diff_doc *doc, const char *path, fp_err *err);
void fp_diff_free(fp_diff_doc *doc);

#endif
