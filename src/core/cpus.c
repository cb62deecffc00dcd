/*
 * cpus.c - see cpus.h.
 */
#include "flyprof/cpus.h"

#include "flyprof/team.h"

#include <sched.h>
#include <unistd.h>

int fp_cpus_usable(void)
{
    int spread = fp_team_spread_cpus(); /* this thread is pinned for a while: the mask it had */
    if (spread > 0)
        return spread;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n >= 1)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (n > 4096 ? 4096 : (int)n) : 1;
}
