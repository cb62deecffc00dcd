/*
 * jscan.h - a fast, strict, pull-style JSON tokenizer over an in-memory buffer.
 *
 * Why it exists: cJSON builds a tree at about 20-40 MB/s; ATT traces are tens of
 * MB of small integer arrays (wave files) and flyprof must stay within a few
 * times `cat`. jscan allocates nothing per token, decodes integers without
 * strtod, and validates structure (a truncated or malformed file is an error,
 * never a crash). Use cJSON wherever speed does not matter.
 *
 * Usage: fp_js_init(); then call fp_js_next() repeatedly. Strings point into the
 * input when they have no escapes, else into a scratch buffer that is valid
 * until the next call. Object keys come back as FP_JT_STRING with is_key set.
 */
#ifndef FLYPROF_JSCAN_H
#define FLYPROF_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fp_jtok {
    FP_JT_ERROR = 0,
    FP_JT_END, /* end of document (after one complete top-level value) */
    FP_JT_OBJ_BEGIN,
    FP_JT_OBJ_END,
    FP_JT_ARR_BEGIN,
    FP_JT_ARR_END,
    FP_JT_STRING,
    FP_JT_NUMBER,
    FP_JT_TRUE,
    FP_JT_FALSE,
    FP_JT_NULL,
} fp_jtok;

/* Maximum nesting; deeper documents are rejected (no recursion, so no stack overflow). */
#define FP_JS_MAX_DEPTH 512

typedef struct fp_jscan {
    const char *base, *p, *end;
    int depth;
    unsigned char kind[FP_JS_MAX_DEPTH]; /* 'o' or 'a' */
    unsigned char has_items[FP_JS_MAX_DEPTH];
    unsigned char want_value[FP_JS_MAX_DEPTH]; /* objects: key read, value next */
    bool done;                                 /* top-level value complete */
    fp_jtok tok;
    bool is_key;
    /* FP_JT_STRING */
    const char *str;
    size_t str_len;
    char *scratch;
    size_t scratch_cap;
    /* FP_JT_NUMBER */
    bool num_is_int; /* integral literal that fits int64 */
    int64_t inum;
    double num;
    char error[160];
} fp_jscan;

void fp_js_init(fp_jscan *js, const char *buf, size_t len);
void fp_js_free(fp_jscan *js);
fp_jtok fp_js_next(fp_jscan *js);
/* Skip the value whose first token was just returned (no-op for scalars).
 * Returns false on a syntax error. */
bool fp_js_skip(fp_jscan *js);
/* Byte offset of the cursor, for error messages. */
size_t fp_js_offset(const fp_jscan *js);
/* String equality helper for the current FP_JT_STRING token. */
bool fp_js_str_eq(const fp_jscan *js, const char *s);
/* Copy of the current string token (malloc'd). */
char *fp_js_strdup(const fp_jscan *js);

#endif
