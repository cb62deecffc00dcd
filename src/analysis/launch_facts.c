/*
 * launch_facts.c - the launch and the time of the traced dispatch (issue 23
 * items 1 and 5; docs/launch.md): which kernel_trace.csv rows are
 * the traced dispatch (the identity the trace gives fp_kt_pick_traced), the
 * launch from those rows or, when the CSV is another launch, from the trace
 * itself scaled to the agent, and the duration with its source.
 *
 * Scaling: occupancy.json records every wave of every CU of the traced SEs; the
 * dispatcher deals workgroups round-robin over the XCDs (and within an XCD over
 * its SEs), so each traced unit holds floor(W/U) or ceil(W/U) of the W
 * workgroups. Whole XCDs traced: units are XCDs, exact; part of one: units are
 * SEs, with a slack of one workgroup (the SE split inside an XCD is not
 * documented). A file that shows one CU per SE at most may be the target CU's
 * waves only (older decoders, the generator's fixtures): not scaled.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/occupancy.h"
#include "flyprof/report_doc.h"
#include "flyprof/round.h"
#include "flyprof/signals.h"
#include "flyprof/soc.h"
#include "flyprof/taxonomy.h"

/* Below this share of the listing executed the trace is a prologue or an exit
 * path (signals.c's representativeness bound): a CSV duration is not its time. */
#define FP_LF_PROLOGUE_PCT 20.0

#define FP_LF_MAX_UNITS 64
/* Waves one SE can have run in one dispatch, at most (2^40: far beyond any grid,
 * small enough that sums over 64 units cannot overflow). */
#define FP_LF_MAX_SE_WAVES ((int64_t)1 << 40)
/* A workgroup has at most 1024 work-items: 16 waves of 64. A bubbles.json that says
 * more (or less than 1) is not believed. */
#define FP_LF_MAX_WG_WAVES 16

static char *dupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dupf(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return fp_model_strdup(buf);
}

void fp_launch_facts_from_bubbles(fp_signals *s, const fp_bubbles_doc *b)
{
    if (b->launch_trace && !s->ltrace) {
        s->ltrace = malloc(sizeof *s->ltrace);
        if (!s->ltrace)
            abort();
        fp_model_copy(&fp_launch_trace_schema, s->ltrace, b->launch_trace);
    }
    if (b->workdist && !s->workdist) {
        s->workdist = malloc(sizeof *s->workdist);
        if (!s->workdist)
            abort();
        fp_model_copy(&fp_workdist_schema, s->workdist, b->workdist);
    }
}

/* LDS is allocated for ds_* reads/writes/atomics and LDS-DMA loads; the
 * cross-lane ds_bpermute / ds_permute / ds_swizzle go through the LDS crossbar
 * and need no allocation (topk_gating_softmax: LDS_Block_Size 0). */
static bool needs_lds(const char *isa)
{
    if (fp_classify(isa) == FP_CL_LDS_DMA)
        return true;
    if (strncmp(isa, "ds_", 3))
        return false;
    return strncmp(isa, "ds_bpermute", 11) && strncmp(isa, "ds_permute", 10) && strncmp(isa, "ds_swizzle", 10);
}

void fp_launch_facts_from_code(fp_signals *s, const fp_code *code)
{
    s->lds_used = 0;
    for (size_t i = 0; i < code->n; i++)
        if (code->rows[i].index_ok && code->rows[i].index > 0 && needs_lds(code->rows[i].isa)) {
            s->lds_used = 1;
            return;
        }
}

static const fp_soc *product_soc(const fp_signals *s) { return s->product ? fp_soc_by_product(s->product) : NULL; }

/* The traced agent as the scaling sees it: the product's row, narrowed to the
 * agent's own XCDs (and their SEs) and CUs when capture.json names them. A CPX
 * MI300X agent is 1 XCD / 4 SEs / 38 CUs, not the product's 8 / 32 / 304: scaled
 * by the product, its workgroup count would be 8x too high. */
static const fp_soc *agent_soc(const fp_signals *s, fp_soc *buf)
{
    const fp_soc *p = product_soc(s);
    if (!p || s->xcds <= 0 || p->xcds <= 0 || s->xcds >= p->xcds || p->shader_engines % p->xcds)
        return p;
    *buf = *p;
    buf->shader_engines = p->shader_engines / p->xcds * s->xcds;
    buf->xcds = s->xcds;
    if (s->cus > 0)
        buf->cus = s->cus;
    return buf;
}

