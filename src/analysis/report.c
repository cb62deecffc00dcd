/*
 * report.c - report.json from the evidence (fp_report_doc, report_doc.h), and its
 * text renderings (REPORT.md, the terminal table, headlines.json). See report.h.
 *
 * The plan format follows what engineers expect (seed 000 "Optimization
 * Plan"): stall summary, hotspot analysis with root cause, fix, estimated
 * gain, then a priority order.
 */
#include "flyprof/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/rules.h"
#include "flyprof/table.h"
#include "flyprof/taxonomy.h"

/* How to fix a source mapping that files most of the kernel under its entry line
 * (seed pattern 5: address arithmetic, cndmask and prologue set-up inherit the
 * outermost scope's location). */
#define FP_DEBUG_INFO_FIX                                                                                             \
    "the compiler files prologue and address code under the outermost scope (seed pattern 5); ignore that line and "  \
    "read the lines with explicit ops (each recommendation names one as explicit_line). To fix the mapping, give "     \
    "the generated ops the caller's location (the `loc=` the FlyDSL expr helpers take, e.g. numeric.py's "           \
    "`index_cast(..., loc=loc)`), keep line info in the build, and re-capture"

/* A new zeroed struct (aborts on OOM, like the model's helpers). */
static void *new_obj(size_t size)
{
    void *p = calloc(1, size);
    if (!p)
        abort();
    return p;
}

#define PUSH(list, n) fp_model_push((void **)&(list), &(n), sizeof *(list))

/* ---- source text ---- */

const char *fp_report_source_text(const fp_snapshots *snaps, const char *source)
{
    return fp_signals_source_text(snaps, source);
}

static char *trimmed(const char *s)
{
    if (!s)
        return NULL;
    while (*s == ' ' || *s == '\t')
        s++;
    char *d = fp_model_strdup(s);
    size_t n = strlen(d);
    while (n && (d[n - 1] == ' ' || d[n - 1] == '\t' || d[n - 1] == '\r' || d[n - 1] == '\n'))
        d[--n] = 0;
    return d;
}

/* ---- build ---- */

static void classes_doc(const fp_signals *s, fp_report_doc *d)
{
    int rank = 0;
    for (size_t i = 0; i < s->nclasses; i++) {
        const fp_sig_class *c = &s->classes[i];
        if (c->stall <= 0)
            continue;
        fp_report_class *o = PUSH(d->classes, d->nclasses);
        o->cls = fp_model_strdup(c->name);
        o->rank = ++rank;
        o->cycles = c->stall;
        o->pct = c->stall_pct;
        o->is_bubble = c->is_bubble;
        o->exposed = c->exposed;
        o->gain_upper_pct = c->gain_pct;
        o->mix = c->mix;
    }
}

/* Every signal kind the rules read, by its name (rules.h's table), null when unknown. */
static void signals_doc(const fp_signals *s, fp_report_doc *d)
{
    for (int k = FP_SIG_SCRATCH_INSTS; k < FP_SIG_KIND_COUNT; k++) {
        double v;
        fp_named_optd *o = PUSH(d->signals, d->nsignals);
        o->key = fp_model_strdup(fp_sig_kind_name((fp_sig_kind)k));
        o->v = fp_sig_value(s, (fp_sig_kind)k, NULL, &v) ? fp_optd_of(v) : fp_optd_none();
    }
}

static fp_report_occupancy *occupancy_doc(const fp_signals *s)
{
    if (!s->waves_per_cu.known && !s->arch_vgpr.known)
        return NULL;
    fp_report_occupancy *o = new_obj(sizeof *o);
    o->waves_per_cu = s->waves_per_cu;
    o->waves_per_simd = s->waves_per_simd;
    o->limiter = fp_model_strdup(s->occ_limiter);
    o->next_waves_per_cu = s->next_waves_per_cu;
    o->vgprs_to_free = s->vgpr_to_next;
    o->arch_vgpr = s->arch_vgpr;
    o->accum_vgpr = s->accum_vgpr;
    o->lds_bytes = s->lds_bytes;
    o->sgpr = s->sgpr;
    o->wg_size = s->wg_size;
    o->scratch_bytes = s->scratch_size;
    o->source = fp_model_strdup(s->occ_source);
    o->model = fp_model_strdup("unified 512-entry VGPR pool (occupancy.h)");
    return o;
}

static fp_report_counters *counters_doc(const fp_signals *s)
{
    if (!s->have_counters)
        return NULL;
    fp_report_counters *o = new_obj(sizeof *o);
    o->l2_hit_pct = s->l2_hit;
    o->partial_32b_frac = s->partial_32b;
    o->lds_bank_conflict_pct = s->lds_conflict_pct;
    o->mfma_util = s->mfma_frac;
    o->achieved_hbm_gbs = s->achieved_gbs;
    /* the peak the percentage was divided by: a partition's share when the agent is one */
    o->peak_hbm_gbs = s->hbm_peak.gbs > 0 ? fp_optd_of(s->hbm_peak.gbs) : s->peak_gbs;
    o->pct_of_hbm_roof = s->pct_hbm_roof;
    return o;
}

/* Compact per-line and per-instruction stall lists: what `diff` matches. */
static void lines_doc(const fp_bubbles_doc *b, fp_report_doc *d)
{
    for (size_t i = 0; i < b->n_lines; i++) {
        const fp_bub_doc_line *l = &b->lines[i];
        fp_report_line *o = PUSH(d->lines, d->nlines);
        o->source = fp_model_strdup(l->source);
        o->stall = (double)l->stall;
        o->exposed = (double)l->exposed;
        o->pct = l->pct;
        o->dom_class = fp_model_strdup(l->dom_class);
    }
}

/* Every executed instruction (hit > 0) in code order with its stall and
 * exposed stall: `diff` matches them by source line + opcode + occurrence. */
