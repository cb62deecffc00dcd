/*
 * json_print.c - a serialiser for cJSON trees that writes exactly the bytes of
 * cJSON 1.7.15's cJSON_Print / cJSON_PrintUnformatted, faster.
 *
 * Why: artifacts like bubbles.json hold tens of thousands of numbers, and
 * cJSON 1.7.15 prints every number with sprintf("%1.15g"),
 * then sscanf()s it back to check the round trip (and "%1.17g" when it does not
 * hold): that was ~18 % of `flyprof bubbles` on the largest corpus trace. Here a
 * number whose value is an integer below 10^15 in magnitude - which "%1.15g"
 * prints as exactly its digits, no exponent - is written digit by digit, and so
 * is a short decimal (the double nearest to m / 10^k, k <= 6: short_decimal says
 * why "%1.15g" prints exactly those digits); every
 * other number takes cJSON's own route (same format strings, same round-trip
 * test), so the output cannot differ. Structure, indentation (tabs), escapes
 * and the "null" for NaN/inf follow print_value/print_object/print_array/
 * print_string_ptr of cJSON 1.7.15; tests/unit/test_json_print.c compares the
 * two byte for byte on edge cases and every generated document.
 */
#include <errno.h>
#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/json.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* the buffer, a sink or memory (fp_jw, json.h): the tree printer and the streaming
 * writers of typed documents (model.c) share every byte-level routine below */
typedef fp_jw pbuf;

/* Write n bytes from p to the sink (after the first error: nothing). */
static void write_out(pbuf *b, const char *p, size_t left)
{
    while (left && !b->werr) {
        ssize_t w = write(b->fd, p, left);
        if (w < 0) {
            if (errno != EINTR)
                b->werr = errno;
            continue;
        }
        p += w;
        left -= (size_t)w;
    }
}

/* Write the buffered bytes to the sink and empty the buffer. */
static void flush(pbuf *b)
{
    write_out(b, b->p, b->n);
    b->n = 0;
}

/* The growth path of reserve: out of line, so that the check below inlines into
 * every put (~140 K calls for one bubbles.json). */
static __attribute__((noinline)) void grow(pbuf *b, size_t extra)
{
    if (b->fd >= 0 && b->n) {
        /* streaming: a 600 KB artifact costs 64 KB of fresh pages, not 1 MB */
        flush(b);
        if (b->n + extra + 1 <= b->cap)
            return;
    }
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->n + extra + 1)
        nc *= 2;
    char *q = realloc(b->p, nc);
    if (!q)
        abort();
    b->p = q;
    b->cap = nc;
}

static inline void reserve(pbuf *b, size_t extra)
{
    if (b->n + extra + 1 > b->cap)
        grow(b, extra);
}

