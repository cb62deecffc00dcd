/*
 * sweep_slurm.h - the Slurm client of `flyprof sweep`: sbatch, squeue, scontrol,
 * sacct, scancel run as programs (no shell), their output parsed. Private to src/cmd.
 */
#ifndef FLYPROF_CMD_SWEEP_SLURM_H
#define FLYPROF_CMD_SWEEP_SLURM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"
#include "flyprof/sweep_doc.h"

/* What Slurm says about one array task. */
typedef struct fp_slurm_task_state {
    bool known;
    char state[32];   /* JobState / State, e.g. "TIMEOUT" */
    char reason[128]; /* Reason, e.g. "TimeLimit", "None" */
    char job_id[48];  /* "<array>_<index>" */
} fp_slurm_task_state;

/* Submit the array job (indices `ids`) that runs `script` once per index, then the
 * aggregation job `agg_script` after it (afterany). Job ids are malloc'd. A missing
 * sbatch is MISSING_PREREQ naming the backend; sbatch's refusal is BAD_ARGS with
 * its message. */
int fp_slurm_submit(const fp_sweep_spec *spec, const char *dir, const int *ids, size_t nids, const char *script,
                    const char *agg_script, char **array_id, char **agg_id, fp_err *err);

/* Fill st[0..ntasks) (indexed by task id) from scontrol (sacct when scontrol no
 * longer knows a job), for every job of `jobs` in order (a later submission's state
 * wins). Unknown stays !known. */
void fp_slurm_task_states(char *const *jobs, size_t njobs, fp_slurm_task_state *st, size_t ntasks);

/* Whether any of the jobs is still in squeue (pending, running, completing). */
bool fp_slurm_any_queued(char *const *jobs, size_t njobs, const char *agg);

/* The aggregation job's state ("COMPLETED", ...) into buf, "" when unknown. */
void fp_slurm_job_state(const char *job, char *buf, size_t n);

/* scancel every job of the list (and agg). */
int fp_slurm_cancel(char *const *jobs, size_t njobs, const char *agg, fp_err *err);

#endif
