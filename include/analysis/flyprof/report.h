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
#include "flyprof/wave.h"

#define FP_REPORT_SCHEMA FP_REPORT_DOC_SCHEMA
/* Hot source lines and evidence hotspots shown in REPORT.md / html. */
#define FP_REPORT_HOT_LINES 10
#define FP_REPORT_EVIDENCE_HOTSPOTS 5
/* Waves drawn in report.html's wave timeline (an evenly spaced sample). */
#define FP_REPORT_HTML_WAVES 48

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
/* ---- report.html (html.c, docs/commands/report.md) ----
 * What report.html shows beyond report.json: a sample of the traced waves (the
 * wave timeline) and the kernel's source (the source view), read from the
 * dispatch dir at render time; the occupancy over time and the producers come
 * from the bubbles document. Everything is rebuilt from data and escaped: no
 * file of the bundle is pasted into the page. */
#define FP_HTML_TL_W 1000 /* columns (px) of the wave timeline's time axis */

typedef struct fp_html_wave {
    int se, cu, simd, slot, id;
    int64_t begin, end;
    fp_wave_span *spans;   /* the wave's state timeline (owned) */
    size_t n_spans;
    int64_t *hot;          /* issue cycles of the top hotspots' stalled executions (owned) */
    int *hot_rank;         /* their hotspot rank (1 = hottest) */
    size_t n_hot;
    /* a wave too big to hold (read in chunks): instead of its spans, its columns as
     * fp_html_cols_add makes them (owned; NULL otherwise) */
    int64_t (*cols)[FP_WS_COUNT];
} fp_html_wave;

typedef struct fp_html_data {
    fp_snapshots snaps;    /* empty when the dispatch has none */
    fp_html_wave *waves;   /* evenly spaced sample of the wave files */
    size_t n_waves, waves_total;
} fp_html_data;

/* Load the views of dispatch dir `dir` for report r (at most max_waves waves).
 * Never fails: what cannot be read is left empty (the page says so). */
void fp_html_data_load(const char *dir, const fp_report_doc *r, size_t max_waves, fp_html_data *out);
void fp_html_data_free(fp_html_data *d);
/* The wave timeline's axis: first and last cycle of d's waves, cycles per column. */
void fp_html_axis(const fp_html_data *d, int64_t *t0, int64_t *t1, double *cpp);
/* Spans sp[0 .. n) of a wave, the first starting at cycle *t, into its columns: the
 * cycles of each state in each of the FP_HTML_TL_W columns of the axis (t0, cpp); *t
 * moves past them, so a wave's spans may come in chunks (the same sums). */
void fp_html_cols_add(int64_t (*col)[FP_WS_COUNT], int64_t *t, const fp_wave_span *sp, size_t n, int64_t t0,
                      double cpp);

/* Self-contained HTML (inline CSS, no script, no network): every REPORT.md
 * section, the wave timeline, occupancy over time, the source view with heat,
 * wait -> producer, the flamegraph (rebuilt from report.json's instructions).
 * bubbles and data may be NULL (their sections then say what is missing). */
void fp_report_html(const fp_report_doc *report, const fp_bubbles_doc *bubbles, const fp_html_data *data,
                    fp_sb *out);

/* Number of recommendations of a report. */
int fp_report_nrecs(const fp_report_doc *report);

/* Text of one source line ("file.py:LINE[ -> ...]") from the snapshots, or NULL.
 * The returned pointer is borrowed from snaps. */
const char *fp_report_source_text(const fp_snapshots *snaps, const char *source);

#endif
