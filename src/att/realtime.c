/*
 * realtime.c - reading realtime.json (realtime.h). Small (a few pairs per SE),
 * so cJSON; every cell is checked, a bad document is BAD_INPUT naming what.
 */
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/realtime.h"

static bool int_cell(const cJSON *c, int64_t *v)
{
    if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble > 9.0e15 ||
        c->valuedouble != (double)(int64_t)c->valuedouble)
        return false;
    *v = (int64_t)c->valuedouble;
    return true;
}

static bool pair_of(const cJSON *p, int64_t *g, int64_t *r)
{
    return cJSON_IsArray(p) && cJSON_GetArraySize(p) == 2 && int_cell(p->child, g) && int_cell(p->child->next, r);
}

/* One "SE<n>": [[g, r], ...] -> its first and last pair. */
static int se_entry(const cJSON *m, const char *name, fp_rt_se *o, fp_err *err)
{
    char *end = NULL;
    long se = strtol(m->string + 2, &end, 10);
    if (!m->string[2] || *end || se < 0 || se > 1023)
        return fp_err_set(err, FP_BAD_INPUT, "%s: key '%s' is not SE<n>", name, m->string);
    if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) < 2)
        return fp_err_set(err, FP_BAD_INPUT, "%s: %s: expected at least two [gfx, realtime] pairs", name, m->string);
    o->se = (int)se;
    int64_t pg = -1, pr = -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, m)
    {
        int64_t g, r;
        if (!pair_of(p, &g, &r))
            return fp_err_set(err, FP_BAD_INPUT, "%s: %s: a pair is not [integer, integer]", name, m->string);
        if (pg >= 0 && (g <= pg || r <= pr))
            return fp_err_set(err, FP_BAD_INPUT, "%s: %s: pairs do not increase", name, m->string);
        if (pg < 0)
            o->g0 = g, o->r0 = r;
        pg = g, pr = r;
    }
    o->g1 = pg, o->r1 = pr;
    return 0;
}

int fp_realtime_parse(const char *buf, size_t len, const char *name, fp_realtime *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    cJSON *j = cJSON_ParseWithLength(buf, len);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return fp_err_set(err, FP_BAD_INPUT, "%s: not a JSON object", name);
    }
    int rc = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, j)
    {
        if (!strcmp(m->string, "metadata")) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(m, "frequency");
            if (cJSON_IsNumber(f) && f->valuedouble > 0 && f->valuedouble < 1e13)
                out->frequency = f->valuedouble;
            continue;
        }
        if (strncmp(m->string, "SE", 2))
            continue; /* unknown members are the decoder's to add */
        out->ses = realloc(out->ses, (out->n + 1) * sizeof *out->ses);
        if (!out->ses)
            abort();
        if ((rc = se_entry(m, name, &out->ses[out->n], err)) != 0)
            break;
        out->n++;
    }
    if (!rc && out->frequency <= 0)
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: metadata.frequency missing or not positive", name);
    if (!rc && out->n == 0)
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: no SE<n> entry", name);
    cJSON_Delete(j);
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
    if (rc == 0)
        rc = fp_realtime_parse(sb.buf, sb.len, "realtime.json", out, err);
    fp_sb_free(&sb);
    free(path);
    return rc;
}

void fp_realtime_free(fp_realtime *rt)
{
    free(rt->ses);
    memset(rt, 0, sizeof *rt);
}

const fp_rt_se *fp_realtime_se(const fp_realtime *rt, int se)
{
    for (size_t i = 0; i < rt->n; i++)
        if (rt->ses[i].se == se)
            return &rt->ses[i];
    return NULL;
}
