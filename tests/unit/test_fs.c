/* test_fs.c - atomic writes, capped reads, sorted listings, path helpers, plain-name checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"

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

/* Issue 22 item 1: a symlink planted at the old predictable temp name or at the
 * artifact itself must not redirect the write; the artifact ends up a regular file. */
static void test_atomic_write_never_follows_symlinks(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_fs_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *victim = fp_path_join(tmpl, "victim.txt");
    fp_err e = {0};
    assert_int_equal(fp_write_atomic(victim, "precious", 8, &e), 0);
    char *art = fp_path_join(tmpl, "bubbles.json");
    char planted[4096];
    snprintf(planted, sizeof planted, "%s.tmp.%ld", art, (long)getpid());
    assert_int_equal(symlink(victim, planted), 0);
    assert_int_equal(fp_write_atomic(art, "{}\n", 3, &e), 0);
    fp_sb sb;
    fp_sb_init(&sb);
    assert_int_equal(fp_read_file(victim, &sb, &e), 0);
    assert_string_equal(sb.buf, "precious");
    struct stat st;
    assert_int_equal(lstat(art, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    /* the artifact itself a symlink: replaced, its target untouched */
    unlink(art);
    assert_int_equal(symlink(victim, art), 0);
    assert_int_equal(fp_write_atomic(art, "{\"a\":1}\n", 8, &e), 0);
    sb.len = 0;
    assert_int_equal(fp_read_file(victim, &sb, &e), 0);
    assert_string_equal(sb.buf, "precious");
    assert_int_equal(lstat(art, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    sb.len = 0;
    assert_int_equal(fp_read_file(art, &sb, &e), 0);
    assert_string_equal(sb.buf, "{\"a\":1}\n");
    fp_sb_free(&sb);
    /* only the planted link, the victim and the artifact remain: no temp left */
    char **names;
    size_t n;
    assert_int_equal(fp_list_dir(tmpl, &names, &n, &e), 0);
    assert_int_equal(n, 3);
    fp_strv_free(names, n);
    unlink(planted);
    unlink(art);
    unlink(victim);
    rmdir(tmpl);
    free(art);
    free(victim);
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

/* issue 10 (e): a FIFO where a trace file is expected made open() block forever.
 * alarm() turns a regression into a failure instead of a hung test. */
static void test_fifo_is_refused_at_once(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_fifo_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *path = fp_path_join(tmpl, "code.json");
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    fp_err e = {0};
    fp_sb sb;
    fp_sb_init(&sb);
    assert_int_equal(fp_read_file(path, &sb, &e), -1);
    assert_int_equal(e.code, FP_IO_ERROR);
    assert_non_null(strstr(e.message, "not a regular file (a FIFO)"));
    fp_err_clear(&e);
    fp_sb_free(&sb);
    fp_file_view v;
    assert_int_equal(fp_file_map(path, &v, &e), -1);
    assert_int_equal(e.code, FP_IO_ERROR);
    fp_err_clear(&e);
    fp_file_unmap(&v);
    cJSON *j = NULL;
    assert_int_equal(fp_json_parse_file(path, &j, &e), -1);
    assert_int_equal(e.code, FP_IO_ERROR);
    fp_err_clear(&e);
    /* a character device: refused without reading (a read of /dev/zero never ends) */
    fp_sb_init(&sb);
    assert_int_equal(fp_read_file("/dev/zero", &sb, &e), -1);
    assert_int_equal(e.code, FP_IO_ERROR);
    assert_non_null(strstr(e.message, "character device"));
    fp_err_clear(&e);
    fp_sb_free(&sb);
    alarm(0);
    unlink(path);
    rmdir(tmpl);
    free(path);
}

/* issue 10 (f): cJSON copies bytes >= 0x80 raw, so invalid UTF-8 in a string
 * made the envelope and artifacts invalid JSON. */
static void test_json_print_replaces_invalid_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
        size_t nrep;
    } cases[] = {
        {"plain", "plain", 0},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0},
        {"a\xff" "b", "a\xef\xbf\xbd" "b", 1},            /* never-valid byte */
        {"a\xc3", "a\xef\xbf\xbd", 1},                 /* truncated at the end */
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", 2},  /* overlong '/' */
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 3}, /* a surrogate */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 4}, /* > U+10FFFF */
        {"\xe2\x82x", "\xef\xbf\xbdx", 1},           /* maximal subpart = one U+FFFD */
        {"\xe2\x82\"", "\xef\xbf\xbd\"", 1},        /* a quote after a cut sequence survives */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t nrep = 99;
        char *t = fp_utf8_sanitize(strdup(cases[i].in), &nrep);
        assert_string_equal(t, cases[i].out);
        assert_int_equal(nrep, cases[i].nrep);
        free(t);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "isa\xff", "v_mov\xc3(\x80\x80");
    char *s = fp_json_print(o, false);
    assert_string_equal(s, "{\"isa\xef\xbf\xbd\":\"v_mov\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\"}");
    free(s);
    /* the artifact writer goes through the same printer */
    char tmpl[] = "/tmp/fp_utf8_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *path = fp_path_join(tmpl, "a.json");
    fp_err e = {0};
    assert_int_equal(fp_json_write_file(path, o, &e), 0);
    fp_sb sb;
    fp_sb_init(&sb);
    assert_int_equal(fp_read_file(path, &sb, &e), 0);
    assert_non_null(strstr(sb.buf, "v_mov\xef\xbf\xbd("));
    assert_null(strstr(sb.buf, "\xff"));
    fp_sb_free(&sb);
    unlink(path);
    rmdir(tmpl);
    free(path);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomic_write_and_read),
        cmocka_unit_test(test_atomic_write_never_follows_symlinks),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_utf8_padding),
        cmocka_unit_test(test_fifo_is_refused_at_once),
        cmocka_unit_test(test_json_print_replaces_invalid_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
