/* test_json_print.c - fp_json_print_bytes writes exactly cJSON_Print's /
 * cJSON_PrintUnformatted's bytes: number edge cases (integers around 10^15,
 * 2^31, 2^53, fractions needing %1.17g, NaN/inf, -0), escapes, empty and nested
 * containers, random trees, and every JSON document of the corpus. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/json.h"
#include "flyprof/strbuf.h"

static void same(const cJSON *j)
{
    for (int fmt = 0; fmt < 2; fmt++) {
        char *a = fmt ? cJSON_Print(j) : cJSON_PrintUnformatted(j);
        size_t n = 0;
        char *b = fp_json_print_bytes(j, fmt, &n);
        assert_non_null(a);
        if (strcmp(a, b))
            fprintf(stderr, "cJSON: %s\nfp:    %s\n", a, b);
        assert_string_equal(a, b);
        assert_int_equal(n, strlen(a));
        free(a);
        free(b);
    }
}

static const double NUMS[] = {0.0, -0.0, 1, -1, 7, 42, 65.68, 0.1, 0.2, 1.0 / 3, 2.0 / 3, -2.5, 1e-7, 1.5e-300,
                              2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0, 4294967296.0,
                              999999999999999.0, 1e15, 1e15 + 1, -999999999999999.0, -1e15, 9007199254740992.0,
                              9007199254740993.0, 1e16, 1e17, 1.7976931348623157e308, -1e300, 123456789.125,
                              1234567890123.5, 0.30000000000000004, 100.0 * 380 / 448, 1e21, 5e-324};

static void test_numbers(void **state)
{
    (void)state;
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof NUMS / sizeof *NUMS; i++) {
        cJSON *one = cJSON_CreateNumber(NUMS[i]);
        same(one);
        cJSON_Delete(one);
        cJSON_AddItemToArray(a, cJSON_CreateNumber(NUMS[i]));
    }
    same(a);
    /* NaN and infinities print null */
    cJSON *s = cJSON_CreateArray();
    cJSON_AddItemToArray(s, cJSON_CreateNumber(NAN));
    cJSON_AddItemToArray(s, cJSON_CreateNumber(INFINITY));
    cJSON_AddItemToArray(s, cJSON_CreateNumber(-INFINITY));
    same(s);
    size_t n;
    char *t = fp_json_print_bytes(s, false, &n);
    assert_string_equal(t, "[null,null,null]");
    free(t);
    cJSON_Delete(s);
    cJSON_Delete(a);
}

static void test_strings_and_shapes(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plain", "abc");
    cJSON_AddStringToObject(o, "esc", "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f end");
    cJSON_AddStringToObject(o, "utf8", "\xc3\xa9\xe2\x82\xac \xff raw");
    cJSON_AddStringToObject(o, "", "empty key");
    cJSON_AddStringToObject(o, "k\"ey\n", "escaped key");
    cJSON_AddItemToObject(o, "eo", cJSON_CreateObject());
    cJSON_AddItemToObject(o, "ea", cJSON_CreateArray());
    cJSON_AddNullToObject(o, "n");
    cJSON_AddTrueToObject(o, "t");
    cJSON_AddFalseToObject(o, "f");
    cJSON *arr = cJSON_AddArrayToObject(o, "arr");
    cJSON_AddItemToArray(arr, cJSON_CreateObject());
    cJSON *in = cJSON_CreateObject();
    cJSON_AddNumberToObject(in, "x", 1.5);
    cJSON_AddItemToObject(in, "deep", cJSON_CreateArray());
    cJSON_AddItemToArray(cJSON_GetObjectItem(in, "deep"), cJSON_CreateArray());
    cJSON_AddItemToArray(arr, in);
    cJSON_AddItemToArray(arr, cJSON_CreateString(""));
    cJSON_AddItemToObject(o, "raw", cJSON_CreateRaw("{\"r\": 1}"));
    same(o);
    same(arr);
    cJSON *e = cJSON_CreateObject();
    same(e);
    cJSON_Delete(e);
    cJSON_Delete(o);
}

/* deterministic random trees: numbers as the artifacts make them (int64
 * counters, fp_round to 1..4 places, ratios) and some raw doubles */
static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double rnd_num(void)
{
    switch (next() % 6) {
    case 0: return (double)(int64_t)(next() % 1000);
    case 1: return (double)((int64_t)(next() >> (next() % 64)) * (next() & 1 ? 1 : -1));
    case 2: return fp_round((double)(next() % 10000000) / (double)(1 + next() % 9999), (int)(next() % 5));
    case 3: return (double)(next() % 100000) / 7.0;
    case 4: {
        double d;
        uint64_t u = next();
        memcpy(&d, &u, sizeof d);
        return d;
    }
    default: return fp_round(100.0 * (double)(next() % 5000) / (double)(1 + next() % 5000), 2);
    }
}

