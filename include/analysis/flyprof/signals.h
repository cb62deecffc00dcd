/*
 * signals.h - the evidence the knob rules read, gathered in one struct from
 * whatever the bundle holds: bubbles.json (stall classes, exposed stall,
 * upper-bound gains, hotspots with .py:line and waitcnt producers), map.json,
 * counters.json, tile.json and capture.json.
 *
 * Every optional number is an fp_optd (known + value) so that a rule can tell
 * "zero" from "not measured", and the report can say which evidence was
 * missing. The struct owns all its strings; free with fp_signals_free.
 */
#ifndef FLYPROF_SIGNALS_H
#define FLYPROF_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/att.h"
#include "flyprof/bound.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/error.h"
#include "flyprof/kernel_trace.h"
#include "flyprof/launch.h"
#include "flyprof/loops.h"
#include "flyprof/model.h"
#include "flyprof/sol.h"
#include "flyprof/soc.h"

/* An optional number: fp_optd of model.h. */
#include "flyprof/capture_doc.h"
#include "flyprof/map_doc.h"

#define FP_SIG_MAX_PRODUCERS 3

/* A memory instruction an s_waitcnt waits on (decoder waitcnt edge). */
typedef struct fp_sig_producer {
    int64_t code_line;
    char *isa;
    char *source;        /* "file.py:line" or "" */
    char *cls;           /* taxonomy class of the producer ("lds", "smem", "vmem_load", ...) */
    fp_optd load_to_use; /* measured cycles from the load's issue to the wait's release */
    fp_optd share;       /* fraction of the wait's stall attributed to this producer */
} fp_sig_producer;

/* Producer groups a wait can be narrowed to (see fp_sig_class.hot_prod). */
/* Producer groups a rule can narrow its evidence and gain to. GLOBAL = loads from
 * global memory (buffer/global/flat loads, LDS-DMA loads): what a prefetch or an
 * earlier issue can hide, unlike a scratch reload (a spill) waited on by the same vmcnt. */
/* SMEM = scalar loads (kernel arguments, s_buffer_load); FLAT = flat_* loads, which
 * count on both vmcnt and lgkmcnt. A wait's stall is split over its producers'
 * kinds by their stall shares before any class-specific rule reads it. */
typedef enum fp_prod_group {
    FP_PROD_ANY = 0,
    FP_PROD_LDS,
    FP_PROD_SCRATCH,
    FP_PROD_GLOBAL,
    FP_PROD_SMEM,
    FP_PROD_FLAT,
    FP_PROD_XLANE,      /* cross-lane shuffles through the LDS crossbar (ds_bpermute / ds_permute / ds_swizzle) */
    FP_PROD_SMEM_ENTRY, /* scalar loads before the kernel's first s_waitcnt: the kernel-argument prologue */
    FP_PROD_COUNT
} fp_prod_group;

/* "any", "lds", "scratch", "global", "smem", "flat", "crosslane", "smem_entry" (one table, signals.c). */
const char *fp_prod_group_name(fp_prod_group g);
/* The group a producer instruction belongs to (FP_PROD_ANY when none). */
fp_prod_group fp_prod_group_of(const char *isa, const char *cls);

/* The hottest instruction of one stall class. */
typedef struct fp_sig_hot {
    bool present;
    int64_t code_line;
    char *isa;
    char *source;    /* "file.py:line" or "" when unmapped */
    char *snippet;   /* text of the source line, or NULL when no source copy */
    int64_t hit;
    int64_t stall;
    fp_optd exposed; /* exposed (not hidden by other waves) stall cycles */
    int64_t line_class_stall; /* stall of every instruction of this class on the same source line */
    bool entry_line;  /* its line is a kernel entry/decorator line (chosen only when nothing else stalls) */
    fp_sig_producer producers[FP_SIG_MAX_PRODUCERS];
    size_t nproducers;
} fp_sig_hot;

/* One stall class of the taxonomy, with its share and payoff. */
typedef struct fp_sig_class {
    char *name;
    bool is_bubble;
    int64_t stall;     /* cycles */
    double stall_pct;  /* % of total stall */
    fp_optd exposed;   /* exposed stall cycles */
    fp_optd gain_pct;  /* upper-bound kernel gain if the exposed stall were hidden, % */
    fp_optd mix;       /* hit-weighted fraction of executed instructions, 0..1 */
    int64_t static_count; /* instructions of this class in the listing */
    fp_sig_hot hot;
    /* per producer group (FP_PROD_*): the hottest instruction of the class that
     * waits on such a producer, and the summed upper-bound gain of all such
     * instructions. lgkmcnt mixes LDS and scalar-memory waits and vmcnt mixes
     * global loads and spill reloads: a rule about LDS (or spills) must point
     * at the waits on LDS (or scratch) producers. */
    fp_sig_hot hot_prod[FP_PROD_COUNT];
    fp_optd gain_prod_pct[FP_PROD_COUNT];
    double stall_prod[FP_PROD_COUNT]; /* class stall cycles attributed to each producer kind */
    bool has_producers; /* some hotspot of the class names its producers (waits_on) */
} fp_sig_class;

