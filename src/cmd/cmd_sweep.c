/*
 * cmd_sweep.c - `flyprof sweep --spec SPEC --out DIR`: a kernels x shapes matrix,
 * one task per (kernel, shape), each task exactly
 *     flyprof run KERNEL --shape S --bundle DIR/<task> [the sweep's run options]
 * run on this machine (--backend local: up to one task per visible GPU at a time,
 * ROCR_VISIBLE_DEVICES per task) or on Slurm (--backend slurm: one sbatch array,
 * one GPU per task, and a dependent aggregation job), folded into DIR/sweep.json,
 * DIR/sweep.txt and DIR/sweep.svg (docs/commands/sweep.md).
 *
 * State lives in DIR so every step can be re-run: tasks.json (the tasks, the run
 * options, the Slurm jobs), tasks/<task>.result.json (a finished task), the task's
 * envelope and stderr next to it, and the bundle DIR/<task>, which appears whole
 * (the run writes into DIR/.partial/ and is renamed into place). A re-run of the
 * same sweep skips the tasks that ended ok and runs the others again.
 *
 * The modes are one table (sweep_modes): --run-task (one array task, what the Slurm
 * job runs), --aggregate (the dependent job), --status, --cancel, and the submit.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "flyprof/bundle.h"
#include "flyprof/bundle_path.h"
#include "flyprof/cli.h"
#include "flyprof/config.h"
#include "flyprof/envelope_doc.h"
#include "flyprof/fs.h"
#include "flyprof/heartbeat.h"
#include "flyprof/history_doc.h"
#include "flyprof/json.h"
#include "flyprof/proc.h"
#include "flyprof/report_doc.h"
#include "flyprof/sweep.h"
#include "flyprof/sweep_doc.h"
#include "flyprof/yaml_json.h"

#include "child_argv.h"
#include "commands.h"
#include "sweep_slurm.h"

static const char *const backend_choices[] = {"local", "slurm", NULL};
static const char *const sweep_tag_choices[] = {"small", "big", "both", NULL};

typedef struct sweep_args {
    fp_config_args cfg;
    const char *spec, *out, *backend, *history;
    bool wait, status, cancel, aggregate;
    long long run_task, parallel;
    /* passed to every task's `flyprof run` */
    const char *tag, *iter_range, *examples_dir;
    double timeout;
    bool no_pmc, skip_bundle;
    long long jobs;
} sweep_args;

