/*
 * json.c - cJSON helpers: typed parse errors, stable numbers, atomic artifact writes.
 */
#include "flyprof/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/strbuf.h"

int fp_json_parse_file(const char *path, cJSON **out, fp_err *err)
{
    *out = NULL;
    fp_sb sb;
    fp_sb_init(&sb);
    if (fp_read_file(path, &sb, err) != 0) {
        fp_sb_free(&sb);
        return -1;
    }
    const char *end = NULL;
    /* The length includes the terminating NUL (fp_sb guarantees it): with
     * require_null_terminated, cJSON 1.7.15 fails any buffer whose length stops
     * right after the value, i.e. every well-formed file. */
    cJSON *j = cJSON_ParseWithLengthOpts(sb.buf, sb.len + 1, &end, 1);
    if (!j) {
        size_t off = end ? (size_t)(end - sb.buf) : 0;
        fp_err_set(err, FP_BAD_INPUT, "%s: invalid JSON near byte %zu%s", path, off,
                   off >= sb.len ? " (truncated?)" : "");
        fp_sb_free(&sb);
        return -1;
    }
    fp_sb_free(&sb);
    *out = j;
    return 0;
}

double fp_round(double v, int decimals)
{
    if (!isfinite(v))
        return 0.0;
    /* 10^d for the usual decimals from a table (pow was ~60 instructions a number in
     * a 20 K-number artifact); these powers are exact doubles, the value pow returns */
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    double m = decimals >= 0 && decimals < (int)(sizeof p10 / sizeof p10[0]) ? p10[decimals] : pow(10.0, decimals);
    double r = round(v * m) / m;
    return r == 0.0 ? 0.0 : r; /* no "-0" */
}

static cJSON *must(cJSON *item)
{
    if (!item)
        abort();
    return item;
}

cJSON *fp_json_int(int64_t v) { return must(cJSON_CreateNumber((double)v)); }

cJSON *fp_json_add_int(cJSON *obj, const char *key, int64_t v)
{
    cJSON *n = fp_json_int(v);
    cJSON_AddItemToObject(obj, key, n);
    return n;
}

cJSON *fp_json_add_num(cJSON *obj, const char *key, double v, int decimals)
{
    cJSON *n = must(cJSON_CreateNumber(fp_round(v, decimals)));
    cJSON_AddItemToObject(obj, key, n);
    return n;
}

cJSON *fp_json_add_str(cJSON *obj, const char *key, const char *s)
{
    cJSON *n = must(s ? cJSON_CreateString(s) : cJSON_CreateNull());
    cJSON_AddItemToObject(obj, key, n);
    return n;
}

cJSON *fp_json_add_bool(cJSON *obj, const char *key, int b)
{
    cJSON *n = must(cJSON_CreateBool(b));
    cJSON_AddItemToObject(obj, key, n);
    return n;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one
 * (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). *bad gets
 * the length of the maximal invalid subpart to replace (>= 1) when 0 is returned. */
size_t fp_utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        unsigned char lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
        if (i >= n || s[i] < lo_i || s[i] > hi_i) {
            *bad = i; /* the lead and the continuation bytes that were still valid */
            return 0;
        }
    }
    return len;
}

bool fp_utf8_valid(const char *text)
{
    const unsigned char *u = (const unsigned char *)text;
    size_t n = strlen(text), i = 0, bad = 0;
    while (i < n) {
        size_t l = fp_utf8_seq(u + i, n - i, &bad);
        if (!l)
            return false;
        i += l;
    }
    return true;
}

char *fp_utf8_sanitize(char *text, size_t *replaced)
{
    size_t n = strlen(text), i = 0, bad = 0, nrep = 0;
    const unsigned char *u = (const unsigned char *)text;
    /* fast path: valid text (nearly always) is returned as is, no copy */
    while (i < n) {
        size_t l = fp_utf8_seq(u + i, n - i, &bad);
        if (!l)
            break;
        i += l;
    }
    if (replaced)
        *replaced = 0;
    if (i == n)
        return text;
    fp_sb out;
    fp_sb_init(&out);
    fp_sb_add(&out, text, i);
    while (i < n) {
        size_t l = fp_utf8_seq(u + i, n - i, &bad);
        if (l) {
            fp_sb_add(&out, text + i, l);
            i += l;
        } else {
            fp_sb_adds(&out, "\xEF\xBF\xBD"); /* U+FFFD REPLACEMENT CHARACTER */
            i += bad;
            nrep++;
        }
    }
    free(text);
    if (replaced)
        *replaced = nrep;
    return fp_sb_detach(&out);
}

char *fp_json_print(const cJSON *j, bool pretty)
{
    /* cJSON escapes '"', '\\' and control bytes but copies bytes >= 0x80 as they
     * are, so a non-UTF-8 ISA string, source path or CSV kernel name would make the
     * envelope and artifacts invalid JSON: every JSON document flyprof writes goes
     * through here. Bytes >= 0x80 only occur inside strings, so replacing them
     * never touches the document's structure. */
    /* cJSON's bytes (json_print.c), strings made valid UTF-8 as they are copied:
     * one pass over the document, not a second scan of the printed text */
    return fp_json_print_utf8(j, pretty, NULL);
}

static int fill_json(int fd, void *ctx) { return fp_json_print_fd(fd, ctx, true, "\n"); }

int fp_json_write_file(const char *path, const cJSON *j, fp_err *err)
{
    /* streamed through a 64 KiB buffer: the printed text of a big artifact
     * (bubbles.json ~0.5 MB) is never held whole, so its pages are never touched */
    return fp_write_atomic_fn(path, fill_json, (void *)j, err);
}

int fp_json_get_i64(const cJSON *obj, const char *key, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v))
        return -1;
    double d = v->valuedouble;
    if (!(d >= -9.2e18 && d <= 9.2e18) || d != floor(d))
        return -1;
    *out = (int64_t)d;
    return 0;
}

const char *fp_json_get_str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const cJSON *fp_jget(const cJSON *obj, const char *key)
{
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

bool fp_jnum(const cJSON *obj, const char *key, double *out)
{
    const cJSON *v = fp_jget(obj, key);
    if (!cJSON_IsNumber(v))
        return false;
    *out = v->valuedouble;
    return true;
}

double fp_jnum0(const cJSON *obj, const char *key)
{
    double v = 0;
    fp_jnum(obj, key, &v);
    return v;
}
