/*
 * cmd_capture.c - `flyprof capture KERNEL`: find the kernel with a discovery
 * pass (rocprofv3 --stats --kernel-trace), then trace it with ATT once per
 * tag, and write capture.json.
 *
 * The story, in order: resolve config, rocprofv3, worktree and recipe ->
 * build the workload's argv and env -> discovery run -> pick the kernel
 * (recipe hint, then name, then heaviest non-library kernel) -> choose the
 * iteration set (explicit, 1-based, existing) -> per tag: cold JIT cache,
 * input YAML, ATT run, stderr scan, inventory, one retry with a bigger buffer
 * if data was lost -> capture.json.
 *
 * Every rocprofv3 run is bounded by --timeout and killed (whole process
 * group) on Ctrl-C. capture.json is written on every exit once the bundle
 * exists, with "status" saying how it ended, so the bundle is never left in
 * a state other commands would misread.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flyprof/bundle.h"
#include "flyprof/provenance.h"
#include "flyprof/bundle_path.h"
#include "flyprof/capture.h"
#include "flyprof/capture_doc.h"
#include "flyprof/envelope_doc.h"
#include "flyprof/cli.h"
#include "flyprof/codeobj.h"
#include "flyprof/agent_info.h"
#include "flyprof/config.h"
#include "flyprof/discovery.h"
#include "flyprof/fs.h"
#include "flyprof/heartbeat.h"
#include "flyprof/input_yaml.h"
#include "flyprof/inventory.h"
#include "flyprof/json.h"
#include "flyprof/occupancy.h"
#include "flyprof/proc.h"
#include "flyprof/recipes.h"
#include "flyprof/rpenv.h"
#include "flyprof/worktree.h"

#include "child_argv.h"
#include "commands.h"

/* ATT parameters of seed 000 Step 2: one target CU, SEs 0-3, all SIMDs. The
 * buffer is rocprofv3's own default of the detected SDK (fp_att_buffer_default:
 * 256 MiB in 7.0, 384 MiB from SDK 1.3; the seed's 96 MiB was smaller than
 * either), doubled on the retry after a cut-off ("Wave incomplete"). */
#define ATT_TARGET_CU 1
#define ATT_SE_MASK "0xf"
#define ATT_SIMD_SELECT "0xf"
/* The -o bases; rocprofv3 expands %pid% per process (a launcher and its workers
 * each write their own set; fp_discovery_load_dir merges them). */
#define ATT_OUT "out"
#define DISC_OUT "discover"
/* Default bound of one rocprofv3 run (JIT compile + benchmark under ATT). */
#define CAPTURE_DEFAULT_TIMEOUT "1200"
/* Bound of `rocprofv3 --version`. */
#define VERSION_TIMEOUT_S 20.0
/* Discovery candidates recorded in capture.json. */
#define MAX_CANDIDATES 8
/* First SDK with the gfx950 register fix and csv deprecation (rocprof-formats.md §1.8, §3.5). */
#define SDK_FIXED_VERSION "1.3.0"

static const char *const tag_choices[] = {"small", "big", "both", NULL};

typedef struct capture_args {
    fp_config_args cfg;
    const char *shape, *invocation, *tag, *iter_range;
    double timeout;
    bool with_pmc;
} capture_args;

