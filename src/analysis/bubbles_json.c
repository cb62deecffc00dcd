/*
 * bubbles_json.c - fp_bubbles -> bubbles.json, in ONE place, with the fixed key
 * order documented in docs/commands/bubbles.md. Lists are ranked with stable
 * sorts (ties keep code order) so the artifact is byte-for-byte reproducible.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bubbles_internal.h"
#include "flyprof/json.h"
#include "flyprof/satmath.h"

/* Every key below is a string literal: it is added without a copy
 * (cJSON_AddItemToObjectCS), one malloc + free less per field of an artifact
 * of ~30k nodes. Values as fp_json_add_*. */
static cJSON *must_item(cJSON *n)
{
    if (!n)
        abort();
    return n;
}

static cJSON *add_int(cJSON *o, const char *key, int64_t v)
{
    cJSON *n = fp_json_int(v);
    cJSON_AddItemToObjectCS(o, key, n);
    return n;
}

static cJSON *add_num(cJSON *o, const char *key, double v, int decimals)
{
    cJSON *n = must_item(cJSON_CreateNumber(fp_round(v, decimals)));
    cJSON_AddItemToObjectCS(o, key, n);
    return n;
}

static cJSON *add_str(cJSON *o, const char *key, const char *s)
{
    cJSON *n = must_item(s ? cJSON_CreateString(s) : cJSON_CreateNull());
    cJSON_AddItemToObjectCS(o, key, n);
    return n;
}

static cJSON *add_bool(cJSON *o, const char *key, int b)
{
    cJSON *n = must_item(cJSON_CreateBool(b));
    cJSON_AddItemToObjectCS(o, key, n);
    return n;
}

static const char *const RANK_NAMES[] = {"exposed", "stall", "latency"};

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? fp_round(100.0 * (double)part / (double)whole, 2) : 0.0;
}

/* ---- stable ranking helpers ---- */

typedef struct keyed {
    int64_t k1, k2;
    size_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 > y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 > y->k2 ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int64_t rank_key(fp_rank_by r, int64_t exposed, int64_t stall, int64_t latency)
{
    return r == FP_RANK_EXPOSED ? exposed : r == FP_RANK_STALL ? stall : latency;
}

size_t *fp_bubbles_hotspot_order(const fp_bubbles *b, size_t *n)
{
    keyed *v = malloc((b->code.n + 1) * sizeof *v);
    if (!v)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < b->code.n; i++) {
        const fp_inst *r = &b->code.rows[i];
        if (!r->index_ok || r->isa[0] == ';' || r->stall <= 0)
            continue;
        v[k++] = (keyed){rank_key(b->rank_by, b->insts[i].exposed, r->stall, r->latency), r->stall, i};
    }
    qsort(v, k, sizeof *v, cmp_keyed);
    size_t *out = malloc((k + 1) * sizeof *out);
    if (!out)
        abort();
    for (size_t i = 0; i < k; i++)
        out[i] = v[i].i;
    free(v);
    *n = k;
    return out;
}

static int64_t hidden_of(int64_t wave_stall, int64_t exposed)
{
    return wave_stall > exposed ? wave_stall - exposed : 0;
}

static cJSON *cycles_obj(int64_t sum, int64_t count, int64_t mn, int64_t mx)
{
    cJSON *o = cJSON_CreateObject();
    add_num(o, "mean", count ? (double)sum / (double)count : 0.0, 1);
    add_int(o, "min", count ? mn : 0);
    add_int(o, "max", count ? mx : 0);
    return o;
}

static const char *evidence(int64_t count, int64_t inferred)
{
    return inferred == 0 ? "decoder" : inferred == count ? "inferred" : "mixed";
}