static const fp_opt sweep_opts[] = {
    {"spec", 0, FP_OPT_STR, offsetof(sweep_args, spec), "FILE", "the matrix: kernels, shapes, slurm (YAML or JSON)",
     NULL, NULL, 0, 0},
    {"out", 0, FP_OPT_STR, offsetof(sweep_args, out), "DIR", "the sweep's directory (bundles, summary, state)", NULL,
     NULL, 0, 0},
    {"backend", 0, FP_OPT_CHOICE, offsetof(sweep_args, backend), "B", "local (this machine) or slurm", "local",
     backend_choices, 0, 0},
    {"history", 0, FP_OPT_STR, offsetof(sweep_args, history), "FILE",
     "add every ok task's bundle to this history db (by the aggregation, serially)", NULL, NULL, 0, 0},
    {"wait", 0, FP_OPT_FLAG, offsetof(sweep_args, wait), NULL, "slurm: block until the aggregation is done", NULL,
     NULL, 0, 0},
    {"status", 0, FP_OPT_FLAG, offsetof(sweep_args, status), NULL, "report the progress of the sweep in --out",
     NULL, NULL, 0, 0},
    {"cancel", 0, FP_OPT_FLAG, offsetof(sweep_args, cancel), NULL, "scancel the sweep's Slurm jobs", NULL, NULL, 0, 0},
    {"aggregate", 0, FP_OPT_FLAG, offsetof(sweep_args, aggregate), NULL,
     "fold the tasks' results into sweep.json (what the dependent Slurm job runs)", NULL, NULL, 0, 0},
    {"run-task", 0, FP_OPT_INT, offsetof(sweep_args, run_task), "N",
     "run task N of --out's tasks.json (what each Slurm array task runs)", "-1", NULL, -1, 1000000},
    {"parallel", 0, FP_OPT_INT, offsetof(sweep_args, parallel), "N",
     "local: tasks at once (default: the visible GPUs / gpus_per_task, at least 1)", NULL, NULL, 0, 256},
    {"tag", 0, FP_OPT_CHOICE, offsetof(sweep_args, tag), "TAG", "run --tag", NULL, sweep_tag_choices, 0, 0},
    {"iter-range", 0, FP_OPT_STR, offsetof(sweep_args, iter_range), "R", "run --iter-range", NULL, NULL, 0, 0},
    {"timeout", 0, FP_OPT_DOUBLE, offsetof(sweep_args, timeout), "S", "run --timeout", NULL, NULL, 0, 0},
    {"no-pmc", 0, FP_OPT_FLAG, offsetof(sweep_args, no_pmc), NULL, "run --no-pmc", NULL, NULL, 0, 0},
    {"examples-dir", 0, FP_OPT_STR, offsetof(sweep_args, examples_dir), "DIR", "run --examples-dir", NULL, NULL, 0, 0},
    {"skip-bundle", 0, FP_OPT_FLAG, offsetof(sweep_args, skip_bundle), NULL, "run --skip-bundle", NULL, NULL, 0, 0},
    {"jobs", 0, FP_OPT_INT, offsetof(sweep_args, jobs), "N", "run --jobs", NULL, NULL, 0, 64},
    FP_CONFIG_OPTS(sweep_args, cfg),
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the spec ---- */

static int spec_check(const fp_sweep_spec *s, const char *path, fp_err *err)
{
    if (!s->nkernels)
        return fp_err_set(err, FP_BAD_INPUT, "%s: $.kernels: empty (a sweep needs at least one kernel)", path);
    for (size_t i = 0; i < s->nkernels; i++) {
        const fp_sweep_kernel *k = &s->kernels[i];
        if (!k->name || !k->name[0] || k->name[0] == '-')
            return fp_err_set(err, FP_BAD_INPUT, "%s: $.kernels[%zu].name: a kernel name (not empty, not an option)",
                              path, i);
        if (!k->nshapes)
            return fp_err_set(err, FP_BAD_INPUT, "%s: $.kernels[%zu].shapes: empty", path, i);
        for (size_t j = 0; j < k->nshapes; j++)
            if (!k->shapes[j] || !k->shapes[j][0] || k->shapes[j][0] == '-')
                return fp_err_set(err, FP_BAD_INPUT, "%s: $.kernels[%zu].shapes[%zu]: a shape such as "
                                  "\"4096,8192,bf16\"", path, i, j);
    }
    double g = s->gpus_per_task.v;
    if (s->gpus_per_task.known && (g < 1 || g > 64 || g != (double)(int)g))
        return fp_err_set(err, FP_BAD_INPUT, "%s: $.gpus_per_task: an integer from 1 to 64", path);
    return 0;
}

static int spec_load(const char *path, fp_sweep_spec *s, fp_err *err)
{
    cJSON *j = NULL;
    if (fp_yaml_json_parse_file(path, &j, err) != 0)
        return -1;
    int rc = fp_model_read(&fp_sweep_spec_schema, j, s, path, err);
    cJSON_Delete(j);
    if (rc == 0 && (rc = spec_check(s, path, err)) != 0)
        fp_model_free(&fp_sweep_spec_schema, s);
    return rc;
}

/* The tasks of the spec, in its order; a (kernel, shape) given twice is refused. */
static int spec_tasks(const fp_sweep_spec *s, const char *path, fp_sweep_state *st, fp_err *err)
{
    for (size_t i = 0; i < s->nkernels; i++)
        for (size_t j = 0; j < s->kernels[i].nshapes; j++) {
            char *name = fp_sweep_task_name(s->kernels[i].name, s->kernels[i].shapes[j]);
            for (size_t k = 0; k < st->ntasks; k++)
                if (!strcmp(st->tasks[k].name, name)) {
                    fp_err_set(err, FP_BAD_INPUT, "%s: $.kernels[%zu]: the task %s is given twice", path, i, name);
                    free(name);
                    return -1;
                }
            fp_sweep_task *t = fp_model_push((void **)&st->tasks, &st->ntasks, sizeof *t);
            t->id = (int)st->ntasks - 1;
            t->name = name;
            t->kernel = fp_model_strdup(s->kernels[i].name);
            t->shape = fp_model_strdup(s->kernels[i].shapes[j]);
        }
    return 0;
}

/* ---- the options every task's run gets ---- */

/* Spelled from run's own option table (child_argv.h), so sweep can only pass what
 * run accepts. --gpu is not among them: the sweep gives each task its GPU. */
static int run_args_of(const sweep_args *a, fp_sweep_state *st, fp_err *err)
{
    fp_argvb b = {.cmd = &fp_cmd_run};
    fp_sb v;
    fp_sb_init(&v);
    fp_argv_opt(&b, "tag", a->tag);
    fp_argv_opt(&b, "iter-range", a->iter_range);
    if (a->timeout > 0) {
        fp_sb_addf(&v, "%g", a->timeout);
        fp_argv_opt(&b, "timeout", fp_argv_own(&b, &v));
    }
    fp_argv_flag(&b, "no-pmc", a->no_pmc);
    fp_argv_opt(&b, "examples-dir", a->examples_dir);
    fp_argv_flag(&b, "skip-bundle", a->skip_bundle);
    if (a->jobs > 0) {
        fp_sb_addf(&v, "%lld", a->jobs);
        fp_argv_opt(&b, "jobs", fp_argv_own(&b, &v));
    }
    const fp_config_args *c = &a->cfg;
    const char *const cfg[][2] = {{"worktree", c->worktree}, {"rocprofv3", c->rocprofv3}, {"python", c->python},
                                  {"arch", c->arch},         {"recipes", c->recipes},     {"config", c->config}};
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        char *abs = cfg[i][1] && strchr(cfg[i][1], '/') ? fp_path_abs(cfg[i][1]) : NULL;
        if (abs) { /* the tasks run elsewhere (a Slurm node's cwd): paths made absolute */
            fp_sb_adds(&v, abs);
            free(abs);
        }
        fp_argv_opt(&b, cfg[i][0], v.len ? fp_argv_own(&b, &v) : cfg[i][1]);
    }
    fp_sb_free(&v);
    int rc = 0;
    if (b.unknown)
        rc = fp_err_set(err, FP_INTERNAL, "sweep: `flyprof run` has no option --%s", b.unknown);
    for (size_t i = 0; rc == 0 && i < b.n; i++)
        fp_model_push_str(&st->run_args, &st->nrun_args, b.v[i]);
    fp_argv_free(&b);
    return rc;
}

/* ---- files of the sweep's directory ---- */

static char *dir_file(const char *dir, const char *fmt, const char *name)
{
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_addf(&s, "%s/", dir);
    fp_sb_addf(&s, fmt, name);
    return fp_sb_detach(&s);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(p);
}

/* Remove a tree without following a symlink in it. */
static void rm_tree(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) == 0)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int state_write(const char *dir, fp_sweep_state *st, fp_err *err)
{
    char *p = dir_file(dir, "%s", "tasks.json");
    int rc = fp_model_write_file(&fp_sweep_state_schema, st, p, err);
    free(p);
    return rc;
}

static int state_read(const char *dir, fp_sweep_state *st, fp_err *err)
{
    char *p = dir_file(dir, "%s", "tasks.json");
    int rc = fp_model_read_file(&fp_sweep_state_schema, p, st, err);
    if (rc != 0 && err->code == FP_NO_ARTIFACT)
        fp_err_help(err, "--out must be the directory of a sweep (`flyprof sweep --spec SPEC --out DIR` makes one)");
    free(p);
    return rc;
}

