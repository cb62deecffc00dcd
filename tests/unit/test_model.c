/*
 * test_model.c - the table-driven artifact engine (model.h): the writer's exact
 * bytes for every kind, the strict reader's round trip and its typed errors with
 * key paths, rounding in place, deep copy and free.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/model.h"

typedef struct item {
    char *name;
    int64_t n;
} item;

static const fp_field item_fields[] = {
    FP_STR(item, name, "name", 0),
    FP_I64(item, n, "n", 0),
};
static const fp_schema item_schema = {"item", sizeof(item), FP_FIELDS(item_fields), false};

typedef struct inner {
    double x;
    fp_optd y;
} inner;

static const fp_field inner_fields[] = {
    FP_NUM(inner, x, "x", 1, 0),
    FP_OPTD(inner, y, "y", 0, 0),
};
static const fp_schema inner_schema = {"inner", sizeof(inner), FP_FIELDS(inner_fields), false};

typedef struct doc {
    int schema;
    int64_t big;
    double pct;
    fp_optd maybe;
    bool flag;
    fp_optb tri;
    char *s;
    char *gone;     /* omitted when NULL */
    inner in;
    inner *inp;
    item *items;
    size_t nitems;
    char **tags;
    size_t ntags;
    double *xs;
    size_t nxs;
    int added;      /* optional on read */
} doc;

static const fp_field doc_fields[] = {
    FP_INT(doc, schema, "schema", 0),
    FP_I64(doc, big, "big", 0),
    FP_NUM(doc, pct, "pct", 2, 0),
    FP_OPTD(doc, maybe, "maybe", 3, 0),
    FP_BOOL(doc, flag, "flag", 0),
    FP_OPTB(doc, tri, "tri", 0),
    FP_STR(doc, s, "s", 0),
    FP_STR(doc, gone, "gone", FP_F_OMIT_NULL),
    FP_OBJ(doc, in, "in", &inner_schema, 0),
    FP_OBJP(doc, inp, "inp", &inner_schema, 0),
    FP_ARR(doc, items, nitems, "items", &item_schema, 0),
    FP_STRS(doc, tags, ntags, "tags", 0),
    FP_NUMS(doc, xs, nxs, "xs", 1, 0),
    FP_INT(doc, added, "added", FP_F_OPTIONAL),
};
static const fp_schema doc_schema = {"doc", sizeof(doc), FP_FIELDS(doc_fields), false};

static char *compact(const cJSON *j) { return fp_json_print_bytes(j, false, NULL); }

static void fill(doc *d)
{
    memset(d, 0, sizeof *d);
    d->schema = 1;
    d->big = 4294967296123LL; /* past 32 bits */
    d->pct = 12.3456;
    d->maybe = fp_optd_none();
    d->flag = true;
    d->tri = (fp_optb){true, false};
    d->s = fp_model_strdup("h\xc3\xa9llo");
    d->in = (inner){0.25, fp_optd_of(7.6)};
    d->inp = NULL;
    item *it = fp_model_push((void **)&d->items, &d->nitems, sizeof(item));
    it->name = fp_model_strdup("a");
    it->n = 3;
    it = fp_model_push((void **)&d->items, &d->nitems, sizeof(item));
    it->name = NULL;
    it->n = -4;
    fp_model_push_str(&d->tags, &d->ntags, "t1");
    double *x = fp_model_push((void **)&d->xs, &d->nxs, sizeof(double));
    *x = 1.25;
    d->added = 5;
}

static const char *FILLED =
    "{\"schema\":1,\"big\":4294967296123,\"pct\":12.35,\"maybe\":null,\"flag\":true,\"tri\":false,"
    "\"s\":\"h\xc3\xa9llo\",\"in\":{\"x\":0.3,\"y\":8},\"inp\":null,\"items\":[{\"name\":\"a\",\"n\":3},"
    "{\"name\":null,\"n\":-4}],\"tags\":[\"t1\"],\"xs\":[1.3],\"added\":5}";

