/*
 * html.c - report.html: one self-contained file (inline CSS, no script, no
 * external resource) for people who would rather look than read. It carries
 * every section of REPORT.md and the pictures the trace allows: a wave
 * timeline (waves x time, states coloured, hot stalls marked), the resident
 * waves over time, the kernel's source with per-line stall / exposed heat and
 * the rule naming a line, wait -> producer, and the flamegraph.
 *
 * Inert by construction (issue 22 item 3): every picture is rebuilt here from
 * data (report.json, the bubbles document, the wave files, the snapshots) and
 * every text goes through markup.h's escaping; no file of the bundle is pasted
 * into the page, so nothing in a bundle can put markup or script into it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/flamegraph.h"
#include "flyprof/map.h"
#include "flyprof/markup.h"
#include "flyprof/report.h"
#include "flyprof/taxonomy.h"

#define TL_W FP_HTML_TL_W  /* px of the wave timeline's time axis */
#define TL_ROW 11         /* px per wave */
#define TL_LEFT 150       /* px of the wave labels */
#define SRC_CONTEXT 2     /* source lines shown around a line with stall */
#define SRC_MAX_ROWS 600  /* rows of the source view */
#define WAITS_MAX 12      /* waits in the wait -> producer table */

static const char *or_(const char *s, const char *d) { return s && *s ? s : d; }
static double v0(fp_optd o) { return o.known ? o.v : 0.0; }
static void esc(fp_sb *out, const char *s) { fp_mk_xmls(out, s); }

/* Text with `code` spans (REPORT.md's backticks) as <code>, everything escaped;
 * an odd number of backticks is shown as it is. */
static void text_code(fp_sb *out, const char *s)
{
    if (!s)
        return;
    size_t ticks = 0;
    for (const char *p = s; *p; p++)
        ticks += *p == '`';
    if (ticks == 0 || ticks % 2) {
        esc(out, s);
        return;
    }
    bool in = false;
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, "`");
        fp_mk_xml(out, p, n);
        p += n;
        if (*p == '`') {
            fp_sb_adds(out, in ? "</code>" : "<code>");
            in = !in;
            p++;
        }
    }
}

static const char CSS[] =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:78em;color:#222;padding:0 1em}\n"
    "h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
    "h3{font-size:1em}.muted{color:#777}.bar{background:#e8e8e8;height:1em;width:24em;display:inline-block}\n"
    ".fill{height:1em;display:block}.bub{background:#d9534f}.work{background:#5b8def}\n"
    "table{border-collapse:collapse}td,th{padding:.2em .6em;text-align:left;vertical-align:top}\n"
    "th{border-bottom:1px solid #ccc}tr:nth-child(even){background:#f6f6f6}td.n{text-align:right}\n"
    "code{background:#f2f2f2;padding:0 .2em}.rec{border:1px solid #ddd;border-radius:4px;padding:.6em 1em;"
    "margin:.8em 0}\nsvg{max-width:100%;height:auto}nav a{margin-right:.8em}\n"
    ".src{font-family:monospace;font-size:12px;white-space:pre}.src td{padding:0 .5em}.gap td{color:#999}\n"
    ".legend span{display:inline-block;width:1em;height:1em;margin:0 .3em 0 1em;vertical-align:middle}\n";

/* The sections, in page order: id and heading (the table of contents). */
static const char *const SECTIONS[][2] = {
    {"headline", "1. Headline"},
    {"workload", "2. Workload &amp; Tile"},
    {"roofline", "3. Roofline &amp; Occupancy"},
    {"taxonomy", "4. Bubble / Stall Taxonomy"},
    {"evidence", "5. ISA &lt;-&gt; Python Evidence"},
    {"waits", "Wait &rarr; producer"},
    {"source", "Source view"},
    {"timeline", "Wave timeline"},
    {"occupancy", "Occupancy over time"},
    {"flamegraph", "Flamegraph"},
    {"plan", "6. Ranked Optimization Opportunities"},
    {"verification", "7. Verification Plan"},
    {"counters", "8. Counters"},
    {"quality", "9. Evidence &amp; Capture Quality"},
    {"repro", "10. Repro"},
};
enum { N_SECTIONS = sizeof SECTIONS / sizeof *SECTIONS };

static void section(fp_sb *out, int i) { fp_sb_addf(out, "<h2 id=\"%s\">%s</h2>\n", SECTIONS[i][0], SECTIONS[i][1]); }

