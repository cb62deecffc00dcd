/*
 * flamegraph.h - folded stacks ("frame;frame;leaf count", the format of Brendan
 * Gregg's flamegraph.pl and of speedscope) and a self-contained SVG flamegraph
 * rendered by flyprof itself (one file, no script, tooltips via <title>).
 */
#ifndef FLYPROF_FLAMEGRAPH_H
#define FLYPROF_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/strbuf.h"

typedef struct fp_fold {
    char *stack; /* frames joined with ';', root first */
    int64_t count;
} fp_fold;

typedef struct fp_folded {
    fp_fold *v;
    size_t n, cap;
    bool saturated; /* a merged count hit INT64_MAX (hostile code.json cells) */
} fp_folded;

/* A frame name safe for the folded format: ';' -> ':', control chars -> ' '. malloc'd. */
char *fp_flame_frame(const char *name);
/* Add `count` to `stack` (frames already cleaned and joined). count <= 0 is ignored. */
void fp_folded_add(fp_folded *f, const char *stack, int64_t count);
/* Sort by stack and merge duplicates (deterministic output). */
void fp_folded_finish(fp_folded *f);
/* "stack count\n" lines. */
void fp_folded_write(const fp_folded *f, fp_sb *out);
void fp_folded_free(fp_folded *f);

/* Render a finished fp_folded as an SVG document (width in px). Frames whose
 * name is in `hot_leaves` (NULL-terminated, may be NULL) get the bubble colour. */
void fp_flame_svg(const fp_folded *f, const char *title, const char *unit, const char *const *hot_leaves,
                  int width, fp_sb *out);

#endif
