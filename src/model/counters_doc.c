/*
 * counters_doc.c - the table of counters.json (counters_doc.h): the only place its
 * keys are spelled. O: optional on read; ON: also left out when null / empty.
 */
#include "flyprof/counters_doc.h"

#include <string.h>

#define O FP_F_OPTIONAL
#define ON (FP_F_OPTIONAL | FP_F_OMIT_NULL)
#define SCHEMA(name, T, f) {name, sizeof(T), FP_FIELDS(f), false}

static const fp_field pass_f[] = {
    FP_I64(fp_cnt_pass, pass, "pass", O),
    FP_STR(fp_cnt_pass, source, "source", O),
};
static const fp_schema pass_s = SCHEMA("counters.passes", fp_cnt_pass, pass_f);

static const fp_field metric_f[] = {
    FP_NUM(fp_cnt_metric, value, "value", -1, O),
    FP_STR(fp_cnt_metric, unit, "unit", O),
    FP_STR(fp_cnt_metric, formula, "formula", O),
    FP_MAP(fp_cnt_metric, inputs, ninputs, "inputs", &fp_model_numval3_schema, O),
    FP_NUMS(fp_cnt_metric, passes, npasses, "passes", -1, O),
    FP_BOOL(fp_cnt_metric, cross_pass, "cross_pass", O),
    FP_OPTB(fp_cnt_metric, approximate, "approximate", ON),
};
const fp_schema fp_cnt_metric_schema = SCHEMA("counters.metrics", fp_cnt_metric, metric_f);

static const fp_field missing_f[] = {
    {.kind = FP_K_STRS, .off = offsetof(fp_cnt_missing, inputs), .count = offsetof(fp_cnt_missing, ninputs)},
};
static const fp_schema missing_s = SCHEMA("counters.missing", fp_cnt_missing, missing_f);

static const fp_field gexit_f[] = {
    FP_INT(fp_cnt_group_exit, exit_code, "exit_code", O),
};
static const fp_schema gexit_s = SCHEMA("counters.live.groups.exit", fp_cnt_group_exit, gexit_f);
static const fp_field gout_f[] = {
    FP_STRS(fp_cnt_group_outputs, outputs, noutputs, "outputs", O),
};
static const fp_schema gout_s = SCHEMA("counters.live.groups.outputs", fp_cnt_group_outputs, gout_f);

static const fp_field gran_f[] = {
    FP_NUM(fp_cnt_group_ran, elapsed_s, "elapsed_s", 2, O),
    FP_INLINE(fp_cnt_group_ran, exited, "exited", &gexit_s),
    FP_STR(fp_cnt_group_ran, status, "status", O),
    FP_INLINE(fp_cnt_group_ran, found, "found", &gout_s),
};
static const fp_schema gran_s = SCHEMA("counters.live.groups.ran", fp_cnt_group_ran, gran_f);

static const fp_field group_f[] = {
    FP_STRS(fp_cnt_group, counters, ncounters, "counters", O),
    FP_STR(fp_cnt_group, input_yaml, "input_yaml", O),
    FP_STR(fp_cnt_group, log, "log", O),
    FP_INLINE(fp_cnt_group, ran, "ran", &gran_s),
};
const fp_schema fp_cnt_group_schema = SCHEMA("counters.live.groups", fp_cnt_group, group_f);

static const fp_field live_info_f[] = {
    FP_STR(fp_cnt_live_info, rocprofv3, "rocprofv3", O),
    FP_STR(fp_cnt_live_info, rocprofv3_source, "rocprofv3_source", O),
    FP_STR(fp_cnt_live_info, version, "version", O),
    FP_STR(fp_cnt_live_info, output_format, "output_format", O),
    FP_STR(fp_cnt_live_info, format_reason, "format_reason", O),
    FP_STR(fp_cnt_live_info, kernel_iteration_range, "kernel_iteration_range", O),
    FP_STR(fp_cnt_live_info, kernel_include_regex, "kernel_include_regex", O),
    FP_ARR(fp_cnt_live_info, groups, ngroups, "groups", &fp_cnt_group_schema, O),
    FP_STRS(fp_cnt_live_info, env_dropped, nenv_dropped, "env_dropped", ON),
    FP_STR(fp_cnt_live_info, pmc_check, "pmc_check", ON),
};
static const fp_schema live_info_s = SCHEMA("counters.live", fp_cnt_live_info, live_info_f);

