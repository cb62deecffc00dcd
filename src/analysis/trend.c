/*
 * trend.c - trend.svg / trend.csv of a history series (trend.h).
 *
 * Points are spaced evenly (one per entry, oldest left) rather than by time:
 * CI adds in bursts, and a commit between two bursts deserves as much room as
 * any other. Two panels share the x axis: duration per call (us) above, the
 * top classes' share of stall (%) below; commit labels under both.
 */
#include "flyprof/trend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/history_doc.h"
#include "flyprof/strbuf.h"

#define W 960
#define LEFT 80
#define RIGHT 190 /* legend column */
#define TOP1 60
#define H1 200
#define TOP2 320
#define H2 180
#define LABELS 560
#define HEIGHT 650

static const char *const palette[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};

static void esc(fp_sb *o, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fp_sb_adds(o, "&lt;"); break;
        case '>': fp_sb_adds(o, "&gt;"); break;
        case '&': fp_sb_adds(o, "&amp;"); break;
        case '"': fp_sb_adds(o, "&quot;"); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fp_sb_addc(o, *s);
        }
    }
}

static double opt0(fp_optd v) { return v.known ? v.v : 0.0; }

static double class_pct(const fp_history_record *rec, const char *cls, int *found)
{
    for (size_t i = 0; i < rec->nclasses; i++) {
        const char *n = rec->classes[i].cls;
        if (n && !strcmp(n, cls)) {
            *found = 1;
            return opt0(rec->classes[i].pct);
        }
    }
    *found = 0;
    return 0;
}

typedef struct cls_mean {
    const char *name;
    double sum;
    size_t order;
} cls_mean;

