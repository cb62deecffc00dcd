/*
 * test_rules.c - the knob rules engine over hand-built signals: firing,
 * bound gates, unmeasured signals (pass / fail / fallback), ranking by gain
 * with stable ties, confidence lowered by capture quality, the occupancy
 * payoff, acceptance tests and the generated table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/report_doc.h"
#include "flyprof/rules.h"
#include "flyprof/signals.h"

static fp_optd some(double v)
{
    fp_optd o = {true, v};
    return o;
}

static fp_sig_class *add_class(fp_signals *s, const char *name, int64_t stall, double pct, double gain)
{
    fp_sig_class *c = fp_signals_class_add(s, name);
    c->stall = stall;
    c->stall_pct = pct;
    c->gain_pct = some(gain);
    c->exposed = some((double)stall);
    return c;
}

/* A memory-bound kernel: vmcnt 50 % of stall, upper-bound gain 30 %. */
static void base(fp_signals *s)
{
    fp_signals_init(s);
    s->total_latency = 100000;
    s->total_stall = 60000;
    s->stall_pct = 60;
    add_class(s, "vmcnt", 30000, 50.0, 30.0);
    add_class(s, "valu", 30000, 50.0, 0.0);
    s->bound = "memory";
}

static const fp_rec *find(const fp_rec *r, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].rule->id, id))
            return &r[i];
    return NULL;
}

static void test_fires_and_gate(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    assert_int_equal(n, 1);
    assert_string_equal(r[0].rule->id, "vmem_prefetch");
    assert_int_equal(r[0].rank, 1);
    assert_true(r[0].gain_pct == 30.0);
    assert_true(r[0].value == 50.0);
    free(r);
    /* compute-bound: the memory-gated rule is gated out */
    s.bound = "compute";
    fp_rules_eval(&s, &r, &n);
    assert_null(find(r, n, "vmem_prefetch"));
    free(r);
    /* unknown bound: no gate */
    s.bound = NULL;
    fp_rules_eval(&s, &r, &n);
    assert_non_null(find(r, n, "vmem_prefetch"));
    free(r);
    fp_signals_free(&s);
}

/* vmcnt mixes global loads and spill reloads: once the trace names the producers,
 * the prefetch rule's gain counts only the waits on global loads. */
static void test_prefetch_narrowed_to_global_loads(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    fp_sig_class *vm = (fp_sig_class *)fp_signals_class(&s, "vmcnt");
    vm->has_producers = true; /* producers known, none of them a global load */
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *p = find(r, n, "vmem_prefetch");
    assert_non_null(p);
    assert_true(p->gain_pct == 0.0);
    free(r);
    vm->gain_prod_pct[FP_PROD_GLOBAL] = some(12.5); /* waits on global loads: 12.5 % */
    fp_rules_eval(&s, &r, &n);
    p = find(r, n, "vmem_prefetch");
    assert_non_null(p);
    assert_true(p->gain_pct == 12.5);
    free(r);
    vm->gain_prod_pct[FP_PROD_GLOBAL] = some(45.0); /* overlapping per-wait bounds: capped by the class's 30 % */
    fp_rules_eval(&s, &r, &n);
    p = find(r, n, "vmem_prefetch");
    assert_non_null(p);
    assert_true(p->gain_pct == 30.0);
    free(r);
    fp_signals_free(&s);
}

static void test_unmeasured_pass_and_fail(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    fp_rec *r;
    size_t n;
    /* a measured HBM figure no longer blocks the prefetch rule (round 3: below the practical
     * ceiling latency hiding is legitimate, capped by the distance to it): 80 % of an 84 %
     * ceiling leaves 1 - 80/84 = 4.76 % */
    s.pct_hbm_roof = some(80);
    s.bound_res.ceiling_pct = 84.0;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *vp = find(r, n, "vmem_prefetch");
    assert_non_null(vp);
    assert_true(vp->capped && vp->gain_pct == 4.76 && vp->cap_pct == 4.76);
    free(r);
    /* layout_l2 needs a measured L2 hit rate (unmeasured fails) */
    s.pct_hbm_roof.known = false;
    fp_rules_eval(&s, &r, &n);
    assert_null(find(r, n, "layout_l2"));
    free(r);
    s.l2_hit = some(40);
    fp_rules_eval(&s, &r, &n);
    const fp_rec *l2 = find(r, n, "layout_l2");
    assert_non_null(l2);
    assert_true(l2->value == 40);
    free(r);
    fp_signals_free(&s);
}

