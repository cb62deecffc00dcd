/*
 * exposed.c - exposed vs hidden stall on one SIMD (docs/exposed-stall.md).
 *
 * Waves resident on the same (SE, CU, SIMD) share its issue slots: while one
 * wave stalls, another may issue, and the stall costs the SIMD nothing. A sweep
 * over the buffered intervals of one SIMD computes, for every stalled cycle of
 * every instruction execution:
 *   exposed - no OTHER wave of that SIMD is issuing (EXEC state);
 *   lost    - no wave at all is issuing: a SIMD cycle lost, counted once per
 *             class / instruction / source line however many waves stall in it
 *             (the numerator of the gain upper bound).
 */
#include <string.h>

#include "bubbles_internal.h"

/* 16 bytes: the sweep's working set is millions of these on a big trace. */
typedef struct ev {
    int64_t t;
    uint32_t idx;
    uint32_t ck; /* cu_local << 2 | kind; kind 0 exec end, 1 stall end, 2 exec start, 3 stall start */
} ev;

/* The sweep only needs events ordered by (cu, t): every event at one cycle is
 * applied before the interval to the next cycle is accumulated, and the sums are
 * integers, so the order among events of the same (cu, t) cannot change any
 * result. That allows an LSD radix sort on the packed key (cu_local, t - tmin)
 * with 11-bit digits instead of a comparison sort through a callback. */
#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)

/* Digit at `shift` of the key (cu_local, t - tmin), where the t part is padded to
 * tpad bits (a multiple of RADIX_BITS) so no digit straddles the two parts and
 * no shift exceeds 63 whatever the ranges. */
static inline size_t ev_digit(const ev *x, int64_t tmin, unsigned tpad, unsigned shift)
{
    if (shift < tpad)
        return (size_t)(((uint64_t)(x->t - tmin) >> shift) & (RADIX_N - 1));
    return (size_t)(((x->ck >> 2) >> (shift - tpad)) & (RADIX_N - 1));
}

