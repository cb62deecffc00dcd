/*
 * kernel_trace.c - rocprofv3's kernel_trace.csv as typed rows, and the rule
 * that picks the traced kernel's rows (kernel_trace.h).
 *
 * The header -> field mapping is the table COLS below: the only place in the
 * program that spells a kernel_trace.csv column. Columns are found by name,
 * never by position (rocpd convert adds a leading "Guid", §3.7); a column the
 * header lacks leaves its field NULL / f == 0. Cells are parsed once
 * (fp_rp_num_parse: a short path for plain digits, which is every real cell).
 */
#include "flyprof/kernel_trace.h"

#include "flyprof/sha256.h"
#include "flyprof/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where each column goes: a text field or a number field of fp_kt_row. */
typedef struct kt_colspec {
    const char *name;
    fp_kt_col id;
    bool text;
    size_t off;
} kt_colspec;

#define TXT(n, id, f) {n, id, true, offsetof(fp_kt_row, f)}
#define NUM(n, id, f) {n, id, false, offsetof(fp_kt_row, f)}
static const kt_colspec COLS[] = {
    TXT("Kind", FP_KT_KIND, kind),
    TXT("Agent_Id", FP_KT_AGENT_ID, agent_id),
    NUM("Queue_Id", FP_KT_QUEUE_ID, queue_id),
    NUM("Dispatch_Id", FP_KT_DISPATCH_ID, dispatch_id),
    NUM("Kernel_Id", FP_KT_KERNEL_ID, kernel_id),
    TXT("Kernel_Name", FP_KT_KERNEL_NAME, kernel_name),
    NUM("Correlation_Id", FP_KT_CORRELATION_ID, correlation_id),
    NUM("Start_Timestamp", FP_KT_START, start_ns),
    NUM("End_Timestamp", FP_KT_END, end_ns),
    NUM("LDS_Block_Size", FP_KT_LDS_BLOCK_SIZE, lds_block_size),
    NUM("Scratch_Size", FP_KT_SCRATCH_SIZE, scratch_size),
    NUM("VGPR_Count", FP_KT_VGPR, vgpr),
    NUM("Arch_VGPR_Count", FP_KT_ARCH_VGPR, arch_vgpr),
    NUM("Accum_VGPR_Count", FP_KT_ACCUM_VGPR, accum_vgpr),
    NUM("SGPR_Count", FP_KT_SGPR, sgpr),
    NUM("Workgroup_Size_X", FP_KT_WG_X, wg[0]),
    NUM("Workgroup_Size_Y", FP_KT_WG_Y, wg[1]),
    NUM("Workgroup_Size_Z", FP_KT_WG_Z, wg[2]),
    NUM("Grid_Size_X", FP_KT_GRID_X, grid[0]),
    NUM("Grid_Size_Y", FP_KT_GRID_Y, grid[1]),
    NUM("Grid_Size_Z", FP_KT_GRID_Z, grid[2]),
    NUM("Workgroup_Size", FP_KT_WG_SIZE, wg_size),
};
#undef TXT
#undef NUM
#define NCOLSPEC (sizeof COLS / sizeof *COLS)

/* The largest timestamp FP_KT_TIME_BOUNDED trusts: FP_PMC_MAX_VALUE, the bound
 * of the counter cells counters.json's duration was read with. */
#define KT_MAX_BOUNDED 1e18

/* Header index of every column spec (-1 when absent): one pass over the
 * header, names compared only when their lengths agree (hotspots maps the
 * header of every candidate CSV it opens). */
static void map_header(const fp_csv *c, int idx[NCOLSPEC], unsigned long *cols)
{
    size_t len[NCOLSPEC];
    for (size_t k = 0; k < NCOLSPEC; k++) {
        idx[k] = -1;
        len[k] = strlen(COLS[k].name);
    }
    *cols = 0;
    for (size_t h = c->ncols; h-- > 0;) { /* backwards: the first of duplicate names wins, as fp_csv_col */
        size_t hl = strlen(c->header[h]);
        for (size_t k = 0; k < NCOLSPEC; k++)
            if (len[k] == hl && !memcmp(c->header[h], COLS[k].name, hl)) {
                idx[k] = (int)h;
                *cols |= 1UL << COLS[k].id;
            }
    }
}

