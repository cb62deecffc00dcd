/*
 * cmd_run.c - `flyprof run KERNEL`: the whole pipeline on one kernel by
 * re-running this binary (ctx->argv0) once per step, each writing its own
 * artifact into the bundle:
 *
 *   doctor -> tile -> capture --with-pmc (-> counters) -> bubbles -> map -> report -> bundle
 *
 * Each step's envelope and stderr are kept under <bundle>/run/. The first
 * failing step's error becomes run's error; the steps after it do not run;
 * the artifacts of the steps that succeeded stay valid. A failed PMC pass
 * (counters) only warns, as in capture.
 * run.json (= the envelope data) is written on every exit once the bundle exists.
 *
 * The steps are one table (run_steps below): which command each re-runs, when
 * it is skipped, how its argv is built, what it records in run.json. Each argv
 * is spelled from the child command's own fp_opt table (and fp_global_opts), so
 * run can only pass options its steps have; the commands themselves come from
 * the command table (commands.h), not from asking the binary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flyprof/bundle.h"
#include "flyprof/bundle_path.h"
#include "flyprof/capture.h"
#include "flyprof/capture_doc.h"
#include "flyprof/cli.h"
#include "flyprof/config.h"
#include "flyprof/envelope_doc.h"
#include "flyprof/fs.h"
#include "flyprof/heartbeat.h"
#include "flyprof/history_doc.h"
#include "flyprof/json.h"
#include "flyprof/proc.h"
#include "flyprof/report_doc.h"
#include "flyprof/rules.h"
#include "flyprof/run_doc.h"

#include "child_argv.h"
#include "commands.h"

static const char *const run_tag_choices[] = {"small", "big", "both", NULL};

typedef struct run_args {
    fp_config_args cfg;
    const char *shape, *invocation, *tag, *iter_range;
    const char *examples_dir;
    double timeout;
    bool no_pmc, skip_bundle, history;
    const char *history_db;
    long long jobs;
    long long limit;
} run_args;

static const fp_opt run_opts[] = {
    FP_CONFIG_OPTS(run_args, cfg),
    {"shape", 0, FP_OPT_STR, offsetof(run_args, shape), "S", "problem shape (see capture)", NULL, NULL, 0, 0},
    {"invocation", 0, FP_OPT_STR, offsetof(run_args, invocation), "CMD", "workload command (see capture)", NULL,
     NULL, 0, 0},
    {"tag", 0, FP_OPT_CHOICE, offsetof(run_args, tag), "TAG",
     "small, big or both (both needs --shape; the analysis uses big when captured)", "big", run_tag_choices, 0, 0},
    {"iter-range", 0, FP_OPT_STR, offsetof(run_args, iter_range), "R", "iterations to trace (see capture)", NULL,
     NULL, 0, 0},
    {"timeout", 0, FP_OPT_DOUBLE, offsetof(run_args, timeout), "S", "seconds for each rocprofv3 run", "1200",
     NULL, 0, 0},
    {"no-pmc", 0, FP_OPT_FLAG, offsetof(run_args, no_pmc), NULL, "skip the PMC counters pass", NULL, NULL, 0, 0},
    {"examples-dir", 0, FP_OPT_STR, offsetof(run_args, examples_dir), "DIR",
     "where the bundle step publishes (default: bundle's own default)", NULL, NULL, 0, 0},
    {"skip-bundle", 0, FP_OPT_FLAG, offsetof(run_args, skip_bundle), NULL, "do not publish with the bundle step",
     NULL, NULL, 0, 0},
    {"history", 0, FP_OPT_FLAG, offsetof(run_args, history), NULL,
     "add the reported bundle to the performance history (flyprof history add)", NULL, NULL, 0, 0},
    {"history-db", 0, FP_OPT_STR, offsetof(run_args, history_db), "FILE",
     "history database for --history (default: history's own)", NULL, NULL, 0, 0},
    {"jobs", 0, FP_OPT_INT, offsetof(run_args, jobs), "N",
     "threads of the bubbles and report steps (0 = their default: 2 when it may run on 2 CPUs, else 1)", NULL, NULL, 0, 64},
    {"limit", 'n', FP_OPT_INT, offsetof(run_args, limit), "N",
     "recommendations in the envelope's answer (the whole plan stays in report.json)", "5", NULL, 1, 50},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static fp_errcode code_by_name(const char *name)
{
    for (int i = 0; name && i < FP_CODE_COUNT; i++)
        if (!strcmp(fp_code_table[i].name, name))
            return (fp_errcode)i;
    return FP_INTERNAL;
}

/* ---- a step's command line: spelled from the child command's own option table (child_argv.h) ---- */

