/*
 * snapshots.c - snapshots.json: a nested object mirroring each source file's
 * absolute path, whose string leaves name the copy inside the dispatch dir.
 * Paths are joined like Python's os.path.join (the root key "/" adds no
 * segment), and a leaf is only ever opened when it is a plain file name that
 * resolves inside the dispatch dir: "../../etc/passwd" is refused, never read.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/att.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"

void fp_split_lines(const char *text, size_t len, char ***lines, size_t *n)
{
    size_t cap = 64, cnt = 0;
    char **v = malloc(cap * sizeof *v);
    if (!v)
        abort();
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n' && text[j] != '\r')
            j++;
        if (cnt == cap) {
            cap *= 2;
            char **nv = realloc(v, cap * sizeof *v);
            if (!nv)
                abort();
            v = nv;
        }
        char *l = malloc(j - i + 1);
        if (!l)
            abort();
        memcpy(l, text + i, j - i);
        l[j - i] = '\0';
        v[cnt++] = l;
        if (j < len && text[j] == '\r' && j + 1 < len && text[j + 1] == '\n')
            j++;
        i = j + 1;
    }
    *lines = v;
    *n = cnt;
}

static char *py_join(const char *a, const char *b)
{
    fp_sb sb;
    fp_sb_init(&sb);
    if (b[0] == '/' || !a[0]) {
        fp_sb_adds(&sb, b);
    } else {
        fp_sb_adds(&sb, a);
        if (a[strlen(a) - 1] != '/')
            fp_sb_addc(&sb, '/');
        fp_sb_adds(&sb, b);
    }
    return fp_sb_detach(&sb);
}

static void add_file(fp_snapshots *s, const char *dir, const char *dir_real, const char *vpath,
                     const char *leaf)
{
    if (!fp_is_plain_name(leaf)) {
        s->refused++;
        return;
    }
    char *path = fp_path_join(dir, leaf);
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        s->missing++;
        free(path);
        return;
    }
    size_t dl = strlen(dir_real);
    /* A symlink leaf that escapes the dispatch dir is refused too. */
    if (strncmp(real, dir_real, dl) != 0 || real[dl] != '/') {
        s->refused++;
        free(path);
        return;
    }
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err err = {0};
    if (fp_read_file(path, &sb, &err) != 0) {
        fp_err_clear(&err);
        s->missing++;
        fp_sb_free(&sb);
        free(path);
        return;
    }
    fp_source_file *nf = realloc(s->files, (s->n + 1) * sizeof *nf);
    if (!nf)
        abort();
    s->files = nf;
    fp_source_file *f = &s->files[s->n++];
    f->vpath = strdup(vpath);
    f->local = strdup(leaf);
    if (!f->vpath || !f->local)
        abort();
    fp_split_lines(sb.buf, sb.len, &f->lines, &f->nlines);
    fp_sb_free(&sb);
    free(path);
}

/* Depth-first walk; depth is bounded by cJSON's own nesting limit. */
static void walk(fp_snapshots *s, const char *dir, const char *dir_real, const cJSON *node,
                 const char *prefix)
{
    for (const cJSON *it = node->child; it; it = it->next) {
        if (!it->string)
            continue;
        char *p = py_join(prefix, it->string);
        if (cJSON_IsString(it))
            add_file(s, dir, dir_real, p, it->valuestring);
        else if (cJSON_IsObject(it))
            walk(s, dir, dir_real, it, p);
        free(p);
    }
}

int fp_snapshots_load(const char *dir, fp_snapshots *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    char *path = fp_path_join(dir, "snapshots.json");
    if (!fp_is_file(path)) {
        free(path);
        return 0;
    }
    cJSON *j = NULL;
    int rc = fp_json_parse_file(path, &j, err);
    free(path);
    if (rc != 0)
        return -1;
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return fp_err_set(err, FP_BAD_INPUT, "%s/snapshots.json: top level is not an object", dir);
    }
    char real[PATH_MAX];
    if (!realpath(dir, real)) {
        cJSON_Delete(j);
        return fp_err_set(err, FP_IO_ERROR, "%s: cannot resolve", dir);
    }
    walk(out, dir, real, j, "");
    cJSON_Delete(j);
    return 0;
}

void fp_snapshots_free(fp_snapshots *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->files[i].vpath);
        free(s->files[i].local);
        for (size_t k = 0; k < s->files[i].nlines; k++)
            free(s->files[i].lines[k]);
        free(s->files[i].lines);
    }
    free(s->files);
    memset(s, 0, sizeof *s);
}

const fp_source_file *fp_snapshots_find(const fp_snapshots *s, const char *vpath)
{
    /* Later leaves win, as in a Python dict filled in walk order. */
    for (size_t i = s->n; i-- > 0;)
        if (!strcmp(s->files[i].vpath, vpath))
            return &s->files[i];
    return NULL;
}
