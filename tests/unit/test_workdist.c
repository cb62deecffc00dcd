/* Issue 23: realtime.json, the trace's launch facts and work distribution (workdist.c),
 * back-edge kinds (loops.c), the CSV identity test (fp_kt_pick_traced) and SIMD fill. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "flyprof/bubbles.h"
#include "flyprof/fs.h"
#include "flyprof/kernel_trace.h"
#include "flyprof/launch.h"
#include "flyprof/loops.h"
#include "flyprof/realtime.h"
#include "flyprof/signals.h"
#include "flyprof/strbuf.h"
#include "flyprof/workdist.h"

static void test_realtime(void **state)
{
    (void)state;
    const char *j = "{\"SE0\":[[6624,201726513344206],[216676,201726513353802]],\"SE3\":[[4412,201726513344206],"
                    "[214464,201726513353802]],\"metadata\":{\"descriptor\":\"[gfx_clock, realtime_clock]\","
                    "\"frequency\":100000000}}";
    fp_realtime rt;
    fp_err e = {0};
    assert_int_equal(fp_realtime_parse(j, strlen(j), &rt, &e), 0);
    assert_int_equal(rt.n, 2);
    const fp_rt_se *s0 = fp_realtime_se(&rt, 0), *s3 = fp_realtime_se(&rt, 3);
    assert_non_null(s0);
    assert_null(fp_realtime_se(&rt, 1));
    /* 210052 cycles in 9596 ticks of 100 MHz = 95.96 us: 2188.95 MHz */
    assert_true(fabs(fp_realtime_mhz(&rt, s0) - 210052.0 / 95.96) < 1e-6);
    /* the same reference time on two SEs: their own cycles 6624 and 4412 */
    double a, b;
    assert_true(fp_realtime_ns(&rt, s0, 6624, &a));
    assert_true(fp_realtime_ns(&rt, s3, 4412, &b));
    assert_true(fabs(a - b) < 1e-3);
    fp_realtime_free(&rt);
    const char *bad[] = {"[]", "{\"SE0\":[[1]]}", "{\"SE0\":[]}", "{\"SE0\":[[1,2]],\"metadata\":{\"frequency\":-1}}",
                         "{\"SE0\":[[1,2]]} x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(fp_realtime_parse(bad[i], strlen(bad[i]), &rt, &e), -1);
        assert_int_equal(e.code, FP_BAD_INPUT);
        fp_err_clear(&e);
    }
}

static int cmp_d(const void *p, const void *r)
{
    double u = *(const double *)p, w = *(const double *)r;
    return (u > w) - (u < w);
}

static void test_quantiles(void **state)
{
    (void)state;
    double v[] = {5, 1, 4, 2, 3, 10, 6, 7, 8, 9};
    fp_wd_quant q;
    fp_wd_quantiles(v, 10, &q);
    /* nearest rank: p50 = 5th smallest, p90 = 9th */
    assert_true(q.n == 10 && q.min == 1 && q.p50 == 5 && q.p90 == 9 && q.max == 10);
    double one[] = {7};
    fp_wd_quantiles(one, 1, &q);
    assert_true(q.min == 7 && q.p50 == 7 && q.p90 == 7 && q.max == 7);
    fp_wd_quantiles(NULL, 0, &q);
    assert_true(q.n == 0 && q.max == 0);
    /* selection (not a sort) against a sort: sizes 1..300 and 20,000, orders that break
     * naive pivots (sorted, reversed, organ pipe, all equal, few values), duplicates,
     * and the inputs that take the sort (NaN, -0.0) */
    static double a[20000], b[20000];
    unsigned x = 99;
    for (int it = 0; it < 3000; it++) {
        size_t n = it == 2999 ? 20000 : 1 + (size_t)it % 300;
        int shape = it % 7;
        for (size_t i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            double r = (double)(x >> 8);
            a[i] = shape == 0 ? r : shape == 1 ? (double)i : shape == 2 ? (double)(n - i) : shape == 3 ? (double)(i < n / 2 ? i : n - i)
                 : shape == 4 ? 42.0 : shape == 5 ? (double)(x >> 8 & 3) : r / 7.0 - 1e6;
        }
        if (it % 97 == 0)
            a[(size_t)it % n] = -0.0;
        if (it % 101 == 0)
            a[(size_t)it % n] = NAN;
        memcpy(b, a, n * sizeof *a);
        qsort(b, n, sizeof *b, cmp_d);
        size_t r50 = (n + 1) / 2, r90 = (size_t)ceil(0.9 * (double)n);
        fp_wd_quantiles(a, n, &q);
        const double want[4] = {b[0], b[r50 - 1], b[(r90 ? r90 : 1) - 1], b[n - 1]}, got[4] = {q.min, q.p50, q.p90, q.max};
        for (int k = 0; k < 4; k++)
            if (memcmp(&want[k], &got[k], sizeof want[k]))
                fail_msg("n %zu shape %d quantile %d: %g, want %g", n, shape, k, got[k], want[k]);
    }
}

/* The counting selection (integers in a small range) and quickselect against a sort on
 * what could tell them apart: negative integers, integers beside one fraction (first,
 * last, the minimum itself), integers around 2^52 and 2^53 (past the counting range's
 * exactness: quickselect), ranges just inside and outside the counting bound, ties. */
