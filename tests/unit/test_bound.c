/*
 * test_bound.c - the shared bound classification: every rule of the table with
 * hand-made inputs, rule order, the roof check, and "never unknown with a trace".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "flyprof/bound.h"
#include "flyprof/report_doc.h"

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
    /* 53.8 % of peak is >= 60 % of the default 80 % practical ceiling (48 %): memory from the counters */
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.rule, "hbm_saturated");
    assert_string_equal(r.basis, "counters");
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
    /* memory from 60 % of the practical ceiling: gfx950's 84 % -> 50.4 % of peak */
    in.hbm_ceiling_pct = fp_some(fp_bound_hbm_ceiling("gfx950")->pct);
    in.hbm_pct_of_peak = fp_some(50.4);
    fp_bound_result r = run(&in);
    assert_string_equal(r.rule, "hbm_saturated");
    assert_false(r.optimal); /* no over-fetch info, below 85 % */
    assert_true(r.ceiling_pct == 84.0);
    in.hbm_pct_of_peak = fp_some(50.39);
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

    /* compute from the trace needs a busy pipe, not an instruction share */
    fp_bound_in_init(&in);
    in.mfma_inst_pct = fp_some(60.0);
    in.mfma_busy_trace_pct = fp_some(9.0);
    in.vmem_stall_share = fp_some(55.0);
    r = run(&in);
    /* issue 17: the stall mix explains, it does not decide: no unit is busy -> latency */
    assert_int_equal(r.bound, FP_BOUND_LATENCY);
    assert_string_equal(r.rule, "vmem_starved_trace");

    fp_bound_in_init(&in);
    in.mfma_busy_trace_pct = fp_some(50.0);
    in.vmem_stall_share = fp_some(55.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_COMPUTE);
    assert_string_equal(r.rule, "mfma_busy");
    assert_string_equal(r.basis, "trace");

    fp_bound_in_init(&in);
    in.valu_busy_trace_pct = fp_some(79.9);
    in.stall_pct = fp_some(20.0);
    assert_string_equal(run(&in).rule, "trace_default");
    in.valu_busy_trace_pct = fp_some(80.0);
    assert_string_equal(run(&in).rule, "valu_busy");

    /* MFMA dependency stall without a busy pipe: a latency chain */
    fp_bound_in_init(&in);
    in.mfma_stall_share = fp_some(30.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_LATENCY);
    assert_string_equal(r.rule, "trace_mfma_dep");
}

/* Fewer workgroups than CUs: parallelism, and the rules gate on what bounds each CU. */
static void test_parallelism(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.underfilled = fp_some(1);
    in.workgroups = fp_some(80);
    in.cus = fp_some(256);
    in.fill_pct = fp_some(31.25);
    in.vmem_stall_share = fp_some(40.0);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_PARALLELISM);
    assert_string_equal(fp_bound_name(r.bound), "parallelism");
    assert_string_equal(r.rule, "launch_underfilled");
    assert_int_equal(r.within, FP_BOUND_LATENCY);
    assert_string_equal(r.within_rule, "vmem_starved_trace");
    assert_non_null(strstr(r.evidence, "80 workgroups on 256 CUs"));
    in.underfilled = fp_some(0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_LATENCY);
    assert_int_equal(r.within, FP_BOUND_LATENCY);
    /* the SIMDs decide: 256 one-wave workgroups on 256 CUs fill a quarter of the SIMDs */
    in.workgroups = fp_some(256);
    in.fill_pct = fp_some(100);
    in.simd_fill_pct = fp_some(25);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_PARALLELISM);
    assert_non_null(strstr(r.evidence, "only 25% of the SIMDs"));
    in.simd_fill_pct = fp_some(100);
    assert_int_equal(run(&in).bound, FP_BOUND_LATENCY);
    in.simd_fill_pct.have = false;
    /* a measured HBM saturation still comes first */
    in.underfilled = fp_some(1);
    in.hbm_pct_of_peak = fp_some(65);
    assert_string_equal(run(&in).rule, "hbm_saturated");
}

/* The trace HBM estimate: an upper bound, believed up to 110 % of peak. */
static void test_trace_hbm(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.vmem_stall_share = fp_some(80.0);
    in.hbm_trace_pct = fp_some(79.9);
    fp_bound_result r = run(&in);
    assert_string_equal(r.rule, "hbm_trace_saturated");
    assert_true(r.at_roof);
    assert_string_equal(r.roof_source, "trace");
    assert_true(r.roof_pct > 79.8 && r.roof_pct < 80.0);
    assert_false(r.optimal); /* "optimal" needs counters */
    /* above what HBM can deliver: cache traffic, no verdict from it */
    in.hbm_trace_pct = fp_some(150.0);
    r = run(&in);
    assert_string_equal(r.rule, "vmem_starved_trace");
    assert_false(r.at_roof);
    /* unique bytes replace the requested upper bound: shared operands hit L2 */
    in.hbm_trace_pct = fp_some(90.0);
    in.hbm_unique_pct = fp_some(30.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_LATENCY);
    assert_non_null(strstr(r.evidence, "unique bytes"));
    assert_false(r.at_roof);
    in.hbm_unique_pct.have = false;
    /* even the upper bound is low: latency */
    in.hbm_trace_pct = fp_some(12.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_LATENCY);
    assert_string_equal(r.rule, "vmem_starved_trace");
    /* counters replace the trace estimate for the roof */
    fp_bound_in_init(&in);
    in.vmem_stall_share = fp_some(80.0);
    in.hbm_trace_pct = fp_some(90.0);
    in.hbm_pct_of_peak = fp_some(45.0);
    r = run(&in);
    assert_false(r.at_roof);
}

