/*
 * launch.h - the launch model: how many workgroups a dispatch launches, how
 * many of them the GPU can hold at once, and therefore whether the launch can
 * fill the machine at all (docs/launch.md).
 *
 * Inputs come from rocprofv3's kernel_trace.csv (Grid_Size_* are work-items,
 * Workgroup_Size_* work-items per workgroup), the SoC table (CUs) and the one
 * occupancy model (occupancy.h: waves per SIMD, which already folds in the
 * VGPR, SGPR and LDS-per-workgroup limits). A workgroup's waves must be
 * co-resident on one CU (they share LDS and a barrier), so a CU holds
 *   resident_wgs_per_cu = floor(waves_per_simd * simds_per_cu / wg_waves)
 * workgroups. Everything else follows:
 *   workgroups     = prod_i ceil(Grid_Size_i / Workgroup_Size_i)
 *   concurrent_wgs = resident_wgs_per_cu * cus
 *   rounds         = ceil(workgroups / concurrent_wgs)
 *   fill_pct       = 100 * min(workgroups, cus) / cus      (CUs given any work)
 *   tail_efficiency_pct = 100 * workgroups / (rounds * concurrent_wgs)
 *   underfilled    = workgroups < cus
 *   simd_fill_pct  = 100 * min(grid_waves, cus * simds_per_cu) / (cus * simds_per_cu)
 *   resident_waves_per_simd = min(waves_per_simd, ceil(grid_waves / (cus * simds_per_cu)))
 */
#ifndef FLYPROF_LAUNCH_H
#define FLYPROF_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fp_launch_in {
    double grid[3];      /* work-items per dimension (0 = dimension absent -> 1) */
    double wg[3];        /* work-items per workgroup per dimension */
    int cus;             /* compute units of the product, 0 = unknown */
    int simds_per_cu;    /* 4 on CDNA */
    int wave_size;       /* 64 on CDNA */
    int waves_per_simd;  /* occupancy model result, 0 = unknown */
    /* issue 23: counts given directly (the trace's), used instead of grid/wg when
     * workgroups > 0 */
    double workgroups;
    int wg_waves;
} fp_launch_in;

typedef struct fp_launch {
    bool valid;          /* grid and workgroup sizes were usable */
    double workgroups;
    int wg_waves;
    double grid_waves;   /* workgroups * wg_waves: waves the dispatch launches */
    int cus;             /* 0 = unknown */
    int resident_wgs_per_cu; /* 0 = unknown (no occupancy model) */
    double concurrent_wgs;   /* 0 = unknown */
    double rounds;           /* 0 = unknown */
    double fill_pct;         /* -1 = unknown (no CU count) */
    double tail_efficiency_pct; /* -1 = unknown */
    bool underfilled;
    bool have_underfilled;   /* the CU count was known */
    /* waves the grid puts on a CU at most (ceil(grid_waves / cus)), and the
     * resident wave slots per CU: more occupancy helps only when the grid has
     * more waves than the slots it already has */
    double grid_waves_per_cu;
    bool grid_uses_more_waves; /* grid_waves > cus * resident waves per CU */
    /* issue 23 item 5: fill by SIMD */
    int simds;                  /* cus * simds_per_cu, 0 unknown */
    double simd_fill_pct;       /* 100 * min(grid_waves, simds) / simds, -1 unknown */
    int waves_per_simd_limit;   /* the occupancy model's, 0 unknown */
    double resident_waves_per_simd; /* min(limit, ceil(grid_waves / simds)), 0 unknown */
    bool from_trace;            /* the counts are the trace's (launch_facts.c), not a CSV row's */
} fp_launch;

/* Compute the model; out->valid false when the grid or workgroup is unusable. */
void fp_launch_compute(const fp_launch_in *in, fp_launch *out);

/* report.json "launch" object as its struct (report_doc.h; out overwritten); unknown
 * figures are null. */
struct fp_report_launch;
void fp_launch_to_doc(const fp_launch *l, struct fp_report_launch *out);

/* "80 workgroups on 256 CUs: 31% of CUs busy (1 round)" into buf. */
void fp_launch_sentence(const fp_launch *l, char *buf, size_t n);

#endif
