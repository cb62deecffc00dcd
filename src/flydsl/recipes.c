/*
 * recipes.c - the recipes registry (JSON or YAML) and the kernels
 * synthesizable from a FlyDSL worktree's tracked tests. YAML is converted to
 * the same cJSON shape as the JSON form so one validator serves both.
 */
#include "flyprof/recipes.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/worktree.h"
#include "flyprof/yaml_depth.h"

#define FP_MAX_RECIPES 10000

/* name substring -> category; first row that matches wins */
static const struct {
    const char *needle;
    const char *category;
} CATEGORY[] = {
    {"moe", "moe"},         {"gemm", "gemm"},           {"matmul", "gemm"},         {"mma", "gemm"},
    {"attn", "attention"},  {"attention", "attention"}, {"flash", "attention"},     {"mla", "attention"},
    {"paged", "attention"}, {"pa_", "attention"},       {"softmax", "reduction"},   {"norm", "reduction"},
    {"reduce", "reduction"}, {"topk", "reduction"},     {"sort", "reduction"},      {"scan", "reduction"},
    {"rope", "elementwise"}, {"quant", "elementwise"},  {"cast", "elementwise"},    {"vec_add", "elementwise"},
    {"elementwise", "elementwise"}, {"copy", "elementwise"},
};

const char *fp_kernel_category(const char *name)
{
    for (size_t i = 0; i < sizeof CATEGORY / sizeof CATEGORY[0]; i++)
        if (strstr(name, CATEGORY[i].needle))
            return CATEGORY[i].category;
    return "compute";
}

/* ---- YAML -> cJSON (scalars become strings) ---- */

/* An alias makes libyaml's document a graph: the loader keeps one node per
 * anchor, but converting to a tree copies the anchored node at every alias, so
 * a few hundred bytes of nested aliases ("billion laughs") expand to billions
 * of nodes. The conversion therefore has a budget: every node of the document
 * once, plus this many nodes copied through aliases (a registry sharing a
 * `requires:` list between thousands of recipes stays far below it). */
#define FP_YAML_MAX_ALIAS_NODES 100000
/* Largest registry file: 10,000 recipes are < 4 MiB; more is not a registry
 * (and libyaml would build the whole document in memory first). */
#define FP_YAML_MAX_FILE ((size_t)16 << 20)

typedef struct yconv {
    yaml_document_t *doc;
    size_t budget; /* nodes left to emit */
    bool over;     /* the budget ran out: the result is refused */
} yconv;

static cJSON *yaml_to_json(yconv *c, yaml_node_t *n, int depth)
{
    if (!n || depth > 16 || c->over)
        return cJSON_CreateNull();
    if (c->budget == 0) {
        c->over = true;
        return cJSON_CreateNull();
    }
    c->budget--;
    switch (n->type) {
    case YAML_SCALAR_NODE: {
        char *s = strndup((const char *)n->data.scalar.value, n->data.scalar.length);
        cJSON *j;
        if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && (!strcmp(s, "true") || !strcmp(s, "false")))
            j = cJSON_CreateBool(!strcmp(s, "true"));
        else if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && (!s[0] || !strcmp(s, "null") || !strcmp(s, "~")))
            j = cJSON_CreateNull();
        else
            j = cJSON_CreateString(s);
        free(s);
        return j;
    }
    case YAML_SEQUENCE_NODE: {
        cJSON *a = cJSON_CreateArray();
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top && !c->over; it++)
            cJSON_AddItemToArray(a, yaml_to_json(c, yaml_document_get_node(c->doc, *it), depth + 1));
        return a;
    }
    case YAML_MAPPING_NODE: {
        cJSON *o = cJSON_CreateObject();
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top && !c->over; p++) {
            yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
            if (!k || k->type != YAML_SCALAR_NODE)
                continue;
            char *ks = strndup((const char *)k->data.scalar.value, k->data.scalar.length);
            cJSON_AddItemToObject(o, ks, yaml_to_json(c, yaml_document_get_node(c->doc, p->value), depth + 1));
            free(ks);
        }
        return o;
    }
    default:
        return cJSON_CreateNull();
    }
}

