/* test_opcost.c - the per-arch opcode cost table (issue 23 item 3): the rows
 * measured in the corpus, the fp8 / fp4 split of f8f6f4, the CDNA3 fp8
 * encoding at the CDNA3 rate on gfx950, the rate-model fallback, VALU
 * transcendentals, and that every row names its source. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/opcost.h"
#include "flyprof/soc.h"

static double mfma(const char *isa, const char *arch, fp_cost_src *src)
{
    fp_opcost c = fp_opcost_mfma(isa, fp_arch_rates_by_name(arch), 4);
    if (src)
        *src = c.src;
    return c.cycles;
}

static void test_mfma_measured(void **state)
{
    (void)state;
    fp_cost_src s;
    /* the measurements on gfx950 (MI350X) */
    assert_true(mfma("v_mfma_f32_16x16x32_bf16 v[4:7], v[64:67], v[52:55], v[4:7]", "gfx950", &s) == 16);
    assert_int_equal(s, FP_COST_TABLE);
    assert_true(mfma("v_mfma_f32_32x32x16_bf16 v[48:63], v[192:195], v[184:187], v[48:63]", "gfx950", NULL) == 32);
    /* CDNA3-encoded fp8 on gfx950: 16 cycles, not the 8 the CDNA4 fp8 rate would give */
    assert_true(mfma("v_mfma_f32_16x16x32_fp8_fp8 v[2:5], v[122:123], v[110:111], v[2:5]", "gfx950", NULL) == 16);
    assert_true(mfma("v_mfma_f32_16x16x32_bf8_fp8 v[2:5], v[1:2], v[3:4], v[2:5]", "gfx950", NULL) == 16);
    /* f8f6f4: fp4 on both sides 16, fp8 on either side 32 */
    assert_true(mfma("v_mfma_scale_f32_16x16x128_f8f6f4 v[34:37], v[62:65], v[14:17], 0, v41, v12 op_sel_hi:[0,0,0] "
                     "cbsz:4 blgp:4",
                     "gfx950", NULL) == 16);
    assert_true(mfma("v_mfma_scale_f32_16x16x128_f8f6f4 v[14:17], v[52:59], v[36:43], 0, v0, v0 op_sel_hi:[0,0,0]",
                     "gfx950", NULL) == 32);
    assert_true(mfma("v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[4:9], v[0:3], v5, v5 cbsz:0 blgp:4",
                     "gfx950", NULL) == 32);
    /* small blocks: LLVM says 2 passes where the FLOPs would give 2 cycles */
    assert_true(mfma("v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]", "gfx950", NULL) == 8);
}

static void test_mfma_gfx942_and_fallback(void **state)
{
    (void)state;
    fp_cost_src s;
    assert_true(mfma("v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[2:3], v[4:5], v[0:3]", "gfx942", &s) == 16);
    assert_int_equal(s, FP_COST_TABLE);
    assert_true(mfma("v_mfma_f32_32x32x8_bf16 v[0:15], v[4:5], v[6:7], v[0:15]", "gfx942", NULL) == 32);
    /* no row: the rate model (gfx942 f16 2048/CU: 2048 FLOP / 512 = 4) */
    assert_true(mfma("v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]", "gfx942", &s) == 4);
    assert_int_equal(s, FP_COST_RATE);
    /* arch unknown: nothing */
    fp_opcost c = fp_opcost_mfma("v_mfma_f32_16x16x32_bf16 v[0:3]", NULL, 4);
    assert_true(c.cycles == 0);
    assert_int_equal(c.src, FP_COST_UNKNOWN);
    /* not an MFMA */
    assert_true(mfma("v_add_f32_e32 v1, v2, v3", "gfx950", &s) == 0);
    /* FLOPs are kept for the FLOP figure */
    c = fp_opcost_mfma("v_mfma_f32_16x16x32_fp8_fp8 v[2:5], v[1:2], v[3:4], v[2:5]", fp_arch_rates_by_name("gfx950"), 4);
    assert_true(c.flop == 2.0 * 16 * 16 * 32);
}

static void test_valu(void **state)
{
    (void)state;
    assert_true(fp_opcost_valu("v_exp_f32_e32 v1, v2", "gfx950").cycles == 8);
    assert_true(fp_opcost_valu("v_rcp_f32_e32 v1, v2", "gfx950").cycles == 8);
    assert_true(fp_opcost_valu("v_exp_f32_e32 v1, v2", "gfx942").cycles == 16);
    assert_true(fp_opcost_valu("v_add_f32_e32 v1, v2, v3", "gfx950").cycles == 4);
    assert_true(fp_opcost_valu("v_pk_mul_f32 v[0:1], v[2:3], v[4:5]", "gfx942").cycles == 4);
    assert_true(fp_opcost_valu("v_exp_f32_e32 v1, v2", NULL).cycles == 4); /* arch unknown: the default */
    /* v_exp_legacy is still a transcendental; v_exp is not matched inside another name */
    assert_true(fp_opcost_valu("v_ldexp_f32 v1, v2, v3", "gfx950").cycles == 4);
}

static void test_rows_have_sources(void **state)
{
    (void)state;
    size_t n;
    const fp_opcost_row *r = fp_opcost_mfma_rows(&n);
    assert_true(n > 20);
    for (size_t i = 0; i < n; i++) {
        assert_true(r[i].source && strlen(r[i].source) > 3);
        assert_true(r[i].cycles > 0 && (int)r[i].cycles % 4 == 0); /* whole passes */
        assert_true(!strcmp(r[i].arch, "gfx942") || !strcmp(r[i].arch, "gfx950"));
    }
    r = fp_opcost_valu_rows(&n);
    for (size_t i = 0; i < n; i++)
        assert_true(r[i].source && strlen(r[i].source) > 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mfma_measured),
        cmocka_unit_test(test_mfma_gfx942_and_fallback),
        cmocka_unit_test(test_valu),
        cmocka_unit_test(test_rows_have_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
