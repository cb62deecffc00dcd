/*
 * tile.c - GEMM tile advisor math (see tile.h for the model and its limits).
 *
 * Differences from the prototype (flyprof-spec.md §6.3) on purpose:
 *  - occupancy comes from the one occupancy model (unified 512-entry pool,
 *    LDS per CU, workgroup waves), not a second copy;
 *  - the per-K-step AI no longer charges the output tile on every K step;
 *    with a shape the whole-GEMM traffic AI is used;
 *  - tiles == CUs is "full", not "underfilled-0pct";
 *  - the search score rewards what matters (AI toward the ridge, CU balance,
 *    two waves per SIMD) instead of a +1000 term no bf16 tile can reach.
 */
#include "flyprof/tile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/tile_doc.h"

static long long ceil_div(long long a, long long b)
{
    return b > 0 ? (a + b - 1) / b : 0;
}

void fp_grid_fill(long long tiles, int cus, int wgs_per_cu, fp_grid *g)
{
    *g = (fp_grid){0};
    g->tiles = tiles;
    g->cus = cus;
    g->wgs_per_cu = wgs_per_cu < 1 ? 1 : wgs_per_cu;
    if (tiles <= 0 || cus <= 0) {
        g->verdict = "underfilled";
        snprintf(g->detail, sizeof g->detail, "no tiles");
        return;
    }
    g->per_cu_max = ceil_div(tiles, cus);
    g->rounds = ceil_div(tiles, (long long)cus * g->wgs_per_cu);
    g->efficiency = (double)tiles / ((double)cus * (double)g->per_cu_max);
    if (tiles < cus) {
        g->verdict = "underfilled";
        snprintf(g->detail, sizeof g->detail, "%lld tiles on %d CUs: %lld CUs (%.0f%%) idle", tiles, cus,
                 cus - tiles, 100.0 * (double)(cus - tiles) / cus);
    } else if (tiles % cus == 0) {
        g->verdict = "full";
        snprintf(g->detail, sizeof g->detail, "%lld tiles = %lld per CU on every one of %d CUs", tiles,
                 g->per_cu_max, cus);
    } else if (g->efficiency >= FP_GRID_BALANCED) {
        g->verdict = "balanced";
        snprintf(g->detail, sizeof g->detail, "%lld tiles on %d CUs: the busiest CU runs %lld, %.0f%% efficiency",
                 tiles, cus, g->per_cu_max, 100.0 * g->efficiency);
    } else {
        g->verdict = "tail";
        long long last = tiles - (g->per_cu_max - 1) * cus;
        snprintf(g->detail, sizeof g->detail,
                 "%lld tiles on %d CUs: the last per-CU round uses %lld CUs (%.0f%%), %.0f%% efficiency", tiles,
                 cus, last, 100.0 * (double)last / cus, 100.0 * g->efficiency);
    }
}

