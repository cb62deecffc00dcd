/*
 * launch.c - the launch model (launch.h, docs/launch.md). Pure arithmetic on
 * the kernel_trace.csv grid, the SoC CU count and the occupancy model.
 */
#include "flyprof/launch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/report_doc.h"

/* Largest workgroup count modelled: beyond it the CSV cell is corrupt. */
#define FP_LAUNCH_MAX_WGS 1e12
/* Largest workgroup modelled (work items): the hardware limit is 1024; far past
 * it the cell is corrupt, and (int)ceil() of its wave count would be undefined. */
#define FP_LAUNCH_MAX_WG_ITEMS 65536.0

void fp_launch_compute(const fp_launch_in *in, fp_launch *out)
{
    *out = (fp_launch){0};
    out->fill_pct = -1;
    out->tail_efficiency_pct = -1;
    out->simd_fill_pct = -1;
    double wgs = 1, wg_items = 1;
    if (in->workgroups > 0) { /* the trace's counts */
        if (!isfinite(in->workgroups) || in->workgroups > FP_LAUNCH_MAX_WGS || in->wg_waves <= 0)
            return;
        wgs = in->workgroups;
    } else {
        for (int i = 0; i < 3; i++) {
            if (!isfinite(in->grid[i]) || !isfinite(in->wg[i]))
                return; /* a corrupt cell, not an absent dimension */
            double g = in->grid[i] > 0 ? in->grid[i] : 1, w = in->wg[i] > 0 ? in->wg[i] : 1;
            wgs *= ceil(g / w);
            wg_items *= w;
        }
        if (in->grid[0] <= 0 || in->wg[0] <= 0 || wgs < 1 || wgs > FP_LAUNCH_MAX_WGS)
            return;
    }
    /* wg_items is 1 on the trace's counts; past the limit a grid cell is corrupt */
    if (in->wave_size <= 0 || wg_items > FP_LAUNCH_MAX_WG_ITEMS)
        return;
    out->valid = true;
    out->workgroups = wgs;
    out->wg_waves = in->workgroups > 0 ? in->wg_waves : (int)ceil(wg_items / in->wave_size);
    out->grid_waves = wgs * out->wg_waves;
    out->cus = in->cus > 0 ? in->cus : 0;
    if (out->cus) {
        out->have_underfilled = true;
        out->underfilled = wgs < out->cus;
        out->fill_pct = fp_round(100.0 * (wgs < out->cus ? wgs : out->cus) / out->cus, 2);
        out->grid_waves_per_cu = ceil(out->grid_waves / out->cus);
        if (in->simds_per_cu > 0) {
            /* a CU spreads its waves over its SIMDs: the grid's waves can busy at most that many */
            out->simds = out->cus * in->simds_per_cu;
            double busy = out->grid_waves < out->simds ? out->grid_waves : out->simds;
            out->simd_fill_pct = fp_round(100.0 * busy / out->simds, 2);
        }
    }
    if (out->simds && in->waves_per_simd > 0) {
        out->waves_per_simd_limit = in->waves_per_simd;
        double per = ceil(out->grid_waves / out->simds);
        out->resident_waves_per_simd = per < in->waves_per_simd ? per : in->waves_per_simd;
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

static fp_optd num_if(bool have, double v) { return have ? fp_optd_of(v) : fp_optd_none(); }

void fp_launch_to_doc(const fp_launch *l, fp_report_launch *o)
{
    memset(o, 0, sizeof *o);
    o->workgroups = l->workgroups;
    o->wg_waves = l->wg_waves;
    o->grid_waves = l->grid_waves;
    o->cus = num_if(l->cus > 0, l->cus);
    o->resident_wgs_per_cu = num_if(l->resident_wgs_per_cu > 0, l->resident_wgs_per_cu);
    o->concurrent_wgs = num_if(l->concurrent_wgs > 0, l->concurrent_wgs);
    o->rounds = num_if(l->rounds > 0, l->rounds);
    o->fill_pct = num_if(l->fill_pct >= 0, l->fill_pct);
    o->tail_efficiency_pct = num_if(l->tail_efficiency_pct >= 0, l->tail_efficiency_pct);
    o->underfilled = (fp_optb){l->have_underfilled, l->have_underfilled && l->underfilled};
    o->grid_waves_per_cu = num_if(l->cus > 0, l->grid_waves_per_cu);
    o->simds = num_if(l->simds > 0, l->simds);
    o->simd_fill_pct = num_if(l->simd_fill_pct >= 0, l->simd_fill_pct);
    o->waves_per_simd_limit = num_if(l->waves_per_simd_limit > 0, l->waves_per_simd_limit);
    o->resident_waves_per_simd = num_if(l->resident_waves_per_simd > 0, l->resident_waves_per_simd);
    char buf[256];
    fp_launch_sentence(l, buf, sizeof buf);
    o->text = fp_model_strdup(buf);
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
    /* fill by SIMD said only where it tells more than fill by CU (one-wave workgroups) */
    if (k >= 0 && (size_t)k < n && l->simd_fill_pct >= 0 && l->simd_fill_pct < l->fill_pct)
        k += snprintf(buf + k, n - (size_t)k, ", %.0f%% of SIMDs", l->simd_fill_pct);
    if (k >= 0 && (size_t)k < n && l->from_trace)
        k += snprintf(buf + k, n - (size_t)k, " [counts from the trace]");
    if (k < 0 || (size_t)k >= n)
        return;
    /* the last-round efficiency only means something when there are several rounds */
    if (l->rounds > 1)
        snprintf(buf + k, n - (size_t)k, " (%d resident per CU, %.0f rounds, last-round efficiency %.0f%%)",
                 l->resident_wgs_per_cu, l->rounds, l->tail_efficiency_pct);
    else if (l->rounds == 1)
        snprintf(buf + k, n - (size_t)k, " (%d resident per CU, 1 round)", l->resident_wgs_per_cu);
}
