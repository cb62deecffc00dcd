/*
 * test_kernel_trace.c - the kernel_trace.csv reader: typed rows from the real
 * header, the Guid-led rocpd variant, missing columns, the three readings of a
 * numeric cell, the row-choice rule, the fast path, and bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/kernel_trace.h"

#define HDR                                                                                                     \
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","           \
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","            \
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","              \
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"

static const char TRACE[] =
    HDR "\"KERNEL_DISPATCH\",\"Agent 2\",1,0,697690,5,195,\"flash_attn_func_kernel_0\",5,2016989883593149,"
        "2016989883687109,49152,0,124,0,112,256,1,1,131072,1,1\n"
        "\"KERNEL_DISPATCH\",\"Agent 2\",1,0,697690,6,196,\"at::native::fill\",6,100,150,0,0,8,0,16,64,1,1,64,1,1\n"
        "\"KERNEL_DISPATCH\",\"Agent 2\",1,0,697690,7,195,\"flash_attn_func_kernel_0\",7,2016989883700000,"
        "2016989883800000,49152,0,124,0,112,256,1,1,131072,1,1\n";

static int parse(const char *text, fp_kernel_trace *kt, fp_err *err)
{
    memset(err, 0, sizeof *err);
    return fp_kernel_trace_parse(text, strlen(text), "t.csv", kt, err);
}

static void test_real_rows(void **state)
{
    (void)state;
    fp_kernel_trace kt;
    fp_err err;
    assert_int_equal(parse(TRACE, &kt, &err), 0);
    assert_int_equal(kt.nrows, 3);
    const fp_kt_row *r = &kt.rows[0];
    assert_int_equal(r->line, 2);
    assert_string_equal(r->kind, "KERNEL_DISPATCH");
    assert_string_equal(r->agent_id, "Agent 2");
    assert_string_equal(r->kernel_name, "flash_attn_func_kernel_0");
    long long v;
    assert_true(fp_rp_int(&r->dispatch_id, &v));
    assert_int_equal(v, 5);
    assert_true(fp_rp_int(&r->start_ns, &v));
    assert_true(v == 2016989883593149LL);
    assert_true(r->end_ns.d == 2016989883687109.0);
    assert_true(fp_rp_int(&r->vgpr, &v));
    assert_int_equal(v, 124);
    assert_int_equal(fp_rp_int_sp(&r->sgpr, -1), 112);
    assert_int_equal(fp_rp_int_sp(&r->lds_block_size, -1), 49152);
    assert_int_equal(fp_rp_int_sp(&r->wg[0], -1), 256);
    assert_int_equal(fp_rp_int_sp(&r->grid[0], -1), 131072);
    assert_int_equal(fp_rp_int_sp(&r->grid[2], -1), 1);
    /* columns this header lacks */
    assert_false(fp_rp_have(&r->arch_vgpr));
    assert_false(fp_rp_have(&r->wg_size));
    assert_false(fp_kernel_trace_has(&kt, FP_KT_ARCH_VGPR));
    assert_true(fp_kernel_trace_has(&kt, FP_KT_KERNEL_NAME));
    assert_int_equal(fp_kernel_trace_check(&kt, "t.csv", FP_KT_NEED_REGS, &err), 0);
    assert_string_equal(kt.rows[2].kernel_name, "flash_attn_func_kernel_0");
    assert_int_equal(kt.rows[2].line, 4);
    fp_kernel_trace_free(&kt);
    fp_kernel_trace_free(&kt); /* idempotent */
}

/* rocpd convert's CSV: a leading Guid column, Arch_VGPR_Count; by name, not position. */
static void test_guid_variant(void **state)
{
    (void)state;
    const char *t = "\"Guid\",\"Kernel_Name\",\"Arch_VGPR_Count\",\"VGPR_Count\",\"Workgroup_Size\"\n"
                    "\"abc\",\"k\",96,48,256\n";
    fp_kernel_trace kt;
    fp_err err;
    assert_int_equal(parse(t, &kt, &err), 0);
    assert_int_equal(fp_rp_int_sp(&kt.rows[0].arch_vgpr, -1), 96);
    assert_int_equal(fp_rp_int_sp(&kt.rows[0].vgpr, -1), 48);
    assert_int_equal(fp_rp_int_sp(&kt.rows[0].wg_size, -1), 256);
    assert_null(kt.rows[0].agent_id);
    assert_false(fp_rp_have(&kt.rows[0].start_ns));
    assert_int_not_equal(fp_kernel_trace_check(&kt, "t.csv", FP_KT_NEED_TIMING, NULL), 0);
    fp_kernel_trace_free(&kt);
}

