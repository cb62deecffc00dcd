/*
 * order.h - a stable order by 64-bit keys, by radix passes.
 *
 * Why: the serial part of `bubbles` sorted thousands of small records (wave file
 * names, traced waves, walk groups) with qsort, ~40 instructions per comparison;
 * their keys pack into one uint64, whose byte-wise counting passes cost a few
 * instructions per element and pass, and only the bytes that vary get a pass.
 */
#ifndef FLYPROF_ORDER_H
#define FLYPROF_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* perm[0..n) = the indices 0..n-1 ordered by key[], ascending, equal keys in index
 * order (stable: what a stable sort by the key alone gives). */
void fp_order_u64(const uint64_t *key, size_t n, size_t *perm);

/* base[0..n) (elements of `size` bytes) rearranged so that base[i] is the old base[perm[i]]. */
void fp_order_apply(void *base, size_t n, size_t size, const size_t *perm);
/* base[0..n) in place in the order fp_order_u64 gives for key[0..n) (key[i] is base[i]'s). */
void fp_order_by_u64(void *base, size_t n, size_t size, const uint64_t *key);

/* A signed key mapped to one that orders the same as unsigned (the sign bit flipped). */
static inline uint64_t fp_order_key_i64(int64_t v)
{
    return (uint64_t)v ^ ((uint64_t)1 << 63);
}

#endif
