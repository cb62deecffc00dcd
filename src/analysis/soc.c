/*
 * soc.c - the one SoC table (products and per-arch MFMA rates) and how the
 * product is resolved from what the user and rocprofv3 tell us.
 *
 * Sources (letters as in rocprof-formats.md §7 and docs/soc.md):
 *  [A] ROCm "GPU hardware specifications" table (CUs, LDS, L2, infinity cache, HBM size).
 *  [B] rocprofiler-compute test sysinfo MI300X_A1 (cu 304, se 32, max_sclk 2100,
 *      total_l2_chan 128, num_xcd 8).
 *  [C] rocprofiler-compute analysis_configs gfx942|gfx950 0200/1100 panels
 *      (FLOP per clock per CU, per data type).
 *  [D] rocprofiler-compute mi_gpu_spec.yaml (chip ids 29857, 29861, 30112, 30115).
 *  [E] rocminfo of an MI325X (ROCm/aiter issue #3139): 304 CUs, 2100 MHz.
 *  [G] Hot Chips 2025 coverage: MI350X 2.2 GHz, MI355X 2.4 GHz.
 *  [H] MI325X 6.0 TB/s HBM3E (AMD product page as cited by Vultr's doc).
 *  [I] MI350X/MI355X 288 GB HBM3E, 8 TB/s (AMD launch, Tom's Hardware).
 *  [S] the real MI350X agent_info row (rocprof-formats.md §3.4): Cu_Count 256,
 *      Num_Xcc 8, Array_Count 32, Max_Engine_Clk_Fcompute 2200, Device_Id 30112.
 *  [T] AMD MI300X data sheet: TF32 matrix 653.7 TF dense (= 1024 FLOP/clk/CU).
 */
#include "flyprof/soc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flyprof/tile_doc.h"

/* ---------------------------------------------------------------- dtypes */

typedef struct dtype_row {
    fp_dtype t;
    const char *name;
    double bytes;
    const char *aliases; /* space-separated, lower case */
} dtype_row;

static const dtype_row dtype_rows[FP_DT_COUNT] = {
    {FP_DT_FP4, "fp4", 0.5, "fp4 e2m1 mxfp4"},
    {FP_DT_FP6, "fp6", 0.75, "fp6 e3m2 e2m3 mxfp6"},
    {FP_DT_FP8, "fp8", 1.0, "fp8 e4m3 e5m2 e4m3fn e4m3fnuz e5m2fnuz f8"},
    {FP_DT_INT8, "int8", 1.0, "int8 i8"},
    {FP_DT_FP16, "fp16", 2.0, "fp16 f16 half"},
    {FP_DT_BF16, "bf16", 2.0, "bf16"},
    {FP_DT_TF32, "tf32", 4.0, "tf32 xf32"},
    {FP_DT_FP32, "fp32", 4.0, "fp32 f32 float"},
    {FP_DT_FP64, "fp64", 8.0, "fp64 f64 double"},
};

const char *fp_dtype_name(fp_dtype t)
{
    return (unsigned)t < FP_DT_COUNT ? dtype_rows[t].name : "?";
}

double fp_dtype_bytes(fp_dtype t)
{
    return (unsigned)t < FP_DT_COUNT ? dtype_rows[t].bytes : 0.0;
}

int fp_dtype_parse(const char *s, fp_dtype *out, fp_err *err)
{
    char low[32];
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= sizeof low)
        return fp_err_set(err, FP_BAD_ARGS, "unknown dtype '%s'", s ? s : "");
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    for (int i = 0; i < FP_DT_COUNT; i++) {
        const char *a = dtype_rows[i].aliases;
        while (*a) {
            size_t len = strcspn(a, " ");
            if (len == n && !strncmp(a, low, n)) {
                *out = dtype_rows[i].t;
                return 0;
            }
            a += len;
            while (*a == ' ')
                a++;
        }
    }
    fp_err_set(err, FP_BAD_ARGS, "unknown dtype '%s'", s);
    return fp_err_help(err, "use one of fp4, fp6, fp8, int8, fp16, bf16, tf32, fp32, fp64");
}

/* ---------------------------------------------------------------- rates */

/* Dense FLOP per clock per CU [C]; order of fp_dtype:
 *                   fp4    fp6    fp8   int8  fp16  bf16  tf32  fp32  fp64 */
/* LDS: 128 bytes/clock/CU (CDNA3 whitepaper: 64 banks x 4 B, two ports' worth at the
 * LDS clock) [T]; gfx950's LDS grew to 160 KiB and its wide reads may exceed 128 B/clk:
 * the gfx950 LDS % of peak is then an over-estimate (docs/sol.md). */
