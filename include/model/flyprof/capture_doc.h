/*
 * capture_doc.h - capture.json as a type (model.h): what `flyprof capture` found
 * (discovery, the kernel, the iterations) and did (one ATT pass per tag, every
 * rocprofv3 command it ran), written on EVERY exit once the bundle exists, with
 * "status" saying how it ended (docs/bundle.md, docs/commands/capture.md).
 *
 * Because the document is written wherever the capture stopped, its keys come in
 * stages: a stage that was not reached has none of its keys (FP_K_INLINE groups,
 * pointer NULL), a stage that was reached writes all of its keys, null included.
 * The reader accepts any subset of the keys (hand-written bundles, tests and old
 * captures hold only some of them: every field is optional on read), but an
 * unknown key or a value of the wrong type is BAD_INPUT with its key path.
 *
 * The table is in src/model/capture_doc.c, the only place a capture.json key is
 * spelled. Producer: src/cmd/cmd_capture.c. Readers: signals.c
 * (fp_signals_from_capture), tile, counters, bundle, history, report.
 */
#ifndef FLYPROF_CAPTURE_DOC_H
#define FLYPROF_CAPTURE_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/discovery.h"
#include "flyprof/model.h"

/* rocprofv3 as probed (`rocprofv3 --version`). Strings NULL when unknown. */
typedef struct fp_cap_rocprof {
    char *path, *version, *rocm_version, *default_output_format;
    char **env_dropped; /* inherited ROCPROF_* removed from its environment (rpenv.h); omitted when none */
    size_t nenv_dropped;
} fp_cap_rocprof;

/* Worktree provenance (libgit2) at capture time. */
typedef struct fp_cap_wt_counts {
    int64_t modified_files, untracked_files;
} fp_cap_wt_counts;

typedef struct fp_cap_worktree {
    char *path;
    bool exists;
    bool git;                 /* a git checkout */
    char *commit;             /* HEAD sha, NULL outside git */
    char *branch;
    fp_optb dirty;            /* null outside git */
    fp_cap_wt_counts *counts; /* git only */
    char *build_tree;         /* <path>/build-fly/python_packages */
    bool build_tree_exists;
    bool flydsl_pkg;
} fp_cap_worktree;

/* One resolved setting: its value and where it came from ("flag", "env", "file", "default"). */
typedef struct fp_cap_setting {
    char *value;
    char *source;
} fp_cap_setting;

typedef struct fp_cap_setting_int {
    int value;
    char *source;
} fp_cap_setting_int;

typedef struct fp_cap_config {
    fp_cap_setting *worktree, *rocprofv3, *python;
    fp_cap_setting_int *gpu;
    fp_cap_setting *arch, *recipes;
    char *config_file;
} fp_cap_config;

/* One rocprofv3 run. */
typedef struct fp_cap_command {
    char *step;          /* "discovery", "att:big", "att:big:retry" */
    char **argv;
    size_t nargv;
    char *command;       /* argv as one shell-quoted line */
    char *cwd;
    fp_optd exit_code;   /* null when killed by a signal */
    fp_optd signal;      /* written only when killed by one */
    bool timed_out, interrupted;
    double seconds;      /* wall time, 2 decimals */
    char *stderr_path;   /* "stderr": bundle-relative */
} fp_cap_command;

/* The recipe used (NULL members when none / --invocation only). */
typedef struct fp_cap_recipe {
    char *name, *source, *test_file, *kernel_name_hint, *shape_env;
} fp_cap_recipe;

typedef struct fp_cap_invocation {
    char **argv;
    size_t nargv;
    char **env;          /* the invocation's inline VAR=value words */
    size_t nenv;
    char *cwd;
    char *command;
} fp_cap_invocation;

/* Stage: the recipe and workload were resolved. */
typedef struct fp_cap_workload {
    fp_cap_recipe *recipe;
    char *recipe_kernel;             /* the recipe's name, else the requested kernel */
    fp_cap_invocation *invocation_detail;
    char *invocation;                /* the reproducible command line (env + argv) */
    char *shape;                     /* --shape, NULL when not given */
} fp_cap_workload;

/* A discovered kernel as `flyprof kernels` ranks it. */
typedef struct fp_cap_candidate {
    int64_t rank;
    char *name;
    int64_t calls, total_ns;
    double pct;                      /* of all kernels' time, 2 decimals */
    double avg_ns;                   /* 1 decimal */
    int64_t min_ns, max_ns;
    bool library;                    /* a library (noise) kernel */
} fp_cap_candidate;