static void test_fallback_lowers_confidence(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    add_class(&s, "lds", 9000, 9.0, 5.0);
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *b = find(r, n, "lds_bank_conflict");
    assert_non_null(b);
    assert_true(b->value_fallback);
    assert_true(b->value == 9.0);
    assert_true(b->confidence == 0.72); /* 0.9 high x 0.8 fallback */
    free(r);
    /* a measured low conflict rate wins over the stall share */
    s.lds_conflict_pct = some(2.0);
    fp_rules_eval(&s, &r, &n);
    assert_null(find(r, n, "lds_bank_conflict"));
    free(r);
    fp_signals_free(&s);
}

static void test_rank_ties_stable(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    /* vmem_queue_depth (0.8) and layout_l2 (0.7) share vmcnt's gain with vmem_prefetch (1.2) */
    fp_signals_class_add(&s, "vmem_load")->mix = some(0.3);
    s.l2_hit = some(50);
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    assert_int_equal(n, 3);
    assert_string_equal(r[0].rule->id, "vmem_prefetch");
    assert_string_equal(r[1].rule->id, "vmem_queue_depth");
    assert_string_equal(r[2].rule->id, "layout_l2");
    for (size_t i = 0; i < n; i++)
        assert_int_equal(r[i].rank, (int)i + 1);
    free(r);
    /* a larger gain outranks priority */
    add_class(&s, "barrier", 20000, 33.0, 45.0);
    fp_rules_eval(&s, &r, &n);
    assert_string_equal(r[0].rule->id, "barrier_relax");
    free(r);
    fp_signals_free(&s);
}

static void test_quality_and_occupancy(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    s.capture_confidence = 0.6;
    s.waves_per_cu = some(4);
    s.next_waves_per_cu = some(8);
    s.occ_limiter = strdup("VGPR");
    fp_sig_class *vm = (fp_sig_class *)fp_signals_class(&s, "vmcnt");
    vm->is_bubble = true;
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *o = find(r, n, "occupancy_vgpr");
    assert_non_null(o);
    assert_true(o->gain_pct == 15.0); /* 30 % bubble gain x (1 - 4/8) */
    assert_true(o->confidence == 0.54); /* high 0.9 x capture 0.6 */
    assert_string_equal(fp_conf_label(o->confidence), "medium");
    free(r);
    /* another limiter binds: cutting registers would not help */
    free(s.occ_limiter);
    s.occ_limiter = strdup("LDS");
    fp_rules_eval(&s, &r, &n);
    assert_null(find(r, n, "occupancy_vgpr"));
    free(r);
    fp_signals_free(&s);
}

static void test_evidence_and_acceptance(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    fp_sig_class *vm = (fp_sig_class *)fp_signals_class(&s, "vmcnt");
    vm->hot.present = true;
    vm->hot.code_line = 42;
    vm->hot.isa = strdup("s_waitcnt vmcnt(0)");
    vm->hot.source = strdup("/k/kernel.py:192");
    vm->hot.stall = 20000;
    vm->hot.hit = 10;
    vm->hot.line_class_stall = 25000;
    vm->hot.nproducers = 1;
    vm->hot.producers[0].code_line = 40;
    vm->hot.producers[0].isa = strdup("buffer_load_dwordx4 v[0:3], v1, s[0:3], 0 offen");
    vm->hot.producers[0].source = strdup("/k/kernel.py:190");
    vm->hot.producers[0].cls = strdup("vmem_load");
    vm->hot.producers[0].load_to_use = some(2100.5);
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    fp_report_rec rec;
    fp_rec_to_doc(&s, &r[0], &rec);
    fp_model_round(&fp_report_rec_schema, &rec); /* the numbers of report.json */
    const fp_report_hottest *hot = rec.evidence.hottest;
    assert_non_null(hot);
    assert_string_equal(hot->source, "/k/kernel.py:192");
    assert_int_equal(hot->nwaits_on, 1);
    assert_true(hot->waits_on[0].load_to_use_cycles.known && hot->waits_on[0].load_to_use_cycles.v == 2100.5);
    const fp_report_acceptance *acc = &rec.acceptance;
    assert_string_equal(acc->kind, "line_stall_drop");
    assert_string_equal(acc->text,
                        "vmcnt stall at /k/kernel.py:192 drops by >= 30% (from 25000 to <= 17500 cycles)");
    assert_true(acc->target == 17500);
    fp_model_free(&fp_report_rec_schema, &rec);
    free(r);
    fp_signals_free(&s);
}

