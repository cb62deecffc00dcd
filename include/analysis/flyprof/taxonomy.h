/*
 * taxonomy.h - the stall taxonomy of `bubbles`: which class each instruction's
 * stall belongs to, and whether that class is a bubble (the wave waits instead
 * of working). The classification is ONE data table in taxonomy.c (opcode
 * pattern -> class); adding a case is adding a row.
 */
#ifndef FLYPROF_TAXONOMY_H
#define FLYPROF_TAXONOMY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fp_inst; /* flyprof/att.h */

typedef enum fp_class {
    FP_CL_VMCNT = 0, /* s_waitcnt waiting on vector memory (vmcnt / loadcnt / storecnt / vscnt) */
    FP_CL_LGKMCNT,   /* s_waitcnt waiting on LDS / SMEM / messages (lgkmcnt / dscnt / kmcnt) */
    FP_CL_EXPCNT,    /* s_waitcnt expcnt */
    FP_CL_WAITCNT,   /* s_waitcnt whose counter could not be told */
    FP_CL_BARRIER,   /* s_barrier, s_wait_idle */
    FP_CL_NOP,       /* s_nop: hazard padding (MFMA / VALU read-after-write) */
    FP_CL_MFMA,      /* v_mfma*, v_smfma* */
    FP_CL_ACCVGPR,   /* v_accvgpr_read/write/mov: moves in/out of the accumulator file */
    FP_CL_LDS_DMA,   /* buffer/global loads straight into LDS (`... lds`, *_lds_*) */
    FP_CL_SCRATCH,   /* scratch_* : register spills */
    FP_CL_ATOMIC,    /* buffer/global/flat atomics */
    FP_CL_VMEM_LOAD,
    FP_CL_VMEM_STORE,
    FP_CL_LDS,
    FP_CL_XLANE,     /* cross-lane shuffles: ds_bpermute/ds_permute/ds_swizzle (LDS crossbar, no LDS memory),
                      * DPP-modified VALU ops (_dpp suffix or a row_, quad_perm, wave_ control), v_permlane */
    FP_CL_SMEM,
    FP_CL_VALU,
    FP_CL_BRANCH,
    FP_CL_SALU,
    FP_CL_DRAIN,     /* s_endpgm: the wave's outstanding stores/loads draining at exit */
    FP_CL_OTHER,
    FP_CL_COUNT
} fp_class;

typedef struct fp_class_info {
    fp_class cls;
    const char *name;  /* "vmcnt" */
    bool is_bubble;    /* the wave is waiting, not working */
    const char *what;  /* one line for docs / table output */
} fp_class_info;

/* Indexed by fp_class. */
extern const fp_class_info fp_class_table[FP_CL_COUNT];

const char *fp_class_name(fp_class c);
bool fp_class_is_bubble(fp_class c);
/* Class by name, or -1. */
int fp_class_by_name(const char *name);

/* Which counters an s_waitcnt names with a value below its maximum (i.e. that
 * it actually waits for). */
typedef struct fp_waitcnt_fields {
    bool is_wait;      /* the instruction is an s_waitcnt / s_wait_* counter wait */
    bool vm, lgkm, exp; /* named counters */
    int vm_n, lgkm_n, exp_n; /* their values (-1 when not named) */
} fp_waitcnt_fields;

void fp_waitcnt_parse(const char *isa, fp_waitcnt_fields *out);

/* Static class of an ISA line (case-insensitive, on the opcode and operands).
 * A wait naming more than one counter is FP_CL_WAITCNT here: the trace decides
 * (fp_class_is_combined_wait). */
fp_class fp_classify(const char *isa);
/* fp_classify(isa) for a caller that has wf = fp_waitcnt_parse(isa) already (the wait
 * is not parsed again). */
fp_class fp_classify_parsed(const char *isa, const fp_waitcnt_fields *wf);
/* Does the opcode (after blanks) start "s_", in any case? Every class of a scalar
 * instruction the table names by an "s_" prefix - waits, barrier, nop, smem, drain,
 * branch, salu - needs it, so a caller may skip fp_classify on the other rows when it
 * only asks for those classes (test_taxonomy holds the table to it for branch and
 * drain on every corpus line). */
bool fp_isa_is_scalar(const char *isa);
/* Lower-case the first word of isa (the opcode) into op (cap bytes, NUL-terminated); its length. */
size_t fp_opcode_lc(const char *isa, char *op, size_t cap);
/* True for a counter wait that names more than one counter (vmcnt + lgkmcnt ...),
 * whose class is decided per execution by what it waited on. */
bool fp_class_is_combined_wait(const char *isa);

/* Target vaddr of an s_branch / s_cbranch_* row: pc + 4 + 4 * simm16 (the offset
 * counts dwords from the next instruction). ONE place for this rule because the
 * decoder's code.json prints simm16 unsigned (65535 is -1: >= 32768 is negative)
 * while our generator prints it signed, and loops, workid and dataflow each need
 * it; both spellings are accepted. False for a non-branch, an indirect jump
 * (s_setpc / s_swappc: register operand), no numeric operand, or an operand
 * outside [-32768, 65535]. Callers add their own row conditions (index_ok ...). */
bool fp_branch_target(const struct fp_inst *r, int64_t *target);

/* Counter kind a producer instruction increments (for waitcnt attribution). */
typedef enum fp_counter { FP_CNT_NONE = 0, FP_CNT_VM, FP_CNT_LGKM } fp_counter;
/* From the decoder category when known (cat >= 0), else from the class. */
fp_counter fp_counter_of(fp_class c, int cat);

#endif
