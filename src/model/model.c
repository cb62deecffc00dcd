/*
 * model.c - the engine behind every artifact table (model.h): one writer, one
 * strict reader, rounding, copying and freeing, all driven by fp_schema.
 *
 * The writer builds the same cJSON tree the hand-written writers built (the same
 * helpers: fp_round for decimals, literal keys), so an artifact keeps its bytes.
 * Files are written by the streaming writer below (same keys, same bytes, no tree),
 * which test_model holds to the tree's bytes on every schema.
 * The reader is strict on purpose: a renamed or mistyped key must fail loudly with
 * its path instead of reading as 0 in some later rule.
 */
#include "flyprof/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "flyprof/bundle_path.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"

#define AT(obj, off, T) ((T *)((char *)(obj) + (off)))
#define CAT(obj, off, T) ((const T *)((const char *)(obj) + (off)))

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        abort();
    return p;
}

char *fp_model_strdup(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

char *fp_model_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    return s;
}

void *fp_model_push(void **items, size_t *n, size_t size)
{
    char *v = realloc(*items, (*n + 1) * size);
    if (!v)
        abort();
    memset(v + *n * size, 0, size);
    *items = v;
    return v + (*n)++ * size;
}

void fp_model_push_str(char ***items, size_t *n, const char *s)
{
    char **slot = fp_model_push((void **)items, n, sizeof **items);
    *slot = fp_model_strdup(s);
}

/* ---------------------------------------------------------------- string pool */

/* Chunks of string bytes, newest first. A document built in one go (bubbles.json: ~6.8k
 * strings) copies its strings here instead of strdup'ing each: a copy is a bump of
 * `used`, and freeing them is freeing a few chunks (strdup + free was ~3.4 M of
 * the 141 M of `bubbles` on flash_attn_func-big). */
typedef struct pool_chunk {
    struct pool_chunk *next;
    size_t used, cap;
    char data[];
} pool_chunk;

struct fp_model_pool {
    pool_chunk *head;
};

enum { POOL_FIRST = 16384 };

char *fp_model_pool_dup(fp_model_pool **pool, const char *s)
{
    if (!s)
        return NULL;
    if (!*pool)
        *pool = xcalloc(1, sizeof **pool);
    size_t n = strlen(s) + 1;
    pool_chunk *c = (*pool)->head;
    if (!c || c->cap - c->used < n) {
        /* doubling: a few chunks for any document, so fp_model_pool_owns stays short */
        size_t cap = c ? 2 * c->cap : POOL_FIRST;
        while (cap < n)
            cap *= 2;
        pool_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc)
            abort();
        nc->next = c;
        nc->used = 0;
        nc->cap = cap;
        (*pool)->head = c = nc;
    }
    char *d = c->data + c->used;
    memcpy(d, s, n);
    c->used += n;
    return d;
}

bool fp_model_pool_owns(const fp_model_pool *pool, const void *p)
{
    const char *q = p;
    for (const pool_chunk *c = pool ? pool->head : NULL; c; c = c->next)
        if (q >= c->data && q < c->data + c->cap)
            return true;
    return false;
}

void fp_model_pool_adopt(fp_model_pool **dst, fp_model_pool *src)
{
    if (!src)
        return;
    if (!*dst) {
        *dst = src;
        return;
    }
    /* both lists are biggest first (capacities double): merged so, the chunks that hold
     * most strings stay first for fp_model_pool_owns (the free of a document asks it for
     * each string). The head is then the biggest, which takes the next copies. */
    pool_chunk *a = (*dst)->head, *b = src->head, *head = NULL, **tail = &head;
    while (a || b) {
        pool_chunk **from = !b || (a && a->cap >= b->cap) ? &a : &b;
        *tail = *from;
        *from = (*from)->next;
        tail = &(*tail)->next;
    }
    *tail = NULL;
    (*dst)->head = head;
    free(src);
}

/* A string of a document that may hold pooled ones: freed unless the pool has it. */
static void str_free(const fp_model_pool *pool, char *p)
{
    if (p && !fp_model_pool_owns(pool, p))
        free(p);
}

void fp_model_free_str(const fp_model_pool *pool, char *p) { str_free(pool, p); }

