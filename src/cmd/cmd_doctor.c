/*
 * cmd_doctor.c - `flyprof doctor`: can this machine capture? Each check has a
 * status (ok / warn / fail / skip), the evidence it saw and the fix; a failed
 * check that stops capture is a blocker. The verdict is "ready" iff there is
 * no blocker. doctor exits 0 either way: "not ready" is an answer, not an
 * error (only bad doctor input, e.g. a malformed config file, fails).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/cli.h"
#include "flyprof/provenance.h"
#include "flyprof/capture_doc.h"
#include "flyprof/config.h"
#include "flyprof/discovery.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/mem.h"
#include "flyprof/rpenv.h"
#include "flyprof/proc.h"
#include "flyprof/recipes.h"
#include "flyprof/soc.h"
#include "flyprof/tile_doc.h"
#include "flyprof/worktree.h"

/* Bounds for the probes (a wedged driver can hang rocminfo). */
#define DOCTOR_VERSION_TIMEOUT_S 20.0
#define DOCTOR_ROCMINFO_TIMEOUT_S 30.0
/* KFD topology: one dir per node; GPUs have a non-zero gfx_target_version. */
#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
#define MAX_GPUS 64

typedef struct doctor_args {
    fp_config_args cfg;
} doctor_args;

static const fp_opt doctor_opts[] = {
    FP_CONFIG_OPTS(doctor_args, cfg),
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

typedef struct gpu_info {
    char arch[32];
    char name[160];
    int cus;
    int node;
} gpu_info;

typedef struct checks {
    cJSON *list;     /* [{name, status, evidence, fix, blocker}] */
    cJSON *blockers; /* [{code, check, message}] */
    fp_sb *table;
    fp_sb codes;     /* " CODE" per blocker, in order: the verdict line */
} checks;

static void add_check(checks *c, const char *name, const char *status, const char *evidence, const char *fix,
                      const char *blocker)
{
    cJSON *o = cJSON_CreateObject();
    fp_json_add_str(o, "name", name);
    fp_json_add_str(o, "status", status);
    fp_json_add_str(o, "evidence", evidence);
    fp_json_add_str(o, "fix", fix);
    fp_json_add_str(o, "blocker", blocker);
    cJSON_AddItemToArray(c->list, o);
    if (blocker) {
        cJSON *b = cJSON_CreateObject();
        fp_json_add_str(b, "code", blocker);
        fp_json_add_str(b, "check", name);
        fp_json_add_str(b, "message", evidence);
        cJSON_AddItemToArray(c->blockers, b);
        fp_sb_addf(&c->codes, " %s", blocker);
    }
    fp_sb_addf(c->table, "  [%-4s] ", status);
    fp_sb_pad_left(c->table, name, 14);
    fp_sb_addf(c->table, " %s\n", evidence);
    if (fix && strcmp(status, "ok"))
        fp_sb_addf(c->table, "         %14s fix: %s\n", "", fix);
}

/* ---- GPUs ---- */

/* rocminfo prints one block per agent; keep GPU agents (Device Type: GPU). */
static int parse_rocminfo(const char *text, gpu_info *g, int max)
{
    int n = 0;
    gpu_info cur;
    bool in_agent = false, is_gpu = false;
    memset(&cur, 0, sizeof cur);
    const char *l = text;
    while (l && *l) {
        size_t len = strcspn(l, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), l);
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!strncmp(s, "Agent ", 6) && strspn(s + 6, "0123456789") > 0) {
            if (in_agent && is_gpu && n < max)
                g[n++] = cur;
            memset(&cur, 0, sizeof cur);
            cur.node = atoi(s + 6);
            in_agent = true;
            is_gpu = false;
        } else if (in_agent) {
            const char *colon = strchr(s, ':');
            if (colon) {
                const char *v = colon + 1;
                while (*v == ' ' || *v == '\t')
                    v++;
                size_t kl = (size_t)(colon - s);
                if (kl == 4 && !strncmp(s, "Name", 4) && !strncmp(v, "gfx", 3) && !cur.arch[0])
                    snprintf(cur.arch, sizeof cur.arch, "%.31s", v);
                else if (kl == 14 && !strncmp(s, "Marketing Name", 14) && !cur.name[0])
                    snprintf(cur.name, sizeof cur.name, "%.159s", v);
                else if (kl == 11 && !strncmp(s, "Device Type", 11))
                    is_gpu = !strncmp(v, "GPU", 3);
                else if (kl == 12 && !strncmp(s, "Compute Unit", 12) && !cur.cus)
                    cur.cus = atoi(v);
            }
        }
        l += len;
        if (*l == '\n')
            l++;
    }
    if (in_agent && is_gpu && n < max)
        g[n++] = cur;
    return n;
}

