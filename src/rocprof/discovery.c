/*
 * discovery.c - the discovery pass outputs (CSV or rocpd), kernel matching,
 * the library-kernel filter, the rocprofv3 version probe, the trace decoder
 * search and the stderr scanner. See discovery.h.
 */
#include "flyprof/discovery.h"


#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>
#include <sys/stat.h>

#include "flyprof/agent_info.h"
#include "flyprof/cli.h"
#include "flyprof/csv.h"
#include "flyprof/fs.h"
#include "flyprof/mem.h"
#include "flyprof/json.h"
#include "flyprof/kernel_trace.h"
#include "flyprof/proc.h"
#include "flyprof/rocpd.h"
#include "flyprof/satmath.h"

/* Depth of the recursive decoder walk: rocprofv3 walks without a bound, but
 * flyprof must not walk "/" when ROCPROF_ATT_LIBRARY_PATH is mis-set (§8.3). */
#define FP_DECODER_WALK_DEPTH 4
#define FP_DECODER_WALK_ENTRIES 20000

void fp_kcands_free(fp_kcands *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++) {
        free(k->v[i].name);
        free(k->v[i].agent);
    }
    free(k->v);
    free(k->arch);
    free(k->product);
    memset(k, 0, sizeof *k);
}

/* ---------- noise ---------- */

/* Library kernels, as prefixes of the formatted name or namespace markers.
 * Each row names the library so the table can be audited. Bare words such as
 * "sort", "scan", "reduce_kernel", "elementwise" are deliberately absent: the
 * prototype's substring regex dropped real FlyDSL kernels with them
 * (flyprof-spec.md §11.2 [BUG]). */
static const struct {
    const char *pattern;
    bool anywhere; /* substring (namespaces) vs prefix */
} NOISE[] = {
    {"at::native::", true},       /* PyTorch ATen */
    {"at::cuda::", true},         /* PyTorch */
    {"c10::", true},              /* PyTorch */
    {"rocprim::", true},          /* rocPRIM */
    {"hipcub::", true},           /* hipCUB */
    {"cub::", true},              /* CUB */
    {"thrust::", true},           /* Thrust */
    {"rocblas_", false},          /* rocBLAS */
    {"hipblaslt", false},         /* hipBLASLt */
    {"Cijk_", false},             /* Tensile (rocBLAS/hipBLASLt) */
    {"ck::", true},               /* Composable Kernel */
    {"ncclDevKernel", false},     /* RCCL */
    {"ncclKernel", false},        /* RCCL */
    {"__amd_rocclr_", false},     /* HIP runtime blit/fill kernels */
    {"triton_", false},           /* torch.compile/Triton generated */
    {"aiter::", true},            /* AITER reference kernels */
};

bool fp_kernel_is_noise(const char *name)
{
    if (!name)
        return false;
    /* the formatted name may start with a return type: "void at::native::..." */
    const char *base = name;
    if (!strncmp(base, "void ", 5))
        base += 5;
    for (size_t i = 0; i < sizeof NOISE / sizeof NOISE[0]; i++) {
        if (NOISE[i].anywhere ? strstr(name, NOISE[i].pattern) != NULL
                              : strncmp(base, NOISE[i].pattern, strlen(NOISE[i].pattern)) == 0)
            return true;
    }
    return false;
}

/* ---------- loading ---------- */

static void cand_init(fp_kcand *c, const char *name)
{
    memset(c, 0, sizeof *c);
    c->name = strdup(name);
    c->vgpr_count = c->accum_vgpr_count = c->sgpr_count = -1;
    c->lds_bytes = c->scratch_bytes = -1;
    c->noise = fp_kernel_is_noise(name);
}

static fp_kcand *cand_find(fp_kcands *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->v[i].name, name))
            return &k->v[i];
    return NULL;
}

static fp_kcand *cand_add(fp_kcands *k, const char *name, size_t *cap)
{
    if (k->n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        fp_kcand *nv = realloc(k->v, *cap * sizeof *nv);
        if (!nv)
            abort();
        k->v = nv;
    }
    cand_init(&k->v[k->n], name);
    return &k->v[k->n++];
}

static long long cell_ll(const fp_csv *c, size_t r, int col, long long dflt)
{
    const char *s = fp_csv_cell(c, r, col);
    long long v;
    if (!s || fp_parse_ll(s, &v) != 0)
        return dflt;
    return v;
}

