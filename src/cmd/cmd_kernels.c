/*
 * cmd_kernels.c - `flyprof kernels`: the seed's first step, offline. Which
 * kernels ran and which ones take the time, from what `rocprofv3 --stats
 * --kernel-trace` wrote (kernel_stats.csv, kernel_trace.csv or a rocpd
 * results.db): ranked by total time with calls, avg/min/max and % of the
 * total, so the next step is `flyprof capture KERNEL` (docs/commands/kernels.md).
 *
 * Story: pick the input (--csv | --db | --bundle) -> load it with the loaders
 * capture's discovery pass uses (rocprof/discovery.c) -> rank with the same
 * fp_kernel_rank capture records -> data + a table that fits the width.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "flyprof/csv.h"
#include "flyprof/capture_doc.h"
#include "flyprof/discovery.h"
#include "flyprof/fs.h"
#include "flyprof/kernel_trace.h"
#include "flyprof/json.h"
#include "flyprof/proc.h"
#include "flyprof/table.h"

typedef struct kernels_args {
    const char *csv, *db, *filter;
    long long top;
} kernels_args;

static const fp_opt kernels_opts[] = {
    {"csv", 0, FP_OPT_STR, offsetof(kernels_args, csv), "FILE",
     "rocprofv3 kernel_stats.csv or kernel_trace.csv (told apart by their columns)", NULL, NULL, 0, 0},
    {"db", 0, FP_OPT_STR, offsetof(kernels_args, db), "FILE", "rocprofv3 rocpd results.db (SQLite)", NULL, NULL, 0,
     0},
    {"limit", 'n', FP_OPT_INT, offsetof(kernels_args, top), "N", "kernels shown (0 = all)", "20", NULL, 0, 1000000},
    {"filter", 0, FP_OPT_STR, offsetof(kernels_args, filter), "REGEX",
     "only kernels whose name matches this POSIX extended regex (searched, like rocprofv3's)", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Where a bundle keeps the discovery outputs, in the order they are tried:
 * capture's discovery pass, a published example / corpus case, a bare
 * rocprofv3 output dir. The rocpd database first: it is what newer SDKs write. */
static const char *const bundle_inputs[] = {
    "rocprof/discovery/discover_results.db", "rocprof/discovery/discover_kernel_stats.csv",
    "rocprof/discovery/discover_kernel_trace.csv", "rocprof/results.db", "rocprof/kernel_stats.csv",
    "rocprof/kernel_trace.csv", "results.db", "kernel_stats.csv", "kernel_trace.csv", NULL};

/* The agent_info.csv written next to a kernel_{stats,trace}.csv ("<prefix>kernel_stats.csv"). */
static char *agent_csv_of(const char *csv)
{
    const char *b = fp_path_base(csv);
    const char *k = strstr(b, "kernel_");
    if (!k)
        return NULL;
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_add(&s, csv, (size_t)(k - csv));
    fp_sb_adds(&s, "agent_info.csv");
    return fp_sb_detach(&s);
}

static int load_csv(const char *path, fp_kcands *k, const char **kind, fp_err *err)
{
    fp_csv c = {0};
    if (fp_csv_load(path, &c, err) != 0)
        return -1;
    bool stats = fp_csv_col(&c, "TotalDurationNs") >= 0 && fp_csv_col(&c, "Name") >= 0;
    bool trace = fp_kernel_trace_header_has(&c, FP_KT_NEED_TIMING);
    fp_csv_free(&c);
    if (!stats && !trace) {
        fp_err_set(err, FP_BAD_INPUT,
                   "%s is neither a kernel_stats.csv (Name, Calls, TotalDurationNs) nor a kernel_trace.csv "
                   "(" FP_KT_TIMING_COLS ")",
                   path);
        return fp_err_help(err, "pass what `rocprofv3 --stats --kernel-trace -f csv` wrote");
    }
    *kind = stats ? "kernel_stats.csv" : "kernel_trace.csv";
    char *agent = agent_csv_of(path);
    int rc = fp_discovery_load_csv(stats ? path : NULL, stats ? NULL : path, agent, k, err);
    free(agent);
    return rc;
}

/* An input path given on the command line: there, and a file. */
static int check_file(const char *flag, const char *path, fp_err *err)
{
    if (fp_is_file(path)) {
        if (access(path, R_OK) != 0)
            return fp_err_set(err, FP_IO_ERROR, "--%s %s: cannot be read: %s", flag, path, strerror(errno));
        return 0;
    }
    if (fp_is_dir(path))
        return fp_err_set(err, FP_BAD_ARGS, "--%s %s is a directory, not a file", flag, path);
    return fp_err_set(err, FP_NO_ARTIFACT, "--%s %s: no such file", flag, path);
}

