/*
 * diff.c - report.json x 2 -> diff.json (see diff.h).
 *
 * The one idea: compare shares and per-wave cycles, never raw totals, and
 * never pc indices: instructions are keyed by (innermost source line, opcode,
 * occurrence of that pair in code order), which survives recompiles that
 * shift addresses.
 */
#include "flyprof/diff.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/model.h"
#include "flyprof/round.h"


/* A side's traced waves (cycle counts are compared per wave): 1 when unknown. */
static double fig_waves(const fp_diff_figures *f) { return f->waves.known && f->waves.v > 0 ? f->waves.v : 1.0; }

/* {before, after, delta} of a figure that either side may lack */
static fp_diff_change change_of(fp_optd x, fp_optd y)
{
    fp_diff_change c = {x, y, fp_optd_none()};
    if (x.known && y.known)
        c.delta = fp_optd_of(y.v - x.v);
    return c;
}

static double opt0(fp_optd v) { return v.known ? v.v : 0.0; }

/* ---- classes and lines: union by key ---- */

static const fp_diff_item *find_item(const fp_diff_item *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].name && !strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

typedef struct row {
    void *obj;  /* fp_diff_row / fp_diff_inst_change, copied into the document in order */
    double mag; /* |delta share| for ordering */
    size_t order;
} row;

static int row_cmp(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->mag != y->mag)
        return x->mag > y->mag ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void push_row(row **rows, size_t *n, void *obj, double mag)
{
    row *nr = realloc(*rows, (*n + 1) * sizeof *nr);
    if (!nr)
        abort();
    *rows = nr;
    nr[*n] = (row){obj, mag, *n};
    (*n)++;
}

/* One side of a class/line row: {stall, exposed, pct, stall_per_wave, exposed_per_wave}. */
static fp_diff_side *side(const fp_diff_item *e, double waves)
{
    if (!e)
        return NULL;
    fp_diff_side *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    *o = (fp_diff_side){e->stall, e->exposed, e->pct, e->stall / waves, e->exposed / waves};
    return o;
}

static fp_diff_row *union_row(const char *key, const fp_diff_item *b, const fp_diff_item *a, double wb, double wa)
{
    fp_diff_row *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->key = fp_model_strdup(key);
    o->before = side(b, wb);
    o->after = side(a, wa);
    double pb = b ? b->pct : 0, pa = a ? a->pct : 0;
    double sb = b ? b->stall / wb : 0, sa = a ? a->stall / wa : 0;
    double eb = b ? b->exposed / wb : 0, ea = a ? a->exposed / wa : 0;
    o->delta = (fp_diff_row_delta){pa - pb, sa - sb, ea - eb};
    o->significant = fabs(pa - pb) >= FP_DIFF_NOISE_SHARE_PTS;
    return o;
}

/* Union of two lists by name; before's order first, then after-only rows. The
 * rows (cut to cap when cap > 0) go to *out; returns how many there were. */
static size_t union_rows(const fp_diff_item *ib, size_t nb, const fp_diff_item *ia, size_t na, double wb, double wa,
                         bool sort, size_t cap, fp_diff_row **out, size_t *nout)
{
    row *rows = NULL;
    size_t n = 0;
    for (size_t i = 0; i < nb; i++)
        if (ib[i].name) {
            fp_diff_row *o = union_row(ib[i].name, &ib[i], find_item(ia, na, ib[i].name), wb, wa);
            push_row(&rows, &n, o, fp_round(fabs(o->delta.pct), 2));
        }
    for (size_t i = 0; i < na; i++)
        if (ia[i].name && !find_item(ib, nb, ia[i].name)) {
            fp_diff_row *o = union_row(ia[i].name, NULL, &ia[i], wb, wa);
            push_row(&rows, &n, o, fp_round(fabs(o->delta.pct), 2));
        }
    if (sort && n > 1)
        qsort(rows, n, sizeof *rows, row_cmp);
    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        fp_diff_row *o = rows[i].obj;
        if (cap && i >= cap)
            fp_model_free(&fp_diff_class_row_schema, o); /* same struct for lines */
        else
            *(fp_diff_row *)fp_model_push((void **)out, nout, sizeof **out) = *o;
        free(o);
    }
    free(rows);
    return n;
}

/* ---- instructions keyed by (source, opcode, occurrence) ---- */

typedef struct ikey {
    char *key;
    const fp_report_inst *inst;
    size_t order;
} ikey;

static int ikey_cmp(const void *a, const void *b)
{
    const ikey *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The innermost "file:line" of a source string (text before " -> "). */
static void innermost(const char *src, char *buf, size_t cap)
{
    src = src ? src : "";
    const char *arrow = strstr(src, " -> ");
    size_t n = arrow ? (size_t)(arrow - src) : strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, src, n);
    buf[n] = 0;
}

static void opcode(const char *isa, char *buf, size_t cap)
{
    isa = isa ? isa : "";
    size_t n = strcspn(isa, " \t");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, isa, n);
    buf[n] = 0;
}

/* Which parts make an instruction's identity (diff.md "Instructions"). */
enum { K_SRC = 1, K_POS = 2 };