typedef struct runner runner;

/* ---- what one run is about ---- */

struct runner {
    fp_ctx *ctx;
    const run_args *a;
    const char *kernel;
    const char *analysis_tag; /* the tag the analyses read: big unless only small was captured */
    char *self;               /* this binary, re-run once per step */
    char *bundle;
    fp_run_doc doc;  /* run.json: its steps (in the order they ran) and step warnings grow as it goes */
    double t0;
    int index; /* of the last step run, for the progress lines */
    char *gpu_name;  /* doctor's, for tile */
    fp_cap_pmc *pmc; /* capture's data.pmc (counters ran inside capture), or NULL */
};

/* Run's own option `lng` passed on as the child's option `as`: strings as given,
 * numbers as run parsed them (%g, %lld; an integer 0 means "the child's default"
 * and is not passed), flags when set. */
static void fwd_as(fp_argvb *b, const runner *r, const char *lng, const char *as)
{
    const fp_opt *o = fp_argv_find_opt(run_opts, lng);
    const char *field = o ? (const char *)r->a + o->off : NULL;
    fp_sb v;
    fp_sb_init(&v);
    if (!o) {
        if (!b->unknown)
            b->unknown = lng;
    } else if (o->kind == FP_OPT_STR || o->kind == FP_OPT_CHOICE) {
        fp_argv_opt(b, as, *(const char *const *)field);
    } else if (o->kind == FP_OPT_DOUBLE) {
        fp_sb_addf(&v, "%g", *(const double *)field);
        fp_argv_opt(b, as, fp_argv_own(b, &v));
    } else if (o->kind == FP_OPT_INT && *(const long long *)field > 0) {
        fp_sb_addf(&v, "%lld", *(const long long *)field);
        fp_argv_opt(b, as, fp_argv_own(b, &v));
    } else if (o->kind == FP_OPT_FLAG) {
        fp_argv_flag(b, as, *(const bool *)field);
    }
    fp_sb_free(&v);
}

static void fwd(fp_argvb *b, const runner *r, const char *lng) { fwd_as(b, r, lng, lng); }

/* The settings (--worktree, --rocprofv3, ... FP_CONFIG_OPTS) that are set, in
 * run's table order. */
static void fwd_config(fp_argvb *b, const runner *r)
{
    size_t lo = offsetof(run_args, cfg), hi = lo + sizeof(fp_config_args);
    for (const fp_opt *o = run_opts; o->lng; o++)
        if (o->off >= lo && o->off < hi)
            fwd(b, r, o->lng);
}

/* ---- the steps' command lines ---- */

static void doctor_argv(fp_argvb *b, const runner *r)
{
    fwd_config(b, r);
    fp_argv_quiet(b);
    fp_argv_json(b);
}

static void tile_argv(fp_argvb *b, const runner *r)
{
    /* tile wants M,N,K and the dtype apart: "32768,8192,bf16" -> --shape 32768,8192 --dtype bf16 */
    const char *shape = r->a->shape, *last = strrchr(shape, ',');
    const char *tail = last ? last + 1 : shape;
    bool numeric = tail[0] && strspn(tail, "0123456789") == strlen(tail);
    if (!numeric && last) {
        fp_sb mnk;
        fp_sb_init(&mnk);
        fp_sb_add(&mnk, shape, (size_t)(last - shape));
        fp_argv_opt(b, "shape", fp_argv_own(b, &mnk));
        fp_argv_opt(b, "dtype", tail);
    } else if (numeric) {
        fp_argv_opt(b, "shape", shape);
    }
    if (r->gpu_name)
        fp_argv_opt(b, "gpu-name", r->gpu_name);
    else
        fwd(b, r, "arch");
    fp_argv_bundle(b, r->bundle);
    fp_argv_quiet(b);
    fp_argv_json(b);
}

static void capture_argv(fp_argvb *b, const runner *r)
{
    fp_argv_push(b, r->kernel);
    fp_argv_bundle(b, r->bundle);
    fwd(b, r, "tag");
    fwd(b, r, "timeout");
    fp_argv_flag(b, "with-pmc", !r->a->no_pmc); /* counters runs inside capture */
    fwd(b, r, "shape");
    fwd(b, r, "invocation");
    fwd(b, r, "iter-range");
    fwd_config(b, r);
    fp_argv_json(b);
    if (r->ctx->quiet) /* capture's progress (the rocprofv3 passes) is worth showing */
        fp_argv_quiet(b);
}

