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

#include <cjson/cJSON.h>

#include <math.h>
#include <unistd.h>

#include "flyprof/bundle_path.h"
#include "flyprof/json.h"
#include "flyprof/fs.h"
#include "flyprof/model.h"
#include "flyprof/strbuf.h"

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

/* FP_F_WHEN: a key written only in some modes, even when its value is empty / null */
typedef struct modal {
    int a;
    bool has_list;
    double *xs;
    size_t nxs;
    bool has_p;
    inner *p;
} modal;

static const fp_field modal_fields[] = {
    FP_INT(modal, a, "a", 0),
    FP_WHEN(modal, has_list, FP_K_NUMS, xs, nxs, "xs", 0, NULL),
    FP_WHEN(modal, has_p, FP_K_OBJP, p, p, "p", 0, &inner_schema),
};
static const fp_schema modal_schema = {"modal", sizeof(modal), FP_FIELDS(modal_fields), false};

static void test_when(void **state)
{
    (void)state;
    modal m = {.a = 1};
    cJSON *j = fp_model_write(&modal_schema, &m);
    char *t = compact(j);
    assert_string_equal(t, "{\"a\":1}");
    free(t);
    cJSON_Delete(j);
    m.has_list = m.has_p = true;
    j = fp_model_write(&modal_schema, &m);
    t = compact(j);
    assert_string_equal(t, "{\"a\":1,\"xs\":[],\"p\":null}");
    modal back;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&modal_schema, j, &back, "m.json", &err), 0);
    assert_true(back.has_list && back.has_p);
    assert_null(back.p);
    fp_model_free(&modal_schema, &back);
    free(t);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"a\":2}");
    assert_int_equal(fp_model_read(&modal_schema, j, &back, "m.json", &err), 0);
    assert_false(back.has_list || back.has_p);
    cJSON_Delete(j);
}

/* FP_K_VIEW: a nested object over members of the same struct */
typedef struct flat {
    int a;
    char *s;
    int64_t lim_x;
    char *lim_name;
} flat;

static const fp_field flat_lim_fields[] = {
    FP_I64(flat, lim_x, "x", 0),
    FP_STR(flat, lim_name, "name", 0),
};
static const fp_schema flat_lim_schema = {"flat.limits", sizeof(flat), FP_FIELDS(flat_lim_fields), false};
static const fp_field flat_fields[] = {
    FP_INT(flat, a, "a", 0),
    FP_VIEW("limits", &flat_lim_schema),
    FP_STR(flat, s, "s", 0),
};
static const fp_schema flat_schema = {"flat", sizeof(flat), FP_FIELDS(flat_fields), false};

static void test_view(void **state)
{
    (void)state;
    flat f = {.a = 1, .s = fp_model_strdup("q"), .lim_x = 7, .lim_name = fp_model_strdup("n")};
    cJSON *j = fp_model_write(&flat_schema, &f);
    char *t = compact(j);
    assert_string_equal(t, "{\"a\":1,\"limits\":{\"x\":7,\"name\":\"n\"},\"s\":\"q\"}");
    flat back, c;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&flat_schema, j, &back, "f.json", &err), 0);
    assert_int_equal(back.lim_x, 7);
    assert_string_equal(back.lim_name, "n");
    fp_model_copy(&flat_schema, &c, &back);
    fp_model_free(&flat_schema, &back);
    assert_string_equal(c.lim_name, "n"); /* a deep copy: not freed with back */
    assert_string_equal(c.s, "q");
    fp_model_free(&flat_schema, &c);
    fp_model_free(&flat_schema, &f);
    free(t);
    cJSON_Delete(j);
}

/* FP_K_INLINE: a group of keys written in place, all or none; FP_K_MAP: member names as data */
typedef struct grp {
    char *a;
    fp_optd b;
} grp;
static const fp_field grp_fields[] = {
    FP_STR(grp, a, "a", FP_F_OPTIONAL),
    FP_OPTD(grp, b, "b", 1, FP_F_OPTIONAL),
};
static const fp_schema grp_schema = {"grp", sizeof(grp), FP_FIELDS(grp_fields), false};

typedef struct staged {
    int first;
    grp *g;
    fp_model_kv *m;
    size_t nm;
    int last;
} staged;
static const fp_field staged_fields[] = {
    FP_INT(staged, first, "first", 0),
    FP_INLINE(staged, g, "group", &grp_schema),
    FP_MAP(staged, m, nm, "m", &fp_model_numval1_schema, 0),
    FP_INT(staged, last, "last", 0),
};
static const fp_schema staged_schema = {"staged", sizeof(staged), FP_FIELDS(staged_fields), false};