/* Position of each instruction in its basic block (code line - the block's
 * first code line, from the report's isa.block_starts); all -1 without isa. */
static int64_t *block_positions(const fp_report_doc *r)
{
    int64_t *pos = calloc(r->ninstructions ? r->ninstructions : 1, sizeof *pos);
    if (!pos)
        abort();
    const fp_report_isa *isa = r->isa;
    for (size_t i = 0; i < r->ninstructions; i++) {
        double cl = (double)r->instructions[i].code_line, start = -1;
        size_t lo = 0, hi = isa ? isa->nblock_starts : 0; /* the last start <= cl */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (isa->block_starts[mid] <= cl)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0)
            start = isa->block_starts[lo - 1];
        pos[i] = start < 0 ? -1 : (int64_t)(cl - start);
    }
    return pos;
}

/* Keys in code order: occurrence = how many earlier instructions share the
 * key's parts (source with K_SRC, opcode, block position with K_POS). skip
 * marks instructions already matched (may be NULL). */
static ikey *make_keys_ex(const fp_report_inst *insts, size_t cnt, int parts, const int64_t *bpos, const bool *skip,
                          size_t *n)
{
    ikey *k = calloc(cnt ? cnt : 1, sizeof *k);
    if (!k)
        abort();
    size_t i = 0;
    for (size_t here = 0; here < cnt; here++) {
        if (skip && skip[here])
            continue;
        const fp_report_inst *it = &insts[here];
        char src[1024], op[128];
        if (parts & K_SRC)
            innermost(it->source, src, sizeof src);
        else
            src[0] = 0;
        opcode(it->inst, op, sizeof op);
        long long p = parts & K_POS ? (long long)bpos[here] : -1;
        size_t len = strlen(src) + strlen(op) + 28;
        k[i].key = malloc(len);
        if (!k[i].key)
            abort();
        snprintf(k[i].key, len, "%s\x1f%s\x1f%lld", src, op, p);
        k[i].inst = it;
        k[i].order = here;
        i++;
    }
    *n = i;
    /* sort by (key, code order); the occurrence is the rank within equal keys */
    qsort(k, *n, sizeof *k, ikey_cmp);
    size_t occ = 0;
    for (size_t j = 0; j < *n; j++) {
        occ = (j > 0 && !strcmp(k[j].key, k[j - 1].key)) ? occ + 1 : 0;
        size_t len = strlen(k[j].key) + 24;
        char *nk = malloc(len);
        if (!nk)
            abort();
        snprintf(nk, len, "%s\x1f%zu", k[j].key, occ);
        free(k[j].key);
        k[j].key = nk;
    }
    qsort(k, *n, sizeof *k, ikey_cmp);
    return k;
}

static void free_keys(ikey *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i].key);
    free(k);
}

static fp_diff_inst_side inst_side(const fp_report_inst *i, double waves)
{
    return (fp_diff_inst_side){(double)i->code_line, (double)i->stall, i->exposed, (double)i->stall / waves};
}

typedef struct match_state {
    row *rows;
    size_t n, matched, moved;
    bool *done_b, *done_a;
    size_t *b2a;       /* after index of each before instruction, SIZE_MAX: unmatched */
    const char **how;  /* the tier that matched it */
} match_state;

/* Merge two sorted key lists; record matches and their stall changes. */
static void merge_keys(match_state *m, ikey *kb, size_t nb, ikey *ka, size_t na, double wb, double wa,
                       const char *how)
{
    size_t i = 0, j = 0;
    while (i < nb && j < na) {
        int c = strcmp(kb[i].key, ka[j].key);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        m->matched++;
        m->done_b[kb[i].order] = true;
        m->done_a[ka[j].order] = true;
        m->b2a[kb[i].order] = ka[j].order;
        m->how[kb[i].order] = how;
        const fp_report_inst *b = kb[i].inst, *a = ka[j].inst;
        if (b->code_line != a->code_line)
            m->moved++;
        double d = (double)a->stall / wa - (double)b->stall / wb;
        if (d != 0) {
            fp_diff_inst_change *o = calloc(1, sizeof *o);
            if (!o)
                abort();
            char src[1024], op[128];
            innermost(b->source, src, sizeof src);
            opcode(b->inst, op, sizeof op);
            o->source = fp_model_strdup(src);
            o->opcode = fp_model_strdup(op);
            const char *occ = strrchr(kb[i].key, '\x1f');
            o->occurrence = occ ? atoll(occ + 1) : 0;
            o->matched_by = fp_model_strdup(how);
            o->inst = fp_model_strdup(b->inst);
            o->before = inst_side(b, wb);
            o->after = inst_side(a, wa);
            o->delta_stall_per_wave = d;
            push_row(&m->rows, &m->n, o, fp_round(fabs(d), 1));
        }
        i++;
        j++;
    }
}

/* The identities tried in turn, each on what the previous left unmatched
 * (diff.md "Instructions"): a recompile that shifts addresses keeps all three
 * parts; a source-location fix keeps opcode and block position; an edit
 * inside a block keeps source and opcode. */
