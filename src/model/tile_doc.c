/*
 * tile_doc.c - the tables of tile.json and of the SoC summary and bound verdict it
 * shares with counters.json (tile_doc.h): the only place these keys are spelled.
 * O: optional on read (the writer always writes it); ON: also left out when null.
 */
#include "flyprof/tile_doc.h"

#define O FP_F_OPTIONAL
#define ON (FP_F_OPTIONAL | FP_F_OMIT_NULL)
#define SCHEMA(name, T, f) {name, sizeof(T), FP_FIELDS(f), false}

/* ---- soc ---- */

static const fp_field soc_product_f[] = {
    FP_I64(fp_soc_doc_product, device_id, "device_id", O),
    FP_I64(fp_soc_doc_product, cus, "cus", O),
    FP_I64(fp_soc_doc_product, xcds, "xcds", O),
    FP_I64(fp_soc_doc_product, shader_engines, "shader_engines", O),
    FP_I64(fp_soc_doc_product, l2_mib, "l2_mib", O),
    FP_I64(fp_soc_doc_product, infinity_cache_mib, "infinity_cache_mib", O),
    FP_I64(fp_soc_doc_product, hbm_gib, "hbm_gib", O),
};
static const fp_schema soc_product_s = SCHEMA("soc.product", fp_soc_doc_product, soc_product_f);

static const fp_field soc_limits_f[] = {
    FP_I64(fp_soc_doc_limits, simds_per_cu, "simds_per_cu", O),
    FP_I64(fp_soc_doc_limits, wave_size, "wave_size", O),
    FP_I64(fp_soc_doc_limits, waves_per_simd, "waves_per_simd", O),
    FP_I64(fp_soc_doc_limits, vgpr_pool_per_lane, "vgpr_pool_per_lane", O),
    FP_I64(fp_soc_doc_limits, sgprs_per_simd, "sgprs_per_simd", O),
    FP_I64(fp_soc_doc_limits, lds_bytes_per_cu, "lds_bytes_per_cu", O),
};
static const fp_schema soc_limits_s = SCHEMA("soc.limits", fp_soc_doc_limits, soc_limits_f);

static const fp_field soc_l2_f[] = {
    FP_I64(fp_soc_doc_l2, l2_channels, "l2_channels", O),
};
static const fp_schema soc_l2_s = SCHEMA("soc.l2", fp_soc_doc_l2, soc_l2_f);

static const fp_field soc_peak_f[] = {
    FP_NUM(fp_soc_doc_peak, peak_gflops_dtype, "peak_gflops_dtype", 1, O),
    FP_NUM(fp_soc_doc_peak, ridge_ai, "ridge_ai", 2, O),
};
static const fp_schema soc_peak_s = SCHEMA("soc.peak", fp_soc_doc_peak, soc_peak_f);

static const fp_field soc_f[] = {
    FP_STR(fp_soc_doc, product, "product", O),
    FP_STR(fp_soc_doc, marketing_name, "marketing_name", O),
    FP_STR(fp_soc_doc, product_source, "product_source", O),
    FP_STR(fp_soc_doc, arch, "arch", O),
    FP_STR(fp_soc_doc, arch_source, "arch_source", O),
    FP_INLINE(fp_soc_doc, spec, "product", &soc_product_s),
    FP_INLINE(fp_soc_doc, limits, "limits", &soc_limits_s),
    FP_INLINE(fp_soc_doc, l2, "l2", &soc_l2_s),
    FP_OPTD(fp_soc_doc, sclk_mhz, "sclk_mhz", 1, O),
    FP_BOOL(fp_soc_doc, sclk_overridden, "sclk_overridden", O),
    FP_OPTD(fp_soc_doc, hbm_gbs, "hbm_gbs", 1, O),
    FP_BOOL(fp_soc_doc, hbm_overridden, "hbm_overridden", O),
    FP_MAP(fp_soc_doc, peaks_gflops, npeaks_gflops, "peaks_gflops", &fp_model_numval1_schema, O),
    FP_STR(fp_soc_doc, dtype, "dtype", ON),
    FP_INLINE(fp_soc_doc, peak, "peak", &soc_peak_s),
};
const fp_schema fp_soc_doc_schema = SCHEMA("soc", fp_soc_doc, soc_f);

