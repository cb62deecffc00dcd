/*
 * annotate.h - `flyprof annotate`: the ISA window around one instruction with
 * its per-instruction figures, the producers of each wait and the source lines
 * interleaved (annotate_doc.h is the result; docs/commands/annotate.md).
 *
 * The producers are bubbles.json's hotspots[].waits_on of the same analysis
 * (fp_bubbles_doc_build), so annotate and bubbles.json never disagree.
 */
#ifndef FLYPROF_ANNOTATE_H
#define FLYPROF_ANNOTATE_H

#include "flyprof/annotate_doc.h"
#include "flyprof/bubbles.h"
#include "flyprof/strbuf.h"

typedef enum fp_ann_kind { FP_ANN_TOP = 0, FP_ANN_PC, FP_ANN_LINE } fp_ann_kind;

typedef struct fp_ann_query {
    fp_ann_kind kind;
    int64_t pc;          /* FP_ANN_PC: code.json LineNumber */
    const char *spec;    /* FP_ANN_LINE: "FILE:LINE" (FILE exact, else a unique suffix) */
    long context;        /* instructions shown on each side of the target */
} fp_ann_query;

/* The window of q in the analysis b (doc: fp_bubbles_doc_build(b), complete).
 * Errors: no such pc / no instruction at FILE:LINE / no stalled instruction for
 * the default -> NO_ARTIFACT; FILE ambiguous -> BAD_ARGS; a bad spec -> BAD_ARGS.
 * The dispatch keys of *out are left to the caller. */
int fp_annotate_build(const fp_bubbles *b, const fp_bubbles_doc *doc, const fp_snapshots *snaps,
                      const fp_ann_query *q, fp_annotate_doc *out, fp_err *err);
/* The `-f table` text of a window. */
void fp_annotate_table(const fp_annotate_doc *d, fp_sb *out);

#endif
