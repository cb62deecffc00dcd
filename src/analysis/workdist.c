/*
 * workdist.c - the traced dispatch's own launch facts and work distribution
 * (workdist.h, trace_facts_doc.h; docs/launch.md, docs/workdist.md).
 *
 * occupancy.json is the only record of every wave on every CU of the traced SEs
 * (the wave files hold the target CU's waves only), so counts, spans and the
 * per-CU distribution come from it; instructions and loop iterations need the
 * instruction stream, so they are figures of the waves traced in detail. Events
 * are handled by sorting (never a table indexed by a CU id from the file), so a
 * hostile file costs O(n log n).
 */
#include "flyprof/workdist.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/bubbles.h"
#include "flyprof/mem.h"
#include "flyprof/order.h"

/* Wave starts on one CU at most this many cycles apart are one workgroup's
 * launch: the dispatcher starts a workgroup's waves 0-8 cycles apart (every
 * corpus trace), successive workgroups on a CU >= 12 cycles apart. */
#define FP_WD_BURST_GAP 8
/* A shader clock realtime.json gives outside this range is not believed (the
 * corpus: 1594-2202 MHz; no CDNA part runs below 100 MHz or above 10 GHz). */
#define FP_WD_MIN_MHZ 100.0
#define FP_WD_MAX_MHZ 10000.0

