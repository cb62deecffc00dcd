/*
 * test_report.c - the signal adapters (bubbles.json as fp_bubbles_doc, counters.json,
 * capture.json: values read, wrong types refused as BAD_INPUT) and
 * report.json -> REPORT.md / headlines rendering.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/counters_doc.h"
#include "flyprof/report.h"
#include "flyprof/signals.h"

/* bubbles.json as a struct (the fields the signals read): vmcnt hottest wait on a
 * global load (load-to-use 1000 cycles, 10 executions, 6000 stall -> 600 per
 * execution -> 0.6 exposed), lgkmcnt: the hottest wait is on a scalar load, the
 * next one on an LDS read. */
#define S fp_model_strdup

static fp_bub_doc_hotspot *hot(fp_bubbles_doc *d, int64_t line, const char *inst, const char *cls, const char *src,
                               int64_t hit, int64_t stall, double gain)
{
    fp_bub_doc_hotspot *h = fp_model_push((void **)&d->hotspots, &d->n_hotspots, sizeof *h);
    h->code_line = line;
    h->inst = S(inst);
    h->cls = S(cls);
    h->source = S(src);
    h->hit = hit;
    h->stall = stall;
    h->exposed = stall == 6000 ? 5000 : stall;
    h->gain_upper_pct = gain;
    return h;
}

static fp_bub_doc_wait *waits_on(fp_bub_doc_hotspot *h, int64_t line, const char *inst, const char *src)
{
    fp_bub_doc_wait *w = fp_model_push((void **)&h->waits_on, &h->n_waits_on, sizeof *w);
    w->code_line = line;
    w->inst = S(inst);
    w->source = S(src);
    return w;
}

static void bub_doc(fp_bubbles_doc *d)
{
    memset(d, 0, sizeof *d);
    d->schema = 1;
    d->dispatch.name = S("d");
    d->dispatch.symbol = S("k_0");
    d->totals = (fp_bub_doc_totals){.instructions = 9, .latency = 20000, .stall = 10000, .stall_pct = 50, .waves = 2};
    fp_bub_doc_class *c = fp_model_push((void **)&d->classes, &d->n_classes, sizeof *c);
    *c = (fp_bub_doc_class){.cls = S("vmcnt"), .cycles = 6000, .pct = 60, .is_bubble = true, .exposed = 5000,
                            .gain_upper_pct = 25};
    c = fp_model_push((void **)&d->classes, &d->n_classes, sizeof *c);
    *c = (fp_bub_doc_class){.cls = S("lgkmcnt"), .cycles = 4000, .pct = 40, .is_bubble = true, .exposed = 4000,
                            .gain_upper_pct = 20};
    fp_bub_doc_mix *m = fp_model_push((void **)&d->inst_mix.dyn, &d->inst_mix.n_dyn, sizeof *m);
    *m = (fp_bub_doc_mix){S("valu"), 50, 0.5};
    m = fp_model_push((void **)&d->inst_mix.dyn, &d->inst_mix.n_dyn, sizeof *m);
    *m = (fp_bub_doc_mix){S("vmem_load"), 25, 0.25};
    fp_bub_doc_hotspot *h = hot(d, 5, "s_waitcnt vmcnt(0)", "vmcnt", "/k.py:7", 10, 6000, 25);
    fp_bub_doc_wait *w = waits_on(h, 4, "global_load_dword v0, v1, s[0:1]", "/k.py:6");
    w->load_to_use_cycles = (fp_bub_doc_cycles){1000, 900, 1100};
    w->stall_share = 1;
    h = hot(d, 2, "s_waitcnt lgkmcnt(0)", "lgkmcnt", "/k.py:3", 2, 3000, 15);
    waits_on(h, 1, "s_load_dword s4, s[0:1], 0x0", "/k.py:3");
    h = hot(d, 9, "s_waitcnt lgkmcnt(0)", "lgkmcnt", "/k.py:9", 2, 1000, 5);
    waits_on(h, 8, "ds_read_b128 v[0:3], v4", "/k.py:8");
    d->quality.confidence = S("medium");
    fp_model_push_str(&d->quality.reasons, &d->quality.n_reasons, "2 wave files skipped");
}

