/*
 * report_load.c - a bundle -> report.json (report_load.h): resolve the ATT
 * dispatch (fp_bundle_dispatch) -> read capture.json, counters.json, tile.json,
 * bubbles.json, map.json when the bundle has them (bubbles is computed from the
 * dispatch when absent or stale) and rocprofv3's agent_info / kernel_trace CSVs
 * -> gather signals -> fp_report_build. What was missing is listed in
 * report.json "evidence.missing". Moved here from src/cmd/cmd_report.c; shared
 * by `report`, `diff` and `bundle`.
 */
#include "flyprof/report_load.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/agent_info.h"
#include "flyprof/att.h"
#include "flyprof/bubbles.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/bundle.h"
#include "flyprof/capture_doc.h"
#include "flyprof/counters_doc.h"
#include "flyprof/cli.h"
#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/kernel_trace.h"
#include "flyprof/map_doc.h"
#include "flyprof/report.h"
#include "flyprof/signals.h"
#include "flyprof/workid.h"

/* What each optional artifact adds, said in the report when it is missing. */
typedef struct evidence_row {
    const char *artifact;
    const char *effect;
} evidence_row;

static const evidence_row evidence_rows[] = {
    {"capture.json", "no workload command (repro), shape or register counts from the capture"},
    {"counters.json", "bound decided from the trace alone; no bandwidth roof, so 'already optimal' cannot be decided; "
                      "counter rules (vectorize_copy, layout_l2, mma_select, counter-based lds_bank_conflict) not "
                      "evaluated"},
    {"tile.json", "the kernel's own tile (BM/BN/BK) is unknown"},
    {"bubbles.json", "computed from the dispatch for this report (run `flyprof bubbles` to persist it)"},
    {"map.json", "no source-mapping coverage figure; snippets read from the dispatch's snapshots"},
    {"kernel_trace.csv", "no register/LDS counts: occupancy unknown unless capture.json has them"},
    {"agent_info.csv", "GPU product unknown (arch from capture.json if recorded)"},
};

static const char *effect_of(const char *artifact)
{
    for (size_t i = 0; i < sizeof evidence_rows / sizeof *evidence_rows; i++)
        if (!strcmp(evidence_rows[i].artifact, artifact))
            return evidence_rows[i].effect;
    return "";
}

static void note_missing(fp_report_evidence *ev, const char *artifact)
{
    fp_report_missing *o = fp_model_push((void **)&ev->missing, &ev->nmissing, sizeof *ev->missing);
    o->artifact = fp_model_strdup(artifact);
    o->effect = fp_model_strdup(effect_of(artifact));
}

static void note_available(fp_report_evidence *ev, const char *artifact)
{
    fp_model_push_str(&ev->available, &ev->navailable, artifact);
}

/* Parse <root>/<name> when it exists: 0 with *out NULL when absent. */
static int optional_json(const char *root, fp_artifact id, cJSON **out, fp_err *err)
{
    *out = NULL;
    char *p = fp_bundle_path(root, id);
    int rc = 0;
    if (fp_is_file(p))
        rc = fp_json_parse_file(p, out, err);
    else if (fp_is_dir(p))
        rc = fp_err_set(err, FP_BAD_INPUT, "%s is a directory, expected a JSON file", p);
    free(p);
    return rc;
}

/* bubbles.json of the bundle, strictly (bubbles_doc.h): *have is false when absent. */
static int optional_bubbles(const char *root, fp_bubbles_doc *doc, bool *have, fp_err *err)
{
    *have = false;
    char *p = fp_bundle_path(root, FP_ART_BUBBLES);
    int rc = 0;
    if (fp_is_file(p)) {
        /* parse errors keep fp_json_parse_file's message and help; a document of the
         * wrong shape gets the strict reader's key path and a way out */
        cJSON *j = NULL;
        rc = fp_json_parse_file(p, &j, err);
        if (rc == 0) {
            rc = fp_model_read(&fp_bubbles_schema, j, doc, p, err);
            cJSON_Delete(j);
            if (rc == 0)
                *have = true;
            else
                fp_err_help(err, "re-run `flyprof bubbles --bundle %s` or delete the file", root);
        }
    } else if (fp_is_dir(p)) {
        rc = fp_err_set(err, FP_BAD_INPUT, "%s is a directory, expected a JSON file", p);
    }
    free(p);
    return rc;
}