/* Sorts e[0..n) using tmp[0..n) as scratch; returns the buffer holding the result. */
static ev *radix_sort(ev *e, ev *tmp, size_t n, int64_t tmin, unsigned tpad, unsigned kbits)
{
    size_t cnt[RADIX_N];
    for (unsigned shift = 0; shift < kbits; shift += RADIX_BITS) {
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[ev_digit(&e[i], tmin, tpad, shift)]++;
        size_t sum = 0;
        for (size_t b = 0; b < RADIX_N; b++) {
            size_t c = cnt[b];
            cnt[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[cnt[ev_digit(&e[i], tmin, tpad, shift)]++] = e[i];
        ev *sw = e;
        e = tmp;
        tmp = sw;
    }
    return e;
}

static unsigned bits_for(uint64_t v)
{
    unsigned b = 0;
    while (b < 64 && (v >> b))
        b++;
    return b;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static fp_bub_simd *simd_for(fp_bubbles *b, int se, int cu, int simd)
{
    for (size_t i = b->n_simds; i-- > 0;)
        if (b->simds[i].se == se && b->simds[i].cu == cu && b->simds[i].simd == simd)
            return &b->simds[i];
    b->simds = realloc(b->simds, (b->n_simds + 1) * sizeof *b->simds);
    if (!b->simds)
        abort();
    fp_bub_simd *s = &b->simds[b->n_simds++];
    memset(s, 0, sizeof *s);
    s->se = se;
    s->cu = cu;
    s->simd = simd;
    s->begin = INT64_MAX;
    s->end = INT64_MIN;
    return s;
}

void fp_bub_sweep_group(bub_ctx *c)
{
    fp_bubbles *b = c->b;
    /* per-(cu) SIMD records */
    for (size_t i = 0; i < c->n_gw; i++) {
        fp_bub_simd *s = simd_for(b, c->g_se, c->gw[i].cu, c->g_simd);
        s->waves++;
        if (c->gw[i].begin < s->begin)
            s->begin = c->gw[i].begin;
        if (c->gw[i].end > s->end)
            s->end = c->gw[i].end;
    }
    size_t ne = 2 * (c->n_st + c->n_ex);
    ev *e = malloc((ne + 1) * sizeof *e);
    ev *tmp = malloc((ne + 1) * sizeof *tmp);
    int32_t *wexec = calloc(c->n_gw + 1, sizeof *wexec);
    size_t *active = malloc((c->n_st + 1) * sizeof *active);
    /* dense cu numbers of this group, ascending: the high part of the sort key */
    int *cus = malloc((c->n_gw + 1) * sizeof *cus);
    uint32_t *wcu = malloc((c->n_gw + 1) * sizeof *wcu);
    if (!e || !tmp || !wexec || !active || !cus || !wcu)
        abort();
    for (size_t i = 0; i < c->n_gw; i++)
        cus[i] = c->gw[i].cu;
    size_t ncu = 0;
    if (c->n_gw) {
        qsort(cus, c->n_gw, sizeof *cus, cmp_int); /* one entry per wave, not per event */
        for (size_t i = 0; i < c->n_gw; i++)
            if (ncu == 0 || cus[ncu - 1] != cus[i])
                cus[ncu++] = cus[i];
    }
    for (size_t i = 0; i < c->n_gw; i++) {
        size_t lo = 0, hi = ncu;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (cus[mid] <= c->gw[i].cu)
                lo = mid;
            else
                hi = mid;
        }
        wcu[i] = (uint32_t)lo;
    }
    size_t k = 0;
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    for (size_t i = 0; i < c->n_ex; i++) {
        const bub_iv *v = &c->ex[i];
        uint32_t cu = wcu[v->wave] << 2;
        e[k++] = (ev){v->t0, (uint32_t)i, cu | 2};
        e[k++] = (ev){v->t1, (uint32_t)i, cu | 0};
        tmin = v->t0 < tmin ? v->t0 : tmin;
        tmax = v->t1 > tmax ? v->t1 : tmax;
    }
    for (size_t i = 0; i < c->n_st; i++) {
        const bub_iv *v = &c->st[i];
        uint32_t cu = wcu[v->wave] << 2;
        e[k++] = (ev){v->t0, (uint32_t)i, cu | 3};
        e[k++] = (ev){v->t1, (uint32_t)i, cu | 1};
        tmin = v->t0 < tmin ? v->t0 : tmin;
        tmax = v->t1 > tmax ? v->t1 : tmax;
    }
    if (k) {
        /* cycle values are in [0, 2^50] (wave_insane), so tmax - tmin cannot wrap */
        unsigned tbits = bits_for((uint64_t)(tmax - tmin));
        unsigned tpad = (tbits + RADIX_BITS - 1) / RADIX_BITS * RADIX_BITS;
        unsigned kbits = tpad + bits_for(ncu - 1);
        ev *sorted = radix_sort(e, tmp, k, tmin, tpad, kbits);
        if (sorted != e) {
            ev *sw = e;
            e = sorted;
            tmp = sw;
        }
    }
    free(tmp);
    free(wcu);
    size_t na = 0;
    int exec = 0;
    fp_bub_simd *cur = NULL;
    int cur_cu = 0;
    for (size_t i = 0; i < k; i++) {
        int ecu = cus[e[i].ck >> 2];
        if (!cur || ecu != cur_cu) {
            cur_cu = ecu;
            cur = simd_for(b, c->g_se, cur_cu, c->g_simd);
            na = 0;
            exec = 0;
            memset(wexec, 0, (c->n_gw + 1) * sizeof *wexec);
        } else if (e[i].t > e[i - 1].t) {
            int64_t len = e[i].t - e[i - 1].t;
            if (exec > 0)
                cur->issue += len;
            if (na > 0 && exec == 0)
                cur->wall += len;
            for (size_t a = 0; a < na; a++) {
                const bub_iv *v = &c->st[active[a]];
                if (exec - wexec[v->wave] > 0)
                    continue; /* another wave issues: hidden */
                b->insts[v->row].exposed += len;
                b->classes[v->cls].exposed += len;
                cur->exposed += len;
                if (exec > 0)
                    continue;
                /* lost SIMD cycle: once per class, instruction and line */
                bool dup_cls = false, dup_row = false, dup_line = false;
                int line = b->insts[v->row].line_id;
                for (size_t q = 0; q < a; q++) {
                    const bub_iv *u = &c->st[active[q]];
                    dup_cls |= u->cls == v->cls;
                    dup_row |= u->row == v->row;
                    dup_line |= line >= 0 && b->insts[u->row].line_id == line;
                }
                if (!dup_cls)
                    b->classes[v->cls].wall += len;
                if (!dup_row)
                    b->insts[v->row].wall += len;
                if (!dup_line && line >= 0)
                    b->lines[line].wall += len;
            }
        }
        const ev *x = &e[i];
        switch (x->ck & 3) {
        case 0:
            exec--;
            wexec[c->ex[x->idx].wave]--;
            break;
        case 2:
            exec++;
            wexec[c->ex[x->idx].wave]++;
            break;
        case 1:
            for (size_t a = 0; a < na; a++)
                if (active[a] == x->idx) {
                    active[a] = active[--na];
                    break;
                }
            break;
        case 3:
            active[na++] = x->idx;
            cur->stall += c->st[x->idx].t1 - c->st[x->idx].t0;
            break;
        default:
            break;
        }
    }
    free(e);
    free(cus);
    free(wexec);
    free(active);
    c->n_st = c->n_ex = c->n_gw = 0;
}
