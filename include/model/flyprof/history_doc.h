/*
 * history_doc.h - the typed model of a history entry (a "record"): what
 * `history show` prints, `history export` writes one per line and `history
 * import` reads back, and what record.c makes of a reported bundle. The
 * tables are in src/model/history_doc.c, the only place a record key is
 * spelled; also the envelopes of `history list / add / export / import /
 * trend`, which show (parts of) records.
 *
 * Figures are kept as they were read (no rounding: dec -1), so that a record
 * read back from the database or an export line hashes to the same content
 * hash (history.h). workload / totals / classes use report.json's key names so
 * that `check` feeds a record to the very comparison `diff` uses.
 */
#ifndef FLYPROF_HISTORY_DOC_H
#define FLYPROF_HISTORY_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/model.h"

typedef struct fp_history_workload {
    fp_optd time_ns_per_call; /* measured duration per call, ns (report's workload, else counters.json) */
} fp_history_workload;

typedef struct fp_history_totals {
    fp_optd stall_pct;   /* stalled share of latency, % */
    fp_optd exposed_pct; /* exposed share of latency, % */
    fp_optd waves;       /* traced waves */
    fp_optd latency;     /* cycles, summed over the traced waves */
} fp_history_totals;

typedef struct fp_history_launch {
    fp_optd fill_pct; /* % of the device the launch fills */
    fp_optb underfilled;
    fp_optd workgroups;
} fp_history_launch;

typedef struct fp_history_sol {
    fp_optd hbm_pct;       /* HBM bandwidth, % of peak */
    fp_optd mfma_busy_pct; /* % */
    fp_optd valu_busy_pct; /* % */
} fp_history_sol;

/* One stall class (report.json classes[]). */
typedef struct fp_history_class {
    char *cls;       /* "class": the stall class name */
    fp_optd cycles;  /* stall cycles */
    fp_optd exposed; /* exposed stall cycles */
    fp_optd pct;     /* share of total stall, % */
} fp_history_class;

/* One recommendation (report.json recommendations[]). */
typedef struct fp_history_rule {
    int64_t rank;
    char *rule;
    char *bubble_class;
    fp_optd est_gain_pct; /* estimated gain, % */
} fp_history_rule;

/* One metric: its name ("counters.<id>" | "bubbles.<name>") and value (FP_K_MAP element). */
typedef struct fp_history_metric {
    char *key;
    fp_optd v; /* null: not a finite number */
} fp_history_metric;

/* Where the capture came from. */
typedef struct fp_history_provenance {
    char *commit; /* FlyDSL commit, or null */
    fp_optb dirty;
    char *branch;
    char *flyprof_version; /* the flyprof that added the entry */
    char *captured_at;     /* ISO-8601 UTC */
    char *host;
    char *bundle; /* absolute path of the bundle when added */
} fp_history_provenance;

typedef struct fp_history_record {
    int schema;    /* FP_HISTORY_RECORD_SCHEMA */
    fp_optd id;    /* the database's entry id; absent until stored */
    char *hash;    /* content hash (history.h); null until computed */
    char *kernel;
    char *shape;   /* "" when not recorded */
    char *arch;
    char *product;
    fp_history_workload workload;
    fp_history_totals totals;
    char *bound;
    char *bound_rule;
    fp_history_launch launch;
    fp_history_sol sol;
    fp_history_class *classes;
    size_t nclasses;
    fp_history_rule *rules;
    size_t nrules;
    fp_history_metric *metrics; /* name -> number or null */
    size_t nmetrics;
    fp_history_provenance provenance;
    char *added_at; /* ISO-8601 UTC */
} fp_history_record;

extern const fp_schema fp_history_record_schema;
/* The record's first key alone (open): read before the rest, so that a line of
 * another record version says so instead of naming an unknown key. */
extern const fp_schema fp_history_record_head_schema;

/* A list of records (query results). */
typedef struct fp_history_records {
    fp_history_record *items;
    size_t n;
} fp_history_records;

void fp_history_record_free(fp_history_record *r);
void fp_history_records_free(fp_history_records *rs);

/* ---- envelopes of `history` ---- */

/* The one-line view of a record (list rows, the entry of add). */
typedef struct fp_history_summary {
    fp_optd id; /* absent when the record has none */
    char *captured_at;
    char *kernel;
    char *shape;
    char *arch;
    fp_optd time_ns_per_call;
    fp_optd stall_pct;
    char *bound;
    char *top_class; /* classes[0], or null */
    char *top_rule;  /* rules[0], or null */
    char *commit;
    fp_optb dirty;
    char *hash;
} fp_history_summary;

extern const fp_schema fp_history_summary_schema;
/* The summary of a record (its strings copied; free with fp_model_free). */
void fp_history_summary_of(const fp_history_record *r, fp_history_summary *out);

typedef struct fp_history_filter_doc {
    char *kernel;
    char *shape;
    char *since; /* as given */
    fp_optd limit; /* null: all */
} fp_history_filter_doc;

typedef struct fp_history_add_doc {
    char *db;
    int64_t id;
    bool added;
    char *hash;
    fp_history_summary entry;
} fp_history_add_doc;

typedef struct fp_history_list_doc {
    char *db;
    int schema_version;
    fp_history_filter_doc filter;
    int64_t count;
    fp_history_summary *entries;
    size_t nentries;
    double *pinned;           /* ids of the pinned entries of the database (absent when none) */
    size_t npinned;
} fp_history_list_doc;

/* `history rm ID` / `pin ID` / `unpin ID`: what was done to which entry. */
typedef struct fp_history_change_doc {
    char *db;
    char *action;             /* "removed" | "pinned" | "unpinned" */
    int64_t id;
    fp_history_summary entry; /* the entry (as it was, for rm) */
} fp_history_change_doc;

typedef struct fp_history_export_doc {
    char *db;
    fp_history_filter_doc filter;
    int64_t count;
    char *artifact;
} fp_history_export_doc;

typedef struct fp_history_import_doc {
    char *db;
    int64_t records;
    int64_t added;
    int64_t already_present;
} fp_history_import_doc;

typedef struct fp_history_series {
    char *kernel;
    char *shape;
    char *arch;
} fp_history_series;

typedef struct fp_history_trend_point {
    int64_t id;
    char *captured_at;
    char *commit;
    fp_optb dirty;
    fp_optd time_ns_per_call;
    fp_optd stall_pct;
    fp_model_kv *class_pct; /* top class -> its share of stall, % (0 when absent) */
    size_t nclass_pct;
} fp_history_trend_point;

typedef struct fp_history_trend_doc {
    char *db;
    fp_history_series series;
    int64_t count;
    char **classes; /* the charted classes */
    size_t nclasses;
    fp_history_trend_point *points;
    size_t npoints;
    char *svg;
    char *csv;
} fp_history_trend_doc;

extern const fp_schema fp_history_series_schema; /* error.series of trend */
extern const fp_schema fp_history_add_schema;
extern const fp_schema fp_history_change_schema;
extern const fp_schema fp_history_list_schema;
extern const fp_schema fp_history_export_schema;
extern const fp_schema fp_history_import_schema;
extern const fp_schema fp_history_trend_schema;

#endif
