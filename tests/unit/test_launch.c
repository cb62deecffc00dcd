/* The launch model (docs/launch.md) and the trace speed-of-light decoders (docs/sol.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "flyprof/launch.h"
#include "flyprof/soc.h"
#include "flyprof/sol.h"

static fp_launch run(double gx, double gy, double wx, int cus, int wps)
{
    fp_launch_in in = {{gx, gy, 1}, {wx, 1, 1}, cus, 4, 64, wps, 0, 0};
    fp_launch l;
    fp_launch_compute(&in, &l);
    return l;
}

/* preshuffle_gemm_v2-big: Grid 512x40, workgroup 256x1, 4 waves/SIMD on 256 CUs */
static void test_underfilled(void **state)
{
    (void)state;
    fp_launch l = run(512, 40, 256, 256, 4);
    assert_true(l.valid);
    assert_true(l.workgroups == 80);
    assert_int_equal(l.wg_waves, 4);
    assert_true(l.grid_waves == 320);
    assert_int_equal(l.resident_wgs_per_cu, 4);
    assert_true(l.concurrent_wgs == 1024);
    assert_true(l.rounds == 1);
    assert_true(fabs(l.fill_pct - 31.25) < 1e-9);
    assert_true(l.underfilled);
    assert_false(l.grid_uses_more_waves); /* 320 waves < 256 CUs x 16 slots */
    char buf[256];
    fp_launch_sentence(&l, buf, sizeof buf);
    assert_string_equal(buf, "80 workgroups of 4 waves on 256 CUs: 31% of CUs busy (4 resident per CU, 1 round)");
}

/* vec_add-big: 2,560,000 work-items / 256 = 10,000 workgroups, 8 waves/SIMD: 5 rounds of 2048 */
static void test_rounds_and_tail(void **state)
{
    (void)state;
    fp_launch l = run(2560000, 1, 256, 256, 8);
    assert_true(l.workgroups == 10000);
    assert_int_equal(l.resident_wgs_per_cu, 8);
    assert_true(l.rounds == 5);
    assert_true(fabs(l.tail_efficiency_pct - 97.66) < 0.01); /* 10000 / (5 x 2048) */
    assert_false(l.underfilled);
    assert_true(l.fill_pct == 100);
    assert_true(l.grid_uses_more_waves);
    /* a partial last workgroup still counts (ceil) */
    assert_true(run(257, 1, 256, 256, 8).workgroups == 2);
}

static void test_unknowns(void **state)
{
    (void)state;
    fp_launch l = run(4096, 1, 256, 0, 0); /* no CU count, no occupancy */
    assert_true(l.valid);
    assert_true(l.workgroups == 16);
    assert_false(l.have_underfilled);
    assert_true(l.fill_pct < 0 && l.rounds == 0);
    l = run(4096, 1, 256, 256, 0); /* CUs but no occupancy: fill yes, rounds no */
    assert_true(l.underfilled && l.fill_pct == 6.25 && l.rounds == 0);
    assert_false(run(0, 1, 256, 256, 4).valid);
    assert_false(run(4096, 1, 0, 256, 4).valid);
    assert_false(run(NAN, 1, 256, 256, 4).valid);
    /* a workgroup bigger than the resident slots still runs one per CU */
    fp_launch_in in = {{1024 * 1024, 1, 1}, {1024, 1, 1}, 256, 4, 64, 1, 0, 0};
    fp_launch_compute(&in, &l);
    assert_int_equal(l.wg_waves, 16);
    assert_int_equal(l.resident_wgs_per_cu, 1);
}

static void test_lane_bytes(void **state)
{
    (void)state;
    assert_true(fp_sol_lane_bytes("buffer_load_dwordx4 v[0:3], v8, s[4:7], 0 offen") == 16);
    assert_true(fp_sol_lane_bytes("global_load_dwordx2 v[0:1], v2, s[0:1]") == 8);
    assert_true(fp_sol_lane_bytes("buffer_store_dword v1, v2, s[0:3], 0 offen") == 4);
    assert_true(fp_sol_lane_bytes("global_load_ushort v1, v2, s[0:1]") == 2);
    assert_true(fp_sol_lane_bytes("buffer_load_ubyte v1, v2, s[0:3], 0 offen") == 1);
    assert_true(fp_sol_lane_bytes("global_load_lds_dwordx4 v2, s[0:1]") == 16);
    assert_true(fp_sol_lane_bytes("ds_read_b128 v[0:3], v10") == 16);
    assert_true(fp_sol_lane_bytes("ds_read2_b32 v[0:1], v10 offset1:1") == 8);
    assert_true(fp_sol_lane_bytes("ds_write2_b64 v10, v[0:1], v[2:3]") == 16);
    assert_true(fp_sol_lane_bytes("ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)") == 0);
    assert_true(fp_sol_lane_bytes("ds_bpermute_b32 v1, v2, v3") == 0);
    assert_true(fp_sol_lane_bytes("buffer_atomic_add_f32 v1, v2, s[0:3], 0 offen") == 4);
    assert_true(fp_sol_lane_bytes("s_load_dwordx4 s[0:3], s[4:5], 0x0") == 0); /* scalar: not vector memory */
    assert_true(fp_sol_lane_bytes("v_add_f32_e32 v1, v2, v3") == 0);
}

static void test_mfma_cycles(void **state)
{
    (void)state;
    const fp_arch_rates *g950 = fp_arch_rates_by_name("gfx950"), *g942 = fp_arch_rates_by_name("gfx942");
    assert_non_null(g950);
    assert_non_null(g942);
    double f;
    /* gfx950 bf16: 4096 FLOP/clk/CU = 1024 per SIMD; 32x32x16 = 32768 FLOP -> 32 cycles */
    assert_true(fp_sol_mfma_cycles("v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]", g950, 4, &f) == 32);
    assert_true(f == 32768);
    /* gfx942 f16 old-style name: 2048 / 4 = 512 per SIMD; 32x32x8 = 16384 -> 32 cycles */
    assert_true(fp_sol_mfma_cycles("v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]", g942, 4, NULL) == 32);
    /* fp8 scale op: fp8 rate unless both operands are fp4/fp6 (cbsz/blgp >= 2) */
    assert_true(fp_sol_mfma_cycles("v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], 0, v1, v2", g950, 4,
                                   NULL) == 32);
    assert_true(fp_sol_mfma_cycles(
                    "v_mfma_scale_f32_16x16x128_f8f6f4 v[34:37], v[62:65], v[14:17], 0, v41, v12 cbsz:4 blgp:4", g950,
                    4, NULL) == 16);
    /* blocks: 4x4x4 with 16 blocks = 2*4*4*4*16 FLOP at the f16 rate */
    assert_true(fp_sol_mfma_cycles("v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]", g942, 4, &f) == 4);
    assert_true(f == 2048);
    /* sparse: the dense op of half K */
    assert_true(fp_sol_mfma_cycles("v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10", g942, 4, NULL) == 16);
    /* fp4 does not exist on gfx942, tf32 has no gfx950 rate: unknown -> 0 */
    assert_true(fp_sol_mfma_cycles("v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[0:3]", g950, 4, NULL) == 0);
    assert_true(fp_sol_mfma_cycles("v_add_f32_e32 v1, v2, v3", g950, 4, NULL) == 0);
    assert_true(fp_sol_mfma_cycles("v_mfma_f32_32x32x16_bf16 v[0:15]", NULL, 4, NULL) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_underfilled),   cmocka_unit_test(test_rounds_and_tail), cmocka_unit_test(test_unknowns),
        cmocka_unit_test(test_lane_bytes),    cmocka_unit_test(test_mfma_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
