/*
 * test_tile.c - the GEMM tile advisor against hand-computed values: LDS bytes,
 * register estimate and occupancy through the unified pool, intensity vs the
 * ridge, and grid fill (tiles == CUs is "full", the prototype's bug).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "flyprof/tile.h"
#include "flyprof/tile_doc.h"

static fp_soc_sel soc(const char *product)
{
    fp_soc_query q = {.gpu_name = product};
    fp_soc_sel s;
    fp_err err = {0};
    assert_int_equal(fp_soc_resolve(&q, &s, &err), 0);
    return s;
}

/* MI350X bf16 128x128x64, 2 buffers, 256 work-items, 4096^3 */
static void test_eval_mi350(void **state)
{
    (void)state;
    fp_soc_sel s = soc("MI350X");
    fp_tile_in in = {.m = 4096, .n = 4096, .k = 4096, .dtype = FP_DT_BF16, .out_dtype = FP_DT_BF16,
                     .bm = 128, .bn = 128, .bk = 64, .buffers = 2, .wg_size = 256};
    fp_tile_eval e;
    fp_tile_evaluate(&s, &in, &e);
    assert_int_equal(e.lds_bytes, 65536);   /* (128*64 + 64*128) * 2 B * 2 */
    assert_int_equal(e.lds_limit, 163840);
    assert_true(e.lds_ok);
    assert_int_equal(e.vgpr_acc, 64);       /* 128*128 / 256 */
    assert_int_equal(e.vgpr_arch, 48);      /* 16384*2/4/256 = 32, + 16 */
    assert_int_equal(e.vgpr_total, 112);    /* ceil8(48 + 64) */
    assert_int_equal(e.occ.vgpr_limit, 4);  /* 512 / 112 */
    assert_int_equal(e.occ.lds_limit, 2);   /* 163840/65536 = 2 WGs x 4 waves / 4 SIMDs */
    assert_int_equal(e.occ.occupancy, 2);
    assert_int_equal(e.occ.bound_by, FP_OCC_LDS);
    assert_int_equal(e.waves_per_cu, 8);
    assert_float_equal(e.occupancy_pct, 25.0, 1e-9);
    assert_float_equal(e.ai_tile, 64.0, 1e-9);          /* 2*128*128 / (256 * 2) */
    assert_float_equal(e.ai_traffic, 63.0154, 1e-4);    /* 2*4096^3 / ((2*4096^2*32)*2 + 4096^2*2) */
    assert_float_equal(e.ai_ideal, 2.0 * 4096.0 * 4096 * 4096 / (3.0 * 4096 * 4096 * 2), 1e-6);
    assert_float_equal(e.ridge, 288.358, 1e-3);
    assert_string_equal(e.regime, "memory-bound");
    assert_true(e.have_grid);
    assert_int_equal(e.grid.tiles, 1024);
    assert_string_equal(e.grid.verdict, "full");
    assert_float_equal(e.grid.efficiency, 1.0, 0.0);
    assert_int_equal(e.grid.wgs_per_cu, 2);
}

/* MI300X: 64 KiB LDS. 256x256x64 bf16 x2 = 128 KiB does not fit. */
static void test_lds_overflow_and_regs(void **state)
{
    (void)state;
    fp_soc_sel s = soc("MI300X");
    fp_tile_in in = {.dtype = FP_DT_BF16, .out_dtype = FP_DT_BF16, .bm = 256, .bn = 256, .bk = 64, .buffers = 2,
                     .wg_size = 256};
    fp_tile_eval e;
    fp_tile_evaluate(&s, &in, &e);
    assert_int_equal(e.lds_bytes, 131072);
    assert_false(e.lds_ok);
    assert_int_equal(e.occ.occupancy, 0);
    assert_false(e.have_grid); /* no shape */
    /* 256x256 with 128 threads: 512 accumulators per thread: over the 256 AGPRs */
    in.bk = 16;
    in.wg_size = 128;
    fp_tile_evaluate(&s, &in, &e);
    assert_int_equal(e.vgpr_acc, 512);
    assert_false(e.regs_ok);
    assert_int_equal(e.occ.occupancy, 0);
    /* fp8 is one byte: 128x128x128 x2 = 64 KiB fits exactly */
    in = (fp_tile_in){.dtype = FP_DT_FP8, .out_dtype = FP_DT_BF16, .bm = 128, .bn = 128, .bk = 128, .buffers = 2,
                      .wg_size = 256};
    fp_tile_evaluate(&s, &in, &e);
    assert_int_equal(e.lds_bytes, 65536);
    assert_true(e.lds_ok);
    assert_float_equal(e.ai_tile, 128.0, 1e-9);
    assert_float_equal(e.ridge, 2614886.4 / 5300.0, 1e-6);
}

