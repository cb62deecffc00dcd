/*
 * agent_info.h - THE reader of rocprofv3's agent_info.csv (one row per agent,
 * CPUs first, rocprof-formats.md §3.4). Discovery, tile, counters, report and
 * hotspots read the GPU facts (arch name, product, device id, gfx target
 * version, CU count, XCDs) here; the header -> field table is in agent_info.c
 * and no other file names an agent_info.csv column.
 *
 * Errors: missing file NO_ARTIFACT, unreadable IO_ERROR, malformed CSV
 * BAD_INPUT (fp_csv's messages); no Agent_Type column: fp_agent_info_check().
 */
#ifndef FLYPROF_AGENT_INFO_H
#define FLYPROF_AGENT_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/csv.h"
#include "flyprof/error.h"
#include "flyprof/rpcell.h"

/* One agent. Text is NULL when the header lacks the column; numbers f == 0. */
typedef struct fp_agent_row {
    size_t line;
    const char *agent_type;   /* "GPU" | "CPU" */
    const char *name;         /* "gfx950" for a GPU */
    const char *product_name; /* "AMD Instinct MI350X" */
    const char *vendor_name, *model_name;
    fp_rp_num node_id, logical_node_id;
    fp_rp_num device_id;          /* PCI chip id (30112 = MI350X) */
    fp_rp_num gfx_target_version; /* 90500 -> gfx950 */
    fp_rp_num cu_count, num_xcc, array_count, simd_per_cu;
    fp_rp_num max_waves_per_simd, max_waves_per_cu, wave_front_size, lds_size_in_kb;
    fp_rp_num max_engine_clk_fcompute; /* MHz */
    fp_rp_num location_id, domain;     /* PCI (bus << 8 | device << 3 | function) and PCI domain */
} fp_agent_row;

typedef struct fp_agent_info {
    fp_agent_row *rows;
    size_t nrows;
    bool have_type; /* the header has Agent_Type */
    fp_csv csv_;    /* private: owns the text */
} fp_agent_info;

int fp_agent_info_load(const char *path, fp_agent_info *out, fp_err *err);
int fp_agent_info_parse(const char *buf, size_t len, const char *name, fp_agent_info *out, fp_err *err);
void fp_agent_info_free(fp_agent_info *ai);
/* BAD_INPUT "<path>: no Agent_Type column: not an agent_info.csv" when the header lacks it. */
int fp_agent_info_check(const fp_agent_info *ai, const char *path, fp_err *err);

/* Whether a row is a GPU agent (Agent_Type "GPU"). */
bool fp_agent_is_gpu(const fp_agent_row *r);
/* The first GPU row (a capture pins one device with HIP_VISIBLE_DEVICES), or NULL. */
const fp_agent_row *fp_agent_info_first_gpu(const fp_agent_info *ai);

/* The row of the agent a dispatch ran on, from the kernel trace's Agent_Id text
 * (rocprof-formats.md §3.1): "Agent <n>" (--agent-index relative, the default:
 * Logical_Node_Id n; absolute: Node_Id n), "GPU <n>" (type-relative: the n-th
 * GPU row). agent_info lists EVERY agent whatever HIP_VISIBLE_DEVICES says, so
 * the first GPU row is not necessarily the traced one. NULL when agent_id is
 * NULL or names no GPU row (callers then fall back to fp_agent_info_first_gpu). */
const fp_agent_row *fp_agent_info_for(const fp_agent_info *ai, const char *agent_id);

/* The partition mode an agent row shows: its Num_Xcc against the full device's
 * XCD count for its arch (gfx942 MI300X/MI325X and gfx950 MI350X/MI355X: 8):
 * 8 -> "SPX", 4 -> "DPX", 2 -> "QPX", 1 -> "CPX". NULL when the arch is not
 * partitionable or Num_Xcc is unknown/odd. */
const char *fp_agent_partition(const fp_agent_row *r);

/* The memory partition mode ("NPS1", "NPS2", "NPS4", "NPS8") of the device an agent row
 * belongs to: amdgpu's current_memory_partition in the PCI device's sysfs dir,
 * <root>/<domain>:<bus>:<dev>.<fn>/current_memory_partition (root $FLYPROF_SYSFS_PCI, else
 * /sys/bus/pci/devices; every partition of one GPU shares its PCI location). Into out;
 * false when the row has no location or the file is absent or says something else. */
bool fp_agent_memory_partition(const fp_agent_row *r, char *out, size_t n);

/* The agent_info.csv rocprofv3 wrote beside `csv_path`, whose name ends in
 * `suffix` ("<prefix>kernel_trace.csv" -> "<prefix>agent_info.csv"); malloc'd,
 * NULL when csv_path does not end in suffix. Not checked for existence. */
char *fp_agent_info_beside(const char *csv_path, const char *suffix);

#endif
