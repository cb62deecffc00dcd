/*
 * html.c - report.html: one self-contained file (inline CSS, no scripts, no
 * external resources) for people who would rather look than read: the
 * headline, stall bars per class, the flamegraph SVG `map` wrote (inlined
 * when present), the ranked plan and the hot source lines.
 */
#include <stdio.h>
#include <string.h>

#include "flyprof/report.h"


/* Text into HTML: the five special characters escaped. */
static void esc(fp_sb *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fp_sb_adds(out, "&lt;"); break;
        case '>': fp_sb_adds(out, "&gt;"); break;
        case '&': fp_sb_adds(out, "&amp;"); break;
        case '"': fp_sb_adds(out, "&quot;"); break;
        case '\'': fp_sb_adds(out, "&#39;"); break;
        default: fp_sb_addc(out, *s);
        }
    }
}

/* An <svg> document is inlined only from its "<svg" tag on, and only when it
 * carries no script: the report must stay inert. */
static void inline_svg(fp_sb *out, const char *svg)
{
    const char *start = svg ? strstr(svg, "<svg") : NULL;
    if (!start || strstr(start, "<script") || strstr(start, "javascript:")) {
        fp_sb_adds(out, "<p class=\"muted\">No flamegraph (run <code>flyprof map</code> to produce "
                        "flamegraph.svg).</p>\n");
        return;
    }
    fp_sb_adds(out, "<div class=\"flame\">");
    fp_sb_adds(out, start);
    fp_sb_adds(out, "</div>\n");
}

void fp_report_html(const fp_report_doc *r, const char *svg, fp_sb *out)
{
    const char *kernel = r->kernel ? r->kernel : "kernel";
    fp_sb_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    esc(out, kernel);
    fp_sb_adds(out, " - flyprof report</title>\n<style>\n"
                    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}\n"
                    "h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
                    ".muted{color:#777}.bar{background:#e8e8e8;height:1em;width:30em;display:inline-block}\n"
                    ".fill{height:1em;display:block}.bub{background:#d9534f}.work{background:#5b8def}\n"
                    "table{border-collapse:collapse}td,th{padding:.2em .6em;text-align:left;vertical-align:top}\n"
                    "tr:nth-child(even){background:#f6f6f6}code{background:#f2f2f2;padding:0 .2em}\n"
                    ".rec{border:1px solid #ddd;border-radius:4px;padding:.6em 1em;margin:.8em 0}\n"
                    ".flame svg{max-width:100%;height:auto}\n"
                    "</style></head><body>\n<h1>");
    esc(out, kernel);
    fp_sb_adds(out, " <span class=\"muted\">");
    esc(out, r->arch ? r->arch : "arch unknown");
    fp_sb_adds(out, " / ");
    esc(out, r->product ? r->product : "product unknown");
    fp_sb_adds(out, "</span></h1>\n<p><b>");
    esc(out, r->headline);
    fp_sb_adds(out, "</b></p>\n");
    /* launch and speed of light first: they bound what any stall fix can gain */
    if (r->nsummary > 0) {
        fp_sb_adds(out, "<h2>Launch &amp; speed of light</h2>\n<ul>\n");
        for (size_t i = 0; i < r->nsummary; i++) {
            fp_sb_adds(out, "<li>");
            esc(out, r->summary[i]);
            fp_sb_adds(out, "</li>\n");
        }
        fp_sb_adds(out, "</ul>\n");
    }

    fp_sb_addf(out, "<h2>Stall by class</h2>\n<p class=\"muted\">%.2f%% of %.0f latency cycles stalled; "
                    "red = bubble (waiting), blue = working</p>\n<table>\n",
               r->totals.stall_pct, (double)r->totals.latency);
    for (size_t i = 0; i < r->nclasses; i++) {
        const fp_report_class *it = &r->classes[i];
        double pct = it->pct;
        fp_sb_adds(out, "<tr><td>");
        esc(out, it->cls);
        fp_sb_addf(out, "</td><td><span class=\"bar\"><span class=\"fill %s\" style=\"width:%.2f%%\"></span></span>"
                        "</td><td>%.2f%%</td><td>gain &le; %.2f%%</td></tr>\n",
                   it->is_bubble ? "bub" : "work", pct > 100 ? 100 : pct, pct,
                   it->gain_upper_pct.known ? it->gain_upper_pct.v : 0.0);
    }
    fp_sb_adds(out, "</table>\n<h2>Flamegraph</h2>\n");
    inline_svg(out, svg);

    fp_sb_adds(out, "<h2>Ranked plan</h2>\n");
    if (r->optimal) {
        fp_sb_adds(out, "<p><b>Already optimal.</b> ");
        esc(out, r->bound.optimal_evidence);
        fp_sb_adds(out, "</p>\n");
    } else if (!r->nrecs) {
        fp_sb_adds(out, "<p>No rule fired.</p>\n");
    }
    for (size_t i = 0; i < r->nrecs; i++) {
        const fp_report_rec *it = &r->recs[i];
        const fp_report_rec_evidence *ev = &it->evidence;
        const fp_report_hottest *hot = ev->hottest;
        fp_sb_addf(out, "<div class=\"rec\"><b>#%d ", it->rank);
        esc(out, it->knob);
        fp_sb_adds(out, "</b> <span class=\"muted\">(<code>");
        esc(out, it->rule);
        if (it->est_gain_pct.known)
            fp_sb_addf(out, "</code>, est. gain &le; %.2f%%, confidence ", it->est_gain_pct.v);
        else
            fp_sb_adds(out, "</code>, est. gain n/a (trace not representative), confidence ");
        esc(out, it->confidence_label);
        fp_sb_adds(out, ")</span><br>\nEvidence: <code>");
        esc(out, ev->signal);
        fp_sb_addf(out, "</code> = %.4g", ev->value);
        if (hot) {
            fp_sb_adds(out, " at ");
            esc(out, hot->source ? hot->source : "<unmapped>");
            fp_sb_adds(out, " <code>");
            esc(out, hot->inst);
            fp_sb_adds(out, "</code>");
            if (hot->snippet) {
                fp_sb_adds(out, "<br>\n<code>");
                esc(out, hot->snippet);
                fp_sb_adds(out, "</code>");
            }
        }
        fp_sb_adds(out, "<br>\nChange: ");
        esc(out, it->change);
        fp_sb_adds(out, "<br>\nAPI: ");
        esc(out, it->api);
        fp_sb_adds(out, "<br>\nAcceptance: ");
        esc(out, it->acceptance.text);
        fp_sb_adds(out, "</div>\n");
    }

    fp_sb_adds(out, "<h2>Hot source lines</h2>\n<table><tr><th>source</th><th>stall %</th><th>exposed</th>"
                    "<th>class</th><th>text</th></tr>\n");
    for (size_t i = 0; i < r->nhot_lines; i++) {
        const fp_report_hot_line *it = &r->hot_lines[i];
        fp_sb_adds(out, "<tr><td>");
        esc(out, it->source ? it->source : "<unmapped>");
        fp_sb_addf(out, "</td><td>%.2f</td><td>%.0f</td><td>", it->pct, it->exposed);
        esc(out, it->dom_class);
        fp_sb_adds(out, "</td><td><code>");
        esc(out, it->text);
        fp_sb_adds(out, "</code></td></tr>\n");
    }
    fp_sb_adds(out, "</table>\n<p class=\"muted\">Repro: <code>");
    esc(out, r->repro);
    fp_sb_adds(out, "</code></p>\n</body></html>\n");
}