static int parse_yaml(const char *path, const fp_sb *text, cJSON **out, fp_err *err)
{
    *out = NULL;
    if (text->len > FP_YAML_MAX_FILE)
        return fp_err_set(err, FP_BAD_INPUT, "%s: %zu bytes is larger than the %zu-byte limit of a recipes file",
                          path, text->len, FP_YAML_MAX_FILE);
    if (fp_yaml_depth_check(path, text->buf, text->len, err) != 0)
        return -1;
    yaml_parser_t p;
    yaml_document_t doc;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text->buf, text->len);
    if (!yaml_parser_load(&p, &doc)) {
        fp_err_set(err, FP_BAD_INPUT, "%s: YAML error at line %zu: %s", path, p.problem_mark.line + 1,
                   p.problem ? p.problem : "parse error");
        yaml_parser_delete(&p);
        return -1;
    }
    size_t doc_nodes = (size_t)(doc.nodes.top - doc.nodes.start);
    yconv c = {&doc, doc_nodes + FP_YAML_MAX_ALIAS_NODES, false};
    cJSON *j = yaml_to_json(&c, yaml_document_get_root_node(&doc), 0);
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    if (c.over) {
        cJSON_Delete(j);
        fp_err_set(err, FP_BAD_INPUT, "%s: YAML aliases expand to more than %d copied nodes (an alias bomb?)", path,
                   FP_YAML_MAX_ALIAS_NODES);
        return fp_err_help(err, "write the recipes out instead of nesting aliases of aliases");
    }
    *out = j;
    return 0;
}

/* ---- validation ---- */

static bool safe_rel_path(const char *p)
{
    if (!p || !p[0] || p[0] == '/')
        return false;
    for (const char *s = p; *s;) {
        size_t n = strcspn(s, "/");
        if ((n == 2 && !strncmp(s, "..", 2)) || n == 0)
            return false;
        s += n;
        if (*s == '/')
            s++;
    }
    return true;
}

static char *opt_str(const cJSON *o, const char *key, const char *path, size_t idx, fp_err *err, bool *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsString(v)) {
        fp_err_set(err, FP_BAD_INPUT, "%s: recipe #%zu: '%s' must be a string", path, idx + 1, key);
        *bad = true;
        return NULL;
    }
    return strdup(v->valuestring);
}

static int str_list(const cJSON *o, const char *key, char ***out, size_t *n, const char *path, size_t idx,
                    fp_err *err)
{
    *out = NULL;
    *n = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsString(v)) {
        *out = malloc(sizeof **out);
        (*out)[0] = strdup(v->valuestring);
        *n = 1;
        return 0;
    }
    if (!cJSON_IsArray(v))
        return fp_err_set(err, FP_BAD_INPUT, "%s: recipe #%zu: '%s' must be a list of strings", path, idx + 1, key);
    size_t cnt = (size_t)cJSON_GetArraySize(v);
    *out = calloc(cnt + 1, sizeof **out);
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it))
            return fp_err_set(err, FP_BAD_INPUT, "%s: recipe #%zu: '%s' must be a list of strings", path, idx + 1,
                              key);
        (*out)[(*n)++] = strdup(it->valuestring);
    }
    return 0;
}

static void recipe_free(fp_recipe *r)
{
    free(r->name);
    free(r->test_file);
    free(r->hint);
    free(r->invocation);
    free(r->shape_env);
    free(r->category);
    free(r->note);
    fp_strv_free(r->kernels, r->n_kernels);
    fp_strv_free(r->requires, r->n_requires);
    memset(r, 0, sizeof *r);
}

static fp_recipe *push(fp_recipes *out)
{
    fp_recipe *nv = realloc(out->v, (out->n + 1) * sizeof *nv);
    if (!nv)
        abort();
    out->v = nv;
    fp_recipe *r = &out->v[out->n++];
    memset(r, 0, sizeof *r);
    return r;
}

