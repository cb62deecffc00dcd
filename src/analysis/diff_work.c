/*
 * diff_work.c - the parts of diff.json that explain a change (diff.h): is it
 * the same code, what did each side's waves do per unit of work, and is the
 * change outside the noise the trace itself shows (docs/commands/diff.md).
 *
 * The one idea: a change is only a change when it is outside the spread of
 * the same figure over the traced waves. Each side's waves are a sample; the
 * difference of their means gets a Welch 95 % confidence interval, and the
 * verdict reads that interval against the 2 % floor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/diff.h"
#include "flyprof/model.h"
#include "flyprof/round.h"

/* Two-sided 95 % quantiles of Student's t (t_{0.975, df}), from any table of
 * the distribution (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2); between rows
 * interpolated linearly in 1/df, which is exact to ~0.1 % in this range. */
static const struct {
    double df, t;
} T975[] = {
    {1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},  {5, 2.571},  {6, 2.447},   {7, 2.365},  {8, 2.306},
    {9, 2.262},  {10, 2.228}, {12, 2.179}, {15, 2.131}, {20, 2.086}, {25, 2.060},  {30, 2.042}, {40, 2.021},
    {60, 2.000}, {120, 1.980}, {1e9, 1.960},
};

double fp_diff_t975(double df)
{
    size_t n = sizeof T975 / sizeof T975[0];
    if (!(df > T975[0].df))
        return T975[0].t;
    for (size_t i = 1; i < n; i++)
        if (df <= T975[i].df) {
            double x0 = 1 / T975[i - 1].df, x1 = 1 / T975[i].df, x = 1 / df;
            return T975[i - 1].t + (T975[i].t - T975[i - 1].t) * (x - x0) / (x1 - x0);
        }
    return T975[n - 1].t;
}

double fp_diff_welch_half(double sd_b, double n_b, double sd_a, double n_a)
{
    if (n_b < 2 || n_a < 2)
        return NAN;
    double vb = sd_b * sd_b / n_b, va = sd_a * sd_a / n_a, v = vb + va;
    if (v <= 0)
        return 0;
    double df = v * v / (vb * vb / (n_b - 1) + va * va / (n_a - 1));
    return fp_diff_t975(df) * sqrt(v);
}

/* What a relative change with its interval is, against the floor (diff.md):
 * improved / regressed when the interval excludes 0 and the change is beyond
 * the floor; neutral when the change is within the floor and so is the whole
 * interval (or, for the same code, the interval contains 0); else inconclusive.
 * Without an interval (a side with one wave) only the floor decides neutral. */
const char *fp_diff_change_of(double delta, double lo, double hi, bool have_ci, bool same_code)
{
    double e = FP_DIFF_NOISE_TIME_PCT;
    if (!have_ci)
        return fabs(delta) < e ? "neutral" : "inconclusive";
    if (hi < 0 && delta <= -e)
        return "improved";
    if (lo > 0 && delta >= e)
        return "regressed";
    if (fabs(delta) < e && ((lo > -e && hi < e) || (same_code && lo <= 0 && hi >= 0)))
        return "neutral";
    return "inconclusive";
}

static fp_optd od(double v) { return fp_optd_of(v); }

void fp_diff_ci_of(const fp_report_stat *b, const fp_report_stat *a, bool same_code, fp_diff_ci *o)
{
    memset(o, 0, sizeof *o);
    if (!b || !a || b->n < 1 || a->n < 1)
        return;
    o->before = od(b->mean);
    o->after = od(a->mean);
    o->sd_before = od(b->sd);
    o->sd_after = od(a->sd);
    o->n_before = b->n;
    o->n_after = a->n;
    if (!(b->mean > 0))
        return;
    double d = 100.0 * (a->mean - b->mean) / b->mean;
    double h = fp_diff_welch_half(b->sd, (double)b->n, a->sd, (double)a->n);
    bool have = !isnan(h);
    o->delta_pct = od(d);
    if (have) {
        o->ci_low_pct = od(d - 100.0 * h / b->mean);
        o->ci_high_pct = od(d + 100.0 * h / b->mean);
    }
    o->change = fp_model_strdup(fp_diff_change_of(d, d - 100.0 * h / b->mean, d + 100.0 * h / b->mean, have,
                                                  same_code));
}

/* ---- code identity ---- */

void fp_diff_code_of(const fp_report_doc *rb, const fp_report_doc *ra, fp_diff_code *o)
{
    memset(o, 0, sizeof *o);
    const fp_report_isa *b = rb->isa, *a = ra->isa;
    const char *id = "unknown";
    char why[256];
    snprintf(why, sizeof why, "the %s report has no isa (written before flyprof recorded the code's identity)",
             !b ? "before" : "after");
    if (b && a) {
        o->instructions_before = fp_optd_of((double)b->instructions);
        o->instructions_after = fp_optd_of((double)a->instructions);
        if (b->sha256 && a->sha256 && !strcmp(b->sha256, a->sha256)) {
            id = "unchanged";
            snprintf(why, sizeof why,
                     "code unchanged (same %lld instructions, ISA sha256 %.12s): only source mapping / sampling differs",
                     (long long)b->instructions, b->sha256);
        } else if (b->opcodes_sha256 && a->opcodes_sha256 && !strcmp(b->opcodes_sha256, a->opcodes_sha256)) {
            id = "operands_changed";
            snprintf(why, sizeof why, "same %lld opcodes in the same order, different operands (constants, registers)",
                     (long long)b->instructions);
        } else {
            id = "changed";
            snprintf(why, sizeof why, "code changed: %lld -> %lld instructions", (long long)b->instructions,
                     (long long)a->instructions);
        }
    }
    o->identity = fp_model_strdup(id);
    o->sha256_before = fp_model_strdup(b ? b->sha256 : NULL);
    o->sha256_after = fp_model_strdup(a ? a->sha256 : NULL);
    o->why = fp_model_strdup(why);
}

