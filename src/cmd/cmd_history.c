/*
 * cmd_history.c - `flyprof history add|list|show|trend|export|import`: the
 * per-kernel performance history in SQLite (docs/commands/history.md).
 *
 * Story: resolve the database (--db, $FLYPROF_HISTORY, $XDG_DATA_HOME, ~) ->
 * open it (validated before anything is written, migrated forward) -> one
 * sub-command -> the envelope. Records come from src/history/ (record.c
 * reads a bundle, store.c is the database); trend.svg/csv from
 * src/analysis/trend.c.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/fs.h"
#include "flyprof/history.h"
#include "flyprof/json.h"
#include "flyprof/trend.h"
#include "flyprof/worktree.h"

typedef struct history_args {
    const char *db;
    const char *worktree;
    const char *kernel;
    const char *shape;
    const char *since;
    long long limit;
    const char *out;
} history_args;

static const fp_opt history_opts[] = {
    {"db", 0, FP_OPT_STR, offsetof(history_args, db), "FILE",
     "history database (default: $FLYPROF_HISTORY, else $XDG_DATA_HOME/flyprof/history.db, else "
     "~/.local/share/flyprof/history.db)",
     NULL, NULL, 0, 0},
    {"worktree", 0, FP_OPT_STR, offsetof(history_args, worktree), "DIR",
     "add: FlyDSL checkout whose HEAD/dirty state is the provenance when the bundle's capture.json has none", NULL,
     NULL, 0, 0},
    {"kernel", 'k', FP_OPT_STR, offsetof(history_args, kernel), "K", "list/show/trend/export: only this kernel",
     NULL, NULL, 0, 0},
    {"shape", 0, FP_OPT_STR, offsetof(history_args, shape), "S", "list/show/trend/export: only this shape", NULL,
     NULL, 0, 0},
    {"since", 0, FP_OPT_STR, offsetof(history_args, since), "T",
     "list/trend/export: captured at or after T (YYYY-MM-DD[THH:MM[:SS]], or an age: 7d, 24h)", NULL, NULL, 0, 0},
    {"limit", 'n', FP_OPT_INT, offsetof(history_args, limit), "N",
     "list/trend/export: only the latest N entries (default: all)", "-1", NULL, 0, 100000000},
    {"out", 0, FP_OPT_STR, offsetof(history_args, out), "PATH",
     "trend: directory for trend.svg + trend.csv (default .); export: the JSON-lines file (default history.jsonl)",
     NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static const fp_path_rule history_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR},
    {.opt = "worktree", .kind = FP_PATH_DIR},
    {.kind = FP_PATH_NONE},
};

static char *db_path(const history_args *a, fp_err *err)
{
    char *p = a->db ? fp_path_abs(a->db) : fp_history_default_path();
    if (!p) {
        fp_err_set(err, FP_BAD_ARGS, "no history database: neither --db, $FLYPROF_HISTORY, $XDG_DATA_HOME nor $HOME");
        fp_err_help(err, "pass --db FILE");
    }
    return p;
}

/* The one-line view of a record (list rows, add/check summaries). */
static cJSON *summary(const cJSON *r)
{
    cJSON *o = cJSON_CreateObject();
    double id;
    if (fp_jnum(r, "id", &id))
        fp_json_add_int(o, "id", (int64_t)id);
    const cJSON *p = fp_jget(r, "provenance");
    fp_json_add_str(o, "captured_at", fp_json_get_str(p, "captured_at"));
    fp_json_add_str(o, "kernel", fp_json_get_str(r, "kernel"));
    fp_json_add_str(o, "shape", fp_json_get_str(r, "shape"));
    fp_json_add_str(o, "arch", fp_json_get_str(r, "arch"));
    cJSON_AddItemToObject(o, "time_ns_per_call",
                          cJSON_Duplicate(fp_jget(fp_jget(r, "workload"), "time_ns_per_call"), 1));
    cJSON_AddItemToObject(o, "stall_pct", cJSON_Duplicate(fp_jget(fp_jget(r, "totals"), "stall_pct"), 1));
    fp_json_add_str(o, "bound", fp_json_get_str(r, "bound"));
    const cJSON *c0 = cJSON_GetArrayItem(fp_jget(r, "classes"), 0);
    fp_json_add_str(o, "top_class", fp_json_get_str(c0, "class"));
    const cJSON *r0 = cJSON_GetArrayItem(fp_jget(r, "rules"), 0);
    fp_json_add_str(o, "top_rule", fp_json_get_str(r0, "rule"));
    fp_json_add_str(o, "commit", fp_json_get_str(p, "commit"));
    cJSON_AddItemToObject(o, "dirty", cJSON_Duplicate(fp_jget(p, "dirty"), 1));
    fp_json_add_str(o, "hash", fp_json_get_str(r, "hash"));
    return o;
}

