/*
 * realtime.c - realtime.json (realtime.h). Small file: the general tokenizer.
 */
#include "flyprof/realtime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/jscan.h"
#include "flyprof/mem.h"
#include "flyprof/strbuf.h"

static int bad(fp_err *err, const fp_jscan *js, const char *what)
{
    return fp_err_set(err, FP_BAD_INPUT, "realtime.json: %s (offset %zu)", what, fp_js_offset(js));
}

/* "SE<n>" -> n */
static bool se_key(const char *s, size_t n, int *se)
{
    if (n < 3 || n > 8 || memcmp(s, "SE", 2))
        return false;
    int v = 0;
    for (size_t i = 2; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *se = v;
    return true;
}

/* [[gfx, real], ...] -> first and last pair */
static int read_pairs(fp_jscan *js, fp_rt_se *s, fp_err *err)
{
    if (fp_js_next(js) != FP_JT_ARR_BEGIN)
        return bad(err, js, "an SE entry is not an array of pairs");
    size_t n = 0;
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_ARR_END)
            break;
        if (t != FP_JT_ARR_BEGIN)
            return bad(err, js, "a pair is not an array");
        int64_t v[2];
        for (int k = 0; k < 2; k++) {
            if (fp_js_next(js) != FP_JT_NUMBER || !js->num_is_int)
                return bad(err, js, "a pair is not two integers");
            v[k] = js->inum;
        }
        if (fp_js_next(js) != FP_JT_ARR_END)
            return bad(err, js, "a pair is not two integers");
        if (n++ == 0) {
            s->gfx0 = v[0];
            s->real0 = v[1];
        }
        s->gfx1 = v[0];
        s->real1 = v[1];
    }
    if (n == 0)
        return bad(err, js, "an SE has no pair");
    return 0;
}

/* "metadata": {"frequency": <number>, ...} */
static int read_meta(fp_jscan *js, fp_realtime *out, fp_err *err)
{
    if (fp_js_next(js) != FP_JT_OBJ_BEGIN)
        return bad(err, js, "metadata is not an object");
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_OBJ_END)
            return 0;
        if (t != FP_JT_STRING)
            return bad(err, js, "expected a key in metadata");
        bool freq = fp_js_str_eq(js, "frequency");
        t = fp_js_next(js);
        if (freq) {
            if (t != FP_JT_NUMBER || !(js->num > 0))
                return bad(err, js, "metadata.frequency is not a positive number");
            out->frequency_hz = js->num;
        } else if (!fp_js_skip(js)) {
            return bad(err, js, "bad value in metadata");
        }
    }
}

int fp_realtime_parse(const char *buf, size_t len, fp_realtime *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_jscan js;
    fp_js_init(&js, buf, len);
    size_t cap = 0;
    int rc = -1;
    if (fp_js_next(&js) != FP_JT_OBJ_BEGIN) {
        bad(err, &js, "top level is not an object");
        goto done;
    }
    for (;;) {
        fp_jtok t = fp_js_next(&js);
        if (t == FP_JT_OBJ_END)
            break;
        if (t != FP_JT_STRING) {
            bad(err, &js, "expected a key");
            goto done;
        }
        int se;
        if (se_key(js.str, js.str_len, &se)) {
            FP_GROW(out->ses, out->n, cap);
            fp_rt_se *s = &out->ses[out->n++];
            memset(s, 0, sizeof *s);
            s->se = se;
            if (read_pairs(&js, s, err))
                goto done;
        } else if (fp_js_str_eq(&js, "metadata")) {
            if (read_meta(&js, out, err))
                goto done;
        } else {
            fp_js_next(&js);
            if (!fp_js_skip(&js)) {
                bad(err, &js, "bad value");
                goto done;
            }
        }
    }
    if (fp_js_next(&js) != FP_JT_END) {
        bad(err, &js, "trailing data");
        goto done;
    }
    rc = 0;
done:
    fp_js_free(&js);
    if (rc)
        fp_realtime_free(out);
    return rc;
}

int fp_realtime_load(const char *dir, fp_realtime *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    char *path = fp_path_join(dir, "realtime.json");
    fp_sb sb;
    fp_sb_init(&sb);
    int rc = fp_read_file(path, &sb, err);
    free(path);
    if (rc == 0)
        rc = fp_realtime_parse(sb.buf, sb.len, out, err);
    fp_sb_free(&sb);
    return rc;
}

void fp_realtime_free(fp_realtime *rt)
{
    if (!rt)
        return;
    free(rt->ses);
    memset(rt, 0, sizeof *rt);
}

const fp_rt_se *fp_realtime_se(const fp_realtime *rt, int se)
{
    for (size_t i = 0; rt && i < rt->n; i++)
        if (rt->ses[i].se == se)
            return &rt->ses[i];
    return NULL;
}

double fp_realtime_mhz(const fp_realtime *rt, const fp_rt_se *s)
{
    if (!rt || !s || !(rt->frequency_hz > 0) || s->gfx1 <= s->gfx0 || s->real1 <= s->real0)
        return 0;
    /* differences in double: hostile pairs may span more than int64 */
    double secs = ((double)s->real1 - (double)s->real0) / rt->frequency_hz;
    double mhz = ((double)s->gfx1 - (double)s->gfx0) / secs / 1e6;
    return isfinite(mhz) && mhz > 0 ? mhz : 0;
}

bool fp_realtime_ns(const fp_realtime *rt, const fp_rt_se *s, int64_t cycle, double *ns)
{
    double mhz = fp_realtime_mhz(rt, s);
    if (!(mhz > 0))
        return false;
    *ns = (double)s->real0 * (1e9 / rt->frequency_hz) + ((double)cycle - (double)s->gfx0) * 1e3 / mhz;
    return isfinite(*ns);
}