static const fp_arch_rates rates_table[] = {
    /* gfx942: no fp4/fp6 [C]; tf32 1024 [T]; fp64 matrix = fp32 matrix = 256 [C] */
    {"gfx942", {0, 0, 4096, 4096, 2048, 2048, 1024, 256, 256}, 256, 16, 128},
    /* gfx950: fp4/fp6 16384 (RPC writes 16834, a typo) [C]; fp64 matrix halved to 128 [C];
     * no published tf32 peak (left 0). 16 L2 channels per XCD (RPC _l2_banks) [C]. */
    {"gfx950", {16384, 16384, 8192, 8192, 4096, 4096, 0, 256, 128}, 256, 16, 128},
};

const fp_arch_rates *fp_arch_rates_by_name(const char *arch)
{
    if (!arch)
        return NULL;
    for (size_t i = 0; i < sizeof rates_table / sizeof rates_table[0]; i++)
        if (!strcmp(rates_table[i].arch, arch))
            return &rates_table[i];
    return NULL;
}

/* ---------------------------------------------------------------- products */

static const fp_soc soc_table[] = {
    /* product  marketing               arch      chip id[D] CUs[A,B] XCD[B] SE[B] L2[A] IC[A] HBM GiB[A]
     * sclk MHz: [B] 2100, [E] 2100, [S] 2200, [G] 2400.  HBM GB/s: [B] 5300 (RPC 5324.8), [H] 6000, [I] 8000 */
    {"MI300X", "AMD Instinct MI300X", "gfx942", 29857, 304, 8, 32, 32, 256, 192, 2100.0, 5300.0},
    {"MI325X", "AMD Instinct MI325X", "gfx942", 29861, 304, 8, 32, 32, 256, 256, 2100.0, 6000.0},
    {"MI350X", "AMD Instinct MI350X", "gfx950", 30112, 256, 8, 32, 32, 256, 288, 2200.0, 8000.0},
    {"MI355X", "AMD Instinct MI355X", "gfx950", 30115, 256, 8, 32, 32, 256, 288, 2400.0, 8000.0},
};
#define N_SOC (sizeof soc_table / sizeof soc_table[0])

const fp_soc *fp_soc_table(size_t *n)
{
    if (n)
        *n = N_SOC;
    return soc_table;
}

const char *fp_soc_product_list(void)
{
    return "MI300X, MI325X, MI350X, MI355X";
}

/* Case-insensitive substring search with word boundaries on the product name,
 * so that "AMD Instinct MI300X" and "mi300x" match MI300X but "MI300XA" and
 * "MI300" do not. */
static bool product_matches(const char *text, const char *product)
{
    size_t n = strlen(product), tl = strlen(text);
    for (size_t i = 0; i + n <= tl; i++) {
        if (strncasecmp(text + i, product, n))
            continue;
        bool left = i == 0 || !isalnum((unsigned char)text[i - 1]);
        bool right = !isalnum((unsigned char)text[i + n]);
        if (left && right)
            return true;
    }
    return false;
}

const fp_soc *fp_soc_by_product(const char *name)
{
    if (!name || !*name)
        return NULL;
    for (size_t i = 0; i < N_SOC; i++)
        if (product_matches(name, soc_table[i].product))
            return &soc_table[i];
    return NULL;
}

const fp_soc *fp_soc_by_device_id(long long id)
{
    for (size_t i = 0; i < N_SOC; i++)
        if (soc_table[i].device_id == id)
            return &soc_table[i];
    return NULL;
}

/* ---------------------------------------------------------------- resolve */

int fp_soc_resolve(const fp_soc_query *q, fp_soc_sel *out, fp_err *err)
{
    *out = (fp_soc_sel){0};
    if (q->gpu_name && *q->gpu_name) {
        out->product = fp_soc_by_product(q->gpu_name);
        if (!out->product) {
            fp_err_set(err, FP_BAD_ARGS, "--gpu-name '%s' is not a product flyprof models", q->gpu_name);
            return fp_err_help(err, "use one of %s", fp_soc_product_list());
        }
        out->product_source = "--gpu-name";
    } else if (q->product_name && (out->product = fp_soc_by_product(q->product_name))) {
        out->product_source = "agent Product_Name";
    } else if (q->device_id > 0 && (out->product = fp_soc_by_device_id(q->device_id))) {
        out->product_source = "agent Device_Id";
    }

    const fp_arch_limits *agent_arch = NULL;
    if (q->gfx_target_version > 0)
        agent_arch = fp_arch_by_target_version(q->gfx_target_version);
    if (!agent_arch && q->agent_arch)
        agent_arch = fp_arch_by_name(q->agent_arch);

    if (q->arch && *q->arch) {
        const fp_arch_limits *a = fp_arch_by_name(q->arch);
        if (!a || !fp_arch_rates_by_name(a->name)) {
            fp_err_set(err, FP_BAD_ARGS, "--arch '%s' is not modelled", q->arch);
            return fp_err_help(err, "use gfx942 (MI300X, MI325X) or gfx950 (MI350X, MI355X)");
        }
        if (out->product && strcmp(out->product->arch, a->name)) {
            fp_err_set(err, FP_BAD_ARGS, "--arch %s contradicts the product %s (%s)", a->name,
                       out->product->product, out->product->arch);
            return fp_err_help(err, "drop --arch, or pass the --gpu-name of a %s product", a->name);
        }
        out->arch = a->name;
        out->arch_source = "--arch";
    } else if (out->product) {
        out->arch = out->product->arch;
        out->arch_source = "product";
    } else if (agent_arch && fp_arch_rates_by_name(agent_arch->name)) {
        out->arch = agent_arch->name;
        out->arch_source = "agent";
    }
    if (out->arch) {
        out->limits = fp_arch_by_name(out->arch);
        out->rates = fp_arch_rates_by_name(out->arch);
    }
    if (out->product) {
        out->sclk_mhz = out->product->peak_sclk_mhz;
        out->hbm_gbs = out->product->hbm_gbs;
    }
    if (q->sclk_mhz > 0) {
        out->sclk_mhz = q->sclk_mhz;
        out->sclk_overridden = true;
    }
    if (q->hbm_gbs > 0) {
        out->hbm_gbs = q->hbm_gbs;
        out->hbm_overridden = true;
    }
    return 0;
}

