/*
 * launch.c - the launch model (launch.h, docs/launch.md). Pure arithmetic on
 * the kernel_trace.csv grid, the SoC CU count and the occupancy model.
 */
#include "flyprof/launch.h"

#include <math.h>
#include <stdio.h>

#include "flyprof/json.h"

/* Largest workgroup count modelled: beyond it the CSV cell is corrupt. */
#define FP_LAUNCH_MAX_WGS 1e12

void fp_launch_compute(const fp_launch_in *in, fp_launch *out)
{
    *out = (fp_launch){0};
    out->fill_pct = -1;
    out->tail_efficiency_pct = -1;
    double wgs = 1, wg_items = 1;
    for (int i = 0; i < 3; i++) {
        if (!isfinite(in->grid[i]) || !isfinite(in->wg[i]))
            return; /* a corrupt cell, not an absent dimension */
        double g = in->grid[i] > 0 ? in->grid[i] : 1, w = in->wg[i] > 0 ? in->wg[i] : 1;
        wgs *= ceil(g / w);
        wg_items *= w;
    }
    if (in->grid[0] <= 0 || in->wg[0] <= 0 || wgs < 1 || wgs > FP_LAUNCH_MAX_WGS || in->wave_size <= 0)
        return;
    out->valid = true;
    out->workgroups = wgs;
    out->wg_waves = (int)ceil(wg_items / in->wave_size);
    out->grid_waves = wgs * out->wg_waves;
    out->cus = in->cus > 0 ? in->cus : 0;
    if (out->cus) {
        out->have_underfilled = true;
        out->underfilled = wgs < out->cus;
        out->fill_pct = fp_round(100.0 * (wgs < out->cus ? wgs : out->cus) / out->cus, 2);
        out->grid_waves_per_cu = ceil(out->grid_waves / out->cus);
    }
    if (out->cus && in->waves_per_simd > 0 && in->simds_per_cu > 0) {
        int slots = in->waves_per_simd * in->simds_per_cu;
        int per_cu = slots / out->wg_waves;
        /* a workgroup larger than the resident slots cannot launch at this
         * occupancy; the hardware still runs one (the model's floor) */
        out->resident_wgs_per_cu = per_cu > 0 ? per_cu : 1;
        out->concurrent_wgs = (double)out->resident_wgs_per_cu * out->cus;
        out->rounds = ceil(wgs / out->concurrent_wgs);
        out->tail_efficiency_pct = fp_round(100.0 * wgs / (out->rounds * out->concurrent_wgs), 2);
        out->grid_uses_more_waves = out->grid_waves > (double)out->cus * out->resident_wgs_per_cu * out->wg_waves;
    }
}

static void add_num_or_null(cJSON *o, const char *k, bool have, double v)
{
    if (have)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

cJSON *fp_launch_to_json(const fp_launch *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "workgroups", l->workgroups);
    cJSON_AddNumberToObject(o, "wg_waves", l->wg_waves);
    cJSON_AddNumberToObject(o, "grid_waves", l->grid_waves);
    add_num_or_null(o, "cus", l->cus > 0, l->cus);
    add_num_or_null(o, "resident_wgs_per_cu", l->resident_wgs_per_cu > 0, l->resident_wgs_per_cu);
    add_num_or_null(o, "concurrent_wgs", l->concurrent_wgs > 0, l->concurrent_wgs);
    add_num_or_null(o, "rounds", l->rounds > 0, l->rounds);
    add_num_or_null(o, "fill_pct", l->fill_pct >= 0, l->fill_pct);
    add_num_or_null(o, "tail_efficiency_pct", l->tail_efficiency_pct >= 0, l->tail_efficiency_pct);
    if (l->have_underfilled)
        fp_json_add_bool(o, "underfilled", l->underfilled);
    else
        cJSON_AddNullToObject(o, "underfilled");
    add_num_or_null(o, "grid_waves_per_cu", l->cus > 0, l->grid_waves_per_cu);
    char buf[256];
    fp_launch_sentence(l, buf, sizeof buf);
    fp_json_add_str(o, "text", buf);
    return o;
}

void fp_launch_sentence(const fp_launch *l, char *buf, size_t n)
{
    if (!l->valid) {
        snprintf(buf, n, "launch unknown");
        return;
    }
    if (!l->cus) {
        snprintf(buf, n, "%.0f workgroups of %d waves (CU count unknown)", l->workgroups, l->wg_waves);
        return;
    }
    int k = snprintf(buf, n, "%.0f workgroups of %d waves on %d CUs: %.0f%% of CUs busy", l->workgroups, l->wg_waves,
                     l->cus, l->fill_pct);
    if (k < 0 || (size_t)k >= n)
        return;
    /* the last-round efficiency only means something when there are several rounds */
    if (l->rounds > 1)
        snprintf(buf + k, n - (size_t)k, " (%d resident per CU, %.0f rounds, last-round efficiency %.0f%%)",
                 l->resident_wgs_per_cu, l->rounds, l->tail_efficiency_pct);
    else if (l->rounds == 1)
        snprintf(buf + k, n - (size_t)k, " (%d resident per CU, 1 round)", l->resident_wgs_per_cu);
}
