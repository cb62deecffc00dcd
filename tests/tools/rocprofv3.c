/*
 * rocprofv3.c - the fake rocprofv3: a test double that obeys the real command
 * line and input-file schema (../shared/reference/rocprof-formats.md §1–2) and
 * writes real-format outputs (§3 CSVs, §4 rocpd results.db, §5 ATT dispatch
 * dirs), so that `capture`, `counters` and `run` are tested end to end without
 * a GPU. Behaviour is driven by FAKE_ROCPROF_* environment variables, listed
 * in docs/fake-rocprofv3.md; the defaults model rocprofv3 1.1.0 (ROCm 7.2) on
 * one MI350X (gfx950).
 *
 * Like the real tool it runs the application after `--` (as a child, in the
 * same working directory and environment) and propagates its exit status.
 */
#include <errno.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/proc.h"
#include "flyprof/strbuf.h"

extern char **environ;

#define MAX_KERNELS 32
#define MAX_JOBS 8
#define MAX_RANGES 64
#define MAX_COUNTERS 64

/* Default ATT buffer of the 7.x tool config (rocprof-formats.md §1.3). */
/* --att-buffer-size defaults: 0x10000000 (256 MiB) in the 7.0 tool config,
 * 0x18000000 (384 MiB) in the rocm-systems source of SDK 1.3 (issue 18) */
#define DEFAULT_ATT_BUFFER 0x10000000LL
#define DEFAULT_ATT_BUFFER_NEW 0x18000000LL
/* Agent handle of the traced GPU in the samples (ui_output_agent_38430_*). */
#define DEFAULT_AGENT_HANDLE 38430

static const char *g_prog = "rocprofv3";

/* ---------- the simulated workload ---------- */

typedef struct kernel {
    char name[600];
    int calls;
    long long avg_ns;
    int vgpr;  /* real total (arch + accum) allocation */
    int accum;
    int id;    /* Kernel_Id */
} kernel;

typedef struct dispatch {
    int id;        /* Dispatch_Id, 1-based process-wide */
    int k;         /* index into kernels */
    int iteration; /* 1-based per kernel */
    long long start, end;
} dispatch;

/* FAKE_ROCPROF_PROCS: the workload's kernels run in that many processes (a
 * launcher and workers); each writes its own outputs, as process pid + g_proc. */
static int g_proc;
/* The simulated process id of process g_proc (its outputs' Process_Id / pid). */
static int fake_pid(void) { return (int)getpid() + g_proc; }
static kernel g_k[MAX_KERNELS];
static int g_nk;
static dispatch *g_d;
static int g_nd;

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? v : dflt;
}