/* bubbles, map, report */
static void analysis_argv(fp_argvb *b, const runner *r)
{
    fp_argv_bundle(b, r->bundle);
    fp_argv_opt(b, "tag", r->analysis_tag);
    fp_argv_quiet(b);
    fp_argv_json(b);
    if (fp_argv_find_opt(b->cmd->opts, "jobs")) /* map has no threads */
        fwd(b, r, "jobs");
}

static void bundle_argv(fp_argvb *b, const runner *r)
{
    fp_argv_bundle(b, r->bundle);
    fp_argv_opt(b, "tag", r->analysis_tag);
    fwd(b, r, "examples-dir");
    fp_argv_quiet(b);
    fp_argv_json(b);
}

static void history_argv(fp_argvb *b, const runner *r)
{
    fp_argv_push(b, "add");
    fp_argv_bundle(b, r->bundle);
    fwd_as(b, r, "history-db", "db");
    fp_argv_quiet(b);
    fp_argv_json(b);
}

/* ---- running one step ---- */

/* The step's own verdict from its exit and envelope; 0 when ok, else err holds
 * the step's error (code, message, help). */
static int step_outcome(const char *name, int prc, fp_err *perr, const fp_proc_result *pr,
                        const fp_envelope_doc *env, const char *se, fp_err *err)
{
    if (prc != 0) {
        *err = *perr;
        memset(perr, 0, sizeof *perr);
        return -1;
    }
    if (!env) {
        fp_err_set(err, FP_INTERNAL, "step %s printed no envelope (exit %d)", name,
                   pr->exited ? pr->exit_code : 128 + pr->term_signal);
        return fp_err_help(err, "see %s in the bundle", se);
    }
    if (env->ok)
        return 0;
    const fp_envelope_error *e = env->error;
    fp_err_set(err, code_by_name(e ? e->code : NULL), "%s: %s", name, e && e->message ? e->message : "failed");
    if (e && e->help)
        fp_err_help(err, "%s", e->help);
    return -1;
}

/* The step's warnings become run's, prefixed with the step's name. */
static void take_warnings(runner *r, const char *name, const fp_envelope_doc *env)
{
    for (size_t i = 0; env && i < env->nwarnings; i++) {
        fp_sb m;
        fp_sb_init(&m);
        fp_sb_addf(&m, "%s: %s", name, env->warnings[i]);
        fp_model_push_str(&r->doc.step_warnings, &r->doc.nstep_warnings, m.buf);
        fp_sb_free(&m);
    }
}

/* A new step of run.json (its form, name and status; the rest is the caller's). */
static fp_run_step *new_step(runner *r, int form, const char *name, const char *status)
{
    fp_run_step *s = fp_model_push((void **)&r->doc.steps, &r->doc.nsteps, sizeof *s);
    s->form = form;
    s->name = fp_model_strdup(name);
    s->status = fp_model_strdup(status);
    return s;
}

/* The step's run.json entry: what ran, how long, where its envelope and stderr are. */
static void step_entry(fp_run_step *s, const fp_argvb *b, double secs, const fp_proc_result *pr, const char *so,
                       const char *se)
{
    fp_sb line;
    fp_sb_init(&line);
    fp_proc_argv_str(b->v + 1, &line);
    s->command = fp_model_strdup(line.buf);
    fp_sb_free(&line);
    s->seconds = secs;
    s->exit_code = pr->exited ? pr->exit_code : 128 + pr->term_signal;
    s->envelope = fp_model_strdup(so);
    s->stderr_path = fp_model_strdup(se);
}

/* run.json's "error" of a failure. */
static fp_run_error *run_error(const fp_err *e)
{
    fp_run_error *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->code = fp_model_strdup(fp_code_name(e->code));
    o->message = fp_model_strdup(e->message);
    return o;
}

/* Run one step; returns 0 when its envelope says ok. On failure err holds the
 * step's own error (code, message, help). *out_env is the parsed envelope. */
