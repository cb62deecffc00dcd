/*
 * test_discovery.c - the library-kernel filter (real FlyDSL names survive),
 * kernel matching and its confidence, regex escaping, version comparison,
 * the stderr scanner, iteration sets and the small shape, invocation split.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/capture.h"
#include "flyprof/discovery.h"

static void test_noise(void **state)
{
    (void)state;
    /* the prototype's substring regex dropped all of these FlyDSL kernels */
    assert_false(fp_kernel_is_noise("sort_kernel_0"));
    assert_false(fp_kernel_is_noise("scan_kernel_0"));
    assert_false(fp_kernel_is_noise("moe_reduce_kernel_0"));
    assert_false(fp_kernel_is_noise("elementwise_add_kernel_0"));
    assert_false(fp_kernel_is_noise("fused_cast_fill_kernel_0"));
    assert_false(fp_kernel_is_noise("flash_attn_func_kernel_0"));
    /* library kernels */
    assert_true(fp_kernel_is_noise("void at::native::vectorized_elementwise_kernel<4, float>(int, float)"));
    assert_true(fp_kernel_is_noise("Cijk_Ailk_Bljk_BBS_BH_MT128x128x64"));
    assert_true(fp_kernel_is_noise("void rocprim::detail::sort_keys_kernel<int>(int*)"));
    assert_true(fp_kernel_is_noise("__amd_rocclr_fillBufferAligned"));
    assert_true(fp_kernel_is_noise("triton_poi_fused_add_0"));
}

static fp_kcands make(void)
{
    static fp_kcand v[3];
    memset(v, 0, sizeof v);
    v[0].name = "at::native::reduce_kernel<512, 1>";
    v[0].total_ns = 900;
    v[0].noise = true;
    v[1].name = "softmax_kernel_0";
    v[1].total_ns = 500;
    v[2].name = "softmax_kernel_1";
    v[2].total_ns = 100;
    fp_kcands k = {.v = v, .n = 3};
    return k;
}

static void test_match(void **state)
{
    (void)state;
    fp_kcands k = make();
    fp_match_conf c;
    const char *names[] = {"softmax"};
    assert_int_equal(fp_match_kernel(&k, NULL, names, 1, &c), 1);
    assert_int_equal(c, FP_MATCH_NAME);
    assert_int_equal(fp_match_kernel(&k, "softmax_kernel_1", names, 1, &c), 2);
    assert_int_equal(c, FP_MATCH_EXACT);
    assert_int_equal(fp_match_kernel(&k, "kernel_1", names, 1, &c), 2);
    assert_int_equal(c, FP_MATCH_HINT);
    const char *other[] = {"gemm"};
    /* nothing matches: the heaviest non-library kernel, not the ATen one */
    assert_int_equal(fp_match_kernel(&k, NULL, other, 1, &c), 1);
    assert_int_equal(c, FP_MATCH_HEAVIEST);
    assert_string_equal(fp_match_conf_name(c), "heaviest");
    k.n = 1;
    assert_int_equal(fp_match_kernel(&k, NULL, other, 1, &c), -1);
    k.n = 0;
    assert_int_equal(fp_match_kernel(&k, NULL, other, 1, &c), -1);
}

