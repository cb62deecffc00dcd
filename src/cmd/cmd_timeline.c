/*
 * cmd_timeline.c - `flyprof timeline --bundle DIR`: the traced waves as a
 * timeline Perfetto UI / chrome://tracing open (docs/commands/timeline.md).
 *
 * Story: resolve the dispatch dir (dispatch.c) -> code.json (names of the
 * records) -> stream every wave file's states and instructions and the
 * occupancy counters as Chrome trace events (analysis/timeline.c) straight
 * into timeline.json's temporary file -> rename -> an envelope with its size.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "flyprof/att.h"
#include "flyprof/bundle.h"
#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/timeline.h"
#include "flyprof/timeline_doc.h"

typedef struct timeline_args {
    const char *tag;
    long long dispatch;
    const char *detail;
    long long clock_mhz;
    long long max_waves;
    const char *out;
} timeline_args;

static const fp_opt timeline_opts[] = {
    {"tag", 0, FP_OPT_STR, offsetof(timeline_args, tag), "TAG",
     "capture tag under att/ (small, big); default: capture.json's only tag, else big", NULL, NULL, 0, 0},
    {"dispatch", 0, FP_OPT_INT, offsetof(timeline_args, dispatch), "N",
     "use ui_output_agent_*_dispatch_<N> instead of the kept one", "-1", NULL, 0, 100000000000LL},
    {"detail", 0, FP_OPT_CHOICE, offsetof(timeline_args, detail), "D",
     "states: wave states only; lines: + runs of one source line; insts: + every instruction", "lines",
     fp_tl_detail_names, 0, 0},
    {"clock-mhz", 0, FP_OPT_INT, offsetof(timeline_args, clock_mhz), "MHZ",
     "shader clock for the time axis when the dispatch has no realtime.json (none: 1 cycle per ns)", NULL, NULL, 1,
     100000},
    {"max-waves", 0, FP_OPT_INT, offsetof(timeline_args, max_waves), "N",
     "draw at most N waves, evenly spaced over the dispatch (none: all; bounds the file of a huge trace)", NULL,
     NULL, 1, 100000000},
    {"out", 0, FP_OPT_STR, offsetof(timeline_args, out), "FILE",
     "write the timeline here instead of <bundle>/timeline.json", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

typedef struct render {
    fp_tl_in in;
    fp_tl_stats st;
    fp_err err;
    bool failed;
} render;

static int flush_fd(void *user, const char *buf, size_t len)
{
    int fd = *(int *)user;
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        buf += w, len -= (size_t)w;
    }
    return 0;
}

static int flush_none(void *user, const char *buf, size_t len) { return (void)user, (void)buf, (void)len, 0; }

/* fp_write_atomic_fn's fill: the rendering, its own error kept for the envelope */
static int fill(int fd, void *user)
{
    render *r = user;
    if (fp_timeline_render(&r->in, flush_fd, &fd, &r->st, &r->err) == 0)
        return 0;
    r->failed = true;
    return EIO;
}

static void envelope(fp_ctx *ctx, const fp_dispatch_ref *ref, const fp_code *code, const render *r, const char *out)
{
    const fp_tl_stats *st = &r->st;
    fp_timeline_doc d = {0};
    d.artifact = out ? fp_path_abs(out) : NULL;
    d.dispatch_dir = fp_path_abs(ref->dir);
    d.dispatch_name = fp_model_strdup(ref->name);
    d.symbol = fp_model_strdup(code->symbol);
    d.detail = fp_model_strdup(fp_tl_detail_names[r->in.detail]);
    d.timebase = fp_model_strdup(st->timebase);
    d.mhz_min = st->mhz_min > 0 ? fp_optd_of(st->mhz_min) : fp_optd_none();
    d.mhz_max = st->mhz_max > 0 ? fp_optd_of(st->mhz_max) : fp_optd_none();
    d.waves_listed = st->waves_listed;
    d.waves = st->waves, d.waves_skipped = st->waves_skipped, d.processes = st->processes;
    d.slices = st->slices, d.counters = st->counters, d.clipped = st->clipped, d.bytes = st->bytes;
    d.t0_us = (double)st->t0_ns / 1000.0, d.t1_us = (double)st->t1_ns / 1000.0;
    d.open_with = fp_model_strdup("https://ui.perfetto.dev (Open trace file) or chrome://tracing (Load)");
    fp_model_round(&fp_timeline_doc_schema, &d);
    ctx->data = fp_model_write(&fp_timeline_doc_schema, &d);
    fp_sb_addf(&ctx->table, "timeline: %s (%s)\n  %s  detail %s, time from %s\n", ref->name,
               code->symbol ? code->symbol : "?", out ? out : "(not written)", d.detail, d.timebase);
    fp_sb_addf(&ctx->table, "  %lld waves (%lld skipped), %lld slices, %lld counter values, %lld bytes, "
                            "%.3f .. %.3f us\n  open with %s\n",
               (long long)d.waves, (long long)d.waves_skipped, (long long)d.slices, (long long)d.counters,
               (long long)d.bytes, d.t0_us, d.t1_us, d.open_with);
    fp_model_free(&fp_timeline_doc_schema, &d);
}