/* gfx_target_version 90500 -> "gfx950", 90010 -> "gfx90a" (stepping in hex). */
static void gfx_name(long v, char *out, size_t cap)
{
    snprintf(out, cap, "gfx%ld%lx%lx", v / 10000, (v / 100) % 100, v % 100);
}

static long prop(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; l && *l;) {
        if (!strncmp(l, key, kl) && l[kl] == ' ')
            return atol(l + kl + 1);
        l = strchr(l, '\n');
        if (l)
            l++;
    }
    return 0;
}

static int read_kfd(gpu_info *g, int max)
{
    char **names = NULL;
    size_t nn = 0;
    fp_err e = {0};
    if (fp_list_dir(KFD_NODES, &names, &nn, &e) != 0)
        return 0;
    int n = 0;
    for (size_t i = 0; i < nn && n < max; i++) {
        fp_sb p, t;
        fp_sb_init(&p);
        fp_sb_init(&t);
        fp_sb_addf(&p, "%s/%s/properties", KFD_NODES, names[i]);
        if (fp_read_file(p.buf, &t, &e) == 0) {
            long v = prop(t.buf, "gfx_target_version");
            if (v > 0) {
                gpu_info *x = &g[n++];
                memset(x, 0, sizeof *x);
                gfx_name(v, x->arch, sizeof x->arch);
                long simd = prop(t.buf, "simd_count"), per = prop(t.buf, "simd_per_cu");
                x->cus = per > 0 ? (int)(simd / per) : 0;
                x->node = atoi(names[i]);
                fp_sb_reset(&p);
                fp_sb_addf(&p, "%s/%s/name", KFD_NODES, names[i]);
                fp_sb nm;
                fp_sb_init(&nm);
                if (fp_read_file(p.buf, &nm, &e) == 0)
                    snprintf(x->name, sizeof x->name, "%.*s", (int)strcspn(nm.buf, "\n"), nm.buf);
                fp_sb_free(&nm);
            }
        }
        fp_sb_free(&p);
        fp_sb_free(&t);
    }
    fp_strv_free(names, nn);
    return n;
}

/* ---- the command ---- */

/* 1. rocprofv3; -1 only when interrupted (err says so) */
static int check_rocprofv3(checks *c, cJSON *d, fp_ctx *ctx, const fp_config *cfg, fp_rocprof_info *ri, fp_err *err)
{
    fp_sb ev;
    fp_sb_init(&ev);
    fp_err perr = {0};
    int prc = fp_rocprof_probe(cfg->rocprofv3.value, DOCTOR_VERSION_TIMEOUT_S, ctx->interrupted, ri, &perr);
    cJSON *rj = cJSON_AddObjectToObject(d, "rocprofv3");
    fp_json_add_str(rj, "requested", cfg->rocprofv3.value);
    fp_json_add_str(rj, "source", cfg->rocprofv3.source);
    fp_json_add_bool(rj, "present", ri->path != NULL);
    fp_json_add_str(rj, "path", ri->path);
    fp_json_add_str(rj, "version", ri->version);
    fp_json_add_str(rj, "rocm_version", ri->rocm_version);
    fp_json_add_str(rj, "default_output_format", ri->path ? ri->default_format : NULL);
    fp_json_add_str(rj, "rocm_root", ri->rocm_root);
    if (perr.code == FP_INTERRUPTED) {
        *err = perr;
        fp_sb_free(&ev);
        return -1;
    }
    if (!ri->path) {
        fp_sb_addf(&ev, "'%s' not found on PATH", cfg->rocprofv3.value);
        add_check(c, "rocprofv3", "fail", ev.buf,
                  "install ROCm >= 7.0 (rocprofiler-sdk), or pass --rocprofv3 PATH / set FLYPROF_ROCPROFV3",
                  "ROCPROFV3_MISSING");
    } else if (prc != 0 || !ri->version) {
        fp_sb_addf(&ev, "%s: version unknown (%s); assuming a release before ROCm 7.0 (default format csv)",
                   ri->path, ri->probe_error[0] ? ri->probe_error : "no version line");
        add_check(c, "rocprofv3", "warn", ev.buf, "ROCm >= 7.0 is needed for --att; upgrade ROCm", NULL);
    } else {
        fp_sb_addf(&ev, "%s version %s (ROCm %s), default output format %s", ri->path, ri->version,
                   ri->rocm_version ? ri->rocm_version : "?", ri->default_format);
        bool old = fp_version_cmp(ri->version, "1.0.0") < 0;
        add_check(c, "rocprofv3", old ? "fail" : "ok", ev.buf,
                  old ? "ATT needs rocprofiler-sdk >= 1.0.0 (ROCm 7.0); upgrade ROCm" : NULL,
                  old ? "ROCPROFV3_MISSING" : NULL);
    }
    fp_sb_free(&ev);
    fp_err_clear(&perr);
    return 0;
}

