/*
 * timeline_doc.h - the envelope of `flyprof timeline` (docs/commands/timeline.md):
 * what was written (timeline.json, the Chrome trace event format) and how big it
 * is. The artifact itself is streamed by src/analysis/timeline.c, not a document
 * of this model (its millions of events are written as they are made).
 */
#ifndef FLYPROF_TIMELINE_DOC_H
#define FLYPROF_TIMELINE_DOC_H

#include <stdint.h>

#include "flyprof/model.h"

typedef struct fp_timeline_doc {
    char *artifact;          /* absolute path written, null when nothing was written */
    char *dispatch_dir, *dispatch_name, *symbol;
    char *detail;            /* "states" | "lines" | "insts" */
    char *timebase;          /* "realtime.json" | "clock" | "cycles" */
    fp_optd mhz_min, mhz_max;/* shader clock per SE as realtime.json implies it */
    int64_t waves_listed, waves, waves_skipped, processes, slices, counters, clipped, bytes;
    double t0_us, t1_us;     /* first and last timestamp of the file */
    char *open_with;
} fp_timeline_doc;

extern const fp_schema fp_timeline_doc_schema;

#endif
