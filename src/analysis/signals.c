/*
 * signals.c - gathering the rules' evidence from the bundle's artifacts
 * (see signals.h). Each adapter reads one artifact's schema (bubbles.json:
 * docs/commands/bubbles.md; counters.json / tile.json: docs/commands/counters.md,
 * tile.md; capture.json: docs/bundle.md) and nothing else, so a schema change
 * touches one function. Absent keys stay unknown; present keys of the wrong
 * type are BAD_INPUT naming the artifact and the key.
 */
#include "flyprof/signals.h"
#include "flyprof/satmath.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/counters_doc.h"
#include "flyprof/round.h"
#include "flyprof/occupancy.h"
#include "flyprof/soc.h"
#include "flyprof/taxonomy.h"

/* Capture quality -> confidence multiplier (bubbles.json quality.confidence). */
#define FP_QUALITY_HIGH 1.0
#define FP_QUALITY_MEDIUM 0.8
#define FP_QUALITY_LOW 0.6

static char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = xstrdup(s);
}

static fp_optd some(double v)
{
    fp_optd o = {true, v};
    return o;
}

void fp_signals_init(fp_signals *s)
{
    memset(s, 0, sizeof *s);
    s->capture_confidence = 1.0;
    s->representative = true;
    s->lds_used = -1;
    fp_bound_in_init(&s->bound_in);
}

static void hot_free(fp_sig_hot *h)
{
    free(h->isa);
    free(h->source);
    free(h->snippet);
    for (size_t i = 0; i < h->nproducers; i++) {
        free(h->producers[i].isa);
        free(h->producers[i].source);
        free(h->producers[i].cls);
    }
}

void fp_signals_free(fp_signals *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nclasses; i++) {
        free(s->classes[i].name);
        hot_free(&s->classes[i].hot);
        for (int g = 0; g < FP_PROD_COUNT; g++)
            hot_free(&s->classes[i].hot_prod[g]);
    }
    free(s->classes);
    free(s->kernel);
    free(s->arch);
    free(s->partition);
    free(s->memory_partition);
    free(s->product);
    free(s->dispatch_dir);
    free(s->occ_limiter);
    free(s->occ_source);
    free(s->shape);
    free(s->invocation);
    free(s->recipe_kernel);
    free(s->tile_text);
    for (size_t i = 0; i < s->nquality_issues; i++)
        free(s->quality_issues[i]);
    free(s->quality_issues);
    for (size_t i = 0; i < s->nrepr_reasons; i++)
        free(s->repr_reasons[i]);
    free(s->repr_reasons);
    free(s->launch_reason);
    hot_free(&s->narrow_hot);
    free(s->dbg.line);
    fp_launch_facts_free(s);
    memset(s, 0, sizeof *s);
}

const fp_sig_class *fp_signals_class(const fp_signals *s, const char *name)
{
    for (size_t i = 0; name && i < s->nclasses; i++)
        if (!strcmp(s->classes[i].name, name))
            return &s->classes[i];
    return NULL;
}

fp_sig_class *fp_signals_class_add(fp_signals *s, const char *name)
{
    fp_sig_class *c = (fp_sig_class *)fp_signals_class(s, name);
    if (c)
        return c;
    fp_sig_class *n = realloc(s->classes, (s->nclasses + 1) * sizeof *n);
    if (!n)
        abort();
    s->classes = n;
    c = &s->classes[s->nclasses++];
    memset(c, 0, sizeof *c);
    c->name = xstrdup(name);
    c->is_bubble = fp_class_by_name(name) >= 0 && fp_class_is_bubble((fp_class)fp_class_by_name(name));
    return c;
}

static int class_cmp(const void *a, const void *b)
{
    const fp_sig_class *x = a, *y = b;
    if (x->stall != y->stall)
        return x->stall > y->stall ? -1 : 1;
    return strcmp(x->name, y->name);
}

void fp_signals_sort_classes(fp_signals *s)
{
    if (s->nclasses > 1)
        qsort(s->classes, s->nclasses, sizeof *s->classes, class_cmp);
}

/* ---- source text ---- */

/* The snapshot file and 1-based line a source location names ("file.py:LINE[ -> ...]"). */
static const fp_source_file *source_lookup(const fp_snapshots *snaps, const char *source, long *line_out)
{
    if (!snaps || !source || !*source)
        return NULL;
    /* innermost location: the text before the first " -> " */
    const char *arrow = strstr(source, " -> ");
    size_t n = arrow ? (size_t)(arrow - source) : strlen(source);
    char buf[4096];
    if (n >= sizeof buf)
        return NULL;
    memcpy(buf, source, n);
    buf[n] = 0;
    char *colon = strrchr(buf, ':');
    if (!colon)
        return NULL;
    *colon = 0;
    char *end;
    long line = strtol(colon + 1, &end, 10);
    if (*end || line <= 0)
        return NULL;
    const fp_source_file *f = fp_snapshots_find(snaps, buf);
    /* suffix match, as the seed analyzer does */
    for (size_t i = 0; i < snaps->n && !f; i++) {
        size_t lv = strlen(snaps->files[i].vpath), lb = strlen(buf);
        if ((lv >= lb && !strcmp(snaps->files[i].vpath + lv - lb, buf)) ||
            (lb >= lv && !strcmp(buf + lb - lv, snaps->files[i].vpath)))
            f = &snaps->files[i];
    }
    if (!f || (size_t)line > f->nlines)
        return NULL;
    *line_out = line;
    return f;
}

const char *fp_signals_source_text(const fp_snapshots *snaps, const char *source)
{
    long line = 0;
    const fp_source_file *f = source_lookup(snaps, source, &line);
    return f ? f->lines[line - 1] : NULL;
}

static const char *skip_blank(const char *t)
{
    while (t && (*t == ' ' || *t == '\t'))
        t++;
    return t;
}