static void insts_doc(const fp_code *code, const fp_bubbles_doc *b, fp_report_doc *d)
{
    if (!code)
        return;
    /* exposed and class per code_line, from the hotspots */
    size_t n = code->max_index > 0 ? (size_t)code->max_index + 1 : 1;
    const fp_bub_doc_hotspot **by_line = new_obj(n * sizeof *by_line);
    for (size_t i = 0; i < b->n_hotspots; i++) {
        int64_t l = b->hotspots[i].code_line;
        if (l >= 0 && (uint64_t)l < n)
            by_line[l] = &b->hotspots[i];
    }
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!r->index_ok || r->index <= 0 || r->hit <= 0)
            continue;
        const fp_bub_doc_hotspot *hs = r->index < (int64_t)n ? by_line[r->index] : NULL;
        fp_report_inst *o = PUSH(d->instructions, d->ninstructions);
        o->code_line = r->index;
        o->inst = fp_model_strdup(r->isa);
        /* the dynamic class bubbles decided (combined waits), else the taxonomy's */
        o->cls = fp_model_strdup(hs && hs->cls ? hs->cls : fp_class_name(fp_classify(r->isa)));
        o->source = fp_model_strdup(r->source);
        o->hit = r->hit;
        o->stall = r->stall;
        o->exposed = hs ? (double)hs->exposed : 0.0;
    }
    free(by_line);
}

static void hot_lines_doc(const fp_bubbles_doc *b, const fp_snapshots *snaps, fp_report_doc *d)
{
    for (size_t i = 0; i < b->n_lines && i < FP_REPORT_HOT_LINES; i++) {
        const fp_bub_doc_line *l = &b->lines[i];
        fp_report_hot_line *o = PUSH(d->hot_lines, d->nhot_lines);
        o->source = fp_model_strdup(l->source);
        o->stall = (double)l->stall;
        o->pct = l->pct;
        o->exposed = (double)l->exposed;
        o->gain_upper_pct = l->gain_upper_pct;
        o->dom_class = fp_model_strdup(l->dom_class);
        o->text = trimmed(fp_report_source_text(snaps, l->source));
        /* a decorator line collecting stall is the compiler's catch-all for
         * prologue/address code (seed pattern 5): flag it, do not chase it */
        o->entry_line = fp_signals_is_entry_line(snaps, l->source);
    }
}

static void evidence_hotspots_doc(const fp_bubbles_doc *b, fp_report_doc *d)
{
    for (size_t i = 0; i < b->n_hotspots && i < FP_REPORT_EVIDENCE_HOTSPOTS; i++) {
        const fp_bub_doc_hotspot *h = &b->hotspots[i];
        fp_report_hotspot *o = PUSH(d->evidence_hotspots, d->nevidence_hotspots);
        o->code_line = (double)h->code_line;
        o->addr = fp_model_strdup(h->addr);
        o->inst = fp_model_strdup(h->inst);
        o->cls = fp_model_strdup(h->cls);
        o->source = fp_model_strdup(h->source);
        o->stall = (double)h->stall;
        o->exposed = (double)h->exposed;
        o->gain_upper_pct = h->gain_upper_pct;
        for (size_t k = 0; k < h->n_waits_on && k < FP_SIG_MAX_PRODUCERS; k++) {
            const fp_bub_doc_wait *p = &h->waits_on[k];
            fp_report_hs_producer *po = PUSH(o->waits_on, o->nwaits_on);
            po->code_line = (double)p->code_line;
            po->inst = fp_model_strdup(p->inst);
            po->source = fp_model_strdup(p->source);
            po->load_to_use_cycles = fp_optd_of(p->load_to_use_cycles.mean);
        }
    }
}

/* The repro command: faithful when capture.json recorded the workload. */
static char *repro_text(const fp_signals *s)
{
    fp_sb sb;
    fp_sb_init(&sb);
    const char *k = s->recipe_kernel ? s->recipe_kernel : s->kernel;
    if (s->have_capture && k) {
        fp_sb_addf(&sb, "flyprof run %s", k);
        if (s->shape)
            fp_sb_addf(&sb, " --shape %s", s->shape);
        if (s->invocation) {
            /* single-quote for a POSIX shell */
            fp_sb_adds(&sb, " --invocation '");
            for (const char *p = s->invocation; *p; p++) {
                if (*p == '\'')
                    fp_sb_adds(&sb, "'\\''");
                else
                    fp_sb_addc(&sb, *p);
            }
            fp_sb_adds(&sb, "'");
        }
    } else {
        fp_sb_adds(&sb, "flyprof report --bundle <this bundle>   (no capture.json: the workload command was not "
                        "recorded)");
    }
    return fp_sb_detach(&sb);
}

/* The plain-number lines every rendering shows before the stall taxonomy:
 * launch, speed of light, drain, trace representativeness. */
/* The kernel time left above the bytes' time at the practical ceiling, %. */
static double roof_left(const fp_signals *s)
{
    double c = s->bound_res.ceiling_pct > 0 ? s->bound_res.ceiling_pct : 100.0;
    double left = 100.0 * (1.0 - s->bound_res.roof_pct / c);
    return left > 0 ? left : 0.0;
}

/* At the ceiling (less left than a re-capture can confirm) the verdict is a fact. */
static const char *roof_fact(const fp_signals *s)
{
    return roof_left(s) < FP_RULES_MIN_GAIN_PCT ? ": at the roof, only fewer bytes help" : "";
}

/* Latency hiding at the roof: off at the ceiling, capped by the distance to it below. */
static const char *roof_latency(const fp_signals *s)
{
    return fp_rules_at_ceiling(s) ? "no latency-hiding advice at the ceiling"
                                  : "latency hiding can gain at most the distance to the ceiling (every same-bytes gain is capped by it)";
}

