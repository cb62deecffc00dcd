/*
 * agent_info.c - rocprofv3's agent_info.csv as typed rows (agent_info.h). The
 * table AGENT_COLS is the only place that spells an agent_info.csv column.
 */
#include "flyprof/agent_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ai_colspec {
    const char *name;
    bool text;
    size_t off;
} ai_colspec;

#define TXT(n, f) {n, true, offsetof(fp_agent_row, f)}
#define NUM(n, f) {n, false, offsetof(fp_agent_row, f)}
static const ai_colspec AGENT_COLS[] = {
    TXT("Agent_Type", agent_type),
    TXT("Name", name),
    TXT("Product_Name", product_name),
    TXT("Vendor_Name", vendor_name),
    TXT("Model_Name", model_name),
    NUM("Node_Id", node_id),
    NUM("Logical_Node_Id", logical_node_id),
    NUM("Device_Id", device_id),
    NUM("Gfx_Target_Version", gfx_target_version),
    NUM("Cu_Count", cu_count),
    NUM("Num_Xcc", num_xcc),
    NUM("Array_Count", array_count),
    NUM("Simd_Per_Cu", simd_per_cu),
    NUM("Max_Waves_Per_Simd", max_waves_per_simd),
    NUM("Max_Waves_Per_Cu", max_waves_per_cu),
    NUM("Wave_Front_Size", wave_front_size),
    NUM("Lds_Size_In_Kb", lds_size_in_kb),
    NUM("Max_Engine_Clk_Fcompute", max_engine_clk_fcompute),
    NUM("Location_Id", location_id),
    NUM("Domain", domain),
};
#undef TXT
#undef NUM
#define NAI (sizeof AGENT_COLS / sizeof *AGENT_COLS)

static int from_csv(fp_csv *csv, fp_agent_info *out)
{
    out->csv_ = *csv;
    memset(csv, 0, sizeof *csv);
    int idx[NAI];
    size_t len[NAI];
    for (size_t k = 0; k < NAI; k++) {
        idx[k] = -1;
        len[k] = strlen(AGENT_COLS[k].name);
    }
    /* one pass over the header, backwards so the first of duplicate names wins (as fp_csv_col) */
    for (size_t h = out->csv_.ncols; h-- > 0;) {
        size_t hl = strlen(out->csv_.header[h]);
        for (size_t k = 0; k < NAI; k++)
            if (len[k] == hl && !memcmp(out->csv_.header[h], AGENT_COLS[k].name, hl))
                idx[k] = (int)h;
    }
    out->have_type = idx[0] >= 0;
    out->nrows = out->csv_.nrows;
    out->rows = calloc(out->nrows ? out->nrows : 1, sizeof *out->rows);
    if (!out->rows)
        abort();
    for (size_t r = 0; r < out->nrows; r++) {
        fp_agent_row *row = &out->rows[r];
        row->line = out->csv_.line[r];
        for (size_t k = 0; k < NAI; k++) {
            const char *cell = idx[k] >= 0 ? out->csv_.rows[r][idx[k]] : NULL;
            char *field = (char *)row + AGENT_COLS[k].off;
            if (AGENT_COLS[k].text)
                *(const char **)field = cell;
            else
                fp_rp_num_parse(cell, (fp_rp_num *)field);
        }
    }
    return 0;
}

int fp_agent_info_parse(const char *buf, size_t len, const char *name, fp_agent_info *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_csv c;
    if (fp_csv_parse(buf, len, name, &c, err) != 0)
        return -1;
    return from_csv(&c, out);
}

int fp_agent_info_load(const char *path, fp_agent_info *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_csv c;
    if (fp_csv_load(path, &c, err) != 0)
        return -1;
    return from_csv(&c, out);
}

void fp_agent_info_free(fp_agent_info *ai)
{
    if (!ai)
        return;
    free(ai->rows);
    fp_csv_free(&ai->csv_);
    memset(ai, 0, sizeof *ai);
}

