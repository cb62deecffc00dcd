/*
 * test_soc.c - the SoC table: published peaks reproduced (MI300X bf16 1307 TF,
 * not the prototype's 2x), fp4 only on gfx950, product resolution from every
 * source, overrides, and contradictions refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "flyprof/soc.h"
#include "flyprof/sol.h"
#include "flyprof/tile_doc.h"

static fp_soc_sel resolve_ok(const fp_soc_query *q)
{
    fp_soc_sel s;
    fp_err err = {0};
    assert_int_equal(fp_soc_resolve(q, &s, &err), 0);
    return s;
}

static void test_peaks(void **state)
{
    (void)state;
    fp_soc_query q = {.gpu_name = "MI300X"};
    fp_soc_sel s = resolve_ok(&q);
    /* 2048 FLOP/clk/CU x 304 CUs x 2100 MHz = 1,307,443.2 GFLOP/s */
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_BF16), 1307443.2, 0.05);
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_FP8), 2614886.4, 0.05);
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_FP4), 0.0, 0.0); /* no fp4 on gfx942 */
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_FP64), 163430.4, 0.05);
    /* ridge = 1,307,443.2 / 5300 */
    assert_float_equal(fp_soc_ridge(&s, FP_DT_BF16), 246.687, 0.001);

    q.gpu_name = "mi350x";
    s = resolve_ok(&q);
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_BF16), 2306867.2, 0.05);
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_FP4), 9227468.8, 0.05);
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_FP64), 72089.6, 0.05);
    assert_float_equal(fp_soc_peak_vector_gflops(&s), 144179.2, 0.05);
    assert_float_equal(fp_soc_ridge(&s, FP_DT_BF16), 288.358, 0.001);

    q.gpu_name = "AMD Instinct MI355X";
    s = resolve_ok(&q);
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_FP6), 10066329.6, 0.05);
    assert_int_equal(s.limits->lds_per_cu, 163840);
}

static void test_resolution_sources(void **state)
{
    (void)state;
    fp_soc_query q = {.product_name = "AMD Instinct MI350X", .device_id = 30115};
    fp_soc_sel s = resolve_ok(&q);
    assert_string_equal(s.product->product, "MI350X"); /* Product_Name before Device_Id */
    assert_string_equal(s.product_source, "agent Product_Name");
    assert_string_equal(s.arch, "gfx950");
    assert_string_equal(s.arch_source, "product");

    q = (fp_soc_query){.product_name = "AMD Instinct MI999", .device_id = 29861};
    s = resolve_ok(&q);
    assert_string_equal(s.product->product, "MI325X");
    assert_float_equal(s.hbm_gbs, 6000.0, 0.0);

    /* only the arch is known: no product, no peaks, never an assumed product */
    q = (fp_soc_query){.gfx_target_version = 90402};
    s = resolve_ok(&q);
    assert_null(s.product);
    assert_string_equal(s.arch, "gfx942");
    assert_string_equal(s.arch_source, "agent");
    assert_int_equal(s.limits->lds_per_cu, 65536);
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_BF16), 0.0, 0.0);

    q = (fp_soc_query){.arch = "gfx950"};
    s = resolve_ok(&q);
    assert_null(s.product);
    assert_string_equal(s.arch_source, "--arch");

    /* --gpu-name beats the agent */
    q = (fp_soc_query){.gpu_name = "MI300X", .product_name = "AMD Instinct MI355X"};
    s = resolve_ok(&q);
    assert_string_equal(s.product->product, "MI300X");

    /* nothing known */
    q = (fp_soc_query){0};
    s = resolve_ok(&q);
    assert_null(s.product);
    assert_null(s.arch);
}

static void test_overrides(void **state)
{
    (void)state;
    fp_soc_query q = {.gpu_name = "MI350X", .sclk_mhz = 2100, .hbm_gbs = 7000};
    fp_soc_sel s = resolve_ok(&q);
    assert_true(s.sclk_overridden);
    assert_true(s.hbm_overridden);
    /* 4096 x 256 x 2100 / 1000 */
    assert_float_equal(fp_soc_peak_gflops(&s, FP_DT_BF16), 2202009.6, 0.05);
    assert_float_equal(fp_soc_ridge(&s, FP_DT_BF16), 2202009.6 / 7000.0, 1e-6);
}