static void table_header(fp_sb *t)
{
    fp_sb_adds(t, "   id  captured_at           commit    us/call  stall%  bound     top class    kernel [shape]\n");
}

static void table_row(fp_sb *t, const cJSON *s)
{
    const char *c = fp_json_get_str(s, "commit");
    char commit[16];
    snprintf(commit, sizeof commit, "%.7s%s", c ? c : "-", cJSON_IsTrue(fp_jget(s, "dirty")) ? "*" : "");
    double tm, st;
    char tbuf[24] = "-", sbuf[24] = "-";
    if (fp_jnum(s, "time_ns_per_call", &tm))
        snprintf(tbuf, sizeof tbuf, "%.2f", tm / 1000.0);
    if (fp_jnum(s, "stall_pct", &st))
        snprintf(sbuf, sizeof sbuf, "%.2f", st);
    const char *shape = fp_json_get_str(s, "shape");
    fp_sb_addf(t, "%5.0f  %-20s  %-8s %8s  %6s  %-8s  %-11s  %s%s%s%s\n", fp_jnum0(s, "id"),
               fp_json_get_str(s, "captured_at") ? fp_json_get_str(s, "captured_at") : "-", commit, tbuf, sbuf,
               fp_json_get_str(s, "bound") ? fp_json_get_str(s, "bound") : "-",
               fp_json_get_str(s, "top_class") ? fp_json_get_str(s, "top_class") : "-",
               fp_json_get_str(s, "kernel") ? fp_json_get_str(s, "kernel") : "?", shape && shape[0] ? " [" : "",
               shape && shape[0] ? shape : "", shape && shape[0] ? "]" : "");
}

/* ---- add ---- */

static int do_add(fp_ctx *ctx, const history_args *a, const char *dbp, fp_err *err)
{
    if (!ctx->bundle) {
        fp_err_set(err, FP_USAGE, "history add needs --bundle DIR");
        return fp_err_help(err, "usage: flyprof history add --bundle DIR [--db FILE]");
    }
    /* provenance from --worktree only when asked: the capture's own record wins */
    fp_worktree wt;
    memset(&wt, 0, sizeof wt);
    bool have_wt = false;
    if (a->worktree) {
        if (fp_worktree_inspect(a->worktree, &wt, err))
            return -1;
        have_wt = true;
        if (!wt.exists || !wt.is_git)
            fp_warn(ctx, "--worktree %s is not a git checkout: no commit recorded%s%s", a->worktree,
                    wt.git_error[0] ? ": " : "", wt.git_error);
    }
    cJSON *rec = NULL;
    int rc = fp_history_record_from_bundle(ctx->bundle, have_wt && wt.commit[0] ? wt.commit : NULL,
                                           have_wt ? (int)wt.dirty : -1, have_wt ? wt.branch : NULL, &rec, err);
    if (have_wt)
        fp_worktree_free(&wt);
    if (rc)
        return -1;
    if (!fp_json_get_str(fp_jget(rec, "provenance"), "commit"))
        fp_warn(ctx, "no FlyDSL commit recorded (capture.json has none; pass --worktree DIR)");
    if (!fp_json_get_str(rec, "shape")[0])
        fp_warn(ctx, "no shape recorded (capture --shape); the entry's series is keyed by kernel alone");
    fp_history *h;
    if (fp_history_open(dbp, true, &h, err)) {
        cJSON_Delete(rec);
        return -1;
    }
    int64_t id;
    bool added;
    rc = fp_history_insert(h, rec, &id, &added, err);
    fp_history_close(h);
    if (rc) {
        cJSON_Delete(rec);
        return -1;
    }
    cJSON *d = cJSON_CreateObject();
    fp_json_add_str(d, "db", dbp);
    fp_json_add_int(d, "id", id);
    fp_json_add_bool(d, "added", added);
    fp_json_add_str(d, "hash", fp_json_get_str(rec, "hash"));
    fp_json_add_int(rec, "id", id);
    cJSON *s = summary(rec);
    cJSON_AddItemToObject(d, "entry", s);
    fp_sb_addf(&ctx->table, "%s entry %lld in %s\n", added ? "added" : "already present (same content hash):", (long long)id,
               dbp);
    table_header(&ctx->table);
    table_row(&ctx->table, s);
    cJSON_Delete(rec);
    ctx->data = d;
    return 0;
}