/* A trace number read as discovery always has: the strict integer, else dflt. */
static long long num_ll(const fp_rp_num *n, long long dflt)
{
    long long v;
    return fp_rp_int(n, &v) ? v : dflt;
}

static double cell_d(const fp_csv *c, size_t r, int col, double dflt)
{
    const char *s = fp_csv_cell(c, r, col);
    if (!s || !s[0])
        return dflt;
    char *end;
    double v = strtod(s, &end);
    return *end ? dflt : v;
}

/* stable sort by total_ns descending */
static void sort_cands(fp_kcands *k)
{
    for (size_t a = 1; a < k->n; a++) {
        fp_kcand t = k->v[a];
        size_t b = a;
        while (b > 0 && k->v[b - 1].total_ns < t.total_ns) {
            k->v[b] = k->v[b - 1];
            b--;
        }
        k->v[b] = t;
    }
}

static void read_agent_csv(const char *path, fp_kcands *out)
{
    fp_agent_info a = {0};
    fp_err e = {0};
    if (!path || fp_agent_info_load(path, &a, &e) != 0) {
        fp_err_clear(&e);
        fp_agent_info_free(&a);
        return;
    }
    /* the first GPU; capture pins one with HIP_VISIBLE_DEVICES */
    const fp_agent_row *g = fp_agent_info_first_gpu(&a);
    if (g) {
        out->arch = g->name ? strdup(g->name) : NULL;
        out->product = g->product_name ? strdup(g->product_name) : NULL;
        out->device_id = num_ll(&g->device_id, -1);
    }
    fp_agent_info_free(&a);
}

/* The discovery figures of one kernel from its first trace row: registers,
 * LDS, scratch, launch geometry and agent (-1 / 0 / NULL when unknown). */
static void cand_from_row(fp_kcand *c, const fp_kt_row *row)
{
    c->vgpr_count = (int)num_ll(&row->vgpr, -1);
    c->accum_vgpr_count = (int)num_ll(&row->accum_vgpr, -1);
    c->sgpr_count = (int)num_ll(&row->sgpr, -1);
    c->lds_bytes = num_ll(&row->lds_block_size, -1);
    c->scratch_bytes = num_ll(&row->scratch_size, -1);
    c->wg_x = (int)num_ll(&row->wg[0], 0);
    c->wg_y = (int)num_ll(&row->wg[1], 0);
    c->wg_z = (int)num_ll(&row->wg[2], 0);
    c->grid_x = num_ll(&row->grid[0], 0);
    c->grid_y = num_ll(&row->grid[1], 0);
    c->grid_z = num_ll(&row->grid[2], 0);
    c->agent = row->agent_id ? strdup(row->agent_id) : NULL;
}

/* Every row of the trace into the candidates; without a stats file the trace
 * is aggregated here (calls, total/min/max/avg of End - Start). */
static void cands_from_trace(fp_kcands *out, const fp_kernel_trace *t, size_t *cap)
{
    bool from_stats = out->n > 0;
    out->total_dispatches = (long long)t->nrows;
    for (size_t r = 0; r < t->nrows; r++) {
        const fp_kt_row *row = &t->rows[r];
        const char *n = row->kernel_name;
        if (!n || !n[0])
            continue;
        fp_kcand *c = cand_find(out, n);
        if (!c)
            c = cand_add(out, n, cap);
        if (!from_stats) {
            bool ovf = false; /* hostile timestamps saturate instead of overflowing */
            long long d = fp_sat_sub(num_ll(&row->end_ns, 0), num_ll(&row->start_ns, 0), &ovf);
            if (d < 0)
                d = 0;
            if (c->calls == 0 || d < c->min_ns)
                c->min_ns = d;
            if (d > c->max_ns)
                c->max_ns = d;
            c->calls++;
            c->total_ns = fp_sat_add(c->total_ns, d, &ovf);
            c->avg_ns = (double)c->total_ns / (double)c->calls;
        }
        if (c->vgpr_count < 0)
            cand_from_row(c, row);
    }
}