static void test_quantiles_counting(void **state)
{
    (void)state;
    static double a[5000], b[5000];
    unsigned x = 7;
    for (int it = 0; it < 1200; it++) {
        size_t n = 1 + (size_t)(it * 37) % 5000;
        int shape = it % 8;
        double base = shape == 0 ? -3000.0 : shape == 1 ? 4503599627370496.0 - 50 : shape == 2 ? 9007199254740992.0
                    : shape == 3 ? -4503599627370496.0 : 0.0;
        double range = shape == 4 ? (double)(4 * n + 4096) : shape == 5 ? (double)(4 * n + 4097) : 100.0;
        for (size_t i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            a[i] = base + (double)((x >> 8) % (unsigned)(range + 1));
        }
        if (shape == 4 || shape == 5) { /* pin the range: exactly `range` */
            a[0] = base;
            a[n - 1] = base + range;
        }
        if (shape == 6)
            a[(size_t)it % n] += 0.5; /* one fraction anywhere */
        if (shape == 7)
            a[0] = -0.25; /* the minimum a fraction, the rest integers */
        memcpy(b, a, n * sizeof *a);
        qsort(b, n, sizeof *b, cmp_d);
        size_t r50 = (n + 1) / 2, r90 = (size_t)ceil(0.9 * (double)n);
        fp_wd_quant q;
        fp_wd_quantiles(a, n, &q);
        const double want[4] = {b[0], b[r50 - 1], b[(r90 ? r90 : 1) - 1], b[n - 1]}, got[4] = {q.min, q.p50, q.p90, q.max};
        for (int k = 0; k < 4; k++)
            if (memcmp(&want[k], &got[k], sizeof want[k]))
                fail_msg("n %zu shape %d quantile %d: %.17g, want %.17g", n, shape, k, got[k], want[k]);
    }
}

static void ev(fp_occ_se *s, int64_t t, int cu, int simd, int slot, int start)
{
    s->ev[s->n++] = (fp_occ_event){t, cu, simd, slot, start};
}

/* One SE, 2 CUs: CU 0 runs a workgroup of 4 waves (starts 0-8 cycles apart, 100
 * cycles each) then a second on the same slots; CU 1 one workgroup of which one
 * wave is heavy (1000 cycles). */
static void test_trace_facts(void **state)
{
    (void)state;
    fp_occ_event evs[64];
    fp_occ_se se = {2, evs, 0, false};
    for (int k = 0; k < 4; k++)
        ev(&se, 10 + 4 * (k / 2) * 2, 0, k, 0, 1);
    for (int k = 0; k < 4; k++)
        ev(&se, 20 + 2 * k, 1, k, 0, 1);
    for (int k = 0; k < 4; k++)
        ev(&se, 110 + k, 0, k, 0, 0);
    for (int k = 0; k < 4; k++)
        ev(&se, 200 + 4 * k, 0, k, 0, 1); /* second workgroup on CU 0 */
    for (int k = 0; k < 3; k++)
        ev(&se, 120 + 2 * k, 1, k, 0, 0);
    for (int k = 0; k < 4; k++)
        ev(&se, 300 + 4 * k, 0, k, 0, 0);
    ev(&se, 1026, 1, 3, 0, 0); /* the heavy wave: 26 -> 1026 */
    for (size_t i = 1; i < se.n; i++) /* time order, stable, as fp_occupancy_parse leaves it */
        for (size_t j = i; j > 0 && evs[j - 1].time > evs[j].time; j--) {
            fp_occ_event x = evs[j];
            evs[j] = evs[j - 1];
            evs[j - 1] = x;
        }
    fp_occupancy occ = {&se, 1};
    fp_wd_wave w[2] = {{2, 1, 3, 0, 0, 26, 1026, 500, 9}, {2, 1, 0, 0, 0, 20, 120, 50, 1}};
    fp_launch_trace *lt;
    fp_workdist *wd;
    fp_trace_facts(&occ, NULL, w, 2, true, &lt, &wd);
    assert_non_null(lt);
    assert_int_equal(lt->waves, 12);
    assert_int_equal(lt->cus, 2);
    assert_int_equal(lt->simds, 8);
    assert_true(lt->covers_ses);
    assert_true(lt->wg_waves.known && lt->wg_waves.v == 4);
    assert_int_equal(lt->peak_waves_per_simd, 1);
    assert_int_equal(lt->peak_waves_per_cu, 4);
    assert_int_equal(lt->span_cycles, 1026 - 10);
    assert_false(lt->span_ns.known); /* no realtime.json */
    assert_null(lt->clock_source);
    assert_int_equal(lt->wave_files, 2);
    assert_int_equal(lt->wave_files_span_cycles, 1006);
    /* 12 waves: 11 of ~100 cycles, one of 1000 */
    assert_int_equal(wd->wave_cycles.n, 12);
    assert_true(wd->wave_cycles.max == 1000);
    assert_int_equal(wd->heavy_waves, 1);
    assert_int_equal(wd->heavy_cus, 1);
    assert_int_equal(wd->critical.cu, 1);
    assert_int_equal(wd->critical.simd, 3);
    assert_int_equal(wd->critical.cycles, 1000);
    assert_true(wd->wave_imbalance.known && fabs(wd->wave_imbalance.v - 1000.0 / wd->wave_cycles.p50) < 1e-9);
    /* per CU: CU 0 = 100 + 101 + 94 + 95 + 4 x 100, CU 1 = 3 x 100 + 1000 */
    assert_int_equal(wd->cu_cycles.n, 2);
    assert_true(wd->cu_cycles.max == 1300 && wd->cu_cycles.min == 790);
    assert_true(wd->cu_waves.max == 8 && wd->cu_waves.min == 4);
    /* busy time = the union of each CU's residencies (resident waves overlap once): CU 0 holds
     * [10, 113] and [200, 312] = 103 + 112 = 215 cycles, not its 795 wave-cycles; CU 1 holds
     * [20, 1026] = 1006. Mean 610.5: the critical CU is 100 x (1 - 610.5 / 1006) = 39.31 % above it */
    assert_int_equal(wd->cu_busy_cycles.n, 2);
    assert_true(wd->cu_busy_cycles.max == 1006 && wd->cu_busy_cycles.min == 215);
    assert_true(wd->cu_busy_mean.known && wd->cu_busy_mean.v == 610.5);
    assert_true(wd->cu_busy_excess_pct.known && fabs(wd->cu_busy_excess_pct.v - 100.0 * (1 - 610.5 / 1006)) < 1e-9);
    assert_true(wd->critical_cu.se == 2 && wd->critical_cu.cu == 1 && wd->critical_cu.busy_cycles == 1006 &&
                wd->critical_cu.waves == 4);
    assert_string_equal(wd->critical_traced.file, "se2_sm3_sl0_wv0.json");
    assert_true(wd->critical_traced.iterations.known && wd->critical_traced.iterations.v == 9);
    assert_non_null(wd->traced_iterations);
    assert_true(wd->traced_iterations->max == 9 && wd->traced_iterations->min == 1);
    fp_model_free(&fp_launch_trace_schema, lt);
    free(lt);
    fp_model_free(&fp_workdist_schema, wd);
    free(wd);
    fp_trace_facts(NULL, NULL, NULL, 0, false, &lt, &wd);
    assert_null(lt);
    assert_null(wd);
}