static int step(runner *r, const char *name, fp_argvb *b, fp_envelope_doc *out_env, fp_err *err)
{
    r->index++;
    char so[64], se[64];
    snprintf(so, sizeof so, "run/%s.json", name);
    snprintf(se, sizeof se, "run/%s.stderr.txt", name);
    char *sop = fp_path_join(r->bundle, so), *sep = fp_path_join(r->bundle, se);
    fp_heartbeat hb; /* the final timing line is the progress line below */
    fp_heartbeat_begin(&hb, r->ctx, "run: [%d] %s", r->index, name);
    fp_proc_opts o = {.argv = b->v, .stdout_path = sop, .stderr_path = sep, .interrupted = r->ctx->interrupted,
                      .tick = fp_heartbeat_tick, .tick_arg = &hb};
    fp_proc_result pr;
    fp_err perr = {0}, e2 = {0};
    double t = now_s();
    int prc = fp_proc_run(&o, &pr, &perr);
    double secs = now_s() - t;
    /* the step's envelope, read by its table (a child of this binary always writes one) */
    cJSON *env = NULL;
    fp_envelope_doc ed;
    memset(&ed, 0, sizeof ed);
    bool have_env = false;
    if (prc == 0 && fp_json_parse_file(sop, &env, &e2) != 0) {
        cJSON_Delete(env);
        env = NULL;
    }
    if (env)
        have_env = fp_model_read(&fp_envelope_doc_schema, env, &ed, so, &e2) == 0;
    int rc = step_outcome(name, prc, &perr, &pr, have_env ? &ed : NULL, se, err);
    fp_err_clear(&e2);
    fp_err_clear(&perr);
    if (env) { /* the kept step envelope is relocatable like the artifacts */
        fp_err e4 = {0};
        fp_bundle_write_json(sop, env, r->bundle, &e4);
        fp_err_clear(&e4);
    }
    take_warnings(r, name, have_env ? &ed : NULL);
    cJSON_Delete(env);
    fp_run_step *s = new_step(r, FP_RUN_STEP_RAN, name,
                              rc == 0 ? "ok" : err->code == FP_INTERRUPTED ? "interrupted" : "failed");
    step_entry(s, b, secs, &pr, so, se);
    if (rc != 0)
        s->error = run_error(err);
    fp_progress(r->ctx, "run: [%d] %-8s %s (%.1fs, total %.1fs)", r->index, name,
                rc == 0 ? "ok" : fp_code_name(err->code), secs, now_s() - r->t0);
    free(sop);
    free(sep);
    *out_env = ed;
    return rc;
}

static void skipped(runner *r, const char *name, const char *status, const char *why)
{
    new_step(r, FP_RUN_STEP_SKIPPED, name, status)->reason = fp_model_strdup(why);
    fp_progress(r->ctx, "run: [-] %-8s %s: %s", name, status, why);
}

/* ---- when a step is skipped, what it records ---- */

static const char *tile_skip(const runner *r, const char **status)
{
    /* tile models a GEMM tile: only an M,N,K shape says something about this kernel */
    size_t ndims = 0;
    for (const char *p = r->a->shape; p && *p;) {
        size_t n = strcspn(p, ",");
        ndims += n > 0 && strspn(p, "0123456789") >= n;
        p += n + (p[n] == ',');
    }
    *status = "skipped";
    if (!r->a->shape)
        return "no --shape";
    return ndims != 3 ? "the shape is not M,N,K[,dtype] (tile models GEMM tiles)" : NULL;
}

static const char *counters_skip(const runner *r, const char **status)
{
    if (r->pmc)
        return NULL;
    *status = r->a->no_pmc ? "skipped" : "unavailable";
    return r->a->no_pmc ? "--no-pmc" : "this flyprof build has no counters command";
}

static const char *bundle_skip(const runner *r, const char **status)
{
    *status = "skipped";
    return r->a->skip_bundle ? "--skip-bundle" : NULL;
}

static bool history_asked(const runner *r) { return r->a->history; }

/* any blocker stops the run with that blocker's code */
static int doctor_record(runner *r, fp_run_step *entry, const cJSON *d, fp_err *err)
{
    fp_doctor_view v;
    if (fp_model_read(&fp_doctor_view_schema, d, &v, "run/doctor.json data", err) != 0)
        return -1;
    r->gpu_name = v.gpu && v.gpu->name ? strdup(v.gpu->name) : NULL;
    entry->has_summary = true;
    entry->summary = fp_model_strdup(v.verdict);
    int rc = 0;
    if (!v.verdict || strcmp(v.verdict, "ready")) {
        const fp_doctor_blocker *b0 = v.nblockers ? &v.blockers[0] : NULL;
        fp_sb all;
        fp_sb_init(&all);
        for (size_t i = 0; i < v.nblockers; i++)
            fp_sb_addf(&all, "%s%s", all.len ? ", " : "", v.blockers[i].code);
        fp_err_set(err, code_by_name(b0 ? b0->code : NULL), "doctor not ready: [%s] %s", all.buf,
                   b0 && b0->message ? b0->message : "");
        fp_err_help(err, "run `flyprof doctor` for the evidence and the fix of each blocker");
        fp_sb_free(&all);
        free(entry->status);
        entry->status = fp_model_strdup("failed");
        rc = -1;
    }
    fp_model_free(&fp_doctor_view_schema, &v);
    return rc;
}

