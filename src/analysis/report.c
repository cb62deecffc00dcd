/*
 * report.c - report.json from the evidence, and its text renderings
 * (REPORT.md, the terminal table, headlines.json). See report.h.
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

#include "flyprof/json.h"
#include "flyprof/rules.h"
#include "flyprof/taxonomy.h"

/* Priority labels of the plan by estimated upper-bound gain (% of kernel time). */
#define FP_PRIO_HIGH_GAIN 10.0
#define FP_PRIO_MED_GAIN 3.0


static void add_optd(cJSON *o, const char *k, fp_optd v, int dp)
{
    if (v.known)
        fp_json_add_num(o, k, v.v, dp);
    else
        cJSON_AddNullToObject(o, k);
}

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
    char *d = strdup(s);
    if (!d)
        abort();
    size_t n = strlen(d);
    while (n && (d[n - 1] == ' ' || d[n - 1] == '\t' || d[n - 1] == '\r' || d[n - 1] == '\n'))
        d[--n] = 0;
    return d;
}

static void add_snippet(cJSON *o, const char *key, const fp_snapshots *snaps, const char *source)
{
    char *t = trimmed(fp_report_source_text(snaps, source));
    fp_json_add_str(o, key, t);
    free(t);
}

/* ---- build ---- */

static cJSON *classes_json(const fp_signals *s)
{
    cJSON *a = cJSON_CreateArray();
    int rank = 0;
    for (size_t i = 0; i < s->nclasses; i++) {
        const fp_sig_class *c = &s->classes[i];
        if (c->stall <= 0)
            continue;
        cJSON *o = cJSON_CreateObject();
        fp_json_add_str(o, "class", c->name);
        fp_json_add_int(o, "rank", ++rank);
        fp_json_add_int(o, "cycles", c->stall);
        fp_json_add_num(o, "pct", c->stall_pct, 2);
        fp_json_add_bool(o, "is_bubble", c->is_bubble);
        add_optd(o, "exposed", c->exposed, 0);
        add_optd(o, "gain_upper_pct", c->gain_pct, 2);
        add_optd(o, "mix", c->mix, 4);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *signals_json(const fp_signals *s)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = FP_SIG_SCRATCH_INSTS; k < FP_SIG_KIND_COUNT; k++) {
        double v;
        if (fp_sig_value(s, (fp_sig_kind)k, NULL, &v))
            fp_json_add_num(o, fp_sig_kind_name((fp_sig_kind)k), v, 4);
        else
            cJSON_AddNullToObject(o, fp_sig_kind_name((fp_sig_kind)k));
    }
    return o;
}

static cJSON *occupancy_json(const fp_signals *s)
{
    if (!s->waves_per_cu.known && !s->arch_vgpr.known)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    add_optd(o, "waves_per_cu", s->waves_per_cu, 0);
    add_optd(o, "waves_per_simd", s->waves_per_simd, 0);
    fp_json_add_str(o, "limiter", s->occ_limiter);
    add_optd(o, "next_waves_per_cu", s->next_waves_per_cu, 0);
    add_optd(o, "vgprs_to_free", s->vgpr_to_next, 0);
    add_optd(o, "arch_vgpr", s->arch_vgpr, 0);
    add_optd(o, "accum_vgpr", s->accum_vgpr, 0);
    add_optd(o, "lds_bytes", s->lds_bytes, 0);
    add_optd(o, "sgpr", s->sgpr, 0);
    add_optd(o, "wg_size", s->wg_size, 0);
    add_optd(o, "scratch_bytes", s->scratch_size, 0);
    fp_json_add_str(o, "source", s->occ_source);
    fp_json_add_str(o, "model", "unified 512-entry VGPR pool (occupancy.h)");
    return o;
}

static cJSON *counters_json(const fp_signals *s)
{
    if (!s->have_counters)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    add_optd(o, "l2_hit_pct", s->l2_hit, 2);
    add_optd(o, "partial_32b_frac", s->partial_32b, 4);
    add_optd(o, "lds_bank_conflict_pct", s->lds_conflict_pct, 2);
    add_optd(o, "mfma_util", s->mfma_frac, 4);
    add_optd(o, "achieved_hbm_gbs", s->achieved_gbs, 1);
    add_optd(o, "peak_hbm_gbs", s->peak_gbs, 1);
    add_optd(o, "pct_of_hbm_roof", s->pct_hbm_roof, 2);
    return o;
}

