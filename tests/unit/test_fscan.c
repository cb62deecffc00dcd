/* test_fscan.c - fscan.h's SWAR integer reader (fp_fc_ints_swar, fp_fc_digits8) against
 * the byte-by-byte one it replaces on the code.json fast path (fp_fc_ints_compact): the
 * same integers and the same refusals on random cell runs and their mutations; and
 * fp_fc_ints_short (its one-load case) against fp_fc_ints_swar on the same runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/fscan.h"

static uint64_t rng = 0x243F6A8885A308D3ULL;

static unsigned next(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

/* One cell: mostly decoder-like integers (0..5 digits), sometimes every digit count
 * to 21, leading zeros, a sign, a float or exponent tail, or junk. */
static size_t cell(char *d)
{
    size_t n = 0;
    if (!next(8))
        d[n++] = '-';
    unsigned nd = next(4) ? 1 + next(5) : next(22);
    for (unsigned i = 0; i < nd; i++)
        d[n++] = (char)('0' + (i == 0 && next(6) ? 1 + next(9) : next(10)));
    switch (next(30)) {
    case 0: d[n++] = '.'; d[n++] = '5'; break;
    case 1: d[n++] = 'e'; break;
    case 2: d[n++] = 'E'; break;
    case 3: d[n++] = ' '; break;
    case 4: d[n++] = '/'; break; /* '0' - 1 */
    case 5: d[n++] = ':'; break; /* '9' + 1 */
    case 6: d[n++] = (char)0xB0; break;
    default: break;
    }
    return n;
}

/* A run of k (1..7) random cells after `lead` ('[' or ','), then ']' or ',', then
 * random bytes to the end of buf[512]: the run's length. */
static size_t cell_run(char *buf, int *kp, char *leadp)
{
    memset(buf, 0, 512);
    size_t n = 0;
    int k = 1 + (int)next(7);
    char lead = next(2) ? '[' : ',';
    for (int i = 0; i < k; i++) {
        buf[n++] = next(60) ? (i ? ',' : lead) : ';';
        n += cell(buf + n);
    }
    buf[n++] = next(2) ? ']' : ',';
    for (size_t i = n; i < 512; i++) /* whatever follows in the file */
        buf[i] = (char)(next(3) ? '0' + next(10) : next(256));
    assert_true(n + FP_FC_INTS_SWAR_WINDOW(k) <= 512);
    *kp = k;
    *leadp = lead;
    return n;
}

static void test_ints_agree(void **state)
{
    (void)state;
    size_t accepted = 0, short_ok = 0;
    for (int t = 0; t < 200000; t++) {
        char buf[512];
        int k;
        char lead;
        size_t n = cell_run(buf, &k, &lead);
        int64_t a[8] = {0}, b[8] = {0};
        const char *pa = fp_fc_ints_compact(buf, lead, a, k), *pb = fp_fc_ints_swar(buf, lead, b, k);
        if (pa != pb) {
            print_error("'%.*s': compact %td, swar %td\n", (int)n, buf, pa ? pa - buf : -1, pb ? pb - buf : -1);
            fail();
        }
        if (pa) {
            accepted++;
            for (int i = 0; i < k; i++)
                assert_int_equal(a[i], b[i]);
        }
        /* fp_fc_ints_short: where it accepts and a ',' or ']' follows (what its callers
         * require), fp_fc_ints_swar accepts too with the same integers and end */
        int64_t c[8] = {0};
        const char *pc = fp_fc_ints_short(buf, lead, c, k);
        if (!pc)
            continue;
        for (const char *q = buf + 1; q < pc; q++) /* its own refusals: signs, blanks, ... */
            assert_true(*q == ',' || (*q >= '0' && *q <= '9'));
        if (*pc != ',' && *pc != ']')
            continue; /* a '.' or 'e' after the last: the caller refuses the row */
        short_ok++;
        assert_ptr_equal(pc, pb);
        for (int i = 0; i < k; i++)
            assert_int_equal(c[i], b[i]);
    }
    assert_true(accepted > 50000 && accepted < 190000); /* both outcomes well covered */
    assert_true(short_ok > 20000);                    /* the one-load case was reached */
}

