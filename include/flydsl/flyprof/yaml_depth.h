/*
 * yaml_depth.h - refuse deeply nested YAML before libyaml loads it.
 *
 * libyaml's scanner re-checks every open flow level's simple key on each token,
 * so "[[[[..." is quadratic in the nesting depth (a 400 KB recipes file took
 * ~100 s) before any depth check on the loaded document can run. Streaming the
 * events first and stopping at the first collection deeper than the limit keeps
 * the work linear: an over-deep document costs at most the limit's worth of
 * levels plus libyaml's 1024-character simple-key look-ahead.
 */
#ifndef FLYPROF_YAML_DEPTH_H
#define FLYPROF_YAML_DEPTH_H

#include <stddef.h>

#include "flyprof/error.h"

/* Deepest collection nesting a flyprof YAML file (recipes, config) may have. */
#define FP_YAML_MAX_DEPTH 64

/* 0 when text (len bytes) nests at most FP_YAML_MAX_DEPTH collections deep, or
 * is malformed (the loader reports that with its own message); -1 with a
 * BAD_INPUT error naming path otherwise. */
int fp_yaml_depth_check(const char *path, const char *text, size_t len, fp_err *err);

#endif