/* ---- list / show / trend / export: filtered queries ---- */

static int query(const history_args *a, const char *dbp, cJSON **recs, fp_history **hout, fp_err *err)
{
    fp_history_filter f = {a->kernel, a->shape, NULL, a->limit};
    char since[32];
    if (a->since) {
        if (fp_history_since(a->since, since, err))
            return -1;
        f.since = since;
    }
    fp_history *h;
    if (fp_history_open(dbp, false, &h, err))
        return -1;
    if (fp_history_query(h, &f, recs, err)) {
        fp_history_close(h);
        return -1;
    }
    if (hout)
        *hout = h;
    else
        fp_history_close(h);
    return 0;
}

static cJSON *filter_json(const history_args *a)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "kernel", a->kernel);
    fp_json_add_str(o, "shape", a->shape);
    fp_json_add_str(o, "since", a->since);
    if (a->limit > 0)
        fp_json_add_int(o, "limit", a->limit);
    else
        cJSON_AddNullToObject(o, "limit");
    return o;
}

static int do_list(fp_ctx *ctx, const history_args *a, const char *dbp, fp_err *err)
{
    cJSON *recs;
    fp_history *h;
    if (query(a, dbp, &recs, &h, err))
        return -1;
    cJSON *d = cJSON_CreateObject();
    fp_json_add_str(d, "db", dbp);
    fp_json_add_int(d, "schema_version", fp_history_schema_version(h));
    fp_history_close(h);
    cJSON_AddItemToObject(d, "filter", filter_json(a));
    fp_json_add_int(d, "count", cJSON_GetArraySize(recs));
    cJSON *arr = cJSON_AddArrayToObject(d, "entries");
    table_header(&ctx->table);
    const cJSON *r;
    cJSON_ArrayForEach(r, recs)
    {
        cJSON *s = summary(r);
        table_row(&ctx->table, s);
        cJSON_AddItemToArray(arr, s);
    }
    fp_sb_addf(&ctx->table, "%d entr%s in %s\n", cJSON_GetArraySize(recs), cJSON_GetArraySize(recs) == 1 ? "y" : "ies",
               dbp);
    cJSON_Delete(recs);
    ctx->data = d;
    return 0;
}

