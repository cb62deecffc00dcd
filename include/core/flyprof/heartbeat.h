/*
 * heartbeat.h - "still running" lines on stderr while a long step runs
 * (rocprofv3 passes of capture and counters, the steps of run): the step and
 * its elapsed time every FP_HEARTBEAT_S seconds, then one final timing line.
 * Nothing with -q. Driven by fp_proc_run's tick callback (proc.h), so the
 * parent's poll loop is the clock: no thread, no signal.
 */
#ifndef FLYPROF_HEARTBEAT_H
#define FLYPROF_HEARTBEAT_H

#include "flyprof/cli.h"

/* Seconds between two heartbeat lines; $FLYPROF_HEARTBEAT_S overrides it
 * (tests use a fraction of a second). */
#define FP_HEARTBEAT_S 10.0

typedef struct fp_heartbeat {
    fp_ctx *ctx;
    char step[200];    /* "capture: att pass (big)" */
    double interval_s;
    double next_s;     /* elapsed time of the next line */
} fp_heartbeat;

/* Start a step (prints nothing: callers already announce it). */
void fp_heartbeat_begin(fp_heartbeat *h, fp_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* fp_proc_opts.tick: arg is the fp_heartbeat. */
void fp_heartbeat_tick(void *arg, double elapsed_s);
/* The final timing line: "<step>: <status> in 12.3 s". */
void fp_heartbeat_end(fp_heartbeat *h, double elapsed_s, const char *status);

#endif