/* 2. trace decoder, where rocprofv3 will look */
static void check_decoder(checks *c, cJSON *d, const fp_rocprof_info *ri)
{
    fp_sb ev;
    fp_sb_init(&ev);
    char *found = NULL;
    cJSON *searched = cJSON_CreateArray();
    fp_decoder_search(NULL, 0, ri->rocm_root, &found, searched);
    cJSON *dj = cJSON_AddObjectToObject(d, "trace_decoder");
    fp_json_add_bool(dj, "present", found != NULL);
    fp_json_add_str(dj, "path", found);
    cJSON_AddItemToObject(dj, "searched", searched);
    bool bundled = ri->version && fp_version_cmp(ri->version, "1.3.0") >= 0;
    fp_json_add_bool(dj, "bundled_with_rocm", bundled);
    /* rocprofv3's search accepts a file whose name CONTAINS the library name, but
     * the tool (7.0-7.2) dlopens exactly <dir>/librocprof-trace-decoder.so; the
     * open-source decoder installs SOVERSION-named files (…so.0.2) */
    char *exact = NULL, *real = NULL;
    if (found) {
        char *dir = fp_xstrndup(found, (size_t)(fp_path_base(found) - found));
        exact = fp_path_join(dir, FP_DECODER_LIB);
        free(dir);
        real = realpath(fp_is_file(exact) ? exact : found, NULL);
    }
    const char *rb = real ? fp_path_base(real) : NULL;
    const char *ver = rb && strstr(rb, FP_DECODER_LIB ".") ? strstr(rb, FP_DECODER_LIB ".") + strlen(FP_DECODER_LIB) + 1
                                                          : NULL;
    bool exact_ok = exact && fp_is_file(exact);
    fp_json_add_bool(dj, "exact_name", exact_ok);
    fp_json_add_str(dj, "file", real);
    fp_json_add_str(dj, "version", ver && ver[0] ? ver : NULL);
    if (found && exact_ok) {
        fp_sb_addf(&ev, "%s (%s%s)", exact, ver && ver[0] ? "version " : "unversioned file", ver ? ver : "");
        add_check(c, "trace_decoder", "ok", ev.buf, NULL, NULL);
    } else if (found) {
        fp_sb_addf(&ev, "only %s: rocprofv3 finds the directory but loads exactly %s, which is absent", found, exact);
        fp_sb fix;
        fp_sb_init(&fix);
        fp_sb_addf(&fix, "ln -s %s %s (the versioned decoder needs the unversioned name)", fp_path_base(found), exact);
        add_check(c, "trace_decoder", "fail", ev.buf, fix.buf, "TRACE_DECODER_MISSING");
        fp_sb_free(&fix);
    } else {
        char *s = cJSON_PrintUnformatted(searched);
        fp_sb_addf(&ev, "%s not found in %s", FP_DECODER_LIB, s);
        free(s);
        add_check(c, "trace_decoder", "fail", ev.buf,
                  bundled ? "reinstall ROCm: the decoder ships with ROCm >= 7.13"
                          : "install rocprof-trace-decoder (github.com/ROCm/rocprof-trace-decoder releases, the "
                            "one matching /opt/rocm/.info/version) into <rocm>/lib, or set "
                            "ROCPROF_ATT_LIBRARY_PATH",
                  "TRACE_DECODER_MISSING");
    }
    free(found);
    free(exact);
    free(real);

    fp_sb_free(&ev);
}