bool fp_signals_is_entry_line(const fp_snapshots *snaps, const char *source)
{
    long line = 0;
    const fp_source_file *f = source_lookup(snaps, source, &line);
    const char *t = f ? skip_blank(f->lines[line - 1]) : NULL;
    if (!t)
        return false;
    if (*t == '@')
        return true;
    /* the `def` line of a decorated kernel is the same entry scope (a recapture
     * with shifted locations files the prologue there, seed pattern 5) */
    if (strncmp(t, "def ", 4) || line < 2)
        return false;
    const char *prev = skip_blank(f->lines[line - 2]);
    return prev && *prev == '@';
}

/* ---- typed JSON access ---- */

/* ---- bubbles.json ---- */

static void read_hot(fp_sig_hot *h, const fp_bub_doc_hotspot *hs)
{
    h->present = true;
    h->code_line = hs->code_line;
    h->hit = hs->hit;
    h->stall = hs->stall;
    h->exposed = some((double)hs->exposed);
    h->isa = xstrdup(hs->inst ? hs->inst : "");
    h->source = xstrdup(hs->source ? hs->source : "");
    for (size_t i = 0; i < hs->n_waits_on && h->nproducers < FP_SIG_MAX_PRODUCERS; i++) {
        const fp_bub_doc_wait *p = &hs->waits_on[i];
        fp_sig_producer *pr = &h->producers[h->nproducers];
        pr->code_line = p->code_line;
        pr->load_to_use = some(p->load_to_use_cycles.mean);
        pr->share = some(p->stall_share);
        pr->isa = xstrdup(p->inst ? p->inst : "");
        pr->source = xstrdup(p->source ? p->source : "");
        /* waits_on carries no class: the producer's opcode decides */
        pr->cls = xstrdup(p->inst ? fp_class_name(fp_classify(p->inst)) : "");
        h->nproducers++;
    }
}

/* ---- producer kinds ---- */

static const char *const prod_names[FP_PROD_COUNT] = {
    [FP_PROD_ANY] = "any",     [FP_PROD_LDS] = "lds",   [FP_PROD_SCRATCH] = "scratch",
    [FP_PROD_GLOBAL] = "global", [FP_PROD_SMEM] = "smem", [FP_PROD_FLAT] = "flat",
    [FP_PROD_XLANE] = "crosslane", [FP_PROD_SMEM_ENTRY] = "smem_entry",
};

const char *fp_prod_group_name(fp_prod_group g)
{
    return (unsigned)g < FP_PROD_COUNT ? prod_names[g] : "any";
}

/* The producer's kind: its class (taxonomy) decides, except that flat_* opcodes
 * are their own kind (they count on vmcnt AND lgkmcnt). Stores and anything else
 * a wait can name stay FP_PROD_ANY ("other"). */
fp_prod_group fp_prod_group_of(const char *isa, const char *cls)
{
    if (isa && !strncmp(isa, "flat_", 5))
        return FP_PROD_FLAT;
    if (fp_signals_is_crosslane(isa))
        return FP_PROD_XLANE;
    int k = cls && *cls ? fp_class_by_name(cls) : -1;
    if (k < 0 && isa)
        k = (int)fp_classify(isa);
    switch (k) {
    case FP_CL_LDS: return FP_PROD_LDS;
    case FP_CL_SCRATCH: return FP_PROD_SCRATCH;
    case FP_CL_VMEM_LOAD:
    case FP_CL_LDS_DMA: return FP_PROD_GLOBAL;
    case FP_CL_SMEM: return FP_PROD_SMEM;
    default: return FP_PROD_ANY;
    }
}

/* Split a wait over its producers' kinds: frac[g] = the producers of kind g's
 * stall share / all producers' (an equal split when shares are absent).
 * Returns false when the hotspot names no producer. */
/* A producer's kind in this kernel: a scalar load of the kernel-argument prologue
 * is its own kind (its wait cannot move). */
static fp_prod_group prod_kind(const fp_signals *s, const fp_bub_doc_wait *p)
{
    fp_prod_group g = fp_prod_group_of(p->inst, NULL);
    return g == FP_PROD_SMEM && fp_signals_is_entry_smem(s, p->code_line) ? FP_PROD_SMEM_ENTRY : g;
}

static bool prod_fracs(const fp_signals *s, const fp_bub_doc_hotspot *hs, double frac[FP_PROD_COUNT])
{
    for (int g = 0; g < FP_PROD_COUNT; g++)
        frac[g] = 0;
    double tot = 0, eq = 0;
    size_t n = hs->n_waits_on;
    /* waits_on carries no class: the producer's opcode decides (fp_prod_group_of) */
    for (size_t i = 0; i < n; i++) {
        const fp_bub_doc_wait *p = &hs->waits_on[i];
        double w = p->stall_share > 0 ? p->stall_share : 0;
        frac[prod_kind(s, p)] += w;
        tot += w;
    }
    if (n == 0)
        return false;
    if (tot <= 0) { /* no shares: every producer counts the same */
        for (size_t i = 0; i < n; i++) {
            frac[prod_kind(s, &hs->waits_on[i])] += 1;
            eq += 1;
        }
        tot = eq;
    }
    for (int g = 0; g < FP_PROD_COUNT; g++)
        frac[g] /= tot;
    return true;
}

/* Whether a hotspot waits mainly (>= half its stall) on producers of group g. */
static bool waits_on_group(const fp_signals *s, const fp_bub_doc_hotspot *hs, fp_prod_group g)
{
    double f[FP_PROD_COUNT];
    if (!prod_fracs(s, hs, f))
        return false;
    /* GLOBAL evidence also takes flat loads: both are global data a prefetch can hide */
    double v = f[g] + (g == FP_PROD_GLOBAL ? f[FP_PROD_FLAT] : 0);
    return v >= 0.5;
}

