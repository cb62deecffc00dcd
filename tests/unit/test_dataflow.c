/* test_dataflow.c - the workgroup-id taint analysis (issue 23 item 4): which SGPRs
 * are workgroup ids, flow through SALU/VALU/loads, flow-sensitive redefinition,
 * read-modify-write ops, a loop back edge, and the layernorm-big classification
 * of the corpus (gamma/beta loads shared, x loads per workgroup). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/att.h"
#include "flyprof/dataflow.h"

/* A code.json from ISA lines: row i+1 = isa[i], 4 bytes each from vaddr 4096. */
static void load(const char *const *isa, size_t n, fp_code *c)
{
    char buf[8192];
    size_t k = (size_t)snprintf(buf, sizeof buf, "{\"code\":[[\"; k\",0,0,\"\",1,4096,0,0,0,0]");
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, ",[\"%s\",0,%zu,\"\",1,%zu,1,0,0,0]", isa[i], i + 1,
                              4096 + 4 * i);
    k += (size_t)snprintf(buf + k, sizeof buf - k, "],\"header\":\"\",\"version\":\"3.0.0\"}");
    fp_err e = {0};
    assert_int_equal(fp_code_parse(buf, k, "code.json", c, &e), 0);
}

static const char *const STRAIGHT[] = {
    "s_load_dwordx4 s[8:11], s[0:1], 0x0",                  /* 1: kernarg pointer s[0:1] */
    "s_waitcnt lgkmcnt(0)",                                 /* 2 */
    "s_lshl_b32 s4, s2, 8",                                 /* 3: s2 = workgroup id x */
    "v_add_u32_e32 v1, s4, v0",                             /* 4: tainted */
    "v_lshlrev_b32_e32 v2, 2, v0",                          /* 5: lane id only */
    "buffer_load_dword v3, v1, s[8:11], 0 offen",           /* 6: per workgroup */
    "buffer_load_dword v4, v2, s[8:11], 0 offen",           /* 7: shared */
    "v_mov_b32_e32 v1, v2",                                 /* 8: v1 redefined, untainted */
    "global_load_dword v5, v1, s[8:9]",                     /* 9: shared */
    "s_mov_b32 s5, 0",                                      /* 10 */
    "s_mulk_i32 s5, 0x10",                                  /* 11: RMW keeps s5 clean */
    "s_mov_b32 s6, s2",                                     /* 12 */
    "s_mulk_i32 s6, 0x40",                                  /* 13: RMW keeps the taint */
    "buffer_load_dword v6, v2, s[8:11], s6 offen",          /* 14: soffset per workgroup */
    "buffer_load_dword v7, v2, s[8:11], s5 offen",          /* 15: shared */
    "v_mov_b32_e32 v8, v3",                                 /* 16: data loaded per workgroup */
    "global_load_dword v9, v8, s[8:9]",                     /* 17: pointer chase: per workgroup */
    "buffer_store_dword v4, v2, s[8:11], 0 offen",          /* 18: a store is classified too */
    "s_endpgm",
};

