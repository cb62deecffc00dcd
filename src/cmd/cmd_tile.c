/*
 * cmd_tile.c - `flyprof tile`: the GEMM tile advisor (docs/commands/tile.md).
 *
 * Story: resolve the GPU (flags, else the bundle's agent info / capture arch)
 * -> if --bm/--bn/--bk are given, evaluate that tile; otherwise search a small
 * grid of tiles -> if the bundle holds the kernel's kernel trace, evaluate the
 * real kernel's resources and grid as well -> tile.json in the bundle. Every
 * answer is labelled a heuristic for GEMM-shaped kernels.
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/agent_info.h"
#include "flyprof/bundle_path.h"
#include "flyprof/bound.h"
#include "flyprof/bundle.h"
#include "flyprof/capture_doc.h"
#include "flyprof/cli.h"
#include "flyprof/counters.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/kernel_trace.h"
#include "flyprof/occupancy.h"
#include "flyprof/soc.h"
#include "flyprof/tile.h"
#include "flyprof/tile_doc.h"

#include <cjson/cJSON.h>

#define MAX_CANDIDATES 5

typedef struct tile_args {
    const char *shape;
    const char *dtype;
    const char *out_dtype;
    long long bm, bn, bk, buffers, wg_size;
    const char *gpu_name;
    const char *arch;
    double sclk_mhz;
    double hbm_gbs;
    const char *kernel;
    const char *tag;
} tile_args;

static const fp_opt tile_opts[] = {
    {"shape", 0, FP_OPT_STR, offsetof(tile_args, shape), "M,N,K",
     "GEMM shape (also MxNxK; a trailing dtype token like ,bf16 sets --dtype)", NULL, NULL, 0, 0},
    {"dtype", 0, FP_OPT_STR, offsetof(tile_args, dtype), "T", "input data type (fp4 fp6 fp8 int8 fp16 bf16 tf32 fp32 fp64)",
     NULL, NULL, 0, 0},
    {"out-dtype", 0, FP_OPT_STR, offsetof(tile_args, out_dtype), "T", "output data type (default: --dtype)", NULL,
     NULL, 0, 0},
    {"bm", 0, FP_OPT_INT, offsetof(tile_args, bm), "N", "tile rows (with --bn and --bk: evaluate this tile)", NULL,
     NULL, 0, 4096},
    {"bn", 0, FP_OPT_INT, offsetof(tile_args, bn), "N", "tile columns", NULL, NULL, 0, 4096},
    {"bk", 0, FP_OPT_INT, offsetof(tile_args, bk), "N", "tile depth (K per step)", NULL, NULL, 0, 4096},
    {"buffers", 0, FP_OPT_INT, offsetof(tile_args, buffers), "N", "LDS buffers (2 = double buffering)", "2", NULL,
     1, 8},
    {"wg-size", 0, FP_OPT_INT, offsetof(tile_args, wg_size), "N", "work-items per workgroup", "256", NULL, 64,
     1024},
    {"gpu-name", 0, FP_OPT_STR, offsetof(tile_args, gpu_name), "NAME",
     "GPU product (MI300X, MI325X, MI350X, MI355X); default: the bundle's agent info", NULL, NULL, 0, 0},
    {"arch", 0, FP_OPT_STR, offsetof(tile_args, arch), "GFX", "architecture (gfx942, gfx950)", NULL, NULL, 0, 0},
    {"sclk-mhz", 0, FP_OPT_DOUBLE, offsetof(tile_args, sclk_mhz), "MHZ", "override the peak engine clock", NULL,
     NULL, 0, 0},
    {"hbm-gbs", 0, FP_OPT_DOUBLE, offsetof(tile_args, hbm_gbs), "GBS", "override the peak HBM bandwidth", NULL,
     NULL, 0, 0},
    {"kernel", 'k', FP_OPT_STR, offsetof(tile_args, kernel), "NAME",
     "kernel whose real resources to evaluate from the bundle's kernel trace (default: capture.json's)", NULL,
     NULL, 0, 0},
    {"tag", 0, FP_OPT_STR, offsetof(tile_args, tag), "TAG", "capture tag holding the kernel trace (default big)",
     NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* "M,N,K[,dtype]" or "MxNxK": integers in order, one optional dtype word. */