static void test_table(void **state)
{
    (void)state;
    assert_true(fp_rules_count >= 14);
    fp_sb sb;
    fp_sb_init(&sb);
    fp_rules_markdown(&sb);
    for (size_t i = 0; i < fp_rules_count; i++) {
        char id[80];
        snprintf(id, sizeof id, "`%s`", fp_rules[i].id);
        assert_non_null(strstr(sb.buf, id));
        /* every row is complete */
        assert_non_null(fp_rules[i].knob);
        assert_non_null(fp_rules[i].api);
        assert_non_null(fp_rules[i].change);
        assert_non_null(fp_rules[i].expected);
        assert_int_not_equal(fp_rules[i].conds[0].sig, FP_SIG_NONE);
    }
    fp_sb_free(&sb);
    fp_rules_doc d;
    fp_rules_doc_fill(&d);
    assert_int_equal(d.nrules, fp_rules_count);
    assert_int_equal(d.count, (int64_t)fp_rules_count);
    for (size_t i = 0; i < d.nrules; i++) {
        assert_string_equal(d.rules[i].id, fp_rules[i].id);
        assert_true(d.rules[i].priority == fp_round(fp_rules[i].priority, 2)); /* rounded as written */
    }
    fp_model_free(&fp_rules_doc_schema, &d);
}

/* Priority from gain x confidence, never above the confidence label (docs/rules.md "Priority"). */
static void test_priority_label(void **state)
{
    (void)state;
    assert_string_equal(fp_priority_label(10.0, 0.75), "HIGH"); /* payoff 7.5, high */
    assert_string_equal(fp_priority_label(9.99, 0.75), "MED");
    assert_string_equal(fp_priority_label(80.0, 0.74), "MED");  /* medium confidence caps at MED */
    assert_string_equal(fp_priority_label(80.0, 0.45), "LOW");  /* no [HIGH] on a 0.45 rule */
    assert_string_equal(fp_priority_label(3.0, 0.5), "MED");    /* payoff 1.5 */
    assert_string_equal(fp_priority_label(2.9, 0.5), "LOW");
    assert_string_equal(fp_priority_label(0.0, 0.9), "LOW");
}

/* The ISA classifiers the new rules read: narrow accesses, shuffles, the argument prologue. */
static void test_isa_classifiers(void **state)
{
    (void)state;
    assert_true(fp_signals_is_narrow_global("buffer_load_ushort v1, v2, s[0:3], 0 offen"));
    assert_true(fp_signals_is_narrow_global("buffer_store_short v1, v2, s[0:3], 0 offen"));
    assert_true(fp_signals_is_narrow_global("global_load_ushort v1, v[2:3], off"));
    assert_true(fp_signals_is_narrow_global("buffer_load_short_d16_hi v1, v2, s[0:3], 0 offen"));
    assert_true(fp_signals_is_narrow_global("global_store_byte v[2:3], v1, off"));
    assert_false(fp_signals_is_narrow_global("buffer_load_dwordx4 v[0:3], v2, s[0:3], 0 offen"));
    assert_false(fp_signals_is_narrow_global("buffer_store_shortx"));
    assert_false(fp_signals_is_narrow_global("ds_read_u16 v1, v2"));
    assert_true(fp_signals_is_crosslane("ds_bpermute_b32 v1, v2, v3"));
    assert_true(fp_signals_is_crosslane("ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)"));
    assert_false(fp_signals_is_crosslane("ds_read_b128 v[0:3], v4"));
    assert_int_equal(fp_prod_group_of("ds_bpermute_b32 v1, v2, v3", NULL), FP_PROD_XLANE);
    assert_int_equal(fp_prod_group_of("ds_read_b128 v[0:3], v4", NULL), FP_PROD_LDS);
    fp_signals s;
    fp_signals_init(&s);
    assert_false(fp_signals_is_entry_smem(&s, 1)); /* no listing: nothing is the prologue */
    s.smem_entry_end = 6;
    assert_true(fp_signals_is_entry_smem(&s, 1));
    assert_true(fp_signals_is_entry_smem(&s, 5));
    assert_false(fp_signals_is_entry_smem(&s, 6));
    assert_false(fp_signals_is_entry_smem(&s, 239));
    fp_signals_free(&s);
}

