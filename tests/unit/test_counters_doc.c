/*
 * test_counters_doc.c - counters.json as a type (counters_doc.h): real documents (a
 * live run with its passes, an offline one from two counter CSVs) read by the strict
 * reader and written again give the same bytes; typed errors with key paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "doc_round_trip.h"

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"
#include "flyprof/counters_doc.h"

#define DATA FP_TEST_DATA "/model/"

static void round_trip(const char *path) { doc_round_trip(&fp_counters_doc_schema, path); }

static void test_round_trip(void **state)
{
    (void)state;
    round_trip(DATA "counters_live.json");
    round_trip(DATA "counters_offline.json");
}

static void test_typed(void **state)
{
    (void)state;
    fp_counters_doc d;
    fp_err err = {0};
    assert_int_equal(fp_counters_read_file(DATA "counters_live.json", &d, &err), 0);
    assert_non_null(d.live);
    assert_true(d.live->live.ngroups > 0);
    assert_non_null(d.live->live.groups[0].ran);
    assert_true(d.nmetrics > 0);
    assert_non_null(fp_counters_metric(&d, d.metrics[0].key));
    assert_null(fp_counters_metric(&d, "no_such_metric"));
    fp_counters_doc_free(&d);
    assert_int_equal(fp_counters_read_file(DATA "counters_offline.json", &d, &err), 0);
    assert_null(d.live);
    assert_int_equal(d.npasses, 2);
    fp_counters_doc_free(&d);
}

static void expect_error(const char *json, const char *message)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    fp_counters_doc d;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&fp_counters_doc_schema, j, &d, "counters.json", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, message);
    cJSON_Delete(j);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("{\"metrics\":{\"l2_hit_pct\":{\"valuex\":1}}}",
                 "counters.json: $.metrics.l2_hit_pct.valuex: unknown key");
    expect_error("{\"metrics\":{\"l2_hit_pct\":{\"value\":\"x\"}}}",
                 "counters.json: $.metrics.l2_hit_pct.value: expected a number, got a string");
    expect_error("{\"missing\":{\"waves\":[1]}}", "counters.json: $.missing.waves[0]: expected a string, got a number");
    expect_error("{\"arch\":\"gfx950\"}", "counters.json: $.arch: unknown key");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_typed),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