static int parse_shape(const char *s, long long dims[3], const char **dtype_tok, char *tokbuf, size_t toklen,
                       fp_err *err)
{
    int nd = 0;
    *dtype_tok = NULL;
    const char *p = s;
    while (*p) {
        size_t len = strcspn(p, ",xX");
        /* 'x' separates numbers, but may also be part of a dtype (xf32): split only between digits */
        if (p[len] && (p[len] == 'x' || p[len] == 'X') && !(len > 0 && isdigit((unsigned char)p[len - 1])))
            len += strcspn(p + len, ",");
        char tok[64];
        if (len == 0 || len >= sizeof tok)
            goto bad;
        memcpy(tok, p, len);
        tok[len] = '\0';
        long long v;
        if (fp_parse_ll(tok, &v) == 0) {
            if (nd == 3 || v <= 0 || v > FP_TILE_MAX_DIM)
                goto bad;
            dims[nd++] = v;
        } else if (!*dtype_tok && len < toklen) {
            memcpy(tokbuf, tok, len + 1);
            *dtype_tok = tokbuf;
        } else {
            goto bad;
        }
        p += len;
        if (*p)
            p++;
    }
    if (nd == 3)
        return 0;
bad:
    fp_err_set(err, FP_USAGE, "--shape '%s': expected M,N,K (positive integers <= %lld), optionally ,DTYPE", s,
               FP_TILE_MAX_DIM);
    return -1;
}

/* The bundle's kernel trace CSV for the tag (path malloc'd) or NULL. */
static char *trace_csv(fp_ctx *ctx, const fp_capture_doc *cap, const char *tag)
{
    const fp_cap_tag *t = fp_bundle_capture_tag_doc(cap, tag);
    const char *rel = t && t->done ? t->done->kernel_trace_csv : NULL;
    if (!rel || rel[0] == '/' || strstr(rel, ".."))
        return NULL;
    return fp_path_join(ctx->bundle, rel);
}

/* A count of the trace row: the integer when it is one and >= 0, else -1. */
static long long count_of(const fp_rp_num *n)
{
    long long v;
    return fp_rp_int(n, &v) && v >= 0 ? v : -1;
}

/* Work-items per workgroup and workgroups of the launch, from the trace row's
 * workgroup and grid sizes; false when a dimension is missing or implausible
 * (the products are then partial and unused). */
static bool launch_geometry(const fp_kt_row *row, long long *wgsize, long long *wgs)
{
    bool geom = true;
    *wgsize = *wgs = 1;
    for (int i = 0; i < 3; i++) {
        long long wg = count_of(&row->wg[i]), gr = count_of(&row->grid[i]);
        if (wg <= 0 || gr <= 0 || wg > 1024 || gr > (1LL << 40)) {
            geom = false;
            continue;
        }
        *wgsize *= wg;
        *wgs *= (gr + wg - 1) / wg;
    }
    return geom;
}

/* How the real launch fills the CUs at its occupancy (only with a known product). */
static void real_grid(fp_tile_doc_real *o, const fp_soc_sel *soc, const fp_occ_out *oo, long long wgs)
{
    if (!soc->product)
        return;
    fp_grid g;
    int per_cu = oo->waves_per_wg > 0 ? oo->occupancy * soc->limits->simds_per_cu / oo->waves_per_wg : 1;
    fp_grid_fill(wgs, soc->product->cus, per_cu, &g);
    o->grid = calloc(1, sizeof *o->grid);
    if (!o->grid)
        abort();
    fp_grid_to_doc(&g, o->grid);
}

/* The tile the launch implies for the GEMM shape: one workgroup per output
 * tile, so BM*BN = M*N / workgroups. */
static fp_tile_doc_implied *implied_tile(const long long dims[3], long long wgs)
{
    double area = (double)dims[0] * (double)dims[1] / (double)wgs;
    fp_tile_doc_implied *im = calloc(1, sizeof *im);
    if (!im)
        abort();
    *im = (fp_tile_doc_implied){area, sqrt(area)};
    return im;
}

/* Evaluate the real kernel from its first kernel-trace row. NULL when the
 * trace has no row of the kernel. */
