/*
 * workid.c - report.json "isa" and "work" (workid.h): diff's inputs.
 *
 * The one idea: two captures are comparable only per unit of work and only
 * against the spread the trace itself shows. So the report carries what a
 * wave did (its cycles, the main loop's iterations and cycles per iteration)
 * as distributions over the traced waves, and a hash of the code so that a
 * recapture of the same binary is recognised as such.
 */
#include "flyprof/workid.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/mem.h"
#include "flyprof/model.h"
#include "flyprof/sha256.h"
#include "flyprof/strbuf.h"
#include "flyprof/taxonomy.h"
#include "flyprof/wave.h"
#include "flyprof/team.h"

static bool is_inst(const fp_inst *r) { return r->index_ok && r->index > 0 && r->isa[0] != ';'; }

fp_report_stat fp_stat_of(const double *v, size_t n)
{
    fp_report_stat s = {(int64_t)n, 0, 0, 0, 0};
    if (!n)
        return s;
    double sum = 0;
    s.min = s.max = v[0];
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        s.min = v[i] < s.min ? v[i] : s.min;
        s.max = v[i] > s.max ? v[i] : s.max;
    }
    s.mean = sum / (double)n;
    if (n > 1) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (v[i] - s.mean) * (v[i] - s.mean);
        s.sd = sqrt(ss / (double)(n - 1));
    }
    return s;
}

/* ---- the code: hashes and basic blocks ---- */

/* An instruction after which control does not simply fall through to the next. */
static bool ends_block(const fp_inst *r)
{
    fp_class c = fp_classify(r->isa);
    return c == FP_CL_BRANCH || c == FP_CL_DRAIN || !strncmp(r->isa, "s_setpc", 7) || !strncmp(r->isa, "s_endpgm", 8);
}

typedef struct vrow {
    int64_t vaddr;
    size_t pos; /* row position */
} vrow;

static int vrow_cmp(const void *a, const void *b)
{
    const vrow *x = a, *y = b;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The instruction rows sorted by vaddr, to find a branch's target row. */
static vrow *by_vaddr(const fp_code *code, size_t *n)
{
    vrow *v = calloc(code->n ? code->n : 1, sizeof *v);
    if (!v)
        abort();
    *n = 0;
    for (size_t i = 0; i < code->n; i++)
        if (is_inst(&code->rows[i]))
            v[(*n)++] = (vrow){code->rows[i].vaddr, i};
    qsort(v, *n, sizeof *v, vrow_cmp);
    return v;
}

static size_t row_at(const vrow *v, size_t n, int64_t vaddr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].vaddr < vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].vaddr == vaddr ? v[lo].pos : SIZE_MAX;
}

fp_report_isa *fp_isa_of(const fp_code *code)
{
    if (!code || !code->n)
        return NULL;
    fp_sb text, ops;
    fp_sb_init(&text);
    fp_sb_init(&ops);
    bool *leader = calloc(code->n + 1, 1);
    if (!leader)
        abort();
    size_t nv, count = 0;
    vrow *v = by_vaddr(code, &nv);
    bool next_leads = true; /* the first instruction starts a block */
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!is_inst(r))
            continue;
        count++;
        fp_sb_adds(&text, r->isa);
        fp_sb_adds(&text, "\n");
        char op[128];
        fp_opcode_lc(r->isa, op, sizeof op);
        fp_sb_adds(&ops, op);
        fp_sb_adds(&ops, "\n");
        if (next_leads)
            leader[i] = true;
        next_leads = ends_block(r);
        int64_t t;
        size_t j;
        if (fp_branch_target(r, &t) && (j = row_at(v, nv, t)) != SIZE_MAX)
            leader[j] = true;
    }
    free(v);
    fp_report_isa *o = NULL;
    if (count) {
        o = calloc(1, sizeof *o);
        if (!o)
            abort();
        char hex[65];
        fp_sha256_hex(text.buf ? text.buf : "", text.len, hex);
        o->sha256 = fp_model_strdup(hex);
        fp_sha256_hex(ops.buf ? ops.buf : "", ops.len, hex);
        o->opcodes_sha256 = fp_model_strdup(hex);
        o->instructions = (int64_t)count;
        for (size_t i = 0; i < code->n; i++)
            if (leader[i])
                *(double *)fp_model_push((void **)&o->block_starts, &o->nblock_starts, sizeof(double)) =
                    (double)code->rows[i].index;
    }
    free(leader);
    fp_sb_free(&text);
    fp_sb_free(&ops);
    return o;
}

