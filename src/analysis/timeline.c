/*
 * timeline.c - the Chrome trace event JSON of a dispatch (timeline.h).
 *
 * Streamed: each wave file is read (att's walker, one at a time), its events
 * appended to a 64 KiB buffer that is flushed as it fills, so memory does not
 * grow with the trace. Times are kept as integer nanoseconds of the viewer's
 * axis (µs with 3 decimals in the file): a slice's duration is the difference
 * of its rounded ends, so the slices of one track never overlap after rounding.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/map.h"
#include "flyprof/markup.h"
#include "flyprof/realtime.h"
#include "flyprof/strbuf.h"
#include "flyprof/timeline.h"
#include "flyprof/wave.h"

#define FLUSH_AT (64 * 1024)
#define MAX_PIDS 4096

const char *const fp_tl_detail_names[] = {"states", "lines", "insts", NULL};

/* The wave states of the decoder's timeline, by FP_WS_* (EMPTY is not drawn). */
static const char *const STATE_NAMES[FP_WS_COUNT] = {NULL, "IDLE", "EXEC", "WAIT", "STALL"};

/* Cycle -> µs of one SE: base + (g - g0) * per_cycle. */
typedef struct tmap {
    int se;
    double base_us, per_cycle_us;
    int64_t g0;
} tmap;

typedef struct tl {
    const fp_tl_in *in;
    fp_tl_stats *st;
    fp_tl_flush flush;
    void *user;
    int werr;          /* first flush error */
    fp_sb buf;
    bool first;        /* no event written yet (no comma) */
    tmap *maps;
    size_t nmaps;
    tmap fallback;     /* SEs absent from realtime.json, or no realtime.json */
    char **labels;     /* per code row: "<opcode> <file>:<line>", JSON-escaped, no quotes */
    int pids[MAX_PIDS];
    size_t npids;
} tl;

static void out_flush(tl *t, bool force)
{
    if (t->buf.len && (force || t->buf.len >= FLUSH_AT)) {
        if (!t->werr)
            t->werr = t->flush(t->user, t->buf.buf, t->buf.len);
        t->st->bytes += (int64_t)t->buf.len;
        fp_sb_reset(&t->buf);
    }
}

/* ---- time ---- */

static const tmap *map_of(const tl *t, int se)
{
    for (size_t i = 0; i < t->nmaps; i++)
        if (t->maps[i].se == se)
            return &t->maps[i];
    return &t->fallback;
}

static int64_t ns_at(const tmap *m, int64_t cycle)
{
    double us = m->base_us + (double)(cycle - m->g0) * m->per_cycle_us;
    int64_t ns = (int64_t)llround(us * 1000.0);
    return ns < 0 ? 0 : ns;
}

/* realtime.json -> one map per SE on a common axis: 0 = the earliest SE's
 * reference time at its shader cycle 0, so that every timestamp is >= 0. An SE
 * whose pairs give no clock is drawn on the first usable SE's map (counted). */
