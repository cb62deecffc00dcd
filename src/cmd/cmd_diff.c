/*
 * cmd_diff.c - `flyprof diff --before A --after B`: did the change work?
 *
 * Story: each side is a report.json file, or a bundle (its report.json, or a
 * report built in memory from its dispatch when it has none) -> diff.json
 * (src/analysis/diff.c) -> written to --out, else to the after bundle. The
 * verdict (improved / regressed / neutral) is data: exit 0 for any verdict,
 * unless --fail-on makes it a gate (CI): then a tripped gate is the error
 * REGRESSED (exit 1) and the envelope still carries the whole diff.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/bundle.h"
#include "flyprof/diff.h"
#include "flyprof/diff_doc.h"
#include "flyprof/fs.h"
#include "flyprof/report.h"
#include "flyprof/report_load.h"
#include "flyprof/report_doc.h"
#include "flyprof/sarif.h"

typedef struct diff_args {
    const char *before;
    const char *after;
    const char *out;
    bool no_write;
    const char *fail_on;
    const char *source_root;
} diff_args;

static const fp_opt diff_opts[] = {
    {"before", 0, FP_OPT_STR, offsetof(diff_args, before), "PATH", "bundle dir or report.json of the baseline", NULL,
     NULL, 0, 0},
    {"after", 0, FP_OPT_STR, offsetof(diff_args, after), "PATH", "bundle dir or report.json after the change", NULL,
     NULL, 0, 0},
    {"out", 0, FP_OPT_STR, offsetof(diff_args, out), "FILE", "write diff.json here (default: <after bundle>/diff.json)",
     NULL, NULL, 0, 0},
    {"no-write", 0, FP_OPT_FLAG, offsetof(diff_args, no_write), NULL, "write no artifact, only the envelope", NULL,
     NULL, 0, 0},
    {"fail-on", 0, FP_OPT_CHOICE, offsetof(diff_args, fail_on), "WHEN",
     "exit 1 (REGRESSED) when the verdict is regressed, or with any-change anything but neutral; exit 3 "
     "(INCONCLUSIVE) when the verdict is inconclusive", NULL,
     fp_diff_fail_on_choices, 0, 0},
    FP_SOURCE_ROOT_OPT(diff_args, source_root),
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Load one side (the strict report.json reader). *is_bundle tells whether path was a directory. */
static int load_side(fp_ctx *ctx, const char *which, const char *path, fp_report_doc *out, bool *is_bundle,
                     fp_err *err)
{
    memset(out, 0, sizeof *out);
    *is_bundle = false;
    /* presence, existence and kind were checked by main (fp_check_paths) */
    if (fp_is_file(path))
        return fp_report_read_file(path, out, err);
    *is_bundle = true;
    char *rp = fp_bundle_path(path, FP_ART_REPORT);
    int rc;
    if (fp_is_file(rp)) {
        rc = fp_report_read_file(rp, out, err);
    } else {
        fp_report_loaded l;
        fp_warn(ctx, "--%s %s has no report.json: built in memory", which, path);
        rc = fp_report_from_bundle(ctx, path, NULL, -1, &l, err);
        if (rc == 0) {
            /* the report built in memory, rounded as its file would be */
            fp_model_round(&fp_report_schema, &l.report);
            *out = l.report;
            memset(&l.report, 0, sizeof l.report);
            fp_report_loaded_free(&l);
        } else if (err->code == FP_NO_ARTIFACT) {
            fp_err_set(err, FP_MISSING_PREREQ, "--%s %s has neither report.json nor an ATT dispatch", which, path);
            fp_err_help(err, "run `flyprof report --bundle %s` first", path);
        }
    }
    free(rp);
    return rc;
}

/* -f sarif: the lines and classes whose share of the stall grew, at their .py lines
 * (classes at their hottest line of the after side) */
static void diff_sarif(fp_ctx *ctx, const diff_args *a, const fp_diff_doc *d, const fp_report_doc *after)
{
    bool regressed = d->verdict.overall && !strcmp(d->verdict.overall, "regressed");
    fp_sarif_log log;
    fp_sarif_init(&log, FLYPROF_VERSION, a->source_root);
    fp_sarif_add_lines(&log, d->lines.rows, d->lines.nrows, regressed, a->source_root);
    fp_sarif_add_classes(&log, d->classes, d->nclasses, regressed, after, a->source_root);
    fp_sarif_print(&log, &ctx->doc);
}

