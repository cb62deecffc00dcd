/*
 * counters.h - hardware counters (PMC) per dispatch, read from rocprofv3's
 * counter_collection.csv files or a rocpd results.db, and the formulas that
 * turn them into metrics (L2 hit, 32 B partial fraction, fetch bytes,
 * over-fetch, achieved HBM bandwidth, MFMA utilisation and FLOP/s, LDS bank
 * conflicts, occupancy) with each formula named in the output.
 *
 * One idea: a "pass" is one application run (one CSV file, one rocpd guid).
 * Counters that do not fit one pass are collected in several passes, and the
 * same dispatch has a different Dispatch_Id in each; the k-th selected dispatch
 * of the kernel in every pass is the same iteration, so records are merged by
 * that ordinal. Every counter value remembers its pass, and a metric whose
 * inputs come from more than one pass is flagged (each pass replays the
 * kernel, so such ratios can exceed 100 %: rocprof-formats.md §6.3).
 *
 * Layers: the data set and its readers are rocprof's (pmc.h: src/rocprof/pmc.c,
 * counters_csv.c, counters_rocpd.c); the merged records and the formulas are
 * analysis, src/analysis/counters.c.
 */
#ifndef FLYPROF_COUNTERS_H
#define FLYPROF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/bound.h"
#include "flyprof/error.h"
#include "flyprof/pmc.h"
#include "flyprof/soc.h"

/* ---- merged records and metrics ---- */

typedef struct fp_pmc_value {
    bool have;
    double v;
    int pass; /* pass index, -1 when summed over several */
} fp_pmc_value;

/* The k-th selected dispatch of the kernel, merged over passes. Counter
 * values are looked up by name (X and X_sum are the same counter). */
typedef struct fp_pmc_record {
    size_t ordinal;
    const fp_pmc_dispatch **per_pass; /* npasses entries, NULL where the pass has no k-th dispatch */
    size_t npasses;
    double duration_ns; /* chosen duration, 0 when unknown */
    const char *duration_source;
} fp_pmc_record;

/* Selection: the distinct kernel names in the set (malloc'd array of borrowed
 * strings, in first-seen order). */
const char **fp_pmc_kernels(const fp_pmc_set *s, size_t *n);

/* Build the merged records of dispatches whose kernel name contains `kernel`
 * (NULL = all; then the set must hold one kernel name). KERNEL_NOT_FOUND when
 * nothing matches; BAD_ARGS when kernel is NULL and several kernels are present.
 * *out is a malloc'd array; free with fp_pmc_records_free. When passes hold
 * different numbers of dispatches, only the common ordinals are kept and
 * *uneven is set. */
int fp_pmc_records(const fp_pmc_set *s, const char *kernel, fp_pmc_record **out, size_t *n, bool *uneven,
                   fp_err *err);
void fp_pmc_records_free(fp_pmc_record *r, size_t n);

/* Value of a counter in a record: exact name, or with/without the _sum suffix. */
fp_pmc_value fp_pmc_get(const fp_pmc_record *r, const char *name);

/* Inputs that are not counters. */
typedef struct fp_counters_opts {
    const fp_soc_sel *soc;  /* may have no product: then no %-of-peak / utilisation */
    double ideal_bytes;     /* bytes the kernel must move per dispatch, 0 = unknown */
    double ea_channels;     /* multiplier on EA request counts, default 1 */
    fp_dtype dtype;         /* for the MFMA % of peak; FP_DT_COUNT = pick the type with most MOPS */
    /* the agent's own Cu_Count / Num_Xcc (agent_info), 0 = the product's: a CPX
     * MI300X agent has 38 CUs and 1 XCD, not the product table's 304 / 8 (issue 18) */
    int agent_cus, agent_xcds;
    /* the agent's HBM peak when a partition's memory mode scales it (sol.h
     * fp_hbm_partition_peak), 0 = soc->hbm_gbs */
    double peak_hbm_gbs;
} fp_counters_opts;

/* Compute every metric for one record (or the mean record when `records` has
 * n > 1: counters averaged, durations averaged) into counters.json's "metrics"
 * ({id: {value, unit, formula, inputs, passes, cross_pass}}; each value rounded to
 * the metric's decimals) and "missing" ({id: [inputs]}) of *out (counters_doc.h;
 * both lists must be empty). Also fills bin (when not NULL) with the
 * counter-derived bound inputs. */
struct fp_counters_doc;
void fp_counters_metrics(const fp_pmc_record *records, size_t n, const fp_counters_opts *o, fp_bound_in *bin,
                         struct fp_counters_doc *out);

/* The seed's decision tree for a memory-bound kernel, as sentences appended to
 * d->interpretation, from the metrics fp_counters_metrics put in *d. */
void fp_counters_interpret(struct fp_counters_doc *d);

/* The counter groups a live run collects for arch ("gfx942"/"gfx950"), each
 * fitting one pass (TCC <= 4, SQ <= 8, GRBM <= 2). Returns a NULL-terminated
 * array of NULL-terminated name arrays (static); NULL for an unknown arch. */
const char *const *const *fp_counters_groups(const char *arch, size_t *ngroups);
/* The hardware counters an SDK-derived counter the groups request is computed from
 * (MeanOccupancyPerCU, MfmaUtil, VALUBusy, LdsBankConflict), NULL-terminated; NULL for a
 * hardware counter. */
const char *const *fp_counter_derived_base(const char *name);
/* The logical groups packed, whole, into the fewest passes (first fit in
 * order): a group joins a pass when the union of their HARDWARE counters fits
 * every block's limit (TCC 4, SQ 8, GRBM 2, ...; an SDK-derived counter such as
 * MeanOccupancyPerCU counts as its base counters, shared ones once). Whole
 * groups keep each metric's inputs in one pass. gfx942/gfx950: 4 groups -> 2
 * passes (L2+writes with LDS+occupancy, fetch with MFMA), half the application
 * runs. pass[i] are malloc'd NULL-terminated arrays of the groups' (static)
 * names. -1 when a group alone does not fit or more than FP_MAX_PASSES are needed. */
#define FP_MAX_PASSES 16
typedef struct fp_counter_passes {
    const char **pass[FP_MAX_PASSES];
    size_t n;
} fp_counter_passes;
int fp_counters_pack(const char *const *const *groups, size_t ngroups, fp_counter_passes *out);
void fp_counter_passes_free(fp_counter_passes *p);

/* Block of a counter name ("TCC", "SQ", "GRBM") for the pass limits. */
const char *fp_counter_block(const char *name);
/* Hardware counter slots per block per pass (rocprof-formats.md §6.3). */
int fp_counter_block_limit(const char *block);

#endif