static inline void put(pbuf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static inline void putc1(pbuf *b, char c)
{
    reserve(b, 1);
    b->p[b->n++] = c;
}

/* n <= 32 bytes from s, which has 32 readable bytes (the number buffers below): one
 * fixed-size copy, no call (a number is ~5 bytes; memcpy of a variable length is a
 * libc call per number) */
#define SMALL 32
static inline void put_small(pbuf *b, const char *s, size_t n)
{
    reserve(b, SMALL);
    memcpy(b->p + b->n, s, SMALL);
    b->n += n;
}

/* cJSON's compare_double */
static int same_double(double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= m * DBL_EPSILON;
}

/* Most non-integers of an artifact are rounded to a few decimals (58.76, 0.0455):
 * printed here without snprintf + sscanf (~4,300 instructions each). The case: d is
 * the double nearest to D = m / 10^k for some k <= 6, with 1e-4 <= |d| < 1e9 (checked
 * exactly: m and 10^k are exact doubles and IEEE division rounds correctly). Then
 * "%1.15g" prints D's digits: D has at most 15 significant digits (|m| < 10^15), d lies
 * within half an ulp (<= 1.2e-16 |D|) of D, less than half a unit of the 15th digit
 * (>= 5e-16 |D|), so rounding d to 15 digits gives D; the exponent is in [-4, 8], so
 * the style is %f, and %g drops trailing zeros (the smallest k has none). D reads
 * back as d, so cJSON keeps these 15 digits. Returns the length, or 0: not the case. */
static int short_decimal(double d, char *out, char **start)
{
    double a = fabs(d);
    if (!(a >= 1e-4 && a < 1e9))
        return 0;
    double p = 1;
    for (int k = 1; k <= 6; k++) {
        p *= 10;
        /* floor() of a non-negative value below 2^63 (here < 10^15) by conversion: no call */
        double m = (double)(long long)(a * p + 0.5);
        if (m / p != a)
            continue;
        unsigned long long u = (unsigned long long)m, ip, fp, pk = 1;
        for (int i = 0; i < k; i++)
            pk *= 10;
        ip = u / pk;
        fp = u % pk;
        if (!fp)
            return 0; /* an integer: not this path's (put_number takes those first) */
        char *e = out + SMALL, *q = e; /* out: 2 * SMALL bytes; the text ends at out + SMALL */
        int nd = k;
        while (nd > 1 && fp % 10 == 0) { /* never for the smallest k; kept for safety */
            fp /= 10;
            nd--;
        }
        for (int i = 0; i < nd; i++) {
            *--q = (char)('0' + fp % 10);
            fp /= 10;
        }
        *--q = '.';
        do {
            *--q = (char)('0' + ip % 10);
            ip /= 10;
        } while (ip);
        if (d < 0)
            *--q = '-';
        *start = q;
        return (int)(e - q);
    }
    return 0;
}

/* The decimal digits of u, written backwards ending at e (two at a time from a
 * table: ~half the divisions); the start. */
static char *digits(char *e, unsigned long long u)
{
    static const char D2[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                             "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                             "8081828384858687888990919293949596979899";
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        e -= 2;
        memcpy(e, D2 + 2 * r, 2);
    }
    if (u >= 10) {
        e -= 2;
        memcpy(e, D2 + 2 * u, 2);
    } else {
        *--e = (char)('0' + u);
    }
    return e;
}

/* An integer below 10^15 in magnitude: "%1.15g" prints its plain digits. */
static void put_int(pbuf *b, long long v)
{
    char tmp[2 * SMALL]; /* the text ends at tmp + SMALL: SMALL readable bytes from its start */
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    char *e = tmp + SMALL, *q = digits(e, u);
    if (v < 0)
        *--q = '-';
    put_small(b, q, (size_t)(e - q));
}

static void put_number(pbuf *b, double d)
{
    char tmp[32];
    int len;
    if (isnan(d) || isinf(d)) {
        put(b, "null", 4);
        return;
    }
    /* below 10^15 in magnitude, d is an integer iff converting it to long long and
     * back gives d (no floor() call): NaN and the infinities fail the range test */
    if (fabs(d) < 1e15 && (double)(long long)d == d && !(d == 0.0 && signbit(d))) {
        /* "%1.15g" of an integer below 10^15 is its plain decimal digits (no
         * exponent below 10^precision, no point); -0.0 ("-0") goes the slow way */
        put_int(b, (long long)d);
        return;
    }
    char sd[2 * SMALL], *q;
    if ((len = short_decimal(d, sd, &q)) > 0) {
        put_small(b, q, (size_t)len);
        return;
    }
    /* cJSON 1.7.15 print_number: 15 significant digits unless they do not read back */
    double test = 0.0;
    len = snprintf(tmp, sizeof tmp, "%1.15g", d);
    if (sscanf(tmp, "%lg", &test) != 1 || !same_double(test, d))
        len = snprintf(tmp, sizeof tmp, "%1.17g", d);
    if (len < 0 || (size_t)len >= sizeof tmp) {
        put(b, "null", 4); /* cJSON fails the whole print here; cannot happen for a double */
        return;
    }
    put(b, tmp, (size_t)len);
}

/* byte_class[c]: 1 when c needs an escape ('"', '\\', < 32), 2 when c >= 0x80 */
static const unsigned char byte_class[256] = {
    [0 ... 31] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 2,
};

/* How many of the n bytes at p need no escape (and, with utf8, are ASCII): 16 at a
 * time where SSE2 is there (strings are ~30 % of an artifact's bytes), never reading
 * past p + n (the caller's strlen: nothing beyond the string is touched). */
static size_t plain_run(const unsigned char *p, size_t n, bool utf8)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(31);
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i esc = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                   _mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x)); /* x <= 31 */
        unsigned m = (unsigned)_mm_movemask_epi8(esc) | (utf8 ? (unsigned)_mm_movemask_epi8(x) : 0u);
        if (m)
            return i + (unsigned)__builtin_ctz(m);
    }
#endif
    /* the tail (and every key: most are shorter than 16 bytes) through a table:
     * bit 1 = needs an escape, bit 2 = not ASCII */
    const unsigned char stop = utf8 ? 3 : 1;
    while (i < n && !(byte_class[p[i]] & stop))
        i++;
    return i;
}

/* Spare bytes a fast path reserves past what it writes: copy_plain reads its
 * copy 16 bytes at a time, and a short run of tabs is one 8-byte store. */
