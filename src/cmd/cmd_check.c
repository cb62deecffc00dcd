/*
 * cmd_check.c - `flyprof check --bundle B`: is B worse than its history?
 *
 * Story: B's history record (the same reader as `history add`) -> the
 * baseline entry of the same kernel and shape in the database (latest, an
 * entry id, or a commit) -> the comparison `diff` makes, on the figures both
 * sides have (fp_diff_totals_of / classes / verdict: same noise floors) ->
 * the --fail-on gate. A tripped gate is the REGRESSED error (exit 1) whose
 * envelope still carries the whole comparison in data (ctx->data_on_error).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "flyprof/bundle.h"
#include "flyprof/diff.h"
#include "flyprof/diff_doc.h"
#include "flyprof/fs.h"
#include "flyprof/history.h"
#include "flyprof/model.h"
#include "flyprof/junit.h"
#include "flyprof/report_doc.h"
#include "flyprof/sarif.h"
#include "flyprof/worktree.h"

typedef struct check_args {
    const char *db;
    const char *baseline;
    const char *fail_on;
    const char *worktree;
    const char *source_root;
    long long window;
    bool strict;
} check_args;

static const char *const fail_on_choices[] = {"regressed", "any-change", "never", NULL};

static const fp_opt check_opts[] = {
    {"db", 0, FP_OPT_STR, offsetof(check_args, db), "FILE",
     "history database (default: $FLYPROF_HISTORY, else $XDG_DATA_HOME/flyprof/history.db, else "
     "~/.local/share/flyprof/history.db)",
     NULL, NULL, 0, 0},
    {"baseline", 0, FP_OPT_STR, offsetof(check_args, baseline), "REF",
     "auto (the pinned entry of the kernel + shape + arch, else the median of the last --window), latest, an entry "
     "id, or a FlyDSL commit (prefix >= 4 hex digits) of the same kernel and shape",
     "auto", NULL, 0, 0},
    {"window", 0, FP_OPT_INT, offsetof(check_args, window), "N",
     "--baseline auto: the median of the last N entries when none is pinned", "5", NULL, 1, 1000},
    {"strict", 0, FP_OPT_FLAG, offsetof(check_args, strict), NULL,
     "no baseline in the history is an error (NO_BASELINE, exit 4) instead of a warning and exit 0", NULL, NULL, 0,
     0},
    {"fail-on", 0, FP_OPT_CHOICE, offsetof(check_args, fail_on), "WHEN",
     "exit 1 (REGRESSED) when the verdict is regressed, or anything but neutral (any-change); never: report only",
     "regressed", fail_on_choices, 0, 0},
    {"worktree", 0, FP_OPT_STR, offsetof(check_args, worktree), "DIR",
     "FlyDSL checkout for B's provenance when its capture.json has none", NULL, NULL, 0, 0},
    FP_SOURCE_ROOT_OPT(check_args, source_root),
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static const fp_path_rule check_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR},
    {.opt = "db", .kind = FP_PATH_FILE},
    {.opt = "worktree", .kind = FP_PATH_DIR},
    {.kind = FP_PATH_NONE},
};

static void side(const fp_history_record *rec, fp_check_side *o)
{
    o->id = rec->id.known ? fp_optd_of((double)(int64_t)rec->id.v) : fp_optd_none();
    o->kernel = fp_model_strdup(rec->kernel);
    o->shape = fp_model_strdup(rec->shape);
    o->arch = fp_model_strdup(rec->arch);
    o->commit = fp_model_strdup(rec->provenance.commit);
    o->dirty = rec->provenance.dirty;
    o->captured_at = fp_model_strdup(rec->provenance.captured_at);
    o->bound = fp_model_strdup(rec->bound);
    o->hash = fp_model_strdup(rec->hash);
}

/* B's record (with --worktree's provenance when given) and its baseline entry
 * in the database dbp; on failure *cur may still need freeing. */
static int load_sides(const fp_ctx *ctx, const check_args *a, const char *dbp, fp_history_record *cur,
                      fp_history_record *base, char how[128], fp_err *err)
{
    fp_worktree wt;
    memset(&wt, 0, sizeof wt);
    bool have_wt = false;
    if (a->worktree) {
        if (fp_worktree_inspect(a->worktree, &wt, err))
            return -1;
        have_wt = true;
    }
    int rc = fp_history_record_from_bundle(ctx->bundle, have_wt && wt.commit[0] ? wt.commit : NULL,
                                           have_wt ? (int)wt.dirty : -1, have_wt ? wt.branch : NULL, cur, err);
    if (have_wt)
        fp_worktree_free(&wt);
    fp_history *h = NULL;
    if (rc == 0)
        rc = fp_history_open(dbp, false, &h, err);
    /* B itself may already be in the history (added on main): never its own baseline */
    const char *spec = a->baseline;
    if (rc == 0 && !strcmp(spec, "auto"))
        rc = fp_history_baseline_auto(h, cur, (int)a->window, base, how, err);
    else if (rc == 0)
        rc = fp_history_baseline(h, cur->kernel, cur->shape, spec, cur->hash, base, err);
    if (rc == 0 && strcmp(spec, "auto")) /* an explicit ref: what it named */
        snprintf(how, 128, "%s", !strcmp(spec, "latest") ? "latest" : base->provenance.commit &&
                 !strncasecmp(base->provenance.commit, spec, strlen(spec)) ? "commit" : "entry");
    fp_history_close(h);
    return rc;
}