static const struct {
    int parts;
    const char *how;
    bool by_source;
} TIERS[] = {
    {K_SRC | K_POS, "source+opcode+block position", true},
    {K_POS, "opcode+block position (source changed)", false},
    {K_SRC, "source+opcode (block position changed)", true},
    {0, "opcode+occurrence (source changed)", false},
};

/* Matches every instruction it can; m->b2a / m->how tell which after
 * instruction each before one is (the caller frees them). */
static void match_insts(const fp_report_doc *rb, const fp_report_doc *ra, double wb, double wa, fp_diff_insts *o,
                        match_state *m)
{
    size_t cb = rb->ninstructions, ca = ra->ninstructions;
    memset(m, 0, sizeof *m);
    m->done_b = calloc(cb + 1, 1);
    m->done_a = calloc(ca + 1, 1);
    m->b2a = malloc((cb + 1) * sizeof *m->b2a);
    m->how = calloc(cb + 1, sizeof *m->how);
    if (!m->done_b || !m->done_a || !m->b2a || !m->how)
        abort();
    for (size_t i = 0; i < cb; i++)
        m->b2a[i] = SIZE_MAX;
    int64_t *pb = block_positions(rb), *pa = block_positions(ra);
    size_t by_source = 0;
    bool have_pos = rb->isa && ra->isa; /* block positions need both listings' blocks */
    for (size_t t = 0; t < sizeof TIERS / sizeof TIERS[0]; t++) {
        if ((TIERS[t].parts & K_POS) && !have_pos)
            continue;
        size_t nb, na, before = m->matched;
        ikey *kb = make_keys_ex(rb->instructions, cb, TIERS[t].parts, pb, m->done_b, &nb);
        ikey *ka = make_keys_ex(ra->instructions, ca, TIERS[t].parts, pa, m->done_a, &na);
        merge_keys(m, kb, nb, ka, na, wb, wa, TIERS[t].how);
        if (TIERS[t].by_source)
            by_source += m->matched - before;
        free_keys(kb, nb);
        free_keys(ka, na);
    }
    free(pb);
    free(pa);
    if (m->n > 1)
        qsort(m->rows, m->n, sizeof *m->rows, row_cmp);
    o->before = (int64_t)cb;
    o->after = (int64_t)ca;
    o->matched = (int64_t)m->matched;
    o->matched_by_source = (int64_t)by_source;
    o->moved = (int64_t)m->moved;
    o->unmatched_before = (int64_t)(cb - m->matched);
    o->unmatched_after = (int64_t)(ca - m->matched);
    o->changed = (int64_t)m->n;
    for (size_t k = 0; k < m->n; k++) {
        fp_diff_inst_change *c = m->rows[k].obj;
        if (k < FP_DIFF_MAX_ROWS)
            *(fp_diff_inst_change *)fp_model_push((void **)&o->top_changes, &o->ntop_changes, sizeof *c) = *c;
        else
            fp_model_free(&fp_diff_inst_change_schema, c);
        free(c);
    }
    free(m->rows);
    m->rows = NULL;
}

static void match_free(match_state *m)
{
    free(m->done_b);
    free(m->done_a);
    free(m->b2a);
    free(m->how);
}

/* ---- acceptance tests of the before report ---- */

/* What the cycle tests are divided by on each side: main-loop iterations when
 * both reports know them (a capture whose waves ran fewer iterations is not
 * faster), else traced waves. */
typedef struct acc_ctx {
    const fp_report_doc *rb, *ra;
    const match_state *m;
    double ub, ua;
    const char *unit; /* "per main-loop iteration" | "per traced wave" */
} acc_ctx;

static const char *base_name(const char *path)
{
    const char *sl = path ? strrchr(path, '/') : NULL;
    return sl ? sl + 1 : path ? path : "?";
}

/* Where the before line's matched instructions went: the after source most of
 * them map to (*n of them), and how many other sources got some. */
static const char *busiest_dest(const acc_ctx *c, const char *src, size_t *n, size_t *others)
{
    const char **to = calloc(c->rb->ninstructions + 1, sizeof *to);
    if (!to)
        abort();
    size_t m = 0;
    for (size_t k = 0; k < c->rb->ninstructions; k++) {
        const char *s = c->rb->instructions[k].source;
        if (s && !strcmp(s, src) && c->m->b2a[k] != SIZE_MAX && c->ra->instructions[c->m->b2a[k]].source)
            to[m++] = c->ra->instructions[c->m->b2a[k]].source;
    }
    const char *best = NULL;
    size_t bestn = 0, distinct = 0;
    for (size_t i = 0; i < m; i++) {
        size_t cnt = 0, first = i;
        for (size_t j = 0; j < m; j++)
            if (!strcmp(to[j], to[i])) {
                cnt++;
                first = j < first ? j : first;
            }
        distinct += first == i; /* count each source at its first occurrence */
        if (cnt > bestn)
            best = to[i], bestn = cnt;
    }
    free(to);
    *n = bestn;
    *others = distinct ? distinct - 1 : 0;
    return best;
}

