/*
 * test_input_yaml.c - the rocprofv3 input-file writer: exact text of a PMC and
 * an ATT job, types that must be refused, and kernel_iteration_range sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/input_yaml.h"
#include "flyprof/rpenv.h"

/* The JSON form (issue 18): {"jobs": [...]} that Python's json module reads
 * back to exactly the jobs, and the same refusals as the YAML form. */
static void test_json_form(void **state)
{
    (void)state;
    cJSON *jobs = cJSON_CreateArray();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kernel_include_regex", "a\\.b\"c");
    cJSON_AddStringToObject(j, "att_buffer_size", "0x10000000");
    cJSON_AddNumberToObject(j, "att_target_cu", 1);
    cJSON_AddBoolToObject(j, "advanced_thread_trace", 1);
    cJSON_AddItemToArray(jobs, j);
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err err = {0};
    assert_int_equal(fp_input_json_emit(jobs, &sb, &err), 0);
    cJSON *back = cJSON_Parse(sb.buf);
    assert_non_null(back);
    assert_int_equal(cJSON_GetArraySize(back), 1);
    assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(back, "jobs"), jobs, 1));
    /* a float is refused exactly as the YAML writer refuses it */
    cJSON_AddNumberToObject(j, "att_simd_select", 1.5);
    fp_sb_free(&sb);
    fp_sb_init(&sb);
    assert_int_equal(fp_input_json_emit(jobs, &sb, &err), -1);
    assert_int_equal(err.code, FP_INTERNAL);
    assert_int_equal((int)sb.len, 0);
    cJSON_Delete(back);
    cJSON_Delete(jobs);
    fp_sb_free(&sb);
}

/* rpenv.h: the inherited ROCPROF_* names, sorted; the decoder dirs of
 * ROCPROF_ATT_LIBRARY_PATH split on ':' with empty entries dropped. */
static void test_rocprof_env(void **state)
{
    (void)state;
    setenv("ROCPROF_OUTPUT_PATH", "/stale", 1);
    setenv("ROCPROF_ATT_LIBRARY_PATH", "/a::/b/c:", 1);
    setenv("XROCPROF_NOT", "1", 1);
    char **names = NULL;
    size_t n = fp_rocprof_env_inherited(&names);
    size_t want = 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            assert_true(strcmp(names[i - 1], names[i]) < 0);
        want += !strcmp(names[i], "ROCPROF_OUTPUT_PATH") || !strcmp(names[i], "ROCPROF_ATT_LIBRARY_PATH");
        assert_int_equal(strncmp(names[i], "ROCPROF_", 8), 0);
    }
    assert_int_equal(want, 2);
    fp_strv_free(names, n);
    char **dirs = NULL;
    n = fp_rocprof_att_lib_dirs(&dirs);
    assert_int_equal(n, 2);
    assert_string_equal(dirs[0], "/a");
    assert_string_equal(dirs[1], "/b/c");
    fp_strv_free(dirs, n);
    unsetenv("ROCPROF_ATT_LIBRARY_PATH");
    assert_int_equal(fp_rocprof_att_lib_dirs(&dirs), 0);
    unsetenv("ROCPROF_OUTPUT_PATH");
    unsetenv("XROCPROF_NOT");
}

static void test_pmc_and_att_jobs(void **state)
{
    (void)state;
    cJSON *jobs = cJSON_CreateArray();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kernel_include_regex", "my_kernel_0");
    cJSON_AddStringToObject(j, "kernel_iteration_range", "[8]");
    cJSON_AddStringToObject(j, "output_directory", "prof/pmc");
    cJSON *fmt = cJSON_AddArrayToObject(j, "output_format");
    cJSON_AddItemToArray(fmt, cJSON_CreateString("csv"));
    const char *pmc[] = {"SQ_WAVES", "TCC_HIT_sum"};
    cJSON_AddItemToObject(j, "pmc", cJSON_CreateStringArray(pmc, 2));
    cJSON_AddItemToArray(jobs, j);
    j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "advanced_thread_trace", 1);
    cJSON_AddNumberToObject(j, "att_target_cu", 1);
    cJSON_AddStringToObject(j, "att_shader_engine_mask", "0xf");
    cJSON_AddItemToArray(jobs, j);

    fp_sb sb;
    fp_sb_init(&sb);
    fp_err err = {0};
    assert_int_equal(fp_input_yaml_emit(jobs, &sb, &err), 0);
    const char *want = "jobs:\n"
                       "- kernel_include_regex: \"my_kernel_0\"\n"
                       "  kernel_iteration_range: \"[8]\"\n"
                       "  output_directory: \"prof/pmc\"\n"
                       "  output_format: [\"csv\"]\n"
                       "  pmc: [\"SQ_WAVES\", \"TCC_HIT_sum\"]\n"
                       "- advanced_thread_trace: true\n"
                       "  att_target_cu: 1\n"
                       "  att_shader_engine_mask: \"0xf\"\n";
    assert_string_equal(sb.buf, want);
    fp_sb_free(&sb);
    cJSON_Delete(jobs);
}