static const fp_opt capture_opts[] = {
    FP_CONFIG_OPTS(capture_args, cfg),
    {"shape", 0, FP_OPT_STR, offsetof(capture_args, shape), "S",
     "problem shape, e.g. 32768,8192,bf16 (goes to the recipe's shape_env)", NULL, NULL, 0, 0},
    {"invocation", 0, FP_OPT_STR, offsetof(capture_args, invocation), "CMD",
     "workload command (replaces the recipe's); leading VAR=value words become env", NULL, NULL, 0, 0},
    {"tag", 0, FP_OPT_CHOICE, offsetof(capture_args, tag), "TAG", "small, big or both", "big", tag_choices, 0, 0},
    {"iter-range", 0, FP_OPT_STR, offsetof(capture_args, iter_range), "R",
     "1-based iterations of the kernel to trace, e.g. 8 or [6,8] (default: auto)", NULL, NULL, 0, 0},
    {"timeout", 0, FP_OPT_DOUBLE, offsetof(capture_args, timeout), "S",
     "seconds allowed for each rocprofv3 run (discovery included)", CAPTURE_DEFAULT_TIMEOUT, NULL, 0, 0},
    {"with-pmc", 0, FP_OPT_FLAG, offsetof(capture_args, with_pmc), NULL,
     "also collect PMC counters (runs `flyprof counters` live on the same workload)", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Everything the run accumulates; capture.json is built from it. */
typedef struct cap {
    fp_ctx *ctx;
    const capture_args *a;
    fp_config cfg;
    fp_rocprof_info rp;
    fp_worktree wt;
    fp_recipes recipes;
    const fp_recipe *recipe;
    fp_invocation inv;
    char *bundle;
    fp_capture_doc doc; /* capture.json being built */
    double t0;
    char **rp_env;      /* inherited ROCPROF_* names, removed from every rocprofv3 run (rpenv.h) */
    size_t nrp_env;
    char **att_lib;     /* ROCPROF_ATT_LIBRARY_PATH's dirs, passed as the job's att_library_path */
    size_t natt_lib;
    char att_buffer[2][24]; /* att_buffer_size of the first attempt and of the retry ("0x10000000") */
    char att_fatal[512];    /* the last ATT run's fatal line (an EMPTY_ATT then says why) */
    char *disc_agent_csv;   /* discovery's agent_info.csv (csv discovery only) */
    char hip_visible[64];   /* HIP_VISIBLE_DEVICES for every run: --gpu mapped through the inherited masks */
    char *visible_desc;     /* the inherited masks, for capture.json (NULL when none) */
    long long physical;     /* --gpu through them as a physical index, -1 when not numeric */
} cap;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *bpath(const cap *c, const char *rel) { return fp_path_join(c->bundle, rel); }

/* capture.json's records of the worktree and the resolved settings (doctor shows the same). */
static fp_cap_worktree *worktree_fill(const fp_worktree *wt)
{
    fp_cap_worktree *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    fp_worktree_to_doc(wt, o);
    return o;
}

static fp_cap_config *config_fill(const fp_config *cfg)
{
    fp_cap_config *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    fp_config_to_doc(cfg, o);
    return o;
}

/* Write capture.json with the final status; errors here are reported only if
 * nothing else failed. */
static int write_capture_json(cap *c, const char *status, const fp_err *failure, fp_err *err)
{
    free(c->doc.status);
    c->doc.status = fp_model_strdup(status);
    if (c->doc.error) {
        fp_model_free(&fp_capture_schema, &(fp_capture_doc){.error = c->doc.error});
        c->doc.error = NULL;
    }
    if (failure && failure->code != FP_OK) {
        c->doc.error = calloc(1, sizeof *c->doc.error);
        c->doc.error->code = fp_model_strdup(fp_code_name(failure->code));
        c->doc.error->message = fp_model_strdup(failure->message);
    }
    c->doc.durations.total_s = now_s() - c->t0;
    char *p = bpath(c, "capture.json");
    cJSON *j = fp_model_write(&fp_capture_schema, &c->doc);
    int rc = fp_bundle_write_json(p, j, c->bundle, err);
    cJSON_Delete(j);
    free(p);
    return rc;
}

/* The environment every workload run gets (docs/commands/capture.md). */
static void build_env(const cap *c, const char *cache_dir, const char *shape, fp_sb *store, const char ***envp)
{
    /* store holds the strings NUL-separated; envp points into it */
    size_t offs[64];
    size_t n = 0;
#define ADDF(...)                                                                                                 \
    do {                                                                                                          \
        offs[n++] = store->len;                                                                                   \
        fp_sb_addf(store, __VA_ARGS__);                                                                           \
        fp_sb_addc(store, '\0');                                                                                  \
    } while (0)
    const char *pp = getenv("PYTHONPATH");
    ADDF("PYTHONPATH=%s/%s:%s%s%s", c->wt.path, FP_FLYDSL_BUILD_TREE, c->wt.path, pp && pp[0] ? ":" : "",
         pp && pp[0] ? pp : "");
    ADDF("HIP_VISIBLE_DEVICES=%s", c->hip_visible);
    /* DWARF line tables in the JIT output: without them code.json has no source column */
    ADDF("FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1");
    ADDF("FLYDSL_RUNTIME_CACHE_DIR=%s", cache_dir);
    ADDF("FLYDSL_RUNTIME_ENABLE_CACHE=1");
    if (shape && c->recipe && c->recipe->shape_env)
        ADDF("%s=%s", c->recipe->shape_env, shape);
    for (size_t i = 0; i < c->inv.nenv && n < 60; i++)
        ADDF("%s", c->inv.env[i]); /* the user's inline assignments win */
#undef ADDF
    size_t nall = n + c->nrp_env;
    const char **e = calloc(nall + 1, sizeof *e);
    for (size_t i = 0; i < n; i++)
        e[i] = store->buf + offs[i];
    for (size_t i = 0; i < c->nrp_env; i++)
        e[n + i] = c->rp_env[i]; /* "NAME" alone: removed (proc.h) */
    *envp = e;
}

/* Run rocprofv3 with argv (argv[0] replaced by the resolved path), logging
 * the command into capture.json. Output goes to <dir>/rocprofv3.{stdout,stderr}.txt.
 * Returns 0 when it ran (any exit status) and fills rcode and stderr_text. */
static int run_rocprof(cap *c, const char *step, const char **argv, const char *out_dir, const char **env,
                       int *rcode, fp_sb *stderr_text, fp_err *err)
{
    char *so = fp_path_join(out_dir, "rocprofv3.stdout.txt"), *se = fp_path_join(out_dir, "rocprofv3.stderr.txt");
    fp_heartbeat hb;
    fp_heartbeat_begin(&hb, c->ctx, "capture: %s", step);
    fp_proc_opts o = {.argv = argv, .env = env, .cwd = c->wt.path, .stdout_path = so, .stderr_path = se,
                      .timeout_s = c->a->timeout, .interrupted = c->ctx->interrupted,
                      .tick = fp_heartbeat_tick, .tick_arg = &hb};
    fp_proc_result r;
    fp_progress(c->ctx, "capture: %s (timeout %gs)", step, c->a->timeout);
    int rc = fp_proc_run(&o, &r, err);
    fp_heartbeat_end(&hb, r.elapsed_s,
                     r.timed_out ? "timed out" : r.interrupted ? "interrupted" : rc != 0 ? "failed" : "done");
    fp_cap_command *cmd = fp_model_push((void **)&c->doc.commands, &c->doc.ncommands, sizeof *cmd);
    cmd->step = fp_model_strdup(step);
    for (size_t i = 0; argv[i]; i++)
        fp_model_push_str(&cmd->argv, &cmd->nargv, argv[i]);
    fp_sb line;
    fp_sb_init(&line);
    fp_proc_argv_str(argv, &line);
    cmd->command = fp_model_strdup(line.buf);
    fp_sb_free(&line);
    cmd->cwd = fp_model_strdup(c->wt.path);
    cmd->exit_code = r.exited ? fp_optd_of(r.exit_code) : fp_optd_none();
    cmd->signal = r.term_signal ? fp_optd_of(r.term_signal) : fp_optd_none();
    cmd->timed_out = r.timed_out;
    cmd->interrupted = r.interrupted;
    cmd->seconds = r.elapsed_s;
    char *rel = se + strlen(c->bundle) + 1;
    cmd->stderr_path = fp_model_strdup(rel);
    if (rc == 0 || r.timed_out || r.interrupted) {
        fp_err e2 = {0};
        fp_read_file(se, stderr_text, &e2);
        fp_err_clear(&e2);
    }
    if (rc != 0) {
        if (r.exec_failed) {
            fp_err_set(err, FP_ROCPROFV3_MISSING, "cannot execute %s: %s", argv[0], strerror(r.exec_errno));
            fp_err_help(err, "check --rocprofv3 / FLYPROF_ROCPROFV3 (and that python3 can run the script)");
        } else if (r.timed_out) {
            fp_err_set(err, FP_CAPTURE_TIMEOUT, "%s: rocprofv3 did not finish within %gs; its process group was "
                                                "killed",
                       step, c->a->timeout);
            fp_err_help(err, "retry with a larger --timeout, or a smaller --shape; stderr is in %s", rel);
        } else if (r.interrupted) {
            fp_err_set(err, FP_INTERRUPTED, "%s: interrupted; rocprofv3's process group was killed", step);
            fp_err_help(err, "capture.json records what finished before the signal");
        }
    }
    *rcode = r.exited ? r.exit_code : 128 + r.term_signal;
    free(so);
    free(se);
    return rc;
}

/* The workload argv: python/python3 -> --python; a bare .py -> python prepended. */
static const char **workload_argv(const cap *c, size_t *n)
{
    const char **v = calloc(c->inv.argc + 2, sizeof *v);
    size_t k = 0;
    const char *a0 = c->inv.argv[0];
    size_t l0 = strlen(a0);
    if (!strcmp(a0, "python") || !strcmp(a0, "python3")) {
        v[k++] = c->cfg.python.value;
    } else {
        if (l0 > 3 && !strcmp(a0 + l0 - 3, ".py"))
            v[k++] = c->cfg.python.value;
        v[k++] = a0;
    }
    for (size_t i = 1; i < c->inv.argc; i++)
        v[k++] = c->inv.argv[i];
    *n = k;
    return v;
}

static const char **rocprof_argv(const cap *c, const char *const *pre, size_t npre, const char **wl, size_t nwl)
{
    const char **v = calloc(npre + nwl + 3, sizeof *v);
    size_t k = 0;
    v[k++] = c->rp.path;
    for (size_t i = 0; i < npre; i++)
        v[k++] = pre[i];
    v[k++] = "--";
    for (size_t i = 0; i < nwl; i++)
        v[k++] = wl[i];
    return v;
}

/* The discovery ranking, as `flyprof kernels` shows it (fp_kernel_rank), into capture.json. */
static void cands_fill(const fp_kcands *k, fp_cap_disc_found *f)
{
    fp_krank r;
    fp_err e = {0};
    fp_kernel_rank(k, NULL, MAX_CANDIDATES, &r, &e); /* no filter: cannot fail */
    fp_krank_to_doc(k, &r, &f->candidates, &f->ncandidates);
    fp_krank_free(&r);
}

/* The same ranking for an error's extra (the envelope of `flyprof kernels`). */
static cJSON *cands_json(const fp_kcands *k)
{
    fp_krank r;
    fp_err e = {0};
    fp_kernel_rank(k, NULL, MAX_CANDIDATES, &r, &e); /* no filter: cannot fail */
    cJSON *a = fp_krank_json(k, &r);
    fp_krank_free(&r);
    return a;
}

/* Registers from a kernel trace row, with the gfx950 under-count corrected
 * (authoritative: the row was made from the code object, nothing to correct). */
static fp_cap_registers *registers_fill(const cap *c, const fp_kcand *k, const char *arch, const char *source,
                                        bool authoritative)
{
    fp_cap_registers *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->source = fp_model_strdup(source);
    o->vgpr_count = fp_optd_of(k->vgpr_count);
    o->accum_vgpr_count = fp_optd_of(k->accum_vgpr_count);
    o->sgpr_count = fp_optd_of(k->sgpr_count);
    o->lds_bytes = fp_optd_of((double)k->lds_bytes);
    o->scratch_bytes = fp_optd_of((double)k->scratch_bytes);
    o->workgroup_size = fp_optd_of((double)((int64_t)k->wg_x * (k->wg_y ? k->wg_y : 1) * (k->wg_z ? k->wg_z : 1)));
    const fp_arch_limits *lim = arch ? fp_arch_by_name(arch) : NULL;
    if (lim && k->vgpr_count >= 0) {
        bool fixed = authoritative || (c->rp.version && fp_version_cmp(c->rp.version, SDK_FIXED_VERSION) >= 0);
        bool corrected = false;
        int total = fp_occ_csv_combined_vgpr(lim, k->vgpr_count, k->accum_vgpr_count < 0 ? 0 : k->accum_vgpr_count,
                                             fixed, &corrected);
        fp_cap_reg_occ *ro = o->occ = calloc(1, sizeof *o->occ);
        if (!ro)
            abort();
        ro->total_vgpr = fp_optd_of(total);
        ro->gfx950_undercount_corrected = corrected;
        /* what occupancy should believe: on a corrected gfx950 row the
         * arch/accum split is unrecoverable, so the combined total is given
         * as arch_vgpr with accum 0 (same unified-pool occupancy) */
        ro->arch_vgpr = corrected ? total : k->vgpr_count;
        ro->accum_vgpr = corrected ? 0 : (k->accum_vgpr_count < 0 ? 0 : k->accum_vgpr_count);
        fp_occ_in in = {.arch_vgpr = corrected ? 0 : k->vgpr_count,
                        .accum_vgpr = corrected ? 0 : (k->accum_vgpr_count < 0 ? 0 : k->accum_vgpr_count),
                        .lds_bytes = k->lds_bytes > 0 ? (int)k->lds_bytes : 0,
                        .sgpr = k->sgpr_count > 0 ? k->sgpr_count : 0,
                        .wg_size = k->wg_x * (k->wg_y ? k->wg_y : 1) * (k->wg_z ? k->wg_z : 1),
                        .total_vgpr_floor = corrected ? total : 0};
        fp_occ_out out;
        fp_occ_compute(lim, &in, &out);
        ro->waves_per_simd = out.occupancy;
        ro->occupancy_limited_by = fp_model_strdup(fp_occ_limiter_name(out.bound_by));
    }
    return o;
}

static const fp_kcand *find_cand(const fp_kcands *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->v[i].name, name))
            return &k->v[i];
    return NULL;
}

/* Where one tag's pass writes: att/<tag>, rocprof/<tag> and its JIT cache. */
typedef struct att_dirs {
    char *att, *rp, *cache;
} att_dirs;

static char *tag_dir(const cap *c, const char *fmt, const char *tag)
{
    fp_sb rel;
    fp_sb_init(&rel);
    fp_sb_addf(&rel, fmt, tag);
    char *p = bpath(c, rel.buf);
    fp_sb_free(&rel);
    return p;
}

/* The rocprofv3 input.yaml job of one ATT attempt. */
static cJSON *att_job(const cap *c, const char *regex, const char *iters, const char *att_dir, const char *buffer)
{
    cJSON *jobs = cJSON_CreateArray();
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToArray(jobs, j);
    fp_json_add_str(j, "kernel_include_regex", regex);
    fp_json_add_str(j, "kernel_iteration_range", iters);
    fp_json_add_str(j, "output_directory", att_dir);
    fp_json_add_str(j, "output_file", ATT_OUT "_%pid%"); /* one file set per process: none clobbers another */
    cJSON *fmt = cJSON_AddArrayToObject(j, "output_format");
    cJSON_AddItemToArray(fmt, cJSON_CreateString("csv"));
    fp_json_add_bool(j, "kernel_trace", 1);
    fp_json_add_bool(j, "advanced_thread_trace", 1);
    fp_json_add_int(j, "att_target_cu", ATT_TARGET_CU);
    fp_json_add_str(j, "att_shader_engine_mask", ATT_SE_MASK);
    fp_json_add_str(j, "att_simd_select", ATT_SIMD_SELECT);
    fp_json_add_str(j, "att_buffer_size", buffer);
    if (c->natt_lib) { /* the decoder dir the user exported, as the flag form (rpenv.h) */
        cJSON *lib = cJSON_AddArrayToObject(j, "att_library_path");
        for (size_t i = 0; i < c->natt_lib; i++)
            cJSON_AddItemToArray(lib, cJSON_CreateString(c->att_lib[i]));
    }
    return jobs;
}

/* One ATT run of the workload (attempt 0, or 1 = the retry with the bigger
 * buffer); *sc is what its stderr says, t->attempts gets its record. */
