/*
 * discovery.h - what the discovery pass (`rocprofv3 --stats --kernel-trace`)
 * tells capture: the kernels that ran with their call counts and durations,
 * read from the CSVs (kernel_stats.csv + kernel_trace.csv) or from a rocpd
 * results.db with SQLite; which one is THE kernel (recipe hint, then name,
 * then heaviest non-library kernel) and with what confidence; and the
 * register counts of the kernel trace (with the gfx950 under-count fixed).
 *
 * Also: the rocprofv3 version probe and the trace-decoder library search of
 * rocprofv3 itself (rocprof-formats.md §1.6, §8.3), shared by doctor and capture.
 */
#ifndef FLYPROF_DISCOVERY_H
#define FLYPROF_DISCOVERY_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"
#include "flyprof/strbuf.h"

typedef struct fp_kcand {
    char *name;          /* formatted kernel name (owned) */
    long long calls;
    long long total_ns;
    double avg_ns;
    long long min_ns, max_ns;
    bool noise;          /* a library kernel (fp_kernel_is_noise) */
    /* from the kernel trace (-1 = unknown) */
    int vgpr_count, accum_vgpr_count, sgpr_count;
    long long lds_bytes, scratch_bytes;
    int wg_x, wg_y, wg_z;
    long long grid_x, grid_y, grid_z;
    char *agent;         /* Agent_Id text / rocpd agent name (owned, may be NULL) */
} fp_kcand;

typedef struct fp_kcands {
    fp_kcand *v;
    size_t n;
    const char *source;  /* "csv" | "rocpd" */
    char *arch;          /* GPU agent name from agent_info.csv / rocpd ("gfx950"), may be NULL */
    char *product;       /* Product_Name, may be NULL */
    long long device_id; /* -1 when unknown */
    long long total_dispatches;
} fp_kcands;

void fp_kcands_free(fp_kcands *k);

/* Read the discovery outputs of prefix (e.g. "<dir>/discover"): prefers
 * <prefix>_results.db when present, else <prefix>_kernel_stats.csv (+ the
 * _kernel_trace.csv and _agent_info.csv next to it). Candidates are sorted by
 * total time, descending (ties keep first-seen order). Missing outputs ->
 * NO_ARTIFACT; malformed -> BAD_INPUT. */
int fp_discovery_load(const char *prefix, fp_kcands *out, fp_err *err);

/* The discovery outputs of every process that wrote into dir under base: the
 * run passes `-o <base>_%pid%`, so a workload whose kernels run in several
 * processes (a launcher and workers) leaves one set per pid instead of each
 * process clobbering the last one's (issue 18); a plain <base>_* set (older
 * bundles) is read too. Each set is loaded with fp_discovery_load and merged by
 * kernel name: calls, totals and dispatches add up, min/max combine, avg =
 * total/calls, the registers and agent of the first set that has the kernel;
 * arch/product of the first set. *nsets = how many were merged. Same errors as
 * fp_discovery_load (NO_ARTIFACT when there is no set). */
int fp_discovery_load_dir(const char *dir, const char *base, fp_kcands *out, size_t *nsets, fp_err *err);
int fp_discovery_load_csv(const char *stats_csv, const char *trace_csv, const char *agent_csv, fp_kcands *out,
                          fp_err *err);
int fp_discovery_load_rocpd(const char *db_path, fp_kcands *out, fp_err *err);

/* A kernel of a vendor library (PyTorch/ATen, rocPRIM, rocBLAS/hipBLASLt
 * Tensile "Cijk_", CK, RCCL, the HIP runtime's blit kernels, Triton). Matches
 * namespaces and prefixes, never bare words, so FlyDSL kernels called
 * "sort_kernel_0" or "reduce_kernel_0" are NOT noise. */
bool fp_kernel_is_noise(const char *name);

/* The ranking `flyprof kernels` prints and capture's discovery pass records:
 * the candidates (already in total-time order) whose name matches `filter`
 * (a POSIX extended regex, searched, NULL = all), cut to the first `top`
 * (0 = all). The percentages are of every kernel's total, filtered or not. */
typedef struct fp_krank {
    size_t *idx;        /* indices into fp_kcands.v, in rank order (owned) */
    size_t n;           /* entries in idx (after top) */
    size_t matched;     /* entries that matched the filter (before top) */
    long long total_ns; /* sum over every kernel: the base of pct */
} fp_krank;

/* A filter that does not compile -> FP_USAGE (it is a malformed argument). */
int fp_kernel_rank(const fp_kcands *k, const char *filter, size_t top, fp_krank *out, fp_err *err);
void fp_krank_free(fp_krank *r);
typedef enum fp_match_conf {
    FP_MATCH_NONE,
    FP_MATCH_EXACT,     /* a candidate equals the requested/hinted name */
    FP_MATCH_HINT,      /* a candidate contains the recipe's kernel_name_hint */
    FP_MATCH_NAME,      /* a candidate contains the kernel name / a recipe function name */
    FP_MATCH_HEAVIEST,  /* nothing matched: the heaviest non-library kernel */
} fp_match_conf;

