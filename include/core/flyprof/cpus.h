/*
 * cpus.h - what this process may run on, for choosing a worker count
 * (bubbles' default --jobs, docs/commands/bubbles.md).
 */
#ifndef FLYPROF_CPUS_H
#define FLYPROF_CPUS_H

/* CPUs this process may run on: its sched_getaffinity mask (a taskset / cgroup
 * cpuset), else the online CPUs; at least 1. */
int fp_cpus_usable(void);

#endif
