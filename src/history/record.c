/*
 * record.c - a reported bundle -> a history record (see history.h), and the
 * content hash that makes adding the same bundle twice a no-op.
 *
 * Only figures are kept, never paths into the bundle: an entry must stay
 * meaningful after the bundle is gone (CI runners are wiped).
 */
#include "flyprof/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flyprof/bubbles_doc.h"
#include "flyprof/bundle.h"
#include "flyprof/capture_doc.h"
#include "flyprof/fs.h"
#include "flyprof/counters_doc.h"
#include "flyprof/model.h"
#include "flyprof/report_doc.h"
#include "flyprof/sha256.h"
#include "flyprof/strbuf.h"

static fp_optd finite_or_null(double v) { return isfinite(v) ? fp_optd_of(v) : fp_optd_none(); }
static fp_optd opt_finite(fp_optd v) { return v.known ? finite_or_null(v.v) : v; }

static void iso_utc(time_t t, char buf[32])
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool has_metric(const fp_history_record *r, const char *key)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (!strcmp(r->metrics[i].key, key))
            return true;
    return false;
}

static void push_metric(fp_history_record *r, const char *key, double v)
{
    fp_history_metric *m = fp_model_push((void **)&r->metrics, &r->nmetrics, sizeof *m);
    m->key = fp_model_strdup(key);
    m->v = fp_optd_of(v);
}

/* counters.json's derived metrics as "counters.<id>" (their values, as written). */
static void add_counter_metrics(fp_history_record *r, const fp_counters_doc *c)
{
    for (size_t i = 0; i < c->nmetrics; i++) {
        char key[256];
        snprintf(key, sizeof key, "counters.%s", c->metrics[i].key ? c->metrics[i].key : "?");
        double v = c->metrics[i].value;
        if (isfinite(v) && !has_metric(r, key))
            push_metric(r, key, v);
    }
}

/* The bundle's artifacts a record is made of; capture.json and bubbles.json are
 * optional (zeroed when absent). */
typedef struct inputs {
    char *report_path;
    fp_report_doc rep;
    fp_capture_doc cap;
    bool have_bub;
    fp_bubbles_doc bub;
    fp_counters_doc cnt; /* zeroed when the bundle has no counters.json */
} inputs;

static void inputs_free(inputs *in)
{
    free(in->report_path);
    fp_report_doc_free(&in->rep);
    fp_capture_free(&in->cap);
    fp_bubbles_doc_free(&in->bub);
    fp_counters_doc_free(&in->cnt);
}

static int load_inputs(const char *bundle, inputs *in, fp_err *err)
{
    memset(in, 0, sizeof *in);
    if (!fp_is_dir(bundle)) {
        fp_err_set(err, FP_MISSING_PREREQ, "bundle %s does not exist", bundle);
        return fp_err_help(err, "pass a reported bundle dir (flyprof run / flyprof report --bundle DIR)");
    }
    in->report_path = fp_bundle_path(bundle, FP_ART_REPORT);
    if (!fp_is_file(in->report_path)) {
        fp_err_set(err, FP_MISSING_PREREQ, "%s has no report.json", bundle);
        return fp_err_help(err, "run `flyprof report --bundle %s` first", bundle);
    }
    int rc = fp_report_read_file(in->report_path, &in->rep, err);
    if (rc == 0 && !in->rep.kernel)
        rc = fp_err_set(err, FP_BAD_INPUT, "%s is not a flyprof report.json (no kernel/totals/classes)",
                        in->report_path);
    char *cp = fp_bundle_path(bundle, FP_ART_CAPTURE);
    if (rc == 0 && fp_is_file(cp))
        rc = fp_capture_read_file(cp, &in->cap, err);
    free(cp);
    char *bp = fp_bundle_path(bundle, FP_ART_BUBBLES);
    in->have_bub = fp_is_file(bp);
    if (rc == 0 && in->have_bub)
        rc = fp_bubbles_read_file(bp, &in->bub, err);
    free(bp);
    char *np = fp_bundle_path(bundle, FP_ART_COUNTERS);
    if (rc == 0 && fp_is_file(np))
        rc = fp_counters_read_file(np, &in->cnt, err);
    free(np);
    return rc;
}

