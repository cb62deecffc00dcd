/*
 * annotate_doc.h - the data of `flyprof annotate` (docs/commands/annotate.md): an
 * ISA window around one instruction, like `perf annotate`, with per-instruction
 * hits, stall, exposed, class, the producers each wait waited on (as bubbles.json's
 * hotspots[].waits_on) and the source text interleaved. Filled by annotate.c,
 * written by the table in src/model/annotate_doc.c. Read-only: no artifact.
 */
#ifndef FLYPROF_ANNOTATE_DOC_H
#define FLYPROF_ANNOTATE_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include "flyprof/model.h"

/* A producer one wait of the window waited on. */
typedef struct fp_ann_producer {
    int64_t code_line;
    char *inst, *source;
    int64_t count;             /* executions naming it */
    double load_to_use_mean;   /* producer issue -> wait release, cycles */
    int64_t load_to_use_max;
    double stall_share;        /* the wait's stall apportioned to it */
    char *evidence;            /* "decoder" | "inferred" | "mixed" */
} fp_ann_producer;

typedef struct fp_ann_row {
    int64_t code_line;
    char *addr, *isa, *cls, *source;
    char *source_text;         /* the snapshot's text of the innermost line (null: none) */
    bool new_line;             /* the first row of a run of one source line (where text is shown) */
    bool target, on_line;      /* the annotated instruction; an instruction of --line */
    int64_t hit, latency, stall, exposed;
    double stall_pct;          /* % of the kernel's stall */
    fp_ann_producer *waits_on;
    size_t n_waits_on;
} fp_ann_row;

typedef struct fp_annotate_doc {
    char *dispatch_dir, *dispatch_name, *symbol;
    char *kind;                /* "top" | "pc" | "line" */
    fp_numstr query;           /* --pc N or --line FILE:LINE; null for top */
    int64_t target_code_line;
    char *target_source;
    fp_optd hotspot_rank;      /* its rank in bubbles.json's hotspots (by exposed), null when none */
    int64_t context;
    int64_t total_stall, total_exposed;
    fp_ann_row *rows;
    size_t n_rows;
} fp_annotate_doc;

extern const fp_schema fp_annotate_doc_schema;

#endif
