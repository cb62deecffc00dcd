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
#include "flyprof/history_doc.h"
#include "flyprof/model.h"
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

static void table_header(fp_sb *t)
{
    fp_sb_adds(t, "   id  captured_at           commit    us/call  stall%  bound     top class    kernel [shape]\n");
}

/* The one-line view of a record (fp_history_summary: list rows, add summaries). */
static void table_row(fp_sb *t, const fp_history_summary *s)
{
    const char *c = s->commit;
    char commit[16];
    snprintf(commit, sizeof commit, "%.7s%s", c ? c : "-", s->dirty.known && s->dirty.v ? "*" : "");
    char tbuf[24] = "-", sbuf[24] = "-";
    if (s->time_ns_per_call.known)
        snprintf(tbuf, sizeof tbuf, "%.2f", s->time_ns_per_call.v / 1000.0);
    if (s->stall_pct.known)
        snprintf(sbuf, sizeof sbuf, "%.2f", s->stall_pct.v);
    const char *shape = s->shape;
    fp_sb_addf(t, "%5.0f  %-20s  %-8s %8s  %6s  %-8s  %-11s  %s%s%s%s\n", s->id.known ? s->id.v : 0.0,
               s->captured_at ? s->captured_at : "-", commit, tbuf, sbuf, s->bound ? s->bound : "-",
               s->top_class ? s->top_class : "-", s->kernel ? s->kernel : "?", shape && shape[0] ? " [" : "",
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
    fp_history_record rec;
    int rc = fp_history_record_from_bundle(ctx->bundle, have_wt && wt.commit[0] ? wt.commit : NULL,
                                           have_wt ? (int)wt.dirty : -1, have_wt ? wt.branch : NULL, &rec, err);
    if (have_wt)
        fp_worktree_free(&wt);
    if (rc)
        return -1;
    if (!rec.provenance.commit)
        fp_warn(ctx, "no FlyDSL commit recorded (capture.json has none; pass --worktree DIR)");
    if (!rec.shape[0])
        fp_warn(ctx, "no shape recorded (capture --shape); the entry's series is keyed by kernel alone");
    fp_history *h;
    if (fp_history_open(dbp, true, &h, err)) {
        fp_history_record_free(&rec);
        return -1;
    }
    int64_t id;
    bool added;
    rc = fp_history_insert(h, &rec, &id, &added, err);
    fp_history_close(h);
    if (rc) {
        fp_history_record_free(&rec);
        return -1;
    }
    fp_history_add_doc d = {0};
    d.db = fp_model_strdup(dbp);
    d.id = id;
    d.added = added;
    d.hash = fp_model_strdup(rec.hash);
    rec.id = fp_optd_of((double)id);
    fp_history_summary_of(&rec, &d.entry);
    fp_sb_addf(&ctx->table, "%s entry %lld in %s\n", added ? "added" : "already present (same content hash):", (long long)id,
               dbp);
    table_header(&ctx->table);
    table_row(&ctx->table, &d.entry);
    fp_history_record_free(&rec);
    ctx->data = fp_model_write(&fp_history_add_schema, &d);
    fp_model_free(&fp_history_add_schema, &d);
    return 0;
}

/* ---- list / show / trend / export: filtered queries ---- */

static int query(const history_args *a, const char *dbp, fp_history_records *recs, fp_history **hout, fp_err *err)
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

static void filter_doc(const history_args *a, fp_history_filter_doc *o)
{
    o->kernel = fp_model_strdup(a->kernel);
    o->shape = fp_model_strdup(a->shape);
    o->since = fp_model_strdup(a->since);
    o->limit = a->limit > 0 ? fp_optd_of((double)a->limit) : fp_optd_none();
}

static int do_list(fp_ctx *ctx, const history_args *a, const char *dbp, fp_err *err)
{
    fp_history_records recs;
    fp_history *h;
    if (query(a, dbp, &recs, &h, err))
        return -1;
    fp_history_list_doc d = {0};
    d.db = fp_model_strdup(dbp);
    d.schema_version = fp_history_schema_version(h);
    int64_t *pins = NULL;
    size_t npins = 0;
    int prc = fp_history_pinned_ids(h, &pins, &npins, err);
    fp_history_close(h);
    if (prc) {
        fp_history_records_free(&recs);
        fp_model_free(&fp_history_list_schema, &d);
        return -1;
    }
    for (size_t i = 0; i < npins; i++)
        *(double *)fp_model_push((void **)&d.pinned, &d.npinned, sizeof *d.pinned) = (double)pins[i];
    free(pins);
    filter_doc(a, &d.filter);
    d.count = (int64_t)recs.n;
    table_header(&ctx->table);
    for (size_t i = 0; i < recs.n; i++) {
        fp_history_summary *s = fp_model_push((void **)&d.entries, &d.nentries, sizeof *s);
        fp_history_summary_of(&recs.items[i], s);
        table_row(&ctx->table, s);
    }
    fp_sb_addf(&ctx->table, "%d entr%s in %s\n", (int)recs.n, recs.n == 1 ? "y" : "ies", dbp);
    for (size_t i = 0; i < d.npinned; i++)
        fp_sb_addf(&ctx->table, "%s%.0f%s", i ? ", " : "pinned (the baseline of their series): ", d.pinned[i],
                   i + 1 == d.npinned ? "\n" : "");
    fp_history_records_free(&recs);
    ctx->data = fp_model_write(&fp_history_list_schema, &d);
    fp_model_free(&fp_history_list_schema, &d);
    return 0;
}

static int do_show(fp_ctx *ctx, const history_args *a, const char *dbp, const char *which, fp_err *err)
{
    fp_history_record rec = {0};
    if (!which || !strcmp(which, "latest")) {
        fp_history_records recs;
        history_args b = *a;
        b.limit = 1;
        if (query(&b, dbp, &recs, NULL, err))
            return -1;
        bool any = recs.n > 0;
        if (any) {
            rec = recs.items[0];
            memset(&recs.items[0], 0, sizeof rec);
        }
        fp_history_records_free(&recs);
        if (!any) {
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
    fp_history_summary s = {0};
    fp_history_summary_of(&rec, &s);
    table_header(&ctx->table);
    table_row(&ctx->table, &s);
    fp_model_free(&fp_history_summary_schema, &s);
    fp_sb_adds(&ctx->table, "\nclass            stall%   exposed\n");
    for (size_t i = 0; i < rec.nclasses; i++) {
        const fp_history_class *c = &rec.classes[i];
        fp_sb_addf(&ctx->table, "%-16s %6.2f  %8.0f\n", c->cls, c->pct.known ? c->pct.v : 0.0,
                   c->exposed.known ? c->exposed.v : 0.0);
    }
    fp_sb_adds(&ctx->table, "\nrank rule                       est. gain\n");
    for (size_t i = 0; i < rec.nrules; i++) {
        const fp_history_rule *u = &rec.rules[i];
        fp_sb_addf(&ctx->table, "%4.0f %-26s %6.2f %%\n", (double)u->rank, u->rule,
                   u->est_gain_pct.known ? u->est_gain_pct.v : 0.0);
    }
    ctx->data = fp_model_write(&fp_history_record_schema, &rec);
    fp_history_record_free(&rec);
    return 0;
}

/* One series (kernel + shape) per chart: mixing them would chart noise. More
 * than one among recs is BAD_ARGS, the series listed in error.series. */
static int one_series(const fp_history_records *recs, fp_err *err)
{
    fp_history_series *series = NULL;
    size_t nseries = 0;
    for (size_t ri = 0; ri < recs->n; ri++) {
        const fp_history_record *r = &recs->items[ri];
        const char *k = r->kernel, *s = r->shape;
        bool seen = false;
        for (size_t x = 0; x < nseries; x++)
            seen |= !strcmp(series[x].kernel, k) && !strcmp(series[x].shape, s);
        if (!seen) {
            fp_history_series *o = fp_model_push((void **)&series, &nseries, sizeof *o);
            o->kernel = fp_model_strdup(k);
            o->shape = fp_model_strdup(s);
        }
    }
    int rc = 0;
    if (nseries > 1) {
        fp_err_set(err, FP_BAD_ARGS, "%d series (kernel + shape) match; trend charts one", (int)nseries);
        fp_err_help(err, "pass --kernel K and --shape S (the series are in error.series)");
        cJSON *arr = cJSON_CreateArray();
        for (size_t x = 0; x < nseries; x++)
            cJSON_AddItemToArray(arr, fp_model_write(&fp_history_series_schema, &series[x]));
        fp_err_extra(err, "series", arr);
        rc = -1;
    }
    for (size_t x = 0; x < nseries; x++)
        fp_model_free(&fp_history_series_schema, &series[x]);
    free(series);
    return rc;
}

/* trend.svg and trend.csv into ps and pc, charting the classes in d->classes. */
static int write_trend_files(const fp_history_records *recs, const fp_history_trend_doc *d, const char *ps,
                             const char *pc, fp_err *err)
{
    char *svg = fp_trend_svg(recs->items, recs->n, d->classes, d->nclasses);
    char *csv = fp_trend_csv(recs->items, recs->n, d->classes, d->nclasses);
    int rc = fp_write_atomic(ps, svg, strlen(svg), err);
    if (rc == 0)
        rc = fp_write_atomic(pc, csv, strlen(csv), err);
    free(svg);
    free(csv);
    return rc;
}

/* -f table: the series and the column heads (one per charted class). */
static void trend_table_head(fp_sb *t, const fp_history_records *recs, const fp_history_trend_doc *d)
{
    const fp_history_record *f = &recs->items[0];
    fp_sb_addf(t, "%s%s%s%s: %d entries\n", f->kernel, f->shape[0] ? " [" : "", f->shape, f->shape[0] ? "]" : "",
               (int)recs->n);
    fp_sb_adds(t, "   id  captured_at           commit    us/call  stall%");
    for (size_t c = 0; c < d->nclasses; c++)
        fp_sb_addf(t, "  %10.10s", d->classes[c]);
    fp_sb_addc(t, '\n');
}

/* One entry: its point in d (data) and its row of the table. */
static void trend_point(fp_sb *t, fp_history_trend_doc *d, const fp_history_record *r)
{
    const fp_history_provenance *p = &r->provenance;
    fp_history_trend_point *pt = fp_model_push((void **)&d->points, &d->npoints, sizeof *pt);
    pt->id = (int64_t)(r->id.known ? r->id.v : 0);
    pt->captured_at = fp_model_strdup(p->captured_at);
    pt->commit = fp_model_strdup(p->commit);
    pt->dirty = p->dirty;
    pt->time_ns_per_call = r->workload.time_ns_per_call;
    pt->stall_pct = r->totals.stall_pct;
    const char *cm = p->commit;
    char commit[16], tbuf[24] = "-";
    snprintf(commit, sizeof commit, "%.7s%s", cm ? cm : "-", p->dirty.known && p->dirty.v ? "*" : "");
    if (r->workload.time_ns_per_call.known)
        snprintf(tbuf, sizeof tbuf, "%.2f", r->workload.time_ns_per_call.v / 1000.0);
    fp_sb_addf(t, "%5.0f  %-20s  %-8s %8s  %6.2f", r->id.known ? r->id.v : 0.0, p->captured_at ? p->captured_at : "-",
               commit, tbuf, r->totals.stall_pct.known ? r->totals.stall_pct.v : 0.0);
    for (size_t c = 0; c < d->nclasses; c++) {
        double v = 0;
        for (size_t k = 0; k < r->nclasses; k++)
            if (!strcmp(r->classes[k].cls, d->classes[c]))
                v = r->classes[k].pct.known ? r->classes[k].pct.v : 0.0;
        fp_model_kv *kv = fp_model_push((void **)&pt->class_pct, &pt->nclass_pct, sizeof *kv);
        kv->key = fp_model_strdup(d->classes[c]);
        kv->v = v;
        fp_sb_addf(t, "  %10.2f", v);
    }
    fp_sb_addc(t, '\n');
}

/* the matching entries (one series) -> trend.svg + trend.csv -> the points as data and table */
static int do_trend(fp_ctx *ctx, const history_args *a, const char *dbp, fp_err *err)
{
    fp_history_records recs;
    if (query(a, dbp, &recs, NULL, err))
        return -1;
    if (recs.n == 0) {
        fp_history_records_free(&recs);
        fp_err_set(err, FP_NO_ARTIFACT, "no history entry matches");
        return fp_err_help(err, "`flyprof history list` shows what is there");
    }
    if (one_series(&recs, err) != 0) {
        fp_history_records_free(&recs);
        return -1;
    }
    fp_history_trend_doc d = {0};
    fp_trend_top_classes(recs.items, recs.n, FP_TREND_TOP_CLASSES, &d.classes, &d.nclasses);
    const char *dir = a->out ? a->out : ".";
    char *ps = fp_path_join(dir, "trend.svg"), *pc = fp_path_join(dir, "trend.csv");
    int rc = write_trend_files(&recs, &d, ps, pc, err);
    if (rc == 0) {
        const fp_history_record *f = &recs.items[0];
        d.db = fp_model_strdup(dbp);
        d.series.kernel = fp_model_strdup(f->kernel);
        d.series.shape = fp_model_strdup(f->shape);
        d.series.arch = fp_model_strdup(f->arch);
        d.count = (int64_t)recs.n;
        trend_table_head(&ctx->table, &recs, &d);
        for (size_t ri = 0; ri < recs.n; ri++)
            trend_point(&ctx->table, &d, &recs.items[ri]);
        char *as = fp_path_abs(ps), *ac = fp_path_abs(pc);
        d.svg = fp_model_strdup(as);
        d.csv = fp_model_strdup(ac);
        fp_sb_addf(&ctx->table, "wrote %s and %s\n", as, ac);
        free(as);
        free(ac);
        ctx->data = fp_model_write(&fp_history_trend_schema, &d);
    }
    free(ps);
    free(pc);
    fp_model_free(&fp_history_trend_schema, &d);
    fp_history_records_free(&recs);
    return rc;
}

/* ---- export / import: JSON lines, one record each ---- */

static int do_export(fp_ctx *ctx, const history_args *a, const char *dbp, fp_err *err)
{
    fp_history_records recs;
    if (query(a, dbp, &recs, NULL, err))
        return -1;
    fp_sb out;
    fp_sb_init(&out);
    for (size_t i = 0; i < recs.n; i++) {
        cJSON *j = fp_model_write(&fp_history_record_schema, &recs.items[i]);
        char *s = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
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
        fp_history_export_doc d = {0};
        d.db = fp_model_strdup(dbp);
        filter_doc(a, &d.filter);
        d.count = (int64_t)recs.n;
        d.artifact = fp_path_abs(dest);
        fp_sb_addf(&ctx->table, "exported %d entr%s to %s\n", (int)recs.n, recs.n == 1 ? "y" : "ies", d.artifact);
        ctx->data = fp_model_write(&fp_history_export_schema, &d);
        fp_model_free(&fp_history_export_schema, &d);
    }
    fp_history_records_free(&recs);
    return rc;
}

/* One export line -> a record whose hash matches its content (id dropped). */
static int import_line(const char *file, size_t line, const char *l, fp_history_record *r, fp_err *err)
{
    /* exactly one value on the line: a second object after the first would be dropped */
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(l, &end, 1);
    if (!j && end && end > l) {
        cJSON *first = cJSON_Parse(l); /* parses when only what follows the first value is wrong */
        if (first) {
            cJSON_Delete(first);
            return fp_err_set(err, FP_BAD_INPUT, "%s:%zu: more than one JSON value on the line", file, line);
        }
    }
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return fp_err_set(err, FP_BAD_INPUT, "%s:%zu: not a JSON object", file, line);
    }
    char where[4200];
    snprintf(where, sizeof where, "%s:%zu", file, line);
    /* the record version first: a line of another version says so */
    int rc = fp_model_read(&fp_history_record_head_schema, j, r, where, err);
    if (rc == 0 && r->schema != FP_HISTORY_RECORD_SCHEMA)
        rc = -1;
    if (rc) {
        cJSON_Delete(j);
        return fp_err_set(err, FP_BAD_INPUT, "%s:%zu: record schema is not %d", file, line, FP_HISTORY_RECORD_SCHEMA);
    }
    rc = fp_model_read(&fp_history_record_schema, j, r, where, err);
    cJSON_Delete(j);
    if (rc)
        return -1;
    char h[65];
    fp_history_hash(r, h);
    if (!r->hash || strcmp(r->hash, h)) {
        fp_history_record_free(r);
        return fp_err_set(err, FP_BAD_INPUT, "%s:%zu: the hash does not match the record's content (edited?)", file,
                          line);
    }
    fp_err ce = {0};
    if (fp_history_record_check(r, &ce)) {
        fp_history_record_free(r);
        fp_err_set(err, FP_BAD_INPUT, "%s:%zu: %s", file, line, ce.message);
        fp_err_clear(&ce);
        return -1;
    }
    r->id = fp_optd_none(); /* ids are the database's own */
    return 0;
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
    /* a NUL would end the text early: the records after it were silently dropped */
    const char *nul = memchr(in.buf, '\0', in.len);
    if (nul) {
        size_t at = 1;
        for (const char *c = in.buf; c < nul; c++)
            at += *c == '\n';
        fp_sb_free(&in);
        fp_err_set(err, FP_BAD_INPUT, "%s:%zu: a NUL byte: not a JSON lines file", file, at);
        return fp_err_help(err, "nothing was imported; the file must be `flyprof history export` output");
    }
    /* parse and verify every line before writing anything */
    fp_history_records recs = {0};
    size_t line = 0;
    char *save = NULL;
    int rc = 0;
    for (char *l = strtok_r(in.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        while (*l == ' ' || *l == '\t' || *l == '\r')
            l++;
        if (!*l)
            continue;
        fp_history_record r;
        if ((rc = import_line(file, line, l, &r, err)) != 0)
            break;
        *(fp_history_record *)fp_model_push((void **)&recs.items, &recs.n, sizeof r) = r;
    }
    fp_sb_free(&in);
    if (rc) {
        fp_history_records_free(&recs);
        return fp_err_help(err, "nothing was imported; the file must be `flyprof history export` output");
    }
    fp_history *h;
    if (fp_history_open(dbp, true, &h, err)) {
        fp_history_records_free(&recs);
        return -1;
    }
    size_t added = 0;
    rc = fp_history_insert_many(h, recs.items, recs.n, &added, err);
    fp_history_close(h);
    if (rc == 0) {
        fp_history_import_doc d = {0};
        d.db = fp_model_strdup(dbp);
        d.records = (int64_t)recs.n;
        d.added = (int64_t)added;
        d.already_present = (int64_t)recs.n - (int64_t)added;
        fp_sb_addf(&ctx->table, "imported %zu new of %d record(s) into %s\n", added, (int)recs.n, dbp);
        ctx->data = fp_model_write(&fp_history_import_schema, &d);
        fp_model_free(&fp_history_import_schema, &d);
    }
    fp_history_records_free(&recs);
    return rc;
}

/* ---- rm / pin / unpin: one entry, by id ---- */

typedef enum { CHANGE_RM, CHANGE_PIN, CHANGE_UNPIN } change_kind;

static int do_change(fp_ctx *ctx, const char *dbp, const char *which, change_kind k, fp_err *err)
{
    static const char *const names[] = {"rm", "pin", "unpin"}, *const done[] = {"removed", "pinned", "unpinned"};
    long long id;
    if (!which || fp_parse_ll(which, &id) || id < 1) {
        fp_err_set(err, FP_USAGE, "history %s takes an entry id, not '%s'", names[k], which ? which : "");
        return fp_err_help(err, "usage: flyprof history %s ID (`flyprof history list` shows the ids)", names[k]);
    }
    fp_history *h; /* a writer (readers open read-only); the file exists: run_history checked it */
    if (fp_history_open(dbp, true, &h, err))
        return -1;
    fp_history_record rec = {0};
    int rc = k == CHANGE_RM ? fp_history_rm(h, id, &rec, err) : fp_history_pin(h, id, k == CHANGE_PIN, err);
    if (rc == 0 && k != CHANGE_RM)
        rc = fp_history_get(h, id, &rec, err);
    fp_history_close(h);
    if (rc) {
        fp_history_record_free(&rec);
        return -1;
    }
    fp_history_change_doc d = {.db = fp_model_strdup(dbp), .action = fp_model_strdup(done[k]), .id = id};
    fp_history_summary_of(&rec, &d.entry);
    fp_sb_addf(&ctx->table, "%s entry %lld (%s%s%s) in %s\n", done[k], id, rec.kernel, rec.shape && rec.shape[0] ? " " : "",
               rec.shape ? rec.shape : "", dbp);
    if (k == CHANGE_PIN)
        fp_sb_adds(&ctx->table, "next: it is `flyprof check`'s baseline of its kernel, shape and arch until "
                                "`flyprof history unpin` it\n");
    fp_history_record_free(&rec);
    ctx->data = fp_model_write(&fp_history_change_schema, &d);
    fp_model_free(&fp_history_change_schema, &d);
    return 0;
}

static const char *const subcommands = "add, list, show, trend, export, import, rm, pin, unpin";

static int run_history(fp_ctx *ctx, void *vargs, char **pos, int npos, fp_err *err)
{
    history_args *a = vargs;
    const char *sub = pos[0];
    typedef enum { ADD, LIST, SHOW, TREND, EXPORT, IMPORT, RM, PIN, UNPIN } subc;
    static const struct {
        const char *name;
        subc which;
        int max_args;
    } subs[] = {{"add", ADD, 0},     {"list", LIST, 0},     {"show", SHOW, 1},
                {"trend", TREND, 0}, {"export", EXPORT, 0}, {"import", IMPORT, 1},
                {"rm", RM, 1},       {"pin", PIN, 1},       {"unpin", UNPIN, 1}};
    size_t i = 0;
    while (i < sizeof subs / sizeof subs[0] && strcmp(subs[i].name, sub))
        i++;
    if (i == sizeof subs / sizeof subs[0]) {
        fp_err_set(err, FP_USAGE, "unknown history sub-command '%s' (%s)", sub, subcommands);
        return fp_err_help(err, "usage: flyprof history add|list|show|trend|export|import|rm|pin|unpin [options]");
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
    case RM: rc = do_change(ctx, dbp, npos > 1 ? pos[1] : NULL, CHANGE_RM, err); break;
    case PIN: rc = do_change(ctx, dbp, npos > 1 ? pos[1] : NULL, CHANGE_PIN, err); break;
    case UNPIN: rc = do_change(ctx, dbp, npos > 1 ? pos[1] : NULL, CHANGE_UNPIN, err); break;
    default: rc = do_import(ctx, dbp, npos > 1 ? pos[1] : NULL, err); break;
    }
    free(dbp);
    return rc;
}

/* -f csv: the row lists of the data (the first present is the default; -f csv:NAME) */
static const char *const history_csv_rows[] = {"entries", "points", NULL};

/* shown under "examples:" in help and in the man page */
static const char *const history_examples[] = {
    "flyprof history add --bundle runs/softmax",
    "flyprof history pin 12   # the baseline of its kernel + shape + arch until unpinned",
    NULL,
};

const fp_command fp_cmd_history = {
    .examples = history_examples,
    .csv_rows = history_csv_rows,
    .name = "history",
    .summary = "per-kernel performance history in SQLite: add a reported bundle, list, show, trend (SVG + CSV), "
               "export/import JSON lines",
    .usage = "flyprof history add --bundle DIR | list | show ID|latest | trend [--out DIR] | export [--out FILE] | "
             "import FILE | rm ID | pin ID | unpin ID  [--db FILE] [--kernel K] [--shape S] [--since T] [--limit N]",
    .details = "One entry per reported bundle (idempotent by content hash): duration per call, stall/exposed shares "
               "per class, bound, launch fill and speed of light when reported, top rules with est. gain, counters "
               "metrics, and provenance (FlyDSL commit + dirty flag, flyprof version, capture time, host). Parallel "
               "adds are safe (WAL, busy timeout, one transaction each); a damaged or foreign file is BAD_INPUT and "
               "left untouched. `flyprof check` gates a bundle against it; `rm` drops a bad entry, `pin` makes an entry "
               "the baseline of its series until `unpin`.",
    .paths = history_paths,
    .opts = history_opts,
    .args_size = sizeof(history_args),
    .min_pos = 1,
    .max_pos = 2,
    .run = run_history,
};