/* CU time: per (se, cu) the longest SIMD span, summed (the LDS is per CU) */
static void add_cu_cycles(fp_signals *s, const fp_bubbles_doc *b)
{
    size_t n = b->n_simds, k = 0;
    double *key = calloc(n ? n : 1, sizeof *key), *mx = calloc(n ? n : 1, sizeof *mx);
    if (!key || !mx)
        abort();
    for (size_t i = 0; i < n; i++) {
        const fp_bub_doc_simd *sd = &b->simds[i];
        double kk = (double)sd->se * 65536.0 + (double)sd->cu;
        size_t j = 0;
        while (j < k && key[j] != kk)
            j++;
        if (j == k)
            key[k++] = kk;
        if ((double)sd->span > mx[j])
            mx[j] = (double)sd->span;
    }
    for (size_t j = 0; j < k; j++)
        s->cu_cycles += mx[j];
    free(key);
    free(mx);
}

/* The stall and gain of each class's hotspots split over their producers' kinds. */
static void class_prod_split(fp_signals *s, const fp_bubbles_doc *b)
{
    for (size_t i = 0; i < b->n_hotspots; i++) {
        const fp_bub_doc_hotspot *c = &b->hotspots[i];
        fp_sig_class *sc = (fp_sig_class *)fp_signals_class(s, c->cls);
        if (!sc)
            continue;
        if (c->n_waits_on > 0)
            sc->has_producers = true;
        double frac[FP_PROD_COUNT];
        if (!prod_fracs(s, c, frac))
            continue;
        /* the wait's stall and gain split over its producers' kinds by their shares */
        for (int g = 0; g < FP_PROD_COUNT; g++) {
            double f = frac[g] + (g == FP_PROD_GLOBAL ? frac[FP_PROD_FLAT] : 0);
            sc->stall_prod[g] += (double)c->stall * frac[g];
            if (f <= 0 || g == FP_PROD_ANY)
                continue;
            fp_optd *acc = &sc->gain_prod_pct[g];
            *acc = some((acc->known ? acc->v : 0.0) + c->gain_upper_pct * f);
        }
    }
}

/* hottest instruction of each class: the first hotspot of that class in the
 * artifact's order (rank_by, exposed by default). Pass 0 skips hotspots on a
 * kernel entry/decorator line (seed pattern 5: the compiler files prologue and
 * address code there); pass 1 falls back to them. Then the class's stall on the
 * hot instruction's whole source line (acceptance tests name the line). */
static void class_hots(fp_signals *s, const fp_bubbles_doc *b)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < b->n_hotspots; i++) {
            const fp_bub_doc_hotspot *c = &b->hotspots[i];
            fp_sig_class *sc = (fp_sig_class *)fp_signals_class(s, c->cls);
            if (!sc)
                continue;
            bool entry = fp_signals_is_entry_line(s->snaps, c->source);
            if (pass == 0 && entry)
                continue;
            if (!sc->hot.present) {
                read_hot(&sc->hot, c);
                sc->hot.entry_line = entry;
            }
            for (int g = FP_PROD_ANY + 1; g < FP_PROD_COUNT; g++) {
                if (sc->hot_prod[g].present || !waits_on_group(s, c, (fp_prod_group)g))
                    continue;
                read_hot(&sc->hot_prod[g], c);
                sc->hot_prod[g].entry_line = entry;
            }
        }
    }
    for (size_t i = 0; i < b->n_hotspots; i++) {
        const fp_bub_doc_hotspot *c = &b->hotspots[i];
        const char *src = c->source;
        fp_sig_class *sc = src ? (fp_sig_class *)fp_signals_class(s, c->cls) : NULL;
        if (!sc)
            continue;
        if (sc->hot.present && !strcmp(sc->hot.source, src))
            sc->hot.line_class_stall += c->stall;
        for (int g = FP_PROD_ANY + 1; g < FP_PROD_COUNT; g++)
            if (sc->hot_prod[g].present && !strcmp(sc->hot_prod[g].source, src))
                sc->hot_prod[g].line_class_stall += c->stall;
    }
}