/* capture's envelope data is capture.json (strict reader) */
static int capture_record(runner *r, fp_run_step *entry, const cJSON *d, fp_err *err)
{
    fp_capture_doc cap = {0};
    if (d && fp_model_read(&fp_capture_schema, d, &cap, "run/capture.json data", err) != 0)
        return -1;
    entry->has_summary = true;
    entry->summary = fp_model_strdup(cap.kernel ? cap.kernel->kernel : NULL);
    r->pmc = cap.pmc;
    cap.pmc = NULL;
    fp_capture_free(&cap);
    return 0;
}

/* counters ran inside capture (--with-pmc): its own line, from capture's data.pmc */
static int counters_record(runner *r, fp_run_step *entry, const cJSON *d, fp_err *err)
{
    fp_run_step *s = new_step(r, FP_RUN_STEP_PMC, "counters", r->pmc->status);
    s->command = fp_model_strdup(r->pmc->command);
    s->via = fp_model_strdup("capture --with-pmc");
    s->artifact = fp_model_strdup(r->pmc->counters_json);
    return 0;
}

/* The report's summary line that starts with `prefix`, or NULL. */
static char *summary_line(const fp_report_doc *rep, const char *prefix)
{
    for (size_t i = 0; i < rep->nsummary; i++)
        if (!strncmp(rep->summary[i], prefix, strlen(prefix)))
            return fp_model_strdup(rep->summary[i]);
    return NULL;
}

/* run.json "answer": the plan, from report.json, capped at --limit recommendations so
 * that the envelope stays small (docs/commands/run.md) and an agent needs no second read. */
static void run_answer(runner *r, const fp_report_doc *rep)
{
    fp_run_answer *a = calloc(1, sizeof *a);
    if (!a)
        abort();
    a->bound = fp_model_strdup(rep->bound.bound);
    a->bound_confidence = fp_model_strdup(rep->bound.confidence);
    a->optimal = rep->optimal;
    a->headline = fp_model_strdup(rep->headline);
    a->launch = summary_line(rep, "Launch:");
    a->speed_of_light = summary_line(rep, "Speed of light:");
    size_t n = rep->nrecs < (size_t)r->a->limit ? rep->nrecs : (size_t)r->a->limit;
    for (size_t i = 0; i < n; i++) {
        const fp_report_rec *rc = &rep->recs[i];
        fp_run_answer_rec *o = fp_model_push((void **)&a->recs, &a->nrecs, sizeof *o);
        o->rank = rc->rank;
        o->rule = fp_model_strdup(rc->rule);
        o->knob = fp_model_strdup(rc->knob);
        o->est_gain_pct = rc->est_gain_pct;
        const fp_rule *rule = fp_rule_find(rc->rule);
        o->gain_model = fp_model_strdup(rule ? fp_gain_model_text(rule->gain) : NULL);
        o->confidence = rc->confidence;
        o->confidence_label = fp_model_strdup(rc->confidence_label);
        o->evidence = fp_model_strdup(rc->evidence.hottest ? rc->evidence.hottest->source : NULL);
        o->acceptance = fp_model_strdup(rc->acceptance.text);
    }
    a->more_recommendations = (int)(rep->nrecs - n);
    a->report = fp_model_strdup(fp_artifact_name(FP_ART_REPORT));
    r->doc.answer = a;
}

static int report_record(runner *r, fp_run_step *entry, const cJSON *d, fp_err *err)
{
    /* the report step's envelope data, strictly (report_doc.h): its headline */
    fp_report_envelope rep;
    fp_err e = {0};
    if (fp_model_read(&fp_report_envelope_schema, d, &rep, "report data", &e))
        fp_warn(r->ctx, "%s", e.message);
    else if (rep.headline) {
        entry->has_summary = true;
        entry->summary = fp_model_strdup(rep.headline);
    }
    fp_model_free(&fp_report_envelope_schema, &rep);
    fp_err_clear(&e);
    char *rj = fp_bundle_path(r->bundle, FP_ART_REPORT);
    fp_report_doc doc;
    memset(&doc, 0, sizeof doc);
    if (fp_report_read_file(rj, &doc, &e) == 0)
        run_answer(r, &doc);
    else /* the steps are still the run's answer; say why the plan is missing */
        fp_warn(r->ctx, "run: no answer from %s: %s", fp_artifact_name(FP_ART_REPORT), e.message);
    fp_err_clear(&e);
    fp_report_doc_free(&doc);
    free(rj);
    return 0;
}

/* history add's envelope data (history_doc.h): the entry, whether it was new, the db */
static int history_record(runner *r, fp_run_step *entry, const cJSON *d, fp_err *err)
{
    fp_history_add_doc h;
    if (fp_model_read(&fp_history_add_schema, d, &h, "run/history.json data", err) != 0)
        return -1;
    entry->entry = fp_optd_of((double)h.id);
    entry->added = (fp_optb){true, h.added};
    entry->has_db = true;
    entry->db = fp_model_strdup(h.db);
    fp_model_free(&fp_history_add_schema, &h);
    return 0;
}

