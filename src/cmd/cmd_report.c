/*
 * cmd_report.c - `flyprof report --bundle DIR`: evidence -> ranked plan.
 *
 * Story: resolve the ATT dispatch (dispatch.h) -> read capture.json,
 * counters.json, tile.json, bubbles.json when the bundle has them (bubbles is
 * computed from the dispatch when absent or stale) and rocprofv3's
 * agent_info/kernel_trace CSVs -> gather signals -> rules -> report.json,
 * headlines.json, REPORT.md, report.html (written atomically to --out-dir or
 * the bundle). What was missing is listed in report.json "evidence.missing".
 * Exit 66 NO_RECOMMENDATION only when no rule fired and the kernel is not at
 * its roof (the artifacts are still written).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/att.h"
#include "flyprof/bubbles.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/csv.h"
#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/report.h"
#include "flyprof/signals.h"

typedef struct report_args {
    const char *tag;
    long long dispatch;
    const char *out_dir;
    bool no_html;
    long long jobs;
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
     "threads of the bubbles analysis when bubbles.json is absent (0 = online CPUs, at most 2); same output for any N",
     NULL, NULL, 0, 64},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

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

static void note_missing(cJSON *missing, const char *artifact)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "artifact", artifact);
    fp_json_add_str(o, "effect", effect_of(artifact));
    cJSON_AddItemToArray(missing, o);
}

/* Parse <root>/<name> when it exists: 0 with *out NULL when absent. */
static int optional_json(const char *root, const char *name, cJSON **out, fp_err *err)
{
    *out = NULL;
    char *p = fp_path_join(root, name);
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
    char *p = fp_path_join(root, "bubbles.json");
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

/* --jobs of `report` for the bubbles analysis it may run (0 = default); a file
 * scope value so fp_report_from_bundle's signature (shared by diff and others)
 * stays as it is. */
static int report_jobs;

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

static double cell_d(const fp_csv *c, size_t r, const char *col, bool *ok)
{
    const char *v = fp_csv_cell(c, r, fp_csv_col(c, col));
    *ok = false;
    if (!v || !*v)
        return 0;
    char *end;
    double d = strtod(v, &end);
    *ok = !*end;
    return *ok ? d : 0;
}

static int read_agent(fp_signals *s, const char *path, fp_err *err)
{
    fp_csv c;
    if (fp_csv_load(path, &c, err))
        return -1;
    for (size_t r = 0; r < c.nrows; r++) {
        const char *type = fp_csv_cell(&c, r, fp_csv_col(&c, "Agent_Type"));
        if (!type || strcmp(type, "GPU"))
            continue;
        fp_soc_query q;
        memset(&q, 0, sizeof q);
        bool ok;
        q.product_name = fp_csv_cell(&c, r, fp_csv_col(&c, "Product_Name"));
        q.agent_arch = fp_csv_cell(&c, r, fp_csv_col(&c, "Name"));
        double v = cell_d(&c, r, "Device_Id", &ok);
        if (ok)
            q.device_id = (long long)v;
        v = cell_d(&c, r, "Gfx_Target_Version", &ok);
        if (ok)
            q.gfx_target_version = (long long)v;
        fp_signals_from_agent(s, &q);
        break; /* the first GPU agent: a capture targets one device */
    }
    fp_csv_free(&c);
    return 0;
}

static int read_kernel_trace(fp_signals *s, const char *path, fp_err *err)
{
    fp_csv c;
    if (!s->kernel)
        return 0;
    if (fp_csv_load(path, &c, err))
        return -1;
    int kcol = fp_csv_col(&c, "Kernel_Name");
    fp_kernel_row k;
    memset(&k, 0, sizeof k);
    k.vgpr = k.accum = k.sgpr = k.lds = k.wg = k.scratch = -1;
    double sum = 0;
    size_t last = 0;
    for (size_t r = 0; r < c.nrows; r++) {
        const char *name = fp_csv_cell(&c, r, kcol);
        if (!name || strcmp(name, s->kernel))
            continue;
        bool oa, ob;
        double a = cell_d(&c, r, "Start_Timestamp", &oa), b = cell_d(&c, r, "End_Timestamp", &ob);
        if (oa && ob && b > a) {
            sum += b - a;
            k.dispatches++;
        }
        last = r + 1;
    }
    if (k.dispatches)
        k.avg_ns = sum / (double)k.dispatches;
    if (last) {
        size_t r = last - 1;
        bool ok;
        static const char *const cols[] = {"VGPR_Count", "Accum_VGPR_Count", "SGPR_Count", "LDS_Block_Size",
                                           "Scratch_Size"};
        int *dst[] = {&k.vgpr, &k.accum, &k.sgpr, &k.lds, &k.scratch};
        /* counts outside [0, 2^24] are corrupt cells: left unknown (no int overflow) */
        for (size_t i = 0; i < 5; i++) {
            double v = cell_d(&c, r, cols[i], &ok);
            if (ok && v >= 0 && v <= FP_CSV_MAX_COUNT)
                *dst[i] = (int)v;
        }
        double x = cell_d(&c, r, "Workgroup_Size_X", &ok);
        if (ok) {
            bool oy, oz;
            double y = cell_d(&c, r, "Workgroup_Size_Y", &oy), z = cell_d(&c, r, "Workgroup_Size_Z", &oz);
            double w = x * (oy && y > 0 ? y : 1) * (oz && z > 0 ? z : 1);
            if (w > 0 && w <= FP_CSV_MAX_COUNT)
                k.wg = (int)w;
        }
        k.have_regs = k.vgpr >= 0;
        /* the launch: Grid_Size_* and Workgroup_Size_* in work-items (a missing Y/Z is 1) */
        static const char *const gcols[] = {"Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"};
        static const char *const wcols[] = {"Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z"};
        bool og, ow;
        k.have_grid = true;
        for (int i = 0; i < 3; i++) {
            double g = cell_d(&c, r, gcols[i], &og), w = cell_d(&c, r, wcols[i], &ow);
            k.grid[i] = og && g > 0 ? g : 1;
            k.wg3[i] = ow && w > 0 ? w : 1;
            if (i == 0 && (!og || !ow || g <= 0 || w <= 0 || g > 1e15 || w > FP_CSV_MAX_COUNT))
                k.have_grid = false;
        }
    }
    fp_signals_from_kernel_row(s, &k);
    fp_csv_free(&c);
    return 0;
}

void fp_report_loaded_free(fp_report_loaded *l)
{
    if (!l)
        return;
    cJSON_Delete(l->report);
    cJSON_Delete(l->bubbles);
    free(l->root);
    free(l->dispatch_dir);
    memset(l, 0, sizeof *l);
}

int fp_report_from_bundle(fp_ctx *ctx, const char *bundle, const char *tag, long long dispatch,
                          fp_report_loaded *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    if (!bundle || !fp_is_dir(bundle)) {
        fp_err_set(err, FP_BAD_ARGS, "--bundle %s is not a directory", bundle ? bundle : "(missing)");
        return fp_err_help(err, "point --bundle at a capture bundle or a ui_output_agent_*_dispatch_* dir");
    }
    fp_dispatch_ref dref;
    memset(&dref, 0, sizeof dref);
    if (fp_dispatch_resolve(bundle, tag, dispatch, &dref, err)) {
        fp_dispatch_ref_free(&dref); /* the inventory may be filled on failure */
        return -1;
    }
    cJSON *it;
    cJSON_ArrayForEach(it, dref.notes)
        if (cJSON_IsString(it))
            fp_warn(ctx, "%s", it->valuestring);

    int rc = -1;
    cJSON *capture = NULL, *counters = NULL, *tile = NULL, *bubbles = NULL, *map = NULL;
    fp_bubbles_doc bdoc;
    bool have_bubbles = false;
    memset(&bdoc, 0, sizeof bdoc);
    cJSON *missing = cJSON_CreateArray(), *available = cJSON_CreateArray();
    fp_code code;
    fp_snapshots snaps;
    fp_signals sig;
    memset(&code, 0, sizeof code);
    memset(&snaps, 0, sizeof snaps);
    fp_signals_init(&sig);
    char *kt = NULL, *ai = NULL, *case_dir = NULL, *case_rp = NULL, *tag_rp = NULL, *root_rp = NULL;
    const char *use_tag = dref.tag ? dref.tag : tag;
    out->root = strdup(bundle);
    out->dispatch_dir = strdup(dref.dir);
    out->bundle_is_dispatch = dref.bundle_is_dispatch;
    if (!out->root || !out->dispatch_dir)
        abort();

    /* the artifacts of the bundle (none when --bundle is a bare dispatch dir) */
    if (!dref.bundle_is_dispatch) {
        if (optional_json(bundle, "capture.json", &capture, err) || optional_json(bundle, "counters.json", &counters, err) ||
            optional_json(bundle, "tile.json", &tile, err) || optional_bubbles(bundle, &bdoc, &have_bubbles, err) ||
            optional_json(bundle, "map.json", &map, err))
            goto done;
    }
    if (capture) {
        if (fp_signals_from_capture(&sig, capture, use_tag, err))
            goto done;
        cJSON_AddItemToArray(available, cJSON_CreateString("capture.json"));
    } else {
        note_missing(missing, "capture.json");
    }
    /* bubbles.json must describe the dispatch being reported, else recompute */
    if (have_bubbles) {
        const char *bn = bdoc.dispatch.name;
        if (!bn || strcmp(bn, dref.name)) {
            fp_warn(ctx, "bubbles.json describes %s, not the resolved dispatch %s: recomputed", bn ? bn : "(unnamed)",
                    dref.name);
            fp_bubbles_doc_free(&bdoc);
            have_bubbles = false;
        }
    }
    if (have_bubbles) {
        cJSON_AddItemToArray(available, cJSON_CreateString("bubbles.json"));
    } else {
        fp_bubbles b;
        memset(&b, 0, sizeof b);
        fp_progress(ctx, "report: analysing %s", dref.dir);
        if (fp_bubbles_analyze_jobs(dref.dir, FP_RANK_EXPOSED, &b, bub_warn, ctx, report_jobs, err)) {
            fp_bubbles_free(&b);
            goto done;
        }
        fp_bubbles_doc_build(&b, &bdoc);
        fp_bubbles_free(&b);
        fp_model_round(&fp_bubbles_schema, &bdoc); /* the numbers a reader of the file would see */
        note_missing(missing, "bubbles.json");
    }
    if (fp_snapshots_load(dref.dir, &snaps, err)) {
        /* snippets are a nicety: a broken snapshots.json only loses them */
        fp_warn(ctx, "snapshots.json unreadable (%s): no source snippets", err->message);
        fp_err_clear(err);
        memset(&snaps, 0, sizeof snaps);
    }
    sig.snaps = &snaps;
    if (fp_signals_from_bubbles(&sig, &bdoc, err))
        goto done;
    if (map) {
        if (fp_signals_from_map(&sig, map, err))
            goto done;
        cJSON_AddItemToArray(available, cJSON_CreateString("map.json"));
    }
    else
        note_missing(missing, "map.json");
    if (counters) {
        if (fp_signals_from_counters(&sig, counters, err))
            goto done;
        cJSON_AddItemToArray(available, cJSON_CreateString("counters.json"));
    } else {
        note_missing(missing, "counters.json");
    }
    if (tile) {
        if (fp_signals_from_tile(&sig, tile, err))
            goto done;
        cJSON_AddItemToArray(available, cJSON_CreateString("tile.json"));
    } else {
        note_missing(missing, "tile.json");
    }
    if (fp_code_load(dref.dir, &code, err))
        goto done;
    fp_signals_from_code(&sig, &code);

    /* rocprofv3 CSVs: rocprof/<tag>/, rocprof/, and beside a bare dispatch dir
     * (<case>/att/<dispatch> -> <case>/rocprof/) */
    case_dir = fp_path_join(dref.dir, "../..");
    case_rp = fp_path_join(case_dir, "rocprof");
    root_rp = fp_path_join(bundle, "rocprof");
    tag_rp = use_tag && fp_is_plain_name(use_tag) ? fp_path_join(root_rp, use_tag) : NULL;
    const char *dirs[] = {tag_rp, root_rp, dref.bundle_is_dispatch ? case_rp : NULL};
    kt = find_csv(dirs, 3, "kernel_trace.csv");
    ai = find_csv(dirs, 3, "agent_info.csv");
    if (ai) {
        if (read_agent(&sig, ai, err))
            goto done;
        cJSON_AddItemToArray(available, cJSON_CreateString("agent_info.csv"));
    } else {
        note_missing(missing, "agent_info.csv");
    }
    if (kt) {
        if (read_kernel_trace(&sig, kt, err))
            goto done;
        cJSON_AddItemToArray(available, cJSON_CreateString("kernel_trace.csv"));
    } else {
        note_missing(missing, "kernel_trace.csv");
    }
    fp_signals_derive(&sig);
    if (!sig.arch)
        fp_warn(ctx, "architecture unknown: no capture.json arch and no agent_info.csv");

    fp_report_in in;
    memset(&in, 0, sizeof in);
    in.sig = &sig;
    /* bridge: until report.c reads fp_bubbles_doc */
    bubbles = fp_model_write(&fp_bubbles_schema, &bdoc);
    in.bubbles = bubbles;
    in.snaps = &snaps;
    in.code = &code;
    in.dispatch_name = dref.name;
    in.tag = dref.tag;
    in.missing = missing;
    in.available = available;
    out->report = fp_report_build(&in);
    out->bubbles = bubbles;
    bubbles = NULL;
    rc = 0;
done:
    if (rc)
        fp_report_loaded_free(out);
    cJSON_Delete(capture);
    cJSON_Delete(counters);
    cJSON_Delete(tile);
    cJSON_Delete(bubbles);
    fp_bubbles_doc_free(&bdoc);
    cJSON_Delete(map);
    cJSON_Delete(missing);
    cJSON_Delete(available);
    fp_code_free(&code);
    fp_snapshots_free(&snaps);
    fp_signals_free(&sig);
    free(kt);
    free(ai);
    free(case_dir);
    free(case_rp);
    free(tag_rp);
    free(root_rp);
    fp_dispatch_ref_free(&dref);
    return rc;
}

static int write_text(const char *dir, const char *name, const fp_sb *sb, cJSON *arts, const char *key, fp_err *err)
{
    char *p = fp_path_join(dir, name);
    int rc = fp_write_atomic(p, sb->buf, sb->len, err);
    if (rc == 0) {
        char *abs = fp_path_abs(p);
        fp_json_add_str(arts, key, abs);
        free(abs);
    }
    free(p);
    return rc;
}

static int write_json(const char *dir, const char *name, const cJSON *j, cJSON *arts, const char *key, fp_err *err)
{
    char *p = fp_path_join(dir, name);
    int rc = fp_json_write_file(p, j, err);
    if (rc == 0) {
        char *abs = fp_path_abs(p);
        fp_json_add_str(arts, key, abs);
        free(abs);
    }
    free(p);
    return rc;
}

/* The flamegraph `map` wrote, embedded in the html when present. */
static char *read_flamegraph(const char *root)
{
    char *p = fp_path_join(root, "flamegraph.svg");
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err e;
    memset(&e, 0, sizeof e);
    char *svg = NULL;
    if (fp_is_file(p) && fp_read_file(p, &sb, &e) == 0 && strstr(sb.buf, "<svg"))
        svg = fp_sb_detach(&sb);
    fp_sb_free(&sb);
    fp_err_clear(&e);
    free(p);
    return svg;
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
    report_jobs = (int)a->jobs;
    if (fp_report_from_bundle(ctx, ctx->bundle, a->tag, a->dispatch, &l, err))
        return -1;
    cJSON *r = l.report;
    const char *dest = a->out_dir ? a->out_dir : (l.bundle_is_dispatch ? NULL : l.root);
    cJSON *arts = cJSON_CreateObject();
    int rc = 0;
    if (dest) {
        fp_sb md, html;
        fp_sb_init(&md);
        fp_sb_init(&html);
        fp_report_markdown(r, &md);
        cJSON *hl = fp_report_headlines(r);
        rc = fp_mkdir_p(dest, err);
        if (!rc)
            rc = write_json(dest, "report.json", r, arts, "report_json", err);
        if (!rc)
            rc = write_json(dest, "headlines.json", hl, arts, "headlines_json", err);
        if (!rc)
            rc = write_text(dest, "REPORT.md", &md, arts, "report_md", err);
        if (!rc && !a->no_html) {
            char *svg = read_flamegraph(l.root);
            fp_report_html(r, svg, &html);
            free(svg);
            rc = write_text(dest, "report.html", &html, arts, "report_html", err);
        }
        cJSON_Delete(hl);
        fp_sb_free(&md);
        fp_sb_free(&html);
    } else {
        fp_warn(ctx, "--bundle is a dispatch dir: nothing written (pass --out-dir DIR to write the report files)");
    }
    if (rc) {
        cJSON_Delete(arts);
        fp_report_loaded_free(&l);
        return -1;
    }

    ctx->data = cJSON_CreateObject();
    static const char *const keys[] = {"kernel", "arch", "product", "bound_type", "headline", "optimal", "summary"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, keys[i]);
        cJSON_AddItemToObject(ctx->data, keys[i], v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
    }
    cJSON *recs = cJSON_AddArrayToObject(ctx->data, "recommendations");
    const cJSON *rec;
    cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(r, "recommendations"))
    {
        cJSON *o = cJSON_CreateObject();
        static const char *const rk[] = {"rank", "rule", "bubble_class", "est_gain_pct", "confidence_label", "knob"};
        for (size_t i = 0; i < sizeof rk / sizeof *rk; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, rk[i]);
            cJSON_AddItemToObject(o, rk[i], v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
        }
        const cJSON *hot = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "evidence"), "hottest");
        fp_json_add_str(o, "source", cJSON_IsObject(hot) ? fp_json_get_str(hot, "source") : NULL);
        fp_json_add_str(o, "acceptance",
                        fp_json_get_str(cJSON_GetObjectItemCaseSensitive(rec, "acceptance"), "text"));
        cJSON_AddItemToArray(recs, o);
    }
    cJSON_AddItemToObject(ctx->data, "missing_evidence",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
                                              cJSON_GetObjectItemCaseSensitive(r, "evidence"), "missing"),
                                          1));
    cJSON_AddItemToObject(ctx->data, "artifacts", arts);
    fp_report_table(r, &ctx->table);

    bool none = !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "optimal")) && fp_report_nrecs(r) == 0;
    fp_report_loaded_free(&l);
    if (none) {
        fp_err_set(err, FP_NO_RECOMMENDATION, "no rule fired: no bubble crossed its threshold");
        fp_err_help(err, "the report files were still written; see REPORT.md section 4 for the stall taxonomy");
        fp_err_extra(err, "artifacts", cJSON_Duplicate(arts, 1));
        return -1;
    }
    return 0;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule report_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR}, {.opt = "out-dir", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

const fp_command fp_cmd_report = {
    .name = "report",
    .summary = "ranked knob recommendations with evidence: report.json, headlines.json, REPORT.md, report.html",
    .usage = "flyprof report --bundle DIR [--tag TAG] [--dispatch N] [--out-dir DIR] [--no-html] [--jobs N]",
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
};
