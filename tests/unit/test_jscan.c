/* test_jscan.c - the fast JSON tokenizer: tokens, strictness, truncation, escapes, numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/jscan.h"

/* Tokenize the whole document; return number of tokens or -1 on error. */
static int count_tokens(const char *s)
{
    fp_jscan js;
    fp_js_init(&js, s, strlen(s));
    int n = 0;
    for (;;) {
        fp_jtok t = fp_js_next(&js);
        if (t == FP_JT_ERROR) {
            fp_js_free(&js);
            return -1;
        }
        if (t == FP_JT_END)
            break;
        n++;
    }
    fp_js_free(&js);
    return n;
}

static void test_valid_documents(void **state)
{
    (void)state;
    assert_int_equal(count_tokens("[]"), 2);
    assert_int_equal(count_tokens("{}"), 2);
    assert_int_equal(count_tokens(" {\"a\": [1, 2, {\"b\": null}], \"c\": true} "), 13);
    assert_int_equal(count_tokens("42"), 1);
    assert_int_equal(count_tokens("\"x\""), 1);
}

static void test_invalid_documents(void **state)
{
    (void)state;
    const char *bad[] = {"",          "[",         "[1,",      "[1,]",       "{\"a\"}",
                         "{\"a\":1,}", "{a:1}",     "[1 2]",    "[01]",       "[1.]",
                         "[-]",       "tru",       "[1] x",    "{\"a\":1}}", "\"abc",
                         "[\"\\x\"]", "[\"a\nb\"]", "{\"a\" 1}", "[1e]",       "nul"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (count_tokens(bad[i]) != -1)
            fail_msg("accepted invalid JSON: '%s'", bad[i]);
    }
}

static void test_numbers(void **state)
{
    (void)state;
    const char *doc = "[0, -7, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.5, 2e3]";
    fp_jscan js;
    fp_js_init(&js, doc, strlen(doc));
    assert_int_equal(fp_js_next(&js), FP_JT_ARR_BEGIN);
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_true(js.num_is_int);
    assert_int_equal(js.inum, 0);
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_int_equal(js.inum, -7);
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_true(js.num_is_int);
    assert_true(js.inum == INT64_MAX);
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_true(js.num_is_int);
    assert_true(js.inum == INT64_MIN);
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_false(js.num_is_int); /* overflows int64: a double */
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_false(js.num_is_int);
    assert_true(js.num == 1.5);
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_false(js.num_is_int);
    assert_true(js.num == 2000.0);
    assert_int_equal(fp_js_next(&js), FP_JT_ARR_END);
    assert_int_equal(fp_js_next(&js), FP_JT_END);
    fp_js_free(&js);
}

static void test_strings_and_keys(void **state)
{
    (void)state;
    const char *doc = "{\"k\\u00e9y\":\"a\\\"b\\\\c\\n\\ud83d\\ude00\",\"plain\":\"xyz\"}";
    fp_jscan js;
    fp_js_init(&js, doc, strlen(doc));
    assert_int_equal(fp_js_next(&js), FP_JT_OBJ_BEGIN);
    assert_int_equal(fp_js_next(&js), FP_JT_STRING);
    assert_true(js.is_key);
    assert_int_equal(js.str_len, 4);
    assert_memory_equal(js.str, "k\xc3\xa9y", 4);
    assert_int_equal(fp_js_next(&js), FP_JT_STRING);
    assert_false(js.is_key);
    assert_int_equal(js.str_len, 10);
    assert_memory_equal(js.str, "a\"b\\c\n\xf0\x9f\x98\x80", 10);
    assert_int_equal(fp_js_next(&js), FP_JT_STRING);
    assert_true(fp_js_str_eq(&js, "plain"));
    assert_int_equal(fp_js_next(&js), FP_JT_STRING);
    assert_true(fp_js_str_eq(&js, "xyz"));
    assert_int_equal(fp_js_next(&js), FP_JT_OBJ_END);
    assert_int_equal(fp_js_next(&js), FP_JT_END);
    fp_js_free(&js);
}

static void test_skip(void **state)
{
    (void)state;
    const char *doc = "{\"skip\":{\"a\":[1,[2,{\"b\":3}]]},\"keep\":5}";
    fp_jscan js;
    fp_js_init(&js, doc, strlen(doc));
    assert_int_equal(fp_js_next(&js), FP_JT_OBJ_BEGIN);
    assert_int_equal(fp_js_next(&js), FP_JT_STRING);
    assert_int_equal(fp_js_next(&js), FP_JT_OBJ_BEGIN);
    assert_true(fp_js_skip(&js));
    assert_int_equal(fp_js_next(&js), FP_JT_STRING);
    assert_true(fp_js_str_eq(&js, "keep"));
    assert_int_equal(fp_js_next(&js), FP_JT_NUMBER);
    assert_int_equal(js.inum, 5);
    assert_int_equal(fp_js_next(&js), FP_JT_OBJ_END);
    assert_int_equal(fp_js_next(&js), FP_JT_END);
    fp_js_free(&js);
}

static void test_depth_limit(void **state)
{
    (void)state;
    char deep[FP_JS_MAX_DEPTH * 2 + 8];
    size_t n = 0;
    for (int i = 0; i < FP_JS_MAX_DEPTH + 1; i++)
        deep[n++] = '[';
    deep[n] = '\0';
    assert_int_equal(count_tokens(deep), -1);
}

static void test_truncation_everywhere(void **state)
{
    (void)state;
    /* Every strict prefix of a valid document must be rejected, never crash. */
    const char *doc = "{\"code\":[[\"s_nop 0\",0,1,\"/a.py:3\",4,5,6,7,8,9]],\"v\":\"3.0.0\"}";
    size_t len = strlen(doc);
    for (size_t cut = 0; cut < len; cut++) {
        char buf[128];
        memcpy(buf, doc, cut);
        buf[cut] = '\0';
        if (count_tokens(buf) != -1)
            fail_msg("accepted a document truncated at %zu", cut);
    }
    assert_true(count_tokens(doc) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_documents), cmocka_unit_test(test_invalid_documents),
        cmocka_unit_test(test_numbers),         cmocka_unit_test(test_strings_and_keys),
        cmocka_unit_test(test_skip),            cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_truncation_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