/* ---- per unit of work ---- */

static char *loop_text(const fp_report_work *w)
{
    if (!w || !w->main_loop)
        return NULL;
    const fp_report_loop *l = w->main_loop;
    const char *src = l->source ? strrchr(l->source, '/') : NULL;
    src = src ? src + 1 : l->source;
    return src ? fp_model_printf("%lld..%lld (%s)", (long long)l->head, (long long)l->back_edge, src)
               : fp_model_printf("%lld..%lld", (long long)l->head, (long long)l->back_edge);
}

static void work_why(fp_diff_work *o)
{
    char buf[512];
    const fp_diff_ci *w = &o->per_wave, *it = &o->per_iteration;
    int n = 0;
    if (w->delta_pct.known)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "per wave %+.1f%%", fp_round(w->delta_pct.v, 1));
    const fp_diff_change *ipw = &o->iterations_per_wave;
    bool other_work = ipw->before.known && ipw->after.known && fabs(ipw->after.v - ipw->before.v) >= 0.005;
    if (it->delta_pct.known && other_work)
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "%sthe traced waves ran %.2f -> %.2f main-loop iterations: per iteration %+.2f%%",
                      n ? ", but " : "", fp_round(ipw->before.v, 2), fp_round(ipw->after.v, 2),
                      fp_round(it->delta_pct.v, 2));
    else if (it->delta_pct.known)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%sper main-loop iteration %+.2f%%", n ? ", " : "",
                      fp_round(it->delta_pct.v, 2));
    if (it->ci_low_pct.known)
        snprintf(buf + n, sizeof buf - (size_t)n, " (95%% CI %+.2f .. %+.2f%%)", fp_round(it->ci_low_pct.v, 2),
                 fp_round(it->ci_high_pct.v, 2));
    else if (!it->delta_pct.known && w->ci_low_pct.known)
        snprintf(buf + n, sizeof buf - (size_t)n, " (95%% CI %+.2f .. %+.2f%%)", fp_round(w->ci_low_pct.v, 2),
                 fp_round(w->ci_high_pct.v, 2));
    o->why = fp_model_strdup(n ? buf : "no per-wave figures (a report without work: re-run flyprof report)");
}

void fp_diff_work_of(const fp_report_doc *rb, const fp_report_doc *ra, bool same_code, fp_diff_work *o)
{
    memset(o, 0, sizeof *o);
    const fp_report_work *b = rb->work, *a = ra->work;
    if (b && a) {
        fp_diff_ci_of(&b->wave_cycles, &a->wave_cycles, same_code, &o->per_wave);
        if (b->main_loop && a->main_loop) {
            fp_diff_ci_of(&b->main_loop->cycles_per_iteration, &a->main_loop->cycles_per_iteration, same_code,
                          &o->per_iteration);
            o->iterations_per_wave.before = fp_optd_of(b->main_loop->iterations_per_wave.mean);
            o->iterations_per_wave.after = fp_optd_of(a->main_loop->iterations_per_wave.mean);
            o->iterations_per_wave.delta =
                fp_optd_of(a->main_loop->iterations_per_wave.mean - b->main_loop->iterations_per_wave.mean);
        }
    }
    o->time_void = fp_diff_time_void(rb, ra);
    o->loop_before = loop_text(b);
    o->loop_after = loop_text(a);
    o->unit = fp_model_strdup(o->per_iteration.change ? "main-loop iteration" : o->per_wave.change ? "wave" : NULL);
    work_why(o);
}

/* Both durations are the same kernel_trace.csv rows (report.json time.csv.rows_sha256,
 * issue 23): a discovery run read twice says nothing about the change. */
bool fp_diff_time_void(const fp_report_doc *rb, const fp_report_doc *ra)
{
    const fp_report_time *b = rb->time, *a = ra->time;
    return b && a && b->source && a->source && !strcmp(b->source, "csv") && !strcmp(a->source, "csv") && b->csv &&
           a->csv && b->csv->rows_sha256 && a->csv->rows_sha256 && !strcmp(b->csv->rows_sha256, a->csv->rows_sha256);
}

/* A duration that is the traced waves' span (time.source "trace"): a sample
 * like the cycles the per-wave figures compare with their spread, not a
 * measurement of the dispatch. */
bool fp_diff_time_is_trace(const fp_report_doc *r)
{
    return r->time && r->time->source && !strcmp(r->time->source, "trace");
}

/* The half-width of a class share's change (points) from both sides' share sd. */
fp_optd fp_diff_share_ci(const fp_report_doc *rb, const fp_report_doc *ra, const char *cls)
{
    const fp_report_work *b = rb->work, *a = ra->work;
    if (!b || !a || !cls)
        return fp_optd_none();
    double sb = 0, sa = 0;
    for (size_t i = 0; i < b->nshare_sd; i++)
        if (b->share_sd[i].key && !strcmp(b->share_sd[i].key, cls))
            sb = b->share_sd[i].v;
    for (size_t i = 0; i < a->nshare_sd; i++)
        if (a->share_sd[i].key && !strcmp(a->share_sd[i].key, cls))
            sa = a->share_sd[i].v;
    double h = fp_diff_welch_half(sb, (double)b->wave_cycles.n, sa, (double)a->wave_cycles.n);
    return isnan(h) ? fp_optd_none() : fp_optd_of(h);
}