static void test_refused(void **state)
{
    (void)state;
    fp_soc_sel s;
    fp_err err = {0};
    fp_soc_query q = {.gpu_name = "MI250X"};
    assert_int_equal(fp_soc_resolve(&q, &s, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS);
    q = (fp_soc_query){.gpu_name = "MI300"}; /* no partial-word match */
    assert_int_equal(fp_soc_resolve(&q, &s, &err), -1);
    q = (fp_soc_query){.gpu_name = "MI350X", .arch = "gfx942"};
    assert_int_equal(fp_soc_resolve(&q, &s, &err), -1);
    assert_non_null(strstr(err.message, "contradicts"));
    q = (fp_soc_query){.arch = "gfx1100"};
    assert_int_equal(fp_soc_resolve(&q, &s, &err), -1);
}

static void test_dtypes(void **state)
{
    (void)state;
    fp_dtype t;
    fp_err err = {0};
    assert_int_equal(fp_dtype_parse("BF16", &t, &err), 0);
    assert_int_equal(t, FP_DT_BF16);
    assert_int_equal(fp_dtype_parse("e4m3fn", &t, &err), 0);
    assert_int_equal(t, FP_DT_FP8);
    assert_int_equal(fp_dtype_parse("e2m1", &t, &err), 0);
    assert_float_equal(fp_dtype_bytes(t), 0.5, 0.0);
    assert_int_equal(fp_dtype_parse("f64", &t, &err), 0);
    assert_float_equal(fp_dtype_bytes(t), 8.0, 0.0);
    assert_int_equal(fp_dtype_parse("fp7", &t, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS);
    assert_int_equal(fp_dtype_parse("", &t, &err), -1);
    assert_int_equal(fp_dtype_parse("bf", &t, &err), -1); /* a prefix is not a match */
}

static void test_json(void **state)
{
    (void)state;
    fp_soc_query q = {.gpu_name = "MI300X"};
    fp_soc_sel s = resolve_ok(&q);
    fp_soc_doc sd;
    fp_soc_to_doc(&s, &sd);
    cJSON *j = fp_model_write(&fp_soc_doc_schema, &sd);
    fp_model_free(&fp_soc_doc_schema, &sd);
    assert_int_equal(cJSON_GetObjectItem(j, "cus")->valueint, 304);
    assert_int_equal(cJSON_GetObjectItem(j, "l2_channels")->valueint, 128);
    cJSON *p = cJSON_GetObjectItem(j, "peaks_gflops");
    assert_null(cJSON_GetObjectItem(p, "fp4"));
    assert_float_equal(cJSON_GetObjectItem(p, "bf16")->valuedouble, 1307443.2, 0.05);
    cJSON_Delete(j);
    size_t n;
    const fp_soc *t = fp_soc_table(&n);
    assert_int_equal(n, 4);
    assert_string_equal(t[3].product, "MI355X");
}

/* A partition's HBM peak (sol.h, docs/sol.md "Partitions"): the memory partition mode
 * divides the device's stacks (NPS4: 1/4, AMD's MI300X partitioning overview 48 GB of 192);
 * NPS1 keeps the device's; unknown on a CPX agent: NPS1 assumed, NPS4 the low end. */
static void test_partition_peak(void **state)
{
    (void)state;
    static const struct {
        const char *part, *nps;
        double gbs, low;
        const char *says; /* in the source text; NULL = no source (the product's own peak) */
    } rows[] = {
        {"CPX", "NPS4", 1325, 1325, "/ 4: NPS4"},
        {"QPX", "NPS4", 1325, 1325, "/ 4: NPS4"},
        {"DPX", "NPS2", 2650, 2650, "/ 2: NPS2"},
        {"CPX", "NPS8", 662.5, 662.5, "/ 8: NPS8"},
        {"CPX", "NPS1", 5300, 5300, "NPS1 interleaves every HBM stack"},
        {"CPX", NULL, 5300, 1325, "NPS1 assumed"},
        {"DPX", NULL, 5300, 2650, "NPS2 would give 2650 GB/s"},
        {"SPX", "NPS1", 5300, 5300, NULL},
        {"SPX", NULL, 5300, 5300, NULL},
        {NULL, NULL, 5300, 5300, NULL},
        {NULL, "NPS4", 1325, 1325, "NPS4"}, /* the memory mode alone decides */
        {"CPX", "nps9", 5300, 1325, "unknown"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        fp_hbm_peak p;
        fp_hbm_partition_peak(5300, rows[i].part, rows[i].nps, &p);
        assert_float_equal(p.gbs, rows[i].gbs, 1e-9);
        assert_float_equal(p.low_gbs, rows[i].low, 1e-9);
        if (rows[i].says) {
            assert_non_null(p.source);
            assert_non_null(strstr(p.source, rows[i].says));
        } else {
            assert_null(p.source);
        }
    }
    fp_hbm_peak p;
    fp_hbm_partition_peak(0, "CPX", "NPS4", &p); /* no product peak: nothing to scale */
    assert_float_equal(p.gbs, 0, 0);
    assert_null(p.source);
    assert_string_equal(fp_partition_name(1, 8), "CPX");
    assert_string_equal(fp_partition_name(4, 8), "DPX");
    assert_string_equal(fp_partition_name(8, 8), "SPX");
    assert_null(fp_partition_name(3, 8));
    assert_null(fp_partition_name(0, 8));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peaks),        cmocka_unit_test(test_resolution_sources),
        cmocka_unit_test(test_overrides),    cmocka_unit_test(test_refused),
        cmocka_unit_test(test_dtypes),       cmocka_unit_test(test_json),
        cmocka_unit_test(test_partition_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
