/*
 * counters_csv.c - read rocprofv3's counter_collection.csv (long format: one
 * row per dispatch x counter, rocprof-formats.md §3.6) into an fp_pmc_set,
 * one file = one pass, and the GPU row of a sibling agent_info.csv (§3.4).
 *
 * Columns are found by header name (rocpd convert adds a leading "Pid"
 * column, §3.7). Every numeric cell is parsed strictly: a non-numeric,
 * negative, non-finite or absurdly large value makes the whole file BAD_INPUT
 * rather than a silently wrong metric.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/agent_info.h"
#include "flyprof/cli.h"
#include "flyprof/pmc.h"
#include "flyprof/csv.h"
#include "flyprof/fs.h"

static const char *const required_cols[] = {"Dispatch_Id", "Kernel_Name", "Counter_Name", "Counter_Value"};

static int parse_int_cell(const char *cell, long long *out)
{
    long long v;
    if (!cell || fp_parse_ll(cell, &v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* Optional integer column: -1 when the column is absent or the cell empty. */
static int opt_int(const fp_csv *csv, size_t row, int col, long long *out)
{
    *out = -1;
    if (col < 0)
        return 0;
    const char *c = fp_csv_cell(csv, row, col);
    if (!c || !*c)
        return 0;
    return parse_int_cell(c, out);
}

/* A GPU row's facts into a (fields it lacks stay unknown). */
static void agent_facts(fp_pmc_agent *a, const fp_agent_row *g)
{
    if (g->product_name && *g->product_name && !a->product_name)
        a->product_name = strdup(g->product_name);
    if (g->name && *g->name && !a->name)
        a->name = strdup(g->name);
    const fp_rp_num *src[] = {&g->device_id, &g->gfx_target_version, &g->cu_count, &g->num_xcc};
    long long *dst[] = {&a->device_id, &a->gfx_target_version, &a->cu_count, &a->num_xcc};
    for (size_t i = 0; i < 4; i++) {
        long long v;
        if (*dst[i] < 0 && fp_rp_int(src[i], &v) && v >= 0)
            *dst[i] = v;
    }
}

/* The sibling <prefix>_agent_info.csv: the row of every agent the file's rows
 * name ("Agent N" = Logical_Node_Id N, rocprof-formats.md §3.1), and the first
 * GPU row as the set's agent until fp_pmc_keep picks the traced one. A broken
 * agent_info.csv only loses the facts, never the counters. */
static void agent_sibling(fp_pmc_set *s, const char *path, size_t first_row)
{
    char *sib = fp_agent_info_beside(path, "counter_collection.csv");
    fp_agent_info ai;
    fp_err ignored = {0};
    if (!sib || !fp_is_file(sib) || fp_agent_info_load(sib, &ai, &ignored) != 0) {
        fp_err_clear(&ignored);
        free(sib);
        return;
    }
    free(sib);
    const fp_agent_row *g = fp_agent_info_first_gpu(&ai);
    if (g && !s->agent.product_name && s->agent.device_id < 0)
        agent_facts(&s->agent, g);
    for (size_t i = first_row; i < s->nd; i++) {
        const fp_agent_row *r = fp_agent_info_for(&ai, s->d[i].agent);
        fp_pmc_agent *a = r ? fp_pmc_agent_add(s, s->d[i].agent) : NULL;
        if (a)
            agent_facts(a, r);
    }
    fp_agent_info_free(&ai);
}

