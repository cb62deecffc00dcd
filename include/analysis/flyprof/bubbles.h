/*
 * bubbles.h - the whole-trace stall analysis behind `flyprof bubbles`
 * (docs/commands/bubbles.md is the bubbles.json schema; docs/exposed-stall.md
 * the exposed/hidden split and the gain bound).
 *
 * Inputs: code.json (the per-instruction aggregates), every wave file (streamed
 * one at a time), occupancy.json and wstates*.json. Output: one plain struct,
 * turned into the bubbles.json document (fp_bubbles_doc, bubbles_doc.h) by
 * fp_bubbles_doc_build(). Ownership: everything inside
 * fp_bubbles is owned by it; free with fp_bubbles_free().
 */
#ifndef FLYPROF_BUBBLES_H
#define FLYPROF_BUBBLES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/att.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/error.h"
#include "flyprof/taxonomy.h"
#include "flyprof/wave.h"
#include "flyprof/workdist.h"

/* bubbles.json "schema" value; bump on incompatible changes only. */
#define FP_BUBBLES_SCHEMA 1

typedef enum fp_rank_by { FP_RANK_EXPOSED = 0, FP_RANK_STALL, FP_RANK_LATENCY } fp_rank_by;

/* Per code.json row (indexed like fp_code.rows). code_* are code.json's
 * aggregates; w_* are recomputed from the wave files. */
typedef struct fp_bub_inst {
    fp_class cls;        /* static class, or the dominant dynamic class of a combined wait */
    int64_t w_hit, w_stall, w_latency;
    int64_t exposed;     /* stall cycles with no other wave of the SIMD issuing */
    int64_t wall;        /* SIMD cycles lost to this instruction (no wave issuing), deduplicated */
    int64_t class_cycles[FP_CL_COUNT]; /* wave stall split by dynamic class (combined waits) */
    int line_id;         /* index into fp_bubbles.lines, -1 when unmapped */
} fp_bub_inst;

typedef struct fp_bub_class {
    int64_t cycles;      /* code.json stall in this class (sums to totals.stall) */
    int64_t exposed;     /* from the waves */
    int64_t wave_stall;  /* from the waves */
    int64_t wall;        /* deduplicated SIMD cycles lost (gain numerator) */
    int64_t static_count, hit;
} fp_bub_class;

typedef struct fp_bub_line {
    char *source;        /* full "file:line[ -> caller:line ...]" string */
    char *file;          /* innermost file */
    long line;           /* innermost line, -1 when unparsable */
    int64_t stall, latency, hit, exposed, wave_stall, wall;
    int64_t class_cycles[FP_CL_COUNT];
    size_t n_insts;
} fp_bub_line;

/* waitcnt -> producer pair, aggregated over every execution of every wave. */
typedef struct fp_bub_pair {
    int64_t wait_line, prod_line; /* code ROW positions (fp_code.rows); map with rows[i].index */
    int64_t count;                /* executions where this producer was named */
    int64_t count_inferred;       /* ... of which by counter replay */
    int64_t cycles_sum, cycles_min, cycles_max; /* producer issue -> wait release */
    int64_t distance_sum;         /* instructions issued in between */
    double stall_share;           /* the wait's stall apportioned to this producer */
    size_t first_pos;             /* first occurrence in listing order (wave file position, */
    uint64_t first_seq;           /* record << 20 | producer): the output order of pairs */
} fp_bub_pair;

/* One (SE, CU, SIMD). */
typedef struct fp_bub_simd {
    int se, cu, simd;
    size_t waves;
    int64_t begin, end;  /* span of its traced waves */
    int64_t issue;       /* cycles with at least one instruction in flight (issue windows) */
    int64_t stall, exposed, wall;
    size_t first_pos;    /* first wave file (list position) on it: the output order */
} fp_bub_simd;

typedef struct fp_bub_occ_se {
    int se;
    size_t events;
    int peak;
    double mean;         /* time-weighted over [first event, last event] */
    int64_t t0, t1;
    double buckets[16];  /* mean waves resident in 16 equal time buckets */
    int n_buckets;
} fp_bub_occ_se;

