/*
 * test_report.c - the signal adapters (bubbles.json, counters.json,
 * capture.json: values read, wrong types refused as BAD_INPUT) and
 * report.json -> REPORT.md / headlines rendering.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "flyprof/json.h"
#include "flyprof/counters_doc.h"
#include "flyprof/report.h"
#include "flyprof/signals.h"

/* bubbles.json (schema 1 subset): vmcnt hottest wait on a global load (load-to-use
 * 1000 cycles, 10 executions, 6000 stall -> 600 per execution -> 0.6 exposed),
 * lgkmcnt: the hottest wait is on a scalar load, the next one on an LDS read. */
static const char *BUB =
    "{\"dispatch\":{\"name\":\"d\",\"symbol\":\"k_0\"},"
    "\"totals\":{\"instructions\":9,\"latency\":20000,\"stall\":10000,\"stall_pct\":50,\"waves\":2},"
    "\"classes\":[{\"class\":\"vmcnt\",\"cycles\":6000,\"pct\":60,\"is_bubble\":true,\"exposed\":5000,\"gain_upper_pct\":25},"
    "{\"class\":\"lgkmcnt\",\"cycles\":4000,\"pct\":40,\"is_bubble\":true,\"exposed\":4000,\"gain_upper_pct\":20}],"
    "\"inst_mix\":{\"dynamic\":[{\"class\":\"valu\",\"hit\":50,\"frac\":0.5},{\"class\":\"vmem_load\",\"hit\":25,\"frac\":0.25}]},"
    "\"hotspots\":["
    "{\"code_line\":5,\"inst\":\"s_waitcnt vmcnt(0)\",\"class\":\"vmcnt\",\"source\":\"/k.py:7\",\"hit\":10,\"stall\":6000,"
    "\"exposed\":5000,\"gain_upper_pct\":25,\"waits_on\":[{\"code_line\":4,\"inst\":\"global_load_dword v0, v1, s[0:1]\","
    "\"source\":\"/k.py:6\",\"load_to_use_cycles\":{\"mean\":1000,\"min\":900,\"max\":1100},\"stall_share\":1}]},"
    "{\"code_line\":2,\"inst\":\"s_waitcnt lgkmcnt(0)\",\"class\":\"lgkmcnt\",\"source\":\"/k.py:3\",\"hit\":2,\"stall\":3000,"
    "\"exposed\":3000,\"gain_upper_pct\":15,\"waits_on\":[{\"code_line\":1,\"inst\":\"s_load_dword s4, s[0:1], 0x0\",\"source\":\"/k.py:3\"}]},"
    "{\"code_line\":9,\"inst\":\"s_waitcnt lgkmcnt(0)\",\"class\":\"lgkmcnt\",\"source\":\"/k.py:9\",\"hit\":2,\"stall\":1000,"
    "\"exposed\":1000,\"gain_upper_pct\":5,\"waits_on\":[{\"code_line\":8,\"inst\":\"ds_read_b128 v[0:3], v4\",\"source\":\"/k.py:8\"}]}],"
    "\"quality\":{\"confidence\":\"medium\",\"reasons\":[\"2 wave files skipped\"]}}";

static void test_bubbles_adapter(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse(BUB);
    fp_signals s;
    fp_signals_init(&s);
    fp_err err;
    memset(&err, 0, sizeof err);
    assert_int_equal(fp_signals_from_bubbles(&s, b, &err), 0);
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
    assert_int_equal(cJSON_GetArraySize(s.quality_issues), 1);
    /* classes in rank order */
    assert_string_equal(s.classes[0].name, "vmcnt");
    fp_signals_free(&s);
    cJSON_Delete(b);
}

static int try_bubbles(const char *text, fp_err *err)
{
    cJSON *b = cJSON_Parse(text);
    fp_signals s;
    fp_signals_init(&s);
    memset(err, 0, sizeof *err);
    int rc = fp_signals_from_bubbles(&s, b, err);
    fp_signals_free(&s);
    cJSON_Delete(b);
    return rc;
}

static void test_wrong_types(void **state)
{
    (void)state;
    fp_err err;
    assert_int_equal(try_bubbles("[]", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_int_equal(try_bubbles("{\"classes\":[]}", &err), -1); /* no totals */
    assert_int_equal(try_bubbles("{\"totals\":{\"latency\":\"big\"},\"classes\":[]}", &err), -1);
    assert_non_null(strstr(err.message, "latency"));
    assert_int_equal(try_bubbles("{\"totals\":{},\"classes\":[{\"cycles\":3}]}", &err), -1);
    assert_int_equal(try_bubbles("{\"totals\":{},\"classes\":[],\"hotspots\":{}}", &err), -1);
    assert_int_equal(try_bubbles("{\"totals\":{},\"classes\":[]}", &err), 0);

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
    cJSON *b = cJSON_Parse(BUB);
    fp_signals s;
    fp_signals_init(&s);
    fp_err err;
    memset(&err, 0, sizeof err);
    assert_int_equal(fp_signals_from_bubbles(&s, b, &err), 0);
    s.arch = strdup("gfx942");
    s.product = strdup("AMD Instinct MI300X");
    fp_signals_derive(&s);
    fp_report_in in;
    memset(&in, 0, sizeof in);
    in.sig = &s;
    in.bubbles = b;
    in.dispatch_name = "d";
    cJSON *r = fp_report_build(&in);
    assert_string_equal(fp_json_get_str(r, "bound_type"), "memory");
    assert_true(fp_report_nrecs(r) >= 1);
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
    cJSON *hl = fp_report_headlines(r);
    assert_string_equal(fp_json_get_str(hl, "headline"), fp_json_get_str(r, "headline"));
    fp_sb html;
    fp_sb_init(&html);
    fp_report_html(r, "<svg><script>alert(1)</script></svg>", &html);
    assert_null(strstr(html.buf, "<script"));
    fp_sb_free(&html);
    fp_sb_free(&md);
    cJSON_Delete(hl);
    cJSON_Delete(r);
    fp_signals_free(&s);
    cJSON_Delete(b);
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