/* Compact per-line and per-instruction stall lists: what `diff` matches. */
static cJSON *lines_json(const cJSON *bubbles)
{
    cJSON *a = cJSON_CreateArray();
    const cJSON *l;
    cJSON_ArrayForEach(l, fp_jget(bubbles, "lines"))
    {
        cJSON *o = cJSON_CreateObject();
        fp_json_add_str(o, "source", fp_json_get_str(l, "source"));
        fp_json_add_num(o, "stall", fp_jnum0(l, "stall"), 0);
        fp_json_add_num(o, "exposed", fp_jnum0(l, "exposed"), 0);
        fp_json_add_num(o, "pct", fp_jnum0(l, "pct"), 2);
        fp_json_add_str(o, "dom_class", fp_json_get_str(l, "dom_class"));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* Every executed instruction (hit > 0) in code order with its stall and
 * exposed stall: `diff` matches them by source line + opcode + occurrence. */
static cJSON *insts_json(const fp_code *code, const cJSON *bubbles)
{
    cJSON *a = cJSON_CreateArray();
    if (!code)
        return a;
    /* exposed and class per code_line, from the hotspots */
    size_t n = code->max_index > 0 ? (size_t)code->max_index + 1 : 1;
    const cJSON **by_line = calloc(n, sizeof *by_line);
    if (!by_line)
        abort();
    const cJSON *h;
    cJSON_ArrayForEach(h, fp_jget(bubbles, "hotspots"))
    {
        double l;
        if (fp_jnum(h, "code_line", &l) && l >= 0 && l < (double)n)
            by_line[(size_t)l] = h;
    }
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!r->index_ok || r->index <= 0 || r->hit <= 0)
            continue;
        const cJSON *hs = r->index < (int64_t)n ? by_line[r->index] : NULL;
        cJSON *o = cJSON_CreateObject();
        fp_json_add_int(o, "code_line", r->index);
        fp_json_add_str(o, "inst", r->isa);
        /* the dynamic class bubbles decided (combined waits), else the taxonomy's */
        fp_json_add_str(o, "class", hs && fp_json_get_str(hs, "class") ? fp_json_get_str(hs, "class") : fp_class_name(fp_classify(r->isa)));
        fp_json_add_str(o, "source", r->source);
        fp_json_add_int(o, "hit", r->hit);
        fp_json_add_int(o, "stall", r->stall);
        fp_json_add_num(o, "exposed", hs ? fp_jnum0(hs, "exposed") : 0.0, 0);
        cJSON_AddItemToArray(a, o);
    }
    free(by_line);
    return a;
}

