/*
 * sweep.h - the pure parts of `flyprof sweep`: the name of a task's directory,
 * a Slurm job state as a task status, the counts of a summary, and its table and
 * SVG heat map (kernel x shape: time, bound). No I/O.
 */
#ifndef FLYPROF_SWEEP_H
#define FLYPROF_SWEEP_H

#include "flyprof/strbuf.h"
#include "flyprof/sweep_doc.h"

/* "<kernel>--<shape>" with every byte outside [A-Za-z0-9._-] as '_' (malloc'd):
 * a plain file name, the same for the same (kernel, shape) in every run, so that a
 * re-run finds the task's bundle. */
char *fp_sweep_task_name(const char *kernel, const char *shape);

/* The task status of a Slurm job state (scontrol's JobState, sacct's State:
 * "TIMEOUT", "CANCELLED by 0", "NODE_FAIL" ...): "timeout", "cancelled", "failed",
 * "pending", "running" or "ok"; NULL for a state this table does not know. */
const char *fp_sweep_status_of_slurm(const char *state);

/* Whether a status is final (ok, failed, cancelled, timeout). */
bool fp_sweep_status_final(const char *status);

/* Fill d's counters (ok/failed/...) from its rows. */
void fp_sweep_count(fp_sweep_doc *d);

/* The `-f table` text: one line per task, then the counts. */
void fp_sweep_table(const fp_sweep_doc *d, fp_sb *out);

/* A self-contained SVG: kernels down, shapes across, each cell the task's time
 * (colour: time relative to the fastest shape of that kernel) and bound, or its
 * status when not ok. */
void fp_sweep_svg(const fp_sweep_doc *d, fp_sb *out);

#endif