static cJSON *rnd_tree(int depth)
{
    int k = depth > 3 ? (int)(next() % 3) : (int)(next() % 5);
    if (k == 3) {
        cJSON *o = cJSON_CreateObject();
        int n = (int)(next() % 5);
        for (int i = 0; i < n; i++) {
            char key[16];
            snprintf(key, sizeof key, "k%d", i);
            cJSON_AddItemToObject(o, key, rnd_tree(depth + 1));
        }
        return o;
    }
    if (k == 4) {
        cJSON *a = cJSON_CreateArray();
        int n = (int)(next() % 5);
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(a, rnd_tree(depth + 1));
        return a;
    }
    if (k == 2)
        return cJSON_CreateString(next() & 1 ? "s\t\"x\"" : "plain");
    return cJSON_CreateNumber(rnd_num());
}

/* Short decimals (m / 10^k, the fast path of put_number) and their neighbours one ulp
 * away, at every scale around the path's bounds (1e-4, 1e9, 15 digits), both signs. */
static void test_short_decimals(void **state)
{
    (void)state;
    cJSON *a = cJSON_CreateArray();
    size_t n = 0;
    for (int k = 0; k <= 7; k++) {
        double p = pow(10, k);
        for (int i = 0; i < 400; i++) {
            double m = (double)(next() % 2000000000ull);
            if (i % 4 == 1)
                m = (double)(next() % 100);
            else if (i % 4 == 2)
                m = floor(m * (double)(1 + next() % 500000)); /* up to ~1e15 digits */
            double d = m / p;
            double v[] = {d, -d, nextafter(d, 0), nextafter(d, INFINITY), d * 1e-4, d * 1e3, 1e-4 + d * 1e-12,
                          nextafter(1e-4, 0) , 1e9 - 1.0 / p, nextafter(1e9, 0)};
            for (size_t j = 0; j < sizeof v / sizeof *v; j++) {
                cJSON *one = cJSON_CreateNumber(v[j]);
                same(one);
                cJSON_Delete(one);
                if (n++ % 16 == 0)
                    cJSON_AddItemToArray(a, cJSON_CreateNumber(v[j]));
            }
        }
    }
    same(a);
    cJSON_Delete(a);
}

static void test_random(void **state)
{
    (void)state;
    for (int i = 0; i < 3000; i++) {
        cJSON *t = rnd_tree(0);
        same(t);
        cJSON_Delete(t);
    }
}

/* fp_json_print_utf8 (what fp_json_print uses) replaces invalid UTF-8 while copying
 * strings: the same bytes as printing with cJSON's rules and sanitising the text after. */
static void test_utf8_on_the_fly(void **state)
{
    (void)state;
    static const unsigned char pool[] = {'a', '"', '\\', '\n', 0x01, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xa9, 0xe0,
                                         0xa0, 0xed, 0xa0, 0xef, 0xbf, 0xbd, 0xf0, 0x90, 0x8d, 0xf4, 0x90, 0xff};
    for (int i = 0; i < 6000; i++) {
        /* up to 71 bytes: the 16-byte scan of put_string meets its first byte to escape at
         * every offset of every block, or none (odd i: mostly plain text) */
        unsigned char v[72], k[8];
        size_t nv = next() % (sizeof v - 1), nk = 1 + next() % (sizeof k - 2);
        for (size_t j = 0; j < nv; j++)
            v[j] = i % 2 && next() % 8 ? (unsigned char)('a' + next() % 26) : pool[next() % sizeof pool];
        for (size_t j = 0; j < nk; j++)
            k[j] = pool[next() % sizeof pool];
        v[nv] = k[nk] = '\0';
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, (const char *)k, cJSON_CreateString((const char *)v));
        same(o); /* the bytes as they are: cJSON's exactly */
        for (int fmt = 0; fmt < 2; fmt++) {
            size_t n = 0, rep = 0;
            char *a = fp_json_print_utf8(o, fmt, &n);
            char *b = fp_utf8_sanitize(fp_json_print_bytes(o, fmt, NULL), &rep);
            assert_string_equal(a, b);
            assert_int_equal(n, strlen(a));
            assert_true(fp_utf8_valid(a));
            free(a);
            free(b);
        }
        cJSON_Delete(o);
    }
}

