/*
 * cmd_bubbles.c - `flyprof bubbles --bundle DIR`: the whole-trace stall
 * diagnosis (docs/commands/bubbles.md).
 *
 * Story: resolve the dispatch dir (dispatch.c) -> analyse code.json + every
 * wave file (analysis/bubbles.c) -> bubbles.json, complete, written atomically
 * into the bundle (or --out) -> the same document as data, with the long lists
 * bounded by --limit and `truncated` saying what was cut.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/bundle_path.h"
#include "flyprof/bubbles.h"
#include "flyprof/bundle.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/bubbles_table.h"
#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/team.h"

typedef struct bubbles_args {
    const char *tag;
    long long dispatch;
    long long limit;
    const char *rank;
    const char *out;
    long long jobs;
    const char *by;
} bubbles_args;

static const char *const rank_choices[] = {"exposed", "stall", "latency", NULL};
static const char *const by_choices[] = {"inst", "line", NULL};

static const fp_opt bubbles_opts[] = {
    {"tag", 0, FP_OPT_STR, offsetof(bubbles_args, tag), "TAG",
     "capture tag under att/ (small, big); default: capture.json's only tag, else big", NULL, NULL, 0, 0},
    {"dispatch", 0, FP_OPT_INT, offsetof(bubbles_args, dispatch), "N",
     "analyse ui_output_agent_*_dispatch_<N> instead of the kept one", "-1", NULL, 0, 100000000000LL},
    {"limit", 'n', FP_OPT_INT, offsetof(bubbles_args, limit), "N",
     "entries of each ranked list in the envelope (0 = all; the artifact is always complete)", "25", NULL,
     0, 100000000},
    {"rank", 0, FP_OPT_CHOICE, offsetof(bubbles_args, rank), "BY",
     "hotspot order: exposed stall, total stall or latency", "exposed", rank_choices, 0, 0},
    {"out", 0, FP_OPT_STR, offsetof(bubbles_args, out), "FILE",
     "write bubbles.json here instead of <bundle>/bubbles.json", NULL, NULL, 0, 0},
    {"jobs", 0, FP_OPT_INT, offsetof(bubbles_args, jobs), "N",
     "worker threads, one (SE, SIMD) group each at a time (0 = 2 when it may run on 2 CPUs, else 1); same output for any N",
     NULL, NULL, 0, 64},
    {"by", 0, FP_OPT_CHOICE, offsetof(bubbles_args, by), "ROWS",
     "table rows: inst (one per hotspot instruction) or line (one per source line, its waits' producers merged)",
     "inst", by_choices, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static void warn_cb(void *user, const char *msg) { fp_warn(user, "%s", msg); }

static fp_rank_by rank_of(const char *s)
{
    return !strcmp(s, "stall") ? FP_RANK_STALL : !strcmp(s, "latency") ? FP_RANK_LATENCY : FP_RANK_EXPOSED;
}

/* dispatch block: what was resolved and how, plus the inventory (att/dispatch.c's
 * items, read into the document by its table) and the empty shells of it */
static int add_dispatch_info(fp_bubbles_doc *doc, const fp_dispatch_ref *ref, fp_err *err)
{
    fp_bub_doc_dispatch *d = &doc->dispatch;
    /* absolute here (never relative to the cwd); bundle-relative in the artifact */
    fp_model_free_str(doc->pool, d->dir); /* the build's copy, in the document's pool */
    d->dir = fp_path_abs(ref->dir);
    d->resolved = true;
    d->tag = fp_model_strdup(ref->tag);
    d->dispatch = ref->number >= 0 ? fp_optd_of((double)ref->number) : fp_optd_none();
    d->resolved_by = fp_model_strdup(ref->how);
    const cJSON *e;
    cJSON_ArrayForEach(e, ref->inventory)
    {
        fp_bub_doc_inv *inv = fp_model_push((void **)&d->inventory, &d->n_inventory, sizeof *inv);
        if (fp_model_read(&fp_bub_doc_inv_schema, e, inv, "dispatch inventory", err) != 0)
            return -1;
        if (inv->empty)
            fp_model_push_str(&doc->quality.empty_shells, &doc->quality.n_empty_shells, inv->dir);
    }
    return 0;
}

/* rocprofv3's decoder warnings for the traced tag, into the quality block (at most 10). */
static void decoder_warnings(fp_ctx *ctx, const fp_dispatch_ref *ref, fp_bubbles *b)
{
    if (ref->bundle_is_dispatch)
        return;
    char **dl = NULL;
    size_t nd = fp_dispatch_decoder_warnings(ctx->bundle, ref->tag, &dl, 10);
    if (nd) {
        fp_warn(ctx, "rocprofv3 reported %zu decoder warnings (rocprof/%s/rocprofv3.stderr.txt)", nd, ref->tag);
        fp_bubbles_add_decoder_warnings(b, dl, nd < 10 ? nd : 10, nd);
    }
    for (size_t i = 0; i < (nd < 10 ? nd : 10); i++)
        free(dl[i]);
    free(dl);
}