static int att_attempt(cap *c, fp_cap_tag *t, const char *tag, const char *shape, const char *regex,
                       const char *iters, const att_dirs *d, int attempt, int *exit_code, fp_stderr_scan *sc,
                       fp_err *err)
{
    const char *const buffers[] = {c->att_buffer[0], c->att_buffer[1]};
    /* a fresh output dir and a COLD JIT cache: a warm cache skips
     * compilation and the code object then has no line table */
    if (fp_rm_rf_contents(d->att, err) != 0 || fp_rm_rf_contents(d->cache, err) != 0 ||
        fp_mkdir_p(d->att, err) != 0 || fp_mkdir_p(d->cache, err) != 0 || fp_mkdir_p(d->rp, err) != 0)
        return -1;
    cJSON *jobs = att_job(c, regex, iters, d->att, buffers[attempt]);
    char yaml_name[64];
    /* JSON, not YAML: .yaml needs PyYAML in rocprofv3's python (input_yaml.h) */
    snprintf(yaml_name, sizeof yaml_name, "input_att%s.json", attempt ? "_retry" : "");
    char *yaml = fp_path_join(d->rp, yaml_name);
    int rc = fp_input_json_write(yaml, jobs, err);
    cJSON_Delete(jobs);
    if (rc != 0) {
        free(yaml);
        return -1;
    }
    fp_sb envs, stderr_text;
    fp_sb_init(&envs);
    fp_sb_init(&stderr_text);
    const char **env = NULL;
    build_env(c, d->cache, shape, &envs, &env);
    size_t nwl;
    const char **wl = workload_argv(c, &nwl);
    const char *pre[] = {"-i", yaml};
    const char **argv = rocprof_argv(c, pre, 2, wl, nwl);
    char step[64];
    snprintf(step, sizeof step, "att:%s%s", tag, attempt ? ":retry" : "");
    rc = run_rocprof(c, step, argv, d->rp, env, exit_code, &stderr_text, err);
    free(argv);
    free(wl);
    free(env);
    fp_sb_free(&envs);
    free(yaml);
    fp_scan_stderr(stderr_text.buf, sc);
    fp_sb_free(&stderr_text);
    if (sc->fatal && *exit_code != 0)
        snprintf(c->att_fatal, sizeof c->att_fatal, "%s", sc->first_fatal);
    fp_cap_attempt *at = fp_model_push((void **)&t->attempts, &t->nattempts, sizeof *at);
    at->att_buffer_size = fp_model_strdup(buffers[attempt]);
    at->exit_code = *exit_code;
    at->data_lost = sc->data_lost;
    return rc;
}

/* The ATT runs of one tag: a second one with the bigger buffer when the decoder
 * reports lost data. *lost: the kept trace is still truncated. */
static int att_runs(cap *c, fp_cap_tag *t, const char *tag, const char *shape, const char *regex, const char *iters,
                    const att_dirs *d, bool *lost, bool *bandwidth, int *exit_code, fp_err *err)
{
    *lost = false;
    *bandwidth = false;
    for (int attempt = 0; attempt < 2; attempt++) {
        fp_stderr_scan sc;
        if (att_attempt(c, t, tag, shape, regex, iters, d, attempt, exit_code, &sc, err) != 0)
            return -1;
        if (sc.decoder_missing) {
            fp_err_set(err, FP_TRACE_DECODER_MISSING, "rocprofv3 cannot find the trace decoder: %s",
                       sc.first_fatal[0] ? sc.first_fatal : "librocprof-trace-decoder.so not loaded");
            return fp_err_help(err, "install rocprof-trace-decoder into <rocm>/lib or set ROCPROF_ATT_LIBRARY_PATH "
                                    "(see `flyprof doctor`)");
        }
        if (sc.stitch_incomplete) {
            fp_err_set(err, FP_TRACE_STITCH_FAILED, "tag %s: the trace decoder reported \"Stitch Incomplete\": "
                                                    "the trace does not match the kernel's code object",
                       tag);
            return fp_err_help(err, "code object / decoder version skew: install the rocprof-trace-decoder "
                                    "release that matches this ROCm (`flyprof doctor` shows both); a bigger "
                                    "buffer does not help");
        }
        *bandwidth = sc.bandwidth_loss;
        *lost = sc.data_lost;
        if (!*lost)
            break;
        if (attempt == 0)
            fp_progress(c->ctx, "capture: tag %s: waves cut off (decoder: wave incomplete) at att_buffer_size %s, "
                                "retrying with %s",
                        tag, c->att_buffer[0], c->att_buffer[1]);
    }
    return 0;
}

/* The tag's record of runs that finished: the buffer kept, truncation, rocprofv3's exit. */
static fp_cap_tag_done *record_att_done(cap *c, fp_cap_tag *t, const char *tag, bool lost, bool bandwidth,
                                        int exit_code)
{
    fp_cap_tag_done *td = t->done = calloc(1, sizeof *t->done);
    if (!td)
        abort();
    td->att_buffer_size = fp_model_strdup(c->att_buffer[t->nattempts > 1]);
    td->truncated = lost;
    if (lost)
        fp_warn(c->ctx, "tag %s: the trace is still truncated at att_buffer_size %s (decoder: wave incomplete); "
                        "reduce the shape or the SE mask",
                tag, c->att_buffer[1]);
    if (bandwidth) { /* a bigger buffer does not help: the trace is kept, its quality said */
        td->quality = fp_model_strdup("packets_dropped");
        fp_warn(c->ctx, "tag %s: the trace decoder reported \"Data Lost\" (packets dropped for bandwidth, not a "
                        "full buffer): stall and latency figures have gaps; trace fewer SEs "
                        "(att_shader_engine_mask) or SIMDs",
                tag);
    }
    if (exit_code != 0)
        fp_warn(c->ctx, "tag %s: rocprofv3 exited %d (stderr kept in rocprof/%s/rocprofv3.stderr.txt)", tag,
                exit_code, tag);
    td->exit_code = exit_code;
    return td;
}

/* The per-process file <dir>/<base>[_<pid>]_<suffix> (sorted names; with `want`,
 * the first whose text holds it: the process that ran the kernel); malloc'd or NULL. */
static char *pid_file(const char *dir, const char *base, const char *suffix, const char *want)
{
    char **names = NULL;
    size_t n = 0;
    fp_err e = {0};
    if (fp_list_dir(dir, &names, &n, &e) != 0) {
        fp_err_clear(&e);
        return NULL;
    }
    char *first = NULL, *hit = NULL;
    size_t lb = strlen(base), ls = strlen(suffix);
    for (size_t i = 0; i < n && !hit; i++) {
        size_t ln = strlen(names[i]);
        if (ln < lb + ls + 1 || strncmp(names[i], base, lb) || names[i][lb] != '_' ||
            strcmp(names[i] + ln - ls, suffix) || strspn(names[i] + lb + 1, "0123456789_") != ln - ls - lb - 1)
            continue;
        char *p = fp_path_join(dir, names[i]);
        fp_sb t;
        fp_sb_init(&t);
        bool has = !want || (fp_read_file(p, &t, &e) == 0 && strstr(t.buf, want));
        fp_err_clear(&e);
        fp_sb_free(&t);
        if (has)
            hit = p;
        else if (!first)
            first = p;
        else
            free(p);
    }
    fp_strv_free(names, n);
    if (hit) {
        free(first);
        return hit;
    }
    return first;
}

/* copy the tag's kernel trace and agent info where docs/bundle.md says (from
 * the process that traced the kernel: out_<pid>_kernel_trace.csv) */
static void copy_trace_csvs(fp_cap_tag_done *td, const char *tag, const att_dirs *d, const char *kernel)
{
    static const char *const copies[][2] = {{"kernel_trace.csv", "kernel_trace.csv"},
                                            {"agent_info.csv", "agent_info.csv"}};
    char *kt = pid_file(d->att, ATT_OUT, copies[0][0], kernel);
    for (size_t i = 0; i < 2; i++) {
        char *from = NULL;
        if (i == 0) {
            from = kt ? strdup(kt) : NULL;
        } else if (kt) { /* the same process's agent info */
            size_t l = strlen(kt) - strlen(copies[0][0]);
            from = malloc(l + strlen(copies[1][0]) + 1);
            if (!from)
                abort();
            sprintf(from, "%.*s%s", (int)l, kt, copies[1][0]);
        }
        if (from && fp_is_file(from)) {
            char *to = fp_path_join(d->rp, copies[i][1]);
            fp_err e2 = {0};
            fp_copy_file(from, to, &e2);
            fp_err_clear(&e2);
            free(to);
            char relp[96];
            snprintf(relp, sizeof relp, "rocprof/%s/%s", tag, copies[i][1]);
            *(i == 0 ? &td->kernel_trace_csv : &td->agent_info_csv) = fp_model_strdup(relp);
        }
        free(from);
    }
    free(kt);
}

/* Every dispatch dir the pass wrote, as capture.json's inventory. */
static fp_cap_inventoried *record_inventory(fp_cap_tag_done *td, const fp_att_dir *inv, size_t ninv)
{
    fp_cap_inventoried *ti = td->inventoried = calloc(1, sizeof *td->inventoried);
    if (!ti)
        abort();
    for (size_t i = 0; i < ninv; i++) {
        fp_cap_dispatch_dir *d = fp_model_push((void **)&ti->inventory, &ti->ninventory, sizeof *d);
        d->dir = fp_model_strdup(inv[i].name);
        d->dispatch = inv[i].dispatch;
        d->empty = inv[i].empty;
        d->waves = inv[i].waves;
        d->instructions = inv[i].instructions;
        d->mapped = inv[i].mapped;
        d->mapped_pct = inv[i].instructions ? 100.0 * (double)inv[i].mapped / (double)inv[i].instructions : 0.0;
    }
    return ti;
}

/* The dispatch dir the analyses will read (the tag's status: ok or empty). */
static void record_kept_dispatch(cap *c, fp_cap_tag *t, fp_cap_inventoried *ti, const char *tag,
                                 const fp_att_dir *inv, size_t ninv)
{
    long keep = fp_att_pick(inv, ninv);
    free(t->status);
    if (keep < 0) {
        t->status = fp_model_strdup("empty");
        ti->reason = fp_model_strdup(ninv ? "every traced dispatch is an empty shell"
                                          : "no dispatch was traced (regex or iteration matched nothing, or the "
                                            "workload failed)");
        fp_warn(c->ctx, "tag %s: %s", tag,
                ninv ? "all ATT dispatches were empty shells" : "rocprofv3 wrote no ATT dispatch dir");
        return;
    }
    const fp_att_dir *k = &inv[keep];
    t->status = fp_model_strdup("ok");
    fp_cap_kept *kp = ti->kept = calloc(1, sizeof *ti->kept);
    if (!kp)
        abort();
    kp->kept_dispatch = fp_model_strdup(k->name);
    kp->dispatch = k->dispatch;
    kp->waves = k->waves;
    kp->instructions = k->instructions;
    kp->mapped = k->mapped;
    kp->mapped_pct = fp_optd_of(k->instructions ? 100.0 * (double)k->mapped / (double)k->instructions : 0);
    if (k->mapped == 0)
        fp_warn(c->ctx, "tag %s: no instruction maps to a source line (warm JIT cache or no debug info: "
                        "FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1 was set and the cache emptied)",
                tag);
}