static int do_show(fp_ctx *ctx, const history_args *a, const char *dbp, const char *which, fp_err *err)
{
    cJSON *rec = NULL;
    if (!which || !strcmp(which, "latest")) {
        cJSON *recs;
        history_args b = *a;
        b.limit = 1;
        if (query(&b, dbp, &recs, NULL, err))
            return -1;
        rec = cJSON_DetachItemFromArray(recs, 0);
        cJSON_Delete(recs);
        if (!rec) {
            fp_err_set(err, FP_NO_ARTIFACT, "no history entry matches");
            return fp_err_help(err, "`flyprof history list` shows what is there");
        }
    } else {
        long long id;
        if (fp_parse_ll(which, &id) || id < 1) {
            fp_err_set(err, FP_USAGE, "history show takes an entry id or 'latest', not '%s'", which);
            return fp_err_help(err, "usage: flyprof history show ID|latest [--kernel K] [--shape S]");
        }
        fp_history *h;
        if (fp_history_open(dbp, false, &h, err))
            return -1;
        int rc = fp_history_get(h, id, &rec, err);
        fp_history_close(h);
        if (rc)
            return -1;
    }
    cJSON *s = summary(rec);
    table_header(&ctx->table);
    table_row(&ctx->table, s);
    cJSON_Delete(s);
    const cJSON *it;
    fp_sb_adds(&ctx->table, "\nclass            stall%   exposed\n");
    cJSON_ArrayForEach(it, fp_jget(rec, "classes"))
        fp_sb_addf(&ctx->table, "%-16s %6.2f  %8.0f\n", fp_json_get_str(it, "class"), fp_jnum0(it, "pct"),
                   fp_jnum0(it, "exposed"));
    fp_sb_adds(&ctx->table, "\nrank rule                       est. gain\n");
    cJSON_ArrayForEach(it, fp_jget(rec, "rules"))
        fp_sb_addf(&ctx->table, "%4.0f %-26s %6.2f %%\n", fp_jnum0(it, "rank"), fp_json_get_str(it, "rule"),
                   fp_jnum0(it, "est_gain_pct"));
    ctx->data = rec;
    return 0;
}

