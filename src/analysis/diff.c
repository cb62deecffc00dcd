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

#include "flyprof/json.h"


/* Traced waves of a report (cycle counts are compared per wave). */
static double waves_of(const cJSON *r)
{
    double w = fp_jnum0(fp_jget(r, "totals"), "waves");
    return w > 0 ? w : 1.0;
}

static cJSON *bad(const cJSON *a, const cJSON *b, const char *k, int dp)
{
    /* {before, after, delta} of a numeric field, nulls when absent */
    cJSON *o = cJSON_CreateObject();
    double x, y;
    bool hx = fp_jnum(a, k, &x), hy = fp_jnum(b, k, &y);
    if (hx)
        fp_json_add_num(o, "before", x, dp);
    else
        cJSON_AddNullToObject(o, "before");
    if (hy)
        fp_json_add_num(o, "after", y, dp);
    else
        cJSON_AddNullToObject(o, "after");
    if (hx && hy)
        fp_json_add_num(o, "delta", y - x, dp);
    else
        cJSON_AddNullToObject(o, "delta");
    return o;
}

/* ---- classes and lines: union by key ---- */

static const cJSON *find_by(const cJSON *arr, const char *key, const char *val)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *v = fp_json_get_str(it, key);
        if (v && !strcmp(v, val))
            return it;
    }
    return NULL;
}

typedef struct row {
    cJSON *obj;
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

/* One side of a class/line row: {stall, exposed, pct, stall_per_wave, exposed_per_wave}. */
static cJSON *side(const cJSON *e, const char *stall_key, double waves)
{
    if (!e)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    double st = fp_jnum0(e, stall_key), ex = fp_jnum0(e, "exposed");
    fp_json_add_num(o, "stall", st, 0);
    fp_json_add_num(o, "exposed", ex, 0);
    fp_json_add_num(o, "pct", fp_jnum0(e, "pct"), 2);
    fp_json_add_num(o, "stall_per_wave", st / waves, 1);
    fp_json_add_num(o, "exposed_per_wave", ex / waves, 1);
    return o;
}

static void add_union_row(row **rows, size_t *n, const char *keyname, const char *key, const cJSON *b,
                          const cJSON *a, const char *stall_key, double wb, double wa)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, keyname, key);
    cJSON_AddItemToObject(o, "before", side(b, stall_key, wb));
    cJSON_AddItemToObject(o, "after", side(a, stall_key, wa));
    double pb = b ? fp_jnum0(b, "pct") : 0, pa = a ? fp_jnum0(a, "pct") : 0;
    double sb = b ? fp_jnum0(b, stall_key) / wb : 0, sa = a ? fp_jnum0(a, stall_key) / wa : 0;
    double eb = b ? fp_jnum0(b, "exposed") / wb : 0, ea = a ? fp_jnum0(a, "exposed") / wa : 0;
    cJSON *d = cJSON_AddObjectToObject(o, "delta");
    fp_json_add_num(d, "pct", pa - pb, 2);
    fp_json_add_num(d, "stall_per_wave", sa - sb, 1);
    fp_json_add_num(d, "exposed_per_wave", ea - eb, 1);
    fp_json_add_bool(o, "significant", fabs(pa - pb) >= FP_DIFF_NOISE_SHARE_PTS);
    row *nr = realloc(*rows, (*n + 1) * sizeof *nr);
    if (!nr)
        abort();
    *rows = nr;
    nr[*n].obj = o;
    nr[*n].mag = fp_round(fabs(pa - pb), 2);
    nr[*n].order = *n;
    (*n)++;
}

/* Union of two arrays keyed by `keyname`; before's order first, then after-only rows. */
static cJSON *union_rows(const cJSON *ab, const cJSON *aa, const char *keyname, const char *stall_key, double wb,
                         double wa, bool sort, size_t cap, size_t *total)
{
    row *rows = NULL;
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, ab)
    {
        const char *k = fp_json_get_str(it, keyname);
        if (k)
            add_union_row(&rows, &n, keyname, k, it, find_by(aa, keyname, k), stall_key, wb, wa);
    }
    cJSON_ArrayForEach(it, aa)
    {
        const char *k = fp_json_get_str(it, keyname);
        if (k && !find_by(ab, keyname, k))
            add_union_row(&rows, &n, keyname, k, NULL, it, stall_key, wb, wa);
    }
    if (sort && n > 1)
        qsort(rows, n, sizeof *rows, row_cmp);
    cJSON *out = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        if (cap && i >= cap)
            cJSON_Delete(rows[i].obj);
        else
            cJSON_AddItemToArray(out, rows[i].obj);
    }
    *total = n;
    free(rows);
    return out;
}