typedef struct fp_signals {
    /* identity / provenance */
    char *kernel;
    char *arch;        /* "gfx950" or NULL when unknown */
    char *product;     /* "AMD Instinct MI350X" or NULL */
    char *dispatch_dir;
    /* totals */
    int64_t instructions;
    int64_t total_latency;
    int64_t total_stall;
    double stall_pct;
    fp_optd waves;
    /* taxonomy, in rank order (stall desc) */
    fp_sig_class *classes;
    size_t nclasses;
    /* trace-derived specials */
    fp_optd scratch_insts;     /* executed scratch_* instructions (register spills) */
    fp_optd nop_mfma_pct;      /* s_nop cycles between dependent MFMAs, % of total latency */
    fp_optd load_use_exposed;  /* hottest vmcnt wait: stall / load-to-use cycles, 0..1 */
    /* counters.json */
    fp_optd partial_32b;       /* 0..1 */
    fp_optd l2_hit;            /* % */
    fp_optd lds_conflict_pct;  /* % */
    fp_optd mfma_frac;         /* MFMA pipe utilisation, 0..1 */
    fp_optd achieved_gbs;
    fp_optd peak_gbs;
    fp_optd pct_hbm_roof;      /* achieved / peak, % */
    fp_optd time_ns;           /* per call */
    /* occupancy (capture.json / occupancy model) */
    fp_optd waves_per_cu;
    fp_optd waves_per_simd;
    fp_optd next_waves_per_cu; /* the next occupancy step */
    fp_optd vgpr_to_next;      /* registers to free to reach it */
    fp_optd arch_vgpr;
    fp_optd accum_vgpr;
    fp_optd lds_bytes;         /* per workgroup */
    fp_optd sgpr;
    fp_optd wg_size;
    fp_optd scratch_size;      /* bytes per work-item (kernel_trace.csv Scratch_Size) */
    char *occ_source;          /* where the register counts came from */
    char *occ_limiter;         /* "VGPR", "LDS", ... or NULL */
    /* the bound: bound.h's shared classification over the inputs gathered here */
    fp_bound_in bound_in;
    fp_bound_result bound_res;
    const char *bound;         /* fp_bound_name(bound_res.bound), or NULL when unknown */
    /* timing / provenance extras */
    char *shape;
    char *invocation;
    char *recipe_kernel;
    char *tile_text;           /* "BM=128 BN=128 BK=64" when the kernel's real tile is known */
    /* capture quality: 0..1 multiplier on recommendation confidence, and why */
    double capture_confidence;
    fp_optd src_mapped_pct;    /* map.json: % of latency on instructions with a source line */
    char **quality_issues;     /* capture-quality issues, in the order found (owned) */
    size_t nquality_issues;
    /* the dispatch's source copies (borrowed, may be NULL): set before
     * fp_signals_from_bubbles so evidence skips decorator lines */
    const fp_snapshots *snaps;
    /* ---- launch model (kernel_trace.csv grid + SoC CUs + occupancy) ---- */
    bool have_grid;
    double grid[3], wg3[3];      /* Grid_Size_*, Workgroup_Size_* (work-items) */
    int cus;                     /* SoC table, 0 unknown */
    int xcds;                    /* the traced agent's XCDs (capture gpu.num_xcc: 1 on a CPX MI300X), 0 unknown */
    char *partition;             /* capture gpu.partition ("CPX"), NULL unknown */
    char *memory_partition;      /* capture gpu.memory_partition ("NPS4"), NULL unknown */
    fp_hbm_peak hbm_peak;        /* the agent's HBM peak (fp_sol_set_peak), sol_in points into it */
    fp_launch launch;            /* launch.valid false when not modelled */
    char *launch_reason;         /* why the launch is unknown (NULL when known) */
    /* ---- speed of light (sol.h) ---- */
    const fp_code *code;         /* borrowed listing, set by fp_signals_from_code */
    double span_total;           /* bubbles gain.span_total: traced SIMD cycles */
    double cu_cycles;            /* sum over traced CUs of the longest SIMD span */
    fp_sol_in sol_in;
    fp_sol sol;
    bool have_sol;
    /* ---- trace representativeness ---- */
    bool representative;
    fp_optd coverage_pct;        /* static instructions executed at least once, % */
    int64_t static_insts, executed_insts;
    bool loop_known, loop_executed, has_loop; /* some instruction ran more often than the entry */
    char **repr_reasons;         /* why the trace is not representative (owned) */
    size_t nrepr_reasons;
    /* ---- store drain at s_endpgm ---- */
    fp_optd drain_latency;       /* latency of s_endpgm summed over traced waves */
    fp_optd drain_pct;           /* % of total latency */
    /* ---- ISA facts (isa_facts.c, issue 17) ---- */
    int64_t smem_entry_end;      /* code line of the first s_waitcnt (0 unknown): scalar loads before it are the
                                  * kernel-argument prologue, whose wait cannot move */
    int64_t narrow_static;       /* 1/2-byte global loads/stores in the listing */
    fp_optd narrow_per_wave;     /* executed 1/2-byte global accesses per traced wave */
    fp_optd narrow_frac;         /* their share of executed global (buffer/global/flat) accesses, 0..1 */
    fp_sig_hot narrow_hot;       /* the most executed narrow access (the evidence of vectorize_global) */
    fp_optd valu_nop_pct;        /* s_nop cycles NOT between two MFMAs (VALU hazard padding), % of total stall */
    fp_optd span_ratio;          /* traced wave span / kernel duration (<= 1): stall gains in % of traced SIMD
                                  * time become % of kernel time (issue 17); unknown without both times */
    struct {
        bool fired;              /* more than threshold_pct of instructions or stall on one entry line */
        char *line;              /* that line ("file.py:257"), NULL when the listing has no entry line */
        double insts_pct, stall_pct, threshold_pct;
    } dbg;                       /* the debug-info quality gate (seed pattern 5) */
    /* what the bundle held */
    bool have_capture, have_counters, have_tile, have_bubbles_json, have_map_json;
    /* ---- issue 23: the traced dispatch's own facts (launch_facts.c) ---- */
    fp_launch_trace *ltrace;     /* bubbles.json launch_trace (owned copy), NULL when absent */
    fp_workdist *workdist;       /* bubbles.json workdist (owned copy), NULL when absent */
    int lds_used;                /* the listing has LDS instructions (1 / 0), -1 unknown */
    fp_kt_pick csv;              /* the kernel_trace.csv rows of the traced dispatch (csv.named == 0: none) */
    bool csv_read;               /* kernel_trace.csv was read */
    double csv_workgroups;       /* of the used rows (0: no usable grid) */
    int csv_wg_waves;
    fp_optd time_counters_ns, time_capture_ns; /* the durations counters.json / capture.json gave */
    const char *time_source;     /* "counters" | "csv" | "capture" | "trace" | NULL */
    fp_optd time_trace_ns;       /* occupancy.json span on realtime.json's (or the agent's) clock */
    char *clock_source;          /* how time_trace_ns was clocked (owned) */
    const char *launch_source;   /* "csv" | "trace" | NULL */
    fp_rl_trace *launch_trace_doc; /* report.launch.trace, built by fp_launch_facts_derive (owned) */
    char **launch_warnings, **time_warnings; /* the CSV disagrees with the trace, ... (owned) */
    size_t nlaunch_warnings, ntime_warnings;
    fp_loops loops;              /* item 6: the listing's back-edges and their kinds (loops.h) */
} fp_signals;