static void test_inline_and_map(void **state)
{
    (void)state;
    staged d = {.first = 1, .last = 2};
    cJSON *j = fp_model_write(&staged_schema, &d);
    char *t = compact(j);
    assert_string_equal(t, "{\"first\":1,\"m\":{},\"last\":2}");
    free(t);
    cJSON_Delete(j);
    d.g = calloc(1, sizeof *d.g);
    d.g->b = fp_optd_none();
    fp_model_kv *kv = fp_model_push((void **)&d.m, &d.nm, sizeof *kv);
    kv->key = fp_model_strdup("TCC_HIT_sum");
    kv->v = 2.25;
    j = fp_model_write(&staged_schema, &d);
    t = compact(j);
    assert_string_equal(t, "{\"first\":1,\"a\":null,\"b\":null,\"m\":{\"TCC_HIT_sum\":2.3},\"last\":2}");
    staged back, cp;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&staged_schema, j, &back, "s.json", &err), 0);
    assert_non_null(back.g);
    assert_int_equal(back.nm, 1);
    assert_string_equal(back.m[0].key, "TCC_HIT_sum");
    fp_model_copy(&staged_schema, &cp, &back);
    cJSON *j2 = fp_model_write(&staged_schema, &cp);
    char *t2 = compact(j2);
    assert_string_equal(t, t2);
    free(t);
    free(t2);
    cJSON_Delete(j);
    cJSON_Delete(j2);
    /* a group is read when any of its keys is there; its keys are known keys */
    j = cJSON_Parse("{\"first\":1,\"b\":3,\"m\":{},\"last\":2}");
    fp_model_free(&staged_schema, &back);
    assert_int_equal(fp_model_read(&staged_schema, j, &back, "s.json", &err), 0);
    assert_non_null(back.g);
    assert_true(back.g->b.known && back.g->b.v == 3);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"first\":1,\"m\":{},\"last\":2}");
    fp_model_free(&staged_schema, &back);
    assert_int_equal(fp_model_read(&staged_schema, j, &back, "s.json", &err), 0);
    assert_null(back.g);
    cJSON_Delete(j);
    fp_model_free(&staged_schema, &back); /* the empty map's (1-element) allocation */
    j = cJSON_Parse("{\"first\":1,\"m\":{\"x\":\"1\"},\"last\":2}");
    assert_int_equal(fp_model_read(&staged_schema, j, &back, "s.json", &err), -1);
    assert_string_equal(err.message, "s.json: $.m.x: expected a number, got a string");
    cJSON_Delete(j);
    j = cJSON_Parse("{\"first\":1,\"m\":{\"x\":1,\"x\":2},\"last\":2}");
    assert_int_equal(fp_model_read(&staged_schema, j, &back, "s.json", &err), -1);
    assert_string_equal(err.message, "s.json: $.m.x: key repeated");
    cJSON_Delete(j);
    fp_model_free(&staged_schema, &cp);
    fp_model_free(&staged_schema, &d);
}

/* FP_K_OPTDMAP: an object whose keys are data (e.g. the signal kinds' names). */
typedef struct mapdoc {
    fp_named_optd *sig;
    size_t nsig;
} mapdoc;

static const fp_field mapdoc_fields[] = {
    FP_OPTDMAP(mapdoc, sig, nsig, "signals", 2, 0),
};
static const fp_schema mapdoc_schema = {"mapdoc", sizeof(mapdoc), FP_FIELDS(mapdoc_fields), false};

static void test_optd_map(void **state)
{
    (void)state;
    mapdoc d = {0};
    fp_named_optd *e = fp_model_push((void **)&d.sig, &d.nsig, sizeof *d.sig);
    *e = (fp_named_optd){fp_model_strdup("trace.b"), fp_optd_of(1.005)};
    e = fp_model_push((void **)&d.sig, &d.nsig, sizeof *d.sig);
    *e = (fp_named_optd){fp_model_strdup("a.x"), fp_optd_none()};
    cJSON *j = fp_model_write(&mapdoc_schema, &d);
    char *t = compact(j);
    assert_string_equal(t, "{\"signals\":{\"trace.b\":1,\"a.x\":null}}"); /* list order, rounded */
    free(t);
    mapdoc back, c;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&mapdoc_schema, j, &back, "m.json", &err), 0);
    cJSON_Delete(j);
    assert_int_equal(back.nsig, 2);
    assert_string_equal(back.sig[1].key, "a.x");
    assert_false(back.sig[1].v.known);
    fp_model_round(&mapdoc_schema, &d);
    assert_true(d.sig[0].v.v == 1.0);
    fp_model_copy(&mapdoc_schema, &c, &back);
    fp_model_free(&mapdoc_schema, &back);
    assert_string_equal(c.sig[0].key, "trace.b");
    fp_model_free(&mapdoc_schema, &c);
    fp_model_free(&mapdoc_schema, &d);
    /* typed errors: a value that is no number, a repeated key, not an object */
    static const char *const bad[][2] = {
        {"{\"signals\":{\"a\":\"1\"}}", "m.json: $.signals.a: expected a number or null, got a string"},
        {"{\"signals\":{\"a\":1,\"a\":2}}", "m.json: $.signals.a: key repeated"},
        {"{\"signals\":[]}", "m.json: $.signals: expected an object, got an array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        j = cJSON_Parse(bad[i][0]);
        assert_int_equal(fp_model_read(&mapdoc_schema, j, &back, "m.json", &err), -1);
        assert_string_equal(err.message, bad[i][1]);
        assert_null(back.sig);
        cJSON_Delete(j);
    }
}

/* FP_K_NUMSTR: a key whose value is a number, a string or null (map.json's
 * selection.query: --code-line N | --source-line FILE:LINE | neither). */
typedef struct nsdoc {
    fp_numstr q;
    fp_numstr r; /* omitted when null */
} nsdoc;

static const fp_field nsdoc_fields[] = {
    FP_NUMSTR(nsdoc, q, "q", 1, 0),
    FP_NUMSTR(nsdoc, r, "r", -1, FP_F_OMIT_NULL),
};
static const fp_schema nsdoc_schema = {"nsdoc", sizeof(nsdoc), FP_FIELDS(nsdoc_fields), false};

static void numstr_trip(const char *json, const char *want_written)
{
    cJSON *j = cJSON_Parse(json);
    nsdoc d, cp;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&nsdoc_schema, j, &d, "ns.json", &err), 0);
    fp_model_copy(&nsdoc_schema, &cp, &d);
    fp_model_free(&nsdoc_schema, &d);
    cJSON *w = fp_model_write(&nsdoc_schema, &cp);
    char *t = compact(w);
    assert_string_equal(t, want_written);
    free(t);
    cJSON_Delete(w);
    cJSON_Delete(j);
    fp_model_free(&nsdoc_schema, &cp);
}

