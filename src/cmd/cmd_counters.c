/*
 * cmd_counters.c - `flyprof counters`: hardware counters that can be trusted
 * (docs/commands/counters.md).
 *
 * Story: offline (--csv FILE..., --db FILE..., or the bundle's pmc/ dir) or
 * live (`-- APP ARGS`: one rocprofv3 run per counter group, each group fitting
 * one pass, each under a timeout that kills the process group) -> one
 * fp_pmc_set -> the selected kernel's dispatches merged over passes -> the
 * formula table (analysis/counters.c) -> the shared bound (analysis/bound.c)
 * and the seed's decision tree -> counters.json in the bundle.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "flyprof/bundle.h"
#include "flyprof/capture_doc.h"
#include "flyprof/counters_doc.h"
#include "flyprof/bundle_path.h"
#include "flyprof/bound.h"
#include "flyprof/config.h"
#include "flyprof/counters.h"
#include "flyprof/discovery.h"
#include "flyprof/fs.h"
#include "flyprof/heartbeat.h"
#include "flyprof/input_yaml.h"
#include "flyprof/mem.h"
#include "flyprof/rpenv.h"
#include "flyprof/json.h"
#include "flyprof/kernel_trace.h"
#include "flyprof/proc.h"
#include "flyprof/soc.h"
#include "flyprof/sol.h"

/* Bytes in a GB as the seed's --ideal-gb uses it (decimal, like GB/s). */
#define BYTES_PER_GB 1e9
/* Per-dispatch entries in the envelope and counters.json (the summary covers all). */
#define MAX_LISTED_DISPATCHES 64
/* `rocprofv3 --version` answers at once; a minute means it is broken. */
#define VERSION_TIMEOUT_S 60.0
/* SDK 1.0.0 = ROCm 7.0: --version exists and rocpd is the default output. */
#define SDK_ROCPD_MIN 10000

typedef struct counters_args {
    fp_strlist csv;
    fp_strlist db;
    const char *kernel;
    double ideal_gb;
    double ea_channels;
    double duration_ns;
    const char *dtype;
    const char *gpu_name;
    const char *arch;
    double sclk_mhz;
    double hbm_gbs;
    long long timeout;
    const char *iterations;
    const char *rocprofv3;
    const char *output_format;
    const char *tag;
    const char *agent;
    const char *memory_partition;
} counters_args;

static const char *const fmt_choices[] = {"auto", "csv", "rocpd", NULL};
static const char *const nps_choices[] = {"NPS1", "NPS2", "NPS4", "NPS8", NULL};

static const fp_opt counters_opts[] = {
    {"csv", 0, FP_OPT_LIST, offsetof(counters_args, csv), "FILE...",
     "offline: rocprofv3 counter_collection.csv files, one per pass", NULL, NULL, 0, 0},
    {"db", 0, FP_OPT_LIST, offsetof(counters_args, db), "FILE...",
     "offline: rocpd results.db files (each run inside is one pass)", NULL, NULL, 0, 0},
    {"kernel", 'k', FP_OPT_STR, offsetof(counters_args, kernel), "NAME",
     "select dispatches whose kernel name contains NAME (default: capture.json's kernel)", NULL, NULL, 0, 0},
    {"ideal-gb", 0, FP_OPT_DOUBLE, offsetof(counters_args, ideal_gb), "GB",
     "bytes (10^9) the kernel must move per dispatch: enables over-fetch and the ideal bandwidth", NULL, NULL, 0,
     0},
    {"ea-channels", 0, FP_OPT_DOUBLE, offsetof(counters_args, ea_channels), "N",
     "multiplier on the EA request counts (the seed's --ea-channels; 1 = TCC_EA0 counts all traffic)", "1",
     NULL, 0, 0},
    {"duration-ns", 0, FP_OPT_DOUBLE, offsetof(counters_args, duration_ns), "NS",
     "kernel duration per dispatch (default: the bundle's kernel trace, else the counter pass timestamps)", NULL,
     NULL, 0, 0},
    {"dtype", 0, FP_OPT_STR, offsetof(counters_args, dtype), "T",
     "data type for the MFMA %-of-peak (default: the type with most MFMA ops)", NULL, NULL, 0, 0},
    {"gpu-name", 0, FP_OPT_STR, offsetof(counters_args, gpu_name), "NAME",
     "GPU product (MI300X, MI325X, MI350X, MI355X); default: from the agent info", NULL, NULL, 0, 0},
    {"arch", 0, FP_OPT_STR, offsetof(counters_args, arch), "GFX", "architecture (gfx942, gfx950)", NULL, NULL, 0,
     0},
    {"sclk-mhz", 0, FP_OPT_DOUBLE, offsetof(counters_args, sclk_mhz), "MHZ", "override the peak engine clock",
     NULL, NULL, 0, 0},
    {"hbm-gbs", 0, FP_OPT_DOUBLE, offsetof(counters_args, hbm_gbs), "GBS", "override the peak HBM bandwidth",
     NULL, NULL, 0, 0},
    {"timeout", 0, FP_OPT_INT, offsetof(counters_args, timeout), "S",
     "live: seconds per rocprofv3 run before its process group is killed", "900", NULL, 1, 86400},
    {"iterations", 0, FP_OPT_STR, offsetof(counters_args, iterations), "SET",
     "live: 1-based per-kernel iterations to collect, e.g. 6,8 or 2-4 (default skips the cold first launch)",
     "2-4", NULL, 0, 0},
    {"rocprofv3", 0, FP_OPT_STR, offsetof(counters_args, rocprofv3), "PATH",
     "live: the profiler (default $FLYPROF_ROCPROFV3, else the config file, else rocprofv3 on PATH)", NULL, NULL, 0, 0},
    {"output-format", 0, FP_OPT_CHOICE, offsetof(counters_args, output_format), "FMT",
     "live: rocprofv3 output; auto = rocpd for SDK >= 1.0 (ROCm 7.0), csv before", "auto", fmt_choices, 0, 0},
    {"tag", 0, FP_OPT_STR, offsetof(counters_args, tag), "TAG",
     "capture tag whose kernel trace gives the duration (default big, else the only tag)", NULL, NULL, 0, 0},
    {"agent", 0, FP_OPT_STR, offsetof(counters_args, agent), "ID",
     "keep the rows of this agent (Agent_Id, e.g. \"Agent 5\"; default: capture.json's traced agent, else the "
     "first row's)", NULL, NULL, 0, 0},
    {"memory-partition", 0, FP_OPT_CHOICE, offsetof(counters_args, memory_partition), "NPS",
     "the device's memory partition mode, for a partitioned agent's HBM peak (default: capture.json's)", NULL,
     nps_choices, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* ------------------------------------------------------------------ helpers */

/* Files under dir (recursively, sorted) whose name ends with suffix. */
static void find_files(const char *dir, const char *suffix, char ***out, size_t *n, int depth)
{
    char **names;
    size_t cnt;
    fp_err err = {0};
    if (depth > 6 || fp_list_dir(dir, &names, &cnt, &err)) {
        fp_err_clear(&err);
        return;
    }
    size_t ls = strlen(suffix);
    for (size_t i = 0; i < cnt; i++) {
        char *p = fp_path_join(dir, names[i]);
        size_t lp = strlen(p);
        if (fp_is_dir(p)) {
            find_files(p, suffix, out, n, depth + 1);
            free(p);
        } else if (lp >= ls && !strcmp(p + lp - ls, suffix)) {
            *out = realloc(*out, (*n + 1) * sizeof **out);
            if (!*out)
                abort();
            (*out)[(*n)++] = p;
        } else {
            free(p);
        }
    }
    fp_strv_free(names, cnt);
}

/* capture.json of the bundle into *cap (strict reader); false when absent or
 * unreadable (then *cap is empty). */
static bool load_capture(fp_ctx *ctx, fp_capture_doc *cap)
{
    *cap = (fp_capture_doc){0};
    if (!ctx->bundle)
        return false;
    char *p = fp_bundle_path(ctx->bundle, FP_ART_CAPTURE);
    bool ok = false;
    fp_err err = {0};
    if (fp_is_file(p)) {
        if (fp_model_read_file(&fp_capture_schema, p, cap, &err)) {
            fp_warn(ctx, "capture.json unreadable (%s); not used", err.message);
            fp_err_clear(&err);
        } else {
            ok = true;
        }
    }
    free(p);
    return ok;
}

/* Median End-Start of the kernel's rows in the capture's kernel_trace.csv (issue 23: the robust
 * figure; a 5x outlier row moves a mean, not the median). */
static double trace_duration(fp_ctx *ctx, const fp_cap_tag *tag, const char *kernel, char **trace_path)
{
    const char *rel = tag && tag->done ? tag->done->kernel_trace_csv : NULL;
    if (!rel || !kernel || strstr(rel, "..") || rel[0] == '/')
        return 0;
    char *p = fp_path_join(ctx->bundle, rel);
    fp_kernel_trace kt = {0};
    fp_err err = {0};
    fp_kt_pick pk = {0};
    if (fp_kernel_trace_load(p, &kt, &err) == 0)
        fp_kt_pick_rows(&kt, kernel, FP_KT_CONTAINS, FP_KT_TIME_BOUNDED, &pk);
    else
        fp_warn(ctx, "kernel trace %s not used: %s", rel, err.message);
    fp_err_clear(&err);
    fp_kernel_trace_free(&kt);
    if (pk.timed)
        *trace_path = p;
    else
        free(p);
    return pk.median_ns;
}

/* "6,8" or "2-4" or "1-3,7" -> sorted set of 1-based iterations. */
static int parse_iterations(const char *s, unsigned **out, size_t *n, fp_err *err)
{
    *out = NULL;
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long a = strtoul(p, &end, 10), b;
        if (end == p || errno || a == 0 || a > 1000000)
            goto bad;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtoul(p + 1, &end, 10);
            if (end == p + 1 || errno || b < a || b > 1000000 || b - a > 10000)
                goto bad;
            p = end;
        }
        for (unsigned long i = a; i <= b; i++) {
            *out = realloc(*out, (*n + 1) * sizeof **out);
            if (!*out)
                abort();
            (*out)[(*n)++] = (unsigned)i;
        }
        if (*p == ',')
            p++;
        else if (*p)
            goto bad;
    }
    if (*n)
        return 0;
bad:
    free(*out);
    *out = NULL;
    fp_err_set(err, FP_USAGE, "--iterations '%s': expected 1-based numbers and ranges like 6,8 or 2-4", s);
    return -1;
}