static void test_bubbles_adapter(void **state)
{
    (void)state;
    fp_bubbles_doc b;
    bub_doc(&b);
    fp_signals s;
    fp_signals_init(&s);
    fp_err err;
    memset(&err, 0, sizeof err);
    assert_int_equal(fp_signals_from_bubbles(&s, &b, &err), 0);
    assert_string_equal(s.kernel, "k_0");
    assert_int_equal(s.total_latency, 20000);
    const fp_sig_class *vm = fp_signals_class(&s, "vmcnt");
    assert_non_null(vm);
    assert_true(vm->gain_pct.known && vm->gain_pct.v == 25);
    assert_true(vm->hot.present);
    assert_int_equal(vm->hot.code_line, 5);
    assert_int_equal(vm->hot.line_class_stall, 6000);
    assert_true(vm->hot.producers[0].load_to_use.v == 1000);
    assert_string_equal(vm->hot.producers[0].cls, "vmem_load");
    assert_true(s.load_use_exposed.known && s.load_use_exposed.v == 0.6);
    /* the mix is complete and has no scratch: 0 measured */
    assert_true(s.scratch_insts.known && s.scratch_insts.v == 0);
    assert_true(fp_signals_class(&s, "vmem_load")->mix.v == 0.25);
    /* lgkmcnt: hottest overall waits on s_load; the LDS-narrowed one is line 9 */
    const fp_sig_class *lg = fp_signals_class(&s, "lgkmcnt");
    assert_int_equal(lg->hot.code_line, 2);
    assert_true(lg->hot_prod[FP_PROD_LDS].present);
    assert_int_equal(lg->hot_prod[FP_PROD_LDS].code_line, 9);
    assert_true(lg->gain_prod_pct[FP_PROD_LDS].v == 5);
    assert_true(s.capture_confidence == 0.8);
    assert_int_equal(s.nquality_issues, 1);
    /* classes in rank order */
    assert_string_equal(s.classes[0].name, "vmcnt");
    fp_signals_free(&s);
    fp_bubbles_doc_free(&b);
}

/* A bubbles.json text through the strict reader, then the signals. */
static int try_bubbles(const char *text, fp_err *err)
{
    cJSON *j = cJSON_Parse(text);
    fp_bubbles_doc b;
    fp_signals s;
    fp_signals_init(&s);
    memset(err, 0, sizeof *err);
    int rc = fp_model_read(&fp_bubbles_schema, j, &b, "bubbles.json", err);
    if (rc == 0) {
        rc = fp_signals_from_bubbles(&s, &b, err);
        fp_bubbles_doc_free(&b);
    }
    fp_signals_free(&s);
    cJSON_Delete(j);
    return rc;
}