static void test_numstr(void **state)
{
    (void)state;
    nsdoc d = {.q = {.is_num = true, .num = 20.04}};
    cJSON *j = fp_model_write(&nsdoc_schema, &d);
    char *t = compact(j);
    assert_string_equal(t, "{\"q\":20}"); /* rounded to the field's decimals, r omitted */
    free(t);
    cJSON_Delete(j);
    fp_model_round(&nsdoc_schema, &d);
    assert_true(d.q.num == 20.0);
    d.q = (fp_numstr){.str = fp_model_strdup("x.py:19")};
    d.r = (fp_numstr){.is_num = true, .num = 7};
    j = fp_model_write(&nsdoc_schema, &d);
    t = compact(j);
    assert_string_equal(t, "{\"q\":\"x.py:19\",\"r\":7}");
    free(t);
    cJSON_Delete(j);
    fp_model_free(&nsdoc_schema, &d);
    assert_null(d.q.str);
    j = fp_model_write(&nsdoc_schema, &d);
    t = compact(j);
    assert_string_equal(t, "{\"q\":null}");
    free(t);
    cJSON_Delete(j);
    /* read back: each shape, copied and written again */
    numstr_trip("{\"q\":null}", "{\"q\":null}");
    numstr_trip("{\"q\":12,\"r\":\"a\"}", "{\"q\":12,\"r\":\"a\"}");
    numstr_trip("{\"q\":\"b.py:3\",\"r\":null}", "{\"q\":\"b.py:3\"}");
    /* typed errors */
    fp_err err = {0};
    j = cJSON_Parse("{\"q\":true}");
    assert_int_equal(fp_model_read(&nsdoc_schema, j, &d, "ns.json", &err), -1);
    assert_string_equal(err.message, "ns.json: $.q: expected a number, a string or null, got a bool");
    cJSON_Delete(j);
    j = cJSON_Parse("{\"q\":[1]}");
    assert_int_equal(fp_model_read(&nsdoc_schema, j, &d, "ns.json", &err), -1);
    assert_string_equal(err.message, "ns.json: $.q: expected a number, a string or null, got an array");
    cJSON_Delete(j);
    j = cJSON_Parse("{\"r\":1}");
    assert_int_equal(fp_model_read(&nsdoc_schema, j, &d, "ns.json", &err), -1);
    assert_string_equal(err.message, "ns.json: $.q: missing");
    cJSON_Delete(j);
}

/* FP_K_ONEOF: list elements in several forms (different key orders), rows shared by a macro */
typedef struct step {
    int form;
    char *name, *status, *command, *via;
    double secs;
} step;
#define STEP_NAME FP_STR(step, name, "name", 0)
#define STEP_STATUS FP_STR(step, status, "status", 0)
#define STEP_COMMAND FP_STR(step, command, "command", 0)
static const fp_field ran_fields[] = {STEP_NAME, STEP_COMMAND, FP_NUM(step, secs, "secs", 1, 0), STEP_STATUS};
static const fp_field via_fields[] = {STEP_NAME, STEP_STATUS, STEP_COMMAND, FP_STR(step, via, "via", 0)};
static const fp_field bare_fields[] = {STEP_NAME, STEP_STATUS};
static const fp_schema step_forms[] = {
    {"ran", sizeof(step), FP_FIELDS(ran_fields), false},
    {"via", sizeof(step), FP_FIELDS(via_fields), false},
    {"bare", sizeof(step), FP_FIELDS(bare_fields), false},
};
static const fp_field step_fields[] = {FP_ONEOF(step, form, "a step", step_forms)};
static const fp_schema step_schema = {"step", sizeof(step), FP_FIELDS(step_fields), false};
typedef struct steps {
    step *v;
    size_t n;
} steps;
static const fp_field steps_fields[] = {FP_ARR(steps, v, n, "steps", &step_schema, 0)};
static const fp_schema steps_schema = {"steps", sizeof(steps), FP_FIELDS(steps_fields), false};

static void test_oneof(void **state)
{
    (void)state;
    steps d = {0};
    step *a = fp_model_push((void **)&d.v, &d.n, sizeof *a);
    *a = (step){0, fp_model_strdup("a"), fp_model_strdup("ok"), fp_model_strdup("x --y"), NULL, 1.26};
    step *b = fp_model_push((void **)&d.v, &d.n, sizeof *b);
    *b = (step){1, fp_model_strdup("b"), fp_model_strdup("ok"), fp_model_strdup("z"), fp_model_strdup("a"), 0};
    step *c = fp_model_push((void **)&d.v, &d.n, sizeof *c);
    *c = (step){2, fp_model_strdup("c"), fp_model_strdup("not-run"), NULL, NULL, 0};
    const char *want = "{\"steps\":[{\"name\":\"a\",\"command\":\"x --y\",\"secs\":1.3,\"status\":\"ok\"},"
                       "{\"name\":\"b\",\"status\":\"ok\",\"command\":\"z\",\"via\":\"a\"},"
                       "{\"name\":\"c\",\"status\":\"not-run\"}]}";
    cJSON *j = fp_model_write(&steps_schema, &d);
    char *out = compact(j);
    assert_string_equal(out, want);
    free(out);
    /* read back: each element gets its form; copy and round go through it */
    steps r, cp;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&steps_schema, j, &r, "s.json", &err), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.v[0].form, 0);
    assert_int_equal(r.v[1].form, 1);
    assert_int_equal(r.v[2].form, 2);
    assert_string_equal(r.v[1].via, "a");
    fp_model_copy(&steps_schema, &cp, &r);
    fp_model_round(&steps_schema, &cp);
    assert_true(cp.v[0].secs == 1.3);
    cJSON *j2 = fp_model_write(&steps_schema, &cp);
    out = compact(j2);
    assert_string_equal(out, want);
    free(out);
    cJSON_Delete(j2);
    fp_model_free(&steps_schema, &cp);
    fp_model_free(&steps_schema, &r);
    cJSON_Delete(j);
    fp_model_free(&steps_schema, &d);
    /* typed errors: a key no form has, keys of two forms, a missing required key */
    const char *bad[][2] = {
        {"{\"steps\":[{\"name\":\"a\",\"status\":\"ok\",\"cmd\":\"x\"}]}", "s.json: $.steps[0].cmd: unknown key"},
        {"{\"steps\":[{\"name\":\"a\",\"status\":\"ok\",\"secs\":1,\"via\":\"x\"}]}",
         "s.json: $.steps[0]: the keys fit none of the forms of a step"},
        {"{\"steps\":[{\"name\":\"a\",\"command\":\"x\",\"secs\":1}]}",
         "s.json: $.steps[0]: the keys fit none of the forms of a step"},
        {"{\"steps\":[{\"name\":1,\"status\":\"ok\"}]}", "s.json: $.steps[0].name: expected a string or null, got a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *b2 = cJSON_Parse(bad[i][0]);
        assert_int_equal(fp_model_read(&steps_schema, b2, &r, "s.json", &err), -1);
        assert_int_equal(err.code, FP_BAD_INPUT);
        assert_string_equal(err.message, bad[i][1]);
        cJSON_Delete(b2);
    }
}