/* The event orders by (CU, SIMD, slot) come from counting passes unless a key spans more
 * than 65,536 values (then qsort): a random SE of many CUs, SIMDs and slots, and the same
 * events with CU numbers spread past that range (the same CUs in the same order, so every
 * fact must be the same), and with SIMD numbers spread the same way. */
static void trace_facts_of(const fp_occ_event *src, size_t n, int cu_mul, int simd_mul, fp_launch_trace **lt,
                           fp_workdist **wd)
{
    fp_occ_event *evs = malloc(n * sizeof *evs);
    assert_non_null(evs);
    for (size_t i = 0; i < n; i++) {
        evs[i] = src[i];
        evs[i].cu = src[i].cu * cu_mul - 1000000;
        evs[i].simd = src[i].simd * simd_mul;
    }
    fp_occ_se se = {0, evs, n, false};
    fp_occupancy occ = {&se, 1};
    fp_trace_facts(&occ, NULL, NULL, 0, false, lt, wd);
    free(evs);
}

static void test_trace_facts_orders(void **state)
{
    (void)state;
    enum { N = 6000 };
    static fp_occ_event evs[N];
    fp_occ_se se = {0, evs, 0, false};
    unsigned x = 12345;
    int64_t t = 100;
    int open[40][4][8] = {{{0}}};
    while (se.n < N) {
        x = x * 1103515245u + 12345u;
        int cu = (int)(x >> 8) % 40, simd = (int)(x >> 16) % 4, slot = (int)(x >> 20) % 8;
        t += (x >> 24) % 5; /* equal times too */
        ev(&se, t, cu, simd, slot, !open[cu][simd][slot]);
        open[cu][simd][slot] ^= 1;
    }
    fp_launch_trace *a, *b, *c;
    fp_workdist *wa, *wb, *wc;
    trace_facts_of(evs, se.n, 1, 1, &a, &wa);
    trace_facts_of(evs, se.n, 70001, 1, &b, &wb);   /* CUs 70,001 apart: qsort */
    trace_facts_of(evs, se.n, 1, 100000, &c, &wc);  /* SIMDs 100,000 apart: qsort */
    assert_true(a->waves > 2000 && a->cus == 40 && a->simds == 160);
    const fp_launch_trace *o[] = {b, c};
    const fp_workdist *ow[] = {wb, wc};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(o[k]->waves, a->waves);
        assert_int_equal(o[k]->cus, a->cus);
        assert_int_equal(o[k]->simds, a->simds);
        assert_int_equal(o[k]->peak_waves_per_simd, a->peak_waves_per_simd);
        assert_int_equal(o[k]->peak_waves_per_cu, a->peak_waves_per_cu);
        assert_true(o[k]->wg_waves.known == a->wg_waves.known && o[k]->wg_waves.v == a->wg_waves.v);
        assert_int_equal(ow[k]->wave_cycles.n, wa->wave_cycles.n);
        assert_true(ow[k]->wave_cycles.p50 == wa->wave_cycles.p50 && ow[k]->wave_cycles.max == wa->wave_cycles.max);
        assert_true(ow[k]->cu_cycles.min == wa->cu_cycles.min && ow[k]->cu_cycles.max == wa->cu_cycles.max);
        assert_int_equal(ow[k]->heavy_waves, wa->heavy_waves);
        assert_int_equal(ow[k]->critical.slot, wa->critical.slot);
        assert_int_equal(ow[k]->critical.begin, wa->critical.begin);
    }
    /* an independent count: waves = starts closed by the next event of their slot */
    int64_t paired = 0;
    int last[40][4][8];
    memset(last, -1, sizeof last);
    for (size_t i = 0; i < se.n; i++) {
        int *l = &last[evs[i].cu][evs[i].simd][evs[i].slot];
        if (*l >= 0 && evs[*l].start && !evs[i].start)
            paired++;
        *l = (int)i;
    }
    assert_int_equal(wa->wave_cycles.n, paired);
    fp_launch_trace *lts[] = {a, b, c};
    fp_workdist *wds[] = {wa, wb, wc};
    for (int k = 0; k < 3; k++) {
        fp_model_free(&fp_launch_trace_schema, lts[k]);
        free(lts[k]);
        fp_model_free(&fp_workdist_schema, wds[k]);
        free(wds[k]);
    }
}

/* Both blocks printed whole, with the CU and SIMD numbers scaled back (cu = (c + 1000000) /
 * cu_mul, as trace_facts_of spreads them). */
/* The launch facts and the work distribution printed as one text (both freed). */
static char *facts_print(fp_launch_trace *lt, fp_workdist *wd)
{
    assert_non_null(lt);
    assert_non_null(wd);
    size_t n1, n2;
    char *a = fp_model_print(&fp_launch_trace_schema, lt, &n1), *b = fp_model_print(&fp_workdist_schema, wd, &n2);
    char *out = malloc(n1 + n2 + 2);
    assert_non_null(out);
    snprintf(out, n1 + n2 + 2, "%s\n%s", a, b);
    free(a);
    free(b);
    fp_model_free(&fp_launch_trace_schema, lt);
    free(lt);
    fp_model_free(&fp_workdist_schema, wd);
    free(wd);
    return out;
}