/* A line test in the after report. The line is its instructions, not its
 * text: the before line's instructions are followed through their identity
 * to wherever the after report maps them (a location fix moves :257 to :258,
 * and another instruction may now sit on :257), plus the instructions new in
 * the after report (matched from nothing) that it maps to the line. *sum:
 * their stall in the class; false (unknown, note says why) when there are none. */
static bool line_after(const acc_ctx *c, const char *src, const char *cls, double *sum, char *note, size_t cap)
{
    size_t on_line = 0, matched = 0, added = 0;
    const char *how = NULL;
    *sum = 0;
    for (size_t k = 0; k < c->rb->ninstructions; k++) {
        const fp_report_inst *i = &c->rb->instructions[k];
        if (!i->source || strcmp(i->source, src))
            continue;
        on_line++;
        if (c->m->b2a[k] == SIZE_MAX)
            continue;
        const fp_report_inst *j = &c->ra->instructions[c->m->b2a[k]];
        matched++;
        how = how ? how : c->m->how[k];
        if (cls && j->cls && !strcmp(j->cls, cls))
            *sum += (double)j->stall;
    }
    for (size_t k = 0; k < c->ra->ninstructions; k++) {
        const fp_report_inst *j = &c->ra->instructions[k];
        if (c->m->done_a[k] || !j->source || strcmp(j->source, src))
            continue;
        added++;
        if (cls && j->cls && !strcmp(j->cls, cls))
            *sum += (double)j->stall;
    }
    if (!matched && !added) {
        snprintf(note, cap, "no instruction maps to %s in the after report, and none of its %zu instructions "
                 "was found there by any identity", src, on_line);
        return false;
    }
    size_t nto = 0, others = 0;
    const char *to = matched ? busiest_dest(c, src, &nto, &others) : src;
    if (!to || !strcmp(to, src)) {
        snprintf(note, cap, "%s", c->unit);
        return true;
    }
    char from[512], dest[512], more[64] = "";
    innermost(src, from, sizeof from);
    innermost(to, dest, sizeof dest);
    if (others)
        snprintf(more, sizeof more, ", %zu to %zu other lines", matched - nto, others);
    snprintf(note, cap, "hot line moved %.200s -> %.200s (%zu of %zu instructions matched by %s%s); %s",
             base_name(from), base_name(dest), nto, on_line, how, more, c->unit);
    return true;
}

static const fp_report_class *class_in(const fp_report_doc *r, const char *cls)
{
    for (size_t i = 0; cls && i < r->nclasses; i++)
        if (r->classes[i].cls && !strcmp(r->classes[i].cls, cls))
            return &r->classes[i];
    return NULL;
}

/* What a signal needs (by its name's prefix, rules.c's signal table): the
 * reason a signal test is unknown when the after report lacks the value. */
static const struct {
    const char *prefix, *needs;
} SIGNAL_NEEDS[] = {
    {"counters.", "counters.json in the after bundle (`flyprof counters`)"},
    {"occupancy.", "register counts (kernel_trace.csv or capture.json)"},
    {"launch.", "a kernel_trace.csv row with the dispatch's grid"},
    {"sol.", "the launch and duration the speed of light needs"},
    {"trace.", "the trace figures (a report built from its dispatch)"},
    {"waits.", "the waitcnt producers of bubbles.json"},
};

static const char *signal_needs(const char *sig)
{
    for (size_t i = 0; sig && i < sizeof SIGNAL_NEEDS / sizeof SIGNAL_NEEDS[0]; i++)
        if (!strncmp(sig, SIGNAL_NEEDS[i].prefix, strlen(SIGNAL_NEEDS[i].prefix)))
            return SIGNAL_NEEDS[i].needs;
    return "the evidence the before report had";
}

static void check_acceptance(const fp_report_rec *rec, const acc_ctx *c, fp_diff_acceptance *o)
{
    const fp_report_acceptance *acc = &rec->acceptance;
    o->rule = fp_model_strdup(rec->rule);
    o->rank = rec->rank;
    o->test = fp_model_strdup(acc->text);
    const char *kind = acc->kind;
    o->kind = fp_model_strdup(kind);
    const char *verdict = "unknown";
    char note[512] = "";
    double before = acc->before, target = acc->target, after = NAN;
    bool cycles = kind && (!strcmp(kind, "class_exposed_drop") || !strcmp(kind, "line_stall_drop"));
    if (cycles) {
        before /= c->ub;
        target /= c->ub;
    }
    if (kind && !strcmp(kind, "class_exposed_drop")) {
        const fp_report_class *ca = class_in(c->ra, acc->cls);
        const char *metric = acc->metric;
        after = (!ca ? 0.0 : metric && !strcmp(metric, "exposed") ? opt0(ca->exposed) : (double)ca->cycles) / c->ua;
        snprintf(note, sizeof note, "%s", c->unit);
    } else if (kind && !strcmp(kind, "line_stall_drop")) {
        double sum;
        if (!acc->source)
            snprintf(note, sizeof note, "the test names no source line");
        else if (line_after(c, acc->source, acc->cls, &sum, note, sizeof note))
            after = sum / c->ua;
    } else if (kind && (!strcmp(kind, "signal_below") || !strcmp(kind, "signal_above"))) {
        const char *sig = acc->signal;
        double v;
        if (sig && fp_report_signal(c->ra, sig, &v)) {
            after = v;
            bool below = !strcmp(kind, "signal_below");
            verdict = (below ? v < target : v >= target) ? "met" : "not_met";
        } else {
            snprintf(note, sizeof note, "the after report has no value for %s: not measured without %s",
                     sig ? sig : "?", signal_needs(sig));
        }
    } else {
        snprintf(note, sizeof note, "unknown acceptance kind %s (written by another flyprof version?)",
                 kind ? kind : "null");
    }
    if (cycles && !isnan(after))
        verdict = after <= target ? "met" : "not_met";
    o->before = before;
    o->after = isnan(after) ? fp_optd_none() : fp_optd_of(after);
    o->target = target;
    o->verdict = fp_model_strdup(verdict);
    o->note = fp_model_strdup(note[0] ? note : NULL);
}