static void time_maps(tl *t)
{
    fp_realtime rt;
    fp_err e = {0};
    fp_tl_stats *st = t->st;
    if (fp_realtime_load(t->in->dir, &rt, &e) == 0) {
        /* in reference ticks relative to the earliest first pair: small numbers, so a
         * double keeps sub-ns precision (absolute ns of a 100 MHz clock would not) */
        int64_t r = INT64_MAX;
        for (size_t i = 0; i < rt.n; i++)
            r = rt.ses[i].real0 < r ? rt.ses[i].real0 : r;
        double origin = INFINITY;
        t->maps = calloc(rt.n + 1, sizeof *t->maps);
        if (!t->maps)
            abort();
        for (size_t i = 0; i < rt.n; i++) {
            const fp_rt_se *se = &rt.ses[i];
            double mhz = fp_realtime_mhz(&rt, se);
            if (!(mhz > 0))
                continue;
            double tpc = (double)(se->real1 - se->real0) / (double)(se->gfx1 - se->gfx0);
            double at0 = (double)(se->real0 - r) - (double)se->gfx0 * tpc; /* ticks at cycle 0 */
            t->maps[t->nmaps++] = (tmap){se->se, at0, 1.0 / mhz, 0}; /* base in ticks until the origin is known */
            origin = at0 < origin ? at0 : origin;
            st->mhz_min = st->mhz_min == 0 || mhz < st->mhz_min ? mhz : st->mhz_min;
            st->mhz_max = mhz > st->mhz_max ? mhz : st->mhz_max;
        }
        for (size_t i = 0; i < t->nmaps; i++)
            t->maps[i].base_us = (t->maps[i].base_us - origin) * 1e6 / rt.frequency_hz;
        fp_realtime_free(&rt);
        if (t->nmaps) {
            t->fallback = t->maps[0];
            st->timebase = "realtime.json";
            return;
        }
        snprintf(st->realtime_error, sizeof st->realtime_error, "no SE with two increasing pairs and a frequency");
    } else if (e.code != FP_NO_ARTIFACT) {
        snprintf(st->realtime_error, sizeof st->realtime_error, "%s", e.message);
    }
    fp_err_clear(&e);
    bool clock = t->in->clock_mhz > 0;
    t->fallback = (tmap){-1, 0.0, clock ? 1.0 / t->in->clock_mhz : 0.001, 0};
    st->timebase = clock ? "clock" : "cycles";
}

/* ---- events ---- */