int fp_agent_info_check(const fp_agent_info *ai, const char *path, fp_err *err)
{
    if (ai->have_type)
        return 0;
    return fp_err_set(err, FP_BAD_INPUT, "%s: no Agent_Type column: not an agent_info.csv", path);
}

bool fp_agent_is_gpu(const fp_agent_row *r) { return r->agent_type && !strcmp(r->agent_type, "GPU"); }

const fp_agent_row *fp_agent_info_first_gpu(const fp_agent_info *ai)
{
    for (size_t r = 0; r < ai->nrows; r++)
        if (fp_agent_is_gpu(&ai->rows[r]))
            return &ai->rows[r];
    return NULL;
}

const fp_agent_row *fp_agent_info_for(const fp_agent_info *ai, const char *agent_id)
{
    static const struct {
        const char *prefix;
        size_t off; /* the number it names: a node id column, or SIZE_MAX for the n-th GPU */
    } forms[] = {
        {"Agent ", offsetof(fp_agent_row, logical_node_id)},
        {"GPU ", (size_t)-1},
    };
    for (size_t f = 0; agent_id && f < sizeof forms / sizeof forms[0]; f++) {
        size_t lp = strlen(forms[f].prefix);
        char *end;
        if (strncmp(agent_id, forms[f].prefix, lp) || !agent_id[lp])
            continue;
        long long n = strtoll(agent_id + lp, &end, 10);
        if (*end || n < 0)
            return NULL;
        long long gpu = 0;
        for (size_t r = 0; r < ai->nrows; r++) {
            const fp_agent_row *row = &ai->rows[r];
            long long v;
            if (!fp_agent_is_gpu(row))
                continue;
            bool hit = forms[f].off == (size_t)-1
                           ? gpu == n
                           : fp_rp_int((const fp_rp_num *)((const char *)row + forms[f].off), &v) && v == n;
            if (hit)
                return row;
            gpu++;
        }
    }
    return NULL;
}

const char *fp_agent_partition(const fp_agent_row *r)
{
    static const char *const full_xcd_archs[] = {"gfx942", "gfx950"};
    static const char *const modes[] = {[1] = "CPX", [2] = "QPX", [4] = "DPX", [8] = "SPX"};
    bool known = false;
    for (size_t i = 0; r && r->name && i < sizeof full_xcd_archs / sizeof *full_xcd_archs; i++)
        known |= !strcmp(r->name, full_xcd_archs[i]);
    long long x;
    if (!known || !fp_rp_int(&r->num_xcc, &x) || x < 1 || x > 8)
        return NULL;
    return modes[x];
}

bool fp_agent_memory_partition(const fp_agent_row *r, char *out, size_t n)
{
    static const char *const modes[] = {"NPS1", "NPS2", "NPS4", "NPS8"};
    long long loc, dom;
    if (!r || !fp_rp_int(&r->location_id, &loc) || loc < 0 || loc > 0xffff || !fp_rp_int(&r->domain, &dom) ||
        dom < 0 || dom > 0xffff)
        return false;
    const char *root = getenv("FLYPROF_SYSFS_PCI");
    char path[512], buf[32] = "";
    snprintf(path, sizeof path, "%s/%04llx:%02llx:%02llx.%llx/current_memory_partition",
             root && *root ? root : "/sys/bus/pci/devices", dom, loc >> 8, (loc >> 3) & 0x1f, loc & 7);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool got = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    buf[strcspn(buf, " \n")] = '\0';
    for (size_t i = 0; got && i < sizeof modes / sizeof *modes; i++)
        if (!strcmp(buf, modes[i])) {
            snprintf(out, n, "%s", modes[i]);
            return true;
        }
    return false;
}

char *fp_agent_info_beside(const char *csv_path, const char *suffix)
{
    static const char ai[] = "agent_info.csv";
    size_t n = strlen(csv_path), ls = strlen(suffix);
    if (n < ls || strcmp(csv_path + n - ls, suffix))
        return NULL;
    char *p = malloc(n - ls + sizeof ai);
    if (!p)
        abort();
    memcpy(p, csv_path, n - ls);
    memcpy(p + n - ls, ai, sizeof ai);
    return p;
}
