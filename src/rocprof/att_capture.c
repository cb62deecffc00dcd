/*
 * att_capture.c - invocation splitting, iteration sets, the small shape, and
 * the inventory of ATT dispatch dirs for `capture` (see capture.h).
 */
#include "flyprof/capture.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"

/* ---------- invocation ---------- */

static bool is_assignment(const char *w)
{
    if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || *w == '_'))
        return false;
    for (const char *p = w; *p; p++) {
        if (*p == '=')
            return p > w;
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    }
    return false;
}

static void strv_push(char ***v, size_t *n, char *s)
{
    char **nv = realloc(*v, (*n + 2) * sizeof *nv);
    if (!nv)
        abort();
    nv[(*n)++] = s;
    nv[*n] = NULL;
    *v = nv;
}

int fp_invocation_parse(const char *cmd, fp_invocation *inv, fp_err *err)
{
    memset(inv, 0, sizeof *inv);
    char **words = NULL;
    size_t nw = 0;
    const char *p = cmd ? cmd : "";
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        fp_sb w;
        fp_sb_init(&w);
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'') {
                const char *e = strchr(p + 1, '\'');
                if (!e) {
                    fp_sb_free(&w);
                    fp_strv_free(words, nw);
                    return fp_err_set(err, FP_USAGE, "--invocation: unterminated ' quote");
                }
                fp_sb_add(&w, p + 1, (size_t)(e - p - 1));
                p = e + 1;
            } else if (*p == '"') {
                p++;
                while (*p && *p != '"') {
                    if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                        p++;
                    fp_sb_addc(&w, *p++);
                }
                if (*p != '"') {
                    fp_sb_free(&w);
                    fp_strv_free(words, nw);
                    return fp_err_set(err, FP_USAGE, "--invocation: unterminated \" quote");
                }
                p++;
            } else if (*p == '\\' && p[1]) {
                fp_sb_addc(&w, p[1]);
                p += 2;
            } else {
                fp_sb_addc(&w, *p++);
            }
        }
        strv_push(&words, &nw, fp_sb_detach(&w));
    }
    size_t i = 0;
    while (i < nw && is_assignment(words[i])) {
        strv_push(&inv->env, &inv->nenv, words[i]);
        words[i++] = NULL;
    }
    for (; i < nw; i++) {
        strv_push(&inv->argv, &inv->argc, words[i]);
        words[i] = NULL;
    }
    free(words);
    if (inv->argc == 0) {
        fp_invocation_free(inv);
        return fp_err_set(err, FP_BAD_ARGS, "--invocation has no command (only VAR=value words or nothing)");
    }
    return 0;
}

void fp_invocation_free(fp_invocation *inv)
{
    if (!inv)
        return;
    fp_strv_free(inv->argv, inv->argc);
    fp_strv_free(inv->env, inv->nenv);
    memset(inv, 0, sizeof *inv);
}

/* ---------- iterations ---------- */

size_t fp_iter_auto(long long calls, unsigned out[2])
{
    long long hi = calls < FP_AUTO_ITER_HI ? calls : FP_AUTO_ITER_HI;
    if (hi < 1)
        hi = 1;
    if (hi - 2 >= 2) {
        out[0] = (unsigned)(hi - 2);
        out[1] = (unsigned)hi;
        return 2;
    }
    out[0] = (unsigned)hi;
    return 1;
}

static int cmp_u(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static int add_iter(unsigned **v, size_t *n, unsigned long long x, fp_err *err)
{
    if (x == 0)
        return fp_err_set(err, FP_BAD_ARGS, "--iter-range: iteration 0 never matches (iterations are 1-based)");
    if (x > 100000000ULL)
        return fp_err_set(err, FP_BAD_ARGS, "--iter-range: iteration %llu is absurdly large", x);
    if (*n >= FP_ITER_MAX)
        return fp_err_set(err, FP_BAD_ARGS, "--iter-range: more than %d iterations", FP_ITER_MAX);
    unsigned *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        abort();
    nv[(*n)++] = (unsigned)x;
    *v = nv;
    return 0;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0 || n > 12)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

int fp_iter_parse(const char *s, unsigned **iters, size_t *n, fp_err *err)
{
    *iters = NULL;
    *n = 0;
    const char *p = s ? s : "";
    while (*p) {
        size_t skip = strspn(p, "[], ");
        p += skip;
        size_t len = strcspn(p, "[], ");
        if (!len)
            break;
        const char *dash = memchr(p, '-', len);
        int rc = 0;
        if (dash) {
            size_t la = (size_t)(dash - p), lb = len - la - 1;
            if (!all_digits(p, la) || !all_digits(dash + 1, lb)) {
                rc = fp_err_set(err, FP_USAGE, "--iter-range: bad range '%.*s' (expected A-B)", (int)len, p);
            } else {
                unsigned long long a = strtoull(p, NULL, 10), b = strtoull(dash + 1, NULL, 10);
                if (b < a)
                    rc = fp_err_set(err, FP_BAD_ARGS, "--iter-range: range '%.*s' is reversed", (int)len, p);
                else if (b - a >= FP_ITER_MAX)
                    rc = fp_err_set(err, FP_BAD_ARGS, "--iter-range: more than %d iterations", FP_ITER_MAX);
                for (unsigned long long x = a; rc == 0 && x <= b; x++)
                    rc = add_iter(iters, n, x, err);
            }
        } else if (!all_digits(p, len)) {
            rc = fp_err_set(err, FP_USAGE, "--iter-range: '%.*s' is not an integer", (int)len, p);
        } else {
            rc = add_iter(iters, n, strtoull(p, NULL, 10), err);
        }
        if (rc) {
            free(*iters);
            *iters = NULL;
            *n = 0;
            return -1;
        }
        p += len;
    }
    if (*n == 0)
        return fp_err_set(err, FP_BAD_ARGS, "--iter-range '%s' selects no iteration", s ? s : "");
    qsort(*iters, *n, sizeof **iters, cmp_u);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (k == 0 || (*iters)[k - 1] != (*iters)[i])
            (*iters)[k++] = (*iters)[i];
    *n = k;
    return 0;
}

/* ---------- shapes ---------- */

char *fp_shape_small(const char *shape, fp_err *err)
{
    fp_sb out;
    fp_sb_init(&out);
    bool done = false;
    const char *p = shape;
    while (p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!done && all_digits(p, len)) {
            unsigned long long v = strtoull(p, NULL, 10) / FP_SMALL_SHAPE_DIV;
            fp_sb_addf(&out, "%llu", v ? v : 1);
            done = true;
        } else {
            fp_sb_add(&out, p, len);
        }
        if (!comma)
            break;
        fp_sb_addc(&out, ',');
        p = comma + 1;
    }
    if (!done) {
        fp_sb_free(&out);
        fp_err_set(err, FP_BAD_ARGS, "--shape '%s' has no integer dimension to shrink for the small tag", shape);
        return NULL;
    }
    return fp_sb_detach(&out);
}