/* Kernel name as an ECMAScript regex that matches it literally (search semantics). */
static char *regex_escape(const char *s)
{
    fp_sb sb;
    fp_sb_init(&sb);
    for (; *s; s++) {
        if (strchr("\\^$.|?*+()[]{}", *s))
            fp_sb_addc(&sb, '\\');
        fp_sb_addc(&sb, *s);
    }
    return fp_sb_detach(&sb);
}

/* "    version: 1.1.0" -> 10100; 0 when not found. */
static int sdk_version(const char *text, char *ver, size_t vlen)
{
    const char *p = strstr(text, "version:");
    if (!p)
        return 0;
    p += 8;
    while (*p == ' ')
        p++;
    int a = 0, b = 0, c = 0;
    if (sscanf(p, "%d.%d.%d", &a, &b, &c) < 2)
        return 0;
    size_t i = 0;
    while (p[i] && !isspace((unsigned char)p[i]) && i + 1 < vlen) {
        ver[i] = p[i];
        i++;
    }
    ver[i] = '\0';
    return a * 10000 + b * 100 + c;
}

/* ------------------------------------------------------------------ live */

typedef struct live_state {
    fp_cnt_live *info; /* counters.json's live-mode keys ("missing_counters" is filled later, "live") */
    char **files;     /* outputs found: one per process of a pass (rocprofv3 -o pmc_%pid%) */
    size_t *file_group; /* the pass (group run) each came from */
    size_t nfiles;
    bool rocpd;
    const char *const *const *groups; /* what runs: the packed passes, or the logical groups */
    size_t ngroups;
    const char *const *const *logical; /* the arch's groups (fp_counters_groups) */
    size_t nlogical;
    fp_counter_passes packed;          /* the groups packed by block limits (fp_counters_pack) */
    bool exact_kernel;                 /* the kernel is capture.json's traced name: anchor the regex */
} live_state;

/* What every counter pass of one live run shares. */
typedef struct live_pass {
    fp_ctx *ctx;
    const counters_args *a;
    const char *exe;    /* the profiler */
    char **app;         /* the application and its arguments */
    int napp;
    const char *pmcdir; /* <bundle>/pmc */
    const char *regex, *range; /* rocprofv3's kernel filters */
    const char **env;   /* "NAME" entries: the inherited ROCPROF_* removed (rpenv.h) */
} live_pass;

/* The profiler as every configured command finds it: flag > $FLYPROF_ROCPROFV3 >
 * config file > default. Allocates ls->info with where it came from; NULL when
 * it is not found. */
static char *find_profiler(const counters_args *a, live_state *ls, fp_err *err)
{
    fp_config cfg;
    fp_config_args cargs = {.rocprofv3 = a->rocprofv3};
    if (fp_config_load(&cfg, &cargs, err))
        return NULL;
    const char *prof = cfg.rocprofv3.value && *cfg.rocprofv3.value ? cfg.rocprofv3.value : "rocprofv3";
    char *exe = fp_proc_which(prof, NULL);
    if (!exe) {
        fp_err_set(err, FP_ROCPROFV3_MISSING, "rocprofv3 not found ('%s', from %s)", prof, cfg.rocprofv3.source);
        fp_config_free(&cfg);
        fp_err_help(err, "install ROCm >= 6.2 or point --rocprofv3 / $FLYPROF_ROCPROFV3 at it; offline "
                         "mode (--csv / --db) needs no profiler");
        return NULL;
    }
    ls->info = calloc(1, sizeof *ls->info);
    if (!ls->info)
        abort();
    fp_cnt_live_info *li = &ls->info->live;
    li->rocprofv3 = fp_model_strdup(exe);
    li->rocprofv3_source = fp_model_strdup(cfg.rocprofv3.source);
    fp_config_free(&cfg);
    return exe;
}