/* ---- instructions keyed by (source, opcode, occurrence) ---- */

typedef struct ikey {
    char *key;
    const cJSON *inst;
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

/* Keys in code order: occurrence = how many earlier instructions share (source, opcode).
 * With use_source false the key is (opcode, occurrence) over the instructions
 * given (the fallback for instructions whose source location changed); skip
 * marks instructions already matched (may be NULL). */
static ikey *make_keys_ex(const cJSON *insts, bool use_source, const bool *skip, size_t *n)
{
    size_t cnt = (size_t)cJSON_GetArraySize(insts);
    ikey *k = calloc(cnt ? cnt : 1, sizeof *k);
    if (!k)
        abort();
    size_t i = 0, pos = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, insts)
    {
        size_t here = pos++;
        if (skip && skip[here])
            continue;
        char src[1024], op[128];
        if (use_source)
            innermost(fp_json_get_str(it, "source"), src, sizeof src);
        else
            src[0] = 0;
        opcode(fp_json_get_str(it, "inst"), op, sizeof op);
        size_t len = strlen(src) + strlen(op) + 3;
        k[i].key = malloc(len);
        if (!k[i].key)
            abort();
        snprintf(k[i].key, len, "%s\x1f%s", src, op);
        k[i].inst = it;
        k[i].order = here;
        i++;
    }
    *n = i;
    /* sort by (src, opcode, code order); the occurrence is the rank within equal keys */
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

static ikey *make_keys(const cJSON *insts, size_t *n) { return make_keys_ex(insts, true, NULL, n); }

static void free_keys(ikey *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i].key);
    free(k);
}

static cJSON *inst_side(const cJSON *i, double waves)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_num(o, "code_line", fp_jnum0(i, "code_line"), 0);
    fp_json_add_num(o, "stall", fp_jnum0(i, "stall"), 0);
    fp_json_add_num(o, "exposed", fp_jnum0(i, "exposed"), 0);
    fp_json_add_num(o, "stall_per_wave", fp_jnum0(i, "stall") / waves, 1);
    return o;
}

typedef struct match_state {
    row *rows;
    size_t n, matched, moved;
    bool *done_b, *done_a;
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
        const cJSON *b = kb[i].inst, *a = ka[j].inst;
        if (fp_jnum0(b, "code_line") != fp_jnum0(a, "code_line"))
            m->moved++;
        double d = fp_jnum0(a, "stall") / wa - fp_jnum0(b, "stall") / wb;
        if (d != 0) {
            cJSON *o = cJSON_CreateObject();
            char src[1024], op[128];
            innermost(fp_json_get_str(b, "source"), src, sizeof src);
            opcode(fp_json_get_str(b, "inst"), op, sizeof op);
            fp_json_add_str(o, "source", src);
            fp_json_add_str(o, "opcode", op);
            const char *occ = strrchr(kb[i].key, '\x1f');
            fp_json_add_int(o, "occurrence", occ ? atoll(occ + 1) : 0);
            fp_json_add_str(o, "matched_by", how);
            fp_json_add_str(o, "inst", fp_json_get_str(b, "inst"));
            cJSON_AddItemToObject(o, "before", inst_side(b, wb));
            cJSON_AddItemToObject(o, "after", inst_side(a, wa));
            fp_json_add_num(o, "delta_stall_per_wave", d, 1);
            row *nr = realloc(m->rows, (m->n + 1) * sizeof *nr);
            if (!nr)
                abort();
            m->rows = nr;
            m->rows[m->n].obj = o;
            m->rows[m->n].mag = fp_round(fabs(d), 1);
            m->rows[m->n].order = m->n;
            m->n++;
        }
        i++;
        j++;
    }
}