/* One counter_collection.csv into pass `pass` (SIZE_MAX: a new pass of its own). */
static int load_csv(fp_pmc_set *s, const char *path, size_t pass, fp_err *err)
{
    fp_csv csv = {0};
    if (fp_csv_load(path, &csv, err))
        return -1;
    int col[4];
    for (size_t i = 0; i < 4; i++) {
        col[i] = fp_csv_col(&csv, required_cols[i]);
        if (col[i] < 0) {
            fp_csv_free(&csv);
            fp_err_set(err, FP_BAD_INPUT, "%s: no \"%s\" column: not a rocprofv3 counter_collection.csv", path,
                       required_cols[i]);
            return fp_err_help(err, "pass the *_counter_collection.csv files written by rocprofv3 --pmc -f csv");
        }
    }
    if (csv.nrows > FP_PMC_MAX_ROWS) {
        fp_csv_free(&csv);
        return fp_err_set(err, FP_BAD_INPUT, "%s: more than %d rows", path, FP_PMC_MAX_ROWS);
    }
    int c_agent = fp_csv_col(&csv, "Agent_Id"), c_start = fp_csv_col(&csv, "Start_Timestamp"),
        c_end = fp_csv_col(&csv, "End_Timestamp"), c_grid = fp_csv_col(&csv, "Grid_Size"),
        c_wg = fp_csv_col(&csv, "Workgroup_Size"), c_lds = fp_csv_col(&csv, "LDS_Block_Size"),
        c_vgpr = fp_csv_col(&csv, "VGPR_Count"), c_acc = fp_csv_col(&csv, "Accum_VGPR_Count"),
        c_sgpr = fp_csv_col(&csv, "SGPR_Count"), c_pid = fp_csv_col(&csv, "Process_Id");
    if (pass == SIZE_MAX && s->npasses >= FP_PMC_MAX_PASSES) {
        fp_csv_free(&csv);
        return fp_err_set(err, FP_BAD_INPUT, "%s: more than %d passes", path, FP_PMC_MAX_PASSES);
    }
    if (pass == SIZE_MAX)
        pass = fp_pmc_add_pass(s, path);
    size_t first_row = s->nd;
    long long file_pid = -1;
    for (size_t r = 0; r < csv.nrows; r++) {
        long long id;
        double v;
        const char *name = fp_csv_cell(&csv, r, col[2]);
        const char *val = fp_csv_cell(&csv, r, col[3]);
        long long st, en, grid, wg, lds, vg, acc, sg, pid;
        if (parse_int_cell(fp_csv_cell(&csv, r, col[0]), &id) || !name || !*name ||
            fp_pmc_parse_value(val, &v) || opt_int(&csv, r, c_start, &st) || opt_int(&csv, r, c_end, &en) ||
            opt_int(&csv, r, c_grid, &grid) || opt_int(&csv, r, c_wg, &wg) || opt_int(&csv, r, c_lds, &lds) ||
            opt_int(&csv, r, c_vgpr, &vg) || opt_int(&csv, r, c_acc, &acc) || opt_int(&csv, r, c_sgpr, &sg) || opt_int(&csv, r, c_pid, &pid)) {
            fp_err_set(err, FP_BAD_INPUT,
                       "%s line %zu: bad value (Dispatch_Id, Process_Id and the size/timestamp columns must be integers, "
                       "Counter_Value a number in [0, 1e18], Counter_Name non-empty)",
                       path, csv.line[r]);
            fp_csv_free(&csv);
            return -1;
        }
        if (file_pid < 0)
            file_pid = pid;
        fp_pmc_dispatch *d =
            fp_pmc_dispatch_get(s, pass, pid, c_agent >= 0 ? fp_csv_cell(&csv, r, c_agent) : "", id,
                                fp_csv_cell(&csv, r, col[1]));
        if (st >= 0)
            d->start_ns = st;
        if (en >= 0)
            d->end_ns = en;
        if (grid >= 0)
            d->grid_size = grid;
        if (wg >= 0)
            d->wg_size = wg;
        if (lds >= 0)
            d->lds_bytes = lds;
        if (vg >= 0)
            d->vgpr = vg;
        if (acc >= 0)
            d->accum_vgpr = acc;
        if (sg >= 0)
            d->sgpr = sg;
        if (fp_pmc_add(d, name, v)) {
            fp_err_set(err, FP_BAD_INPUT, "%s line %zu: more than %d distinct counters in one dispatch", path,
                       csv.line[r], FP_PMC_MAX_COUNTERS);
            fp_csv_free(&csv);
            return -1;
        }
    }
    fp_csv_free(&csv);
    fp_pmc_add_file(s, pass, file_pid, path);
    agent_sibling(s, path, first_row);
    return 0;
}

int fp_pmc_load_csv(fp_pmc_set *s, const char *path, fp_err *err) { return load_csv(s, path, SIZE_MAX, err); }

int fp_pmc_load_csv_run(fp_pmc_set *s, const char *const *paths, size_t n, fp_err *err)
{
    if (n == 0)
        return 0;
    if (s->npasses >= FP_PMC_MAX_PASSES)
        return fp_err_set(err, FP_BAD_INPUT, "%s: more than %d passes", paths[0], FP_PMC_MAX_PASSES);
    size_t pass = fp_pmc_add_pass(s, paths[0]);
    for (size_t i = 0; i < n; i++)
        if (load_csv(s, paths[i], pass, err))
            return -1;
    return 0;
}

int fp_pmc_load_agent_info(fp_pmc_agent *a, const char *path, fp_err *err)
{
    fp_agent_info ai;
    if (fp_agent_info_load(path, &ai, err))
        return -1;
    if (fp_agent_info_check(&ai, path, err)) {
        fp_agent_info_free(&ai);
        return -1;
    }
    const fp_agent_row *g = fp_agent_info_first_gpu(&ai);
    if (g)
        agent_facts(a, g);
    fp_agent_info_free(&ai);
    return 0;
}
