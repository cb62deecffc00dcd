/*
 * sweep_doc.c - the tables of the sweep documents (sweep_doc.h): the only place
 * their keys are spelled.
 */
#include "flyprof/sweep_doc.h"

#define ON FP_F_OMIT_NULL
#define SCHEMA(name, T, f) {name, sizeof(T), FP_FIELDS(f), false}

static const fp_field kernel_f[] = {
    FP_STR(fp_sweep_kernel, name, "name", 0),
    FP_STRS(fp_sweep_kernel, shapes, nshapes, "shapes", 0),
};
static const fp_schema kernel_s = SCHEMA("spec.kernels", fp_sweep_kernel, kernel_f);

static const fp_field slurm_f[] = {
    FP_STR(fp_sweep_slurm, partition, "partition", ON),
    FP_STR(fp_sweep_slurm, time, "time", ON),
    FP_STR(fp_sweep_slurm, account, "account", ON),
    FP_STRS(fp_sweep_slurm, extra, nextra, "extra", ON),
};
static const fp_schema slurm_s = SCHEMA("spec.slurm", fp_sweep_slurm, slurm_f);

static const fp_field spec_f[] = {
    FP_ARR(fp_sweep_spec, kernels, nkernels, "kernels", &kernel_s, 0),
    FP_OPTD(fp_sweep_spec, gpus_per_task, "gpus_per_task", 0, ON),
    FP_OBJP(fp_sweep_spec, slurm, "slurm", &slurm_s, ON),
};
const fp_schema fp_sweep_spec_schema = SCHEMA("spec", fp_sweep_spec, spec_f);

static const fp_field task_f[] = {
    FP_INT(fp_sweep_task, id, "id", 0),
    FP_STR(fp_sweep_task, name, "name", 0),
    FP_STR(fp_sweep_task, kernel, "kernel", 0),
    FP_STR(fp_sweep_task, shape, "shape", 0),
};
static const fp_schema task_s = SCHEMA("tasks", fp_sweep_task, task_f);

static const fp_field state_f[] = {
    FP_INT(fp_sweep_state, schema, "schema", 0),
    FP_STR(fp_sweep_state, backend, "backend", 0),
    FP_STR(fp_sweep_state, flyprof, "flyprof", 0),
    FP_STRS(fp_sweep_state, run_args, nrun_args, "run_args", 0),
    FP_OBJ(fp_sweep_state, spec, "spec", &fp_sweep_spec_schema, 0),
    FP_ARR(fp_sweep_state, tasks, ntasks, "tasks", &task_s, 0),
    FP_STRS(fp_sweep_state, jobs, njobs, "jobs", 0),
    FP_STR(fp_sweep_state, aggregate_job, "aggregate_job", 0),
};
const fp_schema fp_sweep_state_schema = SCHEMA("tasks.json", fp_sweep_state, state_f);

static const fp_field result_f[] = {
    FP_STR(fp_sweep_result, task, "task", 0),
    FP_INT(fp_sweep_result, exit_code, "exit_code", 0),
    FP_STR(fp_sweep_result, error, "error", 0),
    FP_STR(fp_sweep_result, message, "message", 0),
    FP_STR(fp_sweep_result, job_id, "job_id", 0),
    FP_NUM(fp_sweep_result, seconds, "seconds", 2, 0),
};
const fp_schema fp_sweep_result_schema = SCHEMA("result", fp_sweep_result, result_f);

static const fp_field row_f[] = {
    FP_INT(fp_sweep_row, id, "id", 0),
    FP_STR(fp_sweep_row, task, "task", 0),
    FP_STR(fp_sweep_row, kernel, "kernel", 0),
    FP_STR(fp_sweep_row, shape, "shape", 0),
    FP_STR(fp_sweep_row, status, "status", 0),
    FP_OPTD(fp_sweep_row, exit_code, "exit_code", 0, 0),
    FP_STR(fp_sweep_row, error, "error", 0),
    FP_STR(fp_sweep_row, reason, "reason", 0),
    FP_STR(fp_sweep_row, job_id, "job_id", 0),
    FP_STR(fp_sweep_row, bundle, "bundle", 0),
    FP_OPTD(fp_sweep_row, duration_us, "duration_us", 3, 0),
    FP_STR(fp_sweep_row, time_source, "time_source", 0),
    FP_STR(fp_sweep_row, bound, "bound", 0),
    FP_STR(fp_sweep_row, first_rule, "first_rule", 0),
    FP_OPTD(fp_sweep_row, gain_pct, "gain_pct", 1, 0),
    FP_OPTD(fp_sweep_row, history_entry, "history_entry", 0, ON),
};
static const fp_schema row_s = SCHEMA("sweep.tasks", fp_sweep_row, row_f);

static const fp_field doc_f[] = {
    FP_INT(fp_sweep_doc, schema, "schema", 0),
    FP_STR(fp_sweep_doc, backend, "backend", 0),
    FP_STR(fp_sweep_doc, state, "state", 0),
    FP_STR(fp_sweep_doc, out, "out", 0),
    FP_OBJ(fp_sweep_doc, spec, "spec", &fp_sweep_spec_schema, 0),
    FP_STRS(fp_sweep_doc, jobs, njobs, "jobs", 0),
    FP_INT(fp_sweep_doc, ntasks, "tasks_total", 0),
    FP_INT(fp_sweep_doc, n_ok, "ok", 0),
    FP_INT(fp_sweep_doc, n_failed, "failed", 0),
    FP_INT(fp_sweep_doc, n_cancelled, "cancelled", 0),
    FP_INT(fp_sweep_doc, n_timeout, "timeout", 0),
    FP_INT(fp_sweep_doc, n_unfinished, "unfinished", 0),
    FP_ARR(fp_sweep_doc, tasks, nrows, "tasks", &row_s, 0),
    FP_STR(fp_sweep_doc, history_db, "history_db", ON),
    FP_STR(fp_sweep_doc, svg, "svg", 0),
    FP_STR(fp_sweep_doc, table, "table", 0),
};
const fp_schema fp_sweep_doc_schema = SCHEMA("sweep", fp_sweep_doc, doc_f);