static cJSON *match_insts(const cJSON *rb, const cJSON *ra, double wb, double wa)
{
    const cJSON *ib = fp_jget(rb, "instructions"), *ia = fp_jget(ra, "instructions");
    size_t cb = (size_t)cJSON_GetArraySize(ib), ca = (size_t)cJSON_GetArraySize(ia);
    match_state m;
    memset(&m, 0, sizeof m);
    m.done_b = calloc(cb + 1, 1);
    m.done_a = calloc(ca + 1, 1);
    if (!m.done_b || !m.done_a)
        abort();
    size_t nb, na;
    ikey *kb = make_keys(ib, &nb), *ka = make_keys(ia, &na);
    merge_keys(&m, kb, nb, ka, na, wb, wa, "source+opcode+occurrence");
    size_t by_source = m.matched;
    free_keys(kb, nb);
    free_keys(ka, na);
    /* what is left had its source location changed: (opcode, occurrence) among the rest */
    kb = make_keys_ex(ib, false, m.done_b, &nb);
    ka = make_keys_ex(ia, false, m.done_a, &na);
    merge_keys(&m, kb, nb, ka, na, wb, wa, "opcode+occurrence (source changed)");
    free_keys(kb, nb);
    free_keys(ka, na);
    if (m.n > 1)
        qsort(m.rows, m.n, sizeof *m.rows, row_cmp);
    cJSON *o = cJSON_CreateObject();
    fp_json_add_int(o, "before", (int64_t)cb);
    fp_json_add_int(o, "after", (int64_t)ca);
    fp_json_add_int(o, "matched", (int64_t)m.matched);
    fp_json_add_int(o, "matched_by_source", (int64_t)by_source);
    fp_json_add_int(o, "moved", (int64_t)m.moved);
    fp_json_add_int(o, "unmatched_before", (int64_t)(cb - m.matched));
    fp_json_add_int(o, "unmatched_after", (int64_t)(ca - m.matched));
    fp_json_add_int(o, "changed", (int64_t)m.n);
    cJSON *ch = cJSON_AddArrayToObject(o, "top_changes");
    for (size_t k = 0; k < m.n; k++) {
        if (k < FP_DIFF_MAX_ROWS)
            cJSON_AddItemToArray(ch, m.rows[k].obj);
        else
            cJSON_Delete(m.rows[k].obj);
    }
    free(m.rows);
    free(m.done_b);
    free(m.done_a);
    return o;
}

/* ---- acceptance tests of the before report ---- */

