/*
 * order.c - a stable order by 64-bit keys (order.h): least significant byte first,
 * each pass a stable counting pass, so the order is by the whole key with equal keys
 * in index order. One pass over the keys counts all eight bytes; a byte that has one
 * value over all keys changes nothing and is skipped.
 */
#include "flyprof/order.h"

#include <stdlib.h>
#include <string.h>

void fp_order_u64(const uint64_t *key, size_t n, size_t *perm)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    if (n < 2)
        return;
    size_t(*cnt)[256] = calloc(8, sizeof *cnt);
    size_t *tmp = malloc(n * sizeof *tmp);
    if (!cnt || !tmp)
        abort();
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            cnt[b][(key[i] >> (8 * b)) & 0xff]++;
    size_t *cur = perm, *other = tmp;
    for (int b = 0; b < 8; b++) {
        size_t *c = cnt[b];
        if (c[(key[0] >> (8 * b)) & 0xff] == n) /* one value: the pass keeps the order */
            continue;
        for (size_t v = 0, sum = 0; v < 256; v++) {
            size_t k = c[v];
            c[v] = sum;
            sum += k;
        }
        for (size_t i = 0; i < n; i++)
            other[c[(key[cur[i]] >> (8 * b)) & 0xff]++] = cur[i];
        size_t *t = cur;
        cur = other;
        other = t;
    }
    if (cur != perm)
        memcpy(perm, cur, n * sizeof *perm);
    free(tmp);
    free(cnt);
}