int fp_discovery_load_csv(const char *stats_csv, const char *trace_csv, const char *agent_csv, fp_kcands *out,
                          fp_err *err)
{
    memset(out, 0, sizeof *out);
    out->source = "csv";
    out->device_id = -1;
    size_t cap = 0;
    fp_kernel_trace t = {0};
    bool have_trace = trace_csv && fp_is_file(trace_csv);
    if (have_trace && fp_kernel_trace_load(trace_csv, &t, err) != 0)
        return -1;
    if (stats_csv && fp_is_file(stats_csv)) {
        fp_csv s = {0};
        if (fp_csv_load(stats_csv, &s, err) != 0) {
            fp_kernel_trace_free(&t);
            return -1;
        }
        int cn = fp_csv_col(&s, "Name"), cc = fp_csv_col(&s, "Calls"), ct = fp_csv_col(&s, "TotalDurationNs"),
            ca = fp_csv_col(&s, "AverageNs"), cmin = fp_csv_col(&s, "MinNs"), cmax = fp_csv_col(&s, "MaxNs");
        if (cn < 0 || cc < 0 || ct < 0) {
            fp_csv_free(&s);
            fp_kernel_trace_free(&t);
            return fp_err_set(err, FP_BAD_INPUT, "%s: missing Name/Calls/TotalDurationNs columns", stats_csv);
        }
        for (size_t r = 0; r < s.nrows; r++) {
            const char *n = fp_csv_cell(&s, r, cn);
            if (!n || !n[0])
                continue;
            fp_kcand *c = cand_find(out, n);
            if (!c)
                c = cand_add(out, n, &cap);
            c->calls = cell_ll(&s, r, cc, 0);
            c->total_ns = cell_ll(&s, r, ct, 0);
            c->avg_ns = cell_d(&s, r, ca, c->calls ? (double)c->total_ns / (double)c->calls : 0);
            c->min_ns = cell_ll(&s, r, cmin, 0);
            c->max_ns = cell_ll(&s, r, cmax, 0);
        }
        fp_csv_free(&s);
    } else if (!have_trace) {
        return fp_err_set(err, FP_NO_ARTIFACT, "no discovery output: neither %s nor %s exists",
                          stats_csv ? stats_csv : "(stats)", trace_csv ? trace_csv : "(trace)");
    }
    if (have_trace) {
        if (fp_kernel_trace_check(&t, trace_csv, FP_KT_NEED_NAME, err)) {
            fp_kernel_trace_free(&t);
            fp_kcands_free(out);
            return -1;
        }
        cands_from_trace(out, &t, &cap);
        fp_kernel_trace_free(&t);
    }
    read_agent_csv(agent_csv, out);
    sort_cands(out);
    return 0;
}

static char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