static void test_straight(void **state)
{
    (void)state;
    fp_code c;
    load(STRAIGHT, sizeof STRAIGHT / sizeof *STRAIGHT, &c);
    fp_dataflow df;
    fp_dataflow_run(&c, &df);
    assert_int_equal(df.n_wg_sgprs, 1);
    assert_int_equal(df.wg_sgprs[0], 2);
    assert_true(df.cfg_exact);
    static const struct {
        int row, kind;
    } want[] = {{6, FP_ADDR_WG}, {7, FP_ADDR_SHARED}, {9, FP_ADDR_SHARED}, {14, FP_ADDR_WG},
                {15, FP_ADDR_SHARED}, {17, FP_ADDR_WG}, {18, FP_ADDR_SHARED}, {4, FP_ADDR_NONE}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (df.kind[want[i].row] != want[i].kind)
            fail_msg("row %d: kind %d, want %d", want[i].row, df.kind[want[i].row], want[i].kind);
    fp_dataflow_free(&df);
    fp_code_free(&c);
}

/* A loop: v1 becomes workgroup-dependent only at the bottom; the back edge carries
 * it to the load at the top (a linear pass would call it shared). */
static const char *const LOOP[] = {
    "s_load_dwordx4 s[8:11], s[0:1], 0x0",        /* 1 */
    "s_waitcnt lgkmcnt(0)",                       /* 2 */
    "v_mov_b32_e32 v1, v0",                       /* 3 */
    "buffer_load_dword v3, v1, s[8:11], 0 offen", /* 4: loop head */
    "v_add_u32_e32 v1, s3, v1",                   /* 5: s3 = workgroup id y */
    "s_sub_u32 s12, s12, 1",                      /* 6: s12 read before written: a workgroup id too */
    "s_cmp_lg_u32 s12, 0",                        /* 7 */
    "s_cbranch_scc1 65531",                       /* 8: -5 dwords -> row 4 */
    "s_endpgm",                                   /* 9 */
};

static void test_loop(void **state)
{
    (void)state;
    fp_code c;
    load(LOOP, sizeof LOOP / sizeof *LOOP, &c);
    fp_dataflow df;
    fp_dataflow_run(&c, &df);
    assert_true(df.cfg_exact);
    assert_true(df.iterations >= 2);
    assert_int_equal(df.kind[4], FP_ADDR_WG);
    fp_dataflow_free(&df);
    fp_code_free(&c);
}

/* An unresolvable jump (s_setpc) joins every block: still sound, marked inexact. */
static void test_indirect(void **state)
{
    (void)state;
    static const char *const P[] = {"s_load_dwordx4 s[8:11], s[0:1], 0x0", "buffer_load_dword v3, v0, s[8:11], 0 offen",
                                    "v_add_u32_e32 v0, s2, v0", "s_setpc_b64 s[20:21]", "s_endpgm"};
    fp_code c;
    load(P, 5, &c);
    fp_dataflow df;
    fp_dataflow_run(&c, &df);
    assert_false(df.cfg_exact);
    assert_int_equal(df.kind[2], FP_ADDR_WG); /* v0 may come tainted round the unknown jump */
    fp_dataflow_free(&df);
    fp_code_free(&c);
}

/* layernorm-big: the 8 gamma/beta loads (addresses from v0 and kernel arguments) are
 * shared, the 4 x loads and 4 stores depend on s2 (workgroup id x). */
static void test_layernorm(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/layernorm-big/att/ui_output_agent_22257_dispatch_23", FP_CORPUS);
    fp_code c;
    fp_err e = {0};
    if (fp_code_load(dir, &c, &e) != 0) {
        fp_err_clear(&e);
        skip();
    }
    fp_dataflow df;
    fp_dataflow_run(&c, &df);
    assert_int_equal(df.n_wg_sgprs, 1);
    assert_int_equal(df.wg_sgprs[0], 2);
    int shared = 0, wg = 0;
    for (size_t i = 0; i < c.n; i++) {
        shared += df.kind[i] == FP_ADDR_SHARED;
        wg += df.kind[i] == FP_ADDR_WG;
    }
    assert_int_equal(shared, 8);
    assert_int_equal(wg, 8);
    static const int64_t shared_rows[] = {251, 253, 255, 256, 377, 378, 390, 391};
    for (size_t k = 0; k < 8; k++)
        for (size_t i = 0; i < c.n; i++)
            if (c.rows[i].index == shared_rows[k])
                assert_int_equal(df.kind[i], FP_ADDR_SHARED);
    fp_dataflow_free(&df);
    fp_code_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straight),
        cmocka_unit_test(test_loop),
        cmocka_unit_test(test_indirect),
        cmocka_unit_test(test_layernorm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
