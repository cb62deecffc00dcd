/* fuzz_order - fp_order_u64 (src/core/order.c: radix passes over the bytes that vary)
 * against a stable sort by the key alone (qsort on (key, index): the index makes every
 * comparison total, so the order is the stable one). The input is the keys: its first
 * byte says how many of a key's 8 bytes come from the input (1..8, the rest copied from
 * the key before, so keys share high or low bytes as packed wave numbers do), then the
 * keys' bytes, little-endian. */
#include <stdlib.h>
#include <string.h>

#include "flyprof/order.h"
#include "fuzz_common.h"

typedef struct ki {
    uint64_t key;
    size_t i;
} ki;

static int cmp_ki(const void *a, const void *b)
{
    const ki *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t w = (size_t)(data[0] % 8) + 1, shift = (size_t)(data[0] >> 3) % 8;
    size_t n = (size - 1) / w;
    uint64_t *key = calloc(n + 1, sizeof *key);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    ki *ref = malloc((n + 1) * sizeof *ref);
    if (!key || !perm || !ref)
        abort();
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t part = 0;
        memcpy(&part, data + 1 + i * w, w); /* little-endian machines: the low w bytes */
        /* w bytes placed at byte `shift` (wrapping), the others the previous key's */
        uint64_t mask = w == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * w)) - 1);
        unsigned r = (unsigned)(8 * shift);
        mask = r ? (mask << r) | (mask >> (64 - r)) : mask;
        part = r ? (part << r) | (part >> (64 - r)) : part;
        key[i] = (prev & ~mask) | (part & mask);
        prev = key[i];
        ref[i] = (ki){key[i], i};
    }
    fp_order_u64(key, n, perm);
    if (n)
        qsort(ref, n, sizeof *ref, cmp_ki);
    for (size_t i = 0; i < n; i++)
        if (perm[i] != ref[i].i)
            abort();
    free(key);
    free(perm);
    free(ref);
    return 0;
}