static const fp_field live_f[] = {
    FP_STRS(fp_cnt_live, missing_counters, nmissing_counters, "missing_counters", O),
    FP_OBJ(fp_cnt_live, live, "live", &live_info_s, O),
};
static const fp_schema live_s = SCHEMA("counters.live mode", fp_cnt_live, live_f);

static const fp_field raw_dur_f[] = {
    FP_I64(fp_cnt_raw_duration, duration_ns, "duration_ns", O),
};
static const fp_schema raw_dur_s = SCHEMA("counters.per_dispatch.raw.duration", fp_cnt_raw_duration, raw_dur_f);

static const fp_field raw_f[] = {
    FP_I64(fp_cnt_raw, pass, "pass", O),
    FP_I64(fp_cnt_raw, dispatch_id, "dispatch_id", O),
    FP_INLINE(fp_cnt_raw, duration, "duration", &raw_dur_s),
    FP_MAP(fp_cnt_raw, counters, ncounters, "counters", &fp_model_numval3_schema, O),
};
static const fp_schema raw_s = SCHEMA("counters.per_dispatch.raw", fp_cnt_raw, raw_f);

static const fp_field dispatch_f[] = {
    FP_I64(fp_cnt_dispatch, ordinal, "ordinal", O),
    FP_OPTD(fp_cnt_dispatch, duration_ns, "duration_ns", 1, ON),
    FP_MAP(fp_cnt_dispatch, metrics, nmetrics, "metrics", &fp_model_numval_schema, O),
    FP_ARR(fp_cnt_dispatch, raw, nraw, "raw", &raw_s, O),
};
static const fp_schema dispatch_s = SCHEMA("counters.per_dispatch", fp_cnt_dispatch, dispatch_f);

static const fp_field counters_f[] = {
    FP_INT(fp_counters_doc, schema, "schema", O),
    FP_STR(fp_counters_doc, kernel, "kernel", O),
    FP_STR(fp_counters_doc, mode, "mode", O),
    FP_ARR(fp_counters_doc, passes, npasses, "passes", &pass_s, O),
    FP_OBJ(fp_counters_doc, soc, "soc", &fp_soc_doc_schema, O),
    FP_OPTD(fp_counters_doc, peak_hbm_gbs, "peak_hbm_gbs", 1, ON), /* round 3: a partition's peak */
    FP_STR(fp_counters_doc, peak_hbm_source, "peak_hbm_source", ON),
    FP_I64(fp_counters_doc, dispatches, "dispatches", O),
    FP_BOOL(fp_counters_doc, uneven_passes, "uneven_passes", O),
    FP_OPTD(fp_counters_doc, duration_ns, "duration_ns", 1, O),
    FP_STR(fp_counters_doc, duration_source, "duration_source", O),
    FP_STR(fp_counters_doc, kernel_trace, "kernel_trace", ON),
    FP_OPTD(fp_counters_doc, ideal_bytes, "ideal_bytes", 0, O),
    FP_NUM(fp_counters_doc, ea_channels, "ea_channels", 3, O),
    FP_MAP(fp_counters_doc, metrics, nmetrics, "metrics", &fp_cnt_metric_schema, O),
    FP_MAP(fp_counters_doc, missing, nmissing, "missing", &missing_s, O),
    FP_OBJ(fp_counters_doc, bound, "bound", &fp_report_bound_schema, O),
    FP_STRS(fp_counters_doc, interpretation, ninterpretation, "interpretation", O),
    FP_INLINE(fp_counters_doc, live, "live mode", &live_s),
    FP_ARR(fp_counters_doc, per_dispatch, nper_dispatch, "per_dispatch", &dispatch_s, O),
    FP_STR(fp_counters_doc, artifact, "artifact", ON),
};
const fp_schema fp_counters_doc_schema = SCHEMA("counters", fp_counters_doc, counters_f);

const fp_cnt_metric *fp_counters_metric(const fp_counters_doc *d, const char *id)
{
    for (size_t i = 0; i < d->nmetrics; i++)
        if (d->metrics[i].key && !strcmp(d->metrics[i].key, id))
            return &d->metrics[i];
    return NULL;
}

int fp_counters_read_file(const char *path, fp_counters_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_counters_doc_schema, path, doc, err);
}

int fp_counters_write_file(const fp_counters_doc *doc, const char *path, fp_err *err)
{
    return fp_model_write_file(&fp_counters_doc_schema, doc, path, err);
}

void fp_counters_doc_free(fp_counters_doc *doc) { fp_model_free(&fp_counters_doc_schema, doc); }