/* waits_on of one wait row: its pairs, most frequent first. */
static cJSON *waits_on(const fp_bubbles *b, size_t row)
{
    cJSON *a = cJSON_CreateArray();
    keyed *v = malloc((b->n_pairs + 1) * sizeof *v);
    if (!v)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < b->n_pairs; i++)
        if ((size_t)b->pairs[i].wait_line == row)
            v[k++] = (keyed){b->pairs[i].count, (int64_t)b->pairs[i].stall_share, i};
    qsort(v, k, sizeof *v, cmp_keyed);
    for (size_t q = 0; q < k; q++) {
        const fp_bub_pair *p = &b->pairs[v[q].i];
        const fp_inst *pr = &b->code.rows[p->prod_line];
        cJSON *o = cJSON_CreateObject();
        add_int(o, "code_line", pr->index);
        add_str(o, "inst", pr->isa);
        add_str(o, "source", pr->source);
        add_int(o, "count", p->count);
        cJSON_AddItemToObjectCS(o, "load_to_use_cycles", cycles_obj(p->cycles_sum, p->count, p->cycles_min, p->cycles_max));
        add_num(o, "distance_mean", p->count ? (double)p->distance_sum / (double)p->count : 0.0, 1);
        add_num(o, "stall_share", p->stall_share, 1);
        add_str(o, "evidence", evidence(p->count, p->count_inferred));
        cJSON_AddItemToArray(a, o);
    }
    free(v);
    return a;
}

/* How many of n ranked entries a list shows: the builders below stop there, so
 * the envelope's bounded document never builds (and frees) the entries it
 * would cut. */
static size_t shown(size_t n, size_t limit) { return limit && n > limit ? limit : n; }

/* arr holds the first shown(total, limit) of total entries. */
static void add_limited(cJSON *parent, const char *key, cJSON *arr, size_t total, size_t limit, cJSON **cut)
{
    if (limit && total > limit) {
        if (cut) {
            if (!*cut)
                *cut = cJSON_CreateObject();
            fp_json_add_int(*cut, key, (int64_t)total);
        }
    }
    cJSON_AddItemToObject(parent, key, arr);
}

static cJSON *totals_json(const fp_bubbles *b)
{
    cJSON *t = cJSON_CreateObject();
    add_int(t, "instructions", (int64_t)b->n_rows_counted);
    add_int(t, "latency", b->t_latency);
    add_int(t, "stall", b->t_stall);
    add_int(t, "idle", b->t_idle);
    bool ov = false; /* already warned by the analysis (b->overflow) */
    add_int(t, "issue", fp_sat_sub(b->t_latency, b->t_stall, &ov));
    add_int(t, "hit", b->t_hit);
    add_num(t, "stall_pct", pct(b->t_stall, b->t_latency), 2);
    add_int(t, "waves", (int64_t)b->waves_read);
    add_int(t, "wave_records", b->w_records);
    add_int(t, "wave_stall", b->w_stall);
    add_int(t, "exposed", b->w_exposed);
    add_int(t, "hidden", hidden_of(b->w_stall, b->w_exposed));
    add_num(t, "exposed_pct", pct(b->w_exposed, b->w_stall), 2);
    return t;
}

static cJSON *states_json(const fp_bubbles *b)
{
    static const char *const names[FP_WS_COUNT] = {"empty", "idle", "exec", "wait", "stall"};
    static const int order[] = {FP_WS_EXEC, FP_WS_WAIT, FP_WS_STALL, FP_WS_IDLE};
    cJSON *o = cJSON_CreateObject();
    int64_t sum = 0;
    bool ov = false;
    for (int i = 0; i < 4; i++)
        sum = fp_sat_add(sum, b->state_cycles[order[i]], &ov);
    for (int i = 0; i < 4; i++)
        fp_json_add_int(o, names[order[i]], b->state_cycles[order[i]]);
    cJSON *p = cJSON_AddObjectToObject(o, "pct");
    for (int i = 0; i < 4; i++)
        fp_json_add_num(p, names[order[i]], pct(b->state_cycles[order[i]], sum), 2);
    cJSON *w = cJSON_AddObjectToObject(o, "wstates");
    add_bool(w, "available", b->wstates_available);
    bool agrees = b->wstates_available;
    for (int i = 0; i < 4; i++) {
        int s = order[i];
        fp_json_add_int(w, names[s], b->wstates_cycles[s]);
        /* in double: a saturated wstates integral must not wrap the difference */
        double d = (double)b->wstates_cycles[s] - (double)b->state_cycles[s];
        if (d < 0)
            d = -d;
        /* 1% tolerance: the step function merges equal timestamps */
        if (d * 100 > (double)(b->state_cycles[s] > 0 ? b->state_cycles[s] : 1))
            agrees = false;
    }
    add_bool(w, "agrees", agrees);
    return o;
}