/* ---- tile ---- */

static const fp_field dims_f[] = {
    FP_I64(fp_tile_doc_dims, M, "M", O),
    FP_I64(fp_tile_doc_dims, N, "N", O),
    FP_I64(fp_tile_doc_dims, K, "K", O),
};
static const fp_schema dims_s = SCHEMA("tile.shape.dims", fp_tile_doc_dims, dims_f);

static const fp_field shape_f[] = {
    FP_INLINE(fp_tile_doc_shape, dims, "dims", &dims_s),
    FP_STR(fp_tile_doc_shape, dtype, "dtype", O),
    FP_STR(fp_tile_doc_shape, out_dtype, "out_dtype", O),
};
static const fp_schema shape_s = SCHEMA("tile.shape", fp_tile_doc_shape, shape_f);

static const fp_field grid_f[] = {
    FP_I64(fp_tile_doc_grid, tiles, "tiles", O),
    FP_I64(fp_tile_doc_grid, cus, "cus", O),
    FP_I64(fp_tile_doc_grid, resident_wgs_per_cu, "resident_wgs_per_cu", O),
    FP_I64(fp_tile_doc_grid, tiles_on_busiest_cu, "tiles_on_busiest_cu", O),
    FP_I64(fp_tile_doc_grid, rounds, "rounds", O),
    FP_NUM(fp_tile_doc_grid, efficiency, "efficiency", 3, O),
    FP_STR(fp_tile_doc_grid, verdict, "verdict", O),
    FP_STR(fp_tile_doc_grid, detail, "detail", O),
};
const fp_schema fp_tile_grid_doc_schema = SCHEMA("tile.grid", fp_tile_doc_grid, grid_f);

static const fp_field ttile_f[] = {
    FP_I64(fp_tile_doc_tile, BM, "BM", O),
    FP_I64(fp_tile_doc_tile, BN, "BN", O),
    FP_I64(fp_tile_doc_tile, BK, "BK", O),
    FP_I64(fp_tile_doc_tile, buffers, "buffers", O),
    FP_I64(fp_tile_doc_tile, wg_size, "wg_size", O),
};
static const fp_schema ttile_s = SCHEMA("tile.tile", fp_tile_doc_tile, ttile_f);

static const fp_field lds_f[] = {
    FP_I64(fp_tile_doc_lds, bytes, "bytes", O),
    FP_I64(fp_tile_doc_lds, limit, "limit", O),
    FP_BOOL(fp_tile_doc_lds, fits, "fits", O),
    FP_STR(fp_tile_doc_lds, formula, "formula", O),
};
static const fp_schema lds_s = SCHEMA("tile.lds", fp_tile_doc_lds, lds_f);

static const fp_field vgpr_f[] = {
    FP_I64(fp_tile_doc_vgpr, arch, "arch", O),
    FP_I64(fp_tile_doc_vgpr, accum, "accum", O),
    FP_I64(fp_tile_doc_vgpr, total_alloc, "total_alloc", O),
    FP_BOOL(fp_tile_doc_vgpr, fits, "fits", O),
    FP_STR(fp_tile_doc_vgpr, formula, "formula", O),
};
static const fp_schema vgpr_s = SCHEMA("tile.vgpr_estimate", fp_tile_doc_vgpr, vgpr_f);

