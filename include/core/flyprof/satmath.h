/*
 * satmath.h - saturating int64 arithmetic for sums of untrusted cycle counts.
 *
 * code.json cells and wstates arrays are read as full int64: a hostile or
 * corrupt file can make a sum wrap (undefined behaviour, and a release build
 * then prints negative cycles or 1e18 %). Sums saturate at INT64_MIN/MAX
 * instead and raise a flag the caller turns into one warning.
 */
#ifndef FLYPROF_SATMATH_H
#define FLYPROF_SATMATH_H

#include <stdbool.h>
#include <stdint.h>

static inline int64_t fp_sat_add(int64_t a, int64_t b, bool *overflow)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *overflow = true;
        return b > 0 ? INT64_MAX : INT64_MIN;
    }
    return r;
}

static inline int64_t fp_sat_sub(int64_t a, int64_t b, bool *overflow)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) {
        *overflow = true;
        return b < 0 ? INT64_MAX : INT64_MIN;
    }
    return r;
}

static inline int64_t fp_sat_mul(int64_t a, int64_t b, bool *overflow)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *overflow = true;
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    }
    return r;
}

#endif
