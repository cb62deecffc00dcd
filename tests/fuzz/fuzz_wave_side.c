/* fuzz_wave_side - the small per-dispatch side files read with the wave reader:
 * occupancy.json (fp_occupancy_load, and fp_occupancy_stream against it) and wstates<k>.json
 * (fp_wstates_integral, against the whole reader fp_wstates_parse_jscan); realtime.json
 * (fp_realtime_load) and the trace facts computed from both (fp_trace_facts, issue 23: never a
 * table indexed by a file's CU id; round 5: its fast ways against its sorting ways, and the
 * small-keys walk on every SE its flag allows; the wstates integral with both scanners; round 8:
 * the occupancy levels' one pass against their two).
 * It found issue 10 (a) in 2 s (a repeated "state"/"time" key overflowed
 * read_int_array's buffer; regressions/wave_side/issue10a_*). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/bubbles.h"
#include "flyprof/model.h"
#include "flyprof/realtime.h"
#include "flyprof/wave.h"
#include "flyprof/workdist.h"
#include "fuzz_common.h"

/* fp_occupancy_stream (occstream.c, issue 22): every event it gives must be the next
 * one of the loader's series for that SE array (SEs are unique when it succeeds). */
typedef struct stream_check {
    const fp_occupancy *ref; /* NULL: the loader refused the file */
    int se;
    size_t k, series;
    bool differs; /* an event was not the loader's: fatal only when the stream returns 0 */
} stream_check;

static void check_event(void *user, int se, const fp_occ_event *ev)
{
    stream_check *c = user;
    if (!ev) {
        c->se = se;
        c->k = 0;
        c->series++;
        return;
    }
    if (!c->ref)
        return; /* the stream must then end with 1: checked by the caller */
    const fp_occ_se *s = NULL;
    for (size_t i = 0; i < c->ref->n && !s; i++)
        if (c->ref->ses[i].se == c->se)
            s = &c->ref->ses[i];
    if (!s || c->k >= s->n) {
        c->differs = true; /* a repeated SE: the stream must give up (1) */
        return;
    }
    const fp_occ_event *b = &s->ev[c->k++];
    if (ev->time != b->time || ev->cu != b->cu || ev->simd != b->simd || ev->slot != b->slot || ev->start != b->start)
        c->differs = true; /* events given before it saw a time go back: it must return 1 */
}

/* Both blocks printed whole (fp_model_print), then freed: the text two ways must share. */
static char *facts_text(fp_launch_trace *lt, fp_workdist *wd)
{
    if (!lt || !wd) {
        if (lt || wd)
            abort();
        return strdup("none");
    }
    size_t n1, n2;
    char *a = fp_model_print(&fp_launch_trace_schema, lt, &n1), *b = fp_model_print(&fp_workdist_schema, wd, &n2);
    char *out = malloc(n1 + n2 + 2);
    if (!a || !b || !out)
        abort();
    memcpy(out, a, n1);
    out[n1] = '\n';
    memcpy(out + n1 + 1, b, n2 + 1);
    free(a);
    free(b);
    fp_model_free(&fp_launch_trace_schema, lt);
    fp_model_free(&fp_workdist_schema, wd);
    free(lt);
    free(wd);
    return out;
}

/* fp_trace_facts with its fast ways (dense_se's walk, counting quantiles, CU busy times
 * from the waves in end order, the traced waves' radix order) against its sorting ways
 * (fp_trace_facts_general): the same text. The traced waves come from the first events
 * (their numbers taken from the event's: repeated ones too, which the radix order must
 * leave to qsort). */
static void facts_both(const fp_occupancy *occ, const fp_realtime *rt)
{
    enum { MAXW = 64 };
    fp_wd_wave w[3][MAXW];
    size_t nw = 0;
    for (size_t i = 0; i < occ->n && nw < MAXW; i++)
        for (size_t k = 0; k < occ->ses[i].n && nw < MAXW; k++) {
            const fp_occ_event *e = &occ->ses[i].ev[k];
            w[0][nw] = (fp_wd_wave){occ->ses[i].se, e->cu, e->simd, e->slot, e->cu ^ e->start,
                                    e->time, e->time + (int64_t)(k % 7), (int64_t)k, e->start ? (int64_t)k % 3 : -1};
            nw++;
        }
    memcpy(w[1], w[0], sizeof w[0]);
    memcpy(w[2], w[0], sizeof w[0]);
    char *txt[3];
    for (int g = 0; g < 3; g++) {
        fp_launch_trace *lt;
        fp_workdist *wd;
        /* 2: the small-keys walk on every SE the reader flagged (the corpus's size is past
         * what a fuzz input holds) */
        (g == 0 ? fp_trace_facts : g == 1 ? fp_trace_facts_general : fp_trace_facts_small_all)(occ, rt, w[g], nw,
                                                                                               nw % 2 == 0, &lt, &wd);
        txt[g] = facts_text(lt, wd);
    }
    if (strcmp(txt[0], txt[1]) || strcmp(txt[0], txt[2]))
        abort();
    for (int g = 0; g < 3; g++)
        free(txt[g]);
}

/* fp_occ_levels (one pass in integers) against its reference way (doubles, two passes):
 * every field, the doubles bit for bit. */