int fp_recipes_load(const char *path, fp_recipes *out, fp_err *err)
{
    fp_sb text;
    fp_sb_init(&text);
    if (fp_read_file(path, &text, err) != 0) {
        fp_sb_free(&text);
        return -1;
    }
    cJSON *root = NULL;
    size_t pl = strlen(path);
    bool json = pl > 5 && !strcmp(path + pl - 5, ".json");
    if (json) {
        root = cJSON_ParseWithLength(text.buf, text.len);
        if (!root) {
            fp_sb_free(&text);
            return fp_err_set(err, FP_BAD_INPUT, "%s: malformed JSON", path);
        }
    } else if (parse_yaml(path, &text, &root, err) != 0) {
        fp_sb_free(&text);
        return -1;
    }
    fp_sb_free(&text);
    /* accept {"recipes": [...]} and a bare list */
    const cJSON *list = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "recipes");
    int rc = 0;
    if (!cJSON_IsArray(list)) {
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: expected `recipes:` with a list of recipes", path);
        goto done;
    }
    if (cJSON_GetArraySize(list) > FP_MAX_RECIPES) {
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: more than %d recipes", path, FP_MAX_RECIPES);
        goto done;
    }
    size_t idx = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        if (!cJSON_IsObject(it)) {
            rc = fp_err_set(err, FP_BAD_INPUT, "%s: recipe #%zu is not a mapping", path, idx + 1);
            goto done;
        }
        bool bad = false;
        fp_recipe r;
        memset(&r, 0, sizeof r);
        r.name = opt_str(it, "name", path, idx, err, &bad);
        r.test_file = opt_str(it, "test_file", path, idx, err, &bad);
        r.hint = opt_str(it, "kernel_name_hint", path, idx, err, &bad);
        r.invocation = opt_str(it, "invocation", path, idx, err, &bad);
        r.shape_env = opt_str(it, "shape_env", path, idx, err, &bad);
        r.category = opt_str(it, "category", path, idx, err, &bad);
        r.note = opt_str(it, "note", path, idx, err, &bad);
        if (!bad && (str_list(it, "kernels", &r.kernels, &r.n_kernels, path, idx, err) != 0 ||
                     str_list(it, "requires", &r.requires, &r.n_requires, path, idx, err) != 0))
            bad = true;
        if (!bad && (!r.name || !r.name[0] || strchr(r.name, '/'))) {
            fp_err_set(err, FP_BAD_INPUT, "%s: recipe #%zu needs a plain `name`", path, idx + 1);
            bad = true;
        }
        if (!bad && !safe_rel_path(r.test_file)) {
            fp_err_set(err, FP_BAD_INPUT, "%s: recipe '%s': test_file '%s' must be a relative path inside the "
                                          "worktree (no '..', not absolute)",
                       path, r.name, r.test_file ? r.test_file : "");
            bad = true;
        }
        if (!bad && r.shape_env) {
            for (const char *c = r.shape_env; *c && !bad; c++)
                bad = !((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_');
            if (bad)
                fp_err_set(err, FP_BAD_INPUT, "%s: recipe '%s': shape_env '%s' is not an environment variable "
                                              "name",
                           path, r.name, r.shape_env);
        }
        if (bad) {
            recipe_free(&r);
            rc = -1;
            goto done;
        }
        if (!r.category)
            r.category = strdup(fp_kernel_category(r.name));
        r.has_recipe = true;
        /* a later entry with the same name replaces the earlier one */
        fp_recipe *dst = NULL;
        for (size_t i = 0; i < out->n && !dst; i++)
            if (!strcmp(out->v[i].name, r.name))
                dst = &out->v[i];
        if (dst)
            recipe_free(dst);
        else
            dst = push(out);
        *dst = r;
        idx++;
    }
done:
    cJSON_Delete(root);
    return rc;
}

