/*
 * sweep_doc.h - the documents of `flyprof sweep` (docs/commands/sweep.md):
 *   the spec (SPEC, YAML or JSON: kernels x shapes, GPUs per task, Slurm settings),
 *   DIR/tasks.json   the sweep's state: its tasks, the options each `flyprof run`
 *                    gets, the Slurm jobs submitted (so --status / --cancel / a
 *                    re-run find them),
 *   DIR/tasks/<task>.result.json  one finished task: its run's exit code and error,
 *   DIR/sweep.json   the summary (also the envelope's data).
 * Times: duration_us is the kernel's time from the task's report.json, gain_pct the
 * first recommendation's estimated gain (% of kernel time).
 */
#ifndef FLYPROF_SWEEP_DOC_H
#define FLYPROF_SWEEP_DOC_H

#include "flyprof/model.h"

typedef struct fp_sweep_kernel {
    char *name;
    char **shapes;
    size_t nshapes;
} fp_sweep_kernel;

typedef struct fp_sweep_slurm {
    char *partition, *time, *account; /* NULL = Slurm's default */
    char **extra;                     /* more sbatch arguments, as given */
    size_t nextra;
} fp_sweep_slurm;

typedef struct fp_sweep_spec {
    fp_sweep_kernel *kernels;
    size_t nkernels;
    fp_optd gpus_per_task; /* null = 1 */
    fp_sweep_slurm *slurm; /* NULL = none given */
} fp_sweep_spec;

/* One (kernel, shape) task; `name` is its directory under DIR (and its key). */
typedef struct fp_sweep_task {
    int id; /* index in tasks[] = the Slurm array index */
    char *name, *kernel, *shape;
} fp_sweep_task;

typedef struct fp_sweep_state {
    int schema;
    char *backend;                   /* "local" | "slurm" */
    char *flyprof;                   /* the binary the tasks run */
    char **run_args;                 /* options every task's `flyprof run` gets */
    size_t nrun_args;
    fp_sweep_spec spec;
    fp_sweep_task *tasks;
    size_t ntasks;
    char **jobs;                     /* Slurm array job ids submitted, oldest first */
    size_t njobs;
    char *aggregate_job;             /* the dependent aggregation job's id, or NULL */
} fp_sweep_state;

typedef struct fp_sweep_result {
    char *task;
    int exit_code;     /* the task's `flyprof run` exit status (128+signal when killed) */
    char *error;       /* its envelope's error code, NULL when ok */
    char *message;     /* its envelope's error message, NULL when ok */
    char *job_id;      /* "<array>_<index>" on Slurm, NULL locally */
    double seconds;
} fp_sweep_result;

/* One row of sweep.json. */
typedef struct fp_sweep_row {
    int id;
    char *task, *kernel, *shape;
    char *status;      /* ok | failed | cancelled | timeout | pending | running | not-run */
    fp_optd exit_code;
    char *error;       /* the task's envelope error code (KERNEL_NOT_FOUND ...) */
    char *reason;      /* why it is not ok: the error message or Slurm's state/reason */
    char *job_id;
    char *bundle;      /* DIR/<task>, when it exists */
    fp_optd duration_us;
    char *time_source; /* report.json time.source: counters | csv | capture | trace */
    char *bound, *first_rule;
    fp_optd gain_pct;
    fp_optd history_entry; /* the history entry id, with --history */
} fp_sweep_row;

typedef struct fp_sweep_doc {
    int schema;
    char *backend, *state;  /* state: "done" | "submitted" | "running" */
    char *out;              /* DIR, absolute */
    fp_sweep_spec spec;
    char **jobs;            /* Slurm job ids (arrays, then the aggregation), empty locally */
    size_t njobs;
    int ntasks, n_ok, n_failed, n_cancelled, n_timeout, n_unfinished;
    fp_sweep_row *tasks;
    size_t nrows;
    char *history_db;       /* with --history */
    char *svg, *table;      /* files written into DIR, NULL when not */
} fp_sweep_doc;

extern const fp_schema fp_sweep_spec_schema;
extern const fp_schema fp_sweep_state_schema;
extern const fp_schema fp_sweep_result_schema;
extern const fp_schema fp_sweep_doc_schema;

#endif