/* The SDK version -> the output format (rocprof-formats.md §1.6: --version
 * absent => <= 6.4), with the reason. */
static int choose_format(fp_ctx *ctx, const counters_args *a, const char *exe, live_state *ls, fp_err *err)
{
    fp_cnt_live_info *li = &ls->info->live;
    fp_sb vout;
    fp_sb_init(&vout);
    const char *vargv[] = {exe, "--version", NULL};
    fp_proc_opts vo = {.argv = vargv, .stdout_buf = &vout, .timeout_s = VERSION_TIMEOUT_S,
                       .interrupted = ctx->interrupted};
    fp_proc_result vr;
    int rc = fp_proc_run(&vo, &vr, err);
    char ver[32] = "";
    int vn = rc == 0 && vr.exited && vr.exit_code == 0 ? sdk_version(vout.buf, ver, sizeof ver) : 0;
    fp_sb_free(&vout);
    if (rc) {
        if (vr.exec_failed) {
            fp_err_set(err, FP_ROCPROFV3_MISSING, "cannot run %s: %s", exe, strerror(vr.exec_errno));
            fp_err_help(err, "check that rocprofv3 is executable");
        }
        return -1;
    }
    li->version = fp_model_strdup(vn ? ver : NULL);
    ls->rocpd = !strcmp(a->output_format, "rocpd") || (!strcmp(a->output_format, "auto") && vn >= SDK_ROCPD_MIN);
    li->output_format = fp_model_strdup(ls->rocpd ? "rocpd" : "csv");
    li->format_reason = fp_model_strdup(strcmp(a->output_format, "auto") ? "--output-format"
                                        : vn >= SDK_ROCPD_MIN ? "SDK >= 1.0 (ROCm 7.0): rocpd is the default"
                                                              : "no --version (ROCm <= 6.4): csv");
    return 0;
}

/* --iterations and the kernel name as rocprofv3's filters (*range, *regex, both
 * malloc'd), recorded in li. */
static int kernel_filters(const counters_args *a, const char *kernel, bool exact, fp_cnt_live_info *li,
                          char **range, char **regex, fp_err *err)
{
    unsigned *iters;
    size_t nit;
    if (parse_iterations(a->iterations, &iters, &nit, err))
        return -1;
    *range = fp_iter_range_str(iters, nit, err);
    free(iters);
    if (!*range)
        return -1;
    li->kernel_iteration_range = fp_model_strdup(*range);
    *regex = regex_escape(kernel);
    if (exact) { /* the capture's traced name: anchored, so foo_0 does not also select foo_0_bwd */
        char *anchored = malloc(strlen(*regex) + 3);
        if (!anchored)
            abort();
        sprintf(anchored, "^%s$", *regex);
        free(*regex);
        *regex = anchored;
    }
    li->kernel_include_regex = fp_model_strdup(*regex);
    return 0;
}

/* The counter outputs rocprofv3 writes in the chosen format. */
static const char *output_name(bool rocpd)
{
    return rocpd ? "results.db" : "counter_collection.csv";
}

/* The files of counter group g under pmc/: its output dir, input yaml, logs. */
typedef struct group_files {
    char *gdir, *yaml, *log, *out;
} group_files;

static void group_files_make(const char *pmcdir, size_t g, group_files *f)
{
    char name[32];
    snprintf(name, sizeof name, "group_%zu", g + 1);
    f->gdir = fp_path_join(pmcdir, name);
    char yname[48];
    /* JSON, not YAML: .yaml needs PyYAML in rocprofv3's python (input_yaml.h) */
    snprintf(yname, sizeof yname, "input_%s.json", name);
    f->yaml = fp_path_join(pmcdir, yname);
    char lname[48];
    snprintf(lname, sizeof lname, "%s.stderr.log", name);
    f->log = fp_path_join(pmcdir, lname);
    snprintf(lname, sizeof lname, "%s.stdout.log", name);
    f->out = fp_path_join(pmcdir, lname);
}

static void group_files_free(group_files *f)
{
    free(f->gdir);
    free(f->yaml);
    free(f->log);
    free(f->out);
}

/* The input.yaml jobs of group g: its counters, the kernel filters, where to write. */
static cJSON *group_jobs(const live_state *ls, size_t g, const live_pass *lp, const char *gdir)
{
    cJSON *jobs = cJSON_CreateArray();
    cJSON *job = cJSON_CreateObject();
    cJSON_AddItemToArray(jobs, job);
    size_t nc = 0;
    while (ls->groups[g][nc])
        nc++;
    cJSON_AddItemToObject(job, "pmc", cJSON_CreateStringArray(ls->groups[g], (int)nc));
    fp_json_add_str(job, "kernel_include_regex", lp->regex);
    fp_json_add_str(job, "kernel_iteration_range", lp->range);
    fp_json_add_str(job, "output_directory", gdir);
    /* one file per process: a launcher's workers would clobber a fixed name (the last to exit wins) */
    fp_json_add_str(job, "output_file", "pmc_%pid%");
    cJSON *of = cJSON_AddArrayToObject(job, "output_format");
    cJSON_AddItemToArray(of, cJSON_CreateString(ls->rocpd ? "rocpd" : "csv"));
    return jobs;
}

/* Run rocprofv3 on the application for one group, under the timeout, with a heartbeat. */
static int run_pass(const live_pass *lp, size_t g, size_t ngroups, size_t nc, const group_files *f,
                    fp_proc_result *pr, fp_err *err)
{
    const char **argv = calloc((size_t)lp->napp + 5, sizeof *argv);
    if (!argv)
        abort();
    argv[0] = lp->exe;
    argv[1] = "-i";
    argv[2] = f->yaml;
    argv[3] = "--";
    for (int i = 0; i < lp->napp; i++)
        argv[4 + i] = lp->app[i];
    fp_progress(lp->ctx, "counters: pass %zu/%zu (%zu counters) ...", g + 1, ngroups, nc);
    fp_heartbeat hb;
    fp_heartbeat_begin(&hb, lp->ctx, "counters: pass %zu/%zu", g + 1, ngroups);
    fp_proc_opts po = {.argv = argv, .env = lp->env, .stdout_path = f->out, .stderr_path = f->log,
                       .timeout_s = (double)lp->a->timeout, .interrupted = lp->ctx->interrupted,
                       .tick = fp_heartbeat_tick, .tick_arg = &hb};
    int rc = fp_proc_run(&po, pr, err);
    fp_heartbeat_end(&hb, pr->elapsed_s,
                     pr->timed_out ? "timed out" : pr->interrupted ? "interrupted" : rc ? "failed" : "done");
    free(argv);
    return rc;
}