static cJSON *hot_lines_json(const cJSON *bubbles, const fp_snapshots *snaps)
{
    cJSON *a = cJSON_CreateArray();
    const cJSON *l;
    int n = 0;
    cJSON_ArrayForEach(l, fp_jget(bubbles, "lines"))
    {
        if (n++ >= FP_REPORT_HOT_LINES)
            break;
        cJSON *o = cJSON_CreateObject();
        fp_json_add_str(o, "source", fp_json_get_str(l, "source"));
        fp_json_add_num(o, "stall", fp_jnum0(l, "stall"), 0);
        fp_json_add_num(o, "pct", fp_jnum0(l, "pct"), 2);
        fp_json_add_num(o, "exposed", fp_jnum0(l, "exposed"), 0);
        fp_json_add_num(o, "gain_upper_pct", fp_jnum0(l, "gain_upper_pct"), 2);
        fp_json_add_str(o, "dom_class", fp_json_get_str(l, "dom_class"));
        add_snippet(o, "text", snaps, fp_json_get_str(l, "source"));
        /* a decorator line collecting stall is the compiler's catch-all for
         * prologue/address code (seed pattern 5): flag it, do not chase it */
        const char *txt = fp_json_get_str(o, "text");
        fp_json_add_bool(o, "entry_line", txt && txt[0] == '@');
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *evidence_hotspots_json(const cJSON *bubbles)
{
    cJSON *a = cJSON_CreateArray();
    const cJSON *h;
    int n = 0;
    cJSON_ArrayForEach(h, fp_jget(bubbles, "hotspots"))
    {
        if (n++ >= FP_REPORT_EVIDENCE_HOTSPOTS)
            break;
        cJSON *o = cJSON_CreateObject();
        fp_json_add_num(o, "code_line", fp_jnum0(h, "code_line"), 0);
        fp_json_add_str(o, "addr", fp_json_get_str(h, "addr"));
        fp_json_add_str(o, "inst", fp_json_get_str(h, "inst"));
        fp_json_add_str(o, "class", fp_json_get_str(h, "class"));
        fp_json_add_str(o, "source", fp_json_get_str(h, "source"));
        fp_json_add_num(o, "stall", fp_jnum0(h, "stall"), 0);
        fp_json_add_num(o, "exposed", fp_jnum0(h, "exposed"), 0);
        fp_json_add_num(o, "gain_upper_pct", fp_jnum0(h, "gain_upper_pct"), 2);
        cJSON *w = cJSON_AddArrayToObject(o, "waits_on");
        const cJSON *p;
        int k = 0;
        cJSON_ArrayForEach(p, fp_jget(h, "waits_on"))
        {
            if (k++ >= FP_SIG_MAX_PRODUCERS)
                break;
            cJSON *po = cJSON_CreateObject();
            fp_json_add_num(po, "code_line", fp_jnum0(p, "code_line"), 0);
            fp_json_add_str(po, "inst", fp_json_get_str(p, "inst"));
            fp_json_add_str(po, "source", fp_json_get_str(p, "source"));
            const cJSON *l2u = fp_jget(p, "load_to_use_cycles");
            double m;
            if (fp_jnum(l2u, "mean", &m))
                fp_json_add_num(po, "load_to_use_cycles", m, 1);
            else
                cJSON_AddNullToObject(po, "load_to_use_cycles");
            cJSON_AddItemToArray(w, po);
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
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
static cJSON *summary_lines(const fp_signals *s)
{
    cJSON *a = cJSON_CreateArray();
    char buf[512];
    if (!s->representative) {
        snprintf(buf, sizeof buf, "TRACE NOT REPRESENTATIVE: %s. Every recommendation is low confidence; re-capture "
                 "another CU (--att-target-cu), another dispatch or a larger shape.",
                 cJSON_GetArraySize(s->repr_reasons) > 0 ? cJSON_GetArrayItem(s->repr_reasons, 0)->valuestring : "?");
        cJSON_AddItemToArray(a, cJSON_CreateString(buf));
    }
    if (s->launch.valid) {
        char l[256];
        fp_launch_sentence(&s->launch, l, sizeof l);
        snprintf(buf, sizeof buf, "Launch: %s%s", l,
                 s->launch.underfilled ? " -> the grid cannot fill the GPU (parallelism-bound)" : "");
    } else {
        snprintf(buf, sizeof buf, "Launch: unknown (%s)", s->launch_reason ? s->launch_reason : "not modelled");
    }
    cJSON_AddItemToArray(a, cJSON_CreateString(buf));
    if (s->have_sol) {
        const fp_sol *o = &s->sol;
        fp_sb sb;
        fp_sb_init(&sb);
        fp_sb_adds(&sb, "Speed of light: HBM ");
        if (o->hbm_pct.have)
            fp_sb_addf(&sb, "%.0f GB/s = %.1f%% of %.0f GB/s peak (%s%s)", o->hbm_gbs.have ? o->hbm_gbs.v : 0, o->hbm_pct.v,
                       s->sol_in.peak_hbm_gbs, o->hbm_source,
                       !strcmp(o->hbm_source, "trace") ? ", upper bound: cache hits counted" : "");
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
        if (o->hbm_pct.have && o->hbm_pct.v > FP_SOL_TRACE_PLAUSIBLE_PCT && !strcmp(o->hbm_source, "trace"))
            fp_sb_adds(&sb, ". The trace bytes exceed what HBM can deliver: they are L2/MALL traffic, so the HBM "
                            "roof cannot be judged without counters");
        cJSON_AddItemToArray(a, cJSON_CreateString(sb.buf));
        fp_sb_free(&sb);
    }
    if (s->bound_res.at_roof && s->bound_res.roof_source && !strcmp(s->bound_res.roof_source, "trace")) {
        /* the trace figure is an upper bound (cache hits count as HBM bytes): a probable
         * roof, not a measured one; counters settle it */
        snprintf(buf, sizeof buf,
                 "Roof: the trace's bytes reach %.1f%% of peak HBM (an upper bound: L2/MALL hits count): probably at "
                 "the roof, at most %.1f%% left to gain; `flyprof counters` measures the real HBM bytes; "
                 "latency-hiding advice is low confidence",
                 s->bound_res.roof_pct, 100.0 - s->bound_res.roof_pct);
        cJSON_AddItemToArray(a, cJSON_CreateString(buf));
    } else if (s->bound_res.at_roof) {
        snprintf(buf, sizeof buf,
                 "Roof: memory-bound at %.1f%% of peak HBM (%s): at most %.1f%% left to gain; latency-hiding advice is "
                 "low confidence",
                 s->bound_res.roof_pct, s->bound_res.roof_source, 100.0 - s->bound_res.roof_pct);
        cJSON_AddItemToArray(a, cJSON_CreateString(buf));
    }
    if (s->drain_pct.known && s->drain_pct.v >= 5.0) {
        snprintf(buf, sizeof buf,
                 "Drain: s_endpgm holds %.1f%% of wave latency (outstanding stores draining at exit): store bandwidth, "
                 "not a prefetch target",
                 s->drain_pct.v);
        cJSON_AddItemToArray(a, cJSON_CreateString(buf));
    }
    return a;
}

static char *headline_text(const fp_signals *s, const fp_rec *top, bool optimal)
{
    fp_sb sb;
    fp_sb_init(&sb);
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
    if (s->sol.hbm_pct.have && s->sol.hbm_pct.v <= FP_SOL_TRACE_PLAUSIBLE_PCT)
        /* the trace estimate counts cache hits as HBM bytes: an upper bound, said as one */
        fp_sb_addf(&sb, ", HBM %s%.0f%% of peak",
                   s->sol.hbm_source && !strcmp(s->sol.hbm_source, "trace") ? "<= " : "", s->sol.hbm_pct.v);
    if (s->sol.mfma_busy.have && s->sol.mfma_busy.v > 0)
        fp_sb_addf(&sb, ", MFMA busy %.0f%%", s->sol.mfma_busy.v);
    if (top_c)
        fp_sb_addf(&sb, ", %s-dominated (%.2f%% of stall; %.1f%% of cycles stalled)", top_c->name, top_c->stall_pct,
                   s->stall_pct);
    if (top)
        fp_sb_addf(&sb, " -> %s (est. gain <= %.2f%%)", top->rule->knob, top->gain_pct);
    else
        fp_sb_adds(&sb, " -> no rule fired");
    return fp_sb_detach(&sb);
}

cJSON *fp_report_build(const fp_report_in *in)
{
    const fp_signals *s = in->sig;
    fp_rec *recs = NULL;
    size_t n = 0;
    bool optimal = s->bound_res.optimal;
    if (!optimal)
        fp_rules_eval(s, &recs, &n);

    cJSON *r = cJSON_CreateObject();
    fp_json_add_int(r, "schema", FP_REPORT_SCHEMA);
    fp_json_add_str(r, "kernel", s->kernel);
    fp_json_add_str(r, "recipe_kernel", s->recipe_kernel);
    fp_json_add_str(r, "arch", s->arch);
    fp_json_add_str(r, "product", s->product);
    cJSON *d = cJSON_AddObjectToObject(r, "dispatch");
    fp_json_add_str(d, "name", in->dispatch_name);
    fp_json_add_str(d, "tag", in->tag);
    fp_json_add_str(r, "bound_type", s->bound);
    cJSON_AddItemToObject(r, "bound", fp_bound_to_json(&s->bound_res));
    if (s->launch.valid) {
        cJSON_AddItemToObject(r, "launch", fp_launch_to_json(&s->launch));
        cJSON_AddNullToObject(r, "launch_reason");
    } else {
        cJSON_AddNullToObject(r, "launch");
        fp_json_add_str(r, "launch_reason", s->launch_reason ? s->launch_reason : "launch not modelled");
    }
    if (s->have_sol)
        cJSON_AddItemToObject(r, "sol", fp_sol_to_json(&s->sol, &s->sol_in));
    else
        cJSON_AddNullToObject(r, "sol");
    cJSON *dr = cJSON_AddObjectToObject(r, "drain");
    add_optd(dr, "cycles", s->drain_latency, 0);
    add_optd(dr, "pct_of_latency", s->drain_pct, 2);
    const fp_sig_class *dc = fp_signals_class(s, "drain");
    fp_json_add_num(dr, "stall", dc ? (double)dc->stall : 0.0, 0);
    cJSON_AddItemToObject(r, "summary", summary_lines(s));
    fp_json_add_bool(r, "optimal", optimal);
    char *h = headline_text(s, n ? &recs[0] : NULL, optimal);
    fp_json_add_str(r, "headline", h);
    free(h);

    cJSON *t = cJSON_AddObjectToObject(r, "totals");
    const cJSON *bt = fp_jget(in->bubbles, "totals");
    fp_json_add_int(t, "instructions", s->instructions);
    fp_json_add_int(t, "latency", s->total_latency);
    fp_json_add_int(t, "stall", s->total_stall);
    fp_json_add_num(t, "stall_pct", s->stall_pct, 2);
    add_optd(t, "waves", s->waves, 0);
    fp_json_add_num(t, "exposed", fp_jnum0(bt, "exposed"), 0);
    fp_json_add_num(t, "exposed_pct", fp_jnum0(bt, "exposed_pct"), 2);
    cJSON_AddItemToObject(r, "classes", classes_json(s));
    cJSON_AddItemToObject(r, "occupancy", occupancy_json(s));
    cJSON_AddItemToObject(r, "counters", counters_json(s));
    cJSON *w = cJSON_AddObjectToObject(r, "workload");
    fp_json_add_str(w, "shape", s->shape);
    fp_json_add_str(w, "invocation", s->invocation);
    fp_json_add_str(w, "tile", s->tile_text);
    add_optd(w, "time_ns_per_call", s->time_ns, 1);
    cJSON_AddItemToObject(r, "signals", signals_json(s));

    cJSON *ra = cJSON_AddArrayToObject(r, "recommendations");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(ra, fp_rec_json(s, &recs[i]));
    /* snippets of the evidence lines */
    cJSON *rec;
    cJSON_ArrayForEach(rec, ra)
    {
        cJSON *hot = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "evidence"), "hottest");
        if (cJSON_IsObject(hot) && cJSON_IsNull(fp_jget(hot, "snippet"))) {
            char *txt = trimmed(fp_report_source_text(in->snaps, fp_json_get_str(hot, "source")));
            if (txt)
                cJSON_ReplaceItemInObjectCaseSensitive(hot, "snippet", cJSON_CreateString(txt));
            free(txt);
        }
    }
    free(recs);

    cJSON_AddItemToObject(r, "hot_lines", hot_lines_json(in->bubbles, in->snaps));
    cJSON_AddItemToObject(r, "evidence_hotspots", evidence_hotspots_json(in->bubbles));
    cJSON *ev = cJSON_AddObjectToObject(r, "evidence");
    cJSON_AddItemToObject(ev, "available", in->available ? cJSON_Duplicate(in->available, 1) : cJSON_CreateArray());
    cJSON_AddItemToObject(ev, "missing", in->missing ? cJSON_Duplicate(in->missing, 1) : cJSON_CreateArray());
    cJSON *q = cJSON_AddObjectToObject(r, "capture_quality");
    const char *conf = NULL;
    const cJSON *qual = fp_jget(in->bubbles, "quality");
    conf = fp_json_get_str(qual, "confidence");
    fp_json_add_str(q, "confidence", conf ? conf : "unknown");
    fp_json_add_num(q, "confidence_multiplier", s->capture_confidence, 2);
    add_optd(q, "src_mapped_pct", s->src_mapped_pct, 1);
    cJSON_AddItemToObject(q, "reasons", cJSON_Duplicate(s->quality_issues, 1));
    fp_json_add_bool(q, "representative", s->representative);
    add_optd(q, "coverage_pct", s->coverage_pct, 2);
    fp_json_add_int(q, "static_instructions", s->static_insts);
    fp_json_add_int(q, "executed_instructions", s->executed_insts);
    fp_json_add_bool(q, "has_loop", s->has_loop);
    if (s->loop_known)
        fp_json_add_bool(q, "loop_executed", s->loop_executed);
    else
        cJSON_AddNullToObject(q, "loop_executed");
    add_optd(q, "traced_waves", s->waves, 0);
    if (s->launch.valid) {
        fp_json_add_num(q, "launched_waves", s->launch.grid_waves, 0);
        if (s->waves.known && s->launch.grid_waves > 0)
            fp_json_add_num(q, "traced_pct_of_launched", 100.0 * s->waves.v / s->launch.grid_waves, 3);
        else
            cJSON_AddNullToObject(q, "traced_pct_of_launched");
    } else {
        cJSON_AddNullToObject(q, "launched_waves");
        cJSON_AddNullToObject(q, "traced_pct_of_launched");
    }
    cJSON_AddItemToObject(q, "representative_reasons", cJSON_Duplicate(s->repr_reasons, 1));
    if (!s->representative)
        fp_json_add_str(q, "recapture",
                        "re-capture with another CU (--att-target-cu N), another dispatch (--dispatch N), or a shape "
                        "whose traced waves reach the main loop");
    char *rp = repro_text(s);
    fp_json_add_str(r, "repro", rp);
    free(rp);
    cJSON_AddItemToObject(r, "lines", lines_json(in->bubbles));
    cJSON_AddItemToObject(r, "instructions", insts_json(in->code, in->bubbles));
    return r;
}

int fp_report_nrecs(const cJSON *report)
{
    const cJSON *a = fp_jget(report, "recommendations");
    return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
}

cJSON *fp_report_headlines(const cJSON *r)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "kernel", fp_json_get_str(r, "kernel"));
    fp_json_add_str(o, "arch", fp_json_get_str(r, "arch"));
    fp_json_add_str(o, "product", fp_json_get_str(r, "product"));
    fp_json_add_str(o, "bound_type", fp_json_get_str(r, "bound_type"));
    fp_json_add_str(o, "headline", fp_json_get_str(r, "headline"));
    fp_json_add_bool(o, "optimal", cJSON_IsTrue(fp_jget(r, "optimal")));
    const cJSON *sum = fp_jget(r, "summary");
    cJSON_AddItemToObject(o, "summary", cJSON_IsArray(sum) ? cJSON_Duplicate(sum, 1) : cJSON_CreateArray());
    const cJSON *la = fp_jget(r, "launch"), *so = fp_jget(r, "sol");
    cJSON *lo = cJSON_AddObjectToObject(o, "launch");
    double x;
    if (fp_jnum(la, "fill_pct", &x))
        cJSON_AddNumberToObject(lo, "fill_pct", x);
    else
        cJSON_AddNullToObject(lo, "fill_pct");
    const cJSON *uf = fp_jget(la, "underfilled");
    if (cJSON_IsBool(uf))
        fp_json_add_bool(lo, "underfilled", cJSON_IsTrue(uf));
    else
        cJSON_AddNullToObject(lo, "underfilled");
    cJSON *sl = cJSON_AddObjectToObject(o, "sol");
    if (fp_jnum(fp_jget(so, "hbm"), "pct_of_peak", &x))
        cJSON_AddNumberToObject(sl, "hbm_pct_of_peak", x);
    else
        cJSON_AddNullToObject(sl, "hbm_pct_of_peak");
    if (fp_jnum(fp_jget(so, "mfma"), "busy_pct", &x))
        cJSON_AddNumberToObject(sl, "mfma_busy_pct", x);
    else
        cJSON_AddNullToObject(sl, "mfma_busy_pct");
    fp_json_add_bool(o, "representative", cJSON_IsTrue(fp_jget(fp_jget(r, "capture_quality"), "representative")));
    const cJSON *recs = fp_jget(r, "recommendations");
    const cJSON *top = cJSON_IsArray(recs) ? cJSON_GetArrayItem(recs, 0) : NULL;
    cJSON_AddItemToObject(o, "top_recommendation", top ? cJSON_Duplicate(top, 1) : cJSON_CreateNull());
    return o;
}

/* ---- markdown ---- */

static const char *or_(const char *s, const char *d) { return s && *s ? s : d; }

static const char *prio_label(double gain)
{
    return gain >= FP_PRIO_HIGH_GAIN ? "HIGH" : gain >= FP_PRIO_MED_GAIN ? "MED" : "LOW";
}

static void md_producers(const cJSON *waits, const char *indent, fp_sb *out)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, waits)
    {
        double l2u;
        fp_sb_addf(out, "%swaits on `%s` (code_line %.0f) -> %s", indent, or_(fp_json_get_str(p, "inst"), "?"),
                   fp_jnum0(p, "code_line"), or_(fp_json_get_str(p, "source"), "<unmapped>"));
        if (fp_jnum(p, "load_to_use_cycles", &l2u))
            fp_sb_addf(out, "; load-to-use %.0f cycles", l2u);
        fp_sb_adds(out, "\n");
    }
}

