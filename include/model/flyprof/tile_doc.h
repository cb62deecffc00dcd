/*
 * tile_doc.h - tile.json as a type (model.h), plus the two parts it shares with
 * counters.json (and report.json): the SoC summary ("soc", filled by soc.c
 * fp_soc_to_doc) and the bound verdict ("bound", bound.c fp_bound_doc_fill). Tables:
 * src/model/tile_doc.c, the only place these keys are spelled. Producer:
 * src/cmd/cmd_tile.c (with tile.c's fp_tile_eval_to_doc / fp_grid_to_doc); reader:
 * signals.c fp_signals_from_tile (report reads tile.json with the strict reader).
 *
 * fp_bound_doc has the members, in the same order, of report_doc.h's fp_report_bound
 * (branch repdoc): when both are on one branch, one of the two tables goes.
 *
 * Reading is lenient about ABSENT keys (hand-written bundles hold a subset of the
 * document; every field is optional on read) and strict about unknown keys and types.
 */
#ifndef FLYPROF_TILE_DOC_H
#define FLYPROF_TILE_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/model.h"
#include "flyprof/report_doc.h"

/* ---- the SoC summary (soc.c fp_soc_to_doc) ---- */

typedef struct fp_soc_doc_product {
    int64_t device_id, cus, xcds, shader_engines, l2_mib, infinity_cache_mib, hbm_gib;
} fp_soc_doc_product;

typedef struct fp_soc_doc_limits {
    int64_t simds_per_cu, wave_size, waves_per_simd, vgpr_pool_per_lane, sgprs_per_simd, lds_bytes_per_cu;
} fp_soc_doc_limits;

typedef struct fp_soc_doc_l2 {
    int64_t l2_channels;
} fp_soc_doc_l2;

/* tile only: the peak of the GEMM's dtype and its ridge */
typedef struct fp_soc_doc_peak {
    double peak_gflops_dtype; /* GFLOP/s, 1 decimal */
    double ridge_ai;          /* FLOP/byte, 2 decimals */
} fp_soc_doc_peak;

typedef struct fp_soc_doc {
    char *product, *marketing_name, *product_source, *arch, *arch_source;
    fp_soc_doc_product *spec;   /* a known product */
    fp_soc_doc_limits *limits;  /* a known arch */
    fp_soc_doc_l2 *l2;          /* product and rates known */
    fp_optd sclk_mhz;           /* peak engine clock, MHz, 1 decimal */
    bool sclk_overridden;
    fp_optd hbm_gbs;            /* peak HBM bandwidth, GB/s, 1 decimal */
    bool hbm_overridden;
    fp_model_kv *peaks_gflops;  /* dtype name -> peak GFLOP/s (1 decimal), then "fp32_vector" */
    size_t npeaks_gflops;
    char *dtype;                /* tile only */
    fp_soc_doc_peak *peak;      /* tile only, when the dtype has a peak */
} fp_soc_doc;

/* ---- the bound verdict (bound.c fp_bound_doc_fill) ---- */

/* the same object as report.json's "bound": one struct, one table (report_doc.h) */
typedef fp_report_bound fp_bound_doc;

extern const fp_schema fp_soc_doc_schema;

/* ---- tile.json ---- */

typedef struct fp_tile_doc_dims {
    int64_t M, N, K;
} fp_tile_doc_dims;

typedef struct fp_tile_doc_shape {
    fp_tile_doc_dims *dims;     /* --shape given */
    char *dtype, *out_dtype;
} fp_tile_doc_shape;

typedef struct fp_tile_doc_grid {
    int64_t tiles, cus, resident_wgs_per_cu, tiles_on_busiest_cu, rounds;
    double efficiency;          /* 3 decimals */
    char *verdict, *detail;
} fp_tile_doc_grid;

typedef struct fp_tile_doc_tile {
    int64_t BM, BN, BK, buffers, wg_size;
} fp_tile_doc_tile;

typedef struct fp_tile_doc_lds {
    int64_t bytes, limit;
    bool fits;
    char *formula;
} fp_tile_doc_lds;