/* The figures: report.json's, the duration from counters.json when the report has none. */
static void record_figures(const inputs *in, fp_history_record *r)
{
    const fp_report_doc *rep = &in->rep;
    const fp_capture_doc *cap = &in->cap;
    r->kernel = fp_model_strdup(rep->kernel);
    /* shape: what the capture was asked for ("" when not recorded) */
    const char *shape = rep->workload.shape;
    if (!shape && cap->workload)
        shape = cap->workload->shape;
    r->shape = fp_model_strdup(shape ? shape : "");
    r->arch = fp_model_strdup(rep->arch ? rep->arch : cap->kernel ? cap->kernel->arch : NULL);
    r->product = fp_model_strdup(rep->product);

    /* duration per call: report's workload, else counters.json's measurement */
    fp_optd t = rep->workload.time_ns_per_call;
    if (t.known && t.v > 0)
        r->workload.time_ns_per_call = t;
    else if (in->cnt.duration_ns.known && in->cnt.duration_ns.v > 0)
        r->workload.time_ns_per_call = in->cnt.duration_ns;
    r->totals.stall_pct = finite_or_null(rep->totals.stall_pct);
    r->totals.exposed_pct = finite_or_null(rep->totals.exposed_pct);
    r->totals.waves = opt_finite(rep->totals.waves);
    r->totals.latency = fp_optd_of((double)rep->totals.latency);
    r->bound = fp_model_strdup(rep->bound_type ? rep->bound_type : rep->bound.bound);
    r->bound_rule = fp_model_strdup(rep->bound.rule);

    /* launch fill and speed of light: report.json sections that may be null */
    if (rep->launch) {
        r->launch.fill_pct = opt_finite(rep->launch->fill_pct);
        r->launch.underfilled = rep->launch->underfilled;
        r->launch.workgroups = finite_or_null(rep->launch->workgroups);
    }
    if (rep->sol) {
        r->sol.hbm_pct = opt_finite(rep->sol->hbm.pct_of_peak);
        r->sol.mfma_busy_pct = opt_finite(rep->sol->mfma.busy_pct);
        r->sol.valu_busy_pct = opt_finite(rep->sol->valu.busy_pct);
    }
    for (size_t i = 0; i < rep->nclasses; i++) {
        const fp_report_class *c = &rep->classes[i];
        if (!c->cls)
            continue;
        fp_history_class *o = fp_model_push((void **)&r->classes, &r->nclasses, sizeof *o);
        o->cls = fp_model_strdup(c->cls);
        o->cycles = fp_optd_of((double)c->cycles);
        o->exposed = opt_finite(c->exposed);
        o->pct = finite_or_null(c->pct);
    }
    for (size_t i = 0; i < rep->nrecs; i++) {
        const fp_report_rec *u = &rep->recs[i];
        if (!u->rule)
            continue;
        fp_history_rule *o = fp_model_push((void **)&r->rules, &r->nrules, sizeof *o);
        o->rank = u->rank;
        o->rule = fp_model_strdup(u->rule);
        o->bubble_class = fp_model_strdup(u->bubble_class);
        o->est_gain_pct = opt_finite(u->est_gain_pct);
    }

    /* counters metrics, the whole-trace wave-state shares and the bubbles totals (the
     * record's metric names, in bubbles.json's order) */
    add_counter_metrics(r, &in->cnt);
    if (in->have_bub) {
        const fp_bub_doc_states4 *wp = &in->bub.wave_states.pct;
        const fp_bub_doc_totals *bt = &in->bub.totals;
        const struct {
            const char *name;
            double v;
            bool once; /* skip when already present */
        } bm[] = {
            {"bubbles.wave_states_pct.exec", wp->exec, true},   {"bubbles.wave_states_pct.wait", wp->wait, true},
            {"bubbles.wave_states_pct.stall", wp->stall, true}, {"bubbles.wave_states_pct.idle", wp->idle, true},
            {"bubbles.idle", (double)bt->idle, false},          {"bubbles.issue", (double)bt->issue, false},
            {"bubbles.hidden", (double)bt->hidden, false},      {"bubbles.hit", (double)bt->hit, false},
        };
        for (size_t i = 0; i < sizeof bm / sizeof bm[0]; i++)
            if (isfinite(bm[i].v) && !(bm[i].once && has_metric(r, bm[i].name)))
                push_metric(r, bm[i].name, bm[i].v);
    }
}

/* provenance: the capture's own record of the worktree (libgit2 at capture
 * time), else what the caller read from --worktree */
static void record_provenance(const char *bundle, const inputs *in, const char *wt_commit, int wt_dirty,
                              const char *wt_branch, fp_history_record *r)
{
    const fp_capture_doc *cap = &in->cap;
    const fp_cap_worktree *cw = cap->worktree;
    fp_history_provenance *p = &r->provenance;
    const char *commit = cw ? cw->commit : NULL;
    fp_optb dirty = cw ? cw->dirty : (fp_optb){false, false};
    const char *branch = cw ? cw->branch : NULL;
    if (!commit) {
        commit = wt_commit;
        branch = wt_branch;
        dirty = (fp_optb){false, false};
        if (wt_commit && wt_dirty >= 0)
            dirty = (fp_optb){true, wt_dirty != 0};
    }
    p->commit = fp_model_strdup(commit);
    p->dirty = dirty;
    p->branch = fp_model_strdup(branch);
    p->flyprof_version = fp_model_strdup(FLYPROF_VERSION);
    /* capture time: capture.json's captured_at, else when the capture (or the
     * report) file was written */
    char when[32];
    if (cap->captured_at) {
        snprintf(when, sizeof when, "%s", cap->captured_at);
    } else {
        char *cp = fp_bundle_path(bundle, FP_ART_CAPTURE);
        struct stat sb;
        if (stat(cp, &sb) != 0 && stat(in->report_path, &sb) != 0)
            sb.st_mtime = time(NULL);
        iso_utc(sb.st_mtime, when);
        free(cp);
    }
    p->captured_at = fp_model_strdup(when);
    const char *host = cap->host;
    char hn[256] = "";
    if (!host && gethostname(hn, sizeof hn - 1) == 0)
        host = hn;
    p->host = fp_model_strdup(host && host[0] ? host : NULL);
    p->bundle = fp_path_abs(bundle);
}

