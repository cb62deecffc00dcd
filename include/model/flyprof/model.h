/*
 * model.h - the typed model of flyprof's artifacts: every JSON document a stage
 * writes for another (capture.json, bubbles.json, report.json, ...) is a C struct
 * described by ONE table of fields (key, kind, offset, decimals, flags). The same
 * table drives
 *   - the writer (fp_model_write: struct -> cJSON, keys in table order, numbers
 *     rounded to the field's decimals, so artifacts keep their exact bytes),
 *   - the strict reader (fp_model_read: cJSON -> struct; a missing, unknown or
 *     mistyped key is BAD_INPUT naming its path, e.g. "report.json: $.bound.rule:
 *     expected a string or null, got a number"), never a silent 0,
 *   - rounding in place (fp_model_round), so that a renderer handed the struct
 *     in memory sees exactly the numbers a reader of the file would see,
 *   - and freeing (fp_model_free).
 * So a key is spelled once, in its table, and only this layer and core see cJSON:
 * analyses and renderers take `const` structs.
 *
 * Conventions of the structs: every string is an owned `char *` (NULL = JSON null);
 * an optional number is an fp_optd (known + v; unknown = null); an optional bool an
 * fp_optb; a list is a pointer + size_t count (the count's offset is in the field);
 * a nested object is either embedded (FP_K_OBJ) or a pointer (FP_K_OBJP, NULL = null).
 */
#ifndef FLYPROF_MODEL_H
#define FLYPROF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"

/* Only the functions below see cJSON: a document header (and so an analysis that
 * includes it) needs nothing of it. */
struct cJSON;

/* An optional number / bool: known false is JSON null. */
typedef struct fp_optd {
    bool known;
    double v;
} fp_optd;

typedef struct fp_optb {
    bool known;
    bool v;
} fp_optb;

/* One member of an FP_K_OPTDMAP object: a key that is data, and its optional number. */
typedef struct fp_named_optd {
    char *key;  /* owned */
    fp_optd v;
} fp_named_optd;

static inline fp_optd fp_optd_of(double v) { return (fp_optd){true, v}; }
static inline fp_optd fp_optd_none(void) { return (fp_optd){false, 0.0}; }

/* (appended) A value that is a number, a string or null (FP_K_NUMSTR): a command's
 * query echoed back, `--code-line 20` or `--source-line x.py:19`. is_num: the number
 * `num`; else the string `str` (owned), NULL = null. */
typedef struct fp_numstr {
    bool is_num;
    double num;
    char *str;
} fp_numstr;

typedef enum fp_kind {
    FP_K_I64,   /* int64_t, an integral number */
    FP_K_INT,   /* int, an integral number */
    FP_K_NUM,   /* double, rounded to `dec` places (dec < 0: written as it is) */
    FP_K_OPTD,  /* fp_optd: a number or null */
    FP_K_BOOL,  /* bool */
    FP_K_OPTB,  /* fp_optb: a bool or null */
    FP_K_STR,   /* char * (owned): a string or null */
    FP_K_OBJ,   /* an embedded struct described by `sub` */
    FP_K_OBJP,  /* a pointer to a struct of `sub` (owned): an object or null */
    FP_K_ARR,   /* `sub` structs: a pointer at `off`, the count (size_t) at `count` */
    FP_K_STRS,  /* char ** at `off`, count (size_t) at `count`: an array of strings */
    FP_K_NUMS,  /* double * at `off`, count at `count`: an array of numbers (dec as FP_K_NUM) */
    FP_K_JSON,  /* struct cJSON * (owned), any value, written as it is: for documents that embed
                   another program's free-form data (never for flyprof's own keys) */
    FP_K_VIEW,  /* a nested object whose members are fields of the SAME struct (`sub` is a
                   table over the enclosing struct type): for documents that group keys in
                   an object without a C struct of their own ("limits": {...}) */
    /* (appended) a pointer to a struct of `sub` (owned) whose keys are written INLINE,
     * in the parent object, at this field's place; NULL = none of them is written.
     * For documents written in stages (capture.json is written on every exit): a group
     * of keys that appear together. The reader allocates it when any of its keys is
     * present. `key` is only a name for messages. */
    FP_K_INLINE,
    /* (appended) an object whose member names are data (metric ids, counter names):
     * `sub` structs at `off`, count at `count`; each element struct starts with the
     * member name, `char *key`, and `sub` describes the rest. When `sub` has exactly one
     * field whose key is NULL, the member's value is that field's value itself (a number,
     * a list...); otherwise it is an object of `sub`'s keys. Members keep their order. */
    FP_K_MAP,
    FP_K_OPTDMAP, /* fp_named_optd * at `off`, count at `count`: an object whose keys are data
                     (names from another table, e.g. the signal kinds), each a number (dec as
                     FP_K_NUM) or null; written in list order, read in document order */
    /* (appended) fp_numstr: a number (rounded to `dec` as FP_K_NUM), a string or null */
    FP_K_NUMSTR,
    /* (appended) ONE of several forms of the same struct, written inline: `sub` points
     * to an array of `count` schemas over the ENCLOSING struct type (like FP_K_VIEW),
     * the int member at `when` says which one is written. For lists whose elements
     * come in shapes with different key orders (run.json's steps); the forms share
     * their rows through macros, so each key is still spelled once. The reader takes
     * the first form that knows every key of the object and finds its required keys,
     * and sets the selector. Members outside the selected form must be zero (round,
     * copy and free go through the selected form). `key` is only a name for messages. */
    FP_K_ONEOF,
} fp_kind;

