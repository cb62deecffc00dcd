/*
 * report.h - from gathered evidence (fp_signals + the bubbles document) to
 * report.json, headlines.json, REPORT.md, the terminal table and report.html.
 *
 * One idea: report.json is built once (fp_report_build) and every rendering
 * (markdown, table, html, headlines) reads only that JSON, so they cannot
 * disagree and a report can be re-rendered without the trace. report.json is
 * deterministic: no timestamps, no absolute paths, so a bundled example
 * re-reports to the same bytes.
 */
#ifndef FLYPROF_REPORT_H
#define FLYPROF_REPORT_H

#include <cjson/cJSON.h>

#include "flyprof/att.h"
#include "flyprof/signals.h"
#include "flyprof/strbuf.h"

#define FP_REPORT_SCHEMA 1
/* Hot source lines and evidence hotspots shown in REPORT.md / html. */
#define FP_REPORT_HOT_LINES 10
#define FP_REPORT_EVIDENCE_HOTSPOTS 5

typedef struct fp_report_in {
    const fp_signals *sig;
    const cJSON *bubbles;        /* the bubbles.json document (read or computed) */
    const fp_snapshots *snaps;   /* source copies of the dispatch (snippets), may be NULL */
    const fp_code *code;         /* the listing: every executed instruction goes to "instructions" */
    const char *dispatch_name;   /* base name of the dispatch dir */
    const char *tag;             /* tag analysed, may be NULL */
    const cJSON *missing;        /* [{artifact, effect}] evidence that was not available */
    const cJSON *available;      /* [artifact names] that were used */
} fp_report_in;

/* report.json (caller owns). Never fails on valid signals. */
cJSON *fp_report_build(const fp_report_in *in);

/* headlines.json: {kernel, arch, product, bound_type, headline, optimal, top_recommendation}. */
cJSON *fp_report_headlines(const cJSON *report);

/* Renderings of a report.json. */
void fp_report_markdown(const cJSON *report, fp_sb *out);
void fp_report_table(const cJSON *report, fp_sb *out);
/* Self-contained HTML; flamegraph_svg (an <svg> document) may be NULL. */
void fp_report_html(const cJSON *report, const char *flamegraph_svg, fp_sb *out);

/* Number of recommendations in a report.json (0 when none / malformed). */
int fp_report_nrecs(const cJSON *report);

/* Text of one source line ("file.py:LINE[ -> ...]") from the snapshots, or NULL.
 * The returned pointer is borrowed from snaps. */
const char *fp_report_source_text(const fp_snapshots *snaps, const char *source);

#endif
