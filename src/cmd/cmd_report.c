/*
 * cmd_report.c - `flyprof report --bundle DIR`: evidence -> ranked plan.
 *
 * Story: the bundle -> report.json (fp_report_from_bundle_jobs, the bundle
 * layer: resolve the ATT dispatch, read capture.json, counters.json, tile.json,
 * bubbles.json, map.json and rocprofv3's agent_info/kernel_trace CSVs, gather
 * signals, rules) -> report.json, headlines.json, REPORT.md, report.html
 * (written atomically to --out-dir or the bundle). What was missing is listed in report.json "evidence.missing".
 * Exit 66 NO_RECOMMENDATION only when no rule fired and the kernel is not at
 * its roof (the artifacts are still written).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/bundle.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/report.h"
#include "flyprof/report_doc.h"
#include "flyprof/report_load.h"
#include "flyprof/sarif.h"

typedef struct report_args {
    const char *tag;
    long long dispatch;
    const char *out_dir;
    bool no_html;
    long long jobs;
    const char *source_root;
} report_args;

static const fp_opt report_opts[] = {
    {"tag", 0, FP_OPT_STR, offsetof(report_args, tag), "TAG", "capture tag to analyse (default: capture.json's only tag, else big)",
     NULL, NULL, 0, 0},
    {"dispatch", 0, FP_OPT_INT, offsetof(report_args, dispatch), "N", "pick ui_output_*_dispatch_<N>", "-1", NULL, 0,
     (long long)1 << 40},
    {"out-dir", 'o', FP_OPT_STR, offsetof(report_args, out_dir), "DIR",
     "write report.json, headlines.json, REPORT.md, report.html here instead of the bundle", NULL, NULL, 0, 0},
    {"no-html", 0, FP_OPT_FLAG, offsetof(report_args, no_html), NULL, "do not write report.html", NULL, NULL, 0, 0},
    {"jobs", 0, FP_OPT_INT, offsetof(report_args, jobs), "N",
     "threads of the bubbles analysis when bubbles.json is absent (0 = 2 when it may run on 2 CPUs, else 1); same output for any N",
     NULL, NULL, 0, 64},
    FP_SOURCE_ROOT_OPT(report_args, source_root),
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Write <dir>/<artifact>; *abs_out gets its absolute path (the envelope's artifacts). */
static int write_text(const char *dir, fp_artifact name, const fp_sb *sb, char **abs_out, fp_err *err)
{
    char *p = fp_bundle_path(dir, name);
    int rc = fp_write_atomic(p, sb->buf, sb->len, err);
    if (rc == 0)
        *abs_out = fp_path_abs(p);
    free(p);
    return rc;
}

/* Write a document of the model (report.json, headlines.json) as <dir>/<artifact>. */
static int write_doc(const char *dir, fp_artifact name, const fp_schema *s, const void *doc, char **abs_out,
                     fp_err *err)
{
    char *p = fp_bundle_path(dir, name);
    int rc = fp_model_write_file(s, doc, p, err);
    if (rc == 0)
        *abs_out = fp_path_abs(p);
    free(p);
    return rc;
}