static void md_rec(const cJSON *rec, fp_sb *out)
{
    const cJSON *ev = fp_jget(rec, "evidence"), *hot = fp_jget(ev, "hottest"), *acc = fp_jget(rec, "acceptance");
    fp_sb_addf(out, "### #%.0f - `%s` (%s) - est. gain <= %.2f%%, confidence %s (%.2f)\n\n", fp_jnum0(rec, "rank"),
               or_(fp_json_get_str(rec, "rule"), "?"), or_(fp_json_get_str(rec, "bubble_class"), "?"), fp_jnum0(rec, "est_gain_pct"),
               or_(fp_json_get_str(rec, "confidence_label"), "?"), fp_jnum0(rec, "confidence"));
    fp_sb_addf(out, "- **Evidence:** `%s` = %.4g (fired because %s); class stall %.2f%%", or_(fp_json_get_str(ev, "signal"), "?"),
               fp_jnum0(ev, "value"), or_(fp_json_get_str(ev, "fired_because"), "?"), fp_jnum0(ev, "class_stall_pct"));
    double x;
    if (fp_jnum(ev, "exposed_stall", &x))
        fp_sb_addf(out, ", exposed %.0f cycles", x);
    fp_sb_adds(out, "\n");
    if (cJSON_IsObject(hot)) {
        fp_sb_addf(out, "- **Root cause:** `%s` (code_line %.0f, stall %.0f", or_(fp_json_get_str(hot, "inst"), "?"),
                   fp_jnum0(hot, "code_line"), fp_jnum0(hot, "stall"));
        if (fp_jnum(hot, "exposed", &x))
            fp_sb_addf(out, ", exposed %.0f", x);
        fp_sb_addf(out, ") at %s\n", or_(fp_json_get_str(hot, "source"), "<unmapped>"));
        if (fp_json_get_str(hot, "snippet"))
            fp_sb_addf(out, "  `%s`\n", fp_json_get_str(hot, "snippet"));
        if (cJSON_IsTrue(fp_jget(hot, "entry_line")))
            fp_sb_adds(out, "  _Every stall of this class is filed under the kernel entry/decorator line (debug-info "
                            "aggregation): the producers below say which loads are involved._\n");
        md_producers(fp_jget(hot, "waits_on"), "  - ", out);
    }
    const cJSON *occ = fp_jget(ev, "occupancy");
    if (cJSON_IsObject(occ)) {
        fp_sb_addf(out, "- **Occupancy:** %.0f waves/CU (limiter %s)", fp_jnum0(occ, "waves_per_cu"),
                   or_(fp_json_get_str(occ, "limiter"), "?"));
        if (fp_jnum(occ, "next_waves_per_cu", &x))
            fp_sb_addf(out, "; next step %.0f waves/CU", x);
        if (fp_jnum(occ, "vgprs_to_free", &x))
            fp_sb_addf(out, " needs %.0f fewer VGPRs", x);
        fp_sb_adds(out, "\n");
    }
    fp_sb_addf(out, "- **Knob:** %s\n", or_(fp_json_get_str(rec, "knob"), ""));
    fp_sb_addf(out, "- **FlyDSL API:** %s\n", or_(fp_json_get_str(rec, "api"), ""));
    fp_sb_addf(out, "- **Change:** %s\n", or_(fp_json_get_str(rec, "change"), ""));
    fp_sb_addf(out, "- **Expected:** %s\n", or_(fp_json_get_str(rec, "expected"), ""));
    fp_sb_addf(out, "- **Acceptance test:** %s\n\n", or_(fp_json_get_str(acc, "text"), ""));
}