typedef struct trace_scale {
    const char *unit;        /* "xcd" | "se" */
    int64_t traced_units, agent_units, slack;
    int64_t *w;              /* waves per traced unit */
} trace_scale;

/* The traced units and their waves; false when the trace cannot be scaled. */
static bool scale_of(const fp_launch_trace *lt, const fp_soc *soc, int64_t units[FP_LF_MAX_UNITS], trace_scale *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->w = units;
    if (!lt || !lt->covers_ses || !soc || soc->shader_engines <= 0 || !lt->n_per_se)
        return false;
    size_t n = lt->n_per_se;
    for (size_t i = 0; i < n; i++)
        if (lt->per_se[i].waves < 0 || lt->per_se[i].waves > FP_LF_MAX_SE_WAVES)
            return false; /* not a count a trace can hold (a hostile bubbles.json) */
    size_t per_xcd = soc->xcds > 0 ? (size_t)(soc->shader_engines / soc->xcds) : 0;
    if (per_xcd && n % per_xcd == 0 && n / per_xcd <= (size_t)soc->xcds && n / per_xcd <= FP_LF_MAX_UNITS) {
        sc->unit = "xcd";
        sc->traced_units = (int64_t)(n / per_xcd);
        sc->agent_units = soc->xcds;
        for (size_t i = 0; i < n; i++)
            units[i / per_xcd] = (i % per_xcd ? units[i / per_xcd] : 0) + lt->per_se[i].waves;
        return true;
    }
    if (n > FP_LF_MAX_UNITS || (int64_t)n > soc->shader_engines)
        return false;
    sc->unit = "se";
    sc->traced_units = (int64_t)n;
    sc->agent_units = soc->shader_engines;
    sc->slack = 1;
    for (size_t i = 0; i < n; i++)
        units[i] = lt->per_se[i].waves;
    return true;
}

void fp_launch_facts_identity(const fp_signals *s, int64_t units[FP_LF_MAX_UNITS], fp_kt_identity *id)
{
    memset(id, 0, sizeof *id);
    id->wave_size = 64; /* every CDNA target */
    id->lds_used = s->lds_used;
    id->lds_bytes = id->vgpr = -1;
    trace_scale sc;
    fp_soc buf;
    if (!scale_of(s->ltrace, agent_soc(s, &buf), units, &sc))
        return;
    id->unit_waves = units;
    id->n_units = (size_t)sc.traced_units;
    id->agent_units = sc.agent_units;
    id->slack = sc.slack;
}

/* report.launch.trace: the counts, scaled when the product is known. */
static fp_rl_trace *trace_doc(const fp_signals *s, const fp_soc *soc, double wg_waves)
{
    const fp_launch_trace *lt = s->ltrace;
    fp_rl_trace *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->traced_ses = lt->traced_ses;
    o->waves = lt->waves;
    o->peak_waves_per_simd = lt->peak_waves_per_simd;
    o->agent_ses = soc ? fp_optd_of(soc->shader_engines) : fp_optd_none();
    o->wg_waves = wg_waves > 0 ? fp_optd_of(wg_waves) : fp_optd_none();
    if (soc && soc->shader_engines > 0 && lt->traced_ses > 0) {
        double simds = (double)lt->traced_ses * soc->cus / soc->shader_engines * 4; /* 4 SIMDs per CDNA CU */
        o->simd_fill_pct = fp_optd_of(fp_round(100.0 * (double)lt->simds / simds, 2));
    }
    int64_t units[FP_LF_MAX_UNITS];
    trace_scale sc;
    if (!scale_of(lt, soc, units, &sc)) {
        o->text = fp_model_strdup(!lt->covers_ses ? "occupancy.json shows one CU per SE at most (it may hold the "
                                                    "target CU only): not scaled to the agent"
                                                  : "product unknown: not scaled to the agent");
        return o;
    }
    o->unit = fp_model_strdup(sc.unit);
    o->traced_units = sc.traced_units;
    o->agent_units = fp_optd_of((double)sc.agent_units);
    double wa = (double)lt->waves * (double)sc.agent_units / (double)sc.traced_units;
    o->waves_agent = fp_optd_of(round(wa));
    if (wg_waves > 0) {
        double U = (double)sc.agent_units, lo = 1, hi = 1e300, seen = 0;
        for (int64_t i = 0; i < sc.traced_units; i++) {
            double c = (double)units[i] / wg_waves;
            seen += c;
            lo = fmax(lo, U * (floor(c) - (double)sc.slack - 1) + 1);
            hi = fmin(hi, U * (ceil(c) + (double)sc.slack + 1) - 1);
        }
        o->workgroups = fp_optd_of(round(wa / wg_waves));
        o->workgroups_min = fp_optd_of(fmax(lo, ceil(seen)));
        o->workgroups_max = fp_optd_of(fmax(hi, fmax(lo, ceil(seen))));
    }
    o->text = dupf("%lld waves on %lld traced SEs, scaled by %lld/%lld %s%s (workgroups are dealt round-robin "
                   "over them)",
                   (long long)lt->waves, (long long)lt->traced_ses, (long long)sc.agent_units,
                   (long long)sc.traced_units, sc.unit, sc.traced_units == 1 ? "" : "s");
    return o;
}