int fp_signals_from_bubbles(fp_signals *s, const fp_bubbles_doc *b, fp_err *err)
{
    const char *A = "bubbles.json";
    /* a class name is what a rule looks up: null ones are not evidence */
    for (size_t i = 0; i < b->n_classes; i++)
        if (!b->classes[i].cls)
            return fp_err_set(err, FP_BAD_INPUT, "%s: classes[] entries need a string 'class'", A);
    for (size_t i = 0; i < b->inst_mix.n_dyn; i++)
        if (!b->inst_mix.dyn[i].cls)
            return fp_err_set(err, FP_BAD_INPUT, "%s: inst_mix.dynamic[] entries need 'class' and 'frac'", A);
    for (size_t i = 0; i < b->n_hotspots; i++)
        if (!b->hotspots[i].cls)
            return fp_err_set(err, FP_BAD_INPUT, "%s: hotspots[] entries need a string 'class'", A);
    s->have_bubbles_json = true;
    const fp_bub_doc_totals *t = &b->totals;
    s->instructions = t->instructions;
    s->total_latency = t->latency;
    s->total_stall = t->stall;
    s->stall_pct = t->stall_pct;
    s->waves = some((double)t->waves);
    s->span_total = b->gain.span_total > 0 ? (double)b->gain.span_total : 0;
    add_cu_cycles(s, b);
    if (b->dispatch.dir)
        set_str(&s->dispatch_dir, b->dispatch.dir);
    if (b->dispatch.symbol && !s->kernel)
        set_str(&s->kernel, b->dispatch.symbol);
    fp_launch_facts_from_bubbles(s, b);

    for (size_t i = 0; i < b->n_classes; i++) {
        const fp_bub_doc_class *c = &b->classes[i];
        fp_sig_class *sc = fp_signals_class_add(s, c->cls);
        sc->stall = c->cycles;
        sc->stall_pct = c->pct;
        sc->exposed = some((double)c->exposed);
        sc->gain_pct = some(c->gain_upper_pct);
        sc->static_count = c->instructions;
        sc->is_bubble = c->is_bubble;
    }
    /* hit-weighted mix: every class that executed, stalled or not */
    for (size_t i = 0; i < b->inst_mix.n_dyn; i++) {
        const fp_bub_doc_mix *c = &b->inst_mix.dyn[i];
        fp_sig_class *sc = fp_signals_class_add(s, c->cls);
        sc->mix = some(c->frac);
        if (!strcmp(c->cls, "scratch"))
            s->scratch_insts = some((double)c->n);
    }
    if (!s->scratch_insts.known)
        s->scratch_insts = some(0); /* the mix is complete: no scratch executed */

    class_prod_split(s, b);
    class_hots(s, b);
    for (size_t i = 0; i < s->nclasses; i++)
        for (int g = FP_PROD_ANY + 1; g < FP_PROD_COUNT; g++)
            if (s->classes[i].gain_prod_pct[g].known)
                s->classes[i].gain_prod_pct[g].v = fp_round(s->classes[i].gain_prod_pct[g].v, 2);

    /* a load too close to its use: at the hottest vmcnt wait, the share of the
     * producer's measured load-to-use time the wave spent stalled */
    const fp_sig_class *vm = fp_signals_class(s, "vmcnt");
    if (vm && vm->hot.present && vm->hot.hit > 0 && vm->hot.nproducers > 0 && vm->hot.producers[0].load_to_use.known &&
        vm->hot.producers[0].load_to_use.v > 0) {
        double per_exec = (double)vm->hot.stall / (double)vm->hot.hit;
        double f = per_exec / vm->hot.producers[0].load_to_use.v;
        s->load_use_exposed = some(f > 1 ? 1 : f);
    }

    const char *conf = b->quality.confidence;
    if (conf) {
        double q = !strcmp(conf, "high") ? FP_QUALITY_HIGH : !strcmp(conf, "medium") ? FP_QUALITY_MEDIUM : FP_QUALITY_LOW;
        if (q < s->capture_confidence) /* capture.json may already have lowered it */
            s->capture_confidence = q;
    }
    for (size_t i = 0; i < b->quality.n_reasons; i++)
        if (b->quality.reasons[i])
            fp_model_push_str(&s->quality_issues, &s->nquality_issues, b->quality.reasons[i]);
    fp_signals_sort_classes(s);
    return 0;
}

/* ---- code.json: s_nop padding between MFMAs ---- */

static bool is_mfma(const char *isa) { return fp_classify(isa) == FP_CL_MFMA; }

void fp_signals_from_code(fp_signals *s, const fp_code *code)
{
    if (!code || code->n == 0)
        return;
    int64_t nop_lat = 0, total = 0;
    bool ovf = false; /* hostile cells saturate (bubbles warns about them) */
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!r->index_ok || r->index == 0)
            continue;
        total = fp_sat_add(total, r->latency, &ovf);
        if (fp_classify(r->isa) != FP_CL_NOP)
            continue;
        /* the padding sits between an MFMA and the next one (a run of s_nop counts whole) */
        size_t a = i, z = i;
        while (a > 0 && fp_classify(code->rows[a - 1].isa) == FP_CL_NOP)
            a--;
        while (z + 1 < code->n && fp_classify(code->rows[z + 1].isa) == FP_CL_NOP)
            z++;
        if (a > 0 && z + 1 < code->n && is_mfma(code->rows[a - 1].isa) && is_mfma(code->rows[z + 1].isa))
            nop_lat = fp_sat_add(nop_lat, r->latency, &ovf);
    }
    s->nop_mfma_pct = some(total > 0 ? fp_round(100.0 * (double)nop_lat / (double)total, 2) : 0.0);
    fp_signals_isa_facts(s, code);

    /* coverage and loops: what the traced waves actually executed */
    s->code = code;
    fp_launch_facts_from_code(s, code);
    int64_t entry_hit = -1, max_hit = 0, endpgm_lat = 0;
    bool have_endpgm = false;
    s->static_insts = s->executed_insts = 0;
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!r->index_ok || r->index == 0)
            continue;
        s->static_insts++;
        if (r->hit > 0)
            s->executed_insts++;
        if (entry_hit < 0)
            entry_hit = r->hit; /* the first instruction runs once per traced wave */
        if (r->hit > max_hit)
            max_hit = r->hit;
        if (fp_classify(r->isa) == FP_CL_DRAIN) {
            endpgm_lat = fp_sat_add(endpgm_lat, r->latency, &ovf);
            have_endpgm = true;
        }
    }
    /* loops (issue 23 item 6, loops.c): a back-edge whose body ran more than once;
     * exits to s_endpgm and spin-waits are not the kernel's loop */
    fp_loops_free(&s->loops);
    fp_loops_find(code, &s->loops);
    s->has_loop = s->loops.main >= 0;
    s->loop_executed = s->has_loop && s->loops.v[s->loops.main].kind == FP_LOOP_ITERATED;
    if (s->static_insts > 0)
        s->coverage_pct = some(fp_round(100.0 * (double)s->executed_insts / (double)s->static_insts, 2));
    s->loop_known = entry_hit > 0;
    (void)max_hit;
    if (have_endpgm) {
        s->drain_latency = some((double)endpgm_lat);
        s->drain_pct = some(total > 0 ? fp_round(100.0 * (double)endpgm_lat / (double)total, 2) : 0.0);
    }
}

/* ---- counters.json ---- */

/* counters.json "metrics" is {id: {value, unit, formula, ...}} (docs/commands/counters.md). */
static fp_optd metric(const fp_counters_doc *c, const char *id)
{
    const fp_cnt_metric *m = fp_counters_metric(c, id);
    return m ? some(m->value) : (fp_optd){0};
}

