/*
 * test_bubbles_doc.c - the typed model of bubbles.json (bubbles_doc.h): a real
 * document (the analysis of the shipped example's dispatch, as `flyprof bubbles` writes
 * it: always present, so the test runs where the corpus is not)
 * read back by the strict reader and written again byte for byte; the --limit
 * view; and the typed errors with their exact messages.
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

#include "flyprof/bubbles.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"

#define DISPATCH FP_TEST_DATA "/../../examples/synthetic_gemm/att/ui_output_agent_4242_dispatch_3"

static void quiet(void *user, const char *msg) { (void)user, (void)msg; }

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

/* The document of the example dispatch, as the command builds it (resolved). */
static void real_doc(fp_bubbles_doc *d)
{
    fp_bubbles b;
    fp_err err = {0};
    memset(&b, 0, sizeof b);
    assert_int_equal(fp_bubbles_analyze(DISPATCH, FP_RANK_EXPOSED, &b, quiet, NULL, &err), 0);
    fp_bubbles_doc_build(&b, d);
    fp_bubbles_free(&b);
    d->dispatch.resolved = true;
    d->dispatch.tag = NULL; /* null, present */
    d->dispatch.dispatch = fp_optd_of(3);
    d->dispatch.resolved_by = fp_model_strdup("dispatch_dir");
    fp_bub_doc_inv *inv = fp_model_push((void **)&d->dispatch.inventory, &d->dispatch.n_inventory, sizeof *inv);
    inv->dir = fp_model_strdup("ui_output_agent_4242_dispatch_3");
    inv->dispatch = fp_optd_of(3);
    inv->waves = 3;
}

static void test_round_trip(void **state)
{
    (void)state;
    char p1[] = "/tmp/fp_bubdoc_XXXXXX";
    int fd = mkstemp(p1);
    assert_true(fd >= 0);
    close(fd);
    fp_bubbles_doc d, back;
    real_doc(&d);
    assert_true(d.n_hotspots > 0 && d.n_classes > 0 && d.n_simds > 0);
    fp_err err = {0};
    assert_int_equal(fp_bubbles_write_file(&d, p1, &err), 0);
    char *first = slurp(p1);
    /* the keys of a resolved document, in the file's order */
    assert_non_null(strstr(first, "\"symbol\":"));
    assert_non_null(strstr(first, "\"tag\":\tnull,\n\t\t\"dispatch\":\t3,\n\t\t\"resolved_by\":\t\"dispatch_dir\""));
    assert_int_equal(fp_bubbles_read_file(p1, &back, &err), 0);
    assert_true(back.dispatch.resolved);
    assert_null(back.dispatch.tag);
    assert_int_equal(back.n_hotspots, d.n_hotspots);
    assert_int_equal(back.hotspots[0].stall, d.hotspots[0].stall);
    assert_string_equal(back.hotspots[0].inst, d.hotspots[0].inst);
    /* read -> write: exactly the file's bytes */
    assert_int_equal(fp_bubbles_write_file(&back, p1, &err), 0);
    char *second = slurp(p1);
    assert_string_equal(first, second);
    /* the struct rounded in memory writes the same bytes and equals what was read */
    fp_model_round(&fp_bubbles_schema, &d);
    assert_true(d.totals.stall_pct == back.totals.stall_pct);
    assert_true(d.hotspots[0].gain_upper_pct == back.hotspots[0].gain_upper_pct);
    /* a computed document (report, bundle): no resolution keys at all */
    fp_bubbles_doc_free(&back);
    d.dispatch.resolved = false;
    free(d.dispatch.resolved_by);
    d.dispatch.resolved_by = NULL;
    fp_model_free(&fp_bub_doc_inv_schema, &d.dispatch.inventory[0]);
    free(d.dispatch.inventory);
    d.dispatch.inventory = NULL;
    d.dispatch.n_inventory = 0;
    assert_int_equal(fp_bubbles_write_file(&d, p1, &err), 0);
    char *third = slurp(p1);
    assert_null(strstr(third, "\"tag\""));
    assert_null(strstr(third, "\"resolved_by\""));
    assert_null(strstr(third, "\"inventory\""));
    assert_int_equal(fp_bubbles_read_file(p1, &back, &err), 0);
    assert_false(back.dispatch.resolved);
    assert_int_equal(fp_bubbles_write_file(&back, p1, &err), 0);
    char *fourth = slurp(p1);
    assert_string_equal(third, fourth);
    fp_bubbles_doc_free(&back);
    free(first), free(second), free(third), free(fourth);
    fp_bubbles_doc_free(&d);
    unlink(p1);
}