static void push_warning(char ***v, size_t *n, char *msg)
{
    fp_model_push_str(v, n, msg);
    free(msg);
}

/* The rows of the CSV were all refused: say which tests refused them. */
static char *refusal(const fp_signals *s)
{
    char why[160] = "";
    size_t k = 0;
    for (int r = 0; r < FP_KT_REJ_COUNT; r++)
        if (s->csv.rejected[r])
            k += (size_t)snprintf(why + k, k < sizeof why ? sizeof why - k : 0, "%s%s: %zu", k ? ", " : "",
                                  fp_kt_reject_name((fp_kt_reject)r), s->csv.rejected[r]);
    return dupf("kernel_trace.csv: none of the %zu rows named %s is the traced dispatch (refused by %s): the "
                "CSV is another launch of this kernel; the trace wins",
                s->csv.named, s->kernel ? s->kernel : "?", why);
}

void fp_launch_facts_derive(fp_signals *s)
{
    fp_soc buf;
    const fp_soc *soc = agent_soc(s, &buf);
    if (!s->cus && soc)
        s->cus = soc->cus;
    const fp_arch_limits *a = s->arch ? fp_arch_by_name(s->arch) : NULL;
    fp_launch_in in = {{0}, {0}, 0, 0, 0, 0, 0, 0};
    in.cus = s->cus;
    in.simds_per_cu = a ? a->simds_per_cu : 4; /* every CDNA CU has 4 SIMDs and wave64 */
    in.wave_size = a ? a->wave_size : 64;
    in.waves_per_simd = s->waves_per_simd.known ? (int)s->waves_per_simd.v : 0;
    bool refuted = s->csv.named > 0 && s->csv.n == 0;
    double wg_waves = s->ltrace && s->ltrace->wg_waves.known ? s->ltrace->wg_waves.v : 0;
    if (!(wg_waves >= 1 && wg_waves <= FP_LF_MAX_WG_WAVES))
        wg_waves = 0;
    if (s->have_grid) {
        for (int i = 0; i < 3; i++) {
            in.grid[i] = s->grid[i];
            in.wg[i] = s->wg3[i];
        }
        fp_launch_compute(&in, &s->launch);
        if (s->launch.valid)
            wg_waves = s->launch.wg_waves;
    }
    if (s->ltrace)
        s->launch_trace_doc = trace_doc(s, soc, wg_waves);
    if (refuted)
        push_warning(&s->launch_warnings, &s->nlaunch_warnings, refusal(s));
    if (s->launch.valid) {
        s->launch_source = "csv";
        return;
    }
    const fp_rl_trace *t = s->launch_trace_doc;
    if (t && t->workgroups.known && t->workgroups.v >= 1 && t->wg_waves.known) {
        in.workgroups = t->workgroups.v;
        in.wg_waves = (int)t->wg_waves.v;
        fp_launch_compute(&in, &s->launch);
        if (s->launch.valid) {
            s->launch_source = "trace";
            s->launch.from_trace = true;
            return;
        }
    }
    if (!s->have_grid && !refuted)
        s->launch_reason = fp_model_strdup("no kernel_trace.csv row with this kernel's Grid_Size/Workgroup_Size: "
                                           "launch not modelled");
    else if (refuted)
        s->launch_reason = fp_model_strdup("kernel_trace.csv is another launch of this kernel and the trace cannot "
                                           "be scaled to the agent: launch not modelled");
    else
        s->launch_reason = fp_model_strdup("kernel_trace.csv grid or workgroup size unusable: launch not modelled");
}