static fp_tile_doc_real *real_kernel(fp_ctx *ctx, const char *path, const char *kernel, const fp_soc_sel *soc,
                                     const long long dims[3], bool have_shape)
{
    fp_kernel_trace c = {0};
    fp_err err = {0};
    if (fp_kernel_trace_load(path, &c, &err)) {
        fp_warn(ctx, "kernel trace %s not used: %s", path, err.message);
        fp_err_clear(&err);
        return NULL;
    }
    fp_kt_pick pk;
    fp_kt_pick_rows(&c, kernel, FP_KT_CONTAINS, FP_KT_TIME_ANY, &pk);
    size_t count = pk.n;
    if (pk.n == 0) {
        fp_warn(ctx, "kernel '%s' is not in %s; only the generic tile model is shown", kernel, path);
        fp_kernel_trace_free(&c);
        return NULL;
    }
    const fp_kt_row *row = &c.rows[pk.first];
    long long vg = count_of(&row->vgpr), ac = count_of(&row->accum_vgpr), sg = count_of(&row->sgpr),
              lds = count_of(&row->lds_block_size);
    long long wgs, wgsize;
    bool geom = launch_geometry(row, &wgsize, &wgs);
    if (vg < 0 || sg < 0 || lds < 0 || vg > 512 || !geom) {
        fp_warn(ctx, "the kernel trace row of '%s' lacks register, LDS or launch columns; real-kernel evaluation "
                     "skipped",
                kernel);
        fp_kernel_trace_free(&c);
        return NULL;
    }
    fp_tile_doc_real *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->kernel = fp_model_strdup(row->kernel_name);
    o->source = fp_model_strdup(path);
    o->dispatches_in_trace = (int64_t)count;
    bool corrected = false;
    int combined = fp_occ_csv_combined_vgpr(soc->limits, (int)vg, ac < 0 ? 0 : (int)ac, false, &corrected);
    fp_occ_in oi = {.arch_vgpr = corrected ? combined : (int)vg, .accum_vgpr = corrected ? 0 : (int)(ac < 0 ? 0 : ac),
                    .lds_bytes = (int)(lds > (1 << 24) ? (1 << 24) : lds), .sgpr = (int)(sg > 4096 ? 4096 : sg),
                    .wg_size = (int)wgsize};
    fp_occ_out oo;
    fp_occ_compute(soc->limits, &oi, &oo);
    o->resources = (fp_tile_doc_resources){.vgpr_count = vg, .accum_vgpr_count = ac < 0 ? 0 : ac,
                                           .combined_vgpr = oo.total_vgpr, .gfx950_undercount_corrected = corrected,
                                           .sgpr_count = sg, .lds_bytes_static = lds, .wg_size = wgsize,
                                           .workgroups = wgs};
    o->occupancy = (fp_tile_doc_real_occ){
        .waves_per_simd = oo.occupancy, .waves_per_cu = (int64_t)oo.occupancy * soc->limits->simds_per_cu,
        .limiter = fp_model_strdup(fp_occ_limiter_name(oo.bound_by)), .vgpr_limit = oo.vgpr_limit,
        .lds_limit = oo.lds_limit, .sgpr_limit = oo.sgpr_limit,
        .next_vgpr_target = oo.next_occ ? fp_optd_of(oo.next_vgpr_target) : fp_optd_none()};
    real_grid(o, soc, &oo, wgs);
    if (have_shape && wgs > 0)
        o->implied = implied_tile(dims, wgs);
    o->note = fp_model_strdup("LDS_Block_Size is the static LDS only; dynamic LDS is not in the kernel trace");
    fp_kernel_trace_free(&c);
    return o;
}

static void soc_summary(fp_soc_doc *d, const fp_soc_sel *soc, fp_dtype t)
{
    fp_soc_to_doc(soc, d);
    d->dtype = fp_model_strdup(fp_dtype_name(t));
    double p = fp_soc_peak_gflops(soc, t);
    if (p > 0) {
        d->peak = calloc(1, sizeof *d->peak);
        if (!d->peak)
            abort();
        *d->peak = (fp_soc_doc_peak){p, fp_soc_ridge(soc, t)};
    }
}