typedef struct fp_tile_doc_vgpr {
    int64_t arch, accum, total_alloc;
    bool fits;
    char *formula;
} fp_tile_doc_vgpr;

typedef struct fp_tile_doc_occ {
    int64_t waves_per_simd, waves_per_cu;
    double pct;                 /* 1 decimal */
    int64_t vgpr_limit, lds_limit;
    char *limiter;
} fp_tile_doc_occ;

typedef struct fp_tile_doc_traffic {
    double ai_traffic, ai_ideal; /* FLOP/byte over the whole GEMM, 2 decimals */
} fp_tile_doc_traffic;

typedef struct fp_tile_doc_roofline {
    double ai_tile;             /* FLOP/byte per K step, 2 decimals */
    fp_tile_doc_traffic *traffic; /* with a shape */
    fp_optd ridge;              /* 2 decimals, null without a product */
    char *regime, *basis;
} fp_tile_doc_roofline;

/* One evaluated tile (fp_tile_eval). */
typedef struct fp_tile_doc_eval {
    fp_tile_doc_tile tile;
    fp_tile_doc_lds lds;
    fp_tile_doc_vgpr vgpr_estimate;
    fp_tile_doc_occ occupancy;
    fp_tile_doc_roofline roofline;
    fp_tile_doc_grid *grid;
    double score;               /* 2 decimals */
    double ai_tile;             /* the intensity the bound uses, 2 decimals */
    fp_optd ridge_ai;           /* 2 decimals */
    char *regime;
} fp_tile_doc_eval;

typedef struct fp_tile_doc_evaluated {
    fp_tile_doc_eval *evaluated;
    fp_bound_doc *bound;        /* with a ridge */
} fp_tile_doc_evaluated;

typedef struct fp_tile_doc_search {
    int64_t tiles_considered;
    fp_tile_doc_eval *candidates;
    size_t ncandidates;
    fp_tile_doc_eval *recommended; /* null when none fits */
} fp_tile_doc_search;

typedef struct fp_tile_doc_resources {
    int64_t vgpr_count, accum_vgpr_count, combined_vgpr;
    bool gfx950_undercount_corrected;
    int64_t sgpr_count, lds_bytes_static, wg_size, workgroups;
} fp_tile_doc_resources;

typedef struct fp_tile_doc_real_occ {
    int64_t waves_per_simd, waves_per_cu;
    char *limiter;
    int64_t vgpr_limit, lds_limit, sgpr_limit;
    fp_optd next_vgpr_target;   /* written when a higher occupancy exists */
} fp_tile_doc_real_occ;

typedef struct fp_tile_doc_implied {
    double implied_tile_area, implied_square_tile; /* 1 decimal */
} fp_tile_doc_implied;

typedef struct fp_tile_doc_real {
    char *kernel, *source;
    int64_t dispatches_in_trace;
    fp_tile_doc_resources resources;
    fp_tile_doc_real_occ occupancy;
    fp_tile_doc_grid *grid;
    fp_tile_doc_implied *implied;
    char *note;
} fp_tile_doc_real;

typedef struct fp_tile_doc {
    int schema;
    char *confidence, *note;
    fp_tile_doc_shape shape;
    fp_soc_doc soc;
    fp_tile_doc_evaluated *eval;   /* --bm/--bn/--bk */
    fp_tile_doc_search *search;    /* otherwise */
    fp_tile_doc_real *real_kernel;
    char *artifact;                /* envelope only: where tile.json was written */
} fp_tile_doc;

extern const fp_schema fp_tile_doc_schema, fp_tile_eval_doc_schema, fp_tile_grid_doc_schema,
    fp_tile_real_doc_schema;

int fp_tile_read_file(const char *path, fp_tile_doc *doc, fp_err *err);
int fp_tile_write_file(const fp_tile_doc *doc, const char *path, fp_err *err);
void fp_tile_doc_free(fp_tile_doc *doc);

#endif