static void bub_warn(void *user, const char *msg) { fp_warn((fp_ctx *)user, "%s", msg); }

/* First existing file among <dir>/<candidates>. */
static char *find_csv(const char *const *dirs, size_t ndirs, const char *name)
{
    for (size_t i = 0; i < ndirs; i++) {
        if (!dirs[i])
            continue;
        char *p = fp_path_join(dirs[i], name);
        if (fp_is_file(p))
            return p;
        free(p);
    }
    return NULL;
}

/* Largest register / LDS / workgroup count read from a CSV cell. */
#define FP_CSV_MAX_COUNT 16777216.0

static int read_agent(fp_signals *s, const char *path, fp_err *err)
{
    fp_agent_info c;
    if (fp_agent_info_load(path, &c, err))
        return -1;
    /* the first GPU agent: a capture targets one device */
    const fp_agent_row *g = fp_agent_info_first_gpu(&c);
    if (g) {
        fp_soc_query q;
        memset(&q, 0, sizeof q);
        double v;
        q.product_name = g->product_name;
        q.agent_arch = g->name;
        /* a cell outside long long (1e300, nan) is corrupt: left unknown, never cast (UB) */
        if (fp_rp_real(&g->device_id, &v) && v >= 0 && v <= FP_CSV_MAX_COUNT * 1e6)
            q.device_id = (long long)v;
        if (fp_rp_real(&g->gfx_target_version, &v) && v >= 0 && v <= FP_CSV_MAX_COUNT * 1e6)
            q.gfx_target_version = (long long)v;
        fp_signals_from_agent(s, &q);
    }
    fp_agent_info_free(&c);
    return 0;
}

static int read_kernel_trace(fp_signals *s, const char *path, fp_err *err)
{
    fp_kernel_trace c;
    if (!s->kernel)
        return 0;
    if (fp_kernel_trace_load(path, &c, err))
        return -1;
    /* issue 23: only the rows whose launch is the traced dispatch's (launch_facts.c) */
    int64_t units[64];
    fp_kt_identity id;
    fp_launch_facts_identity(s, units, &id);
    fp_kt_pick pk;
    fp_kt_pick_traced(&c, s->kernel, FP_KT_EXACT, FP_KT_TIME_ANY, &id, &pk);
    fp_kernel_row k;
    memset(&k, 0, sizeof k);
    k.pick = pk;
    k.vgpr = k.accum = k.sgpr = k.lds = k.wg = k.scratch = -1;
    k.dispatches = pk.timed;
    k.avg_ns = pk.mean_ns;
    /* rows refused only for their grid are the same code object launched on another
     * shape: their register / LDS counts still describe the traced kernel */
    bool regs_only = !pk.n && pk.named && !pk.rejected[FP_KT_REJ_LDS] && !pk.rejected[FP_KT_REJ_VGPR];
    if (pk.n || regs_only) {
        const fp_kt_row *row = &c.rows[pk.n ? pk.last : pk.named_last];
        double v;
        const fp_rp_num *cols[] = {&row->vgpr, &row->accum_vgpr, &row->sgpr, &row->lds_block_size,
                                   &row->scratch_size};
        int *dst[] = {&k.vgpr, &k.accum, &k.sgpr, &k.lds, &k.scratch};
        /* counts outside [0, 2^24] are corrupt cells: left unknown (no int overflow) */
        for (size_t i = 0; i < 5; i++)
            if (fp_rp_real(cols[i], &v) && v >= 0 && v <= FP_CSV_MAX_COUNT)
                *dst[i] = (int)v;
        double x, y = 0, z = 0;
        if (fp_rp_real(&row->wg[0], &x)) {
            bool oy = fp_rp_real(&row->wg[1], &y), oz = fp_rp_real(&row->wg[2], &z);
            double w = x * (oy && y > 0 ? y : 1) * (oz && z > 0 ? z : 1);
            if (w > 0 && w <= FP_CSV_MAX_COUNT)
                k.wg = (int)w;
        }
        k.have_regs = k.vgpr >= 0;
        /* the launch: grid and workgroup sizes in work-items (a missing Y/Z is 1) */
        k.have_grid = pk.n > 0;
        for (int i = 0; i < 3; i++) {
            double g = 0, w = 0;
            bool og = fp_rp_real(&row->grid[i], &g), ow = fp_rp_real(&row->wg[i], &w);
            k.grid[i] = og && g > 0 ? g : 1;
            k.wg3[i] = ow && w > 0 ? w : 1;
            if (i == 0 && (!og || !ow || g <= 0 || w <= 0 || g > 1e15 || w > FP_CSV_MAX_COUNT))
                k.have_grid = false;
        }
    }
    fp_signals_from_kernel_row(s, &k);
    fp_kernel_trace_free(&c);
    return 0;
}