/* A task is done when it ended ok and its bundle has its report: a re-run skips it. */
static bool task_done(const char *dir, const fp_sweep_task *t)
{
    char *rp = dir_file(dir, "tasks/%s.result.json", t->name);
    fp_sweep_result r;
    fp_err e = {0};
    bool ok = fp_model_read_file(&fp_sweep_result_schema, rp, &r, &e) == 0;
    fp_err_clear(&e);
    bool done = ok && r.exit_code == 0;
    if (ok)
        fp_model_free(&fp_sweep_result_schema, &r);
    free(rp);
    if (done) {
        char *b = dir_file(dir, "%s", t->name);
        char *rep = fp_bundle_path(b, FP_ART_REPORT);
        done = fp_is_file(rep);
        free(rep);
        free(b);
    }
    return done;
}

/* ---- one task ---- */

typedef struct task_env {
    const char *gpus;   /* ROCR_VISIBLE_DEVICES for the task, NULL = as inherited */
    const char *job_id; /* "<array>_<index>" on Slurm */
} task_env;

/* The task's envelope (its run's stdout) -> the result's error code and message;
 * false when it printed none. */
static bool result_of_envelope(const char *envp, fp_sweep_result *r)
{
    bool have = false;
    cJSON *j = NULL;
    fp_err e = {0};
    fp_envelope_doc env;
    memset(&env, 0, sizeof env);
    if (fp_json_parse_file(envp, &j, &e) == 0 && fp_model_read(&fp_envelope_doc_schema, j, &env, envp, &e) == 0) {
        have = true;
        if (!env.ok && env.error) {
            r->error = fp_model_strdup(env.error->code);
            r->message = fp_model_strdup(env.error->message);
        }
        fp_model_free(&fp_envelope_doc_schema, &env);
    }
    cJSON_Delete(j);
    fp_err_clear(&e);
    return have;
}

/* Put the finished bundle in place: DIR/<task> is replaced whole (a failed
 * earlier attempt's bundle goes; an ok one is never re-run, so never replaced). */
static void bundle_into_place(const char *dir, const fp_sweep_task *t, const char *partial)
{
    char *final = dir_file(dir, "%s", t->name);
    char *old = fp_model_printf("%s.old", partial);
    if (rename(final, old) != 0 && errno != ENOENT)
        rm_tree(final);
    if (fp_is_dir(partial) && rename(partial, final) != 0)
        rm_tree(partial);
    rm_tree(old);
    free(old);
    free(final);
}

/* Run one task to its end and record it in tasks/<task>.result.json. */
static int run_task(fp_ctx *ctx, const char *dir, const fp_sweep_state *st, const fp_sweep_task *t,
                    const task_env *te, fp_sweep_result *r, fp_err *err)
{
    char *pdir = dir_file(dir, "%s", ".partial");
    char *partial = fp_model_printf("%s/%s.%ld", pdir, t->name, (long)getpid());
    char *envp = dir_file(dir, "tasks/%s.json", t->name), *errp = dir_file(dir, "tasks/%s.stderr.txt", t->name);
    rm_tree(partial);
    int rc = fp_mkdir_p(pdir, err);
    const char *argv[64];
    size_t n = 0;
    argv[n++] = st->flyprof;
    argv[n++] = "run";
    argv[n++] = t->kernel;
    argv[n++] = "--shape";
    argv[n++] = t->shape;
    argv[n++] = "--bundle";
    argv[n++] = partial;
    for (size_t i = 0; i < st->nrun_args && n < 60; i++)
        argv[n++] = st->run_args[i];
    argv[n++] = "-f";
    argv[n++] = "json";
    argv[n++] = "-q";
    argv[n] = NULL;
    char *gpu_env = te->gpus ? fp_model_printf("ROCR_VISIBLE_DEVICES=%s", te->gpus) : NULL;
    const char *env[] = {gpu_env, NULL};
    fp_proc_opts o = {.argv = argv, .env = gpu_env ? env : NULL, .stdout_path = envp, .stderr_path = errp,
                      .interrupted = ctx->interrupted};
    fp_proc_result pr;
    memset(&pr, 0, sizeof pr);
    fp_err perr = {0};
    double t0 = now_s();
    int prc = rc == 0 ? fp_proc_run(&o, &pr, &perr) : -1;
    memset(r, 0, sizeof *r);
    r->task = fp_model_strdup(t->name);
    r->exit_code = pr.exited ? pr.exit_code : pr.term_signal ? 128 + pr.term_signal : 130;
    r->job_id = fp_model_strdup(te->job_id);
    r->seconds = now_s() - t0;
    if (!result_of_envelope(envp, r) && (prc != 0 || r->exit_code != 0)) {
        /* it never ran, or was killed (this task's SIGTERM from Slurm: INTERRUPTED) before its envelope */
        r->error = fp_model_strdup(prc != 0 ? fp_code_name(perr.code) : "INTERNAL");
        r->message = prc != 0 ? fp_model_strdup(perr.message)
                              : fp_model_printf("the task printed no envelope (exit %d)", r->exit_code);
    }
    bundle_into_place(dir, t, partial);
    char *rp = dir_file(dir, "tasks/%s.result.json", t->name);
    if (rc == 0)
        rc = fp_model_write_file(&fp_sweep_result_schema, r, rp, err);
    fp_err_clear(&perr);
    free(rp), free(gpu_env), free(envp), free(errp), free(partial), free(pdir);
    return rc;
}

/* ---- the local backend ---- */

/* The GPU ids tasks may be given: ROCR_VISIBLE_DEVICES when set (a Slurm
 * allocation or the user's choice), else every GPU node of the KFD topology
 * (a node with SIMDs; its index among them is its ROCR index). */
static size_t visible_gpus(char ***ids)
{
    size_t n = 0;
    const char *rv = getenv("ROCR_VISIBLE_DEVICES");
    if (rv && rv[0]) {
        for (const char *p = rv; *p;) {
            size_t k = strcspn(p, ",");
            char id[64];
            snprintf(id, sizeof id, "%.*s", (int)(k < sizeof id ? k : sizeof id - 1), p);
            if (k)
                fp_model_push_str(ids, &n, id);
            p += k + (p[k] == ',');
        }
        return n;
    }
    for (int node = 0; node < 256; node++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/class/kfd/kfd/topology/nodes/%d/properties", node);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        char line[256];
        long simds = 0;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "simd_count %ld", &simds) == 1)
                break;
        fclose(f);
        if (simds > 0) {
            char id[16];
            snprintf(id, sizeof id, "%zu", n);
            fp_model_push_str(ids, &n, id);
        }
    }
    return n;
}