/* ---- the pipeline ---- */

typedef struct run_step {
    const char *name;
    const fp_command *cmd; /* the command this binary is re-run with; NULL: no process of its own */
    bool (*asked)(const runner *r); /* NULL: part of every run; else absent from run.json unless true */
    /* why the step is skipped (and *status: "skipped"/"unavailable"), NULL to run it */
    const char *(*skip)(const runner *r, const char **status);
    void (*argv)(fp_argvb *b, const runner *r); /* after "SELF <cmd>" */
    /* what it adds to its run.json entry from its envelope's data (may fail the step) */
    int (*record)(runner *r, fp_run_step *entry, const cJSON *data, fp_err *err);
    bool failure_warns; /* a failure only warns and the run goes on (an interrupt still stops it) */
} run_step;

static const run_step run_steps[] = {
    {"doctor", &fp_cmd_doctor, NULL, NULL, doctor_argv, doctor_record, false},
    /* tile is a model, not a measurement: the run goes on without it */
    {"tile", &fp_cmd_tile, NULL, tile_skip, tile_argv, NULL, true},
    {"capture", &fp_cmd_capture, NULL, NULL, capture_argv, capture_record, false},
    {"counters", NULL, NULL, counters_skip, NULL, counters_record, false},
    /* the GPU-free analyses on the captured dispatch */
    {"bubbles", &fp_cmd_bubbles, NULL, NULL, analysis_argv, NULL, false},
    {"map", &fp_cmd_map, NULL, NULL, analysis_argv, NULL, false},
    {"report", &fp_cmd_report, NULL, NULL, analysis_argv, report_record, false},
    /* publishing: the run's own bundle is complete without it */
    {"bundle", &fp_cmd_bundle, NULL, bundle_skip, bundle_argv, NULL, true},
    /* asked for explicitly, so a failure fails the run (a CI job must not lose its entry silently) */
    {"history", &fp_cmd_history, history_asked, NULL, history_argv, history_record, false},
};
#define N_RUN_STEPS (sizeof run_steps / sizeof run_steps[0])

/* Run one step's command; 0 when it succeeded or its failure only warns. */
static int run_child(runner *r, const run_step *s, fp_err *serr)
{
    fp_argvb b = {.cmd = s->cmd};
    fp_argv_push(&b, r->self);
    fp_argv_push(&b, s->cmd->name);
    s->argv(&b, r);
    if (b.unknown) {
        fp_argv_free(&b);
        return fp_err_set(serr, FP_INTERNAL, "run: `flyprof %s` has no option --%s", s->cmd->name, b.unknown);
    }
    fp_envelope_doc env;
    fp_err e = {0};
    int rc = step(r, s->name, &b, &env, &e);
    if (rc == 0 && s->record)
        rc = s->record(r, &r->doc.steps[r->doc.nsteps - 1], env.data, &e);
    fp_model_free(&fp_envelope_doc_schema, &env);
    fp_argv_free(&b);
    if (rc != 0 && s->failure_warns && e.code != FP_INTERRUPTED) {
        fp_sb m;
        fp_sb_init(&m);
        fp_sb_addf(&m, "%s: [%s] %s (continuing)", s->name, fp_code_name(e.code), e.message);
        fp_model_push_str(&r->doc.step_warnings, &r->doc.nstep_warnings, m.buf);
        fp_sb_free(&m);
        rc = 0;
    }
    if (rc != 0) {
        *serr = e;
        memset(&e, 0, sizeof e);
    }
    fp_err_clear(&e);
    return rc;
}

/* The steps in order until one fails; serr is that step's error. */
static int run_pipeline(runner *r, fp_err *serr)
{
    for (const run_step *s = run_steps; s < run_steps + N_RUN_STEPS; s++) {
        if (s->asked && !s->asked(r))
            continue;
        const char *status = "skipped";
        const char *why = s->skip ? s->skip(r, &status) : NULL;
        if (why)
            skipped(r, s->name, status, why);
        else if (s->cmd ? run_child(r, s, serr) : s->record(r, NULL, NULL, serr))
            return -1;
    }
    return 0;
}