double fp_soc_peak_gflops(const fp_soc_sel *s, fp_dtype t)
{
    if (!s->product || !s->rates || (unsigned)t >= FP_DT_COUNT || s->sclk_mhz <= 0)
        return 0.0;
    /* FLOP/clk/CU * CUs * MHz = MFLOP/s; / 1000 = GFLOP/s */
    return (double)s->rates->matrix_flop_clk_cu[t] * s->product->cus * s->sclk_mhz / 1000.0;
}

double fp_soc_peak_vector_gflops(const fp_soc_sel *s)
{
    if (!s->product || !s->rates || s->sclk_mhz <= 0)
        return 0.0;
    return (double)s->rates->vector_fp32_flop_clk_cu * s->product->cus * s->sclk_mhz / 1000.0;
}

double fp_soc_ridge(const fp_soc_sel *s, fp_dtype t)
{
    double p = fp_soc_peak_gflops(s, t);
    if (p <= 0 || s->hbm_gbs <= 0)
        return 0.0;
    return p / s->hbm_gbs;
}

void fp_soc_to_doc(const fp_soc_sel *s, fp_soc_doc *d)
{
    *d = (fp_soc_doc){0};
    d->product = fp_model_strdup(s->product ? s->product->product : NULL);
    d->marketing_name = fp_model_strdup(s->product ? s->product->marketing : NULL);
    d->product_source = fp_model_strdup(s->product_source);
    d->arch = fp_model_strdup(s->arch);
    d->arch_source = fp_model_strdup(s->arch_source);
    if (s->product) {
        d->spec = calloc(1, sizeof *d->spec);
        if (!d->spec)
            abort();
        *d->spec = (fp_soc_doc_product){s->product->device_id, s->product->cus, s->product->xcds,
                                        s->product->shader_engines, s->product->l2_mib,
                                        s->product->infinity_cache_mib, s->product->hbm_gib};
    }
    if (s->limits) {
        d->limits = calloc(1, sizeof *d->limits);
        if (!d->limits)
            abort();
        *d->limits = (fp_soc_doc_limits){s->limits->simds_per_cu, s->limits->wave_size,
                                         s->limits->max_waves_per_simd, s->limits->vgpr_pool,
                                         s->limits->sgpr_per_simd, s->limits->lds_per_cu};
    }
    if (s->rates && s->product) {
        d->l2 = calloc(1, sizeof *d->l2);
        if (!d->l2)
            abort();
        d->l2->l2_channels = (int64_t)s->rates->l2_channels_per_xcd * s->product->xcds;
    }
    d->sclk_mhz = s->sclk_mhz > 0 ? fp_optd_of(s->sclk_mhz) : fp_optd_none();
    d->sclk_overridden = s->sclk_overridden;
    d->hbm_gbs = s->hbm_gbs > 0 ? fp_optd_of(s->hbm_gbs) : fp_optd_none();
    d->hbm_overridden = s->hbm_overridden;
    for (int t = 0; t < FP_DT_COUNT; t++) {
        double p = fp_soc_peak_gflops(s, (fp_dtype)t);
        if (p > 0) {
            fp_model_kv *kv = fp_model_push((void **)&d->peaks_gflops, &d->npeaks_gflops, sizeof *kv);
            kv->key = fp_model_strdup(fp_dtype_name((fp_dtype)t));
            kv->v = p;
        }
    }
    double v = fp_soc_peak_vector_gflops(s);
    if (v > 0) {
        fp_model_kv *kv = fp_model_push((void **)&d->peaks_gflops, &d->npeaks_gflops, sizeof *kv);
        kv->key = fp_model_strdup("fp32_vector");
        kv->v = v;
    }
}