/* want: the number columns to convert (bits of fp_kt_col), 0 = all; text cells are
 * borrowed pointers and always set. rp_num_parse is ~70 instructions a cell, most
 * of a one-kernel lookup in a MB-sized trace when every column is converted. */
static int from_csv(fp_csv *csv, unsigned long want, fp_kernel_trace *out)
{
    int idx[NCOLSPEC];
    out->csv_ = *csv;
    memset(csv, 0, sizeof *csv);
    map_header(&out->csv_, idx, &out->cols);
    out->nrows = out->csv_.nrows;
    out->rows = calloc(out->nrows ? out->nrows : 1, sizeof *out->rows);
    if (!out->rows)
        abort();
    for (size_t r = 0; r < out->nrows; r++) {
        fp_kt_row *row = &out->rows[r];
        row->line = out->csv_.line[r];
        for (size_t k = 0; k < NCOLSPEC; k++) {
            const char *cell = idx[k] >= 0 ? out->csv_.rows[r][idx[k]] : NULL;
            char *field = (char *)row + COLS[k].off;
            if (COLS[k].text)
                *(const char **)field = cell;
            else if (!want || (want >> COLS[k].id & 1UL))
                fp_rp_num_parse(cell, (fp_rp_num *)field);
        }
    }
    return 0;
}

int fp_kernel_trace_parse(const char *buf, size_t len, const char *name, fp_kernel_trace *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_csv c;
    if (fp_csv_parse(buf, len, name, &c, err) != 0)
        return -1;
    return from_csv(&c, 0, out);
}

int fp_kernel_trace_load(const char *path, fp_kernel_trace *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_csv c;
    if (fp_csv_load(path, &c, err) != 0)
        return -1;
    return from_csv(&c, 0, out);
}

int fp_kernel_trace_load_matching(const char *path, const char *needle, unsigned long want, fp_kernel_trace *out,
                                  fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_csv c;
    if (fp_csv_load_matching(path, needle, &c, err) != 0)
        return -1;
    return from_csv(&c, want, out);
}

void fp_kernel_trace_free(fp_kernel_trace *kt)
{
    if (!kt)
        return;
    free(kt->rows);
    fp_csv_free(&kt->csv_);
    memset(kt, 0, sizeof *kt);
}

static bool need_met(bool name, bool vgpr, bool start, bool end, fp_kt_need need)
{
    switch (need) {
    case FP_KT_NEED_NAME:
        return name;
    case FP_KT_NEED_REGS:
        return name && vgpr;
    case FP_KT_NEED_TIMING:
        return name && start && end;
    }
    return false;
}

bool fp_kernel_trace_header_has(const fp_csv *csv, fp_kt_need need)
{
    return need_met(fp_csv_col(csv, "Kernel_Name") >= 0, fp_csv_col(csv, "VGPR_Count") >= 0,
                    fp_csv_col(csv, "Start_Timestamp") >= 0, fp_csv_col(csv, "End_Timestamp") >= 0, need);
}

int fp_kernel_trace_check(const fp_kernel_trace *kt, const char *path, fp_kt_need need, fp_err *err)
{
    if (need_met(fp_kernel_trace_has(kt, FP_KT_KERNEL_NAME), fp_kernel_trace_has(kt, FP_KT_VGPR),
                 fp_kernel_trace_has(kt, FP_KT_START), fp_kernel_trace_has(kt, FP_KT_END), need))
        return 0;
    if (!err)
        return -1;
    switch (need) {
    case FP_KT_NEED_NAME:
        return fp_err_set(err, FP_BAD_INPUT, "%s: no Kernel_Name column", path);
    case FP_KT_NEED_REGS:
        return fp_err_set(err, FP_BAD_INPUT, "%s: not a kernel-trace CSV (no Kernel_Name/VGPR_Count)", path);
    case FP_KT_NEED_TIMING:
        break;
    }
    return fp_err_set(err, FP_BAD_INPUT, "%s: not a kernel_trace.csv (" FP_KT_TIMING_COLS ")", path);
}