static void summary_lines(const fp_signals *s, fp_report_doc *d)
{
    char buf[512];
    if (!s->representative) {
        snprintf(buf, sizeof buf, "TRACE NOT REPRESENTATIVE: %s. Every recommendation is low confidence; re-capture "
                 "another CU (--att-target-cu), another dispatch or a larger shape.",
                 s->nrepr_reasons > 0 ? s->repr_reasons[0] : "?");
        fp_model_push_str(&d->summary, &d->nsummary, buf);
    }
    if (s->launch.valid) {
        char l[256];
        fp_launch_sentence(&s->launch, l, sizeof l);
        snprintf(buf, sizeof buf, "Launch: %s%s", l,
                 s->launch.underfilled ? " -> the grid cannot fill the GPU (parallelism-bound)" : "");
    } else {
        snprintf(buf, sizeof buf, "Launch: unknown (%s)", s->launch_reason ? s->launch_reason : "not modelled");
    }
    fp_model_push_str(&d->summary, &d->nsummary, buf);
    if (s->have_sol) {
        const fp_sol *o = &s->sol;
        fp_sb sb;
        fp_sb_init(&sb);
        fp_sb_adds(&sb, "Speed of light: HBM ");
        bool trace = o->hbm_source && !strcmp(o->hbm_source, "trace");
        if (o->hbm_pct.have && trace && o->unique_pct.have) /* issue 23: unique bytes, requested as the bound */
            fp_sb_addf(&sb, "%.0f GB/s = %s%.1f%% of %.0f GB/s peak (trace, unique bytes; requested %.1f%% is the "
                            "upper bound)",
                       o->hbm_gbs.have ? o->hbm_gbs.v : 0, o->hbm_clamped ? ">= " : "", o->hbm_pct.v,
                       s->sol_in.peak_hbm_gbs, o->trace_pct.have ? o->trace_pct.v : o->hbm_pct.v);
        else if (o->hbm_pct.have)
            fp_sb_addf(&sb, "%.0f GB/s = %.1f%% of %.0f GB/s peak (%s%s)", o->hbm_gbs.have ? o->hbm_gbs.v : 0, o->hbm_pct.v,
                       s->sol_in.peak_hbm_gbs, o->hbm_source, trace ? ", upper bound: cache hits counted" : "");
        else
            fp_sb_adds(&sb, "unknown (needs kernel_trace.csv timing and the GPU's peak)");
        if (o->hbm_source && !strcmp(o->hbm_source, "counters") && o->trace_pct.have)
            fp_sb_addf(&sb, " [trace estimate %.1f%%]", o->trace_pct.v);
        if (o->mfma_busy.have)
            fp_sb_addf(&sb, "; MFMA busy %.1f%%", o->mfma_busy.v);
        if (o->valu_busy.have)
            fp_sb_addf(&sb, "; VALU busy %.1f%%", o->valu_busy.v);
        if (o->lds_pct.have)
            fp_sb_addf(&sb, "; LDS %.1f%% of peak", o->lds_pct.v);
        fp_sb_adds(&sb, " (of traced SIMD time)");
        if (trace && o->trace_pct.have && o->trace_pct.v > FP_SOL_TRACE_PLAUSIBLE_PCT)
            fp_sb_adds(&sb, ". The trace bytes exceed what HBM can deliver: they are L2/MALL traffic, so the HBM "
                            "roof cannot be judged without counters");
        fp_model_push_str(&d->summary, &d->nsummary, sb.buf);
        fp_sb_free(&sb);
    }
    if (s->bound_res.at_roof && s->bound_res.roof_source && !strcmp(s->bound_res.roof_source, "trace")) {
        /* the trace figure is an upper bound (cache hits count as HBM bytes): a probable
         * roof, not a measured one; counters settle it */
        snprintf(buf, sizeof buf,
                 "Roof: the trace's bytes reach %.1f%% of peak HBM (an upper bound: L2/MALL hits count): probably at "
                 "the roof, at most %.1f%% left to gain before the %.0f%% practical ceiling%s; "
                 "`flyprof counters` measures the real HBM bytes; %s",
                 s->bound_res.roof_pct, roof_left(s), s->bound_res.ceiling_pct, roof_fact(s), roof_latency(s));
        fp_model_push_str(&d->summary, &d->nsummary, buf);
    } else if (s->bound_res.at_roof) {
        snprintf(buf, sizeof buf,
                 "Roof: memory-bound at %.1f%% of peak HBM (%s): at most %.1f%% left to gain before the %.0f%% "
                 "practical ceiling%s; %s",
                 s->bound_res.roof_pct, s->bound_res.roof_source, roof_left(s), s->bound_res.ceiling_pct, roof_fact(s),
                 roof_latency(s));
        fp_model_push_str(&d->summary, &d->nsummary, buf);
    }
    if (s->dbg.fired) {
        /* a long path and the fix text: no fixed buffer */
        char *line = fp_model_printf("Debug info: %.1f%% of the instructions and %.1f%% of the stall map to the kernel "
                                     "entry line %s (> %.0f%%): %s",
                                     s->dbg.insts_pct, s->dbg.stall_pct, s->dbg.line, s->dbg.threshold_pct,
                                     FP_DEBUG_INFO_FIX);
        fp_model_push_str(&d->summary, &d->nsummary, line);
        free(line);
    }
    if (s->drain_pct.known && s->drain_pct.v >= 5.0) {
        snprintf(buf, sizeof buf,
                 "Drain: s_endpgm holds %.1f%% of wave latency (outstanding stores draining at exit; %.0f of its %.0f "
                 "cycles exposed, no other wave in flight): store bandwidth, not a prefetch target",
                 s->drain_pct.v, d->drain.exposed, d->drain.wait);
        fp_model_push_str(&d->summary, &d->nsummary, buf);
    }
}

static char *headline_text(const fp_signals *s, const fp_rec *top, bool optimal)
{
    fp_sb sb;
    fp_sb_init(&sb);
    /* a broken source mapping comes first: every line-level statement below depends on it */
    if (s->dbg.fired)
        fp_sb_addf(&sb, "[debug info: %.0f%% of instructions / %.0f%% of stall on the entry line %s, line evidence "
                        "weak] ",
                   s->dbg.insts_pct, s->dbg.stall_pct, fp_signals_short_source(s->dbg.line));
    if (!s->representative)
        fp_sb_adds(&sb, "[trace not representative: low confidence] ");
    const char *k = s->kernel ? s->kernel : "kernel";
    const char *bound = s->bound ? s->bound : "unknown";
    if (optimal) {
        fp_sb_addf(&sb, "%s: %s-bound and at its roof (%s) - no change recommended.", k, bound,
                   s->bound_res.optimal_rule ? s->bound_res.optimal_rule : "roof");
        return fp_sb_detach(&sb);
    }
    const fp_sig_class *top_c = NULL;
    for (size_t i = 0; i < s->nclasses; i++)
        if (s->classes[i].stall > 0) {
            top_c = &s->classes[i];
            break;
        }
    fp_sb_addf(&sb, "%s: %s-bound (%s)", k, bound, s->bound_res.rule ? s->bound_res.rule : "none");
    if (s->launch.valid && s->launch.underfilled)
        fp_sb_addf(&sb, ", %.0f workgroups on %d CUs (%.0f%% of CUs busy)", s->launch.workgroups, s->launch.cus,
                   s->launch.fill_pct);
    if (s->sol.hbm_pct.have && !s->sol.hbm_clamped && s->sol.hbm_pct.v <= FP_SOL_TRACE_PLAUSIBLE_PCT)
        /* the trace estimate counts cache hits as HBM bytes: an upper bound, said as one */
        fp_sb_addf(&sb, ", HBM %s%.0f%% of peak",
                   s->sol.hbm_source && !strcmp(s->sol.hbm_source, "trace") ? "<= " : "", s->sol.hbm_pct.v);
    if (s->sol.mfma_busy.have && s->sol.mfma_busy.v > 0)
        fp_sb_addf(&sb, ", MFMA busy %.0f%%", s->sol.mfma_busy.v);
    if (top_c)
        fp_sb_addf(&sb, ", %s-dominated (%.2f%% of stall; %.1f%% of cycles stalled)", top_c->name, top_c->stall_pct,
                   s->stall_pct);
    if (top && s->representative)
        fp_sb_addf(&sb, " -> %s (est. gain <= %.2f%%)", top->rule->knob, top->gain_pct);
    else if (top)
        fp_sb_addf(&sb, " -> %s (est. gain n/a: trace not representative)", top->rule->knob);
    else if (s->bound_res.at_roof)
        /* the verdict is a fact, not a ranked rule with gain 0 */
        fp_sb_addf(&sb, " -> at the HBM roof (%.0f%% of peak, practical ceiling %.0f%%): only fewer bytes help (fuse, "
                        "narrower storage dtype, no re-reads)",
                   s->bound_res.roof_pct, s->bound_res.ceiling_pct);
    else
        fp_sb_adds(&sb, " -> no rule fired");
    return fp_sb_detach(&sb);
}

