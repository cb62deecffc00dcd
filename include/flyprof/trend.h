/*
 * trend.h - trend.svg and trend.csv of one series of history records (same
 * kernel and shape, oldest first): duration per call and the shares of the
 * top stall classes over time, each point labelled by its commit.
 */
#ifndef FLYPROF_TREND_H
#define FLYPROF_TREND_H

#include <stddef.h>

#include "flyprof/history_doc.h"

/* Stall classes charted: the largest mean share over the series. */
#define FP_TREND_TOP_CLASSES 5

/* The classes charted (largest mean pct first): *top, *ntop (owned strings, as
 * fp_model_push_str lists them). */
void fp_trend_top_classes(const fp_history_record *records, size_t n, size_t k, char ***top, size_t *ntop);

/* A self-contained SVG (no scripts, no external references). malloc'd. */
char *fp_trend_svg(const fp_history_record *records, size_t n, char *const *top, size_t ntop);

/* CSV: id,captured_at,commit,dirty,time_ns_per_call,stall_pct,exposed_pct,bound,<class>_pct... malloc'd. */
char *fp_trend_csv(const fp_history_record *records, size_t n, char *const *top, size_t ntop);

#endif