/* One evaluated tile of the (rounded) document. */
static void table_eval(fp_sb *t, const char *title, const fp_tile_doc_eval *e)
{
    const fp_tile_doc_tile *tl = &e->tile;
    const fp_tile_doc_roofline *r = &e->roofline;
    fp_sb_addf(t, "%s: %dx%dx%d, %d buffer(s), %d work-items\n", title, (int)tl->BM, (int)tl->BN, (int)tl->BK,
               (int)tl->buffers, (int)tl->wg_size);
    fp_sb_addf(t, "  LDS        %d of %d bytes%s\n", (int)e->lds.bytes, (int)e->lds.limit,
               e->lds.fits ? "" : "  OVERFLOW");
    fp_sb_addf(t, "  VGPRs      ~%d arch + %d accum = %d allocated%s\n", (int)e->vgpr_estimate.arch,
               (int)e->vgpr_estimate.accum, (int)e->vgpr_estimate.total_alloc,
               e->vgpr_estimate.fits ? "" : "  TOO MANY");
    fp_sb_addf(t, "  occupancy  %d waves/SIMD, %d waves/CU (%s-limited)\n", (int)e->occupancy.waves_per_simd,
               (int)e->occupancy.waves_per_cu, e->occupancy.limiter);
    fp_sb_addf(t, "  intensity  %.1f FLOP/B per K step", r->ai_tile);
    if (r->traffic)
        fp_sb_addf(t, ", %.1f FLOP/B whole GEMM without L2 reuse", r->traffic->ai_traffic);
    if (r->ridge.known)
        fp_sb_addf(t, " vs ridge %.1f: %s", r->ridge.v, r->regime);
    fp_sb_addc(t, '\n');
    if (e->grid)
        fp_sb_addf(t, "  grid       %s: %s\n", e->grid->verdict, e->grid->detail);
}

/* The table: the tile evaluated or recommended, the real kernel (doc rounded). */
static void render_table(fp_sb *t, const fp_tile_doc *doc)
{
    if (doc->eval)
        table_eval(t, "tile", doc->eval->evaluated);
    else if (doc->search && doc->search->recommended)
        table_eval(t, "recommended", doc->search->recommended);
    const fp_tile_doc_real *rk = doc->real_kernel;
    if (rk) {
        fp_sb_addf(t, "real kernel %s: %d waves/SIMD (%s-limited)", rk->kernel, (int)rk->occupancy.waves_per_simd,
                   rk->occupancy.limiter);
        if (rk->grid)
            fp_sb_addf(t, ", grid %s: %s", rk->grid->verdict, rk->grid->detail);
        fp_sb_addc(t, '\n');
    }
    fp_sb_adds(t, "(heuristic for GEMM-shaped kernels)\n");
}

/* What the flags ask for: the GEMM shape, its data types, one tile or a search. */
typedef struct tile_req {
    long long dims[3];
    bool have_shape;
    fp_dtype dt, odt;
    bool one_tile; /* --bm --bn --bk given: evaluate that tile, else search */
} tile_req;

static int parse_request(const tile_args *a, tile_req *rq, fp_err *err)
{
    *rq = (tile_req){.have_shape = false};
    const char *shape_dtype = NULL;
    char tokbuf[32];
    if (a->shape) {
        if (parse_shape(a->shape, rq->dims, &shape_dtype, tokbuf, sizeof tokbuf, err))
            return -1;
        rq->have_shape = true;
    }
    const char *dts = a->dtype ? a->dtype : shape_dtype ? shape_dtype : "bf16";
    if (fp_dtype_parse(dts, &rq->dt, err) || fp_dtype_parse(a->out_dtype ? a->out_dtype : dts, &rq->odt, err))
        return -1;
    int given = (a->bm > 0) + (a->bn > 0) + (a->bk > 0);
    if (given != 0 && given != 3)
        return fp_err_set(err, FP_USAGE, "--bm, --bn and --bk go together (all three to evaluate a tile, none to "
                                         "search)");
    rq->one_tile = given == 3;
    return 0;
}

/* The bundle: capture.json (arch, kernel, kernel trace; a broken one is an
 * error) and the agent_info.csv beside the trace (best effort). */
static int load_bundle(fp_ctx *ctx, const char *tag, fp_capture_doc *cap, char **trace, fp_pmc_agent *agent,
                       fp_err *err)
{
    if (!ctx->bundle)
        return 0;
    bool have_cap = false;
    char *cp = fp_bundle_path(ctx->bundle, FP_ART_CAPTURE);
    if (fp_is_file(cp)) {
        if (fp_model_read_file(&fp_capture_schema, cp, cap, err)) {
            free(cp);
            return -1;
        }
        have_cap = true;
    }
    free(cp);
    *trace = have_cap ? trace_csv(ctx, cap, tag) : NULL;
    char *ai = *trace ? fp_agent_info_beside(*trace, "kernel_trace.csv") : NULL;
    if (ai) {
        fp_err e2 = {0};
        if (fp_is_file(ai))
            fp_pmc_load_agent_info(agent, ai, &e2);
        fp_err_clear(&e2);
        free(ai);
    }
    return 0;
}

/* The GPU: flags, else the agent info, else capture.json's arch. The tile model
 * cannot run without the arch limits; what is missing beyond them is warned. */