/* ---- the main loop ---- */

bool fp_main_loop_of(const fp_code *code, fp_main_loop *out)
{
    if (!code || !code->n)
        return false;
    int64_t entry = -1;
    for (size_t i = 0; i < code->n && entry < 0; i++)
        if (is_inst(&code->rows[i]))
            entry = code->rows[i].hit;
    size_t nv;
    vrow *v = by_vaddr(code, &nv);
    bool found = false;
    double best = -1;
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        int64_t t;
        size_t j;
        if (!is_inst(r) || r->hit <= 0 || !fp_branch_target(r, &t) || t > r->vaddr ||
            (j = row_at(v, nv, t)) == SIZE_MAX || j > i)
            continue;
        /* iterated: the back-edge ran more often than the kernel was entered (a
         * backward jump that runs once per wave is the compiler's block layout
         * entering a loop placed above, not a loop) */
        if (r->hit <= entry)
            continue;
        double lat = 0;
        for (size_t k = j; k <= i; k++)
            lat += (double)code->rows[k].latency;
        if (lat > best) {
            best = lat;
            *out = (fp_main_loop){code->rows[j].index, r->index, r->hit, r->source};
            found = true;
        }
    }
    free(v);
    return found;
}

/* ---- the waves ---- */

typedef struct wave_acc {
    const fp_wave_file *f; /* whose figures these are */
    int64_t its;
    double t0, t1, total;
    bool seen;
} wave_acc;

typedef struct walk {
    fp_main_loop loop;
    bool has_loop;
    const int *cls_of;   /* code line -> class slot (-1: none) */
    int64_t max_line;
    size_t ncls;
    double *cycles, *iters, *per_iter; /* per wave */
    size_t n, n_per_iter;
    double **share;      /* [class slot][wave] */
    size_t n_share;      /* waves with stall */
    double *stall_by;    /* scratch, per class slot */
    wave_acc acc;        /* the wave being read */
} walk;

static void push_d(double **v, size_t n, double x)
{
    double *nv = realloc(*v, (n + 1) * sizeof *nv);
    if (!nv)
        abort();
    nv[n] = x;
    *v = nv;
}

/* One wave's figures, record by record (a wave read in chunks hands its records over in
 * pieces, issue 22): the main loop's span and back-edge count, the stall by class. */
static void acc_reset(walk *k, const fp_wave_file *f)
{
    wave_acc *a = &k->acc;
    memset(a, 0, sizeof *a);
    a->f = f;
    memset(k->stall_by, 0, k->ncls * sizeof *k->stall_by);
}

static void acc_rows(walk *k, const fp_wave_inst *rec, size_t n)
{
    wave_acc *a = &k->acc;
    for (size_t i = 0; k->has_loop && i < n; i++) {
        const fp_wave_inst *x = &rec[i];
        if (x->line < k->loop.head || x->line > k->loop.back_edge)
            continue;
        if (!a->seen)
            a->t0 = (double)x->time;
        a->seen = true;
        a->t1 = (double)x->time + (double)x->dur;
        a->its += x->line == k->loop.back_edge;
    }
    for (size_t i = 0; k->ncls && i < n; i++) {
        const fp_wave_inst *x = &rec[i];
        if (x->line < 0 || x->line > k->max_line || k->cls_of[x->line] < 0 || x->stall <= 0)
            continue;
        k->stall_by[k->cls_of[x->line]] += (double)x->stall;
        a->total += (double)x->stall;
    }
}

static void acc_commit(walk *k, const fp_wave *w)
{
    const wave_acc *a = &k->acc;
    /* in doubles: hostile cells may be anywhere in int64 (no signed overflow) */
    push_d(&k->cycles, k->n, (double)w->end - (double)w->begin);
    push_d(&k->iters, k->n, (double)a->its);
    k->n++;
    if (a->its > 0)
        push_d(&k->per_iter, k->n_per_iter++, (a->t1 - a->t0) / (double)a->its);
    if (!k->ncls || a->total <= 0)
        return;
    for (size_t c = 0; c < k->ncls; c++)
        push_d(&k->share[c], k->n_share, 100.0 * k->stall_by[c] / a->total);
    k->n_share++;
}