/* Steps never reached are listed as "not-run" (history only when asked for). */
static void mark_not_run(runner *r)
{
    for (const run_step *st = run_steps; st < run_steps + N_RUN_STEPS; st++) {
        if (st->asked && !st->asked(r))
            continue;
        bool seen = false;
        for (size_t i = 0; i < r->doc.nsteps; i++)
            seen |= r->doc.steps[i].name && !strcmp(r->doc.steps[i].name, st->name);
        if (!seen)
            new_step(r, FP_RUN_STEP_NOT_RUN, st->name, "not-run");
    }
}

/* ---- run.json and the table ---- */

/* run.json's own keys, once the steps are done. */
static void run_doc(runner *r, int rc, const fp_err *serr)
{
    fp_run_doc *d = &r->doc;
    d->schema = 1;
    d->kernel = fp_model_strdup(r->kernel);
    d->status = fp_model_strdup(rc == 0 ? "ok" : serr->code == FP_INTERRUPTED ? "interrupted" : "failed");
    if (rc != 0)
        d->error = run_error(serr);
    d->tag = fp_model_strdup(r->a->tag);
    d->analysis_tag = fp_model_strdup(r->analysis_tag);
    d->seconds = now_s() - r->t0;
    static const fp_artifact files[] = {FP_ART_CAPTURE, FP_ART_COUNTERS, FP_ART_TILE,     FP_ART_BUBBLES,
                                        FP_ART_MAP,     FP_ART_REPORT,   FP_ART_REPORT_MD};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *p = fp_bundle_path(r->bundle, files[i]);
        fp_run_artifact *a = fp_model_push((void **)&d->artifacts, &d->nartifacts, sizeof *a);
        a->key = fp_model_strdup(fp_artifact_name(files[i]));
        a->present = fp_is_file(p) ? fp_model_strdup(a->key) : NULL;
        free(p);
    }
}

/* the headline first (report's one-line diagnosis), then what each step did */
static void run_table(const runner *r, fp_sb *t)
{
    const char *headline = NULL;
    for (size_t i = 0; i < r->doc.nsteps; i++)
        if (!strcmp(r->doc.steps[i].name, "report") && r->doc.steps[i].has_summary)
            headline = r->doc.steps[i].summary;
    fp_sb_addf(t, "%s\n\n", headline ? headline : "run: no report (see the steps)");
    const fp_run_answer *a = r->doc.answer;
    for (size_t i = 0; a && i < a->nrecs; i++) { /* the plan, then the steps */
        const fp_run_answer_rec *x = &a->recs[i];
        char gain[48] = "no gain estimate";
        if (x->est_gain_pct.known)
            snprintf(gain, sizeof gain, "est. gain <= %.2f%%", x->est_gain_pct.v);
        fp_sb_addf(t, "  %d. %s (%s, %s)%s%s\n     accept: %s\n", x->rank, x->knob, gain, x->confidence_label,
                   x->evidence ? " at " : "", x->evidence ? x->evidence : "", x->acceptance);
    }
    if (a && a->more_recommendations > 0)
        fp_sb_addf(t, "  (%d more in %s)\n", a->more_recommendations, a->report);
    if (a && (a->nrecs || a->more_recommendations))
        fp_sb_addc(t, '\n');
    for (size_t i = 0; i < r->doc.nsteps; i++) {
        const fp_run_step *s = &r->doc.steps[i];
        const char *why = s->reason, *sum = s->has_summary ? s->summary : NULL;
        fp_sb_addf(t, "  %-9s %-8s", s->name, s->status);
        if (s->form == FP_RUN_STEP_RAN)
            fp_sb_addf(t, " %7.1f s", s->seconds);
        else
            fp_sb_adds(t, "          ");
        /* why a step was skipped; what capture found (the report's summary is the headline) */
        if (why || (sum && strcmp(s->name, "report")))
            fp_sb_addf(t, "  %s", why ? why : sum);
        while (t->len && t->buf[t->len - 1] == ' ')
            t->buf[--t->len] = '\0';
        fp_sb_addc(t, '\n');
    }
    fp_sb_addf(t, "bundle: %s\n", r->bundle);
}

/* run.json is written on every exit; the run's answer is its data, or the
 * failing step's error with the steps attached. */