static void pool_free(fp_model_pool *pool)
{
    if (!pool)
        return;
    for (pool_chunk *c = pool->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(pool);
}

/* ---------------------------------------------------------------- writer */

static cJSON *must(cJSON *j)
{
    if (!j)
        abort();
    return j;
}

/* twice: as if fp_model_round had rounded the object first (fp_model_write_rounded) */
static cJSON *num(double v, int dec, bool twice)
{
    if (dec >= 0) {
        v = fp_round(v, dec);
        if (twice)
            v = fp_round(v, dec);
    }
    return must(cJSON_CreateNumber(v));
}

/* Whether the field's value is null (for FP_F_OMIT_NULL). */
static bool is_null(const fp_field *f, const void *obj)
{
    switch (f->kind) {
    case FP_K_OPTD: return !CAT(obj, f->off, fp_optd)->known;
    case FP_K_OPTB: return !CAT(obj, f->off, fp_optb)->known;
    case FP_K_STR: return *CAT(obj, f->off, char *) == NULL;
    case FP_K_OBJP: return *CAT(obj, f->off, void *) == NULL;
    case FP_K_JSON: return *CAT(obj, f->off, cJSON *) == NULL;
    case FP_K_INLINE: return *CAT(obj, f->off, void *) == NULL;
    case FP_K_NUMSTR: return !CAT(obj, f->off, fp_numstr)->is_num && !CAT(obj, f->off, fp_numstr)->str;
    case FP_K_MAP:
    case FP_K_ARR:
    case FP_K_STRS:
    case FP_K_NUMS:
    case FP_K_OPTDMAP: return *CAT(obj, f->count, size_t) == 0;
    default: return false;
    }
}

static void write_fields(cJSON *o, const fp_schema *s, const void *obj, bool twice);
static cJSON *write_tree(const fp_schema *s, const void *obj, bool twice);

/* A map's sub schema with one key-less field: the member's value is that field's. */
static bool map_single(const fp_schema *sub) { return sub->nfields == 1 && sub->fields[0].key == NULL; }

static cJSON *write_value(const fp_field *f, const void *obj, bool twice)
{
    switch (f->kind) {
    case FP_K_I64: return must(cJSON_CreateNumber((double)*CAT(obj, f->off, int64_t)));
    case FP_K_INT: return must(cJSON_CreateNumber((double)*CAT(obj, f->off, int)));
    case FP_K_NUM: return num(*CAT(obj, f->off, double), f->dec, twice);
    case FP_K_OPTD: {
        const fp_optd *o = CAT(obj, f->off, fp_optd);
        return o->known ? num(o->v, f->dec, twice) : must(cJSON_CreateNull());
    }
    case FP_K_BOOL: return must(cJSON_CreateBool(*CAT(obj, f->off, bool)));
    case FP_K_OPTB: {
        const fp_optb *o = CAT(obj, f->off, fp_optb);
        return must(o->known ? cJSON_CreateBool(o->v) : cJSON_CreateNull());
    }
    case FP_K_STR: {
        const char *s = *CAT(obj, f->off, char *);
        return must(s ? cJSON_CreateString(s) : cJSON_CreateNull());
    }
    case FP_K_OBJ: return write_tree(f->sub, CAT(obj, f->off, char), twice);
    case FP_K_VIEW: return write_tree(f->sub, obj, twice);
    case FP_K_OBJP: {
        const void *p = *CAT(obj, f->off, void *);
        return p ? write_tree(f->sub, p, twice) : must(cJSON_CreateNull());
    }
    case FP_K_ARR: {
        cJSON *a = must(cJSON_CreateArray());
        const char *items = *CAT(obj, f->off, char *);
        size_t n = *CAT(obj, f->count, size_t);
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(a, write_tree(f->sub, items + i * f->sub->size, twice));
        return a;
    }
    case FP_K_STRS: {
        cJSON *a = must(cJSON_CreateArray());
        char *const *items = *(char *const *const *)((const char *)obj + f->off);
        size_t n = *CAT(obj, f->count, size_t);
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(a, must(items[i] ? cJSON_CreateString(items[i]) : cJSON_CreateNull()));
        return a;
    }
    case FP_K_NUMS: {
        cJSON *a = must(cJSON_CreateArray());
        const double *items = *CAT(obj, f->off, double *);
        size_t n = *CAT(obj, f->count, size_t);
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(a, num(items[i], f->dec, twice));
        return a;
    }
    case FP_K_JSON: {
        const cJSON *j = *CAT(obj, f->off, cJSON *);
        return must(j ? cJSON_Duplicate(j, 1) : cJSON_CreateNull());
    }
    case FP_K_MAP: {
        cJSON *o = must(cJSON_CreateObject());
        const char *items = *CAT(obj, f->off, char *);
        size_t n = *CAT(obj, f->count, size_t);
        for (size_t i = 0; i < n; i++) {
            const char *e = items + i * f->sub->size;
            const char *key = *(const char *const *)e;
            cJSON *v = map_single(f->sub) ? write_value(&f->sub->fields[0], e, twice) : write_tree(f->sub, e, twice);
            cJSON_AddItemToObject(o, key ? key : "", v);
        }
        return o;
    }
    case FP_K_NUMSTR: {
        const fp_numstr *v = CAT(obj, f->off, fp_numstr);
        return v->is_num ? num(v->num, f->dec, twice) : must(v->str ? cJSON_CreateString(v->str) : cJSON_CreateNull());
    }
    case FP_K_INLINE:
    case FP_K_ONEOF: break; /* written by write_fields */
    case FP_K_OPTDMAP: {
        cJSON *o = must(cJSON_CreateObject());
        const fp_named_optd *items = *CAT(obj, f->off, fp_named_optd *);
        size_t n = *CAT(obj, f->count, size_t);
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToObject(o, items[i].key ? items[i].key : "",
                                  items[i].v.known ? num(items[i].v.v, f->dec, twice) : must(cJSON_CreateNull()));
        return o;
    }
    }
    abort();
}

/* The form an FP_K_ONEOF field selects in obj (the first when out of range). */
static const fp_schema *form_of(const fp_field *f, const void *obj)
{
    int sel = *CAT(obj, f->when, int);
    return &f->sub[sel >= 0 && (size_t)sel < f->count ? (size_t)sel : 0];
}

static void write_fields(cJSON *o, const fp_schema *s, const void *obj, bool twice)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_ONEOF) {
            write_fields(o, form_of(f, obj), obj, twice);
            continue;
        }
        if (f->kind == FP_K_INLINE) {
            const void *p = *CAT(obj, f->off, void *);
            if (p)
                write_fields(o, f->sub, p, twice);
            continue;
        }
        if ((f->flags & FP_F_OMIT_NULL) && is_null(f, obj))
            continue;
        if ((f->flags & FP_F_WHEN) && !*CAT(obj, f->when, bool))
            continue;
        /* keys are literals of the static tables: no copy (cJSON_AddItemToObjectCS) */
        cJSON_AddItemToObjectCS(o, f->key, write_value(f, obj, twice));
    }
}

static cJSON *write_tree(const fp_schema *s, const void *obj, bool twice)
{
    cJSON *o = must(cJSON_CreateObject());
    write_fields(o, s, obj, twice);
    return o;
}

cJSON *fp_model_write(const fp_schema *s, const void *obj) { return write_tree(s, obj, false); }

/* fp_round is not idempotent for every double (|v| * 10^dec past 2^51 may move), so the
 * tree of a rounded object is made by rounding twice, not by assuming it. */
cJSON *fp_model_write_rounded(const fp_schema *s, const void *obj) { return write_tree(s, obj, true); }

/* ---------------------------------------------------------------- streaming writer */

/* The same document as fp_model_write + fp_json_print_fd (formatted), written as it is
 * walked: no tree (building, printing and deleting one was ~36 M instructions of
 * `bubbles` on flash_attn_func-big). The bytes come from json.h's fp_jw (the tree
 * printer's own routines); the layout below is print_object/print_array of cJSON
 * 1.7.15: "{\n", members "\t"*depth "key":\tvalue joined by ",\n", "\n" "\t"*(depth-1)
 * "}"; arrays "[a, b]" with their elements one level deeper. Which keys are written
 * follows write_fields exactly; test_model compares the two on every schema. */
/* The members' texts of one schema's objects at one depth, made once per document:
 * ",\n" (but for the first member), the tabs, the quoted key and ":\t", exactly what
 * fp_jw_key writes (they are made by it). Only for a schema whose every member is always
 * written (no FP_F_OMIT_NULL / FP_F_WHEN, no FP_K_ONEOF / FP_K_INLINE): which member is
 * first is then known. bubbles.json writes 1.5k hotspot objects of 17 members: a member
 * is one fixed-size copy instead of fp_jw_key's lookup and the flag tests. */
#define MW_PLAN_FIELDS 32 /* members of a planned schema, at most */
#define MW_PLAN_TXT 64    /* bytes copied per member; a longer text is not planned */
#define MW_PLANS 64       /* (schema, depth) pairs of one document followed, at most */
typedef struct mw_plan {
    const fp_schema *s;
    size_t depth;      /* the members' indentation */
    bool made;         /* the second object of (s, depth) made it: one written once gains nothing */
    bool plain;        /* made and plannable; else written by mw_fields */
    unsigned char len[MW_PLAN_FIELDS];
    char (*txt)[MW_PLAN_TXT]; /* s->nfields texts, when plain */
} mw_plan;