static char *facts_text(fp_launch_trace *lt, fp_workdist *wd, int cu_mul, int simd_mul)
{
    if (wd->wave_cycles.n) { /* else both are all zero */
        wd->critical.cu = (wd->critical.cu + 1000000) / cu_mul;
        wd->critical_cu.cu = (wd->critical_cu.cu + 1000000) / cu_mul;
        wd->critical.simd /= simd_mul;
    }
    return facts_print(lt, wd);
}

static char *facts_of(const fp_occ_se *ses, size_t nses, int cu_mul, int simd_mul)
{
    fp_occ_se *cp = calloc(nses + 1, sizeof *cp);
    assert_non_null(cp);
    for (size_t k = 0; k < nses; k++) {
        cp[k] = ses[k];
        cp[k].ev = malloc((ses[k].n + 1) * sizeof *cp[k].ev);
        assert_non_null(cp[k].ev);
        for (size_t i = 0; i < ses[k].n; i++) {
            cp[k].ev[i] = ses[k].ev[i];
            cp[k].ev[i].cu = ses[k].ev[i].cu * cu_mul - 1000000;
            cp[k].ev[i].simd = ses[k].ev[i].simd * simd_mul;
        }
    }
    fp_occupancy occ = {cp, nses};
    fp_launch_trace *lt;
    fp_workdist *wd;
    fp_trace_facts(&occ, NULL, NULL, 0, false, &lt, &wd);
    for (size_t k = 0; k < nses; k++)
        free(cp[k].ev);
    free(cp);
    return facts_text(lt, wd, cu_mul, simd_mul);
}

/* The walk in time order (dense key tables) against the sorting way (keys spread past the
 * tables' bound): every figure of both blocks the same, on SEs with ties (equal times,
 * starts and ends of one slot at one cycle), start flags other than 0/1, events outside
 * [0, 2^50], empty and one-event SEs, a repeated SE number (then the busy times come from
 * the sorted waves), and every event at one cycle. */
static void test_trace_facts_walk(void **state)
{
    (void)state;
    enum { N = 3000, S = 4 };
    static fp_occ_event evs[S][N];
    unsigned x = 4242;
    for (int scen = 0; scen < 6; scen++) {
        fp_occ_se ses[S];
        size_t nses = scen == 3 ? 1 : S;
        for (size_t k = 0; k < nses; k++) {
            ses[k] = (fp_occ_se){scen == 4 && k == 2 ? 1 : (int)k, evs[k], 0, false};
            size_t n = scen == 1 && k == 1 ? 0 : scen == 1 && k == 2 ? 1 : N - 500 * k;
            int64_t t = 100;
            int open[24][4][8] = {{{0}}};
            while (ses[k].n < n) {
                x = x * 1103515245u + 12345u;
                int cu = (int)(x >> 8) % 24, simd = (int)(x >> 16) % 4, slot = (int)(x >> 20) % 8;
                if (scen != 5)
                    t += (x >> 24) % 4; /* equal times often */
                int st = !open[cu][simd][slot];
                if ((x >> 27) % 9 == 0)
                    st = !st; /* a start after a start, an end after an end */
                open[cu][simd][slot] = st;
                int64_t tt = scen == 2 && (x >> 29) == 0 ? -5 : scen == 2 && (x >> 29) == 1 ? ((int64_t)1 << 50) + 1 : t;
                ev(&ses[k], tt, cu, simd, slot, st && scen == 4 ? 7 : st);
            }
            for (size_t i = 1; i < ses[k].n; i++) /* time order, ends first, as fp_occupancy_parse */
                for (size_t j = i; j > 0 && (evs[k][j - 1].time > evs[k][j].time ||
                                             (evs[k][j - 1].time == evs[k][j].time && evs[k][j - 1].start && !evs[k][j].start));
                     j--) {
                    fp_occ_event y = evs[k][j];
                    evs[k][j] = evs[k][j - 1];
                    evs[k][j - 1] = y;
                }
        }
        char *walk = facts_of(ses, nses, 1, 1), *by_cu = facts_of(ses, nses, 70001, 1),
             *by_simd = facts_of(ses, nses, 1, 100000);
        if (strcmp(walk, by_cu) || strcmp(walk, by_simd)) {
            fprintf(stderr, "walk\n%s\nsorted by CU\n%s\nby SIMD\n%s\n", walk, by_cu, by_simd);
            fail_msg("scenario %d: the walk and the sorting way differ", scen);
        }
        assert_non_null(strstr(walk, "\"cu_busy_cycles\""));
        free(walk);
        free(by_cu);
        free(by_simd);
    }
}

/* realtime.json pairs spanning more than int64 (no overflow: differences in double) and a
 * clock no GPU runs at are no clock; events beyond 2^50 cycles are dropped */
static void test_hostile_clock(void **state)
{
    (void)state;
    const char *j = "{\"SE0\":[[-9223372036854775807,0],[9223372036854775807,1]],\"metadata\":{\"frequency\":1e8}}";
    fp_realtime rt;
    fp_err e = {0};
    assert_int_equal(fp_realtime_parse(j, strlen(j), &rt, &e), 0);
    assert_true(fp_realtime_mhz(&rt, &rt.ses[0]) > 1e20); /* the reader computes; the analysis judges */
    fp_occ_event evs[4] = {{3, 1, 0, 0, 1}, {103, 1, 0, 0, 0}, {(int64_t)1 << 60, 2, 0, 0, 1}, {INT64_MAX, 2, 0, 0, 0}};
    fp_occ_se se = {0, evs, 4, false};
    fp_occupancy occ = {&se, 1};
    fp_launch_trace *lt;
    fp_workdist *wd;
    fp_trace_facts(&occ, &rt, NULL, 0, false, &lt, &wd);
    assert_false(lt->clock_mhz.known);
    assert_false(lt->span_ns.known);
    assert_null(lt->clock_source);
    assert_int_equal(lt->waves, 1);
    assert_int_equal(lt->span_cycles, 100);
    assert_int_equal(wd->wave_cycles.n, 1);
    fp_model_free(&fp_launch_trace_schema, lt);
    free(lt);
    fp_model_free(&fp_workdist_schema, wd);
    free(wd);
    fp_realtime_free(&rt);
}