void fp_signals_init(fp_signals *s);
void fp_signals_free(fp_signals *s);

/* The class entry by name, or NULL. */
const fp_sig_class *fp_signals_class(const fp_signals *s, const char *name);
/* Add (or get) a class entry by name; the returned pointer is valid until the next add. */
fp_sig_class *fp_signals_class_add(fp_signals *s, const char *name);
/* % of total stall that class `cls` spends waiting on producers of kind g: the
 * class's stall split by its (ranked) hotspots' producer shares; the whole
 * class when the trace names no producers. GLOBAL includes FLAT loads. */
double fp_signals_wait_on_pct(const fp_signals *s, const char *cls, fp_prod_group g);
/* Keep the class array in rank order: stall desc, ties by name. */
void fp_signals_sort_classes(fp_signals *s);

/* Text of one source line ("file.py:LINE[ -> ...]") from the snapshots, or
 * NULL (borrowed from snaps). */
const char *fp_signals_source_text(const fp_snapshots *snaps, const char *source);
/* The line is a decorator (`@flyc.kernel`): the compiler's catch-all for
 * prologue and address code (seed pattern 5). */
bool fp_signals_is_entry_line(const fp_snapshots *snaps, const char *source);

/* Fill from the artifacts (each may be NULL = absent). bubbles is required:
 * without a taxonomy there is nothing to reason about (BAD_INPUT when its
 * shape is wrong). The others only add signals; a wrong type in them is
 * BAD_INPUT naming the artifact and key. */
