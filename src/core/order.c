/*
 * order.c - a stable order by 64-bit keys (order.h): least significant byte first,
 * each pass a stable counting pass, so the order is by the whole key with equal keys
 * in index order. A byte with one value over all keys changes nothing: one pass over
 * the keys finds the bits that vary (OR against AND), and only their bytes get a pass.
 */
#include "flyprof/order.h"

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

void fp_order_apply(void *base, size_t n, size_t size, const size_t *perm)
{
    if (n < 2)
        return;
    unsigned char *b = base, *tmp = malloc(n * size);
    if (!tmp)
        abort();
    for (size_t i = 0; i < n; i++)
        memcpy(tmp + i * size, b + perm[i] * size, size);
    memcpy(b, tmp, n * size);
    free(tmp);
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