static cJSON *check_acceptance(const cJSON *rec, const cJSON *rb, const cJSON *ra, double wb, double wa)
{
    const cJSON *acc = fp_jget(rec, "acceptance");
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "rule", fp_json_get_str(rec, "rule"));
    fp_json_add_num(o, "rank", fp_jnum0(rec, "rank"), 0);
    fp_json_add_str(o, "test", fp_json_get_str(acc, "text"));
    const char *kind = fp_json_get_str(acc, "kind");
    fp_json_add_str(o, "kind", kind);
    const char *verdict = "unknown";
    char note[256] = "";
    double before = fp_jnum0(acc, "before"), target = fp_jnum0(acc, "target"), after = NAN;
    if (kind && !strcmp(kind, "class_exposed_drop")) {
        const char *cls = fp_json_get_str(acc, "class"), *metric = fp_json_get_str(acc, "metric");
        const cJSON *ca = cls ? find_by(fp_jget(ra, "classes"), "class", cls) : NULL;
        double v = ca ? fp_jnum0(ca, metric && !strcmp(metric, "exposed") ? "exposed" : "cycles") : 0.0;
        before /= wb;
        target /= wb;
        after = v / wa;
        verdict = after <= target ? "met" : "not_met";
        snprintf(note, sizeof note, "per traced wave");
    } else if (kind && !strcmp(kind, "line_stall_drop")) {
        /* the class's stall summed over the after report's instructions on that line */
        const char *src = fp_json_get_str(acc, "source"), *cls = fp_json_get_str(acc, "class");
        double sum = 0;
        size_t seen = 0;
        const cJSON *i;
        cJSON_ArrayForEach(i, fp_jget(ra, "instructions"))
        {
            const char *s = fp_json_get_str(i, "source"), *c = fp_json_get_str(i, "class");
            if (src && s && !strcmp(s, src)) {
                seen++;
                if (cls && c && !strcmp(c, cls))
                    sum += fp_jnum0(i, "stall");
            }
        }
        before /= wb;
        target /= wb;
        if (seen) {
            after = sum / wa;
            verdict = after <= target ? "met" : "not_met";
            snprintf(note, sizeof note, "per traced wave");
        } else {
            /* the line vanished (code moved or source locations changed): undecidable */
            snprintf(note, sizeof note, "no instruction maps to %s in the after report", src ? src : "?");
        }
    } else if (kind && (!strcmp(kind, "signal_below") || !strcmp(kind, "signal_above"))) {
        const char *sig = fp_json_get_str(acc, "signal");
        double v;
        if (sig && fp_jnum(fp_jget(ra, "signals"), sig, &v)) {
            after = v;
            bool below = !strcmp(kind, "signal_below");
            verdict = (below ? v < target : v >= target) ? "met" : "not_met";
        } else {
            snprintf(note, sizeof note, "the after report has no value for %s", sig ? sig : "?");
        }
    } else {
        snprintf(note, sizeof note, "unknown acceptance kind");
    }
    fp_json_add_num(o, "before", before, 2);
    if (isnan(after))
        cJSON_AddNullToObject(o, "after");
    else
        fp_json_add_num(o, "after", after, 2);
    fp_json_add_num(o, "target", target, 2);
    fp_json_add_str(o, "verdict", verdict);
    fp_json_add_str(o, "note", note[0] ? note : NULL);
    return o;
}

static cJSON *who(const cJSON *r)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "kernel", fp_json_get_str(r, "kernel"));
    fp_json_add_str(o, "arch", fp_json_get_str(r, "arch"));
    fp_json_add_str(o, "dispatch", fp_json_get_str(fp_jget(r, "dispatch"), "name"));
    fp_json_add_str(o, "bound_type", fp_json_get_str(r, "bound_type"));
    fp_json_add_str(o, "headline", fp_json_get_str(r, "headline"));
    return o;
}

fp_diff_figures fp_diff_figures_of(const cJSON *report)
{
    fp_diff_figures f = {fp_jget(report, "totals"), fp_jget(report, "workload"), fp_jget(report, "classes")};
    return f;
}

cJSON *fp_diff_noise_floor_json(void)
{
    cJSON *floor = cJSON_CreateObject();
    fp_json_add_num(floor, "stall_pct_points", FP_DIFF_NOISE_STALL_PTS, 2);
    fp_json_add_num(floor, "share_points", FP_DIFF_NOISE_SHARE_PTS, 2);
    fp_json_add_num(floor, "time_pct", FP_DIFF_NOISE_TIME_PCT, 2);
    fp_json_add_str(floor, "source", "docs/commands/diff.md: corpus flash_attn_func-small vs -small-after_loc_fix");
    return floor;
}

/* Traced waves of one side (cycle counts are compared per wave). */
static double fig_waves(const fp_diff_figures *f)
{
    double w = fp_jnum0(f->totals, "waves");
    return w > 0 ? w : 1.0;
}

cJSON *fp_diff_totals_json(const fp_diff_figures *b, const fp_diff_figures *a)
{
    double wb = fig_waves(b), wa = fig_waves(a);
    const cJSON *tb = b->totals, *ta = a->totals;
    cJSON *tot = cJSON_CreateObject();
    cJSON_AddItemToObject(tot, "stall_pct", bad(tb, ta, "stall_pct", 2));
    cJSON_AddItemToObject(tot, "exposed_pct", bad(tb, ta, "exposed_pct", 2));
    cJSON_AddItemToObject(tot, "waves", bad(tb, ta, "waves", 0));
    cJSON *lpw = cJSON_AddObjectToObject(tot, "latency_per_wave");
    double lb = fp_jnum0(tb, "latency") / wb, la = fp_jnum0(ta, "latency") / wa;
    fp_json_add_num(lpw, "before", lb, 1);
    fp_json_add_num(lpw, "after", la, 1);
    fp_json_add_num(lpw, "delta", la - lb, 1);
    cJSON_AddItemToObject(tot, "time_ns_per_call", bad(b->workload, a->workload, "time_ns_per_call", 1));
    return tot;
}