static cJSON *classes_json(const fp_bubbles *b)
{
    keyed v[FP_CL_COUNT];
    size_t k = 0;
    for (int c = 0; c < FP_CL_COUNT; c++)
        if (b->classes[c].cycles > 0 || b->classes[c].wave_stall > 0)
            v[k++] = (keyed){b->classes[c].cycles, b->classes[c].wave_stall, (size_t)c};
    qsort(v, k, sizeof *v, cmp_keyed);
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < k; i++) {
        const fp_bub_class *c = &b->classes[v[i].i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "class", fp_class_name((fp_class)v[i].i));
        add_int(o, "rank", (int64_t)i + 1);
        add_int(o, "cycles", c->cycles);
        add_num(o, "pct", pct(c->cycles, b->t_stall), 2);
        add_bool(o, "is_bubble", fp_class_is_bubble((fp_class)v[i].i));
        add_int(o, "exposed", c->exposed);
        add_int(o, "hidden", hidden_of(c->wave_stall, c->exposed));
        add_num(o, "gain_upper_pct", fp_bubbles_gain_pct(b, c->wall), 2);
        add_int(o, "instructions", c->static_count);
        add_int(o, "hit", c->hit);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *hotspots_json(const fp_bubbles *b, size_t limit, size_t *total)
{
    size_t n;
    size_t *ord = fp_bubbles_hotspot_order(b, &n);
    *total = n;
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < shown(n, limit); i++) {
        size_t row = ord[i];
        const fp_inst *r = &b->code.rows[row];
        const fp_bub_inst *x = &b->insts[row];
        cJSON *o = cJSON_CreateObject();
        char addr[32];
        snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)r->vaddr);
        add_int(o, "rank", (int64_t)i + 1);
        add_int(o, "code_line", r->index);
        add_str(o, "addr", addr);
        add_str(o, "inst", r->isa);
        add_str(o, "class", fp_class_name(x->cls));
        add_bool(o, "is_bubble", fp_class_is_bubble(x->cls));
        add_str(o, "source", r->source);
        add_int(o, "hit", r->hit);
        add_int(o, "latency", r->latency);
        add_int(o, "stall", r->stall);
        add_int(o, "idle", r->idle);
        add_int(o, "exposed", x->exposed);
        add_int(o, "hidden", hidden_of(x->w_stall, x->exposed));
        add_num(o, "stall_pct", pct(r->stall, r->latency), 2);
        add_num(o, "share_pct", pct(r->stall, b->t_stall), 2);
        add_num(o, "gain_upper_pct", fp_bubbles_gain_pct(b, x->wall), 2);
        cJSON_AddItemToObjectCS(o, "waits_on", waits_on(b, row));
        cJSON_AddItemToArray(a, o);
    }
    free(ord);
    return a;
}

