/*
 * test_tile_doc.c - tile.json as a type (tile_doc.h): real documents (the tile
 * advisor's search with a real kernel, an evaluated tile with its bound) read by the
 * strict reader and written again give the same bytes; typed errors with key paths.
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
#include "flyprof/tile_doc.h"

#define DATA FP_TEST_DATA "/model/"

static void round_trip(const char *path) { doc_round_trip(&fp_tile_doc_schema, path); }

static void test_round_trip(void **state)
{
    (void)state;
    round_trip(DATA "tile_search_real.json");
    round_trip(DATA "tile_evaluated.json");
}

static void test_typed(void **state)
{
    (void)state;
    fp_tile_doc d;
    fp_err err = {0};
    assert_int_equal(fp_tile_read_file(DATA "tile_evaluated.json", &d, &err), 0);
    assert_non_null(d.eval);
    assert_int_equal(d.eval->evaluated->tile.BM, 128);
    assert_true(d.eval->evaluated->ridge_ai.known);
    fp_tile_doc_free(&d);
    assert_int_equal(fp_tile_read_file(DATA "tile_search_real.json", &d, &err), 0);
    assert_non_null(d.search);
    assert_non_null(d.real_kernel);
    fp_tile_doc_free(&d);
}

static void expect_error(const char *json, const char *message)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    fp_tile_doc d;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&fp_tile_doc_schema, j, &d, "tile.json", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, message);
    cJSON_Delete(j);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("{\"evaluated\":{\"tile\":{\"BMX\":1}}}", "tile.json: $.evaluated.tile.BMX: unknown key");
    expect_error("{\"evaluated\":{\"lds\":{\"fits\":1}}}",
                 "tile.json: $.evaluated.lds.fits: expected a bool, got a number");
    expect_error("{\"soc\":{\"peaks_gflops\":{\"bf16\":\"x\"}}}",
                 "tile.json: $.soc.peaks_gflops.bf16: expected a number, got a string");
    expect_error("{\"schemax\":1}", "tile.json: $.schemax: unknown key");
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