void fp_wd_wave_of(const fp_wave *w, int64_t iterations, fp_wd_wave *o)
{
    memset(o, 0, sizeof *o);
    o->se = w->se;
    o->cu = w->cu;
    o->simd = w->simd;
    o->slot = w->slot;
    o->id = w->id;
    o->begin = w->begin;
    o->end = w->end;
    o->insts = (int64_t)w->n_insts;
    o->iterations = iterations;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void swapd(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The value v[k] has once v[0..n) is sorted, by quickselect (v is reordered): three-way
 * partitions around a median of three. Past 64 rounds (a pathological order) the rest
 * of the range is sorted instead; everything outside it is already on its side. */
static double kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    for (int round = 0; lo < hi; round++) {
        if (round == 64) {
            qsort(v + lo, hi - lo + 1, sizeof *v, cmp_double);
            return v[k];
        }
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
        double piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < piv, [lt, i) == piv, (gt, hi] > piv */
        while (i <= gt) {
            if (v[i] < piv) {
                swapd(&v[lt++], &v[i++]);
            } else if (v[i] > piv) {
                swapd(&v[i], &v[gt]);
                gt--; /* >= lt: piv itself is in the range */
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt - 1;
        else if (k > gt)
            lo = gt + 1;
        else
            return piv;
    }
    return v[k];
}

/* The k1-th and k2-th smallest (k1 <= k2 < n) of v[0..n) when every value is an integer
 * and hi - lo is small (the usual: cycle and instruction counts): a count per value,
 * then one walk up the counts. The value found is lo + offset, exact below 2^52 and
 * the same double as the element (an integer has one; -0.0 took the sort). false:
 * not this case (a fraction, a wide range), nothing written. */
#define COUNT_SELECT_MAX(n) (4 * (n) + 4096)
static bool count_select(const double *v, size_t n, double lo, double hi, size_t k1, size_t k2, double *o1, double *o2,
                         bool general)
{
    const double lim = 4503599627370496.0; /* 2^52: int64 casts are exact both ways */
    if (general || !(lo >= -lim && hi <= lim) || hi - lo > (double)COUNT_SELECT_MAX(n) || n > UINT32_MAX)
        return false;
    const int64_t ilo = (int64_t)lo;
    size_t nb = (size_t)((int64_t)hi - ilo) + 1;
    uint32_t *cnt = calloc(nb, sizeof *cnt);
    if (!cnt)
        abort();
    for (size_t i = 0; i < n; i++) {
        int64_t x = (int64_t)v[i];
        if ((double)x != v[i]) { /* a fraction (lo's too: then some v[i] == lo is one) */
            free(cnt);
            return false;
        }
        cnt[x - ilo]++;
    }
    size_t seen = 0, b = 0;
    for (; seen + cnt[b] <= k1; b++)
        seen += cnt[b];
    *o1 = lo + (double)b;
    for (; seen + cnt[b] <= k2; b++)
        seen += cnt[b];
    *o2 = lo + (double)b;
    free(cnt);
    return true;
}

/* general: the selection even where the counts would do (fp_trace_facts_general). */
static void quantiles(double *v, size_t n, fp_wd_quant *q, bool general)
{
    memset(q, 0, sizeof *q);
    q->n = (int64_t)n;
    if (!n)
        return;
    /* nearest rank: the ceil(p * n)-th smallest */
    size_t r50 = (n + 1) / 2, r90 = (size_t)ceil(0.9 * (double)n);
    /* selection instead of a sort (the callers only need these four): the same values
     * for finite numbers; a NaN or a -0.0 (whose place among equals a sort decides)
     * takes the sort */
    bool plain = true;
    double lo = v[0], hi = v[0];
    for (size_t i = 0; i < n; i++) {
        plain = plain && v[i] == v[i] && !(v[i] == 0 && signbit(v[i]));
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (!plain) {
        qsort(v, n, sizeof *v, cmp_double);
        q->min = v[0];
        q->p50 = v[r50 - 1];
        q->p90 = v[(r90 ? r90 : 1) - 1];
        q->max = v[n - 1];
        return;
    }
    q->min = lo;
    q->max = hi;
    if (count_select(v, n, lo, hi, r50 - 1, (r90 ? r90 : 1) - 1, &q->p50, &q->p90, general))
        return;
    q->p50 = kth(v, n, r50 - 1);
    q->p90 = kth(v, n, (r90 ? r90 : 1) - 1);
}

void fp_wd_quantiles(double *v, size_t n, fp_wd_quant *q) { quantiles(v, n, q, false); }

static fp_optd ratio(double max, double med) { return med > 0 ? fp_optd_of(max / med) : fp_optd_none(); }

/* ---- occupancy.json, one SE ---- */

typedef struct occ_ev {
    int32_t cu, simd, slot, start;
    int64_t time;
    size_t ord; /* position in the SE's time order */
} occ_ev;

typedef struct occ_wave {
    int se, cu, simd, slot;
    int64_t begin, cycles;
} occ_wave;

/* Everything gathered over the SEs. */
typedef struct cu_len cu_len;
typedef struct facts_acc {
    occ_wave *w;
    size_t nw, capw;
    size_t burst_hist[65]; /* bursts of 1..64 starts (longer: 64) */
    int64_t peak_simd, peak_cu;
    /* every SE walked by dense_se (and the SE numbers increase): the CUs' busy times,
     * SE by SE in CU order */
    bool dense_all;
    /* a wave of no cycles: the next one of its slot may begin at the same cycle */
    bool zero_len;
    cu_len *cl;
    size_t ncl, capcl;
    bool general; /* fp_trace_facts_general: the sorting ways only */
    size_t small_min; /* SEs of this many events on take the small-keys walk (one_se) */
} facts_acc;

static int cmp_slot(const void *a, const void *b)
{
    const occ_ev *x = a, *y = b;
    if (x->cu != y->cu)
        return x->cu < y->cu ? -1 : 1;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

static int cmp_cu(const void *a, const void *b)
{
    const occ_ev *x = a, *y = b;
    if (x->cu != y->cu)
        return x->cu < y->cu ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

/* The three orders below are (key..., time order) with the events built in time order
 * (ord = position). qsort on them was a quarter of `bubbles` on a 65,536-workgroup trace;
 * keys are small (CUs, SIMDs, slots), so the same permutation comes from stable counting
 * passes, least significant key first, starting from time order. A key spanning more
 * than COUNT_MAX values (a hostile file) leaves it to qsort: the same order either way
 * (the comparators are total: ord is unique). */
#define COUNT_MAX 65536

enum { K_CU, K_SIMD, K_SLOT };

static int32_t key_of(const occ_ev *x, int k) { return k == K_CU ? x->cu : k == K_SIMD ? x->simd : x->slot; }

/* src stably reordered by key k (equal keys keep their order) into dst; false: the keys
 * span too many values, dst not written. */
static bool count_pass(const occ_ev *src, occ_ev *dst, size_t n, int k)
{
    if (n == 0)
        return true;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < n; i++) {
        int32_t v = key_of(&src[i], k);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    int64_t span = (int64_t)hi - lo; /* >= 0: n > 0 */
    if (span < 0 || span >= COUNT_MAX)
        return false;
    size_t nb = (size_t)span + 1, *at = calloc(nb, sizeof *at);
    if (!at)
        abort();
    for (size_t i = 0; i < n; i++)
        at[key_of(&src[i], k) - lo]++;
    for (size_t b = 0, sum = 0; b < nb; b++) {
        size_t c = at[b];
        at[b] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++)
        dst[at[key_of(&src[i], k) - lo]++] = src[i];
    free(at);
    return true;
}

/* e in the order of keys[0], keys[1], ..., then time: what qsort(cmp) gives. The passes
 * go back and forth between e and one buffer; one copy at the end at most. */
static void sort_by(occ_ev *e, size_t n, const int *keys, int nk, int (*cmp)(const void *, const void *), bool general)
{
    if (n < 2)
        return;
    occ_ev *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        abort();
    for (size_t i = 0; i < n; i++) /* back to time order: ord is a permutation of 0..n-1 */
        tmp[e[i].ord] = e[i];
    occ_ev *cur = tmp, *other = e;
    bool counted = !general;
    for (int k = nk; k-- > 0 && counted;) {
        counted = count_pass(cur, other, n, keys[k]);
        if (counted) {
            occ_ev *t = cur;
            cur = other;
            other = t;
        }
    }
    if (cur != e)
        memcpy(e, cur, n * sizeof *e);
    if (!counted)
        qsort(e, n, sizeof *e, cmp);
    free(tmp);
}

/* Slot order: each start is closed by the next end of its (CU, SIMD, slot); also
 * the peak per SIMD (a level over the events of one SIMD in time order, which
 * the slot order keeps per slot only: counted in the SIMD pass below). */
static void pair_waves(occ_ev *e, size_t n, int se, facts_acc *a, fp_lt_se *s)
{
    static const int keys[] = {K_CU, K_SIMD, K_SLOT};
    sort_by(e, n, keys, 3, cmp_slot, a->general);
    for (size_t i = 0; i + 1 < n; i++) {
        if (!e[i].start || e[i + 1].start || e[i + 1].cu != e[i].cu || e[i + 1].simd != e[i].simd ||
            e[i + 1].slot != e[i].slot)
            continue;
        FP_GROW(a->w, a->nw, a->capw);
        a->w[a->nw++] = (occ_wave){se, e[i].cu, e[i].simd, e[i].slot, e[i].time, e[i + 1].time - e[i].time};
    }
    for (size_t i = 0; i < n; i++)
        if (i == 0 || e[i].cu != e[i - 1].cu || e[i].simd != e[i - 1].simd)
            s->simds += 1;
}

static int cmp_simd(const void *a, const void *b)
{
    const occ_ev *x = a, *y = b;
    if (x->cu != y->cu)
        return x->cu < y->cu ? -1 : 1;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

/* Highest level of resident waves over runs of equal `key` (in time order). */
static int64_t peak_level(const occ_ev *e, size_t n, int (*same)(const occ_ev *, const occ_ev *))
{
    int64_t peak = 0, lvl = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && !same(&e[i], &e[i - 1]))
            lvl = 0;
        lvl += e[i].start ? 1 : -1;
        if (lvl > peak)
            peak = lvl;
    }
    return peak;
}

static int same_simd(const occ_ev *a, const occ_ev *b) { return a->cu == b->cu && a->simd == b->simd; }
static int same_cu(const occ_ev *a, const occ_ev *b) { return a->cu == b->cu; }

/* CU order: CUs used, peak per CU, bursts of starts (workgroup launches). */
static void cu_pass(occ_ev *e, size_t n, facts_acc *a, fp_lt_se *s)
{
    static const int by_simd[] = {K_CU, K_SIMD}, by_cu[] = {K_CU};
    sort_by(e, n, by_simd, 2, cmp_simd, a->general);
    int64_t p = peak_level(e, n, same_simd);
    if (p > a->peak_simd)
        a->peak_simd = p;
    sort_by(e, n, by_cu, 1, cmp_cu, a->general);
    p = peak_level(e, n, same_cu);
    if (p > a->peak_cu)
        a->peak_cu = p;
    size_t burst = 0;
    int64_t last = 0;
    for (size_t i = 0; i < n; i++) {
        bool new_cu = i == 0 || e[i].cu != e[i - 1].cu;
        if (new_cu) {
            s->cus += 1;
            if (burst)
                a->burst_hist[burst > 64 ? 64 : burst]++;
            burst = 0;
        }
        if (!e[i].start)
            continue;
        if (burst && e[i].time - last > FP_WD_BURST_GAP) {
            a->burst_hist[burst > 64 ? 64 : burst]++;
            burst = 0;
        }
        burst++;
        last = e[i].time;
    }
    if (burst)
        a->burst_hist[burst > 64 ? 64 : burst]++;
}

/* Event times beyond 2^50 cycles (~6 days at 2 GHz) are not a kernel trace (the
 * bubbles walk's bound): such events are dropped, so no difference can overflow. */
#define FP_WD_MAX_CYCLE ((int64_t)1 << 50)

/* ---- the same facts in one pass in time order (the usual case) ----
 *
 * pair_waves and cu_pass sort the SE's events three times (by slot, by SIMD, by CU)
 * only to walk each key's events in time order; with every (CU, SIMD, slot) given a
 * dense number, one walk in time order keeps each key's state in a table instead:
 * the previous event of each slot (a start closed by the slot's next event, if an
 * end, is a wave), the level of each SIMD and CU, each CU's current burst. Dense
 * numbers are offsets from the keys' minima, in (CU, SIMD, slot) order, so a stable
 * counting pass over the waves by slot number gives pair_waves' slot order exactly.
 * The tables cost their size: when the keys' spans multiply past DENSE_MAX(n) (a
 * hostile or exotic file), the sorting way above runs instead - the same facts. */
#define DENSE_MAX(n) (4 * (n) + 4096)

/* One wave found by the walk: its slot's and CU's dense numbers, in end order. */
typedef struct dense_wave {
    int64_t b, e;
    uint32_t slot, cu;
} dense_wave;

/* One CU's busy time (the union of its waves' residencies) as cu_busy needs it. */
struct cu_len {
    int se, cu;
    int64_t len, waves;
};

/* The keys' spans from their minima and maxima: false when their product passes
 * DENSE_MAX(n). */
static bool dense_spans(const int32_t lo[3], const int32_t hi[3], size_t n, uint64_t span[3])
{
    uint64_t prod = 1;
    for (int k = 0; k < 3; k++) {
        span[k] = (uint64_t)((int64_t)hi[k] - lo[k]) + 1; /* <= 2^32 */
        if (span[k] > DENSE_MAX((uint64_t)n) || (prod *= span[k]) > DENSE_MAX((uint64_t)n))
            return false;
    }
    return true;
}

/* The waves w[0..n) (end order) into out as occ_waves in slot order: a stable counting
 * pass by slot number, each slot's (SE, CU, SIMD, slot) numbers made once (spans sp from
 * lo) and copied as one 16-byte run instead of divided out of its number per wave. */
_Static_assert(offsetof(occ_wave, cu) == 4 && offsetof(occ_wave, simd) == 8 && offsetof(occ_wave, slot) == 12,
               "se, cu, simd, slot are one 16-byte run");
static void dense_scatter(const dense_wave *w, size_t n, const int32_t lo[3], const uint64_t sp[3], int se, occ_wave *out)
{
    size_t nb = (size_t)(sp[0] * sp[1] * sp[2]);
    size_t *at = calloc(nb + 1, sizeof *at);
    int32_t(*key)[4] = malloc((nb + 1) * sizeof *key);
    if (!at || !key)
        abort();
    for (size_t i = 0; i < n; i++)
        at[w[i].slot + 1]++;
    size_t b = 0;
    for (uint64_t c = 0; c < sp[0]; c++)
        for (uint64_t m = 0; m < sp[1]; m++)
            for (uint64_t l = 0; l < sp[2]; l++, b++) {
                key[b][0] = se;
                key[b][1] = (int32_t)(lo[0] + (int64_t)c);
                key[b][2] = (int32_t)(lo[1] + (int64_t)m);
                key[b][3] = (int32_t)(lo[2] + (int64_t)l);
                at[b + 1] += at[b];
            }
    for (size_t i = 0; i < n; i++) {
        occ_wave *o = &out[at[w[i].slot]++];
        memcpy(o, key[w[i].slot], sizeof key[0]);
        o->begin = w[i].b;
        o->cycles = w[i].e - w[i].b;
    }
    free(at);
    free(key);
}

/* Per-key state of the walk. */
typedef struct dense_tabs {
    int8_t *last;      /* per slot: 1 when its last event is a start */
    int64_t *last_t;   /* per slot: its time */
    int64_t *lvl_simd; /* per (CU, SIMD): resident waves */
    int64_t *lvl_cu, *burst_last;
    size_t *burst;     /* per CU: starts in the current burst */
    uint8_t *seen_simd, *seen_cu;
} dense_tabs;

/* Each CU's busy time from the waves in end order (w[0..nw), ends nondecreasing): walked
 * from the last end back, each CU's current block [cb, ce] in a table; a wave ending
 * before its CU's block begins closes the block - the measure of the union of the CU's
 * residencies, which union_len's sweep in begin order gives too. Appended to cl in CU
 * order. */
static void dense_busy(const dense_wave *w, size_t nw, int se, int32_t culo, size_t ncu, cu_len **cl, size_t *ncl,
                       size_t *capcl)
{
    int64_t *cb = malloc((ncu + 1) * sizeof *cb), *ce = malloc((ncu + 1) * sizeof *ce),
            *tot = calloc(ncu + 1, sizeof *tot), *cnt = calloc(ncu + 1, sizeof *cnt);
    if (!cb || !ce || !tot || !cnt)
        abort();
    for (size_t i = nw; i-- > 0;) {
        size_t c = w[i].cu;
        if (cnt[c]++ == 0) {
            cb[c] = w[i].b;
            ce[c] = w[i].e;
        } else if (w[i].e < cb[c]) {
            tot[c] += ce[c] - cb[c];
            cb[c] = w[i].b;
            ce[c] = w[i].e;
        } else if (w[i].b < cb[c]) {
            cb[c] = w[i].b;
        }
    }
    for (size_t c = 0; c < ncu; c++) {
        if (!cnt[c])
            continue;
        FP_GROW(*cl, *ncl, *capcl);
        (*cl)[(*ncl)++] = (cu_len){se, (int)((int64_t)culo + (int64_t)c), tot[c] + (ce[c] - cb[c]), cnt[c]};
    }
    free(cb);
    free(ce);
    free(tot);
    free(cnt);
}

static void *dense_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

static void dense_tabs_free(dense_tabs *t)
{
    free(t->last);
    free(t->last_t);
    free(t->lvl_simd);
    free(t->lvl_cu);
    free(t->burst_last);
    free(t->burst);
    free(t->seen_simd);
    free(t->seen_cu);
}

/* The walk itself over S's events in time order: each slot's last event (1 a start, 2 an
 * end, 0 none yet), the levels of each SIMD and CU, each CU's current burst; the waves
 * into w (end order), what it returns. Inlined twice: with the spans of the keys found by
 * one_se (sp1, sp2) and the time filter, and with the spans fixed at 10 x 10 x 10 for an
 * SE whose every key is one digit and every time in [0, 10^8) (small_keys), where the
 * filter keeps everything and the index is two constant multiplies; there the walk also
 * counts the SE's starts (one_se had no pass to do it). */
static inline __attribute__((always_inline)) size_t dense_walk(const fp_occ_se *S, const int32_t lo[3], size_t sp1,
                                                                size_t sp2, bool filter, dense_tabs *t, dense_wave *w,
                                                                facts_acc *a, int64_t *peaks, int64_t *starts)
{
    size_t nw = 0;
    int64_t peak_simd = 0, peak_cu = 0, nstart = 0;
    bool zero_len = false;
    for (size_t i = 0; i < S->n; i++) {
        const fp_occ_event *x = &S->ev[i];
        if (filter && (x->time < 0 || x->time > FP_WD_MAX_CYCLE)) /* as one_se */
            continue;
        size_t c = (size_t)((int64_t)x->cu - lo[0]), m = c * sp1 + (size_t)((int64_t)x->simd - lo[1]),
               k = m * sp2 + (size_t)((int64_t)x->slot - lo[2]);
        if (!x->start && t->last[k] == 1) { /* a start closed by its slot's next event: a wave */
            w[nw++] = (dense_wave){t->last_t[k], x->time, (uint32_t)k, (uint32_t)c};
            zero_len |= x->time == t->last_t[k];
        }
        t->last[k] = x->start ? 1 : 2;
        t->last_t[k] = x->time;
        int64_t d = x->start ? 1 : -1;
        t->lvl_simd[m] += d;
        t->lvl_cu[c] += d;
        peak_simd = t->lvl_simd[m] > peak_simd ? t->lvl_simd[m] : peak_simd;
        peak_cu = t->lvl_cu[c] > peak_cu ? t->lvl_cu[c] : peak_cu;
        if (!x->start)
            continue;
        nstart++;
        if (t->burst[c] && x->time - t->burst_last[c] > FP_WD_BURST_GAP) {
            a->burst_hist[t->burst[c] > 64 ? 64 : t->burst[c]]++;
            t->burst[c] = 0;
        }
        t->burst[c]++;
        t->burst_last[c] = x->time;
    }
    a->zero_len |= zero_len;
    peaks[0] = peak_simd;
    peaks[1] = peak_cu;
    *starts = nstart;
    return nw;
}

/* The walk over the n events of S one_se keeps (time order), whose keys lie in
 * [lo, hi]: what pair_waves and cu_pass find, with the SE's waves appended to a->w in
 * slot order and its CUs' busy times to a->cl. small: S->small_keys, lo = 0 and hi = 9
 * (then s->waves is counted here). false: the keys span too much (nothing done). */
static bool dense_se(const fp_occ_se *S, size_t n, const int32_t lo[3], const int32_t hi[3], bool small, facts_acc *a,
                     fp_lt_se *s)
{
    uint64_t sp[3];
    if (n == 0)
        return true;
    if (!dense_spans(lo, hi, n, sp))
        return false;
    const int se = S->se;
    size_t ncu = (size_t)sp[0], nsimd = ncu * (size_t)sp[1], nslot = nsimd * (size_t)sp[2];
    dense_tabs t = {dense_calloc(nslot, 1), dense_calloc(nslot, sizeof *t.last_t), dense_calloc(nsimd, sizeof *t.lvl_simd),
                    dense_calloc(ncu, sizeof *t.lvl_cu), dense_calloc(ncu, sizeof *t.burst_last),
                    dense_calloc(ncu, sizeof *t.burst), dense_calloc(nsimd, 1), dense_calloc(ncu, 1)};
    /* a wave takes two events */
    dense_wave *w = malloc((n / 2 + 1) * sizeof *w);
    if (!w)
        abort();
    int64_t peaks[2], starts;
    static const int32_t zero[3] = {0, 0, 0}; /* small: lo, as a constant for the index */
    size_t nw = small ? dense_walk(S, zero, 10, 10, false, &t, w, a, peaks, &starts)
                      : dense_walk(S, lo, (size_t)sp[1], (size_t)sp[2], true, &t, w, a, peaks, &starts);
    if (small)
        s->waves = starts;
    /* the SIMDs and CUs seen: those with a slot that had an event (not a store per event) */
    for (size_t m = 0, k = 0; m < nsimd; m++)
        for (size_t j = 0; j < (size_t)sp[2]; j++, k++)
            t.seen_simd[m] |= t.last[k] != 0;
    for (size_t c = 0, m = 0; c < ncu; c++)
        for (size_t j = 0; j < (size_t)sp[1]; j++, m++)
            t.seen_cu[c] |= t.seen_simd[m];
    for (size_t c = 0; c < ncu; c++) {
        s->cus += t.seen_cu[c];
        if (t.burst[c])
            a->burst_hist[t.burst[c] > 64 ? 64 : t.burst[c]]++;
    }
    for (size_t m = 0; m < nsimd; m++)
        s->simds += t.seen_simd[m];
    a->peak_simd = peaks[0] > a->peak_simd ? peaks[0] : a->peak_simd;
    a->peak_cu = peaks[1] > a->peak_cu ? peaks[1] : a->peak_cu;
    FP_RESERVE(a->w, a->nw, a->capw, nw);
    dense_scatter(w, nw, lo, sp, se, a->w + a->nw);
    a->nw += nw;
    dense_busy(w, nw, se, lo[0], ncu, &a->cl, &a->ncl, &a->capcl);
    free(w);
    dense_tabs_free(&t);
    return true;
}


#define SMALL_MIN_EVENTS 512

static void one_se(const fp_occ_se *S, const fp_realtime *rt, facts_acc *a, fp_lt_se *s)
{
    memset(s, 0, sizeof *s);
    s->se = S->se;
    size_t n = 0;
    int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    /* every key one digit and every time in [0, 10^8) (the reader saw each row): the
     * filter keeps all events, and [0, 9] holds the keys - dense numbers from 0 give
     * the walk the same orders and facts as from the keys' minima, with no pass here;
     * from a->small_min events on (SMALL_MIN_EVENTS: the 1000-slot tables cost what the
     * pass over a few hundred events does; fp_trace_facts_small_all: 1) */
    const bool small = S->small_keys && !a->general && S->n >= a->small_min && S->n > 0;
    if (small) {
        n = S->n;
        s->t0 = S->ev[0].time;
        s->t1 = S->ev[n - 1].time;
        hi[0] = hi[1] = hi[2] = 9;
    }
    for (size_t i = 0; i < S->n && !small; i++) {
        const fp_occ_event *x = &S->ev[i];
        if (x->time < 0 || x->time > FP_WD_MAX_CYCLE)
            continue;
        s->t0 = n == 0 ? x->time : s->t0; /* the events are in time order */
        s->t1 = x->time;
        s->waves += x->start != 0;
        if (n++ == 0) {
            lo[0] = hi[0] = x->cu;
            lo[1] = hi[1] = x->simd;
            lo[2] = hi[2] = x->slot;
        }
        lo[0] = x->cu < lo[0] ? x->cu : lo[0];
        hi[0] = x->cu > hi[0] ? x->cu : hi[0];
        lo[1] = x->simd < lo[1] ? x->simd : lo[1];
        hi[1] = x->simd > hi[1] ? x->simd : hi[1];
        lo[2] = x->slot < lo[2] ? x->slot : lo[2];
        hi[2] = x->slot > hi[2] ? x->slot : hi[2];
    }
    if (a->general || !dense_se(S, n, lo, hi, small, a, s)) { /* the sorting way, on a copy */
        a->dense_all = false;
        occ_ev *e = malloc((n + 1) * sizeof *e);
        if (!e)
            abort();
        size_t m = 0;
        for (size_t i = 0; i < S->n; i++) {
            const fp_occ_event *x = &S->ev[i];
            if (x->time >= 0 && x->time <= FP_WD_MAX_CYCLE) {
                e[m] = (occ_ev){x->cu, x->simd, x->slot, x->start, x->time, m};
                m++;
            }
        }
        pair_waves(e, n, S->se, a, s);
        cu_pass(e, n, a, s);
        free(e);
    }
    double mhz = fp_realtime_mhz(rt, fp_realtime_se(rt, S->se));
    s->clock_mhz = mhz >= FP_WD_MIN_MHZ && mhz <= FP_WD_MAX_MHZ ? fp_optd_of(mhz) : fp_optd_none();
}

/* ---- the blocks ---- */

static void span_and_clock(const fp_occupancy *occ, const fp_realtime *rt, fp_launch_trace *lt)
{
    double lo = 0, hi = 0, mhz = 0;
    size_t clocked = 0, busy = 0;
    for (size_t i = 0; i < lt->n_per_se; i++) {
        const fp_lt_se *s = &lt->per_se[i];
        if (!occ->ses[i].n || (s->t0 == 0 && s->t1 == 0))
            continue;
        busy++;
        if (s->t1 - s->t0 > lt->span_cycles)
            lt->span_cycles = s->t1 - s->t0;
        const fp_rt_se *r = fp_realtime_se(rt, (int)s->se);
        double a, z;
        if (!s->clock_mhz.known || !fp_realtime_ns(rt, r, s->t0, &a) || !fp_realtime_ns(rt, r, s->t1, &z))
            continue;
        lo = clocked == 0 || a < lo ? a : lo;
        hi = clocked == 0 || z > hi ? z : hi;
        mhz += s->clock_mhz.v;
        clocked++;
    }
    /* every SE with events must have its clock: SEs' cycle counters have different offsets */
    if (clocked && clocked == busy) {
        lt->span_ns = fp_optd_of(hi - lo);
        lt->clock_mhz = fp_optd_of(mhz / (double)clocked);
        lt->clock_source = fp_model_strdup("realtime.json");
    }
}

static int64_t burst_mode(const size_t *h)
{
    size_t best = 0;
    for (size_t k = 1; k <= 64; k++)
        if (h[k] > h[best])
            best = k;
    return (int64_t)best;
}

static int cmp_wd_wave(const void *a, const void *b)
{
    const fp_wd_wave *x = a, *y = b;
    if (x->se != y->se)
        return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_occ_wave(const void *a, const void *b)
{
    const occ_wave *x = a, *y = b;
    if (x->se != y->se)
        return x->se < y->se ? -1 : 1;
    if (x->cu != y->cu)
        return x->cu < y->cu ? -1 : 1;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

typedef struct occ_iv {
    int64_t b, e;
} occ_iv;

static int cmp_iv(const void *a, const void *b)
{
    const occ_iv *x = a, *y = b;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* Length of the union of iv[0..n) (sorted in place): the time at least one is open. */
static int64_t union_len(occ_iv *iv, size_t n)
{
    if (!n)
        return 0;
    qsort(iv, n, sizeof *iv, cmp_iv);
    int64_t tot = 0, cb = iv[0].b, ce = iv[0].e;
    for (size_t i = 1; i < n; i++) {
        if (iv[i].b > ce) {
            tot += ce - cb;
            cb = iv[i].b;
            ce = iv[i].e;
        } else if (iv[i].e > ce) {
            ce = iv[i].e;
        }
    }
    return tot + (ce - cb);
}

/* Per-CU busy time: the union of its waves' residencies (resident waves overlap
 * once). The kernel ends when its busiest CU does, so the critical CU against
 * the mean CU is what rebalancing can save (work_imbalance's gain, docs/rules.md);
 * the longest single wave overstates it when several waves share a CU. a->w is
 * sorted by (SE, CU, ...): each CU's waves are one run. */
static void cu_busy(facts_acc *a, bool walked, fp_workdist *wd)
{
    if (!walked) { /* the sorting way: each (SE, CU)'s waves are one run of a->w */
        a->ncl = 0;
        occ_iv *iv = malloc((a->nw + 1) * sizeof *iv);
        if (!iv)
            abort();
        for (size_t i0 = 0; i0 < a->nw;) {
            size_t i1 = i0;
            while (i1 < a->nw && a->w[i1].se == a->w[i0].se && a->w[i1].cu == a->w[i0].cu) {
                iv[i1 - i0] = (occ_iv){a->w[i1].begin, a->w[i1].begin + a->w[i1].cycles};
                i1++;
            }
            FP_GROW(a->cl, a->ncl, a->capcl);
            a->cl[a->ncl++] = (cu_len){a->w[i0].se, a->w[i0].cu, union_len(iv, i1 - i0), (int64_t)(i1 - i0)};
            i0 = i1;
        }
        free(iv);
    }
    double *busy = malloc((a->ncl + 1) * sizeof *busy);
    if (!busy)
        abort();
    size_t ncu = 0;
    double sum = 0;
    for (size_t i = 0; i < a->ncl; i++) {
        const cu_len *c = &a->cl[i];
        if (ncu == 0 || c->len > wd->critical_cu.busy_cycles)
            wd->critical_cu = (fp_wd_cu_ref){c->se, c->cu, c->len, c->waves};
        busy[ncu++] = (double)c->len;
        sum += (double)c->len;
    }
    quantiles(busy, ncu, &wd->cu_busy_cycles, a->general);
    if (ncu) {
        double mean = sum / (double)ncu;
        wd->cu_busy_mean = fp_optd_of(mean);
        if (wd->cu_busy_cycles.max > 0)
            wd->cu_busy_excess_pct = fp_optd_of(100.0 * (1.0 - mean / wd->cu_busy_cycles.max));
    }
    free(busy);
}

/* Per-wave and per-CU distribution over occupancy.json's waves. */
static void occ_distribution(facts_acc *a, fp_workdist *wd)
{
    /* pair_waves appends them in this order already (SEs in order, slot order inside):
     * when strictly increasing - no two equal, so any sort leaves them as they are - the
     * n log n sort is skipped */
    bool sorted = true;
    /* dense_se's waves: SEs in increasing order, slots in (CU, SIMD, slot) order, and in a
     * slot each wave begins at or after the end of the one before - strictly after its
     * begin unless that one had no cycles */
    for (size_t i = 1; i < a->nw && sorted && !(a->dense_all && !a->zero_len); i++)
        sorted = cmp_occ_wave(&a->w[i - 1], &a->w[i]) < 0;
    if (a->nw && !sorted)
        qsort(a->w, a->nw, sizeof *a->w, cmp_occ_wave);
    double *v = malloc((a->nw + 1) * sizeof *v), *cu = malloc((a->nw + 1) * sizeof *cu),
           *cun = malloc((a->nw + 1) * sizeof *cun);
    if (!v || !cu || !cun)
        abort();
    size_t ncu = 0, crit = 0;
    for (size_t i = 0; i < a->nw; i++) {
        v[i] = (double)a->w[i].cycles;
        if (a->w[i].cycles > a->w[crit].cycles)
            crit = i;
        if (i == 0 || a->w[i].se != a->w[i - 1].se || a->w[i].cu != a->w[i - 1].cu) {
            cu[ncu] = cun[ncu] = 0;
            ncu++;
        }
        cu[ncu - 1] += (double)a->w[i].cycles;
        cun[ncu - 1] += 1;
    }
    if (a->nw) {
        const occ_wave *c = &a->w[crit];
        wd->critical = (fp_wd_wave_ref){c->se, c->cu, c->simd, c->slot, c->begin, c->cycles, NULL,
                                        fp_optd_none(), fp_optd_none()};
    }
    quantiles(v, a->nw, &wd->wave_cycles, a->general);
    double thr = FP_WD_HEAVY * wd->wave_cycles.p50;
    /* the waves of one (SE, CU) are adjacent in this order: a CU is new when the
     * previous heavy wave ran on another one */
    const occ_wave *last = NULL;
    for (size_t i = 0; i < a->nw; i++) {
        if (!((double)a->w[i].cycles > thr))
            continue;
        wd->heavy_waves++;
        wd->heavy_cus += !last || last->se != a->w[i].se || last->cu != a->w[i].cu;
        last = &a->w[i];
    }
    quantiles(cu, ncu, &wd->cu_cycles, a->general);
    quantiles(cun, ncu, &wd->cu_waves, a->general);
    wd->wave_imbalance = ratio(wd->wave_cycles.max, wd->wave_cycles.p50);
    wd->cu_imbalance = ratio(wd->cu_cycles.max, wd->cu_cycles.p50);
    /* dense_se's busy times are per SE entry and CU: the runs of a->w when every SE was
     * walked, the SE numbers are distinct and a->w needed no sort */
    cu_busy(a, a->dense_all && sorted, wd);
    free(v);
    free(cu);
    free(cun);
}

/* w in cmp_wd_wave's order: the four numbers packed into one key when each is in
 * 0..65535 and no two waves share them (wave files: a name each), so the radix order
 * (fp_order_u64) is the comparator's; else qsort, as before. */
static void order_traced(fp_wd_wave *w, size_t n, bool general)
{
    if (n < 2)
        return;
    uint64_t *key = malloc((n + 1) * sizeof *key);
    size_t *perm = malloc((n + 1) * sizeof *perm);
    if (!key || !perm)
        abort();
    bool packed = !general;
    for (size_t i = 0; i < n; i++) {
        packed = packed && ((unsigned)w[i].se | (unsigned)w[i].simd | (unsigned)w[i].slot | (unsigned)w[i].id) < 65536;
        key[i] = (uint64_t)w[i].se << 48 | (uint64_t)w[i].simd << 32 | (uint64_t)w[i].slot << 16 | (uint64_t)w[i].id;
    }
    if (packed) {
        fp_order_u64(key, n, perm);
        for (size_t i = 1; i < n && packed; i++)
            packed = key[perm[i]] != key[perm[i - 1]];
    }
    if (packed)
        fp_order_apply(w, n, sizeof *w, perm);
    else
        qsort(w, n, sizeof *w, cmp_wd_wave);
    free(key);
    free(perm);
}

/* Work of the waves traced in detail. */
static void traced_distribution(fp_wd_wave *w, size_t n, bool have_loop, fp_workdist *wd, fp_launch_trace *lt,
                                bool general)
{
    order_traced(w, n, general);
    double *c = malloc((n + 1) * sizeof *c), *in = malloc((n + 1) * sizeof *in), *it = malloc((n + 1) * sizeof *it);
    if (!c || !in || !it)
        abort();
    size_t crit = 0;
    int64_t b0 = 0, e1 = 0;
    for (size_t i = 0; i < n; i++) {
        c[i] = (double)(w[i].end - w[i].begin);
        in[i] = (double)w[i].insts;
        it[i] = (double)w[i].iterations;
        if (w[i].end - w[i].begin > w[crit].end - w[crit].begin)
            crit = i;
        b0 = i == 0 || w[i].begin < b0 ? w[i].begin : b0;
        e1 = i == 0 || w[i].end > e1 ? w[i].end : e1;
    }
    lt->wave_files = (int64_t)n;
    lt->wave_files_span_cycles = e1 - b0;
    if (n) {
        const fp_wd_wave *x = &w[crit];
        char name[96];
        snprintf(name, sizeof name, "se%d_sm%d_sl%d_wv%d.json", x->se, x->simd, x->slot, x->id);
        wd->critical_traced = (fp_wd_wave_ref){x->se, x->cu, x->simd, x->slot, x->begin, x->end - x->begin,
                                               fp_model_strdup(name), fp_optd_of((double)x->insts),
                                               have_loop ? fp_optd_of((double)x->iterations) : fp_optd_none()};
    }
    quantiles(c, n, &wd->traced_cycles, general);
    quantiles(in, n, &wd->traced_instructions, general);
    if (have_loop) {
        wd->traced_iterations = calloc(1, sizeof *wd->traced_iterations);
        if (!wd->traced_iterations)
            abort();
        quantiles(it, n, wd->traced_iterations, general);
    }
    wd->traced_imbalance = ratio(wd->traced_cycles.max, wd->traced_cycles.p50);
    free(c);
    free(in);
    free(it);
}

struct fp_trace_part {
    fp_launch_trace *lt;
    fp_workdist *wd;
    bool general; /* fp_trace_facts_general's: the waves' part too */
};

static fp_trace_part *trace_occ(const fp_occupancy *occ, const fp_realtime *rt, bool general, size_t small_min,
                                fp_occupancy *drop)
{
    if (!occ || !occ->n)
        return NULL;
    fp_launch_trace *lt = calloc(1, sizeof *lt);
    fp_workdist *wd = calloc(1, sizeof *wd);
    fp_trace_part *part = malloc(sizeof *part);
    facts_acc a;
    memset(&a, 0, sizeof a);
    a.general = general;
    a.small_min = small_min;
    if (!lt || !wd || !part || !(lt->per_se = calloc(occ->n, sizeof *lt->per_se)))
        abort();
    lt->n_per_se = occ->n;
    lt->traced_ses = (int64_t)occ->n;
    a.dense_all = true;
    size_t most = 0; /* waves: a wave takes two events */
    for (size_t i = 0; i < occ->n; i++) {
        a.dense_all = a.dense_all && (i == 0 || occ->ses[i].se > occ->ses[i - 1].se);
        most += occ->ses[i].n / 2;
    }
    FP_RESERVE(a.w, a.nw, a.capw, most + 1);
    for (size_t i = 0; i < occ->n; i++) {
        fp_lt_se *s = &lt->per_se[i];
        one_se(&occ->ses[i], rt, &a, s);
        lt->waves += s->waves;
        lt->cus += s->cus;
        lt->simds += s->simds;
        if (s->cus > lt->max_cus_per_se)
            lt->max_cus_per_se = s->cus;
    }
    lt->covers_ses = lt->max_cus_per_se > 1;
    int64_t mode = burst_mode(a.burst_hist);
    lt->wg_waves = mode > 0 ? fp_optd_of((double)mode) : fp_optd_none();
    lt->peak_waves_per_simd = a.peak_simd;
    lt->peak_waves_per_cu = a.peak_cu;
    span_and_clock(occ, rt, lt);
    if (drop) /* occ is drop: nothing below reads it */
        fp_occupancy_free(drop);
    occ_distribution(&a, wd);
    free(a.w);
    free(a.cl);
    part->lt = lt;
    part->wd = wd;
    part->general = general;
    return part;
}

/* ---- each SE's occupancy level over time (bubbles.json's occupancy block) ---- */

/* The reference way, one SE with events: two passes, the time between events spread
 * over the 16 buckets it covers in doubles. */
static void levels_general(const fp_occ_se *S, fp_bub_occ_se *o)
{
    /* waves already resident before the first event would drive the level
     * negative: shift by the lowest prefix so the level never goes below 0 */
    long lvl = 0, low = 0;
    for (size_t i = 0; i < S->n; i++) {
        lvl += S->ev[i].start ? 1 : -1;
        if (lvl < low)
            low = lvl;
    }
    o->t0 = S->ev[0].time;
    o->t1 = S->ev[S->n - 1].time;
    int64_t span = o->t1 - o->t0;
    o->n_buckets = span > 0 ? 16 : 0;
    double area = 0, bucket_area[16] = {0};
    lvl = -low;
    long peak = lvl;
    for (size_t i = 0; i < S->n; i++) {
        lvl += S->ev[i].start ? 1 : -1;
        if (lvl > peak)
            peak = lvl;
        if (i + 1 < S->n && span > 0) {
            int64_t a = S->ev[i].time, z = S->ev[i + 1].time;
            area += (double)lvl * (double)(z - a);
            /* spread [a, z) over the buckets it covers */
            while (a < z) {
                int bi = (int)((a - o->t0) * 16 / span);
                if (bi > 15)
                    bi = 15;
                int64_t bend = o->t0 + (int64_t)(((double)span * (bi + 1)) / 16.0);
                if (bend <= a)
                    bend = a + 1;
                int64_t seg_end = z < bend ? z : bend;
                bucket_area[bi] += (double)lvl * (double)(seg_end - a);
                a = seg_end;
            }
        }
    }
    o->peak = (int)peak;
    o->mean = span > 0 ? area / (double)span : (double)peak;
    for (int i = 0; i < o->n_buckets; i++)
        o->buckets[i] = bucket_area[i] / ((double)span / 16.0);
}

/* levels_general's numbers in one pass, in integers: with n events and a span below
 * 2^40 whose product is below 2^53, every term and partial sum of its double sums is
 * an integer below 2^53 - exact - so int64 sums converted once are the same doubles.
 * The level is kept from 0 and shifted by the lowest prefix at the end (the area less
 * low x the time summed, per bucket too); the bucket of a time is a cursor over the
 * 16 bucket starts (times only grow), each bucket's end computed once as
 * levels_general computes it per step, and the usual step, inside the cursor's
 * bucket, is one compare. false: out of those bounds, or times going back (the
 * reader sorts them: not expected), and o is untouched. */
static bool levels_fast(const fp_occ_se *S, fp_bub_occ_se *o)
{
    const size_t n = S->n;
    const int64_t t0 = S->ev[0].time, t1 = S->ev[n - 1].time;
    const uint64_t uspan = (uint64_t)t1 - (uint64_t)t0;
    if (t1 <= t0 || uspan >= ((uint64_t)1 << 40) || (uint64_t)n > (((uint64_t)1 << 53) - 1) / uspan)
        return false;
    const int64_t span = (int64_t)uspan;
    /* bend[b]: levels_general's end of bucket b; first[b]: the first time whose bucket
     * index (t - t0) * 16 / span is b (16: past the last) */
    int64_t bend[16], first[17];
    for (int b = 0; b < 16; b++)
        bend[b] = t0 + (int64_t)(((double)span * (b + 1)) / 16.0);
    for (int b = 0; b <= 16; b++)
        first[b] = t0 + (b * span + 15) / 16;
    int64_t lvl = 0, low = 0, high = 0, area = 0, bucket[16] = {0}, covered[16] = {0};
    /* the cursor's bucket: its sums in registers until the cursor moves on */
    int cb = 0;
    int64_t b_area = 0, b_cov = 0, b_end = bend[0], a = t0;
    for (size_t i = 0; i + 1 < n; i++) {
        lvl += S->ev[i].start ? 1 : -1;
        low = lvl < low ? lvl : low;
        high = lvl > high ? lvl : high;
        const int64_t z = S->ev[i + 1].time; /* the level holds over [a, z) */
        if (z == a)
            continue;
        if (z < a)
            return false;
        const int64_t d = z - a, ld = lvl * d;
        area += ld;
        /* a < z <= b_end <= first[cb + 1]: [a, z) is all in bucket cb */
        if (z <= b_end) {
            b_area += ld;
            b_cov += d;
            a = z;
            continue;
        }
        do { /* levels_general's loop, the index from the cursor */
            while (cb < 15 && a >= first[cb + 1]) {
                bucket[cb] = b_area;
                covered[cb] = b_cov;
                b_area = b_cov = 0;
                b_end = bend[++cb];
            }
            const int64_t e = b_end > a ? b_end : a + 1, seg_end = z < e ? z : e;
            b_area += lvl * (seg_end - a);
            b_cov += seg_end - a;
            a = seg_end;
        } while (a < z);
    }
    bucket[cb] = b_area;
    covered[cb] = b_cov;
    lvl += S->ev[n - 1].start ? 1 : -1;
    low = lvl < low ? lvl : low;
    high = lvl > high ? lvl : high;
    o->t0 = t0;
    o->t1 = t1;
    o->n_buckets = 16;
    o->peak = (int)(high - low);
    o->mean = (double)(area - low * span) / (double)span;
    for (int b = 0; b < 16; b++)
        o->buckets[b] = (double)(bucket[b] - low * covered[b]) / ((double)span / 16.0);
    return true;
}

static fp_bub_occ_se *occ_levels(const fp_occupancy *occ, bool general)
{
    fp_bub_occ_se *out = calloc(occ->n + 1, sizeof *out);
    if (!out)
        abort();
    for (size_t s = 0; s < occ->n; s++) {
        const fp_occ_se *S = &occ->ses[s];
        fp_bub_occ_se *o = &out[s];
        o->se = S->se;
        o->events = S->n;
        if (S->n && (general || !levels_fast(S, o)))
            levels_general(S, o);
    }
    return out;
}

fp_bub_occ_se *fp_occ_levels(const fp_occupancy *occ) { return occ_levels(occ, false); }
fp_bub_occ_se *fp_occ_levels_general(const fp_occupancy *occ) { return occ_levels(occ, true); }

fp_trace_part *fp_trace_facts_occ(const fp_occupancy *occ, const fp_realtime *rt)
{
    return trace_occ(occ, rt, false, SMALL_MIN_EVENTS, NULL);
}

fp_trace_part *fp_trace_facts_occ_drop(fp_occupancy *occ, const fp_realtime *rt)
{
    return trace_occ(occ, rt, false, SMALL_MIN_EVENTS, occ);
}

void fp_trace_facts_waves(fp_trace_part *part, fp_wd_wave *waves, size_t n, bool have_loop, fp_launch_trace **ltp,
                          fp_workdist **wdp)
{
    *ltp = NULL;
    *wdp = NULL;
    if (!part)
        return;
    traced_distribution(waves, n, have_loop, part->wd, part->lt, part->general);
    *ltp = part->lt;
    *wdp = part->wd;
    free(part);
}

void fp_trace_part_free(fp_trace_part *part)
{
    if (!part)
        return;
    fp_model_free(&fp_launch_trace_schema, part->lt);
    free(part->lt);
    fp_model_free(&fp_workdist_schema, part->wd);
    free(part->wd);
    free(part);
}

void fp_trace_facts(const fp_occupancy *occ, const fp_realtime *rt, fp_wd_wave *waves, size_t n, bool have_loop,
                    fp_launch_trace **ltp, fp_workdist **wdp)
{
    fp_trace_facts_waves(fp_trace_facts_occ(occ, rt), waves, n, have_loop, ltp, wdp);
}

void fp_trace_facts_general(const fp_occupancy *occ, const fp_realtime *rt, fp_wd_wave *waves, size_t n, bool have_loop,
                            fp_launch_trace **ltp, fp_workdist **wdp)
{
    fp_trace_facts_waves(trace_occ(occ, rt, true, SIZE_MAX, NULL), waves, n, have_loop, ltp, wdp);
}

void fp_trace_facts_small_all(const fp_occupancy *occ, const fp_realtime *rt, fp_wd_wave *waves, size_t n,
                              bool have_loop, fp_launch_trace **ltp, fp_workdist **wdp)
{
    fp_trace_facts_waves(trace_occ(occ, rt, false, 1, NULL), waves, n, have_loop, ltp, wdp);
}

void fp_trace_facts_to_doc(const fp_bubbles *b, fp_bubbles_doc *d)
{
    d->launch_trace = NULL;
    d->workdist = NULL;
    if (b->launch_trace) {
        d->launch_trace = malloc(sizeof *d->launch_trace);
        if (!d->launch_trace)
            abort();
        fp_model_copy(&fp_launch_trace_schema, d->launch_trace, b->launch_trace);
    }
    if (b->workdist) {
        d->workdist = malloc(sizeof *d->workdist);
        if (!d->workdist)
            abort();
        fp_model_copy(&fp_workdist_schema, d->workdist, b->workdist);
    }
}