static cJSON *lines_json(const fp_bubbles *b, size_t limit, size_t *total)
{
    keyed *v = malloc((b->n_lines + 1) * sizeof *v);
    if (!v)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < b->n_lines; i++) {
        const fp_bub_line *L = &b->lines[i];
        if (L->stall > 0)
            v[k++] = (keyed){rank_key(b->rank_by, L->exposed, L->stall, L->latency), L->stall, i};
    }
    qsort(v, k, sizeof *v, cmp_keyed);
    *total = k;
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < shown(k, limit); i++) {
        const fp_bub_line *L = &b->lines[v[i].i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "source", L->source);
        add_str(o, "file", L->file);
        if (L->line >= 0)
            add_int(o, "line", L->line);
        else
            cJSON_AddNullToObject(o, "line");
        add_int(o, "stall", L->stall);
        add_num(o, "pct", pct(L->stall, b->t_stall), 2);
        add_int(o, "exposed", L->exposed);
        add_int(o, "hidden", hidden_of(L->wave_stall, L->exposed));
        add_int(o, "latency", L->latency);
        add_int(o, "hit", L->hit);
        int best = 0;
        for (int c = 1; c < FP_CL_COUNT; c++)
            if (L->class_cycles[c] > L->class_cycles[best])
                best = c;
        add_str(o, "dom_class", fp_class_name((fp_class)best));
        add_num(o, "gain_upper_pct", fp_bubbles_gain_pct(b, L->wall), 2);
        add_int(o, "instructions", (int64_t)L->n_insts);
        cJSON_AddItemToArray(a, o);
    }
    free(v);
    return a;
}

static cJSON *files_json(const fp_bubbles *b, size_t limit, size_t *total)
{
    /* files in first-seen line order, then ranked by stall */
    typedef struct fagg {
        const char *file;
        int64_t stall, exposed, latency;
    } fagg;
    fagg *f = calloc(b->n_lines + 1, sizeof *f);
    if (!f)
        abort();
    size_t nf = 0;
    for (size_t i = 0; i < b->n_lines; i++) {
        const fp_bub_line *L = &b->lines[i];
        size_t j = 0;
        while (j < nf && strcmp(f[j].file, L->file))
            j++;
        if (j == nf)
            f[nf++].file = L->file;
        bool ov = false; /* saturation already warned by the analysis */
        f[j].stall = fp_sat_add(f[j].stall, L->stall, &ov);
        f[j].exposed = fp_sat_add(f[j].exposed, L->exposed, &ov);
        f[j].latency = fp_sat_add(f[j].latency, L->latency, &ov);
    }
    keyed *v = malloc((nf + 1) * sizeof *v);
    if (!v)
        abort();
    for (size_t i = 0; i < nf; i++)
        v[i] = (keyed){f[i].stall, f[i].latency, i};
    qsort(v, nf, sizeof *v, cmp_keyed);
    *total = nf;
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < shown(nf, limit); i++) {
        const fagg *x = &f[v[i].i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "file", x->file);
        add_int(o, "stall", x->stall);
        add_num(o, "pct", pct(x->stall, b->t_stall), 2);
        add_int(o, "exposed", x->exposed);
        add_int(o, "latency", x->latency);
        cJSON_AddItemToArray(a, o);
    }
    free(v);
    free(f);
    return a;
}

static cJSON *mix_json(const fp_bubbles *b)
{
    int64_t cnt[FP_CL_COUNT] = {0}, hit[FP_CL_COUNT] = {0}, tc = 0, th = 0;
    for (size_t i = 0; i < b->code.n; i++) {
        const fp_inst *r = &b->code.rows[i];
        if (!r->index_ok || r->isa[0] == ';')
            continue;
        fp_class c = b->insts[i].cls;
        cnt[c]++;
        bool ov = false; /* code.json hit cells are untrusted (warned by the analysis) */
        hit[c] = fp_sat_add(hit[c], r->hit, &ov);
        tc++;
        th = fp_sat_add(th, r->hit, &ov);
    }
    cJSON *o = cJSON_CreateObject();
    for (int pass = 0; pass < 2; pass++) {
        const int64_t *x = pass ? hit : cnt;
        int64_t tot = pass ? th : tc;
        keyed v[FP_CL_COUNT];
        size_t k = 0;
        for (int c = 0; c < FP_CL_COUNT; c++)
            if (x[c] > 0)
                v[k++] = (keyed){x[c], 0, (size_t)c};
        qsort(v, k, sizeof *v, cmp_keyed);
        cJSON *a = cJSON_AddArrayToObject(o, pass ? "dynamic" : "static");
        for (size_t i = 0; i < k; i++) {
            cJSON *e = cJSON_CreateObject();
            add_str(e, "class", fp_class_name((fp_class)v[i].i));
            fp_json_add_int(e, pass ? "hit" : "count", v[i].k1);
            add_num(e, "frac", tot ? fp_round((double)v[i].k1 / (double)tot, 4) : 0.0, 4);
            cJSON_AddItemToArray(a, e);
        }
    }
    return o;
}