void fp_tile_evaluate(const fp_soc_sel *soc, const fp_tile_in *in, fp_tile_eval *e)
{
    *e = (fp_tile_eval){0};
    e->in = *in;
    const fp_arch_limits *lim = soc->limits;
    double b = fp_dtype_bytes(in->dtype), bo = fp_dtype_bytes(in->out_dtype);
    long long bm = in->bm, bn = in->bn, bk = in->bk;
    int wg = in->wg_size > 0 ? in->wg_size : 256;
    int bufs = in->buffers > 0 ? in->buffers : 1;

    /* LDS: A and B panels of one K step, per buffer, in 512 B blocks */
    double raw = (double)(bm * bk + bk * bn) * b * bufs;
    e->lds_bytes = ceil_div((long long)ceil(raw), FP_LDS_GRANULE) * FP_LDS_GRANULE;
    e->lds_limit = lim->lds_per_cu;
    e->lds_ok = e->lds_bytes <= lim->lds_per_cu;

    /* registers per thread: one 32-bit accumulator per output element, one
     * register stage of the A/B panels (global -> LDS), fixed overhead */
    e->vgpr_acc = (int)ceil_div(bm * bn, wg);
    e->vgpr_arch = (int)ceil((double)(bm * bk + bk * bn) * b / 4.0 / wg) + FP_TILE_VGPR_OVERHEAD;
    e->regs_ok = e->vgpr_arch <= FP_TILE_MAX_ARCH_VGPR && e->vgpr_acc <= FP_TILE_MAX_ACC_VGPR;
    e->vgpr_total = fp_occ_total_vgpr(lim, e->vgpr_arch, e->vgpr_acc);
    fp_occ_in oi = {.arch_vgpr = e->vgpr_arch, .accum_vgpr = e->vgpr_acc,
                    .lds_bytes = e->lds_bytes > INT32_MAX ? INT32_MAX : (int)e->lds_bytes, .sgpr = 0,
                    .wg_size = wg};
    fp_occ_compute(lim, &oi, &e->occ);
    if (!e->lds_ok || !e->regs_ok)
        e->occ.occupancy = 0;
    e->waves_per_cu = e->occ.occupancy * lim->simds_per_cu;
    e->occupancy_pct = 100.0 * e->occ.occupancy / lim->max_waves_per_simd;

    /* arithmetic intensity */
    e->ai_tile = 2.0 * (double)bm * (double)bn / ((double)(bm + bn) * b);
    if (in->m > 0 && in->n > 0 && in->k > 0) {
        double m = (double)in->m, n = (double)in->n, k = (double)in->k;
        double flops = 2.0 * m * n * k;
        double traffic = (m * k * (double)ceil_div(in->n, bn) + k * n * (double)ceil_div(in->m, bm)) * b + m * n * bo;
        double ideal = (m * k + k * n) * b + m * n * bo;
        e->ai_traffic = flops / traffic;
        e->ai_ideal = flops / ideal;
    }
    e->ridge = fp_soc_ridge(soc, in->dtype);
    double ai = e->ai_traffic > 0 ? e->ai_traffic : e->ai_tile;
    if (e->ridge > 0)
        e->regime = ai < e->ridge ? "memory-bound" : "compute-bound";

    /* grid fill: one workgroup per output tile */
    if (soc->product && in->m > 0 && in->n > 0) {
        int wgs_per_cu = e->occ.waves_per_wg > 0 ? e->waves_per_cu / e->occ.waves_per_wg : 1;
        fp_grid_fill(ceil_div(in->m, bm) * ceil_div(in->n, bn), soc->product->cus, wgs_per_cu, &e->grid);
        e->have_grid = true;
    }

    /* score: AI toward the ridge x CU balance x latency hiding (2 waves/SIMD) */
    double ai_part = e->ridge > 0 ? fmin(1.0, ai / e->ridge) : ai / 1000.0;
    double grid_part = e->have_grid ? e->grid.efficiency : 1.0;
    double occ_part = fmin(1.0, (double)e->occ.occupancy / FP_TILE_WANT_WAVES);
    e->score = 100.0 * ai_part * grid_part * occ_part;
}

static int cmp_score(const void *a, const void *b)
{
    const fp_tile_eval *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    /* ties keep search order (qsort is not stable: compare the tile order key) */
    long long kx = (long long)x->in.bm * 1000000 + x->in.bn * 1000 + x->in.bk;
    long long ky = (long long)y->in.bm * 1000000 + y->in.bn * 1000 + y->in.bk;
    return (kx < ky) - (kx > ky);
}

