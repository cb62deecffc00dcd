/*
 * report.h - from gathered evidence (fp_signals + the bubbles document) to
 * report.json, headlines.json, REPORT.md, the terminal table and report.html.
 *
 * One idea: report.json is built once (fp_report_build, as the struct
 * fp_report_doc of report_doc.h) and every rendering (markdown, table, html,
 * headlines) reads only that document, so they cannot disagree and a report can
 * be re-rendered without the trace (fp_report_read_file + a renderer). report.json
 * is deterministic: no timestamps, no absolute paths, so a bundled example
 * re-reports to the same bytes.
 */
#ifndef FLYPROF_REPORT_H
#define FLYPROF_REPORT_H

#include "flyprof/att.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/report_doc.h"
#include "flyprof/signals.h"
#include "flyprof/strbuf.h"

#define FP_REPORT_SCHEMA FP_REPORT_DOC_SCHEMA
/* Hot source lines and evidence hotspots shown in REPORT.md / html. */
#define FP_REPORT_HOT_LINES 10
#define FP_REPORT_EVIDENCE_HOTSPOTS 5

typedef struct fp_report_in {
    const fp_signals *sig;
    const fp_bubbles_doc *bubbles; /* the bubbles.json document (read or computed, rounded) */
    const fp_snapshots *snaps;   /* source copies of the dispatch (snippets), may be NULL */
    const fp_code *code;         /* the listing: every executed instruction goes to "instructions" */
    const char *dispatch_name;   /* base name of the dispatch dir */
    const char *tag;             /* tag analysed, may be NULL */
    const fp_report_evidence *evidence; /* artifacts used / missing (copied), may be NULL */
} fp_report_in;

/* report.json into *out (overwritten; free with fp_report_doc_free). Never fails on
 * valid signals. Its numbers are rounded as the file has them (fp_model_round), so
 * a renderer given *out prints what it would print from the file. */
void fp_report_build(const fp_report_in *in, fp_report_doc *out);

/* headlines.json of a report (*out overwritten; fp_headlines_doc_free). */
void fp_report_headlines(const fp_report_doc *report, fp_headlines_doc *out);

/* The `report` command's envelope data (a view of the report; artifacts left
 * empty for the command to fill; free with fp_model_free(&fp_report_envelope_schema)). */
void fp_report_envelope_build(const fp_report_doc *report, fp_report_envelope *out);

/* Renderings of a report (built, or read with fp_report_read_file). */
void fp_report_markdown(const fp_report_doc *report, fp_sb *out);
void fp_report_table(const fp_report_doc *report, fp_sb *out);
/* Self-contained HTML; flamegraph_svg (an <svg> document) may be NULL. */
void fp_report_html(const fp_report_doc *report, const char *flamegraph_svg, fp_sb *out);

/* Number of recommendations of a report. */
int fp_report_nrecs(const fp_report_doc *report);

/* Text of one source line ("file.py:LINE[ -> ...]") from the snapshots, or NULL.
 * The returned pointer is borrowed from snaps. */
const char *fp_report_source_text(const fp_snapshots *snaps, const char *source);

#endif
