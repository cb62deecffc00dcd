/*
 * yaml_json.h - a YAML or JSON document (a sweep spec) as a cJSON tree, so that a
 * typed model table (model.h) reads either with the same strict rules and the same
 * key-path messages. YAML is the subset a spec needs: mappings, sequences, scalars
 * (plain scalars that are numbers / true / false / null become those, quoted ones
 * stay strings); anchors, aliases and tags are refused. Bounded: the file at most
 * FP_YAML_JSON_MAX_BYTES, nesting at most FP_YAML_JSON_MAX_DEPTH.
 */
#ifndef FLYPROF_YAML_JSON_H
#define FLYPROF_YAML_JSON_H

#include "flyprof/error.h"

struct cJSON;

#define FP_YAML_JSON_MAX_BYTES ((size_t)1 << 20)
#define FP_YAML_JSON_MAX_DEPTH 32

/* A file ending in .json is JSON; anything else is YAML. Errors: NO_ARTIFACT,
 * IO_ERROR, BAD_INPUT "<path>: line N: <what>". *out is owned by the caller. */
int fp_yaml_json_parse_file(const char *path, struct cJSON **out, fp_err *err);

#endif