static const fp_field occ_f[] = {
    FP_I64(fp_tile_doc_occ, waves_per_simd, "waves_per_simd", O),
    FP_I64(fp_tile_doc_occ, waves_per_cu, "waves_per_cu", O),
    FP_NUM(fp_tile_doc_occ, pct, "pct", 1, O),
    FP_I64(fp_tile_doc_occ, vgpr_limit, "vgpr_limit", O),
    FP_I64(fp_tile_doc_occ, lds_limit, "lds_limit", O),
    FP_STR(fp_tile_doc_occ, limiter, "limiter", O),
};
static const fp_schema occ_s = SCHEMA("tile.occupancy", fp_tile_doc_occ, occ_f);

static const fp_field traffic_f[] = {
    FP_NUM(fp_tile_doc_traffic, ai_traffic, "ai_traffic", 2, O),
    FP_NUM(fp_tile_doc_traffic, ai_ideal, "ai_ideal", 2, O),
};
static const fp_schema traffic_s = SCHEMA("tile.roofline.traffic", fp_tile_doc_traffic, traffic_f);

static const fp_field roofline_f[] = {
    FP_NUM(fp_tile_doc_roofline, ai_tile, "ai_tile", 2, O),
    FP_INLINE(fp_tile_doc_roofline, traffic, "traffic", &traffic_s),
    FP_OPTD(fp_tile_doc_roofline, ridge, "ridge", 2, O),
    FP_STR(fp_tile_doc_roofline, regime, "regime", O),
    FP_STR(fp_tile_doc_roofline, basis, "basis", O),
};
static const fp_schema roofline_s = SCHEMA("tile.roofline", fp_tile_doc_roofline, roofline_f);

static const fp_field eval_f[] = {
    FP_OBJ(fp_tile_doc_eval, tile, "tile", &ttile_s, O),
    FP_OBJ(fp_tile_doc_eval, lds, "lds", &lds_s, O),
    FP_OBJ(fp_tile_doc_eval, vgpr_estimate, "vgpr_estimate", &vgpr_s, O),
    FP_OBJ(fp_tile_doc_eval, occupancy, "occupancy", &occ_s, O),
    FP_OBJ(fp_tile_doc_eval, roofline, "roofline", &roofline_s, O),
    FP_OBJP(fp_tile_doc_eval, grid, "grid", &fp_tile_grid_doc_schema, ON),
    FP_NUM(fp_tile_doc_eval, score, "score", 2, O),
    FP_NUM(fp_tile_doc_eval, ai_tile, "ai_tile", 2, O),
    FP_OPTD(fp_tile_doc_eval, ridge_ai, "ridge_ai", 2, O),
    FP_STR(fp_tile_doc_eval, regime, "regime", O),
};
const fp_schema fp_tile_eval_doc_schema = SCHEMA("tile.evaluated", fp_tile_doc_eval, eval_f);

static const fp_field evaluated_f[] = {
    FP_OBJP(fp_tile_doc_evaluated, evaluated, "evaluated", &fp_tile_eval_doc_schema, O),
    FP_OBJP(fp_tile_doc_evaluated, bound, "bound", &fp_report_bound_schema, ON),
};
static const fp_schema evaluated_s = SCHEMA("tile.evaluate", fp_tile_doc_evaluated, evaluated_f);

static const fp_field search_f[] = {
    FP_I64(fp_tile_doc_search, tiles_considered, "tiles_considered", O),
    FP_ARR(fp_tile_doc_search, candidates, ncandidates, "candidates", &fp_tile_eval_doc_schema, O),
    FP_OBJP(fp_tile_doc_search, recommended, "recommended", &fp_tile_eval_doc_schema, O),
};
static const fp_schema search_s = SCHEMA("tile.search", fp_tile_doc_search, search_f);

static const fp_field resources_f[] = {
    FP_I64(fp_tile_doc_resources, vgpr_count, "vgpr_count", O),
    FP_I64(fp_tile_doc_resources, accum_vgpr_count, "accum_vgpr_count", O),
    FP_I64(fp_tile_doc_resources, combined_vgpr, "combined_vgpr", O),
    FP_BOOL(fp_tile_doc_resources, gfx950_undercount_corrected, "gfx950_undercount_corrected", O),
    FP_I64(fp_tile_doc_resources, sgpr_count, "sgpr_count", O),
    FP_I64(fp_tile_doc_resources, lds_bytes_static, "lds_bytes_static", O),
    FP_I64(fp_tile_doc_resources, wg_size, "wg_size", O),
    FP_I64(fp_tile_doc_resources, workgroups, "workgroups", O),
};
static const fp_schema resources_s = SCHEMA("tile.real_kernel.resources", fp_tile_doc_resources, resources_f);