/* The trace's own duration: occupancy.json's span on realtime.json's clock, else
 * on the product's peak engine clock (named, since the real clock varies). */
static void trace_time(fp_signals *s, const fp_soc *soc)
{
    const fp_launch_trace *lt = s->ltrace;
    if (!lt || lt->span_cycles <= 0 || lt->span_cycles > ((int64_t)1 << 50))
        return;
    if (lt->span_ns.known && lt->span_ns.v > 0 && isfinite(lt->span_ns.v)) {
        s->time_trace_ns = lt->span_ns;
        s->clock_source = fp_model_strdup("realtime.json");
    } else if (soc && soc->peak_sclk_mhz > 0) {
        s->time_trace_ns = fp_optd_of((double)lt->span_cycles * 1e3 / soc->peak_sclk_mhz);
        s->clock_source = dupf("agent clock (%s %.0f MHz)", soc->product, soc->peak_sclk_mhz);
    }
}

void fp_launch_facts_time(fp_signals *s)
{
    trace_time(s, product_soc(s));
    bool prologue = s->coverage_pct.known && s->coverage_pct.v < FP_LF_PROLOGUE_PCT;
    bool refuted = s->csv.named > 0 && s->csv.n == 0;
    bool csv = s->csv.timed > 0, cap = s->time_capture_ns.known && !refuted;
    s->time_source = NULL;
    s->time_ns = fp_optd_none();
    if (s->time_counters_ns.known) {
        s->time_source = "counters";
        s->time_ns = s->time_counters_ns;
    } else if (!prologue && csv) {
        s->time_source = "csv";
        s->time_ns = fp_optd_of(s->csv.median_ns);
    } else if (!prologue && cap) {
        s->time_source = "capture";
        s->time_ns = s->time_capture_ns;
    } else if (s->time_trace_ns.known) {
        s->time_source = "trace";
        s->time_ns = s->time_trace_ns;
    }
    if (prologue && (csv || cap))
        push_warning(&s->time_warnings, &s->ntime_warnings,
                     dupf("the traced waves ran %.1f%% of the listing (a prologue or exit path): a CSV duration is "
                          "not this dispatch's time",
                          s->coverage_pct.v));
    if (refuted && s->time_source && !strcmp(s->time_source, "trace"))
        push_warning(&s->time_warnings, &s->ntime_warnings,
                     dupf("kernel_trace.csv is another launch of this kernel: time from the trace's wave span (%s)",
                          s->clock_source ? s->clock_source : "?"));
}

void fp_launch_facts_free(fp_signals *s)
{
    if (s->ltrace)
        fp_model_free(&fp_launch_trace_schema, s->ltrace);
    free(s->ltrace);
    if (s->workdist)
        fp_model_free(&fp_workdist_schema, s->workdist);
    free(s->workdist);
    if (s->launch_trace_doc)
        fp_model_free(&fp_rl_trace_schema, s->launch_trace_doc);
    free(s->launch_trace_doc);
    free(s->clock_source);
    for (size_t i = 0; i < s->nlaunch_warnings; i++)
        free(s->launch_warnings[i]);
    free(s->launch_warnings);
    for (size_t i = 0; i < s->ntime_warnings; i++)
        free(s->time_warnings[i]);
    free(s->time_warnings);
    fp_loops_free(&s->loops);
}

/* report.json: launch's sources and SIMD fill, time, workdist (the report's
 * launch object itself is fp_launch_to_doc's). */