static int run_report(fp_ctx *ctx, void *vargs, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    report_args *a = vargs;
    if (!ctx->bundle) {
        fp_err_set(err, FP_USAGE, "report needs --bundle DIR");
        return fp_err_help(err, "point --bundle at a capture bundle or a ui_output_agent_*_dispatch_* dir");
    }
    if (a->tag && !fp_is_plain_name(a->tag))
        return fp_err_set(err, FP_BAD_ARGS, "--tag '%s' is not a plain name", a->tag);
    fp_report_loaded l;
    if (fp_report_from_bundle_jobs(ctx, ctx->bundle, a->tag, a->dispatch, (int)a->jobs, &l, err))
        return -1;
    const fp_report_doc *r = &l.report;
    const char *dest = a->out_dir ? a->out_dir : (l.bundle_is_dispatch ? NULL : l.root);
    fp_report_envelope env;
    fp_report_envelope_build(r, &env);
    fp_report_artifacts *arts = &env.artifacts;
    int rc = 0;
    /* a signal while the analysis ran: no artifact is replaced */
    if (ctx->interrupted && *ctx->interrupted)
        rc = fp_err_set(err, FP_INTERRUPTED, "interrupted by signal %d; no artifact written", (int)*ctx->interrupted);
    if (dest && rc == 0) {
        fp_sb md, html;
        fp_sb_init(&md);
        fp_sb_init(&html);
        fp_report_markdown(r, &md);
        fp_headlines_doc hl;
        fp_report_headlines(r, &hl);
        rc = fp_mkdir_p(dest, err);
        if (!rc)
            rc = write_doc(dest, FP_ART_REPORT, &fp_report_schema, r, &arts->report_json, err);
        if (!rc)
            rc = write_doc(dest, FP_ART_HEADLINES, &fp_headlines_schema, &hl, &arts->headlines_json, err);
        if (!rc)
            rc = write_text(dest, FP_ART_REPORT_MD, &md, &arts->report_md, err);
        if (!rc && !a->no_html) {
            fp_html_data hd;
            fp_html_data_load(l.dispatch_dir, r, FP_REPORT_HTML_WAVES, &hd);
            fp_report_html(r, &l.bubbles, &hd, &html);
            fp_html_data_free(&hd);
            rc = write_text(dest, FP_ART_REPORT_HTML, &html, &arts->report_html, err);
        }
        fp_headlines_doc_free(&hl);
        fp_sb_free(&md);
        fp_sb_free(&html);
    } else if (!dest) {
        fp_warn(ctx, "--bundle is a dispatch dir: nothing written (pass --out-dir DIR to write the report files)");
    }
    if (rc) {
        fp_model_free(&fp_report_envelope_schema, &env);
        fp_report_loaded_free(&l);
        return -1;
    }

    ctx->data = fp_model_write(&fp_report_envelope_schema, &env);
    fp_report_table(r, &ctx->table);
    if (ctx->format == FP_FMT_SARIF) {
        fp_sarif_log log;
        fp_sarif_init(&log, FLYPROF_VERSION, a->source_root);
        fp_sarif_add_report(&log, r, a->source_root);
        fp_sarif_print(&log, &ctx->doc);
    }

    /* at the roof an empty plan is the verdict ("only fewer bytes help"), not a miss */
    bool none = !r->optimal && !r->bound.at_roof && fp_report_nrecs(r) == 0;
    if (none) {
        fp_err_set(err, FP_NO_RECOMMENDATION, r->nalso_seen ? "no rule promises more than the 2%% noise floor"
                                                            : "no rule fired: no bubble crossed its threshold");
        fp_err_help(err, "the report files were still written; see REPORT.md section 4 for the stall taxonomy");
        fp_err_extra(err, "artifacts", fp_model_write(&fp_report_artifacts_schema, arts));
        ctx->data_on_error = ctx->format == FP_FMT_SARIF; /* a log with no result is still CI's answer */
    }
    fp_model_free(&fp_report_envelope_schema, &env);
    fp_report_loaded_free(&l);
    return none ? -1 : 0;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule report_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR}, {.opt = "out-dir", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const report_examples[] = {
    "flyprof report --bundle runs/softmax -f table",
    "flyprof report --bundle runs/softmax -f sarif --source-root ~/FlyDSL > flyprof.sarif",
    NULL,
};

const fp_command fp_cmd_report = {
    .examples = report_examples,
    .next = "apply the top knob, re-capture into NEW, then flyprof diff --before {bundle} --after NEW",
    .name = "report",
    .summary = "ranked knob recommendations with evidence: report.json, headlines.json, REPORT.md, report.html",
    .usage = "flyprof report --bundle DIR [--tag TAG] [--dispatch N] [--out-dir DIR] [--no-html] [--jobs N] [--source-root DIR]",
    .details = "Works on any bundle holding an ATT dispatch (or a dispatch dir itself), with or without "
               "capture.json, counters.json, tile.json, bubbles.json, map.json: what is missing is computed "
               "from what is there, and listed in report.json evidence.missing.",
    .opts = report_opts,
    .args_size = sizeof(report_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_report,
    .paths = report_paths,
    .bundle_required = true,
    .formats = FP_FMT_BIT(FP_FMT_SARIF),
};