/* Strings found to need no rewrite (fp_path_rw_apply gave NULL), the last two: the
 * result is a function of the bytes, and a document repeats its paths (every hotspot
 * of a line names the same "source", every wait its producer's "inst"). */
#define MW_NORW 2

/* What one write learns as it goes: the plans and the strings without rewrite. */
typedef struct mw_memo {
    mw_plan plan[MW_PLANS];
    size_t n_plan;
    const char *norw[MW_NORW]; /* strings of the document being written (they outlive it) */
    size_t norw_len[MW_NORW];
    size_t norw_next;
} mw_memo;

typedef struct mw {
    fp_jw *w;
    const fp_path_rw *rw; /* string values made bundle-relative (fp_bundle_write_json), or NULL */
    size_t rw_min;        /* fp_path_rw_shortest(rw): shorter strings are never rewritten */
    mw_memo *memo;        /* NULL: no plans, no memo */
    /* fp_model_write_bundle_file_split: the list written in two parts (sf, a member of
     * the top-level object top), or NULL */
    const fp_model_split *split;
    const fp_field *sf;
    const void *top;
} mw;

/* Whether s (n bytes) is one of the strings already found to need no rewrite. */
static bool norw_known(const mw_memo *mm, const char *s, size_t n)
{
    for (size_t i = 0; i < MW_NORW; i++)
        if (mm->norw[i] && mm->norw_len[i] == n && (mm->norw[i] == s || !memcmp(mm->norw[i], s, n)))
            return true;
    return false;
}

static void mw_str(const mw *m, const char *s)
{
    if (!s) {
        fp_jw_lit(m->w, "null", 4);
        return;
    }
    size_t n = strlen(s);
    char *r = NULL;
    if (m->rw && n >= m->rw_min && !(m->memo && norw_known(m->memo, s, n))) {
        r = fp_path_rw_apply(m->rw, s);
        if (!r && m->memo) {
            mw_memo *mm = m->memo;
            mm->norw[mm->norw_next] = s;
            mm->norw_len[mm->norw_next] = n;
            mm->norw_next = (mm->norw_next + 1) % MW_NORW;
        }
    }
    if (r)
        fp_jw_str(m->w, r);
    else
        fp_jw_strn(m->w, s, n);
    free(r);
}

static void mw_num(const mw *m, double v, int dec) { fp_jw_num(m->w, dec >= 0 ? fp_round(v, dec) : v); }

/* A member's key: ",\n" before all but the first, then the indentation. */
static void mw_key(const mw *m, const char *key, size_t depth, bool *first)
{
    fp_jw_key(m->w, key, depth, *first); /* the first member follows "{\n" directly */
    *first = false;
}

/* A member name that is data (FP_K_MAP, FP_K_OPTDMAP): past the writer's key cache. */
static void mw_key_data(const mw *m, const char *key, size_t depth, bool *first)
{
    fp_jw_key_data(m->w, key, depth, *first);
    *first = false;
}

static void mw_close(const mw *m, size_t depth, bool first)
{
    if (!first)
        fp_jw_lit(m->w, "\n", 1);
    fp_jw_tabs(m->w, depth - 1);
    fp_jw_lit(m->w, "}", 1);
}

static void mw_fields(const mw *m, const fp_schema *s, const void *obj, size_t depth, bool *first);
static void mw_value(const mw *m, const fp_field *f, const void *obj, size_t depth);

/* s's plan for members at depth: NULL the first time (followed from then on, or not when
 * the table is full), made the second time (plain or not). */
static const mw_plan *plan_of(mw_memo *mm, const fp_schema *s, size_t depth)
{
    mw_plan *p = NULL;
    for (size_t i = 0; i < mm->n_plan && !p; i++)
        if (mm->plan[i].s == s && mm->plan[i].depth == depth)
            p = &mm->plan[i];
    if (!p) {
        if (mm->n_plan < MW_PLANS)
            mm->plan[mm->n_plan++] = (mw_plan){.s = s, .depth = depth};
        return NULL;
    }
    if (p->made)
        return p;
    p->made = true;
    p->plain = s->nfields > 0 && s->nfields <= MW_PLAN_FIELDS && depth <= MW_PLAN_TXT;
    for (size_t i = 0; p->plain && i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_ONEOF || f->kind == FP_K_INLINE || (f->flags & (FP_F_OMIT_NULL | FP_F_WHEN)) || !f->key)
            p->plain = false;
    }
    if (!p->plain)
        return p;
    /* the texts by the writer's own routine (fp_jw_key_data: fp_jw_key's bytes, without
     * its cache), into memory: the same bytes by construction */
    p->txt = xcalloc(s->nfields, sizeof *p->txt);
    fp_jw t;
    fp_jw_init(&t, -1);
    for (size_t i = 0; i < s->nfields && p->plain; i++) {
        t.n = 0;
        fp_jw_key_data(&t, s->fields[i].key, depth, i == 0);
        if (t.n > MW_PLAN_TXT)
            p->plain = false;
        else
            memcpy(p->txt[i], t.p, t.n);
        p->len[i] = (unsigned char)t.n;
    }
    free(fp_jw_detach(&t, NULL));
    return p;
}

static void memo_free(mw_memo *mm)
{
    for (size_t i = 0; i < mm->n_plan; i++)
        free(mm->plan[i].txt);
    free(mm);
}

/* A planned member's text: one fixed-size copy when the buffer has room. */
static inline void plan_key(fp_jw *w, const mw_plan *p, size_t i)
{
    if (w->n + MW_PLAN_TXT + 1 <= w->cap) {
        memcpy(w->p + w->n, p->txt[i], MW_PLAN_TXT);
        w->n += p->len[i];
    } else {
        fp_jw_put(w, p->txt[i], p->len[i]);
    }
}

/* An object of s at depth (its members at depth + 1... as put_object's depth++). */
static void mw_object(const mw *m, const fp_schema *s, const void *obj, size_t depth)
{
    bool first = true;
    fp_jw_lit(m->w, "{\n", 2);
    const mw_plan *p = m->memo ? plan_of(m->memo, s, depth + 1) : NULL;
    if (p && p->plain) {
        /* mw_fields' walk for a schema with every member written (plan_of) */
        for (size_t i = 0; i < s->nfields; i++) {
            const fp_field *f = &s->fields[i];
            plan_key(m->w, p, i);
            switch (f->kind) {
            case FP_K_I64: fp_jw_i64(m->w, *CAT(obj, f->off, int64_t)); break;
            case FP_K_STR: mw_str(m, *CAT(obj, f->off, char *)); break;
            case FP_K_NUM: mw_num(m, *CAT(obj, f->off, double), f->dec); break;
            case FP_K_BOOL: *CAT(obj, f->off, bool) ? fp_jw_lit(m->w, "true", 4) : fp_jw_lit(m->w, "false", 5); break;
            default: mw_value(m, f, obj, depth + 1); break;
            }
        }
        first = false;
    } else {
        mw_fields(m, s, obj, depth + 1, &first);
    }
    mw_close(m, depth + 1, first);
}

