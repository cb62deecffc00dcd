/*
 * history_doc.c - the tables of a history record and of the `history`
 * envelopes (history_doc.h): the only place their keys are spelled. Key order
 * is the one record.c / store.c / cmd_history.c built by hand.
 */
#include "flyprof/history_doc.h"

#include <stdlib.h>

static const fp_field workload_fields[] = {
    FP_OPTD(fp_history_workload, time_ns_per_call, "time_ns_per_call", -1, 0),
};
static const fp_schema workload_schema = {"history.workload", sizeof(fp_history_workload),
                                          FP_FIELDS(workload_fields), false};

static const fp_field totals_fields[] = {
    FP_OPTD(fp_history_totals, stall_pct, "stall_pct", -1, 0),
    FP_OPTD(fp_history_totals, exposed_pct, "exposed_pct", -1, 0),
    FP_OPTD(fp_history_totals, waves, "waves", -1, 0),
    FP_OPTD(fp_history_totals, latency, "latency", -1, 0),
};
static const fp_schema totals_schema = {"history.totals", sizeof(fp_history_totals), FP_FIELDS(totals_fields), false};

static const fp_field launch_fields[] = {
    FP_OPTD(fp_history_launch, fill_pct, "fill_pct", -1, 0),
    FP_OPTB(fp_history_launch, underfilled, "underfilled", 0),
    FP_OPTD(fp_history_launch, workgroups, "workgroups", -1, 0),
};
static const fp_schema launch_schema = {"history.launch", sizeof(fp_history_launch), FP_FIELDS(launch_fields), false};

static const fp_field sol_fields[] = {
    FP_OPTD(fp_history_sol, hbm_pct, "hbm_pct", -1, 0),
    FP_OPTD(fp_history_sol, mfma_busy_pct, "mfma_busy_pct", -1, 0),
    FP_OPTD(fp_history_sol, valu_busy_pct, "valu_busy_pct", -1, 0),
};
static const fp_schema sol_schema = {"history.sol", sizeof(fp_history_sol), FP_FIELDS(sol_fields), false};

static const fp_field class_fields[] = {
    FP_STR(fp_history_class, cls, "class", 0),
    FP_OPTD(fp_history_class, cycles, "cycles", -1, 0),
    FP_OPTD(fp_history_class, exposed, "exposed", -1, 0),
    FP_OPTD(fp_history_class, pct, "pct", -1, 0),
};
static const fp_schema class_schema = {"history.classes", sizeof(fp_history_class), FP_FIELDS(class_fields), false};

static const fp_field rule_fields[] = {
    FP_I64(fp_history_rule, rank, "rank", 0),
    FP_STR(fp_history_rule, rule, "rule", 0),
    FP_STR(fp_history_rule, bubble_class, "bubble_class", 0),
    FP_OPTD(fp_history_rule, est_gain_pct, "est_gain_pct", -1, 0),
};
static const fp_schema rule_schema = {"history.rules", sizeof(fp_history_rule), FP_FIELDS(rule_fields), false};

static const fp_field provenance_fields[] = {
    FP_STR(fp_history_provenance, commit, "commit", 0),
    FP_OPTB(fp_history_provenance, dirty, "dirty", 0),
    FP_STR(fp_history_provenance, branch, "branch", 0),
    FP_STR(fp_history_provenance, flyprof_version, "flyprof_version", 0),
    FP_STR(fp_history_provenance, captured_at, "captured_at", 0),
    FP_STR(fp_history_provenance, host, "host", 0),
    FP_STR(fp_history_provenance, bundle, "bundle", 0),
};
static const fp_schema provenance_schema = {"history.provenance", sizeof(fp_history_provenance),
                                            FP_FIELDS(provenance_fields), false};

/* the value of a metric: the member's value itself (a key-less field) */
static const fp_field metric_fields[] = {
    {.kind = FP_K_OPTD, .off = offsetof(fp_history_metric, v), .dec = -1},
};
static const fp_schema metric_schema = {"history.metrics", sizeof(fp_history_metric), FP_FIELDS(metric_fields), false};