static void quality_doc(const fp_report_in *in, fp_report_quality *q)
{
    const fp_signals *s = in->sig;
    const char *conf = in->bubbles ? in->bubbles->quality.confidence : NULL;
    q->confidence = fp_model_strdup(conf ? conf : "unknown");
    q->confidence_multiplier = s->capture_confidence;
    q->src_mapped_pct = s->src_mapped_pct;
    for (size_t i = 0; i < s->nquality_issues; i++)
        fp_model_push_str(&q->reasons, &q->nreasons, s->quality_issues[i]);
    q->representative = s->representative;
    q->coverage_pct = s->coverage_pct;
    q->static_instructions = s->static_insts;
    q->executed_instructions = s->executed_insts;
    q->has_loop = s->has_loop;
    q->loop_executed = (fp_optb){s->loop_known, s->loop_known && s->loop_executed};
    q->traced_waves = s->waves;
    if (s->launch.valid) {
        q->launched_waves = fp_optd_of(s->launch.grid_waves);
        if (s->waves.known && s->launch.grid_waves > 0)
            q->traced_pct_of_launched = fp_optd_of(100.0 * s->waves.v / s->launch.grid_waves);
    }
    for (size_t i = 0; i < s->nrepr_reasons; i++)
        fp_model_push_str(&q->representative_reasons, &q->nrepresentative_reasons, s->repr_reasons[i]);
    if (s->dbg.line) {
        fp_report_debug_info *di = q->debug_info = new_obj(sizeof *q->debug_info);
        di->fired = s->dbg.fired;
        di->line = fp_model_strdup(s->dbg.line);
        di->instructions_pct = s->dbg.insts_pct;
        di->stall_pct = s->dbg.stall_pct;
        di->threshold_pct = s->dbg.threshold_pct;
        di->fix = s->dbg.fired ? fp_model_strdup(FP_DEBUG_INFO_FIX) : NULL;
    }
    if (!s->representative)
        q->recapture = fp_model_strdup("re-capture with another CU (--att-target-cu N), another dispatch (--dispatch "
                                       "N), or a shape whose traced waves reach the main loop");
}

/* A fired rule below the noise floor: what it saw and why it is not ranked. */
static void note_doc(const fp_signals *s, const fp_rec *r, fp_report_note *o)
{
    o->rule = fp_model_strdup(r->rule->id);
    o->bubble_class = fp_model_strdup(r->rule->bubble_class);
    o->est_gain_pct = s->representative ? fp_optd_of(r->gain_pct) : fp_optd_none();
    o->confidence = r->confidence;
    if (r->rule->gain == FP_GAIN_BYTES) /* a rate: the trace does not say how many bytes can go */
        o->reason = fp_model_printf("a rate, not a measured size: ~%.0f%% of kernel time per %.0f%% of the unique bytes "
                                    "removed (fuse, narrower storage dtype, no re-reads); the trace cannot say how many "
                                    "bytes can go%s",
                                    r->gain_pct, FP_RULES_BYTES_STEP_PCT,
                                    fp_rules_at_ceiling(s) ? "; at the practical ceiling the only lever (the headline)" : "");
    else if (r->rule->gain == FP_GAIN_ROOF) /* its figure is the bandwidth left, not what fewer bytes save */
        o->reason = fp_model_printf("%.2f%% left to the practical ceiling: the roof is the verdict (the headline), not a "
                                    "ranked change; fewer bytes per result still help in proportion",
                                    r->gain_pct);
    else
        o->reason = fp_model_printf("best case %.2f%% of kernel time, below the %.0f%% a re-capture can tell from noise "
                                    "(diff's noise floor)%s",
                                    r->gain_pct, FP_RULES_MIN_GAIN_PCT,
                                    fp_rules_at_ceiling(s) ? "; at the HBM roof only fewer bytes help" : "");
}

/* Ranked gains that would sum past what the kernel can lose (the HBM floor, else
 * 100 %): each is against today's kernel, they do not add - said where adding
 * them would visibly mislead. */
static void plan_line(const fp_signals *s, const fp_rec *recs, size_t n, fp_report_doc *d)
{
    double sum = 0, room = 100.0;
    bool floor = fp_rules_hbm_room(s, &room);
    size_t ranked = 0;
    for (size_t i = 0; i < n; i++) {
        sum += recs[i].noted ? 0 : recs[i].gain_pct;
        ranked += !recs[i].noted;
    }
    /* (the gains are rounded to 0.01; a trace that is not representative shows no number) */
    if (!s->representative || ranked < 2 || sum <= room + 0.05)
        return;
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_addf(&sb, "Plan: the ranked gains sum to %.1f%%, but each is an upper bound against today's kernel and they "
                    "do not add (one fix shrinks the time the others count)", sum);
    if (floor)
        fp_sb_addf(&sb, "; all of them together stay <= %.1f%% (the HBM floor: the bytes' time at the %.0f%% "
                        "practical ceiling)",
                   room, s->bound_res.ceiling_pct > 0 ? s->bound_res.ceiling_pct : 100.0);
    fp_model_push_str(&d->summary, &d->nsummary, sb.buf);
    fp_sb_free(&sb);
}