int fp_discovery_load_rocpd(const char *db_path, fp_kcands *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    out->source = "rocpd";
    out->device_id = -1;
    if (!fp_is_file(db_path))
        return fp_err_set(err, FP_NO_ARTIFACT, "%s: no such file", db_path);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fp_err_set(err, FP_BAD_INPUT, "%s: cannot open as SQLite: %s", db_path, db ? sqlite3_errmsg(db) : "?");
        sqlite3_close(db);
        return -1;
    }
    if (fp_rocpd_schema_check(db, db_path, err) != 0) {
        sqlite3_close(db);
        return -1;
    }
    /* Always the views, never the suffixed tables; guid joins so merged
     * databases stay correct (rocprof-formats.md §4.1, §4.4). */
    static const char *Q =
        "SELECT S.display_name, COUNT(*), SUM(K.\"end\" - K.\"start\"), MIN(K.\"end\" - K.\"start\"), "
        "MAX(K.\"end\" - K.\"start\"), MAX(S.arch_vgpr_count), MAX(S.accum_vgpr_count), MAX(S.sgpr_count), "
        "MAX(S.group_segment_size), MAX(S.private_segment_size), MIN(K.id), MAX(K.workgroup_size_x), "
        "MAX(K.workgroup_size_y), MAX(K.workgroup_size_z), MAX(K.grid_size_x), MAX(K.grid_size_y), "
        "MAX(K.grid_size_z) "
        "FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid "
        "GROUP BY S.display_name ORDER BY 3 DESC, MIN(K.id)";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, Q, -1, &st, NULL) != SQLITE_OK) {
        fp_err_set(err, FP_BAD_INPUT, "%s: not a rocpd database (%s)", db_path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *n = sqlite3_column_text(st, 0);
        if (!n || !n[0])
            continue;
        fp_kcand *c = cand_add(out, (const char *)n, &cap);
        c->calls = sqlite3_column_int64(st, 1);
        c->total_ns = sqlite3_column_int64(st, 2);
        c->min_ns = sqlite3_column_int64(st, 3);
        c->max_ns = sqlite3_column_int64(st, 4);
        c->avg_ns = c->calls ? (double)c->total_ns / (double)c->calls : 0;
        c->vgpr_count = sqlite3_column_int(st, 5);
        c->accum_vgpr_count = sqlite3_column_int(st, 6);
        c->sgpr_count = sqlite3_column_int(st, 7);
        c->lds_bytes = sqlite3_column_int64(st, 8);
        c->scratch_bytes = sqlite3_column_int64(st, 9);
        c->wg_x = sqlite3_column_int(st, 11);
        c->wg_y = sqlite3_column_int(st, 12);
        c->wg_z = sqlite3_column_int(st, 13);
        c->grid_x = sqlite3_column_int64(st, 14);
        c->grid_y = sqlite3_column_int64(st, 15);
        c->grid_z = sqlite3_column_int64(st, 16);
        bool ovf = false;
        out->total_dispatches = fp_sat_add(out->total_dispatches, c->calls, &ovf);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        fp_err_set(err, FP_BAD_INPUT, "%s: query failed: %s", db_path, sqlite3_errmsg(db));
        sqlite3_close(db);
        fp_kcands_free(out);
        return -1;
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT name, product_name, json_extract(extdata, '$.gfx_target_version') FROM "
                           "rocpd_info_agent WHERE type = 'GPU' ORDER BY id LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            out->arch = col_text(st, 0);
            out->product = col_text(st, 1);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    sort_cands(out);
    return 0;
}

int fp_discovery_load(const char *prefix, fp_kcands *out, fp_err *err)
{
    fp_sb p;
    fp_sb_init(&p);
    fp_sb_addf(&p, "%s_results.db", prefix);
    if (fp_is_file(p.buf)) {
        int rc = fp_discovery_load_rocpd(p.buf, out, err);
        fp_sb_free(&p);
        return rc;
    }
    fp_sb s, t, a;
    fp_sb_init(&s);
    fp_sb_init(&t);
    fp_sb_init(&a);
    fp_sb_addf(&s, "%s_kernel_stats.csv", prefix);
    fp_sb_addf(&t, "%s_kernel_trace.csv", prefix);
    fp_sb_addf(&a, "%s_agent_info.csv", prefix);
    int rc = fp_discovery_load_csv(s.buf, t.buf, a.buf, out, err);
    fp_sb_free(&p);
    fp_sb_free(&s);
    fp_sb_free(&t);
    fp_sb_free(&a);
    return rc;
}

/* "<base>_<digits>" or "<base>" when name is one of the set's files, else NULL (malloc'd). */
static char *set_prefix(const char *name, const char *base)
{
    static const char *const suffixes[] = {"_results.db", "_kernel_stats.csv", "_kernel_trace.csv"};
    size_t lb = strlen(base), ln = strlen(name);
    if (strncmp(name, base, lb))
        return NULL;
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t ls = strlen(suffixes[i]);
        if (ln < lb + ls || strcmp(name + ln - ls, suffixes[i]))
            continue;
        size_t mid = ln - ls - lb; /* "" or "_<pid>" */
        if (mid == 0 || (name[lb] == '_' && mid > 1 && strspn(name + lb + 1, "0123456789") == mid - 1))
            return fp_xstrndup(name, ln - ls);
    }
    return NULL;
}

static void merge_cands(fp_kcands *into, fp_kcands *from, size_t *cap)
{
    for (size_t i = 0; i < from->n; i++) {
        fp_kcand *f = &from->v[i], *c = cand_find(into, f->name);
        if (!c) {
            c = cand_add(into, f->name, cap);
            char *name = c->name;
            *c = *f;
            c->name = name;
            c->agent = f->agent ? strdup(f->agent) : NULL;
            continue;
        }
        c->calls += f->calls;
        c->total_ns += f->total_ns;
        c->min_ns = f->min_ns < c->min_ns ? f->min_ns : c->min_ns;
        c->max_ns = f->max_ns > c->max_ns ? f->max_ns : c->max_ns;
        c->avg_ns = c->calls ? (double)c->total_ns / (double)c->calls : 0;
    }
    into->total_dispatches += from->total_dispatches;
    if (!into->arch && from->arch)
        into->arch = strdup(from->arch);
    if (!into->product && from->product)
        into->product = strdup(from->product);
    if (into->device_id < 0)
        into->device_id = from->device_id;
    if (!into->source)
        into->source = from->source;
}