/* ---------------------------------------------------------------- the streaming writer */

/* fp_model_print / fp_model_write_file stream the document from the struct; the bytes
 * must be those of the tree path (fp_model_write, then json.h's printer) for every
 * schema. Each schema is filled at random by its own table (every kind, nulls, empty
 * and non-empty lists, strings that need escapes or UTF-8 repair, numbers of every
 * printing path) and printed both ways. */
extern const fp_schema fp_annotate_doc_schema;
extern const fp_schema fp_bub_doc_inv_schema;
extern const fp_schema fp_bubbles_schema;
extern const fp_schema fp_cap_candidate_schema;
extern const fp_schema fp_cap_config_schema;
extern const fp_schema fp_cap_dispatch_dir_schema;
extern const fp_schema fp_cap_inventoried_schema;
extern const fp_schema fp_cap_worktree_schema;
extern const fp_schema fp_capture_schema;
extern const fp_schema fp_check_none_schema;
extern const fp_schema fp_check_schema;
extern const fp_schema fp_cnt_group_schema;
extern const fp_schema fp_cnt_metric_schema;
extern const fp_schema fp_counters_doc_schema;
extern const fp_schema fp_diff_class_row_schema;
extern const fp_schema fp_diff_envelope_schema;
extern const fp_schema fp_diff_inst_change_schema;
extern const fp_schema fp_diff_noise_floor_schema;
extern const fp_schema fp_diff_schema;
extern const fp_schema fp_diff_totals_schema;
extern const fp_schema fp_diff_verdict_schema;
extern const fp_schema fp_doctor_view_schema;
extern const fp_schema fp_envelope_doc_schema;
extern const fp_schema fp_headlines_schema;
extern const fp_schema fp_history_add_schema;
extern const fp_schema fp_history_change_schema;
extern const fp_schema fp_history_export_schema;
extern const fp_schema fp_history_import_schema;
extern const fp_schema fp_history_list_schema;
extern const fp_schema fp_history_record_head_schema;
extern const fp_schema fp_history_record_schema;
extern const fp_schema fp_history_series_schema;
extern const fp_schema fp_history_summary_schema;
extern const fp_schema fp_history_trend_schema;
extern const fp_schema fp_hotspots_doc_schema;
extern const fp_schema fp_launch_trace_schema;
extern const fp_schema fp_map_schema;
extern const fp_schema fp_map_snippet_schema;
extern const fp_schema fp_report_artifacts_schema;
extern const fp_schema fp_report_bound_schema;
extern const fp_schema fp_report_counters_schema;
extern const fp_schema fp_report_envelope_schema;
extern const fp_schema fp_report_evidence_schema;
extern const fp_schema fp_report_rec_schema;
extern const fp_schema fp_report_schema;
extern const fp_schema fp_report_time_schema;
extern const fp_schema fp_rl_csv_schema;
extern const fp_schema fp_rl_trace_schema;
extern const fp_schema fp_rq_loop_schema;
extern const fp_schema fp_rules_doc_schema;
extern const fp_schema fp_run_doc_schema;
extern const fp_schema fp_run_step_schema;
extern const fp_schema fp_sarif_schema;
extern const fp_schema fp_soc_doc_schema;
extern const fp_schema fp_sweep_doc_schema;
extern const fp_schema fp_sweep_result_schema;
extern const fp_schema fp_sweep_spec_schema;
extern const fp_schema fp_sweep_state_schema;
extern const fp_schema fp_tile_doc_schema;
extern const fp_schema fp_tile_eval_doc_schema;
extern const fp_schema fp_tile_grid_doc_schema;
extern const fp_schema fp_tile_real_doc_schema;
extern const fp_schema fp_timeline_doc_schema;
extern const fp_schema fp_workdist_schema;