/* fp_json_print_fd (what artifacts are written with) streams the bytes of
 * fp_json_print_utf8 plus its tail through a 64 KiB buffer: the same file for
 * documents smaller and larger than the buffer and for one string larger than it. */
static void same_streamed(const cJSON *j)
{
    for (int fmt = 0; fmt < 2; fmt++) {
        char *want = fp_json_print_utf8(j, fmt, NULL);
        FILE *f = tmpfile();
        assert_non_null(f);
        assert_int_equal(fp_json_print_fd(fileno(f), j, fmt, "\n"), 0);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        char *got = malloc((size_t)len + 1);
        assert_non_null(got);
        assert_int_equal(fread(got, 1, (size_t)len, f), (size_t)len);
        got[len] = '\0';
        assert_int_equal((size_t)len, strlen(want) + 1);
        assert_memory_equal(got, want, strlen(want));
        assert_int_equal(got[len - 1], '\n');
        free(got);
        free(want);
        fclose(f);
    }
}

static void test_streamed(void **state)
{
    (void)state;
    for (int i = 0; i < 200; i++) {
        cJSON *t = rnd_tree(0);
        same_streamed(t);
        cJSON_Delete(t);
    }
    /* ~200 KB of rows (several buffer fills), then one 150 KB string, with an invalid byte */
    cJSON *big = cJSON_CreateArray();
    for (int i = 0; i < 4000; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "rank", i);
        cJSON_AddNumberToObject(o, "share", i / 7.0);
        cJSON_AddStringToObject(o, "source", "/w/kernels/flash_attn_func.py:257");
        cJSON_AddItemToArray(big, o);
    }
    char *s = malloc(150001);
    assert_non_null(s);
    memset(s, 'x', 150000);
    s[75000] = (char)0xff;
    s[150000] = '\0';
    cJSON_AddItemToArray(big, cJSON_CreateString(s));
    free(s);
    same_streamed(big);
    cJSON_Delete(big);
    /* a write error is reported, not lost */
    cJSON *one = cJSON_CreateString("x");
    assert_int_not_equal(fp_json_print_fd(-1, one, true, NULL), 0);
    cJSON_Delete(one);
}

static int corpus_docs(const char *dir, int depth)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        int pl = snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (pl < 0 || (size_t)pl >= sizeof p)
            continue; /* a path this long is not in the corpus */
        size_t l = strlen(e->d_name);
        /* the small documents: code/snapshots/expected/occupancy, not the wave files */
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json") && strncmp(e->d_name, "se", 2)) {
            cJSON *j = NULL;
            fp_err err = {0};
            if (fp_json_parse_file(p, &j, &err) == 0) {
                same(j);
                cJSON_Delete(j);
                n++;
            }
            fp_err_clear(&err);
        } else if (depth < 5) {
            n += corpus_docs(p, depth + 1);
        }
    }
    closedir(d);
    return n;
}

static void test_corpus(void **state)
{
    (void)state;
    int n = corpus_docs(FP_CORPUS, 0);
    if (n == 0)
        skip();
    fprintf(stderr, "%d corpus documents printed identically\n", n);
}

/* fp_round takes 10^d from a table for d < 16: the same numbers as pow(10, d), the
 * formula it had (an independent computation of it here, on values of every magnitude). */
static void test_round_table(void **state)
{
    (void)state;
    unsigned long long x = 88172645463325252ULL;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v = (double)(x % 2000000007ULL) / (double)(1 + (x >> 40) % 100000) * ((x & 1) ? -1 : 1);
        if (i % 7 == 0)
            v *= 1e9;
        for (int d = 0; d < 17; d++) {
            double m = pow(10.0, d), want = round(v * m) / m;
            if (want == 0.0)
                want = 0.0;
            double got = fp_round(v, d);
            if (memcmp(&got, &want, sizeof got))
                fail_msg("fp_round(%.17g, %d) = %.17g, pow gives %.17g", v, d, got, want);
        }
    }
    assert_true(fp_round(-0.001, 2) == 0.0 && !signbit(fp_round(-0.001, 2)));
    assert_true(fp_round(NAN, 2) == 0.0);
}

/* cJSON's text of a string (the quoted, escaped form) */
static char *cjson_str(const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *t = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return t;
}

/* The fast paths of the streaming writer (fp_jw_key, the short-string copy in fp_jw_str,
 * fp_jw_i64) against cJSON's own text, on random keys (escapes, control bytes, valid
 * UTF-8, lengths across the 16/64-byte limits), depths across the 8-tab store, and
 * integers around every limit. */
