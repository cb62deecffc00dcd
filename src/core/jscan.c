/*
 * jscan.c - strict pull tokenizer for JSON (RFC 8259), no per-token allocation.
 * The grammar is enforced with an explicit container stack instead of
 * recursion, so hostile nesting cannot overflow the C stack.
 */
#include "flyprof/jscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fp_js_init(fp_jscan *js, const char *buf, size_t len)
{
    memset(js, 0, offsetof(fp_jscan, kind));
    js->base = js->p = buf;
    js->end = buf + len;
    js->depth = 0;
    js->done = false;
    js->tok = FP_JT_ERROR;
    js->is_key = false;
    js->str = NULL;
    js->str_len = 0;
    js->scratch = NULL;
    js->scratch_cap = 0;
    js->num_is_int = false;
    js->inum = 0;
    js->num = 0;
    js->error[0] = '\0';
}

void fp_js_free(fp_jscan *js)
{
    free(js->scratch);
    js->scratch = NULL;
    js->scratch_cap = 0;
}

size_t fp_js_offset(const fp_jscan *js) { return (size_t)(js->p - js->base); }

static fp_jtok js_fail(fp_jscan *js, const char *what)
{
    snprintf(js->error, sizeof js->error, "%s at byte %zu", what, fp_js_offset(js));
    js->tok = FP_JT_ERROR;
    return FP_JT_ERROR;
}

static inline void skip_ws(fp_jscan *js)
{
    const char *p = js->p, *e = js->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    js->p = p;
}