/* By hand: the edges of the one-load case. */
static void test_ints_short_edges(void **state)
{
    (void)state;
    int64_t v[3];
    char b[64];
    memset(b, 0, sizeof b);
    strcpy(b, ",999999,0,7]");
    assert_ptr_equal(fp_fc_ints_short(b, ',', v, 3), b + 11);
    assert_int_equal(v[0], 999999);
    assert_int_equal(v[1], 0);
    assert_int_equal(v[2], 7);
    strcpy(b, ",1234567,1]"); /* 7 digits: fp_fc_ints_swar's */
    assert_null(fp_fc_ints_short(b, ',', v, 2));
    strcpy(b, ",12345678,1]");
    assert_null(fp_fc_ints_short(b, ',', v, 2));
    strcpy(b, ",01,1]");
    assert_null(fp_fc_ints_short(b, ',', v, 2));
    strcpy(b, ",-1,1]");
    assert_null(fp_fc_ints_short(b, ',', v, 2));
    strcpy(b, ",1.5,1]");
    assert_null(fp_fc_ints_short(b, ',', v, 2));
    strcpy(b, ",,1]");
    assert_null(fp_fc_ints_short(b, ',', v, 2));
}

/* fp_fc_digits8 by hand: every count, and the bytes just outside '0'..'9'. */
static void test_digits8(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(fp_fc_digits8("12345678", &v), 8);
    assert_int_equal(v, 12345678);
    assert_int_equal(fp_fc_digits8("00000009", &v), 8);
    assert_int_equal(v, 9);
    assert_int_equal(fp_fc_digits8("7,000000", &v), 1);
    assert_int_equal(v, 7);
    assert_int_equal(fp_fc_digits8("9999999/", &v), 7);
    assert_int_equal(v, 9999999);
    assert_int_equal(fp_fc_digits8("42:00000", &v), 2);
    assert_int_equal(v, 42);
    assert_int_equal(fp_fc_digits8("]1234567", &v), 0);
    assert_int_equal(v, 0);
}

/* fp_fc_key as it was, byte by byte: the reference of its 16-byte step. */
static bool key_ref(fp_fc *c, const char **k, size_t *kl)
{
    if (!fp_fc_lit(c, '"'))
        return false;
    const char *s = c->p;
    while (c->p < c->e && *c->p != '"') {
        char ch = *c->p;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
            return false;
        c->p++;
    }
    if (c->p >= c->e)
        return false;
    *k = s;
    *kl = (size_t)(c->p - s);
    c->p++;
    return fp_fc_lit(c, ':');
}

/* Random keys - every length to 20, the bytes around each range of key characters
 * ('/', ':', '@', '[', '`', '{', '^', 0x7f, 0x80, 0xff), '"' early or missing, blanks
 * before ':', the buffer's end anywhere - read by fp_fc_key and by key_ref: the same
 * result, key and position. */
static void test_key_agree(void **state)
{
    (void)state;
    static const char odd[] = "/:@[`{^\x7f\x80\xff \"\\";
    static const char good[] = "abcxyzABCXYZ0189_";
    char buf[64];
    for (int it = 0; it < 200000; it++) {
        size_t n = 0;
        buf[n++] = '"';
        unsigned len = next(21);
        for (unsigned i = 0; i < len; i++)
            buf[n++] = next(12) ? good[next(sizeof good - 1)] : odd[next(sizeof odd - 1)];
        if (next(10))
            buf[n++] = '"';
        if (!next(6))
            buf[n++] = ' ';
        buf[n++] = next(8) ? ':' : ',';
        while (n < sizeof buf)
            buf[n++] = (char)(next(2) ? '1' : '"');
        size_t end = next(4) ? sizeof buf : 1 + next((unsigned)sizeof buf - 1);
        fp_fc a = {buf, buf + end}, b = {buf, buf + end};
        const char *ka = NULL, *kb = NULL;
        size_t la = 0, lb = 0;
        bool ra = fp_fc_key(&a, &ka, &la), rb = key_ref(&b, &kb, &lb);
        assert_int_equal(ra, rb);
        if (ra) {
            assert_ptr_equal(ka, kb);
            assert_int_equal(la, lb);
            assert_ptr_equal(a.p, b.p);
        }
    }
}

/* fp_fc_skip_scalar as it was (the words tried first): the reference of the reordered one. */
static bool skip_ref(fp_fc *c)
{
    fp_fc_ws(c);
    const char *p = c->p, *e = c->e;
    if (p >= e)
        return false;
    if (*p == '"') {
        const char *s;
        size_t n;
        return fp_fc_str(c, &s, &n);
    }
    if (fp_fc_word(c, "true", 4) || fp_fc_word(c, "false", 5) || fp_fc_word(c, "null", 4))
        return true;
    if (*p == '-')
        p++;
    if (p >= e || (unsigned)(*p - '0') > 9 || (*p == '0' && p + 1 < e && (unsigned)(p[1] - '0') <= 9))
        return false;
    while (p < e && (unsigned)(*p - '0') <= 9)
        p++;
    if (p < e && *p == '.') {
        p++;
        if (p >= e || (unsigned)(*p - '0') > 9)
            return false;
        while (p < e && (unsigned)(*p - '0') <= 9)
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || (unsigned)(*p - '0') > 9)
            return false;
        while (p < e && (unsigned)(*p - '0') <= 9)
            p++;
    }
    c->p = p;
    return true;
}