/* A pass that did not end by itself: its status, and the error when it is ours to word. */
static void pass_failed(const live_pass *lp, size_t g, const fp_proc_result *pr, const char *logp,
                        fp_cnt_group_ran *ran, fp_err *err)
{
    ran->status = fp_model_strdup(pr->timed_out ? "timeout" : pr->interrupted ? "interrupted" : "error");
    if (pr->timed_out) {
        fp_err_set(err, FP_CAPTURE_TIMEOUT, "rocprofv3 counter pass %zu did not finish in %lld s", g + 1,
                   lp->a->timeout);
        fp_err_help(err, "its process group was killed; see %s. A counter set that does not fit one "
                         "pass can hang rocprofv3 (rocprof-formats.md §6.4); raise --timeout if the "
                         "workload is just slow",
                    logp);
    } else if (pr->exec_failed) {
        fp_err_set(err, FP_ROCPROFV3_MISSING, "cannot run %s: %s", lp->exe, strerror(pr->exec_errno));
    }
}

/* A pass that ended: its exit code and outputs (added to ls->files). True when
 * the outputs count: a non-zero exit that still wrote counters is warned, used. */
static bool pass_outputs(fp_ctx *ctx, live_state *ls, size_t g, const fp_proc_result *pr, const group_files *f,
                         fp_cnt_group_ran *ran)
{
    ran->exited = calloc(1, sizeof *ran->exited);
    ran->found = calloc(1, sizeof *ran->found);
    if (!ran->exited || !ran->found)
        abort();
    ran->exited->exit_code = pr->exited ? pr->exit_code : 128 + pr->term_signal;
    char **found = NULL;
    size_t nf = 0;
    find_files(f->gdir, output_name(ls->rocpd), &found, &nf, 0);
    bool ok = nf > 0;
    if (pr->exited && pr->exit_code == 0 && nf) {
        ran->status = fp_model_strdup("ok");
    } else {
        ran->status = fp_model_strdup(nf ? "nonzero_exit" : "no_output");
        fp_warn(ctx, "counter pass %zu: rocprofv3 %s (see %s)", g + 1,
                nf ? "exited non-zero; its outputs are used" : "wrote no counters", f->log);
    }
    for (size_t i = 0; i < nf; i++) {
        fp_model_push_str(&ran->found->outputs, &ran->found->noutputs, found[i]);
        ls->files = realloc(ls->files, (ls->nfiles + 1) * sizeof *ls->files);
        ls->file_group = realloc(ls->file_group, (ls->nfiles + 1) * sizeof *ls->file_group);
        if (!ls->files || !ls->file_group)
            abort();
        ls->file_group[ls->nfiles] = g;
        ls->files[ls->nfiles++] = found[i];
    }
    free(found);
    return ok;
}

/* Counter group g: recorded in counters.json's live.groups, its input.yaml
 * written, one rocprofv3 pass run; *ok_groups counts the passes with outputs. */
static int run_group(const live_pass *lp, live_state *ls, size_t g, size_t *ok_groups, fp_err *err)
{
    fp_cnt_live_info *li = &ls->info->live;
    group_files f;
    group_files_make(lp->pmcdir, g, &f);
    cJSON *jobs = group_jobs(ls, g, lp, f.gdir);
    size_t nc = 0;
    while (ls->groups[g][nc])
        nc++;
    fp_cnt_group *gi = fp_model_push((void **)&li->groups, &li->ngroups, sizeof *gi);
    for (size_t i = 0; i < nc; i++)
        fp_model_push_str(&gi->counters, &gi->ncounters, ls->groups[g][i]);
    gi->input_yaml = fp_model_strdup(f.yaml);
    gi->log = fp_model_strdup(f.log);
    /* stale outputs of an earlier run must not pass for this one's */
    char **old = NULL;
    size_t nold = 0;
    find_files(f.gdir, output_name(ls->rocpd), &old, &nold, 0);
    for (size_t i = 0; i < nold; i++)
        unlink(old[i]);
    fp_strv_free(old, nold);

    int rc = -1;
    if (fp_mkdir_p(lp->pmcdir, err) == 0 && fp_input_json_write(f.yaml, jobs, err) == 0) {
        fp_proc_result pr;
        rc = run_pass(lp, g, ls->ngroups, nc, &f, &pr, err);
        fp_cnt_group_ran *ran = gi->ran = calloc(1, sizeof *gi->ran);
        if (!ran)
            abort();
        ran->elapsed_s = pr.elapsed_s;
        if (rc)
            pass_failed(lp, g, &pr, f.log, ran, err);
        else if (pass_outputs(lp->ctx, ls, g, &pr, &f, ran))
            (*ok_groups)++;
    }
    cJSON_Delete(jobs);
    group_files_free(&f);
    return rc;
}

/* `rocprofv3-avail pmc-check C...` (next to rocprofv3, ROCm >= 7.0; exit 0 =
 * the counters can be collected together on the agent) on every packed pass;
 * a refusal falls back to one pass per logical group. Recorded in live.pmc_check. */
static void pmc_check(fp_ctx *ctx, const char *exe, live_state *ls)
{
    fp_cnt_live_info *li = &ls->info->live;
    char *dir = fp_xstrndup(exe, (size_t)(fp_path_base(exe) - exe));
    char *avail = fp_path_join(dir[0] ? dir : ".", "rocprofv3-avail");
    free(dir);
    const char *status = "not available";
    if (access(avail, X_OK) == 0 && ls->groups != ls->logical) {
        status = "ok";
        for (size_t g = 0; g < ls->ngroups && !strcmp(status, "ok"); g++) {
            const char *argv[FP_MAX_PASSES * 4 + 8] = {avail, "pmc-check"};
            size_t k = 2;
            for (const char *const *c = ls->groups[g]; *c && k + 1 < sizeof argv / sizeof *argv; c++)
                argv[k++] = *c;
            fp_proc_opts po = {.argv = argv, .stdout_path = "/dev/null", .stderr_path = "/dev/null",
                               .timeout_s = VERSION_TIMEOUT_S, .interrupted = ctx->interrupted};
            fp_proc_result pr;
            fp_err e = {0};
            if (fp_proc_run(&po, &pr, &e) != 0 || !pr.exited || pr.exit_code != 0)
                status = "refused";
            fp_err_clear(&e);
        }
        if (!strcmp(status, "refused")) {
            fp_warn(ctx, "rocprofv3-avail pmc-check refused a packed pass: collecting one pass per counter group "
                         "(%zu instead of %zu)", ls->nlogical, ls->ngroups);
            ls->groups = ls->logical;
            ls->ngroups = ls->nlogical;
        }
    }
    li->pmc_check = fp_model_strdup(status);
    free(avail);
}