static void who(const fp_report_doc *r, fp_diff_who *o)
{
    o->kernel = fp_model_strdup(r->kernel);
    o->arch = fp_model_strdup(r->arch);
    o->dispatch = fp_model_strdup(r->dispatch.name);
    o->bound_type = fp_model_strdup(r->bound_type);
    o->headline = fp_model_strdup(r->headline);
}

void fp_diff_figures_of(const fp_report_doc *r, fp_diff_figures *f)
{
    memset(f, 0, sizeof *f);
    f->stall_pct = fp_optd_of(r->totals.stall_pct);
    f->exposed_pct = fp_optd_of(r->totals.exposed_pct);
    f->waves = r->totals.waves;
    f->latency = fp_optd_of((double)r->totals.latency);
    f->time_ns_per_call = r->workload.time_ns_per_call;
    f->classes = calloc(r->nclasses ? r->nclasses : 1, sizeof *f->classes);
    if (!f->classes)
        abort();
    for (size_t i = 0; i < r->nclasses; i++) {
        const fp_report_class *c = &r->classes[i];
        f->classes[i] = (fp_diff_item){c->cls, (double)c->cycles, opt0(c->exposed), c->pct};
    }
    f->nclasses = r->nclasses;
}

void fp_diff_figures_of_record(const fp_history_record *r, fp_diff_figures *f)
{
    memset(f, 0, sizeof *f);
    f->stall_pct = r->totals.stall_pct;
    f->exposed_pct = r->totals.exposed_pct;
    f->waves = r->totals.waves;
    f->latency = r->totals.latency;
    f->time_ns_per_call = r->workload.time_ns_per_call;
    f->classes = calloc(r->nclasses ? r->nclasses : 1, sizeof *f->classes);
    if (!f->classes)
        abort();
    for (size_t i = 0; i < r->nclasses; i++) {
        const fp_history_class *c = &r->classes[i];
        f->classes[i] = (fp_diff_item){c->cls, opt0(c->cycles), opt0(c->exposed), opt0(c->pct)};
    }
    f->nclasses = r->nclasses;
}

void fp_diff_figures_free(fp_diff_figures *f)
{
    free(f->classes);
    memset(f, 0, sizeof *f);
}

void fp_diff_noise_floor_of(fp_diff_noise_floor *o)
{
    o->stall_pct_points = FP_DIFF_NOISE_STALL_PTS;
    o->share_points = FP_DIFF_NOISE_SHARE_PTS;
    o->time_pct = FP_DIFF_NOISE_TIME_PCT;
    o->source = fp_model_strdup("docs/commands/diff.md: corpus flash_attn_func-small vs -small-after_loc_fix");
}

void fp_diff_totals_of(const fp_diff_figures *b, const fp_diff_figures *a, fp_diff_totals *o)
{
    double wb = fig_waves(b), wa = fig_waves(a);
    o->stall_pct = change_of(b->stall_pct, a->stall_pct);
    o->exposed_pct = change_of(b->exposed_pct, a->exposed_pct);
    o->waves = change_of(b->waves, a->waves);
    double lb = opt0(b->latency) / wb, la = opt0(a->latency) / wa;
    o->latency_per_wave = change_of(fp_optd_of(lb), fp_optd_of(la));
    o->time_ns_per_call = change_of(b->time_ns_per_call, a->time_ns_per_call);
}

void fp_diff_classes_of(const fp_diff_figures *b, const fp_diff_figures *a, fp_diff_row **rows, size_t *n)
{
    union_rows(b->classes, b->nclasses, a->classes, a->nclasses, fig_waves(b), fig_waves(a), false, 0, rows, n);
}