/* At the roof below the ceiling: the two HBM levers and latency hiding capped by the distance
 * to the ceiling; AT the ceiling (< 2 % left): no latency-hiding rule. Not representative: the
 * gain is null on the document, the priority LOW. */
static void test_roof_and_null_gain(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    s.pct_hbm_roof = some(70.0);
    s.bound_res.at_roof = true;
    s.bound_res.roof_pct = 70.0;
    s.bound_res.roof_source = "counters";
    s.bound_res.ceiling_pct = 84.0;
    fp_sig_class *vm = (fp_sig_class *)fp_signals_class(&s, "vmcnt");
    vm->has_producers = false;
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    assert_false(fp_rules_at_ceiling(&s));
    /* the same bytes faster: 1 - 70/84 = 16.67 %, ranked */
    const fp_rec *hc = find(r, n, "hbm_ceiling");
    assert_non_null(hc);
    assert_true(hc->gain_pct == 16.67 && !hc->noted && hc->rank > 0);
    /* fewer bytes: a rate (10 % per 10 % of the bytes), not capped by the floor, never ranked */
    const fp_rec *hb = find(r, n, "hbm_roof_bytes");
    assert_non_null(hb);
    assert_true(hb->gain_pct == FP_RULES_BYTES_STEP_PCT && hb->noted && hb->rank == 0 && !hb->capped);
    /* latency hiding fires below the ceiling, its 30 % class gain capped at 16.67 % */
    const fp_rec *vp = find(r, n, "vmem_prefetch");
    assert_non_null(vp);
    assert_true(vp->gain_pct == 16.67 && vp->capped);
    for (size_t i = 0; i < n; i++)
        assert_true(r[i].gain_pct <= 16.67 || r[i].rule->gain == FP_GAIN_BYTES);
    fp_report_rec doc;
    fp_rec_to_doc(&s, vp, &doc);
    assert_non_null(strstr(doc.gain_model, "capped at 16.67% = the distance to the practical ceiling"));
    fp_model_free(&fp_report_rec_schema, &doc);
    fp_rec_to_doc(&s, hc, &doc); /* half the distance to the ceiling: 70 + 14 / 2 */
    assert_string_equal(doc.acceptance.kind, "signal_above");
    assert_true(doc.acceptance.target == 77.0);
    fp_model_free(&fp_report_rec_schema, &doc);
    s.representative = false;
    fp_rec_to_doc(&s, &r[0], &doc);
    assert_false(doc.est_gain_pct.known);
    assert_string_equal(doc.priority_label, "LOW");
    assert_non_null(doc.gain_model);
    fp_model_free(&fp_report_rec_schema, &doc);
    free(r);
    /* at the ceiling (82.5 % of 84: 1.79 % left, inside the noise floor): no latency hiding */
    s.representative = true;
    s.pct_hbm_roof = some(82.5);
    s.bound_res.roof_pct = 82.5;
    fp_rules_eval(&s, &r, &n);
    assert_true(fp_rules_at_ceiling(&s));
    assert_null(find(r, n, "vmem_prefetch"));
    assert_null(find(r, n, "load_use_distance"));
    assert_true(find(r, n, "hbm_ceiling")->noted);
    free(r);
    fp_signals_free(&s);
}

