/*
 * pmc.c - the PMC data set read from rocprofv3's outputs: passes, dispatches
 * found by (pass, agent, id) through a hash index, counters summed over
 * instances, and the strict parse of a counter cell (see pmc.h). The readers
 * that fill it are counters_csv.c and counters_rocpd.c; the merged records and
 * the formulas are src/analysis/counters.c.
 */
#include "flyprof/pmc.h"

#include <math.h>
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
    for (size_t i = 0; i < s->nd; i++) {
        fp_pmc_dispatch *d = &s->d[i];
        for (size_t k = 0; k < d->n; k++)
            free(d->c[k].name);
        free(d->c);
        free(d->kernel);
        free(d->agent);
    }
    free(s->d);
    free(s->agent.product_name);
    free(s->agent.name);
    free(s->index);
    fp_pmc_set_init(s);
}

size_t fp_pmc_add_pass(fp_pmc_set *s, const char *source)
{
    s->passes = xrealloc(s->passes, (s->npasses + 1) * sizeof *s->passes);
    s->passes[s->npasses] = xstrdup(source);
    return s->npasses++;
}

/* FNV-1a over (pass, agent, id): rows of one dispatch may come in any order
 * (a hostile or merged file), so lookups must not be linear. */
static size_t dispatch_hash(size_t pass, const char *agent, long long id)
{
    uint64_t h = 1469598103934665603ULL;
    const unsigned char *parts[2] = {(const unsigned char *)&pass, (const unsigned char *)&id};
    size_t lens[2] = {sizeof pass, sizeof id};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lens[k]; i++)
            h = (h ^ parts[k][i]) * 1099511628211ULL;
    for (const unsigned char *p = (const unsigned char *)agent; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)h;
}

static void index_insert(fp_pmc_set *s, size_t di)
{
    const fp_pmc_dispatch *d = &s->d[di];
    size_t m = s->index_cap - 1, i = dispatch_hash(d->pass, d->agent, d->dispatch_id) & m;
    while (s->index[i])
        i = (i + 1) & m;
    s->index[i] = di + 1;
}

static void index_grow(fp_pmc_set *s)
{
    free(s->index);
    s->index_cap = s->index_cap ? 2 * s->index_cap : 256;
    s->index = calloc(s->index_cap, sizeof *s->index);
    if (!s->index)
        abort();
    for (size_t i = 0; i < s->nd; i++)
        index_insert(s, i);
}

fp_pmc_dispatch *fp_pmc_dispatch_get(fp_pmc_set *s, size_t pass, const char *agent, long long id,
                                     const char *kernel)
{
    const char *ag = agent ? agent : "";
    if (s->index_cap) {
        size_t m = s->index_cap - 1, i = dispatch_hash(pass, ag, id) & m;
        for (; s->index[i]; i = (i + 1) & m) {
            fp_pmc_dispatch *d = &s->d[s->index[i] - 1];
            if (d->pass == pass && d->dispatch_id == id && !strcmp(d->agent, ag))
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