int fp_discovery_load_dir(const char *dir, const char *base, fp_kcands *out, size_t *nsets, fp_err *err)
{
    memset(out, 0, sizeof *out);
    out->device_id = -1;
    *nsets = 0;
    char **names = NULL, **sets = NULL;
    size_t nn = 0, ns = 0, cap = 0;
    fp_err e = {0};
    if (fp_list_dir(dir, &names, &nn, &e) != 0)
        fp_err_clear(&e);
    for (size_t i = 0; i < nn; i++) { /* sorted names: each prefix once, in order */
        char *p = set_prefix(names[i], base);
        bool dup = p && ns && !strcmp(sets[ns - 1], p);
        for (size_t k = 0; p && !dup && k < ns; k++)
            dup = !strcmp(sets[k], p);
        if (!p || dup) {
            free(p);
            continue;
        }
        sets = realloc(sets, (ns + 1) * sizeof *sets);
        if (!sets)
            abort();
        sets[ns++] = p;
    }
    fp_strv_free(names, nn);
    int rc = 0;
    if (ns == 0) {
        char *pfx = fp_path_join(dir, base);
        rc = fp_discovery_load(pfx, out, err); /* its NO_ARTIFACT message names the files */
        free(pfx);
        *nsets = rc == 0;
        return rc;
    }
    for (size_t i = 0; i < ns && rc == 0; i++) {
        char *pfx = fp_path_join(dir, sets[i]);
        fp_kcands one;
        rc = fp_discovery_load(pfx, &one, err);
        free(pfx);
        if (rc == 0) {
            merge_cands(out, &one, &cap);
            (*nsets)++;
        }
        fp_kcands_free(&one);
    }
    fp_strv_free(sets, ns);
    if (rc == 0)
        sort_cands(out);
    else
        fp_kcands_free(out);
    return rc;
}

/* ---------- ranking ---------- */

/* Size of what glibc's regcomp would build for a POSIX ERE, bounded: it expands
 * every bounded repeat x{m,n} into n copies of x, so nested repeats multiply
 * ("((a{1,99}){1,99}){1,99}" is ~10^6 nodes; 38 bytes of them exhaust memory).
 * Costs an atom 1, a group the sum of its parts, x{m,n} cost(x) * max(m, n)
 * (n open: m + 1); stops counting past `limit`. */
typedef struct re_cost {
    const char *p;
    unsigned long long limit;
} re_cost;

static unsigned long long re_bound(const char **pp)
{
    const char *p = *pp;
    unsigned long long m = strtoull(p, (char **)&p, 10), n = m;
    if (*p == ',') {
        p++;
        n = (*p >= '0' && *p <= '9') ? strtoull(p, (char **)&p, 10) : m + 1;
    }
    if (*p == '}')
        p++;
    *pp = p;
    unsigned long long b = m > n ? m : n;
    return b ? b : 1;
}

static const char *re_skip_bracket(const char *p)
{
    p++; /* '[' */
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    while (*p && *p != ']') {
        if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            const char *e = strchr(p + 2, p[1]);
            p = e && e[1] == ']' ? e + 2 : p + 1;
        } else {
            p++;
        }
    }
    return *p ? p + 1 : p;
}

static unsigned long long re_seq_cost(re_cost *c, int depth)
{
    unsigned long long total = 0, last = 0;
    bool prev_quant = false;
    while (*c->p && *c->p != ')' && total <= c->limit) {
        char ch = *c->p;
        /* POSIX leaves adjacent duplication symbols (a++, a*?, a{2}+) undefined; glibc builds
         * each on a copy of the last (X+ is X X*), exponential when stacked: refused */
        bool quant = ch == '*' || ch == '+' || ch == '?' || (ch == '{' && c->p[1] >= '0' && c->p[1] <= '9');
        if (quant && prev_quant)
            return c->limit + 1;
        prev_quant = quant;
        if (ch == '|') {
            c->p++;
            last = 0;
            continue;
        }
        if (ch == '{' && last && c->p[1] >= '0' && c->p[1] <= '9') {
            c->p++;
            unsigned long long b = re_bound(&c->p);
            unsigned long long grown = last > c->limit / b ? c->limit + 1 : last * b;
            total = total - last + grown;
            last = grown;
            continue;
        }
        if (ch == '+' && last) {
            /* X+ is X X*: the subtree counts twice */
            c->p++;
            unsigned long long grown = last > c->limit / 2 ? c->limit + 1 : last * 2;
            total = total - last + grown;
            last = grown;
            continue;
        }
        if (ch == '*' || ch == '+' || ch == '?') {
            c->p++;
            continue;
        }
        if (ch == '(') {
            c->p++;
            last = depth > 64 ? c->limit + 1 : re_seq_cost(c, depth + 1) + 1;
            if (*c->p == ')')
                c->p++;
        } else if (ch == '[') {
            c->p = re_skip_bracket(c->p);
            last = 1;
        } else {
            c->p += (ch == '\\' && c->p[1]) ? 2 : 1;
            last = 1;
        }
        total += last;
    }
    return total;
}