static fp_inst row(int64_t idx, const char *isa, int64_t vaddr, int64_t hit)
{
    fp_inst r;
    memset(&r, 0, sizeof r);
    r.isa = (char *)isa;
    r.source = (char *)"";
    r.index = idx;
    r.index_ok = true;
    r.vaddr = vaddr;
    r.hit = hit;
    return r;
}

/* simm16 so that the branch at vaddr `at` lands on `to`: (to - at - 4) / 4, unsigned 16-bit */
static const char *br(char *buf, const char *op, int64_t at, int64_t to)
{
    long imm = (long)((to - at - 4) / 4);
    snprintf(buf, 48, "%s %ld", op, imm < 0 ? imm + 65536 : imm);
    return buf;
}

static void test_loops(void **state)
{
    (void)state;
    char b1[48], b2[48], b3[48];
    /* 1 head; 2-3 spin poll (load + compare + branch back to 2); 4-6 a loop run 3
     * times; 7 a backward branch into the s_endpgm block at 8, never taken */
    fp_inst rows[] = {
        row(0, "; k", 0, 0),
        row(1, "s_load_dword s0, s[0:1], 0x0", 100, 4),
        row(2, "global_load_dword v1, v[2:3], off", 104, 40),
        row(3, "s_waitcnt vmcnt(0)", 112, 40),
        row(4, "v_cmp_eq_u32 vcc, 0, v1", 116, 40),
        row(5, "", 120, 40),
        row(6, "v_add_f32 v0, v0, v1", 124, 12),
        row(7, "s_add_u32 s2, s2, 1", 128, 12),
        row(8, "", 132, 12),
        row(9, "s_endpgm", 136, 4),
        row(10, "", 140, 0),
    };
    rows[5].isa = (char *)br(b1, "s_cbranch_vccz", 120, 104);
    rows[8].isa = (char *)br(b2, "s_cbranch_scc1", 132, 124);
    rows[10].isa = (char *)br(b3, "s_branch", 140, 136);
    fp_code code;
    memset(&code, 0, sizeof code);
    code.rows = rows;
    code.n = sizeof rows / sizeof *rows;
    fp_loops l;
    fp_loops_find(&code, &l);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.v[0].kind, FP_LOOP_SPIN_WAIT);
    assert_string_equal(fp_loop_kind_name(l.v[0].kind), "spin_wait");
    assert_int_equal(l.v[1].kind, FP_LOOP_ITERATED);
    assert_int_equal(l.v[1].taken, 8); /* 12 runs, 4 fall through to row 9 */
    assert_int_equal(l.v[2].kind, FP_LOOP_EXIT);
    assert_int_equal(l.main, 1);
    assert_int_equal(l.v[1].head_line, 6);
    assert_int_equal(l.counts[FP_LOOP_SPIN_WAIT], 1);
    fp_loops_free(&l);
    /* the same listing where the loop never ran: not run, still the main loop */
    rows[6].hit = rows[7].hit = rows[8].hit = 4;
    fp_loops_find(&code, &l);
    assert_int_equal(l.v[1].kind, FP_LOOP_NOT_RUN);
    assert_int_equal(l.main, 1);
    fp_loops_free(&l);
}

static const char *CSV =
    "\"Kind\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"VGPR_Count\","
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
    "\"KERNEL_DISPATCH\",\"k\",0,1000,0,32,256,1,1,32768,1,1\n"       /* 128 wgs, no LDS */
    "\"KERNEL_DISPATCH\",\"k\",0,3000,16384,32,256,1,1,32768,1,1\n"   /* 128 wgs */
    "\"KERNEL_DISPATCH\",\"k\",0,2000,16384,32,256,1,1,32768,1,1\n"
    "\"KERNEL_DISPATCH\",\"k\",0,9000,16384,32,256,1,1,32768,1,1\n"   /* an outlier */
    "\"KERNEL_DISPATCH\",\"k\",0,500,16384,32,256,1,1,131072,1,1\n";  /* 512 wgs: another shape */

static void test_pick_traced(void **state)
{
    (void)state;
    fp_kernel_trace kt;
    fp_err e = {0};
    assert_int_equal(fp_kernel_trace_parse(CSV, strlen(CSV), "kt.csv", &kt, &e), 0);
    /* one traced XCD of 8 ran 64 waves = 16 workgroups of 4: 121..135 workgroups */
    int64_t units[1] = {64};
    fp_kt_identity id = {units, 1, 8, 0, 64, 1, -1, -1};
    fp_kt_pick p;
    fp_kt_pick_traced(&kt, "k", FP_KT_EXACT, FP_KT_TIME_ANY, &id, &p);
    assert_int_equal(p.named, 5);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.rejected[FP_KT_REJ_LDS], 1);
    assert_int_equal(p.rejected[FP_KT_REJ_GRID], 1);
    assert_true(p.median_ns == 3000 && p.min_ns == 2000 && p.max_ns == 9000);
    assert_int_equal(p.outliers, 1); /* 9000 > 2 x 3000 */
    assert_int_equal(strlen(p.sha256), 64);
    char h[65];
    memcpy(h, p.sha256, sizeof h);
    /* waves that are no whole number of 4-wave workgroups: every row refused */
    units[0] = 62;
    fp_kt_pick_traced(&kt, "k", FP_KT_EXACT, FP_KT_TIME_ANY, &id, &p);
    assert_int_equal(p.n, 0);
    assert_int_equal(p.rejected[FP_KT_REJ_WORKGROUP], 4);
    assert_string_equal(p.sha256, "");
    /* no identity: every named row, the old rule */
    fp_kt_pick_rows(&kt, "k", FP_KT_EXACT, FP_KT_TIME_ANY, &p);
    assert_int_equal(p.n, 5);
    assert_true(p.median_ns == 2000);
    assert_string_not_equal(p.sha256, h);
    fp_kernel_trace_free(&kt);
}