/* The hotspots' second part, rendered on a thread of its own while this one writes the
 * rest of bubbles.json (the walk's workers are done: the second CPU is idle here). On
 * flash_attn_func-big the writer was ~5 M instructions after the walk, 87 % of them
 * the hotspots. The thread only reads doc and makes its own text; the file, its
 * errors and its atomic rename stay this thread's. */
typedef struct rest_job {
    const fp_bubbles_doc *doc;
    const char *bundle;
    size_t at;
    char *text;
    size_t len;
    fp_task th;
    bool started; /* the thread runs or ran and is not joined yet */
} rest_job;

static void *rest_main(void *p)
{
    rest_job *r = p;
    r->text = fp_model_print_items(&fp_bubbles_schema, r->doc, offsetof(fp_bubbles_doc, hotspots), r->at, r->bundle,
                                   &r->len);
    return NULL;
}

/* fp_model_split's rest(): the thread's text once it is done (made here if no thread). */
static const char *rest_text(void *p, size_t *len)
{
    rest_job *r = p;
    if (r->started) {
        fp_task_join(&r->th);
        r->started = false;
    }
    if (!r->text)
        rest_main(r);
    *len = r->len;
    return r->text;
}

/* Hotspots below this are written by one thread: a thread costs more than it saves. */
#define SPLIT_MIN_HOTSPOTS 64
/* ... and above this too: the second part is held as text until it is written (~450 B
 * per hotspot on the corpus), so a huge code.json would add 9/16 of the artifact to the
 * peak memory; 16384 hotspots keep that under ~5 MiB. */
#define SPLIT_MAX_HOTSPOTS 16384

/* bubbles.json: to --out, else into the bundle (a bare dispatch dir gets none). *out is
 * the path written, or NULL. jobs >= 2: the hotspots' later part is rendered by a second
 * thread meanwhile (the same bytes: tests/unit/test_model.c, tests/cli). */
static int write_artifact(fp_ctx *ctx, const bubbles_args *a, const fp_dispatch_ref *ref, const fp_bubbles_doc *doc,
                          int jobs, char **out, fp_err *err)
{
    *out = a->out ? strdup(a->out) : !ref->bundle_is_dispatch ? fp_bundle_path(ctx->bundle, FP_ART_BUBBLES) : NULL;
    if (!*out)
        return 0;
    /* streamed from the struct, no cJSON tree: the same bytes as fp_bundle_write_json */
    if (jobs < 2 || doc->n_hotspots < SPLIT_MIN_HOTSPOTS || doc->n_hotspots > SPLIT_MAX_HOTSPOTS) {
        int rc = fp_model_write_bundle_file(&fp_bubbles_schema, doc, *out, ctx->bundle, err);
        if (rc != 0)
            fp_err_help(err, "the bundle must be writable (or pass --out FILE)");
        return rc;
    }
    /* this thread also writes the other members (~13 % of the bytes, ~1 M of the ~5 M
     * instructions on flash) and the file: the second thread takes the hotspots' last 9/16
     * (5/8 before the envelope's tree was built on that CPU too: env_job, ~0.8 M) */
    rest_job r = {.doc = doc, .bundle = ctx->bundle, .at = doc->n_hotspots * 7 / 16};
    r.started = fp_task_start(&r.th, rest_main, &r) == 0;
    fp_model_split split = {offsetof(fp_bubbles_doc, hotspots), r.at, rest_text, &r};
    int rc = fp_model_write_bundle_file_split(&fp_bubbles_schema, doc, *out, ctx->bundle, &split, err);
    if (r.started) /* the write failed before it needed the text */
        fp_task_join(&r.th);
    free(r.text);
    if (rc != 0)
        fp_err_help(err, "the bundle must be writable (or pass --out FILE)");
    return rc;
}

/* The envelope's data: the same document, long lists bounded (a view of doc), as a
 * cJSON tree. With two jobs it is built on a thread of its own while this one writes
 * bubbles.json (~0.8 M instructions on flash_attn_func-big, off the main thread): both
 * only read doc, so the tree is the one of the rounded view (fp_model_write_rounded),
 * not made by rounding doc's entries in place before the file has them. */
typedef struct env_job {
    fp_bubbles_doc view;
    size_t total[FP_BUB_LIMITED];
    cJSON *j;
    fp_task th;
    bool started; /* the thread runs or ran and is not joined yet */
} env_job;

static void *env_main(void *p)
{
    env_job *e = p;
    e->j = fp_model_write_rounded(&fp_bubbles_schema, &e->view);
    return NULL;
}

static void env_start(env_job *e, const bubbles_args *a, const fp_bubbles_doc *doc, int jobs)
{
    memset(e, 0, sizeof *e);
    fp_bubbles_doc_limit(doc, (size_t)a->limit, &e->view, e->total);
    e->started = jobs >= 2 && fp_task_start(&e->th, env_main, e) == 0;
}

/* The thread's tree once it is done, NULL if none was started (also a failed write's). */
static cJSON *env_take_if_started(env_job *e)
{
    if (e->started) {
        fp_task_join(&e->th);
        e->started = false;
    }
    cJSON *j = e->j;
    e->j = NULL;
    return j;
}