/* A cJSON value of the document (FP_K_JSON), its strings rewritten like the tree's. */
static void mw_tree(const mw *m, const cJSON *j, size_t depth)
{
    if (!j) {
        fp_jw_lit(m->w, "null", 4);
        return;
    }
    if (!m->rw) {
        fp_jw_value(m->w, j, depth);
        return;
    }
    if (cJSON_IsString(j)) {
        mw_str(m, j->valuestring);
        return;
    }
    cJSON *d = must(cJSON_Duplicate(j, 1)); /* rare (free-form data): rewritten in a copy */
    fp_path_rw_walk(m->rw, d);
    fp_jw_value(m->w, d, depth);
    cJSON_Delete(d);
}

static void mw_value(const mw *m, const fp_field *f, const void *obj, size_t depth)
{
    fp_jw *w = m->w;
    switch (f->kind) {
    case FP_K_I64: fp_jw_i64(w, *CAT(obj, f->off, int64_t)); return;
    case FP_K_INT: fp_jw_i64(w, *CAT(obj, f->off, int)); return;
    case FP_K_NUM: mw_num(m, *CAT(obj, f->off, double), f->dec); return;
    case FP_K_OPTD: {
        const fp_optd *o = CAT(obj, f->off, fp_optd);
        if (o->known)
            mw_num(m, o->v, f->dec);
        else
            fp_jw_lit(w, "null", 4);
        return;
    }
    case FP_K_BOOL: *CAT(obj, f->off, bool) ? fp_jw_lit(w, "true", 4) : fp_jw_lit(w, "false", 5); return;
    case FP_K_OPTB: {
        const fp_optb *o = CAT(obj, f->off, fp_optb);
        fp_jw_lit(w, !o->known ? "null" : o->v ? "true" : "false", !o->known || o->v ? 4 : 5);
        return;
    }
    case FP_K_STR: mw_str(m, *CAT(obj, f->off, char *)); return;
    case FP_K_OBJ: mw_object(m, f->sub, CAT(obj, f->off, char), depth); return;
    case FP_K_VIEW: mw_object(m, f->sub, obj, depth); return;
    case FP_K_OBJP: {
        const void *p = *CAT(obj, f->off, void *);
        if (p)
            mw_object(m, f->sub, p, depth);
        else
            fp_jw_lit(w, "null", 4);
        return;
    }
    case FP_K_ARR:
    case FP_K_STRS:
    case FP_K_NUMS: {
        const char *items = *CAT(obj, f->off, char *);
        size_t n = *CAT(obj, f->count, size_t);
        fp_jw_lit(w, "[", 1);
        if (m->split && f == m->sf && obj == m->top) {
            /* items [at, n) are rest()'s text: this writes [0, at) and puts it after */
            n = m->split->at < n ? m->split->at : n;
        }
        for (size_t i = 0; i < n; i++) {
            if (i)
                fp_jw_lit(w, ", ", 2);
            if (f->kind == FP_K_ARR)
                mw_object(m, f->sub, items + i * f->sub->size, depth + 1);
            else if (f->kind == FP_K_STRS)
                mw_str(m, ((char *const *)items)[i]);
            else
                mw_num(m, ((const double *)items)[i], f->dec);
        }
        if (m->split && f == m->sf && obj == m->top) {
            size_t len = 0;
            const char *rest = m->split->rest(m->split->ctx, &len);
            fp_jw_put(w, rest, len);
        }
        fp_jw_lit(w, "]", 1);
        return;
    }
    case FP_K_JSON: mw_tree(m, *CAT(obj, f->off, cJSON *), depth); return;
    case FP_K_MAP: {
        const char *items = *CAT(obj, f->off, char *);
        size_t n = *CAT(obj, f->count, size_t);
        bool first = true;
        fp_jw_lit(w, "{\n", 2);
        for (size_t i = 0; i < n; i++) {
            const char *e = items + i * f->sub->size;
            const char *key = *(const char *const *)e;
            mw_key_data(m, key ? key : "", depth + 1, &first);
            if (map_single(f->sub))
                mw_value(m, &f->sub->fields[0], e, depth + 1);
            else
                mw_object(m, f->sub, e, depth + 1);
        }
        mw_close(m, depth + 1, first);
        return;
    }
    case FP_K_NUMSTR: {
        const fp_numstr *v = CAT(obj, f->off, fp_numstr);
        if (v->is_num)
            mw_num(m, v->num, f->dec);
        else
            mw_str(m, v->str);
        return;
    }
    case FP_K_INLINE:
    case FP_K_ONEOF: break; /* written by mw_fields */
    case FP_K_OPTDMAP: {
        const fp_named_optd *items = *CAT(obj, f->off, fp_named_optd *);
        size_t n = *CAT(obj, f->count, size_t);
        bool first = true;
        fp_jw_lit(w, "{\n", 2);
        for (size_t i = 0; i < n; i++) {
            mw_key_data(m, items[i].key ? items[i].key : "", depth + 1, &first);
            if (items[i].v.known)
                mw_num(m, items[i].v.v, f->dec);
            else
                fp_jw_lit(w, "null", 4);
        }
        mw_close(m, depth + 1, first);
        return;
    }
    }
    abort();
}

/* write_fields' choice of keys, streamed; depth: the members' indentation. */
static void mw_fields(const mw *m, const fp_schema *s, const void *obj, size_t depth, bool *first)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_ONEOF) {
            mw_fields(m, form_of(f, obj), obj, depth, first);
            continue;
        }
        if (f->kind == FP_K_INLINE) {
            const void *p = *CAT(obj, f->off, void *);
            if (p)
                mw_fields(m, f->sub, p, depth, first);
            continue;
        }
        if ((f->flags & FP_F_OMIT_NULL) && is_null(f, obj))
            continue;
        if ((f->flags & FP_F_WHEN) && !*CAT(obj, f->when, bool))
            continue;
        mw_key(m, f->key, depth, first);
        /* the scalars most members are, here rather than through mw_value's call */
        switch (f->kind) {
        case FP_K_I64: fp_jw_i64(m->w, *CAT(obj, f->off, int64_t)); break;
        case FP_K_STR: mw_str(m, *CAT(obj, f->off, char *)); break;
        case FP_K_NUM: mw_num(m, *CAT(obj, f->off, double), f->dec); break;
        default: mw_value(m, f, obj, depth); break;
        }
    }
}