static void head(const fp_report_doc *r, fp_sb *out)
{
    const char *kernel = or_(r->kernel, "kernel");
    fp_sb_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    esc(out, kernel);
    fp_sb_addf(out, " - flyprof report</title>\n<style>\n%s</style></head><body>\n<h1>", CSS);
    esc(out, kernel);
    fp_sb_adds(out, " <span class=\"muted\">");
    esc(out, or_(r->arch, "arch unknown"));
    fp_sb_adds(out, " / ");
    esc(out, or_(r->product, "product unknown"));
    fp_sb_adds(out, "</span></h1>\n<p class=\"muted\">Provenance: FlyDSL &middot; rocprofv3 ATT &middot; dispatch ");
    esc(out, or_(r->dispatch.name, "?"));
    if (r->dispatch.tag) {
        fp_sb_adds(out, " (tag ");
        esc(out, r->dispatch.tag);
        fp_sb_adds(out, ")");
    }
    if (r->workload.time_ns_per_call.known)
        fp_sb_addf(out, " &middot; avg %.1f ns/call", r->workload.time_ns_per_call.v);
    fp_sb_adds(out, "</p>\n<nav>");
    for (int i = 0; i < N_SECTIONS; i++)
        fp_sb_addf(out, "<a href=\"#%s\">%s</a>", SECTIONS[i][0], SECTIONS[i][1]);
    fp_sb_adds(out, "</nav>\n");
}

static void s_headline(const fp_report_doc *r, fp_sb *out)
{
    section(out, 0);
    fp_sb_adds(out, "<p><b>");
    text_code(out, r->headline);
    fp_sb_adds(out, "</b></p>\n");
    if (r->nsummary) {
        fp_sb_adds(out, "<ul>\n");
        for (size_t i = 0; i < r->nsummary; i++) {
            fp_sb_adds(out, "<li>");
            text_code(out, r->summary[i]);
            fp_sb_adds(out, "</li>\n");
        }
        fp_sb_adds(out, "</ul>\n");
    }
}

static void li(fp_sb *out, const char *label, const char *value)
{
    fp_sb_adds(out, "<li>");
    esc(out, label);
    fp_sb_adds(out, ": ");
    text_code(out, value);
    fp_sb_adds(out, "</li>\n");
}

static void s_workload_roofline(const fp_report_doc *r, fp_sb *out)
{
    const fp_report_workload *w = &r->workload;
    section(out, 1);
    fp_sb_adds(out, "<ul>\n");
    li(out, "shape", or_(w->shape, "(not recorded: no capture.json)"));
    if (w->invocation) {
        fp_sb_adds(out, "<li>invocation: <code>");
        esc(out, w->invocation);
        fp_sb_adds(out, "</code></li>\n");
    }
    li(out, "kernel tile", or_(w->tile, "unknown (no tile.json evaluating the kernel's own BM/BN/BK)"));
    fp_sb_adds(out, "</ul>\n");
    section(out, 2);
    const fp_report_bound *b = &r->bound;
    fp_sb_adds(out, "<ul>\n<li>bound: <b>");
    esc(out, or_(r->bound_type, "unknown"));
    fp_sb_adds(out, "</b> (rule <code>");
    esc(out, or_(b->rule, "none"));
    fp_sb_adds(out, "</code>, basis ");
    esc(out, or_(b->basis, "none"));
    fp_sb_adds(out, ", confidence ");
    esc(out, or_(b->confidence, "-"));
    fp_sb_adds(out, "): ");
    text_code(out, b->evidence);
    fp_sb_adds(out, "</li>\n");
    if (r->optimal)
        li(out, "roof", or_(b->optimal_evidence, ""));
    const fp_report_counters *c = r->counters;
    if (c && c->pct_of_hbm_roof.known)
        fp_sb_addf(out, "<li>achieved HBM bandwidth: %.1f GB/s = %.2f%% of the %.0f GB/s peak</li>\n",
                   v0(c->achieved_hbm_gbs), c->pct_of_hbm_roof.v, v0(c->peak_hbm_gbs));
    const fp_report_occupancy *o = r->occupancy;
    if (o) {
        fp_sb_addf(out, "<li>occupancy: %.0f waves/CU (%.0f/SIMD), limiter ", v0(o->waves_per_cu), v0(o->waves_per_simd));
        esc(out, or_(o->limiter, "?"));
        fp_sb_addf(out, "; arch_vgpr %.0f, accum_vgpr %.0f (", v0(o->arch_vgpr), v0(o->accum_vgpr));
        esc(out, or_(o->source, "?"));
        fp_sb_adds(out, ")");
        if (o->next_waves_per_cu.known)
            fp_sb_addf(out, "; next step %.0f waves/CU", o->next_waves_per_cu.v);
        if (o->vgprs_to_free.known)
            fp_sb_addf(out, " needs %.0f fewer VGPRs", o->vgprs_to_free.v);
        fp_sb_adds(out, "</li>\n");
    } else {
        li(out, "occupancy", "unknown (no register counts: no capture.json or kernel_trace.csv row)");
    }
    if (r->launch && r->launch->text)
        li(out, "launch", r->launch->text);
    fp_sb_adds(out, "</ul>\n");
}