typedef struct pool {
    fp_ctx *ctx;
    const char *dir;
    const fp_sweep_state *st;
    const int *todo;
    size_t ntodo, next, finished;
    pthread_mutex_t mu;
    int rc;
    fp_err err;
    double t0;
} pool;

typedef struct slot {
    pool *p;
    char *gpus; /* this slot's ROCR_VISIBLE_DEVICES, NULL = inherited */
} slot;

static void *worker(void *arg)
{
    slot *s = arg;
    pool *p = s->p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        bool stop = p->next >= p->ntodo || p->rc != 0 || *p->ctx->interrupted;
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            return NULL;
        const fp_sweep_task *t = &p->st->tasks[p->todo[i]];
        fp_sweep_result r;
        fp_err e = {0};
        task_env te = {.gpus = s->gpus};
        int rc = run_task(p->ctx, p->dir, p->st, t, &te, &r, &e);
        pthread_mutex_lock(&p->mu);
        p->finished++;
        fp_progress(p->ctx, "sweep: [%zu/%zu] %s %s: %s (%.1f s, total %.1f s)", p->finished, p->ntodo, t->kernel,
                    t->shape, r.exit_code == 0 ? "ok" : r.error ? r.error : "failed", r.seconds, now_s() - p->t0);
        if (rc != 0 && p->rc == 0) {
            p->rc = rc;
            p->err = e;
        } else {
            fp_err_clear(&e);
        }
        pthread_mutex_unlock(&p->mu);
        fp_model_free(&fp_sweep_result_schema, &r);
    }
}

/* Run the todo tasks, `nslots` at a time, slot k with GPUs [k*g, k*g+g). */
static int run_local(fp_ctx *ctx, const char *dir, const fp_sweep_state *st, const int *todo, size_t ntodo,
                     long long parallel, fp_err *err)
{
    char **gpus = NULL;
    size_t ngpus = visible_gpus(&gpus);
    size_t g = st->spec.gpus_per_task.known ? (size_t)st->spec.gpus_per_task.v : 1;
    size_t nslots = parallel > 0 ? (size_t)parallel : ngpus / g;
    /* Two profiled tasks on one GPU contend for it: their times and counters are
     * each other's noise. With GPUs visible, never more slots than GPU sets. */
    if (ngpus && nslots > ngpus / g) {
        size_t fit = ngpus / g ? ngpus / g : 1;
        fp_warn(ctx, "--parallel %lld > %zu GPU set(s) of %zu (%zu GPU(s) visible): tasks sharing a GPU would skew "
                     "each other's times and counters; running %zu at a time",
                parallel, fit, g, ngpus, fit);
        nslots = fit;
    }
    if (nslots < 1)
        nslots = 1;
    if (nslots > ntodo)
        nslots = ntodo ? ntodo : 1;
    pool p = {.ctx = ctx, .dir = dir, .st = st, .todo = todo, .ntodo = ntodo, .t0 = now_s()};
    pthread_mutex_init(&p.mu, NULL);
    slot *slots = calloc(nslots, sizeof *slots);
    pthread_t *th = calloc(nslots, sizeof *th);
    if (!slots || !th)
        abort();
    for (size_t k = 0; k < nslots; k++) {
        slots[k].p = &p;
        fp_sb ids;
        fp_sb_init(&ids);
        for (size_t j = k * g; ngpus && j < k * g + g; j++) /* gpus_per_task > visible: the set wraps */
            fp_sb_addf(&ids, "%s%s", ids.len ? "," : "", gpus[j % ngpus]);
        slots[k].gpus = ids.len ? fp_sb_detach(&ids) : NULL;
        fp_sb_free(&ids);
    }
    fp_progress(ctx, "sweep: %zu task(s) on this machine, %zu at a time (%zu GPU(s) visible)", ntodo, nslots, ngpus);
    for (size_t k = 0; k < nslots; k++)
        if (pthread_create(&th[k], NULL, worker, &slots[k]) != 0)
            abort();
    for (size_t k = 0; k < nslots; k++)
        pthread_join(th[k], NULL);
    for (size_t k = 0; k < nslots; k++)
        free(slots[k].gpus);
    free(slots);
    free(th);
    fp_strv_free(gpus, ngpus);
    pthread_mutex_destroy(&p.mu);
    if (p.rc != 0) {
        *err = p.err;
        return -1;
    }
    if (*ctx->interrupted) {
        fp_err_set(err, FP_INTERRUPTED, "sweep interrupted; finished tasks are kept");
        return fp_err_help(err, "re-run the same sweep to finish the others");
    }
    return 0;
}

/* ---- folding the results ---- */

/* What the task's report says: time, bound, the first recommendation. */
static void row_from_report(fp_sweep_row *row, const char *bundle)
{
    char *rp = fp_bundle_path(bundle, FP_ART_REPORT);
    fp_report_doc rep;
    fp_err e = {0};
    if (fp_report_read_file(rp, &rep, &e) == 0) {
        /* the report's time and where it comes from (counters, the CSV's median, the trace) */
        if (rep.time && rep.time->ns.known) {
            row->duration_us = fp_optd_of(rep.time->ns.v / 1000.0);
            row->time_source = fp_model_strdup(rep.time->source);
        } else if (rep.workload.time_ns_per_call.known) {
            row->duration_us = fp_optd_of(rep.workload.time_ns_per_call.v / 1000.0);
        }
        row->bound = fp_model_strdup(rep.bound.bound);
        if (rep.nrecs) {
            row->first_rule = fp_model_strdup(rep.recs[0].rule);
            row->gain_pct = rep.recs[0].est_gain_pct; /* null when the trace is not representative */
        }
        fp_report_doc_free(&rep);
    } else {
        row->reason = fp_model_printf("report.json unreadable: %s", e.message);
    }
    fp_err_clear(&e);
    free(rp);
}

