/*
 * cmd_bubbles.c - `flyprof bubbles --bundle DIR`: the whole-trace stall
 * diagnosis (docs/commands/bubbles.md).
 *
 * Story: resolve the dispatch dir (dispatch.c) -> analyse code.json + every
 * wave file (analysis/bubbles.c) -> bubbles.json, complete, written atomically
 * into the bundle (or --out) -> the same document as data, with the long lists
 * bounded by --limit and `truncated` saying what was cut.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/bundle_path.h"
#include "flyprof/bubbles.h"
#include "flyprof/bundle.h"
#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"

typedef struct bubbles_args {
    const char *tag;
    long long dispatch;
    long long limit;
    const char *rank;
    const char *out;
    long long jobs;
} bubbles_args;

static const char *const rank_choices[] = {"exposed", "stall", "latency", NULL};

static const fp_opt bubbles_opts[] = {
    {"tag", 0, FP_OPT_STR, offsetof(bubbles_args, tag), "TAG",
     "capture tag under att/ (small, big); default: capture.json's only tag, else big", NULL, NULL, 0, 0},
    {"dispatch", 0, FP_OPT_INT, offsetof(bubbles_args, dispatch), "N",
     "analyse ui_output_agent_*_dispatch_<N> instead of the kept one", "-1", NULL, 0, 100000000000LL},
    {"limit", 0, FP_OPT_INT, offsetof(bubbles_args, limit), "N",
     "entries of each ranked list in the envelope (0 = all; the artifact is always complete)", "25", NULL,
     0, 100000000},
    {"rank", 0, FP_OPT_CHOICE, offsetof(bubbles_args, rank), "BY",
     "hotspot order: exposed stall, total stall or latency", "exposed", rank_choices, 0, 0},
    {"out", 0, FP_OPT_STR, offsetof(bubbles_args, out), "FILE",
     "write bubbles.json here instead of <bundle>/bubbles.json", NULL, NULL, 0, 0},
    {"jobs", 0, FP_OPT_INT, offsetof(bubbles_args, jobs), "N",
     "worker threads, one (SE, SIMD) group each at a time (0 = online CPUs, at most 2); same output for any N",
     NULL, NULL, 0, 64},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static void warn_cb(void *user, const char *msg) { fp_warn(user, "%s", msg); }

static fp_rank_by rank_of(const char *s)
{
    return !strcmp(s, "stall") ? FP_RANK_STALL : !strcmp(s, "latency") ? FP_RANK_LATENCY : FP_RANK_EXPOSED;
}

/* dispatch block: what was resolved and how, plus the inventory */
static void add_dispatch_info(cJSON *doc, const fp_dispatch_ref *ref)
{
    cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "dispatch");
    /* absolute here (never relative to the cwd); bundle-relative in the artifact */
    char *abs = fp_path_abs(ref->dir);
    cJSON_ReplaceItemInObjectCaseSensitive(d, "dir", cJSON_CreateString(abs));
    free(abs);
    fp_json_add_str(d, "tag", ref->tag);
    if (ref->number >= 0)
        fp_json_add_int(d, "dispatch", ref->number);
    else
        cJSON_AddNullToObject(d, "dispatch");
    fp_json_add_str(d, "resolved_by", ref->how);
    cJSON_AddItemToObject(d, "inventory", cJSON_Duplicate(ref->inventory, 1));
    cJSON *q = cJSON_GetObjectItemCaseSensitive(doc, "quality");
    cJSON *shells = cJSON_GetObjectItemCaseSensitive(q, "empty_shells");
    const cJSON *e;
    cJSON_ArrayForEach(e, ref->inventory)
    {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "empty")))
            cJSON_AddItemToArray(shells, cJSON_CreateString(fp_json_get_str(e, "dir")));
    }
}

static void table(fp_sb *t, const cJSON *doc)
{
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(doc, "totals");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "dispatch");
    fp_sb_addf(t, "bubbles: %s (%s)\n", fp_json_get_str(d, "name") ? fp_json_get_str(d, "name") : "?",
               fp_json_get_str(d, "symbol") ? fp_json_get_str(d, "symbol") : "?");
    int64_t v[6] = {0};
    static const char *const keys[] = {"latency", "stall", "exposed", "hidden", "waves", "wave_records"};
    for (int i = 0; i < 6; i++)
        fp_json_get_i64(tot, keys[i], &v[i]);
    fp_sb_addf(t, "  latency %lld  stall %lld  exposed %lld  hidden %lld  (%lld waves, %lld records)\n",
               (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3], (long long)v[4],
               (long long)v[5]);
    fp_sb_adds(t, "\n  class            cycles    %stall    exposed   gain<=%\n");
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "classes"))
    {
        int64_t cy = 0, ex = 0;
        fp_json_get_i64(c, "cycles", &cy);
        fp_json_get_i64(c, "exposed", &ex);
        fp_sb_addf(t, "  %-12s %10lld  %8.2f %10lld  %8.2f\n", fp_json_get_str(c, "class"), (long long)cy,
                   cJSON_GetObjectItemCaseSensitive(c, "pct")->valuedouble, (long long)ex,
                   cJSON_GetObjectItemCaseSensitive(c, "gain_upper_pct")->valuedouble);
    }
    fp_sb_adds(t, "\n  #     exposed     stall  class      inst / source\n");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "hotspots"))
    {
        int64_t rk = 0, ex = 0, st = 0;
        fp_json_get_i64(c, "rank", &rk);
        fp_json_get_i64(c, "exposed", &ex);
        fp_json_get_i64(c, "stall", &st);
        fp_sb_addf(t, "  %-3lld %9lld %9lld  %-9s  %s\n        %s\n", (long long)rk, (long long)ex, (long long)st,
                   fp_json_get_str(c, "class"), fp_json_get_str(c, "inst"), fp_json_get_str(c, "source"));
    }
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(doc, "quality");
    fp_sb_addf(t, "\n  confidence: %s\n", fp_json_get_str(q, "confidence"));
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(q, "reasons"))
        fp_sb_addf(t, "    - %s\n", c->valuestring);
}