void fp_diff_verdict_of(const fp_diff_figures *b, const fp_diff_figures *a, fp_diff_verdict *v)
{
    /* duration when both sides measured it, else the stalled share */
    v->overall = "neutral";
    if (b->time_ns_per_call.known && a->time_ns_per_call.known && b->time_ns_per_call.v > 0) {
        double x = b->time_ns_per_call.v, y = a->time_ns_per_call.v;
        v->basis = "time_ns_per_call";
        v->delta = 100.0 * (y - x) / x;
        if (v->delta <= -FP_DIFF_NOISE_TIME_PCT)
            v->overall = "improved";
        else if (v->delta >= FP_DIFF_NOISE_TIME_PCT)
            v->overall = "regressed";
        snprintf(v->why, sizeof v->why, "duration per call %+.2f%% (noise floor +-%.1f%%)", fp_round(v->delta, 2),
                 FP_DIFF_NOISE_TIME_PCT);
    } else {
        v->basis = "stall_pct";
        v->delta = opt0(a->stall_pct) - opt0(b->stall_pct);
        if (v->delta <= -FP_DIFF_NOISE_STALL_PTS)
            v->overall = "improved";
        else if (v->delta >= FP_DIFF_NOISE_STALL_PTS)
            v->overall = "regressed";
        snprintf(v->why, sizeof v->why, "stalled share of latency %+.2f points (noise floor +-%.1f)",
                 fp_round(v->delta, 2), FP_DIFF_NOISE_STALL_PTS);
    }
}

void fp_diff_verdict_doc_of(const fp_diff_verdict *v, fp_diff_verdict_doc *o)
{
    o->overall = fp_model_strdup(v->overall);
    o->basis = fp_model_strdup(v->basis);
    o->delta = v->delta;
    o->why = fp_model_strdup(v->why);
    o->acceptance_met = fp_optd_none();
    o->acceptance_total = fp_optd_none();
}

/* The source lines of a report as comparison items. */
static fp_diff_item *line_items(const fp_report_doc *r)
{
    fp_diff_item *v = calloc(r->nlines ? r->nlines : 1, sizeof *v);
    if (!v)
        abort();
    for (size_t i = 0; i < r->nlines; i++)
        v[i] = (fp_diff_item){r->lines[i].source, r->lines[i].stall, r->lines[i].exposed, r->lines[i].pct};
    return v;
}

/* notes: reasons the comparison may mislead; cmd_diff also turns them into
 * envelope warnings and the table shows them first */
static void diff_notes(const fp_report_doc *rb, const fp_report_doc *ra, fp_diff_doc *d)
{
    char note[512];
    const char *kb = rb->kernel, *ka = ra->kernel;
    if (kb && ka && strcmp(kb, ka)) {
        snprintf(note, sizeof note, "different kernels (%.200s vs %.200s): the comparison may be meaningless", kb, ka);
        fp_model_push_str(&d->notes, &d->nnotes, note);
    }
    const char *ab = rb->arch, *aa = ra->arch;
    if (ab && aa && strcmp(ab, aa)) {
        snprintf(note, sizeof note, "different architectures (%.60s vs %.60s)", ab, aa);
        fp_model_push_str(&d->notes, &d->nnotes, note);
    }
    /* the duration verdict needs the same measure on both sides */
    fp_optd tb = rb->workload.time_ns_per_call, ta = ra->workload.time_ns_per_call;
    bool hb = tb.known && tb.v > 0, ha = ta.known && ta.v > 0;
    if (hb != ha) {
        snprintf(note, sizeof note,
                 "duration per call measured on the %s side only: the verdict uses the stalled share "
                 "(give both sides a kernel trace or counters for a duration verdict)",
                 hb ? "before" : "after");
        fp_model_push_str(&d->notes, &d->nnotes, note);
    }
}

/* Why the durations per call do not decide (notes, so also warnings), and
 * whether the exposed figures are comparable at all. */
static void time_notes(const fp_report_doc *rb, const fp_report_doc *ra, fp_diff_doc *d)
{
    bool both = rb->workload.time_ns_per_call.known && ra->workload.time_ns_per_call.known;
    bool tb = fp_diff_time_is_trace(rb), ta = fp_diff_time_is_trace(ra);
    if (both && d->work.time_void)
        fp_model_push_str(&d->notes, &d->nnotes,
                          "time comparison void: both durations come from the same kernel_trace.csv rows "
                          "(time.csv.rows_sha256), so they do not decide the verdict");
    else if (both && (tb || ta))
        fp_model_push_str(&d->notes, &d->nnotes,
                          tb && ta ? "both durations are traced wave spans (no kernel_trace.csv row matches the "
                                     "traced dispatch), samples like the waves' cycles: they do not decide the verdict"
                          : tb ? "the before duration is a traced wave span, the after one a measurement: they "
                                 "do not decide the verdict"
                               : "the after duration is a traced wave span, the before one a measurement: they "
                                 "do not decide the verdict");
    const char *hb = rb->totals.hidden_by, *ha = ra->totals.hidden_by;
    if ((hb || ha) && (!hb || !ha || strcmp(hb, ha)))
        fp_model_push_str(&d->notes, &d->nnotes,
                          "the reports split stall into exposed / hidden by different definitions (totals.hidden_by "
                          "differs): the exposed figures are not comparable; re-run flyprof report on the older side");
}