static void test_simd_fill(void **state)
{
    (void)state;
    /* 256 one-wave workgroups on 256 CUs: every CU busy, 3 of 4 SIMDs idle */
    fp_launch_in in = {{256 * 64, 1, 1}, {64, 1, 1}, 256, 4, 64, 8, 0, 0};
    fp_launch l;
    fp_launch_compute(&in, &l);
    assert_true(l.fill_pct == 100);
    assert_int_equal(l.simds, 1024);
    assert_true(l.simd_fill_pct == 25);
    assert_true(l.resident_waves_per_simd == 1);
    char buf[256];
    fp_launch_sentence(&l, buf, sizeof buf);
    assert_string_equal(buf, "256 workgroups of 1 waves on 256 CUs: 100% of CUs busy, 25% of SIMDs (32 resident per CU, "
                             "1 round)");
    /* the trace's counts instead of a grid: 128 workgroups of 4 waves */
    fp_launch_in t = {{0}, {0}, 256, 4, 64, 2, 128, 4};
    fp_launch_compute(&t, &l);
    assert_true(l.valid && l.workgroups == 128 && l.wg_waves == 4);
    assert_true(l.fill_pct == 50 && l.simd_fill_pct == 50);
    l.from_trace = true;
    fp_launch_sentence(&l, buf, sizeof buf);
    assert_string_equal(buf, "128 workgroups of 4 waves on 256 CUs: 50% of CUs busy [counts from the trace] (2 resident "
                             "per CU, 1 round)");
}

/* The trace of a partitioned agent is scaled to the agent, not to the product:
 * 4 SEs of one XCD traced on an MI300X is 1/8 of an SPX agent but all of a CPX one. */
static void test_partition_scaling(void **state)
{
    (void)state;
    fp_lt_se se[4];
    memset(se, 0, sizeof se);
    for (int i = 0; i < 4; i++) {
        se[i].se = i;
        se[i].waves = 40;
    }
    fp_launch_trace lt;
    memset(&lt, 0, sizeof lt);
    lt.covers_ses = true;
    lt.traced_ses = 4;
    lt.waves = 160;
    lt.per_se = se;
    lt.n_per_se = 4;
    fp_signals s;
    memset(&s, 0, sizeof s);
    s.product = (char *)"MI300X";
    s.ltrace = &lt;
    int64_t units[64];
    fp_kt_identity id;
    fp_launch_facts_identity(&s, units, &id); /* no agent row: the product, 8 XCDs */
    assert_int_equal(id.n_units, 1);
    assert_int_equal(id.agent_units, 8);
    assert_int_equal(units[0], 160);
    s.xcds = 1; /* capture.json gpu.num_xcc of a CPX agent */
    s.cus = 38;
    fp_launch_facts_identity(&s, units, &id);
    assert_int_equal(id.n_units, 1);
    assert_int_equal(id.agent_units, 1);
    s.xcds = 4; /* DPX: 4 XCDs, 16 SEs; the 4 traced SEs are one of them */
    fp_launch_facts_identity(&s, units, &id);
    assert_int_equal(id.agent_units, 4);
    s.xcds = 8; /* SPX: the product itself */
    fp_launch_facts_identity(&s, units, &id);
    assert_int_equal(id.agent_units, 8);
}

/* Round 5's fast paths against their reference ways on every dispatch of the corpus, whole
 * (the fuzz targets see inputs of a few KB only): the wave listing (fp_wave_list_dir_general),
 * each wstates<k>.json (fp_wstates_parse_jscan on the file's bytes), the trace facts with the
 * listed waves as traced ones (fp_trace_facts_general). */
/* fp_occ_levels (levels_fast: one pass in integers) against fp_occ_levels_general (two
 * passes in doubles): every field, the doubles bit for bit. */
static void levels_same(const fp_occupancy *occ, const char *what)
{
    fp_bub_occ_se *a = fp_occ_levels(occ), *b = fp_occ_levels_general(occ);
    for (size_t s = 0; s < occ->n; s++) {
        const fp_bub_occ_se *x = &a[s], *y = &b[s];
        bool same = x->se == y->se && x->events == y->events && x->peak == y->peak && x->t0 == y->t0 &&
                    x->t1 == y->t1 && x->n_buckets == y->n_buckets && !memcmp(&x->mean, &y->mean, sizeof x->mean) &&
                    !memcmp(x->buckets, y->buckets, sizeof x->buckets);
        if (!same) {
            fprintf(stderr, "fast peak %d mean %.17g b0 %.17g b15 %.17g t %lld..%lld\n", x->peak, x->mean, x->buckets[0],
                    x->buckets[15], (long long)x->t0, (long long)x->t1);
            fprintf(stderr, "ref  peak %d mean %.17g b0 %.17g b15 %.17g t %lld..%lld\n", y->peak, y->mean, y->buckets[0],
                    y->buckets[15], (long long)y->t0, (long long)y->t1);
            fail_msg("%s: SE %zu: the levels differ", what, s);
        }
    }
    free(a);
    free(b);
}

/* The levels' one-pass way on hostile series: spans of 1 to 2^41 (around its 2^40 bound
 * and around 16's multiples, where a bucket's end falls on a time), n x span around 2^53,
 * waves resident before the first event (the level shifted), ties, start flags other
 * than 0 and 1, negative times, one event, and times going back (not from the readers:
 * the fast way must decline them). */
