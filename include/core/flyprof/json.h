/*
 * json.h - helpers over cJSON for the places where speed does not matter:
 * parsing small files with typed errors, deterministic numbers, writing artifacts.
 */
#ifndef FLYPROF_JSON_H
#define FLYPROF_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "flyprof/error.h"

/* Parse a JSON file. Missing -> NO_ARTIFACT; unreadable -> IO_ERROR; malformed
 * -> BAD_INPUT with the byte offset. *out is owned by the caller. */
int fp_json_parse_file(const char *path, cJSON **out, fp_err *err);

/* Round to `decimals` places so that artifacts print stable, short numbers. */
double fp_round(double v, int decimals);

/* Add helpers that return the added item (never NULL; abort on OOM). */
cJSON *fp_json_add_int(cJSON *obj, const char *key, int64_t v);
cJSON *fp_json_add_num(cJSON *obj, const char *key, double v, int decimals);
cJSON *fp_json_add_str(cJSON *obj, const char *key, const char *s); /* NULL -> null */
cJSON *fp_json_add_bool(cJSON *obj, const char *key, int b);
cJSON *fp_json_int(int64_t v);

/* cJSON_Print (formatted) / cJSON_PrintUnformatted, byte for byte (no UTF-8
 * repair), with fast integer printing (json_print.c). malloc'd, NUL-terminated;
 * *len may be NULL. fp_json_print is fp_json_print_utf8. */
char *fp_json_print_bytes(const cJSON *j, bool formatted, size_t *len);
/* The same bytes, except that invalid UTF-8 inside strings (and keys) becomes U+FFFD. */
char *fp_json_print_utf8(const cJSON *j, bool formatted, size_t *len);
/* fp_json_print_utf8's bytes, then `tail` (may be NULL), written to fd through a
 * 64 KiB buffer instead of built in memory. Returns 0 or the first write errno. */
int fp_json_print_fd(int fd, const cJSON *j, bool formatted, const char *tail);
/* A streaming writer of the formatted bytes fp_json_print_fd writes (same numbers,
 * escapes, UTF-8 repair, tabs), for documents written without building a cJSON tree
 * first (model.c: fp_model_print). fd >= 0: written out through a 64 KiB buffer;
 * fd < 0: kept in memory (fp_jw_detach). The caller writes the structure: "{", "\n",
 * keys with fp_jw_str, ":\t", fp_jw_tabs(depth)... as cJSON_Print lays it out. */
struct fp_jw_keyc; /* json_print.c: fp_jw_key's cache of formatted keys */
typedef struct fp_jw {
    char *p;
    size_t n, cap;
    bool utf8; /* replace invalid UTF-8 in strings by U+FFFD while copying them */
    int fd;    /* >= 0: a sink; the buffer is written out whenever it fills */
    int werr;  /* the first write error (errno) on the sink */
    struct fp_jw_keyc *keys; /* NULL until the first fp_jw_key */
} fp_jw;
void fp_jw_init(fp_jw *w, int fd);
void fp_jw_put(fp_jw *w, const char *s, size_t n);
/* Room for n more bytes now (a text in memory whose size is foreseen: one allocation
 * instead of the doublings' copies). */
void fp_jw_reserve(fp_jw *w, size_t n);
/* fp_jw_put inlined where the bytes fit (the caller's literals: "{\n", ":\t", "null") */
static inline void fp_jw_lit(fp_jw *w, const char *s, size_t n)
{
    if (w->n + n + 1 <= w->cap) {
        memcpy(w->p + w->n, s, n);
        w->n += n;
    } else {
        fp_jw_put(w, s, n);
    }
}
void fp_jw_num(fp_jw *w, double d);      /* cJSON's number text ("null" for NaN/inf) */
void fp_jw_str(fp_jw *w, const char *s); /* a quoted, escaped string (NULL: "") */
void fp_jw_strn(fp_jw *w, const char *s, size_t n); /* the same, n = strlen(s) known */
void fp_jw_i64(fp_jw *w, int64_t v);     /* fp_jw_num((double)v), without the double where it is exact */
/* A member's start: ",\n" unless first, depth tabs, the quoted key, ":\t" (cJSON's layout).
 * The key's text is cached by its address: a key must not change while w is open (the
 * schema's literals and the keys of the document being written do not). */
void fp_jw_key(fp_jw *w, const char *key, size_t depth, bool first);
/* The same for a key that is data (a map's member names): not cached, so that a
 * document of many such keys does not push the schema's keys out. */
void fp_jw_key_data(fp_jw *w, const char *key, size_t depth, bool first);
void fp_jw_tabs(fp_jw *w, size_t n);
void fp_jw_value(fp_jw *w, const cJSON *j, size_t depth); /* a tree, formatted, at depth */
int fp_jw_close(fp_jw *w);                  /* flush to fd, free: 0 or the first write errno */
char *fp_jw_detach(fp_jw *w, size_t *len);  /* memory: the NUL-terminated text (malloc'd) */
/* Length of the valid UTF-8 sequence at s[0..n) (RFC 3629), or 0 with *bad = the length
 * of the maximal invalid subpart to replace. Stops at a NUL. */
size_t fp_utf8_seq(const unsigned char *s, size_t n, size_t *bad);
/* Print j (pretty: 2-space indented, else compact) as valid UTF-8: any invalid
 * byte sequence in a string is replaced by U+FFFD. malloc'd; NULL on OOM.
 * Every JSON document flyprof prints or writes goes through this. */
char *fp_json_print(const cJSON *j, bool pretty);
/* Replace each maximal invalid UTF-8 subpart of the NUL-terminated, malloc'd
 * `text` by U+FFFD. Returns text itself when it is valid, else a new string
 * (text is freed). *replaced (may be NULL) gets the number of replacements. */
char *fp_utf8_sanitize(char *text, size_t *replaced);
/* True when the NUL-terminated text is valid UTF-8 (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
bool fp_utf8_valid(const char *text);
/* Write j (pretty, 2-space indented by cJSON's printer) atomically to path. */
int fp_json_write_file(const char *path, const cJSON *j, fp_err *err);

/* Typed getters: return 0 and set *out when key exists with the right type. */
int fp_json_get_i64(const cJSON *obj, const char *key, int64_t *out);
const char *fp_json_get_str(const cJSON *obj, const char *key); /* NULL if absent/not string */
/* Short readers for artifact JSON whose members are all optional (obj may be NULL). */
const cJSON *fp_jget(const cJSON *obj, const char *key);
bool fp_jnum(const cJSON *obj, const char *key, double *out); /* true when a number */
double fp_jnum0(const cJSON *obj, const char *key);           /* 0 when absent */

#endif