/* What the code identity means for reading the rest (notes, so also warnings). */
static void code_notes(fp_diff_doc *d)
{
    const char *id = d->code.identity;
    const fp_diff_ci *it = &d->work.per_iteration, *w = &d->work.per_wave;
    const char *ch = it->change ? it->change : w->change;
    if (!strcmp(id, "unchanged") && ch && (!strcmp(ch, "improved") || !strcmp(ch, "regressed")))
        fp_model_push_str(&d->notes, &d->nnotes,
                          "code unchanged, yet its cycles per unit of work moved beyond the waves' spread: the "
                          "environment differs (clocks, contention, input data, traced CU), not the kernel");
    else if (!strcmp(id, "operands_changed"))
        fp_model_push_str(&d->notes, &d->nnotes,
                          "same opcodes in the same order with other operands: probably another shape or "
                          "specialisation of the same kernel, not a code change; compare the same shape");
}

/* Class rows: the noise of each share from the waves' spread; with the same
 * code no share change is a change (it moves with what was sampled). */
static void class_noise(const fp_report_doc *rb, const fp_report_doc *ra, bool same, fp_diff_doc *d)
{
    for (size_t i = 0; i < d->nclasses; i++) {
        fp_diff_row *r = &d->classes[i];
        r->ci_points = fp_diff_share_ci(rb, ra, r->key);
        double m = fabs(r->delta.pct);
        r->significant = !same && (r->ci_points.known ? m > r->ci_points.v : m >= FP_DIFF_NOISE_SHARE_PTS);
    }
    for (size_t i = 0; same && i < d->lines.nrows; i++)
        d->lines.rows[i].significant = false; /* the rows show the mapping change */
}

/* The overall verdict of two reports: the duration per call when both sides
 * measured one from different CSVs; else cycles per main-loop iteration, else
 * per wave, each against its CI; else the stalled share (fp_diff_verdict_of). */
static void report_verdict(const fp_report_doc *rb, const fp_report_doc *ra, fp_diff_figures *fb,
                           fp_diff_figures *fa, fp_diff_doc *d)
{
    const fp_diff_work *w = &d->work;
    bool spans = fp_diff_time_is_trace(rb) || fp_diff_time_is_trace(ra);
    bool timed = fb->time_ns_per_call.known && fa->time_ns_per_call.known && !w->time_void && !spans;
    const fp_diff_ci *ci = NULL;
    const char *basis = NULL, *what = NULL;
    if (!timed && w->per_iteration.change)
        ci = &w->per_iteration, basis = "cycles_per_iteration", what = "cycles per main-loop iteration";
    else if (!timed && w->per_wave.change)
        ci = &w->per_wave, basis = "wave_cycles", what = "cycles per traced wave";
    fp_diff_verdict vd;
    char basis_why[256];
    if (ci) {
        vd.why[0] = 0; /* the document's why is written below */
        vd.overall = ci->change;
        vd.basis = basis;
        vd.delta = ci->delta_pct.v;
        if (ci->ci_low_pct.known)
            snprintf(basis_why, sizeof basis_why, "%s %+.2f%% (95%% CI %+.2f .. %+.2f%%, floor +-%.1f%%)", what,
                     fp_round(vd.delta, 2), fp_round(ci->ci_low_pct.v, 2), fp_round(ci->ci_high_pct.v, 2),
                     FP_DIFF_NOISE_TIME_PCT);
        else
            snprintf(basis_why, sizeof basis_why, "%s %+.2f%% (one wave on a side: no spread, floor +-%.1f%%)", what,
                     fp_round(vd.delta, 2), FP_DIFF_NOISE_TIME_PCT);
    } else {
        if (w->time_void || spans)
            fb->time_ns_per_call = fa->time_ns_per_call = fp_optd_none();
        fp_diff_verdict_of(fb, fa, &vd);
        snprintf(basis_why, sizeof basis_why, "%s", vd.why);
    }
    fp_diff_verdict_doc_of(&vd, &d->verdict);
    if (ci && ci->ci_low_pct.known) {
        d->verdict.ci_low = ci->ci_low_pct;
        d->verdict.ci_high = ci->ci_high_pct;
    }
    free(d->verdict.why);
    char work_why[160] = "";
    if (ci == &w->per_iteration && w->per_wave.delta_pct.known &&
        fabs(w->iterations_per_wave.after.v - w->iterations_per_wave.before.v) >= 0.005)
        snprintf(work_why, sizeof work_why, "; per wave %+.1f%%, as the traced waves ran %.2f -> %.2f iterations",
                 fp_round(w->per_wave.delta_pct.v, 1), fp_round(w->iterations_per_wave.before.v, 2),
                 fp_round(w->iterations_per_wave.after.v, 2));
    d->verdict.why = fp_model_printf("%s%s", basis_why, work_why);
}