void fp_report_build(const fp_report_in *in, fp_report_doc *d)
{
    const fp_signals *s = in->sig;
    static const fp_bubbles_doc no_bubbles;
    const fp_bubbles_doc *bub = in->bubbles ? in->bubbles : &no_bubbles;
    fp_rec *recs = NULL;
    size_t n = 0;
    bool optimal = s->bound_res.optimal;
    if (!optimal)
        fp_rules_eval(s, &recs, &n);

    memset(d, 0, sizeof *d);
    d->schema = FP_REPORT_SCHEMA;
    d->kernel = fp_model_strdup(s->kernel);
    d->recipe_kernel = fp_model_strdup(s->recipe_kernel);
    d->arch = fp_model_strdup(s->arch);
    d->product = fp_model_strdup(s->product);
    d->dispatch.name = fp_model_strdup(in->dispatch_name);
    d->dispatch.tag = fp_model_strdup(in->tag);
    d->bound_type = fp_model_strdup(s->bound);
    fp_bound_to_doc(&s->bound_res, &d->bound);
    if (s->launch.valid) {
        d->launch = new_obj(sizeof *d->launch);
        fp_launch_to_doc(&s->launch, d->launch);
    } else {
        d->launch_reason = fp_model_strdup(s->launch_reason ? s->launch_reason : "launch not modelled");
    }
    fp_launch_facts_to_doc(s, d); /* issue 23: launch sources, time, workdist (launch_facts.c) */
    if (s->have_sol) {
        d->sol = new_obj(sizeof *d->sol);
        fp_sol_to_doc(&s->sol, &s->sol_in, d->sol);
    }
    d->drain.cycles = s->drain_latency;
    d->drain.pct_of_latency = s->drain_pct;
    const fp_sig_class *dc = fp_signals_class(s, "drain");
    d->drain.stall = dc ? (double)dc->stall : 0.0;
    /* issue 23 item 2: the drain's own figures, as bubbles swept them */
    d->drain.wait = (double)bub->totals.drain_stall;
    d->drain.exposed = (double)bub->totals.drain_exposed;
    d->drain.hidden = (double)bub->totals.drain_hidden;
    d->drain.lost = (double)bub->totals.drain_lost;
    summary_lines(s, d);
    d->optimal = optimal;
    d->headline = headline_text(s, n && !recs[0].noted ? &recs[0] : NULL, optimal);
    plan_line(s, recs, n, d);

    d->totals.instructions = s->instructions;
    d->totals.latency = s->total_latency;
    d->totals.stall = s->total_stall;
    d->totals.stall_pct = s->stall_pct;
    d->totals.waves = s->waves;
    d->totals.exposed = (double)bub->totals.exposed;
    d->totals.exposed_pct = bub->totals.exposed_pct;
    d->totals.hidden_by = fp_model_strdup(bub->totals.hidden_by);
    classes_doc(s, d);
    d->occupancy = occupancy_doc(s);
    d->counters = counters_doc(s);
    d->workload.shape = fp_model_strdup(s->shape);
    d->workload.invocation = fp_model_strdup(s->invocation);
    d->workload.tile = fp_model_strdup(s->tile_text);
    d->workload.time_ns_per_call = s->time_ns;
    signals_doc(s, d);

    for (size_t i = 0; i < n; i++) {
        if (recs[i].noted) {
            note_doc(s, &recs[i], PUSH(d->also_seen, d->nalso_seen));
            continue;
        }
        fp_report_rec *o = PUSH(d->recs, d->nrecs);
        fp_rec_to_doc(s, &recs[i], o);
        /* the snippet of the evidence line */
        fp_report_hottest *hot = o->evidence.hottest;
        if (hot && !hot->snippet)
            hot->snippet = trimmed(fp_report_source_text(in->snaps, hot->source));
    }
    free(recs);

    hot_lines_doc(bub, in->snaps, d);
    evidence_hotspots_doc(bub, d);
    if (in->evidence)
        fp_model_copy(&fp_report_evidence_schema, &d->evidence, in->evidence);
    quality_doc(in, &d->capture_quality);
    d->repro = repro_text(s);
    lines_doc(bub, d);
    insts_doc(in->code, bub, d);
    /* the numbers of the file, for the renderers that take the struct */
    fp_model_round(&fp_report_schema, d);
}

int fp_report_nrecs(const fp_report_doc *r) { return (int)r->nrecs; }

/* The head headlines.json and report's envelope both start with, copied from the report
 * (a macro: the two are different structs with the same member names). */
#define COPY_HEAD(o, r)                                                                          \
    do {                                                                                         \
        (o)->kernel = fp_model_strdup((r)->kernel);                                              \
        (o)->arch = fp_model_strdup((r)->arch);                                                  \
        (o)->product = fp_model_strdup((r)->product);                                            \
        (o)->bound_type = fp_model_strdup((r)->bound_type);                                      \
        (o)->headline = fp_model_strdup((r)->headline);                                          \
        (o)->optimal = (r)->optimal;                                                             \
        for (size_t i_ = 0; i_ < (r)->nsummary; i_++)                                            \
            fp_model_push_str(&(o)->summary, &(o)->nsummary, (r)->summary[i_]);                  \
    } while (0)

void fp_report_headlines(const fp_report_doc *r, fp_headlines_doc *o)
{
    memset(o, 0, sizeof *o);
    COPY_HEAD(o, r);
    if (r->launch) {
        o->launch.fill_pct = r->launch->fill_pct;
        o->launch.underfilled = r->launch->underfilled;
    }
    if (r->sol) {
        o->sol.hbm_pct_of_peak = r->sol->hbm.pct_of_peak;
        o->sol.mfma_busy_pct = r->sol->mfma.busy_pct;
    }
    o->representative = r->capture_quality.representative;
    if (r->nrecs) {
        o->top_recommendation = new_obj(sizeof *o->top_recommendation);
        fp_model_copy(&fp_report_rec_schema, o->top_recommendation, &r->recs[0]);
    }
}

