/*
 * mem.h - allocation helpers shared by every layer. Allocation failure aborts:
 * on these 24 GiB machines it means a bug (a runaway size), not a condition to
 * recover from, and checking every small malloc would bury the logic.
 */
#ifndef FLYPROF_MEM_H
#define FLYPROF_MEM_H

#include <stddef.h>
#include <stdlib.h>

/* Make room for one more element in a (arr, n, cap) growable array; doubles. */
#define FP_GROW(arr, n, cap)                                                                       \
    do {                                                                                           \
        if ((n) >= (cap)) {                                                                        \
            size_t nc_ = (cap) ? (cap) * 2 : 64;                                                   \
            void *np_ = realloc((arr), nc_ * sizeof *(arr));                                       \
            if (!np_)                                                                              \
                abort();                                                                           \
            (arr) = np_;                                                                           \
            (cap) = nc_;                                                                           \
        }                                                                                          \
    } while (0)

/* Room for `want` more elements (n used, cap allocated, n <= cap): doubling as FP_GROW,
 * once for a whole batch. */
#define FP_RESERVE(arr, n, cap, want)                                                              \
    do {                                                                                           \
        if ((cap) - (n) < (want)) {                                                                \
            size_t nc_ = (cap) ? (cap) : 64;                                                       \
            while (nc_ - (n) < (want))                                                             \
                nc_ *= 2;                                                                          \
            void *np_ = realloc((arr), nc_ * sizeof *(arr));                                       \
            if (!np_)                                                                              \
                abort();                                                                           \
            (arr) = np_;                                                                           \
            (cap) = nc_;                                                                           \
        }                                                                                          \
    } while (0)

/* Copy of the first n bytes of s, NUL-terminated (s need not be). */
char *fp_xstrndup(const char *s, size_t n);

#endif
