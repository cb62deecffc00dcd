/*
 * cmd_bundle.c - `flyprof bundle --bundle DIR`: publish a bundle as the
 * canonical examples/<kernel>/ directory, complete enough to be re-reported.
 *
 * Story: build the report of the bundle (to learn the kernel and the
 * dispatch) -> assemble <examples-dir>/.<kernel>.tmp-<pid>/ with the kept ATT
 * dispatch (at the same relative path, so capture.json stays valid), the
 * rocprofv3 CSVs, pmc/ counter CSVs, capture/counters/tile/bubbles/map JSON
 * and the flamegraph -> report the assembled example itself (so the published
 * report.json is exactly what `flyprof report` gives on it) -> README.md ->
 * rename into place (replacing an older example whole, so no stale dispatch
 * dir survives; --no-clobber refuses instead).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "flyprof/bundle.h"
#include "flyprof/bundle_path.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/report.h"
#include "flyprof/report_load.h"

typedef struct bundle_args {
    const char *examples_dir;
    const char *tag;
    bool no_clobber;
} bundle_args;

static const fp_opt bundle_opts[] = {
    {"examples-dir", 0, FP_OPT_STR, offsetof(bundle_args, examples_dir), "DIR",
     "destination root (default $FLYPROF_EXAMPLES_DIR, else ./runs/examples)", NULL, NULL, 0, 0},
    {"tag", 0, FP_OPT_STR, offsetof(bundle_args, tag), "TAG", "capture tag whose dispatch is published", NULL, NULL,
     0, 0},
    {"no-clobber", 0, FP_OPT_FLAG, offsetof(bundle_args, no_clobber), NULL,
     "fail (BAD_ARGS) instead of replacing an existing example", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Bundle artifacts copied when present (docs/bundle.md). */
static const char *const bundle_files[] = {"capture.json", "counters.json", "tile.json", "bubbles.json",
                                           "map.json",     "flamegraph.svg", "flamegraph.folded"};
/* Deepest directory nesting copied (pmc/pass_N/... is 2-3 levels). */
#define FP_BUNDLE_MAX_DEPTH 8

static int copy_file(const char *src, const char *dst, fp_err *err)
{
    fp_sb sb;
    fp_sb_init(&sb);
    int rc = fp_read_file(src, &sb, err);
    if (rc == 0)
        rc = fp_write_atomic(dst, sb.buf, sb.len, err);
    fp_sb_free(&sb);
    return rc;
}

/* A JSON artifact of the source bundle, with its paths made relative to the
 * published dir: the dispatch dir's new place, the rest relative to it
 * (artifacts written by an older flyprof held absolute paths). */
static int copy_json_relocated(const char *src, const char *dst, const char *root, const char *disp_dir,
                               const char *disp_rel, fp_err *err)
{
    cJSON *j = NULL;
    if (fp_json_parse_file(src, &j, err))
        return -1;
    fp_json_path_replace(j, disp_dir, disp_rel);
    fp_json_bundle_relative(j, root);
    int rc = fp_json_write_file(dst, j, err);
    cJSON_Delete(j);
    return rc;
}

static int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    char **names = NULL;
    size_t n = 0;
    fp_err e;
    memset(&e, 0, sizeof e);
    if (fp_list_dir(path, &names, &n, &e) == 0) {
        for (size_t i = 0; i < n; i++) {
            char *p = fp_path_join(path, names[i]);
            remove_tree(p);
            free(p);
        }
        fp_strv_free(names, n);
    }
    fp_err_clear(&e);
    return rmdir(path);
}

/* "a/b/c" of `path` below `root`, or NULL when path is not inside root. */
static char *rel_below(const char *root, const char *path)
{
    char *ra = fp_path_abs(root), *pa = fp_path_abs(path), *out = NULL;
    size_t n = strlen(ra);
    if (!strncmp(pa, ra, n) && pa[n] == '/' && pa[n + 1])
        out = strdup(pa + n + 1);
    free(ra);
    free(pa);
    return out;
}

/* Absolute, symlink-free form of `path` even when its tail does not exist yet:
 * realpath of the longest existing prefix, then the remaining components with
 * "." and ".." applied lexically. malloc'd. */