static const fp_field real_occ_f[] = {
    FP_I64(fp_tile_doc_real_occ, waves_per_simd, "waves_per_simd", O),
    FP_I64(fp_tile_doc_real_occ, waves_per_cu, "waves_per_cu", O),
    FP_STR(fp_tile_doc_real_occ, limiter, "limiter", O),
    FP_I64(fp_tile_doc_real_occ, vgpr_limit, "vgpr_limit", O),
    FP_I64(fp_tile_doc_real_occ, lds_limit, "lds_limit", O),
    FP_I64(fp_tile_doc_real_occ, sgpr_limit, "sgpr_limit", O),
    FP_OPTD(fp_tile_doc_real_occ, next_vgpr_target, "next_vgpr_target", 0, ON),
};
static const fp_schema real_occ_s = SCHEMA("tile.real_kernel.occupancy", fp_tile_doc_real_occ, real_occ_f);

static const fp_field implied_f[] = {
    FP_NUM(fp_tile_doc_implied, implied_tile_area, "implied_tile_area", 1, O),
    FP_NUM(fp_tile_doc_implied, implied_square_tile, "implied_square_tile", 1, O),
};
static const fp_schema implied_s = SCHEMA("tile.real_kernel.implied", fp_tile_doc_implied, implied_f);

static const fp_field real_f[] = {
    FP_STR(fp_tile_doc_real, kernel, "kernel", O),
    FP_STR(fp_tile_doc_real, source, "source", O),
    FP_I64(fp_tile_doc_real, dispatches_in_trace, "dispatches_in_trace", O),
    FP_OBJ(fp_tile_doc_real, resources, "resources", &resources_s, O),
    FP_OBJ(fp_tile_doc_real, occupancy, "occupancy", &real_occ_s, O),
    FP_OBJP(fp_tile_doc_real, grid, "grid", &fp_tile_grid_doc_schema, ON),
    FP_INLINE(fp_tile_doc_real, implied, "implied", &implied_s),
    FP_STR(fp_tile_doc_real, note, "note", O),
};
const fp_schema fp_tile_real_doc_schema = SCHEMA("tile.real_kernel", fp_tile_doc_real, real_f);

static const fp_field tile_f[] = {
    FP_INT(fp_tile_doc, schema, "schema", O),
    FP_STR(fp_tile_doc, confidence, "confidence", O),
    FP_STR(fp_tile_doc, note, "note", O),
    FP_OBJ(fp_tile_doc, shape, "shape", &shape_s, O),
    FP_OBJ(fp_tile_doc, soc, "soc", &fp_soc_doc_schema, O),
    FP_INLINE(fp_tile_doc, eval, "evaluate", &evaluated_s),
    FP_INLINE(fp_tile_doc, search, "search", &search_s),
    FP_OBJP(fp_tile_doc, real_kernel, "real_kernel", &fp_tile_real_doc_schema, ON),
    FP_STR(fp_tile_doc, artifact, "artifact", ON),
};
const fp_schema fp_tile_doc_schema = SCHEMA("tile", fp_tile_doc, tile_f);

int fp_tile_read_file(const char *path, fp_tile_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_tile_doc_schema, path, doc, err);
}

int fp_tile_write_file(const fp_tile_doc *doc, const char *path, fp_err *err)
{
    return fp_model_write_file(&fp_tile_doc_schema, doc, path, err);
}

void fp_tile_doc_free(fp_tile_doc *doc) { fp_model_free(&fp_tile_doc_schema, doc); }