/* 2b. what else rocprofv3 needs to trace: aqlprofile (the AQL packets of ATT and
 * counters: without it "Agent not supported" / INVALID_SHADER_DATA), and the
 * ROCm 7.0-7.2 walk of ROCPROF_ATT_LIBRARY_PATH (the string iterated character
 * by character: "/" first, the whole filesystem - a hand-run rocprofv3 times out;
 * flyprof passes the directories as att_library_path instead) */
static void check_rocprof_env(checks *c, cJSON *d, const fp_rocprof_info *ri)
{
    fp_sb ev;
    fp_sb_init(&ev);
    static const char aql[] = "libhsa-amd-aqlprofile64.so";
    char *found = NULL;
    const char *ld = getenv("LD_LIBRARY_PATH");
    char *dirs = NULL;
    {
        fp_sb s;
        fp_sb_init(&s);
        fp_sb_addf(&s, "%s:%s/lib", ld ? ld : "", ri->rocm_root && ri->rocm_root[0] ? ri->rocm_root : "/opt/rocm");
        dirs = fp_sb_detach(&s);
    }
    for (char *save = NULL, *t = strtok_r(dirs, ":", &save); t && !found; t = strtok_r(NULL, ":", &save)) {
        char *p = fp_path_join(t, aql);
        if (fp_is_file(p))
            found = p;
        else
            free(p);
    }
    free(dirs);
    cJSON *aj = cJSON_AddObjectToObject(d, "aqlprofile");
    fp_json_add_str(aj, "path", found);
    if (found) {
        add_check(c, "aqlprofile", "ok", found, NULL, NULL);
    } else {
        fp_sb_addf(&ev, "%s not found in LD_LIBRARY_PATH or <rocm>/lib", aql);
        add_check(c, "aqlprofile", "warn", ev.buf,
                  "install hsa-amd-aqlprofile (ROCm >= 7.1 for the decoder's real-time clock records)", NULL);
    }
    free(found);
    const char *env = getenv(FP_ROCPROF_ATT_LIB_ENV);
    bool walk = env && env[0] && ri->version && fp_version_cmp(ri->version, "1.3.0") < 0;
    fp_sb_reset(&ev);
    if (walk) {
        fp_sb_addf(&ev, "%s=%s with rocprofv3 %s: its script walks '/' (the whole filesystem) before the "
                        "application starts",
                   FP_ROCPROF_ATT_LIB_ENV, env, ri->version);
        add_check(c, "att_library_env", "warn", ev.buf,
                  "flyprof passes the directories as att_library_path and drops the variable; for hand-run "
                  "rocprofv3 unset it and use --att-library-path DIR",
                  NULL);
    }
    fp_sb_free(&ev);
}

/* 2c. the python rocprofv3 runs under (a script: `#!/usr/bin/env python3` is the
 * first python3 on PATH, often a virtualenv's) and whether it has PyYAML (only
 * `-i x.yaml` needs it; flyprof writes JSON input files) */