static char *resolve_path(const char *path)
{
    char *abs = fp_path_abs(path);
    size_t n = strlen(abs);
    char *real = NULL;
    size_t cut = n;
    for (;;) { /* shorten to the longest prefix realpath accepts */
        char save = abs[cut];
        abs[cut] = '\0';
        real = realpath(cut ? abs : "/", NULL);
        abs[cut] = save;
        if (real || cut == 0)
            break;
        while (cut > 0 && abs[--cut] != '/')
            ;
    }
    fp_sb out;
    fp_sb_init(&out);
    fp_sb_adds(&out, real ? real : "");
    free(real);
    for (const char *s = abs + cut; *s;) {
        while (*s == '/')
            s++;
        size_t len = strcspn(s, "/");
        if (len == 0 || (len == 1 && s[0] == '.')) {
        } else if (len == 2 && s[0] == '.' && s[1] == '.') {
            char *slash = strrchr(out.buf, '/');
            out.len = slash ? (size_t)(slash - out.buf) : 0;
            out.buf[out.len] = '\0';
        } else {
            if (!(out.len == 1 && out.buf[0] == '/'))
                fp_sb_addc(&out, '/');
            fp_sb_add(&out, s, len);
        }
        s += len;
    }
    if (!out.len)
        fp_sb_addc(&out, '/');
    free(abs);
    return fp_sb_detach(&out);
}

/* inner is outer or lies below it (both resolved). */
static bool path_within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    if (n == 1 && outer[0] == '/')
        return true;
    return !strncmp(inner, outer, n) && (inner[n] == '\0' || inner[n] == '/');
}

/* The example replaces <root>/<name> whole (the old one is moved aside and
 * deleted) and is assembled under <root> from copies of the bundle's dirs. So
 * the destination must not be, or contain, anything being published (that
 * deleted the source bundle: issue 10 c), and the examples root must not lie
 * inside a directory being copied (the copy would copy itself). */
static int check_no_overlap(const char *bundle, const fp_report_loaded *l, const char *root, const char *dest,
                            fp_err *err)
{
    char *d = resolve_path(dest), *r = resolve_path(root);
    const char *sources[] = {bundle, l->root, l->dispatch_dir};
    int rc = 0;
    for (size_t i = 0; i < sizeof sources / sizeof *sources && rc == 0; i++) {
        if (!sources[i])
            continue;
        char *s = resolve_path(sources[i]);
        if (path_within(s, d)) {
            fp_err_set(err, FP_BAD_ARGS, "the example %s would replace %s, the bundle being published", d, s);
            rc = fp_err_help(err, "pick an --examples-dir outside the bundle (the default is ./runs/examples)");
        }
        free(s);
    }
    char *rp = fp_path_join(l->root, "rocprof"), *pp = fp_path_join(l->root, "pmc");
    const char *copied[] = {l->dispatch_dir, l->bundle_is_dispatch ? NULL : rp, l->bundle_is_dispatch ? NULL : pp};
    for (size_t i = 0; i < sizeof copied / sizeof *copied && rc == 0; i++) {
        if (!copied[i])
            continue;
        char *s = resolve_path(copied[i]);
        if (path_within(r, s)) {
            fp_err_set(err, FP_BAD_ARGS, "--examples-dir %s lies inside %s, which the example copies", r, s);
            rc = fp_err_help(err, "pick an --examples-dir outside the bundle (the default is ./runs/examples)");
        }
        free(s);
    }
    free(rp);
    free(pp);
    free(d);
    free(r);
    return rc;
}

/* A directory name for the example: the kernel name with anything but
 * [A-Za-z0-9._-] replaced, never "." or "..". */
static char *example_name(const char *kernel)
{
    const char *k = kernel && *kernel ? kernel : "kernel";
    char *s = strdup(k);
    if (!s)
        abort();
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '_' || *p == '-'))
            *p = '_';
    if (!strcmp(s, ".") || !strcmp(s, "..") || s[0] == '.')
        s[0] = '_';
    return s;
}