#define SPARE 16

/* Copy the n bytes at s to d and tell whether none needs an escape (nor, with
 * utf8, is non-ASCII). The check reads the copy (d, the caller's buffer with
 * SPARE bytes reserved past d + n), never beyond the source string. */
static inline bool copy_plain(char *d, const char *s, size_t n, bool utf8)
{
    memcpy(d, s, n);
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(31);
    for (size_t i = 0; i < n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(d + i));
        __m128i esc = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                   _mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x));
        unsigned m = (unsigned)_mm_movemask_epi8(esc) | (utf8 ? (unsigned)_mm_movemask_epi8(x) : 0u);
        size_t left = n - i;
        if (left < 16)
            m &= (1u << left) - 1; /* the bytes past the copy are not the string's */
        if (m)
            return false;
    }
    return true;
#else
    return plain_run((const unsigned char *)d, n, utf8) == n;
#endif
}

/* s (n = strlen(s), known to the caller) quoted and escaped; NULL: "" */
static void put_stringn(pbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (s) {
        if (n < 64) {
            reserve(b, n + 2 + SPARE);
            char *d = b->p + b->n;
            if (copy_plain(d + 1, s, n, b->utf8)) {
                d[0] = '"';
                d[n + 1] = '"';
                b->n += n + 2;
                return;
            }
        }
        const unsigned char *p = (const unsigned char *)s, *end = p + n;
        size_t run = plain_run(p, (size_t)(end - p), b->utf8);
        if (p + run == end) { /* most strings: nothing to escape, one reserve */
            reserve(b, run + 2);
            b->p[b->n] = '"';
            memcpy(b->p + b->n + 1, p, run);
            b->p[b->n + 1 + run] = '"';
            b->n += run + 2;
            return;
        }
    }
    putc1(b, '"');
    if (s) {
        const unsigned char *p = (const unsigned char *)s, *end = p + n;
        for (;;) {
            /* copy the run that needs no escape in one go */
            const unsigned char *q = p + plain_run(p, (size_t)(end - p), b->utf8);
            if (q > p)
                put(b, (const char *)p, (size_t)(q - p));
            if (q == end)
                break;
            if (*q >= 0x80) { /* only with b->utf8: one sequence, valid or replaced */
                size_t bad = 0, l = fp_utf8_seq(q, 4, &bad); /* the NUL stops it early */
                if (l)
                    put(b, (const char *)q, l);
                else
                    put(b, "\xEF\xBF\xBD", 3); /* U+FFFD REPLACEMENT CHARACTER */
                p = q + (l ? l : bad);
                continue;
            }
            char e[6] = {'\\', 0, 0, 0, 0, 0};
            size_t el = 2;
            switch (*q) {
            case '"': e[1] = '"'; break;
            case '\\': e[1] = '\\'; break;
            case '\b': e[1] = 'b'; break;
            case '\f': e[1] = 'f'; break;
            case '\n': e[1] = 'n'; break;
            case '\r': e[1] = 'r'; break;
            case '\t': e[1] = 't'; break;
            default:
                e[1] = 'u';
                e[2] = '0';
                e[3] = '0';
                e[4] = hex[*q >> 4];
                e[5] = hex[*q & 15];
                el = 6;
            }
            put(b, e, el);
            p = q + 1;
        }
    }
    putc1(b, '"');
}

static void put_string(pbuf *b, const char *s) { put_stringn(b, s, s ? strlen(s) : 0); }

static void tabs(pbuf *b, size_t n)
{
    reserve(b, n);
    memset(b->p + b->n, '\t', n);
    b->n += n;
}

static void put_value(pbuf *b, const cJSON *item, bool fmt, size_t depth);

static void put_array(pbuf *b, const cJSON *item, bool fmt, size_t depth)
{
    putc1(b, '[');
    for (const cJSON *c = item->child; c; c = c->next) {
        put_value(b, c, fmt, depth + 1);
        if (c->next)
            put(b, ", ", fmt ? 2 : 1);
    }
    putc1(b, ']');
}

static void put_object(pbuf *b, const cJSON *item, bool fmt, size_t depth)
{
    putc1(b, '{');
    depth++;
    if (fmt)
        putc1(b, '\n');
    for (const cJSON *c = item->child; c; c = c->next) {
        if (fmt)
            tabs(b, depth);
        put_string(b, c->string);
        put(b, ":\t", fmt ? 2 : 1);
        put_value(b, c, fmt, depth);
        if (c->next)
            putc1(b, ',');
        if (fmt)
            putc1(b, '\n');
    }
    if (fmt)
        tabs(b, depth - 1);
    putc1(b, '}');
}