void fp_report_envelope_build(const fp_report_doc *r, fp_report_envelope *o)
{
    memset(o, 0, sizeof *o);
    COPY_HEAD(o, r);
    for (size_t i = 0; i < r->nrecs; i++) {
        const fp_report_rec *rec = &r->recs[i];
        fp_report_brief_rec *b = PUSH(o->recs, o->nrecs);
        b->rank = rec->rank;
        b->rule = fp_model_strdup(rec->rule);
        b->bubble_class = fp_model_strdup(rec->bubble_class);
        b->est_gain_pct = rec->est_gain_pct;
        b->confidence_label = fp_model_strdup(rec->confidence_label);
        b->knob = fp_model_strdup(rec->knob);
        b->source = fp_model_strdup(rec->evidence.hottest ? rec->evidence.hottest->source : NULL);
        b->acceptance = fp_model_strdup(rec->acceptance.text);
    }
    for (size_t i = 0; i < r->evidence.nmissing; i++) {
        fp_report_missing *m = PUSH(o->missing_evidence, o->nmissing_evidence);
        m->artifact = fp_model_strdup(r->evidence.missing[i].artifact);
        m->effect = fp_model_strdup(r->evidence.missing[i].effect);
    }
}

/* ---- markdown ---- */

static const char *or_(const char *s, const char *d) { return s && *s ? s : d; }
static double v0(fp_optd o) { return o.known ? o.v : 0.0; }

/* The plan priority: the rec's own (gain x confidence, rules.c), recomputed for an
 * older report.json that lacks it. */
static const char *prio_label(const fp_report_rec *r)
{
    return r->priority_label ? r->priority_label : fp_priority_label(r->est_gain_pct.known ? r->est_gain_pct.v : 0, r->confidence);
}

static void md_producer(const char *indent, const char *inst, double code_line, const char *source, fp_optd l2u,
                        fp_sb *out)
{
    fp_sb_addf(out, "%swaits on `%s` (code_line %.0f) -> %s", indent, or_(inst, "?"), code_line,
               or_(source, "<unmapped>"));
    if (l2u.known)
        fp_sb_addf(out, "; load-to-use %.0f cycles", l2u.v);
    fp_sb_adds(out, "\n");
}

/* "est. gain <= 12.34%", or why there is no number */
static const char *gain_text(fp_optd g, char buf[64])
{
    if (g.known)
        snprintf(buf, 64, "est. gain <= %.2f%%", g.v);
    else
        snprintf(buf, 64, "est. gain n/a (trace not representative)");
    return buf;
}

static void md_rec(const fp_report_rec *rec, fp_sb *out)
{
    const fp_report_rec_evidence *ev = &rec->evidence;
    const fp_report_hottest *hot = ev->hottest;
    char g[64];
    fp_sb_addf(out, "### #%d - `%s` (%s) - %s, confidence %s (%.2f), priority %s\n\n", rec->rank,
               or_(rec->rule, "?"), or_(rec->bubble_class, "?"), gain_text(rec->est_gain_pct, g),
               or_(rec->confidence_label, "?"), rec->confidence, prio_label(rec));
    if (rec->gain_model)
        fp_sb_addf(out, "- **Gain model:** %s\n", rec->gain_model);
    fp_sb_addf(out, "- **Evidence:** `%s` = %.4g (fired because %s); class stall %.2f%%", or_(ev->signal, "?"),
               ev->value, or_(ev->fired_because, "?"), ev->class_stall_pct);
    if (ev->exposed_stall.known)
        fp_sb_addf(out, ", exposed %.0f cycles", ev->exposed_stall.v);
    fp_sb_adds(out, "\n");
    if (hot) {
        fp_sb_addf(out, "- **Root cause:** `%s` (code_line %.0f, stall %.0f", or_(hot->inst, "?"),
                   (double)hot->code_line, (double)hot->stall);
        if (hot->exposed.known)
            fp_sb_addf(out, ", exposed %.0f", hot->exposed.v);
        fp_sb_addf(out, ") at %s\n", or_(hot->source, "<unmapped>"));
        if (hot->snippet)
            fp_sb_addf(out, "  `%s`\n", hot->snippet);
        if (hot->entry_line)
            fp_sb_adds(out, "  _Every stall of this class is filed under the kernel entry/decorator line (debug-info "
                            "aggregation): the producers below say which loads are involved._\n");
        for (size_t i = 0; i < hot->nwaits_on; i++) {
            const fp_report_producer *p = &hot->waits_on[i];
            md_producer("  - ", p->inst, (double)p->code_line, p->source, p->load_to_use_cycles, out);
        }
    }
    const fp_report_ev_occupancy *occ = ev->occupancy;
    if (occ) {
        fp_sb_addf(out, "- **Occupancy:** %.0f waves/CU (limiter %s)", v0(occ->waves_per_cu), or_(occ->limiter, "?"));
        if (occ->next_waves_per_cu.known)
            fp_sb_addf(out, "; next step %.0f waves/CU", occ->next_waves_per_cu.v);
        if (occ->vgprs_to_free.known)
            fp_sb_addf(out, " needs %.0f fewer VGPRs", occ->vgprs_to_free.v);
        fp_sb_adds(out, "\n");
    }
    fp_sb_addf(out, "- **Knob:** %s\n", or_(rec->knob, ""));
    fp_sb_addf(out, "- **FlyDSL API:** %s\n", or_(rec->api, ""));
    fp_sb_addf(out, "- **Change:** %s\n", or_(rec->change, ""));
    fp_sb_addf(out, "- **Expected:** %s\n", or_(rec->expected, ""));
    fp_sb_addf(out, "- **Acceptance test:** %s\n\n", or_(rec->acceptance.text, ""));
}

static void md_counter(const char *key, fp_optd v, void *user)
{
    fp_sb *out = user;
    if (v.known)
        fp_sb_addf(out, "- %s: %.4g\n", key, v.v);
    else
        fp_sb_addf(out, "- %s: (not measured)\n", key);
}

