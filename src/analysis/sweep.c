/*
 * sweep.c - task names, Slurm states, the summary's counts, table and SVG
 * (sweep.h). Everything here is computed from the typed sweep document.
 */
#include "flyprof/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fp_sweep_task_name(const char *kernel, const char *shape)
{
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_addf(&s, "%s--%s", kernel, shape);
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.buf[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '_' || c == '-';
        if (!ok)
            s.buf[i] = '_';
    }
    if (s.buf[0] == '.') /* never a hidden (or "..") name */
        s.buf[0] = '_';
    return fp_sb_detach(&s);
}

/* Slurm's job states (squeue(1) "JOB STATE CODES"), by the prefix scontrol / sacct print. */
static const struct {
    const char *state, *status;
} slurm_states[] = {
    {"COMPLETED", "ok"},        {"TIMEOUT", "timeout"},   {"DEADLINE", "timeout"}, {"CANCELLED", "cancelled"},
    {"PREEMPTED", "cancelled"}, {"FAILED", "failed"},     {"NODE_FAIL", "failed"}, {"BOOT_FAIL", "failed"},
    {"OUT_OF_MEMORY", "failed"}, {"PENDING", "pending"},  {"REQUEUED", "pending"}, {"RESV_DEL_HOLD", "pending"},
    {"CONFIGURING", "running"}, {"RUNNING", "running"},   {"COMPLETING", "running"}, {"SUSPENDED", "running"},
    {"STAGE_OUT", "running"},   {"RESIZING", "running"},  {"SIGNALING", "running"},
};

const char *fp_sweep_status_of_slurm(const char *state)
{
    for (size_t i = 0; state && i < sizeof slurm_states / sizeof slurm_states[0]; i++) {
        size_t n = strlen(slurm_states[i].state);
        if (!strncmp(state, slurm_states[i].state, n) && (state[n] == '\0' || state[n] == ' '))
            return slurm_states[i].status;
    }
    return NULL;
}

static const char *const final_statuses[] = {"ok", "failed", "cancelled", "timeout"};

bool fp_sweep_status_final(const char *status)
{
    for (size_t i = 0; status && i < sizeof final_statuses / sizeof final_statuses[0]; i++)
        if (!strcmp(status, final_statuses[i]))
            return true;
    return false;
}

void fp_sweep_count(fp_sweep_doc *d)
{
    struct {
        const char *status;
        int *n;
    } counts[] = {{"ok", &d->n_ok}, {"failed", &d->n_failed}, {"cancelled", &d->n_cancelled},
                  {"timeout", &d->n_timeout}};
    d->ntasks = (int)d->nrows;
    d->n_ok = d->n_failed = d->n_cancelled = d->n_timeout = d->n_unfinished = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        bool counted = false;
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
            if (d->tasks[i].status && !strcmp(d->tasks[i].status, counts[k].status)) {
                (*counts[k].n)++;
                counted = true;
            }
        d->n_unfinished += !counted;
    }
}

static const char *or_dash(const char *s) { return s && s[0] ? s : "-"; }

void fp_sweep_table(const fp_sweep_doc *d, fp_sb *out)
{
    fp_sb_addf(out, "sweep %s (%s): %d task(s): %d ok, %d failed, %d cancelled, %d timeout, %d unfinished\n\n",
               or_dash(d->out), or_dash(d->backend), d->ntasks, d->n_ok, d->n_failed, d->n_cancelled, d->n_timeout,
               d->n_unfinished);
    fp_sb_addf(out, "%-16s %-18s %-9s %10s  %-11s %-24s %6s  %s\n", "kernel", "shape", "status", "time_us", "bound",
               "first rule", "gain%", "job / error");
    for (size_t i = 0; i < d->nrows; i++) {
        const fp_sweep_row *r = &d->tasks[i];
        char t[32] = "-", g[32] = "-";
        if (r->duration_us.known)
            snprintf(t, sizeof t, "%.2f", r->duration_us.v);
        if (r->gain_pct.known)
            snprintf(g, sizeof g, "%.1f", r->gain_pct.v);
        const char *tail = r->error ? r->error : r->job_id;
        fp_sb_addf(out, "%-16s %-18s %-9s %10s  %-11s %-24s %6s  %s", or_dash(r->kernel), or_dash(r->shape),
                   or_dash(r->status), t, or_dash(r->bound), or_dash(r->first_rule), g, or_dash(tail));
        if (r->reason && strcmp(r->status ? r->status : "", "ok"))
            fp_sb_addf(out, ": %s", r->reason);
        fp_sb_addc(out, '\n');
    }
}

/* ---- the SVG ---- */

