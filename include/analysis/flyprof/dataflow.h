/*
 * dataflow.h - which memory instructions' addresses depend on the workgroup id
 * (issue 23 item 4, docs/sol.md "Requested vs unique bytes"). A forward taint
 * analysis over the kernel's ISA text (code.json) and its control-flow graph:
 * the workgroup-id SGPRs are tainted at entry, taint flows through every
 * instruction from its sources to its destinations (loads: from the address
 * to the loaded value), and a global / buffer load none of whose address
 * operands (vaddr, saddr, srsrc, soffset) is tainted reads the same bytes in
 * every workgroup: "shared" - after the first workgroup they hit in L2.
 */
#ifndef FLYPROF_DATAFLOW_H
#define FLYPROF_DATAFLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/att.h"

typedef enum fp_addr_kind {
    FP_ADDR_NONE = 0, /* not a vector-memory access */
    FP_ADDR_WG,       /* the address may depend on the workgroup id (or could not be told) */
    FP_ADDR_SHARED    /* the address does not depend on the workgroup id */
} fp_addr_kind;

/* The workgroup-id SGPRs found, at most this many are named. */
#define FP_DF_MAX_WG_SGPRS 8

typedef struct fp_dataflow {
    unsigned char *kind;   /* per code row (fp_code.rows order): fp_addr_kind */
    size_t n;
    int wg_sgprs[FP_DF_MAX_WG_SGPRS]; /* SGPR numbers taken as workgroup ids */
    int n_wg_sgprs;
    bool ttmp_ids;         /* ttmp registers read (gfx940+ architected workgroup ids): tainted too */
    bool cfg_exact;        /* every branch target resolved (else the analysis joined all blocks) */
    int iterations;        /* fixed-point passes */
} fp_dataflow;

/* Runs the analysis over `code`; out is overwritten (free with fp_dataflow_free). */
void fp_dataflow_run(const fp_code *code, fp_dataflow *out);
void fp_dataflow_free(fp_dataflow *df);

#endif