/* gpu.{agent_id, cu_count, num_xcc, max_engine_clk_mhz, partition} from the row
 * of the agent the kernel's dispatches ran on (the first tag that has both files
 * decides): the CU and XCD counts of a partitioned device are its own, not the
 * product table's (CPX MI300X: 38 CUs, 1 XCD). */
static void record_agent(cap *c, const char *agent_id, const char *agent_csv, const char *tag)
{
    fp_cap_gpu *g = c->doc.kernel ? c->doc.kernel->gpu : NULL;
    fp_agent_info ai;
    fp_err e = {0};
    if (!g || g->agent_id || !agent_csv || !fp_is_file(agent_csv) || fp_agent_info_load(agent_csv, &ai, &e) != 0) {
        fp_err_clear(&e);
        return;
    }
    const fp_agent_row *r = fp_agent_info_for(&ai, agent_id);
    if (r) {
        g->agent_id = fp_model_strdup(agent_id);
        long long v;
        if (fp_rp_int(&r->cu_count, &v) && v > 0)
            g->cu_count = fp_optd_of((double)v);
        if (fp_rp_int(&r->num_xcc, &v) && v > 0)
            g->num_xcc = fp_optd_of((double)v);
        if (fp_rp_int(&r->max_engine_clk_fcompute, &v) && v > 0)
            g->max_engine_clk_mhz = fp_optd_of((double)v);
        g->partition = fp_model_strdup(fp_agent_partition(r));
        char nps[8];
        if (g->partition && fp_agent_memory_partition(r, nps, sizeof nps))
            g->memory_partition = fp_model_strdup(nps); /* the partition's HBM peak depends on it (docs/sol.md) */
        if (g->partition && strcmp(g->partition, "SPX"))
            fp_warn(c->ctx, "tag %s: the traced agent is a %s partition (%lld CUs, %lld XCDs): CU-based peaks "
                            "must use these, not the product's",
                    tag, g->partition, (long long)g->cu_count.v, (long long)g->num_xcc.v);
    } else if (agent_id) {
        fp_warn(c->ctx, "tag %s: agent '%s' of the kernel trace is not a GPU row of %s", tag, agent_id, agent_csv);
    }
    fp_agent_info_free(&ai);
}

/* capture.json's record of the kernel's entry in its code object. */
static fp_cap_codeobj *codeobj_doc(const cap *c, const fp_codeobj *co, const fp_co_kernel *k, const char *path)
{
    fp_cap_codeobj *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    size_t lb = strlen(c->bundle);
    o->path = fp_model_strdup(!strncmp(path, c->bundle, lb) && path[lb] == '/' ? path + lb + 1 : path);
    o->arch = fp_model_strdup(co->arch[0] ? co->arch : NULL);
    o->target = fp_model_strdup(co->target);
    o->symbol = fp_model_strdup(k->symbol);
#define OPT(v) ((v) >= 0 ? fp_optd_of((double)(v)) : fp_optd_none())
    o->vgpr_count = OPT(k->vgpr_count);
    o->agpr_count = OPT(k->agpr_count);
    o->sgpr_count = OPT(k->sgpr_count);
    o->group_segment_fixed_size = OPT(k->group_segment_fixed_size);
    o->private_segment_fixed_size = OPT(k->private_segment_fixed_size);
    o->wavefront_size = OPT(k->wavefront_size);
    o->kd_vgpr_alloc = OPT(k->kd_vgpr_alloc);
    o->kd_accum_offset = OPT(k->kd_accum_offset);
#undef OPT
    return o;
}

/* The kernel trace row as the code object says it should read: arch VGPRs =
 * the unified .vgpr_count minus the AGPRs (= ACCUM_OFFSET on gfx90a+), AGPRs,
 * SGPRs, LDS = the larger of the static segment and the dispatch's
 * LDS_Block_Size (which includes dynamic LDS), scratch likewise. */
static fp_kcand codeobj_row(const fp_co_kernel *k, const fp_kcand *csv)
{
    fp_kcand r;
    memset(&r, 0, sizeof r);
    if (csv)
        r = *csv;
    else
        r.lds_bytes = r.scratch_bytes = -1;
    int agpr = k->agpr_count > 0 ? k->agpr_count : 0;
    r.vgpr_count = k->vgpr_count >= 0 ? k->vgpr_count - agpr : k->kd_accum_offset;
    r.accum_vgpr_count = agpr;
    r.sgpr_count = k->sgpr_count;
    if (k->group_segment_fixed_size > r.lds_bytes)
        r.lds_bytes = k->group_segment_fixed_size;
    if (k->private_segment_fixed_size > r.scratch_bytes)
        r.scratch_bytes = k->private_segment_fixed_size;
    return r;
}

/* Kernel trace vs code object: each disagreement a line in cross_check and a warning. */
static void cross_check(cap *c, fp_cap_registers *o, const fp_kcand *csv, const fp_kcand *co_row,
                        const fp_co_kernel *k, const char *arch, const char *tag)
{
    if (!csv || csv->vgpr_count < 0)
        return;
    char line[256];
    int total = co_row->vgpr_count + co_row->accum_vgpr_count;
    if (csv->vgpr_count != co_row->vgpr_count || csv->accum_vgpr_count != co_row->accum_vgpr_count) {
        bool half = arch && !strcmp(arch, "gfx950") && csv->accum_vgpr_count <= 0 &&
                    (2 * csv->vgpr_count == total || 2 * csv->vgpr_count == k->kd_vgpr_alloc);
        snprintf(line, sizeof line, "VGPR_Count %d / Accum_VGPR_Count %d in the kernel trace, %d arch + %d AGPR in "
                 "the code object%s", csv->vgpr_count, csv->accum_vgpr_count, co_row->vgpr_count,
                 co_row->accum_vgpr_count, half ? " (the rocprofiler-sdk gfx950 under-count: half the allocation)" : "");
        fp_model_push_str(&o->cross_check, &o->ncross_check, line);
        fp_warn(c->ctx, "tag %s: registers: %s; the code object's counts are used", tag, line);
    }
    if (csv->lds_bytes >= 0 && k->group_segment_fixed_size > csv->lds_bytes) {
        snprintf(line, sizeof line, "LDS_Block_Size %lld in the kernel trace is below the code object's static "
                 "group segment %lld", csv->lds_bytes, k->group_segment_fixed_size);
        fp_model_push_str(&o->cross_check, &o->ncross_check, line);
        fp_warn(c->ctx, "tag %s: registers: %s", tag, line);
    }
}

/* registers: from the kernel's code object next to the ATT output when one holds
 * it (the compiler's counts; the kernel trace becomes a cross-check), else the
 * tag's own kernel trace (its shape may JIT a different specialization), else
 * discovery's */
static void record_registers(cap *c, fp_cap_inventoried *ti, const char *kernel, const char *rp_dir,
                             const char *att_dir, const fp_kcand *disc, const char *arch, const char *tag)
{
    fp_kcands kt = {0};
    fp_sb ktp, agp;
    fp_sb_init(&ktp);
    fp_sb_init(&agp);
    fp_sb_addf(&ktp, "%s/kernel_trace.csv", rp_dir);
    fp_sb_addf(&agp, "%s/agent_info.csv", rp_dir);
    fp_err e3 = {0};
    const fp_kcand *reg = NULL;
    const char *reg_src = NULL;
    if (fp_is_file(ktp.buf) && fp_discovery_load_csv(NULL, ktp.buf, agp.buf, &kt, &e3) == 0 &&
        (reg = find_cand(&kt, kernel)) != NULL)
        reg_src = "att kernel trace";
    if (!reg && disc) {
        reg = disc;
        reg_src = "discovery kernel trace";
    }
    if (reg)
        record_agent(c, reg->agent, reg == disc ? c->disc_agent_csv : agp.buf, tag);
    fp_codeobj co;
    const fp_co_kernel *ck = NULL;
    char *co_path = NULL;
    size_t nbad = 0;
    const char *rarch = kt.arch ? kt.arch : arch;
    if (fp_codeobj_find_in_dir(att_dir, kernel, &co, &ck, &co_path, &nbad) && (ck->vgpr_count >= 0 || ck->has_kd)) {
        fp_kcand row = codeobj_row(ck, reg);
        const char *carch = co.arch[0] ? co.arch : rarch;
        ti->registers = registers_fill(c, &row, carch, "code object", true);
        ti->registers->code_object = codeobj_doc(c, &co, ck, co_path);
        cross_check(c, ti->registers, reg, &row, ck, carch, tag);
    } else if (reg && reg->vgpr_count >= 0) {
        ti->registers = registers_fill(c, reg, rarch, reg_src, false);
    }
    if (nbad)
        fp_warn(c->ctx, "tag %s: %zu code object file(s) in %s are not valid AMDGPU code objects", tag, nbad, att_dir);
    fp_codeobj_free(&co);
    free(co_path);
    if (ti->registers) {
        if (ti->registers->occ) {
            ti->vgpr = calloc(1, sizeof *ti->vgpr);
            if (!ti->vgpr)
                abort();
            ti->vgpr->arch_vgpr = fp_optd_of((double)ti->registers->occ->arch_vgpr);
            ti->vgpr->accum_vgpr = fp_optd_of((double)ti->registers->occ->accum_vgpr);
        }
    }
    fp_err_clear(&e3);
    fp_kcands_free(&kt);
    fp_sb_free(&ktp);
    fp_sb_free(&agp);
}

/* One ATT pass for one tag, with one retry on lost data: trace, copy its CSVs,
 * take the inventory, keep one dispatch, record its registers. Fills the tag's
 * object; returns -1 only for errors that stop the whole capture (timeout,
 * interrupt, decoder missing, I/O). An empty result is recorded in the tag
 * (status "empty") and returns 0. */
