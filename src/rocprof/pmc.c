/*
 * pmc.c - the PMC data set read from rocprofv3's outputs: passes, dispatches
 * found by (pass, agent, id) through a hash index, counters summed over
 * instances, and the strict parse of a counter cell (see pmc.h). The readers
 * that fill it are counters_csv.c and counters_rocpd.c; the merged records and
 * the formulas are src/analysis/counters.c.
 */
#include "flyprof/pmc.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q && n)
        abort();
    return q;
}

/* ------------------------------------------------------------ data model */

static void free_dispatch(fp_pmc_dispatch *d)
{
    for (size_t k = 0; k < d->n; k++)
        free(d->c[k].name);
    free(d->c);
    free(d->kernel);
    free(d->agent);
}

void fp_pmc_agent_free(fp_pmc_agent *a)
{
    free(a->id);
    free(a->product_name);
    free(a->name);
    *a = (fp_pmc_agent){.device_id = -1, .gfx_target_version = -1, .cu_count = -1, .num_xcc = -1};
}

void fp_pmc_set_init(fp_pmc_set *s)
{
    *s = (fp_pmc_set){0};
    s->agent.device_id = s->agent.gfx_target_version = s->agent.cu_count = s->agent.num_xcc = -1;
}

void fp_pmc_set_free(fp_pmc_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->npasses; i++)
        free(s->passes[i]);
    free(s->passes);
    for (size_t i = 0; i < s->nd; i++)
        free_dispatch(&s->d[i]);
    free(s->d);
    fp_pmc_agent_free(&s->agent);
    for (size_t i = 0; i < s->nagents; i++)
        fp_pmc_agent_free(&s->agents[i]);
    free(s->agents);
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i].path);
    free(s->files);
    free(s->index);
    fp_pmc_set_init(s);
}

size_t fp_pmc_add_pass(fp_pmc_set *s, const char *source)
{
    s->passes = xrealloc(s->passes, (s->npasses + 1) * sizeof *s->passes);
    s->passes[s->npasses] = xstrdup(source);
    return s->npasses++;
}

/* FNV-1a over (pass, pid, agent, id): rows of one dispatch may come in any order
 * (a hostile or merged file), so lookups must not be linear. */
static size_t dispatch_hash(size_t pass, long long pid, const char *agent, long long id)
{
    uint64_t h = 1469598103934665603ULL;
    const unsigned char *parts[3] = {(const unsigned char *)&pass, (const unsigned char *)&pid,
                                     (const unsigned char *)&id};
    size_t lens[3] = {sizeof pass, sizeof pid, sizeof id};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < lens[k]; i++)
            h = (h ^ parts[k][i]) * 1099511628211ULL;
    for (const unsigned char *p = (const unsigned char *)agent; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)h;
}

static void index_insert(fp_pmc_set *s, size_t di)
{
    const fp_pmc_dispatch *d = &s->d[di];
    size_t m = s->index_cap - 1, i = dispatch_hash(d->pass, d->pid, d->agent, d->dispatch_id) & m;
    while (s->index[i])
        i = (i + 1) & m;
    s->index[i] = di + 1;
}

/* (Re)build the index for the current dispatches, the capacity the smallest
 * power of two >= 256 that keeps the load factor <= 1/2. */
static void index_build(fp_pmc_set *s, size_t cap)
{
    free(s->index);
    s->index_cap = cap;
    s->index = calloc(s->index_cap, sizeof *s->index);
    if (!s->index)
        abort();
    for (size_t i = 0; i < s->nd; i++)
        index_insert(s, i);
}

static void index_grow(fp_pmc_set *s) { index_build(s, s->index_cap ? 2 * s->index_cap : 256); }

fp_pmc_dispatch *fp_pmc_dispatch_get(fp_pmc_set *s, size_t pass, long long pid, const char *agent, long long id,
                                     const char *kernel)
{
    const char *ag = agent ? agent : "";
    if (s->index_cap) {
        size_t m = s->index_cap - 1, i = dispatch_hash(pass, pid, ag, id) & m;
        for (; s->index[i]; i = (i + 1) & m) {
            fp_pmc_dispatch *d = &s->d[s->index[i] - 1];
            if (d->pass == pass && d->pid == pid && d->dispatch_id == id && !strcmp(d->agent, ag))
                return d;
        }
    }
    if (s->nd == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->d = xrealloc(s->d, s->cap * sizeof *s->d);
    }
    fp_pmc_dispatch *d = &s->d[s->nd++];
    *d = (fp_pmc_dispatch){0};
    d->pass = pass;
    d->agent = xstrdup(ag);
    d->pid = pid;
    d->dispatch_id = id;
    d->kernel = xstrdup(kernel);
    d->start_ns = d->end_ns = -1;
    d->grid_size = d->wg_size = d->lds_bytes = d->vgpr = d->accum_vgpr = d->sgpr = -1;
    /* keep the load factor <= 1/2 */
    if (2 * s->nd > s->index_cap)
        index_grow(s);
    else
        index_insert(s, s->nd - 1);
    return d;
}

void fp_pmc_add_file(fp_pmc_set *s, size_t pass, long long pid, const char *path)
{
    s->files = xrealloc(s->files, (s->nfiles + 1) * sizeof *s->files);
    s->files[s->nfiles++] = (fp_pmc_file){.pass = pass, .pid = pid, .path = xstrdup(path)};
}

