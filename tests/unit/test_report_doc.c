/*
 * test_report_doc.c - report.json and headlines.json as structs (report_doc.h):
 * a real report (the shipped example, and a corpus case when the corpus is there)
 * written, read back by the strict reader and written again gives the same bytes;
 * the in-memory document equals the one read from its file; and a malformed
 * report.json is BAD_INPUT naming the key path (renamed, mistyped, unknown,
 * missing keys).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/cli.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/report.h"
#include "flyprof/report_load.h"
#include "flyprof/report_doc.h"

static char *slurp(const char *path)
{
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err e = {0};
    assert_int_equal(fp_read_file(path, &sb, &e), 0);
    return fp_sb_detach(&sb);
}

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fp-test-report-doc-%ld", (long)getpid());
    fp_err e = {0};
    return fp_mkdir_p(tmpdir, &e);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Build the report of a bundle in memory (as `flyprof report` does). */
static void build(const char *bundle, fp_report_loaded *l)
{
    fp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.quiet = true;
    fp_err err = {0};
    int rc = fp_report_from_bundle(&ctx, bundle, NULL, -1, l, &err);
    if (rc)
        fail_msg("%s: %s", bundle, err.message);
    cJSON_Delete(ctx.warnings);
}

/* write -> read -> write: the same bytes, and the read document renders the same
 * REPORT.md / html / table / headlines as the built one. */
static void round_trip(const char *bundle, const char *name)
{
    fp_report_loaded l;
    build(bundle, &l);
    char a[512], b[512], ha[512], hb[512];
    snprintf(a, sizeof a, "%s/%s-report.json", tmpdir, name);
    snprintf(b, sizeof b, "%s/%s-report2.json", tmpdir, name);
    snprintf(ha, sizeof ha, "%s/%s-headlines.json", tmpdir, name);
    snprintf(hb, sizeof hb, "%s/%s-headlines2.json", tmpdir, name);
    fp_err err = {0};
    assert_int_equal(fp_report_write_file(&l.report, a, &err), 0);
    fp_report_doc back;
    if (fp_report_read_file(a, &back, &err))
        fail_msg("%s", err.message);
    assert_int_equal(fp_report_write_file(&back, b, &err), 0);
    char *ta = slurp(a), *tb = slurp(b);
    assert_string_equal(ta, tb);
    assert_true(back.nrecs == l.report.nrecs && back.ninstructions == l.report.ninstructions);
    assert_true(back.nsignals > 0);

    /* renderers: the struct in memory (rounded by fp_report_build) = the file's */
    const fp_report_doc *docs[2] = {&l.report, &back};
    char *out[2][3];
    for (int k = 0; k < 2; k++) {
        fp_sb md, tab, html;
        fp_sb_init(&md);
        fp_sb_init(&tab);
        fp_sb_init(&html);
        fp_report_markdown(docs[k], &md);
        fp_report_table(docs[k], &tab);
        fp_report_html(docs[k], NULL, NULL, &html);
        out[k][0] = fp_sb_detach(&md);
        out[k][1] = fp_sb_detach(&tab);
        out[k][2] = fp_sb_detach(&html);
    }
    for (int i = 0; i < 3; i++) {
        assert_string_equal(out[0][i], out[1][i]);
        free(out[0][i]);
        free(out[1][i]);
    }

    /* headlines.json: written, read strictly, written again */
    fp_headlines_doc hl, hback;
    fp_report_headlines(&l.report, &hl);
    assert_int_equal(fp_headlines_write_file(&hl, ha, &err), 0);
    if (fp_model_read_file(&fp_headlines_schema, ha, &hback, &err))
        fail_msg("%s", err.message);
    assert_int_equal(fp_headlines_write_file(&hback, hb, &err), 0);
    char *tha = slurp(ha), *thb = slurp(hb);
    assert_string_equal(tha, thb);
    assert_string_equal(hback.headline, l.report.headline);
    assert_true((hback.top_recommendation != NULL) == (l.report.nrecs > 0));
    free(tha);
    free(thb);
    fp_headlines_doc_free(&hl);
    fp_headlines_doc_free(&hback);
    free(ta);
    free(tb);
    fp_report_doc_free(&back);
    fp_report_loaded_free(&l);
}

static void test_round_trip_example(void **state)
{
    (void)state;
    round_trip(FP_TEST_DATA "/../../examples/synthetic_gemm", "example");
}

static void test_round_trip_corpus(void **state)
{
    (void)state;
    const char *d = FP_CORPUS "/flash_attn_func-big/att/ui_output_agent_38430_dispatch_44";
    if (!fp_is_dir(d))
        skip();
    round_trip(d, "corpus");
}