static int resolve_gpu(fp_ctx *ctx, const tile_args *a, const fp_pmc_agent *agent, const fp_capture_doc *cap,
                       fp_dtype dt, fp_soc_sel *soc, fp_err *err)
{
    fp_soc_query q = {.gpu_name = a->gpu_name, .arch = a->arch, .sclk_mhz = a->sclk_mhz, .hbm_gbs = a->hbm_gbs,
                      .product_name = agent->product_name, .device_id = agent->device_id,
                      .gfx_target_version = agent->gfx_target_version,
                      .agent_arch = agent->name ? agent->name : cap->kernel ? cap->kernel->arch : NULL};
    if (fp_soc_resolve(&q, soc, err))
        return -1;
    if (!soc->limits) {
        fp_err_set(err, FP_BAD_ARGS, "the GPU is unknown: the tile model needs its LDS, registers and CU count");
        return fp_err_help(err, "pass --gpu-name (%s), or --arch gfx942|gfx950, or a bundle with agent info",
                           fp_soc_product_list());
    }
    if (!soc->product)
        fp_warn(ctx, "GPU product unknown (only %s): no CU count or peaks, so no grid fill and no ridge; pass "
                     "--gpu-name",
                soc->arch);
    if (soc->rates && soc->rates->matrix_flop_clk_cu[dt] == 0)
        fp_warn(ctx, "%s has no %s matrix peak in the SoC table: the ridge is unknown", soc->arch, fp_dtype_name(dt));
    return 0;
}

/* tile.json's fixed part: schema, the heuristic's label, the shape, the GPU. */
static void doc_header(fp_tile_doc *doc, const tile_req *rq, const fp_soc_sel *soc)
{
    doc->schema = 1;
    doc->confidence = fp_model_strdup("heuristic");
    doc->note = fp_model_strdup("a model for GEMM-shaped kernels: one 32-bit accumulator per output element, one "
                                "register stage of A/B, one workgroup per output tile, no L2 reuse between tiles; "
                                "use it to compare tiles, not to predict time");
    if (rq->have_shape) {
        doc->shape.dims = calloc(1, sizeof *doc->shape.dims);
        if (!doc->shape.dims)
            abort();
        *doc->shape.dims = (fp_tile_doc_dims){rq->dims[0], rq->dims[1], rq->dims[2]};
    }
    doc->shape.dtype = fp_model_strdup(fp_dtype_name(rq->dt));
    doc->shape.out_dtype = fp_model_strdup(fp_dtype_name(rq->odt));
    soc_summary(&doc->soc, soc, rq->dt);
}

/* --bm/--bn/--bk: that tile, and its bound when the ridge is known. */
static fp_tile_doc_evaluated *evaluate_one(const fp_soc_sel *soc, const fp_tile_in *in)
{
    fp_tile_eval e;
    fp_tile_evaluate(soc, in, &e);
    fp_tile_doc_evaluated *ev = calloc(1, sizeof *ev);
    if (!ev)
        abort();
    ev->evaluated = calloc(1, sizeof *ev->evaluated);
    if (!ev->evaluated)
        abort();
    fp_tile_eval_to_doc(&e, ev->evaluated);
    fp_bound_in bin;
    fp_bound_in_init(&bin);
    bin.ai = fp_some(e.ai_traffic > 0 ? e.ai_traffic : e.ai_tile);
    if (e.ridge > 0)
        bin.ridge_ai = fp_some(e.ridge);
    fp_bound_result br;
    fp_bound_classify(&bin, &br);
    if (e.ridge > 0) {
        ev->bound = calloc(1, sizeof *ev->bound);
        if (!ev->bound)
            abort();
        fp_bound_to_doc(&br, ev->bound);
    }
    return ev;
}

/* No tile given: the best MAX_CANDIDATES of the search grid, the first recommended. */
static fp_tile_doc_search *search_tiles(fp_ctx *ctx, const fp_soc_sel *soc, const fp_tile_in *in)
{
    fp_tile_eval c[MAX_CANDIDATES];
    size_t considered = 0;
    size_t n = fp_tile_search(soc, in, c, MAX_CANDIDATES, &considered);
    fp_tile_doc_search *sr = calloc(1, sizeof *sr);
    if (!sr)
        abort();
    sr->tiles_considered = (int64_t)considered;
    for (size_t i = 0; i < n; i++)
        fp_tile_eval_to_doc(&c[i], fp_model_push((void **)&sr->candidates, &sr->ncandidates, sizeof *sr->candidates));
    if (n) {
        sr->recommended = calloc(1, sizeof *sr->recommended);
        if (!sr->recommended)
            abort();
        fp_model_copy(&fp_tile_eval_doc_schema, sr->recommended, &sr->candidates[0]);
    } else {
        fp_warn(ctx, "no tile of the search grid fits LDS and registers with one wave per SIMD");
    }
    return sr;
}

