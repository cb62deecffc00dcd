/* test_code.c - code.json reader: shapes, coercions the seed analyzer applies, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/att.h"

static int parse(const char *s, fp_code *c, fp_err *e)
{
    memset(e, 0, sizeof *e);
    return fp_code_parse(s, strlen(s), "code.json", c, e);
}

static void test_basic(void **state)
{
    (void)state;
    fp_code c;
    fp_err e;
    const char *doc = "{\"code\":[[\"; my_kernel\",0,0,\"\",4,5888,0,0,0,0],"
                      "[\"s_load_dword s4, s[0:1], 0x3c\",0,1,\"/k.py:872\",4,5888,32,128,0,992],"
                      "[\"s_waitcnt lgkmcnt(0)\",0,2,null,4,5900,32,41180,41180,0]],"
                      "\"header\":\"ISA, _, LineNumber\",\"version\":\"3.0.0\"}";
    assert_int_equal(parse(doc, &c, &e), 0);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.symbol, "my_kernel");
    assert_string_equal(c.rows[1].source, "/k.py:872");
    assert_string_equal(c.rows[2].source, "");
    assert_int_equal(c.rows[2].stall, 41180);
    assert_int_equal(c.rows[1].idle, 992);
    assert_int_equal(c.coerced_cells, 0);
    assert_ptr_equal(fp_code_at(&c, 2), &c.rows[2]);
    assert_null(fp_code_at(&c, 3));
    assert_null(fp_code_at(&c, -1));
    fp_code_free(&c);
}

static void test_coercions(void **state)
{
    (void)state;
    fp_code c;
    fp_err e;
    /* floats, strings and huge numbers in numeric cells read as 0, as in the seed analyzer */
    const char *doc = "{\"code\":[[\"v_add\",0,\"x\",\"\",4,5,1.5,\"7\",99999999999999999999,null]]}";
    assert_int_equal(parse(doc, &c, &e), 0);
    assert_int_equal(c.n, 1);
    assert_false(c.rows[0].index_ok);
    assert_int_equal(c.rows[0].hit, 0);
    assert_int_equal(c.rows[0].latency, 0);
    assert_int_equal(c.rows[0].stall, 0);
    assert_int_equal(c.coerced_cells, 5);
    fp_code_free(&c);
}

static void test_null_code(void **state)
{
    (void)state;
    fp_code c;
    fp_err e;
    assert_int_equal(parse("{\"code\":null,\"version\":\"3.0.0\"}", &c, &e), 0);
    assert_true(c.null_code);
    assert_int_equal(c.n, 0);
    fp_code_free(&c);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *bad[] = {
        "",
        "[]",
        "{\"code\":[[\"a\",0,1,\"\",4,5,6,7,8,9]]",            /* truncated */
        "{\"code\":[[\"a\",0,1,\"\",4,5,6,7,8]]}",              /* 9 columns */
        "{\"code\":[[1,0,1,\"\",4,5,6,7,8,9]]}",                /* ISA not a string */
        "{\"code\":[\"row\"]}",                                 /* row not an array */
        "{\"code\":{}}",                                        /* code not an array */
        "{\"header\":\"x\"}",                                   /* no code key */
        "{\"code\":[[\"a\",0,1,5,4,5,6,7,8,9]]}",               /* source a number */
        "{\"code\":[[\"a\",0,1000000000,\"\",4,5,6,7,8,9]]}",   /* absurd LineNumber */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fp_code c;
        fp_err e;
        if (parse(bad[i], &c, &e) != -1)
            fail_msg("accepted bad code.json #%zu", i);
        assert_int_equal(e.code, FP_BAD_INPUT);
        assert_null(c.rows);
        fp_err_clear(&e);
    }
}

static void test_split_lines(void **state)
{
    (void)state;
    char **lines;
    size_t n;
    const char *t = "a\r\nb\rc\n\nd";
    fp_split_lines(t, strlen(t), &lines, &n);
    assert_int_equal(n, 5);
    assert_string_equal(lines[0], "a");
    assert_string_equal(lines[1], "b");
    assert_string_equal(lines[2], "c");
    assert_string_equal(lines[3], "");
    assert_string_equal(lines[4], "d");
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),    cmocka_unit_test(test_coercions),
        cmocka_unit_test(test_null_code), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_split_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