static void put_value(pbuf *b, const cJSON *item, bool fmt, size_t depth)
{
    switch (item->type & 0xFF) {
    case cJSON_NULL: put(b, "null", 4); break;
    case cJSON_False: put(b, "false", 5); break;
    case cJSON_True: put(b, "true", 4); break;
    case cJSON_Number: put_number(b, item->valuedouble); break;
    case cJSON_Raw:
        if (item->valuestring)
            put(b, item->valuestring, strlen(item->valuestring));
        break;
    case cJSON_String: put_string(b, item->valuestring); break;
    case cJSON_Array: put_array(b, item, fmt, depth); break;
    case cJSON_Object: put_object(b, item, fmt, depth); break;
    default: break;
    }
}

static char *print(const cJSON *j, bool formatted, bool utf8, size_t *len)
{
    pbuf b = {0};
    b.utf8 = utf8;
    b.fd = -1;
    reserve(&b, 256);
    if (j)
        put_value(&b, j, formatted, 0);
    b.p[b.n] = '\0';
    if (len)
        *len = b.n;
    return b.p;
}

char *fp_json_print_bytes(const cJSON *j, bool formatted, size_t *len) { return print(j, formatted, false, len); }

char *fp_json_print_utf8(const cJSON *j, bool formatted, size_t *len) { return print(j, formatted, true, len); }

int fp_json_print_fd(int fd, const cJSON *j, bool formatted, const char *tail)
{
    pbuf b = {0};
    b.utf8 = true;
    b.fd = fd;
    b.p = malloc(65536);
    if (!b.p)
        abort();
    b.cap = 65536;
    if (j)
        put_value(&b, j, formatted, 0);
    if (tail)
        put(&b, tail, strlen(tail));
    flush(&b);
    free(b.p);
    return b.werr;
}

/* ---------------------------------------------------------------- streaming (fp_jw) */

void fp_jw_init(fp_jw *w, int fd)
{
    memset(w, 0, sizeof *w);
    w->utf8 = true;
    w->fd = fd;
    w->p = malloc(65536);
    if (!w->p)
        abort();
    w->cap = 65536;
}

void fp_jw_put(fp_jw *w, const char *s, size_t n)
{
    if (w->fd >= 0 && n >= w->cap / 2) {
        /* a long text to a sink (a part rendered by another thread: model.c's split):
         * written from where it is, not copied into a buffer grown to hold it */
        flush(w);
        write_out(w, s, n);
        return;
    }
    put(w, s, n);
}

void fp_jw_reserve(fp_jw *w, size_t n) { reserve(w, n); }

void fp_jw_num(fp_jw *w, double d) { put_number(w, d); }

void fp_jw_str(fp_jw *w, const char *s) { put_string(w, s); }

void fp_jw_strn(fp_jw *w, const char *s, size_t n) { put_stringn(w, s, n); }

void fp_jw_i64(fp_jw *w, int64_t v)
{
    /* below 10^15 the double is exact and put_number prints these digits */
    if (v > -1000000000000000LL && v < 1000000000000000LL)
        put_int(w, (long long)v);
    else
        put_number(w, (double)v);
}

/* The formatted text of a key ("\"key\":\t"), by the key's address: a document writes
 * the same few dozen schema keys thousands of times (1.5k hotspots x 20 members), and
 * a hit is three 16-byte copies instead of strlen, a copy and the escape check.
 * Open addressing over KEYC slots, a few probes: bubbles.json has ~120 distinct keys,
 * and a 64-slot direct-mapped table refilled 9.2k of its 28.5k lookups (1.3 M
 * instructions); a key whose probes are all taken replaces its home slot. */
#define KEYC 256          /* slots (16 KiB): twice the keys of the largest schema */
#define KEYC_PROBES 4
#define KEYC_TXT 48       /* the bytes copied from an entry; a longer text is not cached */
typedef struct fp_jw_keyc {
    const char *key;
    size_t len;           /* of txt; 0: not cacheable (needs escapes, too long) */
    char txt[KEYC_TXT];
} fp_jw_keyc;

static __attribute__((noinline)) void keyc_fill(fp_jw_keyc *e, const char *key, bool utf8)
{
    size_t n = strlen(key);
    e->key = key;
    e->len = 0;
    if (n + 4 > KEYC_TXT)
        return;
    char tmp[KEYC_TXT + SPARE];
    if (!copy_plain(tmp + 1, key, n, utf8))
        return;
    tmp[0] = '"';
    memcpy(tmp + 1 + n, "\":\t", 3);
    memset(tmp + n + 4, 0, KEYC_TXT - (n + 4));
    memcpy(e->txt, tmp, KEYC_TXT);
    e->len = n + 4;
}