/* Random scalars from pieces (words cut short, signs, zeros, fractions, exponents,
 * strings, blanks) and a random end: fp_fc_skip_scalar agrees with skip_ref. */
static void test_skip_scalar_agree(void **state)
{
    (void)state;
    static const char *const piece[] = {"true", "false", "null", "tru", "nul", "-", "0", "7", "123", ".", "e",
                                        "E", "+", "\"ab\"", "\"", " ", "\n", "x", ",", "-0", "00"};
    char buf[48];
    for (int it = 0; it < 200000; it++) {
        size_t n = 0;
        for (unsigned k = 1 + next(5); k-- && n < 32;) {
            const char *s = piece[next(sizeof piece / sizeof *piece)];
            size_t l = strlen(s);
            memcpy(buf + n, s, l);
            n += l;
        }
        size_t end = next(3) ? n : next((unsigned)n + 1);
        fp_fc a = {buf, buf + end}, b = {buf, buf + end};
        bool ra = fp_fc_skip_scalar(&a), rb = skip_ref(&b);
        assert_int_equal(ra, rb);
        if (ra)
            assert_ptr_equal(a.p, b.p);
    }
}

/* fp_fc_int (digit by digit): the reference of fp_fc_int_short's one-step case. */
static bool int_ref(fp_fc *c, int64_t *out)
{
    fp_fc_ws(c);
    const char *p = c->p, *e = c->e;
    bool neg = false;
    if (p < e && *p == '-') {
        neg = true;
        p++;
    }
    if (p >= e || (unsigned)(*p - '0') > 9)
        return false;
    const char *d0 = p;
    uint64_t v = 0;
    while (p < e && (unsigned)(*p - '0') <= 9)
        v = v * 10 + (uint64_t)(*p++ - '0');
    size_t nd = (size_t)(p - d0);
    if (nd > 18 || (nd > 1 && *d0 == '0'))
        return false;
    if (p < e && (*p == '.' || *p == 'e' || *p == 'E'))
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    c->p = p;
    return true;
}

/* Random integers from pieces (runs of digits of every length around the one-step
 * case's 1..7, zeros, signs, fractions, exponents, blanks, separators) and a random
 * end, the 8 bytes after p in view or not: fp_fc_int_short and fp_fc_int agree with
 * int_ref (a copy of fp_fc_int as it is: the other's reference too). */
static void test_int_agree(void **state)
{
    (void)state;
    static const char *const piece[] = {"1", "23", "456", "7890", "12345", "987654", "1234567", "12345678", "0",
                                        "-", ".", "e", "E", ",", "]", " ", "}", "x", "00", "9"};
    char buf[64];
    int fast = 0;
    for (int it = 0; it < 200000; it++) {
        size_t n = 0;
        for (unsigned k = 1 + next(5); k-- && n < 40;) {
            const char *s = piece[next(sizeof piece / sizeof *piece)];
            size_t l = strlen(s);
            memcpy(buf + n, s, l);
            n += l;
        }
        size_t end = next(3) ? n : next((unsigned)n + 1);
        fp_fc a = {buf, buf + end}, b = {buf, buf + end};
        int64_t va = -1, vb = -2;
        fp_fc g = {buf, buf + end};
        int64_t vg = -3;
        bool ra = fp_fc_int_short(&a, &va), rb = int_ref(&b, &vb), rg = fp_fc_int(&g, &vg);
        assert_int_equal(ra, rb);
        assert_int_equal(rg, rb);
        if (rg) {
            assert_ptr_equal(g.p, b.p);
            assert_int_equal(vg, vb);
        }
        if (ra) {
            assert_ptr_equal(a.p, b.p);
            assert_int_equal(va, vb);
            fast += end > 8 && a.p - buf < 8 && buf[0] != '0' && buf[0] != '-' && buf[0] != ' ';
        }
    }
    print_message("int_agree: %d of 200000 in the one-step case\n", fast);
    assert_true(fast > 5000); /* the one-step case was reached */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ints_agree),
        cmocka_unit_test(test_ints_short_edges),
        cmocka_unit_test(test_digits8),
        cmocka_unit_test(test_key_agree),
        cmocka_unit_test(test_skip_scalar_agree),
        cmocka_unit_test(test_int_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