static void put_ns(fp_sb *b, int64_t ns)
{
    char s[32];
    int n = snprintf(s, sizeof s, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
    fp_sb_add(b, s, (size_t)n);
}

static void ev_begin(tl *t)
{
    fp_sb_adds(&t->buf, t->first ? "\n{" : ",\n{");
    t->first = false;
}

static void ev_end(tl *t)
{
    fp_sb_addc(&t->buf, '}');
    out_flush(t, false);
}

/* A slice on (pid, tid); name is already JSON-escaped; args a JSON object or NULL. */
static void ev_slice(tl *t, const char *name, const char *cat, int64_t ns0, int64_t ns1, int pid, int64_t tid,
                     const char *args)
{
    ev_begin(t);
    fp_sb_addf(&t->buf, "\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", name, cat);
    put_ns(&t->buf, ns0);
    fp_sb_adds(&t->buf, ",\"dur\":");
    put_ns(&t->buf, ns1 - ns0);
    fp_sb_addf(&t->buf, ",\"pid\":%d,\"tid\":%" PRId64, pid, tid);
    if (args)
        fp_sb_addf(&t->buf, ",\"args\":%s", args);
    ev_end(t);
    t->st->slices++;
    if (t->st->slices == 1 || ns0 < t->st->t0_ns)
        t->st->t0_ns = ns0;
    if (ns1 > t->st->t1_ns)
        t->st->t1_ns = ns1;
}

/* A metadata event: process_name / thread_name / *_sort_index. */
static void ev_meta(tl *t, const char *what, int pid, int64_t tid, const char *name, int64_t sort)
{
    ev_begin(t);
    fp_sb_addf(&t->buf, "\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRId64 ",\"args\":{", what, pid, tid);
    if (name) {
        fp_sb_adds(&t->buf, "\"name\":");
        fp_mk_json(&t->buf, name);
    } else {
        fp_sb_addf(&t->buf, "\"sort_index\":%" PRId64, sort);
    }
    fp_sb_addc(&t->buf, '}');
    ev_end(t);
}

static void process(tl *t, int pid, const char *name)
{
    for (size_t i = 0; i < t->npids; i++)
        if (t->pids[i] == pid)
            return;
    if (t->npids < MAX_PIDS)
        t->pids[t->npids++] = pid;
    ev_meta(t, "process_name", pid, 0, name, 0);
    ev_meta(t, "process_sort_index", pid, 0, NULL, pid);
    t->st->processes++;
}

/* ---- labels ---- */

/* "<opcode> <file>:<line>" of every code row, escaped once for all records. */
static void make_labels(tl *t)
{
    const fp_code *c = t->in->code;
    t->labels = calloc(c->n + 1, sizeof *t->labels);
    if (!t->labels)
        abort();
    fp_sb s, j;
    fp_sb_init(&s);
    fp_sb_init(&j);
    for (size_t i = 0; i < c->n; i++) {
        const char *isa = c->rows[i].isa;
        size_t op = strcspn(isa, " \t");
        fp_sb_reset(&s);
        fp_sb_add(&s, isa, op);
        fp_frame *fr;
        size_t nf = fp_source_frames(c->rows[i].source, &fr);
        if (nf && fr[0].line >= 0)
            fp_sb_addf(&s, " %s:%ld", fp_mk_short_path(fr[0].file, 1), fr[0].line);
        else if (nf)
            fp_sb_addf(&s, " %s", fp_mk_short_path(fr[0].file, 1));
        fp_frames_free(fr, nf);
        fp_sb_reset(&j);
        fp_mk_json(&j, s.buf);
        j.buf[j.len - 1] = '\0'; /* drop the quotes: ev_slice adds them */
        t->labels[i] = strdup(j.buf + 1);
        if (!t->labels[i])
            abort();
    }
    fp_sb_free(&s);
    fp_sb_free(&j);
}

static const char *label_of(const tl *t, int64_t line, size_t *row)
{
    const fp_inst *r = fp_code_at(t->in->code, line);
    if (!r) {
        *row = SIZE_MAX;
        return "unknown pc";
    }
    *row = (size_t)(r - t->in->code->rows);
    return t->labels[*row];
}

/* ---- one wave ---- */

static void wave_states(tl *t, const tmap *m, const fp_wave *w, int pid, int64_t tid)
{
    int64_t cyc = w->begin, prev = ns_at(m, w->begin);
    for (size_t i = 0; i < w->n_spans; i++) {
        const fp_wave_span *sp = &w->spans[i];
        int64_t end_cyc = cyc + (sp->dur > 0 ? sp->dur : 0);
        int64_t ns0 = prev, ns1 = ns_at(m, end_cyc);
        if (ns1 < ns0)
            ns1 = ns0;
        if (sp->state > 0 && sp->state < FP_WS_COUNT && ns1 > ns0)
            ev_slice(t, STATE_NAMES[sp->state], "state", ns0, ns1, pid, tid, NULL);
        cyc = end_cyc;
        prev = ns1;
    }
}

/* Records [i0, i1) as one slice (a run of one source line, or one record):
 * named after its record with most stall; ends where the next one starts. */
static void inst_slice(tl *t, const tmap *m, const fp_wave *w, size_t i0, size_t i1, int pid, int64_t tid,
                       int64_t *prev_end)
{
    const fp_wave_inst *a = &w->insts[i0];
    int64_t end = a->time, stall = 0;
    size_t hot = i0;
    for (size_t i = i0; i < i1; i++) {
        const fp_wave_inst *r = &w->insts[i];
        int64_t e = r->time + (r->dur > 0 ? r->dur : 0);
        end = e > end ? e : end;
        stall += r->stall > 0 ? r->stall : 0;
        hot = r->stall > w->insts[hot].stall ? i : hot;
    }
    int64_t ns0 = ns_at(m, a->time), ns1 = ns_at(m, end);
    if (i1 < w->n_insts) {
        int64_t next = ns_at(m, w->insts[i1].time);
        if (ns1 > next && next >= ns0)
            ns1 = next, t->st->clipped++;
    }
    if (ns0 < *prev_end) {
        ns0 = *prev_end, t->st->clipped++;
        ns1 = ns1 < ns0 ? ns0 : ns1;
    }
    size_t row;
    const char *name = label_of(t, w->insts[hot].line, &row);
    char args[160];
    if (i1 - i0 == 1)
        snprintf(args, sizeof args, "{\"pc\":%" PRId64 ",\"stall\":%" PRId64 ",\"cycles\":%" PRId64 "}", a->line,
                 stall, a->dur);
    else
        snprintf(args, sizeof args, "{\"insts\":%zu,\"stall\":%" PRId64 ",\"pc\":%" PRId64 ",\"cycles\":%" PRId64 "}",
                 i1 - i0, stall, a->line, end - a->time);
    ev_slice(t, name, stall > 0 ? "stall" : "isa", ns0, ns1, pid, tid, args);
    *prev_end = ns1;
}

/* Two records are one run when their code rows share a source line (interned pointers). */
static bool same_run(const tl *t, const fp_wave_inst *a, const fp_wave_inst *b)
{
    const fp_inst *x = fp_code_at(t->in->code, a->line), *y = fp_code_at(t->in->code, b->line);
    if (!x || !y)
        return a->line == b->line;
    return x->source == y->source || !strcmp(x->source, y->source);
}

static void wave_insts(tl *t, const tmap *m, const fp_wave *w, int pid, int64_t tid)
{
    int64_t prev_end = 0;
    for (size_t i = 0; i < w->n_insts;) {
        size_t j = i + 1;
        if (t->in->detail == FP_TL_LINES)
            while (j < w->n_insts && same_run(t, &w->insts[i], &w->insts[j]))
                j++;
        inst_slice(t, m, w, i, j, pid, tid, &prev_end);
        i = j;
    }
}

static int on_wave(void *user, const fp_wave_file *f, const fp_wave *w)
{
    tl *t = user;
    if (t->in->interrupted && *t->in->interrupted) {
        t->werr = t->werr ? t->werr : EINTR; /* a long trace is not written to the end after a signal */
        return t->werr;
    }
    const tmap *m = map_of(t, w->se);
    if (t->nmaps && m == &t->fallback && m->se != w->se)
        t->st->ses_unaligned++; /* counted per wave; the command reports it */
    int pid = 1000 * (w->se + 1) + 1 + (w->cu >= 0 && w->cu < 998 ? w->cu : 998);
    char name[96];
    snprintf(name, sizeof name, "SE%d CU%d", w->se, w->cu);
    process(t, pid, name);
    int64_t tid = 2 * (int64_t)f->pos + 1;
    snprintf(name, sizeof name, "simd %d slot %d wave %d", w->simd, w->slot, w->id);
    ev_meta(t, "thread_name", pid, tid, name, 0);
    ev_meta(t, "thread_sort_index", pid, tid, NULL, tid);
    wave_states(t, m, w, pid, tid);
    if (t->in->detail != FP_TL_STATES) {
        snprintf(name, sizeof name, "simd %d slot %d wave %d isa", w->simd, w->slot, w->id);
        ev_meta(t, "thread_name", pid, tid + 1, name, 0);
        ev_meta(t, "thread_sort_index", pid, tid + 1, NULL, tid + 1);
        wave_insts(t, m, w, pid, tid + 1);
    }
    t->st->waves++;
    return t->werr;
}

static void on_skip(void *user, const fp_wave_file *f, const fp_err *err)
{
    (void)f, (void)err;
    ((tl *)user)->st->waves_skipped++;
}

/* ---- occupancy counters ---- */

static void occupancy(tl *t, const fp_occupancy *o)
{
    for (size_t s = 0; s < o->n; s++) {
        const fp_occ_se *se = &o->ses[s];
        int pid = 1000 * (se->se + 1);
        char name[64];
        snprintf(name, sizeof name, "SE%d occupancy", se->se);
        process(t, pid, name);
        const tmap *m = map_of(t, se->se);
        int64_t level = 0;
        for (size_t i = 0; i < se->n; i++) {
            level += se->ev[i].start ? 1 : -1;
            if (i + 1 < se->n && se->ev[i + 1].time == se->ev[i].time)
                continue; /* one value per timestamp: the level after all its events */
            ev_begin(t);
            fp_sb_addf(&t->buf, "\"name\":\"resident waves\",\"ph\":\"C\",\"ts\":");
            put_ns(&t->buf, ns_at(m, se->ev[i].time));
            fp_sb_addf(&t->buf, ",\"pid\":%d,\"tid\":0,\"args\":{\"waves\":%" PRId64 "}", pid, level);
            ev_end(t);
            t->st->counters++;
        }
    }
}

static void other_data(tl *t)
{
    static const char *const unit[] = {"", "1 cycle = 1/clock_mhz µs", "1 cycle = 1 ns (no clock known)"};
    const char *tb = t->st->timebase;
    int u = !strcmp(tb, "realtime.json") ? 0 : !strcmp(tb, "clock") ? 1 : 2;
    fp_sb_adds(&t->buf, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"flyprof timeline\",\"kernel\":");
    fp_mk_json(&t->buf, t->in->kernel ? t->in->kernel : "");
    fp_sb_addf(&t->buf, ",\"detail\":\"%s\",\"timebase\":\"%s\"", fp_tl_detail_names[t->in->detail], tb);
    if (u)
        fp_sb_addf(&t->buf, ",\"time_unit\":\"%s\"", unit[u]);
    fp_sb_addf(&t->buf, ",\"waves\":%" PRId64 "}}\n", t->st->waves);
}

/* At most max wave files, evenly spaced (their pos, and so their tids, kept):
 * file i is drawn when i * max / n steps to a new integer. */
static fp_wave_list subset(const fp_wave_list *l, size_t max)
{
    fp_wave_list d = *l;
    if (!max || l->n <= max)
        return d;
    d.files = malloc(max * sizeof *d.files);
    if (!d.files)
        abort();
    d.n = 0;
    for (size_t i = 0; i < l->n && d.n < max; i++)
        if (i == 0 || (i * max) / l->n != ((i - 1) * max) / l->n)
            d.files[d.n++] = l->files[i];
    return d;
}

int fp_timeline_render(const fp_tl_in *in, fp_tl_flush flush, void *user, fp_tl_stats *st, fp_err *err)
{
    memset(st, 0, sizeof *st);
    tl t = {.in = in, .st = st, .flush = flush, .user = user, .first = true};
    fp_sb_init(&t.buf);
    time_maps(&t);
    if (in->detail != FP_TL_STATES)
        make_labels(&t);
    fp_wave_list list;
    int rc = -1;
    fp_occupancy occ = {0};
    if (fp_wave_list_dir(in->dir, &list, err) != 0)
        goto done;
    fp_err oe = {0};
    if (fp_occupancy_load(in->dir, &occ, &oe) != 0 && oe.code != FP_NO_ARTIFACT) {
        *err = oe;
        fp_wave_list_free(&list);
        goto done;
    }
    fp_err_clear(&oe);
    fp_sb_adds(&t.buf, "{\"traceEvents\":[");
    st->waves_listed = (int64_t)list.n;
    fp_wave_list drawn = subset(&list, in->max_waves);
    fp_wave_walk(in->dir, &drawn, on_wave, on_skip, &t);
    if (drawn.files != list.files)
        free(drawn.files);
    fp_wave_list_free(&list);
    if (!t.werr)
        occupancy(&t, &occ);
    other_data(&t);
    out_flush(&t, true);
    if (t.werr == EINTR)
        fp_err_set(err, FP_INTERRUPTED, "interrupted: the timeline was not written");
    else if (t.werr)
        fp_err_set(err, FP_IO_ERROR, "cannot write the timeline: %s", strerror(t.werr));
    else
        rc = 0;
done:
    fp_occupancy_free(&occ);
    for (size_t i = 0; t.labels && i < in->code->n; i++)
        free(t.labels[i]);
    free(t.labels);
    free(t.maps);
    fp_sb_free(&t.buf);
    return rc;
}
