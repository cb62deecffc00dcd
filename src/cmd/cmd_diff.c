/*
 * cmd_diff.c - `flyprof diff --before A --after B`: did the change work?
 *
 * Story: each side is a report.json file, or a bundle (its report.json, or a
 * report built in memory from its dispatch when it has none) -> diff.json
 * (src/analysis/diff.c) -> written to --out, else to the after bundle. The
 * verdict (improved / regressed / neutral) is data: exit 0 for any verdict.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/diff.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/report.h"

typedef struct diff_args {
    const char *before;
    const char *after;
    const char *out;
    bool no_write;
} diff_args;

static const fp_opt diff_opts[] = {
    {"before", 0, FP_OPT_STR, offsetof(diff_args, before), "PATH", "bundle dir or report.json of the baseline", NULL,
     NULL, 0, 0},
    {"after", 0, FP_OPT_STR, offsetof(diff_args, after), "PATH", "bundle dir or report.json after the change", NULL,
     NULL, 0, 0},
    {"out", 'o', FP_OPT_STR, offsetof(diff_args, out), "FILE", "write diff.json here (default: <after bundle>/diff.json)",
     NULL, NULL, 0, 0},
    {"no-write", 0, FP_OPT_FLAG, offsetof(diff_args, no_write), NULL, "write no artifact, only the envelope", NULL,
     NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* A report.json must at least carry its totals and classes. */
static int check_report(const cJSON *r, const char *path, fp_err *err)
{
    if (!cJSON_IsObject(r) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "totals")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "classes")))
        return fp_err_set(err, FP_BAD_INPUT, "%s is not a flyprof report.json (no totals/classes)", path);
    return 0;
}

/* Load one side. *is_bundle tells whether path was a directory. */
static int load_side(fp_ctx *ctx, const char *which, const char *path, cJSON **out, bool *is_bundle, fp_err *err)
{
    *out = NULL;
    *is_bundle = false;
    if (!path) {
        fp_err_set(err, FP_BAD_ARGS, "diff needs --%s PATH", which);
        return fp_err_help(err, "usage: flyprof diff --before BUNDLE|report.json --after BUNDLE|report.json");
    }
    if (fp_is_file(path)) {
        if (fp_json_parse_file(path, out, err))
            return -1;
        return check_report(*out, path, err);
    }
    if (!fp_is_dir(path)) {
        fp_err_set(err, FP_MISSING_PREREQ, "--%s %s does not exist", which, path);
        return fp_err_help(err, "pass a bundle dir or its report.json (run `flyprof report --bundle DIR` first)");
    }
    *is_bundle = true;
    char *rp = fp_path_join(path, "report.json");
    int rc;
    if (fp_is_file(rp)) {
        rc = fp_json_parse_file(rp, out, err);
        if (rc == 0)
            rc = check_report(*out, rp, err);
    } else {
        fp_report_loaded l;
        fp_warn(ctx, "--%s %s has no report.json: built in memory", which, path);
        rc = fp_report_from_bundle(ctx, path, NULL, -1, &l, err);
        if (rc == 0) {
            *out = l.report;
            l.report = NULL;
            fp_report_loaded_free(&l);
        } else if (err->code == FP_NO_ARTIFACT) {
            fp_err_set(err, FP_MISSING_PREREQ, "--%s %s has neither report.json nor an ATT dispatch", which, path);
            fp_err_help(err, "run `flyprof report --bundle %s` first", path);
        }
    }
    free(rp);
    return rc;
}

static int run_diff(fp_ctx *ctx, void *vargs, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    diff_args *a = vargs;
    cJSON *rb = NULL, *ra = NULL;
    bool bb, ab;
    if (load_side(ctx, "before", a->before, &rb, &bb, err) || load_side(ctx, "after", a->after, &ra, &ab, err)) {
        cJSON_Delete(rb);
        cJSON_Delete(ra);
        return -1;
    }
    cJSON *d = fp_diff_reports(rb, ra);
    cJSON_Delete(rb);
    cJSON_Delete(ra);
    char *dest = NULL;
    if (!a->no_write) {
        if (a->out)
            dest = strdup(a->out);
        else if (ab)
            dest = fp_path_join(a->after, "diff.json");
    }
    if (dest) {
        if (fp_json_write_file(dest, d, err)) {
            free(dest);
            cJSON_Delete(d);
            return -1;
        }
        char *abs = fp_path_abs(dest);
        fp_json_add_str(d, "artifact", abs);
        free(abs);
        free(dest);
    } else {
        cJSON_AddNullToObject(d, "artifact");
    }
    fp_diff_table(d, &ctx->table);
    ctx->data = d;
    return 0;
}

const fp_command fp_cmd_diff = {
    .name = "diff",
    .summary = "before/after comparison of two reports: per class, line and instruction, acceptance tests, verdict",
    .usage = "flyprof diff --before BUNDLE|report.json --after BUNDLE|report.json [--out FILE] [--no-write]",
    .details = "Instructions are matched by source line + opcode + occurrence, cycles compared per traced wave. "
               "The verdict (improved / regressed / neutral, within a documented noise floor) is data: exit 0.",
    .opts = diff_opts,
    .args_size = sizeof(diff_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_diff,
};
