/*
 * counters_doc.h - counters.json as a type (model.h): the metrics `flyprof counters`
 * derived from PMC passes (each with its formula, inputs and passes), the metrics that
 * could not be computed and why, the bound verdict, and per dispatch values and raw
 * counters (docs/commands/counters.md). Table: src/model/counters_doc.c, the only place
 * its keys are spelled. Producer: src/cmd/cmd_counters.c with src/analysis/counters.c;
 * reader: signals.c fp_signals_from_counters.
 *
 * Metric ids and counter names are data (FP_K_MAP members), not keys of the table.
 * A metric's "value" is rounded by the producer to the metric's own decimals (the
 * formula table in counters.c) and written as it is. Every field is optional on read
 * (hand-written bundles hold a subset); unknown keys and wrong types are BAD_INPUT.
 */
#ifndef FLYPROF_COUNTERS_DOC_H
#define FLYPROF_COUNTERS_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/model.h"
#include "flyprof/tile_doc.h" /* fp_soc_doc, fp_bound_doc */

typedef struct fp_cnt_pass {
    int64_t pass;        /* 1-based */
    char *source;        /* the file it was read from */
} fp_cnt_pass;

/* One derived metric: metrics.<id> */
typedef struct fp_cnt_metric {
    char *key;           /* the metric id ("l2_hit_pct"): the member name */
    double value;        /* already rounded to the metric's decimals */
    char *unit, *formula;
    fp_model_kv *inputs; /* input name -> value (3 decimals) */
    size_t ninputs;
    double *passes;      /* 1-based passes the inputs came from */
    size_t npasses;
    bool cross_pass;     /* inputs from more than one pass */
    fp_optb approximate; /* written only when true */
} fp_cnt_metric;

/* missing.<id>: the inputs a metric lacked */
typedef struct fp_cnt_missing {
    char *key;
    char **inputs;
    size_t ninputs;
} fp_cnt_missing;

/* live: one counter pass */
typedef struct fp_cnt_group_exit {
    int exit_code;
} fp_cnt_group_exit;

typedef struct fp_cnt_group_outputs {
    char **outputs;
    size_t noutputs;
} fp_cnt_group_outputs;

typedef struct fp_cnt_group_ran {
    double elapsed_s;            /* 2 decimals */
    fp_cnt_group_exit *exited;   /* rocprofv3 ran to an end */
    char *status;                /* "ok" | "nonzero_exit" | "no_output" | "timeout" | "interrupted" | "error" */
    fp_cnt_group_outputs *found; /* with exited */
} fp_cnt_group_ran;

typedef struct fp_cnt_group {
    char **counters;
    size_t ncounters;
    char *input_yaml, *log;
    fp_cnt_group_ran *ran;
} fp_cnt_group;

typedef struct fp_cnt_live_info {
    char *rocprofv3, *rocprofv3_source, *version, *output_format, *format_reason;
    char *kernel_iteration_range, *kernel_include_regex;
    fp_cnt_group *groups;
    size_t ngroups;
    char **env_dropped; /* inherited ROCPROF_* removed from rocprofv3's environment (rpenv.h); omitted when none */
    size_t nenv_dropped;
    char *pmc_check;    /* rocprofv3-avail pmc-check of the packed passes: "ok" | "refused" | "not available" */
} fp_cnt_live_info;

typedef struct fp_cnt_live {
    char **missing_counters;     /* asked for, absent from every pass */
    size_t nmissing_counters;
    fp_cnt_live_info live;
} fp_cnt_live;

typedef struct fp_cnt_raw_duration {
    int64_t duration_ns;
} fp_cnt_raw_duration;

typedef struct fp_cnt_raw {
    int64_t pass, dispatch_id;
    fp_cnt_raw_duration *duration; /* when the pass has both timestamps */
    fp_model_kv *counters;         /* counter name -> value (3 decimals) */
    size_t ncounters;
} fp_cnt_raw;

typedef struct fp_cnt_dispatch {
    int64_t ordinal;               /* 1-based */
    fp_optd duration_ns;           /* 1 decimal, written when known */
    fp_model_kv *metrics;          /* id -> value as in metrics.<id>.value */
    size_t nmetrics;
    fp_cnt_raw *raw;
    size_t nraw;
} fp_cnt_dispatch;

typedef struct fp_counters_doc {
    int schema;
    char *kernel;
    char *mode;                    /* "live" | "offline" */
    fp_cnt_pass *passes;
    size_t npasses;
    fp_soc_doc soc;
    /* the agent's HBM peak when it is a partition's (docs/sol.md); omitted otherwise */
    fp_optd peak_hbm_gbs;          /* soc.hbm_gbs scaled for the agent's memory partition */
    char *peak_hbm_source;
    int64_t dispatches;
    bool uneven_passes;
    fp_optd duration_ns;           /* mean, 1 decimal */
    char *duration_source;
    char *kernel_trace;            /* the capture's kernel trace the duration came from */
    fp_optd ideal_bytes;           /* --ideal-gb in bytes, 0 decimals */
    double ea_channels;            /* 3 decimals */
    fp_cnt_metric *metrics;
    size_t nmetrics;
    fp_cnt_missing *missing;
    size_t nmissing;
    fp_bound_doc bound;
    char **interpretation;
    size_t ninterpretation;
    fp_cnt_live *live;             /* live mode */
    fp_cnt_dispatch *per_dispatch; /* at most MAX_LISTED_DISPATCHES */
    size_t nper_dispatch;
    char *artifact;                /* envelope only */
} fp_counters_doc;

extern const fp_schema fp_counters_doc_schema, fp_cnt_metric_schema, fp_cnt_group_schema;

/* The metric of that id, NULL when it was not computed. */
const fp_cnt_metric *fp_counters_metric(const fp_counters_doc *d, const char *id);

int fp_counters_read_file(const char *path, fp_counters_doc *doc, fp_err *err);
int fp_counters_write_file(const fp_counters_doc *doc, const char *path, fp_err *err);
void fp_counters_doc_free(fp_counters_doc *doc);

#endif
