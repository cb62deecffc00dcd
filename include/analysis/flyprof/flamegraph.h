/*
 * flamegraph.h - folded stacks ("frame;frame;leaf count", the format of Brendan
 * Gregg's flamegraph.pl and of speedscope) and a self-contained SVG flamegraph
 * rendered by flyprof itself (one file, no network: tooltips via <title>, and when
 * interactive a small inline script for click-to-zoom and search).
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

/* The folded stack of one instruction: its source frames outermost call site
 * first ("file:line" each, inline frames of the debug info included; none:
 * "<unmapped>"), then `leaf` (its class). Added with weight w (tmp: scratch). */
void fp_flame_add_source(fp_folded *f, const char *source, const char *leaf, int64_t w, fp_sb *tmp);

/* The source root of a set of stacks: the longest directory prefix (ending in
 * '/') every file frame shares, "" when none. Labels drop it. malloc'd. */
char *fp_flame_source_root(const fp_folded *f);

typedef struct fp_flame_opts {
    const char *title;
    const char *unit;               /* "cycles" */
    const char *const *hot_leaves;  /* frames that get the bubble colour (NULL-terminated, may be NULL) */
    int width;                      /* px */
    const char *strip;              /* prefix removed from frame labels (the source root), may be NULL */
    bool interactive;               /* inline script: click a frame to zoom, Search / Reset buttons */
} fp_flame_opts;

/* Render a finished fp_folded as an SVG document. Labels are cut on UTF-8
 * character boundaries and every text is escaped (markup.h), so the SVG is
 * valid XML whatever the source paths hold. */
void fp_flame_svg(const fp_folded *f, const fp_flame_opts *o, fp_sb *out);

#endif
