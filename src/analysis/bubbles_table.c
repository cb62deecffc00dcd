/*
 * bubbles_table.c - the terminal table of bubbles (bubbles_table.h). The JSON
 * envelope is the document itself; this is the view a person reads: the
 * producer of each wait sits next to it, so "what does this s_waitcnt wait for"
 * needs no second command.
 */
#include <stdlib.h>
#include <string.h>

#include "flyprof/bubbles_table.h"
#include "flyprof/markup.h"

#define PRODUCERS_SHOWN 3

static const char *base_source(const char *s)
{
    /* the innermost frame, relative to its directory: "kernel.py:283" */
    return fp_mk_short_path(s, 1);
}

static size_t innermost_len(const char *s)
{
    const char *a = strstr(s, " -> ");
    return a ? (size_t)(a - s) : strlen(s);
}

static void producer_lines(fp_sb *t, const fp_bub_doc_wait *w, size_t n)
{
    for (size_t k = 0; k < n && k < PRODUCERS_SHOWN; k++) {
        const char *src = w[k].source && w[k].source[0] ? w[k].source : "<unmapped>";
        const char *sh = base_source(src);
        size_t len = innermost_len(src) - (size_t)(sh - src);
        const char *isa = w[k].inst ? w[k].inst : "?";
        fp_sb_addf(t, "        <- pc %lld %.*s @ %.*s  l2u %.0f/%lld cyc  %lldx\n",
                   (long long)w[k].code_line, (int)strcspn(isa, " "), isa, (int)len, sh,
                   w[k].load_to_use_cycles.mean, (long long)w[k].load_to_use_cycles.max, (long long)w[k].count);
    }
    if (n > PRODUCERS_SHOWN)
        fp_sb_addf(t, "        <- ... %zu more producers (bubbles.json hotspots[].waits_on)\n", n - PRODUCERS_SHOWN);
}

static void by_inst(fp_sb *t, const fp_bubbles_doc *doc)
{
    fp_sb_adds(t, "\n  #     exposed     stall  class      inst / source\n"
                  "        <- producers: pc, opcode @ line, load-to-use (l2u) mean/max cycles, executions\n");
    for (size_t i = 0; i < doc->n_hotspots; i++) {
        const fp_bub_doc_hotspot *h = &doc->hotspots[i];
        fp_sb_addf(t, "  %-3lld %9lld %9lld  %-9s  %s\n        %s\n", (long long)h->rank, (long long)h->exposed,
                   (long long)h->stall, h->cls, h->inst, h->source);
        producer_lines(t, h->waits_on, h->n_waits_on);
    }
}

/* --by line: the document's lines (ranked), each with its instruction count and
 * the producers of its waits merged over every hotspot of the line (by producer
 * pc, executions summed, load-to-use weighted by executions). */
typedef struct merged {
    fp_bub_doc_wait *w;
    size_t n;
    double l2u_sum;
} merged;

static void merge_line(const fp_bubbles_doc *full, const char *source, merged *m)
{
    for (size_t i = 0; i < full->n_hotspots; i++) {
        const fp_bub_doc_hotspot *h = &full->hotspots[i];
        if (!h->source || strcmp(h->source, source))
            continue;
        for (size_t k = 0; k < h->n_waits_on; k++) {
            const fp_bub_doc_wait *w = &h->waits_on[k];
            size_t j = 0;
            while (j < m->n && m->w[j].code_line != w->code_line)
                j++;
            if (j == m->n) {
                m->w = realloc(m->w, (m->n + 1) * sizeof *m->w);
                if (!m->w)
                    abort();
                m->w[m->n++] = (fp_bub_doc_wait){.code_line = w->code_line, .inst = w->inst, .source = w->source};
            }
            fp_bub_doc_wait *o = &m->w[j];
            o->count += w->count;
            o->load_to_use_cycles.max = w->load_to_use_cycles.max > o->load_to_use_cycles.max ? w->load_to_use_cycles.max
                                                                                             : o->load_to_use_cycles.max;
            o->load_to_use_cycles.mean += w->load_to_use_cycles.mean * (double)w->count; /* sum; divided below */
        }
    }
    for (size_t j = 0; j < m->n; j++)
        m->w[j].load_to_use_cycles.mean = m->w[j].count ? m->w[j].load_to_use_cycles.mean / (double)m->w[j].count : 0;
    /* most executions first (ties: code order), as waits_on */
    for (size_t a = 1; a < m->n; a++)
        for (size_t b = a; b > 0 && (m->w[b - 1].count < m->w[b].count ||
                                     (m->w[b - 1].count == m->w[b].count && m->w[b - 1].code_line > m->w[b].code_line));
             b--) {
            fp_bub_doc_wait x = m->w[b];
            m->w[b] = m->w[b - 1];
            m->w[b - 1] = x;
        }
}

static void by_line(fp_sb *t, const fp_bubbles_doc *doc, const fp_bubbles_doc *full)
{
    fp_sb_adds(t, "\n  #     exposed     stall  class      insts  source\n"
                  "        <- producers of its waits: pc, opcode @ line, load-to-use (l2u) mean/max cycles, executions\n");
    for (size_t i = 0; i < doc->n_lines; i++) {
        const fp_bub_doc_line *l = &doc->lines[i];
        fp_sb_addf(t, "  %-3zu %9lld %9lld  %-9s  %5lld  %s\n", i + 1, (long long)l->exposed, (long long)l->stall,
                   l->dom_class ? l->dom_class : "?", (long long)l->instructions, l->source ? l->source : "<unmapped>");
        merged m = {0};
        if (l->source)
            merge_line(full, l->source, &m);
        producer_lines(t, m.w, m.n);
        free(m.w);
    }
}

void fp_bubbles_table(const fp_bubbles_doc *doc, const fp_bubbles_doc *full, bool line, fp_sb *t)
{
    const fp_bub_doc_totals *tot = &doc->totals;
    const fp_bub_doc_dispatch *d = &doc->dispatch;
    fp_sb_addf(t, "bubbles: %s (%s)\n", d->name ? d->name : "?", d->symbol ? d->symbol : "?");
    fp_sb_addf(t, "  latency %lld  stall %lld  exposed %lld  hidden %lld  (%lld waves, %lld records)\n",
               (long long)tot->latency, (long long)tot->stall, (long long)tot->exposed, (long long)tot->hidden,
               (long long)tot->waves, (long long)tot->wave_records);
    if (tot->drain_stall > 0) /* issue 23: the s_endpgm wait, outside the stall sums */
        fp_sb_addf(t, "  drain (s_endpgm) %lld  exposed %lld  hidden %lld\n", (long long)tot->drain_stall,
                   (long long)tot->drain_exposed, (long long)tot->drain_hidden);
    fp_sb_adds(t, "\n  class            cycles    %stall    exposed   gain<=%\n");
    for (size_t i = 0; i < doc->n_classes; i++) {
        const fp_bub_doc_class *c = &doc->classes[i];
        fp_sb_addf(t, "  %-12s %10lld  %8.2f %10lld  %8.2f\n", c->cls, (long long)c->cycles, c->pct,
                   (long long)c->exposed, c->gain_upper_pct);
    }
    if (line)
        by_line(t, doc, full);
    else
        by_inst(t, doc);
    const fp_bub_doc_quality *q = &doc->quality;
    fp_sb_addf(t, "\n  confidence: %s\n", q->confidence);
    for (size_t i = 0; i < q->n_reasons; i++)
        fp_sb_addf(t, "    - %s\n", q->reasons[i]);
}
