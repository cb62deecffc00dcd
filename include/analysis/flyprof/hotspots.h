/*
 * hotspots.h - the seed analyzer (`hotspot_analyzer.py` v0, described in
 * ../shared/reference/hotspot-analyzer-algorithm.md) as pure computation:
 * stall taxonomy, totals, per-type breakdown, aggregation by source line,
 * stable rankings, the ISA register scan and the arch heuristic; plus the
 * register/occupancy block of seed 000 (flyprof/occupancy.h) and the two
 * renderers (the analyzer's exact text, and JSON data).
 *
 * Nothing here reads files: the command loads code.json, snapshots.json and the
 * kernel-trace CSV and passes them in.
 */
#ifndef FLYPROF_HOTSPOTS_H
#define FLYPROF_HOTSPOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/att.h"
#include "flyprof/error.h"
#include "flyprof/hotspots_doc.h"
#include "flyprof/occupancy.h"
#include "flyprof/strbuf.h"

/* Stall types, in the order of the classification table (algorithm §4). */
typedef enum fp_stall_type {
    FP_ST_VMEM_WAIT,
    FP_ST_LGKM_WAIT, /* "LDS/SMEM-wait" */
    FP_ST_EXP_WAIT,
    FP_ST_WAITCNT,
    FP_ST_BARRIER,
    FP_ST_VMEM_LOAD,
    FP_ST_VMEM_STORE,
    FP_ST_LDS,
    FP_ST_SMEM,
    FP_ST_MFMA,
    FP_ST_OTHER,
    FP_ST_COUNT
} fp_stall_type;

const char *fp_stall_type_name(fp_stall_type t);
/* Classify one ISA string (case-insensitive substring rules, first match wins). */
fp_stall_type fp_stall_classify(const char *isa);

/* One kept instruction (a code.json row whose LineNumber is a non-zero integer). */
typedef struct fp_hs_inst {
    const fp_inst *row;   /* borrowed from the fp_code */
    const char *loc;      /* row->source, or "<unknown>" when empty */
    fp_stall_type type;
    size_t line;          /* index of its source line group */
} fp_hs_inst;

typedef struct fp_hs_line {
    const char *loc;
    int64_t stall;        /* sum of Stall over every instruction of the line */
    int64_t cycles;       /* sum of Latency, non-stalling ones included */
    size_t *stalling;     /* indices into inst[] with Stall > 0, code order */
    size_t nstalling;
    fp_stall_type dominant;
} fp_hs_line;

typedef struct fp_hs_type_sum {
    fp_stall_type type;
    int64_t stall;
} fp_hs_type_sum;

/* The ISA register scan and opcode heuristic (algorithm §8). */
typedef struct fp_isa_scan {
    int64_t max_v, max_a;     /* highest first index of v/a registers, 0 when none */
    int arch_vgpr;            /* max_v + 1 */
    int accum_vgpr;           /* max_a + 1 when max_a > 0, else 0 */
    bool gfx950_opcodes;      /* a gfx950-only MFMA was seen */
    size_t mfma, buffer_load, buffer_store, ds_read, ds_write; /* instruction mix */
} fp_isa_scan;

typedef struct fp_hotspots {
    fp_hs_inst *inst;
    size_t ninst;
    int64_t total_stall, total_cycles;
    bool overflow;            /* a sum would exceed int64: sums saturate */
    fp_hs_type_sum by_type[FP_ST_COUNT]; /* ranked, n_types used */
    size_t n_types;
    fp_hs_line *lines;        /* groups in first-appearance order */
    size_t nlines;
    size_t *line_rank;        /* nlines indices, stall desc, stable */
    size_t n_stalling_lines;  /* lines with stall > 0 */
    size_t *inst_rank;        /* indices of instructions with Stall > 0, stall desc, stable */
    size_t n_stalling;
    fp_isa_scan isa;
} fp_hotspots;

/* Analyse a loaded code.json. Never fails on content (zero rows is a valid,
 * empty result); returns -1 only for impossible input (NULL). */
int fp_hotspots_compute(const fp_code *code, fp_hotspots *out, fp_err *err);
void fp_hotspots_free(fp_hotspots *hs);

/* 100*a/b in double, 0 when b == 0 (algorithm §5/§6: Python's zero guards). */
double fp_hs_pct(int64_t a, int64_t b);

/* ---- register / occupancy block (seed 000 model) ---- */

/* Where the architecture came from. */
typedef enum fp_arch_src { FP_ARCH_FLAG, FP_ARCH_AGENT_INFO, FP_ARCH_HEURISTIC } fp_arch_src;

/* Authoritative counts from one kernel_trace.csv row (see fp_kernel_meta in csv.h). */
typedef struct fp_hs_csv_regs {
    bool have;
    const char *path;        /* the CSV file */
    const char *kernel_name; /* the matched row's Kernel_Name */
    size_t line;             /* its line in the CSV */
    size_t matches;          /* rows that matched */
    int vgpr, accum, sgpr, lds, wg; /* -1 when the column is missing */
} fp_hs_csv_regs;

typedef struct fp_hs_regs {
    const fp_arch_limits *arch;
    fp_arch_src arch_src;
    const char *arch_detail;   /* e.g. "agent_info.csv Gfx_Target_Version 90500" (borrowed) */
    const char *heuristic;     /* what the opcode heuristic says: "gfx950" or "gfx942" */
    int arch_vgpr, accum_vgpr; /* the values used */
    const char *arch_vgpr_src, *accum_vgpr_src; /* "isa", "csv", "csv(x2 gfx950)" */
    int csv_arch_vgpr;         /* CSV arch VGPRs after the gfx950 correction, -1 none */
    bool gfx950_corrected;
    fp_occ_in in;
    fp_occ_out occ;
    const fp_hs_csv_regs *csv; /* borrowed, may have have == false */
} fp_hs_regs;

/* Combine the ISA scan, the CSV row and the architecture into the occupancy block. */
void fp_hs_regs_compute(const fp_hotspots *hs, const fp_arch_limits *arch, fp_arch_src arch_src,
                        const char *arch_detail, const fp_hs_csv_regs *csv, fp_hs_regs *out);

/* ---- rendering ---- */

typedef struct fp_hs_opts {
    long long topk;     /* >= 1 */
    bool show_src, show_asm;
    bool detail;
    long long context;  /* >= 0 */
    const char *loading_arg; /* the DIR argument exactly as given (line 2) */
} fp_hs_opts;

/* The analyzer's text, byte for byte (except the register block). */
void fp_hotspots_render_text(const fp_hotspots *hs, const fp_hs_regs *regs,
                             const fp_snapshots *snaps, const fp_hs_opts *o, fp_sb *out);
/* The same analysis as data (hotspots_doc.h; free with fp_model_free(&fp_hotspots_doc_schema, d)).
 * Lists are cut to topk; source_lines_total / stalling_instructions_total are the uncut
 * sizes (for the envelope's `truncated`). dispatch_dir and symbol are the caller's. */
void fp_hotspots_doc_fill(const fp_hotspots *hs, const fp_hs_regs *regs, const fp_snapshots *snaps,
                          const fp_hs_opts *o, fp_hotspots_doc *d);

/* Snippet window of a source_loc (algorithm §9): lo and hi 0-based [lo, hi), *hot the
 * 1-based hot line. Returns the file or NULL when no snippet applies. */
const fp_source_file *fp_hs_snippet(const fp_snapshots *snaps, const char *loc, long long ctx,
                                    size_t *lo, size_t *hi, long long *hot);

#endif
