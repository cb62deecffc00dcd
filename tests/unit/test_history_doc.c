/*
 * test_history_doc.c - a history record as a type (history_doc.h): real `history
 * export` lines (corpus bundles added by `history add`) read with the strict
 * reader and written back byte for byte, the content hash of a line read back
 * equal to its "hash" (import checks this), and typed errors with the exact
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

#include "flyprof/fs.h"
#include "flyprof/history.h"
#include "flyprof/history_doc.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"

#define DOC FP_TEST_DATA "/docs/history.jsonl"

static void test_round_trip_real(void **state)
{
    (void)state;
    fp_sb t;
    fp_sb_init(&t);
    fp_err err = {0};
    if (fp_read_file(DOC, &t, &err))
        fail_msg("%s", err.message);
    size_t lines = 0;
    char *save = NULL;
    for (char *l = strtok_r(t.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save), lines++) {
        cJSON *j = cJSON_Parse(l);
        assert_non_null(j);
        fp_history_record r;
        if (fp_model_read(&fp_history_record_schema, j, &r, "history.jsonl", &err))
            fail_msg("%s", err.message);
        cJSON_Delete(j);
        assert_true(r.id.known);
        char h[65];
        fp_history_hash(&r, h);
        assert_string_equal(h, r.hash);
        cJSON *back = fp_model_write(&fp_history_record_schema, &r);
        char *s = cJSON_PrintUnformatted(back);
        assert_string_equal(s, l);
        free(s);
        cJSON_Delete(back);
        fp_history_record_free(&r);
    }
    assert_true(lines >= 2);
    fp_sb_free(&t);
}

/* The first line, `edit`ed, read strictly: the error message. */
static const char *read_edited(void (*edit)(cJSON *))
{
    static char msg[FP_ERR_MSG_MAX];
    fp_sb t;
    fp_sb_init(&t);
    fp_err err = {0};
    assert_int_equal(fp_read_file(DOC, &t, &err), 0);
    *strchr(t.buf, '\n') = 0;
    cJSON *j = cJSON_Parse(t.buf);
    fp_sb_free(&t);
    assert_non_null(j);
    edit(j);
    fp_history_record r;
    int rc = fp_model_read(&fp_history_record_schema, j, &r, "history.jsonl:1", &err);
    cJSON_Delete(j);
    if (rc == 0) {
        fp_history_record_free(&r);
        return NULL;
    }
    assert_int_equal(err.code, FP_BAD_INPUT);
    snprintf(msg, sizeof msg, "%s", err.message);
    return msg;
}

static void rename_commit(cJSON *j)
{
    cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "provenance");
    cJSON_AddItemToObject(p, "comit", cJSON_DetachItemFromObject(p, "commit"));
}

static void wrong_type(cJSON *j)
{
    cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "rules"), 0);
    cJSON_ReplaceItemInObject(r, "rank", cJSON_CreateNumber(1.5));
}

static void unknown_key(cJSON *j) { cJSON_AddStringToObject(j, "note", "x"); }

static void no_id(cJSON *j) { cJSON_DeleteItemFromObject(j, "id"); }

static void test_typed_errors(void **state)
{
    (void)state;
    assert_string_equal(read_edited(rename_commit), "history.jsonl:1: $.provenance.comit: unknown key");
    assert_string_equal(read_edited(wrong_type), "history.jsonl:1: $.rules[0].rank: expected an integer, got a number");
    assert_string_equal(read_edited(unknown_key), "history.jsonl:1: $.note: unknown key");
    assert_null(read_edited(no_id)); /* a record not stored yet has no id */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_real),
        cmocka_unit_test(test_typed_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
