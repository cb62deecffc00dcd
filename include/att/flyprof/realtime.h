/*
 * realtime.h - realtime.json of a decoded ATT dispatch dir (ROCm >= 7.1 on gfx9,
 * rocprof-formats.md §5.6): per traced SE, pairs (shader clock, reference clock)
 * and the reference clock's frequency. The shader clock of an SE is
 *   MHz = (gfx1 - gfx0) / ((real1 - real0) / frequency) / 1e6
 * and each SE has its own gfx offset, so cycles of two SEs compare only after
 * mapping both to the reference clock (fp_realtime_ns).
 *
 * This layer only reads; what a missing file means is the caller's business.
 */
#ifndef FLYPROF_REALTIME_H
#define FLYPROF_REALTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"

typedef struct fp_rt_se {
    int se;                 /* from the key "SE<n>" */
    int64_t gfx0, real0;    /* first pair */
    int64_t gfx1, real1;    /* last pair */
} fp_rt_se;

typedef struct fp_realtime {
    fp_rt_se *ses;          /* ordered as in the file */
    size_t n;
    double frequency_hz;    /* metadata.frequency (reference clock), 0 when absent */
} fp_realtime;

/* <dir>/realtime.json. Absent -> NO_ARTIFACT; malformed (not an object, a pair
 * that is not two integers, an SE with no pair) -> BAD_INPUT. Unknown keys are
 * skipped. */
int fp_realtime_load(const char *dir, fp_realtime *out, fp_err *err);
int fp_realtime_parse(const char *buf, size_t len, fp_realtime *out, fp_err *err);
void fp_realtime_free(fp_realtime *rt);

/* The SE's entry, or NULL. */
const fp_rt_se *fp_realtime_se(const fp_realtime *rt, int se);
/* Shader clock of one SE in MHz; 0 when its pairs or the frequency cannot give one. */
double fp_realtime_mhz(const fp_realtime *rt, const fp_rt_se *s);
/* A cycle of that SE on the reference clock, in ns of that clock (absolute:
 * comparable across SEs; linear through the first and last pair, extrapolated
 * beyond them); false when the SE gives no clock. */
bool fp_realtime_ns(const fp_realtime *rt, const fp_rt_se *s, int64_t cycle, double *ns);

#endif