static void check_rocprof_python(checks *c, cJSON *d, fp_ctx *ctx, const fp_rocprof_info *ri)
{
    char line[256] = "";
    FILE *f = ri->path ? fopen(ri->path, "r") : NULL;
    if (f && !fgets(line, sizeof line, f))
        line[0] = '\0';
    if (f)
        fclose(f);
    if (strncmp(line, "#!", 2) != 0)
        return; /* not a script (a wrapper binary): nothing to say */
    line[strcspn(line, "\r\n")] = '\0';
    char *interp = line + 2 + strspn(line + 2, " ");
    char *sp = strchr(interp, ' ');
    const char *name = interp;
    if (sp && !strncmp(fp_path_base(interp), "env ", 4))
        name = sp + 1 + strspn(sp + 1, " ");
    else if (sp)
        *sp = '\0';
    char *py = name[0] == '/' ? strdup(name) : fp_proc_which(name, NULL);
    bool yaml = false;
    if (py) {
        const char *argv[] = {py, "-c", "import yaml", NULL};
        fp_proc_opts o = {.argv = argv, .stdout_path = "/dev/null", .stderr_path = "/dev/null",
                          .timeout_s = DOCTOR_VERSION_TIMEOUT_S, .interrupted = ctx->interrupted};
        fp_proc_result r;
        fp_err e = {0};
        yaml = fp_proc_run(&o, &r, &e) == 0 && r.exited && r.exit_code == 0;
        fp_err_clear(&e);
    }
    cJSON *pj = cJSON_AddObjectToObject(d, "rocprofv3_python");
    fp_json_add_str(pj, "shebang", line);
    fp_json_add_str(pj, "path", py);
    fp_json_add_bool(pj, "pyyaml", yaml);
    fp_sb ev;
    fp_sb_init(&ev);
    fp_sb_addf(&ev, "%s runs under %s%s", fp_path_base(ri->path), py ? py : name,
               !py ? " (not found)" : yaml ? ", PyYAML importable" : ", no PyYAML");
    add_check(c, "rocprofv3_python", !py || !yaml ? "warn" : "ok", ev.buf,
              !py ? "rocprofv3 cannot start: put a python3 on PATH"
                  : !yaml ? "flyprof writes JSON input files, so capture/counters work; a hand-run `rocprofv3 -i "
                            "x.yaml` needs `python3 -m pip install pyyaml`"
                          : NULL,
              NULL);
    fp_sb_free(&ev);
    free(py);
}

/* 3. GPUs (rocminfo, else the KFD topology); returns the selected one or NULL */
static const gpu_info *check_gpu(checks *c, cJSON *d, fp_ctx *ctx, const fp_config *cfg, gpu_info *gpus, int max)
{
    fp_sb ev;
    fp_sb_init(&ev);
    int ng = 0;
    const char *gpu_src = "none";
    char *rocminfo = fp_proc_which("rocminfo", NULL);
    if (rocminfo) {
        const char *argv[] = {rocminfo, NULL};
        fp_sb out;
        fp_sb_init(&out);
        fp_proc_opts o = {.argv = argv, .stdout_buf = &out, .timeout_s = DOCTOR_ROCMINFO_TIMEOUT_S,
                          .interrupted = ctx->interrupted};
        fp_proc_result r;
        fp_err e2 = {0};
        if (fp_proc_run(&o, &r, &e2) == 0 && r.exited && r.exit_code == 0) {
            ng = parse_rocminfo(out.buf, gpus, max);
            gpu_src = "rocminfo";
        }
        fp_sb_free(&out);
    }
    if (ng == 0 && fp_is_dir(KFD_NODES)) {
        ng = read_kfd(gpus, max);
        gpu_src = "kfd";
    }
    bool kfd = access("/dev/kfd", F_OK) == 0;
    cJSON *gj = cJSON_AddArrayToObject(d, "gpus");
    for (int i = 0; i < ng; i++) {
        cJSON *o = cJSON_CreateObject();
        fp_json_add_int(o, "index", i);
        fp_json_add_str(o, "arch", gpus[i].arch);
        fp_json_add_str(o, "name", gpus[i].name[0] ? gpus[i].name : NULL);
        fp_json_add_int(o, "compute_units", gpus[i].cus);
        cJSON_AddItemToArray(gj, o);
    }
    cJSON *sel = cJSON_AddObjectToObject(d, "gpu");
    fp_json_add_int(sel, "index", cfg->gpu);
    fp_json_add_str(sel, "source", gpu_src);
    fp_json_add_bool(sel, "dev_kfd", kfd);
    const gpu_info *g = cfg->gpu < ng ? &gpus[cfg->gpu] : NULL;
    fp_json_add_bool(sel, "present", g != NULL);
    fp_json_add_str(sel, "arch", g ? g->arch : NULL);
    fp_json_add_str(sel, "name", g && g->name[0] ? g->name : NULL);
    if (ng == 0) {
        fp_sb_addf(&ev, "no AMD GPU: %s, %s, %s", rocminfo ? "rocminfo lists no GPU agent" : "rocminfo not on PATH",
                   kfd ? "/dev/kfd present" : "/dev/kfd absent", fp_is_dir(KFD_NODES) ? "KFD topology has no GPU node"
                                                                                  : "no KFD topology");
        add_check(c, "gpu", "fail", ev.buf,
                  "run on a machine with an AMD Instinct GPU and the amdgpu driver (MI300X/MI325X/MI350X/MI355X); "
                  "in a container pass --device /dev/kfd --device /dev/dri",
                  "NO_GPU");
    } else if (!g) {
        fp_sb_addf(&ev, "--gpu %d but only %d GPU(s) visible (%s)", cfg->gpu, ng, gpu_src);
        add_check(c, "gpu", "fail", ev.buf, "pick --gpu in 0..(count-1)", "NO_GPU");
    } else {
        fp_sb_addf(&ev, "GPU %d: %s %s, %d CUs (%d GPU(s) via %s)", cfg->gpu, g->arch, g->name, g->cus, ng, gpu_src);
        add_check(c, "gpu", "ok", ev.buf, NULL, NULL);
    }
    free(rocminfo);

    fp_sb_free(&ev);
    return g;
}