fp_pmc_agent *fp_pmc_agent_add(fp_pmc_set *s, const char *id)
{
    for (size_t i = 0; i < s->nagents; i++)
        if (!strcmp(s->agents[i].id, id))
            return NULL; /* known: the first file's row stands */
    s->agents = xrealloc(s->agents, (s->nagents + 1) * sizeof *s->agents);
    fp_pmc_agent *a = &s->agents[s->nagents++];
    *a = (fp_pmc_agent){.id = xstrdup(id), .device_id = -1, .gfx_target_version = -1, .cu_count = -1,
                        .num_xcc = -1};
    return a;
}

static void agent_copy(fp_pmc_agent *to, const fp_pmc_agent *from)
{
    fp_pmc_agent_free(to);
    *to = *from;
    to->id = xstrdup(from->id);
    to->product_name = from->product_name ? xstrdup(from->product_name) : NULL;
    to->name = from->name ? xstrdup(from->name) : NULL;
}

static bool kernel_row(const fp_pmc_dispatch *d, const char *kernel) { return !kernel || strstr(d->kernel, kernel); }

/* The agent to keep: `want` when a row of the kernel ran on it, else the first such row's. */
static const char *keep_agent(const fp_pmc_set *s, const char *want, const char *kernel, fp_pmc_kept *out)
{
    const char *first = NULL;
    for (size_t i = 0; i < s->nd; i++) {
        if (!kernel_row(&s->d[i], kernel))
            continue;
        if (want && !strcmp(s->d[i].agent, want))
            return s->d[i].agent;
        if (!first)
            first = s->d[i].agent;
    }
    out->wanted_absent = want && *want && first;
    return first;
}

/* Per pass, the process of its first row of the kernel on the agent (-2: none). */
static long long *keep_pids(const fp_pmc_set *s, const char *agent, const char *kernel)
{
    long long *pid = xrealloc(NULL, (s->npasses + 1) * sizeof *pid);
    for (size_t p = 0; p < s->npasses; p++)
        pid[p] = -2;
    for (size_t i = 0; i < s->nd; i++) {
        const fp_pmc_dispatch *d = &s->d[i];
        if (pid[d->pass] == -2 && kernel_row(d, kernel) && !strcmp(d->agent, agent))
            pid[d->pass] = d->pid;
    }
    return pid;
}

void fp_pmc_keep(fp_pmc_set *s, const char *want, const char *kernel, fp_pmc_kept *out)
{
    *out = (fp_pmc_kept){0};
    const char *agent = keep_agent(s, want, kernel, out);
    if (!agent)
        return;
    out->found = true;
    char *kept = xstrdup(agent); /* the dispatch owning it may go */
    long long *pid = keep_pids(s, kept, kernel);
    bool *multi = xrealloc(NULL, (s->npasses + 1) * sizeof *multi);
    memset(multi, 0, (s->npasses + 1) * sizeof *multi);
    char **others = NULL;
    size_t w = 0;
    for (size_t i = 0; i < s->nd; i++) {
        fp_pmc_dispatch *d = &s->d[i];
        bool same_agent = !strcmp(d->agent, kept);
        if (same_agent && d->pid == pid[d->pass]) {
            s->d[w++] = *d;
            continue;
        }
        if (!same_agent) {
            out->agent_rows_dropped++;
            bool seen = false;
            for (size_t k = 0; k < out->other_agents && !seen; k++)
                seen = !strcmp(others[k], d->agent);
            if (!seen) {
                others = xrealloc(others, (out->other_agents + 1) * sizeof *others);
                others[out->other_agents++] = xstrdup(d->agent);
            }
        } else {
            out->process_rows_dropped++;
            if (kernel_row(d, kernel) && !multi[d->pass]) {
                multi[d->pass] = true;
                out->process_passes++;
            }
        }
        free_dispatch(d);
    }
    s->nd = w;
    index_build(s, s->index_cap ? s->index_cap : 256);
    /* each pass's source: the file of the process kept */
    for (size_t f = 0; f < s->nfiles; f++) {
        const fp_pmc_file *fl = &s->files[f];
        if (fl->pass < s->npasses && pid[fl->pass] != -2 && fl->pid == pid[fl->pass]) {
            free(s->passes[fl->pass]);
            s->passes[fl->pass] = xstrdup(fl->path);
        }
    }
    for (size_t a = 0; a < s->nagents; a++)
        if (!strcmp(s->agents[a].id, kept)) {
            agent_copy(&s->agent, &s->agents[a]);
            out->facts_matched = true;
        }
    snprintf(out->agent, sizeof out->agent, "%s", kept);
    for (size_t k = 0; k < out->other_agents; k++) {
        if (k == 0)
            snprintf(out->other_agent, sizeof out->other_agent, "%s", others[k]);
        free(others[k]);
    }
    free(others);
    free(multi);
    free(pid);
    free(kept);
}

int fp_pmc_add(fp_pmc_dispatch *d, const char *name, double value)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->c[i].name, name)) {
            d->c[i].value += value; /* several instances of one counter: SUM (§4.2) */
            return 0;
        }
    if (d->n >= FP_PMC_MAX_COUNTERS)
        return -1;
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->c = xrealloc(d->c, d->cap * sizeof *d->c);
    }
    d->c[d->n].name = xstrdup(name);
    d->c[d->n].value = value;
    d->n++;
    return 0;
}

int fp_pmc_parse_value(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || v < 0 || v > FP_PMC_MAX_VALUE)
        return -1;
    *out = v;
    return 0;
}
