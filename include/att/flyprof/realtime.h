/*
 * realtime.h - realtime.json of a decoded ATT dispatch dir: per shader engine,
 * pairs of (shader clock, reference clock) the decoder recorded, and the
 * reference clock's frequency (../shared/reference/rocprof-formats.md §5.6).
 * Each SE has its own shader-clock offset, so this is what puts the waves of
 * different SEs on one time axis (flyprof timeline).
 *
 * This layer only reads: the first and last pair of each SE are kept (a linear
 * map between them); what to do without the file is the caller's choice.
 */
#ifndef FLYPROF_REALTIME_H
#define FLYPROF_REALTIME_H

#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"

typedef struct fp_rt_se {
    int se;           /* from the key "SE<n>" */
    int64_t g0, r0;   /* first pair: shader cycle, reference tick */
    int64_t g1, r1;   /* last pair (g1 > g0, r1 > r0) */
} fp_rt_se;

typedef struct fp_realtime {
    fp_rt_se *ses;    /* in document order */
    size_t n;
    double frequency; /* reference clock, Hz (> 0) */
} fp_realtime;

/* Absent file -> NO_ARTIFACT; malformed (not pairs of integers, fewer than two
 * increasing pairs for an SE, no positive metadata.frequency) -> BAD_INPUT. */
int fp_realtime_load(const char *dir, fp_realtime *out, fp_err *err);
/* The same on a document in memory (tests, fuzzing); name is used in messages. */
int fp_realtime_parse(const char *buf, size_t len, const char *name, fp_realtime *out, fp_err *err);
void fp_realtime_free(fp_realtime *rt);
/* The entry of SE se, or NULL. */
const fp_rt_se *fp_realtime_se(const fp_realtime *rt, int se);

#endif