/* 4. the FlyDSL worktree and its build tree */
static void check_worktree(checks *c, cJSON *d, const fp_config *cfg, fp_err *err)
{
    fp_sb ev;
    fp_sb_init(&ev);
    fp_worktree wt;
    memset(&wt, 0, sizeof wt);
    if (!cfg->worktree.value) {
        cJSON_AddNullToObject(d, "worktree");
        add_check(c, "worktree", "fail", "no FlyDSL worktree configured",
                  "pass --worktree DIR or set FLYPROF_WORKTREE (or `worktree:` in the config file)",
                  "BUILD_TREE_MISSING");
    } else {
        fp_worktree_inspect(cfg->worktree.value, &wt, err);
        fp_cap_worktree wd;
        fp_worktree_to_doc(&wt, &wd);
        cJSON_AddItemToObject(d, "worktree", fp_model_write(&fp_cap_worktree_schema, &wd));
        fp_model_free(&fp_cap_worktree_schema, &wd);
        if (!wt.exists) {
            fp_sb_addf(&ev, "%s does not exist", wt.path);
            add_check(c, "worktree", "fail", ev.buf, "clone FlyDSL there or point --worktree at the checkout",
                      "BUILD_TREE_MISSING");
        } else {
            if (wt.is_git)
                fp_sb_addf(&ev, "%s at %.12s%s%s%s", wt.path, wt.commit[0] ? wt.commit : "(no commit)",
                           wt.branch ? " on " : " (detached)", wt.branch ? wt.branch : "",
                           wt.dirty ? ", dirty" : ", clean");
            else
                fp_sb_addf(&ev, "%s (not a git repository: no provenance)", wt.path);
            add_check(c, "worktree", wt.is_git ? "ok" : "warn", ev.buf,
                      wt.is_git ? NULL : "use a git checkout so captures record the commit", NULL);
            fp_sb_reset(&ev);
            fp_sb_addf(&ev, "%s/%s %s", wt.path, FP_FLYDSL_BUILD_TREE,
                       !wt.build_tree ? "missing" : wt.flydsl_pkg ? "present with flydsl/" : "present but no flydsl/");
            add_check(c, "build_tree", wt.flydsl_pkg ? "ok" : "fail", ev.buf,
                      wt.flydsl_pkg ? NULL : "build FlyDSL in the worktree (its build writes build-fly/python_packages)",
                      wt.flydsl_pkg ? NULL : "BUILD_TREE_MISSING");
        }
    }

    fp_worktree_free(&wt);
    fp_sb_free(&ev);
}