size_t fp_tile_search(const fp_soc_sel *soc, const fp_tile_in *base, fp_tile_eval *out, size_t max,
                      size_t *considered)
{
    static const int mn[] = {256, 128, 64};
    static const int ks[] = {256, 128, 64, 32};
    fp_tile_eval all[sizeof mn / sizeof mn[0] * sizeof mn / sizeof mn[0] * sizeof ks / sizeof ks[0]];
    size_t n = 0, seen = 0;
    for (size_t i = 0; i < sizeof mn / sizeof mn[0]; i++)
        for (size_t j = 0; j < sizeof mn / sizeof mn[0]; j++)
            for (size_t l = 0; l < sizeof ks / sizeof ks[0]; l++) {
                fp_tile_in t = *base;
                t.bm = mn[i];
                t.bn = mn[j];
                t.bk = ks[l];
                seen++;
                fp_tile_evaluate(soc, &t, &all[n]);
                if (all[n].lds_ok && all[n].regs_ok && all[n].occ.occupancy >= 1)
                    n++;
            }
    qsort(all, n, sizeof all[0], cmp_score);
    size_t k = n < max ? n : max;
    memcpy(out, all, k * sizeof all[0]);
    if (considered)
        *considered = seen;
    return k;
}

void fp_grid_to_doc(const fp_grid *g, fp_tile_doc_grid *d)
{
    *d = (fp_tile_doc_grid){.tiles = g->tiles, .cus = g->cus, .resident_wgs_per_cu = g->wgs_per_cu,
                            .tiles_on_busiest_cu = g->per_cu_max, .rounds = g->rounds, .efficiency = g->efficiency,
                            .verdict = fp_model_strdup(g->verdict), .detail = fp_model_strdup(g->detail)};
}

static void *xcalloc1(size_t size)
{
    void *p = calloc(1, size);
    if (!p)
        abort();
    return p;
}

void fp_tile_eval_to_doc(const fp_tile_eval *e, fp_tile_doc_eval *d)
{
    *d = (fp_tile_doc_eval){0};
    d->tile = (fp_tile_doc_tile){e->in.bm, e->in.bn, e->in.bk, e->in.buffers, e->in.wg_size};
    d->lds = (fp_tile_doc_lds){.bytes = e->lds_bytes, .limit = e->lds_limit, .fits = e->lds_ok,
                               .formula = fp_model_strdup("ceil512((BM*BK + BK*BN) * dtype_bytes * buffers)")};
    d->vgpr_estimate = (fp_tile_doc_vgpr){
        .arch = e->vgpr_arch, .accum = e->vgpr_acc, .total_alloc = e->vgpr_total, .fits = e->regs_ok,
        .formula = fp_model_strdup(
            "accum = ceil(BM*BN / wg_size); arch = ceil((BM*BK + BK*BN) * dtype_bytes / 4 / wg_size) + 16")};
    d->occupancy = (fp_tile_doc_occ){
        .waves_per_simd = e->occ.occupancy, .waves_per_cu = e->waves_per_cu, .pct = e->occupancy_pct,
        .vgpr_limit = e->occ.vgpr_limit, .lds_limit = e->occ.lds_limit,
        .limiter = fp_model_strdup(!e->lds_ok    ? "LDS (overflow)"
                                   : !e->regs_ok ? "VGPR (over 256 arch or accum)"
                                                 : fp_occ_limiter_name(e->occ.bound_by))};
    fp_tile_doc_roofline *r = &d->roofline;
    r->ai_tile = e->ai_tile;
    if (e->ai_traffic > 0) {
        r->traffic = xcalloc1(sizeof *r->traffic);
        *r->traffic = (fp_tile_doc_traffic){e->ai_traffic, e->ai_ideal};
    }
    r->ridge = e->ridge > 0 ? fp_optd_of(e->ridge) : fp_optd_none();
    r->regime = fp_model_strdup(e->regime);
    r->basis = fp_model_strdup(e->ai_traffic > 0 ? "ai_traffic" : "ai_tile");
    if (e->have_grid) {
        d->grid = xcalloc1(sizeof *d->grid);
        fp_grid_to_doc(&e->grid, d->grid);
    }
    d->score = e->score;
    /* flat keys of the prototype's TILE_EVAL (flyprof-spec.md §3.1) that readers of
     * tile.json rely on: the intensity the bound should use and the ridge */
    d->ai_tile = e->ai_traffic > 0 ? e->ai_traffic : e->ai_tile;
    d->ridge_ai = r->ridge;
    d->regime = fp_model_strdup(e->regime);
}