static int run_diff(fp_ctx *ctx, void *vargs, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    diff_args *a = vargs;
    fp_report_doc rb = {0}, ra = {0};
    bool bb, ab;
    if (!a->before || !a->after) {
        fp_err_set(err, FP_USAGE, "diff needs --%s PATH", a->before ? "after" : "before");
        return fp_err_help(err, "usage: flyprof diff --before BUNDLE|report.json --after BUNDLE|report.json");
    }
    if (a->out && a->no_write)
        return fp_err_set(err, FP_BAD_ARGS, "--out and --no-write contradict each other");
    if (load_side(ctx, "before", a->before, &rb, &bb, err) || load_side(ctx, "after", a->after, &ra, &ab, err)) {
        fp_report_doc_free(&rb);
        fp_report_doc_free(&ra);
        return -1;
    }
    fp_diff_doc d;
    fp_diff_reports(&rb, &ra, &d);
    if (ctx->format == FP_FMT_SARIF)
        diff_sarif(ctx, a, &d, &ra);
    fp_report_doc_free(&rb);
    fp_report_doc_free(&ra);
    char *dest = NULL;
    if (!a->no_write) {
        if (a->out)
            dest = strdup(a->out);
        else if (ab)
            dest = fp_bundle_path(a->after, FP_ART_DIFF);
    }
    if (dest) {
        if (fp_diff_write_file(&d, dest, err)) {
            free(dest);
            fp_diff_free(&d);
            return -1;
        }
        d.artifact = fp_path_abs(dest);
        free(dest);
    }
    for (size_t i = 0; i < d.nnotes; i++)
        fp_warn(ctx, "%s", d.notes[i]);
    fp_diff_table(&d, &ctx->table);
    ctx->data = fp_model_write(&fp_diff_envelope_schema, &d);
    int rc = 0;
    const char *overall = d.verdict.overall;
    int gate = fp_diff_gate(overall, a->fail_on);
    if (gate == 1 || gate == 2) {
        /* 1: tripped (REGRESSED); 2: the noise hides the change (INCONCLUSIVE) */
        ctx->data_on_error = true;
        fp_err_set(err, gate == 1 ? FP_REGRESSED : FP_INCONCLUSIVE, "--fail-on %s: the verdict is %s (%s)",
                   a->fail_on, overall ? overall : "unknown", d.verdict.why ? d.verdict.why : "");
        rc = fp_err_help(err, gate == 1 ? "the comparison ran: data holds the whole diff (see data.verdict and "
                                          "data.classes)"
                                        : "the comparison ran but the change is not outside the waves' spread "
                                          "(see data.verdict and data.work): trace more waves or repeat the capture");
    }
    fp_diff_free(&d);
    return rc;
}

static const fp_path_rule diff_paths[] = {
    {.opt = "before", .kind = FP_PATH_ANY},
    {.opt = "after", .kind = FP_PATH_ANY},
    {.opt = "out", .kind = FP_PATH_OUT_FILE},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const diff_examples[] = {
    "flyprof diff --before runs/softmax --after runs/softmax-2",
    "flyprof diff --before a/report.json --after b/report.json --fail-on regressed -f sarif > diff.sarif",
    NULL,
};

const fp_command fp_cmd_diff = {
    .examples = diff_examples,
    .name = "diff",
    .summary = "before/after comparison of two reports: per class, line and instruction, acceptance tests, verdict",
    .usage = "flyprof diff --before BUNDLE|report.json --after BUNDLE|report.json [--out FILE] [--no-write] "
             "[--fail-on regressed|any-change] [--source-root DIR]",
    .details = "Says whether the code is the same (ISA hash), compares cycles per main-loop iteration and per wave "
               "with a 95% CI from the waves' own spread, matches instructions by source line + opcode + position "
               "in their basic block. The verdict (improved / regressed / neutral / inconclusive) is data: exit 0, "
               "unless --fail-on turns it into a gate (exit 1 REGRESSED, exit 3 INCONCLUSIVE, the diff still in "
               "data).",
    .paths = diff_paths,
    .no_bundle = true,
    .opts = diff_opts,
    .args_size = sizeof(diff_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_diff,
    .formats = FP_FMT_BIT(FP_FMT_SARIF),
};
