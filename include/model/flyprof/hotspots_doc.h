/*
 * hotspots_doc.h - the data of `flyprof hotspots -f json` as a typed document: the
 * seed analyzer's totals, stall by type, ranked source lines and instructions, and
 * the register / occupancy block. Filled by src/analysis/hotspots_render.c
 * (fp_hotspots_doc_fill), written by the table in src/model/hotspots_doc.c.
 *
 * Percentages are 0..100, cycles are the decoder's cycles. Keys present only in some
 * modes (--mode src|asm|both, --detail) are FP_F_WHEN fields: their `has_*` member
 * says whether the key is written.
 */
#ifndef FLYPROF_HOTSPOTS_DOC_H
#define FLYPROF_HOTSPOTS_DOC_H

#include "flyprof/model.h"

typedef struct fp_hsd_type {
    char *type;   /* the analyzer's stall type name */
    int64_t stall;
    double pct;   /* % of total stall */
} fp_hsd_type;

typedef struct fp_hsd_inst {
    fp_optd rank; /* 1-based rank among stalling instructions; absent inside a line's list */
    int64_t pc_index;
    int64_t stall, cycles;
    double pct_total; /* % of total stall */
    char *type, *asm_text, *source_loc;
} fp_hsd_inst;

typedef struct fp_hsd_snip_line {
    int64_t line; /* 1-based */
    char *text;   /* right-stripped */
    bool hot;
} fp_hsd_snip_line;

typedef struct fp_hsd_snippet {
    char *file;   /* the local source copy */
    int64_t hot_line;
    fp_hsd_snip_line *lines;
    size_t nlines;
} fp_hsd_snippet;

typedef struct fp_hsd_line {
    int64_t rank;
    char *source_loc;
    int64_t stall, cycles;
    double pct_total, stall_pct;
    char *dominant_type;
    int64_t stalling_total;          /* stalling instructions on the line (uncut) */
    double *stalling_pc_index;       /* the top ones' pc indices (cut to --topk) */
    size_t nstalling_pc_index;
    bool has_detail;                 /* --detail: the two keys below */
    fp_hsd_inst *stalling_instructions;
    size_t nstalling_instructions;
    fp_hsd_snippet *snippet;         /* NULL: no source copy */
} fp_hsd_line;

typedef struct fp_hsd_csv {
    char *path;
    int64_t line;
    char *kernel_name;
    int64_t rows_matched;
    fp_optd vgpr, accum_vgpr, sgpr, lds, workgroup_size; /* unknown: the column is missing */
    bool gfx950_undercount_corrected;
} fp_hsd_csv;

typedef struct fp_hsd_valsrc {
    int64_t value;
    char *source;
} fp_hsd_valsrc;

typedef struct fp_hsd_res {
    int64_t amount;   /* bytes per workgroup (lds) or count (sgpr) */
    int64_t per_unit; /* per CU (lds) or per SIMD (sgpr) */
    char *source;     /* "kernel_trace" or NULL */
} fp_hsd_res;

typedef struct fp_hsd_next {
    int64_t waves;
    int64_t total_vgpr_at_most;
    bool other_limits_bind;
} fp_hsd_next;

typedef struct fp_hsd_regs {
    char *arch, *family, *arch_source, *arch_detail, *opcode_heuristic;
    int64_t isa_max_v, isa_max_a, isa_arch_vgpr, isa_accum_vgpr;
    fp_hsd_csv *kernel_trace; /* NULL: no kernel_trace.csv row */
    fp_hsd_valsrc arch_vgpr, accum_vgpr;
    int64_t total_vgpr, vgpr_pool;
    fp_hsd_res lds, sgpr;
    int64_t workgroup_size, waves_per_workgroup;
    int64_t limit_vgpr;
    fp_optd limit_lds, limit_sgpr; /* unknown: not limiting / not known */
    int64_t limit_hardware;
    int64_t occupancy;
    char *bound_by;
    fp_hsd_next *next; /* NULL: no higher occupancy step */
    int64_t mix_mfma, mix_buffer_load, mix_buffer_store, mix_ds_read, mix_ds_write;
} fp_hsd_regs;

typedef struct fp_hotspots_doc {
    char *kernel;
    int64_t instructions, total_cycles, total_stall;
    fp_optd stall_pct;  /* unknown when total_cycles is 0 */
    fp_hsd_type *stall_by_type;
    size_t nstall_by_type;
    bool has_src;       /* --mode src|both */
    fp_hsd_line *source_lines;
    size_t nsource_lines;
    int64_t source_lines_total;
    bool has_asm;       /* --mode asm|both */
    fp_hsd_inst *instructions_ranked;
    size_t ninstructions_ranked;
    int64_t stalling_instructions_total;
    fp_hsd_regs registers;
    char *dispatch_dir;
    char *symbol;       /* code.json's kernel symbol, or NULL */
} fp_hotspots_doc;

extern const fp_schema fp_hotspots_doc_schema;

#endif
