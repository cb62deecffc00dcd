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

/* What a wave's tracks carry from one chunk to the next. */
typedef struct wave_cur {
    const tmap *m;
    int pid;
    int64_t tid;
    int64_t cyc, prev;   /* states: cycle and ns where the next span starts */
    /* instructions: the run not yet written (it ends where the next record starts) */
    bool open;
    fp_wave_inst first;  /* its first record (a run is the records of its source line) */
    int64_t end, stall;  /* its last cycle, its stall */
    int64_t hot_stall, hot_line; /* its record with most stall (the first such) */
    size_t n;
    int64_t prev_end;    /* ns where the track's last slice ended */
} wave_cur;

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
    fp_wave_chunked chunked; /* how a wave too big to hold is read */
    wave_cur cur;            /* ... and the one being read so */
    bool changed;            /* such a wave's file changed between two passes */
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

/* ---- one wave ----
 * A wave's two tracks are made from its spans and records in order, a chunk at a time
 * (a wave read whole is one chunk of each; one too big to hold comes in chunks: wave_cur
 * carries what a chunk's end leaves open), so both ways write the same bytes. */

static void states_begin(wave_cur *c, int64_t begin)
{
    c->cyc = begin;
    c->prev = ns_at(c->m, begin);
}

static void states_add(tl *t, wave_cur *c, const fp_wave_span *sp, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int64_t end_cyc = c->cyc + (sp[i].dur > 0 ? sp[i].dur : 0);
        int64_t ns0 = c->prev, ns1 = ns_at(c->m, end_cyc);
        if (ns1 < ns0)
            ns1 = ns0;
        if (sp[i].state > 0 && sp[i].state < FP_WS_COUNT && ns1 > ns0)
            ev_slice(t, STATE_NAMES[sp[i].state], "state", ns0, ns1, c->pid, c->tid, NULL);
        c->cyc = end_cyc;
        c->prev = ns1;
    }
}

/* The open run as one slice (a run of one source line, or one record): named after its
 * record with most stall; it ends where the next record starts (next, when has_next). */
static void run_slice(tl *t, wave_cur *c, bool has_next, int64_t next_time)
{
    const fp_wave_inst *a = &c->first;
    int64_t ns0 = ns_at(c->m, a->time), ns1 = ns_at(c->m, c->end);
    if (has_next) {
        int64_t next = ns_at(c->m, next_time);
        if (ns1 > next && next >= ns0)
            ns1 = next, t->st->clipped++;
    }
    if (ns0 < c->prev_end) {
        ns0 = c->prev_end, t->st->clipped++;
        ns1 = ns1 < ns0 ? ns0 : ns1;
    }
    size_t row;
    const char *name = label_of(t, c->hot_line, &row);
    char args[160];
    if (c->n == 1)
        snprintf(args, sizeof args, "{\"pc\":%" PRId64 ",\"stall\":%" PRId64 ",\"cycles\":%" PRId64 "}", a->line,
                 c->stall, a->dur);
    else
        snprintf(args, sizeof args, "{\"insts\":%zu,\"stall\":%" PRId64 ",\"pc\":%" PRId64 ",\"cycles\":%" PRId64 "}",
                 c->n, c->stall, a->line, c->end - a->time);
    ev_slice(t, name, c->stall > 0 ? "stall" : "isa", ns0, ns1, c->pid, c->tid + 1, args);
    c->prev_end = ns1;
    c->open = false;
}

/* Two records are one run when their code rows share a source line (interned pointers). */
static bool same_run(const tl *t, const fp_wave_inst *a, const fp_wave_inst *b)
{
    const fp_inst *x = fp_code_at(t->in->code, a->line), *y = fp_code_at(t->in->code, b->line);
    if (!x || !y)
        return a->line == b->line;
    return x->source == y->source || !strcmp(x->source, y->source);
}

static void insts_add(tl *t, wave_cur *c, const fp_wave_inst *r, size_t n)
{
    for (size_t i = 0; i < n; i++, r++) {
        if (c->open && (t->in->detail != FP_TL_LINES || !same_run(t, &c->first, r)))
            run_slice(t, c, true, r->time);
        if (!c->open) {
            c->open = true;
            c->first = *r;
            c->end = r->time;
            c->stall = c->n = 0;
            c->hot_stall = r->stall;
            c->hot_line = r->line;
        }
        int64_t e = r->time + (r->dur > 0 ? r->dur : 0);
        c->end = e > c->end ? e : c->end;
        c->stall += r->stall > 0 ? r->stall : 0;
        if (r->stall > c->hot_stall)
            c->hot_stall = r->stall, c->hot_line = r->line;
        c->n++;
    }
}

static void insts_end(tl *t, wave_cur *c)
{
    if (c->open)
        run_slice(t, c, false, 0);
}

/* The wave's process and state track (and the name of its instruction track), from its
 * header; 0, or EINTR after a signal (nothing written). */
