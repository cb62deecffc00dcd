/*
 * trend.c - trend.svg / trend.csv of a history series (trend.h).
 *
 * Points are spaced evenly (one per entry, oldest left) rather than by time:
 * CI adds in bursts, and a commit between two bursts deserves as much room as
 * any other. Two panels share the x axis: duration per call (us) above, the
 * top classes' share of stall (%) below; commit labels and dates under both.
 * The duration panel zooms its y axis onto the data (28.1 -> 31.4 us must not
 * look flat), draws the series' baseline (its median) with diff's noise band
 * (+-FP_DIFF_NOISE_TIME_PCT) and marks in red each entry slower than the one
 * before it by more than that floor - what `flyprof check` would call
 * regressed against the latest entry.
 */
#include "flyprof/trend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/diff.h"
#include "flyprof/history_doc.h"
#include "flyprof/markup.h"
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

static void esc(fp_sb *o, const char *s) { fp_mk_xmls(o, s); }

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

static void axis(fp_sb *o, int top, int h, double ymin, double ymax, double step, const char *unit)
{
    fp_sb_addf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#999\"/>\n", LEFT, top,
               W - LEFT - RIGHT, h);
    for (double v = ymin; v <= ymax + step / 2; v += step) {
        double y = top + h - h * (v - ymin) / (ymax - ymin);
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

/* A "nice" range [*lo, *hi] with tick step covering [a, b] (a < b), never below 0. */
static void nice_range(double a, double b, double *lo, double *hi, double *step)
{
    double raw = (b - a) / 4, mag = pow(10, floor(log10(raw))), f = raw / mag;
    *step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    *lo = floor(a / *step) * *step;
    *lo = *lo < 0 ? 0 : *lo;
    *hi = ceil(b / *step) * *step;
    *hi = *hi <= *lo ? *lo + *step : *hi;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The series' durations (us): median (the baseline), min, max; false when none. */
static bool duration_stats(const fp_history_record *records, size_t n, double *med, double *mn, double *mx)
{
    double *v = malloc((n + 1) * sizeof *v);
    if (!v)
        abort();
    size_t k = 0;
    EACH_REC(r, records, n)
    {
        double t;
        if (time_of(r, &t))
            v[k++] = t / 1000.0;
    }
    if (k) {
        qsort(v, k, sizeof *v, cmp_double);
        *med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        *mn = v[0], *mx = v[k - 1];
    }
    free(v);
    return k > 0;
}

static void duration_points(fp_sb *o, const fp_history_record *records, size_t n, double lo, double hi)
{
    double prev = -1;
    size_t i = 0;
    EACH_REC(r, records, n)
    {
        double t;
        if (time_of(r, &t)) {
            double us = t / 1000.0, x = xpos(i, n), y = TOP1 + H1 - H1 * (us - lo) / (hi - lo);
            bool regressed = prev > 0 && us > prev * (1 + FP_DIFF_NOISE_TIME_PCT / 100.0);
            char lab[32];
            label_of(r, lab, sizeof lab);
            fp_sb_addf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"%s><title>", x, y, regressed ? 6 : 4,
                       regressed ? "#d62728" : "#222", regressed ? " class=\"regressed\"" : "");
            esc(o, lab);
            fp_sb_addf(o, " #%.0f ", opt0(r->id));
            esc(o, r->provenance.captured_at);
            fp_sb_addf(o, ": %.2f us", us);
            if (regressed)
                fp_sb_addf(o, ", regressed: +%.1f%% over the entry before", 100.0 * (us / prev - 1));
            fp_sb_adds(o, "</title></circle>\n");
            if (n <= 40)
                fp_sb_addf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\"%s>%.1f</text>\n", x,
                           y - 9, regressed ? " fill=\"#d62728\"" : "", us);
            prev = us;
        }
        i++;
    }
}

/* Panel 1: duration per call, one point per entry that measured one, on an axis
 * zoomed to the data, with the baseline and its noise band. */
static void panel_duration(fp_sb *o, const fp_history_record *records, size_t n)
{
    double med = 0, mn = 0, mx = 0;
    bool any = duration_stats(records, n, &med, &mn, &mx);
    double band = med * FP_DIFF_NOISE_TIME_PCT / 100.0;
    double a = fmin(mn, med - band), b = fmax(mx, med + band), pad = (b - a) * 0.15 + 1e-9;
    double lo, hi, step;
    if (any)
        nice_range(a - pad, b + pad, &lo, &hi, &step);
    else
        lo = 0, hi = 1, step = 0.25;
    axis(o, TOP1, H1, lo, hi, step, "duration per call (us)");
    if (!any) {
        fp_sb_addf(o, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#777\">no entry measured a duration per call"
                      "</text>\n", LEFT + 20, TOP1 + H1 / 2);
        return;
    }
    double yb = TOP1 + H1 - H1 * (med - lo) / (hi - lo), yh = TOP1 + H1 - H1 * (med + band - lo) / (hi - lo),
           yl = TOP1 + H1 - H1 * (med - band - lo) / (hi - lo);
    fp_sb_addf(o, "<rect id=\"noise-band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#2ca02c\" "
                  "fill-opacity=\"0.12\"><title>noise band: baseline +-%.0f%% (diff's floor)</title></rect>\n",
               LEFT, yh, W - LEFT - RIGHT, yl - yh, FP_DIFF_NOISE_TIME_PCT);
    fp_sb_addf(o, "<line id=\"baseline\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#2ca02c\" "
                  "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>baseline (median) %.2f us</title></line>\n",
               LEFT, yb, W - RIGHT, yb, med);
    fp_sb_addf(o, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#2ca02c\">baseline %.2f us (median) +-%.0f%%"
                  "</text>\n<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#d62728\">red: slower than the entry "
                  "before by more than %.0f%%</text>\n",
               W - RIGHT + 8, yb + 4, med, FP_DIFF_NOISE_TIME_PCT, W - RIGHT + 8, (double)TOP1 + 12,
               FP_DIFF_NOISE_TIME_PCT);
    fp_sb_adds(o, "<polyline fill=\"none\" stroke=\"#222\" stroke-width=\"2\" points=\"");
    size_t i = 0;
    EACH_REC(r, records, n)
    {
        double t;
        if (time_of(r, &t))
            fp_sb_addf(o, "%.1f,%.1f ", xpos(i, n), TOP1 + H1 - H1 * (t / 1000.0 - lo) / (hi - lo));
        i++;
    }
    fp_sb_adds(o, "\"/>\n");
    duration_points(o, records, n, lo, hi);
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
    axis(o, TOP2, H2, 0, ytop, ystep, "share of stall (%)");
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
            const char *when = r->provenance.captured_at;
            if (when && strlen(when) >= 10) { /* the date of the ISO-8601 capture time */
                fp_sb_adds(o, " ");
                fp_mk_xml(o, when, 10);
            }
            fp_sb_adds(o, "</text>\n");
        }
        i++;
    }
    fp_sb_addf(o, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">entries in capture "
                   "order (commit, capture date)</text>\n",
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