void fp_report_loaded_free(fp_report_loaded *l)
{
    if (!l)
        return;
    fp_report_doc_free(&l->report);
    fp_bubbles_doc_free(&l->bubbles);
    free(l->root);
    free(l->dispatch_dir);
    memset(l, 0, sizeof *l);
}

/* Everything one report is built from, and what it still owns. */
typedef struct report_inputs {
    fp_dispatch_ref dref;
    cJSON *capture, *counters, *tile, *map;
    fp_bubbles_doc bubbles;
    bool have_bubbles;
    fp_report_evidence ev;
    fp_code code;
    fp_snapshots snaps;
    fp_signals sig;
    const char *use_tag;
} report_inputs;

static void inputs_free(report_inputs *in)
{
    cJSON_Delete(in->capture);
    cJSON_Delete(in->counters);
    cJSON_Delete(in->tile);
    fp_bubbles_doc_free(&in->bubbles);
    cJSON_Delete(in->map);
    fp_model_free(&fp_report_evidence_schema, &in->ev);
    fp_code_free(&in->code);
    fp_snapshots_free(&in->snaps);
    fp_signals_free(&in->sig);
    fp_dispatch_ref_free(&in->dref);
}

static void mark_available(report_inputs *in, fp_artifact id)
{
    note_available(&in->ev, fp_artifact_name(id));
}

/* bubbles.json must describe the dispatch being reported, else it is recomputed. */
static int bubbles_input(fp_ctx *ctx, const char *bundle, int jobs, report_inputs *in, fp_err *err)
{
    if (in->have_bubbles) {
        const char *bn = in->bubbles.dispatch.name;
        if (!bn || strcmp(bn, in->dref.name)) {
            fp_warn(ctx, "bubbles.json describes %s, not the resolved dispatch %s: recomputed", bn ? bn : "(unnamed)",
                    in->dref.name);
            fp_bubbles_doc_free(&in->bubbles);
            in->have_bubbles = false;
        }
    }
    if (in->have_bubbles) {
        mark_available(in, FP_ART_BUBBLES);
        return 0;
    }
    fp_bubbles b;
    memset(&b, 0, sizeof b);
    fp_progress(ctx, "report: analysing %s", in->dref.dir);
    if (fp_bubbles_analyze_cancel(in->dref.dir, FP_RANK_EXPOSED, &b, bub_warn, ctx, jobs, ctx->interrupted, err)) {
        fp_bubbles_free(&b);
        return -1;
    }
    fp_bubbles_doc_build(&b, &in->bubbles);
    fp_bubbles_free(&b);
    fp_model_round(&fp_bubbles_schema, &in->bubbles); /* the numbers a reader of the file would see */
    note_missing(&in->ev, "bubbles.json");
    return 0;
}

/* map.json (parsed with the others) through the strict reader into the signals */
static int map_input(report_inputs *in, fp_err *err)
{
    if (!in->map) {
        note_missing(&in->ev, fp_artifact_name(FP_ART_MAP));
        return 0;
    }
    fp_map_doc doc;
    int rc = fp_model_read(&fp_map_schema, in->map, &doc, fp_artifact_name(FP_ART_MAP), err);
    if (rc == 0)
        rc = fp_signals_from_map(&in->sig, &doc, err);
    fp_map_free(&doc);
    if (rc)
        return -1;
    mark_available(in, FP_ART_MAP);
    return 0;
}