/* The example's report.json as cJSON (built once). */
static cJSON *example_json(void)
{
    fp_report_loaded l;
    build(FP_TEST_DATA "/../../examples/synthetic_gemm", &l);
    cJSON *j = fp_model_write(&fp_report_schema, &l.report);
    fp_report_loaded_free(&l);
    return j;
}

/* Set key `key` of the object at `obj` (a top-level key, or NULL for the top) of a
 * copy of the example's report.json to the JSON `value` (NULL: delete it; `rename`:
 * move the value under that name instead), read it strictly, and return the error. */
static const char *edited(const char *obj, int index, const char *key, const char *value, const char *rename)
{
    static char msg[FP_ERR_MSG_MAX];
    static cJSON *base;
    if (!base)
        base = example_json();
    cJSON *j = cJSON_Duplicate(base, 1);
    cJSON *o = obj ? cJSON_GetObjectItemCaseSensitive(j, obj) : j;
    if (index >= 0)
        o = cJSON_GetArrayItem(o, index);
    assert_non_null(o);
    if (rename) {
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(o, key);
        assert_non_null(v);
        cJSON_AddItemToObject(o, rename, v);
    } else if (value) {
        cJSON *v = cJSON_Parse(value);
        assert_non_null(v);
        if (cJSON_GetObjectItemCaseSensitive(o, key))
            cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
        else
            cJSON_AddItemToObject(o, key, v);
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    }
    fp_report_doc d;
    fp_err err = {0};
    int rc = fp_model_read(&fp_report_schema, j, &d, "report.json", &err);
    cJSON_Delete(j);
    if (rc == 0) {
        fp_report_doc_free(&d);
        return NULL;
    }
    assert_int_equal(err.code, FP_BAD_INPUT);
    snprintf(msg, sizeof msg, "%s", err.message);
    return msg;
}

static void test_typed_errors(void **state)
{
    (void)state;
    assert_null(edited(NULL, -1, "kernel", "\"k\"", NULL));
    /* a renamed key: the new name is unknown (unknown keys are checked first) */
    assert_string_equal(edited(NULL, -1, "totals", NULL, "total"), "report.json: $.total: unknown key");
    assert_string_equal(edited("totals", -1, "exposed", NULL, "exposed_cycles"),
                        "report.json: $.totals.exposed_cycles: unknown key");
    /* an unknown key */
    assert_string_equal(edited("capture_quality", -1, "extra", "1", NULL),
                        "report.json: $.capture_quality.extra: unknown key");
    /* wrong types, with the key path */
    assert_string_equal(edited("totals", -1, "stall", "\"big\"", NULL),
                        "report.json: $.totals.stall: expected an integer, got a string");
    assert_string_equal(edited("totals", -1, "stall_pct", "null", NULL),
                        "report.json: $.totals.stall_pct: expected a number, got null");
    assert_string_equal(edited(NULL, -1, "optimal", "0", NULL), "report.json: $.optimal: expected a bool, got a number");
    assert_string_equal(edited(NULL, -1, "launch", "[]", NULL),
                        "report.json: $.launch: expected an object or null, got an array");
    assert_string_equal(edited("signals", -1, "trace.scratch_insts", "\"0\"", NULL),
                        "report.json: $.signals.trace.scratch_insts: expected a number or null, got a string");
    assert_string_equal(edited("classes", 0, "rank", "1.5", NULL),
                        "report.json: $.classes[0].rank: expected an integer (32 bits), got a number");
    assert_string_equal(edited(NULL, -1, "summary", "[1]", NULL),
                        "report.json: $.summary[0]: expected a string, got a number");
    /* a missing key that is not optional; optional ones may be absent or present */
    assert_string_equal(edited(NULL, -1, "repro", NULL, NULL), "report.json: $.repro: missing");
    assert_null(edited("capture_quality", -1, "recapture", NULL, NULL));
    assert_null(edited("capture_quality", -1, "recapture", "\"x\"", NULL));
}

static void test_missing_key(void **state)
{
    (void)state;
    cJSON *j = example_json();
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "totals"), "exposed");
    fp_report_doc d;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&fp_report_schema, j, &d, "report.json", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, "report.json: $.totals.exposed: missing");
    cJSON *recs = cJSON_GetObjectItemCaseSensitive(j, "recommendations");
    assert_true(cJSON_GetArraySize(recs) > 0);
    cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(j, "totals"), "exposed", 1);
    cJSON_DeleteItemFromObjectCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(recs, 0), "acceptance"), "text");
    assert_int_equal(fp_model_read(&fp_report_schema, j, &d, "report.json", &err), -1);
    assert_string_equal(err.message, "report.json: $.recommendations[0].acceptance.text: missing");
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_example),
        cmocka_unit_test(test_round_trip_corpus),
        cmocka_unit_test(test_typed_errors),
        cmocka_unit_test(test_missing_key),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
