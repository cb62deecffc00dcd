/*
 * annotate.c - the ISA window of `flyprof annotate` (annotate.h).
 *
 * Rows are the counted code rows (kernel header rows excluded) in code order;
 * the window is the target +- context of them. Figures per row: code.json's
 * hit / latency / stall, the waves' exposed stall, the class bubbles gives it,
 * and for a wait the producers bubbles.json names (its hotspot's waits_on).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/annotate.h"
#include "flyprof/map.h"
#include "flyprof/report.h"

static bool counted(const fp_inst *r) { return r->index_ok && r->isa[0] != ';'; }

/* Rows of the line spec: the matched file's rows at that line (any frame). */
static int line_rows(const fp_code *c, const char *spec, bool *on, size_t *best_out, char **matched,
                     const fp_bub_inst *bi, fp_err *err)
{
    char *file = NULL;
    long line;
    if (fp_parse_file_line(spec, &file, &line, err) != 0)
        return -1;
    /* the frames of every row; paths[] borrows their file names */
    fp_frame **all = calloc(c->n + 1, sizeof *all);
    size_t *nall = calloc(c->n + 1, sizeof *nall);
    const char **paths = NULL;
    size_t np = 0;
    if (!all || !nall)
        abort();
    for (size_t i = 0; i < c->n; i++) {
        nall[i] = fp_source_frames(c->rows[i].source, &all[i]);
        for (size_t k = 0; k < nall[i]; k++) {
            paths = realloc(paths, (np + 1) * sizeof *paths);
            if (!paths)
                abort();
            paths[np++] = all[i][k].file;
        }
    }
    const char *which = NULL;
    fp_file_match m = fp_match_file(file, paths, np, &which);
    int rc = -1;
    size_t best = SIZE_MAX;
    if (m == FP_FM_NONE) {
        fp_err_set(err, FP_NO_ARTIFACT, "no instruction maps to a file matching '%s'", file);
        fp_err_help(err, "flyprof map lists the files (map.json files[]); give an exact path or a unique suffix");
    } else if (m == FP_FM_AMBIGUOUS) {
        fp_err_set(err, FP_BAD_ARGS, "'%s' matches several files", file);
        fp_err_help(err, "give a longer path suffix");
    } else {
        for (size_t i = 0; i < c->n; i++)
            for (size_t k = 0; k < nall[i] && counted(&c->rows[i]); k++)
                if (all[i][k].line == line && !strcmp(all[i][k].file, which)) {
                    on[i] = true;
                    bool hotter = best == SIZE_MAX || bi[i].exposed > bi[best].exposed ||
                                  (bi[i].exposed == bi[best].exposed && c->rows[i].stall > c->rows[best].stall);
                    best = hotter ? i : best;
                    break;
                }
        if (best == SIZE_MAX) {
            fp_err_set(err, FP_NO_ARTIFACT, "no instruction maps to %s:%ld", which, line);
            fp_err_help(err, "`flyprof map --source-line %s:N` lists the lines of that file with instructions",
                        which);
        } else {
            *matched = fp_model_printf("%s:%ld", which, line);
            rc = 0;
        }
    }
    for (size_t i = 0; i < c->n; i++)
        fp_frames_free(all[i], nall[i]);
    free(all);
    free(nall);
    free(paths);
    free(file);
    *best_out = best;
    return rc;
}

/* The code row of the target, and the rows of --line (on[]). */
static int target_row(const fp_bubbles *b, const fp_bubbles_doc *doc, const fp_ann_query *q, bool *on, size_t *row,
                      char **matched, fp_err *err)
{
    const fp_code *c = &b->code;
    if (q->kind == FP_ANN_LINE)
        return line_rows(c, q->spec, on, row, matched, b->insts, err);
    if (q->kind == FP_ANN_PC) {
        const fp_inst *r = fp_code_at(c, q->pc);
        if (!r || !counted(r)) {
            fp_err_set(err, FP_NO_ARTIFACT, "no instruction with code line %lld", (long long)q->pc);
            return fp_err_help(err, "code lines are code.json's LineNumber (bubbles.json hotspots[].code_line)");
        }
        *row = (size_t)(r - c->rows);
        return 0;
    }
    if (!doc->n_hotspots) {
        fp_err_set(err, FP_NO_ARTIFACT, "no instruction stalled: there is no top hotspot");
        return fp_err_help(err, "give --pc N or --line FILE:LINE");
    }
    *row = (size_t)(fp_code_at(c, doc->hotspots[0].code_line) - c->rows);
    return 0;
}

