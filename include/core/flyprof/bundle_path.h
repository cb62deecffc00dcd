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

/* Absolute form of a (possibly cwd-relative) path for recording: malloc'd. */
char *fp_bundle_abs_path(const char *path);

#endif