static int att_pass(cap *c, const char *tag, const char *shape, const char *kernel, const char *regex,
                    const char *iters, const fp_kcand *disc, const char *arch, fp_err *err)
{
    fp_cap_tag *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    *(!strcmp(tag, "small") ? &c->doc.tags.small : &c->doc.tags.big) = t;
    t->status = fp_model_strdup("running");
    t->shape = fp_model_strdup(shape);
    t->iter_range = fp_model_strdup(iters);
    fp_sb rel;
    fp_sb_init(&rel);
    fp_sb_addf(&rel, "att/%s", tag);
    t->att_dir = fp_model_strdup(rel.buf);
    fp_sb_free(&rel);
    att_dirs d = {tag_dir(c, "att/%s", tag), tag_dir(c, "rocprof/%s", tag), tag_dir(c, ".cache/%s", tag)};
    bool lost = false, bandwidth = false;
    int exit_code = 0;
    fp_att_dir *inv = NULL;
    size_t ninv = 0;
    int rc = att_runs(c, t, tag, shape, regex, iters, &d, &lost, &bandwidth, &exit_code, err);
    if (rc != 0) {
        free(t->status);
        t->status = fp_model_strdup(err->code == FP_INTERRUPTED ? "interrupted" : "failed");
    } else {
        fp_cap_tag_done *td = record_att_done(c, t, tag, lost, bandwidth, exit_code);
        copy_trace_csvs(td, tag, &d, kernel);
        /* an inventory that cannot be read is an I/O error: the capture stops, the tag stays "running" */
        if ((rc = fp_att_inventory(d.att, &inv, &ninv, err)) == 0) {
            fp_cap_inventoried *ti = record_inventory(td, inv, ninv);
            record_kept_dispatch(c, t, ti, tag, inv, ninv);
            record_registers(c, ti, kernel, d.rp, d.att, disc, arch, tag);
            fp_att_inventory_free(inv, ninv);
        }
    }
    free(d.att);
    free(d.rp);
    free(d.cache);
    return rc;
}

/* The counters child's command line, each option spelled from counters' own
 * table (child_argv.h), then "--" and the workload:
 *   SELF counters --bundle B --kernel K --iterations SET --timeout S --rocprofv3 P -q -f json [--arch A] -- ...
 * NULL-terminated, the array malloc'd (its words live in b, c and c->inv);
 * NULL when counters lacks one of the options (b->unknown). */
static const char **pmc_argv(const cap *c, fp_argvb *b, const char *kernel, const char *iters, const char *arch)
{
    fp_sb tmo, set;
    fp_sb_init(&tmo);
    fp_sb_init(&set);
    fp_sb_addf(&tmo, "%lld", (long long)(c->a->timeout + 0.999));
    /* counters takes the set as "6,8" / "2-4": drop the brackets and blanks */
    for (const char *p = iters; *p; p++)
        if (!strchr("[] ", *p))
            fp_sb_addc(&set, *p);
    fp_argv_push(b, c->ctx->argv0);
    fp_argv_push(b, b->cmd->name);
    fp_argv_bundle(b, c->bundle);
    fp_argv_opt(b, "kernel", kernel);
    fp_argv_opt(b, "iterations", fp_argv_own(b, &set));
    fp_argv_opt(b, "timeout", fp_argv_own(b, &tmo));
    fp_argv_opt(b, "rocprofv3", c->rp.path);
    fp_argv_quiet(b);
    fp_argv_json(b);
    fp_argv_opt(b, "arch", arch); /* not passed when no arch is known */
    /* the agent the ATT pass traced: counters keeps its rows */
    const fp_cap_gpu *g = c->doc.kernel ? c->doc.kernel->gpu : NULL;
    fp_argv_opt(b, "agent", g ? g->agent_id : NULL);
    fp_argv_opt(b, "memory-partition", g ? g->memory_partition : NULL);
    if (b->unknown)
        return NULL;
    size_t nwl;
    const char **wl = workload_argv(c, &nwl);
    const char **argv = calloc(b->n + 1 + nwl + 1, sizeof *argv);
    if (!argv)
        abort();
    memcpy(argv, b->v, b->n * sizeof *argv);
    argv[b->n] = "--";
    memcpy(argv + b->n + 1, wl, nwl * sizeof *wl);
    free(wl);
    return argv;
}

/* How the counters child ended, into capture.json pmc (status, counters_json or
 * error_code) from its envelope read back by its table; a failure is a warning.
 * Its kept envelope is made relocatable. */
static void record_pmc_outcome(cap *c, fp_cap_pmc *pj, int rc, const char *so, const fp_err *e2)
{
    cJSON *env_doc = NULL;
    fp_envelope_doc child;
    memset(&child, 0, sizeof child);
    fp_err e3 = {0};
    const char *st = "failed";
    bool have_env = rc == 0 && fp_json_parse_file(so, &env_doc, &e3) == 0 &&
                    fp_model_read(&fp_envelope_doc_schema, env_doc, &child, so, &e3) == 0;
    if (have_env && child.ok) {
        st = "ok";
        pj->counters_json = fp_model_strdup(fp_artifact_name(FP_ART_COUNTERS));
    } else {
        const fp_envelope_error *er = have_env ? child.error : NULL;
        fp_warn(c->ctx, "pmc pass failed: [%s] %s", er ? er->code : fp_code_name(e2->code),
                er ? er->message : (e2->message[0] ? e2->message : "no envelope"));
        pj->failed = calloc(1, sizeof *pj->failed);
        if (!pj->failed)
            abort();
        pj->failed->error_code = fp_model_strdup(er ? er->code : NULL);
    }
    pj->status = fp_model_strdup(st);
    if (env_doc) { /* the kept envelope is relocatable like the artifacts */
        fp_err e4 = {0};
        fp_bundle_write_json(so, env_doc, c->bundle, &e4);
        fp_err_clear(&e4);
    }
    cJSON_Delete(env_doc);
    fp_model_free(&fp_envelope_doc_schema, &child);
    fp_err_clear(&e3);
}

/* --with-pmc: the PMC pass belongs to `counters`; run this binary's counters
 * command live on the same workload, environment, kernel and iterations.
 * A failure is a warning (the ATT capture stands); only an interrupt stops. */
static int pmc_pass(cap *c, const char *kernel, const char *iters, const char *arch, fp_err *err)
{
    char *cache = bpath(c, ".cache/pmc");
    fp_err e2 = {0};
    if (fp_rm_rf_contents(cache, &e2) != 0 || fp_mkdir_p(cache, &e2) != 0) {
        fp_warn(c->ctx, "pmc pass skipped: %s", e2.message);
        free(cache);
        return 0;
    }
    /* the counters child reads the bundle's capture.json (product, the capture's kernel
     * trace for the duration): this capture's facts so far, not a previous capture's
     * into the same bundle; the final write replaces it */
    if (write_capture_json(c, "running", NULL, &e2) != 0) {
        fp_warn(c->ctx, "pmc pass skipped: capture.json not written: %s", e2.message);
        fp_err_clear(&e2);
        free(cache);
        return 0;
    }
    fp_argvb b = {.cmd = &fp_cmd_counters};
    const char **argv = pmc_argv(c, &b, kernel, iters, arch);
    if (!argv) { /* a bug, not a failed pass: a test catches it */
        fp_err_set(err, FP_INTERNAL, "capture: `flyprof counters` has no option --%s", b.unknown);
        fp_argv_free(&b);
        free(cache);
        return -1;
    }
    fp_sb envs;
    fp_sb_init(&envs);
    const char **env = NULL;
    build_env(c, cache, c->a->shape, &envs, &env);
    char *so = bpath(c, "pmc/counters.envelope.json"), *se = bpath(c, "pmc/counters.stderr.txt");
    char *pdir = bpath(c, "pmc");
    fp_mkdir_p(pdir, &e2);
    free(pdir);
    fp_proc_opts o = {.argv = argv, .env = env, .cwd = c->wt.path, .stdout_path = so, .stderr_path = se,
                      .interrupted = c->ctx->interrupted};
    fp_proc_result r;
    fp_progress(c->ctx, "capture: pmc (flyprof counters)");
    int rc = fp_proc_run(&o, &r, &e2);
    fp_cap_pmc *pj = c->doc.pmc = calloc(1, sizeof *c->doc.pmc);
    if (!pj)
        abort();
    fp_sb line;
    fp_sb_init(&line);
    fp_proc_argv_str(argv, &line);
    pj->command = fp_model_strdup(line.buf);
    fp_sb_free(&line);
    pj->seconds = r.elapsed_s;
    if (rc != 0 && r.interrupted) {
        pj->status = fp_model_strdup("interrupted");
        fp_err_set(err, FP_INTERRUPTED, "pmc pass interrupted");
    } else {
        record_pmc_outcome(c, pj, rc, so, &e2);
        rc = 0;
    }
    fp_err_clear(&e2);
    free(so);
    free(se);
    free(argv);
    fp_argv_free(&b);
    free(env);
    fp_sb_free(&envs);
    free(cache);
    return r.interrupted ? -1 : rc;
}

/* --- the kernel's recipe and the invocation: c->recipe, c->inv; *source says where
 * the invocation came from --- */