static void producers(const fp_bub_doc_hotspot *h, fp_ann_row *o)
{
    if (!h || !h->n_waits_on)
        return;
    o->waits_on = calloc(h->n_waits_on, sizeof *o->waits_on);
    if (!o->waits_on)
        abort();
    o->n_waits_on = h->n_waits_on;
    for (size_t k = 0; k < h->n_waits_on; k++) {
        const fp_bub_doc_wait *w = &h->waits_on[k];
        fp_ann_producer *p = &o->waits_on[k];
        p->code_line = w->code_line;
        p->inst = fp_model_strdup(w->inst);
        p->source = fp_model_strdup(w->source);
        p->count = w->count;
        p->load_to_use_mean = w->load_to_use_cycles.mean;
        p->load_to_use_max = w->load_to_use_cycles.max;
        p->stall_share = w->stall_share;
        p->evidence = fp_model_strdup(w->evidence);
    }
}

static char *rtrim_dup(const char *s)
{
    if (!s)
        return NULL;
    char *d = fp_model_strdup(s);
    size_t n = strlen(d);
    while (n && (d[n - 1] == ' ' || d[n - 1] == '\t' || d[n - 1] == '\r' || d[n - 1] == '\n'))
        d[--n] = 0;
    return d;
}

static void fill_row(const fp_bubbles *b, size_t row, const fp_bub_doc_hotspot *h, const fp_snapshots *snaps,
                     fp_ann_row *o)
{
    const fp_inst *r = &b->code.rows[row];
    o->code_line = r->index;
    o->addr = fp_model_printf("0x%llx", (unsigned long long)r->vaddr);
    o->isa = fp_model_strdup(r->isa);
    o->cls = fp_model_strdup(fp_class_name(b->insts[row].cls));
    o->source = fp_model_strdup(r->source);
    o->source_text = rtrim_dup(r->source[0] ? fp_report_source_text(snaps, r->source) : NULL);
    o->hit = r->hit;
    o->latency = r->latency;
    o->stall = r->stall;
    o->exposed = b->insts[row].exposed;
    o->stall_pct = b->t_stall > 0 ? 100.0 * (double)r->stall / (double)b->t_stall : 0.0;
    producers(h, o);
}