/* The whole pattern: a ')' with no '(' ends no group, so counting goes on past it. */
static unsigned long long re_cost_all(const char *pattern, unsigned long long limit)
{
    re_cost c = {pattern, limit};
    unsigned long long total = 0;
    for (;;) {
        total += re_seq_cost(&c, 0);
        if (!*c.p || total > limit)
            return total;
        c.p++;
    }
}

/* The most a --filter may cost (re_seq_cost units): kernel names are matched
 * by patterns of a few hundred atoms at most. */
#define FP_FILTER_MAX_COST 20000ULL
#define FP_FILTER_MAX_LEN 4096

static int filter_compile(regex_t *re, const char *filter, fp_err *err)
{
    if (strlen(filter) > FP_FILTER_MAX_LEN || re_cost_all(filter, FP_FILTER_MAX_COST) > FP_FILTER_MAX_COST) {
        fp_err_set(err, FP_USAGE, "--filter is too complex: its stacked or nested repeats expand past %llu regex nodes",
                   FP_FILTER_MAX_COST);
        return fp_err_help(err, "use a simpler pattern (a substring, alternatives, '*' instead of nested {m,n})");
    }
    int rc = regcomp(re, filter, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[128];
        regerror(rc, re, msg, sizeof msg);
        return fp_err_set(err, FP_USAGE, "--filter '%s' is not a POSIX extended regex: %s", filter, msg);
    }
    return 0;
}

int fp_kernel_rank(const fp_kcands *k, const char *filter, size_t top, fp_krank *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    regex_t re;
    if (filter && filter_compile(&re, filter, err) != 0)
        return -1;
    out->idx = malloc((k->n ? k->n : 1) * sizeof *out->idx);
    if (!out->idx)
        abort();
    for (size_t i = 0; i < k->n; i++) {
        bool ovf = false;
        out->total_ns = fp_sat_add(out->total_ns, k->v[i].total_ns > 0 ? k->v[i].total_ns : 0, &ovf);
        if (filter && regexec(&re, k->v[i].name, 0, NULL, 0) != 0)
            continue;
        if (!top || out->n < top)
            out->idx[out->n++] = i;
        out->matched++;
    }
    if (filter)
        regfree(&re);
    return 0;
}

void fp_krank_free(fp_krank *r)
{
    free(r->idx);
    memset(r, 0, sizeof *r);
}

/* ---------- matching ---------- */

const char *fp_match_conf_name(fp_match_conf c)
{
    static const char *const names[] = {"none", "exact", "hint", "name", "heaviest"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "none";
}

long fp_match_kernel(const fp_kcands *k, const char *hint, const char *const *names, size_t n_names,
                     fp_match_conf *conf)
{
    *conf = FP_MATCH_NONE;
    if (!k->n)
        return -1;
    /* 1. exact name equality, hint first */
    const char *all[34];
    size_t na = 0;
    if (hint && hint[0])
        all[na++] = hint;
    for (size_t i = 0; i < n_names && na < 33; i++)
        if (names[i] && names[i][0])
            all[na++] = names[i];
    for (size_t j = 0; j < na; j++)
        for (size_t i = 0; i < k->n; i++)
            if (!strcmp(k->v[i].name, all[j])) {
                *conf = FP_MATCH_EXACT;
                return (long)i;
            }
    /* 2. substring: hint, then names; the heaviest hit (candidates are sorted) */
    for (size_t j = 0; j < na; j++)
        for (size_t i = 0; i < k->n; i++)
            if (strstr(k->v[i].name, all[j])) {
                *conf = (j == 0 && hint && hint[0]) ? FP_MATCH_HINT : FP_MATCH_NAME;
                return (long)i;
            }
    /* 3. the heaviest kernel that is not a library kernel */
    for (size_t i = 0; i < k->n; i++)
        if (!k->v[i].noise) {
            *conf = FP_MATCH_HEAVIEST;
            return (long)i;
        }
    return -1;
}

char *fp_regex_escape(const char *name)
{
    fp_sb s;
    fp_sb_init(&s);
    for (const char *p = name; *p; p++) {
        if (strchr(".^$*+?()[]{}|\\", *p))
            fp_sb_addc(&s, '\\');
        fp_sb_addc(&s, *p);
    }
    return fp_sb_detach(&s);
}

/* ---------- rocprofv3 ---------- */

int fp_version_cmp(const char *a, const char *b)
{
    while ((a && *a) || (b && *b)) {
        long x = a && *a ? strtol(a, (char **)&a, 10) : 0;
        long y = b && *b ? strtol(b, (char **)&b, 10) : 0;
        if (x != y)
            return x < y ? -1 : 1;
        if (a && *a == '.')
            a++;
        else if (a && *a)
            a = NULL; /* trailing junk: stop comparing this side */
        if (b && *b == '.')
            b++;
        else if (b && *b)
            b = NULL;
    }
    return 0;
}

/* Value of "   key: value" lines of --version (§1.6). */
static char *version_field(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; l && *l;) {
        const char *s = l;
        while (*s == ' ')
            s++;
        if (!strncmp(s, key, kl) && s[kl] == ':') {
            s += kl + 1;
            while (*s == ' ')
                s++;
            size_t n = strcspn(s, "\r\n");
            return n ? strndup(s, n) : NULL;
        }
        l = strchr(l, '\n');
        if (l)
            l++;
    }
    return NULL;
}