static const fp_schema *const all_schemas[] = {
    &fp_annotate_doc_schema,
    &fp_bub_doc_inv_schema,
    &fp_bubbles_schema,
    &fp_cap_candidate_schema,
    &fp_cap_config_schema,
    &fp_cap_dispatch_dir_schema,
    &fp_cap_inventoried_schema,
    &fp_cap_worktree_schema,
    &fp_capture_schema,
    &fp_check_none_schema,
    &fp_check_schema,
    &fp_cnt_group_schema,
    &fp_cnt_metric_schema,
    &fp_counters_doc_schema,
    &fp_diff_class_row_schema,
    &fp_diff_envelope_schema,
    &fp_diff_inst_change_schema,
    &fp_diff_noise_floor_schema,
    &fp_diff_schema,
    &fp_diff_totals_schema,
    &fp_diff_verdict_schema,
    &fp_doctor_view_schema,
    &fp_envelope_doc_schema,
    &fp_headlines_schema,
    &fp_history_add_schema,
    &fp_history_change_schema,
    &fp_history_export_schema,
    &fp_history_import_schema,
    &fp_history_list_schema,
    &fp_history_record_head_schema,
    &fp_history_record_schema,
    &fp_history_series_schema,
    &fp_history_summary_schema,
    &fp_history_trend_schema,
    &fp_hotspots_doc_schema,
    &fp_launch_trace_schema,
    &fp_map_schema,
    &fp_map_snippet_schema,
    &fp_report_artifacts_schema,
    &fp_report_bound_schema,
    &fp_report_counters_schema,
    &fp_report_envelope_schema,
    &fp_report_evidence_schema,
    &fp_report_rec_schema,
    &fp_report_schema,
    &fp_report_time_schema,
    &fp_rl_csv_schema,
    &fp_rl_trace_schema,
    &fp_rq_loop_schema,
    &fp_rules_doc_schema,
    &fp_run_doc_schema,
    &fp_run_step_schema,
    &fp_sarif_schema,
    &fp_soc_doc_schema,
    &fp_sweep_doc_schema,
    &fp_sweep_result_schema,
    &fp_sweep_spec_schema,
    &fp_sweep_state_schema,
    &fp_tile_doc_schema,
    &fp_tile_eval_doc_schema,
    &fp_tile_grid_doc_schema,
    &fp_tile_real_doc_schema,
    &fp_timeline_doc_schema,
    &fp_workdist_schema,

    &doc_schema, &modal_schema, &flat_schema, &staged_schema, &mapdoc_schema, &nsdoc_schema, &steps_schema,
};

static unsigned long long rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33) % n;
}

static char rand_dir[64]; /* a bundle dir: strings under it are rewritten by the bundle writers */

static char *rand_str(void)
{
    static const char *const pool[] = {
        "", "a", "exec", "s_waitcnt vmcnt(0)", "quote \" back \\ slash", "tab\tnl\ncr\rbs\bff\f", "ctl\x01\x1f",
        "utf8 \xc3\xa9 ok", "bad \xff\xfe utf8", "trunc \xe2\x82", "a string longer than sixteen bytes, \"escaped\" late",
        "x.py:257", "%s", "/abs/elsewhere/file.py",
    };
    switch (rnd(6)) {
    case 0: return fp_model_printf("%s", rand_dir);
    case 1: return fp_model_printf("%s/att/ui_output_1/se0.json", rand_dir);
    case 2: return fp_model_printf("cmd --out %s/x.json", rand_dir);
    default: return fp_model_strdup(pool[rnd(sizeof pool / sizeof pool[0])]);
    }
}

static double rand_num(void)
{
    static const double pool[] = {0.0, 1.0, -7.0, 58.76, 0.0455, -0.0, 1.0 / 3.0, 1e20, 123456789012345.0,
                                  1e15 + 1, 3.14159265358979, 1e-7, 123456.789, 2.5, -1234.5678, 1e300};
    if (!rnd(16))
        return rnd(2) ? NAN : INFINITY;
    return pool[rnd(sizeof pool / sizeof pool[0])];
}

static void rand_fields(const fp_schema *s, void *obj, int depth);

static void *rand_list(const fp_schema *sub, size_t size, size_t *n, int depth, bool map)
{
    *n = depth > 3 ? 0 : rnd(3);
    char *items = calloc(*n ? *n : 1, size);
    for (size_t i = 0; i < *n; i++) {
        if (map)
            *(char **)(items + i * size) = rnd(8) ? rand_str() : NULL;
        if (sub)
            rand_fields(sub, items + i * size, depth + 1);
    }
    return items;
}

static void rand_value(const fp_field *f, void *obj, int depth)
{
    char *at = (char *)obj + f->off;
    size_t *count = (size_t *)((char *)obj + f->count);
    switch (f->kind) {
    case FP_K_I64: *(int64_t *)at = rnd(4) ? (int64_t)rnd(100000) - 500 : rnd(2) ? INT64_MAX : 1000000000000001LL; break;
    case FP_K_INT: *(int *)at = (int)rnd(2000) - 1000; break;
    case FP_K_NUM: *(double *)at = rand_num(); break;
    case FP_K_OPTD: *(fp_optd *)at = rnd(3) ? fp_optd_of(rand_num()) : fp_optd_none(); break;
    case FP_K_BOOL: *(bool *)at = rnd(2); break;
    case FP_K_OPTB: *(fp_optb *)at = (fp_optb){rnd(3) != 0, rnd(2) != 0}; break;
    case FP_K_STR: *(char **)at = rnd(5) ? rand_str() : NULL; break;
    case FP_K_OBJ: rand_fields(f->sub, at, depth + 1); break;
    case FP_K_VIEW: rand_fields(f->sub, obj, depth + 1); break;
    case FP_K_OBJP:
    case FP_K_INLINE:
        if (depth < 4 && rnd(3)) {
            void *p = calloc(1, f->sub->size);
            rand_fields(f->sub, p, depth + 1);
            *(void **)at = p;
        }
        break;
    case FP_K_ARR: *(void **)at = rand_list(f->sub, f->sub->size, count, depth, false); break;
    case FP_K_MAP: *(void **)at = rand_list(f->sub, f->sub->size, count, depth, true); break;
    case FP_K_STRS: {
        char **v = rand_list(NULL, sizeof(char *), count, depth, false);
        for (size_t i = 0; i < *count; i++)
            v[i] = rand_str();
        *(char ***)at = v;
        break;
    }
    case FP_K_NUMS: {
        double *v = rand_list(NULL, sizeof(double), count, depth, false);
        for (size_t i = 0; i < *count; i++)
            v[i] = rand_num();
        *(double **)at = v;
        break;
    }
    case FP_K_OPTDMAP: {
        fp_named_optd *v = rand_list(NULL, sizeof(fp_named_optd), count, depth, false);
        for (size_t i = 0; i < *count; i++)
            v[i] = (fp_named_optd){rand_str(), rnd(3) ? fp_optd_of(rand_num()) : fp_optd_none()};
        *(fp_named_optd **)at = v;
        break;
    }
    case FP_K_JSON: {
        char *s = rand_str();
        char *t = fp_model_printf("{\"k\":[1.5,\"%s/att\",{\"n\":null,\"t\":true}],\"e\":{},\"a\":[]}", rand_dir);
        cJSON *j = rnd(3) ? cJSON_Parse(t) : rnd(2) ? cJSON_CreateString(s) : NULL;
        free(t);
        free(s);
        *(cJSON **)at = j;
        break;
    }
    case FP_K_NUMSTR: {
        fp_numstr *v = (fp_numstr *)at;
        v->is_num = rnd(2);
        if (v->is_num)
            v->num = rand_num();
        else
            v->str = rnd(3) ? rand_str() : NULL;
        break;
    }
    case FP_K_ONEOF: break; /* by rand_fields */
    }
}