/* counters.json / tile.json: the strict reader, then their signals. */
static int counters_signals(report_inputs *in, fp_err *err)
{
    if (!in->counters) {
        note_missing(&in->ev, fp_artifact_name(FP_ART_COUNTERS));
        return 0;
    }
    fp_counters_doc c;
    int rc = fp_model_read(&fp_counters_doc_schema, in->counters, &c, fp_artifact_name(FP_ART_COUNTERS), err);
    if (rc == 0)
        rc = fp_signals_from_counters(&in->sig, &c, err);
    fp_counters_doc_free(&c);
    if (rc == 0)
        mark_available(in, FP_ART_COUNTERS);
    return rc;
}

static int tile_signals(report_inputs *in, fp_err *err)
{
    if (!in->tile) {
        note_missing(&in->ev, fp_artifact_name(FP_ART_TILE));
        return 0;
    }
    fp_tile_doc t;
    int rc = fp_model_read(&fp_tile_doc_schema, in->tile, &t, fp_artifact_name(FP_ART_TILE), err);
    if (rc == 0)
        rc = fp_signals_from_tile(&in->sig, &t, err);
    fp_tile_doc_free(&t);
    if (rc == 0)
        mark_available(in, FP_ART_TILE);
    return rc;
}

/* rocprofv3 CSVs: rocprof/<tag>/, rocprof/, and beside a bare dispatch dir
 * (<case>/att/<dispatch> -> <case>/rocprof/) */
static int csv_inputs(fp_ctx *ctx, const char *bundle, report_inputs *in, fp_err *err)
{
    char *case_dir = fp_path_join(in->dref.dir, "../..");
    char *case_rp = fp_bundle_path(case_dir, FP_ART_ROCPROF_DIR);
    char *root_rp = fp_bundle_path(bundle, FP_ART_ROCPROF_DIR);
    char *tag_rp = in->use_tag && fp_is_plain_name(in->use_tag) ? fp_path_join(root_rp, in->use_tag) : NULL;
    const char *dirs[] = {tag_rp, root_rp, in->dref.bundle_is_dispatch ? case_rp : NULL};
    char *kt = find_csv(dirs, 3, "kernel_trace.csv");
    char *ai = find_csv(dirs, 3, "agent_info.csv");
    int rc = -1;
    if (ai) {
        if (read_agent(&in->sig, ai, err))
            goto done;
        note_available(&in->ev, "agent_info.csv");
    } else {
        note_missing(&in->ev, "agent_info.csv");
    }
    if (kt) {
        if (read_kernel_trace(&in->sig, kt, err))
            goto done;
        note_available(&in->ev, "kernel_trace.csv");
    } else {
        note_missing(&in->ev, "kernel_trace.csv");
    }
    fp_signals_derive(&in->sig);
    /* issue 23: the CSV is another launch / a prologue-only trace: said on stderr and in the
     * envelope too, not only inside report.json */
    for (size_t i = 0; i < in->sig.nlaunch_warnings; i++)
        fp_warn(ctx, "%s", in->sig.launch_warnings[i]);
    for (size_t i = 0; i < in->sig.ntime_warnings; i++)
        fp_warn(ctx, "%s", in->sig.time_warnings[i]);
    if (!in->sig.arch)
        fp_warn(ctx, "architecture unknown: no capture.json arch and no agent_info.csv");
    rc = 0;
done:
    free(kt);
    free(ai);
    free(case_dir);
    free(case_rp);
    free(tag_rp);
    free(root_rp);
    return rc;
}

/* The artifacts of the bundle (none when --bundle is a bare dispatch dir),
 * then every input into the signals, in the order the report has always used. */
