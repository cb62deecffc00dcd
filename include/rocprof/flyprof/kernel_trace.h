/*
 * kernel_trace.h - THE reader of rocprofv3's kernel_trace.csv (one row per
 * dispatch, rocprof-formats.md §3.2; also the Guid-led variant `rocpd convert`
 * writes, §3.7). Every command that needs the kernel trace (kernels/capture's
 * discovery, tile, counters, report, hotspots) reads it here: the header ->
 * column mapping is one table in kernel_trace.c, and no other file names a
 * kernel_trace.csv column.
 *
 * Two separate things:
 *   - reading: fp_kernel_trace_load() -> an array of typed rows (every column
 *     any consumer uses; text cells borrowed from the reader, numbers as
 *     fp_rp_num with each reading consumers apply, rpcell.h);
 *     fp_kernel_trace_load_matching() is the fast path `hotspots` uses (only the
 *     rows containing the kernel's name, and only the number columns asked for,
 *     are converted);
 *   - choosing which rows belong to the traced dispatch: fp_kt_pick(), the one
 *     documented rule (with today's per-command variants as its parameters).
 *
 * Errors: missing file NO_ARTIFACT, unreadable IO_ERROR, malformed CSV
 * BAD_INPUT naming the line (fp_csv's messages); a file that lacks the columns
 * a consumer needs: fp_kernel_trace_check() (BAD_INPUT).
 */
#ifndef FLYPROF_KERNEL_TRACE_H
#define FLYPROF_KERNEL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/csv.h"
#include "flyprof/error.h"
#include "flyprof/rpcell.h"

/* The columns a consumer reads (bit i of fp_kernel_trace.cols = column i present). */
typedef enum fp_kt_col {
    FP_KT_KIND,
    FP_KT_AGENT_ID,
    FP_KT_QUEUE_ID,
    FP_KT_DISPATCH_ID,
    FP_KT_KERNEL_ID,
    FP_KT_KERNEL_NAME,
    FP_KT_CORRELATION_ID,
    FP_KT_START,
    FP_KT_END,
    FP_KT_LDS_BLOCK_SIZE,
    FP_KT_SCRATCH_SIZE,
    FP_KT_VGPR,       /* VGPR_Count */
    FP_KT_ARCH_VGPR,  /* Arch_VGPR_Count (rocpd's CSV) */
    FP_KT_ACCUM_VGPR,
    FP_KT_SGPR,
    FP_KT_WG_X,
    FP_KT_WG_Y,
    FP_KT_WG_Z,
    FP_KT_GRID_X,
    FP_KT_GRID_Y,
    FP_KT_GRID_Z,
    FP_KT_WG_SIZE,    /* Workgroup_Size: counter_collection's x*y*z form */
    FP_KT_NCOLS
} fp_kt_col;

/* One dispatch. Text cells are NULL when the header lacks the column, never
 * otherwise; numbers have f == 0 then. */
typedef struct fp_kt_row {
    size_t line;              /* 1-based line of the row in the file */
    const char *kind;         /* "KERNEL_DISPATCH" */
    const char *agent_id;     /* "Agent 2" */
    const char *kernel_name;  /* formatted kernel name */
    fp_rp_num queue_id, dispatch_id, kernel_id, correlation_id;
    fp_rp_num start_ns, end_ns;           /* Start_Timestamp, End_Timestamp */
    fp_rp_num lds_block_size, scratch_size;
    fp_rp_num vgpr, arch_vgpr, accum_vgpr, sgpr;
    fp_rp_num wg[3];                      /* Workgroup_Size_X/Y/Z (work-items) */
    fp_rp_num grid[3];                    /* Grid_Size_X/Y/Z (work-items) */
    fp_rp_num wg_size;                    /* Workgroup_Size */
} fp_kt_row;

typedef struct fp_kernel_trace {
    fp_kt_row *rows;
    size_t nrows;
    unsigned long cols; /* 1UL << fp_kt_col for each column the header has */
    fp_csv csv_;        /* private: owns the text the rows point into */
} fp_kernel_trace;

/* Read every row. */
int fp_kernel_trace_load(const char *path, fp_kernel_trace *out, fp_err *err);
int fp_kernel_trace_parse(const char *buf, size_t len, const char *name, fp_kernel_trace *out, fp_err *err);
/* The fast path: only rows whose bytes contain `needle` (a superset of the rows
 * any name match can pick; fp_csv_load_matching, which still checks every row),
 * and of their number cells only the columns in `want` (bits 1UL << fp_kt_col; 0 =
 * all): the others read as absent (fp_rp_have false) although the header has them
 * (kt->cols still says which the file has). needle NULL or "" = every row. */
int fp_kernel_trace_load_matching(const char *path, const char *needle, unsigned long want, fp_kernel_trace *out,
                                  fp_err *err);
void fp_kernel_trace_free(fp_kernel_trace *kt);

static inline bool fp_kernel_trace_has(const fp_kernel_trace *kt, fp_kt_col c) { return kt->cols >> c & 1UL; }

/* What a consumer needs of the header. */
typedef enum fp_kt_need {
    FP_KT_NEED_NAME,   /* Kernel_Name (discovery): "<path>: no Kernel_Name column" */
    FP_KT_NEED_REGS,   /* Kernel_Name + VGPR_Count (hotspots): "<path>: not a kernel-trace CSV (...)" */
    FP_KT_NEED_TIMING, /* Kernel_Name + Start/End_Timestamp (a trace to aggregate, `kernels --csv`) */
} fp_kt_need;
/* 0 when the header has the columns, else BAD_INPUT (err may be NULL to only ask). */
int fp_kernel_trace_check(const fp_kernel_trace *kt, const char *path, fp_kt_need need, fp_err *err);
/* The same question of any parsed CSV's header (telling a kernel trace from a
 * kernel_stats.csv without converting rows). */