cJSON *fp_diff_classes_json(const fp_diff_figures *b, const fp_diff_figures *a)
{
    size_t total;
    return union_rows(b->classes, a->classes, "class", "cycles", fig_waves(b), fig_waves(a), false, 0, &total);
}

void fp_diff_verdict_of(const fp_diff_figures *b, const fp_diff_figures *a, fp_diff_verdict *v)
{
    /* duration when both sides measured it, else the stalled share */
    double x, y;
    v->overall = "neutral";
    if (fp_jnum(b->workload, "time_ns_per_call", &x) && fp_jnum(a->workload, "time_ns_per_call", &y) && x > 0) {
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
        v->delta = fp_jnum0(a->totals, "stall_pct") - fp_jnum0(b->totals, "stall_pct");
        if (v->delta <= -FP_DIFF_NOISE_STALL_PTS)
            v->overall = "improved";
        else if (v->delta >= FP_DIFF_NOISE_STALL_PTS)
            v->overall = "regressed";
        snprintf(v->why, sizeof v->why, "stalled share of latency %+.2f points (noise floor +-%.1f)",
                 fp_round(v->delta, 2), FP_DIFF_NOISE_STALL_PTS);
    }
}

cJSON *fp_diff_verdict_json(const fp_diff_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "overall", v->overall);
    fp_json_add_str(o, "basis", v->basis);
    fp_json_add_num(o, "delta", v->delta, 2);
    fp_json_add_str(o, "why", v->why);
    return o;
}

