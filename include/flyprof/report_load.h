/*
 * report_load.h - a bundle -> report.json: resolve the dispatch, read (or
 * compute) every artifact the report needs and build report.json, for
 * `report`, `diff` and `bundle`.
 *
 * Layer: bundle (src/bundle/report_load.c).
 */
#ifndef FLYPROF_REPORT_LOAD_H
#define FLYPROF_REPORT_LOAD_H

#include <stdbool.h>

#include "flyprof/bubbles_doc.h"
#include "flyprof/error.h"
#include "flyprof/report_doc.h"

typedef struct fp_report_loaded {
    fp_report_doc report;   /* report.json (owned, rounded as the file) */
    char *root;             /* directory holding the bundle's artifacts (owned) */
    char *dispatch_dir;     /* the analysed dispatch dir (owned) */
    bool bundle_is_dispatch;
    fp_bubbles_doc bubbles; /* the bubbles document used (owned) */
} fp_report_loaded;

struct fp_ctx;
/* Resolve the dispatch, read (or compute) every artifact, build report.json.
 * Warnings go to ctx. Errors: BAD_ARGS (no dir), NO_ARTIFACT / EMPTY_ATT (no
 * dispatch), BAD_INPUT (a malformed artifact). `jobs` = threads of the bubbles
 * analysis run when bubbles.json is absent or stale (0 = the default; the
 * output is the same for any value); fp_report_from_bundle passes 0. */
int fp_report_from_bundle_jobs(struct fp_ctx *ctx, const char *bundle, const char *tag, long long dispatch,
                               int jobs, fp_report_loaded *out, fp_err *err);
int fp_report_from_bundle(struct fp_ctx *ctx, const char *bundle, const char *tag, long long dispatch,
                          fp_report_loaded *out, fp_err *err);
void fp_report_loaded_free(fp_report_loaded *l);

#endif