int fp_signals_from_counters(fp_signals *s, const fp_counters_doc *c, fp_err *err)
{
    (void)err; /* the strict reader (fp_counters_read_file) has checked every type */
    s->have_counters = true;
    fp_optd l2 = metric(c, "l2_hit_pct"), p32 = metric(c, "partial_32b_pct"),
            conf = metric(c, "lds_bank_conflict_pct"), mu = metric(c, "mfma_util_pct"),
            vu = metric(c, "valu_util_pct"), gbs = metric(c, "hbm_gbs"), roof = metric(c, "hbm_pct_of_peak"),
            of = metric(c, "over_fetch"), dur = c->duration_ns;
    if (c->soc.hbm_gbs.known)
        s->peak_gbs = c->soc.hbm_gbs;
    s->l2_hit = l2;
    if (p32.known)
        s->partial_32b = some(p32.v / 100.0);
    s->lds_conflict_pct = conf;
    if (mu.known)
        s->mfma_frac = some(mu.v / 100.0);
    s->achieved_gbs = gbs;
    s->pct_hbm_roof = roof;
    if (dur.known && dur.v > 0) {
        s->time_ns = dur;
        s->time_counters_ns = dur;
    }
    /* the same bound inputs `counters` gives the shared classification */
    if (roof.known)
        s->bound_in.hbm_pct_of_peak = fp_some(roof.v);
    if (mu.known)
        s->bound_in.mfma_util_pct = fp_some(mu.v);
    if (vu.known)
        s->bound_in.valu_util_pct = fp_some(vu.v);
    if (l2.known)
        s->bound_in.l2_hit_pct = fp_some(l2.v);
    if (p32.known)
        s->bound_in.partial_32b_pct = fp_some(p32.v);
    if (of.known)
        s->bound_in.over_fetch = fp_some(of.v);
    return 0;
}

/* ---- capture.json ---- */

static void opt_if(fp_optd *dst, fp_optd v)
{
    if (v.known)
        *dst = v;
}

int fp_signals_from_capture(fp_signals *s, const fp_capture_doc *c, const char *tag, fp_err *err)
{
    (void)err; /* the strict reader (fp_capture_read_file) has checked every type */
    s->have_capture = true;
    const fp_cap_workload *w = c->workload;
    const fp_cap_kernel *k = c->kernel;
    const char *recipe = w && w->recipe ? w->recipe->name : NULL;
    if (!recipe && w)
        recipe = w->recipe_kernel;
    if (k && k->kernel)
        set_str(&s->kernel, k->kernel);
    /* the name a user re-runs: what was asked, else the recipe's */
    if (c->requested_kernel || recipe)
        set_str(&s->recipe_kernel, c->requested_kernel ? c->requested_kernel : recipe);
    if (k && k->arch)
        set_str(&s->arch, k->arch);
    if (k && k->gpu && k->gpu->product)
        set_str(&s->product, k->gpu->product);
    /* issue 18 (capture): the traced agent's own CU count beats the product table's
     * (a CPX MI300X agent has 38 CUs, not 304); fp_signals_from_agent keeps it */
    if (k && k->gpu && k->gpu->cu_count.known && k->gpu->cu_count.v > 0)
        s->cus = (int)k->gpu->cu_count.v;
    /* and its XCDs, so a partitioned agent's trace is scaled to the agent (launch_facts.c) */
    if (k && k->gpu && k->gpu->num_xcc.known && k->gpu->num_xcc.v >= 1 && k->gpu->num_xcc.v <= 64)
        s->xcds = (int)k->gpu->num_xcc.v;
    /* and its partition modes: the HBM peak of a partition (sol.h fp_hbm_partition_peak) */
    if (k && k->gpu && k->gpu->partition)
        set_str(&s->partition, k->gpu->partition);
    if (k && k->gpu && k->gpu->memory_partition)
        set_str(&s->memory_partition, k->gpu->memory_partition);
    if (w && w->invocation)
        set_str(&s->invocation, w->invocation);
    if (w && w->shape)
        set_str(&s->shape, w->shape);
    if (k && k->avg_ns.known && k->avg_ns.v > 0) {
        s->time_ns = k->avg_ns;
        s->time_capture_ns = k->avg_ns;
    }
    const fp_cap_tag *t = fp_capture_tag_named(c, tag);
    if (!t)
        t = fp_capture_only_tag(c);
    if (!t)
        return 0;
    const fp_cap_inventoried *ti = t->done ? t->done->inventoried : NULL;
    const fp_cap_registers *rg = ti ? ti->registers : NULL;
    fp_optd none = {0};
    fp_optd av = ti && ti->vgpr ? ti->vgpr->arch_vgpr : none, acc = ti && ti->vgpr ? ti->vgpr->accum_vgpr : none;
    fp_optd total = rg && rg->occ ? rg->occ->total_vgpr : none;
    if (t->shape)
        set_str(&s->shape, t->shape);
    if (total.known && total.v > 0) {
        /* capture already combined (and gfx950-corrected) the allocation */
        s->arch_vgpr = total;
        s->accum_vgpr = some(0);
        set_str(&s->occ_source, "capture.json registers.total_vgpr");
    } else if (av.known) {
        s->arch_vgpr = av;
        s->accum_vgpr = acc.known ? acc : some(0);
        set_str(&s->occ_source, "capture.json");
    }
    if (rg) {
        opt_if(&s->lds_bytes, rg->lds_bytes);
        opt_if(&s->sgpr, rg->sgpr_count);
        if (rg->workgroup_size.known && rg->workgroup_size.v > 0)
            s->wg_size = rg->workgroup_size;
        opt_if(&s->scratch_size, rg->scratch_bytes);
    }
    if (t->done && t->done->truncated) {
        fp_model_push_str(&s->quality_issues, &s->nquality_issues,
                          "capture.json: the ATT buffer overflowed (trace truncated)");
        if (s->capture_confidence > 0.8)
            s->capture_confidence = 0.8;
    }
    /* issue 18 (capture): the decoder's "Data Lost" = packets dropped for bandwidth */
    if (t->done && t->done->quality && !strcmp(t->done->quality, "packets_dropped")) {
        fp_model_push_str(&s->quality_issues, &s->nquality_issues,
                          "capture.json: the trace decoder reported Data Lost (packets dropped for bandwidth: "
                          "stall and latency figures have gaps)");
        if (s->capture_confidence > 0.8)
            s->capture_confidence = 0.8;
    }
    fp_optd mapped = ti && ti->kept ? ti->kept->mapped_pct : none;
    if (mapped.known && mapped.v < 50) {
        char buf[128];
        snprintf(buf, sizeof buf, "capture.json: only %.1f%% of instructions map to a source line", mapped.v);
        fp_model_push_str(&s->quality_issues, &s->nquality_issues, buf);
    }
    return 0;
}