/* The gain functions, against independent arithmetic (the corpus's below-roof cases). */
static void test_ceiling_gains(void **state)
{
    (void)state;
    /* moe_gemm-big 65.46 %, moe_reduce-big 68.2 %, quant-big 73.41 % of peak on gfx950 (84 %) */
    assert_true(fabs(fp_gain_ceiling(65.46, 84.0) - 100.0 * (84.0 - 65.46) / 84.0) < 1e-9);
    assert_true(fabs(fp_gain_ceiling(68.2, 84.0) - 18.8095) < 1e-3);
    assert_true(fabs(fp_gain_ceiling(73.41, 84.0) - 12.6071) < 1e-3);
    assert_true(fp_gain_ceiling(87.95, 84.0) == 0.0); /* above the ceiling: nothing left */
    assert_true(fp_gain_ceiling(50.0, 0.0) == 50.0);  /* no ceiling row: the theoretical peak */
    assert_true(fp_gain_capped(49.81, 22.07) == 22.07);
    assert_true(fp_gain_capped(12.98, 22.07) == 12.98);
    assert_true(fp_gain_capped(5.0, -1.0) == 0.0);
}

/* work_imbalance's gain: the critical CU's excess over the mean x the span ratio, <= the HBM
 * floor (independent arithmetic: flash_attn_func-big 141283 / 176872, span 85.27 / 92.04 us) */
static void test_imbalance_gain(void **state)
{
    (void)state;
    double excess = 100.0 * (1 - 141283.0 / 176872.0), span = 85.27 / 92.04;
    assert_true(fabs(fp_gain_imbalance(excess, span, 100.0) - excess * span) < 1e-9);
    assert_true(fabs(excess * span - 18.64) < 0.01);
    assert_true(fp_gain_imbalance(80.0, 1.0, 61.4) == 61.4); /* the floor is a share of kernel time: after the span */
    assert_true(fp_gain_imbalance(80.0, 0.5, 61.4) == 40.0);
    assert_true(fp_gain_imbalance(-3.0, 1.0, 100.0) == 0.0);
    /* through the engine: fires above 10 %, gain from the CU busy figures */
    fp_signals s;
    base(&s);
    fp_workdist wd;
    memset(&wd, 0, sizeof wd);
    wd.cu_busy_excess_pct = some(20.0);
    wd.cu_busy_cycles.max = 1000;
    wd.cu_busy_mean = some(800);
    s.workdist = &wd;
    s.span_ratio = some(0.5);
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *wi = find(r, n, "work_imbalance");
    assert_non_null(wi);
    assert_true(wi->gain_pct == 10.0);
    free(r);
    wd.cu_busy_excess_pct = some(9.0); /* located kernels: 0.2 - 4.4 % */
    fp_rules_eval(&s, &r, &n);
    assert_null(find(r, n, "work_imbalance"));
    free(r);
    s.workdist = NULL;
    fp_signals_free(&s);
}

/* The ranking follows the gain: a stall gain larger than grid_fill's ranks first (no rule is
 * pinned), and every gain stays under the HBM floor, at the roof or not. */
static void test_rank_follows_gain(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    s.bound = "latency";
    s.bound_in.simd_fill_pct = fp_some(80.0); /* grid_fill: 20 % idle SIMDs, no fixed overhead */
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    assert_string_equal(r[0].rule->id, "vmem_prefetch"); /* 30 % */
    const fp_rec *gf = find(r, n, "grid_fill");
    assert_non_null(gf);
    assert_true(gf->gain_pct == 20.0 && gf->rank > r[0].rank);
    free(r);
    /* HBM at 42 % of peak, 84 % ceiling, not at the roof: every gain <= 1 - 42/84 = 50 % */
    fp_sig_class *vm = (fp_sig_class *)fp_signals_class(&s, "vmcnt");
    vm->gain_pct = some(70.0);
    s.pct_hbm_roof = some(42.0);
    s.bound_res.ceiling_pct = 84.0;
    fp_rules_eval(&s, &r, &n);
    assert_true(find(r, n, "vmem_prefetch")->gain_pct == 50.0);
    free(r);
    fp_signals_free(&s);
}