static void test_occ_levels(void **state)
{
    (void)state;
    static const int64_t spans[] = {1, 2, 3, 15, 16, 17, 31, 33, 100, 255, 1000, 4097, 999983, ((int64_t)1 << 40) - 1,
                                    (int64_t)1 << 40, ((int64_t)1 << 40) + 7, (int64_t)1 << 41};
    unsigned x = 4242;
    int cases = 0;
    for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++)
        for (int shape = 0; shape < 12; shape++) {
            size_t n = shape == 0 ? 1 : shape == 1 ? 2 : shape < 6 ? 5 + (size_t)shape * 7 : 300 + (size_t)shape * 97;
            if (shape == 11 && spans[si] >= ((int64_t)1 << 39))
                n = 8193; /* n x span past 2^53 */
            fp_occ_se se = {3, calloc(n, sizeof(fp_occ_event)), 0, false};
            assert_non_null(se.ev);
            int64_t t0 = shape % 3 == 2 ? -5000 - (int64_t)shape : 1000 * shape;
            for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                int64_t t = n == 1 ? t0 : t0 + (int64_t)((double)spans[si] * (double)i / (double)(n - 1));
                if (i && i + 1 < n && (x >> 20) % 4 == 0)
                    t = se.ev[i - 1].time; /* a tie */
                if (i && i + 1 < n && (x >> 9) % 5 == 0 && t > se.ev[i - 1].time) /* inside a step: the bucket ends */
                    t -= (int64_t)((x >> 12) % (uint64_t)(t - se.ev[i - 1].time));
                if (shape == 10 && i == n / 2)
                    t = t0 + (t - t0) / 2; /* back in time (not before t0: the reference's bucket index) */
                int start = shape == 4 ? (int)(x >> 16) % 3 - 1 : (int)((x >> 16) % 2);
                if (shape == 7 && i < n / 3)
                    start = 0; /* ends first: waves resident before the trace */
                se.ev[se.n++] = (fp_occ_event){t, (int)(x % 4), 0, 0, shape == 5 && start ? 7 : start};
            }
            fp_occupancy occ = {&se, 1};
            char what[64];
            snprintf(what, sizeof what, "span %lld shape %d", (long long)spans[si], shape);
            levels_same(&occ, what);
            free(se.ev);
            cases++;
        }
    assert_true(cases > 100);
}

static int corpus_dispatch(const char *dir)
{
    int checks = 0;
    fp_wave_list l, g;
    fp_err e = {0};
    assert_int_equal(fp_wave_list_dir(dir, &l, &e), 0);
    assert_int_equal(fp_wave_list_dir_general(dir, &g, &e), 0);
    assert_int_equal(l.n, g.n);
    assert_true(l.listed == g.listed && l.listed_missing == g.listed_missing && l.unlisted == g.unlisted);
    for (size_t i = 0; i < l.n; i++) {
        assert_string_equal(l.files[i].name, g.files[i].name);
        assert_true(l.files[i].has_begin == g.files[i].has_begin && l.files[i].begin == g.files[i].begin);
    }
    checks++;
    for (int k = 0; k < 16; k++) {
        char leaf[32];
        snprintf(leaf, sizeof leaf, "wstates%d.json", k);
        char *name = fp_path_join(dir, leaf);
        fp_sb f;
        fp_sb_init(&f);
        int read = fp_read_file(name, &f, &e);
        free(name);
        if (read == 0) {
            int64_t v = -1, rv = -2;
            bool sat = true, rsat = false;
            assert_int_equal(fp_wstates_integral(dir, k, &v, &sat, &e), 0);
            assert_int_equal(fp_wstates_parse_jscan(f.buf, f.len, k, &rv, &rsat, &e), 0);
            assert_true(v == rv && sat == rsat);
            checks++;
        }
        fp_err_clear(&e);
        fp_sb_free(&f);
    }
    fp_occupancy occ;
    if (fp_occupancy_load(dir, &occ, &e) == 0) {
        fp_realtime rt;
        bool have_rt = fp_realtime_load(dir, &rt, &e) == 0;
        fp_err_clear(&e);
        levels_same(&occ, dir);
        fp_wd_wave *w[2] = {calloc(l.n + 1, sizeof *w[0]), calloc(l.n + 1, sizeof *w[1])};
        assert_true(w[0] && w[1]);
        for (size_t i = 0; i < l.n; i++) { /* listed order reversed: the radix order has work to do */
            const fp_wave_file *x = &l.files[l.n - 1 - i];
            w[0][i] = (fp_wd_wave){x->se, 0, x->simd, x->slot, x->id, x->begin, x->begin + 1000 + (int64_t)(i % 97),
                                   (int64_t)(i % 13), (int64_t)(i % 5)};
        }
        memcpy(w[1], w[0], l.n * sizeof *w[0]);
        fp_launch_trace *lt[2];
        fp_workdist *wd[2];
        fp_trace_facts(&occ, have_rt ? &rt : NULL, w[0], l.n, true, &lt[0], &wd[0]);
        fp_trace_facts_general(&occ, have_rt ? &rt : NULL, w[1], l.n, true, &lt[1], &wd[1]);
        char *a = facts_print(lt[0], wd[0]), *b = facts_print(lt[1], wd[1]);
        assert_string_equal(a, b);
        free(a);
        free(b);
        free(w[0]);
        free(w[1]);
        if (have_rt)
            fp_realtime_free(&rt);
        fp_occupancy_free(&occ);
        checks++;
    }
    fp_err_clear(&e);
    fp_wave_list_free(&l);
    fp_wave_list_free(&g);
    return checks;
}

/* The walk with the keys' spans fixed at 10 (fp_occ_se.small_keys, set by
 * fp_occupancy_parse's rows of one-digit keys) against the sorting way
 * (fp_trace_facts_general) and against the same events read by the jscan reader (no
 * flag: spans from the keys' minima): the same facts. Documents of SEs from 1 to 3000
 * events (around SMALL_MIN_EVENTS) with keys using only part of 0..9 (minima above 0),
 * ties, starts after starts, a row the fast rows decline ("[t,12,...]": no flag), a
 * five-cell row, times of 8 and 9 digits, rows near the end of the text (read by
 * row_compact). */