static void levels_both(const fp_occupancy *occ)
{
    fp_bub_occ_se *a = fp_occ_levels(occ), *b = fp_occ_levels_general(occ);
    for (size_t s = 0; s < occ->n; s++) {
        const fp_bub_occ_se *x = &a[s], *y = &b[s];
        if (x->se != y->se || x->events != y->events || x->peak != y->peak || x->t0 != y->t0 || x->t1 != y->t1 ||
            x->n_buckets != y->n_buckets || memcmp(&x->mean, &y->mean, sizeof x->mean) ||
            memcmp(x->buckets, y->buckets, sizeof x->buckets))
            abort();
    }
    free(a);
    free(b);
}

/* fp_wstates_integral (the streaming passes, and the whole reader for what they decline)
 * against the whole reader alone on the same bytes: value, flag, rc, error code and text. */
static void wstates_both(const char *dir, const uint8_t *data, size_t size)
{
    int64_t v = 0, rv = 0;
    bool sat = false, rsat = false;
    fp_err err = {0}, rerr = {0};
    int rrc = fp_wstates_parse_jscan((const char *)data, size, 3, &rv, &rsat, &rerr);
    /* with the CPU's scanners (ws_time4_avx2 where it has AVX2) and the baseline ones */
    for (int baseline = 0; baseline < 2; baseline++) {
        fp_wave_baseline_rows(baseline);
        int rc = fp_wstates_integral(dir, 3, &v, &sat, &err);
        fz_check_err(rc, &err, "fp_wstates_integral");
        if (rc != rrc || v != rv || sat != rsat || err.code != rerr.code || (rc != 0 && strcmp(err.message, rerr.message)))
            abort();
        fp_err_clear(&err);
    }
    fp_wave_baseline_rows(false);
    fp_err_clear(&rerr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *o = fz_write("ws/occupancy.json", data, size);
    char *w = fz_write("ws/wstates3.json", data, size);
    char *t = fz_write("ws/realtime.json", data, size);
    char *dir = fz_path("ws");
    fp_occupancy occ;
    fp_err err = {0};
    int rc = fp_occupancy_load(dir, &occ, &err);
    fz_check_err(rc, &err, "fp_occupancy_load");
    /* the fast path must read every document as the jscan reader (+ qsort) does */
    fp_occupancy ref;
    fp_err rerr = {0};
    int rrc = fp_occupancy_parse_jscan((const char *)data, size, &ref, &rerr);
    bool read = rc == 0 || err.code == FP_BAD_INPUT; /* the file itself was read */
    if (read && (rrc != rc || (rc != 0 && strcmp(rerr.message, err.message))))
        abort();
    stream_check sc = {rc == 0 ? &occ : NULL, 0, 0, 0, false};
    fp_err serr = {0};
    int src = fp_occupancy_stream(dir, check_event, &sc, &serr);
    if (src < 0 || (rc != 0 && src == 0) || (src == 0 && (sc.series != occ.n || sc.differs)))
        abort();
    fp_err_clear(&serr);
    if (rc == 0) {
        if (ref.n != occ.n)
            abort();
        for (size_t i = 0; i < occ.n; i++) {
            if (ref.ses[i].se != occ.ses[i].se || ref.ses[i].n != occ.ses[i].n)
                abort();
            for (size_t k = 0; k < occ.ses[i].n; k++) {
                const fp_occ_event *a = &occ.ses[i].ev[k], *b = &ref.ses[i].ev[k];
                if (a->time != b->time || a->cu != b->cu || a->simd != b->simd || a->slot != b->slot ||
                    a->start != b->start)
                    abort();
                /* small_keys must tell the truth: the walk indexes 10 x 10 x 10 tables by it */
                if (occ.ses[i].small_keys && (a->time < 0 || a->time >= 100000000 || (unsigned)a->cu > 9 ||
                                              (unsigned)a->simd > 9 || (unsigned)a->slot > 9))
                    abort();
            }
        }
        fp_realtime rt;
        fp_err terr = {0};
        int trc = fp_realtime_load(dir, &rt, &terr);
        fz_check_err(trc, &terr, "fp_realtime_load");
        fp_launch_trace *lt;
        fp_workdist *wd;
        fp_trace_facts(&occ, trc == 0 ? &rt : NULL, NULL, 0, false, &lt, &wd);
        if (occ.n && (!lt || !wd || lt->waves < 0 || lt->traced_ses != (int64_t)occ.n))
            abort();
        if (lt)
            fp_model_free(&fp_launch_trace_schema, lt);
        if (wd)
            fp_model_free(&fp_workdist_schema, wd);
        free(lt);
        free(wd);
        facts_both(&occ, trc == 0 ? &rt : NULL);
        levels_both(&occ);
        if (trc == 0)
            fp_realtime_free(&rt);
        fp_err_clear(&terr);
        fp_occupancy_free(&occ);
    }
    if (rrc == 0)
        fp_occupancy_free(&ref);
    fp_err_clear(&rerr);
    fp_err_clear(&err);
    wstates_both(dir, data, size);
    free(o);
    free(w);
    free(t);
    free(dir);
    return 0;
}