/* ---------- inventory ---------- */

static bool is_dispatch_dir_name(const char *n) { return !strncmp(n, "ui_output_agent_", 16); }

static void count_code(const char *dir, fp_att_dir *d)
{
    char *p = fp_path_join(dir, "code.json");
    cJSON *j = NULL;
    fp_err e = {0};
    if (fp_json_parse_file(p, &j, &e) == 0) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "code");
        d->code_ok = true;
        const cJSON *row;
        cJSON_ArrayForEach(row, code)
        {
            const cJSON *isa = cJSON_GetArrayItem(row, 0), *src = cJSON_GetArrayItem(row, 3);
            if (!cJSON_IsString(isa) || isa->valuestring[0] == ';')
                continue;
            d->instructions++;
            if (cJSON_IsString(src) && src->valuestring[0])
                d->mapped++;
        }
    }
    fp_err_clear(&e);
    cJSON_Delete(j);
    free(p);
}

static int cmp_dir(const void *a, const void *b)
{
    const fp_att_dir *x = a, *y = b;
    if (x->dispatch != y->dispatch)
        return x->dispatch < y->dispatch ? -1 : 1;
    return strcmp(x->name, y->name);
}

int fp_att_inventory(const char *att_dir, fp_att_dir **v, size_t *n, fp_err *err)
{
    *v = NULL;
    *n = 0;
    if (!fp_is_dir(att_dir))
        return 0;
    char **names = NULL;
    size_t cnt = 0;
    if (fp_list_dir(att_dir, &names, &cnt, err) != 0)
        return -1;
    for (size_t i = 0; i < cnt; i++) {
        char *p = fp_path_join(att_dir, names[i]);
        if (is_dispatch_dir_name(names[i]) && fp_is_dir(p)) {
            fp_att_dir *nv = realloc(*v, (*n + 1) * sizeof *nv);
            if (!nv)
                abort();
            *v = nv;
            fp_att_dir *d = &(*v)[(*n)++];
            memset(d, 0, sizeof *d);
            d->name = strdup(names[i]);
            d->dispatch = fp_dispatch_number(names[i]);
            d->empty = fp_dispatch_is_empty(p, &d->waves);
            if (!d->empty)
                count_code(p, d);
            if (d->instructions == 0)
                d->empty = true;
        }
        free(p);
    }
    fp_strv_free(names, cnt);
    if (*n > 1)
        qsort(*v, *n, sizeof **v, cmp_dir);
    return 0;
}

void fp_att_inventory_free(fp_att_dir *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name);
    free(v);
}

long fp_att_pick(const fp_att_dir *v, size_t n)
{
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i].empty)
            continue;
        if (best < 0 || v[i].waves > v[best].waves ||
            (v[i].waves == v[best].waves && v[i].instructions > v[best].instructions))
            best = (long)i;
    }
    return best;
}

/* ---------- files ---------- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level == 0)
        return 0; /* keep the top directory */
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int fp_rm_rf_contents(const char *dir, fp_err *err)
{
    if (!dir || !dir[0] || !strcmp(dir, "/"))
        return fp_err_set(err, FP_BAD_ARGS, "refusing to empty '%s'", dir ? dir : "");
    if (!fp_is_dir(dir))
        return 0;
    if (nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS) != 0)
        return fp_err_set(err, FP_IO_ERROR, "cannot empty %s: %s", dir, strerror(errno));
    return 0;
}

int fp_copy_file(const char *from, const char *to, fp_err *err)
{
    fp_sb s;
    fp_sb_init(&s);
    int rc = fp_read_file(from, &s, err);
    if (rc == 0)
        rc = fp_write_atomic(to, s.buf, s.len, err);
    fp_sb_free(&s);
    return rc;
}

char *fp_capture_default_bundle(const char *kernel)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_adds(&s, "runs/");
    for (const char *p = kernel; *p; p++)
        fp_sb_addc(&s, (*p == '/' || *p == ' ') ? '_' : *p);
    fp_sb_addf(&s, "-%s", stamp);
    char *abs = fp_path_abs(s.buf);
    fp_sb_free(&s);
    return abs;
}