static void test_lds_granule(void **state)
{
    (void)state;
    fp_soc_sel s = soc("MI300X");
    /* fp6 48x32x32, one buffer: (48*32 + 32*32) * 0.75 = 1920 B -> 2048 (512 B blocks) */
    fp_tile_in in = {.dtype = FP_DT_FP6, .out_dtype = FP_DT_FP16, .bm = 48, .bn = 32, .bk = 32, .buffers = 1,
                     .wg_size = 64};
    fp_tile_eval e;
    fp_tile_evaluate(&s, &in, &e);
    assert_int_equal(e.lds_bytes, 2048);
}

static void test_grid_fill(void **state)
{
    (void)state;
    fp_grid g;
    fp_grid_fill(304, 304, 2, &g);
    assert_string_equal(g.verdict, "full"); /* the prototype said underfilled-0pct */
    assert_float_equal(g.efficiency, 1.0, 0.0);
    assert_int_equal(g.rounds, 1);
    fp_grid_fill(19, 304, 1, &g);
    assert_string_equal(g.verdict, "underfilled");
    assert_non_null(strstr(g.detail, "285 CUs (94%) idle"));
    fp_grid_fill(300, 256, 1, &g);
    assert_string_equal(g.verdict, "tail");
    assert_float_equal(g.efficiency, 300.0 / 512.0, 1e-12);
    assert_non_null(strstr(g.detail, "uses 44 CUs (17%)"));
    fp_grid_fill(4096, 304, 2, &g);
    assert_string_equal(g.verdict, "balanced");
    assert_int_equal(g.per_cu_max, 14);
    assert_int_equal(g.rounds, 7); /* ceil(4096 / 608) */
    fp_grid_fill(0, 304, 1, &g);
    assert_string_equal(g.verdict, "underfilled");
}

/* The search never proposes a tile that does not fit, and its order is stable. */
static void test_search(void **state)
{
    (void)state;
    fp_soc_sel s = soc("MI300X");
    fp_tile_in base = {.m = 8192, .n = 8192, .k = 8192, .dtype = FP_DT_BF16, .out_dtype = FP_DT_BF16,
                       .buffers = 2, .wg_size = 256};
    fp_tile_eval c[5], c2[5];
    size_t considered;
    size_t n = fp_tile_search(&s, &base, c, 5, &considered);
    assert_int_equal(considered, 36);
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++) {
        assert_true(c[i].lds_ok && c[i].regs_ok && c[i].occ.occupancy >= 1);
        if (i)
            assert_true(c[i - 1].score >= c[i].score);
    }
    /* hand check of the winner: 128x128x32, 32 KiB LDS, 2 waves/SIMD, AI 63.5, 96% grid efficiency */
    assert_int_equal(c[0].in.bm, 128);
    assert_int_equal(c[0].in.bn, 128);
    assert_int_equal(c[0].in.bk, 32);
    assert_float_equal(c[0].score, 100.0 * (c[0].ai_traffic / c[0].ridge) * (4096.0 / (304 * 14)), 1e-9);
    n = fp_tile_search(&s, &base, c2, 5, NULL);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(c[i].in.bm * 10000 + c[i].in.bn * 10 + c[i].in.bk,
                         c2[i].in.bm * 10000 + c2[i].in.bn * 10 + c2[i].in.bk);
}

/* Only the arch known: occupancy and LDS work, no ridge, no grid. */
static void test_arch_only(void **state)
{
    (void)state;
    fp_soc_query q = {.arch = "gfx950"};
    fp_soc_sel s;
    fp_err err = {0};
    assert_int_equal(fp_soc_resolve(&q, &s, &err), 0);
    fp_tile_in in = {.m = 1024, .n = 1024, .k = 1024, .dtype = FP_DT_BF16, .out_dtype = FP_DT_BF16, .bm = 64,
                     .bn = 64, .bk = 64, .buffers = 2, .wg_size = 256};
    fp_tile_eval e;
    fp_tile_evaluate(&s, &in, &e);
    assert_float_equal(e.ridge, 0.0, 0.0);
    assert_null(e.regime);
    assert_false(e.have_grid);
    assert_true(e.occ.occupancy > 0);
    fp_tile_doc_eval d;
    fp_tile_eval_to_doc(&e, &d);
    cJSON *j = fp_model_write(&fp_tile_eval_doc_schema, &d);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "roofline"), "ridge")));
    cJSON_Delete(j);
    fp_model_free(&fp_tile_eval_doc_schema, &d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_mi350), cmocka_unit_test(test_lds_overflow_and_regs),
        cmocka_unit_test(test_lds_granule), cmocka_unit_test(test_grid_fill),
        cmocka_unit_test(test_search),     cmocka_unit_test(test_arch_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