const char *fp_match_conf_name(fp_match_conf c); /* "exact", "hint", "name", "heaviest" */

/* Pick the kernel. `names` are tried in order for exact and substring match
 * (hint first, then the user's name, then recipe function names); among
 * several substring hits the one with the largest total time wins.
 * Returns the index or -1 (no candidate at all). */
long fp_match_kernel(const fp_kcands *k, const char *hint, const char *const *names, size_t n_names,
                     fp_match_conf *conf);

/* Escape a name for rocprofv3's ECMAScript regex (also valid POSIX ERE):
 * every one of .^$*+?()[]{}|\ gets a backslash, then anchor nothing (the
 * filter is a search). Returns malloc'd. */
char *fp_regex_escape(const char *name);

/* ---- rocprofv3 itself ---- */

typedef struct fp_rocprof_info {
    char *path;          /* resolved executable (owned), NULL when not found */
    char *version;       /* "1.1.0" (owned) or NULL */
    char *rocm_version;  /* from --version, may be NULL */
    bool version_flag;   /* --version exists (ROCm >= 7.0) */
    const char *default_format; /* "rocpd" (>= 1.0.0) or "csv" */
    char *rocm_root;     /* parent of the dir holding the executable (owned) */
    char probe_error[256];
} fp_rocprof_info;

/* Locate `exe` (name or path) and run `--version` (bounded by timeout_s). */
int fp_rocprof_probe(const char *exe, double timeout_s, const volatile sig_atomic_t *interrupted, fp_rocprof_info *info,
                     fp_err *err);
void fp_rocprof_info_free(fp_rocprof_info *info);
/* Whether a GPU can be visible at all: the KFD device node (/dev/kfd, or
 * $FLYPROF_KFD_DEVICE - a test hook) exists. Without it no process can run a
 * kernel, so "no dispatch" means NO_GPU, not NO_KERNEL_DISCOVERED. *path gets
 * the node checked. */
bool fp_kfd_present(const char **path);

/* rocprofv3's own --att-buffer-size default for an SDK version (NULL =
 * unknown, taken as 7.0): 0x10000000 (256 MiB) in SDK 1.0-1.2, 0x18000000
 * (384 MiB) from 1.3.0 (rocm-systems source). capture starts there and doubles
 * it on a retry. */
long long fp_att_buffer_default(const char *sdk_version);
/* Compare dotted versions: <0, 0, >0. */
int fp_version_cmp(const char *a, const char *b);

/* The trace decoder search rocprofv3 performs (§8.3): att_library_path dirs,
 * else ROCPROF_ATT_LIBRARY_PATH, else LD_LIBRARY_PATH entries, then
 * <rocm>/lib; each walked recursively (depth-bounded) for a file whose name
 * contains librocprof-trace-decoder.so. *found = malloc'd path or NULL;
 * searched = JSON array of the directories tried. */
#define FP_DECODER_LIB "librocprof-trace-decoder.so"
void fp_decoder_search(const char *const *lib_dirs, size_t n_dirs, const char *rocm_root, char **found,
                       cJSON *searched);

/* Scan rocprofv3's stderr for the messages capture reacts to. The decoder's
 * info strings mean three different things (rocprof-trace-decoder as used by
 * rocprofiler-sdk 1.0-1.3, issue 18):
 *   "Wave incomplete" (and "buffer full" / "buffer overflow"): waves cut off -
 *       the buffer filled up; retry with a larger att_buffer_size (data_lost);
 *   "Data Lost": packets dropped for bandwidth, not a full buffer - a bigger
 *       buffer does not help; a warning and the tag's quality (bandwidth_loss);
 *   "Stitch Incomplete": the trace does not match the code object's
 *       disassembly - code object / decoder version skew (stitch_incomplete). */
typedef struct fp_stderr_scan {
    bool decoder_missing; /* "rocprof-trace-decoder library path not found" / "Decoder library not found" */
    bool data_lost;       /* "Wave incomplete" / buffer full / overflow: truncated, retry */
    bool bandwidth_loss;  /* "Data Lost": packets dropped for bandwidth */
    bool stitch_incomplete; /* "Stitch Incomplete" */
    bool fatal;           /* "[rocprofv3] Fatal error:" or, ROCm 7.0, "Fatal error:" at a line start */
    char first_fatal[512];
} fp_stderr_scan;
void fp_scan_stderr(const char *text, fp_stderr_scan *s);

#endif