char *fp_model_print(const fp_schema *s, const void *obj, size_t *len)
{
    fp_jw w;
    fp_jw_init(&w, -1);
    mw_memo *memo = xcalloc(1, sizeof *memo);
    mw m = {&w, NULL, SIZE_MAX, memo, NULL, NULL, NULL};
    mw_object(&m, s, obj, 0);
    memo_free(memo);
    return fp_jw_detach(&w, len);
}

typedef struct mw_file {
    const fp_schema *s;
    const void *obj;
    const fp_path_rw *rw;
    const fp_model_split *split; /* or NULL */
    const fp_field *sf;          /* split's member */
} mw_file;

static int fill_doc(int fd, void *ctx)
{
    const mw_file *f = ctx;
    fp_jw w;
    fp_jw_init(&w, fd);
    mw_memo *memo = xcalloc(1, sizeof *memo);
    mw m = {&w, f->rw, f->rw ? fp_path_rw_shortest(f->rw) : SIZE_MAX, memo, f->split, f->sf, f->obj};
    mw_object(&m, f->s, f->obj, 0);
    memo_free(memo);
    fp_jw_put(&w, "\n", 1);
    return fp_jw_close(&w);
}

/* The top-level FP_K_ARR member at off (the split list), or abort: a caller's mistake. */
static const fp_field *split_field(const fp_schema *s, size_t off)
{
    for (size_t i = 0; i < s->nfields; i++)
        if (s->fields[i].kind == FP_K_ARR && s->fields[i].off == off)
            return &s->fields[i];
    abort();
}

int fp_model_write_bundle_file_split(const fp_schema *s, const void *obj, const char *path, const char *bundle,
                                     const fp_model_split *split, fp_err *err)
{
    fp_path_rw rw;
    bool rel = fp_path_rw_bundle(&rw, bundle);
    mw_file f = {s, obj, rel ? &rw : NULL, split, split ? split_field(s, split->off) : NULL};
    int rc = fp_write_atomic_fn(path, fill_doc, &f, err);
    if (rel)
        fp_path_rw_free(&rw);
    return rc;
}

int fp_model_write_bundle_file(const fp_schema *s, const void *obj, const char *path, const char *bundle, fp_err *err)
{
    return fp_model_write_bundle_file_split(s, obj, path, bundle, NULL, err);
}

char *fp_model_print_items(const fp_schema *s, const void *obj, size_t off, size_t lo, const char *bundle,
                           size_t *len)
{
    const fp_field *f = split_field(s, off);
    const char *items = *CAT(obj, f->off, char *);
    size_t n = *CAT(obj, f->count, size_t);
    fp_path_rw rw; /* this thread's own, as the memo and the writer */
    bool rel = fp_path_rw_bundle(&rw, bundle);
    fp_jw w;
    fp_jw_init(&w, -1);
    mw_memo *memo = xcalloc(1, sizeof *memo);
    mw m = {&w, rel ? &rw : NULL, rel ? fp_path_rw_shortest(&rw) : SIZE_MAX, memo, NULL, NULL, NULL};
    /* mw_value's FP_K_ARR loop for a member of the depth-0 object: items at depth 2 */
    for (size_t i = lo; i < n; i++) {
        if (i)
            fp_jw_lit(&w, ", ", 2);
        mw_object(&m, f->sub, items + i * f->sub->size, 2);
        if (i == lo && n - i > 64) /* the others' room foreseen from the first: 1/4 more */
            fp_jw_reserve(&w, (n - i - 1) * w.n / 4 * 5);
    }
    memo_free(memo);
    if (rel)
        fp_path_rw_free(&rw);
    return fp_jw_detach(&w, len);
}

#define NUMVAL(name, dec)                                                                                          \
    static const fp_field name##_fields[] = {{NULL, FP_K_NUM, offsetof(fp_model_kv, v), dec, 0, NULL, 0, 0}};         \
    const fp_schema name##_schema = {#name, sizeof(fp_model_kv), FP_FIELDS(name##_fields), false};
NUMVAL(fp_model_numval, -1)
NUMVAL(fp_model_numval1, 1)
NUMVAL(fp_model_numval3, 3)
#undef NUMVAL

/* ---------------------------------------------------------------- reader */

/* The path of the value being read, "$.a.b[3]", kept on the stack of calls. */
typedef struct rpath {
    const struct rpath *up;
    const char *key; /* NULL: an index */
    size_t index;
} rpath;

static void path_text(const rpath *p, char *buf, size_t n)
{
    if (!p) {
        snprintf(buf, n, "$");
        return;
    }
    path_text(p->up, buf, n);
    size_t l = strlen(buf);
    if (l >= n - 1)
        return;
    if (p->key)
        snprintf(buf + l, n - l, ".%s", p->key);
    else
        snprintf(buf + l, n - l, "[%zu]", p->index);
}

static const char *type_name(const cJSON *j)
{
    if (!j)
        return "nothing";
    if (cJSON_IsNull(j))
        return "null";
    if (cJSON_IsBool(j))
        return "a bool";
    if (cJSON_IsNumber(j))
        return "a number";
    if (cJSON_IsString(j))
        return "a string";
    if (cJSON_IsArray(j))
        return "an array";
    return "an object";
}

static int bad(fp_err *err, const char *doc, const rpath *p, const char *what, const cJSON *got)
{
    char where[512];
    path_text(p, where, sizeof where);
    if (got)
        return fp_err_set(err, FP_BAD_INPUT, "%s: %s: expected %s, got %s", doc, where, what, type_name(got));
    return fp_err_set(err, FP_BAD_INPUT, "%s: %s: %s", doc, where, what);
}

static int read_obj(const fp_schema *s, const cJSON *j, void *obj, const char *doc, const rpath *p, fp_err *err);

static int read_int(const cJSON *v, double lo, double hi, double *out)
{
    if (!cJSON_IsNumber(v))
        return -1;
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

static int read_value(const fp_field *f, const cJSON *v, void *obj, const char *doc, const rpath *p, fp_err *err);

/* An array of sub structs, strings or numbers. */
static int read_list(const fp_field *f, const cJSON *v, void *obj, const char *doc, const rpath *p, fp_err *err)
{
    if (!cJSON_IsArray(v))
        return bad(err, doc, p, "an array", v);
    size_t n = (size_t)cJSON_GetArraySize(v);
    size_t size = f->kind == FP_K_ARR ? f->sub->size : f->kind == FP_K_STRS ? sizeof(char *) : sizeof(double);
    char *items = xcalloc(n, size);
    *AT(obj, f->off, char *) = items;
    *AT(obj, f->count, size_t) = n; /* elements not yet read are zero: safe to free */
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        rpath ep = {p, NULL, i};
        if (f->kind == FP_K_ARR) {
            if (!cJSON_IsObject(e))
                return bad(err, doc, &ep, "an object", e);
            if (read_obj(f->sub, e, items + i * size, doc, &ep, err) != 0)
                return -1;
        } else if (f->kind == FP_K_STRS) {
            if (!cJSON_IsString(e))
                return bad(err, doc, &ep, "a string", e);
            ((char **)items)[i] = fp_model_strdup(e->valuestring);
        } else {
            if (!cJSON_IsNumber(e))
                return bad(err, doc, &ep, "a number", e);
            ((double *)items)[i] = e->valuedouble;
        }
        i++;
    }
    return 0;
}