static bool scratch_put(fp_jscan *js, size_t *n, const char *s, size_t len)
{
    if (*n + len + 1 > js->scratch_cap) {
        size_t cap = js->scratch_cap ? js->scratch_cap : 256;
        while (cap < *n + len + 1)
            cap *= 2;
        char *ns = realloc(js->scratch, cap);
        if (!ns)
            return false;
        js->scratch = ns;
        js->scratch_cap = cap;
    }
    memcpy(js->scratch + *n, s, len);
    *n += len;
    js->scratch[*n] = '\0';
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_hex4(const char *p, const char *e, unsigned *out)
{
    if (e - p < 4)
        return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
            return false;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return true;
}

static size_t utf8_encode(unsigned cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* js->p is at the opening quote. */
static fp_jtok parse_string(fp_jscan *js)
{
    const char *p = js->p + 1, *e = js->end;
    const char *start = p;
    while (p < e && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    if (p < e && *p == '"') {
        js->str = start;
        js->str_len = (size_t)(p - start);
        js->p = p + 1;
        return js->tok = FP_JT_STRING;
    }
    /* Slow path: escapes present. */
    size_t n = 0;
    if (!scratch_put(js, &n, start, (size_t)(p - start)))
        return js_fail(js, "out of memory");
    while (p < e) {
        char c = *p;
        if (c == '"') {
            js->str = js->scratch;
            js->str_len = n;
            js->p = p + 1;
            return js->tok = FP_JT_STRING;
        }
        if ((unsigned char)c < 0x20) {
            js->p = p;
            return js_fail(js, "control character in string");
        }
        if (c != '\\') {
            const char *q = p;
            while (q < e && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
                q++;
            if (!scratch_put(js, &n, p, (size_t)(q - p)))
                return js_fail(js, "out of memory");
            p = q;
            continue;
        }
        if (p + 1 >= e)
            break;
        char esc = p[1];
        char ch;
        switch (esc) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            unsigned cp;
            if (!read_hex4(p + 2, e, &cp)) {
                js->p = p;
                return js_fail(js, "bad \\u escape");
            }
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (e - p >= 6 && p[0] == '\\' && p[1] == 'u' && read_hex4(p + 2, e, &lo) &&
                    lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            char u[4];
            size_t ul = utf8_encode(cp, u);
            if (!scratch_put(js, &n, u, ul))
                return js_fail(js, "out of memory");
            continue;
        }
        default:
            js->p = p;
            return js_fail(js, "bad escape in string");
        }
        if (!scratch_put(js, &n, &ch, 1))
            return js_fail(js, "out of memory");
        p += 2;
    }
    js->p = e;
    return js_fail(js, "unterminated string");
}

static fp_jtok parse_number(fp_jscan *js)
{
    const char *p = js->p, *e = js->end, *start = p;
    bool neg = false;
    if (p < e && *p == '-') {
        neg = true;
        p++;
    }
    if (p >= e || *p < '0' || *p > '9')
        return js_fail(js, "bad number");
    if (*p == '0' && p + 1 < e && p[1] >= '0' && p[1] <= '9')
        return js_fail(js, "leading zero in number");
    uint64_t v = 0;
    bool overflow = false;
    while (p < e && *p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = true;
        else
            v = v * 10 + d;
        p++;
    }
    bool frac = false;
    if (p < e && *p == '.') {
        frac = true;
        p++;
        if (p >= e || *p < '0' || *p > '9')
            return js_fail(js, "bad fraction");
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        frac = true;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || *p < '0' || *p > '9')
            return js_fail(js, "bad exponent");
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    js->p = p;
    if (!frac && !overflow && (neg ? v <= (uint64_t)INT64_MAX + 1 : v <= (uint64_t)INT64_MAX)) {
        js->num_is_int = true;
        js->inum = neg ? (int64_t)(0 - v) : (int64_t)v;
        js->num = (double)js->inum;
    } else {
        char tmp[64];
        size_t l = (size_t)(p - start);
        js->num_is_int = false;
        js->inum = 0;
        if (l < sizeof tmp) {
            memcpy(tmp, start, l);
            tmp[l] = '\0';
            js->num = strtod(tmp, NULL);
        } else {
            char *big = malloc(l + 1);
            if (!big)
                return js_fail(js, "out of memory");
            memcpy(big, start, l);
            big[l] = '\0';
            js->num = strtod(big, NULL);
            free(big);
        }
    }
    return js->tok = FP_JT_NUMBER;
}

static fp_jtok parse_literal(fp_jscan *js, const char *word, fp_jtok t)
{
    size_t l = strlen(word);
    if ((size_t)(js->end - js->p) < l || memcmp(js->p, word, l) != 0)
        return js_fail(js, "invalid literal");
    js->p += l;
    return js->tok = t;
}

/* Parse the start of a value at js->p (whitespace already skipped). */
static fp_jtok parse_value(fp_jscan *js)
{
    if (js->p >= js->end)
        return js_fail(js, "unexpected end of input");
    char c = *js->p;
    switch (c) {
    case '{':
    case '[':
        if (js->depth >= FP_JS_MAX_DEPTH)
            return js_fail(js, "nesting too deep");
        js->kind[js->depth] = c == '{' ? 'o' : 'a';
        js->has_items[js->depth] = 0;
        js->want_value[js->depth] = 0;
        js->depth++;
        js->p++;
        return js->tok = (c == '{' ? FP_JT_OBJ_BEGIN : FP_JT_ARR_BEGIN);
    case '"':
        return parse_string(js);
    case 't':
        return parse_literal(js, "true", FP_JT_TRUE);
    case 'f':
        return parse_literal(js, "false", FP_JT_FALSE);
    case 'n':
        return parse_literal(js, "null", FP_JT_NULL);
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number(js);
        return js_fail(js, "unexpected character");
    }
}

static void value_done(fp_jscan *js)
{
    if (js->depth == 0)
        js->done = true;
}

fp_jtok fp_js_next(fp_jscan *js)
{
    if (js->tok == FP_JT_ERROR && js->error[0])
        return FP_JT_ERROR;
    js->is_key = false;
    skip_ws(js);
    if (js->depth == 0) {
        if (js->done) {
            if (js->p != js->end)
                return js_fail(js, "trailing data after JSON value");
            return js->tok = FP_JT_END;
        }
        fp_jtok t = parse_value(js);
        if (t != FP_JT_ERROR && t != FP_JT_OBJ_BEGIN && t != FP_JT_ARR_BEGIN)
            value_done(js);
        return t;
    }
    int d = js->depth - 1;
    if (js->p >= js->end)
        return js_fail(js, "unexpected end of input (truncated?)");
    char c = *js->p;
    if (js->kind[d] == 'a') {
        if (c == ']') {
            js->p++;
            js->depth--;
            value_done(js);
            if (js->depth > 0 && js->kind[js->depth - 1] == 'o')
                js->want_value[js->depth - 1] = 0;
            return js->tok = FP_JT_ARR_END;
        }
        if (js->has_items[d]) {
            if (c != ',')
                return js_fail(js, "expected ',' or ']'");
            js->p++;
            skip_ws(js);
        }
        js->has_items[d] = 1;
        fp_jtok t = parse_value(js);
        return t;
    }
    /* object */
    if (!js->want_value[d]) {
        if (c == '}') {
            js->p++;
            js->depth--;
            value_done(js);
            if (js->depth > 0 && js->kind[js->depth - 1] == 'o')
                js->want_value[js->depth - 1] = 0;
            return js->tok = FP_JT_OBJ_END;
        }
        if (js->has_items[d]) {
            if (c != ',')
                return js_fail(js, "expected ',' or '}'");
            js->p++;
            skip_ws(js);
        }
        if (js->p >= js->end || *js->p != '"')
            return js_fail(js, "expected object key");
        if (parse_string(js) != FP_JT_STRING)
            return FP_JT_ERROR;
        skip_ws(js);
        if (js->p >= js->end || *js->p != ':')
            return js_fail(js, "expected ':'");
        js->p++;
        js->has_items[d] = 1;
        js->want_value[d] = 1;
        js->is_key = true;
        return js->tok = FP_JT_STRING;
    }
    /* value of a key; containers reset want_value when they close */
    fp_jtok t = parse_value(js);
    if (t != FP_JT_OBJ_BEGIN && t != FP_JT_ARR_BEGIN)
        js->want_value[d] = 0;
    return t;
}

bool fp_js_skip(fp_jscan *js)
{
    if (js->tok != FP_JT_OBJ_BEGIN && js->tok != FP_JT_ARR_BEGIN)
        return js->tok != FP_JT_ERROR;
    int target = js->depth - 1;
    while (js->depth > target) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_ERROR || t == FP_JT_END)
            return false;
    }
    return true;
}

bool fp_js_str_eq(const fp_jscan *js, const char *s)
{
    size_t l = strlen(s);
    return js->tok == FP_JT_STRING && js->str_len == l && memcmp(js->str, s, l) == 0;
}

char *fp_js_strdup(const fp_jscan *js)
{
    char *r = malloc(js->str_len + 1);
    if (!r)
        abort();
    memcpy(r, js->str, js->str_len);
    r[js->str_len] = '\0';
    return r;
}