/* Section 6: the ranked plan, or the roof's fact, then what was seen but not ranked. */
static void md_plan(const fp_report_doc *r, fp_sb *out)
{
    const fp_report_bound *b = &r->bound;
    fp_sb_adds(out, "## 6. Ranked Optimization Opportunities\n\n");
    if (r->optimal) {
        fp_sb_addf(out, "**Already optimal.** %s No change is recommended at this level.\n\n",
                   or_(b->optimal_evidence, ""));
    } else if (!r->nrecs && b->at_roof) {
        fp_sb_addf(out, "**At the HBM roof** (%.1f%% of peak): only fewer bytes help (fuse, narrower storage dtype, no "
                        "re-reads); no change of the access schedule can gain more than the noise floor.\n\n",
                   b->roof_pct_of_peak.known ? b->roof_pct_of_peak.v : 0.0);
    } else if (!r->nrecs) {
        fp_sb_adds(out, r->nalso_seen ? "_No rule promises more than the noise floor (see Also seen)._\n\n"
                                      : "_No rule fired: no bubble crossed its threshold._\n\n");
    } else {
        for (size_t i = 0; i < r->nrecs; i++)
            md_rec(&r->recs[i], out);
        fp_sb_adds(out, "### Priority order\n\n");
        for (size_t i = 0; i < r->nrecs; i++) {
            const fp_report_rec *it = &r->recs[i];
            char g[64];
            fp_sb_addf(out, "%d. [%s] %s - `%s`, %s (%s %.2f%% of stall)\n", it->rank, prio_label(it),
                       or_(it->knob, ""), or_(it->rule, ""), gain_text(it->est_gain_pct, g), or_(it->bubble_class, ""),
                       it->evidence.class_stall_pct);
        }
        fp_sb_adds(out, "\nGains are upper bounds (the exposed stall a change could hide at most), each against "
                        "today's kernel: they do not add. Verify by re-capturing.\n\n");
    }
    if (r->nalso_seen) {
        fp_sb_adds(out, "Also seen (fired, not ranked: best case below the noise floor a re-capture can confirm):\n\n");
        for (size_t i = 0; i < r->nalso_seen; i++) {
            const fp_report_note *it = &r->also_seen[i];
            char g[64];
            fp_sb_addf(out, "- `%s` (%s): %s; %s\n", or_(it->rule, "?"), or_(it->bubble_class, "?"),
                       gain_text(it->est_gain_pct, g), or_(it->reason, ""));
        }
        fp_sb_adds(out, "\n");
    }
}

static void report_markdown_body(const fp_report_doc *r, fp_sb *out);

/* REPORT.md is read with `cat` and `less -R` too: its text (kernel names, source
 * lines, history records) carries no terminal control sequence. */
void fp_report_markdown(const fp_report_doc *r, fp_sb *out)
{
    size_t from = out->len;
    report_markdown_body(r, out);
    fp_term_safe(out, from);
}

static void report_markdown_body(const fp_report_doc *r, fp_sb *out)
{
    const char *kernel = or_(r->kernel, "kernel");
    const char *arch = or_(r->arch, "arch unknown");
    const char *product = or_(r->product, "product unknown");
    const fp_report_workload *w = &r->workload;
    const fp_report_bound *b = &r->bound;
    const fp_report_totals *t = &r->totals;
    fp_sb_addf(out, "# %s - %s / %s profiling report\n\n", kernel, arch, product);
    fp_sb_addf(out, "_Provenance: FlyDSL · rocprofv3 ATT · %s (%s) · dispatch %s", product, arch,
               or_(r->dispatch.name, "?"));
    if (r->dispatch.tag)
        fp_sb_addf(out, " (tag %s)", r->dispatch.tag);
    /* issue 23: the time says where it came from (a CSV median, the trace's span, ...) */
    if (w->time_ns_per_call.known && r->time && r->time->source)
        fp_sb_addf(out, " · %.1f ns/call (%s)", w->time_ns_per_call.v, r->time->source);
    else if (w->time_ns_per_call.known)
        fp_sb_addf(out, " · avg %.1f ns/call", w->time_ns_per_call.v);
    fp_sb_adds(out, "_\n\n");

    fp_sb_addf(out, "## 1. Headline\n\n%s\n\n", or_(r->headline, ""));
    for (size_t i = 0; i < r->nsummary; i++)
        fp_sb_addf(out, "- %s\n", r->summary[i]);
    if (r->nsummary > 0)
        fp_sb_adds(out, "\n");

    fp_sb_adds(out, "## 2. Workload & Tile\n\n");
    fp_sb_addf(out, "- shape: %s\n", or_(w->shape, "(not recorded: no capture.json)"));
    if (w->invocation)
        fp_sb_addf(out, "- invocation: `%s`\n", w->invocation);
    fp_sb_addf(out, "- kernel tile: %s\n\n", or_(w->tile, "unknown (no tile.json evaluating the kernel's own BM/BN/BK)"));

    fp_sb_adds(out, "## 3. Roofline & Occupancy\n\n");
    fp_sb_addf(out, "- bound: **%s** (rule `%s`, basis %s, confidence %s): %s\n", or_(r->bound_type, "unknown"),
               or_(b->rule, "none"), or_(b->basis, "none"), or_(b->confidence, "-"), or_(b->evidence, ""));
    if (r->optimal)
        fp_sb_addf(out, "- roof: %s\n", or_(b->optimal_evidence, ""));
    const fp_report_counters *c = r->counters;
    if (c && c->pct_of_hbm_roof.known)
        fp_sb_addf(out, "- achieved HBM bandwidth: %.1f GB/s = %.2f%% of the %.0f GB/s peak\n",
                   v0(c->achieved_hbm_gbs), c->pct_of_hbm_roof.v, v0(c->peak_hbm_gbs));
    const fp_report_occupancy *o = r->occupancy;
    if (o) {
        fp_sb_addf(out, "- occupancy: %.0f waves/CU (%.0f/SIMD), limiter %s; arch_vgpr %.0f, accum_vgpr %.0f (%s)",
                   v0(o->waves_per_cu), v0(o->waves_per_simd), or_(o->limiter, "?"), v0(o->arch_vgpr),
                   v0(o->accum_vgpr), or_(o->source, "?"));
        if (o->next_waves_per_cu.known)
            fp_sb_addf(out, "; next step %.0f waves/CU", o->next_waves_per_cu.v);
        if (o->vgprs_to_free.known)
            fp_sb_addf(out, " needs %.0f fewer VGPRs", o->vgprs_to_free.v);
        fp_sb_adds(out, "\n\n");
    } else {
        fp_sb_adds(out, "- occupancy: unknown (no register counts: no capture.json or kernel_trace.csv row)\n\n");
    }

    fp_sb_adds(out, "## 4. Bubble / Stall Taxonomy\n\n");
    fp_sb_addf(out, "- total stall: %.0f cycles = %.2f%% of %.0f latency cycles; exposed %.0f (%.2f%%)\n\n",
               (double)t->stall, t->stall_pct, (double)t->latency, t->exposed, t->exposed_pct);
    fp_sb_adds(out, "| rank | class | stall % | cycles | exposed | gain <= % | bubble? |\n|---:|---|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < r->nclasses; i++) {
        const fp_report_class *it = &r->classes[i];
        fp_sb_addf(out, "| %d | %s | %.2f | %.0f | %.0f | %.2f | %s |\n", it->rank, or_(it->cls, "?"), it->pct,
                   (double)it->cycles, v0(it->exposed), v0(it->gain_upper_pct), it->is_bubble ? "yes" : "");
    }
    fp_sb_adds(out, "\n");

    fp_sb_adds(out, "## 5. ISA <-> Python Evidence\n\nHot source lines:\n\n");
    for (size_t i = 0; i < r->nhot_lines; i++) {
        const fp_report_hot_line *it = &r->hot_lines[i];
        fp_sb_addf(out, "- %s - stall %.0f (%.2f%%), exposed %.0f, %s", or_(it->source, "<unmapped>"), it->stall, it->pct,
                   it->exposed, or_(it->dom_class, "?"));
        if (it->text)
            fp_sb_addf(out, ": `%s`", it->text);
        if (it->entry_line)
            fp_sb_adds(out, " _(kernel entry/decorator line: debug-info aggregation of prologue and address code; "
                            "look at the lines with explicit ops)_");
        fp_sb_adds(out, "\n");
    }
    fp_sb_adds(out, "\nHottest instructions:\n\n");
    for (size_t i = 0; i < r->nevidence_hotspots; i++) {
        const fp_report_hotspot *it = &r->evidence_hotspots[i];
        fp_sb_addf(out, "- `%s` @%s (code_line %.0f, %s, stall %.0f, exposed %.0f) -> %s\n", or_(it->inst, "?"),
                   or_(it->addr, "?"), it->code_line, or_(it->cls, "?"), it->stall, it->exposed,
                   or_(it->source, "<unmapped>"));
        for (size_t k = 0; k < it->nwaits_on; k++) {
            const fp_report_hs_producer *p = &it->waits_on[k];
            md_producer("    ", p->inst, p->code_line, p->source, p->load_to_use_cycles, out);
        }
    }
    fp_sb_adds(out, "\n");

    md_plan(r, out);

    fp_sb_adds(out, "## 7. Verification Plan\n\n");
    fp_sb_adds(out, "1. Apply ONE change, rebuild with `FLYDSL_DUMP_IR=1` and check `final_isa.s` (scratch == 0, the "
                    "intended instruction counts).\n");
    fp_sb_adds(out, "2. Re-capture into a NEW bundle and run `flyprof report`, then `flyprof diff --before <this bundle> "
                    "--after <new bundle>`.\n");
    fp_sb_adds(out, "3. Acceptance tests (checked by `diff`):\n");
    for (size_t i = 0; i < r->nrecs; i++)
        fp_sb_addf(out, "   - `%s`: %s\n", or_(r->recs[i].rule, ""), or_(r->recs[i].acceptance.text, ""));
    fp_sb_adds(out, "\n");

    fp_sb_adds(out, "## 8. Counters\n\n");
    if (c)
        fp_report_counters_each(c, md_counter, out);
    else
        fp_sb_adds(out, "- (no counters.json: run `flyprof counters`)\n");
    fp_sb_adds(out, "\n## 9. Evidence & Capture Quality\n\n");
    const fp_report_evidence *ev = &r->evidence;
    const fp_report_quality *q = &r->capture_quality;
    fp_sb_adds(out, "- used:");
    for (size_t i = 0; i < ev->navailable; i++)
        fp_sb_addf(out, " %s", ev->available[i]);
    fp_sb_adds(out, "\n");
    for (size_t i = 0; i < ev->nmissing; i++)
        fp_sb_addf(out, "- missing %s: %s\n", or_(ev->missing[i].artifact, "?"), or_(ev->missing[i].effect, ""));
    fp_sb_addf(out, "- capture quality: %s (recommendation confidence x %.2f)", or_(q->confidence, "?"),
               q->confidence_multiplier);
    if (q->src_mapped_pct.known)
        fp_sb_addf(out, "; %.1f%% of latency maps to a source line (map.json)", q->src_mapped_pct.v);
    fp_sb_adds(out, "\n");
    for (size_t i = 0; i < q->nreasons; i++)
        fp_sb_addf(out, "  - %s\n", q->reasons[i]);
    fp_sb_addf(out, "\n## 10. Repro\n\n```\n%s\n```\n", or_(r->repro, ""));
}