static void readme(const fp_report_doc *r, const char *name, const char *disp_rel, fp_sb *out)
{
    const char *arch = r->arch, *product = r->product;
    fp_sb_addf(out, "# %s - %s / %s profiling example\n\n", name, arch ? arch : "arch unknown",
               product ? product : "product unknown");
    fp_sb_addf(out, "%s\n\n", r->headline ? r->headline : "");
    fp_sb_adds(out, "Written by `flyprof bundle`. Layout:\n\n");
    fp_sb_addf(out, "- `%s/` - the analysed ATT dispatch (code.json, wave files, source copies)\n", disp_rel);
    fp_sb_adds(out, "- `rocprof/` - rocprofv3 kernel_trace.csv / agent_info.csv of the capture (arch, product, "
                    "registers, duration), when the bundle had them\n"
                    "- `pmc/` - counter CSVs, when collected\n"
                    "- `capture.json`, `counters.json`, `tile.json`, `bubbles.json`, `map.json` - the bundle's "
                    "artifacts (those that existed)\n"
                    "- `report.json`, `headlines.json`, `REPORT.md`, `report.html` - the report of THIS directory\n\n");
    fp_sb_adds(out, "Re-analyse without a GPU:\n\n```\n");
    fp_sb_addf(out, "flyprof report --bundle examples/%s\nflyprof bubbles --bundle examples/%s\n", name, name);
    fp_sb_adds(out, "```\n\nRepro on a GPU:\n\n```\n");
    fp_sb_addf(out, "%s\n```\n", r->repro ? r->repro : "");
}

static int write_report_files(const char *dir, const fp_report_loaded *l, fp_err *err)
{
    const fp_report_doc *r = &l->report;
    char *p = fp_bundle_path(dir, FP_ART_REPORT);
    int rc = fp_report_write_file(r, p, err);
    free(p);
    fp_headlines_doc hl;
    fp_report_headlines(r, &hl);
    if (rc == 0) {
        p = fp_bundle_path(dir, FP_ART_HEADLINES);
        rc = fp_headlines_write_file(&hl, p, err);
        free(p);
    }
    fp_headlines_doc_free(&hl);
    fp_sb md;
    fp_sb_init(&md);
    if (rc == 0) {
        fp_report_markdown(r, &md);
        p = fp_bundle_path(dir, FP_ART_REPORT_MD);
        rc = fp_write_atomic(p, md.buf, md.len, err);
        free(p);
    }
    if (rc == 0) {
        fp_sb_reset(&md);
        fp_html_data hd;
        fp_html_data_load(l->dispatch_dir, r, FP_REPORT_HTML_WAVES, &hd);
        fp_report_html(r, &l->bubbles, &hd, &md);
        fp_html_data_free(&hd);
        p = fp_bundle_path(dir, FP_ART_REPORT_HTML);
        rc = fp_write_atomic(p, md.buf, md.len, err);
        free(p);
    }
    fp_sb_free(&md);
    return rc;
}

/* The destination root: --examples-dir, else $FLYPROF_EXAMPLES_DIR, else runs/examples. */
static const char *examples_root(const bundle_args *a)
{
    const char *root = a->examples_dir ? a->examples_dir : getenv("FLYPROF_EXAMPLES_DIR");
    /* Not ./examples: run from a FlyDSL checkout, that is the project's own tree,
     * and a bundle replaces examples/<kernel>/ whole. runs/ is where capture and
     * run already put their bundles (the seed's "repo-local runs/examples/"). */
    if (!root || !*root)
        root = "runs/examples";
    return root;
}

/* An example being assembled in its temporary directory. */
typedef struct example {
    const fp_report_loaded *l; /* the bundle's report inputs: root, dispatch dir, bubbles */
    const char *tmp;           /* the directory being assembled */
    char *disp_rel;            /* where the dispatch goes inside it (owned) */
    cJSON *copied;             /* what was copied, for the envelope (owned) */
    cJSON *skipped;            /* [{path, reason}]: what was not, and why (owned) */
    fp_sb skipped_text;        /* the same as table lines */
    char *roots[2];            /* resolved: the bundle and the dispatch dir; a symlink is followed
                                  only when its target lies inside one of them (owned) */
    size_t nfiles;
} example;

/* ---- copying without losing anything silently (issue 21 item 7, issue 22 item 4) ---- */

