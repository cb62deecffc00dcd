/* fp_order_u64 (order.c) against a stable insertion sort by the key alone: random
 * keys, few distinct keys (ties keep index order), keys that differ in one byte only
 * (each byte position), all equal, 0 and 1 element, the extremes, signed keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/order.h"

static void reference(const uint64_t *key, size_t n, size_t *perm)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && key[perm[j - 1]] > key[i]) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = i;
    }
}

static void check(const uint64_t *key, size_t n)
{
    size_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    assert_non_null(got);
    assert_non_null(want);
    fp_order_u64(key, n, got);
    reference(key, n, want);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("n %zu: position %zu holds %zu, want %zu", n, i, got[i], want[i]);
    free(got);
    free(want);
}

static void test_order(void **state)
{
    (void)state;
    static uint64_t k[3000];
    uint64_t x = 88172645463325252ull;
    check(k, 0);
    k[0] = 5;
    check(k, 1);
    for (int it = 0; it < 400; it++) {
        size_t n = 1 + (size_t)(it * 53) % 3000;
        int shape = it % 6;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            k[i] = shape == 0 ? x
                 : shape == 1 ? x % 7                                   /* ties */
                 : shape == 2 ? (x & 0xffull) << (8 * (size_t)(it % 8)) /* one byte varies */
                 : shape == 3 ? 42
                 : shape == 4 ? (x & 1 ? UINT64_MAX : 0)
                              : fp_order_key_i64((int64_t)(x % 2001) - 1000);
        }
        check(k, n);
    }
    /* signed keys order as signed */
    int64_t v[] = {5, -1, INT64_MIN, 0, INT64_MAX, -1, 3};
    uint64_t sk[7];
    for (int i = 0; i < 7; i++)
        sk[i] = fp_order_key_i64(v[i]);
    size_t p[7];
    fp_order_u64(sk, 7, p);
    const size_t want[7] = {2, 1, 5, 3, 6, 0, 4};
    for (int i = 0; i < 7; i++)
        assert_int_equal(p[i], want[i]);
}

/* fp_order_by_u64 moves whole records (odd sizes, ties in index order) as the
 * reference order says; fp_order_apply with it; 0 and 1 element untouched. */
typedef struct rec {
    uint64_t key;
    unsigned char pad[13];
    uint32_t idx;
} rec;

static void test_order_by(void **state)
{
    (void)state;
    static rec r[500];
    static uint64_t k[500];
    size_t want[500];
    uint64_t x = 2463534242ull;
    for (size_t n = 0; n <= 500; n += n < 4 ? 1 : 61) {
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            k[i] = r[i].key = x % 11;
            memset(r[i].pad, (int)(i & 0xff), sizeof r[i].pad);
            r[i].idx = (uint32_t)i;
        }
        reference(k, n, want);
        fp_order_by_u64(r, n, sizeof *r, k);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(r[i].idx, want[i]);
            assert_int_equal(r[i].key, k[want[i]]);
            assert_int_equal(r[i].pad[12], (unsigned char)(want[i] & 0xff));
        }
    }
}

/* fp_order_apply's element copies of every kind: the constant sizes (8..64 by 8) and
 * any other (odd, past 64), records whose every byte says where it came from; keys with
 * ties, long cycles and fixed points. */
static void test_apply_sizes(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 3, 8, 16, 24, 40, 48, 56, 64, 72, 100};
    static unsigned char r[300 * 100], orig[300 * 100];
    static uint64_t k[300];
    size_t want[300];
    uint64_t x = 88172645463325252ull;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const size_t sz = sizes[si];
        for (size_t n = 0; n <= 300; n += n < 3 ? 1 : 37) {
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                k[i] = i % 5 == 0 ? i : x % 17; /* some in place already */
                for (size_t b = 0; b < sz; b++)
                    orig[i * sz + b] = (unsigned char)(i * 31 + b * 7 + (i >> 8) * 3);
            }
            memcpy(r, orig, n * sz);
            reference(k, n, want);
            fp_order_by_u64(r, n, sz, k);
            for (size_t i = 0; i < n; i++)
                assert_memory_equal(r + i * sz, orig + want[i] * sz, sz);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_order), cmocka_unit_test(test_order_by),
                                       cmocka_unit_test(test_apply_sizes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
