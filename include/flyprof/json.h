/*
 * json.h - helpers over cJSON for the places where speed does not matter:
 * parsing small files with typed errors, deterministic numbers, writing artifacts.
 */
#ifndef FLYPROF_JSON_H
#define FLYPROF_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

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

/* cJSON_Print (formatted) / cJSON_PrintUnformatted, byte for byte, with fast
 * integer printing (json_print.c). malloc'd, NUL-terminated; *len may be NULL. */
char *fp_json_print(const cJSON *j, bool formatted, size_t *len);

/* Write j (pretty: cJSON_Print's bytes, via fp_json_print) atomically to path. */
int fp_json_write_file(const char *path, const cJSON *j, fp_err *err);

/* Typed getters: return 0 and set *out when key exists with the right type. */
int fp_json_get_i64(const cJSON *obj, const char *key, int64_t *out);
const char *fp_json_get_str(const cJSON *obj, const char *key); /* NULL if absent/not string */
/* Short readers for artifact JSON whose members are all optional (obj may be NULL). */
const cJSON *fp_jget(const cJSON *obj, const char *key);
bool fp_jnum(const cJSON *obj, const char *key, double *out); /* true when a number */
double fp_jnum0(const cJSON *obj, const char *key);           /* 0 when absent */

#endif
