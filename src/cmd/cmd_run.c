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
 * (counters) only warns, as in capture. Steps whose command is not part of
 * this binary (tile) are recorded as "unavailable", never faked.
 * run.json (= the envelope data) is written on every exit once the bundle exists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flyprof/bundle_path.h"
#include "flyprof/capture.h"
#include "flyprof/cli.h"
#include "flyprof/config.h"
#include "flyprof/fs.h"
#include "flyprof/heartbeat.h"
#include "flyprof/json.h"
#include "flyprof/proc.h"
#include "flyprof/report_doc.h"

static const char *const run_tag_choices[] = {"small", "big", "both", NULL};

typedef struct run_args {
    fp_config_args cfg;
    const char *shape, *invocation, *tag, *iter_range;
    const char *examples_dir;
    double timeout;
    bool no_pmc, skip_bundle, history;
    const char *history_db;
    long long jobs;
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
     "threads of the bubbles and report steps (0 = their default: online CPUs, at most 2)", NULL, NULL, 0, 64},
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

/* argv builder */
typedef struct argvb {
    const char *v[64];
    size_t n;
} argvb;

static void push(argvb *b, const char *s)
{
    if (b->n < 63)
        b->v[b->n++] = s;
    b->v[b->n] = NULL;
}

static void push_cfg(argvb *b, const fp_config_args *c)
{
    static const struct {
        const char *flag;
        size_t off;
    } F[] = {{"--worktree", offsetof(fp_config_args, worktree)}, {"--rocprofv3", offsetof(fp_config_args, rocprofv3)},
             {"--python", offsetof(fp_config_args, python)},     {"--gpu", offsetof(fp_config_args, gpu)},
             {"--arch", offsetof(fp_config_args, arch)},         {"--recipes", offsetof(fp_config_args, recipes)},
             {"--config", offsetof(fp_config_args, config)}};
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
        const char *v = *(const char *const *)((const char *)c + F[i].off);
        if (v) {
            push(b, F[i].flag);
            push(b, v);
        }
    }
}

typedef struct runner {
    fp_ctx *ctx;
    char *bundle;
    cJSON *steps;
    cJSON *warnings;
    cJSON *available; /* command names of this binary */
    double t0;
    int index, total;
} runner;

/* Run one step; returns 0 when its envelope says ok. On failure err holds the
 * step's own error (code, message, help). *out_env is the parsed envelope. */
static int step(runner *r, const char *name, argvb *b, cJSON **out_env, fp_err *err)
{
    *out_env = NULL;
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
    fp_err perr = {0};
    double t = now_s();
    int prc = fp_proc_run(&o, &pr, &perr);
    double secs = now_s() - t;
    cJSON *s = cJSON_CreateObject();
    fp_json_add_str(s, "name", name);
    fp_sb line;
    fp_sb_init(&line);
    fp_proc_argv_str(b->v + 1, &line);
    fp_json_add_str(s, "command", line.buf);
    fp_sb_free(&line);
    fp_json_add_num(s, "seconds", secs, 2);
    fp_json_add_int(s, "exit_code", pr.exited ? pr.exit_code : 128 + pr.term_signal);
    fp_json_add_str(s, "envelope", so);
    fp_json_add_str(s, "stderr", se);
    int rc = 0;
    cJSON *env = NULL;
    fp_err e2 = {0};
    if (prc != 0) {
        *err = perr;
        memset(&perr, 0, sizeof perr);
        rc = -1;
    } else if (fp_json_parse_file(sop, &env, &e2) != 0 || !cJSON_IsObject(env)) {
        rc = fp_err_set(err, FP_INTERNAL, "step %s printed no envelope (exit %d)", name,
                        pr.exited ? pr.exit_code : 128 + pr.term_signal);
        fp_err_help(err, "see %s in the bundle", se);
    } else if (!cJSON_IsTrue(cJSON_GetObjectItem(env, "ok"))) {
        const cJSON *e = cJSON_GetObjectItem(env, "error");
        fp_err_set(err, code_by_name(fp_json_get_str(e, "code")), "%s: %s", name,
                   fp_json_get_str(e, "message") ? fp_json_get_str(e, "message") : "failed");
        if (fp_json_get_str(e, "help"))
            fp_err_help(err, "%s", fp_json_get_str(e, "help"));
        rc = -1;
    }
    fp_err_clear(&e2);
    fp_err_clear(&perr);
    if (env) { /* the kept step envelope is relocatable like the artifacts */
        fp_err e4 = {0};
        fp_bundle_write_json(sop, env, r->bundle, &e4);
        fp_err_clear(&e4);
    }
    const cJSON *w;
    const cJSON *warr = env ? cJSON_GetObjectItem(env, "warnings") : NULL;
    cJSON_ArrayForEach(w, warr)
    {
        if (cJSON_IsString(w)) {
            fp_sb m;
            fp_sb_init(&m);
            fp_sb_addf(&m, "%s: %s", name, w->valuestring);
            cJSON_AddItemToArray(r->warnings, cJSON_CreateString(m.buf));
            fp_sb_free(&m);
        }
    }
    fp_json_add_str(s, "status", rc == 0 ? "ok" : err->code == FP_INTERRUPTED ? "interrupted" : "failed");
    if (rc != 0) {
        cJSON *e = cJSON_AddObjectToObject(s, "error");
        fp_json_add_str(e, "code", fp_code_name(err->code));
        fp_json_add_str(e, "message", err->message);
    }
    cJSON_AddItemToArray(r->steps, s);
    fp_progress(r->ctx, "run: [%d] %-8s %s (%.1fs, total %.1fs)", r->index, name,
                rc == 0 ? "ok" : fp_code_name(err->code), secs, now_s() - r->t0);
    free(sop);
    free(sep);
    *out_env = env;
    return rc;
}