/* Field flags. */
enum {
    /* writer: leave the key out when the value is null (NULL string / pointer, unknown
     * optional, empty list); reader: the key may be absent (then it is null / empty) */
    FP_F_OMIT_NULL = 1u << 0,
    /* reader: the key may be absent (the value is then null / 0 / empty); the writer
     * always writes it. For keys added to an artifact after documents were written. */
    FP_F_OPTIONAL = 1u << 1,
    /* the bool member at `when` decides whether the key is written (an empty list or a
     * null that must still be written when the key is on); the reader sets it to whether
     * the key was there. For keys a command writes only in some modes (hotspots --detail). */
    FP_F_WHEN = 1u << 2,
};

typedef struct fp_schema fp_schema;

typedef struct fp_field {
    const char *key;
    fp_kind kind;
    size_t off;
    int dec;               /* FP_K_NUM / FP_K_OPTD / FP_K_NUMS: decimals (-1: none) */
    unsigned flags;
    const fp_schema *sub;  /* FP_K_OBJ / FP_K_OBJP / FP_K_ARR */
    size_t count;          /* FP_K_ARR / FP_K_STRS / FP_K_NUMS: offset of the size_t count */
    size_t when;           /* FP_F_WHEN: offset of the bool that says whether the key is on */
} fp_field;

struct fp_schema {
    const char *name;      /* for messages: "report", "bubbles.totals" */
    size_t size;           /* sizeof the struct */
    const fp_field *fields;
    size_t nfields;
    bool open;             /* reader: unknown keys are allowed (and dropped) */
};

#define FP_FIELDS(arr) (arr), (sizeof(arr) / sizeof((arr)[0]))

/* Field constructors, so that a table reads as a list of keys. T is the struct type.
 * Designated initializers: a member appended to fp_field later needs no edit here. */
#define FP_I64(T, m, k, fl) {.key = k, .kind = FP_K_I64, .off = offsetof(T, m), .flags = fl}
#define FP_INT(T, m, k, fl) {.key = k, .kind = FP_K_INT, .off = offsetof(T, m), .flags = fl}
#define FP_NUM(T, m, k, d, fl) {.key = k, .kind = FP_K_NUM, .off = offsetof(T, m), .dec = d, .flags = fl}
#define FP_OPTD(T, m, k, d, fl) {.key = k, .kind = FP_K_OPTD, .off = offsetof(T, m), .dec = d, .flags = fl}
#define FP_BOOL(T, m, k, fl) {.key = k, .kind = FP_K_BOOL, .off = offsetof(T, m), .flags = fl}
#define FP_OPTB(T, m, k, fl) {.key = k, .kind = FP_K_OPTB, .off = offsetof(T, m), .flags = fl}
#define FP_STR(T, m, k, fl) {.key = k, .kind = FP_K_STR, .off = offsetof(T, m), .flags = fl}
#define FP_OBJ(T, m, k, sb, fl) {.key = k, .kind = FP_K_OBJ, .off = offsetof(T, m), .flags = fl, .sub = sb}
#define FP_OBJP(T, m, k, sb, fl) {.key = k, .kind = FP_K_OBJP, .off = offsetof(T, m), .flags = fl, .sub = sb}
#define FP_ARR(T, m, n, k, sb, fl) \
    {.key = k, .kind = FP_K_ARR, .off = offsetof(T, m), .flags = fl, .sub = sb, .count = offsetof(T, n)}