/* A task that has not ended ok by its own account: what Slurm says, if anything. */
static void row_from_slurm(fp_sweep_row *row, const fp_slurm_task_state *ss, bool have_result)
{
    const char *st = ss && ss->known ? fp_sweep_status_of_slurm(ss->state) : NULL;
    if (ss && ss->known && !row->job_id)
        row->job_id = fp_model_strdup(ss->job_id);
    /* a task Slurm killed (time limit, scancel) may still have written its result
     * on SIGTERM: Slurm's word decides between timeout and cancelled */
    bool killed = !have_result || (row->error && !strcmp(row->error, "INTERRUPTED")) ||
                  (row->exit_code.known && row->exit_code.v >= 128);
    if (st && killed && strcmp(st, "ok")) {
        free(row->status);
        row->status = fp_model_strdup(st);
        free(row->reason);
        row->reason = fp_model_printf("slurm: %s (%s)", ss->state, ss->reason[0] ? ss->reason : "no reason");
    } else if (!have_result) {
        free(row->status);
        row->status = fp_model_strdup(st && !strcmp(st, "ok") ? "failed" : "not-run");
        if (st && !strcmp(st, "ok"))
            row->reason = fp_model_strdup("slurm says COMPLETED but the task left no result");
    }
}

static void fold_row(const char *dir, const fp_sweep_task *t, const fp_slurm_task_state *ss, fp_sweep_row *row)
{
    row->id = t->id;
    row->task = fp_model_strdup(t->name);
    row->kernel = fp_model_strdup(t->kernel);
    row->shape = fp_model_strdup(t->shape);
    char *rp = dir_file(dir, "tasks/%s.result.json", t->name), *b = dir_file(dir, "%s", t->name);
    fp_sweep_result r;
    fp_err e = {0};
    bool have = fp_model_read_file(&fp_sweep_result_schema, rp, &r, &e) == 0;
    int exit_code = have ? r.exit_code : -1;
    if (have) {
        row->exit_code = fp_optd_of(r.exit_code);
        row->status = fp_model_strdup(r.exit_code == 0 ? "ok" : "failed");
        row->error = fp_model_strdup(r.error);
        row->reason = fp_model_strdup(r.message);
        row->job_id = fp_model_strdup(r.job_id);
        fp_model_free(&fp_sweep_result_schema, &r);
    } else if (e.code != FP_NO_ARTIFACT) {
        row->status = fp_model_strdup("failed");
        row->reason = fp_model_printf("%s", e.message);
    }
    if (exit_code != 0)
        row_from_slurm(row, ss, have);
    if (!row->status)
        row->status = fp_model_strdup("not-run");
    if (fp_is_dir(b))
        row->bundle = fp_model_strdup(b);
    if (!strcmp(row->status, "ok"))
        row_from_report(row, b);
    fp_err_clear(&e);
    free(rp), free(b);
}

/* `flyprof history add` of one ok task's bundle; its entry id on the row. */
static void history_add(fp_ctx *ctx, const fp_sweep_state *st, const char *db, fp_sweep_row *row)
{
    const char *argv[] = {st->flyprof, "history", "add", "--bundle", row->bundle, "--db", db, "-f", "json", "-q",
                          NULL};
    fp_sb out;
    fp_sb_init(&out);
    fp_proc_opts o = {.argv = argv, .stdout_buf = &out, .interrupted = ctx->interrupted, .timeout_s = 120};
    fp_proc_result pr;
    fp_err e = {0};
    cJSON *j = fp_proc_run(&o, &pr, &e) == 0 && out.len ? cJSON_Parse(out.buf) : NULL;
    fp_envelope_doc env;
    memset(&env, 0, sizeof env);
    fp_history_add_doc h;
    if (j && fp_model_read(&fp_envelope_doc_schema, j, &env, "history add", &e) == 0 && env.ok &&
        fp_model_read(&fp_history_add_schema, env.data, &h, "history add data", &e) == 0) {
        row->history_entry = fp_optd_of((double)h.id);
        fp_model_free(&fp_history_add_schema, &h);
    } else {
        fp_warn(ctx, "history add of %s failed: %s", row->task,
                env.error && env.error->message ? env.error->message : e.message[0] ? e.message : "no envelope");
    }
    fp_model_free(&fp_envelope_doc_schema, &env);
    cJSON_Delete(j);
    fp_err_clear(&e);
    fp_sb_free(&out);
}

/* The summary of the sweep in dir, from its files (and Slurm's word on the tasks
 * that left none). */
static void fold(fp_ctx *ctx, const char *dir, const fp_sweep_state *st, fp_sweep_doc *d)
{
    fp_slurm_task_state *ss = calloc(st->ntasks + 1, sizeof *ss);
    if (!ss)
        abort();
    if (!strcmp(st->backend, "slurm"))
        fp_slurm_task_states(st->jobs, st->njobs, ss, st->ntasks);
    d->schema = 1;
    d->backend = fp_model_strdup(st->backend);
    d->out = fp_model_strdup(dir);
    fp_model_copy(&fp_sweep_spec_schema, &d->spec, &st->spec);
    for (size_t i = 0; i < st->njobs; i++)
        fp_model_push_str(&d->jobs, &d->njobs, st->jobs[i]);
    if (st->aggregate_job)
        fp_model_push_str(&d->jobs, &d->njobs, st->aggregate_job);
    d->tasks = calloc(st->ntasks + 1, sizeof *d->tasks);
    if (!d->tasks)
        abort();
    d->nrows = st->ntasks;
    for (size_t i = 0; i < st->ntasks; i++)
        fold_row(dir, &st->tasks[i], &ss[i], &d->tasks[i]);
    free(ss);
    fp_sweep_count(d);
    d->state = fp_model_strdup(d->n_unfinished ? "running" : "done");
    (void)ctx;
}

/* sweep.json, sweep.txt and sweep.svg into dir (the summary's own files). */
static int write_summary(const char *dir, fp_sweep_doc *d, fp_err *err)
{
    char *svgp = dir_file(dir, "%s", "sweep.svg"), *txtp = dir_file(dir, "%s", "sweep.txt");
    char *jp = dir_file(dir, "%s", "sweep.json");
    fp_sb svg, txt;
    fp_sb_init(&svg);
    fp_sb_init(&txt);
    fp_sweep_svg(d, &svg);
    fp_sweep_table(d, &txt);
    int rc = fp_write_atomic(svgp, svg.buf, svg.len, err);
    if (rc == 0)
        rc = fp_write_atomic(txtp, txt.buf, txt.len, err);
    if (rc == 0) {
        d->svg = fp_model_strdup(svgp);
        d->table = fp_model_strdup(txtp);
        fp_model_round(&fp_sweep_doc_schema, d);
        rc = fp_model_write_file(&fp_sweep_doc_schema, d, jp, err);
    }
    fp_sb_free(&svg);
    fp_sb_free(&txt);
    free(svgp), free(txtp), free(jp);
    return rc;
}