typedef struct pagg {
    int64_t count, inferred, cyc_sum, cyc_min, cyc_max, dist_sum;
    double share;
    bool used;
} pagg;

static void pagg_add(pagg *a, const fp_bub_pair *p)
{
    if (!a->used) {
        a->cyc_min = INT64_MAX;
        a->cyc_max = INT64_MIN;
        a->used = true;
    }
    a->count += p->count;
    a->inferred += p->count_inferred;
    a->cyc_sum += p->cycles_sum;
    a->dist_sum += p->distance_sum;
    a->share += p->stall_share;
    if (p->cycles_min < a->cyc_min)
        a->cyc_min = p->cycles_min;
    if (p->cycles_max > a->cyc_max)
        a->cyc_max = p->cycles_max;
}

static cJSON *waitcnt_json(const fp_bubbles *b, size_t limit, cJSON **cut)
{
    cJSON *o = cJSON_CreateObject();
    int64_t inf = 0, all = 0;
    for (size_t i = 0; i < b->n_pairs; i++) {
        inf += b->pairs[i].count_inferred;
        all += b->pairs[i].count;
    }
    add_str(o, "evidence", all == 0 ? "none" : evidence(all, inf));
    add_int(o, "executions", b->waits_exec);
    add_int(o, "with_producers", b->waits_with_producers);
    add_int(o, "inferred", b->waits_inferred);
    add_int(o, "unmatched_entries", b->waits_unmatched_entries);
    add_int(o, "producer_missing", b->producer_missing);
    add_int(o, "producer_not_seen", b->producer_not_seen);

    pagg *pr = calloc(b->code.n + 1, sizeof *pr);
    pagg *pl = calloc(b->n_lines + 1, sizeof *pl);
    if (!pr || !pl)
        abort();
    for (size_t i = 0; i < b->n_pairs; i++) {
        const fp_bub_pair *p = &b->pairs[i];
        pagg_add(&pr[p->prod_line], p);
        int lid = b->insts[p->prod_line].line_id;
        if (lid >= 0)
            pagg_add(&pl[lid], p);
    }
    keyed *v = malloc((b->code.n + b->n_lines + 1) * sizeof *v);
    if (!v)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < b->code.n; i++)
        if (pr[i].used)
            v[k++] = (keyed){(int64_t)pr[i].share, pr[i].count, i};
    qsort(v, k, sizeof *v, cmp_keyed);
    cJSON *a = cJSON_CreateArray();
    for (size_t q = 0; q < shown(k, limit); q++) {
        size_t row = v[q].i;
        const pagg *g = &pr[row];
        const fp_inst *r = &b->code.rows[row];
        cJSON *e = cJSON_CreateObject();
        add_int(e, "code_line", r->index);
        add_str(e, "inst", r->isa);
        add_str(e, "source", r->source);
        add_str(e, "class", fp_class_name(b->insts[row].cls));
        add_int(e, "count", g->count);
        cJSON *w = cJSON_AddArrayToObject(e, "waits");
        for (size_t i = 0; i < b->n_pairs; i++)
            if ((size_t)b->pairs[i].prod_line == row)
                cJSON_AddItemToArray(w, fp_json_int(b->code.rows[b->pairs[i].wait_line].index));
        cJSON_AddItemToObjectCS(e, "load_to_use_cycles", cycles_obj(g->cyc_sum, g->count, g->cyc_min, g->cyc_max));
        add_num(e, "distance_mean", g->count ? (double)g->dist_sum / (double)g->count : 0.0, 1);
        add_num(e, "stall_share", g->share, 1);
        add_str(e, "evidence", evidence(g->count, g->inferred));
        cJSON_AddItemToArray(a, e);
    }
    add_limited(o, "producers", a, k, limit, cut);
    k = 0;
    for (size_t i = 0; i < b->n_lines; i++)
        if (pl[i].used)
            v[k++] = (keyed){(int64_t)pl[i].share, pl[i].count, i};
    qsort(v, k, sizeof *v, cmp_keyed);
    a = cJSON_CreateArray();
    for (size_t q = 0; q < shown(k, limit); q++) {
        const pagg *g = &pl[v[q].i];
        cJSON *e = cJSON_CreateObject();
        add_str(e, "source", b->lines[v[q].i].source);
        add_int(e, "count", g->count);
        add_num(e, "stall_share", g->share, 1);
        add_num(e, "load_to_use_mean", g->count ? (double)g->cyc_sum / (double)g->count : 0.0, 1);
        add_num(e, "distance_mean", g->count ? (double)g->dist_sum / (double)g->count : 0.0, 1);
        cJSON_AddItemToArray(a, e);
    }
    add_limited(o, "producer_lines", a, k, limit, NULL);
    free(v);
    free(pr);
    free(pl);
    return o;
}

