/* test_markup.c - the views' escaping (markup.h): exact outputs on hostile and
 * non-Latin input; and realtime.json's reader as the timeline uses it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/markup.h"
#include "flyprof/realtime.h"

static void test_xml(void **state)
{
    (void)state;
    fp_sb sb;
    fp_sb_init(&sb);
    /* markup, a terminal OSC 52 (ESC ... BEL), DEL, a C1 control, an invalid byte */
    const char in[] = "<SCRIPT a=\"b\">'&\x1b]52;c;AA\x07\x7f\xc2\x85\xff";
    fp_mk_xml(&sb, in, strlen(in));
    assert_string_equal(sb.buf, "&lt;SCRIPT a=&quot;b&quot;&gt;&#39;&amp;\xEF\xBF\xBD]52;c;AA\xEF\xBF\xBD\xEF\xBF\xBD"
                                "\xEF\xBF\xBD\xEF\xBF\xBD");
    fp_sb_reset(&sb);
    fp_mk_xmls(&sb, "\xd1\x8f\xd0\xb4\tx\n"); /* Cyrillic, tab and newline kept */
    assert_string_equal(sb.buf, "\xd1\x8f\xd0\xb4\tx\n");
    fp_sb_reset(&sb);
    fp_mk_json(&sb, "a\"\\\x01\xe6\xbc\xa2\xff");
    assert_string_equal(sb.buf, "\"a\\\"\\\\\\u0001\xe6\xbc\xa2\xEF\xBF\xBD\"");
    fp_sb_free(&sb);
}

static void test_cut(void **state)
{
    (void)state;
    const char *s = "\xd1\x8f\xd0\xb4\xd1\x80\xd0\xb0.py"; /* 4 Cyrillic letters (2 bytes each) + ".py" */
    size_t n = strlen(s);
    assert_int_equal(fp_mk_chars(s, n), 7);
    assert_int_equal(fp_mk_prefix(s, n, 3), 6);  /* never 3 or 5: inside a letter */
    assert_int_equal(fp_mk_prefix(s, n, 100), n);
    assert_int_equal(fp_mk_suffix_start(s, n, 4), 6);
    assert_int_equal(fp_mk_suffix_start(s, n, 100), 0);
    const char *cjk = "\xe6\xbc\xa2\xe5\xad\x97";
    assert_int_equal(fp_mk_prefix(cjk, 6, 1), 3);
    assert_string_equal(fp_mk_short_path("/a/b/c.py:3", 1), "c.py:3");
    assert_string_equal(fp_mk_short_path("/a/b/c.py:3", 2), "b/c.py:3");
    assert_string_equal(fp_mk_short_path("c.py", 1), "c.py");
}

static void test_realtime(void **state)
{
    (void)state;
    /* main's reader (realtime.h) as the timeline uses it: first and last pair, the clock of each SE */
    const char ok[] = "{\"SE0\":[[6464,201717741804014],[100000,201717741808000],[314340,201717741818846]],"
                      "\"SE3\":[[4252,201717741804014],[312128,201717741818846]],\"metadata\":{\"frequency\":100000000}}";
    fp_realtime rt;
    fp_err err = {0};
    assert_int_equal(fp_realtime_parse(ok, strlen(ok), &rt, &err), 0);
    assert_int_equal(rt.n, 2);
    const fp_rt_se *s3 = fp_realtime_se(&rt, 3);
    assert_non_null(s3);
    assert_true(s3->gfx0 == 4252 && s3->gfx1 == 312128 && s3->real1 == 201717741818846LL);
    assert_true(rt.ses[0].gfx1 == 314340);
    /* (312128 - 4252) cycles in 14832 ticks of 100 MHz = 2075.7 MHz */
    double mhz = fp_realtime_mhz(&rt, s3);
    assert_true(mhz > 2075.7 && mhz < 2075.8);
    double a = 0, b = 1;
    assert_true(fp_realtime_ns(&rt, s3, 4252, &a) && fp_realtime_ns(&rt, &rt.ses[0], 6464, &b));
    assert_true(a == b); /* the two SEs' first pairs are the same reference time */
    fp_realtime_free(&rt);
    const char bad[] = "[]";
    assert_int_equal(fp_realtime_parse(bad, strlen(bad), &rt, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    fp_err_clear(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_realtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