static int gather(fp_ctx *ctx, const char *bundle, int jobs, report_inputs *in, fp_err *err)
{
    if (!in->dref.bundle_is_dispatch) {
        if (optional_json(bundle, FP_ART_CAPTURE, &in->capture, err) ||
            optional_json(bundle, FP_ART_COUNTERS, &in->counters, err) ||
            optional_json(bundle, FP_ART_TILE, &in->tile, err) ||
            optional_bubbles(bundle, &in->bubbles, &in->have_bubbles, err) ||
            optional_json(bundle, FP_ART_MAP, &in->map, err))
            return -1;
    }
    if (in->capture) {
        fp_capture_doc capdoc;
        int crc = fp_model_read(&fp_capture_schema, in->capture, &capdoc, "capture.json", err);
        if (crc == 0)
            crc = fp_signals_from_capture(&in->sig, &capdoc, in->use_tag, err);
        fp_capture_free(&capdoc);
        if (crc)
            return -1;
        mark_available(in, FP_ART_CAPTURE);
    } else {
        note_missing(&in->ev, "capture.json");
    }
    if (bubbles_input(ctx, bundle, jobs, in, err))
        return -1;
    if (fp_snapshots_load(in->dref.dir, &in->snaps, err)) {
        /* snippets are a nicety: a broken snapshots.json only loses them */
        fp_warn(ctx, "snapshots.json unreadable (%s): no source snippets", err->message);
        fp_err_clear(err);
        memset(&in->snaps, 0, sizeof in->snaps);
    }
    in->sig.snaps = &in->snaps;
    /* the listing first: the producer split of the waits needs the kernel-argument prologue */
    if (fp_code_load(in->dref.dir, &in->code, err))
        return -1;
    fp_signals_set_listing(&in->sig, &in->code);
    if (fp_signals_from_bubbles(&in->sig, &in->bubbles, err) || map_input(in, err) || counters_signals(in, err) ||
        tile_signals(in, err))
        return -1;
    fp_signals_from_code(&in->sig, &in->code);
    return csv_inputs(ctx, bundle, in, err);
}

/* diff's inputs (issue 17 item 6): the code's identity and the waves' work,
 * rounded as the file will be. */
static void attach_work(report_inputs *in, fp_report_doc *d)
{
    d->isa = fp_isa_of(&in->code);
    d->work = fp_work_of(in->dref.dir, &in->code, d);
    fp_model_round(&fp_report_schema, d);
}

int fp_report_from_bundle_jobs(fp_ctx *ctx, const char *bundle, const char *tag, long long dispatch, int jobs,
                               fp_report_loaded *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    if (!bundle || !fp_is_dir(bundle)) {
        fp_err_set(err, FP_BAD_ARGS, "--bundle %s is not a directory", bundle ? bundle : "(missing)");
        return fp_err_help(err, "point --bundle at a capture bundle or a ui_output_agent_*_dispatch_* dir");
    }
    report_inputs in;
    memset(&in, 0, sizeof in);
    if (fp_bundle_dispatch(bundle, tag, dispatch, &in.dref, err)) {
        fp_dispatch_ref_free(&in.dref); /* the inventory may be filled on failure */
        return -1;
    }
    cJSON *it;
    cJSON_ArrayForEach(it, in.dref.notes)
        if (cJSON_IsString(it))
            fp_warn(ctx, "%s", it->valuestring);

    fp_signals_init(&in.sig);
    in.use_tag = in.dref.tag ? in.dref.tag : tag;
    out->root = strdup(bundle);
    out->dispatch_dir = strdup(in.dref.dir);
    out->bundle_is_dispatch = in.dref.bundle_is_dispatch;
    if (!out->root || !out->dispatch_dir)
        abort();
    int rc = gather(ctx, bundle, jobs, &in, err);
    if (rc == 0) {
        fp_report_in rin;
        memset(&rin, 0, sizeof rin);
        rin.sig = &in.sig;
        rin.bubbles = &in.bubbles;
        rin.snaps = &in.snaps;
        rin.code = &in.code;
        rin.dispatch_name = in.dref.name;
        rin.tag = in.dref.tag;
        rin.evidence = &in.ev;
        fp_report_build(&rin, &out->report);
        attach_work(&in, &out->report);
        out->bubbles = in.bubbles;
        memset(&in.bubbles, 0, sizeof in.bubbles);
    } else {
        fp_report_loaded_free(out);
    }
    inputs_free(&in);
    return rc;
}

int fp_report_from_bundle(fp_ctx *ctx, const char *bundle, const char *tag, long long dispatch,
                          fp_report_loaded *out, fp_err *err)
{
    return fp_report_from_bundle_jobs(ctx, bundle, tag, dispatch, 0, out, err);
}
