/*
 * dispatch.c - which dispatch dir to analyse (rules in dispatch.h and
 * docs/bundle.md). Fixes the prototype's lexicographic pick (dispatch_10 <
 * dispatch_9) and its disregard of capture.json's kept dispatch.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/jscan.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"
#include "flyprof/wave.h"

#define DISPATCH_PREFIX "ui_output_agent_"

long long fp_dispatch_number(const char *name)
{
    const char *p = strstr(name, "_dispatch_");
    if (!p)
        return -1;
    p += strlen("_dispatch_");
    if (*p < '0' || *p > '9')
        return -1;
    long long v = 0;
    while (*p >= '0' && *p <= '9') {
        if (v > 100000000000LL)
            return -1;
        v = v * 10 + (*p - '0');
        p++;
    }
    return v;
}

/* code.json "code" is null or [] -> shell. Reads only the start of the member. */
static bool code_is_null(const char *dir)
{
    char *path = fp_path_join(dir, "code.json");
    /* a view, not a read: the scan stops near the start, and reading the whole file
     * (283 KB on flash_attn_func-big) only to look at it was ~70 fresh pages */
    fp_file_view fv;
    fp_err e = {0};
    bool empty = true;
    if (fp_file_map(path, &fv, &e) == 0) {
        fp_jscan js;
        fp_js_init(&js, fv.data, fv.len);
        if (fp_js_next(&js) == FP_JT_OBJ_BEGIN) {
            for (;;) {
                fp_jtok t = fp_js_next(&js);
                if (t != FP_JT_STRING)
                    break;
                if (fp_js_str_eq(&js, "code")) {
                    t = fp_js_next(&js);
                    empty = !(t == FP_JT_ARR_BEGIN && fp_js_next(&js) != FP_JT_ARR_END);
                    break;
                }
                fp_js_next(&js);
                if (!fp_js_skip(&js))
                    break;
            }
        }
        fp_js_free(&js);
    }
    fp_file_unmap(&fv);
    fp_err_clear(&e);
    free(path);
    return empty;
}

bool fp_dispatch_is_empty(const char *dir, long long *waves)
{
    /* a count, so no sorted copy of the names (fp_list_dir): ".", ".." and every
     * other name fp_wave_name_parse refuses are not counted either way */
    *waves = 0;
    DIR *d = opendir(dir);
    if (!d)
        return true;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int a, b, c, k;
        if (fp_wave_name_parse(de->d_name, &a, &b, &c, &k))
            (*waves)++;
    }
    closedir(d);
    return *waves == 0 || code_is_null(dir);
}

typedef struct cand {
    char *name;
    long long num;
    bool empty;
    long long waves;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->num != y->num)
        return x->num < y->num ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Candidates: sub-dirs of base named ui_output_agent_*_dispatch_* that hold a code.json. */
static int scan(const char *base, cand **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char **names = NULL;
    size_t count = 0;
    fp_err e = {0};
    if (!fp_is_dir(base) || fp_list_dir(base, &names, &count, &e) != 0) {
        fp_err_clear(&e);
        return 0;
    }
    cand *c = calloc(count + 1, sizeof *c);
    if (!c)
        abort();
    for (size_t i = 0; i < count; i++) {
        if (strncmp(names[i], DISPATCH_PREFIX, strlen(DISPATCH_PREFIX)) != 0)
            continue;
        char *d = fp_path_join(base, names[i]);
        char *cj = fp_path_join(d, "code.json");
        if (fp_is_dir(d) && fp_is_file(cj)) {
            cand *k = &c[(*n)++];
            k->name = names[i];
            names[i] = NULL;
            k->num = fp_dispatch_number(k->name);
            k->empty = fp_dispatch_is_empty(d, &k->waves);
        }
        free(cj);
        free(d);
    }
    fp_strv_free(names, count);
    if (*n)
        qsort(c, *n, sizeof *c, cmp_cand);
    *out = c;
    return 0;
}

static void free_cands(cand *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].name);
    free(c);
}

