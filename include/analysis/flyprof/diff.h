/*
 * diff.h - before/after comparison of two report.json documents.
 *
 * Per stall class and per source line: stall, exposed stall and share, before
 * -> after; instructions matched across recompiles by (innermost source line,
 * opcode, occurrence) - never by pc index; the before report's acceptance
 * tests checked against the after report (met / not_met / unknown); and an
 * overall verdict (improved / regressed / neutral) that treats changes within
 * the noise floor as neutral. docs/commands/diff.md documents the floor and
 * how it was measured.
 *
 * Cycle counts of two captures are compared per traced wave (cycles / waves)
 * so that captures with different numbers of traced waves stay comparable.
 */
#ifndef FLYPROF_DIFF_H
#define FLYPROF_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/diff_doc.h"
#include "flyprof/history_doc.h"
#include "flyprof/model.h"
#include "flyprof/report_doc.h"
#include "flyprof/strbuf.h"

/* Noise floor of the overall verdict, in percentage points of the stalled
 * share of latency (totals.stall_pct). Measured on two captures of the same
 * code (corpus flash_attn_func-small vs -small-after_loc_fix): see diff.md. */
#define FP_DIFF_NOISE_STALL_PTS 1.0
/* With a measured duration per call on both sides, the verdict uses it:
 * changes within 2 % are neutral (the seed's "no config regresses > 2 %"). */
#define FP_DIFF_NOISE_TIME_PCT 2.0
/* A class / line delta is "significant" above this share change (points of
 * total stall) - the same floor, applied per row. */
#define FP_DIFF_NOISE_SHARE_PTS 2.5
/* Rows listed per section of diff.json (largest |delta| first). */
#define FP_DIFF_MAX_ROWS 50

/* The figures of one side that the verdict and the per-class comparison use.
 * `diff` takes them from a report.json, `check` from a history record (which
 * stores the same figures), so both go through the same comparison and floors.
 * A null figure (an unknown fp_optd) counts as 0 where a number is needed, as
 * an absent key did. */
typedef struct fp_diff_item {
    const char *name; /* the class (or line); not owned */
    double stall;     /* cycles (a class's "cycles", a line's "stall") */
    double exposed;   /* exposed cycles */
    double pct;       /* share of total stall, % */
} fp_diff_item;

typedef struct fp_diff_figures {
    fp_optd stall_pct;        /* totals */
    fp_optd exposed_pct;
    fp_optd waves;
    fp_optd latency;
    fp_optd time_ns_per_call; /* workload */
    fp_diff_item *classes;    /* owned array (the names are not owned) */
    size_t nclasses;
} fp_diff_figures;

/* The figures of a report / of a history record (pointing into it: keep it
 * alive); free with fp_diff_figures_free. */
void fp_diff_figures_of(const fp_report_doc *report, fp_diff_figures *out);
void fp_diff_figures_of_record(const fp_history_record *rec, fp_diff_figures *out);
void fp_diff_figures_free(fp_diff_figures *f);

typedef struct fp_diff_verdict {
    const char *overall; /* improved | regressed | neutral */
    const char *basis;   /* time_ns_per_call | stall_pct */
    double delta;        /* % of duration, or points of stall_pct */
    char why[256];
} fp_diff_verdict;

/* The overall verdict of after vs before, within the noise floors above. */
void fp_diff_verdict_of(const fp_diff_figures *before, const fp_diff_figures *after, fp_diff_verdict *v);
/* The pieces of diff.json computed from figures alone (diff_doc.h; free what
 * they own with fp_model_free and the piece's schema). */
void fp_diff_noise_floor_of(fp_diff_noise_floor *out);
void fp_diff_totals_of(const fp_diff_figures *before, const fp_diff_figures *after, fp_diff_totals *out);
void fp_diff_classes_of(const fp_diff_figures *before, const fp_diff_figures *after, fp_diff_row **rows, size_t *n);
void fp_diff_verdict_doc_of(const fp_diff_verdict *v, fp_diff_verdict_doc *out); /* {overall, basis, delta, why} */

/* diff.json of two reports (*out is overwritten; free with fp_diff_free). */
void fp_diff_reports(const fp_report_doc *before, const fp_report_doc *after, fp_diff_doc *out);

/* ---- the parts that explain a change (src/analysis/diff_work.c) ---- */

/* t_{0.975, df} of Student's t (a table, interpolated in 1/df). */
double fp_diff_t975(double df);
/* Half-width of the 95 % CI of mean_a - mean_b (Welch), from each side's
 * sample sd and count; NAN when a side has fewer than 2. */
double fp_diff_welch_half(double sd_b, double n_b, double sd_a, double n_a);
/* improved | regressed | neutral | inconclusive of a relative change (%) with
 * its CI [lo, hi] (have_ci false: none) against FP_DIFF_NOISE_TIME_PCT;
 * same_code: an interval containing 0 is neutral (the same binary cannot
 * change but by sampling). See docs/commands/diff.md. */
const char *fp_diff_change_of(double delta, double lo, double hi, bool have_ci, bool same_code);
/* One per-wave figure compared (owned strings: free with the diff). */
void fp_diff_ci_of(const fp_report_stat *b, const fp_report_stat *a, bool same_code, fp_diff_ci *out);
/* diff.json "code": the two reports' isa compared. */
void fp_diff_code_of(const fp_report_doc *rb, const fp_report_doc *ra, fp_diff_code *out);
/* diff.json "work": per wave and per main-loop iteration, CSV identity. */
void fp_diff_work_of(const fp_report_doc *rb, const fp_report_doc *ra, bool same_code, fp_diff_work *out);
/* Both durations come from the same kernel_trace.csv rows (time.csv.rows_sha256). */
bool fp_diff_time_void(const fp_report_doc *rb, const fp_report_doc *ra);
/* The report's duration is the traced wave span (time.source "trace"). */
bool fp_diff_time_is_trace(const fp_report_doc *r);
/* Half-width (points) of the 95 % CI of a class's share change; null when unknown. */
fp_optd fp_diff_share_ci(const fp_report_doc *rb, const fp_report_doc *ra, const char *cls);

/* The --fail-on gate (diff, check): does `verdict` (verdict.overall:
 * improved / regressed / neutral / inconclusive) trip the gate `fail_on`?
 * "regressed" trips on regressed only; "any-change" on every verdict other
 * than neutral; an inconclusive verdict neither passes nor trips any gate. A
 * NULL fail_on never trips; a NULL verdict trips any gate. Returns 1 (tripped:
 * exit with FP_REGRESSED), 2 (undecided: exit with FP_INCONCLUSIVE), 0
 * (passes), -1 (unknown fail_on). */
int fp_diff_gate(const char *verdict, const char *fail_on);
/* The accepted --fail-on values, NULL-terminated (an FP_OPT_CHOICE list). */
extern const char *const fp_diff_fail_on_choices[];

/* Human rendering of a diff.json (its notes first, as warnings). */
void fp_diff_table(const fp_diff_doc *diff, fp_sb *out);

#endif
