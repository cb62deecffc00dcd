/*
 * order.c - a stable order by 64-bit keys (order.h): least significant byte first,
 * each pass a stable counting pass, so the order is by the whole key with equal keys
 * in index order. A byte with one value over all keys changes nothing: one pass over
 * the keys finds the bits that vary (OR against AND), and only their bytes get a pass.
 */
#include "flyprof/order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void fp_order_u64(const uint64_t *key, size_t n, size_t *perm)
{
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        perm[i] = i;
        any |= key[i];
        all &= key[i];
    }
    const uint64_t varies = any ^ all;
    if (n < 2 || !varies)
        return;
    size_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        abort();
    size_t *cur = perm, *other = tmp;
    for (int b = 0; b < 8; b++) {
        if (!((varies >> (8 * b)) & 0xff))
            continue;
        size_t cnt[256];
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(key[i] >> (8 * b)) & 0xff]++;
        for (size_t v = 0, sum = 0; v < 256; v++) {
            size_t k = cnt[v];
            cnt[v] = sum;
            sum += k;
        }
        for (size_t i = 0; i < n; i++)
            other[cnt[(key[cur[i]] >> (8 * b)) & 0xff]++] = cur[i];
        size_t *t = cur;
        cur = other;
        other = t;
    }
    if (cur != perm)
        memcpy(perm, cur, n * sizeof *perm);
    free(tmp);
}

/* One element: records of a few words (the callers' are 24..64 bytes) as word moves the
 * compiler keeps inline, where memcpy of a run-time size is a library call each. */
static inline void elem_copy(unsigned char *d, const unsigned char *s, size_t size)
{
    switch (size) { /* a constant size each: a few vector moves */
#define ELEM_COPY(N)                                                                               \
    case N:                                                                                        \
        memcpy(d, s, N);                                                                           \
        return;
        ELEM_COPY(8)
        ELEM_COPY(16)
        ELEM_COPY(24)
        ELEM_COPY(32)
        ELEM_COPY(40)
        ELEM_COPY(48)
        ELEM_COPY(56)
        ELEM_COPY(64)
#undef ELEM_COPY
    default:
        memcpy(d, s, size);
    }
}

/* In place, cycle by cycle (base[j] takes base[perm[j]] along each cycle, the cycle's
 * first element held aside): one copy per element plus one per cycle, where a
 * temporary array and its copy back moved every byte twice more. */
void fp_order_apply(void *base, size_t n, size_t size, const size_t *perm)
{
    if (n < 2)
        return;
    unsigned char *b = base, small[64];
    unsigned char *t = size <= sizeof small ? small : malloc(size);
    bool *done = calloc(n, sizeof *done);
    if (!t || !done)
        abort();
    for (size_t start = 0; start < n; start++) {
        if (done[start])
            continue;
        done[start] = true;
        if (perm[start] == start)
            continue;
        elem_copy(t, b + start * size, size);
        size_t j = start;
        for (size_t k = perm[j]; k != start; j = k, k = perm[j]) {
            elem_copy(b + j * size, b + k * size, size);
            done[k] = true;
        }
        elem_copy(b + j * size, t, size);
    }
    free(done);
    if (t != small)
        free(t);
}

void fp_order_by_u64(void *base, size_t n, size_t size, const uint64_t *key)
{
    if (n < 2)
        return;
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm)
        abort();
    fp_order_u64(key, n, perm);
    fp_order_apply(base, n, size, perm);
    free(perm);
}