int fp_history_record_from_bundle(const char *bundle, const char *wt_commit, int wt_dirty, const char *wt_branch,
                                  fp_history_record *r, fp_err *err)
{
    memset(r, 0, sizeof *r);
    inputs in;
    if (load_inputs(bundle, &in, err)) {
        inputs_free(&in);
        return -1;
    }
    r->schema = FP_HISTORY_RECORD_SCHEMA;
    record_figures(&in, r);
    record_provenance(bundle, &in, wt_commit, wt_dirty, wt_branch, r);
    char now[32];
    iso_utc(time(NULL), now);
    r->added_at = fp_model_strdup(now);
    char hash[65];
    fp_history_hash(r, hash);
    r->hash = fp_model_strdup(hash);
    inputs_free(&in);
    return 0;
}

/* ---- content hash: a canonical rendering of the figures ---- */

static void canon_num(fp_sb *s, fp_optd v)
{
    if (v.known && isfinite(v.v))
        fp_sb_addf(s, "%.17g|", v.v);
    else
        fp_sb_adds(s, "null|");
}

static void canon_str(fp_sb *s, const char *v)
{
    if (v) {
        /* length-prefixed: no separator inside a string can forge another record */
        fp_sb_addf(s, "%zu:", strlen(v));
        fp_sb_adds(s, v);
        fp_sb_addc(s, '|');
    } else {
        fp_sb_adds(s, "null|");
    }
}

static void canon_bool(fp_sb *s, fp_optb b) { fp_sb_adds(s, b.known ? (b.v ? "true|" : "false|") : "null|"); }

static int name_cmp(const void *a, const void *b)
{
    return strcmp((*(const fp_history_metric *const *)a)->key, (*(const fp_history_metric *const *)b)->key);
}

void fp_history_hash(const fp_history_record *r, char out[65])
{
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_adds(&s, "flyprof-history-record-1|");
    canon_str(&s, r->kernel);
    canon_str(&s, r->shape);
    canon_str(&s, r->arch);
    canon_str(&s, r->product);
    canon_num(&s, r->workload.time_ns_per_call);
    canon_num(&s, r->totals.stall_pct);
    canon_num(&s, r->totals.exposed_pct);
    canon_num(&s, r->totals.waves);
    canon_num(&s, r->totals.latency);
    canon_str(&s, r->bound);
    canon_str(&s, r->bound_rule);
    canon_num(&s, r->launch.fill_pct);
    canon_bool(&s, r->launch.underfilled);
    canon_num(&s, r->launch.workgroups);
    canon_num(&s, r->sol.hbm_pct);
    canon_num(&s, r->sol.mfma_busy_pct);
    canon_num(&s, r->sol.valu_busy_pct);
    fp_sb_adds(&s, "classes|");
    for (size_t i = 0; i < r->nclasses; i++) {
        const fp_history_class *c = &r->classes[i];
        canon_str(&s, c->cls);
        canon_num(&s, c->cycles);
        canon_num(&s, c->exposed);
        canon_num(&s, c->pct);
    }
    fp_sb_adds(&s, "rules|");
    for (size_t i = 0; i < r->nrules; i++) {
        const fp_history_rule *u = &r->rules[i];
        canon_num(&s, fp_optd_of((double)u->rank));
        canon_str(&s, u->rule);
        canon_str(&s, u->bubble_class);
        canon_num(&s, u->est_gain_pct);
    }
    /* metrics by name (the database returns them sorted) */
    fp_sb_adds(&s, "metrics|");
    const fp_history_metric **v = calloc(r->nmetrics ? r->nmetrics : 1, sizeof *v);
    if (!v)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < r->nmetrics; i++)
        if (r->metrics[i].key)
            v[n++] = &r->metrics[i];
    qsort(v, n, sizeof *v, name_cmp);
    for (size_t i = 0; i < n; i++) {
        fp_sb_addf(&s, "%zu:%s|", strlen(v[i]->key), v[i]->key);
        canon_num(&s, v[i]->v);
    }
    free(v);
    /* where the capture came from and when: not where or by whom it was added */
    const fp_history_provenance *p = &r->provenance;
    canon_str(&s, p->commit);
    canon_bool(&s, p->dirty);
    canon_str(&s, p->branch);
    canon_str(&s, p->captured_at);
    fp_sha256_hex(s.buf, s.len, out);
    fp_sb_free(&s);
}