static void test_limit_view(void **state)
{
    (void)state;
    fp_bubbles_doc d, v;
    real_doc(&d);
    size_t total[FP_BUB_LIMITED];
    fp_bubbles_doc_limit(&d, 2, &v, total);
    assert_int_equal(total[0], d.n_hotspots);
    assert_int_equal(total[1], d.n_lines);
    assert_int_equal(total[2], d.n_files);
    assert_int_equal(total[3], d.waitcnt.n_producers);
    assert_int_equal(v.n_hotspots, d.n_hotspots < 2 ? d.n_hotspots : 2);
    assert_int_equal(v.n_lines, d.n_lines < 2 ? d.n_lines : 2);
    assert_true(v.hotspots == d.hotspots); /* a view: the same memory */
    assert_int_equal(d.n_classes, v.n_classes);
    assert_string_equal(fp_bub_limited_name(0), "hotspots");
    assert_string_equal(fp_bub_limited_name(1), "lines");
    assert_string_equal(fp_bub_limited_name(2), "files");
    assert_string_equal(fp_bub_limited_name(3), "producers");
    assert_null(fp_bub_limited_name(4));
    fp_bubbles_doc_limit(&d, 0, &v, NULL);
    assert_int_equal(v.n_hotspots, d.n_hotspots);
    fp_bubbles_doc_free(&d);
}

/* The real document as text with one edit made by `edit`, through the reader. */
static int read_edited(void (*edit)(cJSON *), fp_err *err)
{
    fp_bubbles_doc d, back;
    real_doc(&d);
    cJSON *j = fp_model_write(&fp_bubbles_schema, &d);
    fp_bubbles_doc_free(&d);
    edit(j);
    memset(err, 0, sizeof *err);
    int rc = fp_model_read(&fp_bubbles_schema, j, &back, "bubbles.json", err);
    if (rc == 0)
        fp_bubbles_doc_free(&back);
    cJSON_Delete(j);
    return rc;
}

static cJSON *first_hotspot(cJSON *j) { return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "hotspots"), 0); }

static void rename_stall(cJSON *j)
{
    cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "totals");
    cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(t, "stall");
    cJSON_AddItemToObject(t, "stalls", v);
}

static void stall_as_string(cJSON *j)
{
    cJSON_ReplaceItemInObjectCaseSensitive(first_hotspot(j), "stall", cJSON_CreateString("12"));
}

static void stray_key(cJSON *j)
{
    cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(first_hotspot(j), "waits_on"), 0);
    if (!w) /* the first hotspot waits on nothing: the key goes on the hotspot */
        w = first_hotspot(j);
    cJSON_AddNumberToObject(w, "extra", 1);
}

static void drop_quality_confidence(cJSON *j)
{
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "quality"), "confidence");
}

static void line_as_bool(cJSON *j)
{
    cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "lines"), 1);
    cJSON_ReplaceItemInObjectCaseSensitive(l, "line", cJSON_CreateTrue());
}

static void no_edit(cJSON *j) { (void)j; }

static void test_typed_errors(void **state)
{
    (void)state;
    fp_err err;
    assert_int_equal(read_edited(no_edit, &err), 0);
    assert_int_equal(read_edited(rename_stall, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, "bubbles.json: $.totals.stalls: unknown key");
    assert_int_equal(read_edited(stall_as_string, &err), -1);
    assert_string_equal(err.message, "bubbles.json: $.hotspots[0].stall: expected an integer, got a string");
    assert_int_equal(read_edited(stray_key, &err), -1);
    assert_non_null(strstr(err.message, ".extra: unknown key"));
    assert_int_equal(read_edited(drop_quality_confidence, &err), -1);
    assert_string_equal(err.message, "bubbles.json: $.quality.confidence: missing");
    assert_int_equal(read_edited(line_as_bool, &err), -1);
    assert_string_equal(err.message, "bubbles.json: $.lines[1].line: expected a number or null, got a bool");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_limit_view),
        cmocka_unit_test(test_typed_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