void fp_launch_facts_to_doc(const fp_signals *s, fp_report_doc *d)
{
    if (d->launch) {
        fp_report_launch *o = d->launch;
        o->source = fp_model_strdup(s->launch_source);
        if (s->launch_trace_doc) {
            o->trace = malloc(sizeof *o->trace);
            if (!o->trace)
                abort();
            fp_model_copy(&fp_rl_trace_schema, o->trace, s->launch_trace_doc);
        }
        for (size_t i = 0; i < s->nlaunch_warnings; i++)
            fp_model_push_str(&o->warnings, &o->nwarnings, s->launch_warnings[i]);
    }
    if (d->launch && s->csv.named) {
        fp_rl_csv *c = d->launch->csv = calloc(1, sizeof *c);
        if (!c)
            abort();
        c->rows_named = (int64_t)s->csv.named;
        c->rows_used = (int64_t)s->csv.n;
        c->rejected = (fp_rl_rejected){(int64_t)s->csv.rejected[FP_KT_REJ_GRID],
                                       (int64_t)s->csv.rejected[FP_KT_REJ_WORKGROUP],
                                       (int64_t)s->csv.rejected[FP_KT_REJ_LDS], (int64_t)s->csv.rejected[FP_KT_REJ_VGPR]};
        bool rows = s->csv.n && s->have_grid && !strcmp(s->launch_source ? s->launch_source : "", "csv");
        c->workgroups = rows ? fp_optd_of(s->launch.workgroups) : fp_optd_none();
        c->wg_waves = rows ? fp_optd_of(s->launch.wg_waves) : fp_optd_none();
    }
    fp_report_time *t = d->time = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->source = fp_model_strdup(s->time_source);
    t->ns = s->time_ns;
    t->counters_ns = s->time_counters_ns;
    t->capture_ns = s->time_capture_ns;
    if (s->ltrace) {
        fp_rtm_trace *x = t->trace = calloc(1, sizeof *x);
        if (!x)
            abort();
        x->span_cycles = s->ltrace->span_cycles;
        x->span_ns = s->time_trace_ns;
        x->clock_mhz = s->ltrace->clock_mhz;
        x->clock_source = fp_model_strdup(s->clock_source);
    }
    if (s->csv.n) {
        fp_rtm_csv *c = t->csv = calloc(1, sizeof *c);
        if (!c)
            abort();
        bool timed = s->csv.timed > 0;
        c->rows = (int64_t)s->csv.n;
        c->timed = (int64_t)s->csv.timed;
        c->outliers = (int64_t)s->csv.outliers;
        c->median_ns = timed ? fp_optd_of(s->csv.median_ns) : fp_optd_none();
        c->min_ns = timed ? fp_optd_of(s->csv.min_ns) : fp_optd_none();
        c->max_ns = timed ? fp_optd_of(s->csv.max_ns) : fp_optd_none();
        c->mean_ns = timed ? fp_optd_of(s->csv.mean_ns) : fp_optd_none();
        c->rows_sha256 = s->csv.sha256[0] ? fp_model_strdup(s->csv.sha256) : NULL;
    }
    for (size_t i = 0; i < s->ntime_warnings; i++)
        fp_model_push_str(&t->warnings, &t->nwarnings, s->time_warnings[i]);
    if (s->time_ns.known)
        t->text = dupf("%.1f us (%s%s%s)", s->time_ns.v / 1e3, s->time_source,
                       !strcmp(s->time_source, "csv") ? ", median of the traced dispatch's rows" : "",
                       !strcmp(s->time_source, "trace") ? ", first wave start to last wave end" : "");
    else
        t->text = fp_model_strdup("unknown: no counters, kernel_trace.csv row or occupancy.json span");
    for (size_t i = 0; i < s->loops.n; i++) {
        const fp_loop *L = &s->loops.v[i];
        fp_rq_loop *o = fp_model_push((void **)&d->capture_quality.loops, &d->capture_quality.nloops, sizeof *o);
        *o = (fp_rq_loop){L->branch_line, L->head_line, fp_model_strdup(fp_loop_kind_name(L->kind)), L->body,
                          L->taken, (long)i == s->loops.main};
    }
    if (s->workdist) {
        d->workdist = malloc(sizeof *d->workdist);
        if (!d->workdist)
            abort();
        fp_model_copy(&fp_workdist_schema, d->workdist, s->workdist);
    }
}