#define FP_STRS(T, m, n, k, fl) {.key = k, .kind = FP_K_STRS, .off = offsetof(T, m), .flags = fl, .count = offsetof(T, n)}
#define FP_NUMS(T, m, n, k, d, fl) \
    {.key = k, .kind = FP_K_NUMS, .off = offsetof(T, m), .dec = d, .flags = fl, .count = offsetof(T, n)}
#define FP_JSON(T, m, k, fl) {.key = k, .kind = FP_K_JSON, .off = offsetof(T, m), .flags = fl}
#define FP_VIEW(k, sb) {.key = k, .kind = FP_K_VIEW, .sub = sb}
/* Any field of kind K written only when the bool member `wm` is true (FP_F_WHEN). For
 * lists: m the pointer, n the count; for other kinds pass n = m. */
#define FP_WHEN(T, wm, K, m, n, k, d, sb)                                                                   \
    {.key = k, .kind = K, .off = offsetof(T, m), .dec = d, .flags = FP_F_WHEN, .sub = sb,                         \
     .count = K == FP_K_ARR || K == FP_K_STRS || K == FP_K_NUMS ? offsetof(T, n) : 0, .when = offsetof(T, wm)}
#define FP_INLINE(T, m, name, sb) {.key = name, .kind = FP_K_INLINE, .off = offsetof(T, m), .sub = sb}
#define FP_MAP(T, m, n, k, sb, fl) \
    {.key = k, .kind = FP_K_MAP, .off = offsetof(T, m), .flags = fl, .sub = sb, .count = offsetof(T, n)}
#define FP_NUMSTR(T, m, k, d, fl) {.key = k, .kind = FP_K_NUMSTR, .off = offsetof(T, m), .dec = d, .flags = fl}
/* forms: an array of fp_schema (FP_FIELDS-like count taken from it), sel: the int selector */
#define FP_ONEOF(T, sel, name, forms) \
    {.key = name, .kind = FP_K_ONEOF, .sub = forms, .count = sizeof(forms) / sizeof((forms)[0]), .when = offsetof(T, sel)}

/* The element of a FP_K_MAP whose values are numbers (sub: fp_model_numval_schema
 * or a one-field schema of your own for other decimals). */
typedef struct fp_model_kv {
    char *key;
    double v;
} fp_model_kv;
/* numbers written as they are (dec -1) / rounded to 1 or 3 decimals */
extern const fp_schema fp_model_numval_schema, fp_model_numval1_schema, fp_model_numval3_schema;
#define FP_OPTDMAP(T, m, n, k, d, fl) \
    {.key = k, .kind = FP_K_OPTDMAP, .off = offsetof(T, m), .dec = d, .flags = fl, .count = offsetof(T, n)}
/* Keys written only when the bool member `present` is true (FP_F_WHEN): absent from
 * some documents, null in others (bubbles.json's dispatch.tag). */
#define FP_STR_IF(T, m, k, present) \
    {.key = k, .kind = FP_K_STR, .off = offsetof(T, m), .flags = FP_F_WHEN, .when = offsetof(T, present)}
#define FP_OPTD_IF(T, m, k, d, present) \
    {.key = k, .kind = FP_K_OPTD, .off = offsetof(T, m), .dec = d, .flags = FP_F_WHEN, .when = offsetof(T, present)}

/* struct -> a new cJSON object, keys in table order (aborts on OOM, like json.h). */
struct cJSON *fp_model_write(const fp_schema *s, const void *obj);
/* The tree fp_model_round(s, obj) then fp_model_write(s, obj) gives, without changing
 * *obj: safe on another thread while the object is only read (written to a file). */
struct cJSON *fp_model_write_rounded(const fp_schema *s, const void *obj);

/* cJSON object -> *obj (zeroed first). `doc` names the document in messages
 * ("bubbles.json"). On error: -1, BAD_INPUT "<doc>: $.a.b[3].c: <what>", *obj freed. */
int fp_model_read(const fp_schema *s, const struct cJSON *j, void *obj, const char *doc, fp_err *err);