static void test_write_bytes(void **state)
{
    (void)state;
    doc d;
    fill(&d);
    cJSON *j = fp_model_write(&doc_schema, &d);
    char *t = compact(j);
    assert_string_equal(t, FILLED);
    free(t);
    cJSON_Delete(j);
    /* OMIT_NULL: present when set */
    d.gone = fp_model_strdup("here");
    j = fp_model_write(&doc_schema, &d);
    t = compact(j);
    assert_non_null(strstr(t, "\"s\":\"h\xc3\xa9llo\",\"gone\":\"here\",\"in\""));
    free(t);
    cJSON_Delete(j);
    fp_model_free(&doc_schema, &d);
    assert_null(d.s);
    assert_int_equal(d.nitems, 0);
}

static void test_round_trip(void **state)
{
    (void)state;
    doc d, back;
    fill(&d);
    fp_model_round(&doc_schema, &d);
    assert_true(d.pct == 12.35);
    assert_true(d.in.x == 0.3);
    assert_true(d.in.y.v == 8.0);
    cJSON *j = fp_model_write(&doc_schema, &d);
    fp_err err = {0};
    assert_int_equal(fp_model_read(&doc_schema, j, &back, "t.json", &err), 0);
    assert_int_equal(back.schema, 1);
    assert_true(back.pct == d.pct);
    assert_false(back.maybe.known);
    assert_true(back.tri.known);
    assert_false(back.tri.v);
    assert_string_equal(back.s, d.s);
    assert_null(back.gone);
    assert_null(back.inp);
    assert_int_equal(back.nitems, 2);
    assert_string_equal(back.items[0].name, "a");
    assert_null(back.items[1].name);
    assert_int_equal(back.items[1].n, -4);
    assert_int_equal(back.ntags, 1);
    assert_string_equal(back.tags[0], "t1");
    assert_true(back.xs[0] == 1.3);
    /* the same bytes again */
    cJSON *j2 = fp_model_write(&doc_schema, &back);
    char *a = compact(j), *b = compact(j2);
    assert_string_equal(a, b);
    free(a);
    free(b);
    cJSON_Delete(j);
    cJSON_Delete(j2);
    /* a deep copy is independent of its source */
    doc c;
    fp_model_copy(&doc_schema, &c, &back);
    fp_model_free(&doc_schema, &back);
    assert_string_equal(c.items[0].name, "a");
    assert_string_equal(c.tags[0], "t1");
    fp_model_free(&doc_schema, &c);
    fp_model_free(&doc_schema, &d);
}

/* Parse `text`, replace key `key` of the top object by `value` (JSON text, or NULL
 * to delete it), read, and return the error message (static). */
static const char *read_error(const char *key, const char *value)
{
    static char msg[FP_ERR_MSG_MAX];
    cJSON *j = cJSON_Parse(FILLED);
    assert_non_null(j);
    if (value) {
        cJSON *v = cJSON_Parse(value);
        assert_non_null(v);
        if (cJSON_GetObjectItemCaseSensitive(j, key))
            cJSON_ReplaceItemInObjectCaseSensitive(j, key, v);
        else
            cJSON_AddItemToObject(j, key, v);
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(j, key);
    }
    doc d;
    fp_err err = {0};
    int rc = fp_model_read(&doc_schema, j, &d, "t.json", &err);
    cJSON_Delete(j);
    if (rc == 0) {
        fp_model_free(&doc_schema, &d);
        return NULL;
    }
    assert_int_equal(err.code, FP_BAD_INPUT);
    /* nothing left owned after a failed read */
    assert_null(d.s);
    assert_null(d.items);
    snprintf(msg, sizeof msg, "%s", err.message);
    return msg;
}