/* The three readings of a cell (rpcell.h). */
static void test_cell_readings(void **state)
{
    (void)state;
    fp_rp_num n;
    long long v;
    double d;
    fp_rp_num_parse("42", &n);
    assert_int_equal(n.f, FP_RP_HAVE | FP_RP_INT | FP_RP_INT_SP | FP_RP_REAL);
    assert_int_equal(n.i, 42);
    fp_rp_num_parse("1.5", &n); /* a number, not an integer */
    assert_false(fp_rp_int(&n, &v));
    assert_int_equal(fp_rp_int_sp(&n, -7), -7);
    assert_true(fp_rp_real(&n, &d));
    assert_true(d == 1.5);
    fp_rp_num_parse("12 ", &n); /* trailing space: only the seed's reading */
    assert_false(fp_rp_int(&n, &v));
    assert_int_equal(fp_rp_int_sp(&n, 0), 12);
    assert_false(fp_rp_real(&n, &d));
    fp_rp_num_parse(" -3", &n); /* leading space and a sign: both integer readings */
    assert_true(fp_rp_int(&n, &v));
    assert_int_equal(v, -3);
    assert_int_equal(fp_rp_int_sp(&n, 0), -3);
    fp_rp_num_parse("", &n); /* empty: present, nothing else */
    assert_int_equal(n.f, FP_RP_HAVE);
    fp_rp_num_parse("inf", &n);
    assert_true(fp_rp_real(&n, &d) && isinf(d));
    assert_false(fp_rp_int(&n, &v));
    fp_rp_num_parse("99999999999999999999", &n); /* past long long: a real only */
    assert_false(fp_rp_int(&n, &v));
    assert_true(fp_rp_real(&n, &d));
    fp_rp_num_parse(NULL, &n);
    assert_int_equal(n.f, 0);
}

static void test_pick_rules(void **state)
{
    (void)state;
    fp_kernel_trace kt;
    fp_err err;
    assert_int_equal(parse(TRACE, &kt, &err), 0);
    fp_kt_pick p;
    fp_kt_pick_rows(&kt, "flash_attn_func_kernel_0", FP_KT_EXACT, FP_KT_TIME_ANY, &p);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.first, 0);
    assert_int_equal(p.last, 2);
    assert_int_equal(p.timed, 2);
    assert_true(fabs(p.mean_ns - (93960.0 + 100000.0) / 2) < 1e-6);
    fp_kt_pick_rows(&kt, "flash_attn", FP_KT_EXACT, FP_KT_TIME_ANY, &p);
    assert_int_equal(p.n, 0);
    assert_true(p.mean_ns == 0);
    fp_kt_pick_rows(&kt, "flash_attn", FP_KT_CONTAINS, FP_KT_TIME_BOUNDED, &p);
    assert_int_equal(p.n, 2);
    /* exact rows first; containing rows only when there is no exact one */
    fp_kt_pick_rows(&kt, "fill", FP_KT_EXACT_ELSE_CONTAINS, FP_KT_TIME_ANY, &p);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.first, 1);
    assert_true(p.mean_ns == 50);
    fp_kt_pick_rows(&kt, NULL, FP_KT_CONTAINS, FP_KT_TIME_ANY, &p);
    assert_int_equal(p.n, 0);
    /* the count-only choice picks the same rows and computes no spread or hash */
    fp_kt_pick c;
    fp_kt_pick_rows(&kt, "flash_attn_func_kernel_0", FP_KT_EXACT, FP_KT_TIME_ANY, &p);
    assert_true(p.sha256[0] != '\0' && p.median_ns > 0);
    fp_kt_pick_count(&kt, "flash_attn_func_kernel_0", FP_KT_EXACT, &c);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.first, p.first);
    assert_int_equal(c.last, p.last);
    assert_int_equal(c.named, p.named);
    assert_int_equal(c.timed, p.timed);
    assert_true(c.mean_ns == p.mean_ns);
    assert_true(c.sha256[0] == '\0' && c.median_ns == 0);
    fp_kt_pick_count(&kt, "fill", FP_KT_EXACT_ELSE_CONTAINS, &c);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.first, 1);
    fp_kt_pick_count(&kt, NULL, FP_KT_CONTAINS, &c);
    assert_int_equal(c.n, 0);
    fp_kernel_trace_free(&kt);

    /* timestamps the bounded rule refuses and the lenient one takes */
    const char *t = "\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                    "\"k\",-5,5\n\"k\",10,5\n\"k\",1.5,3.5\n";
    assert_int_equal(parse(t, &kt, &err), 0);
    fp_kt_pick_rows(&kt, "k", FP_KT_EXACT, FP_KT_TIME_ANY, &p);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.timed, 2); /* End <= Start never counts */
    assert_true(p.mean_ns == 6);
    fp_kt_pick_rows(&kt, "k", FP_KT_EXACT, FP_KT_TIME_BOUNDED, &p);
    assert_int_equal(p.timed, 1); /* a negative timestamp is out of [0, 1e18] */
    assert_true(p.mean_ns == 2);
    fp_kernel_trace_free(&kt);
}