static void xml_text(fp_sb *o, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '<')
            fp_sb_adds(o, "&lt;");
        else if (c == '>')
            fp_sb_adds(o, "&gt;");
        else if (c == '&')
            fp_sb_adds(o, "&amp;");
        else if (c == '"')
            fp_sb_adds(o, "&quot;");
        else if (c < 0x20 || c == 0x7f)
            fp_sb_addc(o, '?'); /* control bytes are not XML (and never reach a terminal) */
        else
            fp_sb_addc(o, (char)c);
    }
}

/* index of s in v[0..n), appended when absent */
static size_t intern(const char **v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(v[i], s))
            return i;
    v[*n] = s;
    return (*n)++;
}

/* a cell's fill: green (fastest shape of the kernel) to red (10x slower or more), log scale */
static void cell_colour(char *buf, size_t n, const fp_sweep_row *r, double row_min)
{
    if (!r || !r->status || strcmp(r->status, "ok"))
        snprintf(buf, n, "%s", r ? "#d0d0d0" : "#ffffff");
    else if (!r->duration_us.known || row_min <= 0)
        snprintf(buf, n, "#e8f0e8");
    else {
        double x = log10(r->duration_us.v / row_min);
        x = x < 0 ? 0 : x > 1 ? 1 : x;
        snprintf(buf, n, "rgb(%d,%d,90)", (int)(90 + 150 * x), (int)(200 - 120 * x));
    }
}

static void svg_cell(fp_sb *o, const fp_sweep_row *r, double row_min, int x, int y)
{
    char fill[32];
    cell_colour(fill, sizeof fill, r, row_min);
    fp_sb_addf(o, "<rect x=\"%d\" y=\"%d\" width=\"150\" height=\"40\" fill=\"%s\" stroke=\"#888\"/>\n", x, y, fill);
    if (!r)
        return;
    fp_sb_addf(o, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", x + 6, y + 16);
    if (r->duration_us.known && r->status && !strcmp(r->status, "ok"))
        fp_sb_addf(o, "%.2f us", r->duration_us.v);
    else
        xml_text(o, r->status);
    fp_sb_addf(o, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#333\">", x + 6, y + 32);
    xml_text(o, r->status && !strcmp(r->status, "ok") ? or_dash(r->bound) : or_dash(r->error));
    fp_sb_adds(o, "</text>\n");
}

void fp_sweep_svg(const fp_sweep_doc *d, fp_sb *o)
{
    size_t nk = 0, ns = 0;
    const char **ks = calloc(d->nrows + 1, sizeof *ks), **ss = calloc(d->nrows + 1, sizeof *ss);
    if (!ks || !ss)
        abort();
    for (size_t i = 0; i < d->nrows; i++) {
        intern(ks, &nk, or_dash(d->tasks[i].kernel));
        intern(ss, &ns, or_dash(d->tasks[i].shape));
    }
    int w = 180 + 150 * (int)ns + 20, h = 60 + 40 * (int)nk + 20;
    fp_sb_addf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"monospace\">\n",
               w, h);
    fp_sb_addf(o, "<text x=\"10\" y=\"20\" font-size=\"14\">flyprof sweep: kernel time by shape (green = fastest "
                  "shape of the kernel, red = 10x slower)</text>\n");
    for (size_t s = 0; s < ns; s++) {
        fp_sb_addf(o, "<text x=\"%d\" y=\"50\" font-size=\"12\">", 186 + 150 * (int)s);
        xml_text(o, ss[s]);
        fp_sb_adds(o, "</text>\n");
    }
    for (size_t k = 0; k < nk; k++) {
        int y = 60 + 40 * (int)k;
        fp_sb_addf(o, "<text x=\"10\" y=\"%d\" font-size=\"12\">", y + 24);
        xml_text(o, ks[k]);
        fp_sb_adds(o, "</text>\n");
        double row_min = 0;
        for (size_t i = 0; i < d->nrows; i++) {
            const fp_sweep_row *r = &d->tasks[i];
            if (!strcmp(or_dash(r->kernel), ks[k]) && r->duration_us.known && r->status && !strcmp(r->status, "ok") &&
                (row_min <= 0 || r->duration_us.v < row_min))
                row_min = r->duration_us.v;
        }
        for (size_t s = 0; s < ns; s++) {
            const fp_sweep_row *cell = NULL;
            for (size_t i = 0; i < d->nrows && !cell; i++)
                if (!strcmp(or_dash(d->tasks[i].kernel), ks[k]) && !strcmp(or_dash(d->tasks[i].shape), ss[s]))
                    cell = &d->tasks[i];
            svg_cell(o, cell, row_min, 180 + 150 * (int)s, y);
        }
    }
    fp_sb_adds(o, "</svg>\n");
    free(ks);
    free(ss);
}
