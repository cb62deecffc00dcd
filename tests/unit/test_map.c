/* test_map.c - source chains, exact FILE:LINE parsing, path-suffix matching, folded stacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/flamegraph.h"
#include "flyprof/map.h"

static void test_frames(void **state)
{
    (void)state;
    fp_frame *f;
    size_t n = fp_source_frames("/a/x.py:190 -> /b/y.py:5 -> c.py:notanumber", &f);
    assert_int_equal(n, 3);
    assert_string_equal(f[0].file, "/a/x.py");
    assert_int_equal(f[0].line, 190);
    assert_string_equal(f[1].file, "/b/y.py");
    assert_int_equal(f[1].line, 5);
    assert_string_equal(f[2].file, "c.py:notanumber");
    assert_int_equal(f[2].line, -1);
    fp_frames_free(f, n);
    assert_int_equal(fp_source_frames("", &f), 0);
    assert_null(f);
    n = fp_source_frames("C:/win/x.py:7", &f); /* split at the LAST colon */
    assert_string_equal(f[0].file, "C:/win/x.py");
    assert_int_equal(f[0].line, 7);
    fp_frames_free(f, n);
}

static void test_parse_file_line(void **state)
{
    (void)state;
    char *file;
    long line;
    fp_err e = {0};
    assert_int_equal(fp_parse_file_line("x.py:19", &file, &line, &e), 0);
    assert_string_equal(file, "x.py");
    assert_int_equal(line, 19);
    free(file);
    const char *bad[] = {"x.py", "x.py:", ":19", "x.py:1a", "x.py:-3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(fp_parse_file_line(bad[i], &file, &line, &e), -1);
        assert_int_equal(e.code, FP_USAGE);
        assert_null(file);
        fp_err_clear(&e);
    }
}

static void test_suffix(void **state)
{
    (void)state;
    assert_true(fp_path_suffix_match("/a/b/x.py", "x.py"));
    assert_true(fp_path_suffix_match("/a/b/x.py", "b/x.py"));
    assert_true(fp_path_suffix_match("/a/b/x.py", "/a/b/x.py"));
    assert_true(fp_path_suffix_match("/a/b/x.py", "/b/x.py"));
    assert_false(fp_path_suffix_match("/a/bx.py", "x.py"));
    assert_false(fp_path_suffix_match("/a/b/x.py", ".py"));
    assert_false(fp_path_suffix_match("/a/b/x.py", ""));
    assert_false(fp_path_suffix_match("x.py", "/a/x.py"));
    const char *paths[] = {"/k/x.py", "/k/y.py", "/o/x.py", "/k/x.py"};
    const char *which;
    assert_int_equal(fp_match_file("/k/y.py", paths, 4, &which), FP_FM_EXACT);
    assert_int_equal(fp_match_file("y.py", paths, 4, &which), FP_FM_SUFFIX);
    assert_string_equal(which, "/k/y.py");
    assert_int_equal(fp_match_file("x.py", paths, 4, &which), FP_FM_AMBIGUOUS);
    assert_int_equal(fp_match_file("k/x.py", paths, 4, &which), FP_FM_SUFFIX); /* duplicates count once */
    assert_int_equal(fp_match_file("z.py", paths, 4, &which), FP_FM_NONE);
}

static void test_folded(void **state)
{
    (void)state;
    fp_folded f = {0};
    char *fr = fp_flame_frame("a;b\nc");
    assert_string_equal(fr, "a:b c");
    free(fr);
    fp_folded_add(&f, "b;valu", 5);
    fp_folded_add(&f, "a;vmcnt", 7);
    fp_folded_add(&f, "b;valu", 1);
    fp_folded_add(&f, "c;zero", 0); /* ignored */
    fp_folded_finish(&f);
    fp_sb sb;
    fp_sb_init(&sb);
    fp_folded_write(&f, &sb);
    assert_string_equal(sb.buf, "a;vmcnt 7\nb;valu 6\n");
    fp_sb_reset(&sb);
    const char *hot[] = {"vmcnt", NULL};
    fp_flame_opts o = {"t<&>", "cycles", hot, 800, NULL, false};
    fp_flame_svg(&f, &o, &sb);
    assert_non_null(strstr(sb.buf, "t&lt;&amp;&gt; (13 cycles)"));
    assert_non_null(strstr(sb.buf, "<title>all (13 cycles, 100.00%)</title>"));
    assert_non_null(strstr(sb.buf, "<title>vmcnt (7 cycles, 53.85%)</title>"));
    assert_non_null(strstr(sb.buf, "</svg>"));
    fp_sb_free(&sb);
    fp_folded_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_parse_file_line),
        cmocka_unit_test(test_suffix),
        cmocka_unit_test(test_folded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