static void skip(example *ex, const char *rel, const char *fmt, const char *arg)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "path", rel);
    fp_sb why;
    fp_sb_init(&why);
    fp_sb_addf(&why, fmt, arg ? arg : "");
    fp_json_add_str(o, "reason", why.buf);
    fp_sb_addf(&ex->skipped_text, "  %s: %s\n", rel, why.buf);
    fp_sb_free(&why);
    cJSON_AddItemToArray(ex->skipped, o);
}

typedef enum { ENT_FILE, ENT_DIR, ENT_SKIP } ent_kind;

/* What one entry of the bundle is to the copy. A symlink is copied by content when its
 * target lies inside the bundle (or the dispatch dir) and is skipped otherwise: a
 * symlinked pmc/ or CSV must not pull an outside file into a published example. `rel`
 * names it in the skip list. */
static ent_kind classify(example *ex, const char *path, const char *rel)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        skip(ex, rel, "cannot be read%s", "");
        return ENT_SKIP;
    }
    if (S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real) {
            skip(ex, rel, "a dangling symlink%s", "");
            return ENT_SKIP;
        }
        bool inside = false;
        for (int i = 0; i < 2; i++)
            inside |= ex->roots[i] && path_within(real, ex->roots[i]);
        if (!inside || stat(real, &st) != 0) {
            skip(ex, rel, "a symlink to %s, outside the bundle (not published)", real);
            free(real);
            return ENT_SKIP;
        }
        free(real);
    }
    if (S_ISREG(st.st_mode))
        return ENT_FILE;
    if (S_ISDIR(st.st_mode))
        return ENT_DIR;
    skip(ex, rel, "not a regular file or directory%s", "");
    return ENT_SKIP;
}

/* Copy the files and directories of src into dst (rel: src's path in the example).
 * Names that are not plain, symlinks out of the bundle, a symlinked directory that
 * contains the directory being copied (a cycle) and special files are skipped and
 * listed. */