/* The envelope: the summary as data, its table; a finished sweep with a task not
 * ok is TASKS_FAILED (the per-task statuses stay in the envelope's data). */
static int answer(fp_ctx *ctx, fp_sweep_doc *d, bool gate, fp_err *err)
{
    fp_model_round(&fp_sweep_doc_schema, d);
    ctx->data = fp_model_write(&fp_sweep_doc_schema, d);
    fp_sweep_table(d, &ctx->table);
    int bad = d->n_failed + d->n_cancelled + d->n_timeout;
    int rc = 0;
    if (gate && !strcmp(d->state, "done") && (bad || d->n_unfinished)) {
        ctx->data_on_error = true;
        fp_err_set(err, FP_TASKS_FAILED, "%d of %d sweep task(s) did not end ok (%d failed, %d cancelled, %d timeout)",
                   bad, d->ntasks, d->n_failed, d->n_cancelled, d->n_timeout);
        rc = fp_err_help(err, "see data.tasks[].status/error/reason; re-run the same sweep to retry them");
    }
    fp_model_free(&fp_sweep_doc_schema, d);
    return rc;
}

/* Fold, add the ok tasks to the history (serially, here only), write the summary.
 * gate: a task not ok fails the command (not for the aggregation job itself, whose
 * job is the summary). */
static int aggregate(fp_ctx *ctx, const char *dir, const fp_sweep_state *st, const char *db, bool gate,
                     fp_err *err)
{
    fp_sweep_doc d;
    memset(&d, 0, sizeof d);
    fold(ctx, dir, st, &d);
    if (db) {
        d.history_db = fp_path_abs(db);
        for (size_t i = 0; i < d.nrows; i++)
            if (!strcmp(d.tasks[i].status, "ok") && d.tasks[i].bundle)
                history_add(ctx, st, d.history_db, &d.tasks[i]);
    }
    if (write_summary(dir, &d, err) != 0) {
        fp_model_free(&fp_sweep_doc_schema, &d);
        return -1;
    }
    return answer(ctx, &d, gate, err);
}

/* ---- the Slurm backend ---- */

static void sh_quote(fp_sb *o, const char *s)
{
    fp_sb_addc(o, '\'');
    for (; *s; s++)
        fp_sb_adds(o, *s == '\'' ? "'\\''" : (char[]){*s, 0});
    fp_sb_addc(o, '\'');
}

