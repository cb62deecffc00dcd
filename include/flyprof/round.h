/*
 * round.h - fp_round without cJSON: for analyses that round like the artifact
 * writers do (decimal places, no "-0") but must not see cJSON (issue 16). The
 * same function json.h declares; implemented in src/core/json.c.
 */
#ifndef FLYPROF_ROUND_H
#define FLYPROF_ROUND_H

/* v rounded to `decimals` places (half away from zero); non-finite -> 0; never -0. */
double fp_round(double v, int decimals);

#endif