static int do_trend(fp_ctx *ctx, const history_args *a, const char *dbp, fp_err *err)
{
    cJSON *recs;
    if (query(a, dbp, &recs, NULL, err))
        return -1;
    if (cJSON_GetArraySize(recs) == 0) {
        cJSON_Delete(recs);
        fp_err_set(err, FP_NO_ARTIFACT, "no history entry matches");
        return fp_err_help(err, "`flyprof history list` shows what is there");
    }
    /* one series (kernel + shape) per chart: mixing them would chart noise */
    cJSON *series = cJSON_CreateArray();
    const cJSON *r;
    cJSON_ArrayForEach(r, recs)
    {
        const char *k = fp_json_get_str(r, "kernel"), *s = fp_json_get_str(r, "shape");
        bool seen = false;
        const cJSON *x;
        cJSON_ArrayForEach(x, series) seen |= !strcmp(fp_json_get_str(x, "kernel"), k) &&
                                              !strcmp(fp_json_get_str(x, "shape"), s);
        if (!seen) {
            cJSON *o = cJSON_CreateObject();
            fp_json_add_str(o, "kernel", k);
            fp_json_add_str(o, "shape", s);
            cJSON_AddItemToArray(series, o);
        }
    }
    if (cJSON_GetArraySize(series) > 1) {
        fp_err_set(err, FP_BAD_ARGS, "%d series (kernel + shape) match; trend charts one", cJSON_GetArraySize(series));
        fp_err_help(err, "pass --kernel K and --shape S (the series are in error.series)");
        fp_err_extra(err, "series", series);
        cJSON_Delete(recs);
        return -1;
    }
    cJSON_Delete(series);
    cJSON *top = fp_trend_top_classes(recs, FP_TREND_TOP_CLASSES);
    char *svg = fp_trend_svg(recs, top), *csv = fp_trend_csv(recs, top);
    const char *dir = a->out ? a->out : ".";
    char *ps = fp_path_join(dir, "trend.svg"), *pc = fp_path_join(dir, "trend.csv");
    int rc = fp_write_atomic(ps, svg, strlen(svg), err);
    if (rc == 0)
        rc = fp_write_atomic(pc, csv, strlen(csv), err);
    free(svg);
    free(csv);
    if (rc == 0) {
        const cJSON *f = cJSON_GetArrayItem(recs, 0);
        cJSON *d = cJSON_CreateObject();
        fp_json_add_str(d, "db", dbp);
        cJSON *s = cJSON_AddObjectToObject(d, "series");
        fp_json_add_str(s, "kernel", fp_json_get_str(f, "kernel"));
        fp_json_add_str(s, "shape", fp_json_get_str(f, "shape"));
        fp_json_add_str(s, "arch", fp_json_get_str(f, "arch"));
        fp_json_add_int(d, "count", cJSON_GetArraySize(recs));
        cJSON_AddItemToObject(d, "classes", cJSON_Duplicate(top, 1));
        cJSON *pts = cJSON_AddArrayToObject(d, "points");
        fp_sb_addf(&ctx->table, "%s%s%s%s: %d entries\n", fp_json_get_str(f, "kernel"),
                   fp_json_get_str(f, "shape")[0] ? " [" : "", fp_json_get_str(f, "shape"),
                   fp_json_get_str(f, "shape")[0] ? "]" : "", cJSON_GetArraySize(recs));
        fp_sb_adds(&ctx->table, "   id  captured_at           commit    us/call  stall%");
        const cJSON *c;
        cJSON_ArrayForEach(c, top) fp_sb_addf(&ctx->table, "  %10.10s", c->valuestring);
        fp_sb_addc(&ctx->table, '\n');
        cJSON_ArrayForEach(r, recs)
        {
            const cJSON *p = fp_jget(r, "provenance");
            cJSON *pt = cJSON_CreateObject();
            fp_json_add_int(pt, "id", (int64_t)fp_jnum0(r, "id"));
            fp_json_add_str(pt, "captured_at", fp_json_get_str(p, "captured_at"));
            fp_json_add_str(pt, "commit", fp_json_get_str(p, "commit"));
            cJSON_AddItemToObject(pt, "dirty", cJSON_Duplicate(fp_jget(p, "dirty"), 1));
            cJSON_AddItemToObject(pt, "time_ns_per_call",
                                  cJSON_Duplicate(fp_jget(fp_jget(r, "workload"), "time_ns_per_call"), 1));
            cJSON_AddItemToObject(pt, "stall_pct", cJSON_Duplicate(fp_jget(fp_jget(r, "totals"), "stall_pct"), 1));
            cJSON *cp = cJSON_AddObjectToObject(pt, "class_pct");
            const char *cm = fp_json_get_str(p, "commit");
            char commit[16], tbuf[24] = "-";
            snprintf(commit, sizeof commit, "%.7s%s", cm ? cm : "-", cJSON_IsTrue(fp_jget(p, "dirty")) ? "*" : "");
            double tm;
            if (fp_jnum(fp_jget(r, "workload"), "time_ns_per_call", &tm))
                snprintf(tbuf, sizeof tbuf, "%.2f", tm / 1000.0);
            fp_sb_addf(&ctx->table, "%5.0f  %-20s  %-8s %8s  %6.2f", fp_jnum0(r, "id"),
                       fp_json_get_str(p, "captured_at") ? fp_json_get_str(p, "captured_at") : "-", commit, tbuf,
                       fp_jnum0(fp_jget(r, "totals"), "stall_pct"));
            cJSON_ArrayForEach(c, top)
            {
                const cJSON *k;
                double v = 0;
                cJSON_ArrayForEach(k, fp_jget(r, "classes")) if (!strcmp(fp_json_get_str(k, "class"), c->valuestring)) v =
                    fp_jnum0(k, "pct");
                cJSON_AddNumberToObject(cp, c->valuestring, v);
                fp_sb_addf(&ctx->table, "  %10.2f", v);
            }
            fp_sb_addc(&ctx->table, '\n');
            cJSON_AddItemToArray(pts, pt);
        }
        char *as = fp_path_abs(ps), *ac = fp_path_abs(pc);
        fp_json_add_str(d, "svg", as);
        fp_json_add_str(d, "csv", ac);
        fp_sb_addf(&ctx->table, "wrote %s and %s\n", as, ac);
        free(as);
        free(ac);
        ctx->data = d;
    }
    free(ps);
    free(pc);
    cJSON_Delete(top);
    cJSON_Delete(recs);
    return rc;
}

/* ---- export / import: JSON lines, one record each ---- */