/* 5. python for the workload */
static void check_python(checks *c, cJSON *d, const fp_config *cfg)
{
    fp_sb ev;
    fp_sb_init(&ev);
    char *py = fp_proc_which(cfg->python.value, NULL);
    cJSON *pj = cJSON_AddObjectToObject(d, "python");
    fp_json_add_str(pj, "requested", cfg->python.value);
    fp_json_add_str(pj, "path", py);
    if (py) {
        fp_sb_addf(&ev, "%s", py);
        add_check(c, "python", "ok", ev.buf, NULL, NULL);
    } else {
        fp_sb_addf(&ev, "'%s' not found", cfg->python.value);
        add_check(c, "python", "fail", ev.buf, "pass --python PATH or set FLYPROF_PYTHON", "MISSING_PREREQ");
    }
    free(py);

    fp_sb_free(&ev);
}

/* 6. the SoC spec for the GPU (or --arch) */
static void check_soc(checks *c, cJSON *d, const fp_config *cfg, const gpu_info *g)
{
    fp_sb ev;
    fp_sb_init(&ev);
    fp_soc_query q = {.arch = cfg->arch.value, .product_name = g && g->name[0] ? g->name : NULL,
                      .agent_arch = g ? g->arch : NULL};
    fp_soc_sel s;
    fp_err serr = {0};
    if (!q.arch && !q.agent_arch) {
        cJSON *sj = cJSON_AddObjectToObject(d, "soc_spec");
        fp_json_add_bool(sj, "loaded", false);
        add_check(c, "soc_spec", "skip", "no GPU detected and no --arch: no SoC model selected",
                  "pass --arch gfx942|gfx950 to model a machine offline", NULL);
    } else if (fp_soc_resolve(&q, &s, &serr) != 0) {
        cJSON *sj = cJSON_AddObjectToObject(d, "soc_spec");
        fp_json_add_bool(sj, "loaded", false);
        fp_json_add_str(sj, "error", serr.message);
        add_check(c, "soc_spec", "warn", serr.message, serr.help[0] ? serr.help : NULL, NULL);
    } else {
        fp_soc_doc sd;
        fp_soc_to_doc(&s, &sd);
        cJSON *sj = fp_model_write(&fp_soc_doc_schema, &sd);
        fp_model_free(&fp_soc_doc_schema, &sd);
        cJSON_AddItemToObjectCS(sj, "loaded", cJSON_CreateBool(1));
        cJSON_AddItemToObject(d, "soc_spec", sj);
        fp_sb_addf(&ev, "%s%s%s (arch from %s)", s.product ? s.product->marketing : "", s.product ? ", " : "",
                   s.arch ? s.arch : "?", s.arch_source ? s.arch_source : "?");
        add_check(c, "soc_spec", s.product ? "ok" : "warn", ev.buf,
                  s.product ? NULL : "the product is unknown: CU count, clock and peaks are not modelled", NULL);
    }
    fp_err_clear(&serr);

    fp_sb_free(&ev);
}

/* 7. the recipes registry: which file `list`/`capture KERNEL` read (an
 * installed binary and a build tree find different ones). Not a blocker:
 * `capture --invocation` works without it. */
static void check_recipes(checks *c, cJSON *d, const fp_config *cfg)
{
    fp_sb ev;
    fp_sb_init(&ev);
    cJSON *rj2 = cJSON_AddObjectToObject(d, "recipes");
    fp_json_add_str(rj2, "path", cfg->recipes.value);
    fp_json_add_str(rj2, "source", cfg->recipes.source);
    if (!cfg->recipes.value) {
        cJSON_AddNullToObject(rj2, "kernels");
        fp_sb hint; /* where it looked, and how to point a lone copied binary at one */
        fp_sb_init(&hint);
        fp_config_registry_hint(&hint);
        add_check(c, "recipes", "warn", "no recipes registry found (none shipped next to the binary)", hint.buf, NULL);
        fp_sb_free(&hint);
    } else {
        fp_recipes rs = {0};
        fp_err rerr = {0};
        if (fp_recipes_load(cfg->recipes.value, &rs, &rerr) != 0) {
            cJSON_AddNullToObject(rj2, "kernels");
            fp_json_add_str(rj2, "error", rerr.message);
            add_check(c, "recipes", "warn", rerr.message, "fix the registry or point --recipes at another one",
                      NULL);
        } else {
            fp_json_add_int(rj2, "kernels", (int64_t)rs.n);
            fp_sb_addf(&ev, "%zu recipe(s) from %s (%s)", rs.n, cfg->recipes.value, cfg->recipes.source);
            add_check(c, "recipes", rs.n ? "ok" : "warn", ev.buf,
                      rs.n ? NULL : "the registry lists no kernel", NULL);
        }
        fp_recipes_free(&rs);
        fp_err_clear(&rerr);
    }
    fp_sb_free(&ev);
}