static int mean_cmp(const void *a, const void *b)
{
    const cls_mean *x = a, *y = b;
    if (x->sum != y->sum)
        return x->sum > y->sum ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

void fp_trend_top_classes(const fp_history_record *records, size_t nrec, size_t k, char ***top, size_t *ntop)
{
    cls_mean *v = NULL;
    size_t n = 0;
    for (size_t ri = 0; ri < nrec; ri++)
        for (size_t ci = 0; ci < records[ri].nclasses; ci++) {
        const fp_history_class *c = &records[ri].classes[ci];
        const char *name = c->cls;
        if (!name)
            continue;
        size_t i = 0;
        while (i < n && strcmp(v[i].name, name))
            i++;
        if (i == n) {
            cls_mean *nv = realloc(v, (n + 1) * sizeof *v);
            if (!nv)
                abort();
            v = nv;
            v[n] = (cls_mean){name, 0, n};
            n++;
        }
        v[i].sum += opt0(c->pct);
    }
    if (n > 1)
        qsort(v, n, sizeof *v, mean_cmp);
    *top = NULL;
    *ntop = 0;
    for (size_t i = 0; i < n && i < k; i++)
        fp_model_push_str(top, ntop, v[i].name);
    free(v);
}

/* "abc1234" (+ "*" when dirty), else "#<id>". */
/* The records / the charted classes, in order. */
#define EACH_REC(r, recs, n) for (const fp_history_record *r = (recs); r < (recs) + (n); r++)
#define EACH_TOP(c, top, ntop) for (char *const *c = (top); c < (top) + (ntop); c++)

static bool time_of(const fp_history_record *r, double *t)
{
    *t = r->workload.time_ns_per_call.v;
    return r->workload.time_ns_per_call.known;
}

static bool is_true(fp_optb b) { return b.known && b.v; }

static void label_of(const fp_history_record *rec, char *buf, size_t cap)
{
    const char *c = rec->provenance.commit;
    if (c)
        snprintf(buf, cap, "%.7s%s", c, is_true(rec->provenance.dirty) ? "*" : "");
    else
        snprintf(buf, cap, "#%.0f", opt0(rec->id));
}

/* A "nice" upper bound and tick step covering [0, hi]. */
static void nice_axis(double hi, double *top, double *step)
{
    if (!(hi > 0))
        hi = 1;
    double raw = hi / 4, mag = pow(10, floor(log10(raw))), f = raw / mag;
    *step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    *top = ceil(hi / *step) * *step;
}

static double xpos(size_t i, size_t n)
{
    /* 30 px inside the frame so the end points and their labels stay clear of it */
    double span = W - LEFT - RIGHT - 60;
    return n <= 1 ? LEFT + 30 + span / 2 : LEFT + 30 + span * (double)i / (double)(n - 1);
}

static void axis(fp_sb *o, int top, int h, double ymax, double step, const char *unit)
{
    fp_sb_addf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#999\"/>\n", LEFT, top,
               W - LEFT - RIGHT, h);
    for (double v = 0; v <= ymax + step / 2; v += step) {
        double y = top + h - h * v / ymax;
        fp_sb_addf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", LEFT, y, W - RIGHT, y);
        fp_sb_addf(o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>\n", LEFT - 6, y + 4, v);
    }
    fp_sb_addf(o, "<text x=\"16\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">",
               top + h / 2, top + h / 2);
    esc(o, unit);
    fp_sb_adds(o, "</text>\n");
}

/* The title block: kernel, shape, arch and what the chart shows. */
static void svg_head(fp_sb *o, const fp_history_record *first, size_t n)
{
    fp_sb_addf(o,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
               W, HEIGHT, W, HEIGHT);
    fp_sb_adds(o, "<text x=\"16\" y=\"26\" font-size=\"16\" font-weight=\"bold\">flyprof history: ");
    esc(o, first->kernel);
    const char *shape = first->shape;
    if (shape && shape[0]) {
        fp_sb_adds(o, "  shape ");
        esc(o, shape);
    }
    if (first->arch) {
        fp_sb_adds(o, "  (");
        esc(o, first->arch);
        fp_sb_adds(o, ")");
    }
    fp_sb_addf(o, "</text>\n<text x=\"16\" y=\"44\" font-size=\"12\" fill=\"#555\">%zu entries, oldest left; "
                   "labels: FlyDSL commit (* = dirty worktree) or #entry id</text>\n",
               n);

}

/* Panel 1: duration per call, one point per entry that measured one. */
static void panel_duration(fp_sb *o, const fp_history_record *records, size_t n)
{
    double tmax = 0;
    size_t nt = 0;
    EACH_REC(r, records, n)
    {
        double t;
        if (time_of(r, &t)) {
            nt++;
            if (t / 1000.0 > tmax)
                tmax = t / 1000.0;
        }
    }
    double ytop, ystep;
    nice_axis(tmax * 1.1, &ytop, &ystep);
    axis(o, TOP1, H1, ytop, ystep, "duration per call (us)");
    if (!nt) {
        fp_sb_addf(o, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#777\">no entry measured a duration per call"
                       "</text>\n",
                   LEFT + 20, TOP1 + H1 / 2);
    } else {
        fp_sb_adds(o, "<polyline fill=\"none\" stroke=\"#222\" stroke-width=\"2\" points=\"");
        size_t i = 0;
        EACH_REC(r, records, n)
        {
            double t;
            if (time_of(r, &t))
                fp_sb_addf(o, "%.1f,%.1f ", xpos(i, n), TOP1 + H1 - H1 * (t / 1000.0) / ytop);
            i++;
        }
        fp_sb_adds(o, "\"/>\n");
        i = 0;
        EACH_REC(r, records, n)
        {
            double t;
            if (time_of(r, &t)) {
                double x = xpos(i, n), y = TOP1 + H1 - H1 * (t / 1000.0) / ytop;
                char lab[32];
                label_of(r, lab, sizeof lab);
                fp_sb_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#222\"><title>", x, y);
                esc(o, lab);
                fp_sb_addf(o, " #%.0f ", opt0(r->id));
                esc(o, r->provenance.captured_at);
                fp_sb_addf(o, ": %.2f us</title></circle>\n", t / 1000.0);
                if (n <= 40)
                    fp_sb_addf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%.1f</text>\n",
                               x, y - 8, t / 1000.0);
            }
            i++;
        }
    }

}

/* Panel 2: the top classes' share of stall, one line per class with its legend. */
static void panel_classes(fp_sb *o, const fp_history_record *records, size_t n, char *const *top, size_t ntop)
{
    double ytop, ystep;
    double pmax = 0;
    EACH_REC(r, records, n) EACH_TOP(c, top, ntop)
    {
        int f;
        double v = class_pct(r, *c, &f);
        if (f && v > pmax)
            pmax = v;
    }
    nice_axis(pmax > 0 ? fmin(100, pmax * 1.1) : 100, &ytop, &ystep);
    axis(o, TOP2, H2, ytop, ystep, "share of stall (%)");
    size_t ci = 0;
    EACH_TOP(c, top, ntop)
    {
        const char *col = palette[ci % (sizeof palette / sizeof palette[0])];
        fp_sb_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
        size_t i = 0;
        EACH_REC(r, records, n)
        {
            int f;
            double v = class_pct(r, *c, &f);
            /* a class absent from an entry had no stall there: 0 % */
            fp_sb_addf(o, "%.1f,%.1f ", xpos(i, n), TOP2 + H2 - H2 * v / ytop);
            i++;
        }
        fp_sb_adds(o, "\"/>\n");
        i = 0;
        EACH_REC(r, records, n)
        {
            int f;
            double v = class_pct(r, *c, &f);
            fp_sb_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", xpos(i, n),
                       TOP2 + H2 - H2 * v / ytop, col);
            esc(o, *c);
            fp_sb_addf(o, " %.2f %%</title></circle>\n", v);
            i++;
        }
        /* legend */
        double ly = TOP2 + 14 + 20.0 * (double)ci;
        fp_sb_addf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                   W - RIGHT + 14, ly - 4, W - RIGHT + 38, ly - 4, col);
        fp_sb_addf(o, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\">", W - RIGHT + 44, ly);
        esc(o, *c);
        fp_sb_adds(o, "</text>\n");
        ci++;
    }
    if (!ci)
        fp_sb_addf(o, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#777\">no stall classes recorded</text>\n",
                   LEFT + 20, TOP2 + H2 / 2);

}

