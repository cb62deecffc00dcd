/*
 * team.h - a few threads kept ready for short tasks (bubbles' side jobs, walk
 * workers, writers), so that a task starts in microseconds instead of waiting
 * for a new thread to be scheduled.
 *
 * Why: on the VMs this runs on (and on any loaded host) a new thread or a
 * sleeping one woken up often waits 1-4 ms for its CPU (measured: a thread
 * created while the creator spins starts 0.7-4.6 ms later), which is a third of
 * a whole `bubbles` run on a 7 MB trace. The team's threads are started once,
 * early (fp_team_warm), and spin between tasks (yielding the CPU to anyone
 * else who wants it) for up to FP_TEAM_SPIN_MS before they sleep; joiners spin
 * the same way. Like an OpenMP runtime's active wait.
 *
 * Semantics: fp_task_start queues fn(arg); fp_task_join returns once it has run.
 * A task no team thread has taken yet when it is joined is run by the joiner
 * itself, so a join never waits for a busy team and a team of one thread runs
 * any number of tasks. Without a team (none warmed) a task gets a thread of its
 * own, as pthread_create. Tasks must not wait for each other except by joining.
 */
#ifndef FLYPROF_TEAM_H
#define FLYPROF_TEAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* how long an idle team thread, or a joiner, spins before it sleeps */
#define FP_TEAM_SPIN_MS 2

typedef struct fp_task {
    void *(*fn)(void *);
    void *arg;
    struct fp_task *next; /* in the team's queue */
    atomic_int state;     /* FP_TASK_* (team.c) */
    bool own;             /* ran on a thread of its own (no team) */
    pthread_t th;
} fp_task;

/* Start up to n team threads now (fewer if the team already has some; at most
 * FP_TEAM_MAX). n <= 0 starts none. Safe to call more than once. */
void fp_team_warm(int n);

/* The team's thread count. */
int fp_team_size(void);

/* Run fn(arg) beside the caller. Returns 0, or -1 when it could not (no team and
 * no thread): then nothing was queued and the caller runs fn itself. */
int fp_task_start(fp_task *t, void *(*fn)(void *), void *arg);

/* Returns once the task has run (here, when no thread had taken it yet). */
void fp_task_join(fp_task *t);

/* Spread the work over CPUs, from fp_team_spread_begin to the matching
 * fp_team_spread_end (calls nest; only the thread that warms the team calls
 * them): the caller stays on the CPU it is on and each team thread, now or
 * warmed later, on another CPU of the caller's affinity mask; the end gives
 * every one of them that mask back. No-op when the mask has one CPU.
 *
 * Why: on the 2-vCPU VMs this was measured on (a kernel that packs threads
 * onto few vCPUs, `sched_vcpu_pack`), two busy threads of one process were
 * often time-sliced on one vCPU while the other idled: `bubbles --jobs 2` was
 * 1.04x the wall time of `--jobs 1` on flash_attn_func-big, and 0.75x with
 * the two pinned apart (bench/paired.c, 31 rounds; docs/architecture.md).
 * Child processes started in between inherit the pinned mask: spread only
 * around work that starts none. fp_cpus_usable() keeps its answer meanwhile. */
void fp_team_spread_begin(void);
void fp_team_spread_end(void);

/* While spread has pinned: the CPU count of the mask it will give back; else 0
 * (fp_cpus_usable reads it, so that a pinned caller is not taken for one CPU). */
int fp_team_spread_cpus(void);

#endif