static void s_taxonomy(const fp_report_doc *r, fp_sb *out)
{
    const fp_report_totals *t = &r->totals;
    section(out, 3);
    fp_sb_addf(out, "<p class=\"muted\">total stall %.0f cycles = %.2f%% of %.0f latency cycles; exposed %.0f "
                    "(%.2f%%). Red = bubble (waiting), blue = working.</p>\n<table>\n<tr><th>rank</th><th>class</th>"
                    "<th></th><th>stall %%</th><th>cycles</th><th>exposed</th><th>gain &le; %%</th></tr>\n",
               (double)t->stall, t->stall_pct, (double)t->latency, t->exposed, t->exposed_pct);
    for (size_t i = 0; i < r->nclasses; i++) {
        const fp_report_class *it = &r->classes[i];
        double pct = it->pct > 100 ? 100 : it->pct < 0 ? 0 : it->pct;
        fp_sb_addf(out, "<tr><td class=\"n\">%d</td><td>", it->rank);
        esc(out, it->cls);
        fp_sb_addf(out, "</td><td><span class=\"bar\"><span class=\"fill %s\" style=\"width:%.2f%%\"></span></span>"
                        "</td><td class=\"n\">%.2f</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>"
                        "<td class=\"n\">%.2f</td></tr>\n",
                   it->is_bubble ? "bub" : "work", pct, it->pct, (double)it->cycles, v0(it->exposed),
                   v0(it->gain_upper_pct));
    }
    fp_sb_adds(out, "</table>\n");
}

