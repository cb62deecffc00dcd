/*
 * test_workid.c - report.json "isa" / "work" inputs (workid.h): the code's hashes
 * (checked against SHA-256 of the texts computed here), basic-block starts, the
 * main loop (a backward jump run once per wave is block layout, not a loop), and
 * the per-wave statistics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/att.h"
#include "flyprof/sha256.h"
#include "flyprof/workid.h"

/* A listing: entry block, a loop 3..6 run 5 times per wave by 2 waves (back-edge
 * hits 10), an exit; then a block laid out after the exit that the entry jumps
 * back into once per wave (s_branch -3 at 9 -> 7, hits 2 = the entry's). Vaddrs
 * advance by 4; s_cbranch_scc1 at 0x1014 (line 6) -> 0x1018 + 4*(-4) = 0x1008 (line 3). */
static const char *DOC =
    "{\"code\":[[\"; k\",0,0,\"\",1,4096,0,0,0,0],"
    "[\"s_mov_b32 s8, 5\",0,1,\"/k.py:10\",1,4096,2,8,0,0],"
    "[\"s_branch 5\",0,2,\"/k.py:10\",1,4100,2,8,0,0],"
    "[\"v_add_f32_e32 v0, v1, v0\",0,3,\"/k.py:12\",1,4104,10,400,100,0],"
    "[\"s_sub_u32 s8, s8, 1\",0,4,\"/k.py:12\",1,4108,10,40,0,0],"
    "[\"s_cmp_lg_u32 s8, 0\",0,5,\"/k.py:12\",1,4112,10,40,0,0],"
    "[\"s_cbranch_scc1 65532\",0,6,\"/k.py:12\",1,4116,10,40,0,0],"
    "[\"s_endpgm\",0,7,\"/k.py:14\",1,4120,2,8,0,0],"
    "[\"v_mov_b32_e32 v1, 0\",0,8,\"/k.py:11\",1,4124,2,8,0,0],"
    "[\"s_branch 65533\",0,9,\"/k.py:11\",1,4128,2,8,0,0]],"
    "\"header\":\"ISA, _, LineNumber\",\"version\":\"3.0.0\"}";

static void load(fp_code *c)
{
    fp_err e = {0};
    assert_int_equal(fp_code_parse(DOC, strlen(DOC), "code.json", c, &e), 0);
}

static void test_isa(void **state)
{
    (void)state;
    fp_code c;
    load(&c);
    fp_report_isa *isa = fp_isa_of(&c);
    assert_non_null(isa);
    assert_int_equal(isa->instructions, 9);
    const char *text = "s_mov_b32 s8, 5\ns_branch 5\nv_add_f32_e32 v0, v1, v0\ns_sub_u32 s8, s8, 1\n"
                       "s_cmp_lg_u32 s8, 0\ns_cbranch_scc1 65532\ns_endpgm\nv_mov_b32_e32 v1, 0\ns_branch 65533\n";
    const char *ops = "s_mov_b32\ns_branch\nv_add_f32_e32\ns_sub_u32\ns_cmp_lg_u32\ns_cbranch_scc1\ns_endpgm\n"
                      "v_mov_b32_e32\ns_branch\n";
    char want[65];
    fp_sha256_hex(text, strlen(text), want);
    assert_string_equal(isa->sha256, want);
    fp_sha256_hex(ops, strlen(ops), want);
    assert_string_equal(isa->opcodes_sha256, want);
    /* leaders: 1 (entry), 3 (loop target, after a branch), 7 (after the back-edge),
     * 8 (after s_endpgm; also s_branch 5's target 4100 + 4 + 20 = 4124) */
    assert_int_equal(isa->nblock_starts, 4);
    double starts[] = {1, 3, 7, 8};
    for (size_t i = 0; i < 4; i++)
        assert_true(isa->block_starts[i] == starts[i]);
    free(isa->sha256);
    free(isa->opcodes_sha256);
    free(isa->block_starts);
    free(isa);
    fp_code_free(&c);
}

static void test_main_loop(void **state)
{
    (void)state;
    fp_code c;
    load(&c);
    fp_main_loop l;
    assert_true(fp_main_loop_of(&c, &l));
    /* 9 -> 7 (s_branch back, hits 2 = entry hits) is layout; 6 -> 3 ran 10 times */
    assert_int_equal(l.head, 3);
    assert_int_equal(l.back_edge, 6);
    assert_int_equal(l.iterations, 10);
    assert_string_equal(l.source, "/k.py:12");
    /* no iteration: the same listing with the back-edge run once per wave */
    c.rows[6].hit = 2;
    assert_false(fp_main_loop_of(&c, &l));
    fp_code_free(&c);
}

static void test_stat(void **state)
{
    (void)state;
    double v[] = {9071.2, 8963.2, 8863.2, 9124.8}; /* flash_attn_func-small's cycles per iteration */
    fp_report_stat s = fp_stat_of(v, 4);
    assert_int_equal(s.n, 4);
    assert_true(fabs(s.mean - 9005.6) < 1e-9);
    assert_true(fabs(s.sd - 116.31497) < 1e-4); /* sample sd (Python statistics.stdev) */
    assert_true(s.min == 8863.2 && s.max == 9124.8);
    s = fp_stat_of(v, 1);
    assert_true(s.sd == 0 && s.mean == 9071.2);
    s = fp_stat_of(v, 0);
    assert_true(s.n == 0 && s.mean == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa),
        cmocka_unit_test(test_main_loop),
        cmocka_unit_test(test_stat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