/* ---- map.json ---- */

int fp_signals_from_map(fp_signals *s, const fp_map_doc *m, fp_err *err)
{
    (void)err; /* the strict reader has checked every type */
    s->have_map_json = true;
    s->src_mapped_pct = fp_optd_of(m->src_mapped_pct);
    return 0;
}

/* ---- tile.json ---- */

int fp_signals_from_tile(fp_signals *s, const fp_tile_doc *t, fp_err *err)
{
    (void)err; /* the strict reader (fp_tile_read_file) has checked every type */
    s->have_tile = true;
    /* only the kernel's own tile ("evaluated" with explicit BM/BN/BK) is a fact
     * about this kernel; a recommendation is not */
    const fp_tile_doc_eval *ev = t->eval ? t->eval->evaluated : NULL;
    if (!ev)
        return 0;
    char buf[96];
    snprintf(buf, sizeof buf, "BM=%.0f BN=%.0f BK=%.0f", (double)ev->tile.BM, (double)ev->tile.BN,
             (double)ev->tile.BK);
    set_str(&s->tile_text, buf);
    if (ev->ridge_ai.known) {
        s->bound_in.ai = fp_some(ev->ai_tile);
        s->bound_in.ridge_ai = fp_some(ev->ridge_ai.v);
    }
    return 0;
}

/* ---- rocprofv3 agent info and kernel trace ---- */

void fp_signals_from_agent(fp_signals *s, const fp_soc_query *q)
{
    /* the product and arch come from the SoC table (soc.h), never assumed */
    fp_soc_sel sel;
    fp_err e2;
    memset(&e2, 0, sizeof e2);
    if (fp_soc_resolve(q, &sel, &e2) == 0) {
        if (sel.arch && !s->arch)
            set_str(&s->arch, sel.arch);
        if (sel.product && !s->product)
            set_str(&s->product, sel.product->marketing);
        if (sel.product && !s->peak_gbs.known && sel.hbm_gbs > 0)
            s->peak_gbs = some(sel.hbm_gbs);
        if (sel.product && sel.product->cus > 0 && s->cus <= 0) /* the capture's agent row first */
            s->cus = sel.product->cus;
    }
    fp_err_clear(&e2);
    if (!s->arch && q->agent_arch && !strncmp(q->agent_arch, "gfx", 3))
        set_str(&s->arch, q->agent_arch);
    if (!s->product && q->product_name && *q->product_name)
        set_str(&s->product, q->product_name);
}

void fp_signals_from_kernel_row(fp_signals *s, const fp_kernel_row *k)
{
    s->csv = k->pick;
    s->csv_read = true;
    if (k->dispatches > 0 && !s->time_ns.known)
        s->time_ns = some(k->avg_ns);
    if (k->have_grid) {
        s->have_grid = true;
        for (int i = 0; i < 3; i++) {
            s->grid[i] = k->grid[i];
            s->wg3[i] = k->wg3[i];
        }
    }
    if (!k->have_regs)
        return;
    if (!s->arch_vgpr.known) {
        s->arch_vgpr = some(k->vgpr);
        s->accum_vgpr = some(k->accum);
        set_str(&s->occ_source, "kernel_trace.csv");
    }
    if (k->lds >= 0)
        s->lds_bytes = some(k->lds);
    if (k->sgpr >= 0)
        s->sgpr = some(k->sgpr);
    if (k->wg > 0)
        s->wg_size = some(k->wg);
    if (k->scratch >= 0)
        s->scratch_size = some(k->scratch);
}

/* ---- derived ---- */

static double class_pct(const fp_signals *s, const char *name)
{
    const fp_sig_class *c = fp_signals_class(s, name);
    return c ? c->stall_pct : 0.0;
}

double fp_signals_wait_on_pct(const fp_signals *s, const char *cls, fp_prod_group g)
{
    const fp_sig_class *c = fp_signals_class(s, cls);
    if (!c)
        return 0.0;
    double all = 0;
    for (int k = 0; k < FP_PROD_COUNT; k++)
        all += c->stall_prod[k];
    if (!c->has_producers || all <= 0)
        return c->stall_pct; /* no producer evidence: the whole class */
    double mine = c->stall_prod[g] + (g == FP_PROD_GLOBAL ? c->stall_prod[FP_PROD_FLAT] : 0);
    return fp_round(c->stall_pct * mine / all, 2);
}

/* CDNA: the vector L1 / texture path returns 64 B per clock per CU
 * (GCN/CDNA L1 width; docs/bound.md). */
#define FP_SIG_VMEM_BYTES_CLK_CU 64.0

/* Bounds of plausible resource counts (anything above is a corrupt input). */
#define FP_SIG_MAX_REGS 4096
#define FP_SIG_MAX_LDS (1 << 24)
#define FP_SIG_MAX_WG 65536

static bool in_range(fp_optd o, double max) { return !o.known || (o.v >= 0 && o.v <= max); }