void fp_report_markdown(const cJSON *r, fp_sb *out)
{
    const char *kernel = or_(fp_json_get_str(r, "kernel"), "kernel");
    const char *arch = or_(fp_json_get_str(r, "arch"), "arch unknown");
    const char *product = or_(fp_json_get_str(r, "product"), "product unknown");
    const cJSON *w = fp_jget(r, "workload"), *b = fp_jget(r, "bound"), *t = fp_jget(r, "totals");
    double x;
    fp_sb_addf(out, "# %s - %s / %s profiling report\n\n", kernel, arch, product);
    fp_sb_addf(out, "_Provenance: FlyDSL · rocprofv3 ATT · %s (%s) · dispatch %s", product, arch,
               or_(fp_json_get_str(fp_jget(r, "dispatch"), "name"), "?"));
    if (fp_json_get_str(fp_jget(r, "dispatch"), "tag"))
        fp_sb_addf(out, " (tag %s)", fp_json_get_str(fp_jget(r, "dispatch"), "tag"));
    if (fp_jnum(w, "time_ns_per_call", &x))
        fp_sb_addf(out, " · avg %.1f ns/call", x);
    fp_sb_adds(out, "_\n\n");

    fp_sb_addf(out, "## 1. Headline\n\n%s\n\n", or_(fp_json_get_str(r, "headline"), ""));
    const cJSON *sum = fp_jget(r, "summary"), *sl;
    cJSON_ArrayForEach(sl, sum)
        if (cJSON_IsString(sl))
            fp_sb_addf(out, "- %s\n", sl->valuestring);
    if (cJSON_GetArraySize(sum) > 0)
        fp_sb_adds(out, "\n");

    fp_sb_adds(out, "## 2. Workload & Tile\n\n");
    fp_sb_addf(out, "- shape: %s\n", or_(fp_json_get_str(w, "shape"), "(not recorded: no capture.json)"));
    if (fp_json_get_str(w, "invocation"))
        fp_sb_addf(out, "- invocation: `%s`\n", fp_json_get_str(w, "invocation"));
    fp_sb_addf(out, "- kernel tile: %s\n\n",
               or_(fp_json_get_str(w, "tile"), "unknown (no tile.json evaluating the kernel's own BM/BN/BK)"));

    fp_sb_adds(out, "## 3. Roofline & Occupancy\n\n");
    fp_sb_addf(out, "- bound: **%s** (rule `%s`, basis %s, confidence %s): %s\n", or_(fp_json_get_str(r, "bound_type"), "unknown"),
               or_(fp_json_get_str(b, "rule"), "none"), or_(fp_json_get_str(b, "basis"), "none"), or_(fp_json_get_str(b, "confidence"), "-"),
               or_(fp_json_get_str(b, "evidence"), ""));
    if (cJSON_IsTrue(fp_jget(r, "optimal")))
        fp_sb_addf(out, "- roof: %s\n", or_(fp_json_get_str(b, "optimal_evidence"), ""));
    const cJSON *c = fp_jget(r, "counters");
    if (cJSON_IsObject(c) && fp_jnum(c, "pct_of_hbm_roof", &x))
        fp_sb_addf(out, "- achieved HBM bandwidth: %.1f GB/s = %.2f%% of the %.0f GB/s peak\n",
                   fp_jnum0(c, "achieved_hbm_gbs"), x, fp_jnum0(c, "peak_hbm_gbs"));
    const cJSON *o = fp_jget(r, "occupancy");
    if (cJSON_IsObject(o)) {
        fp_sb_addf(out, "- occupancy: %.0f waves/CU (%.0f/SIMD), limiter %s; arch_vgpr %.0f, accum_vgpr %.0f (%s)",
                   fp_jnum0(o, "waves_per_cu"), fp_jnum0(o, "waves_per_simd"), or_(fp_json_get_str(o, "limiter"), "?"),
                   fp_jnum0(o, "arch_vgpr"), fp_jnum0(o, "accum_vgpr"), or_(fp_json_get_str(o, "source"), "?"));
        if (fp_jnum(o, "next_waves_per_cu", &x))
            fp_sb_addf(out, "; next step %.0f waves/CU", x);
        if (fp_jnum(o, "vgprs_to_free", &x))
            fp_sb_addf(out, " needs %.0f fewer VGPRs", x);
        fp_sb_adds(out, "\n\n");
    } else {
        fp_sb_adds(out, "- occupancy: unknown (no register counts: no capture.json or kernel_trace.csv row)\n\n");
    }

    fp_sb_adds(out, "## 4. Bubble / Stall Taxonomy\n\n");
    fp_sb_addf(out, "- total stall: %.0f cycles = %.2f%% of %.0f latency cycles; exposed %.0f (%.2f%%)\n\n",
               fp_jnum0(t, "stall"), fp_jnum0(t, "stall_pct"), fp_jnum0(t, "latency"), fp_jnum0(t, "exposed"),
               fp_jnum0(t, "exposed_pct"));
    fp_sb_adds(out, "| rank | class | stall % | cycles | exposed | gain <= % | bubble? |\n|---:|---|---:|---:|---:|---:|---|\n");
    const cJSON *it;
    cJSON_ArrayForEach(it, fp_jget(r, "classes"))
    {
        fp_sb_addf(out, "| %.0f | %s | %.2f | %.0f | %.0f | %.2f | %s |\n", fp_jnum0(it, "rank"),
                   or_(fp_json_get_str(it, "class"), "?"), fp_jnum0(it, "pct"), fp_jnum0(it, "cycles"), fp_jnum0(it, "exposed"),
                   fp_jnum0(it, "gain_upper_pct"), cJSON_IsTrue(fp_jget(it, "is_bubble")) ? "yes" : "");
    }
    fp_sb_adds(out, "\n");

    fp_sb_adds(out, "## 5. ISA <-> Python Evidence\n\nHot source lines:\n\n");
    cJSON_ArrayForEach(it, fp_jget(r, "hot_lines"))
    {
        fp_sb_addf(out, "- %s - stall %.0f (%.2f%%), exposed %.0f, %s", or_(fp_json_get_str(it, "source"), "<unmapped>"),
                   fp_jnum0(it, "stall"), fp_jnum0(it, "pct"), fp_jnum0(it, "exposed"), or_(fp_json_get_str(it, "dom_class"), "?"));
        if (fp_json_get_str(it, "text"))
            fp_sb_addf(out, ": `%s`", fp_json_get_str(it, "text"));
        if (cJSON_IsTrue(fp_jget(it, "entry_line")))
            fp_sb_adds(out, " _(kernel entry/decorator line: debug-info aggregation of prologue and address code; "
                            "look at the lines with explicit ops)_");
        fp_sb_adds(out, "\n");
    }
    fp_sb_adds(out, "\nHottest instructions:\n\n");
    cJSON_ArrayForEach(it, fp_jget(r, "evidence_hotspots"))
    {
        fp_sb_addf(out, "- `%s` @%s (code_line %.0f, %s, stall %.0f, exposed %.0f) -> %s\n", or_(fp_json_get_str(it, "inst"), "?"),
                   or_(fp_json_get_str(it, "addr"), "?"), fp_jnum0(it, "code_line"), or_(fp_json_get_str(it, "class"), "?"), fp_jnum0(it, "stall"),
                   fp_jnum0(it, "exposed"), or_(fp_json_get_str(it, "source"), "<unmapped>"));
        md_producers(fp_jget(it, "waits_on"), "    ", out);
    }
    fp_sb_adds(out, "\n");

    fp_sb_adds(out, "## 6. Ranked Optimization Opportunities\n\n");
    const cJSON *recs = fp_jget(r, "recommendations");
    if (cJSON_IsTrue(fp_jget(r, "optimal"))) {
        fp_sb_addf(out, "**Already optimal.** %s No change is recommended at this level.\n\n",
                   or_(fp_json_get_str(b, "optimal_evidence"), ""));
    } else if (!cJSON_GetArraySize(recs)) {
        fp_sb_adds(out, "_No rule fired: no bubble crossed its threshold._\n\n");
    } else {
        cJSON_ArrayForEach(it, recs)
            md_rec(it, out);
        fp_sb_adds(out, "### Priority order\n\n");
        cJSON_ArrayForEach(it, recs)
            fp_sb_addf(out, "%.0f. [%s] %s - `%s`, est. gain <= %.2f%% (%s %.2f%% of stall)\n", fp_jnum0(it, "rank"),
                       prio_label(fp_jnum0(it, "est_gain_pct")), or_(fp_json_get_str(it, "knob"), ""), or_(fp_json_get_str(it, "rule"), ""),
                       fp_jnum0(it, "est_gain_pct"), or_(fp_json_get_str(it, "bubble_class"), ""),
                       fp_jnum0(fp_jget(it, "evidence"), "class_stall_pct"));
        fp_sb_adds(out, "\nGains are upper bounds (the exposed stall a change could hide at most); verify by "
                        "re-capturing.\n\n");
    }

    fp_sb_adds(out, "## 7. Verification Plan\n\n");
    fp_sb_adds(out, "1. Apply ONE change, rebuild with `FLYDSL_DUMP_IR=1` and check `final_isa.s` (scratch == 0, the "
                    "intended instruction counts).\n");
    fp_sb_adds(out, "2. Re-capture into a NEW bundle and run `flyprof report`, then `flyprof diff --before <this bundle> "
                    "--after <new bundle>`.\n");
    fp_sb_adds(out, "3. Acceptance tests (checked by `diff`):\n");
    cJSON_ArrayForEach(it, recs)
        fp_sb_addf(out, "   - `%s`: %s\n", or_(fp_json_get_str(it, "rule"), ""), or_(fp_json_get_str(fp_jget(it, "acceptance"), "text"), ""));
    fp_sb_adds(out, "\n");

    fp_sb_adds(out, "## 8. Counters\n\n");
    if (cJSON_IsObject(c)) {
        const cJSON *kv;
        cJSON_ArrayForEach(kv, c)
        {
            if (cJSON_IsNumber(kv))
                fp_sb_addf(out, "- %s: %.4g\n", kv->string, kv->valuedouble);
            else
                fp_sb_addf(out, "- %s: (not measured)\n", kv->string);
        }
    } else {
        fp_sb_adds(out, "- (no counters.json: run `flyprof counters`)\n");
    }
    fp_sb_adds(out, "\n## 9. Evidence & Capture Quality\n\n");
    const cJSON *ev = fp_jget(r, "evidence"), *q = fp_jget(r, "capture_quality");
    fp_sb_adds(out, "- used:");
    cJSON_ArrayForEach(it, fp_jget(ev, "available"))
        if (cJSON_IsString(it))
            fp_sb_addf(out, " %s", it->valuestring);
    fp_sb_adds(out, "\n");
    cJSON_ArrayForEach(it, fp_jget(ev, "missing"))
        fp_sb_addf(out, "- missing %s: %s\n", or_(fp_json_get_str(it, "artifact"), "?"), or_(fp_json_get_str(it, "effect"), ""));
    fp_sb_addf(out, "- capture quality: %s (recommendation confidence x %.2f)", or_(fp_json_get_str(q, "confidence"), "?"),
               fp_jnum0(q, "confidence_multiplier"));
    if (fp_jnum(q, "src_mapped_pct", &x))
        fp_sb_addf(out, "; %.1f%% of latency maps to a source line (map.json)", x);
    fp_sb_adds(out, "\n");
    cJSON_ArrayForEach(it, fp_jget(q, "reasons"))
        if (cJSON_IsString(it))
            fp_sb_addf(out, "  - %s\n", it->valuestring);
    fp_sb_addf(out, "\n## 10. Repro\n\n```\n%s\n```\n", or_(fp_json_get_str(r, "repro"), ""));
}