int fp_rocprof_probe(const char *exe, double timeout_s, const volatile sig_atomic_t *interrupted, fp_rocprof_info *info,
                     fp_err *err)
{
    memset(info, 0, sizeof *info);
    info->path = fp_proc_which(exe, NULL);
    if (!info->path) {
        fp_err_set(err, FP_ROCPROFV3_MISSING, "rocprofv3 '%s' not found (PATH or given path)", exe);
        return fp_err_help(err, "install ROCm >= 7.0 (rocprofiler-sdk) or pass --rocprofv3 PATH / "
                                "FLYPROF_ROCPROFV3");
    }
    char *real = realpath(info->path, NULL);
    if (real) {
        /* <rocm> = parent of the directory holding the script (§1.1) */
        char *slash = strrchr(real, '/');
        if (slash) {
            *slash = '\0';
            slash = strrchr(real, '/');
            if (slash && slash != real)
                *slash = '\0';
        }
        info->rocm_root = real;
    }
    const char *argv[] = {info->path, "--version", NULL};
    fp_sb out, errb;
    fp_sb_init(&out);
    fp_sb_init(&errb);
    fp_proc_opts o = {.argv = argv, .stdout_buf = &out, .stderr_buf = &errb, .timeout_s = timeout_s,
                      .interrupted = interrupted};
    fp_proc_result r;
    int rc = fp_proc_run(&o, &r, err);
    if (rc == 0) {
        if (r.exited && r.exit_code == 0 && (info->version = version_field(out.buf, "version")) != NULL) {
            info->version_flag = true;
            info->rocm_version = version_field(out.buf, "rocm_version");
        } else {
            /* --version rejected: a release before ROCm 7.0 (§1.6) */
            snprintf(info->probe_error, sizeof info->probe_error, "`--version` exited %d: %.200s",
                     r.exited ? r.exit_code : 128 + r.term_signal, errb.buf);
        }
    } else if (err && err->code == FP_MISSING_PREREQ) {
        snprintf(info->probe_error, sizeof info->probe_error, "%.250s", err->message);
        fp_err_set(err, FP_ROCPROFV3_MISSING, "%s", info->probe_error);
        fp_err_help(err, "check that rocprofv3 is executable (it is a Python script: python3 must be on PATH)");
    } else if (err) {
        snprintf(info->probe_error, sizeof info->probe_error, "%.250s", err->message);
    }
    info->default_format = info->version && fp_version_cmp(info->version, "1.0.0") >= 0 ? "rocpd" : "csv";
    fp_sb_free(&out);
    fp_sb_free(&errb);
    return rc;
}

void fp_rocprof_info_free(fp_rocprof_info *info)
{
    if (!info)
        return;
    free(info->path);
    free(info->version);
    free(info->rocm_version);
    free(info->rocm_root);
    memset(info, 0, sizeof *info);
}

/* ---------- decoder search ---------- */

