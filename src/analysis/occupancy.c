/*
 * occupancy.c - the per-arch limits table and the occupancy model (see
 * occupancy.h for the formulas, docs/occupancy.md for the discussion).
 *
 * Sources (letters used in the table comments):
 *  [S] seed 000 "Register pressure check": one combined 512-entry VGPR pool on
 *      gfx90a/gfx942/gfx950, LDS 64 KiB -> 160 KiB from CDNA3 to CDNA4, SGPR 800,
 *      vgpr_limit = 512 // (arch_alloc + accum_alloc), max 8 waves/SIMD.
 *  [F] LLVM AMDGPUUsage / commit b7611370: "a total of 512 registers, but a
 *      maximum of only 256 of each of AGPR and VGPR" (gfx90a), allocation
 *      granule 8 for the unified file, ACCUM_OFFSET in units of 4.
 *  [R] rocprof-formats.md §3.4 agent_info (Simd_Per_Cu 4, Max_Waves_Per_Simd 8,
 *      Lds_Size_In_Kb 160 on gfx950, Wave_Front_Size 64) and §7.3 (LDS_per_CU
 *      65,536 B gfx942 / 163,840 B gfx950; SGPR 800 with granule 16 on gfx9).
 *  [A] ROCm "GPU hardware specifications" table (LDS 64 KiB per CU on MI200/MI300,
 *      160 KiB on MI350).
 */
#include "flyprof/occupancy.h"

#include <string.h>

static const fp_arch_limits arch_table[] = {
    /* name     family   target  pool[S,F] gran[F] arch_gran[F] lds[A,R] sgpr[S,R] sgran[R] waves[R] simds[R] wave[R] */
    {"gfx90a", "CDNA2", 90010, 512, 8, 4, 65536, 800, 16, 8, 4, 64},
    {"gfx942", "CDNA3", 90402, 512, 8, 4, 65536, 800, 16, 8, 4, 64},
    {"gfx950", "CDNA4", 90500, 512, 8, 4, 163840, 800, 16, 8, 4, 64},
};
#define N_ARCH (sizeof arch_table / sizeof arch_table[0])

const fp_arch_limits *fp_arch_by_name(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < N_ARCH; i++) {
        size_t n = strlen(arch_table[i].name);
        /* "gfx950", "gfx950 (CDNA4)" or "gfx950:sramecc+:xnack-" */
        if (!strncmp(name, arch_table[i].name, n) &&
            (name[n] == '\0' || name[n] == ' ' || name[n] == ':'))
            return &arch_table[i];
    }
    return NULL;
}

const fp_arch_limits *fp_arch_by_target_version(long long v)
{
    for (size_t i = 0; i < N_ARCH; i++)
        if (arch_table[i].gfx_target_version == v)
            return &arch_table[i];
    return NULL;
}

const char *fp_occ_limiter_name(fp_occ_limiter l)
{
    static const char *const names[] = {"VGPR", "LDS", "SGPR", "hardware"};
    return (unsigned)l < 4 ? names[l] : "?";
}

static int ceil_to(int v, int g) { return g > 0 ? (v + g - 1) / g * g : v; }

/* Inputs come from CSV cells: clamp them so no arithmetic below can overflow.
 * 1 << 24 is far beyond any register file or LDS (the cap is never binding). */
#define OCC_INPUT_CAP (1 << 24)
static int clamp_in(int v) { return v < 0 ? 0 : v > OCC_INPUT_CAP ? OCC_INPUT_CAP : v; }

int fp_occ_total_vgpr(const fp_arch_limits *a, int arch_vgpr, int accum_vgpr)
{
    arch_vgpr = clamp_in(arch_vgpr);
    accum_vgpr = clamp_in(accum_vgpr);
    if (accum_vgpr == 0)
        return ceil_to(arch_vgpr, a->vgpr_granule);
    /* AGPRs start at ACCUM_OFFSET, a multiple of 4 past the arch VGPRs. */
    return ceil_to(ceil_to(arch_vgpr, a->arch_vgpr_granule) + accum_vgpr, a->vgpr_granule);
}