/* The entry of key: found, else filled in the first free slot of its probes, else in
 * its home slot (evicting). */
static inline size_t keyc_home(const char *key) { return (size_t)(((uintptr_t)key * 0x9E3779B97F4A7C15ULL) >> 56); }

static fp_jw_keyc *keyc_get(fp_jw *w, const char *key)
{
    size_t h = keyc_home(key);
    for (size_t i = 0; i < KEYC_PROBES; i++) {
        fp_jw_keyc *e = &w->keys[(h + i) & (KEYC - 1)];
        if (e->key == key)
            return e;
        if (!e->key) {
            keyc_fill(e, key, w->utf8);
            return e;
        }
    }
    keyc_fill(&w->keys[h], key, w->utf8);
    return &w->keys[h];
}

/* fp_jw_key without the cache: out of line, so that the cached path stays small */
static __attribute__((noinline)) void key_slow(fp_jw *w, const char *key, size_t depth, bool first);

/* The cached text at q (room reserved): ",\n" unless first, the tabs, the key's text. */
static inline void key_put(fp_jw *w, const fp_jw_keyc *e, size_t depth, bool first)
{
    char *q = w->p + w->n;
    memcpy(q, ",\n", 2);
    q += first ? 0 : 2;
    memcpy(q, "\t\t\t\t\t\t\t\t", 8);
    q += depth;
    memcpy(q, e->txt, KEYC_TXT);
    w->n = (size_t)(q + e->len - w->p);
}

/* Everything but a hit in the home slot with room in the buffer: out of line, so that
 * the hit saves no registers and calls nothing (28.5k keys in one bubbles.json) */
static __attribute__((noinline)) void key_miss(fp_jw *w, const char *key, size_t depth, bool first)
{
    if (depth <= 8) {
        if (!w->keys && !(w->keys = calloc(KEYC, sizeof *w->keys)))
            abort();
        const fp_jw_keyc *e = keyc_get(w, key);
        if (e->len) {
            reserve(w, 2 + 8 + KEYC_TXT);
            key_put(w, e, depth, first);
            return;
        }
    }
    key_slow(w, key, depth, first);
}

void fp_jw_key(fp_jw *w, const char *key, size_t depth, bool first)
{
    const fp_jw_keyc *e = w->keys ? &w->keys[keyc_home(key)] : NULL;
    if (e && e->key == key && e->len && depth <= 8 && w->n + 2 + 8 + KEYC_TXT + 1 <= w->cap) {
        key_put(w, e, depth, first);
        return;
    }
    key_miss(w, key, depth, first);
}

void fp_jw_key_data(fp_jw *w, const char *key, size_t depth, bool first) { key_slow(w, key, depth, first); }

static void key_slow(fp_jw *w, const char *key, size_t depth, bool first)
{
    size_t n = strlen(key);
    if (n <= 64 && depth <= 64) {
        /* one reservation for ",\n", the tabs, the quoted key and ":\t" */
        reserve(w, n + depth + 6 + SPARE);
        char *d = w->p + w->n, *q = d;
        if (!first) {
            q[0] = ',';
            q[1] = '\n';
            q += 2;
        }
        if (depth <= 8)
            memcpy(q, "\t\t\t\t\t\t\t\t", 8); /* the usual depth: one store */
        else
            memset(q, '\t', depth);
        q += depth;
        *q++ = '"';
        if (copy_plain(q, key, n, w->utf8)) {
            q += n;
            q[0] = '"';
            q[1] = ':';
            q[2] = '\t';
            w->n += (size_t)(q + 3 - d);
            return;
        }
    }
    if (!first)
        put(w, ",\n", 2);
    tabs(w, depth);
    put_string(w, key);
    put(w, ":\t", 2);
}

void fp_jw_tabs(fp_jw *w, size_t n) { tabs(w, n); }

void fp_jw_value(fp_jw *w, const cJSON *j, size_t depth)
{
    if (j)
        put_value(w, j, true, depth);
}

int fp_jw_close(fp_jw *w)
{
    free(w->keys);
    w->keys = NULL;
    if (w->fd >= 0)
        flush(w);
    free(w->p);
    w->p = NULL;
    return w->werr;
}

char *fp_jw_detach(fp_jw *w, size_t *len)
{
    free(w->keys);
    w->keys = NULL;
    reserve(w, 0);
    w->p[w->n] = '\0';
    if (len)
        *len = w->n;
    char *p = w->p;
    w->p = NULL;
    return p;
}