/* ---- terminal table ---- */

void fp_report_table(const cJSON *r, fp_sb *out)
{
    fp_sb_addf(out, "%s\n\n", or_(fp_json_get_str(r, "headline"), ""));
    const cJSON *sum = fp_jget(r, "summary"), *sl;
    cJSON_ArrayForEach(sl, sum)
        if (cJSON_IsString(sl))
            fp_sb_addf(out, "%s\n", sl->valuestring);
    if (cJSON_GetArraySize(sum) > 0)
        fp_sb_adds(out, "\n");
    const cJSON *recs = fp_jget(r, "recommendations"), *it;
    if (cJSON_IsTrue(fp_jget(r, "optimal"))) {
        fp_sb_adds(out, "Already optimal: no change recommended.\n");
        return;
    }
    if (!cJSON_GetArraySize(recs)) {
        fp_sb_adds(out, "No rule fired.\n");
        return;
    }
    fp_sb_adds(out, "rank  prio  gain<=%  conf    rule                     class      evidence\n");
    cJSON_ArrayForEach(it, recs)
    {
        char gain[32];
        snprintf(gain, sizeof gain, "%.2f", fp_jnum0(it, "est_gain_pct"));
        char rank[16];
        snprintf(rank, sizeof rank, "%.0f", fp_jnum0(it, "rank"));
        fp_sb_pad_left(out, rank, 6);
        fp_sb_pad_left(out, prio_label(fp_jnum0(it, "est_gain_pct")), 6);
        fp_sb_pad_left(out, gain, 8);
        fp_sb_pad_left(out, or_(fp_json_get_str(it, "confidence_label"), "?"), 8);
        fp_sb_pad_left(out, or_(fp_json_get_str(it, "rule"), "?"), 25);
        fp_sb_pad_left(out, or_(fp_json_get_str(it, "bubble_class"), "?"), 11);
        const cJSON *hot = fp_jget(fp_jget(it, "evidence"), "hottest");
        fp_sb_addf(out, "%s", cJSON_IsObject(hot) ? or_(fp_json_get_str(hot, "source"), "<unmapped>") : "-");
        fp_sb_addf(out, "\n%*s-> %s\n%*s   accept: %s\n", 6, "", or_(fp_json_get_str(it, "knob"), ""), 6, "",
                   or_(fp_json_get_str(fp_jget(it, "acceptance"), "text"), ""));
    }
}