/* An object whose member names are data, each a sub struct or a single value. */
static int read_map(const fp_field *f, const cJSON *v, void *obj, const char *doc, const rpath *p, fp_err *err)
{
    if (!cJSON_IsObject(v))
        return bad(err, doc, p, "an object", v);
    size_t n = (size_t)cJSON_GetArraySize(v);
    char *items = xcalloc(n, f->sub->size);
    *AT(obj, f->off, char *) = items;
    *AT(obj, f->count, size_t) = n;
    size_t i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, v)
    {
        char *e = items + i++ * f->sub->size;
        rpath mp = {p, m->string ? m->string : "", 0};
        for (const cJSON *q = v->child; q != m; q = q->next)
            if (q->string && !strcmp(q->string, mp.key))
                return bad(err, doc, &mp, "key repeated", NULL);
        *(char **)e = fp_model_strdup(mp.key);
        if (map_single(f->sub)) {
            if (read_value(&f->sub->fields[0], m, e, doc, &mp, err) != 0)
                return -1;
        } else {
            if (!cJSON_IsObject(m))
                return bad(err, doc, &mp, "an object", m);
            if (read_obj(f->sub, m, e, doc, &mp, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* An object whose member names are data, each a number or null. */
static int read_optdmap(const fp_field *f, const cJSON *v, void *obj, const char *doc, const rpath *p, fp_err *err)
{
    if (!cJSON_IsObject(v))
        return bad(err, doc, p, "an object", v);
    size_t n = (size_t)cJSON_GetArraySize(v);
    fp_named_optd *items = xcalloc(n, sizeof *items);
    *AT(obj, f->off, fp_named_optd *) = items;
    *AT(obj, f->count, size_t) = n;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        rpath ep = {p, e->string ? e->string : "", 0};
        for (size_t k = 0; k < i; k++)
            if (!strcmp(items[k].key, ep.key))
                return bad(err, doc, &ep, "key repeated", NULL);
        if (!cJSON_IsNull(e) && !cJSON_IsNumber(e))
            return bad(err, doc, &ep, "a number or null", e);
        items[i].key = fp_model_strdup(ep.key);
        items[i].v = cJSON_IsNull(e) ? fp_optd_none() : fp_optd_of(e->valuedouble);
        i++;
    }
    return 0;
}

/* A number, a string or null (fp_numstr). */
static int read_numstr(const fp_field *f, const cJSON *v, void *obj, const char *doc, const rpath *p, fp_err *err)
{
    fp_numstr *o = AT(obj, f->off, fp_numstr);
    if (cJSON_IsNull(v))
        return 0;
    if (cJSON_IsNumber(v)) {
        o->is_num = true;
        o->num = v->valuedouble;
        return 0;
    }
    if (!cJSON_IsString(v))
        return bad(err, doc, p, "a number, a string or null", v);
    o->str = fp_model_strdup(v->valuestring);
    return 0;
}

static int read_value(const fp_field *f, const cJSON *v, void *obj, const char *doc, const rpath *p, fp_err *err)
{
    double d;
    switch (f->kind) {
    case FP_K_I64:
        /* +-2^63 are not int64; a double that large is out of range anyway */
        if (read_int(v, -9223372036854775808.0, 9223372036854774784.0, &d) != 0)
            return bad(err, doc, p, "an integer", v);
        *AT(obj, f->off, int64_t) = (int64_t)d;
        return 0;
    case FP_K_INT:
        if (read_int(v, -2147483648.0, 2147483647.0, &d) != 0)
            return bad(err, doc, p, "an integer (32 bits)", v);
        *AT(obj, f->off, int) = (int)d;
        return 0;
    case FP_K_NUM:
        if (!cJSON_IsNumber(v))
            return bad(err, doc, p, "a number", v);
        *AT(obj, f->off, double) = v->valuedouble;
        return 0;
    case FP_K_OPTD:
        if (cJSON_IsNull(v)) {
            *AT(obj, f->off, fp_optd) = fp_optd_none();
            return 0;
        }
        if (!cJSON_IsNumber(v))
            return bad(err, doc, p, "a number or null", v);
        *AT(obj, f->off, fp_optd) = fp_optd_of(v->valuedouble);
        return 0;
    case FP_K_BOOL:
        if (!cJSON_IsBool(v))
            return bad(err, doc, p, "a bool", v);
        *AT(obj, f->off, bool) = cJSON_IsTrue(v);
        return 0;
    case FP_K_OPTB:
        if (cJSON_IsNull(v)) {
            *AT(obj, f->off, fp_optb) = (fp_optb){false, false};
            return 0;
        }
        if (!cJSON_IsBool(v))
            return bad(err, doc, p, "a bool or null", v);
        *AT(obj, f->off, fp_optb) = (fp_optb){true, cJSON_IsTrue(v)};
        return 0;
    case FP_K_STR:
        if (cJSON_IsNull(v))
            return 0;
        if (!cJSON_IsString(v))
            return bad(err, doc, p, "a string or null", v);
        *AT(obj, f->off, char *) = fp_model_strdup(v->valuestring);
        return 0;
    case FP_K_OBJ:
        if (!cJSON_IsObject(v))
            return bad(err, doc, p, "an object", v);
        return read_obj(f->sub, v, AT(obj, f->off, char), doc, p, err);
    case FP_K_VIEW:
        if (!cJSON_IsObject(v))
            return bad(err, doc, p, "an object", v);
        return read_obj(f->sub, v, obj, doc, p, err);
    case FP_K_OBJP: {
        if (cJSON_IsNull(v))
            return 0;
        if (!cJSON_IsObject(v))
            return bad(err, doc, p, "an object or null", v);
        void *sub = xcalloc(1, f->sub->size);
        *AT(obj, f->off, void *) = sub; /* owned by obj from here on: freed with it on error */
        return read_obj(f->sub, v, sub, doc, p, err);
    }
    case FP_K_ARR:
    case FP_K_STRS:
    case FP_K_NUMS: return read_list(f, v, obj, doc, p, err);
    case FP_K_JSON:
        *AT(obj, f->off, cJSON *) = must(cJSON_Duplicate(v, 1));
        return 0;
    case FP_K_MAP: return read_map(f, v, obj, doc, p, err);
    case FP_K_INLINE:
    case FP_K_ONEOF: break; /* read by read_fields */
    case FP_K_OPTDMAP: return read_optdmap(f, v, obj, doc, p, err);
    case FP_K_NUMSTR: return read_numstr(f, v, obj, doc, p, err);
    }
    abort();
}

static const fp_field *field_of(const fp_schema *s, const char *key)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_INLINE) {
            const fp_field *g = field_of(f->sub, key);
            if (g)
                return g;
        } else if (f->kind == FP_K_ONEOF) {
            for (size_t k = 0; k < f->count; k++) {
                const fp_field *g = field_of(&f->sub[k], key);
                if (g)
                    return g;
            }
        } else if (f->key && !strcmp(f->key, key)) {
            return f;
        }
    }
    return NULL;
}

