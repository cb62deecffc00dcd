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

typedef struct ev {
    int64_t t;
    int32_t cu;
    int32_t kind; /* 0 exec end, 1 stall end, 2 exec start, 3 stall start: ends first */
    size_t idx;
} ev;

static int cmp_ev(const void *a, const void *b)
{
    const ev *x = a, *y = b;
    if (x->cu != y->cu)
        return x->cu < y->cu ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
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
    int32_t *wexec = calloc(c->n_gw + 1, sizeof *wexec);
    size_t *active = malloc((c->n_st + 1) * sizeof *active);
    if (!e || !wexec || !active)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < c->n_ex; i++) {
        const bub_iv *v = &c->ex[i];
        int cu = c->gw[v->wave].cu;
        e[k++] = (ev){v->t0, cu, 2, i};
        e[k++] = (ev){v->t1, cu, 0, i};
    }
    for (size_t i = 0; i < c->n_st; i++) {
        const bub_iv *v = &c->st[i];
        int cu = c->gw[v->wave].cu;
        e[k++] = (ev){v->t0, cu, 3, i};
        e[k++] = (ev){v->t1, cu, 1, i};
    }
    qsort(e, k, sizeof *e, cmp_ev);
    size_t na = 0;
    int exec = 0;
    fp_bub_simd *cur = NULL;
    int cur_cu = 0;
    for (size_t i = 0; i < k; i++) {
        if (!cur || e[i].cu != cur_cu) {
            cur_cu = e[i].cu;
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
        switch (x->kind) {
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
    free(wexec);
    free(active);
    c->n_st = c->n_ex = c->n_gw = 0;
}