static int copy_tree(example *ex, const char *src, const char *dst, const char *rel, int depth, fp_err *err)
{
    if (depth > FP_BUNDLE_MAX_DEPTH)
        return fp_err_set(err, FP_BAD_INPUT, "%s: directory nesting deeper than %d", src, FP_BUNDLE_MAX_DEPTH);
    if (fp_mkdir_p(dst, err))
        return -1;
    char **names = NULL;
    size_t n = 0;
    if (fp_list_dir(src, &names, &n, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *s = fp_path_join(src, names[i]), *d = fp_path_join(dst, names[i]), *r = fp_path_join(rel, names[i]);
        ent_kind k = fp_is_plain_name(names[i]) ? classify(ex, s, r) : ENT_SKIP;
        if (!fp_is_plain_name(names[i]))
            skip(ex, r, "not a plain file name%s", "");
        char *rs = k == ENT_DIR ? resolve_path(s) : NULL, *rsrc = k == ENT_DIR ? resolve_path(src) : NULL;
        if (k == ENT_DIR && path_within(rsrc, rs)) {
            skip(ex, r, "a symlink to %s, which contains it (a cycle)", rs);
            k = ENT_SKIP;
        }
        if (k == ENT_FILE) {
            rc = copy_file(s, d, err);
            ex->nfiles++;
        } else if (k == ENT_DIR) {
            rc = copy_tree(ex, s, d, r, depth + 1, err);
        }
        free(rs);
        free(rsrc);
        free(s);
        free(d);
        free(r);
    }
    fp_strv_free(names, n);
    return rc;
}

/* The dispatch's path in the example: the same place relative to the bundle
 * (so capture.json stays valid), else att/<dir name> for a bare dispatch dir. */
static char *dispatch_rel(const fp_report_loaded *l)
{
    char *rel = l->bundle_is_dispatch ? NULL : rel_below(l->root, l->dispatch_dir);
    if (!rel) {
        const char *base = fp_path_base(l->dispatch_dir);
        size_t n = strlen(base) + 5;
        rel = malloc(n);
        if (!rel)
            abort();
        snprintf(rel, n, "att/%s", base);
    }
    return rel;
}

static int copy_dispatch(example *ex, fp_err *err)
{
    char *d = fp_path_join(ex->tmp, ex->disp_rel);
    int rc = copy_tree(ex, ex->l->dispatch_dir, d, ex->disp_rel, 0, err);
    free(d);
    if (rc == 0)
        cJSON_AddItemToArray(ex->copied, cJSON_CreateString(ex->disp_rel));
    return rc;
}

/* The bundle's artifacts (JSON ones with their paths relocated), rocprof/ and pmc/: each
 * listed as copied only when something of it was (a symlinked one out of the bundle is
 * listed as skipped instead). */
static int copy_artifacts(example *ex, fp_err *err)
{
    const fp_report_loaded *l = ex->l;
    for (size_t i = 0; i < sizeof bundle_files / sizeof *bundle_files; i++) {
        char *s = fp_path_join(l->root, bundle_files[i]), *d = fp_path_join(ex->tmp, bundle_files[i]);
        struct stat st;
        bool there = lstat(s, &st) == 0, take = there && classify(ex, s, bundle_files[i]) == ENT_FILE;
        int c = !take ? 0
                : strstr(bundle_files[i], ".json")
                    ? copy_json_relocated(s, d, l->root, l->dispatch_dir, ex->disp_rel, err)
                    : copy_file(s, d, err);
        if (c == 0 && take)
            cJSON_AddItemToArray(ex->copied, cJSON_CreateString(bundle_files[i]));
        free(s);
        free(d);
        if (c)
            return -1;
    }
    static const char *const dirs[] = {"rocprof", "pmc"};
    for (size_t i = 0; i < 2; i++) {
        char *s = fp_path_join(l->root, dirs[i]), *d = fp_path_join(ex->tmp, dirs[i]);
        struct stat st;
        size_t before = ex->nfiles;
        bool take = lstat(s, &st) == 0 && classify(ex, s, dirs[i]) == ENT_DIR;
        int c = take ? copy_tree(ex, s, d, dirs[i], 0, err) : 0;
        if (c == 0 && take && ex->nfiles > before)
            cJSON_AddItemToArray(ex->copied, cJSON_CreateString(dirs[i]));
        free(s);
        free(d);
        if (c)
            return -1;
    }
    return 0;
}

/* A bare dispatch dir: its capture's CSVs live at <case>/rocprof/. */
static int copy_dispatch_csvs(example *ex, fp_err *err)
{
    char *s = fp_path_join(ex->l->dispatch_dir, "../../rocprof"), *d = fp_path_join(ex->tmp, "rocprof");
    static const char *const csvs[] = {"kernel_trace.csv", "agent_info.csv"};
    int rc = 0;
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        char *sf = fp_path_join(s, csvs[i]), *df = fp_path_join(d, csvs[i]);
        if (fp_is_file(sf)) {
            rc = copy_file(sf, df, err);
            if (rc == 0)
                cJSON_AddItemToArray(ex->copied, cJSON_CreateString(csvs[i]));
        }
        free(sf);
        free(df);
    }
    free(s);
    free(d);
    return rc;
}

/* bubbles.json always ships: computed (by the report's load) when the bundle had none. */
static int ensure_bubbles(const example *ex, fp_err *err)
{
    char *bp = fp_bundle_path(ex->tmp, FP_ART_BUBBLES);
    int c = 0;
    if (!fp_is_file(bp)) {
        cJSON *bj = fp_model_write(&fp_bubbles_schema, &ex->l->bubbles);
        fp_json_path_replace(bj, ex->l->dispatch_dir, ex->disp_rel);
        fp_json_bundle_relative(bj, ex->l->root);
        c = fp_json_write_file(bp, bj, err);
        cJSON_Delete(bj);
    }
    free(bp);
    return c;
}

/* The example's own report - what `flyprof report` will say on it - and its README.md. */
static int report_example(fp_ctx *ctx, const example *ex, const char *tag, const char *name, fp_err *err)
{
    fp_report_loaded own;
    if (fp_report_from_bundle(ctx, ex->tmp, tag, -1, &own, err))
        return -1;
    int c = write_report_files(ex->tmp, &own, err);
    if (c == 0) {
        fp_sb rd;
        fp_sb_init(&rd);
        readme(&own.report, name, ex->disp_rel, &rd);
        char *p = fp_path_join(ex->tmp, "README.md");
        c = fp_write_atomic(p, rd.buf, rd.len, err);
        free(p);
        fp_sb_free(&rd);
    }
    fp_report_loaded_free(&own);
    return c;
}