static void test_fast_paths(void **state)
{
    (void)state;
    static const char *const PIECES[] = {"a", "Z", "_", "0", " ", "\"", "\\", "\t", "\n", "\x01", "\x1f", "/",
                                         "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "~", "\x7f"};
    uint64_t x = 12345;
    for (int t = 0; t < 20000; t++) {
        char key[200];
        size_t len = 0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t parts = (size_t)(x >> 33) % 90;
        for (size_t p = 0; p < parts; p++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            /* mostly plain letters, as keys are */
            const char *piece = (x >> 40) % 4 ? "k" : PIECES[(x >> 33) % (sizeof PIECES / sizeof *PIECES)];
            size_t pl = strlen(piece);
            if (len + pl + 1 >= sizeof key)
                break;
            memcpy(key + len, piece, pl);
            len += pl;
        }
        key[len] = '\0';
        size_t depth = (size_t)(x >> 20) % 13;
        bool first = (x >> 30) & 1;
        fp_jw w;
        fp_jw_init(&w, -1);
        fp_jw_lit(&w, "<", 1);
        fp_jw_key(&w, key, depth, first);
        fp_jw_str(&w, key);
        fp_jw_lit(&w, ">", 1);
        size_t n;
        char *got = fp_jw_detach(&w, &n);
        char *q = cjson_str(key), want[1200];
        snprintf(want, sizeof want, "<%s%.*s%s:\t%s>", first ? "" : ",\n", (int)depth, "\t\t\t\t\t\t\t\t\t\t\t\t\t", q, q);
        if (strcmp(got, want)) {
            print_error("key '%s' depth %zu: got '%s' want '%s'\n", key, depth, got, want);
            fail();
        }
        assert_int_equal(n, strlen(want));
        free(q);
        free(got);
    }
    /* one writer, many keys written again and again (fp_jw_key caches by address; 300
     * keys evict from its 256 slots; 30 rounds, ~400 KB, fill the 64 KiB buffer many
     * times, so hits without room take the slow path): every repetition gives the same
     * text as the first */
    enum { NK = 300 };
    char *keys[NK];
    for (int i = 0; i < NK; i++) {
        keys[i] = malloc(64);
        assert_non_null(keys[i]);
        snprintf(keys[i], 64, i % 7 ? "key_%d%.*s" : "k\"%d%.*s", i, i % 50, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    }
    fp_jw kw;
    fp_jw_init(&kw, -1);
    fp_sb kwant;
    fp_sb_init(&kwant);
    for (int round = 0; round < 30; round++)
        for (int i = 0; i < NK; i++) {
            int k = (i * 7 + round) % NK;
            size_t depth = (size_t)(i % 11);
            fp_jw_key(&kw, keys[k], depth, i == 0 && round == 0);
            char *q = cjson_str(keys[k]);
            fp_sb_addf(&kwant, "%s%.*s%s:\t", i == 0 && round == 0 ? "" : ",\n", (int)depth, "\t\t\t\t\t\t\t\t\t\t\t", q);
            free(q);
        }
    size_t wn;
    char *kgot = fp_jw_detach(&kw, &wn);
    assert_string_equal(kgot, kwant.buf);
    free(kgot);
    fp_sb_free(&kwant);
    for (int i = 0; i < NK; i++)
        free(keys[i]);
    static const int64_t INTS[] = {0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, -1000, 123456789, 999999999999999,
                                   1000000000000000, -999999999999999, -1000000000000000, 9007199254740993,
                                   INT64_MAX, INT64_MIN, INT64_MIN + 1, 4294967296, -4294967296};
    for (size_t i = 0; i < sizeof INTS / sizeof *INTS + 20000; i++) {
        int64_t v;
        if (i < sizeof INTS / sizeof *INTS) {
            v = INTS[i];
        } else {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            v = (int64_t)(x >> ((x >> 58) & 63)); /* every magnitude */
            if (x & 1)
                v = -v;
        }
        fp_jw w;
        fp_jw_init(&w, -1);
        fp_jw_i64(&w, v);
        size_t n;
        char *got = fp_jw_detach(&w, &n);
        cJSON *j = cJSON_CreateNumber((double)v);
        char *want = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        if (strcmp(got, want)) {
            print_error("%lld: got %s want %s\n", (long long)v, got, want);
            fail();
        }
        free(want);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings_and_shapes),
        cmocka_unit_test(test_short_decimals),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_utf8_on_the_fly),
        cmocka_unit_test(test_streamed),
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_round_table),
        cmocka_unit_test(test_fast_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