int fp_annotate_build(const fp_bubbles *b, const fp_bubbles_doc *doc, const fp_snapshots *snaps,
                      const fp_ann_query *q, fp_annotate_doc *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    const fp_code *c = &b->code;
    bool *on = calloc(c->n + 1, sizeof *on);
    size_t *hs = malloc((c->n + 1) * sizeof *hs), *idx = malloc((c->n + 1) * sizeof *idx);
    if (!on || !hs || !idx)
        abort();
    size_t row = 0, nidx = 0, at = 0;
    char *matched = NULL;
    int rc = target_row(b, doc, q, on, &row, &matched, err);
    if (rc == 0) {
        static const char *const kinds[] = {"top", "pc", "line"};
        for (size_t i = 0; i < c->n; i++) {
            hs[i] = SIZE_MAX;
            if (counted(&c->rows[i]))
                at = i == row ? nidx : at, idx[nidx++] = i;
        }
        for (size_t i = 0; i < doc->n_hotspots; i++) {
            const fp_inst *r = fp_code_at(c, doc->hotspots[i].code_line);
            if (r)
                hs[r - c->rows] = i;
        }
        out->kind = fp_model_strdup(kinds[q->kind]);
        if (q->kind == FP_ANN_PC)
            out->query = (fp_numstr){.is_num = true, .num = (double)q->pc};
        else if (q->kind == FP_ANN_LINE)
            out->query.str = matched, matched = NULL;
        out->target_code_line = c->rows[row].index;
        out->target_source = fp_model_strdup(c->rows[row].source);
        out->hotspot_rank = hs[row] != SIZE_MAX ? fp_optd_of((double)doc->hotspots[hs[row]].rank) : fp_optd_none();
        out->context = q->context;
        out->total_stall = b->t_stall;
        out->total_exposed = doc->totals.exposed;
        size_t lo = at > (size_t)q->context ? at - (size_t)q->context : 0;
        size_t hi = at + (size_t)q->context + 1 < nidx ? at + (size_t)q->context + 1 : nidx;
        const char *prev = NULL;
        for (size_t k = lo; k < hi; k++) {
            size_t i = idx[k];
            fp_ann_row *o = fp_model_push((void **)&out->rows, &out->n_rows, sizeof *o);
            fill_row(b, i, hs[i] != SIZE_MAX ? &doc->hotspots[hs[i]] : NULL, snaps, o);
            o->target = i == row;
            o->on_line = on[i];
            o->new_line = !prev || strcmp(prev, c->rows[i].source);
            prev = c->rows[i].source;
        }
    }
    free(matched);
    free(on);
    free(hs);
    free(idx);
    return rc;
}

/* ---- the table ---- */

static const char *short_source(const char *s)
{
    /* the innermost frame's file relative to its directory: "kernel.py:283" */
    const char *arrow = strstr(s, " -> ");
    size_t n = arrow ? (size_t)(arrow - s) : strlen(s);
    const char *p = s + n;
    while (p > s && p[-1] != '/')
        p--;
    return p;
}

void fp_annotate_table(const fp_annotate_doc *d, fp_sb *t)
{
    fp_sb_addf(t, "annotate: %s (%s)\n", d->dispatch_name ? d->dispatch_name : "?", d->symbol ? d->symbol : "?");
    fp_sb_addf(t, "  target pc %lld", (long long)d->target_code_line);
    if (d->hotspot_rank.known)
        fp_sb_addf(t, " = hotspot #%.0f by exposed stall", d->hotspot_rank.v);
    fp_sb_addf(t, " (%s); kernel stall %lld, exposed %lld\n\n", d->kind, (long long)d->total_stall,
               (long long)d->total_exposed);
    fp_sb_adds(t, "       pc       hit      stall    exposed  stall%  class        instruction\n");
    for (size_t i = 0; i < d->n_rows; i++) {
        const fp_ann_row *r = &d->rows[i];
        if (r->new_line) {
            const char *src = r->source && r->source[0] ? r->source : "<unmapped>";
            size_t n = strstr(src, " -> ") ? (size_t)(strstr(src, " -> ") - src) : strlen(src);
            const char *sh = short_source(src);
            fp_sb_addf(t, "     %.*s", (int)(n - (size_t)(sh - src)), sh);
            const char *txt = r->source_text ? r->source_text : "";
            txt += strspn(txt, " \t");
            if (*txt)
                fp_sb_addf(t, " | %s", txt);
            fp_sb_addc(t, '\n');
        }
        fp_sb_addf(t, "  %s %6lld %9lld %10lld %10lld %7.2f  %-12s %s\n", r->target ? ">>" : r->on_line ? " *" : "  ",
                   (long long)r->code_line, (long long)r->hit, (long long)r->stall, (long long)r->exposed,
                   r->stall_pct, r->cls, r->isa);
        for (size_t k = 0; k < r->n_waits_on; k++) {
            const fp_ann_producer *p = &r->waits_on[k];
            fp_sb_addf(t, "%14s<- waits on pc %lld %s (%s): %lldx, load-to-use %.1f (max %lld) cycles, "
                          "stall share %.1f\n", "", (long long)p->code_line, p->inst, short_source(p->source ? p->source : ""),
                       (long long)p->count, p->load_to_use_mean, (long long)p->load_to_use_max, p->stall_share);
        }
    }
}