/* DIR/<name>: a script that execs `flyprof sweep <mode> --out DIR` */
static char *write_script(const char *dir, const fp_sweep_state *st, const char *name, const char *mode,
                          const char *db, fp_err *err)
{
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_adds(&s, "#!/bin/sh\n# written by `flyprof sweep` (docs/commands/sweep.md)\nexec ");
    sh_quote(&s, st->flyprof);
    fp_sb_addf(&s, " sweep %s --out ", mode);
    sh_quote(&s, dir);
    if (db) {
        fp_sb_adds(&s, " --history ");
        sh_quote(&s, db);
    }
    fp_sb_adds(&s, " -q -f json\n");
    char *p = dir_file(dir, "%s", name);
    int rc = fp_write_atomic(p, s.buf, s.len, err);
    fp_sb_free(&s);
    if (rc == 0 && chmod(p, 0755) != 0)
        rc = fp_err_set(err, FP_IO_ERROR, "%s: chmod: %s", p, strerror(errno));
    if (rc != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static int submit_slurm(const char *dir, fp_sweep_state *st, const int *todo, size_t ntodo, const char *db,
                        fp_err *err)
{
    char *db_abs = db ? fp_path_abs(db) : NULL;
    char *task_sh = write_script(dir, st, "sweep-task.sh", "--run-task \"$SLURM_ARRAY_TASK_ID\"", NULL, err);
    char *agg_sh = task_sh ? write_script(dir, st, "sweep-aggregate.sh", "--aggregate", db_abs, err) : NULL;
    char *array = NULL, *agg = NULL;
    int rc = agg_sh ? fp_slurm_submit(&st->spec, dir, todo, ntodo, task_sh, agg_sh, &array, &agg, err) : -1;
    if (rc == 0) {
        fp_model_push_str(&st->jobs, &st->njobs, array);
        free(st->aggregate_job);
        st->aggregate_job = fp_model_strdup(agg);
        rc = state_write(dir, st, err);
    }
    free(array), free(agg), free(task_sh), free(agg_sh), free(db_abs);
    return rc;
}

/* Block until every job of the sweep left the queue (heartbeat on stderr). */
static int wait_slurm(fp_ctx *ctx, const fp_sweep_state *st, fp_err *err)
{
    fp_heartbeat hb;
    fp_heartbeat_begin(&hb, ctx, "sweep: waiting for slurm job %s (+ aggregation %s)", st->jobs[st->njobs - 1],
                       st->aggregate_job);
    double t0 = now_s();
    while (fp_slurm_any_queued(st->jobs, st->njobs, st->aggregate_job)) {
        if (*ctx->interrupted) {
            fp_heartbeat_end(&hb, now_s() - t0, "interrupted");
            fp_err_set(err, FP_INTERRUPTED, "stopped waiting; the sweep's Slurm jobs keep running");
            return fp_err_help(err, "`flyprof sweep --status --out DIR` follows them, `--cancel` stops them");
        }
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
        fp_heartbeat_tick(&hb, now_s() - t0);
    }
    fp_heartbeat_end(&hb, now_s() - t0, "done");
    return 0;
}

/* The aggregation job's sweep.json when it completed, else fold here. */
static int after_wait(fp_ctx *ctx, const char *dir, const fp_sweep_state *st, const char *db, fp_err *err)
{
    char state[32];
    fp_slurm_job_state(st->aggregate_job, state, sizeof state);
    /* the queue can look empty an instant before the job's final state is set */
    for (int i = 0; i < 50 && state[0] && !fp_sweep_status_final(fp_sweep_status_of_slurm(state)); i++) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        fp_slurm_job_state(st->aggregate_job, state, sizeof state);
    }
    char *jp = dir_file(dir, "%s", "sweep.json");
    fp_sweep_doc d;
    fp_err e = {0};
    int rc = strcmp(state, "COMPLETED") ? -1 : fp_model_read_file(&fp_sweep_doc_schema, jp, &d, &e);
    free(jp);
    fp_err_clear(&e);
    if (rc == 0)
        return answer(ctx, &d, true, err);
    if (state[0])
        fp_warn(ctx, "the aggregation job %s ended %s: folded by this process instead", st->aggregate_job, state);
    return aggregate(ctx, dir, st, db, true, err);
}

/* ---- the modes ---- */

typedef struct sweeper {
    fp_ctx *ctx;
    const sweep_args *a;
    char *dir; /* --out, absolute */
    fp_sweep_state st;
} sweeper;

/* --run-task N: one task of tasks.json, on the GPU(s) Slurm gave this job. */
static int mode_run_task(sweeper *s, fp_err *err)
{
    if (state_read(s->dir, &s->st, err) != 0)
        return -1;
    if (s->a->run_task >= (long long)s->st.ntasks)
        return fp_err_set(err, FP_BAD_ARGS, "--run-task %lld: the sweep has %zu task(s)", s->a->run_task,
                          s->st.ntasks);
    const fp_sweep_task *t = &s->st.tasks[s->a->run_task];
    /* Slurm sets ROCR_VISIBLE_DEVICES with a gpu gres; SLURM_JOB_GPUS (node-global
     * indices) is the fallback when only that is there */
    const char *rocr = getenv("ROCR_VISIBLE_DEVICES"), *jg = getenv("SLURM_JOB_GPUS");
    const char *aj = getenv("SLURM_ARRAY_JOB_ID"), *at = getenv("SLURM_ARRAY_TASK_ID");
    char *job = aj && at ? fp_model_printf("%s_%s", aj, at) : NULL;
    task_env te = {.gpus = rocr && rocr[0] ? NULL : jg && jg[0] ? jg : NULL, .job_id = job};
    fp_sweep_result r;
    int rc = run_task(s->ctx, s->dir, &s->st, t, &te, &r, err);
    if (rc == 0) {
        fp_model_round(&fp_sweep_result_schema, &r);
        s->ctx->data = fp_model_write(&fp_sweep_result_schema, &r);
        fp_sb_addf(&s->ctx->table, "%s: exit %d%s%s\n", r.task, r.exit_code, r.error ? " " : "",
                   r.error ? r.error : "");
    }
    fp_model_free(&fp_sweep_result_schema, &r);
    free(job);
    return rc;
}

static int mode_aggregate(sweeper *s, fp_err *err)
{
    if (state_read(s->dir, &s->st, err) != 0)
        return -1;
    return aggregate(s->ctx, s->dir, &s->st, s->a->history, false, err);
}

/* What the files and Slurm say now (read only). */
static int status_now(sweeper *s, fp_err *err)
{
    fp_sweep_doc d;
    memset(&d, 0, sizeof d);
    fold(s->ctx, s->dir, &s->st, &d);
    /* the tasks decide; an aggregation still queued does not make a finished sweep run */
    if (!strcmp(s->st.backend, "slurm") && fp_slurm_any_queued(s->st.jobs, s->st.njobs, NULL)) {
        free(d.state);
        d.state = fp_model_strdup("running");
    }
    return answer(s->ctx, &d, true, err);
}

static int mode_status(sweeper *s, fp_err *err)
{
    return state_read(s->dir, &s->st, err) != 0 ? -1 : status_now(s, err);
}

static int mode_cancel(sweeper *s, fp_err *err)
{
    if (state_read(s->dir, &s->st, err) != 0)
        return -1;
    if (strcmp(s->st.backend, "slurm"))
        return fp_err_set(err, FP_BAD_ARGS, "--cancel: the sweep in %s ran on the %s backend, not on Slurm", s->dir,
                          s->st.backend);
    if (fp_slurm_cancel(s->st.jobs, s->st.njobs, s->st.aggregate_job, err) != 0)
        return -1;
    /* scancel returns at once; the states settle when the jobs have left the queue */
    for (int i = 0; i < 100 && fp_slurm_any_queued(s->st.jobs, s->st.njobs, s->st.aggregate_job); i++) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return aggregate(s->ctx, s->dir, &s->st, NULL, true, err);
}

/* The tasks not done yet (a re-run skips the ok ones). */
static size_t todo_of(const char *dir, const fp_sweep_state *st, int *todo)
{
    size_t n = 0;
    for (size_t i = 0; i < st->ntasks; i++)
        if (!task_done(dir, &st->tasks[i]))
            todo[n++] = (int)i;
    return n;
}

/* The new state from the spec (the Slurm jobs of an earlier submission kept). */
static int new_state(sweeper *s, fp_err *err)
{
    fp_sweep_state *st = &s->st, old;
    memset(&old, 0, sizeof old);
    st->schema = 1;
    st->backend = fp_model_strdup(s->a->backend);
    st->flyprof = fp_proc_which(s->ctx->argv0, NULL);
    if (!st->flyprof)
        st->flyprof = fp_path_abs(s->ctx->argv0);
    if (spec_load(s->a->spec, &st->spec, err) != 0 || spec_tasks(&st->spec, s->a->spec, st, err) != 0 ||
        run_args_of(s->a, st, err) != 0)
        return -1;
    char *sp = dir_file(s->dir, "%s", "tasks.json");
    fp_err e = {0};
    if (fp_is_file(sp) && fp_model_read_file(&fp_sweep_state_schema, sp, &old, &e) == 0) {
        for (size_t i = 0; i < old.njobs; i++)
            fp_model_push_str(&st->jobs, &st->njobs, old.jobs[i]);
        fp_model_free(&fp_sweep_state_schema, &old);
    }
    fp_err_clear(&e);
    free(sp);
    char *td = dir_file(s->dir, "%s", "tasks");
    int rc = fp_mkdir_p(td, err);
    free(td);
    return rc == 0 ? state_write(s->dir, st, err) : -1;
}

static int mode_submit(sweeper *s, fp_err *err)
{
    if (!s->a->spec)
        return fp_err_set(err, FP_USAGE, "sweep needs --spec SPEC (or --status / --cancel / --aggregate)");
    if (new_state(s, err) != 0)
        return -1;
    int *todo = calloc(s->st.ntasks + 1, sizeof *todo);
    if (!todo)
        abort();
    size_t ntodo = todo_of(s->dir, &s->st, todo);
    if (ntodo < s->st.ntasks)
        fp_progress(s->ctx, "sweep: %zu of %zu task(s) already ok: skipped", s->st.ntasks - ntodo, s->st.ntasks);
    int rc = 0;
    bool slurm = !strcmp(s->st.backend, "slurm");
    if (!ntodo)
        rc = aggregate(s->ctx, s->dir, &s->st, s->a->history, true, err);
    else if (!slurm) {
        rc = run_local(s->ctx, s->dir, &s->st, todo, ntodo, s->a->parallel, err);
        if (rc == 0)
            rc = aggregate(s->ctx, s->dir, &s->st, s->a->history, true, err);
    } else if ((rc = submit_slurm(s->dir, &s->st, todo, ntodo, s->a->history, err)) == 0) {
        fp_progress(s->ctx, "sweep: %zu task(s) submitted as slurm array job %s, aggregation job %s", ntodo,
                    s->st.jobs[s->st.njobs - 1], s->st.aggregate_job);
        if (!s->a->wait)
            rc = status_now(s, err);
        else if ((rc = wait_slurm(s->ctx, &s->st, err)) == 0)
            rc = after_wait(s->ctx, s->dir, &s->st, s->a->history, err);
    }
    free(todo);
    return rc;
}

static bool is_run_task(const sweep_args *a) { return a->run_task >= 0; }
static bool is_aggregate(const sweep_args *a) { return a->aggregate; }
static bool is_status(const sweep_args *a) { return a->status; }
static bool is_cancel(const sweep_args *a) { return a->cancel; }
static bool is_submit(const sweep_args *a) { return !a->status && !a->cancel && !a->aggregate && a->run_task < 0; }

static const struct {
    const char *name;
    bool (*is)(const sweep_args *a);
    int (*run)(sweeper *s, fp_err *err);
} sweep_modes[] = {
    {"--run-task", is_run_task, mode_run_task}, {"--aggregate", is_aggregate, mode_aggregate},
    {"--status", is_status, mode_status},       {"--cancel", is_cancel, mode_cancel},
    {"submit", is_submit, mode_submit},
};
#define N_SWEEP_MODES (sizeof sweep_modes / sizeof sweep_modes[0])

static int sweep_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    const sweep_args *a = argsp;
    if (!a->out)
        return fp_err_set(err, FP_USAGE, "sweep needs --out DIR");
    if (a->cfg.gpu) {
        fp_err_set(err, FP_BAD_ARGS, "--gpu: the sweep gives every task its own GPU (ROCR_VISIBLE_DEVICES)");
        return fp_err_help(err, "set ROCR_VISIBLE_DEVICES to the GPUs the sweep may use");
    }
    size_t chosen = N_SWEEP_MODES, nmodes = 0;
    for (size_t i = 0; i < N_SWEEP_MODES; i++)
        if (sweep_modes[i].is(a)) {
            chosen = i;
            nmodes++;
        }
    if (nmodes != 1)
        return fp_err_set(err, FP_USAGE, "--run-task, --aggregate, --status and --cancel exclude each other");
    if (!ctx->argv0 || !ctx->argv0[0])
        return fp_err_set(err, FP_INTERNAL, "sweep needs the path of this binary");
    sweeper s = {.ctx = ctx, .a = a, .dir = fp_path_abs(a->out)};
    int rc = sweep_modes[chosen].run(&s, err);
    if (!ctx->bundle_abs)
        ctx->bundle_abs = strdup(s.dir);
    fp_model_free(&fp_sweep_state_schema, &s.st);
    free(s.dir);
    return rc;
}