static int choose_workload(cap *c, const char *kernel_arg, const char **source, fp_err *err)
{
    const capture_args *a = c->a;
    if (c->cfg.recipes.value && fp_recipes_load(c->cfg.recipes.value, &c->recipes, err) != 0)
        return -1;
    fp_err e2 = {0};
    if (fp_recipes_scan_worktree(c->wt.path, &c->recipes, &e2) != 0)
        fp_warn(c->ctx, "worktree: %s (only registry recipes are known)", e2.message);
    fp_err_clear(&e2);
    c->recipe = fp_recipes_find(&c->recipes, kernel_arg);
    *source = c->recipe ? (c->recipe->has_recipe ? "registry" : "synthesized") : NULL;
    if (!c->recipe && !a->invocation) {
        fp_err_set(err, FP_KERNEL_NOT_FOUND, "no recipe and no test tests/kernels/test_%s.py for '%s'", kernel_arg,
                   kernel_arg);
        fp_err_help(err, "run `flyprof list` for the known kernels, or pass --invocation CMD to run any workload");
        cJSON *av = cJSON_CreateArray();
        for (size_t i = 0; i < c->recipes.n; i++)
            cJSON_AddItemToArray(av, cJSON_CreateString(c->recipes.v[i].name));
        fp_err_extra(err, "available", av);
        return -1;
    }
    if (c->recipe && !a->invocation) {
        char *tf = fp_path_join(c->wt.path, c->recipe->test_file);
        bool ok = fp_is_file(tf);
        free(tf);
        if (!ok) {
            fp_err_set(err, FP_KERNEL_NOT_FOUND, "recipe '%s' runs %s, which is not in the worktree %s",
                       c->recipe->name, c->recipe->test_file, c->wt.path);
            return fp_err_help(err, "update the recipe, check out the right FlyDSL branch, or pass --invocation");
        }
    }
    if (a->invocation)
        *source = c->recipe ? "invocation-override" : "invocation";
    fp_sb cmd;
    fp_sb_init(&cmd);
    if (a->invocation)
        fp_sb_adds(&cmd, a->invocation);
    else if (c->recipe->invocation)
        fp_sb_adds(&cmd, c->recipe->invocation);
    else
        fp_sb_addf(&cmd, "python %s", c->recipe->test_file);
    int rc = fp_invocation_parse(cmd.buf, &c->inv, err);
    fp_sb_free(&cmd);
    if (rc != 0)
        return -1;
    if (a->shape && (!c->recipe || !c->recipe->shape_env) && !a->invocation)
        return fp_err_set(err, FP_BAD_ARGS,
                          "--shape %s cannot reach the workload: recipe '%s' has no shape_env", a->shape,
                          kernel_arg),
               fp_err_help(err, "pin the shape in --invocation instead (e.g. an env var or argument of the test)");
    if (a->shape && a->invocation && (!c->recipe || !c->recipe->shape_env))
        fp_warn(c->ctx, "--shape %s is only recorded: no shape_env to pass it through; the --invocation must pin it",
                a->shape);
    return 0;
}

static bool wants_small(const cap *c) { return !strcmp(c->a->tag, "small") || !strcmp(c->a->tag, "both"); }

/* The shrunk shape the small tag runs (NULL when it is not asked for). */
static int small_shape_of(const cap *c, char **small, fp_err *err)
{
    *small = NULL;
    if (!wants_small(c))
        return 0;
    if (!c->a->shape)
        return fp_err_set(err, FP_BAD_ARGS, "--tag %s needs --shape (the small tag shrinks it)", c->a->tag),
               fp_err_help(err, "pass --shape, or use --tag big");
    return (*small = fp_shape_small(c->a->shape, err)) == NULL ? -1 : 0;
}

/* capture.json's workload: recipe, recipe_kernel, invocation_detail, invocation and shape */
static void record_workload(cap *c, const char *kernel_arg, const char *recipe_source)
{
    const capture_args *a = c->a;
    fp_cap_workload *wd = c->doc.workload = calloc(1, sizeof *c->doc.workload);
    fp_cap_recipe *rj = wd ? wd->recipe = calloc(1, sizeof *wd->recipe) : NULL;
    fp_cap_invocation *ij = wd ? wd->invocation_detail = calloc(1, sizeof *wd->invocation_detail) : NULL;
    if (!rj || !ij)
        abort();
    rj->name = fp_model_strdup(c->recipe ? c->recipe->name : NULL);
    rj->source = fp_model_strdup(recipe_source);
    rj->test_file = fp_model_strdup(c->recipe ? c->recipe->test_file : NULL);
    rj->kernel_name_hint = fp_model_strdup(c->recipe ? c->recipe->hint : NULL);
    rj->shape_env = fp_model_strdup(c->recipe ? c->recipe->shape_env : NULL);
    size_t nwl;
    const char **wl = workload_argv(c, &nwl);
    wd->recipe_kernel = fp_model_strdup(c->recipe ? c->recipe->name : kernel_arg);
    for (size_t i = 0; i < nwl; i++)
        fp_model_push_str(&ij->argv, &ij->nargv, wl[i]);
    for (size_t i = 0; i < c->inv.nenv; i++)
        fp_model_push_str(&ij->env, &ij->nenv, c->inv.env[i]);
    ij->cwd = fp_model_strdup(c->wt.path);
    fp_sb line;
    fp_sb_init(&line);
    for (size_t i = 0; i < c->inv.nenv; i++) {
        const char *one[] = {c->inv.env[i], NULL};
        fp_proc_argv_str(one, &line);
        fp_sb_addc(&line, ' ');
    }
    if (a->shape && c->recipe && c->recipe->shape_env)
        fp_sb_addf(&line, "%s=%s ", c->recipe->shape_env, a->shape);
    fp_proc_argv_str(wl, &line);
    ij->command = fp_model_strdup(line.buf);
    /* the reproducible command line as one string (what report and bundle read) */
    wd->invocation = fp_model_strdup(line.buf);
    fp_sb_free(&line);
    wd->shape = fp_model_strdup(a->shape);
    free(wl);
}

/* The discovery run (kernel trace of the whole workload) into rocprof/discovery;
 * *exit_code and *errtext are rocprofv3's. Returns -2 when it failed before the
 * run (capture.json then gets no discovery record), else the run's result with
 * capture.json's discovery record made. */
static int discovery_run(cap *c, int *exit_code, fp_sb *errtext, fp_err *err)
{
    char *ddir = bpath(c, "rocprof/discovery");
    char *dcache = bpath(c, ".cache/discovery");
    if (fp_rm_rf_contents(ddir, err) != 0 || fp_mkdir_p(ddir, err) != 0 || fp_mkdir_p(dcache, err) != 0) {
        free(ddir);
        free(dcache);
        return -2;
    }
    /* csv (with --stats) where the SDK still writes it plainly; rocpd on the
     * SDK that deprecates direct csv (rocprof-formats.md §1.8) */
    const char *dfmt = c->rp.version && fp_version_cmp(c->rp.version, SDK_FIXED_VERSION) >= 0 ? "rocpd" : "csv";
    fp_sb envs;
    fp_sb_init(&envs);
    const char **env = NULL;
    build_env(c, dcache, c->a->shape, &envs, &env);
    size_t nwl;
    const char **wl = workload_argv(c, &nwl);
    const char *pre[] = {"--stats", "--kernel-trace", "-f", dfmt, "-d", ddir, "-o", DISC_OUT "_%pid%"};
    const char **argv = rocprof_argv(c, pre, 8, wl, nwl);
    int rc = run_rocprof(c, "discovery", argv, ddir, env, exit_code, errtext, err);
    free(argv);
    free(wl);
    free(env);
    fp_sb_free(&envs);
    free(dcache);
    free(ddir);
    fp_cap_discovery *dj = c->doc.discovery = calloc(1, sizeof *c->doc.discovery);
    if (!dj)
        abort();
    dj->format = fp_model_strdup(dfmt);
    dj->dir = fp_model_strdup("rocprof/discovery");
    dj->exit_code = *exit_code;
    return rc;
}

/* Why discovery found nothing to trace, as the error. */
static int discovery_failed(const cap *c, int exit_code, const fp_sb *errtext, int lrc, fp_err *le, fp_err *err)
{
    fp_stderr_scan sc;
    fp_scan_stderr(errtext->buf, &sc);
    const char *kfd = NULL;
    if (lrc != 0 && le->code == FP_BAD_INPUT) {
        *err = *le;
        memset(le, 0, sizeof *le);
    } else if (!fp_kfd_present(&kfd)) {
        fp_err_set(err, FP_NO_GPU, "no AMD GPU is visible (%s absent): the workload could not dispatch a kernel",
                   kfd);
        fp_err_help(err, "run on a machine with an AMD Instinct GPU (amdgpu driver); in a container pass --device "
                         "/dev/kfd --device /dev/dri; `flyprof doctor` checks");
    } else if (exit_code != 0) {
        fp_err_set(err, FP_NO_KERNEL_DISCOVERED,
                   "the discovery run failed (rocprofv3 exited %d) and recorded no kernel dispatch%s%s", exit_code,
                   sc.fatal ? ": " : "", sc.fatal ? sc.first_fatal : "");
        fp_err_help(err, "read rocprof/discovery/rocprofv3.stderr.txt in the bundle; run the invocation by hand");
    } else {
        fp_err_set(err, FP_NO_KERNEL_DISCOVERED, "the workload ran but dispatched no GPU kernel");
        fp_err_help(err, "check the invocation runs the kernel on the GPU (HIP_VISIBLE_DEVICES=%d)", c->cfg.gpu);
    }
    fp_err_extra(err, "exit_code", fp_json_int(exit_code));
    return -1;
}

/* --- discovery: the kernels the workload dispatches, into *k --- */
static int discover(cap *c, fp_kcands *k, fp_err *err)
{
    int exit_code = 0;
    fp_sb errtext;
    fp_sb_init(&errtext);
    int rc = discovery_run(c, &exit_code, &errtext, err);
    if (rc != 0) {
        fp_sb_free(&errtext);
        return -1;
    }
    char *ddir = bpath(c, "rocprof/discovery");
    fp_err le = {0};
    size_t nsets = 0;
    int lrc = fp_discovery_load_dir(ddir, DISC_OUT, k, &nsets, &le);
    c->disc_agent_csv = pid_file(ddir, DISC_OUT, "agent_info.csv", NULL);
    free(ddir);
    if (nsets > 1)
        fp_warn(c->ctx, "discovery: %zu processes wrote kernel traces (merged; rocprofv3 -o %s_%%pid%%)", nsets,
                DISC_OUT);
    if (lrc != 0 || k->n == 0)
        rc = discovery_failed(c, exit_code, &errtext, lrc, &le, err);
    fp_err_clear(&le);
    fp_sb_free(&errtext);
    if (rc != 0)
        return -1;
    if (exit_code != 0)
        fp_warn(c->ctx, "discovery: rocprofv3 exited %d but wrote a kernel trace; continuing", exit_code);
    fp_cap_discovery *dj = c->doc.discovery;
    if (!(dj->found = calloc(1, sizeof *dj->found)))
        abort();
    dj->found->dispatches = k->total_dispatches;
    dj->found->kernels = (int64_t)k->n;
    cands_fill(k, dj->found);
    fp_truncated(c->ctx, "discovery.candidates", k->n < MAX_CANDIDATES ? k->n : MAX_CANDIDATES, k->n);
    return 0;
}