/* ---- the rows of the traced dispatch ---- */

static bool row_matches(const fp_kt_row *r, const char *kernel, bool exact)
{
    return exact ? !strcmp(r->kernel_name, kernel) : strstr(r->kernel_name, kernel) != NULL;
}

static bool row_duration(const fp_kt_row *r, fp_kt_time time, double *dur)
{
    double a, b;
    if (!fp_rp_real(&r->start_ns, &a) || !fp_rp_real(&r->end_ns, &b))
        return false;
    if (time == FP_KT_TIME_BOUNDED &&
        (!isfinite(a) || !isfinite(b) || a < 0 || b < 0 || a > KT_MAX_BOUNDED || b > KT_MAX_BOUNDED))
        return false;
    if (!(b > a))
        return false;
    *dur = b - a;
    return true;
}

/* ---- the traced dispatch's identity (issue 23) ---- */

static const char *const reject_names[FP_KT_REJ_COUNT] = {"grid", "workgroup", "lds", "vgpr"};

const char *fp_kt_reject_name(fp_kt_reject r) { return r < FP_KT_REJ_COUNT ? reject_names[r] : "?"; }

/* A row's workgroups and waves per workgroup; false when the cells are unusable. */
static bool row_launch(const fp_kt_row *r, int wave_size, double *wgs, double *wg_waves)
{
    double items = 1;
    *wgs = 1;
    for (int i = 0; i < 3; i++) {
        double g = 0, w = 0;
        bool og = fp_rp_real(&r->grid[i], &g), ow = fp_rp_real(&r->wg[i], &w);
        if (i == 0 && (!og || !ow || !(g > 0) || !(w > 0)))
            return false;
        g = og && g > 0 ? g : 1;
        w = ow && w > 0 ? w : 1;
        if (!isfinite(g) || !isfinite(w) || g > 1e15 || w > 1e7)
            return false;
        *wgs *= ceil(g / w);
        items *= w;
    }
    *wg_waves = ceil(items / (wave_size > 0 ? wave_size : 64));
    return *wgs <= 1e15;
}