bool fp_kernel_trace_header_has(const fp_csv *csv, fp_kt_need need);
/* The columns FP_KT_NEED_TIMING asks for, as messages spell them. */
#define FP_KT_TIMING_COLS "Kernel_Name, Start_Timestamp, End_Timestamp"

/* ---- the rows of the traced dispatch ----
 *
 * THE rule for which rows of a kernel trace describe the kernel being analysed
 * (rocprofv3 traces every dispatch of every kernel, §1.5): the rows whose
 * Kernel_Name matches `kernel`; their count, the first and the last of them,
 * and the mean End - Start over those with usable timestamps. Commands differ
 * today in how they match and which timestamps they trust, and the rule keeps
 * each as it is (an issue after #16 makes it one):
 *   report    FP_KT_EXACT,    FP_KT_TIME_ANY     (registers from the last row)
 *   counters  FP_KT_CONTAINS, FP_KT_TIME_BOUNDED (the mean duration)
 *   tile      FP_KT_CONTAINS                     (the first row, the count)
 *   hotspots  FP_KT_EXACT_ELSE_CONTAINS          (the first row, the count)
 * A NULL kernel, or no Kernel_Name column, matches nothing. */
typedef enum fp_kt_match {
    FP_KT_EXACT,               /* Kernel_Name == kernel */
    FP_KT_CONTAINS,            /* Kernel_Name contains kernel */
    FP_KT_EXACT_ELSE_CONTAINS, /* exact rows when there are any, else containing rows */
} fp_kt_match;

typedef enum fp_kt_time {
    FP_KT_TIME_ANY,     /* both timestamps numbers (strtod) and End > Start */
    FP_KT_TIME_BOUNDED, /* both finite numbers in [0, 1e18] (the counter cells' bound) and End > Start */
} fp_kt_time;

/* Why a named row is not the traced dispatch (fp_kt_pick_traced). */
typedef enum fp_kt_reject {
    FP_KT_REJ_GRID,      /* its workgroup count cannot give the traced units' counts */
    FP_KT_REJ_WORKGROUP, /* its waves per workgroup do not divide a traced unit's waves */
    FP_KT_REJ_LDS,       /* LDS_Block_Size 0 for a listing that uses LDS, or not the recorded size */
    FP_KT_REJ_VGPR,      /* VGPR_Count is not the recorded count */
    FP_KT_REJ_COUNT
} fp_kt_reject;

typedef struct fp_kt_pick {
    size_t n;           /* rows matched */
    size_t first, last; /* indices of the first / last matched row (n > 0) */
    size_t timed;       /* matched rows with usable timestamps */
    double mean_ns;     /* mean End - Start over them, 0 when none */
    /* issue 23 (filled by fp_kt_pick_traced; fp_kt_pick_rows fills the spread too) */
    size_t named;       /* rows with the kernel's name, before the identity test */
    size_t named_last;  /* index of the last of them (named > 0) */
    size_t rejected[FP_KT_REJ_COUNT]; /* named rows refused, by the first test they failed */
    double median_ns, min_ns, max_ns; /* over the timed matched rows (0 when none) */
    size_t outliers;    /* timed rows outside [median / 2, 2 x median] */
    char sha256[65];    /* hex SHA-256 of the matched rows' cells ("" when none) */
} fp_kt_pick;

void fp_kt_pick_rows(const fp_kernel_trace *kt, const char *kernel, fp_kt_match match, fp_kt_time time,
                     fp_kt_pick *out);
/* The same row choice without the spread (median, range, outliers, sha256): for a
 * consumer that reads only the matched rows' resources (hotspots), the hash of every
 * matched row's cells was half of its run. */
void fp_kt_pick_count(const fp_kernel_trace *kt, const char *kernel, fp_kt_match match, fp_kt_pick *out);

/* What the trace says the dispatch was; every part optional. The waves test: the
 * dispatcher deals workgroups round-robin over the agent's `agent_units` units
 * (XCDs; SEs when the trace holds part of one), so each traced unit holds
 * floor(W / U) or ceil(W / U) of the W workgroups, give or take `slack`, and a
 * whole number of workgroups. */
typedef struct fp_kt_identity {
    const int64_t *unit_waves; /* waves each traced unit ran (NULL / n_units 0: not tested) */
    size_t n_units;
    int64_t agent_units;
    int64_t slack;
    int wave_size;             /* 64 on CDNA */
    int lds_used;              /* 1: the listing has LDS instructions, 0: none, -1 unknown */
    double lds_bytes, vgpr;    /* the dispatch's own counts, < 0 unknown */
} fp_kt_identity;

/* The rule of fp_kt_pick_rows, then only the rows whose launch is the traced
 * dispatch's (id NULL = every named row). */
void fp_kt_pick_traced(const fp_kernel_trace *kt, const char *kernel, fp_kt_match match, fp_kt_time time,
                       const fp_kt_identity *id, fp_kt_pick *out);
/* "grid", "workgroup", "lds", "vgpr" */
const char *fp_kt_reject_name(fp_kt_reject r);

#endif