static int load_input(fp_ctx *ctx, const kernels_args *a, fp_kcands *k, const char **kind, char **file,
                      fp_err *err)
{
    int given = !!a->csv + !!a->db + !!ctx->bundle;
    if (given == 0) {
        fp_err_set(err, FP_USAGE, "kernels needs --csv FILE, --db FILE or --bundle DIR");
        return fp_err_help(err, "e.g. flyprof kernels --csv rocprof/kernel_stats.csv");
    }
    if (given > 1)
        return fp_err_set(err, FP_BAD_ARGS, "give one of --csv, --db and --bundle, not %d", given);
    if (a->csv) {
        *file = strdup(a->csv);
        return check_file("csv", a->csv, err) ? -1 : load_csv(a->csv, k, kind, err);
    }
    if (a->db) {
        *file = strdup(a->db);
        *kind = "results.db";
        return check_file("db", a->db, err) ? -1 : fp_discovery_load_rocpd(a->db, k, err);
    }
    if (!fp_is_dir(ctx->bundle))
        return fp_err_set(err, fp_is_file(ctx->bundle) ? FP_BAD_ARGS : FP_NO_ARTIFACT,
                          "--bundle %s: %s", ctx->bundle,
                          fp_is_file(ctx->bundle) ? "not a directory" : "no such directory");
    /* a bare dispatch dir (<case>/att/<dispatch>): its case's rocprof/ */
    char *roots[2] = {strdup(ctx->bundle), fp_path_join(ctx->bundle, "../..")};
    int rc = 1;
    for (int r = 0; r < 2 && rc == 1; r++)
        for (const char *const *p = bundle_inputs; *p && rc == 1; p++) {
            char *f = fp_path_join(roots[r], *p);
            if (fp_is_file(f)) {
                *file = f;
                if (strstr(*p, ".db")) {
                    *kind = "results.db";
                    rc = fp_discovery_load_rocpd(f, k, err);
                } else {
                    rc = load_csv(f, k, kind, err);
                }
            } else {
                free(f);
            }
        }
    /* capture since issue 18: one set per process, rocprof/discovery/discover_<pid>_* (merged) */
    for (int r = 0; r < 2 && rc == 1; r++) {
        char *dir = fp_path_join(roots[r], "rocprof/discovery");
        size_t nsets = 0;
        fp_err e = {0};
        if (fp_is_dir(dir) && fp_discovery_load_dir(dir, "discover", k, &nsets, &e) == 0 && nsets > 0) {
            rc = 0;
            *file = dir;
            dir = NULL;
            *kind = k->source && !strcmp(k->source, "rocpd") ? "results.db" : "kernel_stats.csv";
        } else if (e.code == FP_BAD_INPUT) {
            *err = e;
            rc = -1;
        } else {
            fp_err_clear(&e);
        }
        free(dir);
    }
    free(roots[0]);
    free(roots[1]);
    if (rc == 1) {
        fp_err_set(err, FP_NO_ARTIFACT, "no kernel_stats.csv, kernel_trace.csv or results.db in %s", ctx->bundle);
        fp_err_help(err, "run `flyprof capture` (its discovery pass writes rocprof/discovery/) or pass --csv/--db");
        cJSON *tried = cJSON_CreateArray();
        for (const char *const *p = bundle_inputs; *p; p++)
            cJSON_AddItemToArray(tried, cJSON_CreateString(*p));
        fp_err_extra(err, "searched", tried);
        return -1;
    }
    return rc;
}