static cJSON *inventory_json(const cand *c, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        fp_json_add_str(o, "dir", c[i].name);
        if (c[i].num >= 0)
            fp_json_add_int(o, "dispatch", c[i].num);
        else
            cJSON_AddNullToObject(o, "dispatch");
        fp_json_add_bool(o, "empty", c[i].empty);
        fp_json_add_int(o, "waves", c[i].waves);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static int pick(fp_dispatch_ref *out, const char *base, const cand *c, const char *how)
{
    out->dir = fp_path_join(base, c->name);
    out->name = strdup(c->name);
    out->number = c->num;
    out->how = how;
    return 0;
}

bool fp_dispatch_is_dir(const char *dir)
{
    char *cj = fp_path_join(dir, "code.json");
    bool is = fp_is_file(cj);
    free(cj);
    return is;
}

int fp_dispatch_resolve_at(const char *bundle, const char *tag, const fp_dispatch_hint *h, long long dispatch,
                           fp_dispatch_ref *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    out->number = -1;
    out->notes = h && h->notes ? cJSON_Duplicate(h->notes, 1) : cJSON_CreateArray();
    if (!bundle || !fp_is_dir(bundle))
        return fp_err_set(err, FP_BAD_ARGS, "--bundle %s is not a directory", bundle ? bundle : "(none)");
    if (tag && !fp_is_plain_name(tag))
        return fp_err_set(err, FP_BAD_ARGS, "--tag '%s' is not a plain name", tag);

    if (fp_dispatch_is_dir(bundle)) {
        out->bundle_is_dispatch = true;
        out->dir = strdup(bundle);
        char *abs = fp_path_abs(bundle);
        out->name = strdup(fp_path_base(abs));
        free(abs);
        out->number = fp_dispatch_number(out->name);
        out->how = "dispatch_dir";
        if (dispatch >= 0 && dispatch != out->number)
            cJSON_AddItemToArray(out->notes, cJSON_CreateString("--dispatch ignored: --bundle is a dispatch dir"));
        if (tag)
            cJSON_AddItemToArray(out->notes, cJSON_CreateString("--tag ignored: --bundle is a dispatch dir"));
        long long waves;
        bool empty = fp_dispatch_is_empty(bundle, &waves);
        cand self = {out->name, out->number, empty, waves};
        out->inventory = inventory_json(&self, 1);
        return 0;
    }

    const char *use_tag = h ? h->tag : tag;
    const char *kept = h ? h->kept : NULL;
    /* bases to scan, in order: capture.json att_dir, att/<tag>, att, the bundle */
    char *bases[4] = {0};
    int nb = 0;
    if (h && h->att_dir)
        bases[nb++] = fp_path_join(bundle, h->att_dir);
    char *att = fp_path_join(bundle, "att");
    if (use_tag)
        bases[nb++] = fp_path_join(att, use_tag);
    bases[nb++] = strdup(att);
    bases[nb++] = strdup(bundle);
    free(att);
    out->tag = use_tag ? strdup(use_tag) : NULL;

    cand *c = NULL;
    size_t n = 0;
    const char *base = NULL;
    for (int i = 0; i < nb; i++) {
        scan(bases[i], &c, &n);
        if (n) {
            base = bases[i];
            break;
        }
        free_cands(c, n);
        c = NULL;
    }
    int rc = -1;
    out->inventory = inventory_json(c, n);
    for (size_t i = 0; i < n; i++)
        if (c[i].empty) {
            char msg[512];
            snprintf(msg, sizeof msg, "skipped empty dispatch dir %s (no waves or code null)", c[i].name);
            cJSON_AddItemToArray(out->notes, cJSON_CreateString(msg));
        }
    if (n == 0) {
        fp_err_set(err, FP_NO_ARTIFACT, "no ATT dispatch dir (ui_output_agent_*_dispatch_*/code.json) in %s%s%s",
                   bundle, use_tag ? " for tag " : "", use_tag ? use_tag : "");
        fp_err_help(err, "run `flyprof capture` first, or point --bundle at a ui_output_agent_* dir");
        fp_err_extra(err, "inventory", cJSON_Duplicate(out->inventory, 1));
        goto done;
    }
    if (dispatch >= 0) {
        for (size_t i = 0; i < n; i++)
            if (c[i].num == dispatch) {
                if (c[i].empty) {
                    fp_err_set(err, FP_EMPTY_ATT, "dispatch %lld (%s) is an empty shell", dispatch, c[i].name);
                    fp_err_help(err, "pick a non-empty dispatch from error.inventory");
                    fp_err_extra(err, "inventory", cJSON_Duplicate(out->inventory, 1));
                    goto done;
                }
                rc = pick(out, base, &c[i], "--dispatch");
                goto done;
            }
        fp_err_set(err, FP_DISPATCH_OUT_OF_RANGE, "no dispatch %lld under %s", dispatch, base);
        fp_err_help(err, "use a dispatch number from error.available");
        cJSON *av = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
            if (c[i].num >= 0)
                cJSON_AddItemToArray(av, fp_json_int(c[i].num));
        fp_err_extra(err, "available", av);
        fp_err_extra(err, "inventory", cJSON_Duplicate(out->inventory, 1));
        goto done;
    }
    if (kept) {
        for (size_t i = 0; i < n; i++)
            if (!strcmp(c[i].name, kept)) {
                if (!c[i].empty) {
                    rc = pick(out, base, &c[i], "capture.json");
                    goto done;
                }
                cJSON_AddItemToArray(out->notes,
                                     cJSON_CreateString("capture.json kept_dispatch is an empty shell; scanning instead"));
            }
    }
    size_t nonempty = 0;
    for (size_t i = 0; i < n; i++)
        nonempty += !c[i].empty;
    for (size_t i = n; i-- > 0;)
        if (!c[i].empty) {
            rc = pick(out, base, &c[i], "scan");
            if (nonempty > 1) {
                char msg[512];
                snprintf(msg, sizeof msg,
                         "%zu non-empty dispatch dirs; using the highest-numbered (%s); pick another with --dispatch N",
                         nonempty, c[i].name);
                cJSON_AddItemToArray(out->notes, cJSON_CreateString(msg));
            }
            goto done;
        }
    fp_err_set(err, FP_EMPTY_ATT, "every dispatch dir under %s is an empty shell", base);
    fp_err_help(err, "enlarge the shape or adjust the iteration range, then capture again");
    fp_err_extra(err, "inventory", cJSON_Duplicate(out->inventory, 1));
done:
    free_cands(c, n);
    for (int i = 0; i < nb; i++)
        free(bases[i]);
    return rc;
}

/* Decoder messages worth a quality warning (rocprof-formats.md §5.1, §8.4). */
static const char *const DECODER_WARNINGS[] = {
    "data lost", "stitch", "could not fetch some instructions", "was not loaded", "invalid_shader_data",
    "decoder library not found", "error loading decoder",
};

static bool line_has_ci(const char *line, size_t len, const char *pat)
{
    size_t pl = strlen(pat);
    for (size_t i = 0; i + pl <= len; i++)
        if (strncasecmp(line + i, pat, pl) == 0)
            return true;
    return false;
}

size_t fp_dispatch_decoder_warnings(const char *bundle, const char *tag, char ***lines, size_t max)
{
    if (lines)
        *lines = NULL;
    if (!bundle || !tag || !fp_is_plain_name(tag))
        return 0;
    fp_sb path, text;
    fp_sb_init(&path);
    fp_sb_init(&text);
    fp_sb_addf(&path, "%s/rocprof/%s/rocprofv3.stderr.txt", bundle, tag);
    fp_err e = {0};
    size_t n = 0, kept = 0;
    if (fp_is_file(path.buf) && fp_read_file(path.buf, &text, &e) == 0) {
        const char *p = text.buf, *end = text.buf + text.len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
            bool hit = false;
            for (size_t k = 0; k < sizeof DECODER_WARNINGS / sizeof *DECODER_WARNINGS && !hit; k++)
                hit = line_has_ci(p, len, DECODER_WARNINGS[k]);
            if (hit) {
                n++;
                if (lines && kept < max) {
                    size_t l = len > 300 ? 300 : len; /* keep the envelope small */
                    *lines = realloc(*lines, (kept + 1) * sizeof **lines);
                    if (!*lines)
                        abort();
                    (*lines)[kept] = malloc(l + 1);
                    if (!(*lines)[kept])
                        abort();
                    memcpy((*lines)[kept], p, l);
                    (*lines)[kept][l] = '\0';
                    kept++;
                }
            }
            p += len + 1;
        }
    }
    fp_err_clear(&e);
    fp_sb_free(&path);
    fp_sb_free(&text);
    return n;
}

void fp_dispatch_ref_free(fp_dispatch_ref *r)
{
    if (!r)
        return;
    free(r->dir);
    free(r->name);
    free(r->tag);
    cJSON_Delete(r->inventory);
    cJSON_Delete(r->notes);
    memset(r, 0, sizeof *r);
}