typedef struct fp_bubbles {
    /* what was analysed */
    char *dispatch_dir, *dispatch_name, *symbol;
    fp_rank_by rank_by;
    /* the code and the per-row results */
    fp_code code;
    fp_bub_inst *insts;  /* code.n entries */
    size_t n_rows_counted; /* rows with a valid index (kernel header rows excluded) */
    /* totals from code.json */
    int64_t t_latency, t_stall, t_idle, t_hit;
    size_t peak_resident_events; /* sweep: most events held at once (the memory bound) */
    bool overflow; /* a code.json or wstates sum exceeded int64 and saturated (warned) */
    /* from the waves */
    int64_t w_records, w_stall, w_latency, w_exposed, w_wall, w_span;
    /* the wave-end drain (issue 23): s_endpgm's wait [time+stall, time+duration) for the
     * wave's outstanding memory; exposed = no other wave of the SIMD has an instruction in
     * flight; wall = no wave at all (once per SIMD cycle); waves = executions with a wait */
    int64_t drain_stall, drain_exposed, drain_wall, drain_waves;
    int64_t state_cycles[FP_WS_COUNT];
    bool wstates_available;
    int64_t wstates_cycles[FP_WS_COUNT];
    fp_bub_class classes[FP_CL_COUNT];
    fp_bub_line *lines;
    size_t n_lines;
    fp_bub_pair *pairs;
    size_t n_pairs, cap_pairs;
    int64_t waits_exec, waits_with_producers, waits_inferred, waits_unmatched_entries;
    int64_t producer_missing; /* producer lines absent from code.json (ignored) */
    int64_t producer_not_seen; /* named producer with no earlier execution in the wave */
    fp_bub_simd *simds;
    size_t n_simds;
    /* occupancy */
    bool occ_available;
    fp_bub_occ_se *occ;
    size_t n_occ;
    /* capture quality */
    size_t waves_listed, waves_read, waves_skipped, waves_truncated;
    size_t listed_missing, unlisted;
    bool filenames_json;
    int64_t unknown_line_records; /* wave records whose line is not in code.json */
    char **skipped_names;         /* first FP_BUB_MAX_NAMED skipped files, with why */
    size_t n_skipped_names;
    int ses[64];
    size_t ses_waves[64]; /* traced waves read per entry of ses */
    size_t n_ses;
    char **decoder_warnings;       /* lines of rocprofv3's stderr about decoding (bundle only) */
    size_t n_decoder_warnings;
    char *confidence;              /* "high" | "medium" | "low" */
    char **reasons;                /* why the confidence is not high */
    size_t n_reasons;
    /* issue 23: one summary per traced wave (workdist.h), the main loop's head
     * LineNumber (-1: none) and the blocks computed from them and occupancy.json */
    fp_wd_wave *wd;
    size_t n_wd, cap_wd;
    int64_t wd_head_line;
    fp_launch_trace *launch_trace;
    fp_workdist *workdist;
} fp_bubbles;

#define FP_BUB_MAX_NAMED 20

typedef void (*fp_bub_warn_fn)(void *user, const char *msg);

/* Analyse a dispatch dir. Warnings (skipped files, mismatches) go to warn().
 * Errors: code.json missing -> NO_ARTIFACT; malformed -> BAD_INPUT; empty code -> EMPTY_ATT. */
int fp_bubbles_analyze(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn,
                       void *user, fp_err *err);
/* Same with `jobs` worker threads, each taking whole (SE, SIMD) groups (<= 0:
 * fp_bubbles_default_jobs()). The result is identical for every jobs value:
 * per-group partials are merged in group order (bubbles.c). */
int fp_bubbles_analyze_jobs(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn,
                            void *user, int jobs, fp_err *err);
/* Same, stopping between (SE, SIMD) groups once *cancel is non-zero (main.c's
 * SIGINT/SIGTERM flag): -1 with FP_INTERRUPTED, nothing kept. cancel may be NULL. */
int fp_bubbles_analyze_cancel(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn,
                              void *user, int jobs, const volatile sig_atomic_t *cancel, fp_err *err);
/* The worker count when none is given: 2 when this process may run on 2 CPUs or more
 * (fp_cpus_usable: its affinity mask), else 1 (more threads than groups are never started). */
int fp_bubbles_default_jobs(void);
void fp_bubbles_free(fp_bubbles *b);

/* The bubbles.json document of the analysis, every list complete (*out is
 * overwritten; free with fp_bubbles_doc_free). The dispatch resolution keys and
 * quality.empty_shells are left to the command (cmd_bubbles.c). For an envelope
 * bounded by --limit, see fp_bubbles_doc_limit (bubbles_doc.h). */
void fp_bubbles_doc_build(const fp_bubbles *b, fp_bubbles_doc *out);
/* The same; jobs >= 2: the later hotspots are built on a second thread meanwhile (the
 * same document for any jobs). */
void fp_bubbles_doc_build_jobs(const fp_bubbles *b, fp_bubbles_doc *out, int jobs);

/* Order of hotspot rows (indices into code rows with stall > 0) for rank_by. */
size_t *fp_bubbles_hotspot_order(const fp_bubbles *b, size_t *n);

/* Record decoder warnings (e.g. from the bundle's rocprofv3 stderr) in the
 * quality block; they lower the confidence ("data lost" / stitch problems to low). */
void fp_bubbles_add_decoder_warnings(fp_bubbles *b, char *const *lines, size_t n, size_t total);

/* Gain upper bound in % for a "wall" numerator: 100 * wall / w_span. */
double fp_bubbles_gain_pct(const fp_bubbles *b, int64_t wall);

#endif