/* The first identity test the row fails, or -1. */
static int row_reject(const fp_kt_row *r, const fp_kt_identity *id)
{
    double v;
    if (id->lds_bytes >= 0 && fp_rp_real(&r->lds_block_size, &v) && v != id->lds_bytes)
        return FP_KT_REJ_LDS;
    if (id->lds_used == 1 && fp_rp_real(&r->lds_block_size, &v) && v == 0)
        return FP_KT_REJ_LDS;
    if (id->vgpr >= 0 && fp_rp_real(&r->vgpr, &v) && v != id->vgpr)
        return FP_KT_REJ_VGPR;
    if (!id->unit_waves || !id->n_units || id->agent_units <= 0)
        return -1;
    double wgs, wgw;
    if (!row_launch(r, id->wave_size, &wgs, &wgw))
        return -1; /* no usable grid: nothing to compare */
    double lo = floor(wgs / (double)id->agent_units) - (double)id->slack;
    double hi = ceil(wgs / (double)id->agent_units) + (double)id->slack;
    for (size_t u = 0; u < id->n_units; u++) {
        double w = (double)id->unit_waves[u];
        if (fmod(w, wgw) != 0)
            return FP_KT_REJ_WORKGROUP;
        if (w / wgw < lo || w / wgw > hi)
            return FP_KT_REJ_GRID;
    }
    return -1;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median (the lower middle of an even count: a measured value), range, outliers and
 * the content hash of the chosen rows. */
static void pick_spread(const fp_kernel_trace *kt, const unsigned char *use, fp_kt_time time, fp_kt_pick *out)
{
    double *d = malloc((kt->nrows + 1) * sizeof *d);
    fp_sb sb;
    fp_sb_init(&sb);
    if (!d)
        abort();
    size_t n = 0;
    for (size_t r = 0; r < kt->nrows; r++) {
        if (!use[r])
            continue;
        for (size_t c = 0; c < kt->csv_.ncols; c++) {
            fp_sb_adds(&sb, kt->csv_.rows[r][c]);
            fp_sb_addc(&sb, c + 1 < kt->csv_.ncols ? '\x1f' : '\x1e');
        }
        if (row_duration(&kt->rows[r], time, &d[n]))
            n++;
    }
    if (sb.len)
        fp_sha256_hex(sb.buf, sb.len, out->sha256);
    fp_sb_free(&sb);
    if (n) {
        qsort(d, n, sizeof *d, cmp_dbl);
        out->median_ns = d[(n - 1) / 2];
        out->min_ns = d[0];
        out->max_ns = d[n - 1];
        for (size_t i = 0; i < n; i++)
            out->outliers += d[i] > 2 * out->median_ns || d[i] < out->median_ns / 2;
    }
    free(d);
}

/* The row choice proper: marks the chosen rows in `use`, fills n / first / last /
 * named / rejected / timed / mean_ns. */
static void pick_match(const fp_kernel_trace *kt, const char *kernel, fp_kt_match match, fp_kt_time time,
                       const fp_kt_identity *id, unsigned char *use, fp_kt_pick *out)
{
    double sum = 0;
    for (int pass = 0; pass < 2 && out->named == 0; pass++) {
        bool exact = match == FP_KT_EXACT || (match == FP_KT_EXACT_ELSE_CONTAINS && pass == 0);
        if (pass == 1 && match != FP_KT_EXACT_ELSE_CONTAINS)
            break;
        for (size_t r = 0; r < kt->nrows; r++) {
            if (!row_matches(&kt->rows[r], kernel, exact))
                continue;
            out->named++;
            out->named_last = r;
            int why = id ? row_reject(&kt->rows[r], id) : -1;
            if (why >= 0) {
                out->rejected[why]++;
                continue;
            }
            if (use)
                use[r] = 1;
            if (out->n++ == 0)
                out->first = r;
            out->last = r;
            double d;
            if (row_duration(&kt->rows[r], time, &d)) {
                sum += d;
                out->timed++;
            }
        }
    }
    if (out->timed)
        out->mean_ns = sum / (double)out->timed;
}

void fp_kt_pick_traced(const fp_kernel_trace *kt, const char *kernel, fp_kt_match match, fp_kt_time time,
                       const fp_kt_identity *id, fp_kt_pick *out)
{
    memset(out, 0, sizeof *out);
    if (!kernel || !fp_kernel_trace_has(kt, FP_KT_KERNEL_NAME))
        return;
    unsigned char *use = calloc(kt->nrows + 1, 1);
    if (!use)
        abort();
    pick_match(kt, kernel, match, time, id, use, out);
    pick_spread(kt, use, time, out);
    free(use);
}

void fp_kt_pick_count(const fp_kernel_trace *kt, const char *kernel, fp_kt_match match, fp_kt_pick *out)
{
    memset(out, 0, sizeof *out);
    if (kernel && fp_kernel_trace_has(kt, FP_KT_KERNEL_NAME))
        pick_match(kt, kernel, match, FP_KT_TIME_ANY, NULL, NULL, out);
}

void fp_kt_pick_rows(const fp_kernel_trace *kt, const char *kernel, fp_kt_match match, fp_kt_time time,
                     fp_kt_pick *out)
{
    fp_kt_pick_traced(kt, kernel, match, time, NULL, out);
}