static int do_export(fp_ctx *ctx, const history_args *a, const char *dbp, fp_err *err)
{
    cJSON *recs;
    if (query(a, dbp, &recs, NULL, err))
        return -1;
    fp_sb out;
    fp_sb_init(&out);
    const cJSON *r;
    cJSON_ArrayForEach(r, recs)
    {
        char *s = cJSON_PrintUnformatted(r);
        if (!s)
            abort();
        fp_sb_adds(&out, s);
        fp_sb_addc(&out, '\n');
        free(s);
    }
    const char *dest = a->out ? a->out : "history.jsonl";
    int rc = fp_write_atomic(dest, out.buf, out.len, err);
    fp_sb_free(&out);
    if (rc == 0) {
        cJSON *d = cJSON_CreateObject();
        fp_json_add_str(d, "db", dbp);
        cJSON_AddItemToObject(d, "filter", filter_json(a));
        fp_json_add_int(d, "count", cJSON_GetArraySize(recs));
        char *abs = fp_path_abs(dest);
        fp_json_add_str(d, "artifact", abs);
        fp_sb_addf(&ctx->table, "exported %d entr%s to %s\n", cJSON_GetArraySize(recs),
                   cJSON_GetArraySize(recs) == 1 ? "y" : "ies", abs);
        free(abs);
        ctx->data = d;
    }
    cJSON_Delete(recs);
    return rc;
}