/* Whether any key of s (inline groups included) is a member of j. */
static bool any_present(const fp_schema *s, const cJSON *j)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_ONEOF)
            continue; /* a form is chosen, not detected */
        if (f->kind == FP_K_INLINE ? any_present(f->sub, j) : cJSON_GetObjectItemCaseSensitive(j, f->key) != NULL)
            return true;
    }
    return false;
}

/* Whether form s fits j: it knows every key of j, and j has every key s requires. */
static bool form_fits(const fp_schema *s, const cJSON *j)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, j) if (!m->string || !field_of(s, m->string)) return false;
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_INLINE || f->kind == FP_K_ONEOF)
            continue;
        if (!(f->flags & (FP_F_OMIT_NULL | FP_F_OPTIONAL | FP_F_WHEN)) && !cJSON_GetObjectItemCaseSensitive(j, f->key))
            return false;
    }
    return true;
}

static int read_fields(const fp_schema *s, const cJSON *j, void *obj, const char *doc, const rpath *p, fp_err *err)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        if (f->kind == FP_K_ONEOF) {
            size_t k = 0;
            while (k < f->count && !form_fits(&f->sub[k], j))
                k++;
            if (k == f->count) {
                char what[128];
                snprintf(what, sizeof what, "the keys fit none of the forms of %s", f->key ? f->key : "the object");
                return bad(err, doc, p, what, NULL);
            }
            *AT(obj, f->when, int) = (int)k;
            if (read_fields(&f->sub[k], j, obj, doc, p, err) != 0)
                return -1;
            continue;
        }
        if (f->kind == FP_K_INLINE) {
            if (!any_present(f->sub, j))
                continue;
            void *sub = xcalloc(1, f->sub->size);
            *AT(obj, f->off, void *) = sub; /* owned by obj from here on */
            if (read_fields(f->sub, j, sub, doc, p, err) != 0)
                return -1;
            continue;
        }
        rpath fpth = {p, f->key, 0};
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, f->key);
        if (!v) {
            if (f->flags & (FP_F_OMIT_NULL | FP_F_OPTIONAL | FP_F_WHEN))
                continue; /* zeroed: null / 0 / empty, and a FP_F_WHEN key off */
            return bad(err, doc, &fpth, "missing", NULL);
        }
        if (f->flags & FP_F_WHEN)
            *AT(obj, f->when, bool) = true;
        if (read_value(f, v, obj, doc, &fpth, err) != 0)
            return -1;
    }
    return 0;
}

static int read_obj(const fp_schema *s, const cJSON *j, void *obj, const char *doc, const rpath *p, fp_err *err)
{
    /* unknown and repeated keys first: a document with a stray key is not ours */
    const cJSON *m;
    cJSON_ArrayForEach(m, j)
    {
        rpath mp = {p, m->string ? m->string : "", 0};
        if (!field_of(s, mp.key)) {
            if (s->open)
                continue;
            return bad(err, doc, &mp, "unknown key", NULL);
        }
        for (const cJSON *q = j->child; q != m; q = q->next)
            if (q->string && !strcmp(q->string, mp.key))
                return bad(err, doc, &mp, "key repeated", NULL);
    }
    return read_fields(s, j, obj, doc, p, err);
}

int fp_model_read(const fp_schema *s, const cJSON *j, void *obj, const char *doc, fp_err *err)
{
    memset(obj, 0, s->size);
    if (!cJSON_IsObject(j)) {
        bad(err, doc, NULL, "an object", j ? j : NULL);
        return -1;
    }
    if (read_obj(s, j, obj, doc, NULL, err) != 0) {
        fp_model_free(s, obj);
        return -1;
    }
    return 0;
}

int fp_model_read_file(const fp_schema *s, const char *path, void *obj, fp_err *err)
{
    memset(obj, 0, s->size);
    cJSON *j = NULL;
    if (fp_json_parse_file(path, &j, err) != 0)
        return -1;
    int rc = fp_model_read(s, j, obj, path, err);
    cJSON_Delete(j);
    return rc;
}

int fp_model_write_file(const fp_schema *s, const void *obj, const char *path, fp_err *err)
{
    return fp_model_write_bundle_file(s, obj, path, NULL, err);
}

/* ---------------------------------------------------------------- round, free, copy */

void fp_model_round(const fp_schema *s, void *obj)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        switch (f->kind) {
        case FP_K_NUM:
            if (f->dec >= 0)
                *AT(obj, f->off, double) = fp_round(*AT(obj, f->off, double), f->dec);
            break;
        case FP_K_OPTD: {
            fp_optd *o = AT(obj, f->off, fp_optd);
            if (o->known && f->dec >= 0)
                o->v = fp_round(o->v, f->dec);
            break;
        }
        case FP_K_OBJ: fp_model_round(f->sub, AT(obj, f->off, char)); break;
        case FP_K_VIEW: fp_model_round(f->sub, obj); break;
        case FP_K_NUMSTR: {
            fp_numstr *o = AT(obj, f->off, fp_numstr);
            if (o->is_num && f->dec >= 0)
                o->num = fp_round(o->num, f->dec);
            break;
        }
        case FP_K_ONEOF: fp_model_round(form_of(f, obj), obj); break;
        case FP_K_INLINE:
        case FP_K_OBJP: {
            void *p = *AT(obj, f->off, void *);
            if (p)
                fp_model_round(f->sub, p);
            break;
        }
        case FP_K_MAP:
        case FP_K_ARR: {
            char *items = *AT(obj, f->off, char *);
            size_t n = *AT(obj, f->count, size_t);
            for (size_t k = 0; k < n; k++)
                fp_model_round(f->sub, items + k * f->sub->size);
            break;
        }
        case FP_K_NUMS: {
            double *items = *AT(obj, f->off, double *);
            size_t n = *AT(obj, f->count, size_t);
            for (size_t k = 0; k < n && f->dec >= 0; k++)
                items[k] = fp_round(items[k], f->dec);
            break;
        }
        case FP_K_OPTDMAP: {
            fp_named_optd *items = *AT(obj, f->off, fp_named_optd *);
            size_t n = *AT(obj, f->count, size_t);
            for (size_t k = 0; k < n && f->dec >= 0; k++)
                if (items[k].v.known)
                    items[k].v.v = fp_round(items[k].v.v, f->dec);
            break;
        }
        default: break;
        }
    }
}