/* The comparison diff makes, on the figures both sides have, into d (rounded
 * as the envelope has it) and *v; returns whether the --fail-on gate tripped. */
static bool compare_to_baseline(const check_args *a, const char *dbp, const fp_history_record *base,
                    const fp_history_record *cur, const char *how, fp_check_doc *d, fp_diff_verdict *v)
{
    fp_diff_figures fb, fa;
    fp_diff_figures_of_record(base, &fb);
    fp_diff_figures_of_record(cur, &fa);
    fp_diff_verdict_of(&fb, &fa, v);
    d->db = fp_model_strdup(dbp);
    d->baseline_ref = fp_model_strdup(a->baseline);
    d->baseline_policy = fp_model_strdup(how);
    side(base, &d->baseline);
    side(cur, &d->current);
    const char *ab = base->arch, *aa = cur->arch;
    if (ab && aa && strcmp(ab, aa))
        fp_model_push_str(&d->notes, &d->nnotes, "different architectures");
    if (strcmp(v->basis, "time_ns_per_call"))
        fp_model_push_str(&d->notes, &d->nnotes, "no duration per call on both sides: the verdict uses the "
                                                 "stalled share of latency");
    fp_diff_noise_floor_of(&d->noise_floor);
    fp_diff_totals_of(&fb, &fa, &d->totals);
    fp_diff_classes_of(&fb, &fa, &d->classes, &d->nclasses);
    fp_diff_verdict_doc_of(v, &d->verdict);
    fp_diff_figures_free(&fb);
    fp_diff_figures_free(&fa);
    const char *gate_on = a->fail_on && strcmp(a->fail_on, "never") ? a->fail_on : NULL;
    bool tripped = fp_diff_gate(v->overall, gate_on) == 1;
    d->gate.fail_on = fp_model_strdup(a->fail_on);
    d->gate.tripped = tripped;
    /* the table shows the numbers of the envelope */
    fp_model_round(&fp_check_schema, d);
    return tripped;
}

/* -f table: what was compared, the verdict, the gate, the classes' shares */
static void check_table(fp_sb *t, const check_args *a, const fp_history_record *base, const fp_history_record *cur,
                        const fp_diff_verdict *v, const fp_check_doc *d)
{
    const char *bc = base->provenance.commit;
    fp_sb_addf(t, "check %s%s%s%s against entry %.0f (%.7s, %s)\n", cur->kernel, cur->shape[0] ? " [" : "",
               cur->shape, cur->shape[0] ? "]" : "", base->id.v, bc ? bc : "no commit", base->provenance.captured_at);
    fp_sb_addf(t, "baseline: %s (--baseline %s)\n", d->baseline_policy, d->baseline_ref);
    fp_sb_addf(t, "verdict: %s (%s)\n", v->overall, v->why);
    fp_sb_addf(t, "gate --fail-on %s: %s\n", a->fail_on, d->gate.tripped ? "TRIPPED (exit 1)" : "passed");
    fp_sb_adds(t, "\nclass            share before -> after (points)\n");
    for (size_t i = 0; i < d->nclasses; i++) {
        const fp_diff_row *it = &d->classes[i];
        fp_sb_addf(t, "%-17s%6.2f -> %6.2f (%+.2f)%s\n", it->key, it->before ? it->before->pct : 0.0,
                   it->after ? it->after->pct : 0.0, it->delta.pct, it->significant ? "  *" : "");
    }
}

/* -f sarif: a result per class whose share grew, at its hottest line of B's report.json
 * (when B has one); -f junit: a testcase per gated metric (junit.h). */
static void check_documents(fp_ctx *ctx, const check_args *a, const fp_check_doc *d)
{
    if (ctx->format == FP_FMT_JUNIT) {
        fp_check_junit(d, &ctx->doc);
        return;
    }
    if (ctx->format != FP_FMT_SARIF)
        return;
    fp_report_doc rep;
    memset(&rep, 0, sizeof rep);
    char *rp = fp_bundle_path(ctx->bundle, FP_ART_REPORT);
    fp_err e = {0};
    bool have = fp_is_file(rp) && fp_report_read_file(rp, &rep, &e) == 0;
    if (!have && e.code)
        fp_warn(ctx, "-f sarif: no locations: %s", e.message);
    fp_err_clear(&e);
    free(rp);
    fp_sarif_log log;
    fp_sarif_init(&log, FLYPROF_VERSION, a->source_root);
    bool regressed = d->gate.tripped || (d->verdict.overall && !strcmp(d->verdict.overall, "regressed"));
    fp_sarif_add_classes(&log, d->classes, d->nclasses, regressed, have ? &rep : NULL, a->source_root);
    fp_sarif_print(&log, &ctx->doc);
    fp_report_doc_free(&rep);
}