static int do_import(fp_ctx *ctx, const char *dbp, const char *file, fp_err *err)
{
    if (!file) {
        fp_err_set(err, FP_USAGE, "history import needs a FILE (JSON lines from history export)");
        return fp_err_help(err, "usage: flyprof history import FILE [--db FILE]");
    }
    fp_sb in;
    fp_sb_init(&in);
    if (fp_read_file(file, &in, err)) {
        fp_sb_free(&in);
        return -1;
    }
    /* parse and verify every line before writing anything */
    cJSON *recs = cJSON_CreateArray();
    size_t line = 0;
    char *save = NULL;
    int rc = 0;
    for (char *l = strtok_r(in.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        while (*l == ' ' || *l == '\t' || *l == '\r')
            l++;
        if (!*l)
            continue;
        cJSON *r = cJSON_Parse(l);
        if (!cJSON_IsObject(r)) {
            cJSON_Delete(r);
            rc = fp_err_set(err, FP_BAD_INPUT, "%s:%zu: not a JSON object", file, line);
            break;
        }
        double sch;
        if (!fp_jnum(r, "schema", &sch) || sch != FP_HISTORY_RECORD_SCHEMA) {
            cJSON_Delete(r);
            rc = fp_err_set(err, FP_BAD_INPUT, "%s:%zu: record schema is not %d", file, line, FP_HISTORY_RECORD_SCHEMA);
            break;
        }
        char h[65];
        fp_history_hash(r, h);
        const char *given = fp_json_get_str(r, "hash");
        if (!given || strcmp(given, h)) {
            cJSON_Delete(r);
            rc = fp_err_set(err, FP_BAD_INPUT, "%s:%zu: the hash does not match the record's content (edited?)", file,
                            line);
            break;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(r, "id"); /* ids are the database's own */
        cJSON_AddItemToArray(recs, r);
    }
    fp_sb_free(&in);
    if (rc) {
        cJSON_Delete(recs);
        return fp_err_help(err, "nothing was imported; the file must be `flyprof history export` output");
    }
    fp_history *h;
    if (fp_history_open(dbp, true, &h, err)) {
        cJSON_Delete(recs);
        return -1;
    }
    size_t added = 0;
    rc = fp_history_insert_many(h, recs, &added, err);
    fp_history_close(h);
    if (rc == 0) {
        cJSON *d = cJSON_CreateObject();
        fp_json_add_str(d, "db", dbp);
        fp_json_add_int(d, "records", cJSON_GetArraySize(recs));
        fp_json_add_int(d, "added", (int64_t)added);
        fp_json_add_int(d, "already_present", cJSON_GetArraySize(recs) - (int64_t)added);
        fp_sb_addf(&ctx->table, "imported %zu new of %d record(s) into %s\n", added, cJSON_GetArraySize(recs), dbp);
        ctx->data = d;
    }
    cJSON_Delete(recs);
    return rc;
}

static const char *const subcommands = "add, list, show, trend, export, import";

static int run_history(fp_ctx *ctx, void *vargs, char **pos, int npos, fp_err *err)
{
    history_args *a = vargs;
    const char *sub = pos[0];
    typedef enum { ADD, LIST, SHOW, TREND, EXPORT, IMPORT } subc;
    static const struct {
        const char *name;
        subc which;
        int max_args;
    } subs[] = {{"add", ADD, 0},     {"list", LIST, 0},     {"show", SHOW, 1},
                {"trend", TREND, 0}, {"export", EXPORT, 0}, {"import", IMPORT, 1}};
    size_t i = 0;
    while (i < sizeof subs / sizeof subs[0] && strcmp(subs[i].name, sub))
        i++;
    if (i == sizeof subs / sizeof subs[0]) {
        fp_err_set(err, FP_USAGE, "unknown history sub-command '%s' (%s)", sub, subcommands);
        return fp_err_help(err, "usage: flyprof history add|list|show|trend|export|import [options]");
    }
    if (npos - 1 > subs[i].max_args) {
        fp_err_set(err, FP_USAGE, "history %s takes %d argument(s), got %d", sub, subs[i].max_args, npos - 1);
        return fp_err_help(err, "see flyprof help history");
    }
    /* -1 = not set: every entry (the filter treats <= 0 as no limit) */
    char *dbp = db_path(a, err);
    if (!dbp)
        return -1;
    /* the paths whose kind depends on the sub-command (the others: history_paths) */
    bool writes_db = subs[i].which == ADD || subs[i].which == IMPORT;
    if (fp_check_path("history database", dbp, writes_db ? FP_PATH_OUT_FILE : FP_PATH_FILE, err) ||
        (subs[i].which == IMPORT && npos > 1 && fp_check_path("FILE", pos[1], FP_PATH_FILE, err)) ||
        (a->out && subs[i].which == TREND && fp_check_path("--out", a->out, FP_PATH_OUT_DIR, err)) ||
        (a->out && subs[i].which == EXPORT && fp_check_path("--out", a->out, FP_PATH_OUT_FILE, err))) {
        free(dbp);
        return -1;
    }
    int rc;
    switch (subs[i].which) {
    case ADD: rc = do_add(ctx, a, dbp, err); break;
    case LIST: rc = do_list(ctx, a, dbp, err); break;
    case SHOW: rc = do_show(ctx, a, dbp, npos > 1 ? pos[1] : NULL, err); break;
    case TREND: rc = do_trend(ctx, a, dbp, err); break;
    case EXPORT: rc = do_export(ctx, a, dbp, err); break;
    default: rc = do_import(ctx, dbp, npos > 1 ? pos[1] : NULL, err); break;
    }
    free(dbp);
    return rc;
}

const fp_command fp_cmd_history = {
    .name = "history",
    .summary = "per-kernel performance history in SQLite: add a reported bundle, list, show, trend (SVG + CSV), "
               "export/import JSON lines",
    .usage = "flyprof history add --bundle DIR | list | show ID|latest | trend [--out DIR] | export [--out FILE] | "
             "import FILE  [--db FILE] [--kernel K] [--shape S] [--since T] [--limit N]",
    .details = "One entry per reported bundle (idempotent by content hash): duration per call, stall/exposed shares "
               "per class, bound, launch fill and speed of light when reported, top rules with est. gain, counters "
               "metrics, and provenance (FlyDSL commit + dirty flag, flyprof version, capture time, host). Parallel "
               "adds are safe (WAL, busy timeout, one transaction each); a damaged or foreign file is BAD_INPUT and "
               "left untouched. `flyprof check` gates a bundle against it.",
    .paths = history_paths,
    .opts = history_opts,
    .args_size = sizeof(history_args),
    .min_pos = 1,
    .max_pos = 2,
    .run = run_history,
};