static const fp_field record_fields[] = {
    FP_INT(fp_history_record, schema, "schema", 0), /* first: fp_history_record_head_schema */
    FP_OPTD(fp_history_record, id, "id", -1, FP_F_OMIT_NULL),
    FP_STR(fp_history_record, hash, "hash", 0),
    FP_STR(fp_history_record, kernel, "kernel", 0),
    FP_STR(fp_history_record, shape, "shape", 0),
    FP_STR(fp_history_record, arch, "arch", 0),
    FP_STR(fp_history_record, product, "product", 0),
    FP_OBJ(fp_history_record, workload, "workload", &workload_schema, 0),
    FP_OBJ(fp_history_record, totals, "totals", &totals_schema, 0),
    FP_STR(fp_history_record, bound, "bound", 0),
    FP_STR(fp_history_record, bound_rule, "bound_rule", 0),
    FP_OBJ(fp_history_record, launch, "launch", &launch_schema, 0),
    FP_OBJ(fp_history_record, sol, "sol", &sol_schema, 0),
    FP_ARR(fp_history_record, classes, nclasses, "classes", &class_schema, 0),
    FP_ARR(fp_history_record, rules, nrules, "rules", &rule_schema, 0),
    FP_MAP(fp_history_record, metrics, nmetrics, "metrics", &metric_schema, 0),
    FP_OBJ(fp_history_record, provenance, "provenance", &provenance_schema, 0),
    FP_STR(fp_history_record, added_at, "added_at", 0),
};
const fp_schema fp_history_record_schema = {"history record", sizeof(fp_history_record), FP_FIELDS(record_fields),
                                            false};
const fp_schema fp_history_record_head_schema = {"history record", sizeof(fp_history_record), record_fields, 1, true};

void fp_history_record_free(fp_history_record *r) { fp_model_free(&fp_history_record_schema, r); }

void fp_history_records_free(fp_history_records *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        fp_history_record_free(&rs->items[i]);
    free(rs->items);
    rs->items = NULL;
    rs->n = 0;
}

/* ---- envelopes */

static const fp_field summary_fields[] = {
    FP_OPTD(fp_history_summary, id, "id", -1, FP_F_OMIT_NULL),
    FP_STR(fp_history_summary, captured_at, "captured_at", 0),
    FP_STR(fp_history_summary, kernel, "kernel", 0),
    FP_STR(fp_history_summary, shape, "shape", 0),
    FP_STR(fp_history_summary, arch, "arch", 0),
    FP_OPTD(fp_history_summary, time_ns_per_call, "time_ns_per_call", -1, 0),
    FP_OPTD(fp_history_summary, stall_pct, "stall_pct", -1, 0),
    FP_STR(fp_history_summary, bound, "bound", 0),
    FP_STR(fp_history_summary, top_class, "top_class", 0),
    FP_STR(fp_history_summary, top_rule, "top_rule", 0),
    FP_STR(fp_history_summary, commit, "commit", 0),
    FP_OPTB(fp_history_summary, dirty, "dirty", 0),
    FP_STR(fp_history_summary, hash, "hash", 0),
};
const fp_schema fp_history_summary_schema = {"history.summary", sizeof(fp_history_summary), FP_FIELDS(summary_fields),
                                         false};

void fp_history_summary_of(const fp_history_record *r, fp_history_summary *s)
{
    s->id = r->id;
    s->captured_at = fp_model_strdup(r->provenance.captured_at);
    s->kernel = fp_model_strdup(r->kernel);
    s->shape = fp_model_strdup(r->shape);
    s->arch = fp_model_strdup(r->arch);
    s->time_ns_per_call = r->workload.time_ns_per_call;
    s->stall_pct = r->totals.stall_pct;
    s->bound = fp_model_strdup(r->bound);
    s->top_class = fp_model_strdup(r->nclasses ? r->classes[0].cls : NULL);
    s->top_rule = fp_model_strdup(r->nrules ? r->rules[0].rule : NULL);
    s->commit = fp_model_strdup(r->provenance.commit);
    s->dirty = r->provenance.dirty;
    s->hash = fp_model_strdup(r->hash);
}

static const fp_field filter_fields[] = {
    FP_STR(fp_history_filter_doc, kernel, "kernel", 0),
    FP_STR(fp_history_filter_doc, shape, "shape", 0),
    FP_STR(fp_history_filter_doc, since, "since", 0),
    FP_OPTD(fp_history_filter_doc, limit, "limit", -1, 0),
};
static const fp_schema filter_schema = {"history.filter", sizeof(fp_history_filter_doc), FP_FIELDS(filter_fields),
                                        false};

static const fp_field add_fields[] = {
    FP_STR(fp_history_add_doc, db, "db", 0),
    FP_I64(fp_history_add_doc, id, "id", 0),
    FP_BOOL(fp_history_add_doc, added, "added", 0),
    FP_STR(fp_history_add_doc, hash, "hash", 0),
    FP_OBJ(fp_history_add_doc, entry, "entry", &fp_history_summary_schema, 0),
};
const fp_schema fp_history_add_schema = {"history add", sizeof(fp_history_add_doc), FP_FIELDS(add_fields), false};