static void test_trace_facts_small_keys(void **state)
{
    (void)state;
    unsigned x = 777;
    int flagged = 0, unflagged = 0;
    for (int it = 0; it < 40; it++) {
        fp_sb doc;
        fp_sb_init(&doc);
        fp_sb_addc(&doc, '{');
        int nses = 1 + it % 4;
        for (int k = 0; k < nses; k++) {
            int n = it % 5 == 0 ? 1 + (int)(x % 600) : 400 + 300 * k + (int)(x % 2000);
            int odd = it % 2 == 0 ? (int)(x % (unsigned)n) : -1, kind = (it / 2) % 3;
            int culo = it % 2 ? 3 : 0, cus = 1 + (it + k) % (10 - culo), sl0 = it % 4 == 1 ? 2 : 0;
            fp_sb_addf(&doc, "%s\"%d\":[", k ? "," : "", (7 * k + it) % 9);
            static int open[10][10][10];
            memset(open, 0, sizeof open);
            int64_t t = it % 6 == 5 ? 99996000 : 1000 + it; /* 5: past 10^8, 9 digits */
            for (int i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                int cu = culo + (int)(x >> 8) % cus, simd = (int)(x >> 14) % 4, slot = sl0 + (int)(x >> 18) % (10 - sl0);
                t += (x >> 24) % 4;
                int st = !open[cu][simd][slot];
                if ((x >> 27) % 11 == 0)
                    st = !st;
                open[cu][simd][slot] = st;
                if (i)
                    fp_sb_addc(&doc, ',');
                if (i == odd && kind == 0)
                    fp_sb_addf(&doc, "[%lld,12,%d,%d,%d,1]", (long long)t, simd, slot, st);
                else if (i == odd && kind == 1)
                    fp_sb_addf(&doc, "[%lld,%d,%d,%d,%d]", (long long)t, cu, simd, slot, st);
                else
                    fp_sb_addf(&doc, "[%lld,%d,%d,%d,%d,1]", (long long)t, cu, simd, slot, st);
            }
            fp_sb_addc(&doc, ']');
        }
        fp_sb_adds(&doc, ",\"version\":\"3.0.0\"}");
        fp_occupancy fast, ref;
        fp_err e = {0};
        assert_int_equal(fp_occupancy_parse(doc.buf, doc.len, &fast, &e), 0);
        assert_int_equal(fp_occupancy_parse_jscan(doc.buf, doc.len, &ref, &e), 0);
        for (size_t k = 0; k < fast.n; k++) {
            assert_false(ref.ses[k].small_keys);
            flagged += fast.ses[k].small_keys && fast.ses[k].n >= 512;
            unflagged += !fast.ses[k].small_keys;
            bool want = true; /* the flag must tell the truth */
            for (size_t i = 0; i < fast.ses[k].n; i++) {
                const fp_occ_event *v = &fast.ses[k].ev[i];
                want = want && v->time >= 0 && v->time < 100000000 && (unsigned)v->cu <= 9 && (unsigned)v->simd <= 9 &&
                       (unsigned)v->slot <= 9;
            }
            if (fast.ses[k].small_keys && !want)
                fail_msg("doc %d SE %zu: small_keys set on keys past 9", it, k);
        }
        char *txt[4];
        fp_launch_trace *lt;
        fp_workdist *wd;
        fp_trace_facts(&fast, NULL, NULL, 0, false, &lt, &wd);
        txt[0] = facts_print(lt, wd);
        fp_trace_facts_general(&fast, NULL, NULL, 0, false, &lt, &wd);
        txt[1] = facts_print(lt, wd);
        fp_trace_facts(&ref, NULL, NULL, 0, false, &lt, &wd);
        txt[2] = facts_print(lt, wd);
        fp_trace_facts_small_all(&fast, NULL, NULL, 0, false, &lt, &wd); /* small SEs too */
        txt[3] = facts_print(lt, wd);
        if (strcmp(txt[0], txt[1]) || strcmp(txt[0], txt[2]) || strcmp(txt[0], txt[3])) {
            fprintf(stderr, "small keys\n%s\ngeneral\n%s\njscan\n%s\nsmall all\n%s\n", txt[0], txt[1], txt[2], txt[3]);
            fail_msg("doc %d: the small-keys walk differs", it);
        }
        for (int g = 0; g < 4; g++)
            free(txt[g]);
        fp_occupancy_free(&fast);
        fp_occupancy_free(&ref);
        fp_sb_free(&doc);
    }
    fprintf(stderr, "small keys: %d SEs flagged (512+ events), %d not\n", flagged, unflagged);
    assert_true(flagged > 20 && unflagged > 3);
}

static void test_corpus_fast_paths(void **state)
{
    (void)state;
    DIR *d = opendir(FP_CORPUS);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        char att[4096];
        snprintf(att, sizeof att, "%s/%s/att", FP_CORPUS, de->d_name);
        DIR *a = de->d_name[0] == '.' ? NULL : opendir(att);
        for (struct dirent *ae; a && (ae = readdir(a));) {
            if (strncmp(ae->d_name, "ui_output_", 10))
                continue;
            char dir[8192];
            snprintf(dir, sizeof dir, "%s/%s", att, ae->d_name);
            n += corpus_dispatch(dir);
        }
        if (a)
            closedir(a);
    }
    if (d) {
        closedir(d);
        assert_true(n > 60); /* 13 cases, each a listing, an occupancy.json and wstates1..4 */
    }
    fprintf(stderr, "corpus fast paths: %d checks\n", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_realtime),    cmocka_unit_test(test_quantiles),   cmocka_unit_test(test_trace_facts),
        cmocka_unit_test(test_trace_facts_orders), cmocka_unit_test(test_trace_facts_walk),
        cmocka_unit_test(test_corpus_fast_paths), cmocka_unit_test(test_trace_facts_small_keys),
        cmocka_unit_test(test_quantiles_counting), cmocka_unit_test(test_occ_levels),
        cmocka_unit_test(test_loops),       cmocka_unit_test(test_pick_traced), cmocka_unit_test(test_simd_fill),
        cmocka_unit_test(test_hostile_clock), cmocka_unit_test(test_partition_scaling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
