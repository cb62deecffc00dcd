/*
 * test_diff_doc.c - diff.json as a type (diff_doc.h): a real diff.json (two corpus
 * reports, flash_attn_func-small vs -small-after_loc_fix, as `flyprof diff` wrote it)
 * read with the strict reader and written back byte for byte; the envelope's extra
 * key; typed errors (a renamed key, a wrong type, an unknown key) with the exact
 * message.
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

#include "flyprof/diff_doc.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"

#define DOC FP_TEST_DATA "/docs/diff.json"

static void slurp(const char *path, fp_sb *out)
{
    fp_err err = {0};
    fp_sb_init(out);
    if (fp_read_file(path, out, &err))
        fail_msg("%s", err.message);
}

static void test_round_trip_real(void **state)
{
    (void)state;
    fp_diff_doc d;
    fp_err err = {0};
    if (fp_diff_read_file(DOC, &d, &err))
        fail_msg("%s", err.message);
    assert_int_equal(d.schema, 1);
    assert_string_equal(d.verdict.basis, "cycles_per_iteration"); /* the CSVs are one file: time void */
    assert_string_equal(d.code.identity, "unchanged");
    assert_true(d.nclasses > 0);
    assert_null(d.artifact);
    char tmp[] = "/tmp/fp_diff_doc_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(fp_diff_write_file(&d, tmp, &err), 0);
    fp_sb a, b;
    slurp(DOC, &a);
    slurp(tmp, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.buf, b.buf, a.len);
    fp_sb_free(&a);
    fp_sb_free(&b);
    unlink(tmp);
    /* the envelope: the same keys, then "artifact" (null without a file) */
    cJSON *e = fp_model_write(&fp_diff_envelope_schema, &d);
    const cJSON *last = e->child;
    while (last->next)
        last = last->next;
    assert_string_equal(last->string, "artifact");
    assert_true(cJSON_IsNull(last));
    cJSON_Delete(e);
    fp_diff_free(&d);
}

/* Parse the real document, apply `edit` to it, read strictly: the error message. */
static const char *read_edited(void (*edit)(cJSON *))
{
    static char msg[FP_ERR_MSG_MAX];
    fp_sb t;
    slurp(DOC, &t);
    cJSON *j = cJSON_Parse(t.buf);
    fp_sb_free(&t);
    assert_non_null(j);
    edit(j);
    fp_diff_doc d;
    fp_err err = {0};
    int rc = fp_model_read(&fp_diff_schema, j, &d, "diff.json", &err);
    cJSON_Delete(j);
    if (rc == 0) {
        fp_diff_free(&d);
        return NULL;
    }
    assert_int_equal(err.code, FP_BAD_INPUT);
    snprintf(msg, sizeof msg, "%s", err.message);
    return msg;
}

static void rename_overall(cJSON *j)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verdict");
    cJSON_AddItemToObject(v, "overal", cJSON_DetachItemFromObject(v, "overall"));
}

static void wrong_type(cJSON *j)
{
    cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "classes"), 1);
    cJSON_ReplaceItemInObject(c, "significant", cJSON_CreateString("no"));
}

static void unknown_key(cJSON *j)
{
    cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(j, "noise_floor"), "extra", 1);
}

static void envelope_key(cJSON *j) { cJSON_AddNullToObject(j, "artifact"); }

static void test_typed_errors(void **state)
{
    (void)state;
    assert_string_equal(read_edited(rename_overall), "diff.json: $.verdict.overal: unknown key");
    assert_string_equal(read_edited(wrong_type), "diff.json: $.classes[1].significant: expected a bool, got a string");
    assert_string_equal(read_edited(unknown_key), "diff.json: $.noise_floor.extra: unknown key");
    /* the envelope's key is not diff.json's */
    assert_string_equal(read_edited(envelope_key), "diff.json: $.artifact: unknown key");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_real),
        cmocka_unit_test(test_typed_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