static const fp_field list_fields[] = {
    FP_STR(fp_history_list_doc, db, "db", 0),
    FP_INT(fp_history_list_doc, schema_version, "schema_version", 0),
    FP_OBJ(fp_history_list_doc, filter, "filter", &filter_schema, 0),
    FP_I64(fp_history_list_doc, count, "count", 0),
    FP_ARR(fp_history_list_doc, entries, nentries, "entries", &fp_history_summary_schema, 0),
    FP_NUMS(fp_history_list_doc, pinned, npinned, "pinned", 0, FP_F_OMIT_NULL),
};
const fp_schema fp_history_list_schema = {"history list", sizeof(fp_history_list_doc), FP_FIELDS(list_fields), false};

static const fp_field change_fields[] = {
    FP_STR(fp_history_change_doc, db, "db", 0),
    FP_STR(fp_history_change_doc, action, "action", 0),
    FP_I64(fp_history_change_doc, id, "id", 0),
    FP_OBJ(fp_history_change_doc, entry, "entry", &fp_history_summary_schema, 0),
};
const fp_schema fp_history_change_schema = {"history rm/pin", sizeof(fp_history_change_doc), FP_FIELDS(change_fields),
                                            false};

static const fp_field export_fields[] = {
    FP_STR(fp_history_export_doc, db, "db", 0),
    FP_OBJ(fp_history_export_doc, filter, "filter", &filter_schema, 0),
    FP_I64(fp_history_export_doc, count, "count", 0),
    FP_STR(fp_history_export_doc, artifact, "artifact", 0),
};
const fp_schema fp_history_export_schema = {"history export", sizeof(fp_history_export_doc), FP_FIELDS(export_fields),
                                            false};

static const fp_field import_fields[] = {
    FP_STR(fp_history_import_doc, db, "db", 0),
    FP_I64(fp_history_import_doc, records, "records", 0),
    FP_I64(fp_history_import_doc, added, "added", 0),
    FP_I64(fp_history_import_doc, already_present, "already_present", 0),
};
const fp_schema fp_history_import_schema = {"history import", sizeof(fp_history_import_doc), FP_FIELDS(import_fields),
                                            false};

/* kernel, shape (+ arch in the trend's data; error.series lists kernel + shape only) */
static const fp_field series_fields[] = {
    FP_STR(fp_history_series, kernel, "kernel", 0),
    FP_STR(fp_history_series, shape, "shape", 0),
    FP_STR(fp_history_series, arch, "arch", 0), /* must stay last */
};
static const fp_schema series_schema = {"history.series", sizeof(fp_history_series), FP_FIELDS(series_fields), false};
const fp_schema fp_history_series_schema = {"history.series", sizeof(fp_history_series), series_fields,
                                            sizeof series_fields / sizeof series_fields[0] - 1, false};

static const fp_field point_fields[] = {
    FP_I64(fp_history_trend_point, id, "id", 0),
    FP_STR(fp_history_trend_point, captured_at, "captured_at", 0),
    FP_STR(fp_history_trend_point, commit, "commit", 0),
    FP_OPTB(fp_history_trend_point, dirty, "dirty", 0),
    FP_OPTD(fp_history_trend_point, time_ns_per_call, "time_ns_per_call", -1, 0),
    FP_OPTD(fp_history_trend_point, stall_pct, "stall_pct", -1, 0),
    FP_MAP(fp_history_trend_point, class_pct, nclass_pct, "class_pct", &fp_model_numval_schema, 0),
};
static const fp_schema point_schema = {"history.trend.points", sizeof(fp_history_trend_point), FP_FIELDS(point_fields),
                                       false};

static const fp_field trend_fields[] = {
    FP_STR(fp_history_trend_doc, db, "db", 0),
    FP_OBJ(fp_history_trend_doc, series, "series", &series_schema, 0),
    FP_I64(fp_history_trend_doc, count, "count", 0),
    FP_STRS(fp_history_trend_doc, classes, nclasses, "classes", 0),
    FP_ARR(fp_history_trend_doc, points, npoints, "points", &point_schema, 0),
    FP_STR(fp_history_trend_doc, svg, "svg", 0),
    FP_STR(fp_history_trend_doc, csv, "csv", 0),
};
const fp_schema fp_history_trend_schema = {"history trend", sizeof(fp_history_trend_doc), FP_FIELDS(trend_fields),
                                           false};