static void rand_fields(const fp_schema *s, void *obj, int depth)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_ONEOF) {
            int sel = (int)rnd((unsigned)f->count);
            *(int *)((char *)obj + f->when) = sel;
            rand_fields(&f->sub[sel], obj, depth);
            continue;
        }
        if (f->flags & FP_F_WHEN)
            *(bool *)((char *)obj + f->when) = rnd(3) != 0;
        rand_value(f, obj, depth);
    }
}

/* the whole file as a string (the project's reader: one way to read a file) */
static char *slurp(const char *path)
{
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err e = {0};
    assert_int_equal(fp_read_file(path, &sb, &e), 0);
    return sb.buf ? fp_sb_detach(&sb) : calloc(1, 1);
}

static void test_stream_equals_tree(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_model_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    snprintf(rand_dir, sizeof rand_dir, "%s", tmpl);
    char *f1 = fp_model_printf("%s/stream.json", tmpl), *f2 = fp_model_printf("%s/tree.json", tmpl);
    size_t nonempty = 0;
    for (size_t k = 0; k < sizeof all_schemas / sizeof all_schemas[0]; k++) {
        const fp_schema *s = all_schemas[k];
        for (unsigned seed = 0; seed < 24; seed++) {
            rng_state = seed * 7919u + k;
            void *obj = calloc(1, s->size);
            rand_fields(s, obj, 0);
            size_t n1 = 0, n2 = 0;
            cJSON *j = fp_model_write(s, obj);
            char *tree = fp_json_print_utf8(j, true, &n2);
            char *stream = fp_model_print(s, obj, &n1);
            if (strcmp(tree, stream))
                fail_msg("schema %s seed %u: streamed\n%s\ntree\n%s", s->name, seed, stream, tree);
            assert_int_equal(n1, n2);
            nonempty += n1 > 4;
            /* the files, plain and bundle-relative (the bundle absolute, and as "." given) */
            const char *bundles[] = {NULL, tmpl};
            fp_err err = {0};
            for (size_t b = 0; b < 2; b++) {
                assert_int_equal(fp_model_write_bundle_file(s, obj, f1, bundles[b], &err), 0);
                assert_int_equal(fp_bundle_write_json(f2, j, bundles[b], &err), 0);
                char *a = slurp(f1), *c = slurp(f2);
                if (strcmp(a, c))
                    fail_msg("schema %s seed %u bundle %s: streamed\n%s\ntree\n%s", s->name, seed, bundles[b] ? bundles[b] : "-", a, c);
                free(a);
                free(c);
            }
            cJSON_Delete(j);
            free(tree);
            free(stream);
            fp_model_free(s, obj);
            free(obj);
        }
    }
    assert_true(nonempty > 1000); /* the documents were not all empty */
    remove(f1);
    remove(f2);
    rmdir(tmpl);
    free(f1);
    free(f2);
}

/* fp_model_split's rest(): fp_model_print_items' text, made when asked (as bubbles'
 * second thread would have made it meanwhile); counts its calls. */
typedef struct split_ctx {
    const fp_schema *s;
    const void *obj;
    size_t off, at;
    const char *bundle;
    char *text;
    int calls;
} split_ctx;

static const char *split_rest(void *p, size_t *len)
{
    split_ctx *c = p;
    c->calls++;
    c->text = fp_model_print_items(c->s, c->obj, c->off, c->at, c->bundle, len);
    return c->text;
}

/* Every top-level list of every schema written in two parts, cut anywhere (before the
 * first item, inside, at the end, past it), plain and bundle-relative: the bytes of the
 * one-part writer, and rest() asked exactly once. bubbles' hotspots also with 150
 * random items (the print's room is foreseen from the first item past 64). */