/* Read a file: fp_json_parse_file's errors (NO_ARTIFACT / IO_ERROR / BAD_INPUT), then
 * fp_model_read's, with doc = the file's path. */
int fp_model_read_file(const fp_schema *s, const char *path, void *obj, fp_err *err);

/* Write atomically to path (pretty-printed, as every artifact): the bytes of
 * fp_json_write_file(fp_model_write(s, obj)), streamed from the struct (no tree). */
int fp_model_write_file(const fp_schema *s, const void *obj, const char *path, fp_err *err);
/* The same with the paths inside made relative to `bundle` as fp_bundle_write_json
 * does (bundle NULL or "": as fp_model_write_file). */
int fp_model_write_bundle_file(const fp_schema *s, const void *obj, const char *path, const char *bundle, fp_err *err);
/* A document's largest list written in two parts, so that a second thread can render
 * one part while this one writes the rest (bubbles --jobs 2: its hotspots are 87 % of
 * bubbles.json). The list is the FP_K_ARR member at offset `off` of the top-level
 * object; its items [0, at) are written as usual, then the `len` bytes rest() returns,
 * which must be fp_model_print_items(s, obj, off, at, bundle)'s text, then the rest of
 * the document: the same bytes as fp_model_write_bundle_file. rest() is called once
 * when the writer gets there (not at all when it fails before); its bytes stay the
 * caller's. No such member: aborts. */
typedef struct fp_model_split {
    size_t off;
    size_t at;
    const char *(*rest)(void *ctx, size_t *len);
    void *ctx;
} fp_model_split;
int fp_model_write_bundle_file_split(const fp_schema *s, const void *obj, const char *path, const char *bundle,
                                     const fp_model_split *split, fp_err *err);
/* The text the writer gives items [lo, n) of that list (each after ", " but the
 * list's first), paths made relative to bundle as above (malloc'd, NUL-terminated;
 * "" when lo >= n; *len may be NULL). Touches nothing shared: safe on another thread
 * while the document is only read. */
char *fp_model_print_items(const fp_schema *s, const void *obj, size_t off, size_t lo, const char *bundle,
                           size_t *len);
/* The formatted text of fp_json_print_utf8(fp_model_write(s, obj), true), streamed
 * (malloc'd, NUL-terminated; *len may be NULL). */
char *fp_model_print(const fp_schema *s, const void *obj, size_t *len);

/* Round every number of *obj (recursively) to its field's decimals, as the writer
 * does: a renderer given the struct then sees the numbers of the file. */
void fp_model_round(const fp_schema *s, void *obj);

/* Free what *obj owns (strings, lists, pointed-to structs) and zero it; obj itself
 * is not freed. Safe on a zeroed struct. */
void fp_model_free(const fp_schema *s, void *obj);

/* A document's string pool, for documents built in one go with thousands of strings
 * (bubbles.json): fp_model_pool_dup copies s into *pool (made on first use; NULL stays
 * NULL), a copy that fp_model_free must never see: such a document is freed with
 * fp_model_free_pooled, which frees every string but the pool's, then the pool. A
 * string put into the document later may be owned as usual (freed there); replacing a
 * string of it goes through fp_model_free_str. fp_model_copy gives owned strings. */
typedef struct fp_model_pool fp_model_pool;
char *fp_model_pool_dup(fp_model_pool **pool, const char *s);
bool fp_model_pool_owns(const fp_model_pool *pool, const void *p);
/* src's strings become *dst's (src is consumed): a document built by two threads, each
 * copying into a pool of its own, ends with one pool. */
void fp_model_pool_adopt(fp_model_pool **dst, fp_model_pool *src);
void fp_model_free_str(const fp_model_pool *pool, char *p);
void fp_model_free_pooled(const fp_schema *s, void *obj, fp_model_pool *pool);

/* Deep copy of *src into *dst (dst is overwritten, not freed first). Aborts on OOM. */
void fp_model_copy(const fp_schema *s, void *dst, const void *src);

/* Helpers for producers: an owned copy (NULL stays NULL; aborts on OOM), and
 * printf into a new string. */
char *fp_model_strdup(const char *s);
char *fp_model_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append one element to a list of the schema's structs / one string to a string list:
 * returns the new (zeroed) element. */
void *fp_model_push(void **items, size_t *n, size_t size);
void fp_model_push_str(char ***items, size_t *n, const char *s);

#endif
