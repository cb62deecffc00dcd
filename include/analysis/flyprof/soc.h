/*
 * soc.h - the SoC model: ONE table of the supported products (MI300X, MI325X
 * on gfx942; MI350X, MI355X on gfx950) with compute units, clocks, caches, HBM
 * and dense peak FLOP/s per data type, every number with its source in soc.c
 * and docs/soc.md.
 *
 * Per-architecture register/LDS/wave limits are NOT repeated here: they live in
 * the occupancy model (occupancy.h, fp_arch_limits); fp_soc_resolve links
 * the product's arch to its row there.
 *
 * The product is never assumed: fp_soc_resolve picks it from --gpu-name, or
 * from the agent info rocprofv3 wrote (Product_Name, then Device_Id); knowing
 * only the architecture gives the arch row but no product (no CU count, clock,
 * peaks). --sclk-mhz and --hbm-gbs override the product's numbers.
 */
#ifndef FLYPROF_SOC_H
#define FLYPROF_SOC_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"
#include "flyprof/occupancy.h"

/* Matrix (MFMA) data types with a dense peak, plus the packed-FP32 vector rate. */
typedef enum fp_dtype {
    FP_DT_FP4,
    FP_DT_FP6,
    FP_DT_FP8,
    FP_DT_INT8,
    FP_DT_FP16,
    FP_DT_BF16,
    FP_DT_TF32, /* xf32 */
    FP_DT_FP32,
    FP_DT_FP64,
    FP_DT_COUNT
} fp_dtype;

/* Canonical name ("bf16") and storage bytes per element (fp4 0.5, fp6 0.75). */
const char *fp_dtype_name(fp_dtype t);
double fp_dtype_bytes(fp_dtype t);
/* Parse a dtype, case-insensitive, with aliases (f16, f32, f64, e4m3, e5m2,
 * e4m3fn, i8, e2m1, e3m2, e2m3, xf32). Returns 0 or -1 (FP_BAD_ARGS). */
int fp_dtype_parse(const char *s, fp_dtype *out, fp_err *err);

/* Per-architecture MFMA/VALU rates (FLOP per clock per CU). */
typedef struct fp_arch_rates {
    const char *arch;                  /* "gfx942" */
    int matrix_flop_clk_cu[FP_DT_COUNT]; /* 0 = not supported on this arch */
    int vector_fp32_flop_clk_cu;       /* packed FP32, as AMD quotes its vector peak */
    int l2_channels_per_xcd;
    int lds_bytes_clk_cu;              /* LDS peak bytes per clock per CU */
} fp_arch_rates;

typedef struct fp_soc {
    const char *product;       /* "MI300X" */
    const char *marketing;     /* "AMD Instinct MI300X" */
    const char *arch;          /* "gfx942" */
    int device_id;             /* agent_info Device_Id (PCI chip id) */
    int cus;
    int xcds;
    int shader_engines;
    int l2_mib;                /* total L2 */
    int infinity_cache_mib;
    int hbm_gib;
    double peak_sclk_mhz;      /* peak engine clock */
    double hbm_gbs;            /* peak HBM bandwidth, GB/s (10^9) */
} fp_soc;

/* The table (n rows) and lookups. by_product matches "MI300X", "mi355x" or a
 * Product_Name containing it ("AMD Instinct MI350X"); NULL when unknown. */
const fp_soc *fp_soc_table(size_t *n);
const fp_soc *fp_soc_by_product(const char *name);
const fp_soc *fp_soc_by_device_id(long long id);
const fp_arch_rates *fp_arch_rates_by_name(const char *arch);

/* What is known about the GPU; every field optional (NULL / 0 = unknown). */
typedef struct fp_soc_query {
    const char *gpu_name;       /* --gpu-name */
    const char *arch;           /* --arch */
    double sclk_mhz;            /* --sclk-mhz override, 0 = none */
    double hbm_gbs;             /* --hbm-gbs override, 0 = none */
    const char *product_name;   /* agent_info Product_Name */
    long long device_id;        /* agent_info Device_Id */
    long long gfx_target_version; /* agent_info Gfx_Target_Version (90402, 90500) */
    const char *agent_arch;     /* agent_info Name ("gfx950") */
} fp_soc_query;

/* The resolved model. product may be NULL (arch known only); arch_limits may
 * be NULL (nothing known). */
typedef struct fp_soc_sel {
    const fp_soc *product;
    const char *product_source;  /* "--gpu-name" | "agent Product_Name" | "agent Device_Id" | NULL */
    const char *arch;            /* "gfx942" | "gfx950" | NULL */
    const char *arch_source;     /* "--arch" | "product" | "agent" | NULL */
    const fp_arch_limits *limits;
    const fp_arch_rates *rates;
    double sclk_mhz;             /* 0 when unknown */
    double hbm_gbs;              /* 0 when unknown */
    bool sclk_overridden, hbm_overridden;
} fp_soc_sel;

/* Resolve. Errors (FP_BAD_ARGS): --gpu-name names no product of the table; --arch
 * is not gfx942/gfx950; --arch contradicts the product; agent info names a product
 * outside the table is NOT an error (product stays NULL, arch from the agent). */
int fp_soc_resolve(const fp_soc_query *q, fp_soc_sel *out, fp_err *err);

/* Dense peak in GFLOP/s for t (rate * CUs * sclk); 0 when the product is
 * unknown or the type is not supported on the arch. */
double fp_soc_peak_gflops(const fp_soc_sel *s, fp_dtype t);
/* Packed-FP32 vector peak in GFLOP/s; 0 when unknown. */
double fp_soc_peak_vector_gflops(const fp_soc_sel *s);
/* Ridge arithmetic intensity (FLOP/byte) = peak / HBM; 0 when unknown. */
double fp_soc_ridge(const fp_soc_sel *s, fp_dtype t);

/* The model as the "soc" part of tile.json / counters.json (tile_doc.h fp_soc_doc,
 * written by fp_soc_doc_schema): product, arch, sources, CUs, SIMDs, wave size,
 * waves/SIMD, VGPR pool, SGPRs, LDS, L2, clock, HBM, and "peaks_gflops" per supported
 * type. *d is overwritten (free with fp_model_free(&fp_soc_doc_schema, d)). */
struct fp_soc_doc;
void fp_soc_to_doc(const fp_soc_sel *s, struct fp_soc_doc *d);

/* Comma-separated product names ("MI300X, MI325X, MI350X, MI355X") for help text. */
const char *fp_soc_product_list(void);

#endif