void fp_occ_compute(const fp_arch_limits *a, const fp_occ_in *in_raw, fp_occ_out *out)
{
    memset(out, 0, sizeof *out);
    fp_occ_in cl = {clamp_in(in_raw->arch_vgpr), clamp_in(in_raw->accum_vgpr),
                    clamp_in(in_raw->lds_bytes), clamp_in(in_raw->sgpr), clamp_in(in_raw->wg_size),
                    clamp_in(in_raw->total_vgpr_floor)};
    const fp_occ_in *in = &cl;
    const int hw = a->max_waves_per_simd;
    out->total_vgpr = fp_occ_total_vgpr(a, in->arch_vgpr, in->accum_vgpr);
    int floor = ceil_to(in->total_vgpr_floor, a->vgpr_granule);
    if (floor > out->total_vgpr)
        out->total_vgpr = floor;
    out->vgpr_limit = out->total_vgpr > 0 ? a->vgpr_pool / out->total_vgpr : hw;
    if (out->vgpr_limit > hw)
        out->vgpr_limit = hw;

    out->waves_per_wg = in->wg_size > 0 ? (in->wg_size + a->wave_size - 1) / a->wave_size : 0;
    out->lds_limit = -1;
    if (out->waves_per_wg > 0) {
        if (in->lds_bytes <= 0) {
            out->lds_limit = hw; /* no LDS: LDS does not limit */
        } else if (in->lds_bytes > a->lds_per_cu) {
            out->lds_limit = 0; /* the workgroup cannot be placed at all */
        } else {
            long long wgs = a->lds_per_cu / in->lds_bytes;
            long long per_simd = wgs * out->waves_per_wg / a->simds_per_cu;
            /* One resident workgroup always gives its SIMDs at least one wave. */
            out->lds_limit = per_simd < 1 ? 1 : per_simd > hw ? hw : (int)per_simd;
        }
    }
    out->sgpr_limit = -1;
    if (in->sgpr > 0) {
        int alloc = ceil_to(in->sgpr, a->sgpr_granule);
        out->sgpr_limit = a->sgpr_per_simd / alloc;
        if (out->sgpr_limit > hw)
            out->sgpr_limit = hw;
    }

    out->occupancy = out->vgpr_limit;
    out->bound_by = FP_OCC_VGPR;
    if (out->lds_limit >= 0 && out->lds_limit < out->occupancy) {
        out->occupancy = out->lds_limit;
        out->bound_by = FP_OCC_LDS;
    }
    if (out->sgpr_limit >= 0 && out->sgpr_limit < out->occupancy) {
        out->occupancy = out->sgpr_limit;
        out->bound_by = FP_OCC_SGPR;
    }
    if (out->occupancy >= hw) {
        out->occupancy = hw;
        if (out->vgpr_limit >= hw && (out->lds_limit < 0 || out->lds_limit >= hw) &&
            (out->sgpr_limit < 0 || out->sgpr_limit >= hw))
            out->bound_by = FP_OCC_HW;
    }
    if (out->occupancy < hw) {
        out->next_occ = out->occupancy + 1;
        int t = a->vgpr_pool / out->next_occ;
        out->next_vgpr_target = t / a->vgpr_granule * a->vgpr_granule;
        out->next_needs_more_than_vgpr = (out->lds_limit >= 0 && out->lds_limit < out->next_occ) ||
                                         (out->sgpr_limit >= 0 && out->sgpr_limit < out->next_occ);
    }
}

int fp_occ_csv_combined_vgpr(const fp_arch_limits *a, int vgpr_count, int accum_count,
                             bool sdk_fixed, bool *corrected)
{
    bool fix = a && !strcmp(a->name, "gfx950") && accum_count == 0 && !sdk_fixed && vgpr_count > 0;
    if (corrected)
        *corrected = fix;
    vgpr_count = clamp_in(vgpr_count);
    accum_count = clamp_in(accum_count);
    if (fix)
        return 2 * vgpr_count;
    return vgpr_count + accum_count;
}