static void derive_occupancy(fp_signals *s)
{
    const fp_arch_limits *a = s->arch ? fp_arch_by_name(s->arch) : NULL;
    if (!a || !s->arch_vgpr.known)
        return;
    /* register/LDS counts beyond any real kernel are corrupt input: no model
     * (and no int overflow) rather than a made-up occupancy */
    if (!in_range(s->arch_vgpr, FP_SIG_MAX_REGS) || !in_range(s->accum_vgpr, FP_SIG_MAX_REGS) ||
        !in_range(s->lds_bytes, FP_SIG_MAX_LDS) || !in_range(s->sgpr, FP_SIG_MAX_REGS) ||
        !in_range(s->wg_size, FP_SIG_MAX_WG)) {
        fp_model_push_str(&s->quality_issues, &s->nquality_issues,
                          "register/LDS/workgroup counts out of range: occupancy not modelled");
        return;
    }
    fp_occ_in in = {0};
    int arch_v = (int)s->arch_vgpr.v, acc = s->accum_vgpr.known ? (int)s->accum_vgpr.v : 0;
    /* kernel_trace.csv on gfx950 under-counts (occupancy.h): believe the corrected combined count */
    if (s->occ_source && !strcmp(s->occ_source, "kernel_trace.csv")) {
        bool corrected = false;
        int combined = fp_occ_csv_combined_vgpr(a, arch_v, acc, false, &corrected);
        if (corrected) {
            arch_v = combined;
            acc = 0;
            s->arch_vgpr = some(combined);
            set_str(&s->occ_source, "kernel_trace.csv (x2 gfx950 under-count)");
        }
    }
    in.arch_vgpr = arch_v;
    in.accum_vgpr = acc;
    in.lds_bytes = s->lds_bytes.known ? (int)s->lds_bytes.v : 0;
    in.sgpr = s->sgpr.known ? (int)s->sgpr.v : 0;
    in.wg_size = s->wg_size.known ? (int)s->wg_size.v : 0;
    fp_occ_out o;
    fp_occ_compute(a, &in, &o);
    s->waves_per_simd = some(o.occupancy);
    s->waves_per_cu = some((double)o.occupancy * a->simds_per_cu);
    set_str(&s->occ_limiter, fp_occ_limiter_name(o.bound_by));
    if (o.next_occ > 0) {
        s->next_waves_per_cu = some((double)o.next_occ * a->simds_per_cu);
        if (o.next_vgpr_target > 0 && o.total_vgpr > o.next_vgpr_target)
            s->vgpr_to_next = some(o.total_vgpr - o.next_vgpr_target);
    }
}

static void derive_sol(fp_signals *s)
{
    if (!s->code)
        return;
    const fp_arch_limits *a = s->arch ? fp_arch_by_name(s->arch) : NULL;
    fp_sol_in *in = &s->sol_in;
    memset(in, 0, sizeof *in);
    in->code = s->code;
    in->rates = s->arch ? fp_arch_rates_by_name(s->arch) : NULL;
    in->simds_per_cu = a ? a->simds_per_cu : 4;
    in->wave_size = a ? a->wave_size : 64;
    in->traced_waves = s->waves.known ? s->waves.v : 0;
    in->span_total = s->span_total;
    in->cu_cycles = s->cu_cycles;
    in->grid_waves = s->launch.valid ? s->launch.grid_waves : 0;
    in->wg_waves = s->launch.valid ? s->launch.wg_waves : 0; /* issue 23 item 4: unique bytes */
    in->time_ns = s->time_ns.known ? s->time_ns.v : 0;
    fp_sol_set_peak(in, s->peak_gbs.known ? s->peak_gbs.v : 0, s->partition, s->memory_partition, &s->hbm_peak);
    in->lds_bytes_clk_cu = in->rates ? in->rates->lds_bytes_clk_cu : 0;
    in->have_ctr_gbs = s->achieved_gbs.known;
    in->ctr_gbs = s->achieved_gbs.v;
    in->have_ctr_hbm_pct = s->pct_hbm_roof.known;
    in->ctr_hbm_pct = s->pct_hbm_roof.v;
    in->have_ctr_mfma = s->mfma_frac.known;
    in->ctr_mfma_pct = s->mfma_frac.v * 100.0;
    in->have_ctr_valu = s->bound_in.valu_util_pct.have;
    in->ctr_valu_pct = s->bound_in.valu_util_pct.v;
    fp_sol_compute(in, &s->sol);
    s->have_sol = true;
}

/* Below this share of the listing executed, the traced waves ran a prologue
 * or an early-exit path, not the kernel's work. */
#define FP_REPR_MIN_COVERAGE_PCT 20.0
/* Not representative: capture confidence is capped here (every label low). */
#define FP_REPR_CONFIDENCE 0.55

static void repr_reason(fp_signals *s, const char *msg)
{
    fp_model_push_str(&s->repr_reasons, &s->nrepr_reasons, msg);
}

