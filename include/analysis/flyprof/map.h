/*
 * map.h - ISA <-> source mapping for `flyprof map` (docs/commands/map.md):
 * parsing code.json source chains ("a.py:3 -> b.py:9": the instruction is at
 * a.py:3, inlined into the call at b.py:9), exact FILE:LINE selection (x.py:19
 * never selects x.py:190), file matching (exact path, else a unique suffix at a
 * '/' boundary), and source snippets from the decoder's snapshots.
 */
#ifndef FLYPROF_MAP_H
#define FLYPROF_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/att.h"
#include "flyprof/error.h"
#include "flyprof/map_doc.h"

typedef struct fp_frame {
    char *file; /* path as written in code.json */
    long line;  /* -1 when the text after the last ':' is not a line number */
} fp_frame;

/* Split a source string into frames, innermost first. Empty source -> 0 frames.
 * *frames is malloc'd; free with fp_frames_free. */
size_t fp_source_frames(const char *source, fp_frame **frames);
void fp_frames_free(fp_frame *frames, size_t n);

/* Parse "FILE:LINE" (split at the last ':'; LINE a non-negative integer). */
int fp_parse_file_line(const char *spec, char **file, long *line, fp_err *err);

/* True when `path` ends with `suffix` at a path-component boundary
 * ("/a/x.py" ends with "x.py" and "a/x.py", not with "/x.py" of "/a/bx.py"). */
bool fp_path_suffix_match(const char *path, const char *suffix);

typedef enum fp_file_match { FP_FM_NONE = 0, FP_FM_EXACT, FP_FM_SUFFIX, FP_FM_AMBIGUOUS } fp_file_match;

/* Resolve `want` against the distinct files of `paths` (n entries): exact
 * match, else the unique suffix match. *which = the matched path (borrowed). */
fp_file_match fp_match_file(const char *want, const char *const *paths, size_t n, const char **which);

/* Snippet of `file`:`line` with `context` lines each side from the snapshots
 * (map.json's mappings[].snippet, map_doc.h), or NULL when the file has no
 * snapshot or the line is out of range. Free with fp_model_free(&fp_map_snippet_schema)
 * + free, or own it from a fp_map_mapping. */
fp_map_snippet *fp_snippet(const fp_snapshots *snaps, const char *file, long line, long context);

#endif
