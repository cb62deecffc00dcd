/*
 * occupancy.h - the ONE occupancy model of flyprof (hotspots, tile and report
 * all use it): waves per SIMD that fit on a CDNA CU given a kernel's register
 * and LDS allocation, which resource binds, and what the next level needs.
 *
 * Model (seed 000 "Register pressure check", rocprof-formats.md §7.3; the
 * sources of every constant are in occupancy.c and docs/occupancy.md):
 *   vgpr_limit = 512 / total_vgpr   (one unified arch+accum pool on gfx90a+)
 *   lds_limit  = (LDS_per_CU / lds_per_wg) * waves_per_wg / 4 SIMDs
 *   sgpr_limit = 800 / ceil16(sgpr)
 *   occupancy  = min(vgpr_limit, lds_limit, sgpr_limit, 8)
 * A limit whose input is unknown (0) does not constrain.
 */
#ifndef FLYPROF_OCCUPANCY_H
#define FLYPROF_OCCUPANCY_H

#include <stdbool.h>
#include <stdint.h>

/* Per-architecture limits (one row per gfx target). */
typedef struct fp_arch_limits {
    const char *name;         /* "gfx942" */
    const char *family;       /* "CDNA3" */
    int gfx_target_version;   /* agent_info Gfx_Target_Version, e.g. 90402 */
    int vgpr_pool;            /* unified VGPR entries per SIMD lane (arch + accum) */
    int vgpr_granule;         /* combined allocation granularity */
    int arch_vgpr_granule;    /* granularity of the arch part (ACCUM_OFFSET units) */
    int lds_per_cu;           /* bytes */
    int sgpr_per_simd;
    int sgpr_granule;
    int max_waves_per_simd;
    int simds_per_cu;
    int wave_size;
} fp_arch_limits;

/* The table lookup: by name ("gfx950", also accepts "gfx950 (CDNA4)" prefixes)
 * or by Gfx_Target_Version (90500). NULL when unknown. */
const fp_arch_limits *fp_arch_by_name(const char *name);
const fp_arch_limits *fp_arch_by_target_version(long long v);

/* Inputs; 0 means "unknown" for lds/sgpr/workgroup. */
typedef struct fp_occ_in {
    int arch_vgpr;  /* architectural VGPRs used (count, not rounded) */
    int accum_vgpr; /* AGPRs used (0 = none) */
    int lds_bytes;  /* LDS per workgroup (LDS_Block_Size) */
    int sgpr;       /* SGPRs (SGPR_Count) */
    int wg_size;    /* work-items per workgroup */
    int total_vgpr_floor; /* a known combined allocation (e.g. 2 x VGPR_Count on gfx950,
                             whose arch/accum split is lost); 0 = none */
} fp_occ_in;

typedef enum fp_occ_limiter { FP_OCC_VGPR, FP_OCC_LDS, FP_OCC_SGPR, FP_OCC_HW } fp_occ_limiter;

typedef struct fp_occ_out {
    int total_vgpr;     /* combined allocation, in granules of vgpr_granule */
    int vgpr_limit;     /* waves/SIMD allowed by VGPRs */
    int lds_limit;      /* -1 when not known (no LDS size or workgroup size) */
    int sgpr_limit;     /* -1 when not known */
    int waves_per_wg;   /* ceil(wg_size / wave_size), 0 when unknown */
    int occupancy;      /* min of the known limits and the hardware maximum */
    fp_occ_limiter bound_by; /* first minimum in VGPR, LDS, SGPR, HW order */
    int next_occ;       /* occupancy + 1, or 0 when already at the maximum */
    int next_vgpr_target; /* combined VGPRs allowed at next_occ (rounded down to the granule), 0 if none */
    bool next_needs_more_than_vgpr; /* LDS or SGPR would still cap below next_occ */
} fp_occ_out;

/* Name of a limiter: "VGPR", "LDS", "SGPR", "hardware". */
const char *fp_occ_limiter_name(fp_occ_limiter l);

/* Combined VGPR allocation: arch rounded to arch_vgpr_granule, plus accum, rounded
 * up to vgpr_granule (rocprof-formats.md §3.5/§7.3: the granulated field is
 * (total/8 - 1)); with no accum it is ceil(arch, vgpr_granule). */
int fp_occ_total_vgpr(const fp_arch_limits *a, int arch_vgpr, int accum_vgpr);

/* Compute the model. a must not be NULL. */
void fp_occ_compute(const fp_arch_limits *a, const fp_occ_in *in, fp_occ_out *out);

/*
 * The gfx950 register under-count of rocprofiler-sdk <= 1.1.0 (ROCm <= 7.2),
 * rocprof-formats.md §3.5: on gfx950 the SDK takes the generic branch, so
 * VGPR_Count = (GRANULATED_WORKITEM_VGPR_COUNT + 1) * 4, exactly HALF the real
 * unified allocation, and Accum_VGPR_Count is always 0. The arch/accum split is
 * unrecoverable; the real combined allocation is 2 * VGPR_Count.
 *
 * Returns the combined VGPRs to believe for a CSV row: 2 * vgpr_count when the
 * target is gfx950, accum_count == 0 and the SDK is not known to carry the fix
 * (sdk_fixed false: the CSV does not say its SDK version, so callers that cannot
 * tell pass false); otherwise vgpr_count + accum_count. *corrected is set to
 * whether the doubling was applied.
 */
int fp_occ_csv_combined_vgpr(const fp_arch_limits *a, int vgpr_count, int accum_count,
                             bool sdk_fixed, bool *corrected);

#endif