int fp_recipes_scan_worktree(const char *worktree, fp_recipes *out, fp_err *err)
{
    fp_tracked_file *files = NULL;
    size_t nf = 0;
    if (fp_worktree_tracked(worktree, FP_KERNEL_TESTS_DIR, &files, &nf, err) != 0)
        return -1;
    regex_t re;
    if (regcomp(&re, "ROCDSL_[A-Z0-9_]*SHAPES?", REG_EXTENDED) != 0)
        abort();
    for (size_t i = 0; i < nf; i++) {
        const char *path = files[i].path;
        const char *base = path + strlen(FP_KERNEL_TESTS_DIR);
        size_t bl = strlen(base);
        /* only direct children named test_<name>.py */
        if (strchr(base, '/') || strncmp(base, "test_", 5) || bl <= 8 || strcmp(base + bl - 3, ".py"))
            continue;
        char *name = strndup(base + 5, bl - 8);
        fp_recipe *hit = NULL;
        for (size_t k = 0; k < out->n && !hit; k++)
            if (out->v[k].test_file && !strcmp(out->v[k].test_file, path))
                hit = &out->v[k];
        for (size_t k = 0; k < out->n && !hit; k++)
            if (!strcmp(out->v[k].name, name))
                hit = &out->v[k];
        if (hit) {
            hit->in_worktree = hit->test_file && !strcmp(hit->test_file, path);
            free(name);
            continue;
        }
        fp_recipe *r = push(out);
        r->name = name;
        r->test_file = strdup(path);
        r->category = strdup(fp_kernel_category(name));
        r->kernels = calloc(3, sizeof *r->kernels);
        fp_sb kn;
        fp_sb_init(&kn);
        fp_sb_addf(&kn, "%s_kernel", name);
        r->kernels[0] = fp_sb_detach(&kn);
        r->kernels[1] = strdup(name);
        r->n_kernels = 2;
        regmatch_t m;
        if (files[i].content && regexec(&re, files[i].content, 1, &m, 0) == 0)
            r->shape_env = strndup(files[i].content + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
        r->in_worktree = true;
    }
    regfree(&re);
    fp_tracked_free(files, nf);
    return 0;
}

void fp_recipes_sort(fp_recipes *r)
{
    for (size_t a = 1; a < r->n; a++) {
        fp_recipe t = r->v[a];
        size_t b = a;
        while (b > 0 && strcmp(r->v[b - 1].name, t.name) > 0) {
            r->v[b] = r->v[b - 1];
            b--;
        }
        r->v[b] = t;
    }
}

const fp_recipe *fp_recipes_find(const fp_recipes *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->v[i].name, name))
            return &r->v[i];
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].hint && !strcmp(r->v[i].hint, name))
            return &r->v[i];
        for (size_t k = 0; k < r->v[i].n_kernels; k++)
            if (!strcmp(r->v[i].kernels[k], name))
                return &r->v[i];
    }
    return NULL;
}

static cJSON *strv_json(char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

cJSON *fp_recipe_json(const fp_recipe *r)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "kernel", r->name);
    fp_json_add_str(o, "test_file", r->test_file);
    fp_json_add_str(o, "category", r->category);
    fp_json_add_str(o, "shape_env", r->shape_env);
    fp_json_add_str(o, "kernel_name_hint", r->hint);
    cJSON_AddItemToObject(o, "kernel_fns", strv_json(r->kernels, r->n_kernels));
    fp_json_add_bool(o, "has_recipe", r->has_recipe);
    fp_json_add_str(o, "recipe_source", r->has_recipe ? "registry" : "synthesized");
    fp_json_add_bool(o, "in_worktree", r->in_worktree);
    cJSON *req = cJSON_AddArrayToObject(o, "requirements");
    /* every capture needs these (doctor checks them) */
    static const char *const base[] = {"rocprofv3", "trace-decoder", "gpu", "build-tree"};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        cJSON_AddItemToArray(req, cJSON_CreateString(base[i]));
    for (size_t i = 0; i < r->n_requires; i++)
        cJSON_AddItemToArray(req, cJSON_CreateString(r->requires[i]));
    fp_json_add_str(o, "invocation", r->invocation);
    fp_json_add_str(o, "note", r->note);
    return o;
}

void fp_recipes_free(fp_recipes *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        recipe_free(&r->v[i]);
    free(r->v);
    r->v = NULL;
    r->n = 0;
}