/* Commit labels under the x axis (thinned to ~40 so they never overlap). */
static void commit_labels(fp_sb *o, const fp_history_record *records, size_t n)
{
    size_t every = n > 40 ? (n + 39) / 40 : 1, i = 0;
    EACH_REC(r, records, n)
    {
        if (i % every == 0 || i + 1 == n) {
            char lab[32];
            label_of(r, lab, sizeof lab);
            double x = xpos(i, n);
            fp_sb_addf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>\n", x, TOP2 + H2, x,
                       TOP2 + H2 + 5);
            fp_sb_addf(o, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" font-family=\"DejaVu Sans Mono, monospace\" "
                           "text-anchor=\"end\" transform=\"rotate(-40 %.1f %d)\">",
                       x, TOP2 + H2 + 18, x, TOP2 + H2 + 18);
            esc(o, lab);
            fp_sb_adds(o, "</text>\n");
        }
        i++;
    }
    fp_sb_addf(o, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">entries in capture "
                   "order (commit)</text>\n",
               LEFT + (W - LEFT - RIGHT) / 2, LABELS + 60);
}

char *fp_trend_svg(const fp_history_record *records, size_t n, char *const *top, size_t ntop)
{
    static const fp_history_record none;
    const fp_history_record *first = n ? &records[0] : &none;
    fp_sb o;
    fp_sb_init(&o);
    svg_head(&o, first, n);
    panel_duration(&o, records, n);
    panel_classes(&o, records, n, top, ntop);
    commit_labels(&o, records, n);
    fp_sb_adds(&o, "</svg>\n");
    return fp_sb_detach(&o);
}

/* A text cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first:
 * OWASP's CSV injection list) gets a leading apostrophe, so it is shown as text;
 * the numeric columns are written by csv_num and never start a text cell. */
static bool formula_like(const char *s) { return s[0] && strchr("=+-@\t\r", s[0]); }

static void csv_field(fp_sb *o, const char *s)
{
    if (!s)
        return;
    bool neutral = formula_like(s);
    if (strpbrk(s, ",\"\n\r")) {
        fp_sb_addc(o, '"');
        if (neutral)
            fp_sb_addc(o, '\'');
        fp_sb_addc(o, '"');
        for (; *s; s++) {
            if (*s == '"')
                fp_sb_addc(o, '"');
            fp_sb_addc(o, *s);
        }
        fp_sb_addc(o, '"');
    } else {
        if (neutral)
            fp_sb_addc(o, '\'');
        fp_sb_adds(o, s);
    }
}

static void csv_num(fp_sb *o, fp_optd v)
{
    fp_sb_addc(o, ',');
    if (v.known)
        fp_sb_addf(o, "%.15g", v.v);
}

char *fp_trend_csv(const fp_history_record *records, size_t n, char *const *top, size_t ntop)
{
    fp_sb o;
    fp_sb_init(&o);
    fp_sb_adds(&o, "id,captured_at,commit,dirty,time_ns_per_call,stall_pct,exposed_pct,bound");
    EACH_TOP(c, top, ntop)
    {
        fp_sb_addc(&o, ',');
        char buf[256];
        snprintf(buf, sizeof buf, "%s_pct", *c);
        csv_field(&o, buf);
    }
    fp_sb_addc(&o, '\n');
    EACH_REC(r, records, n)
    {
        const fp_history_provenance *p = &r->provenance;
        fp_sb_addf(&o, "%.0f,", opt0(r->id));
        csv_field(&o, p->captured_at);
        fp_sb_addc(&o, ',');
        csv_field(&o, p->commit);
        fp_sb_addc(&o, ',');
        if (p->dirty.known)
            fp_sb_adds(&o, p->dirty.v ? "true" : "false");
        csv_num(&o, r->workload.time_ns_per_call);
        csv_num(&o, r->totals.stall_pct);
        csv_num(&o, r->totals.exposed_pct);
        fp_sb_addc(&o, ',');
        csv_field(&o, r->bound);
        EACH_TOP(c, top, ntop)
        {
            int f;
            double v = class_pct(r, *c, &f);
            fp_sb_addf(&o, ",%.15g", v);
        }
        fp_sb_addc(&o, '\n');
    }
    return fp_sb_detach(&o);
}
