/*
 * cmd_annotate.c - `flyprof annotate --bundle DIR [--pc N | --line FILE:N]`: the
 * ISA window around one instruction, like `perf annotate` (docs/commands/annotate.md).
 *
 * Story: resolve the dispatch dir (dispatch.c) -> the bubbles analysis of the
 * whole trace (the same as `flyprof bubbles`, so the producers are bubbles.json's)
 * -> the window (analysis/annotate.c) -> envelope + table. Read-only: nothing is
 * written.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/annotate.h"
#include "flyprof/bubbles.h"
#include "flyprof/bundle.h"
#include "flyprof/dispatch.h"
#include "flyprof/fs.h"

typedef struct annotate_args {
    const char *tag;
    long long dispatch;
    long long pc;
    const char *line;
    long long context;
    long long jobs;
} annotate_args;

static const fp_opt annotate_opts[] = {
    {"tag", 0, FP_OPT_STR, offsetof(annotate_args, tag), "TAG",
     "capture tag under att/ (small, big); default: capture.json's only tag, else big", NULL, NULL, 0, 0},
    {"dispatch", 0, FP_OPT_INT, offsetof(annotate_args, dispatch), "N",
     "use ui_output_agent_*_dispatch_<N> instead of the kept one", "-1", NULL, 0, 100000000000LL},
    {"pc", 0, FP_OPT_INT, offsetof(annotate_args, pc), "N", "the instruction with code.json LineNumber N", "-1",
     NULL, 0, 100000000000LL},
    {"line", 0, FP_OPT_STR, offsetof(annotate_args, line), "FILE:LINE",
     "the most exposed instruction of this source line (FILE: exact path, else a unique suffix)", NULL, NULL, 0, 0},
    {"context", 0, FP_OPT_INT, offsetof(annotate_args, context), "N", "instructions on each side", "8", NULL, 0,
     1000},
    {"jobs", 0, FP_OPT_INT, offsetof(annotate_args, jobs), "N",
     "threads of the trace analysis (0 = 2 when it may run on 2 CPUs, else 1); same output for any N", NULL, NULL, 0, 64},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static void warn_cb(void *user, const char *msg) { fp_warn(user, "%s", msg); }

/* the window's query from the flags (exclusive) */
static int query_of(const annotate_args *a, fp_ann_query *q, fp_err *err)
{
    if (a->pc >= 0 && a->line)
        return fp_err_set(err, FP_BAD_ARGS, "--pc and --line are exclusive");
    *q = (fp_ann_query){a->pc >= 0 ? FP_ANN_PC : a->line ? FP_ANN_LINE : FP_ANN_TOP, a->pc, a->line,
                        (long)a->context};
    return 0;
}

static void load_snaps(fp_ctx *ctx, const char *dir, fp_snapshots *snaps)
{
    fp_err se = {0};
    if (fp_snapshots_load(dir, snaps, &se) != 0) {
        fp_warn(ctx, "source snapshots unusable (%s): no source text", se.message);
        fp_err_clear(&se);
        memset(snaps, 0, sizeof *snaps);
    }
}

static int run_annotate(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    annotate_args *a = argsp;
    if (!ctx->bundle) {
        fp_err_set(err, FP_USAGE, "annotate needs --bundle DIR (a bundle or a ui_output_agent_* dispatch dir)");
        return fp_err_help(err, "run `flyprof capture` first, or point --bundle at a decoded ATT dir");
    }
    fp_ann_query q;
    if (query_of(a, &q, err) != 0)
        return -1;
    fp_dispatch_ref ref;
    if (fp_bundle_dispatch(ctx->bundle, a->tag, a->dispatch, &ref, err) != 0) {
        fp_dispatch_ref_free(&ref);
        return -1;
    }
    fp_bubbles b;
    memset(&b, 0, sizeof b);
    fp_bubbles_doc doc = {0};
    fp_snapshots snaps = {0};
    fp_annotate_doc ad = {0};
    int rc = fp_bubbles_analyze_jobs(ref.dir, FP_RANK_EXPOSED, &b, warn_cb, ctx, (int)a->jobs, err);
    if (rc == 0) {
        fp_bubbles_doc_build(&b, &doc);
        load_snaps(ctx, ref.dir, &snaps);
        rc = fp_annotate_build(&b, &doc, &snaps, &q, &ad, err);
    }
    if (rc == 0) {
        ad.dispatch_dir = fp_path_abs(ref.dir);
        ad.dispatch_name = fp_model_strdup(ref.name);
        ad.symbol = fp_model_strdup(b.code.symbol);
        fp_model_round(&fp_annotate_doc_schema, &ad);
        ctx->data = fp_model_write(&fp_annotate_doc_schema, &ad);
        fp_annotate_table(&ad, &ctx->table);
    }
    fp_model_free(&fp_annotate_doc_schema, &ad);
    fp_snapshots_free(&snaps);
    fp_bubbles_doc_free(&doc);
    fp_bubbles_free(&b);
    fp_dispatch_ref_free(&ref);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule annotate_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const annotate_examples[] = {
    "flyprof annotate --bundle runs/softmax -f table",
    "flyprof annotate --bundle runs/softmax --line kernels/softmax.py:42 --context 3",
    NULL,
};

const fp_command fp_cmd_annotate = {
    .examples = annotate_examples,
    .name = "annotate",
    .summary = "perf-annotate view: the ISA around a hot instruction with hits, stall, exposed, class, the "
               "producer of each wait and the source interleaved",
    .usage = "flyprof annotate --bundle DIR [--pc N | --line FILE:LINE] [--context N] [--tag TAG] [--dispatch N] "
             "[--jobs N]",
    .details = "Default target: the top hotspot by exposed stall (bubbles.json hotspots[0]). --line picks the "
               "most exposed instruction of that source line and marks the line's other instructions (*). "
               "Analyses the whole trace as bubbles does, so the producers are bubbles.json's; writes nothing.",
    .opts = annotate_opts,
    .args_size = sizeof(annotate_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_annotate,
    .paths = annotate_paths,
    .bundle_required = true,
};
