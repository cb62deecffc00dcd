/*
 * yaml_json.c - YAML (or JSON) file -> cJSON tree (yaml_json.h). Built from
 * libyaml's event stream with an explicit stack, so the depth limit is checked on
 * the event that opens the too-deep level, before any tree is built under it.
 */
#include "flyprof/yaml_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"

typedef struct frame {
    cJSON *node;
    char *key; /* a mapping's pending key (owned), NULL when the next scalar is a key */
} frame;

typedef struct builder {
    frame st[FP_YAML_JSON_MAX_DEPTH + 1];
    int depth; /* frames in use */
    cJSON *root;
} builder;

/* A plain scalar as the JSON value YAML 1.2's core schema gives it. */
static cJSON *plain_scalar(const char *s, size_t n)
{
    static const struct {
        const char *word;
        int kind; /* 0 null, 1 true, 2 false */
    } words[] = {{"null", 0}, {"Null", 0}, {"NULL", 0}, {"~", 0},     {"", 0},
                 {"true", 1}, {"True", 1}, {"TRUE", 1}, {"false", 2}, {"False", 2}, {"FALSE", 2}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].word) == n && !memcmp(words[i].word, s, n))
            return words[i].kind == 0 ? cJSON_CreateNull() : cJSON_CreateBool(words[i].kind == 1);
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    bool numeric = n > 0 && end == s + n && errno == 0 && isfinite(v) && strspn(s, "+-0123456789.eE") == n;
    return numeric ? cJSON_CreateNumber(v) : cJSON_CreateString(s);
}

static int add_value(builder *b, cJSON *v, const char *path, size_t line, fp_err *err)
{
    if (!v)
        abort();
    if (b->depth == 0) {
        b->root = v;
        return 0;
    }
    frame *f = &b->st[b->depth - 1];
    if (cJSON_IsArray(f->node)) {
        cJSON_AddItemToArray(f->node, v);
        return 0;
    }
    if (!f->key) {
        cJSON_Delete(v);
        return fp_err_set(err, FP_BAD_INPUT, "%s: line %zu: a mapping key must be a scalar", path, line);
    }
    if (cJSON_GetObjectItemCaseSensitive(f->node, f->key)) {
        fp_err_set(err, FP_BAD_INPUT, "%s: line %zu: duplicate key '%s'", path, line, f->key);
        cJSON_Delete(v);
        return -1;
    }
    cJSON_AddItemToObject(f->node, f->key, v);
    free(f->key);
    f->key = NULL;
    return 0;
}

static int open_node(builder *b, cJSON *node, const char *path, size_t line, fp_err *err)
{
    if (b->depth >= FP_YAML_JSON_MAX_DEPTH) {
        cJSON_Delete(node);
        return fp_err_set(err, FP_BAD_INPUT, "%s: line %zu: nested deeper than %d levels", path, line,
                          FP_YAML_JSON_MAX_DEPTH);
    }
    if (add_value(b, node, path, line, err) != 0)
        return -1;
    b->st[b->depth++] = (frame){node, NULL};
    return 0;
}

static int scalar(builder *b, const yaml_event_t *ev, const char *path, size_t line, fp_err *err)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    if (strlen(s) != n)
        return fp_err_set(err, FP_BAD_INPUT, "%s: line %zu: a scalar contains a NUL byte", path, line);
    frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
    if (f && cJSON_IsObject(f->node) && !f->key) {
        f->key = strdup(s);
        if (!f->key)
            abort();
        return 0;
    }
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    return add_value(b, plain ? plain_scalar(s, n) : cJSON_CreateString(s), path, line, err);
}

/* One event; 1 at the end of the stream. */
static int on_event(builder *b, const yaml_event_t *ev, const char *path, fp_err *err)
{
    size_t line = ev->start_mark.line + 1;
    switch (ev->type) {
    case YAML_MAPPING_START_EVENT:
        return open_node(b, cJSON_CreateObject(), path, line, err);
    case YAML_SEQUENCE_START_EVENT:
        return open_node(b, cJSON_CreateArray(), path, line, err);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        free(b->st[b->depth - 1].key);
        b->st[--b->depth].key = NULL;
        return 0;
    case YAML_SCALAR_EVENT:
        return scalar(b, ev, path, line, err);
    case YAML_ALIAS_EVENT:
        return fp_err_set(err, FP_BAD_INPUT, "%s: line %zu: aliases are not supported", path, line);
    case YAML_DOCUMENT_START_EVENT:
        if (b->root)
            return fp_err_set(err, FP_BAD_INPUT, "%s: line %zu: more than one document", path, line);
        return 0;
    case YAML_STREAM_END_EVENT:
        return 1;
    default:
        return 0;
    }
}

static int parse_yaml(const char *path, const fp_sb *text, cJSON **out, fp_err *err)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text->buf, text->len);
    builder b = {.depth = 0};
    int rc = 0;
    while (rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = fp_err_set(err, FP_BAD_INPUT, "%s: line %zu: %s", path, p.problem_mark.line + 1,
                            p.problem ? p.problem : "YAML parse error");
            break;
        }
        rc = on_event(&b, &ev, path, err);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    for (int i = 0; i < b.depth; i++)
        free(b.st[i].key);
    if (rc < 0) {
        cJSON_Delete(b.root);
        return -1;
    }
    if (!b.root)
        return fp_err_set(err, FP_BAD_INPUT, "%s: empty document", path);
    *out = b.root;
    return 0;
}

int fp_yaml_json_parse_file(const char *path, cJSON **out, fp_err *err)
{
    *out = NULL;
    size_t n = strlen(path);
    if (n >= 5 && !strcmp(path + n - 5, ".json"))
        return fp_json_parse_file(path, out, err);
    fp_sb text;
    fp_sb_init(&text);
    int rc = fp_read_file(path, &text, err);
    if (rc == 0 && text.len > FP_YAML_JSON_MAX_BYTES)
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: %zu bytes: larger than the %zu a spec may have", path, text.len,
                        FP_YAML_JSON_MAX_BYTES);
    if (rc == 0 && memchr(text.buf, '\0', text.len))
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: contains a NUL byte", path);
    if (rc == 0)
        rc = parse_yaml(path, &text, out, err);
    fp_sb_free(&text);
    return rc;
}