static void warnings(fp_ctx *ctx, const fp_tl_stats *st)
{
    if (st->realtime_error[0])
        fp_warn(ctx, "realtime.json unusable (%s): time axis from %s", st->realtime_error, st->timebase);
    else if (!strcmp(st->timebase, "cycles"))
        fp_warn(ctx, "no realtime.json and no --clock-mhz: 1 cycle is drawn as 1 ns");
    if (st->ses_unaligned)
        fp_warn(ctx, "%lld waves ran on an SE realtime.json does not list: drawn on the first SE's clock",
                (long long)st->ses_unaligned);
    if (st->waves_skipped)
        fp_warn(ctx, "%lld wave files unreadable: left out", (long long)st->waves_skipped);
}

static int run_timeline(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    timeline_args *a = argsp;
    if (!ctx->bundle) {
        fp_err_set(err, FP_USAGE, "timeline needs --bundle DIR (a bundle or a ui_output_agent_* dispatch dir)");
        return fp_err_help(err, "run `flyprof capture` first, or point --bundle at a decoded ATT dir");
    }
    fp_dispatch_ref ref;
    if (fp_bundle_dispatch(ctx->bundle, a->tag, a->dispatch, &ref, err) != 0) {
        fp_dispatch_ref_free(&ref);
        return -1;
    }
    fp_code code = {0};
    int rc = fp_code_load(ref.dir, &code, err);
    if (rc == 0 && (code.null_code || code.n == 0))
        rc = fp_err_set(err, FP_EMPTY_ATT, "%s: code.json has no instructions (an empty shell)", ref.dir);
    char *out = a->out ? strdup(a->out) : !ref.bundle_is_dispatch ? fp_bundle_path(ctx->bundle, FP_ART_TIMELINE) : NULL;
    render r = {.in = {.dir = ref.dir, .code = &code, .detail = FP_TL_LINES, .clock_mhz = (double)a->clock_mhz,
                       .kernel = code.symbol, .max_waves = (size_t)a->max_waves, .interrupted = ctx->interrupted}};
    for (int i = 0; fp_tl_detail_names[i]; i++)
        if (!strcmp(a->detail, fp_tl_detail_names[i]))
            r.in.detail = (fp_tl_detail)i;
    if (rc == 0 && out) {
        fp_progress(ctx, "timeline: %s -> %s", ref.dir, out);
        rc = fp_write_atomic_fn(out, fill, &r, err);
        if (rc && r.failed) {
            fp_err_clear(err);
            *err = r.err;
        } else if (rc) {
            fp_err_help(err, "the bundle must be writable (or pass --out FILE)");
        }
    } else if (rc == 0) {
        fp_warn(ctx, "--bundle is a dispatch dir: nothing written (pass --out FILE)");
        rc = fp_timeline_render(&r.in, flush_none, NULL, &r.st, err);
    }
    if (rc == 0) {
        warnings(ctx, &r.st);
        envelope(ctx, &ref, &code, &r, out);
    }
    free(out);
    fp_code_free(&code);
    fp_dispatch_ref_free(&ref);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule timeline_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR}, {.opt = "out", .kind = FP_PATH_OUT_FILE},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const timeline_examples[] = {
    "flyprof timeline --bundle runs/softmax   # timeline.json: open in ui.perfetto.dev",
    "flyprof timeline --bundle runs/softmax --detail insts --max-waves 8 --out t.json",
    NULL,
};

const fp_command fp_cmd_timeline = {
    .examples = timeline_examples,
    .name = "timeline",
    .summary = "the traced waves over time as timeline.json (Chrome trace events: Perfetto UI, chrome://tracing)",
    .usage = "flyprof timeline --bundle DIR [--tag TAG] [--dispatch N] [--detail states|lines|insts] "
             "[--clock-mhz MHZ] [--max-waves N] [--out FILE]",
    .details = "One process per (SE, CU), one track per traced wave (its EXEC/WAIT/STALL/IDLE states) with its "
               "instructions on the track under it (runs of one source line, or every instruction with --detail "
               "insts), the resident-wave counter per SE. Times in us from realtime.json. Streamed: memory does not "
               "grow with the trace; the file is about 2x (lines) to 8x (insts) the wave files' size.",
    .opts = timeline_opts,
    .args_size = sizeof(timeline_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_timeline,
    .paths = timeline_paths,
    .bundle_required = true,
};
