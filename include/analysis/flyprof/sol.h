/*
 * sol.h - speed of light from the trace alone: how close the HBM, the MFMA
 * pipe, the VALU and the LDS came to their peaks (docs/sol.md has every
 * formula and its error sources).
 *
 * One idea: the instruction listing (code.json: ISA + executions summed over
 * the traced waves) says how much work the traced waves did; the wave
 * timelines (bubbles: span_total = traced SIMD cycles) say how long the
 * traced SIMDs were alive; kernel_trace.csv says how many waves the whole
 * dispatch launched and how long it took. Bytes are per-lane bytes of each
 * memory opcode x the wave size (masked lanes counted as active: an upper
 * bound), MFMA cycles are the opcode's FLOPs over the arch's per-SIMD dense
 * rate (the SoC table, soc.h). Counters, when present, replace the trace
 * estimate; both are kept side by side.
 */
#ifndef FLYPROF_SOL_H
#define FLYPROF_SOL_H

#include <stdbool.h>
#include <stdint.h>

#include "flyprof/att.h"
#include "flyprof/soc.h"

/* Bytes one lane moves for a vector-memory or LDS opcode (0 when it moves
 * none or the width is unknown). For ds_*2* the two accesses are counted. */
double fp_sol_lane_bytes(const char *isa);
/* Cycles one wave's MFMA occupies its SIMD's matrix pipe on arch `rates`
 * (FLOPs / (dense FLOP per clock per CU / simds)); 0 when the opcode or its
 * data type is not known. *flop gets the opcode's FLOPs (may be NULL). */
double fp_sol_mfma_cycles(const char *isa, const fp_arch_rates *rates, int simds_per_cu, double *flop);

/* The trace HBM estimate is believed up to this % of peak (timing from a
 * separate run, +-10 %); above it the requested bytes are cache traffic. */
#define FP_SOL_TRACE_PLAUSIBLE_PCT 110.0

typedef struct fp_sol_in {
    const fp_code *code;
    const fp_arch_rates *rates;  /* NULL = arch unknown: no MFMA busy */
    int simds_per_cu;            /* 4 */
    int wave_size;               /* 64 */
    double traced_waves;         /* bubbles totals.waves */
    double span_total;           /* bubbles gain.span_total: traced SIMD cycles */
    double cu_cycles;            /* sum over traced CUs of the longest SIMD span; 0 = unknown */
    double grid_waves;           /* launch model; 0 = unknown */
    double wg_waves;             /* waves per workgroup (launch model); 0 = unknown: no unique bytes */
    double time_ns;              /* kernel duration; 0 = unknown */
    double peak_hbm_gbs;         /* the agent's peak (fp_sol_set_peak: the SoC's, scaled for a partition); 0 = unknown */
    const char *peak_source;     /* why peak_hbm_gbs is not the SoC's figure, NULL when it is (static text) */
    double lds_bytes_clk_cu;     /* LDS peak bytes per clock per CU; 0 = unknown */
    /* counters.json, when present (have_* false otherwise) */
    bool have_ctr_gbs, have_ctr_hbm_pct, have_ctr_mfma, have_ctr_valu;
    double ctr_gbs, ctr_hbm_pct, ctr_mfma_pct, ctr_valu_pct;
} fp_sol_in;

typedef struct fp_sol_num {
    bool have;
    double v;
} fp_sol_num;

typedef struct fp_sol {
    /* trace sums over the traced waves */
    double vmem_bytes_traced;  /* global/buffer/flat/scratch loads + stores + atomics + LDS-DMA */
    double vmem_load_bytes_traced, vmem_store_bytes_traced;
    double mfma_cycles_traced;
    double mfma_flop_traced;
    int64_t mfma_unknown;      /* MFMA executions whose cycles are unknown */
    int64_t mfma_rate_model;   /* MFMA executions costed by FLOP / rate (no table row, opcost.h) */
    double valu_cycles_traced; /* opcost.h VALU rows: 4 cycles, transcendentals more */
    int64_t valu_slow;         /* VALU executions costing more than 4 cycles */
    double lds_bytes_traced;
    /* issue 23 item 4: loads whose address does not depend on the workgroup id (dataflow.h)
     * read the same bytes in every workgroup: one workgroup's worth must cross HBM */
    double shared_load_bytes_traced; /* their bytes over the traced waves */
    int64_t shared_load_rows;        /* such load instructions (executed) */
    /* HBM */
    fp_sol_num hbm_bytes, hbm_gbs, hbm_pct;     /* the chosen source */
    const char *hbm_source;                      /* "trace" | "counters" | NULL */
    fp_sol_num trace_bytes, trace_gbs, trace_pct;  /* requested bytes: the upper bound */
    fp_sol_num unique_bytes, unique_gbs, unique_pct; /* unique bytes; unique_pct clamped to 100 */
    bool hbm_clamped;                                /* the trace figure was above 100 % of peak: printed as 100 */
    fp_sol_num ctr_gbs, ctr_pct;
    /* pipes */
    fp_sol_num mfma_busy, trace_mfma_busy, ctr_mfma;
    const char *mfma_source;
    fp_sol_num valu_busy, trace_valu_busy, ctr_valu;
    const char *valu_source;
    fp_sol_num lds_pct;
} fp_sol;

void fp_sol_compute(const fp_sol_in *in, fp_sol *out);

/* The HBM peak one agent of a partitioned MI300X / MI325X / MI350X / MI355X can reach
 * (docs/sol.md, "Partitions"): the memory partition mode decides, as rocprofiler-compute's
 * HBM channel count does (128 channels in NPS1, /4 in NPS4, /8 in NPS8; NPS2 /2 here):
 * NPS1 interleaves every HBM stack, so even a CPX agent keeps the device's peak; NPSn gives
 * each memory partition 1/n of the stacks. NPS unknown on a DPX/QPX/CPX agent: NPS1 is
 * assumed (the default) and the text gives the range. */
typedef struct fp_hbm_peak {
    double gbs;         /* the peak to use; 0 = unknown */
    double low_gbs;     /* the lowest the unknown mode allows (= gbs when the mode is known) */
    const char *source; /* NULL when gbs is the device's own figure and nothing is assumed */
    char text[240];     /* source's storage */
} fp_hbm_peak;
void fp_hbm_partition_peak(double device_gbs, const char *partition, const char *memory_partition,
                           fp_hbm_peak *out);
/* The compute partition an agent's XCD count shows against the device's ("SPX", "DPX",
 * "QPX", "CPX"), NULL when either is unknown or they do not divide. */
const char *fp_partition_name(int agent_xcds, int device_xcds);
/* in->peak_hbm_gbs / peak_source from the SoC's figure and the agent's partition modes
 * (the strings are kept in `store`, which must outlive in). */
void fp_sol_set_peak(fp_sol_in *in, double device_gbs, const char *partition, const char *memory_partition,
                     fp_hbm_peak *store);
/* report.json "sol" as its struct (report_doc.h; out overwritten). */
struct fp_report_sol;
void fp_sol_to_doc(const fp_sol *s, const fp_sol_in *in, struct fp_report_sol *out);

#endif