static void test_wrong_types(void **state)
{
    (void)state;
    fp_err err;
    assert_int_equal(try_bubbles("[]", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_int_equal(try_bubbles("{\"classes\":[]}", &err), -1); /* no totals */
    {
        /* a complete document whose totals.latency is a string */
        fp_bubbles_doc z;
        memset(&z, 0, sizeof z);
        cJSON *j = fp_model_write(&fp_bubbles_schema, &z);
        cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "totals"), "latency",
                                               cJSON_CreateString("big"));
        char *t = cJSON_PrintUnformatted(j);
        assert_int_equal(try_bubbles(t, &err), -1);
        assert_non_null(strstr(err.message, "latency"));
        assert_string_equal(err.message, "bubbles.json: $.totals.latency: expected an integer, got a string");
        free(t);
        cJSON_Delete(j);
    }
    assert_int_equal(try_bubbles("{\"totals\":{},\"classes\":[{\"cycles\":3}]}", &err), -1);
    assert_int_equal(try_bubbles("{\"totals\":{},\"classes\":[],\"hotspots\":{}}", &err), -1);
    /* partial documents are refused by the strict reader (key path named) ... */
    assert_int_equal(try_bubbles("{\"totals\":{},\"classes\":[]}", &err), -1);
    assert_string_equal(err.message, "bubbles.json: $.schema: missing");
    /* ... a complete one with empty lists is evidence of nothing, and fine */
    {
        fp_bubbles_doc z;
        memset(&z, 0, sizeof z);
        cJSON *j = fp_model_write(&fp_bubbles_schema, &z);
        char *t = cJSON_PrintUnformatted(j);
        assert_int_equal(try_bubbles(t, &err), 0);
        free(t);
        cJSON_Delete(j);
        /* a null class name is refused by the signals */
        fp_signals s;
        fp_signals_init(&s);
        fp_bub_doc_class *c = fp_model_push((void **)&z.classes, &z.n_classes, sizeof *c);
        (void)c;
        assert_int_equal(fp_signals_from_bubbles(&s, &z, &err), -1);
        assert_int_equal(err.code, FP_BAD_INPUT);
        fp_signals_free(&s);
        fp_bubbles_doc_free(&z);
    }

    fp_signals s;
    fp_signals_init(&s);
    cJSON *c = cJSON_Parse("{\"metrics\":{\"l2_hit_pct\":{\"value\":\"x\"}}}");
    memset(&err, 0, sizeof err);
    fp_counters_doc cnt;
    assert_int_equal(fp_model_read(&fp_counters_doc_schema, c, &cnt, "counters.json", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, "counters.json: $.metrics.l2_hit_pct.value: expected a number, got a string");
    cJSON_Delete(c);
    c = cJSON_Parse("{\"kernel\":\"k\",\"invocation\":42}");
    fp_capture_doc cd;
    assert_int_equal(fp_model_read(&fp_capture_schema, c, &cd, "capture.json", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, "capture.json: $.invocation: expected a string or null, got a number");
    cJSON_Delete(c);
    fp_signals_free(&s);
}

static void test_counters_and_capture(void **state)
{
    (void)state;
    fp_signals s;
    fp_signals_init(&s);
    fp_err err;
    memset(&err, 0, sizeof err);
    cJSON *c = cJSON_Parse("{\"duration_ns\":5000,\"metrics\":{\"l2_hit_pct\":{\"value\":42.5},"
                           "\"partial_32b_pct\":{\"value\":20},\"mfma_util_pct\":{\"value\":60},"
                           "\"hbm_pct_of_peak\":{\"value\":33}}}");
    fp_counters_doc cnt;
    assert_int_equal(fp_model_read(&fp_counters_doc_schema, c, &cnt, "counters.json", &err), 0);
    assert_int_equal(fp_signals_from_counters(&s, &cnt, &err), 0);
    fp_counters_doc_free(&cnt);
    assert_true(s.l2_hit.v == 42.5 && s.partial_32b.v == 0.2 && s.mfma_frac.v == 0.6);
    assert_true(s.pct_hbm_roof.v == 33 && s.time_ns.v == 5000);
    assert_true(s.bound_in.hbm_pct_of_peak.have && s.bound_in.hbm_pct_of_peak.v == 33);
    cJSON_Delete(c);
    c = cJSON_Parse("{\"kernel\":\"k_0\",\"requested_kernel\":\"k\",\"shape\":\"1,2\","
                    "\"invocation\":\"python t.py\",\"gpu\":{\"product\":\"AMD Instinct MI300X\"},"
                    "\"tags\":{\"big\":{\"registers\":{\"total_vgpr\":128},\"truncated\":true}}}");
    fp_capture_doc cd2;
    assert_int_equal(fp_model_read(&fp_capture_schema, c, &cd2, "capture.json", &err), 0);
    assert_int_equal(fp_signals_from_capture(&s, &cd2, "big", &err), 0);
    fp_capture_free(&cd2);
    assert_string_equal(s.recipe_kernel, "k");
    assert_string_equal(s.invocation, "python t.py");
    assert_string_equal(s.product, "AMD Instinct MI300X");
    assert_true(s.arch_vgpr.v == 128);
    assert_true(s.capture_confidence == 0.8);
    cJSON_Delete(c);
    fp_signals_free(&s);
}

static void test_render(void **state)
{
    (void)state;
    fp_bubbles_doc bd;
    bub_doc(&bd);
    fp_signals s;
    fp_signals_init(&s);
    fp_err err;
    memset(&err, 0, sizeof err);
    assert_int_equal(fp_signals_from_bubbles(&s, &bd, &err), 0);
    s.arch = strdup("gfx942");
    s.product = strdup("AMD Instinct MI300X");
    fp_signals_derive(&s);
    fp_report_in in;
    memset(&in, 0, sizeof in);
    in.sig = &s;
    in.bubbles = &bd;
    in.dispatch_name = "d";
    fp_report_doc rd;
    fp_report_build(&in, &rd);
    const fp_report_doc *r = &rd;
    /* vmcnt-dominated stall with no unit near its limit: latency (the stall mix explains, issue 17) */
    assert_string_equal(r->bound_type, "latency");
    assert_true(fp_report_nrecs(r) >= 1);
    /* every recommendation states its gain model and a priority no higher than its confidence allows */
    for (int i = 0; i < fp_report_nrecs(r); i++) {
        assert_non_null(r->recs[i].gain_model);
        assert_non_null(r->recs[i].priority_label);
        if (r->recs[i].confidence < 0.75)
            assert_string_not_equal(r->recs[i].priority_label, "HIGH");
    }
    fp_sb md;
    fp_sb_init(&md);
    fp_report_markdown(r, &md);
    /* the architecture and product come from the data, never a hard-coded MI350X */
    assert_non_null(strstr(md.buf, "# k_0 - gfx942 / AMD Instinct MI300X profiling report"));
    assert_null(strstr(md.buf, "MI350X"));
    static const char *const sections[] = {"## 1. Headline", "## 2. Workload & Tile", "## 3. Roofline & Occupancy",
                                           "## 4. Bubble / Stall Taxonomy", "## 5. ISA <-> Python Evidence",
                                           "## 6. Ranked Optimization Opportunities", "## 7. Verification Plan",
                                           "## 8. Counters", "## 9. Evidence & Capture Quality", "## 10. Repro"};
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
        assert_non_null(strstr(md.buf, sections[i]));
    fp_headlines_doc hl;
    fp_report_headlines(r, &hl);
    assert_string_equal(hl.headline, r->headline);
    fp_sb html;
    fp_sb_init(&html);
    fp_report_html(r, NULL, NULL, &html);
    assert_null(strstr(html.buf, "<script"));
    fp_sb_free(&html);
    fp_sb_free(&md);
    fp_headlines_doc_free(&hl);
    fp_report_doc_free(&rd);
    fp_signals_free(&s);
    fp_bubbles_doc_free(&bd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bubbles_adapter),
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_counters_and_capture),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
