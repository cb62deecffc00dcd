/*
 * fscan.h - the pieces of a shape-specific JSON fast path (code.json rows).
 *
 * Why: the decoder's files are a few fixed shapes; reading them token by token
 * through jscan costs ~20 instructions per byte, a scanner that knows the shape
 * ~4. Each helper accepts only what jscan would read identically and returns
 * false on anything else (escapes, floats, >18-digit integers, containers where
 * a scalar is expected, malformed input), so a caller that starts over with
 * jscan on false never decides anything jscan would decide differently.
 */
#ifndef FLYPROF_FSCAN_H
#define FLYPROF_FSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct fp_fc {
    const char *p, *e;
} fp_fc;

static inline void fp_fc_ws(fp_fc *c)
{
    /* one compare rejects every non-blank byte: compact files pay only that */
    while (c->p < c->e && (unsigned char)*c->p <= ' ' &&
           (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

/* The character `ch` after optional whitespace. */
static inline bool fp_fc_lit(fp_fc *c, char ch)
{
    if (c->p < c->e && *c->p == ch) { /* compact files: no whitespace to skip */
        c->p++;
        return true;
    }
    fp_fc_ws(c);
    if (c->p < c->e && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* The document's closing '}' with only whitespace after it. */
static inline bool fp_fc_close(fp_fc *c)
{
    if (!fp_fc_lit(c, '}'))
        return false;
    fp_fc_ws(c);
    return c->p == c->e;
}

/* The literal word `w` (true/false/null) after optional whitespace. */
static inline bool fp_fc_word(fp_fc *c, const char *w, size_t n)
{
    fp_fc_ws(c);
    if ((size_t)(c->e - c->p) >= n && !memcmp(c->p, w, n)) {
        c->p += n;
        return true;
    }
    return false;
}

/* The count (0..8) of leading ASCII digits of the 8 bytes at p (readable): a byte is a
 * digit when b - '0' is in 0..9; the lowest flagged byte is exact (borrows and carries
 * only run upward from a non-digit). Little-endian only. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FP_FC_HAVE_NDIGITS8 1
static inline unsigned fp_fc_ndigits8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t t = w - 0x3030303030303030ull;
    uint64_t nd = (t | (t + 0x7676767676767676ull)) & 0x8080808080808080ull;
    return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}
#endif

/* An integer jscan reads as num_is_int: -?(0|[1-9][0-9]*), at most 18 digits
 * (so it fits int64 without checks), not followed by '.', 'e' or 'E'. */
static inline bool fp_fc_int(fp_fc *c, int64_t *out)
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

/* fp_fc_int with its usual case - 1..7 digits without a sign or a leading '0', 8 bytes
 * in view - first: their count in one step, the value with no end checks (the same
 * digits fp_fc_int reads; a '.', 'e' or 'E' after them, and everything else, goes
 * fp_fc_int, which decides). For callers whose integers are mostly that (a wave file's
 * header); fp_fc_int itself stays small enough to be inlined into the row loops. */
static inline bool fp_fc_int_short(fp_fc *c, int64_t *out)
{
#if defined(FP_FC_HAVE_NDIGITS8)
    const char *p = c->p, *e = c->e;
    if (e - p > 8 && (unsigned)(*p - '1') < 9) {
        unsigned n = fp_fc_ndigits8(p);
        if (n < 8 && p[n] != '.' && p[n] != 'e' && p[n] != 'E') {
            uint64_t v = 0;
            for (unsigned i = 0; i < n; i++)
                v = v * 10 + (uint64_t)(p[i] - '0');
            *out = (int64_t)v;
            c->p = p + n;
            return true;
        }
    }
#endif
    return fp_fc_int(c, out);
}

/* The bytes of w that end jscan's fast string case - '"', '\\' or a control
 * character (< 0x20) - as a mask with bit 7 of each such byte set. The lowest
 * set bit is exact (borrows only run upward from a true hit), so on a
 * little-endian load it marks the first such byte. */
static inline uint64_t fp_fc_stops(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs;
}

/* A string without escapes, as jscan's own fast case: any byte >= 0x20 but
 * '"' and '\\' (raw UTF-8 included). Points into the buffer, not terminated.
 * Eight bytes at a time: strings are most of code.json's bytes. */
static inline bool fp_fc_str(fp_fc *c, const char **s, size_t *n)
{
    if (!fp_fc_lit(c, '"'))
        return false;
    const char *p = c->p, *e = c->e;
#if defined(__SSE2__)
    /* 16 bytes per step: '"', '\\', and bytes <= 0x1f (max(x, 0x1f) == 0x1f) */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    for (; e - p >= 16; p += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                   _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl));
        int m = _mm_movemask_epi8(hit);
        if (m) {
            p += __builtin_ctz((unsigned)m);
            goto tail;
        }
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (uint64_t w, m; e - p >= 8; p += 8) {
        memcpy(&w, p, 8);
        if ((m = fp_fc_stops(w)) != 0) {
            p += __builtin_ctzll(m) >> 3;
            break;
        }
    }
#endif
#if defined(__SSE2__)
tail:
#endif
    while (p < e && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    if (p >= e || *p != '"')
        return false;
    *s = c->p;
    *n = (size_t)(p - c->p);
    c->p = p + 1;
    return true;
}

/* k integers, the first after the byte `lead` and each other after a ',',
 * written without blanks as the decoder does (",4,17412,32,7692,7532,212";
 * lead '[' for a whole row's opening), each as fp_fc_int reads it. The caller
 * guarantees FP_FC_INTS_WINDOW(k) readable bytes, so the digit loops need no
 * end checks (each stops by the 19th digit). Returns the position after the
 * last integer, or NULL: then the general way decides. */
#define FP_FC_INTS_WINDOW(k) ((size_t)(k) * 22 + 1)

static inline const char *fp_fc_ints_compact(const char *p, char lead, int64_t *v, int k)
{
    for (int i = 0; i < k; i++) {
        if (*p++ != (i ? ',' : lead))
            return NULL;
        bool neg = *p == '-';
        p += neg;
        const char *d0 = p;
        uint64_t x = 0;
        while (p - d0 < 19 && (unsigned)(*p - '0') <= 9)
            x = x * 10 + (uint64_t)(*p++ - '0');
        size_t nd = (size_t)(p - d0);
        if (nd == 0 || nd > 18 || (nd > 1 && *d0 == '0') || *p == '.' || *p == 'e' || *p == 'E')
            return NULL;
        v[i] = neg ? -(int64_t)x : (int64_t)x;
    }
    return p;
}

/* The leading decimal digits of the 8 bytes at p (which must be readable): their
 * count (0..8) and value. SWAR: a byte is a digit when b - '0' is in 0..9; the
 * lowest flagged byte is exact (borrows and carries only run upward from a
 * non-digit), and the digits, moved to the top bytes, are combined in pairs,
 * quads and octets (each lane's product stays inside the lane). */
static inline int fp_fc_digits8(const char *p, uint64_t *val)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t t = w - 0x3030303030303030ull;
    uint64_t nd = (t | (t + 0x7676767676767676ull)) & 0x8080808080808080ull;
    int n = nd ? __builtin_ctzll(nd) >> 3 : 8;
    if (!n) {
        *val = 0;
        return 0;
    }
    uint64_t v = t << (8 * (8 - n)); /* digit i of n at byte 8 - n + i: leading zeros below */
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
    v = (v * 10000 + (v >> 32)) & 0xFFFFFFFFull;
    *val = v;
    return n;
}

/* fp_fc_ints_compact, eight digits per step (fp_fc_digits8): the same integers,
 * the same NULL cases. The caller guarantees FP_FC_INTS_SWAR_WINDOW(k) readable
 * bytes (each integer may read 24 bytes from its first digit). Little-endian only. */
#define FP_FC_INTS_SWAR_WINDOW(k) ((size_t)(k) * 22 + 24)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline const char *fp_fc_ints_swar(const char *p, char lead, int64_t *v, int k)
{
    static const uint64_t P10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    for (int i = 0; i < k; i++) {
        if (*p++ != (i ? ',' : lead))
            return NULL;
        bool neg = *p == '-';
        p += neg;
        const char *d0 = p;
        uint64_t x, y;
        size_t nd = (size_t)fp_fc_digits8(p, &x);
        if (nd == 8) {
            int m = fp_fc_digits8(p + 8, &y);
            x = x * P10[m] + y;
            nd += (size_t)m;
            if (m == 8) {
                int q = fp_fc_digits8(p + 16, &y);
                if (q > 2)
                    return NULL; /* more than 18 digits */
                x = x * P10[q] + y;
                nd += (size_t)q;
            }
        }
        p = d0 + nd;
        if (nd == 0 || (nd > 1 && *d0 == '0') || *p == '.' || *p == 'e' || *p == 'E')
            return NULL;
        v[i] = neg ? -(int64_t)x : (int64_t)x;
    }
    return p;
}
#endif

/* fp_fc_ints_swar's usual case alone: k integers of 1..6 digits, no sign, the
 * first after `lead` and each other after a ',', and after each but the last a
 * ','. One 8-byte load per integer, its value from the digit count (a single
 * digit, the decoder's most common cell, without the multiplies), and none of
 * the '.'/'e' checks: every integer is followed by a ',' (checked here) or, for
 * the last, by what the caller requires next (',' or ']' on the code.json rows),
 * which a '.' or 'e' is not. Returns the position after the last integer or
 * NULL, on which fp_fc_ints_swar decides; where this accepts, it gives its
 * integers and position. The caller guarantees FP_FC_INTS_SHORT_WINDOW(k)
 * readable bytes. Little-endian only. */
#define FP_FC_INTS_SHORT_WINDOW(k) ((size_t)(k) * 8 + 2)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline const char *fp_fc_ints_short(const char *p, char lead, int64_t *v, int k)
{
    for (int i = 0; i < k; i++) {
        if (*p != (i ? ',' : lead))
            return NULL;
        p++;
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t t = w - 0x3030303030303030ull;
        uint64_t nd = (t | (t + 0x7676767676767676ull)) & 0x8080808080808080ull;
        unsigned n = (unsigned)__builtin_ctzll(nd | (1ull << 63)) >> 3; /* 8 digits -> 7: refused below */
        if (n == 0 || n == 7 || (n > 1 && *p == '0'))
            return NULL; /* no digit (a sign, a blank), 7+ digits (n == 7 is
                           * also 8 digits or more), or a leading zero */
        uint64_t x;
        if (n == 1) {
            x = t & 0xFF;
        } else {
            x = t << (8 * (8 - n));
            x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
            x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
            x = (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
        }
        v[i] = (int64_t)x;
        p += n;
    }
    return p;
}
#endif

/* Bit i set: byte i of the 16 in x is one of [A-Za-z0-9_] (a key's characters). */
#if defined(__SSE2__)
static inline unsigned fp_fc_keychars16(__m128i x)
{
    const __m128i lo = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    const __m128i dg = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    const __m128i alpha = _mm_cmpeq_epi8(_mm_min_epu8(lo, _mm_set1_epi8(25)), lo);
    const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(dg, _mm_set1_epi8(9)), dg);
    const __m128i us = _mm_cmpeq_epi8(x, _mm_set1_epi8('_'));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(alpha, digit), us));
}
#endif

/* A key of [A-Za-z0-9_] characters and its ':'. */
static inline bool fp_fc_key(fp_fc *c, const char **k, size_t *kl)
{
    if (!fp_fc_lit(c, '"'))
        return false;
    const char *s = c->p;
#if defined(__SSE2__)
    /* a key of < 16 characters (every key the decoder writes) in one step: the first
     * '"' of the 16 bytes ends it, and every byte before it must be a key character;
     * a byte that is not one before the '"' is exactly where the loop below fails */
    if (c->e - c->p >= 16) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)c->p);
        unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
        if (q) {
            unsigned n = (unsigned)__builtin_ctz(q);
            if (~fp_fc_keychars16(x) & ((1u << n) - 1))
                return false;
            *k = s;
            *kl = n;
            c->p += n + 1;
            return fp_fc_lit(c, ':');
        }
    }
#endif
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

/* A scalar we do not use: a string without escapes, a JSON number,
 * true/false/null. Containers are left to jscan. */
static inline bool fp_fc_skip_scalar(fp_fc *c)
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
#if defined(FP_FC_HAVE_NDIGITS8)
    /* the usual scalar, 1..7 digits without a sign or a leading '0' and 8 bytes in view:
     * skipped in one step (a '.', 'e' or 'E' after them goes the way below) */
    if (e - p > 8 && (unsigned)(*p - '1') < 9) {
        unsigned n = fp_fc_ndigits8(p);
        if (n < 8 && p[n] != '.' && p[n] != 'e' && p[n] != 'E') {
            c->p = p + n;
            return true;
        }
    }
#endif
    /* the words only where no number starts (a number is the usual scalar) */
    if (*p != '-' && (unsigned)(*p - '0') > 9 &&
        (fp_fc_word(c, "true", 4) || fp_fc_word(c, "false", 5) || fp_fc_word(c, "null", 4)))
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

#endif