static void test_read_errors(void **state)
{
    (void)state;
    assert_null(read_error("added", NULL));   /* optional */
    assert_null(read_error("gone", "\"x\"")); /* an omitted key may be present */
    assert_null(read_error("gone", "null"));
    assert_string_equal(read_error("pct", NULL), "t.json: $.pct: missing");
    assert_string_equal(read_error("pct", "\"12\""), "t.json: $.pct: expected a number, got a string");
    assert_string_equal(read_error("extra", "1"), "t.json: $.extra: unknown key");
    assert_string_equal(read_error("schema", "1.5"), "t.json: $.schema: expected an integer (32 bits), got a number");
    assert_string_equal(read_error("schema", "3000000000"), "t.json: $.schema: expected an integer (32 bits), got a number");
    assert_string_equal(read_error("big", "1e300"), "t.json: $.big: expected an integer, got a number");
    assert_string_equal(read_error("flag", "null"), "t.json: $.flag: expected a bool, got null");
    assert_string_equal(read_error("s", "[]"), "t.json: $.s: expected a string or null, got an array");
    assert_string_equal(read_error("in", "{\"x\":1}"), "t.json: $.in.y: missing");
    assert_string_equal(read_error("in", "{\"x\":1,\"y\":true}"), "t.json: $.in.y: expected a number or null, got a bool");
    assert_string_equal(read_error("inp", "{\"x\":1,\"y\":null,\"z\":0}"), "t.json: $.inp.z: unknown key");
    assert_string_equal(read_error("items", "[{\"name\":\"a\",\"n\":1},{\"name\":\"b\",\"n\":\"2\"}]"),
                        "t.json: $.items[1].n: expected an integer, got a string");
    assert_string_equal(read_error("items", "[3]"), "t.json: $.items[0]: expected an object, got a number");
    assert_string_equal(read_error("tags", "[\"a\",null]"), "t.json: $.tags[1]: expected a string, got null");
    assert_string_equal(read_error("xs", "{}"), "t.json: $.xs: expected an array, got an object");
    /* an object pointer that was read is owned, and freed on a later error */
    assert_string_equal(read_error("inp", "{\"x\":1,\"y\":[]}"), "t.json: $.inp.y: expected a number or null, got an array");
}

static void test_not_an_object(void **state)
{
    (void)state;
    cJSON *j = cJSON_Parse("[1]");
    doc d;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&doc_schema, j, &d, "t.json", &err), -1);
    assert_string_equal(err.message, "t.json: $: expected an object, got an array");
    cJSON_Delete(j);
    /* a repeated key is not silently the first one */
    j = cJSON_Parse("{\"schema\":1,\"schema\":2}");
    assert_int_equal(fp_model_read(&doc_schema, j, &d, "t.json", &err), -1);
    assert_string_equal(err.message, "t.json: $.schema: key repeated");
    cJSON_Delete(j);
}

/* FP_F_IF: a key absent in some documents and null in others (bubbles.json's dispatch.tag). */
typedef struct cond {
    char *name;
    bool has;
    char *tag;
    fp_optd n;
} cond;

static const fp_field cond_fields[] = {
    FP_STR(cond, name, "name", 0),
    FP_STR_IF(cond, tag, "tag", has),
    FP_OPTD_IF(cond, n, "n", 0, has),
};
static const fp_schema cond_schema = {"cond", sizeof(cond), FP_FIELDS(cond_fields), false};

static void test_present_if(void **state)
{
    (void)state;
    cond c = {fp_model_strdup("a"), false, NULL, fp_optd_none()};
    cJSON *j = fp_model_write(&cond_schema, &c);
    char *t = compact(j);
    assert_string_equal(t, "{\"name\":\"a\"}");
    free(t);
    cond back;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&cond_schema, j, &back, "c.json", &err), 0);
    assert_false(back.has);
    fp_model_free(&cond_schema, &back);
    cJSON_Delete(j);
    c.has = true; /* present: null values are written as null */
    j = fp_model_write(&cond_schema, &c);
    t = compact(j);
    assert_string_equal(t, "{\"name\":\"a\",\"tag\":null,\"n\":null}");
    free(t);
    assert_int_equal(fp_model_read(&cond_schema, j, &back, "c.json", &err), 0);
    assert_true(back.has);
    assert_null(back.tag);
    assert_false(back.n.known);
    fp_model_free(&cond_schema, &back);
    cJSON_Delete(j);
    /* one of the keys is enough to mark it present; a wrong type still fails */
    j = cJSON_Parse("{\"name\":\"a\",\"n\":3}");
    assert_int_equal(fp_model_read(&cond_schema, j, &back, "c.json", &err), 0);
    assert_true(back.has && back.n.known && back.n.v == 3);
    fp_model_free(&cond_schema, &back);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"name\":\"a\",\"tag\":1}");
    assert_int_equal(fp_model_read(&cond_schema, j, &back, "c.json", &err), -1);
    assert_string_equal(err.message, "c.json: $.tag: expected a string or null, got a number");
    cJSON_Delete(j);
    fp_model_free(&cond_schema, &c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_bytes),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_not_an_object),
        cmocka_unit_test(test_present_if),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
