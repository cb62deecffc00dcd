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
    double m = pow(10.0, decimals);
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

int fp_json_write_file(const char *path, const cJSON *j, fp_err *err)
{
    size_t len = 0;
    char *text = fp_json_print(j, true, &len);
    char *withnl = realloc(text, len + 2);
    if (!withnl)
        abort();
    withnl[len] = '\n';
    withnl[len + 1] = '\0';
    int rc = fp_write_atomic(path, withnl, len + 1, err);
    free(withnl);
    return rc;
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