/* No baseline in the history (NO_BASELINE): without --strict a warning and exit 0, so
 * that the first run of a CI job does not fail; the data says so (and -f junit / sarif
 * still give CI a document: a skipped testcase, a log with no result). */
static int no_baseline(fp_ctx *ctx, const check_args *a, const char *dbp, const fp_history_record *cur, fp_err *err)
{
    if (a->strict)
        return -1;
    fp_check_none_doc d = {.db = fp_model_strdup(dbp), .baseline_ref = fp_model_strdup(a->baseline),
                           .status = fp_model_strdup("no_baseline"), .message = fp_model_strdup(err->message)};
    side(cur, &d.current);
    fp_warn(ctx, "NO_BASELINE: %s (passed; --strict makes this an error)", err->message);
    fp_sb_addf(&ctx->table, "check %s: no baseline yet (%s)\n%s\n", cur->kernel, err->message, err->help);
    if (ctx->format == FP_FMT_JUNIT) {
        fp_check_junit_none(cur->kernel, err->message, &ctx->doc);
    } else if (ctx->format == FP_FMT_SARIF) {
        fp_sarif_log log;
        fp_sarif_init(&log, FLYPROF_VERSION, a->source_root);
        fp_sarif_print(&log, &ctx->doc);
    }
    fp_err_clear(err);
    ctx->data = fp_model_write(&fp_check_none_schema, &d);
    fp_model_free(&fp_check_none_schema, &d);
    return 0;
}

/* B and its baseline -> the comparison -> table and data -> the gate */
static int run_check(fp_ctx *ctx, void *vargs, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    check_args *a = vargs;
    /* --bundle (required, a dir), --db and --worktree were checked by main (fp_check_paths) */
    char *dbp = a->db ? fp_path_abs(a->db) : fp_history_default_path();
    if (!dbp) {
        fp_err_set(err, FP_BAD_ARGS, "no history database: neither --db, $FLYPROF_HISTORY, $XDG_DATA_HOME nor $HOME");
        return fp_err_help(err, "pass --db FILE");
    }
    fp_history_record cur = {0}, base = {0};
    char how[128] = "";
    if (load_sides(ctx, a, dbp, &cur, &base, how, err) != 0) {
        int rc = err->code == FP_NO_BASELINE ? no_baseline(ctx, a, dbp, &cur, err) : -1;
        free(dbp);
        fp_history_record_free(&cur);
        return rc;
    }
    fp_check_doc d = {0};
    fp_diff_verdict v;
    bool tripped = compare_to_baseline(a, dbp, &base, &cur, how, &d, &v);
    check_table(&ctx->table, a, &base, &cur, &v, &d);
    check_documents(ctx, a, &d);
    free(dbp);
    fp_history_record_free(&cur);
    fp_history_record_free(&base);
    ctx->data = fp_model_write(&fp_check_schema, &d);
    double base_id = d.baseline.id.v;
    fp_model_free(&fp_check_schema, &d);
    if (tripped) {
        /* the gate is an error code for CI, but the comparison is the point: it
         * stays in the envelope's data (as with diff --fail-on) */
        ctx->data_on_error = true;
        fp_err_set(err, FP_REGRESSED, "--fail-on %s: the verdict is %s (%s)", a->fail_on, v.overall, v.why);
        return fp_err_help(err, "the comparison ran: data holds it (data.verdict, data.classes); "
                                "`flyprof history show %.0f` for the baseline",
                           base_id);
    }
    return 0;
}

/* shown under "examples:" in help and in the man page */
static const char *const check_examples[] = {
    "flyprof check --bundle runs/softmax-pr --db ci/history.db",
    "flyprof check --bundle runs/softmax-pr --strict -f junit > check.xml",
    NULL,
};

const fp_command fp_cmd_check = {
    .examples = check_examples,
    .name = "check",
    .summary = "gate a reported bundle against its history baseline (same kernel and shape): exit 1 on regression",
    .usage = "flyprof check --bundle DIR [--db FILE] [--baseline auto|latest|COMMIT|ID] [--window N] [--strict] [--fail-on regressed|any-change|never] "
             "[--source-root DIR]",
    .details = "Compares the bundle with the baseline entry through the same comparison and noise floors as `diff` "
               "(duration per call within 2 % is neutral; without durations the stalled share within 1 point). "
               "A tripped gate exits 1 with error code REGRESSED; the comparison stays in data.",
    .paths = check_paths,
    .bundle_required = true,
    .opts = check_opts,
    .args_size = sizeof(check_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_check,
    .formats = FP_FMT_BIT(FP_FMT_SARIF) | FP_FMT_BIT(FP_FMT_JUNIT),
};