/* Rename tmp to dest; an old example there is moved aside first and removed
 * whole after (put back when the rename fails). */
static int swap_into_place(const char *root, const char *name, const char *tmp, const char *dest, fp_err *err)
{
    char *old = NULL;
    int rc = -1;
    if (fp_is_dir(dest)) {
        char oldname[512];
        snprintf(oldname, sizeof oldname, ".%s.old-%ld", name, (long)getpid());
        old = fp_path_join(root, oldname);
        if (rename(dest, old) != 0) {
            fp_err_set(err, FP_IO_ERROR, "cannot move the old %s aside", dest);
            goto done;
        }
    }
    if (rename(tmp, dest) != 0) {
        fp_err_set(err, FP_IO_ERROR, "cannot rename %s to %s", tmp, dest);
        if (old)
            rename(old, dest);
        goto done;
    }
    if (old)
        remove_tree(old);
    rc = 0;
done:
    free(old);
    return rc;
}

/* A ".<name>.tmp-<pid>" / ".<name>.old-<pid>" entry of root whose writer is gone
 * (SIGKILL, a crash): *kind 't' or 'o', *name_len the length of <name>. */
static bool stale_entry(const char *e, char *kind, size_t *name_len)
{
    const char *dash = e[0] == '.' ? strrchr(e, '-') : NULL;
    if (!dash || dash - e < 6 || !dash[1])
        return false;
    char *end;
    long pid = strtol(dash + 1, &end, 10);
    if (*end || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
        return false; /* alive (or not ours to judge): a bundle running in parallel */
    if (!strncmp(dash - 4, ".tmp", 4) || !strncmp(dash - 4, ".old", 4)) {
        *kind = dash[-3];
        *name_len = (size_t)(dash - 4 - (e + 1));
        return *name_len > 0;
    }
    return false;
}

/* What a killed bundle left in root: its half-assembled .tmp- dirs are removed; a
 * .old- dir is the previous example moved aside just before the swap, so it is put
 * back when the example itself is missing, else removed. */
static void clean_stale(const char *root)
{
    char **names;
    size_t n;
    fp_err e = {0};
    if (fp_list_dir(root, &names, &n, &e)) {
        fp_err_clear(&e);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char kind;
        size_t nl;
        if (!stale_entry(names[i], &kind, &nl))
            continue;
        char *path = fp_path_join(root, names[i]);
        char *name = strndup(names[i] + 1, nl);
        char *dest = name ? fp_path_join(root, name) : NULL;
        struct stat st;
        if (kind == 'o' && dest && lstat(dest, &st) != 0 && rename(path, dest) == 0)
            fprintf(stderr, "flyprof: bundle: restored %s from an interrupted run\n", dest);
        else if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        free(dest);
        free(name);
        free(path);
    }
    fp_strv_free(names, n);
}

/* The envelope: the example's name, place, dispatch, what it holds, the headline. */
static void bundle_envelope(fp_ctx *ctx, const char *name, const char *dest, example *ex, const char *headline)
{
    ctx->data = cJSON_CreateObject();
    fp_json_add_str(ctx->data, "kernel", name);
    char *abs = fp_path_abs(dest);
    fp_json_add_str(ctx->data, "example_dir", abs);
    free(abs);
    fp_json_add_str(ctx->data, "dispatch", ex->disp_rel);
    cJSON_AddItemToObject(ctx->data, "copied", ex->copied);
    ex->copied = NULL;
    int nskipped = cJSON_GetArraySize(ex->skipped);
    if (nskipped) { /* never silent: the envelope lists each one, the warning says how many */
        fp_warn(ctx, "bundle: %d file(s) not published (symlinks out of the bundle, special files): see data.skipped",
                nskipped);
    }
    cJSON_AddItemToObject(ctx->data, "skipped", ex->skipped);
    ex->skipped = NULL;
    fp_json_add_int(ctx->data, "files", (int64_t)ex->nfiles);
    fp_json_add_str(ctx->data, "headline", headline);
    fp_sb_addf(&ctx->table, "example written: %s\n%s\n", dest, headline ? headline : "");
    if (nskipped)
        fp_sb_addf(&ctx->table, "not published (%d):\n%s", nskipped, ex->skipped_text.buf);
}

static int run_bundle(fp_ctx *ctx, void *vargs, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    bundle_args *a = vargs;
    if (!ctx->bundle) {
        fp_err_set(err, FP_USAGE, "bundle needs --bundle DIR");
        return fp_err_help(err, "point --bundle at a capture bundle (or a ui_output_agent_*_dispatch_* dir)");
    }
    if (a->tag && !fp_is_plain_name(a->tag))
        return fp_err_set(err, FP_BAD_ARGS, "--tag '%s' is not a plain name", a->tag);
    const char *root = examples_root(a);

    /* the bundle's report names the kernel (the recipe's, else the trace's) and the dispatch */
    fp_report_loaded l;
    if (fp_report_from_bundle(ctx, ctx->bundle, a->tag, -1, &l, err))
        return -1;
    const char *kernel = l.report.recipe_kernel ? l.report.recipe_kernel : l.report.kernel;
    char *name = example_name(kernel);
    char *dest = fp_path_join(root, name);
    char tmpname[512];
    snprintf(tmpname, sizeof tmpname, ".%s.tmp-%ld", name, (long)getpid());
    char *tmp = fp_path_join(root, tmpname);
    example ex = {.l = &l, .tmp = tmp, .copied = cJSON_CreateArray(), .skipped = cJSON_CreateArray(),
                  .roots = {resolve_path(l.root), resolve_path(l.dispatch_dir)}};
    fp_sb_init(&ex.skipped_text);
    int rc = -1;

    if (check_no_overlap(ctx->bundle, &l, root, dest, err))
        goto done;
    if (a->no_clobber && (fp_is_dir(dest) || fp_is_file(dest))) {
        fp_err_set(err, FP_BAD_ARGS, "%s exists and --no-clobber was given", dest);
        fp_err_help(err, "remove it, pick another --examples-dir, or drop --no-clobber");
        goto done;
    }
    clean_stale(root);
    remove_tree(tmp);
    if (fp_mkdir_p(tmp, err))
        goto done;
    ex.disp_rel = dispatch_rel(&l);
    if (copy_dispatch(&ex, err) ||
        (l.bundle_is_dispatch ? copy_dispatch_csvs(&ex, err) : copy_artifacts(&ex, err)) ||
        ensure_bubbles(&ex, err) || report_example(ctx, &ex, a->tag, name, err) ||
        swap_into_place(root, name, tmp, dest, err))
        goto done;
    rc = 0;
    bundle_envelope(ctx, name, dest, &ex, l.report.headline);
done:
    if (rc)
        remove_tree(tmp);
    cJSON_Delete(ex.copied);
    cJSON_Delete(ex.skipped);
    fp_sb_free(&ex.skipped_text);
    free(ex.roots[0]);
    free(ex.roots[1]);
    free(name);
    free(dest);
    free(tmp);
    free(ex.disp_rel);
    fp_report_loaded_free(&l);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule bundle_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR}, {.opt = "examples-dir", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const bundle_examples[] = {
    "flyprof bundle --bundle runs/softmax --examples-dir examples",
    NULL,
};

const fp_command fp_cmd_bundle = {
    .examples = bundle_examples,
    .name = "bundle",
    .summary = "publish a bundle as examples/<kernel>/ (dispatch, CSVs, artifacts, report) - re-reportable",
    .usage = "flyprof bundle --bundle DIR [--examples-dir DIR] [--tag TAG] [--no-clobber]",
    .details = "The example carries everything `flyprof report` needs, and its report.json is the one `report` "
               "gives on it. An existing example is replaced whole (no stale dispatch dirs) unless --no-clobber.",
    .opts = bundle_opts,
    .args_size = sizeof(bundle_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_bundle,
    .paths = bundle_paths,
    .bundle_required = true,
};