/* Live: find the profiler and its format, then one rocprofv3 pass per counter
 * group (ls->groups), stopping at the first that fails; ls->files are the outputs. */
static int live_run(fp_ctx *ctx, const counters_args *a, const char *kernel, char **app,
                    int napp, live_state *ls, fp_err *err)
{
    char *exe = find_profiler(a, ls, err);
    if (!exe)
        return -1;
    char *range = NULL, *regex = NULL;
    if (choose_format(ctx, a, exe, ls, err) || kernel_filters(a, kernel, ls->exact_kernel, &ls->info->live, &range, &regex, err)) {
        free(exe);
        return -1;
    }
    pmc_check(ctx, exe, ls);
    char *pmcdir = fp_path_join(ctx->bundle_abs ? ctx->bundle_abs : ctx->bundle, "pmc");
    char **drop = NULL;
    size_t ndrop = fp_rocprof_env_inherited(&drop);
    const char **env = calloc(ndrop + 1, sizeof *env);
    if (!env)
        abort();
    for (size_t i = 0; i < ndrop; i++) {
        env[i] = drop[i];
        fp_model_push_str(&ls->info->live.env_dropped, &ls->info->live.nenv_dropped, drop[i]);
        fp_warn(ctx, "%s is set in the environment: not passed to rocprofv3 (every setting is explicit)", drop[i]);
    }
    live_pass lp = {.ctx = ctx, .a = a, .exe = exe, .app = app, .napp = napp, .pmcdir = pmcdir,
                    .regex = regex, .range = range, .env = env};
    size_t ok_groups = 0;
    int rc = 0;
    for (size_t g = 0; g < ls->ngroups && rc == 0; g++)
        rc = run_group(&lp, ls, g, &ok_groups, err);
    free(env);
    fp_strv_free(drop, ndrop);
    free(pmcdir);
    free(regex);
    free(range);
    free(exe);
    const char *kfd = NULL;
    if (rc == 0 && ok_groups == 0 && !fp_kfd_present(&kfd)) {
        fp_err_set(err, FP_NO_GPU, "no AMD GPU is visible (%s absent): rocprofv3 collected no counters", kfd);
        return fp_err_help(err, "run on a machine with an AMD Instinct GPU; `flyprof doctor` checks");
    }
    if (rc == 0 && ok_groups == 0) {
        fp_err_set(err, FP_NO_ARTIFACT, "rocprofv3 wrote no counters for kernel '%s' in any pass", kernel);
        return fp_err_help(err, "see the logs under <bundle>/pmc/; check the kernel name (it is matched as a "
                                "substring) and --iterations");
    }
    return rc;
}

/* ------------------------------------------------------------------ output */

/* per_dispatch[].raw: each pass's row of the dispatch. */
static void raw_rows(fp_cnt_dispatch *o, const fp_pmc_record *r)
{
    for (size_t p = 0; p < r->npasses; p++) {
        const fp_pmc_dispatch *d = r->per_pass[p];
        if (!d)
            continue;
        fp_cnt_raw *w = fp_model_push((void **)&o->raw, &o->nraw, sizeof *w);
        w->pass = (int64_t)p + 1;
        w->dispatch_id = d->dispatch_id;
        if (d->start_ns >= 0 && d->end_ns > d->start_ns) {
            w->duration = calloc(1, sizeof *w->duration);
            if (!w->duration)
                abort();
            w->duration->duration_ns = d->end_ns - d->start_ns;
        }
        for (size_t i = 0; i < d->n; i++) {
            fp_model_kv *kv = fp_model_push((void **)&w->counters, &w->ncounters, sizeof *kv);
            kv->key = fp_model_strdup(d->c[i].name);
            kv->v = d->c[i].value;
        }
    }
}

/* The table, from the (rounded) document. */
static void render_table(fp_sb *t, const fp_counters_doc *doc)
{
    int nd = (int)doc->dispatches, np = (int)doc->npasses;
    fp_sb_addf(t, "counters: %s  (%d dispatch%s, %d pass%s)\n", doc->kernel, nd, nd == 1 ? "" : "es", np,
               np == 1 ? "" : "es");
    const char *prod = doc->soc.product;
    const char *arch = doc->soc.arch;
    fp_sb_addf(t, "gpu: %s (%s)\n\n", prod ? prod : "unknown product", arch ? arch : "unknown arch");
    for (size_t i = 0; i < doc->nmetrics; i++) {
        const fp_cnt_metric *m = &doc->metrics[i];
        char num[64];
        snprintf(num, sizeof num, "%.6g", m->value);
        fp_sb_adds(t, "  ");
        fp_sb_pad_left(t, m->key, 30);
        fp_sb_pad_right(t, num, 14);
        fp_sb_addf(t, " %-14s %s%s\n", m->unit, m->formula, m->cross_pass ? "  [cross-pass]" : "");
    }
    const fp_bound_doc *b = &doc->bound;
    fp_sb_addf(t, "\nbound: %s (%s, %s confidence): %s\n", b->bound, b->rule, b->confidence, b->evidence);
    if (b->optimal)
        fp_sb_addf(t, "optimal: %s\n", b->optimal_evidence);
    if (doc->ninterpretation)
        fp_sb_adds(t, "\ninterpretation (seed decision tree):\n");
    for (size_t i = 0; i < doc->ninterpretation; i++)
        fp_sb_addf(t, "  - %s\n", doc->interpretation[i]);
    if (doc->nmissing) {
        fp_sb_adds(t, "\nnot computed (missing inputs):\n");
        for (size_t i = 0; i < doc->nmissing; i++) {
            const fp_cnt_missing *m = &doc->missing[i];
            fp_sb_addf(t, "  %s: ", m->key);
            for (size_t k = 0; k < m->ninputs; k++)
                fp_sb_addf(t, "%s%s", k ? ", " : "", m->inputs[k]);
            fp_sb_addc(t, '\n');
        }
    }
}

/* ------------------------------------------------------------------ run */

/* One `counters` invocation: its inputs as they are read, resolved and merged. */
typedef struct cnt_job {
    const counters_args *a;
    bool live;
    const char *kernel; /* --kernel, else capture.json's; NULL = the records' own */
    fp_capture_doc cap;
    bool have_cap;
    fp_soc_query q;
    fp_soc_sel soc;
    live_state ls;
    fp_pmc_set set;
    fp_pmc_record *recs; /* the kernel's dispatches merged over passes */
    size_t nrec;
    bool uneven;
    char *trace_path;    /* the kernel trace the duration came from, or NULL */
    fp_hbm_peak peak;    /* the agent's HBM peak (sol.h) */
    fp_counters_opts co;
} cnt_job;