cJSON *fp_diff_reports(const cJSON *rb, const cJSON *ra)
{
    double wb = waves_of(rb), wa = waves_of(ra);
    fp_diff_figures fb = fp_diff_figures_of(rb), fa = fp_diff_figures_of(ra);
    cJSON *d = cJSON_CreateObject();
    fp_json_add_int(d, "schema", 1);
    cJSON_AddItemToObject(d, "before", who(rb));
    cJSON_AddItemToObject(d, "after", who(ra));
    /* notes: reasons the comparison may mislead; cmd_diff also turns them into
     * envelope warnings and the table shows them first */
    cJSON *notes = cJSON_CreateArray();
    char note[512];
    const char *kb = fp_json_get_str(rb, "kernel"), *ka = fp_json_get_str(ra, "kernel");
    if (kb && ka && strcmp(kb, ka)) {
        snprintf(note, sizeof note, "different kernels (%.200s vs %.200s): the comparison may be meaningless", kb, ka);
        cJSON_AddItemToArray(notes, cJSON_CreateString(note));
    }
    const char *ab = fp_json_get_str(rb, "arch"), *aa = fp_json_get_str(ra, "arch");
    if (ab && aa && strcmp(ab, aa)) {
        snprintf(note, sizeof note, "different architectures (%.60s vs %.60s)", ab, aa);
        cJSON_AddItemToArray(notes, cJSON_CreateString(note));
    }
    {
        /* the duration verdict needs the same measure on both sides */
        double tb0, ta0;
        bool hb = fp_jnum(fp_jget(rb, "workload"), "time_ns_per_call", &tb0) && tb0 > 0;
        bool ha = fp_jnum(fp_jget(ra, "workload"), "time_ns_per_call", &ta0) && ta0 > 0;
        if (hb != ha) {
            snprintf(note, sizeof note,
                     "duration per call measured on the %s side only: the verdict uses the stalled share "
                     "(give both sides a kernel trace or counters for a duration verdict)",
                     hb ? "before" : "after");
            cJSON_AddItemToArray(notes, cJSON_CreateString(note));
        }
    }

    cJSON_AddItemToObject(d, "noise_floor", fp_diff_noise_floor_json());
    cJSON_AddItemToObject(d, "totals", fp_diff_totals_json(&fb, &fa));
    cJSON_AddItemToObject(d, "classes", fp_diff_classes_json(&fb, &fa));
    size_t total;
    cJSON *lines = union_rows(fp_jget(rb, "lines"), fp_jget(ra, "lines"), "source", "stall", wb, wa, true, FP_DIFF_MAX_ROWS,
                              &total);
    cJSON *ls = cJSON_AddObjectToObject(d, "lines");
    fp_json_add_int(ls, "total", (int64_t)total);
    cJSON_AddItemToObject(ls, "rows", lines);
    cJSON_AddItemToObject(d, "instructions", match_insts(rb, ra, wb, wa));

    cJSON *acc = cJSON_AddArrayToObject(d, "acceptance");
    const cJSON *rec;
    size_t met = 0, nacc = 0;
    cJSON_ArrayForEach(rec, fp_jget(rb, "recommendations"))
    {
        cJSON *c = check_acceptance(rec, rb, ra, wb, wa);
        nacc++;
        if (!strcmp(fp_json_get_str(c, "verdict"), "met"))
            met++;
        cJSON_AddItemToArray(acc, c);
    }

    fp_diff_verdict vd;
    fp_diff_verdict_of(&fb, &fa, &vd);
    cJSON *v = fp_diff_verdict_json(&vd);
    fp_json_add_int(v, "acceptance_met", (int64_t)met);
    fp_json_add_int(v, "acceptance_total", (int64_t)nacc);
    cJSON_AddItemToObject(d, "verdict", v);
    cJSON_AddItemToObject(d, "notes", notes);
    return d;
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

int fp_diff_gate(const char *verdict, const char *fail_on)
{
    if (!fail_on)
        return 0;
    for (size_t g = 0; g < sizeof GATES / sizeof GATES[0]; g++) {
        if (strcmp(GATES[g].fail_on, fail_on))
            continue;
        for (const char *const *p = GATES[g].passes; verdict && *p; p++)
            if (!strcmp(*p, verdict))
                return 0;
        return 1;
    }
    return -1;
}

void fp_diff_table(const cJSON *d, fp_sb *out)
{
    const cJSON *v = fp_jget(d, "verdict"), *it;
    cJSON_ArrayForEach(it, fp_jget(d, "notes"))
        if (cJSON_IsString(it))
            fp_sb_addf(out, "warning: %s\n", it->valuestring);
    fp_sb_addf(out, "verdict: %s (%s)\n", fp_json_get_str(v, "overall") ? fp_json_get_str(v, "overall") : "?", fp_json_get_str(v, "why") ? fp_json_get_str(v, "why") : "");
    fp_sb_addf(out, "acceptance tests met: %.0f / %.0f\n\n", fp_jnum0(v, "acceptance_met"), fp_jnum0(v, "acceptance_total"));
    fp_sb_adds(out, "class            share before -> after (points)\n");
    cJSON_ArrayForEach(it, fp_jget(d, "classes"))
    {
        const cJSON *b = fp_jget(it, "before"), *a = fp_jget(it, "after");
        fp_sb_pad_left(out, fp_json_get_str(it, "class") ? fp_json_get_str(it, "class") : "?", 17);
        fp_sb_addf(out, "%6.2f -> %6.2f (%+.2f)%s\n", cJSON_IsObject(b) ? fp_jnum0(b, "pct") : 0.0,
                   cJSON_IsObject(a) ? fp_jnum0(a, "pct") : 0.0, fp_jnum0(fp_jget(it, "delta"), "pct"),
                   cJSON_IsTrue(fp_jget(it, "significant")) ? "  *" : "");
    }
    fp_sb_adds(out, "\nacceptance:\n");
    cJSON_ArrayForEach(it, fp_jget(d, "acceptance"))
        fp_sb_addf(out, "  [%s] %s: %s\n", fp_json_get_str(it, "verdict") ? fp_json_get_str(it, "verdict") : "?",
                   fp_json_get_str(it, "rule") ? fp_json_get_str(it, "rule") : "?", fp_json_get_str(it, "test") ? fp_json_get_str(it, "test") : "");
}