static int on_wave(void *user, const fp_wave_file *f, const fp_wave *w)
{
    walk *k = user;
    acc_reset(k, f);
    acc_rows(k, w->insts, w->n_insts);
    acc_commit(k, w);
    return 0;
}

/* A wave too big to hold: one pass in chunks (pass 1) does it all, begin() commits it and
 * skips the second pass (the figures need no waitcnt entries). */
static int ck_rows(void *user, const fp_wave_file *f, const fp_wave *w)
{
    walk *k = user;
    if (k->acc.f != f)
        acc_reset(k, f);
    acc_rows(k, w->insts, w->n_insts);
    return 0;
}

static int ck_spans(void *user, const fp_wave_file *f, const fp_wave *w)
{
    (void)user, (void)f, (void)w;
    return 0;
}

static int ck_begin(void *user, const fp_wave_file *f, const fp_wave *w, int64_t n_waits, fp_wave_wcur *wc)
{
    (void)n_waits, (void)wc;
    walk *k = user;
    if (k->acc.f != f) /* no rows at all */
        acc_reset(k, f);
    acc_commit(k, w);
    k->acc.f = NULL;
    return 1;
}

static int ck_end(void *user, const fp_wave_file *f, const fp_wave *w, bool ok)
{
    (void)user, (void)f, (void)w, (void)ok;
    return 0;
}

static void on_skip(void *user, const fp_wave_file *f, const fp_err *err) { (void)user, (void)f, (void)err; }

/* code line -> slot of its class among the report's classes (executed instructions only) */
static int *class_slots(const fp_code *code, const fp_report_doc *rep, char ***names, size_t *ncls, int64_t *max_line)
{
    *max_line = code->max_index;
    int *cls_of = malloc((size_t)(code->max_index + 1) * sizeof *cls_of);
    if (!cls_of)
        abort();
    for (int64_t i = 0; i <= code->max_index; i++)
        cls_of[i] = -1;
    *names = NULL;
    *ncls = 0;
    for (size_t i = 0; rep && i < rep->ninstructions; i++) {
        const fp_report_inst *it = &rep->instructions[i];
        if (!it->cls || it->code_line < 0 || it->code_line > code->max_index)
            continue;
        size_t c = 0;
        while (c < *ncls && strcmp((*names)[c], it->cls))
            c++;
        if (c == *ncls)
            fp_model_push_str(names, ncls, it->cls);
        cls_of[it->code_line] = (int)c;
    }
    return cls_of;
}

static fp_report_loop *loop_doc(const walk *k)
{
    fp_report_loop *l = calloc(1, sizeof *l);
    if (!l)
        abort();
    l->head = k->loop.head;
    l->back_edge = k->loop.back_edge;
    l->source = fp_model_strdup(k->loop.source && k->loop.source[0] ? k->loop.source : NULL);
    l->iterations = k->loop.iterations;
    l->iterations_per_wave = fp_stat_of(k->iters, k->n);
    l->cycles_per_iteration = fp_stat_of(k->per_iter, k->n_per_iter);
    return l;
}

/* One part of the wave list, walked by its own thread into its own arrays. */
typedef struct part {
    walk k;
    const char *dir;
    fp_wave_list list; /* a view of the whole list's files (not owned) */
} part;

static void *part_main(void *arg)
{
    part *p = arg;
    /* a wave too big to hold is read in chunks (one pass: ck_begin skips the second) */
    fp_wave_chunked ck = {0, 0, ck_rows, ck_spans, ck_begin, ck_rows, ck_end};
    fp_wave_chunked_sizes(&ck);
    fp_wave_walker wk;
    fp_wave_walker_init(&wk);
    wk.chunked = &ck;
    fp_wave_walk_with(&wk, p->dir, &p->list, on_wave, on_skip, &p->k);
    fp_wave_walker_free(&wk);
    return NULL;
}