static bool walk(const char *dir, int depth, size_t *budget, char **found)
{
    if (depth > FP_DECODER_WALK_DEPTH || *budget == 0)
        return false;
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool hit = false;
    /* files first (rocprofv3's os.walk sees a directory's files before descending) */
    char **subs = NULL;
    size_t ns = 0, cap = 0;
    while (!hit && (e = readdir(d)) != NULL && *budget > 0) {
        (*budget)--;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = fp_path_join(dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (ns == cap) {
                cap = cap ? 2 * cap : 8;
                char **nv = realloc(subs, cap * sizeof *nv);
                if (!nv)
                    abort();
                subs = nv;
            }
            subs[ns++] = p;
            continue;
        }
        if (strstr(e->d_name, FP_DECODER_LIB)) {
            *found = p;
            hit = true;
            continue;
        }
        free(p);
    }
    closedir(d);
    for (size_t i = 0; i < ns; i++) {
        if (!hit)
            hit = walk(subs[i], depth + 1, budget, found);
        free(subs[i]);
    }
    free(subs);
    return hit;
}

void fp_decoder_search(const char *const *lib_dirs, size_t n_dirs, const char *rocm_root, char **found,
                       cJSON *searched)
{
    *found = NULL;
    size_t budget = FP_DECODER_WALK_ENTRIES;
    char *list = NULL;
    const char *dirs[64];
    size_t nd = 0;
    for (size_t i = 0; i < n_dirs && nd < 63; i++)
        dirs[nd++] = lib_dirs[i];
    if (nd == 0) {
        const char *env = getenv("ROCPROF_ATT_LIBRARY_PATH");
        const char *ld = getenv("LD_LIBRARY_PATH");
        fp_sb s;
        fp_sb_init(&s);
        if (env && env[0])
            fp_sb_addf(&s, "%s:", env);
        if (ld && ld[0])
            fp_sb_addf(&s, "%s:", ld);
        list = fp_sb_detach(&s);
        for (char *save = NULL, *tok = strtok_r(list, ":", &save); tok && nd < 62; tok = strtok_r(NULL, ":", &save))
            dirs[nd++] = tok;
    }
    char *rocm_lib = fp_path_join(rocm_root && rocm_root[0] ? rocm_root : "/opt/rocm", "lib");
    if (n_dirs == 0)
        dirs[nd++] = rocm_lib;
    for (size_t i = 0; i < nd && !*found; i++) {
        if (searched)
            cJSON_AddItemToArray(searched, cJSON_CreateString(dirs[i]));
        walk(dirs[i], 0, &budget, found);
    }
    free(rocm_lib);
    free(list);
}

/* ---------- stderr ---------- */

static bool has_ci(const char *hay, const char *needle) { return strcasestr(hay, needle) != NULL; }

/* The first fatal line: "[rocprofv3] Fatal error:" (SDK >= 1.1) or, from
 * ROCm 7.0's script, a bare "Fatal error:" at the start of a line. */
static const char *find_fatal(const char *text)
{
    for (const char *p = text; (p = strstr(p, "Fatal error:")) != NULL; p++) {
        static const char pre[] = "[rocprofv3] ";
        size_t lp = sizeof pre - 1;
        if ((size_t)(p - text) >= lp && !strncmp(p - lp, pre, lp))
            return p - lp;
        if (p == text || p[-1] == '\n')
            return p;
    }
    return NULL;
}

void fp_scan_stderr(const char *text, fp_stderr_scan *s)
{
    memset(s, 0, sizeof *s);
    if (!text)
        return;
    /* §8.4: the Python-layer fatal error and the tool's load failures */
    s->decoder_missing = has_ci(text, "rocprof-trace-decoder library path not found") ||
                         has_ci(text, "Decoder library not found") || has_ci(text, "Error loading decoder");
    /* the decoder's info strings (discovery.h): only the cut-off one is a buffer problem */
    s->data_lost = has_ci(text, "wave incomplete") || has_ci(text, "buffer full") || has_ci(text, "buffer overflow");
    s->bandwidth_loss = has_ci(text, "data lost");
    s->stitch_incomplete = has_ci(text, "stitch incomplete");
    const char *f = find_fatal(text);
    if (f) {
        s->fatal = true;
        size_t n = strcspn(f, "\r\n");
        snprintf(s->first_fatal, sizeof s->first_fatal, "%.*s", (int)(n < 500 ? n : 500), f);
    }
}

bool fp_kfd_present(const char **path)
{
    const char *p = getenv("FLYPROF_KFD_DEVICE");
    if (!p || !p[0])
        p = "/dev/kfd";
    if (path)
        *path = p;
    return access(p, F_OK) == 0;
}

long long fp_att_buffer_default(const char *sdk_version)
{
    return sdk_version && fp_version_cmp(sdk_version, "1.3.0") >= 0 ? 0x18000000LL : 0x10000000LL;
}
