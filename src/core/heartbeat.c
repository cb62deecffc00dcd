/*
 * heartbeat.c - see heartbeat.h. A capture runs rocprofv3 for minutes (the
 * default timeout is 1200 s); without these lines a person cannot tell a slow
 * JIT compile from a hang.
 */
#include "flyprof/heartbeat.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double interval_from_env(void)
{
    const char *e = getenv("FLYPROF_HEARTBEAT_S");
    if (e && *e) {
        char *end = NULL;
        double v = strtod(e, &end);
        if (end && !*end && isfinite(v) && v > 0)
            return v;
    }
    return FP_HEARTBEAT_S;
}

void fp_heartbeat_begin(fp_heartbeat *h, fp_ctx *ctx, const char *fmt, ...)
{
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->step, sizeof h->step, fmt, ap);
    va_end(ap);
    h->interval_s = interval_from_env();
    h->next_s = h->interval_s;
}

void fp_heartbeat_tick(void *arg, double elapsed_s)
{
    fp_heartbeat *h = arg;
    if (!h || elapsed_s < h->next_s)
        return;
    /* whole seconds once the interval is a second or more (the usual case) */
    if (h->interval_s >= 1)
        fp_progress(h->ctx, "%s: running, %.0f s elapsed", h->step, floor(elapsed_s));
    else
        fp_progress(h->ctx, "%s: running, %.1f s elapsed", h->step, elapsed_s);
    while (h->next_s <= elapsed_s)
        h->next_s += h->interval_s;
}

void fp_heartbeat_end(fp_heartbeat *h, double elapsed_s, const char *status)
{
    fp_progress(h->ctx, "%s: %s in %.1f s", h->step, status, elapsed_s);
}
