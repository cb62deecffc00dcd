/*
 * test_run_doc.c - run.json as a type (run_doc.h): real documents (a run with the
 * counters step inside capture and skipped steps, one with history, a failed one with
 * not-run steps) read by the strict reader and written again give the same bytes; the
 * step forms are told apart; typed errors with key paths.
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
#include "flyprof/run_doc.h"

#define DATA FP_TEST_DATA "/model/"

static void round_trip(const char *path) { doc_round_trip(&fp_run_doc_schema, path); }

static void test_round_trip(void **state)
{
    (void)state;
    round_trip(DATA "run_pmc.json");
    round_trip(DATA "run_history.json");
    round_trip(DATA "run_failed.json");
    round_trip(DATA "run_answer.json");
}

/* the answer (issue 21 item 1, a real `run --limit 2`): read back with its plan */
static void test_answer(void **state)
{
    (void)state;
    fp_run_doc d;
    fp_err err = {0};
    assert_int_equal(fp_run_read_file(DATA "run_answer.json", &d, &err), 0);
    assert_non_null(d.answer);
    assert_string_equal(d.answer->bound, "latency");
    assert_true(!strncmp(d.answer->speed_of_light, "Speed of light: HBM ", 20));
    assert_int_equal(d.answer->nrecs, 2);
    assert_string_equal(d.answer->recs[0].rule, "vmem_prefetch");
    assert_true(d.answer->recs[0].confidence > 0.89 && d.answer->recs[0].confidence < 0.91);
    assert_string_equal(d.answer->recs[1].evidence, "/workspace/flydsl-demo/kernels/gemm_kernel.py:65");
    assert_int_equal(d.answer->more_recommendations, 5);
    fp_run_doc_free(&d);
    assert_int_equal(fp_run_read_file(DATA "run_pmc.json", &d, &err), 0);
    assert_null(d.answer); /* absent: an older run.json, or a run that failed before its report */
    fp_run_doc_free(&d);
}

static void test_forms(void **state)
{
    (void)state;
    fp_run_doc d;
    fp_err err = {0};
    assert_int_equal(fp_run_read_file(DATA "run_pmc.json", &d, &err), 0);
    assert_int_equal(d.nsteps, 8);
    assert_int_equal(d.steps[0].form, FP_RUN_STEP_RAN);     /* doctor */
    assert_true(d.steps[0].has_summary);
    assert_int_equal(d.steps[1].form, FP_RUN_STEP_SKIPPED); /* tile */
    assert_int_equal(d.steps[3].form, FP_RUN_STEP_PMC);     /* counters */
    assert_string_equal(d.steps[3].via, "capture --with-pmc");
    assert_false(d.steps[4].has_summary);                   /* bubbles */
    fp_run_doc_free(&d);
    assert_int_equal(fp_run_read_file(DATA "run_history.json", &d, &err), 0);
    assert_true(d.steps[d.nsteps - 1].has_db);
    assert_true(d.steps[d.nsteps - 1].entry.known);
    fp_run_doc_free(&d);
    assert_int_equal(fp_run_read_file(DATA "run_failed.json", &d, &err), 0);
    assert_non_null(d.error);
    assert_string_equal(d.steps[0].status, "failed"); /* doctor: ran, not ready */
    assert_null(d.steps[0].error);
    assert_int_equal(d.steps[1].form, FP_RUN_STEP_NOT_RUN);
    fp_run_doc_free(&d);
}

static void expect_error(const char *json, const char *message)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    fp_run_doc d;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&fp_run_doc_schema, j, &d, "run.json", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, message);
    cJSON_Delete(j);
}

#define HEAD "{\"schema\":1,\"kernel\":\"k\",\"status\":\"ok\",\"tag\":\"big\",\"analysis_tag\":\"big\","
#define TAIL ",\"step_warnings\":[],\"seconds\":1,\"artifacts\":{}}"

static void test_errors(void **state)
{
    (void)state;
    expect_error(HEAD "\"steps\":[{\"name\":\"tile\",\"status\":\"skipped\",\"reasons\":\"x\"}]" TAIL,
                 "run.json: $.steps[0].reasons: unknown key");
    expect_error(HEAD "\"steps\":[{\"name\":\"tile\",\"status\":\"skipped\",\"reason\":\"x\",\"via\":\"y\"}]" TAIL,
                 "run.json: $.steps[0]: the keys fit none of the forms of a step");
    expect_error(HEAD "\"steps\":[{\"name\":\"tile\",\"status\":\"skipped\",\"reason\":3}]" TAIL,
                 "run.json: $.steps[0].reason: expected a string or null, got a number");
    expect_error("{\"schema\":1}", "run.json: $.kernel: missing");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_answer),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