/* --- which kernel: *kc among the discovered, *arch the one it ran on --- */
static int choose_kernel(cap *c, const fp_kcands *k, const char *kernel_arg, const fp_kcand **kc, const char **arch,
                         fp_err *err)
{
    const char *names[34];
    size_t nn = 0;
    names[nn++] = kernel_arg;
    for (size_t i = 0; c->recipe && i < c->recipe->n_kernels && nn < 33; i++)
        names[nn++] = c->recipe->kernels[i];
    fp_match_conf conf;
    long ki = fp_match_kernel(k, c->recipe ? c->recipe->hint : NULL, names, nn, &conf);
    if (ki < 0) {
        fp_err_set(err, FP_NO_KERNEL_DISCOVERED, "no kernel to trace: the %zu discovered kernel(s) are all library "
                                                 "kernels and none matches '%s'",
                   k->n, kernel_arg);
        fp_err_help(err, "pass the exact JIT kernel name (see candidates) as KERNEL with --invocation");
        fp_err_extra(err, "candidates", cands_json(k));
        return -1;
    }
    *kc = &k->v[ki];
    if (conf == FP_MATCH_HEAVIEST)
        fp_warn(c->ctx, "no discovered kernel matches '%s'; tracing the heaviest non-library kernel '%s' "
                        "(confidence: heaviest)",
                kernel_arg, (*kc)->name);
    fp_cap_kernel *kd = c->doc.kernel = calloc(1, sizeof *c->doc.kernel);
    fp_cap_gpu *gj = kd ? kd->gpu = calloc(1, sizeof *kd->gpu) : NULL;
    if (!gj)
        abort();
    kd->kernel = fp_model_strdup((*kc)->name);
    kd->match_confidence = fp_model_strdup(fp_match_conf_name(conf));
    kd->calls = (*kc)->calls;
    kd->total_ns = (*kc)->total_ns;
    kd->avg_ns = fp_optd_of((*kc)->avg_ns);
    *arch = c->cfg.arch.value ? c->cfg.arch.value : k->arch;
    kd->arch = fp_model_strdup(*arch);
    gj->index = c->cfg.gpu;
    gj->visible_devices = fp_model_strdup(c->visible_desc);
    if (c->visible_desc && c->physical >= 0)
        gj->physical_index = fp_optd_of((double)c->physical);
    gj->arch = fp_model_strdup(k->arch);
    gj->product = fp_model_strdup(k->product);
    kd->product = fp_model_strdup(k->product);
    if (c->cfg.arch.value && k->arch && strcmp(c->cfg.arch.value, k->arch))
        fp_warn(c->ctx, "--arch %s but rocprofv3 reports %s", c->cfg.arch.value, k->arch);
    return 0;
}

/* --- iterations: an explicit 1-based set that exists, or the automatic one; *out as text --- */
static int choose_iterations(cap *c, const fp_kcand *kc, char **out, fp_err *err)
{
    const capture_args *a = c->a;
    unsigned *iters = NULL;
    size_t ni = 0;
    unsigned autov[2];
    if (a->iter_range) {
        if (fp_iter_parse(a->iter_range, &iters, &ni, err) != 0)
            return -1;
        size_t exist = 0;
        for (size_t i = 0; i < ni; i++)
            exist += iters[i] <= (unsigned long long)kc->calls;
        if (exist == 0) {
            fp_err_set(err, FP_DISPATCH_OUT_OF_RANGE, "--iter-range %s selects no existing iteration: '%s' ran %lld "
                                                      "time(s) in discovery",
                       a->iter_range, kc->name, kc->calls);
            fp_err_help(err, "iterations are 1-based per kernel; pick values in 1..%lld", kc->calls);
            free(iters);
            return -1;
        }
        if (exist < ni)
            fp_warn(c->ctx, "--iter-range %s: %zu of %zu iterations exceed the %lld discovered calls", a->iter_range,
                    ni - exist, ni, kc->calls);
    } else {
        ni = fp_iter_auto(kc->calls, autov);
    }
    *out = fp_iter_range_str(iters ? iters : autov, ni, err);
    free(iters);
    if (!*out)
        return -1;
    if (!(c->doc.iters = calloc(1, sizeof *c->doc.iters)))
        abort();
    c->doc.iters->iter_range = fp_model_strdup(*out);
    c->doc.iters->iter_range_source = fp_model_strdup(a->iter_range ? "flag" : "auto");
    return 0;
}

/* The EMPTY_ATT error's extra: every tag's inventory as capture.json holds it. */
static cJSON *inventories_json(const fp_capture_doc *doc)
{
    cJSON *invs = cJSON_CreateObject();
    const fp_cap_tag *const tv[] = {doc->tags.small, doc->tags.big};
    const char *const tn[] = {"small", "big"};
    for (size_t i = 0; i < 2; i++) {
        if (!tv[i])
            continue;
        const fp_cap_inventoried *ti = tv[i]->done ? tv[i]->done->inventoried : NULL;
        fp_cap_inventoried one = {.inventory = ti ? ti->inventory : NULL, .ninventory = ti ? ti->ninventory : 0};
        cJSON *w = fp_model_write(&fp_cap_inventoried_schema, &one);
        cJSON_AddItemToObject(invs, tn[i], cJSON_DetachItemFromObject(w, "inventory"));
        cJSON_Delete(w);
    }
    return invs;
}

/* --- ATT per tag (small first); at least one must give a usable dispatch --- */
static int att_passes(cap *c, const char *small_shape, const fp_kcand *kc, const char *regex, const char *iter_str,
                      const char *arch, fp_err *err)
{
    const char *tags[2];
    const char *shapes[2];
    size_t nt = 0;
    if (wants_small(c)) {
        tags[nt] = "small";
        shapes[nt++] = small_shape;
    }
    if (!strcmp(c->a->tag, "big") || !strcmp(c->a->tag, "both")) {
        tags[nt] = "big";
        shapes[nt++] = c->a->shape;
    }
    int rc = 0;
    size_t n_ok = 0;
    for (size_t i = 0; i < nt && rc == 0; i++) {
        rc = att_pass(c, tags[i], shapes[i], kc->name, regex, iter_str, kc, arch, err);
        const fp_cap_tag *tt = fp_capture_tag_named(&c->doc, tags[i]);
        const char *st = tt ? tt->status : NULL;
        n_ok += st && !strcmp(st, "ok");
    }
    if (rc != 0 || n_ok > 0)
        return rc;
    fp_err_set(err, FP_EMPTY_ATT, "no usable ATT dispatch for '%s' (iterations %s)%s%s", kc->name, iter_str,
               c->att_fatal[0] ? "; rocprofv3 failed: " : "", c->att_fatal);
    fp_err_help(err, "the target CU got no wave: retry (another iteration with --iter-range), or a larger "
                     "shape; inventory lists every dispatch dir");
    fp_err_extra(err, "inventory", inventories_json(&c->doc));
    return -1;
}

/* workload -> discovery -> kernel -> iterations -> ATT per tag (-> PMC) */
static int capture_body(cap *c, const char *kernel_arg, fp_err *err)
{
    const char *recipe_source = NULL;
    char *small_shape = NULL;
    if (choose_workload(c, kernel_arg, &recipe_source, err) != 0 || small_shape_of(c, &small_shape, err) != 0)
        return -1;
    record_workload(c, kernel_arg, recipe_source);
    fp_kcands k = {0};
    const fp_kcand *kc = NULL;
    const char *arch = NULL;
    char *iter_str = NULL, *regex = NULL;
    int rc = discover(c, &k, err);
    if (rc == 0)
        rc = choose_kernel(c, &k, kernel_arg, &kc, &arch, err);
    if (rc == 0)
        rc = choose_iterations(c, kc, &iter_str, err);
    if (rc == 0) {
        /* anchored: rocprofv3 searches, so "foo_0" alone would also trace "foo_0_bwd" and "my_foo_0" */
        char *esc = fp_regex_escape(kc->name);
        regex = malloc(strlen(esc) + 3);
        if (!regex)
            abort();
        sprintf(regex, "^%s$", esc);
        free(esc);
        c->doc.iters->kernel_regex = fp_model_strdup(regex);
        rc = att_passes(c, small_shape, kc, regex, iter_str, arch, err);
    }
    if (rc == 0 && c->a->with_pmc)
        rc = pmc_pass(c, kc->name, iter_str, arch, err);
    free(regex);
    free(iter_str);
    free(small_shape);
    fp_kcands_free(&k);
    return rc;
}

/* The n-th comma-separated entry of list into out; false when there is none. */
static bool list_nth(const char *list, int n, char *out, size_t cap_)
{
    const char *p = list;
    for (int i = 0; p && i < n; i++)
        p = (p = strchr(p, ',')) ? p + 1 : NULL;
    if (!p || n < 0)
        return false;
    size_t len = strcspn(p, ",");
    if (!len || len >= cap_)
        return false;
    snprintf(out, cap_, "%.*s", (int)len, p);
    return true;
}

static long long as_index(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    return *s && !*end && v >= 0 ? v : -1;
}

/* --gpu N is an index among the devices the user's shell already made visible
 * (Slurm sets ROCR_VISIBLE_DEVICES; HIP_VISIBLE_DEVICES may be set too): with
 * HIP_VISIBLE_DEVICES set, the run gets its N-th entry (overwriting it with N
 * would pick another device); ROCR_VISIBLE_DEVICES filters below HIP, so
 * HIP_VISIBLE_DEVICES=N already means its N-th entry. Out of range -> BAD_ARGS. */
static int resolve_gpu(cap *c, fp_err *err)
{
    const char *hip = getenv("HIP_VISIBLE_DEVICES"), *rocr = getenv("ROCR_VISIBLE_DEVICES");
    int n = c->cfg.gpu;
    char ent[64];
    snprintf(c->hip_visible, sizeof c->hip_visible, "%d", n);
    c->physical = n;
    fp_sb d;
    fp_sb_init(&d);
    if (rocr && rocr[0])
        fp_sb_addf(&d, "ROCR_VISIBLE_DEVICES=%s", rocr);
    if (hip && hip[0]) {
        fp_sb_addf(&d, "%sHIP_VISIBLE_DEVICES=%s", d.len ? " " : "", hip);
        if (!list_nth(hip, n, c->hip_visible, sizeof c->hip_visible)) {
            fp_sb_free(&d);
            return fp_err_set(err, FP_BAD_ARGS, "--gpu %d: HIP_VISIBLE_DEVICES=%s has no entry %d", n, hip, n),
                   fp_err_help(err, "--gpu is an index among the visible devices: 0 .. (their number - 1)");
        }
        c->physical = as_index(c->hip_visible);
    }
    if (rocr && rocr[0]) {
        long long idx = as_index(c->hip_visible);
        if (idx < 0 || !list_nth(rocr, (int)idx, ent, sizeof ent)) {
            fp_err_set(err, FP_BAD_ARGS, "--gpu %d: ROCR_VISIBLE_DEVICES=%s has no entry %s", n, rocr, c->hip_visible);
            fp_sb_free(&d);
            return fp_err_help(err, "under Slurm --gpu counts the GPUs of the allocation (ROCR_VISIBLE_DEVICES)");
        }
        c->physical = as_index(ent);
    }
    c->visible_desc = d.len ? fp_sb_detach(&d) : NULL;
    fp_sb_free(&d);
    return 0;
}