/* "12.3 ms"-style durations: the unit that keeps 3-4 significant digits. */
static void dur(fp_sb *t, double ns, int width)
{
    char b[32];
    if (ns >= 1e9)
        snprintf(b, sizeof b, "%.2f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(b, sizeof b, "%.2f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(b, sizeof b, "%.1f us", ns / 1e3);
    else
        snprintf(b, sizeof b, "%.0f ns", ns);
    fp_sb_pad_right(t, b, (size_t)width);
}

static void render(fp_ctx *ctx, const fp_kcands *k, const fp_krank *r, const char *kind, const char *filter,
                   const char *next)
{
    fp_sb *t = &ctx->table;
    fp_sb_addf(t, "kernels: %zu in %s", k->n, kind);
    if (k->arch)
        fp_sb_addf(t, " (%s%s%s)", k->arch, k->product ? ", " : "", k->product ? k->product : "");
    fp_sb_adds(t, ", ");
    dur(t, (double)r->total_ns, 0);
    fp_sb_adds(t, " in total");
    if (filter)
        fp_sb_addf(t, "; %zu match /%s/", r->matched, filter);
    if (r->n < r->matched)
        fp_sb_addf(t, "; top %zu shown", r->n);
    fp_sb_adds(t, "\n\n");
    static const char head[] = "  #      total       %   calls        avg        min        max  kernel";
    fp_sb_addf(t, "%s\n", head);
    /* the name takes what the width leaves; the full name is in the JSON */
    size_t name_w = ctx->width > 0 && (size_t)ctx->width > sizeof head + 8 ? (size_t)ctx->width - (sizeof head - 7)
                                                                            : 0;
    for (size_t j = 0; j < r->n; j++) {
        const fp_kcand *c = &k->v[r->idx[j]];
        fp_sb_addf(t, "%3zu ", r->idx[j] + 1);
        dur(t, (double)c->total_ns, 10);
        fp_sb_addf(t, " %7.2f %7lld ", r->total_ns > 0 ? 100.0 * (double)c->total_ns / (double)r->total_ns : 0,
                   c->calls);
        dur(t, c->avg_ns, 10);
        fp_sb_addc(t, ' ');
        dur(t, (double)c->min_ns, 10);
        fp_sb_addc(t, ' ');
        dur(t, (double)c->max_ns, 10);
        fp_sb_adds(t, "  ");
        const char *lib = c->noise ? " [lib]" : "";
        size_t nl = fp_utf8_cols(c->name, strlen(c->name)), ll = strlen(lib);
        if (name_w && nl + ll > name_w && name_w > ll + 4) {
            /* keep the head of the name (namespace, template) and mark the cut */
            size_t keep = name_w - ll - 3, i = 0, cols = 0;
            while (c->name[i] && cols < keep) {
                i++;
                while (((unsigned char)c->name[i] & 0xC0) == 0x80)
                    i++;
                cols++;
            }
            fp_sb_add(t, c->name, i);
            fp_sb_adds(t, "...");
        } else {
            fp_sb_adds(t, c->name);
        }
        fp_sb_addf(t, "%s\n", lib);
    }
    if (next)
        fp_sb_addf(t, "\nnext: %s\n", next);
}

static int kernels_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos, (void)npos;
    const kernels_args *a = argsp;
    fp_kcands k = {0};
    const char *kind = "";
    char *file = NULL;
    fp_krank r = {0};
    if (load_input(ctx, a, &k, &kind, &file, err) != 0 || fp_kernel_rank(&k, a->filter, (size_t)a->top, &r, err)) {
        fp_kcands_free(&k);
        free(file);
        return -1;
    }
    /* what to capture next: the heaviest shown kernel that is not a library's */
    char *next = NULL;
    for (size_t j = 0; j < r.n && !next; j++)
        if (!k.v[r.idx[j]].noise) {
            const char *argv[] = {"flyprof", "capture", k.v[r.idx[j]].name, NULL};
            fp_sb s;
            fp_sb_init(&s);
            fp_proc_argv_str(argv, &s);
            next = fp_sb_detach(&s);
        }

    cJSON *d = ctx->data = cJSON_CreateObject();
    fp_json_add_str(d, "source", kind);
    char *abs = fp_path_abs(file);
    fp_json_add_str(d, "file", abs ? abs : file);
    free(abs);
    fp_json_add_str(d, "arch", k.arch);
    fp_json_add_str(d, "product", k.product);
    fp_json_add_int(d, "kernels_total", (int64_t)k.n);
    if (k.total_dispatches)
        fp_json_add_int(d, "dispatches", k.total_dispatches);
    fp_json_add_int(d, "total_ns", r.total_ns);
    fp_json_add_str(d, "filter", a->filter);
    fp_json_add_int(d, "matched", (int64_t)r.matched);
    cJSON_AddItemToObject(d, "kernels", fp_krank_json(&k, &r));
    fp_json_add_str(d, "next", next);
    fp_truncated(ctx, "kernels", r.n, r.matched);
    if (a->filter && !r.matched)
        fp_warn(ctx, "no kernel name matches /%s/ (%zu kernels)", a->filter, k.n);
    render(ctx, &k, &r, kind, a->filter, next);
    free(next);
    free(file);
    fp_krank_free(&r);
    fp_kcands_free(&k);
    return 0;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule kernels_paths[] = {
    {.opt = "csv", .kind = FP_PATH_FILE},
    {.opt = "db", .kind = FP_PATH_FILE},
    {.opt = "bundle", .kind = FP_PATH_DIR},
    {.kind = FP_PATH_NONE},
};

/* -f csv: the row lists of the data (the first present is the default; -f csv:NAME) */
static const char *const kernels_csv_rows[] = {"kernels", NULL};

/* shown under "examples:" in help and in the man page */
static const char *const kernels_examples[] = {
    "flyprof kernels --csv out/kernel_stats.csv --limit 10",
    "flyprof kernels --bundle runs/softmax -f csv > kernels.csv",
    NULL,
};

/* --limit is the spelling of "rows shown" in every command (map, bubbles, history) */
static const fp_opt_alias kernels_aliases[] = {{"top", "limit"}, {NULL, NULL}};

const fp_command fp_cmd_kernels = {
    .aliases = kernels_aliases,
    .examples = kernels_examples,
    .csv_rows = kernels_csv_rows,
    .name = "kernels",
    .summary = "rank the kernels of a rocprofv3 --stats/--kernel-trace run by total time (what to capture)",
    .usage = "flyprof kernels (--csv FILE | --db FILE | --bundle DIR) [--limit N] [--filter REGEX]",
    .details = "The seed's discovery step, offline: reads kernel_stats.csv, kernel_trace.csv (aggregated per "
               "kernel) or a rocpd results.db, ranks kernels by total time with calls, avg/min/max and % of "
               "the total (library kernels marked [lib]), and names the next step: flyprof capture KERNEL. "
               "capture's discovery pass records the same ranking in capture.json.",
    .opts = kernels_opts,
    .args_size = sizeof(kernels_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = kernels_run,
    .paths = kernels_paths,
};
