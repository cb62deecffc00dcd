/*
 * map.c - source chains, exact FILE:LINE matching and snippets (map.h).
 * The prototype matched --source-line as a substring, so x.py:19 selected
 * x.py:190..199; here a selection is a (file, line) pair compared exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "flyprof/map.h"
#include "flyprof/mem.h"

#define ARROW " -> "

static void split_one(const char *s, size_t n, fp_frame *f)
{
    const char *colon = NULL;
    for (size_t i = n; i-- > 0;)
        if (s[i] == ':') {
            colon = s + i;
            break;
        }
    f->line = -1;
    if (colon && colon + 1 < s + n) {
        long v = 0;
        const char *p = colon + 1;
        bool ok = true;
        for (; p < s + n; p++) {
            if (*p < '0' || *p > '9' || v > 100000000) {
                ok = false;
                break;
            }
            v = v * 10 + (*p - '0');
        }
        if (ok)
            f->line = v;
    }
    f->file = f->line >= 0 ? fp_xstrndup(s, (size_t)(colon - s)) : fp_xstrndup(s, n);
}

size_t fp_source_frames(const char *source, fp_frame **frames)
{
    *frames = NULL;
    if (!source || !*source)
        return 0;
    size_t n = 1;
    for (const char *p = source; (p = strstr(p, ARROW)) != NULL; p += strlen(ARROW))
        n++;
    fp_frame *f = calloc(n, sizeof *f);
    if (!f)
        abort();
    const char *s = source;
    for (size_t i = 0; i < n; i++) {
        const char *e = strstr(s, ARROW);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        split_one(s, len, &f[i]);
        s = e ? e + strlen(ARROW) : s + len;
    }
    *frames = f;
    return n;
}

void fp_frames_free(fp_frame *frames, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(frames[i].file);
    free(frames);
}

int fp_parse_file_line(const char *spec, char **file, long *line, fp_err *err)
{
    *file = NULL;
    fp_frame f;
    split_one(spec, strlen(spec), &f);
    if (f.line < 0 || !f.file[0]) {
        free(f.file);
        fp_err_set(err, FP_USAGE, "--source-line '%s' is not FILE:LINE", spec);
        return fp_err_help(err, "give a file (path or unique suffix) and a line number, e.g. kernels/x.py:19");
    }
    *file = f.file;
    *line = f.line;
    return 0;
}

bool fp_path_suffix_match(const char *path, const char *suffix)
{
    size_t pl = strlen(path), sl = strlen(suffix);
    if (sl == 0 || sl > pl)
        return false;
    if (strcmp(path + pl - sl, suffix) != 0)
        return false;
    return sl == pl || suffix[0] == '/' || path[pl - sl - 1] == '/';
}

fp_file_match fp_match_file(const char *want, const char *const *paths, size_t n, const char **which)
{
    *which = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(paths[i], want)) {
            *which = paths[i];
            return FP_FM_EXACT;
        }
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (!fp_path_suffix_match(paths[i], want))
            continue;
        bool dup = false;
        for (size_t j = 0; j < i; j++)
            dup |= !strcmp(paths[j], paths[i]);
        if (dup)
            continue;
        if (!*which)
            *which = paths[i];
        hits++;
    }
    return hits == 0 ? FP_FM_NONE : hits == 1 ? FP_FM_SUFFIX : FP_FM_AMBIGUOUS;
}

fp_map_snippet *fp_snippet(const fp_snapshots *snaps, const char *file, long line, long context)
{
    if (!snaps || snaps->n == 0 || line < 1)
        return NULL;
    const char **paths = malloc(snaps->n * sizeof *paths);
    if (!paths)
        abort();
    for (size_t i = 0; i < snaps->n; i++)
        paths[i] = snaps->files[i].vpath;
    const char *which = NULL;
    fp_file_match m = fp_match_file(file, paths, snaps->n, &which);
    free(paths);
    if (m != FP_FM_EXACT && m != FP_FM_SUFFIX)
        return NULL;
    const fp_source_file *sf = fp_snapshots_find(snaps, which);
    if (!sf || (size_t)line > sf->nlines)
        return NULL;
    fp_map_snippet *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->file = fp_model_strdup(sf->vpath);
    o->snapshot = fp_model_strdup(sf->local);
    o->match = fp_model_strdup(m == FP_FM_EXACT ? "exact" : "suffix");
    o->line = line;
    long lo = line - context < 1 ? 1 : line - context;
    long hi = line + context > (long)sf->nlines ? (long)sf->nlines : line + context;
    for (long n = lo; n <= hi; n++) {
        fp_map_snip_line *e = fp_model_push((void **)&o->lines, &o->nlines, sizeof *e);
        e->n = n;
        e->text = fp_model_strdup(sf->lines[n - 1]);
        e->hot = n == line;
    }
    return o;
}