typedef struct fp_cap_disc_found {
    int64_t dispatches, kernels;
    fp_cap_candidate *candidates;    /* at most 8 */
    size_t ncandidates;
} fp_cap_disc_found;

typedef struct fp_cap_discovery {
    char *format;                    /* "csv" | "rocpd" */
    char *dir;                       /* "rocprof/discovery" */
    int exit_code;
    fp_cap_disc_found *found;        /* written when the trace held a kernel */
} fp_cap_discovery;

typedef struct fp_cap_gpu {
    int index;
    char *arch, *product;
    /* the traced agent's own agent_info row (matched by the kernel trace's Agent_Id;
     * issue 18): omitted when unknown. A partitioned MI300X agent (CPX) has 38 CUs
     * and 1 XCD, not the product table's 304 / 8. */
    char *agent_id;                 /* "Agent 5" as the kernel trace names it */
    fp_optd cu_count, num_xcc, max_engine_clk_mhz;
    char *partition;                /* "SPX" | "DPX" | "QPX" | "CPX" (gfx942 / gfx950) */
    char *memory_partition;         /* "NPS1" | "NPS2" | "NPS4" | "NPS8": the device's current_memory_partition */
    char *visible_devices;          /* ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES the --gpu index was taken in */
    fp_optd physical_index;         /* the --gpu index mapped through them */
} fp_cap_gpu;

/* Stage: the kernel to trace was chosen. */
typedef struct fp_cap_kernel {
    char *kernel;                    /* the formatted name traced */
    char *match_confidence;          /* "exact" | "hint" | "name" | "heaviest" */
    int64_t calls, total_ns;
    fp_optd avg_ns;                  /* mean duration in discovery, ns, 1 decimal */
    char *arch;                      /* --arch, else the agent's */
    fp_cap_gpu *gpu;
    char *product;
} fp_cap_kernel;

/* Stage: the iterations were chosen. */
typedef struct fp_cap_iters {
    char *iter_range;                /* rocprofv3 syntax, 1-based: "[6,8]" */
    char *iter_range_source;         /* "flag" | "auto" */
    char *kernel_regex;
} fp_cap_iters;

/* ---- a tag ---- */

typedef struct fp_cap_attempt {
    char *att_buffer_size;
    int exit_code;
    bool data_lost;
} fp_cap_attempt;

/* One ATT dispatch dir (fp_att_dir). */
typedef struct fp_cap_dispatch_dir {
    char *dir;
    int64_t dispatch;                /* -1 when the name has none */
    bool empty;                      /* an empty shell */
    int64_t waves, instructions, mapped;
    double mapped_pct;               /* 1 decimal */
} fp_cap_dispatch_dir;

typedef struct fp_cap_kept {
    char *kept_dispatch;
    int64_t dispatch, waves, instructions, mapped;
    fp_optd mapped_pct;              /* instructions with a source line, %, 1 decimal */
} fp_cap_kept;

/* Occupancy of the registers (known arch only). */
typedef struct fp_cap_reg_occ {
    fp_optd total_vgpr;              /* combined allocation, gfx950 under-count corrected */
    bool gfx950_undercount_corrected;
    int64_t arch_vgpr, accum_vgpr;   /* what occupancy should believe */
    int64_t waves_per_simd;
    char *occupancy_limited_by;
} fp_cap_reg_occ;

/* The kernel's entry in the code object rocprofv3 wrote next to the ATT output
 * (codeobj.h): the metadata note's counts and the kernel descriptor's. */
typedef struct fp_cap_codeobj {
    char *path;                      /* bundle-relative */
    char *arch, *target, *symbol;
    fp_optd vgpr_count, agpr_count, sgpr_count;   /* .vgpr_count is the unified total on gfx90a+ */
    fp_optd group_segment_fixed_size, private_segment_fixed_size, wavefront_size;
    fp_optd kd_vgpr_alloc, kd_accum_offset;       /* null without a descriptor / ACCUM_OFFSET */
} fp_cap_codeobj;

typedef struct fp_cap_registers {
    char *source;                    /* "code object" | "att kernel trace" | "discovery kernel trace" */
    /* numbers a reader asks "was it recorded?" of: fp_optd (integers; never null when written) */
    fp_optd vgpr_count, accum_vgpr_count, sgpr_count, lds_bytes, scratch_bytes, workgroup_size;
    fp_cap_reg_occ *occ;
    fp_cap_codeobj *code_object;     /* omitted when no code object holds the kernel */
    char **cross_check;              /* kernel trace vs code object disagreements, omitted when none */
    size_t ncross_check;
} fp_cap_registers;