static void s_evidence(const fp_report_doc *r, fp_sb *out)
{
    section(out, 4);
    fp_sb_adds(out, "<h3>Hot source lines</h3>\n<table><tr><th>source</th><th>stall</th><th>stall %</th>"
                    "<th>exposed</th><th>class</th><th>text</th></tr>\n");
    for (size_t i = 0; i < r->nhot_lines; i++) {
        const fp_report_hot_line *it = &r->hot_lines[i];
        fp_sb_adds(out, "<tr><td>");
        esc(out, or_(it->source, "<unmapped>"));
        fp_sb_addf(out, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.2f</td><td class=\"n\">%.0f</td><td>",
                   it->stall, it->pct, it->exposed);
        esc(out, it->dom_class);
        fp_sb_adds(out, "</td><td><code>");
        esc(out, it->text);
        fp_sb_adds(out, it->entry_line ? "</code> <span class=\"muted\">(kernel entry/decorator line: debug-info "
                                         "aggregation)</span></td></tr>\n"
                                       : "</code></td></tr>\n");
    }
    fp_sb_adds(out, "</table>\n<h3>Hottest instructions</h3>\n<table><tr><th>pc</th><th>instruction</th>"
                    "<th>class</th><th>stall</th><th>exposed</th><th>source</th></tr>\n");
    for (size_t i = 0; i < r->nevidence_hotspots; i++) {
        const fp_report_hotspot *it = &r->evidence_hotspots[i];
        fp_sb_addf(out, "<tr><td class=\"n\">%.0f</td><td><code>", it->code_line);
        esc(out, it->inst);
        fp_sb_adds(out, "</code></td><td>");
        esc(out, it->cls);
        fp_sb_addf(out, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>", it->stall, it->exposed);
        esc(out, or_(it->source, "<unmapped>"));
        fp_sb_adds(out, "</td></tr>\n");
    }
    fp_sb_adds(out, "</table>\n");
}

/* One wait -> producer row of the table. */
static void wait_row(fp_sb *out, const fp_bub_doc_hotspot *h, const fp_bub_doc_wait *w, bool first)
{
    fp_sb_adds(out, "<tr>");
    if (first) {
        fp_sb_addf(out, "<td rowspan=\"%zu\" class=\"n\">%lld</td><td rowspan=\"%zu\"><code>", h->n_waits_on,
                   (long long)h->code_line, h->n_waits_on);
        esc(out, h->inst);
        fp_sb_addf(out, "</code><br><span class=\"muted\">");
        esc(out, fp_mk_short_path(h->source, 1));
        fp_sb_addf(out, "</span></td><td rowspan=\"%zu\" class=\"n\">%lld</td>", h->n_waits_on, (long long)h->exposed);
    }
    fp_sb_addf(out, "<td>&larr;</td><td class=\"n\">%lld</td><td><code>", (long long)w->code_line);
    esc(out, w->inst);
    fp_sb_adds(out, "</code><br><span class=\"muted\">");
    esc(out, fp_mk_short_path(w->source, 1));
    fp_sb_addf(out, "</span></td><td class=\"n\">%lld</td><td class=\"n\">%.1f</td><td class=\"n\">%lld</td>"
                    "<td class=\"n\">%.1f</td><td>",
               (long long)w->count, w->load_to_use_cycles.mean, (long long)w->load_to_use_cycles.max, w->stall_share);
    esc(out, w->evidence);
    fp_sb_adds(out, "</td></tr>\n");
}

static void s_waits(const fp_bubbles_doc *b, fp_sb *out)
{
    section(out, 5);
    if (!b) {
        fp_sb_adds(out, "<p class=\"muted\">No trace analysis (bubbles) was available.</p>\n");
        return;
    }
    fp_sb_adds(out, "<p class=\"muted\">What each hot wait waited for, measured on the traced waves (the decoder's "
                    "waitcnt edges, else counter replay): load-to-use = producer issue to the wait's release.</p>\n"
                    "<table><tr><th>wait pc</th><th>wait</th><th>exposed</th><th></th><th>producer pc</th>"
                    "<th>producer</th><th>count</th><th>load-to-use mean</th><th>max</th><th>stall share</th>"
                    "<th>evidence</th></tr>\n");
    size_t shown = 0;
    for (size_t i = 0; i < b->n_hotspots && shown < WAITS_MAX; i++) {
        const fp_bub_doc_hotspot *h = &b->hotspots[i];
        for (size_t k = 0; k < h->n_waits_on; k++)
            wait_row(out, h, &h->waits_on[k], k == 0);
        shown += h->n_waits_on > 0;
    }
    fp_sb_adds(out, "</table>\n");
    if (!shown)
        fp_sb_adds(out, "<p class=\"muted\">No wait of the kernel named a producer.</p>\n");
}

/* ---- source view ---- */

/* Heat of a line: a red background whose strength is its exposed (else stall)
 * share of the hottest line's. */
static void heat_cell(fp_sb *out, double v, double max)
{
    double a = max > 0 ? v / max : 0;
    a = a > 1 ? 1 : a < 0 ? 0 : a;
    fp_sb_addf(out, "<td class=\"n\" style=\"background:rgba(217,83,79,%.2f)\">", 0.08 + 0.72 * a);
}

/* The rule whose evidence names file:line (the innermost frame of its hottest instruction). */
static const char *rule_of_line(const fp_report_doc *r, const char *file, long line)
{
    for (size_t i = 0; i < r->nrecs; i++) {
        const fp_report_hottest *h = r->recs[i].evidence.hottest;
        fp_frame *fr;
        size_t nf = h ? fp_source_frames(h->source, &fr) : 0;
        bool hit = nf && fr[0].line == line && !strcmp(fr[0].file, file);
        if (nf)
            fp_frames_free(fr, nf);
        if (hit)
            return r->recs[i].rule;
    }
    return NULL;
}

/* Per line of one file: stall and exposed summed over report.json's lines whose
 * innermost frame is there, and its dominant class. */
typedef struct src_heat {
    double stall, exposed, top;
    const char *cls;
} src_heat;

static void file_heat(const fp_report_doc *r, const fp_source_file *f, src_heat *h)
{
    for (size_t i = 0; i < r->nlines; i++) {
        const fp_report_line *l = &r->lines[i];
        fp_frame *fr;
        size_t nf = fp_source_frames(l->source, &fr);
        if (nf && fr[0].line >= 1 && (size_t)fr[0].line <= f->nlines &&
            (!strcmp(fr[0].file, f->vpath) || fp_path_suffix_match(f->vpath, fr[0].file))) {
            src_heat *e = &h[fr[0].line - 1];
            e->stall += l->stall;
            e->exposed += l->exposed;
            if (l->stall > e->top)
                e->top = l->stall, e->cls = l->dom_class;
        }
        if (nf)
            fp_frames_free(fr, nf);
    }
}

static void source_file(const fp_report_doc *r, const fp_source_file *f, size_t *rows, fp_sb *out)
{
    src_heat *h = calloc(f->nlines + 1, sizeof *h);
    if (!h)
        abort();
    file_heat(r, f, h);
    double max = 0;
    bool any = false;
    for (size_t i = 0; i < f->nlines; i++) {
        max = h[i].exposed > max ? h[i].exposed : max;
        any = any || h[i].stall > 0;
    }
    if (!any) {
        free(h);
        return;
    }
    fp_sb_adds(out, "<h3>");
    esc(out, f->vpath);
    fp_sb_adds(out, "</h3>\n<table class=\"src\"><tr><th>line</th><th>stall</th><th>exposed</th><th>class</th>"
                    "<th>rule</th><th>source</th></tr>\n");
    bool gap = false;
    for (size_t i = 0; i < f->nlines && *rows < SRC_MAX_ROWS; i++) {
        bool near = false;
        for (size_t k = i >= SRC_CONTEXT ? i - SRC_CONTEXT : 0; k <= i + SRC_CONTEXT && k < f->nlines && !near; k++)
            near = h[k].stall > 0;
        if (!near) {
            if (!gap)
                fp_sb_adds(out, "<tr class=\"gap\"><td>&hellip;</td><td></td><td></td><td></td><td></td><td></td></tr>\n");
            gap = true;
            continue;
        }
        gap = false;
        (*rows)++;
        const char *rule = h[i].stall > 0 ? rule_of_line(r, f->vpath, (long)i + 1) : NULL;
        fp_sb_addf(out, "<tr><td class=\"n\">%zu</td>", i + 1);
        if (h[i].stall > 0) {
            heat_cell(out, h[i].exposed, max);
            fp_sb_addf(out, "%.0f</td>", h[i].stall);
            heat_cell(out, h[i].exposed, max);
            fp_sb_addf(out, "%.0f</td><td>", h[i].exposed);
            esc(out, h[i].cls);
            fp_sb_adds(out, "</td><td>");
            esc(out, rule);
            fp_sb_adds(out, "</td>");
        } else {
            fp_sb_adds(out, "<td></td><td></td><td></td><td></td>");
        }
        fp_sb_adds(out, "<td>");
        esc(out, f->lines[i]);
        fp_sb_adds(out, "</td></tr>\n");
    }
    fp_sb_adds(out, "</table>\n");
    free(h);
}

static void s_source(const fp_report_doc *r, const fp_html_data *d, fp_sb *out)
{
    section(out, 6);
    if (!d || !d->snaps.n) {
        fp_sb_adds(out, "<p class=\"muted\">No source snapshots in the dispatch dir (the decoder copies the kernel's "
                        "sources when it can read them).</p>\n");
        return;
    }
    fp_sb_adds(out, "<p class=\"muted\">The kernel's source with the stall and exposed stall of each line "
                    "(innermost frame; heat = exposed share of the hottest line), its dominant class and the rule "
                    "whose evidence names it; lines far from any stall are folded (&hellip;).</p>\n");
    size_t rows = 0;
    for (size_t i = 0; i < d->snaps.n; i++) {
        bool dup = false; /* later leaves of one path win (fp_snapshots_find) */
        for (size_t k = i + 1; k < d->snaps.n && !dup; k++)
            dup = !strcmp(d->snaps.files[k].vpath, d->snaps.files[i].vpath);
        if (!dup)
            source_file(r, &d->snaps.files[i], &rows, out);
    }
    if (rows >= SRC_MAX_ROWS)
        fp_sb_addf(out, "<p class=\"muted\">(cut at %d lines)</p>\n", SRC_MAX_ROWS);
}

/* ---- wave timeline ---- */

static const char *const STATE_COLOURS[FP_WS_COUNT] = {NULL, "#bdbdbd", "#4caf50", "#ff9800", "#e53935"};
static const char *const STATE_LABELS[FP_WS_COUNT] = {NULL, "IDLE", "EXEC", "WAIT", "STALL"};

static inline void cols_add(int64_t (*col)[FP_WS_COUNT], int64_t *t, const fp_wave_span *sp, size_t n, int64_t t0,
                            double cpp)
{
    int64_t t_ = *t; /* a local: col's stores could alias *t */
    for (size_t i = 0; i < n; i++) {
        int64_t d = sp[i].dur > 0 ? sp[i].dur : 0;
        int s = sp[i].state;
        for (int64_t a = t_; s > 0 && s < FP_WS_COUNT && a < t_ + d;) {
            int c = (int)((double)(a - t0) / cpp);
            c = c < 0 ? 0 : c >= TL_W ? TL_W - 1 : c;
            int64_t edge = t0 + (int64_t)ceil((double)(c + 1) * cpp);
            edge = edge > a ? edge : a + 1;
            int64_t b = edge < t_ + d ? edge : t_ + d;
            col[c][s] += b - a;
            a = b;
        }
        t_ += d;
    }
    *t = t_;
}

void fp_html_cols_add(int64_t (*col)[FP_WS_COUNT], int64_t *t, const fp_wave_span *sp, size_t n, int64_t t0,
                      double cpp)
{
    cols_add(col, t, sp, n, t0, cpp);
}

void fp_html_axis(const fp_html_data *d, int64_t *t0, int64_t *t1, double *cpp)
{
    *t0 = d->n_waves ? d->waves[0].begin : 0;
    *t1 = d->n_waves ? d->waves[0].end : 0;
    for (size_t i = 0; i < d->n_waves; i++) {
        *t0 = d->waves[i].begin < *t0 ? d->waves[i].begin : *t0;
        *t1 = d->waves[i].end > *t1 ? d->waves[i].end : *t1;
    }
    *cpp = *t1 > *t0 ? (double)(*t1 - *t0) / TL_W : 1.0; /* cycles per px */
}

/* One wave as runs of columns: each column takes the state with most cycles in it. */
static void wave_row(const fp_html_wave *w, int64_t t0, double cpp, double y, fp_sb *out)
{
    int64_t own[TL_W][FP_WS_COUNT];
    int64_t (*col)[FP_WS_COUNT] = w->cols;
    if (!col) {
        memset(own, 0, sizeof own);
        int64_t t = w->begin;
        cols_add(own, &t, w->spans, w->n_spans, t0, cpp);
        col = own;
    }
    int run = -1, from = 0;
    for (int c = 0; c <= TL_W; c++) {
        int best = 0;
        for (int s = 1; c < TL_W && s < FP_WS_COUNT; s++)
            best = col[c][s] > col[c][best] ? s : best;
        if (best == run)
            continue;
        if (run > 0)
            fp_sb_addf(out, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", TL_LEFT + from, y,
                       c - from, TL_ROW - 2, STATE_COLOURS[run]);
        run = best, from = c;
    }
    for (size_t i = 0; i < w->n_hot; i++) {
        double x = TL_LEFT + (double)(w->hot[i] - t0) / cpp;
        fp_sb_addf(out, "<rect x=\"%.1f\" y=\"%.0f\" width=\"1.5\" height=\"%d\" fill=\"#000\"><title>hotspot #%d"
                        "</title></rect>", x, y - 1, TL_ROW, w->hot_rank[i]);
    }
    fp_sb_adds(out, "\n");
}

static void s_timeline(const fp_html_data *d, fp_sb *out)
{
    section(out, 7);
    if (!d || !d->n_waves) {
        fp_sb_adds(out, "<p class=\"muted\">No wave file could be read.</p>\n");
        return;
    }
    int64_t t0, t1;
    double cpp;
    fp_html_axis(d, &t0, &t1, &cpp);
    int h = (int)d->n_waves * TL_ROW + 34;
    fp_sb_addf(out, "<p class=\"muted\">%zu of %zu traced waves (evenly spaced), shader cycles %lld&ndash;%lld (each "
                    "SE's own clock; <code>flyprof timeline</code> aligns them for Perfetto). Black ticks: executions "
                    "of the top hotspots that stalled.</p>\n<p class=\"legend\">",
               d->n_waves, d->waves_total, (long long)t0, (long long)t1);
    for (int s = 1; s < FP_WS_COUNT; s++)
        fp_sb_addf(out, "<span style=\"background:%s\"></span>%s", STATE_COLOURS[s], STATE_LABELS[s]);
    fp_sb_addf(out, "</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"wave-timeline\" width=\"%d\" height=\"%d\" "
                    "viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"9\">\n",
               TL_LEFT + TL_W + 10, h, TL_LEFT + TL_W + 10, h);
    for (size_t i = 0; i < d->n_waves; i++) {
        const fp_html_wave *w = &d->waves[i];
        double y = 4 + (double)i * TL_ROW;
        fp_sb_addf(out, "<text x=\"2\" y=\"%.0f\">SE%d CU%d s%d sl%d w%d</text>", y + TL_ROW - 3, w->se, w->cu,
                   w->simd, w->slot, w->id);
        wave_row(w, t0, cpp, y, out);
    }
    double ya = 8 + (double)d->n_waves * TL_ROW;
    fp_sb_addf(out, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#444\"/>", TL_LEFT, ya, TL_LEFT + TL_W, ya);
    for (int k = 0; k <= 4; k++)
        fp_sb_addf(out, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"middle\">%lld</text>", TL_LEFT + k * TL_W / 4, ya + 14,
                   (long long)(t0 + (int64_t)((double)(t1 - t0) * k / 4)));
    fp_sb_adds(out, "</svg>\n");
}

/* ---- occupancy over time ---- */

static void s_occupancy(const fp_bubbles_doc *b, fp_sb *out)
{
    static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                          "#e377c2", "#17becf"};
    section(out, 8);
    if (!b || !b->occupancy.available || !b->occupancy.n_per_se) {
        fp_sb_adds(out, "<p class=\"muted\">No occupancy.json in the dispatch dir.</p>\n");
        return;
    }
    double peak = 1;
    for (size_t i = 0; i < b->occupancy.n_per_se; i++)
        peak = (double)b->occupancy.per_se[i].peak > peak ? (double)b->occupancy.per_se[i].peak : peak;
    const int W = 800, H = 160, L = 40;
    fp_sb_addf(out, "<p class=\"muted\">Mean resident waves per shader engine in equal time buckets (occupancy.json: "
                    "all waves of the SE, traced or not); peak %.0f.</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                    "id=\"occupancy-plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-size=\"10\">\n"
                    "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                    "y2=\"%d\" stroke=\"#444\"/><text x=\"2\" y=\"14\">%.0f</text><text x=\"2\" y=\"%d\">0</text>\n",
               peak, W + L + 120, H + 30, W + L + 120, H + 30, L, L, H + 10, L, H + 10, L + W, H + 10, peak, H + 10);
    for (size_t i = 0; i < b->occupancy.n_per_se; i++) {
        const fp_bub_doc_occ_se *se = &b->occupancy.per_se[i];
        const char *c = colours[i % (sizeof colours / sizeof *colours)];
        fp_sb_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
        size_t n = se->n_over_time;
        for (size_t k = 0; k < n; k++) {
            double y = 10 + (double)H * (1 - se->over_time[k] / peak);
            fp_sb_addf(out, "%.1f,%.1f %.1f,%.1f ", L + (double)W * (double)k / (double)n, y,
                       L + (double)W * (double)(k + 1) / (double)n, y);
        }
        fp_sb_addf(out, "\"><title>SE%lld: mean %.2f, peak %lld</title></polyline><text x=\"%d\" y=\"%zu\" fill=\"%s\">"
                        "SE%lld mean %.2f peak %lld</text>\n",
                   (long long)se->se, se->mean, (long long)se->peak, L + W + 8, 20 + 14 * i, c, (long long)se->se,
                   se->mean, (long long)se->peak);
    }
    fp_sb_adds(out, "</svg>\n");
}

/* ---- flamegraph, rebuilt from report.json's instructions ---- */

static void s_flamegraph(const fp_report_doc *r, fp_sb *out)
{
    section(out, 9);
    fp_folded fo = {0};
    fp_sb tmp, svg;
    fp_sb_init(&tmp);
    fp_sb_init(&svg);
    for (size_t i = 0; i < r->ninstructions; i++) {
        const fp_report_inst *in = &r->instructions[i];
        fp_flame_add_source(&fo, or_(in->source, ""), or_(in->cls, "?"), (int64_t)in->exposed, &tmp);
    }
    fp_folded_finish(&fo);
    if (!fo.n) {
        fp_sb_adds(out, "<p class=\"muted\">No exposed stall to draw.</p>\n");
    } else {
        const char *hot[FP_CL_COUNT + 1];
        size_t nh = 0;
        for (int c = 0; c < FP_CL_COUNT; c++)
            if (fp_class_is_bubble((fp_class)c))
                hot[nh++] = fp_class_name((fp_class)c);
        hot[nh] = NULL;
        char *root = fp_flame_source_root(&fo);
        fp_flame_opts o = {"exposed stall cycles by source line and class", "cycles", hot, 1100, root, false};
        fp_flame_svg(&fo, &o, &svg);
        free(root);
        fp_sb_adds(out, "<p class=\"muted\">Outermost call site at the bottom, the instruction's class on top; "
                        "<code>flamegraph.svg</code> from <code>flyprof map</code> zooms and searches.</p>\n");
        fp_sb_adds(out, strstr(svg.buf, "<svg")); /* our own rendering, without its XML prolog */
    }
    fp_folded_free(&fo);
    fp_sb_free(&tmp);
    fp_sb_free(&svg);
}

/* ---- plan, verification, counters, quality ---- */

static void rec_div(const fp_report_rec *it, fp_sb *out)
{
    const fp_report_rec_evidence *ev = &it->evidence;
    const fp_report_hottest *hot = ev->hottest;
    fp_sb_addf(out, "<div class=\"rec\"><b>#%d ", it->rank);
    text_code(out, it->knob);
    fp_sb_adds(out, "</b> <span class=\"muted\">(<code>");
    esc(out, it->rule);
    if (it->est_gain_pct.known)
        fp_sb_addf(out, "</code>, est. gain &le; %.2f%%, confidence ", it->est_gain_pct.v);
    else
        fp_sb_adds(out, "</code>, est. gain n/a (trace not representative), confidence ");
    esc(out, it->confidence_label);
    fp_sb_adds(out, ")</span><br>\nEvidence: <code>");
    esc(out, ev->signal);
    fp_sb_addf(out, "</code> = %.4g (fired because ", ev->value);
    text_code(out, ev->fired_because);
    fp_sb_adds(out, ")");
    if (hot) {
        fp_sb_adds(out, "<br>\nRoot cause: <code>");
        esc(out, hot->inst);
        fp_sb_addf(out, "</code> (code_line %lld, stall %lld) at ", (long long)hot->code_line, (long long)hot->stall);
        esc(out, or_(hot->source, "<unmapped>"));
        if (hot->snippet) {
            fp_sb_adds(out, "<br>\n<code>");
            esc(out, hot->snippet);
            fp_sb_adds(out, "</code>");
        }
        for (size_t k = 0; k < hot->nwaits_on; k++) {
            fp_sb_adds(out, "<br>\n&nbsp;&nbsp;waits on <code>");
            esc(out, hot->waits_on[k].inst);
            fp_sb_addf(out, "</code> (code_line %lld) &rarr; ", (long long)hot->waits_on[k].code_line);
            esc(out, or_(hot->waits_on[k].source, "<unmapped>"));
        }
    }
    static const char *const labels[] = {"Change", "FlyDSL API", "Expected", "Acceptance test"};
    const char *vals[] = {it->change, it->api, it->expected, it->acceptance.text};
    for (int k = 0; k < 4; k++) {
        fp_sb_addf(out, "<br>\n%s: ", labels[k]);
        text_code(out, vals[k]);
    }
    fp_sb_adds(out, "</div>\n");
}

static void s_plan(const fp_report_doc *r, fp_sb *out)
{
    section(out, 10);
    if (r->optimal) {
        fp_sb_adds(out, "<p><b>Already optimal.</b> ");
        text_code(out, r->bound.optimal_evidence);
        fp_sb_adds(out, " No change is recommended at this level.</p>\n");
    } else if (!r->nrecs && r->bound.at_roof) {
        fp_sb_adds(out, "<p><b>At the HBM roof:</b> only fewer bytes help (fuse, narrower storage dtype, no "
                        "re-reads).</p>\n");
    } else if (!r->nrecs) {
        fp_sb_adds(out, r->nalso_seen ? "<p>No rule promises more than the noise floor.</p>\n"
                                      : "<p>No rule fired: no bubble crossed its threshold.</p>\n");
    }
    for (size_t i = 0; i < r->nrecs; i++)
        rec_div(&r->recs[i], out);
    if (r->nrecs)
        fp_sb_adds(out, "<p class=\"muted\">Gains are upper bounds (the exposed stall a change could hide at most), "
                        "each against today's kernel: they do not add. Verify by re-capturing.</p>\n");
    /* fired below the noise floor: seen, not ranked (docs/rules.md) */
    for (size_t i = 0; i < r->nalso_seen; i++) {
        fp_sb_adds(out, i ? "<li><code>" : "<p class=\"muted\">Also seen (not ranked):</p>\n<ul><li><code>");
        esc(out, r->also_seen[i].rule);
        fp_sb_adds(out, "</code>: ");
        esc(out, r->also_seen[i].reason);
        fp_sb_adds(out, i + 1 == r->nalso_seen ? "</li></ul>\n" : "</li>\n");
    }
    section(out, 11);
    fp_sb_adds(out, "<ol><li>Apply ONE change, rebuild with <code>FLYDSL_DUMP_IR=1</code> and check "
                    "<code>final_isa.s</code> (scratch == 0, the intended instruction counts).</li>\n<li>Re-capture "
                    "into a NEW bundle and run <code>flyprof report</code>, then <code>flyprof diff --before &lt;this "
                    "bundle&gt; --after &lt;new bundle&gt;</code>.</li>\n<li>Acceptance tests (checked by "
                    "<code>diff</code>):<ul>\n");
    for (size_t i = 0; i < r->nrecs; i++) {
        fp_sb_adds(out, "<li><code>");
        esc(out, r->recs[i].rule);
        fp_sb_adds(out, "</code>: ");
        text_code(out, r->recs[i].acceptance.text);
        fp_sb_adds(out, "</li>\n");
    }
    fp_sb_adds(out, "</ul></li></ol>\n");
}

static void counter_row(const char *key, fp_optd v, void *user)
{
    fp_sb *out = user;
    fp_sb_adds(out, "<tr><td>");
    esc(out, key);
    if (v.known)
        fp_sb_addf(out, "</td><td class=\"n\">%.4g</td></tr>\n", v.v);
    else
        fp_sb_adds(out, "</td><td class=\"muted\">not measured</td></tr>\n");
}

static void s_counters_quality(const fp_report_doc *r, const fp_bubbles_doc *b, fp_sb *out)
{
    section(out, 12);
    if (r->counters) {
        fp_sb_adds(out, "<table>\n");
        fp_report_counters_each(r->counters, counter_row, out);
        fp_sb_adds(out, "</table>\n");
    } else {
        fp_sb_adds(out, "<p class=\"muted\">No counters.json: run <code>flyprof counters</code>.</p>\n");
    }
    section(out, 13);
    const fp_report_evidence *ev = &r->evidence;
    const fp_report_quality *q = &r->capture_quality;
    fp_sb_adds(out, "<ul>\n<li>used:");
    for (size_t i = 0; i < ev->navailable; i++) {
        fp_sb_adds(out, " <code>");
        esc(out, ev->available[i]);
        fp_sb_adds(out, "</code>");
    }
    fp_sb_adds(out, "</li>\n");
    for (size_t i = 0; i < ev->nmissing; i++) {
        fp_sb_adds(out, "<li>missing <code>");
        esc(out, ev->missing[i].artifact);
        fp_sb_adds(out, "</code>: ");
        text_code(out, ev->missing[i].effect);
        fp_sb_adds(out, "</li>\n");
    }
    fp_sb_adds(out, "<li>capture quality: <b>");
    esc(out, or_(q->confidence, "?"));
    fp_sb_addf(out, "</b> (recommendation confidence &times; %.2f)", q->confidence_multiplier);
    if (q->src_mapped_pct.known)
        fp_sb_addf(out, "; %.1f%% of latency maps to a source line", q->src_mapped_pct.v);
    if (b)
        fp_sb_addf(out, "; %lld of %lld listed wave files read, %lld skipped", (long long)b->quality.waves_read,
                   (long long)b->quality.waves_listed, (long long)b->quality.waves_skipped);
    fp_sb_adds(out, "<ul>\n");
    for (size_t i = 0; i < q->nreasons; i++) {
        fp_sb_adds(out, "<li>");
        text_code(out, q->reasons[i]);
        fp_sb_adds(out, "</li>\n");
    }
    fp_sb_adds(out, "</ul></li>\n<li>representative: ");
    fp_sb_adds(out, q->representative ? "yes" : "no");
    for (size_t i = 0; i < q->nrepresentative_reasons; i++) {
        fp_sb_adds(out, "; ");
        text_code(out, q->representative_reasons[i]);
    }
    fp_sb_adds(out, "</li>\n</ul>\n");
    section(out, 14);
    fp_sb_adds(out, "<pre><code>");
    esc(out, r->repro);
    fp_sb_adds(out, "</code></pre>\n");
}

void fp_report_html(const fp_report_doc *r, const fp_bubbles_doc *b, const fp_html_data *d, fp_sb *out)
{
    head(r, out);
    s_headline(r, out);
    s_workload_roofline(r, out);
    s_taxonomy(r, out);
    s_evidence(r, out);
    s_waits(b, out);
    s_source(r, d, out);
    s_timeline(d, out);
    s_occupancy(b, out);
    s_flamegraph(r, out);
    s_plan(r, out);
    s_counters_quality(r, b, out);
    fp_sb_adds(out, "<p class=\"muted\">Generated by flyprof report: one self-contained file, no script, no network."
                    "</p>\n</body></html>\n");
}