/* tile.json into the bundle (when there is one), then the envelope's data. */
static int write_outputs(fp_ctx *ctx, fp_tile_doc *doc, fp_err *err)
{
    if (ctx->bundle) {
        char *out = fp_bundle_path(ctx->bundle, FP_ART_TILE);
        cJSON *file = fp_model_write(&fp_tile_doc_schema, doc);
        int wrc = fp_bundle_write_json(out, file, ctx->bundle, err);
        cJSON_Delete(file);
        if (!wrc)
            doc->artifact = fp_model_strdup(out);
        free(out);
        if (wrc)
            return -1;
    }
    ctx->data = fp_model_write(&fp_tile_doc_schema, doc);
    return 0;
}

static int tile_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos;
    (void)npos;
    tile_args *a = argsp;
    int rc = -1;
    fp_capture_doc cap = {0};
    fp_tile_doc doc = {0};
    char *trace = NULL;
    fp_pmc_agent agent = {0};
    agent.device_id = agent.gfx_target_version = agent.cu_count = agent.num_xcc = -1;
    tile_req rq;
    fp_soc_sel soc;
    if (parse_request(a, &rq, err) || load_bundle(ctx, a->tag, &cap, &trace, &agent, err) ||
        resolve_gpu(ctx, a, &agent, &cap, rq.dt, &soc, err))
        goto out;

    doc_header(&doc, &rq, &soc);
    fp_tile_in in = {.m = rq.dims[0], .n = rq.dims[1], .k = rq.dims[2], .dtype = rq.dt, .out_dtype = rq.odt,
                     .bm = (int)a->bm, .bn = (int)a->bn, .bk = (int)a->bk, .buffers = (int)a->buffers,
                     .wg_size = (int)a->wg_size};
    if (rq.one_tile)
        doc.eval = evaluate_one(&soc, &in);
    else
        doc.search = search_tiles(ctx, &soc, &in);

    const char *kernel = a->kernel ? a->kernel : cap.kernel ? cap.kernel->kernel : NULL;
    if (trace && kernel)
        doc.real_kernel = real_kernel(ctx, trace, kernel, &soc, rq.dims, rq.have_shape);
    else if (a->kernel && ctx->bundle)
        fp_warn(ctx, "no kernel trace in the bundle: the real kernel '%s' is not evaluated", a->kernel);
    /* the table shows the numbers of the file */
    fp_model_round(&fp_tile_doc_schema, &doc);
    render_table(&ctx->table, &doc);
    rc = write_outputs(ctx, &doc, err);
out:
    fp_tile_doc_free(&doc);
    fp_capture_free(&cap);
    free(trace);
    free(agent.product_name);
    free(agent.name);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule tile_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const tile_examples[] = {
    "flyprof tile --shape 4096,4096,4096 --dtype bf16 --gpu-name MI350X",
    "flyprof tile --shape 32768,8192,8192 --bm 256 --bn 128 --bk 64 --arch gfx950",
    NULL,
};

const fp_command fp_cmd_tile = {
    .examples = tile_examples,
    .name = "tile",
    .summary = "GEMM tile advisor: LDS, VGPR estimate and occupancy, intensity vs ridge, grid fill (a heuristic)",
    .usage = "flyprof tile [--shape M,N,K] [--dtype T] [--bm N --bn N --bk N] [--buffers N] [--gpu-name NAME] "
             "[--bundle DIR]",
    .details = "Evaluates one BM x BN x BK tile (or searches a small grid of tiles) for a GEMM on the chosen GPU: "
               "LDS bytes against the per-CU limit, an estimate of registers and the occupancy that follows from "
               "the unified 512-entry VGPR pool, arithmetic intensity against the ridge, and how the tiles fill "
               "the compute units. With a bundle whose kernel trace holds the kernel, the real kernel's registers, "
               "LDS and grid are evaluated too. Writes <bundle>/tile.json.",
    .opts = tile_opts,
    .args_size = sizeof(tile_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = tile_run,
    .paths = tile_paths,
};
