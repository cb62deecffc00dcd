/*
 * test_map_doc.c - map.json's table (map_doc.h): real documents written by
 * `flyprof map` (tests/data/map: the shipped example's top / --code-line /
 * --source-line selections, and the corpus case pa_mqa_logits_fp4-big, whose
 * dispatch has no source snapshots) read strictly and written back byte for
 * byte; fp_snippet's struct is the snippet the example's map.json holds; and the
 * typed errors of a renamed key, a wrong type and an unknown key.
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

#include <cjson/cJSON.h>

#include "flyprof/att.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/map.h"
#include "flyprof/map_doc.h"

#define DATA FP_TEST_DATA "/map/"
#define EXAMPLE_DISPATCH FP_TEST_DATA "/../../examples/synthetic_gemm/att/ui_output_agent_4242_dispatch_3"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    return b;
}

/* read -> write (no bundle: the paths as they are) -> the same bytes */
static void round_trip(const char *name, fp_map_doc *keep)
{
    char path[512], out[] = "/tmp/fp_test_map_doc_XXXXXX";
    snprintf(path, sizeof path, "%s%s", DATA, name);
    fp_map_doc d;
    fp_err err = {0};
    assert_int_equal(fp_map_read_file(path, &d, &err), 0);
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fp_map_write_file(out, &d, NULL, &err), 0);
    char *want = slurp(path), *got = slurp(out);
    assert_string_equal(got, want);
    free(want);
    free(got);
    unlink(out);
    /* a copy writes the same document */
    fp_map_doc cp;
    fp_model_copy(&fp_map_schema, &cp, &d);
    cJSON *a = fp_model_write(&fp_map_schema, &d), *b = fp_model_write(&fp_map_schema, &cp);
    char *ta = fp_json_print(a, false), *tb = fp_json_print(b, false);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    cJSON_Delete(a);
    cJSON_Delete(b);
    fp_map_free(&cp);
    if (keep)
        *keep = d;
    else
        fp_map_free(&d);
}

static void test_round_trip(void **state)
{
    (void)state;
    fp_map_doc d;
    round_trip("synthetic_top.json", &d);
    assert_int_equal(d.schema, 1);
    assert_string_equal(d.selection.kind, "top");
    assert_false(d.selection.query.is_num);
    assert_null(d.selection.query.str);
    assert_int_equal(d.nmappings, 25);
    assert_true(d.src_mapped_pct > 0);
    assert_string_equal(d.artifact, "map.json");
    fp_map_free(&d);

    round_trip("synthetic_code_line.json", &d);
    assert_string_equal(d.selection.kind, "code-line");
    assert_true(d.selection.query.is_num);
    assert_true(d.selection.query.num == 50);
    assert_int_equal(d.selection.count, 1);
    fp_map_free(&d);

    round_trip("synthetic_source_line.json", &d);
    assert_string_equal(d.selection.kind, "source-line");
    assert_string_equal(d.selection.query.str, "gemm_kernel.py:65");
    assert_string_equal(d.selection.file_match, "suffix");
    assert_true(d.mappings[0].matched_frame.known);
    fp_map_free(&d);

    round_trip("pa_mqa_logits_fp4_top.json", &d);
    assert_true(d.nmappings > 0);
    assert_null(d.mappings[0].snippet);
    assert_string_equal(d.mappings[0].confidence, "none");
    fp_map_free(&d);
}

/* the snippet map.c builds from the example's snapshots is the one map.json holds */
static void test_snippet(void **state)
{
    (void)state;
    fp_map_doc d;
    fp_err err = {0};
    assert_int_equal(fp_map_read_file(DATA "synthetic_top.json", &d, &err), 0);
    const fp_map_mapping *m = &d.mappings[0];
    assert_non_null(m->snippet);
    fp_snapshots snaps;
    assert_int_equal(fp_snapshots_load(EXAMPLE_DISPATCH, &snaps, &err), 0);
    fp_map_snippet *sn = fp_snippet(&snaps, m->frames[0].file, (long)m->frames[0].line.v, 2);
    assert_non_null(sn);
    cJSON *a = fp_model_write(&fp_map_snippet_schema, sn), *b = fp_model_write(&fp_map_snippet_schema, m->snippet);
    char *ta = fp_json_print(a, true), *tb = fp_json_print(b, true);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    cJSON_Delete(a);
    cJSON_Delete(b);
    fp_model_free(&fp_map_snippet_schema, sn);
    free(sn);
    assert_null(fp_snippet(&snaps, m->frames[0].file, 100000, 2)); /* out of range */
    assert_null(fp_snippet(&snaps, "nowhere.py", 3, 2));
    fp_snapshots_free(&snaps);
    fp_map_free(&d);
}

/* the example's top document with one edit applied by `edit` (a text replace) */
static int read_edited(const char *from, const char *to, fp_err *err)
{
    char *t = slurp(DATA "synthetic_top.json");
    char *at = strstr(t, from);
    assert_non_null(at);
    size_t lf = strlen(from), lt = strlen(to), n = strlen(t);
    char *e = malloc(n - lf + lt + 1);
    assert_non_null(e);
    memcpy(e, t, (size_t)(at - t));
    memcpy(e + (at - t), to, lt);
    strcpy(e + (at - t) + lt, at + lf);
    cJSON *j = cJSON_Parse(e);
    assert_non_null(j);
    fp_map_doc d;
    int rc = fp_model_read(&fp_map_schema, j, &d, "map.json", err);
    fp_map_free(&d);
    cJSON_Delete(j);
    free(e);
    free(t);
    return rc;
}

static void expect_error(const char *from, const char *to, const char *message)
{
    fp_err err = {0};
    assert_int_equal(read_edited(from, to, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, message);
    fp_err_clear(&err);
}

static void test_errors(void **state)
{
    (void)state;
    /* a renamed key: unknown first (a document with a stray key is not ours) */
    expect_error("\"src_mapped_pct\"", "\"src_mapped\"", "map.json: $.src_mapped: unknown key");
    /* wrong types, deep */
    expect_error("\"code_line\":\t50", "\"code_line\":\t\"50\"",
                 "map.json: $.mappings[0].code_line: expected an integer, got a string");
    expect_error("\"src_mapped_pct\":\t100", "\"src_mapped_pct\":\tnull",
                 "map.json: $.src_mapped_pct: expected a number, got null");
    expect_error("\"query\":\tnull", "\"query\":\t[]",
                 "map.json: $.selection.query: expected a number, a string or null, got an array");
    expect_error("\"hot\":\tfalse", "\"hot\":\t0",
                 "map.json: $.mappings[0].snippet.lines[0].hot: expected a bool, got a number");
    /* an unknown key */
    expect_error("\"schema\":\t1,", "\"schema\":\t1, \"extra\": 2,", "map.json: $.extra: unknown key");
    /* a missing key */
    expect_error("\"schema\":\t1,", "", "map.json: $.schema: missing");
    /* the file reader names the path */
    fp_map_doc d;
    fp_err err = {0};
    assert_int_equal(fp_map_read_file(DATA "nothere.json", &d, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_err_clear(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_snippet),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
