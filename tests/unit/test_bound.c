/*
 * test_bound.c - the shared bound classification: every rule of the table with
 * hand-made inputs, rule order, the roof check, and "never unknown with a trace".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "flyprof/bound.h"

static fp_bound_result run(const fp_bound_in *in)
{
    fp_bound_result r;
    fp_bound_classify(in, &r);
    return r;
}

static void test_no_input_is_unknown(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_UNKNOWN);
    assert_string_equal(r.rule, "none");
    assert_string_equal(fp_bound_name(r.bound), "unknown");
    assert_false(r.optimal);
}

/* The seed's worked example: 54 % of peak, over-fetch 1.04x, 0 % 32B, L2 1.7 %,
 * with the ATT trace dominated by VMEM waits -> memory, clean stream, optimal. */
static void test_seed_worked_example(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.vmem_stall_share = fp_some(47.0);
    in.stall_pct = fp_some(80.0);
    in.hbm_pct_of_peak = fp_some(53.8);
    in.over_fetch = fp_some(1.04);
    in.partial_32b_pct = fp_some(0.0);
    in.l2_hit_pct = fp_some(1.7);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.rule, "trace_vmem");
    assert_string_equal(r.basis, "trace");
    assert_true(r.optimal);
    assert_string_equal(r.optimal_rule, "clean_stream");
    assert_non_null(strstr(r.optimal_evidence, "1.04x"));
}

static void test_hbm_saturated_first(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.hbm_pct_of_peak = fp_some(88.0);
    in.mfma_inst_pct = fp_some(60.0); /* would be compute by the trace, counters win */
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.rule, "hbm_saturated");
    assert_string_equal(r.confidence, "high");
    assert_true(r.optimal);
    assert_string_equal(r.optimal_rule, "near_roof");
    assert_non_null(strstr(r.evidence, "88.0%"));
}

static void test_boundaries(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.hbm_pct_of_peak = fp_some(59.99); /* just below saturation: hbm_busy */
    fp_bound_result r = run(&in);
    assert_string_equal(r.rule, "hbm_busy");
    assert_false(r.optimal); /* no over-fetch info, below 85 % */
    in.hbm_pct_of_peak = fp_some(39.9);
    r = run(&in);
    assert_string_equal(r.rule, "counters_default");
    assert_int_equal(r.bound, FP_BOUND_LATENCY);
    /* trace share exactly at the threshold does not fire (strict >) */
    fp_bound_in_init(&in);
    in.vmem_stall_share = fp_some(35.0);
    r = run(&in);
    assert_string_equal(r.rule, "trace_default");
}

static void test_compute_rules(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.mfma_util_pct = fp_some(72.5);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_COMPUTE);
    assert_string_equal(r.rule, "mfma_saturated");
    assert_false(r.optimal); /* roof check is for memory only */

    fp_bound_in_init(&in);
    in.valu_util_pct = fp_some(85.0);
    assert_string_equal(run(&in).rule, "valu_saturated");

    fp_bound_in_init(&in);
    in.mfma_stall_share = fp_some(30.0);
    in.vmem_stall_share = fp_some(50.0); /* MFMA rule comes first */
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_COMPUTE);
    assert_string_equal(r.rule, "trace_mfma");
    assert_string_equal(r.basis, "trace");
}

/* VMEM waits + low measured bandwidth: latency, not memory. */
static void test_vmem_starved(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.vmem_stall_share = fp_some(55.0);
    in.hbm_pct_of_peak = fp_some(12.0);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_LATENCY);
    assert_string_equal(r.rule, "vmem_starved");
    /* same trace with 45 % of peak: memory from the trace */
    in.hbm_pct_of_peak = fp_some(45.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.rule, "trace_vmem");
    assert_false(r.optimal);
}

static void test_lds_and_trace_default(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.lds_stall_share = fp_some(41.0);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.rule, "trace_lds");
    fp_bound_in_init(&in);
    in.stall_pct = fp_some(20.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_LATENCY); /* never unknown with a trace */
    assert_string_equal(r.rule, "trace_default");
    assert_non_null(strstr(r.evidence, "20.0%"));
}

static void test_shape_only(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.ai = fp_some(32.0);
    in.ridge_ai = fp_some(288.36);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.basis, "shape");
    in.ai = fp_some(300.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_COMPUTE);
}

static void test_clean_stream_limits(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.hbm_pct_of_peak = fp_some(55.0);
    in.vmem_stall_share = fp_some(60.0);
    in.over_fetch = fp_some(1.5); /* over-fetching: not optimal */
    in.partial_32b_pct = fp_some(0.0);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_false(r.optimal);
    assert_null(r.optimal_rule);
    in.over_fetch = fp_some(1.0);
    in.partial_32b_pct = fp_some(20.0); /* scattered 32B requests: not optimal */
    assert_false(run(&in).optimal);
    in.partial_32b_pct = fp_some(2.0);
    assert_true(run(&in).optimal);
}

static void test_json(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.hbm_pct_of_peak = fp_some(90.0);
    fp_bound_result r = run(&in);
    cJSON *j = fp_bound_to_json(&r);
    assert_string_equal(cJSON_GetObjectItem(j, "bound")->valuestring, "memory");
    assert_string_equal(cJSON_GetObjectItem(j, "rule")->valuestring, "hbm_saturated");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "optimal")));
    assert_string_equal(cJSON_GetObjectItem(j, "optimal_rule")->valuestring, "near_roof");
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_input_is_unknown),
        cmocka_unit_test(test_seed_worked_example),
        cmocka_unit_test(test_hbm_saturated_first),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_compute_rules),
        cmocka_unit_test(test_vmem_starved),
        cmocka_unit_test(test_lds_and_trace_default),
        cmocka_unit_test(test_shape_only),
        cmocka_unit_test(test_clean_stream_limits),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
