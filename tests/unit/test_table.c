/* test_table.c - table width choice, wrapping, source path shortening, error details. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/table.h"

static char *fit(const char *in, int width, const char *root)
{
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_adds(&sb, in);
    fp_table_fit(&sb, width, root);
    return fp_sb_detach(&sb);
}

static void test_width_choice(void **state)
{
    (void)state;
    assert_int_equal(fp_table_width(true, true, "80"), 0);
    assert_int_equal(fp_table_width(false, false, "60"), 100); /* not a terminal: $COLUMNS ignored */
    assert_int_equal(fp_table_width(false, true, "60"), 60);
    assert_int_equal(fp_table_width(false, true, "200"), 200);
    assert_int_equal(fp_table_width(false, true, "12"), 100);  /* absurd */
    assert_int_equal(fp_table_width(false, true, "abc"), 100);
    assert_int_equal(fp_table_width(false, true, NULL), 100);
}

static void test_wrap(void **state)
{
    (void)state;
    /* fits: untouched */
    char *s = fit("short line\n", 20, NULL);
    assert_string_equal(s, "short line\n");
    free(s);
    /* wrapped at the last space, hanging indent under the text after the label */
    s = fit("  label   one two three four five six\n", 24, NULL);
    assert_string_equal(s, "  label   one two three\n"
                           "          four five six\n");
    free(s);
    /* no space: cut hard; continuation two deeper */
    s = fit("abcdefghijklmnopqrstuvwxyz\n", 10, NULL);
    assert_string_equal(s, "abcdefghij\n  klmnopqr\n  stuvwxyz\n");
    free(s);
    /* columns are code points: 10 box characters fit 10 columns */
    s = fit("\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90\xe2\x95\x90"
            "\xe2\x95\x90\xe2\x95\x90\n",
            10, NULL);
    assert_int_equal(fp_utf8_cols(s, strlen(s)), 11);
    free(s);
    /* width 0 = --wide: untouched */
    s = fit("a b c d e f g h i j k l m n o p\n", 0, NULL);
    assert_string_equal(s, "a b c d e f g h i j k l m n o p\n");
    free(s);
}

static void test_paths(void **state)
{
    (void)state;
    /* shortest unique suffix; the same path always the same form */
    char *s = fit("at /ws/lab/kernels/pa.py:12 and /ws/lab/kernels/pa.py:40\n"
                  "via /ws/build/flydsl/expr/numeric.py:872 -> /ws/lab/kernels/pa.py:9\n",
                  0, NULL);
    assert_string_equal(s, "at pa.py:12 and pa.py:40\nvia numeric.py:872 -> pa.py:9\n");
    free(s);
    /* two files with the same name: one more component each */
    s = fit("/a/x/util.py:1 /a/y/util.py:2\n", 0, NULL);
    assert_string_equal(s, "x/util.py:1 y/util.py:2\n");
    free(s);
    /* after "=": a path too */
    s = fit("src=/ws/lab/kernels/pa.py:3\n", 0, NULL);
    assert_string_equal(s, "src=pa.py:3\n");
    free(s);
    /* under the worktree root: relative to it */
    s = fit("see /wt/FlyDSL/kernels/gemm.py:65\n", 0, "/wt/FlyDSL/");
    assert_string_equal(s, "see kernels/gemm.py:65\n");
    free(s);
    /* not source paths: directories, artifacts, URLs */
    s = fit("bundle: /tmp/run/b\nwrote /tmp/run/b/report.json; http://x/y/z.py\n", 0, NULL);
    assert_string_equal(s, "bundle: /tmp/run/b\nwrote /tmp/run/b/report.json; http://x/y/z.py\n");
    free(s);
}

static void test_error_details(void **state)
{
    (void)state;
    cJSON *x = cJSON_CreateObject();
    cJSON *av = cJSON_AddArrayToObject(x, "available");
    for (int i = 1; i <= 3; i++)
        cJSON_AddItemToArray(av, cJSON_CreateNumber(i));
    cJSON *c = cJSON_AddArrayToObject(x, "candidates");
    for (int i = 0; i < 3; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "calls", 10 + i);
        cJSON_AddStringToObject(o, "name", i == 0 ? "k0" : i == 1 ? "k1" : "k2");
        cJSON_AddItemToArray(c, o);
    }
    fp_sb sb;
    fp_sb_init(&sb);
    fp_table_error_details(x, 2, &sb);
    assert_string_equal(sb.buf, "  available: 1, 2, (1 more; -f json for all)\n"
                                "  candidates:\n    name=k0 calls=10\n    name=k1 calls=11\n"
                                "    (1 more; -f json for all)\n");
    fp_sb_free(&sb);
    cJSON_Delete(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width_choice),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_error_details),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