/* ---- terminal table ---- */

void fp_report_table(const fp_report_doc *r, fp_sb *out)
{
    fp_sb_addf(out, "%s\n\n", or_(r->headline, ""));
    for (size_t i = 0; i < r->nsummary; i++)
        fp_sb_addf(out, "%s\n", r->summary[i]);
    if (r->nsummary > 0)
        fp_sb_adds(out, "\n");
    if (r->optimal) {
        fp_sb_adds(out, "Already optimal: no change recommended.\n");
        return;
    }
    for (size_t i = 0; i < r->nalso_seen; i++)
        fp_sb_addf(out, "also seen (not ranked): %s - %s\n", or_(r->also_seen[i].rule, "?"), or_(r->also_seen[i].reason, ""));
    if (!r->nrecs) {
        fp_sb_adds(out, r->bound.at_roof ? "At the HBM roof: only fewer bytes help.\n"
                        : r->nalso_seen ? "No rule promises more than the noise floor.\n" : "No rule fired.\n");
        return;
    }
    fp_sb_adds(out, "rank  prio  gain<=%  conf    rule                     class      evidence\n");
    for (size_t i = 0; i < r->nrecs; i++) {
        const fp_report_rec *it = &r->recs[i];
        char gain[32];
        if (it->est_gain_pct.known)
            snprintf(gain, sizeof gain, "%.2f", it->est_gain_pct.v);
        else
            snprintf(gain, sizeof gain, "n/a");
        char rank[16];
        snprintf(rank, sizeof rank, "%d", it->rank);
        fp_sb_pad_left(out, rank, 6);
        fp_sb_pad_left(out, prio_label(it), 6);
        fp_sb_pad_left(out, gain, 8);
        fp_sb_pad_left(out, or_(it->confidence_label, "?"), 8);
        fp_sb_pad_left(out, or_(it->rule, "?"), 25);
        fp_sb_pad_left(out, or_(it->bubble_class, "?"), 11);
        const fp_report_hottest *hot = it->evidence.hottest;
        fp_sb_addf(out, "%s", hot ? or_(hot->source, "<unmapped>") : "-");
        fp_sb_addf(out, "\n%*s-> %s\n%*s   accept: %s\n", 6, "", or_(it->knob, ""), 6, "", or_(it->acceptance.text, ""));
    }
}