static const fp_path_rule sweep_paths[] = {
    FP_CONFIG_PATH_RULES,
    {.opt = "spec", .kind = FP_PATH_FILE},
    {.opt = "out", .kind = FP_PATH_OUT_DIR},
    {.opt = "examples-dir", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

/* -f csv: one row per task (csvout.h); examples: help and the man page */
static const char *const sweep_csv_rows[] = {"tasks", NULL};
static const char *const sweep_examples[] = {
    "flyprof sweep --spec sweep.yaml --out /scratch/sw --backend slurm --wait --no-pmc",
    "flyprof sweep --out /scratch/sw --status -f csv > tasks.csv",
    NULL,
};

const fp_command fp_cmd_sweep = {
    .csv_rows = sweep_csv_rows,
    .examples = sweep_examples,
    .name = "sweep",
    .summary = "run a kernels x shapes matrix (locally or as a Slurm array) and fold it into one summary",
    .usage = "flyprof sweep --out DIR [--spec FILE] [--backend local|slurm] [--wait] [--history FILE] "
             "[--status | --cancel] [--parallel N] [--no-pmc] [--timeout S] [--tag TAG] [--skip-bundle]",
    .details = "One task per (kernel, shape): `flyprof run KERNEL --shape S --bundle DIR/<task>` with the sweep's "
               "run options. Results in DIR/sweep.json, sweep.txt, sweep.svg. Re-running the same sweep skips the "
               "tasks that ended ok. Exit TASKS_FAILED (2) when a finished sweep has a task not ok.\n"
               "Example: flyprof sweep --spec sweep.yaml --out /scratch/sw --backend slurm --wait --no-pmc",
    .opts = sweep_opts,
    .args_size = sizeof(sweep_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = sweep_run,
    .paths = sweep_paths,
    .no_bundle = true,
};