/* The tree, made here if no thread did. */
static cJSON *env_take(env_job *e)
{
    cJSON *j = env_take_if_started(e);
    return j ? j : fp_model_write_rounded(&fp_bubbles_schema, &e->view);
}

/* The envelope from the tree, its truncation notes and its table. */
static void envelope(fp_ctx *ctx, const bubbles_args *a, fp_bubbles_doc *doc, env_job *e, const char *out)
{
    cJSON *j = env_take(e);
    if (out) {
        char *abs = fp_path_abs(out);
        fp_json_add_str(j, "artifact", abs);
        free(abs);
    } else {
        cJSON_AddNullToObject(j, "artifact");
    }
    for (int i = 0; i < FP_BUB_LIMITED; i++)
        if (a->limit && e->total[i] > (size_t)a->limit)
            fp_truncated(ctx, fp_bub_limited_name(i), (size_t)a->limit, e->total[i]);
    /* the table is printed only in table mode (FLYPROF_TABLE_FD makes it that too):
     * json / csv never show it (~0.7 M instructions on flash_attn_func-big). It shows
     * the file's numbers: the view rounded (its entries are doc's, already written; the
     * writer rounds the same way, so this changes no byte) */
    if (ctx->format == FP_FMT_TABLE) {
        fp_model_round(&fp_bubbles_schema, &e->view);
        fp_bubbles_table(&e->view, doc, !strcmp(a->by, "line"), &ctx->table);
    }
    ctx->data = j;
}

/* The document when the process ends after this command (ctx->left_to_exit: main's one
 * command, never a caller that goes on): its ~1.5k hotspots' free was 0.6 M instructions on
 * the main thread of flash_attn_func-big just before exit, which returns the pages anyway. */
static void leave_or_free(const fp_ctx *ctx, fp_bubbles_doc *doc)
{
    fp_bubbles_doc *kept = ctx->left_to_exit && !*ctx->left_to_exit ? malloc(sizeof *kept) : NULL;
    if (!kept) {
        fp_bubbles_doc_free(doc);
        return;
    }
    *kept = *doc;
    *ctx->left_to_exit = kept;
    memset(doc, 0, sizeof *doc);
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
    fp_bubbles_doc doc;
    memset(&doc, 0, sizeof doc);
    int rc = -1;
    char *out = NULL;
    env_job env;
    memset(&env, 0, sizeof env);
    int jobs = a->jobs ? (int)a->jobs : fp_bubbles_default_jobs();
    if (jobs >= 2)
        fp_team_spread_begin(); /* through the writes too: they split over the team (team.h) */
    if (fp_bubbles_analyze_cancel(ref.dir, rank_of(a->rank), &b, warn_cb, ctx, jobs, ctx->interrupted, err))
        goto done;
    decoder_warnings(ctx, &ref, &b);
    fp_bubbles_doc_build_jobs(&b, &doc, jobs);
    fp_bubbles_free(&b);
    /* a signal during the last steps: keep the previous bubbles.json, do not replace it */
    if (ctx->interrupted && *ctx->interrupted) {
        fp_err_set(err, FP_INTERRUPTED, "interrupted by signal %d; bubbles.json left as it was", (int)*ctx->interrupted);
        goto done;
    }
    if (add_dispatch_info(&doc, &ref, err) != 0)
        goto done;
    env_start(&env, a, &doc, jobs);
    if (write_artifact(ctx, a, &ref, &doc, jobs, &out, err) != 0)
        goto done;
    envelope(ctx, a, &doc, &env, out);
    rc = 0;
done:
    cJSON_Delete(env_take_if_started(&env));
    if (jobs >= 2)
        fp_team_spread_end();
    free(out);
    leave_or_free(ctx, &doc);
    fp_bubbles_free(&b);
    fp_dispatch_ref_free(&ref);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule bubbles_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR}, {.opt = "out", .kind = FP_PATH_OUT_FILE},
    {.kind = FP_PATH_NONE},
};

/* -f csv: the row lists of the data (the first present is the default; -f csv:NAME) */
static const char *const bubbles_csv_rows[] = {"classes", "hotspots", "lines", NULL};

/* shown under "examples:" in help and in the man page */
static const char *const bubbles_examples[] = {
    "flyprof bubbles --bundle runs/softmax",
    "flyprof bubbles --bundle runs/softmax -f csv:hotspots > hotspots.csv",
    NULL,
};

const fp_command fp_cmd_bubbles = {
    .examples = bubbles_examples,
    .next = "flyprof map --bundle {bundle}   (which .py lines)",
    .csv_rows = bubbles_csv_rows,
    .name = "bubbles",
    .summary = "where the stall cycles go: taxonomy, exposed vs hidden, waitcnt -> producer, per line",
    .usage = "flyprof bubbles --bundle DIR [--tag TAG] [--dispatch N] [--rank exposed|stall|latency] [--limit N] [--by inst|line] [--out FILE] [--jobs N]",
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