/* What the fields own, without zeroing (a view's fields live in its parent). */
static void free_fields(const fp_schema *s, void *obj, const fp_model_pool *pool)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        switch (f->kind) {
        case FP_K_STR: str_free(pool, *AT(obj, f->off, char *)); break;
        case FP_K_NUMSTR: str_free(pool, AT(obj, f->off, fp_numstr)->str); break;
        case FP_K_OBJ: free_fields(f->sub, AT(obj, f->off, char), pool); break;
        case FP_K_VIEW: free_fields(f->sub, obj, pool); break;
        case FP_K_ONEOF: free_fields(form_of(f, obj), obj, pool); break;
        case FP_K_INLINE:
        case FP_K_OBJP: {
            void *p = *AT(obj, f->off, void *);
            if (p) {
                free_fields(f->sub, p, pool);
                free(p);
            }
            break;
        }
        case FP_K_ARR: {
            char *items = *AT(obj, f->off, char *);
            size_t n = *AT(obj, f->count, size_t);
            for (size_t k = 0; k < n; k++)
                free_fields(f->sub, items + k * f->sub->size, pool);
            free(items);
            break;
        }
        case FP_K_MAP: {
            char *items = *AT(obj, f->off, char *);
            size_t n = *AT(obj, f->count, size_t);
            for (size_t k = 0; k < n; k++) {
                str_free(pool, *(char **)(items + k * f->sub->size)); /* the member name */
                free_fields(f->sub, items + k * f->sub->size, pool);
            }
            free(items);
            break;
        }
        case FP_K_STRS: {
            char **items = *AT(obj, f->off, char **);
            size_t n = *AT(obj, f->count, size_t);
            for (size_t k = 0; k < n; k++)
                str_free(pool, items[k]);
            free(items);
            break;
        }
        case FP_K_NUMS: free(*AT(obj, f->off, double *)); break;
        case FP_K_JSON: cJSON_Delete(*AT(obj, f->off, cJSON *)); break;
        case FP_K_OPTDMAP: {
            fp_named_optd *items = *AT(obj, f->off, fp_named_optd *);
            size_t n = *AT(obj, f->count, size_t);
            for (size_t k = 0; k < n; k++)
                str_free(pool, items[k].key);
            free(items);
            break;
        }
        default: break;
        }
    }
}

void fp_model_free(const fp_schema *s, void *obj)
{
    if (!obj)
        return;
    free_fields(s, obj, NULL);
    memset(obj, 0, s->size);
}

void fp_model_free_pooled(const fp_schema *s, void *obj, fp_model_pool *pool)
{
    if (obj)
        free_fields(s, obj, pool);
    pool_free(pool);
    if (obj)
        memset(obj, 0, s->size);
}

/* Deep copies of what the fields own; the plain bytes were copied by the caller. */
static void copy_fields(const fp_schema *s, void *dst, const void *src)
{
    for (size_t i = 0; i < s->nfields; i++) {
        const fp_field *f = &s->fields[i];
        switch (f->kind) {
        case FP_K_STR: *AT(dst, f->off, char *) = fp_model_strdup(*CAT(src, f->off, char *)); break;
        case FP_K_NUMSTR: AT(dst, f->off, fp_numstr)->str = fp_model_strdup(CAT(src, f->off, fp_numstr)->str); break;
        case FP_K_OBJ: copy_fields(f->sub, AT(dst, f->off, char), CAT(src, f->off, char)); break;
        case FP_K_VIEW: copy_fields(f->sub, dst, src); break;
        case FP_K_ONEOF: copy_fields(form_of(f, src), dst, src); break;
        case FP_K_INLINE:
        case FP_K_OBJP: {
            const void *p = *CAT(src, f->off, void *);
            void *q = NULL;
            if (p) {
                q = xcalloc(1, f->sub->size);
                memcpy(q, p, f->sub->size);
                copy_fields(f->sub, q, p);
            }
            *AT(dst, f->off, void *) = q;
            break;
        }
        case FP_K_MAP:
        case FP_K_ARR:
        case FP_K_STRS:
        case FP_K_NUMS: {
            size_t n = *CAT(src, f->count, size_t);
            size_t size = f->kind == FP_K_ARR || f->kind == FP_K_MAP ? f->sub->size
                          : f->kind == FP_K_STRS                     ? sizeof(char *)
                                                                     : sizeof(double);
            const char *from = *CAT(src, f->off, char *);
            char *to = n ? xcalloc(n, size) : NULL;
            for (size_t k = 0; k < n; k++) {
                if (f->kind == FP_K_ARR) {
                    memcpy(to + k * size, from + k * size, size);
                    copy_fields(f->sub, to + k * size, from + k * size);
                } else if (f->kind == FP_K_MAP) {
                    memcpy(to + k * size, from + k * size, size);
                    copy_fields(f->sub, to + k * size, from + k * size);
                    *(char **)(to + k * size) = fp_model_strdup(*(char *const *)(from + k * size));
                } else if (f->kind == FP_K_STRS)
                    ((char **)to)[k] = fp_model_strdup(((char *const *)from)[k]);
                else
                    ((double *)to)[k] = ((const double *)from)[k];
            }
            *AT(dst, f->off, char *) = to;
            break;
        }
        case FP_K_JSON: {
            const cJSON *j = *CAT(src, f->off, cJSON *);
            *AT(dst, f->off, cJSON *) = j ? must(cJSON_Duplicate(j, 1)) : NULL;
            break;
        }
        case FP_K_OPTDMAP: {
            size_t n = *CAT(src, f->count, size_t);
            const fp_named_optd *from = *CAT(src, f->off, fp_named_optd *);
            fp_named_optd *to = n ? xcalloc(n, sizeof *to) : NULL;
            for (size_t k = 0; k < n; k++)
                to[k] = (fp_named_optd){fp_model_strdup(from[k].key), from[k].v};
            *AT(dst, f->off, fp_named_optd *) = to;
            break;
        }
        default: break;
        }
    }
}

void fp_model_copy(const fp_schema *s, void *dst, const void *src)
{
    memcpy(dst, src, s->size);
    copy_fields(s, dst, src);
}
