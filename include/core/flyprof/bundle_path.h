/*
 * bundle_path.h - artifacts are relocatable: a path stored inside an artifact
 * of a bundle is relative to the bundle (".", "att/big/ui_output_agent_…",
 * "pmc/group_1.stderr.log", also inside recorded command lines), so a bundle
 * copied or published elsewhere re-reports identically and points at its own
 * files. Paths outside the bundle (the FlyDSL worktree, the rocprofv3
 * executable, source files of the trace) are facts about the machine and
 * stay absolute. The envelope keeps absolute paths (its "bundle" says where).
 */
#ifndef FLYPROF_BUNDLE_PATH_H
#define FLYPROF_BUNDLE_PATH_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "flyprof/error.h"

/* Rewrite, in every string value of doc, each path under the bundle to its
 * bundle-relative form: `bundle` both as given (when relative: only when
 * followed by '/', at the start of a string or a word) and as its absolute,
 * resolved path (a whole path component: followed by '/', a separator or the
 * end). The bundle itself becomes ".". */
void fp_json_bundle_relative(cJSON *doc, const char *bundle);

/* Rewrite the (absolute form of the) path `from` and the paths under it to
 * `to` in every string of doc: a dispatch dir that moves when a bundle is published. */
void fp_json_path_replace(cJSON *doc, const char *from, const char *to);

/* Write doc to path atomically (fp_json_write_file) with the paths inside it
 * made relative to `bundle` (a copy is rewritten; doc is not changed).
 * bundle NULL: written as is. */
int fp_bundle_write_json(const char *path, const cJSON *doc, const char *bundle, fp_err *err);

/* The rewrites above as one step on a single string, for writers that stream a typed
 * document instead of rewriting a tree (model.c): fp_path_rw_bundle sets up the
 * bundle's (false: no bundle, nothing to rewrite); fp_path_rw_apply returns the
 * rewritten string (malloc'd) or NULL when s has no path to rewrite. */
typedef struct fp_path_rw {
    char *abs;        /* the resolved absolute path */
    char *given;      /* the bundle as given, when relative ("." for "./") */
    char *alt;        /* the bundle as given, when absolute but spelled unlike abs */
    const char *repl; /* what the path becomes ("" : relative to it) */
} fp_path_rw;
bool fp_path_rw_bundle(fp_path_rw *rw, const char *bundle);
char *fp_path_rw_apply(const fp_path_rw *rw, const char *s);
/* A string shorter than this is never rewritten by fp_path_rw_apply (SIZE_MAX: none is):
 * the writer skips the rewrite for the many short strings of an artifact. */
size_t fp_path_rw_shortest(const fp_path_rw *rw);
void fp_path_rw_free(fp_path_rw *rw);
/* Every string value under doc (not doc itself) through fp_path_rw_apply, in place. */
void fp_path_rw_walk(const fp_path_rw *rw, cJSON *doc);

/* Absolute form of a (possibly cwd-relative) path for recording: malloc'd. */
char *fp_bundle_abs_path(const char *path);

#endif
