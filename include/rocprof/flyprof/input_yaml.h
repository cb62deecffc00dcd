/*
 * input_yaml.h - the rocprofv3 input file (`-i FILE.yaml`) writer, shared by
 * `counters` (PMC jobs) and `capture` (ATT jobs).
 *
 * One idea: a job is a cJSON object whose members are the rocprofv3 argparse
 * `dest` names (underscore form: `pmc`, `kernel_include_regex`,
 * `kernel_iteration_range`, `output_directory`, `output_format`,
 * `advanced_thread_trace`, `att_target_cu`, ...; rocprof-formats.md §2.1) and
 * whose values are strings, integers, booleans or arrays of strings/integers.
 * fp_input_yaml_emit turns an array of such jobs into
 *
 *     jobs:
 *       - key: value
 *         ...
 *
 * with libyaml (every string double-quoted, so regexes, "0xf" masks and
 * "[6, 8]" ranges stay strings; integers plain; booleans true/false; arrays in
 * flow style). Only `jobs` is written: rocprofv3 ignores every other top-level
 * key, and a `pmc` list outside a job is silently dropped (§2.1).
 */
#ifndef FLYPROF_INPUT_YAML_H
#define FLYPROF_INPUT_YAML_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "flyprof/error.h"
#include "flyprof/strbuf.h"

/* Emit the YAML for `jobs` (a cJSON array of objects) into out (appended).
 * Errors (FP_INTERNAL): jobs not an array of objects, a value of another type
 * (null, float, nested object, array of non-scalars), a key that is not
 * [a-z0-9_]+, or a libyaml failure; FP_BAD_ARGS: a string that is not valid UTF-8. */
int fp_input_yaml_emit(const cJSON *jobs, fp_sb *out, fp_err *err);

/* Emit and write atomically to path (parent directories created). */
int fp_input_yaml_write(const char *path, const cJSON *jobs, fp_err *err);

/* The same jobs as a JSON input file ({"jobs": [...]}, what every flyprof pass
 * writes since issue 18): rocprofv3 reads .json with Python's standard json
 * module, while .yaml needs PyYAML in the python that runs the script - absent
 * in many virtualenvs, where 7.0 and later exit 1 with "YAML package is not
 * installed". Same validation and errors as fp_input_yaml_emit. */
int fp_input_json_emit(const cJSON *jobs, fp_sb *out, fp_err *err);
int fp_input_json_write(const char *path, const cJSON *jobs, fp_err *err);

/* The `kernel_iteration_range` value for a SET of 1-based per-kernel iterations
 * (rocprof-formats.md §2.3: the value is a set, "[6, [8-8]]" means {6, 8}):
 * iters sorted and de-duplicated, consecutive runs written as A-B:
 * {8} -> "[8]", {6, 8} -> "[6, 8]", {1,2,3,7} -> "[1-3, 7]".
 * Iteration 0 (never matches) is refused. Returns a malloc'd string, or NULL
 * with FP_BAD_ARGS when n == 0 or an iteration is 0. */
char *fp_iter_range_str(const unsigned *iters, size_t n, fp_err *err);

#endif