static void derive_representative(fp_signals *s)
{
    char buf[320];
    bool rep = true;
    if (s->coverage_pct.known && s->coverage_pct.v < FP_REPR_MIN_COVERAGE_PCT) {
        snprintf(buf, sizeof buf,
                 "the traced waves executed only %lld of %lld instructions (%.1f%% < %.0f%%): a prologue or early-exit "
                 "path, not the kernel's work",
                 (long long)s->executed_insts, (long long)s->static_insts, s->coverage_pct.v, FP_REPR_MIN_COVERAGE_PCT);
        repr_reason(s, buf);
        rep = false;
    }
    if (s->has_loop && !s->loop_executed) {
        /* exits to s_endpgm and spin-waits are not loops (loops.c): only a real loop body counts */
        snprintf(buf, sizeof buf,
                 "the listing has a loop (backward branch at code line %lld to line %lld) that no traced wave "
                 "iterated: the steady state is not in the trace",
                 (long long)s->loops.v[s->loops.main].branch_line, (long long)s->loops.v[s->loops.main].head_line);
        repr_reason(s, buf);
        rep = false;
    }
    if (s->waves.known && s->launch.valid && s->waves.v > s->launch.grid_waves) {
        snprintf(buf, sizeof buf,
                 "%.0f traced waves exceed the %.0f waves kernel_trace.csv says the dispatch launches: the CSV row is "
                 "another launch of this kernel",
                 s->waves.v, s->launch.grid_waves);
        repr_reason(s, buf);
    }
    /* the trace's byte count is an upper bound on HBM bytes: measured HBM traffic far above
     * it means the traced waves or the CSV timing do not describe the counted dispatch */
    if (s->sol.trace_pct.have && s->sol.ctr_pct.have && s->sol.trace_pct.v < 0.5 * s->sol.ctr_pct.v) {
        snprintf(buf, sizeof buf,
                 "the counters measure %.1f%% of peak HBM but the trace's upper bound is %.1f%%: the traced waves "
                 "or the kernel_trace.csv timing do not describe the counted dispatch",
                 s->sol.ctr_pct.v, s->sol.trace_pct.v);
        repr_reason(s, buf);
    }
    s->representative = rep;
    if (!rep) {
        if (s->capture_confidence > FP_REPR_CONFIDENCE)
            s->capture_confidence = FP_REPR_CONFIDENCE;
        fp_model_push_str(&s->quality_issues, &s->nquality_issues,
                          "trace not representative (capture_quality.representative): re-capture "
                          "another CU (--att-target-cu), another dispatch, or a larger shape");
    }
}

void fp_signals_derive(fp_signals *s)
{
    if (!s->pct_hbm_roof.known && s->achieved_gbs.known && s->peak_gbs.known && s->peak_gbs.v > 0)
        s->pct_hbm_roof = some(fp_round(100.0 * s->achieved_gbs.v / s->peak_gbs.v, 2));
    /* a class without a measured gain: its raw stall over the latency bounds it */
    for (size_t i = 0; i < s->nclasses; i++) {
        fp_sig_class *c = &s->classes[i];
        if (!c->gain_pct.known && s->total_latency > 0 && c->stall > 0)
            c->gain_pct = some(fp_round(100.0 * (double)c->stall / (double)s->total_latency, 2));
    }
    derive_occupancy(s);
    fp_launch_facts_derive(s); /* launch_facts.c: the launch (CSV or trace) */
    fp_launch_facts_time(s);   /* and the duration sol divides by */
    derive_sol(s);
    derive_representative(s);
    fp_signals_verdict_derive(s); /* isa_facts.c: the span ratio the gains scale by */

    fp_bound_in *in = &s->bound_in;
    if (s->have_bubbles_json) {
        in->stall_pct = fp_some(s->stall_pct);
        in->vmem_stall_share = fp_some(class_pct(s, "vmcnt") + class_pct(s, "vmem_load") +
                                       class_pct(s, "vmem_store") + class_pct(s, "scratch") +
                                       class_pct(s, "atomic") + class_pct(s, "lds_dma"));
        /* lgkmcnt also counts scalar loads: only its waits on LDS producers are LDS */
        in->lds_stall_share = fp_some(fp_signals_wait_on_pct(s, "lgkmcnt", FP_PROD_LDS) + class_pct(s, "lds"));
        /* s_nop counts toward MFMA only where it pads between two MFMAs */
        double nop_mfma = 0;
        if (s->nop_mfma_pct.known && s->total_stall > 0)
            nop_mfma = s->nop_mfma_pct.v * (double)s->total_latency / (double)s->total_stall;
        double nop_all = class_pct(s, "nop");
        in->mfma_stall_share = fp_some(class_pct(s, "mfma") + (nop_mfma < nop_all ? nop_mfma : nop_all));
        const fp_sig_class *m = fp_signals_class(s, "mfma");
        in->mfma_inst_pct = fp_some(m && m->mix.known ? 100.0 * m->mix.v : 0.0);
    }
    if (s->pct_hbm_roof.known)
        in->hbm_pct_of_peak = fp_some(s->pct_hbm_roof.v);
    if (s->launch.valid && s->launch.have_underfilled) {
        in->underfilled = fp_some(s->launch.underfilled ? 1.0 : 0.0);
        in->fill_pct = fp_some(s->launch.fill_pct);
        in->workgroups = fp_some(s->launch.workgroups);
        in->cus = fp_some(s->launch.cus);
    }
    if (s->sol.trace_pct.have)
        in->hbm_trace_pct = fp_some(s->sol.trace_pct.v);
    in->hbm_ceiling_pct = fp_some(fp_bound_hbm_ceiling(s->arch)->pct);
    /* what must cross HBM (the dataflow pass, issue 23): the memory verdict reads it before
     * the requested bytes, which count every re-read of a shared operand */
    if (s->sol.unique_pct.have && !s->sol.hbm_clamped) /* a clamped 100 % is cache traffic, not a fact */
        in->hbm_unique_pct = fp_some(s->sol.unique_pct.v);
    /* the SIMDs the launch can give a wave (the launch model's figure, issue 23) */
    if (s->launch.valid && s->launch.simd_fill_pct >= 0)
        in->simd_fill_pct = fp_some(s->launch.simd_fill_pct);
    /* the vector-memory path: traced bytes over the traced CUs' cycles at its rate */
    if (s->have_sol && s->cu_cycles > 0)
        in->vmem_issue_pct = fp_some(fp_round(100.0 * s->sol.vmem_bytes_traced / (s->cu_cycles * FP_SIG_VMEM_BYTES_CLK_CU), 2));
    if (s->sol.trace_mfma_busy.have)
        in->mfma_busy_trace_pct = fp_some(s->sol.trace_mfma_busy.v);
    if (s->sol.trace_valu_busy.have)
        in->valu_busy_trace_pct = fp_some(s->sol.trace_valu_busy.v);
    fp_bound_classify(in, &s->bound_res);
    s->bound = s->bound_res.bound == FP_BOUND_UNKNOWN ? NULL : fp_bound_name(s->bound_res.bound);
}