/* Below diff's 2 % noise floor a fired rule is "also seen": rank 0, after every ranked one; at
 * the practical ceiling that includes hbm_roof_bytes itself. */
static void test_noted_below_floor(void **state)
{
    (void)state;
    assert_true(FP_RULES_MIN_GAIN_PCT == FP_DIFF_NOISE_TIME_PCT);
    fp_signals s;
    base(&s);
    add_class(&s, "barrier", 3000, 6.0, 1.5); /* barrier_relax fires (6 % > 5 %) with 1.5 % */
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *br = find(r, n, "barrier_relax");
    assert_non_null(br);
    assert_true(br->noted && br->rank == 0 && br == &r[n - 1]);
    assert_false(r[0].noted);
    assert_int_equal(r[0].rank, 1);
    free(r);
    /* at the roof, 83.5 % of peak against the 84 % ceiling: 0.6 % left, nothing ranked (the
     * fewer-bytes rate is never ranked; the same-bytes lever has 0.6 % left) */
    s.pct_hbm_roof = some(83.5);
    s.bound_res.at_roof = true;
    s.bound_res.roof_pct = 83.5;
    s.bound_res.roof_source = "trace";
    s.bound_res.ceiling_pct = 84.0;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *hb = find(r, n, "hbm_ceiling");
    assert_non_null(hb);
    assert_true(hb->noted && hb->gain_pct == 0.6);
    assert_true(find(r, n, "hbm_roof_bytes")->noted);
    for (size_t i = 0; i < n; i++)
        assert_true(r[i].noted && r[i].rank == 0);
    free(r);
    fp_signals_free(&s);
}

/* Evidence on an entry line is weak: x 0.6 when the debug-info gate fired, x 0.8 otherwise
 * (0.9 -> 0.72: never high); its acceptance is the class test, never the entry line. */
static void test_weak_line(void **state)
{
    (void)state;
    fp_signals s;
    base(&s);
    fp_sig_class *vm = (fp_sig_class *)fp_signals_class(&s, "vmcnt");
    vm->hot.present = true;
    vm->hot.entry_line = true;
    vm->hot.source = strdup("/k/kernel.py:10");
    vm->hot.isa = strdup("s_waitcnt vmcnt(0)");
    fp_rec *r;
    size_t n;
    fp_rules_eval(&s, &r, &n);
    const fp_rec *vp = find(r, n, "vmem_prefetch");
    assert_true(vp->confidence == 0.72);
    assert_string_equal(fp_conf_label(vp->confidence), "medium");
    fp_report_rec rec;
    fp_rec_to_doc(&s, vp, &rec);
    assert_string_equal(rec.acceptance.kind, "class_exposed_drop");
    fp_model_free(&fp_report_rec_schema, &rec);
    free(r);
    s.dbg.fired = true;
    fp_rules_eval(&s, &r, &n);
    assert_true(find(r, n, "vmem_prefetch")->confidence == 0.54);
    free(r);
    fp_signals_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fires_and_gate),       cmocka_unit_test(test_unmeasured_pass_and_fail),
        cmocka_unit_test(test_fallback_lowers_confidence), cmocka_unit_test(test_rank_ties_stable),
        cmocka_unit_test(test_quality_and_occupancy), cmocka_unit_test(test_evidence_and_acceptance),
        cmocka_unit_test(test_table),        cmocka_unit_test(test_prefetch_narrowed_to_global_loads),
        cmocka_unit_test(test_priority_label), cmocka_unit_test(test_isa_classifiers),
        cmocka_unit_test(test_roof_and_null_gain), cmocka_unit_test(test_ceiling_gains), cmocka_unit_test(test_imbalance_gain),
        cmocka_unit_test(test_rank_follows_gain), cmocka_unit_test(test_noted_below_floor),
        cmocka_unit_test(test_weak_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