/* docs/bound.md's rule table is this table: same ids, order, bound, basis, confidence. */
static void test_doc_matches_table(void **state)
{
    (void)state;
    FILE *f = fopen(FP_TEST_DATA "/../../docs/bound.md", "r");
    assert_non_null(f);
    char line[1024];
    size_t n, k = 0;
    const fp_bound_rule_info *t = fp_bound_rules(&n);
    bool in_rules = false;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "## Rules, in order", 18))
            in_rules = true;
        else if (!strncmp(line, "## ", 3))
            in_rules = false;
        if (!in_rules || line[0] != '|' || !strchr(line, '`'))
            continue;
        /* | # | `id` | bound | basis | confidence | condition | */
        char id[64], bound[32], basis[32], conf[32];
        int num;
        if (sscanf(line, "| %d | `%63[^`]` | %31s | %31s | %31s |", &num, id, bound, basis, conf) != 5)
            continue;
        assert_true(k < n);
        if (strcmp(id, t[k].id) || strcmp(bound, fp_bound_name(t[k].bound)) || strcmp(basis, t[k].basis) ||
            strcmp(conf, t[k].confidence) || num != (int)k + 1) {
            print_error("docs/bound.md row %d `%s` %s %s %s != table row %zu `%s` %s %s %s\n", num, id, bound, basis,
                        conf, k + 1, t[k].id, fp_bound_name(t[k].bound), t[k].basis, t[k].confidence);
            fail();
        }
        k++;
    }
    fclose(f);
    assert_int_equal(k, n);
}

/* docs/bound.md's thresholds table states the practical HBM ceiling of every arch row
 * (| practical ceiling gfx950 (MI350X) | 84 % of peak | ...) and the memory share. */
static void test_doc_ceilings(void **state)
{
    (void)state;
    FILE *f = fopen(FP_TEST_DATA "/../../docs/bound.md", "r");
    assert_non_null(f);
    char line[1024];
    size_t n, found = 0;
    const fp_hbm_ceiling *c = fp_bound_hbm_ceilings(&n);
    bool memory_row = false;
    while (fgets(line, sizeof line, f)) {
        double pct;
        char arch[32];
        if (sscanf(line, "| practical ceiling %31s (%*[^)]) | %lf %%", arch, &pct) == 2 ||
            (sscanf(line, "| practical ceiling, other arch | %lf %%", &pct) == 1 && strcpy(arch, "default"))) {
            const fp_hbm_ceiling *row = NULL;
            for (size_t i = 0; i < n; i++)
                if (!strcmp(c[i].arch, arch))
                    row = &c[i];
            assert_non_null(row);
            if (row->pct != pct) {
                print_error("docs/bound.md: ceiling %s %.1f != table %.1f\n", arch, pct, row->pct);
                fail();
            }
            found++;
        }
        if (!strncmp(line, "| memory: HBM | ≥ 60 % of the practical ceiling (50.4 % of peak on gfx950)", 76))
            memory_row = true;
    }
    fclose(f);
    assert_int_equal(found, n);
    assert_true(memory_row);
    /* the memory threshold the doc states: 60 % of gfx950's ceiling = 50.4 % */
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.hbm_ceiling_pct = fp_some(fp_bound_hbm_ceiling("gfx950")->pct);
    in.hbm_pct_of_peak = fp_some(50.4);
    assert_int_equal(run(&in).bound, FP_BOUND_MEMORY);
    assert_string_equal(fp_bound_hbm_ceiling("gfx90a")->arch, "default");
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
    assert_int_equal(r.bound, FP_BOUND_LATENCY); /* below 48 % (60 % of the 80 % default ceiling) */
    assert_string_equal(r.rule, "vmem_starved");
    in.hbm_pct_of_peak = fp_some(55.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.rule, "hbm_saturated");
    assert_false(r.optimal);
}

static void test_lds_and_trace_default(void **state)
{
    (void)state;
    fp_bound_in in;
    fp_bound_in_init(&in);
    in.lds_stall_share = fp_some(41.0);
    fp_bound_result r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_LATENCY); /* LDS waits explain a latency bound */
    assert_string_equal(r.rule, "trace_lds");
    /* the vector-memory path saturated: memory whatever the stall mix */
    in.vmem_issue_pct = fp_some(85.0);
    r = run(&in);
    assert_int_equal(r.bound, FP_BOUND_MEMORY);
    assert_string_equal(r.rule, "vmem_issue_saturated");
    in.vmem_issue_pct = fp_some(79.0);
    assert_string_equal(run(&in).rule, "trace_lds");
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
    fp_report_bound d;
    fp_bound_to_doc(&r, &d);
    assert_string_equal(d.bound, "memory");
    assert_string_equal(d.rule, "hbm_saturated");
    assert_true(d.optimal);
    assert_string_equal(d.optimal_rule, "near_roof");
    cJSON *j = fp_model_write(&fp_report_bound_schema, &d);
    fp_model_free(&fp_report_bound_schema, &d);
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
        cmocka_unit_test(test_parallelism),
        cmocka_unit_test(test_trace_hbm),
        cmocka_unit_test(test_doc_matches_table),
        cmocka_unit_test(test_doc_ceilings),
        cmocka_unit_test(test_lds_and_trace_default),
        cmocka_unit_test(test_shape_only),
        cmocka_unit_test(test_clean_stream_limits),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