/* Live (an application after --) and offline are exclusive, and each needs its inputs. */
static int check_mode(const fp_ctx *ctx, const cnt_job *j, fp_err *err)
{
    const counters_args *a = j->a;
    if (j->live && (a->csv.n || a->db.n))
        return fp_err_set(err, FP_USAGE, "live mode (an application after --) and --csv/--db are exclusive");
    if (j->live && !ctx->bundle)
        return fp_err_set(err, FP_USAGE, "live mode needs --bundle DIR (rocprofv3 outputs go to DIR/pmc/)");
    if (j->live && !j->kernel)
        return fp_err_set(err, FP_USAGE, "live mode needs --kernel NAME (or a bundle whose capture.json names it)");
    if (!j->live && !a->csv.n && !a->db.n && !ctx->bundle)
        return fp_err_set(err, FP_USAGE, "nothing to read: give --csv FILE..., --db FILE..., --bundle DIR with "
                                         "pmc/, or an application after -- for a live run");
    return 0;
}

/* Live: the arch's counter groups, one rocprofv3 pass each, their outputs into the set. */
static int load_live(fp_ctx *ctx, cnt_job *j, char **app, int napp, fp_err *err)
{
    live_state *ls = &j->ls;
    ls->logical = fp_counters_groups(j->soc.arch, &ls->nlogical);
    ls->groups = ls->logical;
    ls->ngroups = ls->nlogical;
    /* the fewest passes: 4 groups -> 2 application runs on gfx942/gfx950 */
    if (ls->logical && fp_counters_pack(ls->logical, ls->nlogical, &ls->packed) == 0) {
        ls->groups = (const char *const *const *)ls->packed.pass;
        ls->ngroups = ls->packed.n;
    }
    if (!ls->groups) {
        fp_err_set(err, FP_BAD_ARGS, "live mode needs the architecture to pick counter names");
        return fp_err_help(err, "pass --gpu-name (%s) or --arch gfx942|gfx950, or a bundle whose capture.json has "
                                "\"arch\"",
                           fp_soc_product_list());
    }
    ls->exact_kernel = j->kernel && j->cap.kernel && j->cap.kernel->kernel && !strcmp(j->kernel, j->cap.kernel->kernel);
    if (live_run(ctx, j->a, j->kernel, app, napp, ls, err))
        return -1;
    /* each pass's per-process files as one pass (sorted: the ATT merge's order) */
    for (size_t i = 0, k; i < ls->nfiles; i = k) {
        for (k = i; k < ls->nfiles && ls->file_group[k] == ls->file_group[i];)
            k++;
        const char *const *f = (const char *const *)ls->files + i;
        if (ls->rocpd ? fp_pmc_load_rocpd_run(&j->set, f, k - i, true, err) : fp_pmc_load_csv_run(&j->set, f, k - i, err))
            return -1;
    }
    return 0;
}

/* Offline: the --csv / --db files, else what the bundle's pmc/ holds (the CSVs
 * when there are any, else the results.db files). */
static int load_offline(fp_ctx *ctx, const counters_args *a, fp_pmc_set *set, fp_err *err)
{
    if (a->csv.n || a->db.n) {
        for (size_t i = 0; i < a->csv.n; i++)
            if (fp_pmc_load_csv(set, a->csv.v[i], err))
                return -1;
        for (size_t i = 0; i < a->db.n; i++)
            if (fp_pmc_load_rocpd(set, a->db.v[i], err))
                return -1;
        return 0;
    }
    char *pmc = fp_path_join(ctx->bundle, "pmc");
    char **files = NULL;
    size_t nf = 0;
    find_files(pmc, "counter_collection.csv", &files, &nf, 0);
    bool csv = nf > 0;
    if (!csv)
        find_files(pmc, "results.db", &files, &nf, 0);
    free(pmc);
    int lrc = 0;
    /* the files of one directory are one run's processes (pmc/group_N/pass_1/pmc_<pid>_...): one pass */
    for (size_t i = 0, k; i < nf && !lrc; i = k) {
        size_t dl = (size_t)(fp_path_base(files[i]) - files[i]);
        for (k = i + 1; k < nf && (size_t)(fp_path_base(files[k]) - files[k]) == dl && !strncmp(files[k], files[i], dl);)
            k++;
        const char *const *f = (const char *const *)files + i;
        lrc = csv ? fp_pmc_load_csv_run(set, f, k - i, err) : fp_pmc_load_rocpd_run(set, f, k - i, false, err);
    }
    fp_strv_free(files, nf);
    if (lrc)
        return -1;
    if (!nf) {
        fp_err_set(err, FP_NO_ARTIFACT, "no counter_collection.csv or results.db under %s/pmc", ctx->bundle);
        return fp_err_help(err, "run `flyprof counters --bundle DIR --kernel K -- APP ARGS` (live) or pass --csv/--db");
    }
    return 0;
}

/* Only the traced agent's rows, and per pass one process's (issue 18): a
 * multi-GPU application's counters name several agents, a launcher's workers
 * write one file each. The agent is --agent, else capture.json's traced one;
 * its own agent_info row then gives the CUs and XCDs. */
static int keep_traced(fp_ctx *ctx, cnt_job *j, fp_err *err)
{
    const fp_cap_gpu *g = j->cap.kernel ? j->cap.kernel->gpu : NULL;
    const char *want = j->a->agent ? j->a->agent : g ? g->agent_id : NULL;
    const char *from = j->a->agent ? "--agent" : "capture.json";
    fp_pmc_kept k;
    fp_pmc_keep(&j->set, want, j->kernel, &k);
    if (!k.found)
        return 0; /* no row of the kernel: merge_records words it */
    if (k.wanted_absent && j->a->agent) {
        fp_err_set(err, FP_KERNEL_NOT_FOUND, "no counter rows of kernel '%s' on agent '%s'",
                   j->kernel ? j->kernel : "", want);
        return fp_err_help(err, "the rows name agent '%s'%s; pass that --agent or leave it out", k.agent,
                           k.other_agents ? " (and others)" : "");
    }
    if (k.wanted_absent)
        fp_warn(ctx, "the traced agent '%s' (%s) ran none of the kernel's counter rows: keeping '%s', whose rows "
                     "there are", want, from, k.agent);
    if (k.other_agents)
        fp_warn(ctx, "the counters name %zu other agent%s (e.g. '%s', a multi-GPU application): their %zu "
                     "dispatch%s dropped; kept '%s'%s", k.other_agents, k.other_agents == 1 ? "" : "s",
                k.other_agent, k.agent_rows_dropped, k.agent_rows_dropped == 1 ? " is" : "es are", k.agent,
                want && !k.wanted_absent ? (j->a->agent ? " (--agent)" : ", the traced agent (capture.json)")
                                         : " (the first row's agent; --agent chooses)");
    if (k.process_passes)
        fp_warn(ctx, "%zu pass%s: several processes ran the kernel on '%s'; kept the first file's process (as "
                     "capture's ATT merge), %zu dispatch%s of the others dropped",
                k.process_passes, k.process_passes == 1 ? "" : "es", k.agent, k.process_rows_dropped,
                k.process_rows_dropped == 1 ? "" : "es");
    if (k.agent[0] && !k.facts_matched && j->set.nagents)
        fp_warn(ctx, "agent '%s' has no GPU row in the agent info: the CUs and XCDs are the first GPU's", k.agent);
    return 0;
}