static void skipped(runner *r, const char *name, const char *status, const char *why)
{
    cJSON *s = cJSON_CreateObject();
    fp_json_add_str(s, "name", name);
    fp_json_add_str(s, "status", status);
    fp_json_add_str(s, "reason", why);
    cJSON_AddItemToArray(r->steps, s);
    fp_progress(r->ctx, "run: [-] %-8s %s: %s", name, status, why);
}

static bool has_command(const runner *r, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, r->available)
    {
        const char *n = fp_json_get_str(c, "name");
        if (n && !strcmp(n, name))
            return true;
    }
    return false;
}


static int run_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)npos;
    run_args *a = argsp;
    const char *kernel = pos[0];
    if (!kernel[0])
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
    runner r = {.ctx = ctx, .t0 = now_s()};
    /* what this binary can do (re-running it is the only way to call a step) */
    char *self = fp_proc_which(ctx->argv0, NULL);
    if (!self)
        self = fp_path_abs(ctx->argv0);
    {
        const char *hv[] = {self, "help", "-f", "json", NULL};
        fp_sb out;
        fp_sb_init(&out);
        fp_proc_opts o = {.argv = hv, .stdout_buf = &out, .timeout_s = 30};
        fp_proc_result pr;
        fp_err e = {0};
        cJSON *h = NULL;
        if (fp_proc_run(&o, &pr, &e) == 0)
            h = cJSON_Parse(out.buf);
        fp_sb_free(&out);
        fp_err_clear(&e);
        cJSON *cmds = h ? cJSON_DetachItemFromObject(cJSON_GetObjectItem(h, "data"), "commands") : NULL;
        cJSON_Delete(h);
        if (!cmds) {
            free(self);
            return fp_err_set(err, FP_INTERNAL, "cannot list the commands of %s", ctx->argv0);
        }
        r.available = cmds;
    }
    r.bundle = ctx->bundle ? fp_path_abs(ctx->bundle) : fp_capture_default_bundle(kernel);
    char *rundir = fp_path_join(r.bundle, "run");
    int rc = fp_mkdir_p(rundir, err);
    free(rundir);
    if (rc != 0) {
        free(self);
        free(r.bundle);
        cJSON_Delete(r.available);
        return -1;
    }
    if (!ctx->bundle_abs)
        ctx->bundle_abs = strdup(r.bundle);
    r.steps = cJSON_CreateArray();
    r.warnings = cJSON_CreateArray();
    const char *analysis_tag = !strcmp(a->tag, "small") ? "small" : "big";
    cJSON *env = NULL;
    fp_err serr = {0};

    /* 1. doctor: any blocker stops the run with that blocker's code */
    argvb b = {.n = 0};
    push(&b, self);
    push(&b, "doctor");
    push_cfg(&b, &a->cfg);
    push(&b, "-q");
    push(&b, "-f");
    push(&b, "json");
    rc = step(&r, "doctor", &b, &env, &serr);
    char *gpu_name = NULL;
    if (rc == 0) {
        const cJSON *d = cJSON_GetObjectItem(env, "data");
        const char *gn = fp_json_get_str(cJSON_GetObjectItem(d, "gpu"), "name");
        gpu_name = gn ? strdup(gn) : NULL;
        const char *verdict = fp_json_get_str(d, "verdict");
        cJSON *last = cJSON_GetArrayItem(r.steps, cJSON_GetArraySize(r.steps) - 1);
        fp_json_add_str(last, "summary", verdict);
        if (!verdict || strcmp(verdict, "ready")) {
            const cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "blockers"), 0);
            fp_sb all;
            fp_sb_init(&all);
            const cJSON *bl;
            cJSON_ArrayForEach(bl, cJSON_GetObjectItem(d, "blockers"))
            fp_sb_addf(&all, "%s%s", all.len ? ", " : "", fp_json_get_str(bl, "code"));
            fp_err_set(&serr, code_by_name(fp_json_get_str(b0, "code")), "doctor not ready: [%s] %s", all.buf,
                       fp_json_get_str(b0, "message") ? fp_json_get_str(b0, "message") : "");
            fp_err_help(&serr, "run `flyprof doctor` for the evidence and the fix of each blocker");
            fp_sb_free(&all);
            cJSON_ReplaceItemInObject(last, "status", cJSON_CreateString("failed"));
            rc = -1;
        }
    }
    cJSON_Delete(env);
    env = NULL;

    /* 2. tile: only if this binary has it; its failure does not stop the run */
    char *tile_shape = NULL;
    size_t ndims = 0;
    for (const char *p = a->shape; p && *p;) {
        size_t n = strcspn(p, ",");
        ndims += n > 0 && strspn(p, "0123456789") >= n;
        p += n + (p[n] == ',');
    }
    if (rc == 0) {
        if (!a->shape || ndims != 3) {
            /* tile models a GEMM tile: only an M,N,K shape says something about this kernel */
            skipped(&r, "tile", "skipped", a->shape ? "the shape is not M,N,K[,dtype] (tile models GEMM tiles)"
                                                    : "no --shape");
        } else if (has_command(&r, "tile")) {
            b.n = 0;
            push(&b, self);
            push(&b, "tile");
            /* tile wants M,N,K and the dtype apart: "32768,8192,bf16" -> --shape 32768,8192 --dtype bf16 */
            if (a->shape) {
                const char *last = strrchr(a->shape, ',');
                const char *tail = last ? last + 1 : a->shape;
                bool numeric = tail[0] && strspn(tail, "0123456789") == strlen(tail);
                if (!numeric && last) {
                    tile_shape = strndup(a->shape, (size_t)(last - a->shape));
                    push(&b, "--shape");
                    push(&b, tile_shape);
                    push(&b, "--dtype");
                    push(&b, tail);
                } else if (numeric) {
                    push(&b, "--shape");
                    push(&b, a->shape);
                }
            }
            if (gpu_name) {
                push(&b, "--gpu-name");
                push(&b, gpu_name);
            } else if (a->cfg.arch) {
                push(&b, "--arch");
                push(&b, a->cfg.arch);
            }
            push(&b, "--bundle");
            push(&b, r.bundle);
            push(&b, "-q");
            push(&b, "-f");
            push(&b, "json");
            fp_err te = {0};
            if (step(&r, "tile", &b, &env, &te) != 0) {
                if (te.code == FP_INTERRUPTED) {
                    serr = te;
                    memset(&te, 0, sizeof te);
                    rc = -1;
                } else {
                    fp_sb m;
                    fp_sb_init(&m);
                    fp_sb_addf(&m, "tile: [%s] %s (continuing)", fp_code_name(te.code), te.message);
                    cJSON_AddItemToArray(r.warnings, cJSON_CreateString(m.buf));
                    fp_sb_free(&m);
                }
            }
            fp_err_clear(&te);
            cJSON_Delete(env);
            env = NULL;
        } else {
            skipped(&r, "tile", "unavailable", "this flyprof build has no tile command");
        }
    }

    /* 3. capture (+ counters through --with-pmc) */
    if (rc == 0) {
        char tmo[32];
        snprintf(tmo, sizeof tmo, "%g", a->timeout);
        b.n = 0;
        push(&b, self);
        push(&b, "capture");
        push(&b, kernel);
        push(&b, "--bundle");
        push(&b, r.bundle);
        push(&b, "--tag");
        push(&b, a->tag);
        push(&b, "--timeout");
        push(&b, tmo);
        if (!a->no_pmc && has_command(&r, "counters"))
            push(&b, "--with-pmc");
        if (a->shape) {
            push(&b, "--shape");
            push(&b, a->shape);
        }
        if (a->invocation) {
            push(&b, "--invocation");
            push(&b, a->invocation);
        }
        if (a->iter_range) {
            push(&b, "--iter-range");
            push(&b, a->iter_range);
        }
        push_cfg(&b, &a->cfg);
        push(&b, "-f");
        push(&b, "json");
        if (ctx->quiet)
            push(&b, "-q");
        rc = step(&r, "capture", &b, &env, &serr);
        const cJSON *d = env ? cJSON_GetObjectItem(env, "data") : NULL;
        cJSON *last = cJSON_GetArrayItem(r.steps, cJSON_GetArraySize(r.steps) - 1);
        if (rc == 0)
            fp_json_add_str(last, "summary", fp_json_get_str(d, "kernel"));
        /* counters ran inside capture: give it its own line */
        const cJSON *pmc = d ? cJSON_GetObjectItem(d, "pmc") : NULL;
        if (rc == 0 && pmc) {
            cJSON *s = cJSON_CreateObject();
            fp_json_add_str(s, "name", "counters");
            fp_json_add_str(s, "status", fp_json_get_str(pmc, "status"));
            fp_json_add_str(s, "command", fp_json_get_str(pmc, "command"));
            fp_json_add_str(s, "via", "capture --with-pmc");
            fp_json_add_str(s, "artifact", fp_json_get_str(pmc, "counters_json"));
            cJSON_AddItemToArray(r.steps, s);
        } else if (rc == 0) {
            skipped(&r, "counters", a->no_pmc ? "skipped" : "unavailable",
                    a->no_pmc ? "--no-pmc" : "this flyprof build has no counters command");
        }
        cJSON_Delete(env);
        env = NULL;
    }

    /* 4-6. the GPU-free analyses on the captured dispatch */
    static const char *const analyses[] = {"bubbles", "map", "report"};
    for (size_t i = 0; i < 3 && rc == 0; i++) {
        if (!has_command(&r, analyses[i])) {
            skipped(&r, analyses[i], "unavailable", "this flyprof build does not have it");
            continue;
        }
        b.n = 0;
        push(&b, self);
        push(&b, analyses[i]);
        push(&b, "--bundle");
        push(&b, r.bundle);
        push(&b, "--tag");
        push(&b, analysis_tag);
        push(&b, "-q");
        push(&b, "-f");
        push(&b, "json");
        char jobs[24];
        if (a->jobs > 0 && strcmp(analyses[i], "map")) {
            snprintf(jobs, sizeof jobs, "%lld", a->jobs);
            push(&b, "--jobs");
            push(&b, jobs);
        }
        rc = step(&r, analyses[i], &b, &env, &serr);
        if (rc == 0 && !strcmp(analyses[i], "report")) {
            /* the report step's envelope data, strictly (report_doc.h): its headline */
            fp_report_envelope rep;
            fp_err e = {0};
            cJSON *last = cJSON_GetArrayItem(r.steps, cJSON_GetArraySize(r.steps) - 1);
            if (fp_model_read(&fp_report_envelope_schema, cJSON_GetObjectItem(env, "data"), &rep, "report data", &e))
                fp_warn(ctx, "%s", e.message);
            else if (rep.headline)
                fp_json_add_str(last, "summary", rep.headline);
            fp_model_free(&fp_report_envelope_schema, &rep);
        }
        cJSON_Delete(env);
        env = NULL;
    }

    /* 7. bundle: publish; a failure only warns (the run's own bundle is complete) */
    if (rc == 0 && a->skip_bundle) {
        skipped(&r, "bundle", "skipped", "--skip-bundle");
    } else if (rc == 0 && !has_command(&r, "bundle")) {
        skipped(&r, "bundle", "unavailable", "this flyprof build has no bundle command");
    } else if (rc == 0) {
        b.n = 0;
        push(&b, self);
        push(&b, "bundle");
        push(&b, "--bundle");
        push(&b, r.bundle);
        push(&b, "--tag");
        push(&b, analysis_tag);
        if (a->examples_dir) {
            push(&b, "--examples-dir");
            push(&b, a->examples_dir);
        }
        push(&b, "-q");
        push(&b, "-f");
        push(&b, "json");
        fp_err be = {0};
        if (step(&r, "bundle", &b, &env, &be) != 0) {
            if (be.code == FP_INTERRUPTED) {
                serr = be;
                memset(&be, 0, sizeof be);
                rc = -1;
            } else {
                fp_sb m;
                fp_sb_init(&m);
                fp_sb_addf(&m, "bundle: [%s] %s (continuing)", fp_code_name(be.code), be.message);
                cJSON_AddItemToArray(r.warnings, cJSON_CreateString(m.buf));
                fp_sb_free(&m);
            }
        }
        fp_err_clear(&be);
        cJSON_Delete(env);
        env = NULL;
    }

    /* 8. history (--history): asked for explicitly, so a failure fails the run
     * (a CI job must not lose its entry silently) */
    if (rc == 0 && a->history) {
        b.n = 0;
        push(&b, self);
        push(&b, "history");
        push(&b, "add");
        push(&b, "--bundle");
        push(&b, r.bundle);
        if (a->history_db) {
            push(&b, "--db");
            push(&b, a->history_db);
        }
        push(&b, "-q");
        push(&b, "-f");
        push(&b, "json");
        if (step(&r, "history", &b, &env, &serr) != 0) {
            rc = -1;
        } else {
            const cJSON *d = cJSON_GetObjectItem(env, "data");
            cJSON *last = cJSON_GetArrayItem(r.steps, cJSON_GetArraySize(r.steps) - 1);
            cJSON_AddItemToObject(last, "entry", cJSON_Duplicate(cJSON_GetObjectItem(d, "id"), 1));
            cJSON_AddItemToObject(last, "added", cJSON_Duplicate(cJSON_GetObjectItem(d, "added"), 1));
            fp_json_add_str(last, "db", fp_json_get_str(d, "db"));
        }
        cJSON_Delete(env);
        env = NULL;
    }

    /* steps never reached (history only when asked for) */
    static const char *const order[] = {"doctor", "tile",   "capture", "counters",
                                        "bubbles", "map", "report",  "bundle", "history"};
    for (size_t i = 0; i < sizeof order / sizeof order[0] - !a->history; i++) {
        bool seen = false;
        const cJSON *s;
        cJSON_ArrayForEach(s, r.steps)
        {
            const char *n = fp_json_get_str(s, "name");
            seen |= n && !strcmp(n, order[i]);
        }
        if (!seen) {
            cJSON *s2 = cJSON_CreateObject();
            fp_json_add_str(s2, "name", order[i]);
            fp_json_add_str(s2, "status", "not-run");
            cJSON_AddItemToArray(r.steps, s2);
        }
    }

    cJSON *doc = cJSON_CreateObject();
    fp_json_add_int(doc, "schema", 1);
    fp_json_add_str(doc, "kernel", kernel);
    fp_json_add_str(doc, "status", rc == 0 ? "ok" : serr.code == FP_INTERRUPTED ? "interrupted" : "failed");
    if (rc != 0) {
        cJSON *e = cJSON_AddObjectToObject(doc, "error");
        fp_json_add_str(e, "code", fp_code_name(serr.code));
        fp_json_add_str(e, "message", serr.message);
    }
    fp_json_add_str(doc, "tag", a->tag);
    fp_json_add_str(doc, "analysis_tag", analysis_tag);
    cJSON_AddItemToObject(doc, "steps", r.steps);
    cJSON_AddItemToObject(doc, "step_warnings", cJSON_Duplicate(r.warnings, 1));
    fp_json_add_num(doc, "seconds", now_s() - r.t0, 2);
    cJSON *art = cJSON_AddObjectToObject(doc, "artifacts");
    static const char *const files[] = {"capture.json", "counters.json", "tile.json", "bubbles.json",
                                        "map.json",     "report.json",   "REPORT.md"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *p = fp_path_join(r.bundle, files[i]);
        fp_json_add_str(art, files[i], fp_is_file(p) ? files[i] : NULL);
        free(p);
    }
    char *rj = fp_path_join(r.bundle, "run.json");
    fp_err werr = {0};
    int wrc = fp_bundle_write_json(rj, doc, r.bundle, &werr);
    free(rj);
    const cJSON *w;
    cJSON_ArrayForEach(w, r.warnings) fp_warn(ctx, "%s", w->valuestring);
    if (rc == 0 && wrc != 0) {
        *err = werr;
        memset(&werr, 0, sizeof werr);
        rc = -1;
        cJSON_Delete(doc);
    } else if (rc == 0) {
        ctx->data = doc;
        /* the headline first (report's one-line diagnosis), then what each step did */
        const cJSON *s;
        const char *headline = NULL;
        cJSON_ArrayForEach(s, r.steps)
        {
            if (!strcmp(fp_json_get_str(s, "name"), "report"))
                headline = fp_json_get_str(s, "summary");
        }
        fp_sb_addf(&ctx->table, "%s\n\n", headline ? headline : "run: no report (see the steps)");
        cJSON_ArrayForEach(s, r.steps)
        {
            double secs;
            const char *why = fp_json_get_str(s, "reason"), *sum = fp_json_get_str(s, "summary");
            fp_sb_addf(&ctx->table, "  %-9s %-8s", fp_json_get_str(s, "name"), fp_json_get_str(s, "status"));
            if (fp_jnum(s, "seconds", &secs))
                fp_sb_addf(&ctx->table, " %7.1f s", secs);
            else
                fp_sb_adds(&ctx->table, "          ");
            /* why a step was skipped; what capture found (the report's summary is the headline) */
            if (why || (sum && strcmp(fp_json_get_str(s, "name"), "report")))
                fp_sb_addf(&ctx->table, "  %s", why ? why : sum);
            while (ctx->table.len && ctx->table.buf[ctx->table.len - 1] == ' ')
                ctx->table.buf[--ctx->table.len] = '\0';
            fp_sb_addc(&ctx->table, '\n');
        }
        fp_sb_addf(&ctx->table, "bundle: %s\n", r.bundle);
    } else {
        *err = serr;
        memset(&serr, 0, sizeof serr);
        fp_err_extra(err, "run_json", cJSON_CreateString("run.json"));
        fp_err_extra(err, "steps", cJSON_Duplicate(r.steps, 1));
        cJSON_Delete(doc);
    }
    fp_err_clear(&werr);
    fp_err_clear(&serr);
    cJSON_Delete(r.warnings);
    cJSON_Delete(r.available);
    free(r.bundle);
    free(self);
    free(gpu_name);
    free(tile_shape);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule run_paths[] = {
    FP_CONFIG_PATH_RULES, {.opt = "bundle", .kind = FP_PATH_OUT_DIR}, {.opt = "examples-dir", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

const fp_command fp_cmd_run = {
    .name = "run",
    .summary = "the whole pipeline on one kernel: doctor, tile, capture (+counters), bubbles, map, report, bundle",
    .usage = "flyprof run KERNEL [--shape S] [--invocation CMD] [--tag small|big|both] [--iter-range R] "
             "[--timeout S] [--no-pmc] [--examples-dir DIR | --skip-bundle] [--jobs N] [--bundle DIR]",
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