/* hard gates first: rocprofv3, then the worktree and its build tree */
static int check_gates(cap *c, fp_err *err)
{
    fp_ctx *ctx = c->ctx;
    if (fp_rocprof_probe(c->cfg.rocprofv3.value, VERSION_TIMEOUT_S, ctx->interrupted, &c->rp, err) != 0 &&
        (!c->rp.path || err->code == FP_INTERRUPTED || err->code == FP_ROCPROFV3_MISSING))
        return -1;
    fp_err_clear(err); /* a failed --version only warns: the release is assumed */
    if (!c->rp.version)
        fp_warn(ctx, "rocprofv3 --version failed (%s): assuming a release before ROCm 7.0", c->rp.probe_error);
    if (!c->cfg.worktree.value) {
        fp_err_set(err, FP_BUILD_TREE_MISSING, "no FlyDSL worktree configured");
        return fp_err_help(err, "pass --worktree DIR or set FLYPROF_WORKTREE");
    }
    fp_worktree_inspect(c->cfg.worktree.value, &c->wt, err);
    if (!c->wt.exists || !c->wt.build_tree) {
        fp_err_set(err, FP_BUILD_TREE_MISSING, "%s%s", c->wt.path,
                   !c->wt.exists ? " does not exist" : ": no build-fly/python_packages build tree");
        return fp_err_help(err, "build FlyDSL in the worktree, or point --worktree at a built checkout");
    }
    if (!c->wt.flydsl_pkg)
        fp_warn(ctx, "%s/%s has no flydsl/ package", c->wt.path, FP_FLYDSL_BUILD_TREE);
    return 0;
}

/* capture.json's head: what was asked, when and where, with which profiler and worktree */
static void open_capture_doc(cap *c, const char *kernel)
{
    c->doc.schema = 1;
    c->doc.status = fp_model_strdup("running");
    c->doc.requested_kernel = fp_model_strdup(kernel);
    c->doc.tag = fp_model_strdup(c->a->tag);
    {
        /* when and where: the provenance `history add` records */
        char when[32], host[256] = "";
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        c->doc.captured_at = fp_model_strdup(when);
        c->doc.host = fp_model_strdup(gethostname(host, sizeof host - 1) == 0 && host[0] ? host : NULL);
    }
    fp_cap_rocprof *rp = c->doc.rocprofv3 = calloc(1, sizeof *c->doc.rocprofv3);
    if (!rp)
        abort();
    rp->path = fp_model_strdup(c->rp.path);
    rp->version = fp_model_strdup(c->rp.version);
    rp->rocm_version = fp_model_strdup(c->rp.rocm_version);
    rp->default_output_format = fp_model_strdup(c->rp.default_format);
    for (size_t i = 0; i < c->nrp_env; i++)
        fp_model_push_str(&rp->env_dropped, &rp->nenv_dropped, c->rp_env[i]);
    c->doc.worktree = worktree_fill(&c->wt);
    c->doc.config = config_fill(&c->cfg);
    c->doc.timeout_s = c->a->timeout;
}

/* -f table: the kernel, then one line per tag */
static void capture_table(const cap *c, fp_sb *t)
{
    const fp_cap_kernel *kd = c->doc.kernel;
    fp_sb_addf(t, "captured %s (%s match, %lld calls, iterations %s) into %s\n", kd ? kd->kernel : NULL,
               kd ? kd->match_confidence : NULL, kd ? (long long)kd->calls : (long long)NAN,
               c->doc.iters ? c->doc.iters->iter_range : NULL, c->bundle);
    fp_sb_adds(t, "  tag    status  dispatch                                waves  mapped  VGPR  waves/SIMD\n");
    const fp_cap_tag *const tv[] = {c->doc.tags.small, c->doc.tags.big};
    const char *const tn[] = {"small", "big"};
    for (size_t i = 0; i < 2; i++) {
        if (!tv[i])
            continue;
        /* the numbers as the file has them (rounded); NAN where a key is absent, as before */
        const fp_cap_inventoried *ti = tv[i]->done ? tv[i]->done->inventoried : NULL;
        const fp_cap_kept *kp = ti ? ti->kept : NULL;
        const fp_cap_reg_occ *ro = ti && ti->registers ? ti->registers->occ : NULL;
        fp_sb_addf(t, "  %-6s %-7s %-39s %5lld  %5.1f%%  %4lld  %10lld\n", tn[i], tv[i]->status,
                   kp && kp->kept_dispatch ? kp->kept_dispatch : "-", kp ? (long long)kp->waves : (long long)NAN,
                   kp ? fp_round(kp->mapped_pct.v, 1) : NAN, ro ? (long long)ro->total_vgpr.v : (long long)NAN,
                   ro ? (long long)ro->waves_per_simd : (long long)NAN);
    }
}

static void cap_free(cap *c)
{
    fp_capture_free(&c->doc);
    fp_invocation_free(&c->inv);
    fp_recipes_free(&c->recipes);
    fp_worktree_free(&c->wt);
    fp_rocprof_info_free(&c->rp);
    fp_config_free(&c->cfg);
    free(c->bundle);
    fp_strv_free(c->rp_env, c->nrp_env);
    fp_strv_free(c->att_lib, c->natt_lib);
    free(c->disc_agent_csv);
    free(c->visible_desc);
}

/* gates -> the bundle and capture.json's head -> the capture -> capture.json (always) -> envelope */
static int capture_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)npos;
    capture_args *a = argsp;
    const char *kernel = pos[0];
    if (!kernel[0])
        return fp_err_set(err, FP_USAGE, "KERNEL must not be empty");
    if (!(a->timeout > 0))
        return fp_err_set(err, FP_BAD_ARGS, "--timeout must be > 0 seconds");
    cap c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.a = a;
    c.t0 = now_s();
    if (fp_config_load(&c.cfg, &a->cfg, err) != 0)
        return -1;
    if (check_gates(&c, err) != 0 || resolve_gpu(&c, err) != 0) {
        cap_free(&c);
        return -1;
    }
    /* the bundle */
    c.bundle = ctx->bundle ? fp_path_abs(ctx->bundle) : fp_capture_default_bundle(kernel);
    if (fp_mkdir_p(c.bundle, err) != 0) {
        cap_free(&c);
        return -1;
    }
    if (!ctx->bundle_abs)
        ctx->bundle_abs = strdup(c.bundle);
    long long buf0 = fp_att_buffer_default(c.rp.version);
    snprintf(c.att_buffer[0], sizeof c.att_buffer[0], "0x%llx", buf0);
    snprintf(c.att_buffer[1], sizeof c.att_buffer[1], "0x%llx", 2 * buf0);
    c.nrp_env = fp_rocprof_env_inherited(&c.rp_env);
    c.natt_lib = fp_rocprof_att_lib_dirs(&c.att_lib);
    for (size_t i = 0; i < c.nrp_env; i++)
        fp_warn(ctx, "%s is set in the environment: not passed to rocprofv3 (every setting is explicit; a stale "
                     "value would redirect or change its output)%s",
                c.rp_env[i], strcmp(c.rp_env[i], FP_ROCPROF_ATT_LIB_ENV) ? "" : "; its directories go to the "
                                                                                 "ATT job's att_library_path");
    open_capture_doc(&c, kernel);
    if (c.wt.dirty)
        fp_warn(ctx, "worktree %s has uncommitted changes: the commit alone does not reproduce this capture",
                c.wt.path);

    int rc = capture_body(&c, kernel, err);
    if (rc == 0 && ctx->interrupted && *ctx->interrupted)
        rc = fp_err_set(err, FP_INTERRUPTED, "interrupted by signal %d", (int)*ctx->interrupted);
    /* capture.json is written whatever happened: it records how far the capture got */
    fp_err werr = {0};
    const char *status = rc == 0 ? "ok" : err->code == FP_INTERRUPTED ? "interrupted" : "failed";
    if (write_capture_json(&c, status, rc == 0 ? NULL : err, &werr) != 0 && rc == 0) {
        *err = werr;
        memset(&werr, 0, sizeof werr);
        rc = -1;
    }
    fp_err_clear(&werr);
    if (rc == 0) {
        ctx->data = fp_model_write(&fp_capture_schema, &c.doc);
        capture_table(&c, &ctx->table);
    } else if (c.bundle) {
        fp_err_extra(err, "capture_json", cJSON_CreateString("capture.json"));
    }
    cap_free(&c);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule capture_paths[] = {
    FP_CONFIG_PATH_RULES, {.opt = "bundle", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const capture_examples[] = {
    "flyprof capture softmax --shape 32768,8192,bf16 --bundle runs/softmax",
    "flyprof capture gemm --tag both --with-pmc --shape 4096,4096,4096,bf16",
    NULL,
};

const fp_command fp_cmd_capture = {
    .examples = capture_examples,
    .next = "flyprof bubbles --bundle {bundle}   (where the stall cycles go)",
    .name = "capture",
    .summary = "discover a kernel with rocprofv3 and capture its ATT trace into the bundle",
    .usage = "flyprof capture KERNEL [--shape S] [--invocation CMD] [--tag small|big|both] [--iter-range R] "
             "[--timeout S] [--gpu N] [--bundle DIR]",
    .details = "Runs `rocprofv3 --stats --kernel-trace` to find the kernel, then one ATT pass per tag with an "
               "explicit 1-based kernel_iteration_range, a cold FlyDSL JIT cache and debug info. Writes "
               "capture.json, att/<tag>/ and rocprof/<tag>/ in the bundle.",
    .opts = capture_opts,
    .args_size = sizeof(capture_args),
    .min_pos = 1,
    .max_pos = 1,
    .run = capture_run,
    .paths = capture_paths,
};