static int finish(fp_ctx *ctx, runner *r, int rc, fp_err *serr, fp_err *err)
{
    run_doc(r, rc, serr);
    /* the table and the envelope show the numbers of the file */
    fp_model_round(&fp_run_doc_schema, &r->doc);
    cJSON *doc = fp_model_write(&fp_run_doc_schema, &r->doc);
    char *rj = fp_bundle_path(r->bundle, FP_ART_RUN);
    fp_err werr = {0};
    int wrc = fp_bundle_write_json(rj, doc, r->bundle, &werr);
    free(rj);
    for (size_t i = 0; i < r->doc.nstep_warnings; i++)
        fp_warn(ctx, "%s", r->doc.step_warnings[i]);
    if (rc == 0 && wrc != 0) {
        *err = werr;
        memset(&werr, 0, sizeof werr);
        rc = -1;
        cJSON_Delete(doc);
    } else if (rc == 0) {
        ctx->data = doc;
        run_table(r, &ctx->table);
    } else {
        *err = *serr;
        memset(serr, 0, sizeof *serr);
        fp_err_extra(err, "run_json", cJSON_CreateString(fp_artifact_name(FP_ART_RUN)));
        cJSON *steps = cJSON_CreateArray();
        for (size_t i = 0; i < r->doc.nsteps; i++)
            cJSON_AddItemToArray(steps, fp_model_write(&fp_run_step_schema, &r->doc.steps[i]));
        fp_err_extra(err, "steps", steps);
        cJSON_Delete(doc);
    }
    fp_err_clear(&werr);
    return rc;
}

/* This binary, the bundle and its run/ directory. */
static int runner_open(runner *r, fp_ctx *ctx, fp_err *err)
{
    r->self = fp_proc_which(ctx->argv0, NULL);
    if (!r->self)
        r->self = fp_path_abs(ctx->argv0);
    /* every step re-runs it: refuse before the bundle exists when it cannot be */
    if (!r->self || access(r->self, X_OK) != 0)
        return fp_err_set(err, FP_INTERNAL, "cannot list the commands of %s", ctx->argv0);
    r->bundle = ctx->bundle ? fp_path_abs(ctx->bundle) : fp_capture_default_bundle(r->kernel);
    char *rundir = fp_path_join(r->bundle, "run");
    int rc = fp_mkdir_p(rundir, err);
    free(rundir);
    if (rc != 0)
        return -1;
    if (!ctx->bundle_abs)
        ctx->bundle_abs = strdup(r->bundle);
    return 0;
}

static void runner_free(runner *r)
{
    fp_run_doc_free(&r->doc);
    if (r->pmc)
        fp_model_free(&fp_capture_schema, &(fp_capture_doc){.pmc = r->pmc});
    free(r->bundle);
    free(r->self);
    free(r->gpu_name);
}

static int run_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)npos;
    run_args *a = argsp;
    runner r = {.ctx = ctx, .a = a, .kernel = pos[0], .t0 = now_s(),
                .analysis_tag = !strcmp(a->tag, "small") ? "small" : "big"};
    if (!r.kernel[0])
        return fp_err_set(err, FP_USAGE, "KERNEL must not be empty");
    if (!ctx->argv0 || !ctx->argv0[0])
        return fp_err_set(err, FP_INTERNAL, "run needs the path of this binary");
    {
        /* a malformed setting (--gpu x) is a mistake in this command line: refuse
         * it before the bundle exists, not as a failed doctor step inside it */
        fp_config cfg;
        if (fp_config_load(&cfg, &a->cfg, err) != 0)
            return -1;
        fp_config_free(&cfg);
    }
    int rc = runner_open(&r, ctx, err);
    if (rc == 0) {
        fp_err serr = {0};
        rc = run_pipeline(&r, &serr);
        mark_not_run(&r);
        rc = finish(ctx, &r, rc, &serr, err);
        fp_err_clear(&serr);
    }
    runner_free(&r);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule run_paths[] = {
    FP_CONFIG_PATH_RULES, {.opt = "bundle", .kind = FP_PATH_OUT_DIR}, {.opt = "examples-dir", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const run_examples[] = {
    "flyprof run softmax --shape 32768,8192,bf16",
    "flyprof run gemm --shape 4096,4096,4096,bf16 --history --limit 3 -f json",
    NULL,
};

const fp_command fp_cmd_run = {
    .examples = run_examples,
    .next = "apply the top knob, flyprof run the kernel again into NEW, then flyprof diff --before {bundle} --after NEW",
    .name = "run",
    .summary = "the whole pipeline on one kernel: doctor, tile, capture (+counters), bubbles, map, report, bundle",
    .usage = "flyprof run KERNEL [--shape S] [--invocation CMD] [--tag small|big|both] [--iter-range R] "
             "[--timeout S] [--no-pmc] [--examples-dir DIR | --skip-bundle] [--jobs N] [--limit N] [--bundle DIR]",
    .details = "Each step re-runs this binary and writes its own artifact; envelopes and stderr of the steps "
               "are kept in <bundle>/run/, the summary in run.json. The first failing step's error is the run's "
               "error.",
    .opts = run_opts,
    .args_size = sizeof(run_args),
    .min_pos = 1,
    .max_pos = 1,
    .run = run_run,
    .paths = run_paths,
};
