/*
 * opcost.h - the per-arch opcode cost table (issue 23 item 3, docs/sol.md):
 * how many cycles one wave64 instruction holds its SIMD's matrix pipe (MFMA)
 * or vector ALU (VALU class), on gfx942 and gfx950. One data table in
 * opcost.c; every row names where its number comes from (a measurement in the
 * corpus, LLVM's scheduling model, AMD's published rates).
 */
#ifndef FLYPROF_OPCOST_H
#define FLYPROF_OPCOST_H

#include "flyprof/soc.h"

/* Where a cost came from. */
typedef enum fp_cost_src {
    FP_COST_TABLE = 0, /* a row of the opcode cost table */
    FP_COST_RATE,      /* no row: FLOP(op) / (the arch's dense rate per SIMD), docs/sol.md */
    FP_COST_UNKNOWN    /* neither: the opcode or its data type is not known on this arch */
} fp_cost_src;

typedef struct fp_opcost {
    double cycles;      /* issue cycles of one wave64 instruction; 0 when unknown */
    double flop;        /* MFMA: the opcode's FLOPs (2*M*N*K*blocks; sparse K/2); 0 otherwise */
    fp_cost_src src;
    const char *source; /* the row's source note (static), NULL unless FP_COST_TABLE */
} fp_opcost;

/* MFMA issue cycles of `isa` on arch `rates` (rates->arch names the table rows;
 * NULL rates = unknown). A table row wins; else the rate model (fp_sol_mfma_cycles). */
fp_opcost fp_opcost_mfma(const char *isa, const fp_arch_rates *rates, int simds_per_cu);
/* VALU issue cycles of a vector-ALU instruction (class valu, or a DPP/permlane
 * cross-lane op) on `arch` (NULL = the CDNA default of 4). */
fp_opcost fp_opcost_valu(const char *isa, const char *arch);

/* The rows, for docs and tests. fmt: 0 any operands; 1 at least one fp8/bf8
 * operand (f8f6f4 with cbsz or blgp < 2); 2 both operands fp6/fp4 (cbsz, blgp >= 2). */
typedef struct fp_opcost_row {
    const char *arch;   /* "gfx950" */
    const char *prefix; /* the lower-case opcode starts with this */
    int fmt;
    double cycles;
    const char *source;
} fp_opcost_row;
const fp_opcost_row *fp_opcost_mfma_rows(size_t *n);
const fp_opcost_row *fp_opcost_valu_rows(size_t *n);

#endif
