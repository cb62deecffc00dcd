/*
 * strtab.h - a growable open-addressing table from byte strings to a size_t.
 *
 * Why: several readers group rows by a text (interning code.json sources,
 * classifying each opcode once, grouping hotspots by source line). Their key
 * sets are small (hundreds) while the rows are thousands, so the table starts
 * small and doubles at half load: a 2,000-row kernel costs a few KB, not a
 * row-sized table zeroed up front. Keys are borrowed and must outlive the table.
 * The hash reads whole words and covers every byte, so near-identical keys
 * (paths differing in one digit) do not collide into quadratic probing.
 */
#ifndef FLYPROF_STRTAB_H
#define FLYPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct fp_strtab_slot {
    const char *key; /* NULL = empty */
    size_t len;
    uint64_t hash;
    size_t val;
} fp_strtab_slot;

typedef struct fp_strtab {
    fp_strtab_slot *slots;
    size_t cap, n; /* cap: 0 or a power of two, n <= cap / 2 */
} fp_strtab;

uint64_t fp_strtab_hash(const char *s, size_t n);
/* The entry of key[0..n) (its stored key and value), or NULL when absent;
 * valid until the next put. */
fp_strtab_slot *fp_strtab_get(const fp_strtab *t, const char *key, size_t n, uint64_t hash);
/* Add key[0..n) (absent: check with get first) with its value. */
void fp_strtab_put(fp_strtab *t, const char *key, size_t n, uint64_t hash, size_t val);
void fp_strtab_free(fp_strtab *t);

#endif