typedef struct fp_cap_vgpr {
    fp_optd arch_vgpr, accum_vgpr;
} fp_cap_vgpr;

/* After the inventory of the tag's att dir. */
typedef struct fp_cap_inventoried {
    fp_cap_dispatch_dir *inventory;
    size_t ninventory;
    char *reason;                    /* why empty (status "empty") */
    fp_cap_kept *kept;               /* status "ok" */
    fp_cap_registers *registers;
    fp_cap_vgpr *vgpr;
} fp_cap_inventoried;

/* After the ATT runs finished. */
typedef struct fp_cap_tag_done {
    char *att_buffer_size;
    bool truncated;                  /* data still lost at the last buffer size */
    char *quality;                   /* NULL, or "packets_dropped" (decoder "Data Lost": bandwidth) */
    int exit_code;
    char *kernel_trace_csv, *agent_info_csv; /* bundle-relative, when rocprofv3 wrote them */
    fp_cap_inventoried *inventoried;
} fp_cap_tag_done;

typedef struct fp_cap_tag {
    char *status;                    /* "running" | "ok" | "empty" | "failed" | "interrupted" */
    char *shape, *iter_range, *att_dir;
    fp_cap_attempt *attempts;
    size_t nattempts;
    fp_cap_tag_done *done;
} fp_cap_tag;

typedef struct fp_cap_tags {
    fp_cap_tag *small, *big;
} fp_cap_tags;

/* --with-pmc */
typedef struct fp_cap_pmc_failed {
    char *error_code;
} fp_cap_pmc_failed;

typedef struct fp_cap_pmc {
    char *command;
    double seconds;
    char *counters_json;             /* "counters.json" when the pass succeeded */
    fp_cap_pmc_failed *failed;
    char *status;                    /* "ok" | "failed" | "interrupted" */
} fp_cap_pmc;

typedef struct fp_cap_error {
    char *code, *message;
} fp_cap_error;

typedef struct fp_cap_durations {
    double total_s;                  /* 2 decimals */
} fp_cap_durations;

typedef struct fp_capture_doc {
    int schema;                      /* 1 */
    char *requested_kernel;
    char *tag;                       /* --tag: "small" | "big" | "both" */
    char *captured_at;               /* UTC, ISO 8601 */
    char *host;
    fp_cap_rocprof *rocprofv3;
    fp_cap_worktree *worktree;
    fp_cap_config *config;
    double timeout_s;                /* bound of each rocprofv3 run, 3 decimals */
    fp_cap_tags tags;
    fp_cap_command *commands;
    size_t ncommands;
    fp_cap_workload *workload;
    fp_cap_discovery *discovery;
    fp_cap_kernel *kernel;
    fp_cap_iters *iters;
    fp_cap_pmc *pmc;
    char *status;                    /* "ok" | "failed" | "interrupted" (written last) */
    fp_cap_error *error;
    fp_cap_durations durations;
} fp_capture_doc;

extern const fp_schema fp_capture_schema;
extern const fp_schema fp_cap_dispatch_dir_schema, fp_cap_inventoried_schema;
/* the worktree and settings records, also doctor's "worktree" / "config" */
extern const fp_schema fp_cap_worktree_schema, fp_cap_config_schema;
/* a ranked kernel, also `flyprof kernels`' "kernels" and capture's error "candidates" */
extern const fp_schema fp_cap_candidate_schema;

int fp_capture_read_file(const char *path, fp_capture_doc *doc, fp_err *err);
int fp_capture_write_file(const fp_capture_doc *doc, const char *path, fp_err *err);
void fp_capture_free(fp_capture_doc *doc);

/* The tag of the doc by name ("small" / "big"), NULL when absent. */
const fp_cap_tag *fp_capture_tag_named(const fp_capture_doc *doc, const char *name);
/* The only tag when exactly one was recorded, else NULL. */
const fp_cap_tag *fp_capture_only_tag(const fp_capture_doc *doc);

/* The ranking as capture_doc.h's fp_cap_candidate (rank, name, calls, total_ns, pct,
 * avg_ns, min_ns, max_ns, library), appended to *out / *n; rank is the kernel's place
 * among all kernels (1 = the heaviest), not in the filtered list. */
void fp_krank_to_doc(const fp_kcands *k, const fp_krank *r, fp_cap_candidate **out, size_t *n);
/* The same as a JSON array, written by fp_cap_candidate_schema; caller owns it. */
struct cJSON *fp_krank_json(const fp_kcands *k, const fp_krank *r);


#endif