static int wave_open(tl *t, const fp_wave_file *f, const fp_wave *w, wave_cur *c)
{
    if (t->in->interrupted && *t->in->interrupted) {
        t->werr = t->werr ? t->werr : EINTR; /* a long trace is not written to the end after a signal */
        return t->werr;
    }
    memset(c, 0, sizeof *c);
    c->m = map_of(t, w->se);
    if (t->nmaps && c->m == &t->fallback && c->m->se != w->se)
        t->st->ses_unaligned++; /* counted per wave; the command reports it */
    c->pid = 1000 * (w->se + 1) + 1 + (w->cu >= 0 && w->cu < 998 ? w->cu : 998);
    char name[96];
    snprintf(name, sizeof name, "SE%d CU%d", w->se, w->cu);
    process(t, c->pid, name);
    c->tid = 2 * (int64_t)f->pos + 1;
    snprintf(name, sizeof name, "simd %d slot %d wave %d", w->simd, w->slot, w->id);
    ev_meta(t, "thread_name", c->pid, c->tid, name, 0);
    ev_meta(t, "thread_sort_index", c->pid, c->tid, NULL, c->tid);
    states_begin(c, w->begin);
    return 0;
}

/* After the states: the instruction track's name (detail above `states`). */
static void isa_track(tl *t, const fp_wave *w, const wave_cur *c)
{
    char name[96];
    snprintf(name, sizeof name, "simd %d slot %d wave %d isa", w->simd, w->slot, w->id);
    ev_meta(t, "thread_name", c->pid, c->tid + 1, name, 0);
    ev_meta(t, "thread_sort_index", c->pid, c->tid + 1, NULL, c->tid + 1);
}

static int on_wave(void *user, const fp_wave_file *f, const fp_wave *w)
{
    tl *t = user;
    wave_cur c;
    if (wave_open(t, f, w, &c))
        return t->werr;
    states_add(t, &c, w->spans, w->n_spans);
    if (t->in->detail != FP_TL_STATES) {
        isa_track(t, w, &c);
        insts_add(t, &c, w->insts, w->n_insts);
        insts_end(t, &c);
    }
    t->st->waves++;
    return t->werr;
}

/* ---- a wave too big to hold (fp_wave_chunked, issue 22) ----
 * Pass 1 only finds the header (a file may write it after its rows); begin() opens the
 * wave, draws its states through a pass over its spans alone (fp_wave_spans_chunked),
 * and pass 2 hands the records to the instruction track chunk by chunk. Memory: a chunk,
 * whatever the file's size. A file changed between two passes stops the timeline (its
 * first passes are already written): STOP_CHANGED. */
enum { STOP = 2, STOP_CHANGED = 3 }; /* walk stop values (0, 1 and -1 mean something to begin()) */

static int ck_nothing(void *user, const fp_wave_file *f, const fp_wave *w)
{
    (void)user, (void)f, (void)w;
    return 0;
}

static int ck_spans(void *user, const fp_wave *w)
{
    tl *t = user;
    states_add(t, &t->cur, w->spans, w->n_spans);
    return t->werr ? STOP : 0;
}

static int ck_begin(void *user, const fp_wave_file *f, const fp_wave *w, int64_t n_waits, fp_wave_wcur *wc)
{
    (void)n_waits, (void)wc;
    tl *t = user;
    if (wave_open(t, f, w, &t->cur))
        return STOP;
    int rc = fp_wave_spans_chunked(t->in->dir, f, t->chunked.rows, ck_spans, t);
    if (rc)
        return rc < 0 ? (t->changed = true, STOP_CHANGED) : STOP;
    if (t->in->detail == FP_TL_STATES) {
        t->st->waves++;
        return t->werr ? STOP : 1; /* no second pass */
    }
    isa_track(t, w, &t->cur);
    return t->werr ? STOP : 0;
}

static int ck_rows(void *user, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    tl *t = user;
    insts_add(t, &t->cur, w->insts, w->n_insts);
    return t->werr ? STOP : 0;
}

static int ck_end(void *user, const fp_wave_file *f, const fp_wave *w, bool ok)
{
    (void)f, (void)w;
    tl *t = user;
    if (!ok) {
        t->changed = true;
        return STOP_CHANGED;
    }
    insts_end(t, &t->cur);
    t->st->waves++;
    return t->werr ? STOP : 0;
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
    t.chunked = (fp_wave_chunked){0, 0, ck_nothing, ck_nothing, ck_begin, ck_rows, ck_end};
    fp_wave_chunked_sizes(&t.chunked);
    fp_wave_walker wk;
    fp_wave_walker_init(&wk);
    wk.chunked = &t.chunked;
    fp_wave_walk_with(&wk, in->dir, &drawn, on_wave, on_skip, &t);
    fp_wave_walker_free(&wk);
    if (drawn.files != list.files)
        free(drawn.files);
    fp_wave_list_free(&list);
    if (!t.werr && !t.changed)
        occupancy(&t, &occ);
    other_data(&t);
    out_flush(&t, true);
    if (t.changed)
        fp_err_set(err, FP_IO_ERROR, "%s: a wave file changed while it was read (read in passes: it is too big to hold)",
                   in->dir);
    else if (t.werr == EINTR)
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