static void test_regex_escape(void **state)
{
    (void)state;
    const char *name = "void f<int>(a.b*, c[2]) | x+y?";
    char *re = fp_regex_escape(name);
    assert_string_equal(re, "void f<int>\\(a\\.b\\*, c\\[2\\]\\) \\| x\\+y\\?");
    regex_t r;
    assert_int_equal(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(regexec(&r, name, 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&r, "void f<int>(aXb*, c[2]) | x+y?", 0, NULL, 0), 0);
    regfree(&r);
    free(re);
}

static void test_version_cmp(void **state)
{
    (void)state;
    assert_true(fp_version_cmp("1.1.0", "1.3.0") < 0);
    assert_true(fp_version_cmp("1.10.0", "1.3.0") > 0);
    assert_int_equal(fp_version_cmp("1.0", "1.0.0"), 0);
    assert_true(fp_version_cmp("0.6.0", "1.0.0") < 0);
}

static void test_stderr_scan(void **state)
{
    (void)state;
    fp_stderr_scan s;
    fp_scan_stderr("[rocprofv3] Fatal error: rocprof-trace-decoder library path not found in ['/opt/rocm/lib']\n",
                   &s);
    assert_true(s.decoder_missing);
    assert_true(s.fatal);
    assert_false(s.data_lost);
    assert_string_equal(s.first_fatal,
                        "[rocprofv3] Fatal error: rocprof-trace-decoder library path not found in ['/opt/rocm/lib']");
    /* "Data Lost" is bandwidth loss, not a full buffer: no retry (issue 18) */
    fp_scan_stderr("W... ATT decoder info: Data Lost (shader engine 0, dispatch 3)\n", &s);
    assert_false(s.data_lost);
    assert_true(s.bandwidth_loss);
    assert_false(s.stitch_incomplete);
    assert_false(s.decoder_missing);
    fp_scan_stderr("W... ATT decoder info: Wave incomplete (shader engine 0, dispatch 3)\n", &s);
    assert_true(s.data_lost);
    assert_false(s.bandwidth_loss);
    fp_scan_stderr("W... ATT decoder info: Stitch Incomplete (shader engine 0, dispatch 3)\n", &s);
    assert_true(s.stitch_incomplete);
    assert_false(s.data_lost);
    /* ROCm 7.0 (SDK 1.0.0) writes the fatal line without the [rocprofv3] prefix */
    fp_scan_stderr("some noise\nFatal error: YAML package is not installed. Run 'python3 -m pip install pyyaml' "
                   "or use JSON or text format\n",
                   &s);
    assert_true(s.fatal);
    assert_string_equal(s.first_fatal, "Fatal error: YAML package is not installed. Run 'python3 -m pip install "
                                       "pyyaml' or use JSON or text format");
    /* ... but not a phrase inside another line */
    fp_scan_stderr("W... a Fatal error: inside a log line\n", &s);
    assert_false(s.fatal);
    fp_scan_stderr(NULL, &s);
    assert_false(s.fatal);
    assert_int_equal(fp_att_buffer_default("1.0.0"), 0x10000000LL);
    assert_int_equal(fp_att_buffer_default("1.1.0"), 0x10000000LL);
    assert_int_equal(fp_att_buffer_default("1.3.0"), 0x18000000LL);
    assert_int_equal(fp_att_buffer_default(NULL), 0x10000000LL);
}

static void test_iterations(void **state)
{
    (void)state;
    unsigned v[2];
    assert_int_equal(fp_iter_auto(36, v), 2);
    assert_int_equal(v[0], 6);
    assert_int_equal(v[1], 8);
    assert_int_equal(fp_iter_auto(5, v), 2);
    assert_int_equal(v[0], 3);
    assert_int_equal(v[1], 5);
    assert_int_equal(fp_iter_auto(3, v), 1);
    assert_int_equal(v[0], 3);
    assert_int_equal(fp_iter_auto(1, v), 1); /* the prototype asked for iteration 2 of 1 */
    assert_int_equal(v[0], 1);
    unsigned *it;
    size_t n;
    fp_err err = {0};
    /* rocprofv3 semantics: "[6, [8-8]]" is the set {6, 8} */
    assert_int_equal(fp_iter_parse("[6, [8-8]]", &it, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(it[0], 6);
    assert_int_equal(it[1], 8);
    free(it);
    assert_int_equal(fp_iter_parse("[1-3],2,9", &it, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(it[3], 9);
    free(it);
    assert_int_equal(fp_iter_parse("[0]", &it, &n, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS);
    assert_int_equal(fp_iter_parse("5-2", &it, &n, &err), -1);
    assert_int_equal(fp_iter_parse("a", &it, &n, &err), -1);
    assert_int_equal(fp_iter_parse("[]", &it, &n, &err), -1);
    assert_int_equal(fp_iter_parse("1-999999", &it, &n, &err), -1);
}

static void test_shape_and_invocation(void **state)
{
    (void)state;
    fp_err err = {0};
    char *s = fp_shape_small("32768,8192,bf16", &err);
    assert_string_equal(s, "4096,8192,bf16");
    free(s);
    s = fp_shape_small("bf16,4", &err);
    assert_string_equal(s, "bf16,1");
    free(s);
    assert_null(fp_shape_small("bf16", &err));
    fp_invocation inv;
    assert_int_equal(fp_invocation_parse("A=1 B='x y' python3 \"t s.py\" --n=3 it\\'s", &inv, &err), 0);
    assert_int_equal(inv.nenv, 2);
    assert_string_equal(inv.env[1], "B=x y");
    assert_int_equal(inv.argc, 4);
    assert_string_equal(inv.argv[1], "t s.py");
    assert_string_equal(inv.argv[3], "it's");
    assert_null(inv.argv[4]);
    fp_invocation_free(&inv);
    assert_int_equal(fp_invocation_parse("A=1", &inv, &err), -1);
    assert_int_equal(fp_invocation_parse("echo 'x", &inv, &err), -1);
    assert_int_equal(fp_invocation_parse("", &inv, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noise),           cmocka_unit_test(test_match),
        cmocka_unit_test(test_regex_escape),    cmocka_unit_test(test_version_cmp),
        cmocka_unit_test(test_stderr_scan),     cmocka_unit_test(test_iterations),
        cmocka_unit_test(test_shape_and_invocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
