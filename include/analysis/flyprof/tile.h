/*
 * tile.h - the GEMM tile advisor: for a BM x BN x BK tile of a GEMM, the LDS it
 * needs, a register estimate and the occupancy that follows (through the one
 * occupancy model, occupancy.h), arithmetic intensity against the SoC's ridge,
 * and how the grid of tiles fills the compute units.
 *
 * It is a heuristic for GEMM-shaped kernels: the register estimate assumes one
 * 32-bit accumulator per output element per thread and one register stage of
 * A/B; the traffic model assumes no L2 reuse between tiles. When the real
 * kernel's resources are known (kernel trace), fp_tile_real evaluates those
 * instead.
 */
#ifndef FLYPROF_TILE_H
#define FLYPROF_TILE_H

#include <stdbool.h>

#include "flyprof/occupancy.h"
#include "flyprof/soc.h"

/* LDS is allocated in 512-byte blocks on gfx9 (kernel_trace LDS_Block_Size is
 * group_segment_size rounded up to 512 B, rocprof-formats.md §3.2). */
#define FP_LDS_GRANULE 512
/* Registers the estimate adds for addresses, loop counters and indices. */
#define FP_TILE_VGPR_OVERHEAD 16
/* At most 256 arch and 256 accumulation VGPRs per wave (LLVM b7611370, §7.1). */
#define FP_TILE_MAX_ARCH_VGPR 256
#define FP_TILE_MAX_ACC_VGPR 256
/* Waves per SIMD the search wants so that one wave's stall can be hidden. */
#define FP_TILE_WANT_WAVES 2
/* Grid efficiency at or above this is "balanced". */
#define FP_GRID_BALANCED 0.9
/* Largest GEMM dimension accepted (2^26). */
#define FP_TILE_MAX_DIM (1LL << 26)

typedef struct fp_grid {
    long long tiles;      /* workgroups */
    int cus;
    int wgs_per_cu;       /* resident at once (occupancy), >= 1 */
    long long per_cu_max; /* ceil(tiles / cus): tiles the busiest CU runs */
    long long rounds;     /* ceil(tiles / (cus * wgs_per_cu)) */
    double efficiency;    /* tiles / (cus * per_cu_max): 1.0 = every CU equally loaded */
    const char *verdict;  /* "underfilled" | "full" | "balanced" | "tail" */
    char detail[160];
} fp_grid;

/* Grid fill of `tiles` workgroups on `cus` CUs, wgs_per_cu resident per CU. */
void fp_grid_fill(long long tiles, int cus, int wgs_per_cu, fp_grid *g);

typedef struct fp_tile_in {
    long long m, n, k;    /* 0 = unknown */
    fp_dtype dtype, out_dtype;
    int bm, bn, bk, buffers, wg_size;
} fp_tile_in;

typedef struct fp_tile_eval {
    fp_tile_in in;
    long long lds_bytes;
    int lds_limit;
    bool lds_ok;
    int vgpr_acc, vgpr_arch, vgpr_total;
    bool regs_ok;         /* arch <= 256 and acc <= 256 */
    fp_occ_out occ;
    int waves_per_cu;
    double occupancy_pct;
    double ai_tile;       /* 2*BM*BN*BK / ((BM+BN)*BK*b): per K step, no reuse across tiles */
    double ai_traffic;    /* whole GEMM, each tile re-reads its panels (0 without a shape) */
    double ai_ideal;      /* whole GEMM, every byte once (0 without a shape) */
    double ridge;         /* 0 when the product is unknown */
    const char *regime;   /* "memory-bound" | "compute-bound" | NULL (no ridge) */
    bool have_grid;
    fp_grid grid;
    double score;
} fp_tile_eval;

/* Evaluate one tile. limits must not be NULL; soc may lack a product. */
void fp_tile_evaluate(const fp_soc_sel *soc, const fp_tile_in *in, fp_tile_eval *out);

/* Search BM, BN in {256,128,64}, BK in {256,128,64,32} (same shape, dtype,
 * buffers, wg_size); keeps tiles whose LDS and registers fit and that reach one
 * wave per SIMD; stable-sorted by score. Returns the count written (<= max). */
size_t fp_tile_search(const fp_soc_sel *soc, const fp_tile_in *base, fp_tile_eval *out, size_t max,
                      size_t *considered);

/* The evaluation / grid fill as tile.json's objects (tile_doc.h; *d is overwritten,
 * free with fp_model_free of fp_tile_eval_doc_schema / fp_tile_grid_doc_schema). */
struct fp_tile_doc_eval;
struct fp_tile_doc_grid;
void fp_tile_eval_to_doc(const fp_tile_eval *e, struct fp_tile_doc_eval *d);
void fp_grid_to_doc(const fp_grid *g, struct fp_tile_doc_grid *d);

#endif