/* The agent info that came with the counters completes the SoC (never overrides the flags). */
static int complete_soc(cnt_job *j, fp_err *err)
{
    j->q.product_name = j->set.agent.product_name;
    j->q.device_id = j->set.agent.device_id;
    j->q.gfx_target_version = j->set.agent.gfx_target_version;
    if (j->set.agent.name)
        j->q.agent_arch = j->set.agent.name;
    return fp_soc_resolve(&j->q, &j->soc, err);
}

/* The agent's HBM peak: a DPX/QPX/CPX agent (its XCDs against the product's, else
 * capture.json's partition) under its memory partition mode (--memory-partition, else
 * capture.json's) has less than the device's (sol.h fp_hbm_partition_peak). */
static void partition_peak(fp_ctx *ctx, cnt_job *j)
{
    const fp_cap_gpu *g = j->cap.kernel ? j->cap.kernel->gpu : NULL;
    const char *part = j->set.agent.num_xcc > 0 && j->soc.product
                           ? fp_partition_name((int)j->set.agent.num_xcc, j->soc.product->xcds)
                           : NULL;
    if (!part && g)
        part = g->partition;
    const char *nps = j->a->memory_partition ? j->a->memory_partition : g ? g->memory_partition : NULL;
    fp_hbm_partition_peak(j->soc.hbm_overridden ? 0 : j->soc.hbm_gbs, part, nps, &j->peak);
    if (j->peak.source && j->peak.gbs != j->soc.hbm_gbs)
        fp_warn(ctx, "HBM peak %.0f GB/s, not the product's %.0f: %s", j->peak.gbs, j->soc.hbm_gbs, j->peak.source);
    else if (j->peak.source)
        fp_warn(ctx, "HBM peak: %s", j->peak.source);
}

/* The kernel's dispatches merged over the passes, with what the merge could not promise. */
static int merge_records(fp_ctx *ctx, cnt_job *j, fp_err *err)
{
    if (fp_pmc_records(&j->set, j->kernel, &j->recs, &j->nrec, &j->uneven, err))
        return -1;
    if (j->uneven)
        fp_warn(ctx, "the passes hold different numbers of dispatches of the kernel; only the first %zu of each "
                     "are merged",
                j->nrec);
    if (j->set.npasses > 1)
        fp_warn(ctx, "%zu passes: ratios whose inputs come from different passes are flagged cross_pass (each pass "
                     "replays the kernel; they can exceed 100%%)",
                j->set.npasses);
    return 0;
}

/* The kernel the document names: the one asked for, else the first record's. */
static const char *doc_kernel(const cnt_job *j)
{
    return j->kernel ? j->kernel : j->recs[0].per_pass[0]->kernel;
}

/* Duration: --duration-ns, else the capture's kernel trace, else each record's
 * own pass timestamps (kept as the records have them, and warned about). */
static void apply_duration(fp_ctx *ctx, cnt_job *j)
{
    const char *dur_src = j->nrec && j->recs[0].duration_source ? j->recs[0].duration_source : NULL;
    double dur = 0;
    if (j->a->duration_ns > 0) {
        dur = j->a->duration_ns;
        dur_src = "--duration-ns";
    } else if (j->have_cap) {
        dur = trace_duration(ctx, fp_bundle_capture_tag_doc(&j->cap, j->a->tag), doc_kernel(j), &j->trace_path);
        if (dur > 0)
            dur_src = "kernel trace (capture.json)";
    }
    if (dur > 0)
        for (size_t i = 0; i < j->nrec; i++) {
            j->recs[i].duration_ns = dur;
            j->recs[i].duration_source = dur_src;
        }
    if (dur <= 0 && dur_src)
        fp_warn(ctx, "duration taken from the counter passes' timestamps: counter collection serialises "
                     "dispatches, so bandwidths are approximate; give --duration-ns or a bundle kernel trace");
}

/* counters.json's summary beside the metrics: what was read, the GPU, the mean
 * duration, the bound, and the seed's decision tree over all of it. */
static void fill_summary(fp_counters_doc *doc, const cnt_job *j, const fp_bound_result *br)
{
    doc->schema = 1;
    doc->kernel = fp_model_strdup(doc_kernel(j));
    doc->mode = fp_model_strdup(j->live ? "live" : "offline");
    for (size_t p = 0; p < j->set.npasses; p++) {
        fp_cnt_pass *o = fp_model_push((void **)&doc->passes, &doc->npasses, sizeof *o);
        o->pass = (int64_t)p + 1;
        o->source = fp_model_strdup(j->set.passes[p]);
    }
    fp_soc_to_doc(&j->soc, &doc->soc);
    if (j->peak.source) {
        doc->peak_hbm_gbs = fp_optd_of(j->peak.gbs);
        doc->peak_hbm_source = fp_model_strdup(j->peak.source);
    }
    doc->dispatches = (int64_t)j->nrec;
    doc->uneven_passes = j->uneven;
    bool timed = j->nrec && j->recs[0].duration_ns > 0;
    if (timed) {
        double mean = 0;
        for (size_t i = 0; i < j->nrec; i++)
            mean += j->recs[i].duration_ns;
        doc->duration_ns = fp_optd_of(mean / (double)j->nrec);
    }
    doc->duration_source = fp_model_strdup(timed ? j->recs[0].duration_source : NULL);
    doc->kernel_trace = fp_model_strdup(j->trace_path);
    if (j->a->ideal_gb > 0)
        doc->ideal_bytes = fp_optd_of(j->co.ideal_bytes);
    doc->ea_channels = j->co.ea_channels;
    fp_bound_to_doc(br, &doc->bound);
    fp_counters_interpret(doc);
}

/* Live: the counters asked for but absent from every pass (dropped by rocprofv3
 * or unsupported) join live.missing_counters; the live part moves into doc. */
static void live_into_doc(fp_ctx *ctx, cnt_job *j, fp_counters_doc *doc)
{
    fp_cnt_live *lv = j->ls.info;
    for (size_t g = 0; g < j->ls.ngroups; g++)
        for (const char *const *c = j->ls.groups[g]; *c; c++) {
            bool seen = false;
            for (size_t i = 0; i < j->nrec && !seen; i++)
                seen = fp_pmc_get(&j->recs[i], *c).have;
            bool listed = false;
            for (size_t i = 0; i < lv->nmissing_counters; i++)
                listed |= !strcmp(lv->missing_counters[i], *c);
            if (!seen && !listed)
                fp_model_push_str(&lv->missing_counters, &lv->nmissing_counters, *c);
        }
    if (lv->nmissing_counters)
        fp_warn(ctx, "%d requested counters are absent from the output (unsupported or dropped); the metrics "
                     "that need them are listed under \"missing\"",
                (int)lv->nmissing_counters);
    doc->live = j->ls.info;
    j->ls.info = NULL;
}

