/* test_fs.c - atomic writes, capped reads, sorted listings, path helpers, plain-name checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "flyprof/fs.h"

static void test_atomic_write_and_read(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_fs_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *path = fp_path_join(tmpl, "a/b/c.json");
    fp_err e = {0};
    assert_int_equal(fp_write_atomic(path, "{\"x\":1}\n", 8, &e), 0);
    fp_sb sb;
    fp_sb_init(&sb);
    assert_int_equal(fp_read_file(path, &sb, &e), 0);
    assert_string_equal(sb.buf, "{\"x\":1}\n");
    fp_sb_free(&sb);

    /* no temp file left behind */
    char *dir = fp_path_join(tmpl, "a/b");
    char **names;
    size_t n;
    assert_int_equal(fp_list_dir(dir, &names, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "c.json");
    fp_strv_free(names, n);

    /* a missing file is NO_ARTIFACT, a directory is IO_ERROR */
    fp_sb_init(&sb);
    char *missing = fp_path_join(tmpl, "nope.json");
    assert_int_equal(fp_read_file(missing, &sb, &e), -1);
    assert_int_equal(e.code, FP_NO_ARTIFACT);
    assert_int_equal(fp_read_file(dir, &sb, &e), -1);
    assert_int_equal(e.code, FP_IO_ERROR);
    fp_sb_free(&sb);

    /* writing under a path whose parent is a file fails cleanly */
    char *under_file = fp_path_join(path, "x.json");
    assert_int_equal(fp_write_atomic(under_file, "x", 1, &e), -1);
    assert_int_equal(e.code, FP_IO_ERROR);

    unlink(path);
    rmdir(dir);
    char *a = fp_path_join(tmpl, "a");
    rmdir(a);
    rmdir(tmpl);
    free(a);
    free(under_file);
    free(missing);
    free(dir);
    free(path);
}

static void test_paths(void **state)
{
    (void)state;
    char *j = fp_path_join("a/", "/b");
    assert_string_equal(j, "a/b");
    free(j);
    j = fp_path_join("/", "x");
    assert_string_equal(j, "/x");
    free(j);
    assert_string_equal(fp_path_base("a/b/c"), "c");
    assert_string_equal(fp_path_base("a/b/"), "");
    assert_string_equal(fp_path_base("c"), "c");
    assert_true(fp_is_plain_name("source_0_k.py"));
    assert_false(fp_is_plain_name("../../etc/passwd"));
    assert_false(fp_is_plain_name(".."));
    assert_false(fp_is_plain_name(""));
    assert_false(fp_is_plain_name("a\\b"));
    assert_false(fp_is_plain_name("/etc/passwd"));
}

static void test_utf8_padding(void **state)
{
    (void)state;
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_pad_left(&sb, "\xe2\x96\x88x", 4); /* "█x" is 2 code points, 4 bytes */
    assert_string_equal(sb.buf, "\xe2\x96\x88x  ");
    fp_sb_reset(&sb);
    fp_sb_pad_right(&sb, "ab", 4);
    assert_string_equal(sb.buf, "  ab");
    fp_sb_reset(&sb);
    fp_sb_pad_left(&sb, "toolong", 3);
    assert_string_equal(sb.buf, "toolong");
    fp_sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomic_write_and_read),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_utf8_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