static bool mode_has(const char *word)
{
    const char *m = getenv("FAKE_ROCPROF_MODE");
    if (!m)
        return false;
    size_t n = strlen(word);
    for (const char *p = m; (p = strstr(p, word)) != NULL; p += n)
        if ((p == m || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

/* FAKE_ROCPROF_KERNELS = "name:calls[:avg_ns[:vgpr[:accum]]],..." Names may
 * contain commas inside (), <> or [] (C++ signatures). */
static void parse_kernels(void)
{
    const char *spec = env_or("FAKE_ROCPROF_KERNELS", "fake_kernel_0:10");
    if (!strcmp(spec, "none"))
        spec = "";
    const char *p = spec;
    while (*p && g_nk < MAX_KERNELS) {
        int depth = 0;
        const char *e = p;
        while (*e && !(*e == ',' && depth == 0)) {
            if (strchr("(<[", *e))
                depth++;
            else if (strchr(")>]", *e) && depth > 0)
                depth--;
            e++;
        }
        char item[600];
        size_t n = (size_t)(e - p) < sizeof item - 1 ? (size_t)(e - p) : sizeof item - 1;
        memcpy(item, p, n);
        item[n] = '\0';
        /* peel numeric ":N" fields from the right */
        long long f[4];
        int nf = 0;
        char *colon;
        while (nf < 4 && (colon = strrchr(item, ':')) != NULL && colon[1] &&
               strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
            f[nf++] = atoll(colon + 1);
            *colon = '\0';
        }
        kernel *k = &g_k[g_nk];
        memset(k, 0, sizeof *k);
        snprintf(k->name, sizeof k->name, "%s", item);
        /* fields were peeled right to left */
        long long v[4] = {10, 0, 64, 0};
        for (int i = 0; i < nf; i++)
            v[i] = f[nf - 1 - i];
        k->calls = (int)v[0];
        k->avg_ns = nf >= 2 ? v[1] : 20000 + 10000LL * g_nk;
        k->vgpr = nf >= 3 ? (int)v[2] : 64;
        k->accum = nf >= 4 ? (int)v[3] : 0;
        k->id = 11 + g_nk;
        if (k->name[0])
            g_nk++;
        p = *e ? e + 1 : e;
    }
    /* Dispatch order: round-robin over kernels, like a benchmark loop that
     * launches each kernel once per iteration. */
    int total = 0;
    for (int i = 0; i < g_nk; i++)
        total += g_k[i].calls;
    g_d = calloc((size_t)total + 1, sizeof *g_d);
    long long t = 2016989883593149LL; /* a real-looking ns timestamp (§3.2 sample) */
    int iter[MAX_KERNELS] = {0};
    for (int round = 0; g_nd < total; round++) {
        for (int i = 0; i < g_nk; i++) {
            if (g_k[i].calls <= round)
                continue;
            dispatch *d = &g_d[g_nd];
            d->id = ++g_nd;
            d->k = i;
            d->iteration = ++iter[i];
            /* deterministic jitter around the average: -2..+2 % */
            long long dur = g_k[i].avg_ns + (g_k[i].avg_ns * ((round % 5) - 2)) / 100;
            d->start = t;
            d->end = t + dur;
            t += dur + 1920;
        }
    }
}

static int version_num(const char *v)
{
    int a = 0, b = 0, c = 0;
    sscanf(v, "%d.%d.%d", &a, &b, &c);
    return a * 10000 + b * 100 + c;
}

static const char *arch(void) { return env_or("FAKE_ROCPROF_ARCH", "gfx950"); }

/* ---------- options and jobs ---------- */

typedef struct strv {
    char *v[MAX_COUNTERS];
    int n;
} strv;

typedef struct job {
    bool kernel_trace, stats, att, has_pmc, truncate;
    bool set_kernel_trace, set_stats, set_att, set_fmt, set_dir, set_file, set_regex, set_range;
    strv fmt, pmc, att_lib;
    char *dir, *file, *include_regex, *exclude_regex, *range;
    long long att_buffer;
    int target_cu;
} job;

/* "[rocprofv3] Fatal error: " since SDK 1.1.0; ROCm 7.0's script (SDK 1.0.0)
 * wrote "Fatal error: " with no prefix */
static const char *fatal_prefix(void)
{
    return version_num(env_or("FAKE_ROCPROF_VERSION", "1.1.0")) < 10100 ? "Fatal error: "
                                                                         : "[rocprofv3] Fatal error: ";
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(fatal_prefix(), stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void argparse_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void argparse_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "usage: rocprofv3 [options] -- <application> [application options]\n%s: error: ",
            g_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* argparse bool with optional value (§1.1). Returns 1 if argv[*i+1] was consumed. */
static bool parse_bool_word(const char *w, bool *out)
{
    static const char *yes[] = {"y", "yes", "t", "true", "on", "1"};
    static const char *no[] = {"n", "no", "f", "false", "off", "0"};
    for (size_t i = 0; i < 6; i++) {
        if (!strcasecmp(w, yes[i])) {
            *out = true;
            return true;
        }
        if (!strcasecmp(w, no[i])) {
            *out = false;
            return true;
        }
    }
    return false;
}

static long long int_auto(const char *key, const char *s)
{
    char *end;
    errno = 0;
    long long v = strstr(s, "0x") ? strtoll(s, &end, 16) : strtoll(s, &end, 10);
    if (errno || *end || end == s)
        fatal("invalid value for %s: '%s'", key, s);
    return v;
}

static void print_version(const char *ver)
{
    const char *keys[] = {"version",          "git_revision",  "library_arch",
                          "system_name",      "system_processor", "system_version",
                          "compiler_id",      "compiler_version", "rocm_version"};
    int vn = version_num(ver);
    const char *rocm = vn >= 10300 ? "7.13.0" : vn >= 10100 ? "7.2.0" : "7.0.0";
    const char *vals[] = {ver,      "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "x86_64-linux-gnu",
                          "Linux",  "x86_64", "6.8.0", "GNU", "13.2.0",
                          env_or("FAKE_ROCPROF_ROCM_VERSION", rocm)};
    for (int i = 0; i < 9; i++)
        printf("    %16s: %s\n", keys[i], vals[i]);
}

/* ---------- input file (libyaml; JSON is valid YAML flow syntax) ---------- */

static char *scalar(yaml_document_t *doc, yaml_node_t *n)
{
    if (!n || n->type != YAML_SCALAR_NODE)
        return NULL;
    return strndup((const char *)n->data.scalar.value, n->data.scalar.length);
}

static void list_or_scalar(yaml_document_t *doc, yaml_node_t *n, strv *out)
{
    out->n = 0;
    if (n->type == YAML_SCALAR_NODE) {
        /* space/comma separated words */
        char *s = scalar(doc, n);
        for (char *tok = strtok(s, " ,"); tok && out->n < MAX_COUNTERS; tok = strtok(NULL, " ,"))
            out->v[out->n++] = strdup(tok);
        free(s);
        return;
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        char *s = scalar(doc, yaml_document_get_node(doc, *it));
        if (s && out->n < MAX_COUNTERS)
            out->v[out->n++] = s;
        else
            free(s);
    }
}

static bool yaml_bool(const char *key, const char *s)
{
    bool b;
    if (!s || !parse_bool_word(s, &b))
        fatal("invalid boolean for %s: '%s'", key, s ? s : "");
    return b;
}

static int load_input(const char *path, job *jobs)
{
    const char *dot = strrchr(path, '.');
    if (!dot || !(strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0 || strcmp(dot, ".json") == 0))
        fatal("Input file '%s' does not have a recognized extension (.yaml, .yml, .json)", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        fatal("Input file '%s' does not exist", path);
    /* no-pyyaml: the python running the script cannot import yaml (a FlyDSL
     * virtualenv); .json input is read by the standard library and still works */
    if (mode_has("no-pyyaml") && strcmp(dot, ".json") != 0)
        fatal("YAML package is not installed. Run '/usr/bin/python3 -m pip install pyyaml' or use JSON or text "
              "format");
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &doc)) {
        fprintf(stderr, "Traceback (most recent call last):\nyaml.scanner.ScannerError: %s at line %zu\n",
                parser.problem ? parser.problem : "parse error", parser.problem_mark.line + 1);
        exit(1);
    }
    fclose(f);
    yaml_parser_delete(&parser);
    int nj = 0;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_node_t *jl = NULL;
    if (root && root->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
            char *k = scalar(&doc, yaml_document_get_node(&doc, p->key));
            if (k && !strcmp(k, "jobs"))
                jl = yaml_document_get_node(&doc, p->value);
            free(k); /* every other top-level key is ignored, like the real loader (§2.1) */
        }
    if (!jl || jl->type != YAML_SEQUENCE_NODE) {
        fprintf(stderr, "Traceback (most recent call last):\nKeyError: 'jobs'\n");
        exit(1);
    }
    for (yaml_node_item_t *it = jl->data.sequence.items.start; it < jl->data.sequence.items.top; it++) {
        yaml_node_t *jn = yaml_document_get_node(&doc, *it);
        if (nj >= MAX_JOBS || !jn || jn->type != YAML_MAPPING_NODE)
            continue;
        job *j = &jobs[nj++];
        for (yaml_node_pair_t *p = jn->data.mapping.pairs.start; p < jn->data.mapping.pairs.top; p++) {
            char *k = scalar(&doc, yaml_document_get_node(&doc, p->key));
            yaml_node_t *vn = yaml_document_get_node(&doc, p->value);
            char *v = scalar(&doc, vn);
            if (!k) {
                free(v);
                continue;
            }
            bool empty = v && !v[0] && vn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            if (empty) {
                /* YAML null -> unset (§2.2) */
            } else if (!strcmp(k, "kernel_trace")) {
                j->kernel_trace = yaml_bool(k, v), j->set_kernel_trace = true;
            } else if (!strcmp(k, "stats")) {
                j->stats = yaml_bool(k, v), j->set_stats = true;
            } else if (!strcmp(k, "advanced_thread_trace")) {
                j->att = yaml_bool(k, v), j->set_att = true;
            } else if (!strcmp(k, "truncate_kernels")) {
                j->truncate = yaml_bool(k, v);
            } else if (!strcmp(k, "output_format")) {
                list_or_scalar(&doc, vn, &j->fmt), j->set_fmt = true;
            } else if (!strcmp(k, "pmc")) {
                list_or_scalar(&doc, vn, &j->pmc), j->has_pmc = j->pmc.n > 0;
            } else if (!strcmp(k, "att_library_path")) {
                list_or_scalar(&doc, vn, &j->att_lib);
            } else if (!strcmp(k, "output_directory")) {
                j->dir = v, v = NULL, j->set_dir = true;
            } else if (!strcmp(k, "output_file")) {
                j->file = v, v = NULL, j->set_file = true;
            } else if (!strcmp(k, "kernel_include_regex")) {
                j->include_regex = v, v = NULL, j->set_regex = true;
            } else if (!strcmp(k, "kernel_exclude_regex")) {
                j->exclude_regex = v, v = NULL;
            } else if (!strcmp(k, "kernel_iteration_range")) {
                j->range = v, v = NULL, j->set_range = true;
            } else if (!strcmp(k, "att_buffer_size")) {
                j->att_buffer = int_auto(k, v);
            } else if (!strcmp(k, "att_target_cu")) {
                j->target_cu = (int)int_auto(k, v);
            } else if (!strcmp(k, "att_shader_engine_mask") || !strcmp(k, "att_simd_select")) {
                int_auto(k, v);
            }
            free(k);
            free(v);
        }
    }
    yaml_document_delete(&doc);
    return nj;
}

/* ---------- kernel filtering (§1.5, §2.3) ---------- */

typedef struct range_set {
    long long a[MAX_RANGES], b[MAX_RANGES];
    int n;
} range_set;

static void parse_range(const char *s, range_set *rs)
{
    rs->n = 0;
    char *copy = strdup(s);
    for (char *tok = strtok(copy, "[], "); tok; tok = strtok(NULL, "[], ")) {
        if (rs->n >= MAX_RANGES)
            break;
        if (strchr(tok, '-')) {
            long long a, b;
            char extra;
            if (sscanf(tok, "%lld-%lld%c", &a, &b, &extra) != 2)
                fatal("bad range format for '%s'. Expected [A-B] where A and B are numbers", tok);
            rs->a[rs->n] = a, rs->b[rs->n++] = b;
        } else {
            if (strspn(tok, "0123456789") != strlen(tok))
                fatal("expected integer for %s. Non-integer value detected", tok);
            rs->a[rs->n] = rs->b[rs->n] = atoll(tok), rs->n++;
        }
    }
    free(copy);
}

static bool in_range(const range_set *rs, int it)
{
    for (int i = 0; i < rs->n; i++)
        if (it >= rs->a[i] && it <= rs->b[i])
            return true;
    return false;
}

static void formatted_name(const kernel *k, bool truncate, char *out, size_t cap)
{
    snprintf(out, cap, "%s", k->name);
    if (truncate) {
        /* -T drops template and argument text: "void f<int>(int*)" -> "f" */
        char *cut = strpbrk(out, "<(");
        if (cut)
            *cut = '\0';
        char *sp = strrchr(out, ' ');
        if (sp)
            memmove(out, sp + 1, strlen(sp + 1) + 1);
    }
}

/* Targeted dispatches of a job: regex search on the formatted name, then the
 * iteration set. Default range: ATT traces iteration 1 only, counters every
 * dispatch (§1.3). Fills idx[] and returns the count. */
static int targeted(const job *j, bool for_att, int *idx)
{
    regex_t inc, exc;
    bool has_inc = j->include_regex && j->include_regex[0], has_exc = j->exclude_regex && j->exclude_regex[0];
    if (has_inc && regcomp(&inc, j->include_regex, REG_EXTENDED | REG_NOSUB) != 0)
        fatal("invalid kernel_include_regex '%s'", j->include_regex);
    if (has_exc && regcomp(&exc, j->exclude_regex, REG_EXTENDED | REG_NOSUB) != 0)
        fatal("invalid kernel_exclude_regex '%s'", j->exclude_regex);
    range_set rs = {.n = 0};
    bool has_range = j->range && j->range[0];
    if (has_range)
        parse_range(j->range, &rs);
    int n = 0;
    for (int i = 0; i < g_nd; i++) {
        char name[600];
        formatted_name(&g_k[g_d[i].k], j->truncate, name, sizeof name);
        if (has_inc && regexec(&inc, name, 0, NULL, 0) != 0)
            continue;
        if (has_exc && regexec(&exc, name, 0, NULL, 0) == 0)
            continue;
        if (has_range ? !in_range(&rs, g_d[i].iteration) : (for_att && g_d[i].iteration != 1))
            continue;
        idx[n++] = i;
    }
    if (has_inc)
        regfree(&inc);
    if (has_exc)
        regfree(&exc);
    return n;
}

/* ---------- output helpers ---------- */

static char *host(void)
{
    static char h[256];
    if (!h[0] && gethostname(h, sizeof h - 1) != 0)
        strcpy(h, "localhost");
    return h;
}

/* <dir>/<file>_<suffix>, creating parents; placeholders %hostname% and %pid% expanded. */
static char *out_path(const char *dir, const char *file, const char *suffix)
{
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_adds(&s, dir);
    fp_sb_addc(&s, '/');
    for (const char *p = file; *p;) {
        if (!strncmp(p, "%hostname%", 10)) {
            fp_sb_adds(&s, host());
            p += 10;
        } else if (!strncmp(p, "%pid%", 5)) {
            fp_sb_addf(&s, "%d", fake_pid());
            p += 5;
        } else {
            fp_sb_addc(&s, *p++);
        }
    }
    fp_sb_addf(&s, "_%s", suffix);
    char *path = fp_sb_detach(&s);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    fp_err err = {0};
    fp_mkdir_p(path, &err);
    *slash = '/';
    return path;
}

static void log_opened(const char *path)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    fprintf(stderr, "E%04d%02d%02d %02d:%02d:%02d.000000 %d output_stream.cpp:111] Opened result file: %s\n",
            tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid(),
            path);
}

static FILE *open_out(const char *dir, const char *file, const char *suffix)
{
    char *p = out_path(dir, file, suffix);
    FILE *f = fopen(p, "w");
    if (!f)
        fatal("cannot open %s: %s", p, strerror(errno));
    log_opened(p);
    free(p);
    return f;
}

/* VGPR_Count as the SDK reports it: gfx950 with SDK < 1.3.0 halves the unified
 * allocation and reports accum 0 (rocprof-formats.md §3.5). */
static void reg_counts(const kernel *k, int *archv, int *accv)
{
    /* mode undercount: a release that reports SDK 1.3.0 without the fix (ROCm 7.2.4) */
    bool undercount = !strcmp(arch(), "gfx950") &&
                      (version_num(env_or("FAKE_ROCPROF_VERSION", "1.1.0")) < 10300 || mode_has("undercount"));
    if (undercount) {
        *archv = k->vgpr / 2;
        *accv = 0;
    } else {
        *archv = k->vgpr - k->accum;
        *accv = k->accum;
    }
}

/* FAKE_ROCPROF_GPUS (physical GPUs, default 1) x FAKE_ROCPROF_PARTITION
 * (spx|dpx|qpx|cpx, gfx942: 1, 2, 4, 8 agents per GPU, each with 304/n CUs and
 * 8/n XCDs) GPU agents after the 2 CPUs. agent_info lists every one of them
 * whatever HIP_VISIBLE_DEVICES says (it is enumerated through HSA); with either
 * variable set the dispatches run on agent HIP_VISIBLE_DEVICES (its first
 * entry), i.e. "Agent <2 + that>", not necessarily the first GPU row. */
/* The partition mode (agents per GPU) of GPU g: FAKE_ROCPROF_PARTITION is one
 * mode for every GPU or a comma list, one per GPU (the last repeats): amd-smi
 * sets the compute partition per device, so "spx,cpx" is a node whose GPU 0 is
 * one 304-CU agent and GPU 1 eight 38-CU agents. */
static int partitions_of(int g)
{
    static const struct {
        const char *name;
        int n;
    } modes[] = {{"spx", 1}, {"dpx", 2}, {"qpx", 4}, {"cpx", 8}};
    const char *p = getenv("FAKE_ROCPROF_PARTITION");
    for (int i = 0; p && i < g && strchr(p, ','); i++)
        p = strchr(p, ',') + 1;
    size_t len = p ? strcspn(p, ",") : 0;
    for (size_t i = 0; p && i < sizeof modes / sizeof modes[0]; i++)
        if (len == strlen(modes[i].name) && !strncmp(p, modes[i].name, len))
            return modes[i].n;
    return 1;
}

static int gpus(void) { return atoi(env_or("FAKE_ROCPROF_GPUS", "1")); }

static int gpu_agents(void)
{
    int n = 0;
    for (int g = 0; g < gpus(); g++)
        n += partitions_of(g);
    return n;
}

/* The partition count of the GPU that GPU agent a (0-based, after the CPUs) belongs to. */
static int agent_parts(int a)
{
    for (int g = 0, first = 0; g < gpus(); first += partitions_of(g), g++)
        if (a < first + partitions_of(g))
            return partitions_of(g);
    return 1;
}

/* The node the process's dispatches run on. FAKE_ROCPROF_MODE=rank-per-gpu: a
 * launcher that gives each of its FAKE_ROCPROF_PROCS processes its own device
 * (rank k on the k-th agent after the visible one), so several agents show up. */
static int traced_node(void)
{
    int rank = mode_has("rank-per-gpu") ? g_proc : 0;
    if (!getenv("FAKE_ROCPROF_GPUS") && !getenv("FAKE_ROCPROF_PARTITION"))
        return 2 + rank;
    int t = atoi(env_or("HIP_VISIBLE_DEVICES", "0"));
    t = t >= 0 && t < gpu_agents() ? t : 0;
    return 2 + (t + rank) % gpu_agents();
}

/* FAKE_ROCPROF_APP_AGENTS=N: one process spreads its dispatches over N agents
 * (the traced one and the next N-1; a multi-GPU application), dispatch i on
 * agent (i-1) % N: kernel trace and counter rows name several agents. */
static int dispatch_node(const dispatch *d)
{
    int n = atoi(env_or("FAKE_ROCPROF_APP_AGENTS", "1"));
    int ga = getenv("FAKE_ROCPROF_GPUS") || getenv("FAKE_ROCPROF_PARTITION") ? gpu_agents() : 1;
    if (n <= 1)
        return traced_node();
    return 2 + (traced_node() - 2 + (d->id - 1) % n) % (ga > n ? ga : n);
}

/* The CU and XCD counts of the agent on node `node` (as agent_info lists them). */
static void agent_cus_xcds(int node, int *cus, int *xcds)
{
    bool g942 = !strcmp(arch(), "gfx942");
    int parts = g942 && (getenv("FAKE_ROCPROF_GPUS") || getenv("FAKE_ROCPROF_PARTITION")) ? agent_parts(node - 2) : 1;
    *cus = (g942 ? 304 : 256) / parts;
    *xcds = 8 / parts;
}

static const char *KT_HEADER =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
    "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

static void write_kernel_trace(const char *dir, const char *file)
{
    FILE *f = open_out(dir, file, "kernel_trace.csv");
    fputs(KT_HEADER, f);
    for (int i = 0; i < g_nd; i++) {
        const dispatch *d = &g_d[i];
        const kernel *k = &g_k[d->k];
        int av, cv;
        reg_counts(k, &av, &cv);
        fprintf(f, "\"KERNEL_DISPATCH\",\"Agent %d\",1,0,%d,%d,%d,\"%s\",%d,%lld,%lld,%d,0,%d,%d,%d,256,1,1,%d,1,1\n",
                dispatch_node(d), fake_pid(), d->id, k->id, k->name, d->id, d->start, d->end, 16384, av, cv, 48,
                256 * 1024);
    }
    fclose(f);
}

static const char *AGENT_HEADER =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\",\"Cpu_Core_Id_Base\","
    "\"Simd_Id_Base\",\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\",\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\","
    "\"Num_Xcc\",\"Cu_Count\",\"Array_Count\",\"Num_Shader_Banks\",\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\","
    "\"Simd_Per_Cu\",\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\",\"Vendor_Id\",\"Device_Id\",\"Location_Id\","
    "\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\",\"Num_Sdma_Queues_Per_Engine\","
    "\"Num_Cp_Queues\",\"Max_Engine_Clk_Ccompute\",\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\",\"Fw_Version\","
    "\"Capability\",\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\",\"Workgroup_Max_Size\",\"Grid_Max_Size\","
    "\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\",\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\","
    "\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\",\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n";

static void write_agent_info(const char *dir, const char *file)
{
    FILE *f = open_out(dir, file, "agent_info.csv");
    fputs(AGENT_HEADER, f);
    for (int n = 0; n < 2; n++)
        fprintf(f,
                "%d,%d,\"CPU\",96,0,%d,0,0,0,0,0,0,0,96,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3700,0,0,0,0,0,0,0,0,0,0,"
                "0,0,0,0,0,0,0,0,\"AMD EPYC 9575F 64-Core Processor\",\"CPU\",\"AMD EPYC 9575F 64-Core Processor\","
                "\"\"\n",
                n, n, n * 96);
    for (int g = 0; !strcmp(arch(), "gfx942") && g < gpu_agents(); g++) {
        int parts = agent_parts(g);
        /* MI300X: 304 CUs, 8 XCDs, 64 KiB LDS, 2100 MHz (rocprof-formats.md §7.1); a partition has 1/n of them */
        fprintf(f, "%d,%d,\"GPU\",0,%d,0,2147487744,8,64,0,64,64,%d,%d,%d,32,1,10,4,32,90402,4098,29857,29952,0,"
                   "%d,2,14,8,24,2100,2100,12,30,2755109504,10,32,141,1024,4294967295,0,8861873366774386336,12605,"
                   "1024,1024,1024,2147483647,65535,65535,\"gfx942\",\"AMD\",\"AMD Instinct MI300X\",\"ip "
                   "discovery\"\n",
                2 + g, 2 + g, 1216 / parts, 8 / parts, 304 / parts, 32 / parts, 128 + g);
    }
    if (!strcmp(arch(), "gfx942"))
        ;
    else
        /* the real MI350X row of rocprof-formats.md §3.4 */
        fputs("2,2,\"GPU\",0,1024,0,2147487744,8,160,0,64,64,8,256,32,32,1,9,4,32,90500,4098,30112,29952,0,128,2,"
              "14,8,24,3300,2200,12,30,2755109504,8,32,141,1024,4294967295,0,8861873366774386336,12605,1024,"
              "1024,1024,2147483647,65535,65535,\"gfx950\",\"AMD\",\"AMD Instinct MI350X\",\"ip discovery\"\n",
              f);
    fclose(f);
}

static void fmt_float(FILE *f, double v)
{
    if (v >= 1.0 || v <= -1.0)
        fprintf(f, "%.6f", v);
    else
        fprintf(f, "%.8e", v);
}

static void write_stats(const char *dir, const char *file)
{
    FILE *f = open_out(dir, file, "kernel_stats.csv");
    fputs("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n", f);
    long long total_all = 0;
    for (int i = 0; i < g_nd; i++)
        total_all += g_d[i].end - g_d[i].start;
    int order[MAX_KERNELS];
    long long tot[MAX_KERNELS] = {0}, mn[MAX_KERNELS], mx[MAX_KERNELS] = {0};
    double sq[MAX_KERNELS] = {0};
    for (int k = 0; k < g_nk; k++)
        order[k] = k, mn[k] = INT64_MAX;
    for (int i = 0; i < g_nd; i++) {
        long long dur = g_d[i].end - g_d[i].start;
        int k = g_d[i].k;
        tot[k] += dur;
        sq[k] += (double)dur * (double)dur;
        if (dur < mn[k])
            mn[k] = dur;
        if (dur > mx[k])
            mx[k] = dur;
    }
    /* sorted by total duration, descending (stable insertion sort) */
    for (int a = 1; a < g_nk; a++)
        for (int b = a; b > 0 && tot[order[b]] > tot[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int oi = 0; oi < g_nk; oi++) {
        int k = order[oi];
        if (!g_k[k].calls)
            continue;
        double avg = (double)tot[k] / g_k[k].calls;
        double var = sq[k] / g_k[k].calls - avg * avg;
        fprintf(f, "\"%s\",%d,%lld,", g_k[k].name, g_k[k].calls, tot[k]);
        fmt_float(f, avg);
        fprintf(f, ",%.2f,%lld,%lld,", total_all ? 100.0 * (double)tot[k] / (double)total_all : 0.0, mn[k], mx[k]);
        fmt_float(f, var > 0 ? __builtin_sqrt(var) : 0.0);
        fputc('\n', f);
    }
    fclose(f);
    f = open_out(dir, file, "domain_stats.csv");
    fputs("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n", f);
    if (g_nd) {
        fprintf(f, "\"KERNEL_DISPATCH\",%d,%lld,", g_nd, total_all);
        fmt_float(f, (double)total_all / g_nd);
        fprintf(f, ",100.00,0,0,0.00000000e+00\n");
    }
    fclose(f);
}

/* The rocpd value of the job's counter `name` (its 2 instances 1000*(c+1) + 0 and + 1 summed),
 * -1 when the job does not collect it. */
static double rocpd_sum(const job *j, const char *name)
{
    for (int c = 0; c < j->pmc.n; c++)
        if (!strcmp(j->pmc.v[c], name))
            return 2000.0 * (c + 1) + 1;
    return -1;
}

/* The job's c-th counter when it is MfmaUtil / VALUBusy / LdsBankConflict: counter_defs.yaml's
 * gfx942/gfx950 expression over the same pass's rocpd values of its bases, the dispatch's
 * agent's CUs and XCDs (reduce(GRBM_GUI_ACTIVE, max) = the sum / XCDs). */
static bool rocpd_derived(const job *j, int c, const dispatch *d, double *v)
{
    const char *n = j->pmc.v[c];
    int cus, xcds;
    agent_cus_xcds(dispatch_node(d), &cus, &xcds);
    double gui = rocpd_sum(j, "GRBM_GUI_ACTIVE") / xcds;
    if (!strcmp(n, "MfmaUtil"))
        *v = 100.0 * rocpd_sum(j, "SQ_VALU_MFMA_BUSY_CYCLES") / (gui * cus * 4);
    else if (!strcmp(n, "VALUBusy"))
        *v = 100.0 * rocpd_sum(j, "SQ_ACTIVE_INST_VALU") / cus / gui;
    else if (!strcmp(n, "LdsBankConflict")) {
        double cf = rocpd_sum(j, "SQ_LDS_BANK_CONFLICT"), a = rocpd_sum(j, "SQ_LDS_IDX_ACTIVE");
        *v = a > cf ? cf / (a - cf) : 0.0;
    } else
        return false;
    if (*v < 0)
        *v = 0; /* a base the job lacks: the SDK would refuse the request; keep the row valid */
    return true;
}

/* rocpd results.db (§4): per-run suffixed tables plus un-suffixed views. */
static void write_rocpd(const char *dir, const char *file, const job *j, const int *pmc_idx, int npmc)
{
    char *path = out_path(dir, file, "results.db");
    unlink(path);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        fatal("cannot create %s", path);
    log_opened(path);
    const char *sfx = "_8f2d1c3a_0b4e_4c51_9a7e_2d6f10c3b5a1";
    const char *guid = "8f2d1c3a-0b4e-4c51-9a7e-2d6f10c3b5a1";
    static const char *const tables[][2] = {
        {"rocpd_metadata", "id INTEGER PRIMARY KEY, tag TEXT, value TEXT"},
        {"rocpd_string", "id INTEGER PRIMARY KEY, guid TEXT, string TEXT"},
        {"rocpd_info_agent",
         "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, type TEXT, absolute_index INTEGER, "
         "logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, model_name TEXT, vendor_name TEXT, "
         "product_name TEXT, user_name TEXT, extdata JSONB"},
        {"rocpd_info_code_object",
         "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, agent_id INTEGER, uri TEXT, load_base "
         "BIGINT, load_size BIGINT, load_delta BIGINT, storage_type TEXT, extdata JSONB"},
        {"rocpd_info_kernel_symbol",
         "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, code_object_id INTEGER, kernel_name TEXT, "
         "display_name TEXT, kernel_object INTEGER, kernarg_segment_size INTEGER, kernarg_segment_alignment "
         "INTEGER, group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER, arch_vgpr_count "
         "INTEGER, accum_vgpr_count INTEGER, extdata JSONB"},
        {"rocpd_event",
         "id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER, stack_id INTEGER, parent_stack_id INTEGER, "
         "correlation_id INTEGER, call_stack JSONB, line_info JSONB, extdata JSONB"},
        {"rocpd_kernel_dispatch",
         "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER, agent_id INTEGER, kernel_id "
         "INTEGER, dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, start BIGINT, \"end\" BIGINT, "
         "private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y "
         "INTEGER, workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, "
         "region_name_id INTEGER, event_id INTEGER, extdata JSONB"},
        {"rocpd_info_pmc",
         "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, agent_id INTEGER, target_arch TEXT, "
         "event_code INTEGER, instance_id INTEGER, name TEXT, symbol TEXT, description TEXT, long_description "
         "TEXT, component TEXT, units TEXT, value_type TEXT, block TEXT, expression TEXT, is_constant INTEGER, "
         "is_derived INTEGER, extdata JSONB"},
        {"rocpd_pmc_event", "id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER, pmc_id INTEGER, value REAL, "
                            "extdata JSONB"},
    };
    fp_sb sql;
    fp_sb_init(&sql);
    fp_sb_adds(&sql, "BEGIN;");
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        fp_sb_addf(&sql, "CREATE TABLE %s%s (%s); CREATE VIEW %s AS SELECT * FROM %s%s;", tables[t][0], sfx,
                   tables[t][1], tables[t][0], tables[t][0], sfx);
    fp_sb_addf(&sql,
               "INSERT INTO rocpd_metadata%s(tag,value) VALUES('schema_version','%s'),('uuid','%s'),('guid','%s');",
               /* FAKE_ROCPROF_ROCPD_SCHEMA: e.g. 4.1.0, the rocm-systems tree's newer schema */
               sfx, env_or("FAKE_ROCPROF_ROCPD_SCHEMA", "3"), sfx + 1, guid);
    fp_sb_addf(&sql, "INSERT INTO rocpd_string%s VALUES(1,'%s','KERNEL_DISPATCH');", sfx, guid);
    bool g942 = !strcmp(arch(), "gfx942");
    fp_sb_addf(&sql, "INSERT INTO rocpd_info_agent%s VALUES(0,'%s',1,%d,'CPU',0,0,0,0,'CPU','','CPU','AMD EPYC','',"
                     "'{}');",
               sfx, guid, (int)getpid());
    /* every GPU agent, as agent_info.csv lists them (id = node id; a partition has 1/n of the CUs and XCDs) */
    int nga = g942 && (getenv("FAKE_ROCPROF_GPUS") || getenv("FAKE_ROCPROF_PARTITION")) ? gpu_agents() : 1;
    for (int a = 0; a < nga; a++) {
        int parts = g942 ? agent_parts(a) : 1;
        fp_sb_addf(&sql,
                   "INSERT INTO rocpd_info_agent%s VALUES(%d,'%s',1,%d,'GPU',%d,%d,%d,0,'%s','ip discovery','AMD','%s',"
                   "'','{\"cu_count\":%d,\"simd_per_cu\":4,\"max_waves_per_simd\":8,\"lds_size_in_kb\":%d,"
                   "\"wave_front_size\":64,\"num_xcc\":%d,\"max_engine_clk_fcompute\":%d,\"gfx_target_version\":%d}');",
                   sfx, 2 + a, guid, (int)getpid(), 2 + a, 2 + a, a, arch(),
                   g942 ? "AMD Instinct MI300X" : "AMD Instinct MI350X", (g942 ? 304 : 256) / parts, g942 ? 64 : 160,
                   8 / parts, g942 ? 2100 : 2200, g942 ? 90402 : 90500);
    }
    fp_sb_addf(&sql, "INSERT INTO rocpd_info_code_object%s VALUES(1,'%s',1,%d,2,'memory://%d#offset=0',"
                     "0,65536,0,'MEMORY','{}');",
               sfx, guid, (int)getpid(), (int)getpid());
    for (int k = 0; k < g_nk; k++) {
        int av, cv;
        reg_counts(&g_k[k], &av, &cv);
        char *nm = sqlite3_mprintf("%q", g_k[k].name);
        fp_sb_addf(&sql,
                   "INSERT INTO rocpd_info_kernel_symbol%s VALUES(%d,'%s',1,%d,1,'%s.kd','%s',0,64,8,16384,0,48,"
                   "%d,%d,'{}');",
                   sfx, g_k[k].id, guid, (int)getpid(), nm, nm, av, cv);
        sqlite3_free(nm);
    }
    for (int i = 0; i < g_nd; i++) {
        const dispatch *d = &g_d[i];
        fp_sb_addf(&sql, "INSERT INTO rocpd_event%s VALUES(%d,'%s',1,0,0,%d,'{}','{}','{}');", sfx, d->id, guid,
                   d->id);
        fp_sb_addf(&sql,
                   "INSERT INTO rocpd_kernel_dispatch%s VALUES(%d,'%s',1,%d,%d,%d,%d,%d,1,0,%lld,%lld,0,16384,256,1,"
                   "1,262144,1,1,NULL,%d,'{}');",
                   sfx, d->id, guid, fake_pid(), fake_pid(), dispatch_node(d), g_k[d->k].id, d->id, d->start, d->end, d->id);
    }
    if (j && j->has_pmc) {
        int ev = 1;
        for (int c = 0; c < j->pmc.n; c++)
            fp_sb_addf(&sql,
                       "INSERT INTO rocpd_info_pmc%s VALUES(%d,'%s',1,%d,2,'GPU',0,0,'%s','%s','','','rocm','',"
                       "'ABS','SQ','',0,0,'{}');",
                       sfx, c + 1, guid, (int)getpid(), j->pmc.v[c], j->pmc.v[c]);
        for (int t = 0; t < npmc; t++)
            for (int c = 0; c < j->pmc.n; c++) {
                double dv;
                if (rocpd_derived(j, c, &g_d[pmc_idx[t]], &dv)) { /* one value: the SDK reduced it */
                    fp_sb_addf(&sql, "INSERT INTO rocpd_pmc_event%s VALUES(%d,'%s',%d,%d,%.6f,'{}');", sfx, ev++,
                               guid, g_d[pmc_idx[t]].id, c + 1, dv);
                    continue;
                }
                /* two dimension instances per counter: readers must SUM (§4.2) */
                for (int inst = 0; inst < 2; inst++)
                    fp_sb_addf(&sql, "INSERT INTO rocpd_pmc_event%s VALUES(%d,'%s',%d,%d,%.1f,'{}');", sfx, ev++,
                               guid, g_d[pmc_idx[t]].id, c + 1, 1000.0 * (c + 1) + inst);
            }
    }
    fp_sb_adds(&sql, "COMMIT;");
    char *msg = NULL;
    if (sqlite3_exec(db, sql.buf, NULL, NULL, &msg) != SQLITE_OK)
        fatal("sqlite: %s", msg ? msg : "?");
    sqlite3_close(db);
    fp_sb_free(&sql);
    free(path);
}

/* ---------- PMC ---------- */

/* A counter value: FAKE_ROCPROF_COUNTER_VALUES="NAME=V,..." else a fixed,
 * plausible default derived from the name. */
static double counter_value(const char *name, const dispatch *d)
{
    const char *spec = getenv("FAKE_ROCPROF_COUNTER_VALUES");
    size_t n = strlen(name);
    for (const char *p = spec; p && *p;) {
        if (!strncmp(p, name, n) && p[n] == '=')
            return atof(p + n + 1);
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    if (!strcmp(name, "GRBM_GUI_ACTIVE"))
        return (double)(d->end - d->start) * 2.2 * 8; /* 2.2 GHz, summed over 8 XCDs */
    if (!strcmp(name, "SQ_WAVES"))
        return 16384.0;
    if (!strcmp(name, "MeanOccupancyPerCU"))
        return 14.5; /* waves per CU, the SDK's derived counter (of 32 possible) */
    /* the other SDK-derived counters: counter_defs.yaml's gfx942/gfx950 expressions over this
     * dispatch's raw values, with the agent's own CU_NUM and reduce(GRBM_GUI_ACTIVE, max) =
     * the XCD sum / XCDs (every XCD equally busy) */
    bool mfma = !strcmp(name, "MfmaUtil"), valu = !strcmp(name, "VALUBusy");
    if (mfma || valu) {
        int cus, xcds;
        agent_cus_xcds(dispatch_node(d), &cus, &xcds);
        double gui_max = counter_value("GRBM_GUI_ACTIVE", d) / xcds;
        return mfma ? 100.0 * counter_value("SQ_VALU_MFMA_BUSY_CYCLES", d) / (gui_max * cus * 4)
                    : 100.0 * counter_value("SQ_ACTIVE_INST_VALU", d) / cus / gui_max;
    }
    if (!strcmp(name, "LdsBankConflict")) {
        double c = counter_value("SQ_LDS_BANK_CONFLICT", d), a = counter_value("SQ_LDS_IDX_ACTIVE", d);
        return a > c ? c / (a - c) : 0.0; /* conflict cycles never exceed active ones on hardware */
    }
    unsigned h = 2166136261u;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    /* each further process of a multi-process workload counts a little differently (its own
     * share of the work), so a test can tell whose rows were kept */
    return (double)(h % 1000000u) + 1.0 + 7.0 * g_proc;
}

static bool counter_dropped(const char *name)
{
    const char *drop = getenv("FAKE_ROCPROF_DROP_COUNTERS");
    size_t n = strlen(name);
    for (const char *p = drop; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == drop || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

static void write_counters(const char *dir, const char *file, const job *j, const int *idx, int n)
{
    FILE *f = open_out(dir, file, "counter_collection.csv");
    fputs("\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\","
          "\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
          "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\","
          "\"End_Timestamp\"\n",
          f);
    for (int t = 0; t < n; t++) {
        const dispatch *d = &g_d[idx[t]];
        const kernel *k = &g_k[d->k];
        int av, cv;
        reg_counts(k, &av, &cv);
        for (int c = 0; c < j->pmc.n; c++) {
            if (counter_dropped(j->pmc.v[c]))
                continue; /* silently, like counters that do not exist on the agent */
            fprintf(f, "%d,%d,\"Agent %d\",1,%d,%d,262144,%d,\"%s\",256,16384,0,%d,%d,48,\"%s\",", d->id, d->id, dispatch_node(d),
                    fake_pid(), fake_pid(), k->id, k->name, av, cv, j->pmc.v[c]);
            fmt_float(f, counter_value(j->pmc.v[c], d));
            fprintf(f, ",%lld,%lld\n", d->start, d->end);
        }
    }
    fclose(f);
}

/* ---------- ATT ---------- */

static bool write_text(const char *path, const char *text)
{
    fp_err err = {0};
    return fp_write_atomic(path, text, strlen(text), &err) == 0;
}

/* Instructions of the synthetic kernel: asm, source line, category (§5.8). */
static const struct {
    const char *isa;
    int line, cat, dur, stall;
} SYN_CODE[] = {
    {"s_load_dwordx4 s[4:7], s[0:1], 0x0", 12, 1, 8, 0},
    {"s_waitcnt lgkmcnt(0)", 12, 9, 120, 116},
    {"buffer_load_dwordx4 v[0:3], v4, s[4:7], 0 offen", 14, 3, 16, 4},
    {"s_waitcnt vmcnt(0)", 15, 9, 900, 896},
    {"v_mfma_f32_32x32x16_bf16 v[8:23], v[0:3], v[0:3], v[8:23]", 16, 6, 32, 8},
    {"ds_write_b128 v5, v[8:11]", 17, 5, 16, 4},
    {"s_barrier", 18, 9, 200, 196},
    {"s_endpgm", 20, 11, 4, 0},
};
#define SYN_N (sizeof SYN_CODE / sizeof SYN_CODE[0])
#define SYN_WAVES 4

/* A decoded dispatch dir written directly (used when the project's generator
 * fp_gen_att is not next to this binary). `lost` = trace truncated: the waves
 * stop half-way. `mapped` = the code object had line info. */
static void write_att_dir_native(const char *d, const char *kname, bool shell, bool lost, bool mapped)
{
    fp_err err = {0};
    fp_mkdir_p(d, &err);
    char *p;
    int nins = lost ? (int)SYN_N / 2 : (int)SYN_N;
    const char *src = env_or("FAKE_ROCPROF_SOURCE", "/work/FlyDSL/kernels/fake_kernel.py");
    /* code.json */
    fp_sb s;
    fp_sb_init(&s);
    if (shell) {
        fp_sb_adds(&s, "{\"code\": null, \"header\": \"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, "
                       "Stall, Idle\", \"version\": \"3.0.0\"}");
    } else {
        fp_sb_addf(&s, "{\"code\": [[\"; %s\", 0, 0, \"\", 1, 5888, 0, 0, 0, 0]", kname);
        for (size_t i = 0; i < SYN_N; i++) {
            int hit = (int)i < nins ? SYN_WAVES : 0;
            fp_sb_addf(&s, ", [\"%s\", 0, %zu, \"", SYN_CODE[i].isa, i + 1);
            if (mapped)
                fp_sb_addf(&s, "%s:%d", src, SYN_CODE[i].line);
            fp_sb_addf(&s, "\", 1, %zu, %d, %d, %d, %d]", 5888 + 8 * (i + 1), hit, hit * SYN_CODE[i].dur,
                       hit * SYN_CODE[i].stall, hit ? 4 : 0);
        }
        fp_sb_adds(&s, "], \"header\": \"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\", "
                       "\"version\": \"3.0.0\"}");
    }
    p = fp_path_join(d, "code.json");
    write_text(p, s.buf);
    free(p);
    /* wave files and filenames.json */
    fp_sb_reset(&s);
    fp_sb_adds(&s, "{\"counter_names\": [], \"gfxip\": 9, \"gfxv\": \"vega\", \"global_begin_time\": 0, "
                   "\"version\": \"3.0.0\", \"wave_filenames\": ");
    if (shell) {
        fp_sb_adds(&s, "null}");
    } else {
        fp_sb_adds(&s, "{\"0\": {");
        for (int w = 0; w < SYN_WAVES; w++) {
            int begin = 1000 + 40 * w, t = begin + 28;
            fp_sb wv;
            fp_sb_init(&wv);
            fp_sb_adds(&wv, "{\"instructions\": [");
            for (int i = 0; i < nins; i++) {
                fp_sb_addf(&wv, "%s[%d, %d, %d, %d, %d]", i ? ", " : "", t, SYN_CODE[i].cat, SYN_CODE[i].stall,
                           SYN_CODE[i].dur, i + 1);
                t += SYN_CODE[i].dur;
            }
            fp_sb_addf(&wv, "], \"timeline\": [[1, 28], [2, %d]], \"waitcnt\": [[4, [[3, 0]]]], \"begin\": %d, "
                            "\"end\": %d, \"cu\": 1, \"id\": 0, \"simd\": %d, \"slot\": 0}",
                       t - begin - 28, begin, t, w);
            fp_sb doc;
            fp_sb_init(&doc);
            fp_sb_addf(&doc, "{\"duration\": %d, \"name\": \"SE0\", \"num_insts\": %d, \"num_stitched\": %d, "
                             "\"wave\": %s}",
                       t - begin, nins, nins, wv.buf);
            char fname[64];
            snprintf(fname, sizeof fname, "se0_sm%d_sl0_wv0.json", w);
            p = fp_path_join(d, fname);
            write_text(p, doc.buf);
            free(p);
            fp_sb_addf(&s, "%s\"%d\": {\"0\": {\"0\": [\"%s\", %d, %d]}}", w ? ", " : "", w, fname, begin, t);
            fp_sb_free(&doc);
            fp_sb_free(&wv);
        }
        fp_sb_adds(&s, "}}}");
    }
    p = fp_path_join(d, "filenames.json");
    write_text(p, s.buf);
    free(p);
    fp_sb_reset(&s);
    fp_sb_addf(&s, "{\"0\": [], \"dispatches\": {\"0\": \"0 / 0x0\", \"1\": \"%s\"}, \"version\": \"3.0.0\"}", kname);
    p = fp_path_join(d, "occupancy.json");
    write_text(p, s.buf);
    free(p);
    p = fp_path_join(d, "realtime.json");
    write_text(p, "{\"SE0\": [[6464, 201717741804014], [314340, 201717741818846]], \"metadata\": "
                  "{\"descriptor\": \"[gfx_clock, realtime_clock]\", \"frequency\": 100000000}}");
    free(p);
    fp_sb_free(&s);
}

/* Generator path: $FAKE_ROCPROF_GEN, else fp_gen_att next to this binary. */
static char *find_generator(const char *argv0)
{
    const char *g = getenv("FAKE_ROCPROF_GEN");
    if (g)
        return g[0] ? fp_proc_which(g, NULL) : NULL;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return NULL;
    strcpy(slash + 1, "fp_gen_att");
    (void)argv0;
    return fp_proc_which(self, NULL);
}

/* Through the project's generator: the spec of FAKE_ROCPROF_GEN_SPEC with
 * pid/dispatch set to this dispatch, flat layout, no CSVs; a shell becomes
 * "empty_shell", a lost trace drops every wave's s_endpgm, no line info
 * blanks every source. */
static void write_att_dir(const char *argv0, const char *outdir, int handle, int dispatch_id, const char *kname,
                          bool shell, bool lost, bool mapped)
{
    const char *spec = getenv("FAKE_ROCPROF_GEN_SPEC");
    char *gen = spec ? find_generator(argv0) : NULL;
    if (!gen) {
        char name[128];
        snprintf(name, sizeof name, "ui_output_agent_%d_dispatch_%d", handle, dispatch_id);
        char *ud = fp_path_join(outdir, name);
        write_att_dir_native(ud, kname, shell, lost, mapped);
        free(ud);
        return;
    }
    cJSON *j = NULL;
    fp_err err = {0};
    if (fp_json_parse_file(spec, &j, &err) != 0)
        fatal("FAKE_ROCPROF_GEN_SPEC %s: %s", spec, err.message);
    cJSON_DeleteItemFromObject(j, "pid");
    cJSON_DeleteItemFromObject(j, "dispatch");
    cJSON_DeleteItemFromObject(j, "layout");
    cJSON_DeleteItemFromObject(j, "rocprof");
    cJSON_DeleteItemFromObject(j, "arch");
    fp_json_add_int(j, "pid", handle);
    fp_json_add_int(j, "dispatch", dispatch_id);
    fp_json_add_str(j, "arch", arch());
    if (shell) {
        cJSON_DeleteItemFromObject(j, "empty_shell");
        fp_json_add_bool(j, "empty_shell", 1);
    }
    cJSON *w;
    if (lost)
        cJSON_ArrayForEach(w, cJSON_GetObjectItem(j, "waves"))
        {
            cJSON_DeleteItemFromObject(w, "drop_endpgm");
            fp_json_add_bool(w, "drop_endpgm", 1);
        }
    if (!mapped) {
        cJSON_DeleteItemFromObject(j, "sources");
        cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(j, "program"))
        {
            if (cJSON_IsObject(p)) {
                cJSON_DeleteItemFromObject(p, "source");
                fp_json_add_str(p, "source", "");
            } else if (cJSON_IsArray(p) && cJSON_GetArraySize(p) >= 2) {
                cJSON_ReplaceItemInArray(p, 1, cJSON_CreateString(""));
            }
        }
    }
    fp_sb sp;
    fp_sb_init(&sp);
    fp_sb_addf(&sp, "%s/.fake_gen_spec_%d.json", outdir, dispatch_id);
    if (fp_json_write_file(sp.buf, j, &err) != 0)
        fatal("cannot write %s", sp.buf);
    cJSON_Delete(j);
    const char *gargv[] = {gen, sp.buf, outdir, NULL};
    fp_proc_opts o = {.argv = gargv, .timeout_s = 120, .inherit_stdio = true};
    fp_proc_result r;
    if (fp_proc_run(&o, &r, &err) != 0 || r.exit_code != 0)
        fatal("ATT generator %s failed on %s", gen, sp.buf);
    unlink(sp.buf);
    fp_sb_free(&sp);
    free(gen);
}

/* Decoder search of rocprof-formats.md §8.3; returns true when found. Fills
 * `searched` with the Python list repr of the directories tried. */
static bool find_decoder(const job *j, fp_sb *searched)
{
    fp_sb_adds(searched, "[");
    int n = 0;
    const char *found_env = getenv("FAKE_ROCPROF_DECODER");
    bool present = !mode_has("decoder-missing");
    (void)found_env;
#define ADD_DIR(dir)                                                                                              \
    do {                                                                                                          \
        fp_sb_addf(searched, "%s'%s'", n++ ? ", " : "", (dir));                                                   \
    } while (0)
    for (int i = 0; i < j->att_lib.n; i++)
        ADD_DIR(j->att_lib.v[i]);
    if (!j->att_lib.n) {
        const char *e = getenv("ROCPROF_ATT_LIBRARY_PATH");
        if (e && e[0] && version_num(env_or("FAKE_ROCPROF_VERSION", "1.1.0")) < 10300) {
            /* ROCm 7.0-7.2: the env string is iterated character by character, so
             * its first entry is "/" and os.walk goes through the whole
             * filesystem: in practice the run never gets to the application */
            fprintf(stderr, "[fake rocprofv3] walking '/' for %s (ROCPROF_ATT_LIBRARY_PATH=%s, 7.0 bug)\n",
                    "librocprof-trace-decoder.so", e);
            for (;;)
                pause();
        }
        if (e && e[0])
            ADD_DIR(e);
        const char *ld = getenv("LD_LIBRARY_PATH");
        if (ld && ld[0]) {
            char *copy = strdup(ld);
            for (char *tok = strtok(copy, ":"); tok; tok = strtok(NULL, ":"))
                ADD_DIR(tok);
            free(copy);
        }
        ADD_DIR("/opt/rocm/lib");
    }
#undef ADD_DIR
    fp_sb_adds(searched, "]");
    return present;
}

/* The decoder's info strings (rocprof-trace-decoder, issue 18): "Wave incomplete"
 * is the cut-off symptom of a full buffer (truncated / FAKE_ROCPROF_ATT_NEED_BUFFER:
 * waves lose their ends); "Data Lost" is packets dropped for bandwidth (mode
 * data-lost: the waves decode, with gaps); "Stitch Incomplete" means the trace
 * does not match the code object's disassembly (mode stitch-incomplete). */
static bool wave_incomplete(const job *j)
{
    const char *need = getenv("FAKE_ROCPROF_ATT_NEED_BUFFER");
    if (mode_has("truncated"))
        return true;
    if (!need)
        return false;
    long long dflt = version_num(env_or("FAKE_ROCPROF_VERSION", "1.1.0")) >= 10300 ? DEFAULT_ATT_BUFFER_NEW
                                                                                 : DEFAULT_ATT_BUFFER;
    long long buf = j->att_buffer ? j->att_buffer : dflt;
    return buf < int_auto("FAKE_ROCPROF_ATT_NEED_BUFFER", need);
}

static void decoder_info(const char *what, int dispatch_id)
{
    fprintf(stderr, "W0000 00:00:00.000000 %d att_decoder.cpp:212] [rocprofv3] ATT decoder info: %s (shader engine "
                    "0, dispatch %d)\n",
            (int)getpid(), what, dispatch_id);
}

/* FAKE_ROCPROF_CODE_OBJECT: a real AMDGPU ELF copied as the code object
 * rocprofv3 writes next to the ATT output; without it a 4-line stand-in. */
static void write_code_object(const char *co)
{
    const char *src = getenv("FAKE_ROCPROF_CODE_OBJECT");
    fp_sb b;
    fp_sb_init(&b);
    fp_err e = {0};
    if (src && fp_read_file(src, &b, &e) == 0) {
        FILE *f = fopen(co, "wb");
        if (f) {
            fwrite(b.buf, 1, b.len, f);
            fclose(f);
        }
    } else {
        write_text(co, "fake code object (no ELF: set FAKE_ROCPROF_CODE_OBJECT for a real one)\n");
    }
    fp_sb_free(&b);
}

static void do_att(const char *argv0, const job *j, const char *dir, const char *file)
{
    int *idx = calloc((size_t)g_nd + 1, sizeof *idx);
    int n = targeted(j, true, idx);
    long long handle = atoll(env_or("FAKE_ROCPROF_AGENT_HANDLE", "38430"));
    bool lost = wave_incomplete(j);
    const char *dbg = getenv("FLYDSL_DEBUG_ENABLE_DEBUG_INFO");
    bool mapped = dbg && !strcmp(dbg, "1") && !mode_has("no-line-info");
    if (n == 0)
        fprintf(stderr, "W%s thread_trace.cpp:412] [rocprofv3] no kernel dispatch matched the thread trace "
                        "filters; no ATT data written\n", "0000");
    char cofile[64];
    snprintf(cofile, sizeof cofile, "%s_code_object_id_1.out", arch());
    char *co = out_path(dir, file, cofile);
    write_code_object(co);
    log_opened(co);
    free(co);
    for (int t = 0; t < n; t++) {
        const dispatch *d = &g_d[idx[t]];
        char suffix[96];
        snprintf(suffix, sizeof suffix, "%lld_shader_engine_0_%d.att", handle, d->id);
        char *att = out_path(dir, file, suffix);
        write_text(att, "SQTT");
        free(att);
        char name[128];
        snprintf(name, sizeof name, "ui_output_agent_%lld_dispatch_%d", handle, d->id);
        /* empty-shells: the target CU got no wave in any dispatch;
         * first-empty: only the first traced dispatch is a shell (the common case). */
        bool shell = mode_has("empty-shells") || (mode_has("first-empty") && t == 0);
        write_att_dir(argv0, dir, (int)handle, d->id, g_k[d->k].name, shell, lost && !shell, mapped);
        fp_sb stats;
        fp_sb_init(&stats);
        fp_sb_addf(&stats, "%s/stats_%s.csv", dir, name);
        write_text(stats.buf, "\"CodeObj\",\"Vaddr\",\"Instruction\",\"Hitcount\",\"Latency\",\"Stall\",\"Idle\","
                          "\"Source\"\n");
        fp_sb_free(&stats);
        if (lost)
            decoder_info("Wave incomplete", d->id);
        if (mode_has("data-lost"))
            decoder_info("Data Lost", d->id);
        if (mode_has("stitch-incomplete"))
            decoder_info("Stitch Incomplete", d->id);
    }
    free(idx);
}

/* ---------- main ---------- */

/* A test double exits through exit() with its option strings still allocated;
 * that is not a leak worth failing a sanitizer build over. */
__attribute__((used)) const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) { return "detect_leaks=0"; }

static void set_str(char **dst, const char *v) { *dst = strdup(v); }

/* Run as `rocprofv3-avail pmc-check [-d N] C...` (a symlink to the fake): exit 0
 * when the counters fit one pass by the block limits of rocprof-formats.md §6.3
 * (TCC 4, SQ 8, GRBM 2; a derived counter takes its base counters: MeanOccupancyPerCU =
 * SQ_LEVEL_WAVES + SQ_ACCUM_PREV_HIRES + GRBM_GUI_ACTIVE, ...), else 1 with a message; FAKE_ROCPROF_MODE=pmc-check-refuses
 * refuses everything. Other subcommands: exit 0, nothing printed. */
static int avail_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "pmc-check"))
        return 0;
    static const struct {
        const char *prefix;
        int limit;
    } blocks[] = {{"TCC_", 4}, {"SQ_", 8}, {"GRBM_", 2}};
    const char *hw[256];
    int n = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-d")) {
            i++;
            continue;
        }
        /* the SDK-derived counters take their base counters' slots (counter_defs.yaml) */
        static const struct {
            const char *name, *base[4];
        } derived[] = {
            {"MeanOccupancyPerCU", {"SQ_LEVEL_WAVES", "SQ_ACCUM_PREV_HIRES", "GRBM_GUI_ACTIVE", NULL}},
            {"MfmaUtil", {"SQ_VALU_MFMA_BUSY_CYCLES", "GRBM_GUI_ACTIVE", NULL}},
            {"VALUBusy", {"SQ_ACTIVE_INST_VALU", "GRBM_GUI_ACTIVE", NULL}},
            {"LdsBankConflict", {"SQ_LDS_BANK_CONFLICT", "SQ_LDS_IDX_ACTIVE", NULL}},
        };
        const char *one[] = {argv[i], NULL};
        const char *const *base = one;
        for (size_t k = 0; k < sizeof derived / sizeof derived[0]; k++)
            if (!strcmp(argv[i], derived[k].name))
                base = derived[k].base;
        for (int b = 0; base[b] && n < 256; b++) {
            const char *c = base[b];
            bool have = false;
            for (int k = 0; k < n && !have; k++)
                have = !strcmp(hw[k], c);
            if (!have)
                hw[n++] = c;
        }
    }
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        int used = 0;
        for (int k = 0; k < n; k++)
            used += !strncmp(hw[k], blocks[b].prefix, strlen(blocks[b].prefix));
        if (used > blocks[b].limit || mode_has("pmc-check-refuses")) {
            printf("Counters cannot be collected together in a single pass\n");
            return 1;
        }
    }
    printf("Counters can be collected together\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    if (!strcmp(base ? base + 1 : argv[0], "rocprofv3-avail"))
        return avail_main(argc, argv);
    const char *ver = env_or("FAKE_ROCPROF_VERSION", "1.1.0");
    int vn = version_num(ver);
    job cli;
    memset(&cli, 0, sizeof cli);
    const char *input = NULL;
    int app = -1;
    /* ROCPROF_OUTPUT_PATH / ROCPROF_OUTPUT_FILE_NAME are argparse defaults of -d / -o:
     * they take part in the merge with an input file's jobs like typed flags */
    if (getenv("ROCPROF_OUTPUT_PATH"))
        set_str(&cli.dir, getenv("ROCPROF_OUTPUT_PATH")), cli.set_dir = true;
    if (getenv("ROCPROF_OUTPUT_FILE_NAME"))
        set_str(&cli.file, getenv("ROCPROF_OUTPUT_FILE_NAME")), cli.set_file = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        char opt[128];
        snprintf(opt, sizeof opt, "%.*s", eq && a[0] == '-' && a[1] == '-' ? (int)(eq - a) : (int)strlen(a), a);
        const char *inl = eq && a[1] == '-' ? eq + 1 : NULL;
#define NEXT() (inl ? inl : (i + 1 < argc ? argv[++i] : (argparse_error("argument %s: expected one argument", opt), "")))
        bool b = true;
        if (!strcmp(a, "--")) {
            app = i + 1;
            break;
        } else if (!strcmp(opt, "--version") || !strcmp(opt, "-v")) {
            if (vn < 10000)
                argparse_error("unrecognized arguments: %s", a);
            print_version(ver);
            return 0;
        } else if (!strcmp(opt, "--kernel-trace") || !strcmp(opt, "--stats") || !strcmp(opt, "--att") ||
                   !strcmp(opt, "--advanced-thread-trace") || !strcmp(opt, "-T") ||
                   !strcmp(opt, "--truncate-kernels")) {
            if (inl) {
                if (!parse_bool_word(inl, &b))
                    argparse_error("argument %s: invalid bool value: '%s'", opt, inl);
            } else if (i + 1 < argc && parse_bool_word(argv[i + 1], &b)) {
                i++;
            }
            if (!strcmp(opt, "--kernel-trace"))
                cli.kernel_trace = b, cli.set_kernel_trace = true;
            else if (!strcmp(opt, "--stats"))
                cli.stats = b, cli.set_stats = true;
            else if (!strcmp(opt, "-T") || !strcmp(opt, "--truncate-kernels"))
                cli.truncate = b;
            else
                cli.att = b, cli.set_att = true;
        } else if (!strcmp(opt, "-f") || !strcmp(opt, "--output-format")) {
            cli.fmt.n = 0;
            cli.set_fmt = true;
            if (inl)
                cli.fmt.v[cli.fmt.n++] = strdup(inl);
            while (!inl && i + 1 < argc && argv[i + 1][0] != '-' && cli.fmt.n < MAX_COUNTERS)
                cli.fmt.v[cli.fmt.n++] = strdup(argv[++i]);
            if (!cli.fmt.n)
                argparse_error("argument -f/--output-format: expected at least one argument");
            for (int k = 0; k < cli.fmt.n; k++) {
                const char *f = cli.fmt.v[k];
                if (strcasecmp(f, "csv") && strcasecmp(f, "json") && strcasecmp(f, "rocpd") &&
                    strcasecmp(f, "pftrace") && strcasecmp(f, "otf2"))
                    argparse_error("argument -f/--output-format: invalid choice: '%s' (choose from 'csv', "
                                   "'json', 'pftrace', 'otf2', 'rocpd')", f);
            }
        } else if (!strcmp(opt, "-d") || !strcmp(opt, "--output-directory")) {
            set_str(&cli.dir, NEXT()), cli.set_dir = true;
        } else if (!strcmp(opt, "-o") || !strcmp(opt, "--output-file")) {
            set_str(&cli.file, NEXT()), cli.set_file = true;
        } else if (!strcmp(opt, "-i") || !strcmp(opt, "--input")) {
            input = NEXT();
        } else if (!strcmp(opt, "--kernel-include-regex")) {
            set_str(&cli.include_regex, NEXT()), cli.set_regex = true;
        } else if (!strcmp(opt, "--kernel-exclude-regex")) {
            set_str(&cli.exclude_regex, NEXT());
        } else if (!strcmp(opt, "--kernel-iteration-range")) {
            set_str(&cli.range, NEXT()), cli.set_range = true;
        } else if (!strcmp(opt, "--att-buffer-size")) {
            cli.att_buffer = int_auto("att_buffer_size", NEXT());
        } else if (!strcmp(opt, "--att-target-cu")) {
            cli.target_cu = (int)int_auto("att_target_cu", NEXT());
        } else if (!strcmp(opt, "--att-shader-engine-mask") || !strcmp(opt, "--att-simd-select")) {
            int_auto(opt, NEXT());
        } else if (!strcmp(opt, "--att-library-path")) {
            while (i + 1 < argc && argv[i + 1][0] != '-' && cli.att_lib.n < MAX_COUNTERS)
                cli.att_lib.v[cli.att_lib.n++] = strdup(argv[++i]);
        } else if (!strcmp(opt, "--pmc")) {
            if (inl)
                cli.pmc.v[cli.pmc.n++] = strdup(inl);
            while (!inl && i + 1 < argc && argv[i + 1][0] != '-' && cli.pmc.n < MAX_COUNTERS)
                for (char *tok = strtok(argv[++i], ","); tok && cli.pmc.n < MAX_COUNTERS; tok = strtok(NULL, ","))
                    cli.pmc.v[cli.pmc.n++] = strdup(tok);
            cli.has_pmc = cli.pmc.n > 0;
        } else {
            argparse_error("unrecognized arguments: %s", a);
        }
#undef NEXT
    }
    if (app < 0 || app >= argc)
        fatal("no application was specified: usage is rocprofv3 [options] -- <application> [args]");

    /* The hang happens where the real tool would hang: in the application. */
    parse_kernels();

    job jobs[MAX_JOBS];
    memset(jobs, 0, sizeof jobs);
    int nj = 1;
    if (input)
        nj = load_input(input, jobs);
    else
        jobs[0] = cli;
    if (nj == 0)
        fatal("no jobs in input file %s", input);
    /* merge: CLI fills keys absent from a job; both set and different -> error (7.0 behaviour) */
    for (int k = 0; input && k < nj; k++) {
        job *j = &jobs[k];
#define MERGE_S(field, flag, key)                                                                                 \
    if (cli.flag) {                                                                                               \
        if (j->flag && strcmp(j->field, cli.field)) {                                                             \
            fprintf(stderr, "Traceback (most recent call last):\nRuntimeError: conflicting value for %s : %s vs " \
                            "%s\n", key, cli.field, j->field);                                                    \
            return 1;                                                                                             \
        }                                                                                                         \
        if (!j->flag)                                                                                             \
            j->field = cli.field, j->flag = true;                                                                 \
    }
        MERGE_S(dir, set_dir, "output_directory")
        MERGE_S(file, set_file, "output_file")
        MERGE_S(include_regex, set_regex, "kernel_include_regex")
        MERGE_S(range, set_range, "kernel_iteration_range")
#undef MERGE_S
        if (cli.set_kernel_trace && !j->set_kernel_trace)
            j->kernel_trace = cli.kernel_trace;
        if (cli.set_stats && !j->set_stats)
            j->stats = cli.stats;
        if (cli.set_att && !j->set_att)
            j->att = cli.att;
        if (cli.set_fmt && !j->set_fmt)
            j->fmt = cli.fmt, j->set_fmt = true;
        if (!j->has_pmc && cli.has_pmc)
            j->pmc = cli.pmc, j->has_pmc = true;
        if (!j->att_lib.n)
            j->att_lib = cli.att_lib;
        if (!j->att_buffer)
            j->att_buffer = cli.att_buffer;
    }

    for (int k = 0; k < nj; k++) {
        job *j = &jobs[k];
        if (!j->kernel_trace && !j->att && !j->has_pmc) {
            fprintf(stderr, "[rocprofv3] Warning: No tracing options were enabled.\n");
            if (j->stats)
                fatal("--stats requires at least one tracing option");
        }
        if (j->att) {
            fp_sb searched;
            fp_sb_init(&searched);
            bool ok = find_decoder(j, &searched);
            if (!ok) {
                fprintf(stderr, "%srocprof-trace-decoder library path not found in %s\n", fatal_prefix(),
                        searched.buf);
                fp_sb_free(&searched);
                return 1;
            }
            fp_sb_free(&searched);
        }
    }

    /* Log the invocation for tests (argv, cwd, the environment that matters). */
    const char *logp = getenv("FAKE_ROCPROF_LOG");
    if (logp) {
        cJSON *o = cJSON_CreateObject();
        cJSON *a = cJSON_AddArrayToObject(o, "argv");
        for (int i = 0; i < argc; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
        char cwd[4096];
        fp_json_add_str(o, "cwd", getcwd(cwd, sizeof cwd) ? cwd : "");
        static const char *vars[] = {"HIP_VISIBLE_DEVICES", "FLYDSL_DEBUG_ENABLE_DEBUG_INFO",
                                     "FLYDSL_RUNTIME_CACHE_DIR", "FLYDSL_RUNTIME_ENABLE_CACHE", "PYTHONPATH",
                                     "ROCPROF_ATT_LIBRARY_PATH", "ROCR_VISIBLE_DEVICES"};
        cJSON *e = cJSON_AddObjectToObject(o, "env");
        for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
            if (getenv(vars[i]))
                fp_json_add_str(e, vars[i], getenv(vars[i]));
        /* every ROCPROF_* the tool inherited (flyprof must pass none) */
        cJSON *rpe = cJSON_AddArrayToObject(o, "rocprof_env");
        for (char **ev = environ; ev && *ev; ev++)
            if (!strncmp(*ev, "ROCPROF_", 8))
                cJSON_AddItemToArray(rpe, cJSON_CreateString(*ev));
        cJSON *js = cJSON_AddArrayToObject(o, "jobs");
        for (int k = 0; k < nj; k++) {
            cJSON *jo = cJSON_CreateObject();
            fp_json_add_bool(jo, "att", jobs[k].att);
            fp_json_add_bool(jo, "kernel_trace", jobs[k].kernel_trace);
            fp_json_add_str(jo, "kernel_include_regex", jobs[k].include_regex);
            fp_json_add_str(jo, "kernel_iteration_range", jobs[k].range);
            fp_json_add_int(jo, "att_buffer_size", jobs[k].att_buffer);
            fp_json_add_int(jo, "pmc", jobs[k].pmc.n);
            cJSON *al = cJSON_AddArrayToObject(jo, "att_library_path");
            for (int i = 0; i < jobs[k].att_lib.n; i++)
                cJSON_AddItemToArray(al, cJSON_CreateString(jobs[k].att_lib.v[i]));
            cJSON_AddItemToArray(js, jo);
        }
        char *line = cJSON_PrintUnformatted(o);
        FILE *f = fopen(logp, "a");
        if (f) {
            fprintf(f, "%s\n", line);
            fclose(f);
        }
        free(line);
        cJSON_Delete(o);
    }

    /* which pass is this, for FAKE_ROCPROF_HANG=discovery|att|pmc|all */
    const char *hang = getenv("FAKE_ROCPROF_HANG");
    if (hang) {
        const char *pass = jobs[0].att ? "att" : jobs[0].has_pmc ? "pmc" : "discovery";
        if (!strcmp(hang, "all") || !strcmp(hang, pass)) {
            fprintf(stderr, "[fake rocprofv3] hanging in the %s pass as asked\n", pass);
            for (;;)
                pause();
        }
    }

    /* Run the application. */
    fp_proc_opts po = {.argv = (const char *const *)(argv + app), .inherit_stdio = true};
    fp_proc_result pr;
    fp_err perr = {0};
    if (fp_proc_run(&po, &pr, &perr) != 0 && pr.exec_failed) {
        fprintf(stderr, "Traceback (most recent call last):\n  File \"/opt/rocm/bin/rocprofv3\", line 1, in "
                        "<module>\nFileNotFoundError: [Errno 2] No such file or directory: '%s'\n",
                argv[app]);
        return 1;
    }
    int app_rc = pr.exited ? pr.exit_code : 128 + pr.term_signal;

    int nprocs = atoi(env_or("FAKE_ROCPROF_PROCS", "1"));
    for (int k = 0; k < nj * (nprocs > 1 ? nprocs : 1); k++) {
        g_proc = k / nj; /* every process writes every job's outputs */
        job *j = &jobs[k % nj];
        const char *dir0 = j->dir ? j->dir : ".";
        const char *file = j->file ? j->file : "%hostname%/%pid%";
        /* pass_N sub-directory rules of §1.7 (SDK 7.0-7.2 when vn < 1.3.0) */
        char dir[4096];
        if (input && (nj > 1 ? (vn < 10300 || j->has_pmc) : j->has_pmc))
            snprintf(dir, sizeof dir, "%s/pass_%d", dir0, k % nj + 1);
        else
            snprintf(dir, sizeof dir, "%s", dir0);
        if (input && nj > 1 && vn >= 10300 && !j->has_pmc)
            continue; /* SDK-new multi-pass mode skips jobs without pmc */
        bool csv = false, rocpd = false;
        if (!j->set_fmt)
            (vn >= 10000 ? (rocpd = true) : (csv = true));
        for (int f = 0; f < j->fmt.n; f++) {
            if (!strcasecmp(j->fmt.v[f], "csv"))
                csv = true;
            if (!strcasecmp(j->fmt.v[f], "rocpd"))
                rocpd = true;
        }
        if (csv && j->kernel_trace) {
            write_kernel_trace(dir, file);
            write_agent_info(dir, file);
            if (j->stats)
                write_stats(dir, file);
        }
        int *idx = calloc((size_t)g_nd + 1, sizeof *idx);
        int npmc = j->has_pmc ? targeted(j, false, idx) : 0;
        if (csv && j->has_pmc) {
            write_counters(dir, file, j, idx, npmc);
            if (!j->kernel_trace)
                write_agent_info(dir, file);
        }
        if (rocpd && (j->kernel_trace || j->has_pmc || j->att)) {
            if (j->stats && vn >= 10300)
                fprintf(stderr, "[rocprofv3] Warning: --stats has no effect with rocpd output; use rocpd summary "
                                "-i <db>\n");
            write_rocpd(dir, file, j, idx, npmc);
        }
        free(idx);
        if (j->att)
            do_att(argv[0], j, dir, file);
    }
    fprintf(stderr, "W0000 00:00:00.000000 %d simple_timer.cpp:55] [rocprofv3] tool finalization ::     0.01 sec\n",
            (int)getpid());
    const char *ex = getenv("FAKE_ROCPROF_EXIT");
    if (ex && ex[0])
        return atoi(ex);
    return app_rc;
}