static cJSON *simds_json(const fp_bubbles *b)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < b->n_simds; i++) {
        const fp_bub_simd *s = &b->simds[i];
        cJSON *o = cJSON_CreateObject();
        add_int(o, "se", s->se);
        add_int(o, "cu", s->cu);
        add_int(o, "simd", s->simd);
        add_int(o, "waves", (int64_t)s->waves);
        add_int(o, "span", s->end - s->begin);
        add_int(o, "issue", s->issue);
        add_int(o, "stall", s->stall);
        add_int(o, "exposed", s->exposed);
        add_int(o, "lost", s->wall);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *occupancy_json(const fp_bubbles *b)
{
    cJSON *o = cJSON_CreateObject();
    add_bool(o, "available", b->occ_available);
    add_int(o, "traced_waves", (int64_t)b->waves_read);
    cJSON *a = cJSON_AddArrayToObject(o, "per_se");
    for (size_t i = 0; i < b->n_occ; i++) {
        const fp_bub_occ_se *s = &b->occ[i];
        cJSON *e = cJSON_CreateObject();
        add_int(e, "se", s->se);
        size_t traced = 0;
        for (size_t k = 0; k < b->n_ses; k++)
            if (b->ses[k] == s->se)
                traced = b->ses_waves[k];
        add_int(e, "traced_waves", (int64_t)traced);
        add_int(e, "events", (int64_t)s->events);
        add_int(e, "peak", s->peak);
        add_num(e, "mean", s->mean, 2);
        add_int(e, "t0", s->t0);
        add_int(e, "t1", s->t1);
        cJSON *ot = cJSON_AddArrayToObject(e, "over_time");
        for (int q = 0; q < s->n_buckets; q++)
            cJSON_AddItemToArray(ot, cJSON_CreateNumber(fp_round(s->buckets[q], 2)));
        cJSON_AddItemToArray(a, e);
    }
    return o;
}

static cJSON *quality_json(const fp_bubbles *b)
{
    cJSON *o = cJSON_CreateObject();
    add_int(o, "waves_listed", (int64_t)b->waves_listed);
    add_int(o, "waves_read", (int64_t)b->waves_read);
    add_int(o, "waves_skipped", (int64_t)b->waves_skipped);
    cJSON *sk = cJSON_AddArrayToObject(o, "skipped");
    for (size_t i = 0; i < b->n_skipped_names; i++)
        cJSON_AddItemToArray(sk, cJSON_CreateString(b->skipped_names[i]));
    add_int(o, "waves_truncated", (int64_t)b->waves_truncated);
    add_bool(o, "filenames_json", b->filenames_json);
    add_int(o, "listed_missing", (int64_t)b->listed_missing);
    add_int(o, "unlisted", (int64_t)b->unlisted);
    int ses[64];
    size_t n = b->n_ses;
    memcpy(ses, b->ses, n * sizeof *ses);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && ses[j - 1] > ses[j]; j--) {
            int t = ses[j];
            ses[j] = ses[j - 1];
            ses[j - 1] = t;
        }
    cJSON *sa = cJSON_AddArrayToObject(o, "ses");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(sa, fp_json_int(ses[i]));
    int64_t mapped = 0;
    bool ov = false;
    for (size_t i = 0; i < b->n_lines; i++)
        mapped = fp_sat_add(mapped, b->lines[i].latency, &ov);
    add_num(o, "latency_mapped_pct", pct(mapped, b->t_latency), 2);
    add_int(o, "unknown_line_records", b->unknown_line_records);
    cJSON *cw = cJSON_AddObjectToObject(o, "code_vs_waves");
    add_int(cw, "hit_code", b->t_hit);
    add_int(cw, "hit_waves", b->w_records);
    add_int(cw, "stall_code", b->t_stall);
    add_int(cw, "stall_waves", b->w_stall);
    add_bool(cw, "agree", b->t_hit == b->w_records && b->t_stall == b->w_stall);
    cJSON_AddArrayToObject(o, "empty_shells"); /* filled by the command from the dispatch inventory */
    cJSON *dw = cJSON_AddArrayToObject(o, "decoder_warnings");
    for (size_t i = 0; i < b->n_decoder_warnings; i++)
        cJSON_AddItemToArray(dw, cJSON_CreateString(b->decoder_warnings[i]));
    add_str(o, "confidence", b->confidence ? b->confidence : "low");
    cJSON *r = cJSON_AddArrayToObject(o, "reasons");
    for (size_t i = 0; i < b->n_reasons; i++)
        cJSON_AddItemToArray(r, cJSON_CreateString(b->reasons[i]));
    return o;
}