static void test_split_equals_whole(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_model_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    snprintf(rand_dir, sizeof rand_dir, "%s", tmpl);
    char *f1 = fp_model_printf("%s/whole.json", tmpl), *f2 = fp_model_printf("%s/split.json", tmpl);
    size_t cuts = 0, inside = 0;
    for (size_t k = 0; k < sizeof all_schemas / sizeof all_schemas[0]; k++) {
        const fp_schema *s = all_schemas[k];
        for (size_t fi = 0; fi < s->nfields; fi++) {
            const fp_field *f = &s->fields[fi];
            if (f->kind != FP_K_ARR)
                continue;
            for (unsigned seed = 0; seed < 4; seed++) { /* 4: each cut is two fsync'd files */
                rng_state = seed * 104729u + k * 31u + fi;
                void *obj = calloc(1, s->size);
                rand_fields(s, obj, 0);
                size_t *n = (size_t *)((char *)obj + f->count);
                if (s == &fp_bubbles_schema && f->key && !strcmp(f->key, "hotspots") && seed < 2) {
                    char **items = (char **)((char *)obj + f->off);
                    for (size_t i = 0; i < 150; i++)
                        rand_fields(f->sub, fp_model_push((void **)items, n, f->sub->size), 1);
                }
                const size_t ats[] = {0, 1, *n / 2, *n, *n + 3};
                const char *bundles[] = {NULL, tmpl};
                fp_err err = {0};
                for (size_t b = 0; b < 2; b++) {
                    assert_int_equal(fp_model_write_bundle_file(s, obj, f1, bundles[b], &err), 0);
                    char *whole = slurp(f1);
                    for (size_t a = 0; a < sizeof ats / sizeof ats[0]; a++) {
                        split_ctx c = {s, obj, f->off, ats[a], bundles[b], NULL, 0};
                        fp_model_split sp = {f->off, ats[a], split_rest, &c};
                        assert_int_equal(fp_model_write_bundle_file_split(s, obj, f2, bundles[b], &sp, &err), 0);
                        char *part = slurp(f2);
                        if (strcmp(whole, part))
                            fail_msg("schema %s list %s seed %u at %zu bundle %s: split\n%s\nwhole\n%s", s->name,
                                     f->key, seed, ats[a], bundles[b] ? bundles[b] : "-", part, whole);
                        /* asked when the list is written (a FP_F_WHEN / FP_F_OMIT_NULL one may not be) */
                        char *key = fp_model_printf("\n\t\"%s\":\t[", f->key);
                        assert_int_equal(c.calls, strstr(whole, key) != NULL);
                        free(key);
                        cuts++;
                        inside += c.calls && ats[a] > 0 && ats[a] < *n;
                        free(part);
                        free(c.text);
                    }
                    free(whole);
                }
                fp_model_free(s, obj);
                free(obj);
            }
        }
    }
    assert_true(cuts > 1000 && inside > 150); /* lists were found and cut inside */
    remove(f1);
    remove(f2);
    rmdir(tmpl);
    free(f1);
    free(f2);
}

/* A document with a bundle path is really rewritten (the comparison above could pass
 * with both writers ignoring the bundle). */
static void test_stream_bundle_relative(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_model_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    doc d = {0};
    fill(&d);
    free(d.s);
    d.s = fp_model_printf("%s/att/ui_output_1", tmpl);
    char *out = fp_model_printf("%s/o.json", tmpl);
    fp_err err = {0};
    assert_int_equal(fp_model_write_bundle_file(&doc_schema, &d, out, tmpl, &err), 0);
    char *t = slurp(out);
    assert_non_null(strstr(t, "\"s\":\t\"att/ui_output_1\""));
    assert_null(strstr(t, tmpl));
    free(t);
    remove(out);
    rmdir(tmpl);
    free(out);
    fp_model_free(&doc_schema, &d);
}

/* The streaming writer remembers the last strings that needed no rewrite (a document
 * repeats its paths): a string of the same length, or equal up to a byte, that does need
 * one must still be rewritten, and a remembered one must still be left as it is. Held
 * to the tree path (fp_bundle_write_json), which remembers nothing. */
static void test_stream_rewrite_memo(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_model_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char other[sizeof tmpl];
    snprintf(other, sizeof other, "%s", tmpl);
    other[sizeof other - 2] = other[sizeof other - 2] == 'q' ? 'r' : 'q'; /* same length, not the bundle */
    char *in = fp_model_printf("%s/att/x", tmpl), *out_ = fp_model_printf("%s/att/x", other);
    char *in2 = fp_model_printf("%s/att/y", tmpl), *near = fp_model_printf("%s/att/x", other);
    near[0] = ' '; /* differs only in the first byte */
    const char *seq[] = {out_, out_, in, out_, in, in2, near, out_, near, in, in, out_};
    doc d = {0};
    fill(&d);
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++)
        fp_model_push_str(&d.tags, &d.ntags, seq[i]);
    char *f1 = fp_model_printf("%s/stream.json", tmpl), *f2 = fp_model_printf("%s/tree.json", tmpl);
    fp_err err = {0};
    assert_int_equal(fp_model_write_bundle_file(&doc_schema, &d, f1, tmpl, &err), 0);
    cJSON *j = fp_model_write(&doc_schema, &d);
    assert_int_equal(fp_bundle_write_json(f2, j, tmpl, &err), 0);
    char *a = slurp(f1), *b = slurp(f2);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "\"att/x\", \"att/y\""));
    assert_non_null(strstr(a, out_));
    free(a);
    free(b);
    cJSON_Delete(j);
    fp_model_free(&doc_schema, &d);
    remove(f1);
    remove(f2);
    rmdir(tmpl);
    free(f1);
    free(f2);
    free(in);
    free(in2);
    free(out_);
    free(near);
}

/* A document whose strings are in a pool (fp_model_pool_dup, as fp_bubbles_doc_build
 * makes them) next to owned ones: the same bytes as its owned copy, the pool knows its
 * strings across chunks and no other pointer, and fp_model_free_pooled frees the owned
 * ones and the pool (run under valgrind: no leak, no invalid free). */
/* fp_model_write_rounded: the tree fp_model_round + fp_model_write give, with the object
 * untouched; on values where rounding twice differs from once (|v| * 10^dec past 2^51),
 * so a writer that rounds once is caught. */
