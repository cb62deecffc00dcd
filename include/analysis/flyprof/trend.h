/*
 * trend.h - trend.svg and trend.csv of one series of history records (same
 * kernel and shape, oldest first): duration per call and the shares of the
 * top stall classes over time, each point labelled by its commit.
 */
#ifndef FLYPROF_TREND_H
#define FLYPROF_TREND_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Stall classes charted: the largest mean share over the series. */
#define FP_TREND_TOP_CLASSES 5

/* The classes charted (largest mean pct first), a JSON array of names (caller owns). */
cJSON *fp_trend_top_classes(const cJSON *records, size_t k);

/* A self-contained SVG (no scripts, no external references). malloc'd. */
char *fp_trend_svg(const cJSON *records, const cJSON *top_classes);

/* CSV: id,captured_at,commit,dirty,time_ns_per_call,stall_pct,exposed_pct,bound,<class>_pct... malloc'd. */
char *fp_trend_csv(const cJSON *records, const cJSON *top_classes);

#endif