cJSON *fp_bubbles_json(const fp_bubbles *b, size_t limit, cJSON **cut)
{
    if (cut)
        *cut = NULL;
    cJSON *j = cJSON_CreateObject();
    add_int(j, "schema", FP_BUBBLES_SCHEMA);
    cJSON *d = cJSON_AddObjectToObject(j, "dispatch");
    add_str(d, "dir", b->dispatch_dir);
    add_str(d, "name", b->dispatch_name);
    add_str(d, "symbol", b->symbol);
    add_str(j, "rank_by", RANK_NAMES[b->rank_by]);
    cJSON_AddItemToObjectCS(j, "totals", totals_json(b));
    cJSON_AddItemToObjectCS(j, "wave_states", states_json(b));
    cJSON_AddItemToObjectCS(j, "classes", classes_json(b));
    size_t total;
    cJSON *a = hotspots_json(b, limit, &total);
    add_limited(j, "hotspots", a, total, limit, cut);
    a = lines_json(b, limit, &total);
    add_limited(j, "lines", a, total, limit, cut);
    a = files_json(b, limit, &total);
    add_limited(j, "files", a, total, limit, cut);
    cJSON_AddItemToObjectCS(j, "inst_mix", mix_json(b));
    cJSON_AddItemToObjectCS(j, "waitcnt", waitcnt_json(b, limit, cut));
    cJSON_AddItemToObjectCS(j, "simds", simds_json(b));
    cJSON *g = cJSON_AddObjectToObject(j, "gain");
    add_int(g, "span_total", b->w_span);
    add_str(g, "formula",
                    "gain_upper_pct = 100 * lost / span_total; lost = SIMD cycles in which no wave issues and at "
                    "least one wave stalls on the class/instruction/line (counted once); span_total = sum over "
                    "traced SIMDs of (last wave end - first wave begin). See docs/exposed-stall.md");
    cJSON_AddItemToObjectCS(j, "occupancy", occupancy_json(b));
    cJSON_AddItemToObjectCS(j, "quality", quality_json(b));
    return j;
}