static int run_bubbles(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos;
    (void)npos;
    bubbles_args *a = argsp;
    if (!ctx->bundle) {
        fp_err_set(err, FP_USAGE, "bubbles needs --bundle DIR (a bundle or a ui_output_agent_* dispatch dir)");
        return fp_err_help(err, "run `flyprof capture` first, or point --bundle at a decoded ATT dir");
    }
    fp_dispatch_ref ref;
    if (fp_bundle_dispatch(ctx->bundle, a->tag, a->dispatch, &ref, err) != 0) {
        fp_dispatch_ref_free(&ref);
        return -1;
    }
    const cJSON *note;
    cJSON_ArrayForEach(note, ref.notes)
        fp_warn(ctx, "%s", note->valuestring);
    fp_progress(ctx, "bubbles: analysing %s", ref.dir);

    fp_bubbles b;
    memset(&b, 0, sizeof b);
    int rc = -1;
    cJSON *doc = NULL, *cut = NULL;
    char *out = NULL;
    if (fp_bubbles_analyze_jobs(ref.dir, rank_of(a->rank), &b, warn_cb, ctx, (int)a->jobs, err) != 0)
        goto done;
    if (!ref.bundle_is_dispatch) {
        char **dl = NULL;
        size_t nd = fp_dispatch_decoder_warnings(ctx->bundle, ref.tag, &dl, 10);
        if (nd) {
            fp_warn(ctx, "rocprofv3 reported %zu decoder warnings (rocprof/%s/rocprofv3.stderr.txt)", nd, ref.tag);
            fp_bubbles_add_decoder_warnings(&b, dl, nd < 10 ? nd : 10, nd);
        }
        for (size_t i = 0; i < (nd < 10 ? nd : 10); i++)
            free(dl[i]);
        free(dl);
    }
    doc = fp_bubbles_json(&b, 0, NULL);
    add_dispatch_info(doc, &ref);
    if (a->out)
        out = strdup(a->out);
    else if (!ref.bundle_is_dispatch)
        out = fp_bundle_path(ctx->bundle, FP_ART_BUBBLES);
    if (out && fp_bundle_write_json(out, doc, ctx->bundle, err) != 0) {
        fp_err_help(err, "the bundle must be writable (or pass --out FILE)");
        goto done;
    }
    /* the envelope: the same document, long lists bounded */
    cJSON_Delete(doc);
    doc = fp_bubbles_json(&b, (size_t)a->limit, &cut);
    add_dispatch_info(doc, &ref);
    if (out) {
        char *abs = fp_path_abs(out);
        fp_json_add_str(doc, "artifact", abs);
        free(abs);
    } else {
        cJSON_AddNullToObject(doc, "artifact");
    }
    const cJSON *cf;
    cJSON_ArrayForEach(cf, cut)
    {
        fp_truncated(ctx, cf->string, (size_t)a->limit, (size_t)cf->valuedouble);
    }
    table(&ctx->table, doc);
    ctx->data = doc;
    doc = NULL;
    rc = 0;
done:
    cJSON_Delete(doc);
    cJSON_Delete(cut);
    free(out);
    fp_bubbles_free(&b);
    fp_dispatch_ref_free(&ref);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule bubbles_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR}, {.opt = "out", .kind = FP_PATH_OUT_FILE},
    {.kind = FP_PATH_NONE},
};

const fp_command fp_cmd_bubbles = {
    .name = "bubbles",
    .summary = "where the stall cycles go: taxonomy, exposed vs hidden, waitcnt -> producer, per line",
    .usage = "flyprof bubbles --bundle DIR [--tag TAG] [--dispatch N] [--rank exposed|stall|latency] [--limit N] [--out FILE] [--jobs N]",
    .details = "Reads the whole ATT trace (code.json and every wave file) of one dispatch and writes "
               "bubbles.json (complete) into the bundle; the envelope carries the same document with the "
               "ranked lists bounded by --limit. When --bundle is a dispatch dir nothing is written unless --out.",
    .opts = bubbles_opts,
    .args_size = sizeof(bubbles_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_bubbles,
    .paths = bubbles_paths,
    .bundle_required = true,
};