/* dst += src, in order (the merged arrays are those of a serial walk). */
static void append(double **dst, size_t n, const double *src, size_t m)
{
    if (!m)
        return;
    double *nv = realloc(*dst, (n + m) * sizeof *nv);
    if (!nv)
        abort();
    memcpy(nv + n, src, m * sizeof *nv);
    *dst = nv;
}

static void part_free(walk *k)
{
    for (size_t c = 0; c < k->ncls; c++)
        free(k->share[c]);
    free(k->share);
    free(k->stall_by);
    free(k->cycles);
    free(k->iters);
    free(k->per_iter);
}

/* The waves, read by two threads (the first and second half of the list) when
 * there are enough of them: reading is most of the cost (a second read of the
 * wave files after bubbles'); the per-wave arrays are merged in list order, so
 * every figure is the one a single walk gives. */
static void walk_all(const char *dir, const fp_wave_list *list, const walk *proto, walk *out)
{
    enum { NPART = 2, MIN_PER_PART = 16 };
    size_t np = list->n >= NPART * MIN_PER_PART ? NPART : 1, at = 0;
    part parts[NPART];
    fp_task th[NPART];
    bool started[NPART] = {false};
    for (size_t i = 0; i < np; i++) {
        size_t len = list->n / np + (i < list->n % np);
        parts[i].k = *proto;
        parts[i].k.share = calloc(proto->ncls ? proto->ncls : 1, sizeof *parts[i].k.share);
        parts[i].k.stall_by = calloc(proto->ncls ? proto->ncls : 1, sizeof *parts[i].k.stall_by);
        if (!parts[i].k.share || !parts[i].k.stall_by)
            abort();
        parts[i].dir = dir;
        parts[i].list = (fp_wave_list){.files = list->files + at, .n = len};
        at += len;
        started[i] = i > 0 && fp_task_start(&th[i], part_main, &parts[i]) == 0;
    }
    part_main(&parts[0]);
    for (size_t i = 1; i < np; i++) {
        if (started[i])
            fp_task_join(&th[i]);
        else
            part_main(&parts[i]); /* no thread: walk it here */
    }
    *out = parts[0].k;
    for (size_t i = 1; i < np; i++) {
        walk *k = &parts[i].k;
        append(&out->cycles, out->n, k->cycles, k->n);
        append(&out->iters, out->n, k->iters, k->n);
        out->n += k->n;
        append(&out->per_iter, out->n_per_iter, k->per_iter, k->n_per_iter);
        out->n_per_iter += k->n_per_iter;
        for (size_t c = 0; c < out->ncls; c++)
            append(&out->share[c], out->n_share, k->share[c], k->n_share);
        out->n_share += k->n_share;
        part_free(k);
    }
}

fp_report_work *fp_work_of(const char *dir, const fp_code *code, const fp_report_doc *rep)
{
    if (!dir || !code || !code->n || code->max_index < 0)
        return NULL;
    fp_wave_list list;
    fp_err err = {0};
    if (fp_wave_list_dir(dir, &list, &err)) {
        fp_err_clear(&err);
        return NULL;
    }
    walk proto, k;
    memset(&proto, 0, sizeof proto);
    proto.has_loop = fp_main_loop_of(code, &proto.loop);
    char **names;
    int *cls_of = class_slots(code, rep, &names, &proto.ncls, &proto.max_line);
    proto.cls_of = cls_of;
    walk_all(dir, &list, &proto, &k);
    fp_wave_list_free(&list);
    fp_report_work *o = NULL;
    if (k.n) {
        o = calloc(1, sizeof *o);
        if (!o)
            abort();
        o->source = fp_model_strdup("wave files");
        o->wave_cycles = fp_stat_of(k.cycles, k.n);
        if (k.has_loop && k.n_per_iter)
            o->main_loop = loop_doc(&k);
        for (size_t c = 0; c < k.ncls; c++) {
            fp_model_kv *e = fp_model_push((void **)&o->share_sd, &o->nshare_sd, sizeof *e);
            e->key = fp_model_strdup(names[c]);
            e->v = fp_stat_of(k.share[c], k.n_share).sd;
        }
    }
    for (size_t c = 0; c < k.ncls; c++)
        free(names[c]);
    free(names);
    part_free(&k);
    free(cls_of);
    return o;
}