int fp_signals_from_bubbles(fp_signals *s, const fp_bubbles_doc *bubbles, fp_err *err);
/* counters.json / tile.json as read by fp_counters_read_file / fp_tile_read_file */
struct fp_counters_doc;
struct fp_tile_doc;
int fp_signals_from_counters(fp_signals *s, const struct fp_counters_doc *counters, fp_err *err);
/* capture.json as read by fp_capture_read_file (tag NULL: the only tag) */
int fp_signals_from_capture(fp_signals *s, const fp_capture_doc *capture, const char *tag, fp_err *err);
int fp_signals_from_tile(fp_signals *s, const struct fp_tile_doc *tile, fp_err *err);
/* map.json as read by the strict reader (fp_map_read_file): source-mapping coverage. */
int fp_signals_from_map(fp_signals *s, const fp_map_doc *map, fp_err *err);
/* The listing, before fp_signals_from_bubbles: where the kernel-argument prologue
 * ends (fp_signals.smem_entry_end), so waits on those scalar loads are told from
 * hoistable mid-kernel ones. Optional: without it every scalar load is mid-kernel. */
void fp_signals_set_listing(fp_signals *s, const fp_code *code);
/* "file.py:257" of "/a/b/file.py:257" (borrowed). */
const char *fp_signals_short_source(const char *source);
/* A scalar load at this code line belongs to the kernel-argument prologue. */
bool fp_signals_is_entry_smem(const fp_signals *s, int64_t code_line);
/* ds_bpermute / ds_permute / ds_swizzle: a cross-lane shuffle, not LDS traffic. */
bool fp_signals_is_crosslane(const char *isa);
/* A 1- or 2-byte buffer/global load or store. */
bool fp_signals_is_narrow_global(const char *isa);
/* The ISA facts of the verdicts (narrow accesses, VALU-hazard s_nop, the debug-info
 * gate); called by fp_signals_from_code, after fp_signals_from_bubbles. */
void fp_signals_isa_facts(fp_signals *s, const fp_code *code);

/* After the launch and the time: the traced wave span / kernel duration ratio. */
void fp_signals_verdict_derive(fp_signals *s);

/* Facts only the instruction listing shows: s_nop padding between MFMAs. */
void fp_signals_from_code(fp_signals *s, const fp_code *code);

/* What rocprofv3's agent_info.csv says about the GPU (arch, product, HBM
 * peak through the SoC table). */
void fp_signals_from_agent(fp_signals *s, const fp_soc_query *q);

/* The kernel's rows of kernel_trace.csv, reduced (read by the command layer). */
typedef struct fp_kernel_row {
    fp_kt_pick pick;         /* issue 23: the rows used and their spread (pick.named == 0: none) */
    size_t dispatches;       /* rows of this kernel with a valid duration */
    double avg_ns;           /* mean End - Start */
    bool have_regs;          /* the register columns below were read */
    int vgpr, accum, sgpr, lds, wg, scratch; /* -1 when the column is missing */
    bool have_grid;          /* Grid_Size_X and Workgroup_Size_X were read */
    double grid[3], wg3[3];  /* work-items (a missing Y/Z column is 1) */
} fp_kernel_row;
void fp_signals_from_kernel_row(fp_signals *s, const fp_kernel_row *k);

/* issue 23 (launch_facts.c): the identity the trace gives kernel_trace.csv rows to
 * match (units[] receives the per-unit wave counts, id points into it; needs the
 * product and bubbles.json's launch_trace, else only the LDS test). */
void fp_launch_facts_identity(const fp_signals *s, int64_t units[64], fp_kt_identity *id);
/* The launch's source, workgroups from the trace, the time and its source (called by
 * fp_signals_derive). */
void fp_launch_facts_derive(fp_signals *s);
void fp_launch_facts_time(fp_signals *s);
/* bubbles.json's launch_trace / workdist into s (copies). */
void fp_launch_facts_from_bubbles(fp_signals *s, const fp_bubbles_doc *b);
/* The listing's LDS use (ds_* except the cross-lane ds_bpermute / ds_permute / ds_swizzle, LDS-DMA loads). */
void fp_launch_facts_from_code(fp_signals *s, const fp_code *code);
void fp_launch_facts_free(fp_signals *s);
/* report.json's launch.source / trace / csv / warnings, time and workdist (d->launch filled first). */
struct fp_report_doc;
void fp_launch_facts_to_doc(const fp_signals *s, struct fp_report_doc *d);

/* After the adapters: derived numbers (pct of HBM roof, the occupancy model,
 * the bound classification and its roof check, missing class gains). */
void fp_signals_derive(fp_signals *s);

#endif