/* A regex with quotes, backslashes and a colon survives as one quoted scalar. */
static void test_escaping(void **state)
{
    (void)state;
    cJSON *jobs = cJSON_CreateArray();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kernel_include_regex", "a\"b\\c: d#e");
    cJSON_AddItemToArray(jobs, j);
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err err = {0};
    assert_int_equal(fp_input_yaml_emit(jobs, &sb, &err), 0);
    assert_non_null(strstr(sb.buf, "kernel_include_regex: \"a\\\"b\\\\c: d#e\"\n"));
    fp_sb_free(&sb);
    cJSON_Delete(jobs);
}

static void test_refused(void **state)
{
    (void)state;
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err err = {0};
    cJSON *jobs = cJSON_CreateObject();
    assert_int_equal(fp_input_yaml_emit(jobs, &sb, &err), -1);
    assert_int_equal(err.code, FP_INTERNAL);
    cJSON_Delete(jobs);

    jobs = cJSON_CreateArray();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "att_target_cu", 1.5); /* not an integer */
    cJSON_AddItemToArray(jobs, j);
    assert_int_equal(fp_input_yaml_emit(jobs, &sb, &err), -1);
    cJSON_Delete(jobs);

    jobs = cJSON_CreateArray();
    j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kernel-include-regex", "x"); /* hyphen: not a dest name */
    cJSON_AddItemToArray(jobs, j);
    assert_int_equal(fp_input_yaml_emit(jobs, &sb, &err), -1);
    cJSON_Delete(jobs);

    jobs = cJSON_CreateArray();
    j = cJSON_CreateObject();
    cJSON_AddNullToObject(j, "pmc");
    cJSON_AddItemToArray(jobs, j);
    assert_int_equal(fp_input_yaml_emit(jobs, &sb, &err), -1);
    cJSON_Delete(jobs);
    /* invalid UTF-8 in a value (found by tests/fuzz: libyaml left the event
     * uninitialised and emitting it was a double free) */
    static const char *const bad[] = {"T\xff\xff", "gemm\xc3", "\xed\xa0\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jobs = cJSON_CreateArray();
        j = cJSON_CreateObject();
        cJSON *pmc = cJSON_AddArrayToObject(j, "pmc");
        cJSON_AddItemToArray(pmc, cJSON_CreateString("SQ_WAVES"));
        cJSON_AddItemToArray(pmc, cJSON_CreateString(bad[i]));
        cJSON_AddStringToObject(j, "kernel_include_regex", bad[i]);
        cJSON_AddItemToArray(jobs, j);
        fp_err_clear(&err);
        assert_int_equal(fp_input_yaml_emit(jobs, &sb, &err), -1);
        assert_int_equal(err.code, FP_BAD_ARGS);
        assert_non_null(strstr(err.message, "not valid UTF-8"));
        cJSON_Delete(jobs);
    }
    assert_int_equal(sb.len, 0); /* nothing appended on failure */
    fp_sb_free(&sb);
}

static void check_range(const unsigned *v, size_t n, const char *want)
{
    fp_err err = {0};
    char *s = fp_iter_range_str(v, n, &err);
    assert_non_null(s);
    assert_string_equal(s, want);
    free(s);
}

static void test_iter_range(void **state)
{
    (void)state;
    unsigned a[] = {8};
    check_range(a, 1, "[8]");
    unsigned b[] = {8, 6};
    check_range(b, 2, "[6, 8]");
    unsigned c[] = {7, 3, 1, 2, 2};
    check_range(c, 5, "[1-3, 7]");
    unsigned d[] = {4, 5};
    check_range(d, 2, "[4-5]");
    fp_err err = {0};
    unsigned z[] = {0, 1};
    assert_null(fp_iter_range_str(z, 2, &err));
    assert_int_equal(err.code, FP_BAD_ARGS);
    assert_null(fp_iter_range_str(a, 0, &err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pmc_and_att_jobs),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_iter_range),
        cmocka_unit_test(test_json_form),
        cmocka_unit_test(test_rocprof_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