static void test_write_rounded(void **state)
{
    (void)state;
    uint64_t r = 0x9E3779B97F4A7C15ULL;
    size_t moved = 0;
    for (int k = 0; k < 4000; k++) {
        double v[5];
        for (int q = 0; q < 5; q++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            double m = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
            static const double scale[] = {1, 100, 1e6, 1e12, 3e13, 7e13, 1e14, 4.5e15, 1e300};
            v[q] = (r & 1 ? -m : m) * scale[(r >> 3) % (sizeof scale / sizeof *scale)];
        }
        moved += fp_round(fp_round(v[0], 2), 2) != fp_round(v[0], 2);
        doc d;
        fill(&d);
        d.pct = v[0];
        d.maybe = fp_optd_of(v[1]);
        d.in = (inner){v[2], fp_optd_of(v[3])};
        d.xs[0] = v[4];
        cJSON *t = fp_model_write(&doc_schema, &d);
        char *before = compact(t);
        cJSON_Delete(t);
        t = fp_model_write_rounded(&doc_schema, &d);
        char *got = compact(t);
        cJSON_Delete(t);
        t = fp_model_write(&doc_schema, &d);
        char *again = compact(t);
        cJSON_Delete(t);
        assert_string_equal(before, again); /* d untouched */
        doc cp;
        fp_model_copy(&doc_schema, &cp, &d);
        fp_model_round(&doc_schema, &cp);
        t = fp_model_write(&doc_schema, &cp);
        char *want = compact(t);
        cJSON_Delete(t);
        assert_string_equal(got, want);
        free(before);
        free(got);
        free(again);
        free(want);
        fp_model_free(&doc_schema, &cp);
        fp_model_free(&doc_schema, &d);
    }
    assert_true(moved > 0);
}

/* fp_model_pool_adopt: every string of both pools is the result's, freed once with it. */
static void test_pool_adopt(void **state)
{
    (void)state;
    fp_model_pool *a = NULL, *b = NULL, *none = NULL;
    char big[5000];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char *sa[60], *sb[90];
    for (int i = 0; i < 60; i++)
        sa[i] = fp_model_pool_dup(&a, i % 3 ? "a" : big);
    for (int i = 0; i < 90; i++)
        sb[i] = fp_model_pool_dup(&b, i % 2 ? big : "bb");
    fp_model_pool_adopt(&a, NULL); /* nothing to adopt */
    fp_model_pool_adopt(&a, b);
    for (int i = 0; i < 60; i++)
        assert_true(fp_model_pool_owns(a, sa[i]));
    for (int i = 0; i < 90; i++) {
        assert_true(fp_model_pool_owns(a, sb[i]));
        assert_string_equal(sb[i], i % 2 ? big : "bb");
    }
    char *more = fp_model_pool_dup(&a, big); /* still takes copies */
    assert_true(fp_model_pool_owns(a, more));
    fp_model_pool_adopt(&none, a); /* into an empty one: becomes it */
    assert_true(fp_model_pool_owns(none, sa[0]) && fp_model_pool_owns(none, sb[1]));
    doc d;
    memset(&d, 0, sizeof d);
    d.s = sa[0];
    fp_model_free_pooled(&doc_schema, &d, none); /* every chunk once (ASan) */
}

static void test_pool(void **state)
{
    (void)state;
    fp_model_pool *pool = NULL;
    assert_null(fp_model_pool_dup(&pool, NULL));
    assert_null(pool); /* made on first use */
    doc d;
    fill(&d);
    free(d.s);
    d.s = fp_model_pool_dup(&pool, "h\xc3\xa9llo");
    free(d.items[0].name);
    d.items[0].name = fp_model_pool_dup(&pool, "a");
    d.gone = fp_model_strdup("owned"); /* owned, in a pooled document */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (int i = 0; i < 40; i++) { /* 120 KB: several chunks */
        char **slot = fp_model_push((void **)&d.tags, &d.ntags, sizeof *d.tags);
        *slot = fp_model_pool_dup(&pool, i % 2 ? big : "t");
    }
    assert_true(fp_model_pool_owns(pool, d.s));
    assert_true(fp_model_pool_owns(pool, d.tags[d.ntags - 1]));
    assert_true(fp_model_pool_owns(pool, d.tags[2] + 2998));
    assert_false(fp_model_pool_owns(pool, d.gone));
    assert_false(fp_model_pool_owns(pool, d.tags[0])); /* fill's "t1": strdup'd */
    assert_false(fp_model_pool_owns(NULL, d.s));
    assert_string_equal(d.tags[2], big);
    assert_string_equal(d.s, "h\xc3\xa9llo");
    doc cp;
    fp_model_copy(&doc_schema, &cp, &d);
    assert_false(fp_model_pool_owns(pool, cp.s)); /* a copy owns its strings */
    char *a = fp_model_print(&doc_schema, &d, NULL), *b = fp_model_print(&doc_schema, &cp, NULL);
    assert_string_equal(a, b);
    free(a);
    free(b);
    fp_model_free(&doc_schema, &cp);
    fp_model_free_str(pool, d.s); /* pooled: stays until the pool goes */
    d.s = fp_model_strdup("replaced");
    fp_model_free_pooled(&doc_schema, &d, pool);
    assert_null(d.s);
    assert_int_equal(d.ntags, 0);
    fp_model_free_pooled(&doc_schema, NULL, NULL); /* nothing: no crash */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_bytes),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_not_an_object),
        cmocka_unit_test(test_when),
        cmocka_unit_test(test_view),
        cmocka_unit_test(test_inline_and_map),
        cmocka_unit_test(test_optd_map),
        cmocka_unit_test(test_numstr),
        cmocka_unit_test(test_oneof),
        cmocka_unit_test(test_stream_equals_tree),
        cmocka_unit_test(test_split_equals_whole),
        cmocka_unit_test(test_stream_bundle_relative),
        cmocka_unit_test(test_stream_rewrite_memo),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_write_rounded),
        cmocka_unit_test(test_pool_adopt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