void fp_diff_reports(const fp_report_doc *rb, const fp_report_doc *ra, fp_diff_doc *d)
{
    memset(d, 0, sizeof *d);
    fp_diff_figures fb, fa;
    fp_diff_figures_of(rb, &fb);
    fp_diff_figures_of(ra, &fa);
    double wb = fig_waves(&fb), wa = fig_waves(&fa);
    d->schema = 1;
    who(rb, &d->before);
    who(ra, &d->after);
    diff_notes(rb, ra, d);
    fp_diff_noise_floor_of(&d->noise_floor);
    fp_diff_totals_of(&fb, &fa, &d->totals);
    fp_diff_code_of(rb, ra, &d->code);
    bool same = !strcmp(d->code.identity, "unchanged");
    fp_diff_work_of(rb, ra, same, &d->work);
    time_notes(rb, ra, d);
    code_notes(d);
    fp_diff_classes_of(&fb, &fa, &d->classes, &d->nclasses);
    fp_diff_item *lb = line_items(rb), *la = line_items(ra);
    d->lines.total = (int64_t)union_rows(lb, rb->nlines, la, ra->nlines, wb, wa, true, FP_DIFF_MAX_ROWS,
                                         &d->lines.rows, &d->lines.nrows);
    free(lb);
    free(la);
    class_noise(rb, ra, same, d);
    match_state m;
    match_insts(rb, ra, wb, wa, &d->instructions, &m);

    /* cycle tests per main-loop iteration when both sides know it, else per wave */
    const fp_report_loop *llb = rb->work ? rb->work->main_loop : NULL, *lla = ra->work ? ra->work->main_loop : NULL;
    bool per_it = llb && lla && llb->iterations > 0 && lla->iterations > 0;
    acc_ctx ac = {rb, ra, &m, per_it ? (double)llb->iterations : wb, per_it ? (double)lla->iterations : wa,
                  per_it ? "per main-loop iteration" : "per traced wave"};
    size_t met = 0;
    for (size_t i = 0; i < rb->nrecs; i++) {
        fp_diff_acceptance *c = fp_model_push((void **)&d->acceptance, &d->nacceptance, sizeof *c);
        check_acceptance(&rb->recs[i], &ac, c);
        if (!strcmp(c->verdict, "met"))
            met++;
    }
    match_free(&m);

    report_verdict(rb, ra, &fb, &fa, d);
    d->verdict.acceptance_met = fp_optd_of((double)met);
    d->verdict.acceptance_total = fp_optd_of((double)d->nacceptance);
    fp_diff_figures_free(&fb);
    fp_diff_figures_free(&fa);
    /* a renderer of the struct sees the numbers of the file */
    fp_model_round(&fp_diff_schema, d);
}

/* Which verdicts pass which gate: one row per --fail-on value; any other
 * verdict trips it (a gate must not pass what it does not know). `check` (the
 * history engineer's command) calls fp_diff_gate too, so both gates agree. */
static const struct {
    const char *fail_on;
    const char *const passes[3]; /* NULL-terminated */
} GATES[] = {
    {"regressed", {"improved", "neutral", NULL}},
    {"any-change", {"neutral", NULL}},
};

const char *const fp_diff_fail_on_choices[] = {"regressed", "any-change", NULL};

/* Verdicts no gate passes or trips on: the comparison could not decide
 * (exit FP_INCONCLUSIVE, docs/exit-codes.md). */
static const char *const UNDECIDED[] = {"inconclusive", NULL};

int fp_diff_gate(const char *verdict, const char *fail_on)
{
    if (!fail_on)
        return 0;
    for (size_t g = 0; g < sizeof GATES / sizeof GATES[0]; g++) {
        if (strcmp(GATES[g].fail_on, fail_on))
            continue;
        for (const char *const *u = UNDECIDED; verdict && *u; u++)
            if (!strcmp(*u, verdict))
                return 2;
        for (const char *const *p = GATES[g].passes; verdict && *p; p++)
            if (!strcmp(*p, verdict))
                return 0;
        return 1;
    }
    return -1;
}

void fp_diff_table(const fp_diff_doc *d, fp_sb *out)
{
    const fp_diff_verdict_doc *v = &d->verdict;
    for (size_t i = 0; i < d->nnotes; i++)
        fp_sb_addf(out, "warning: %s\n", d->notes[i]);
    fp_sb_addf(out, "verdict: %s (%s)\n", v->overall ? v->overall : "?", v->why ? v->why : "");
    if (d->code.identity)
        fp_sb_addf(out, "code: %s\n", d->code.identity);
    if (d->work.why)
        fp_sb_addf(out, "work: %s\n", d->work.why);
    fp_sb_addf(out, "acceptance tests met: %.0f / %.0f\n\n", v->acceptance_met.v, v->acceptance_total.v);
    fp_sb_adds(out, "class            share before -> after (points)\n");
    for (size_t i = 0; i < d->nclasses; i++) {
        const fp_diff_row *it = &d->classes[i];
        fp_sb_pad_left(out, it->key ? it->key : "?", 17);
        fp_sb_addf(out, "%6.2f -> %6.2f (%+.2f", it->before ? it->before->pct : 0.0, it->after ? it->after->pct : 0.0,
                   it->delta.pct);
        if (it->ci_points.known)
            fp_sb_addf(out, " +-%.2f", it->ci_points.v);
        fp_sb_addf(out, ")%s\n", it->significant ? "  *" : "");
    }
    fp_sb_adds(out, "\nacceptance:\n");
    for (size_t i = 0; i < d->nacceptance; i++) {
        const fp_diff_acceptance *it = &d->acceptance[i];
        fp_sb_addf(out, "  [%s] %s: %s\n", it->verdict ? it->verdict : "?", it->rule ? it->rule : "?",
                   it->test ? it->test : "");
    }
}