/* The verdict, the blockers and the checks into data; in the table the verdict
 * is the headline. */
static void doctor_verdict(fp_ctx *ctx, cJSON *d, checks *c, const fp_config *cfg)
{
    int nb = cJSON_GetArraySize(c->blockers);
    fp_json_add_str(d, "verdict", nb ? "not-ready" : "ready");
    cJSON_AddItemToObject(d, "blockers", c->blockers);
    cJSON_AddItemToObject(d, "checks", c->list);
    fp_cap_config cd;
    fp_config_to_doc(cfg, &cd);
    cJSON_AddItemToObject(d, "config", fp_model_write(&fp_cap_config_schema, &cd));
    fp_model_free(&fp_cap_config_schema, &cd);
    /* the verdict is the headline: first (replacing the title) and last */
    fp_sb v;
    fp_sb_init(&v);
    fp_sb_addf(&v, "%s", nb ? "not-ready" : "ready");
    if (nb) {
        fp_sb_addf(&v, " (blockers:%s)", c->codes.buf);
    }
    fp_sb_addf(&ctx->table, "\nverdict: %s\n", v.buf);
    fp_sb t;
    fp_sb_init(&t);
    fp_sb_addf(&t, "flyprof doctor: %s", v.buf);
    fp_sb_adds(&t, ctx->table.buf + strlen("flyprof doctor"));
    fp_sb_free(&ctx->table);
    ctx->table = t;
    fp_sb_free(&v);

}

static int doctor_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos;
    (void)npos;
    doctor_args *a = argsp;
    fp_config cfg;
    if (fp_config_load(&cfg, &a->cfg, err) != 0)
        return -1;
    cJSON *d = ctx->data = cJSON_CreateObject();
    fp_sb_adds(&ctx->table, "flyprof doctor\n\n");
    checks c = {cJSON_CreateArray(), cJSON_CreateArray(), &ctx->table, {0}};
    fp_sb_init(&c.codes);
    fp_rocprof_info ri;
    if (check_rocprofv3(&c, d, ctx, &cfg, &ri, err) != 0) {
        fp_rocprof_info_free(&ri);
        fp_config_free(&cfg);
        cJSON_Delete(c.list);
        cJSON_Delete(c.blockers);
        fp_sb_free(&c.codes);
        return -1;
    }
    check_decoder(&c, d, &ri);
    check_rocprof_env(&c, d, &ri);
    check_rocprof_python(&c, d, ctx, &ri);
    gpu_info gpus[MAX_GPUS];
    const gpu_info *g = check_gpu(&c, d, ctx, &cfg, gpus, MAX_GPUS);
    check_worktree(&c, d, &cfg, err);
    check_python(&c, d, &cfg);
    check_soc(&c, d, &cfg, g);
    check_recipes(&c, d, &cfg);
    doctor_verdict(ctx, d, &c, &cfg);
    fp_sb_free(&c.codes);
    fp_rocprof_info_free(&ri);
    fp_config_free(&cfg);
    return 0;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule doctor_paths[] = {
    FP_CONFIG_PATH_RULES,
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const doctor_examples[] = {
    "flyprof doctor",
    "FLYPROF_FORMAT=table flyprof doctor | tail -3",
    NULL,
};

const fp_command fp_cmd_doctor = {
    .examples = doctor_examples,
    .name = "doctor",
    .summary = "check rocprofv3, the trace decoder, GPUs, the FlyDSL worktree and the SoC model",
    .usage = "flyprof doctor [--worktree DIR] [--rocprofv3 PATH] [--gpu N] [--arch GFX]",
    .details = "Each check reports status, evidence and the fix. verdict is ready when nothing blocks a "
               "capture; doctor exits 0 either way.",
    .opts = doctor_opts,
    .args_size = sizeof(doctor_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = doctor_run,
    .paths = doctor_paths,
    .no_bundle = true,
};