static void test_bad_input(void **state)
{
    (void)state;
    fp_kernel_trace kt;
    fp_err err;
    assert_int_not_equal(parse("", &kt, &err), 0);
    assert_int_equal(err.code, FP_BAD_INPUT);
    fp_err_clear(&err);
    assert_int_not_equal(parse(HDR "\"KERNEL_DISPATCH\",1,2\n", &kt, &err), 0);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_non_null(strstr(err.message, "t.csv:2"));
    fp_err_clear(&err);
    assert_int_equal(parse("\"Name\",\"Calls\"\n\"k\",1\n", &kt, &err), 0);
    assert_int_equal(fp_kernel_trace_check(&kt, "s.csv", FP_KT_NEED_NAME, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, "s.csv: no Kernel_Name column");
    fp_err_clear(&err);
    assert_int_equal(fp_kernel_trace_check(&kt, "s.csv", FP_KT_NEED_REGS, &err), -1);
    assert_string_equal(err.message, "s.csv: not a kernel-trace CSV (no Kernel_Name/VGPR_Count)");
    fp_err_clear(&err);
    fp_kernel_trace_free(&kt);
    memset(&err, 0, sizeof err);
    assert_int_not_equal(fp_kernel_trace_load("/nonexistent/kernel_trace.csv", &kt, &err), 0);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_err_clear(&err);
}

/* The fast path converts only the lines naming the kernel, with their real line numbers. */
static void test_matching(void **state)
{
    (void)state;
    char path[] = "/tmp/fp_kt_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, TRACE, sizeof TRACE - 1), (ssize_t)(sizeof TRACE - 1));
    close(fd);
    fp_kernel_trace kt;
    fp_err err = {0};
    assert_int_equal(fp_kernel_trace_load_matching(path, "flash_attn", 0, &kt, &err), 0);
    assert_int_equal(kt.nrows, 2);
    assert_int_equal(kt.rows[0].line, 2);
    assert_int_equal(kt.rows[1].line, 4);
    assert_int_equal(fp_rp_int_sp(&kt.rows[1].dispatch_id, -1), 7);
    fp_kernel_trace_free(&kt);
    /* only the number columns asked for are converted; the header still has the rest */
    assert_int_equal(fp_kernel_trace_load_matching(path, "flash_attn", 1UL << FP_KT_VGPR | 1UL << FP_KT_SGPR, &kt, &err),
                     0);
    assert_int_equal(kt.nrows, 2);
    assert_int_equal(fp_rp_int_sp(&kt.rows[0].vgpr, -1), 124);
    assert_int_equal(fp_rp_int_sp(&kt.rows[0].sgpr, -1), 112);
    assert_false(fp_rp_have(&kt.rows[0].dispatch_id));
    assert_false(fp_rp_have(&kt.rows[0].lds_block_size));
    assert_true(fp_kernel_trace_has(&kt, FP_KT_LDS_BLOCK_SIZE));
    assert_string_equal(kt.rows[1].kernel_name, "flash_attn_func_kernel_0");
    fp_kernel_trace_free(&kt);
    assert_int_equal(fp_kernel_trace_load_matching(path, NULL, 0, &kt, &err), 0);
    assert_int_equal(kt.nrows, 3);
    fp_kernel_trace_free(&kt);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_rows),   cmocka_unit_test(test_guid_variant), cmocka_unit_test(test_cell_readings),
        cmocka_unit_test(test_pick_rules),  cmocka_unit_test(test_bad_input),    cmocka_unit_test(test_matching),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