/* per_dispatch: the first MAX_LISTED_DISPATCHES records, each with its own
 * metrics and raw rows (the summary covers all). */
static void per_dispatch(fp_ctx *ctx, fp_counters_doc *doc, const cnt_job *j)
{
    size_t shown = j->nrec < MAX_LISTED_DISPATCHES ? j->nrec : MAX_LISTED_DISPATCHES;
    for (size_t i = 0; i < shown; i++) {
        fp_cnt_dispatch *o = fp_model_push((void **)&doc->per_dispatch, &doc->nper_dispatch, sizeof *o);
        o->ordinal = (int64_t)i + 1;
        if (j->recs[i].duration_ns > 0)
            o->duration_ns = fp_optd_of(j->recs[i].duration_ns);
        fp_counters_doc one = {0};
        fp_counters_metrics(&j->recs[i], 1, &j->co, NULL, &one);
        for (size_t k = 0; k < one.nmetrics; k++) {
            fp_model_kv *kv = fp_model_push((void **)&o->metrics, &o->nmetrics, sizeof *kv);
            kv->key = fp_model_strdup(one.metrics[k].key);
            kv->v = one.metrics[k].value;
        }
        fp_counters_doc_free(&one);
        raw_rows(o, &j->recs[i]);
    }
    fp_truncated(ctx, "per_dispatch", shown, j->nrec);
}

/* counters.json into the bundle (when there is one), then the table and the
 * envelope's data - both from the rounded document, so they show the file's numbers. */
static int write_outputs(fp_ctx *ctx, fp_counters_doc *doc, fp_err *err)
{
    if (ctx->bundle) {
        char *out = fp_bundle_path(ctx->bundle, FP_ART_COUNTERS);
        cJSON *file = fp_model_write(&fp_counters_doc_schema, doc);
        int wrc = fp_bundle_write_json(out, file, ctx->bundle, err);
        cJSON_Delete(file);
        if (wrc == 0)
            doc->artifact = fp_model_strdup(out);
        free(out);
        if (wrc)
            return -1;
    }
    fp_model_round(&fp_counters_doc_schema, doc);
    render_table(&ctx->table, doc);
    ctx->data = fp_model_write(&fp_counters_doc_schema, doc);
    return 0;
}

static int counters_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    counters_args *a = argsp;
    int rc = -1;
    cnt_job j = {.a = a, .live = npos > 0};
    fp_pmc_set_init(&j.set);
    j.have_cap = load_capture(ctx, &j.cap);
    j.kernel = a->kernel ? a->kernel : j.cap.kernel ? j.cap.kernel->kernel : NULL;
    fp_counters_doc doc = {0};
    fp_dtype dtype = FP_DT_COUNT;
    if ((a->dtype && fp_dtype_parse(a->dtype, &dtype, err)) || check_mode(ctx, &j, err))
        goto out;

    /* the SoC: flags, then what the bundle's capture says; the counters' agent info completes it */
    j.q = (fp_soc_query){.gpu_name = a->gpu_name, .arch = a->arch, .sclk_mhz = a->sclk_mhz, .hbm_gbs = a->hbm_gbs,
                         .agent_arch = j.cap.kernel ? j.cap.kernel->arch : NULL};
    if (fp_soc_resolve(&j.q, &j.soc, err) ||
        (j.live ? load_live(ctx, &j, pos, npos, err) : load_offline(ctx, a, &j.set, err)) ||
        keep_traced(ctx, &j, err) || complete_soc(&j, err) || merge_records(ctx, &j, err))
        goto out;
    apply_duration(ctx, &j);
    partition_peak(ctx, &j);

    j.co = (fp_counters_opts){.soc = &j.soc, .ideal_bytes = a->ideal_gb * BYTES_PER_GB,
                              .ea_channels = a->ea_channels > 0 ? a->ea_channels : 1.0, .dtype = dtype,
                              /* the agent's own counts: right on a partitioned device */
                              .agent_cus = j.set.agent.cu_count > 0 ? (int)j.set.agent.cu_count : 0,
                              .agent_xcds = j.set.agent.num_xcc > 0 ? (int)j.set.agent.num_xcc : 0,
                              .peak_hbm_gbs = j.peak.source ? j.peak.gbs : 0};
    fp_bound_in bin;
    fp_bound_in_init(&bin);
    fp_counters_metrics(j.recs, j.nrec, &j.co, &bin, &doc);
    fp_bound_result br;
    fp_bound_classify(&bin, &br);
    fill_summary(&doc, &j, &br);
    if (j.live)
        live_into_doc(ctx, &j, &doc);
    per_dispatch(ctx, &doc, &j);
    rc = write_outputs(ctx, &doc, err);
out:
    if (j.ls.info)
        fp_model_free(&fp_counters_doc_schema, &(fp_counters_doc){.live = j.ls.info});
    fp_counters_doc_free(&doc);
    fp_strv_free(j.ls.files, j.ls.nfiles);
    free(j.ls.file_group);
    fp_counter_passes_free(&j.ls.packed);
    fp_pmc_records_free(j.recs, j.nrec);
    fp_pmc_set_free(&j.set);
    fp_capture_free(&j.cap);
    free(j.trace_path);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule counters_paths[] = {
    {.opt = "csv", .kind = FP_PATH_FILE}, {.opt = "db", .kind = FP_PATH_FILE}, {.opt = "bundle", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const counters_examples[] = {
    "flyprof counters --bundle runs/softmax -- python tests/kernels/test_softmax.py",
    "flyprof counters --csv pmc/pmc_counter_collection.csv --kernel softmax_kernel_0",
    NULL,
};

const fp_command fp_cmd_counters = {
    .examples = counters_examples,
    .next = "flyprof report --bundle {bundle}   (the counters join the ranked plan)",
    .name = "counters",
    .summary = "hardware counters per dispatch: L2 hit, 32B partial, over-fetch, HBM %, MFMA, LDS, occupancy, bound",
    .usage = "flyprof counters [--csv FILE... | --db FILE...] [--kernel NAME] [--ideal-gb GB] [--bundle DIR] "
             "[-- APP ARGS]",
    .details = "Offline: reads rocprofv3 counter_collection.csv files (one per pass) or rocpd results.db files, "
               "or the bundle's pmc/ dir. Live (an application after --): runs rocprofv3 once per counter group "
               "that fits one hardware pass (TCC <= 4, SQ <= 8), each under --timeout with a process-group kill. "
               "Every metric carries its formula; ratios across passes are flagged. Writes <bundle>/counters.json.",
    .opts = counters_opts,
    .args_size = sizeof(counters_args),
    .min_pos = 0,
    .max_pos = -1,
    .run = counters_run,
    .paths = counters_paths,
};
