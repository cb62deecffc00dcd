/* test_bub_inst.c - the instruction pass's per-line table (waitcnt.c bub_line, issue 22):
 * every bit of it against the per-record computation the pass did before (kept here as
 * the reference: row_of, row_wait, cnt_of / fp_counter_of, row_nopipe || cat_nopipe, the
 * drain test), on every corpus code.json and a hostile synthetic one; and the pass itself
 * (sums, stall intervals, in-flight spans) against the old per-record loop, whole and in
 * chunks. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/bubbles_internal.h"
#include "flyprof/att.h"
#include "flyprof/taxonomy.h"

/* ---- the reference: what fp_bub_wave_chunk computed per record before the table ---- */

static size_t ref_row_of(const fp_code *code, int64_t line)
{
    if (line < 0 || line > code->max_index || !code->pos_of_index)
        return SIZE_MAX;
    return code->pos_of_index[line];
}

static fp_counter ref_counter(const bub_ctx *c, size_t row, int32_t cat)
{
    fp_class st = c->row_static[row];
    return (unsigned)cat < BUB_CATS ? (fp_counter)c->cnt_of[st][cat] : fp_counter_of(st, cat);
}

static bool ref_nopipe(const bub_ctx *c, size_t row, int32_t cat)
{
    return c->row_nopipe[row] || fp_bub_cat_nopipe(cat);
}

static const int32_t cats[] = {INT32_MIN, -1000, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                               17, 31, 32, 63, 64, 255, 1 << 20, INT32_MAX};

static void check_table(const fp_code *code)
{
    fp_bubbles b;
    memset(&b, 0, sizeof b);
    b.code = *code;
    b.insts = calloc(code->n + 1, sizeof *b.insts);
    assert_non_null(b.insts);
    bub_ctx c;
    fp_bub_ctx_init(&c, &b, NULL, NULL);
    int64_t lines[] = {INT64_MIN, -3, -1, INT64_MAX, (int64_t)1 << 40};
    size_t checked = 0;
    for (int64_t l = -3; l <= code->max_index + 3 + (int64_t)(sizeof lines / sizeof *lines); l++) {
        int64_t line = l > code->max_index + 3 ? lines[l - code->max_index - 4] : l;
        size_t row = ref_row_of(code, line);
        bool known = (uint64_t)line < c.n_lines && c.lines[line].row != BUB_LINE_NONE;
        assert_int_equal(known, row != SIZE_MAX);
        if (!known) {
            /* out of the table (the pass reads the line past the last), or in it as "unknown" */
            const bub_line *U = &c.lines[(uint64_t)line < c.n_lines ? (uint64_t)line : c.n_lines];
            assert_int_equal(U->rare, BUB_LINE_UNKNOWN);
            assert_int_equal(U->row, BUB_LINE_NONE);
            for (size_t k = 0; k < BUB_CATS; k++)
                assert_int_equal(U->fl[k], BUB_F_UNKNOWN);
            assert_int_equal(U->kbit, 0); /* a named producer not in code.json: no kind */
            continue;
        }
        const bub_line *L = &c.lines[line];
        assert_int_equal(L->row, row);
        assert_int_equal(L->cls, c.row_static[row]);
        assert_int_equal(L->rare, c.row_wait[row] ? BUB_LINE_WAIT : 0);
        assert_int_equal(L->hit | L->stall | L->lat | (int64_t)L->last_g, 0);
        /* the kind a decoder entry naming it as producer counts on (category OTHER) */
        assert_int_equal(L->kbit, 1u << fp_counter_of(c.row_static[row], (int)BUB_CAT_OTHER));
        for (size_t k = 0; k < sizeof cats / sizeof *cats; k++) {
            int32_t cat = cats[k];
            uint64_t cb = L->cat >> bub_cat_key(cat);
            fp_counter kc = ref_counter(&c, row, cat);
            assert_int_equal(kc, fp_counter_of(c.row_static[row], cat)); /* cnt_of is the function */
            assert_int_equal(cb >> BUB_LB_VM & 1, kc == FP_CNT_VM);
            assert_int_equal(cb >> BUB_LB_LGKM & 1, kc == FP_CNT_LGKM);
            bool np = ref_nopipe(&c, row, cat);
            assert_int_equal(cb >> BUB_LB_NOPIPE & 1, np);
            assert_int_equal(cb >> BUB_LB_DRAIN & 1, np && c.row_static[row] == FP_CL_DRAIN);
            /* the flags byte the pass reads: the same bits, a wait never queued */
            unsigned f = L->fl[bub_cat_key(cat)];
            bool wait = c.row_wait[row] != 0;
            assert_int_equal(!!(f & BUB_F_WAIT), wait);
            assert_int_equal(!!(f & BUB_F_VM), !wait && kc == FP_CNT_VM);
            assert_int_equal(!!(f & BUB_F_LGKM), !wait && kc == FP_CNT_LGKM);
            assert_int_equal(!!(f & BUB_F_NOPIPE), np);
            assert_int_equal(!!(f & BUB_F_DRAIN), np && c.row_static[row] == FP_CL_DRAIN);
            assert_int_equal(f & BUB_F_UNKNOWN, 0);
            checked++;
        }
    }
    assert_true(checked > 0 || code->n == 0);
    /* wave_pass_direct reads lines[line] for line < lines_cap and fl[cat] for cat < BUB_CATS
     * unclamped: past n_lines every entry is the sentinel, and fl[13], fl[14] are what the
     * clamp reads (key OTHER) */
    assert_true(c.lines_cap >= c.n_lines + 1);
    if (c.n_lines + 1 <= ((size_t)1 << 18))
        assert_int_equal(c.lines_cap & (c.lines_cap - 1), 0);
    for (size_t l = 0; l < c.lines_cap; l++) {
        const bub_line *L = &c.lines[l];
        if (l >= c.n_lines) {
            assert_int_equal(L->row, BUB_LINE_NONE);
            assert_int_equal(L->rare, BUB_LINE_UNKNOWN);
            assert_int_equal(L->kbit, 0);
            assert_int_equal(L->hit | L->stall | L->lat | (int64_t)L->last_g, 0);
        }
        for (int32_t cat = 0; cat < (int32_t)BUB_CATS; cat++)
            assert_int_equal(L->fl[cat], L->fl[bub_cat_key(cat)]);
    }
    /* a row is named by one line at most: named_producer takes a producer retired in the
     * wave as seen on that ground (its line is the only one that runs the row) */
    unsigned char *named = calloc(code->n + 1, 1);
    assert_non_null(named);
    for (size_t l = 0; l < c.n_lines; l++)
        if (c.lines[l].row != BUB_LINE_NONE) {
            assert_true(c.lines[l].row < code->n);
            assert_int_equal(named[c.lines[l].row]++, 0);
        }
    free(named);
    fp_bub_ctx_free(&c);
    free(b.insts);
}

/* A code.json with what a capture never has: gaps and repeats in LineNumber, rows with
 * no LineNumber, waits of each counter, drains, messages, memory of every kind. */
static const char synth_code[] =
    "{\"code\":["
    "[\"; k\",0,0,\"\",4,0,0,0,0,0],"
    "[\"s_load_dword s4, s[0:1], 0x3c\",0,1,\"a.py:1\",4,0,1,1,0,0],"
    "[\"s_waitcnt lgkmcnt(0)\",0,3,\"a.py:2\",4,0,1,1,0,0],"
    "[\"global_load_dwordx4 v[0:3], v4, s[0:1]\",0,4,\"a.py:3\",4,0,1,1,0,0],"
    "[\"ds_read_b128 v[0:3], v4\",0,4,\"a.py:4\",4,0,1,1,0,0],"
    "[\"s_waitcnt vmcnt(1) lgkmcnt(0)\",0,9,\"a.py:5\",4,0,1,1,0,0],"
    "[\"ds_bpermute_b32 v1, v2, v3\",0,10,\"a.py:6\",4,0,1,1,0,0],"
    "[\"v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2]\",0,11,\"a.py:7\",4,0,1,1,0,0],"
    "[\"buffer_load_dword v1, v2, s[0:3], 0 offen lds\",0,12,\"a.py:8\",4,0,1,1,0,0],"
    "[\"s_nop 0\",0,13,\"a.py:9\",4,0,1,1,0,0],"
    "[\"s_barrier\",0,14,\"a.py:9\",4,0,1,1,0,0],"
    "[\"s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)\",0,15,\"a.py:9\",4,0,1,1,0,0],"
    "[\"global_atomic_add_f32 v0, v1, s[0:1]\",0,16,\"a.py:9\",4,0,1,1,0,0],"
    "[\"scratch_store_dword off, v1, s0\",0,17,\"a.py:9\",4,0,1,1,0,0],"
    "[\"v_add_f32 v0, v1, v2\",0,20,\"a.py:9\",4,0,1,1,0,0],"
    "[\"s_waitcnt vmcnt(0)\",0,21,\"a.py:9\",4,0,1,1,0,0],"
    "[\"s_endpgm\",0,22,\"a.py:10\",4,0,1,1,0,0]"
    "]}";

static void load_synth(fp_code *code)
{
    fp_err e = {0};
    assert_int_equal(fp_code_parse(synth_code, strlen(synth_code), "synth", code, &e), 0);
    fp_err_clear(&e);
}

static void test_table_synth(void **state)
{
    (void)state;
    fp_code code;
    load_synth(&code);
    assert_true(code.max_index >= 22);
    check_table(&code);
    fp_code_free(&code);
}

static void test_table_corpus(void **state)
{
    (void)state;
    size_t dirs = 0;
    DIR *d = opendir(FP_CORPUS);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char att[4096];
        snprintf(att, sizeof att, "%s/%s/att", FP_CORPUS, de->d_name);
        DIR *a = opendir(att);
        for (struct dirent *ae; a && (ae = readdir(a));) {
            if (strncmp(ae->d_name, "ui_output_", 10))
                continue;
            char dir[8192];
            snprintf(dir, sizeof dir, "%s/%s", att, ae->d_name);
            fp_code code;
            fp_err e = {0};
            if (fp_code_load(dir, &code, &e) == 0) {
                check_table(&code);
                fp_code_free(&code);
                dirs++;
            }
            fp_err_clear(&e);
        }
        if (a)
            closedir(a);
    }
    if (d)
        closedir(d);
    if (dirs == 0)
        skip(); /* no corpus beside this checkout */
}

/* ---- the pass: the old per-record loop (no waits: those go through wait_record, the
 * same in both) as the reference for the sums, c->st and c->ex ---- */

typedef struct ref_out {
    int64_t *hit, *stall, *lat, *cls_cycles; /* per row; cls_cycles: class_cycles[static] */
    bub_iv *st;
    bub_span *ex;
    size_t n_st, n_ex, cap_st, cap_ex;
    bool unsorted;
    int64_t drain_stall, drain_waves, unknown;
} ref_out;

static void ref_window(const bub_ctx *c, ref_out *o, const fp_wave_inst *r, size_t row, int64_t stall)
{
    if (r->dur <= stall)
        return;
    int64_t t0 = r->time + stall, t1 = r->time + r->dur;
    if (c->row_nopipe[row] || fp_bub_cat_nopipe(r->cat)) {
        if (c->row_static[row] == FP_CL_DRAIN) {
            FP_GROW(o->st, o->n_st, o->cap_st);
            o->st[o->n_st++] = (bub_iv){t0, t1, 0, BUB_CLS_DRAIN, (int64_t)row};
            o->drain_stall += t1 - t0;
            o->drain_waves++;
        }
        return;
    }
    if (o->n_ex) {
        bub_span *last = &o->ex[o->n_ex - 1];
        if (t0 <= last->t1 && t0 >= last->t0) {
            if (t1 > last->t1)
                last->t1 = t1;
            return;
        }
        o->unsorted |= t0 < last->t1;
    }
    FP_GROW(o->ex, o->n_ex, o->cap_ex);
    o->ex[o->n_ex++] = (bub_span){t0, t1};
}

static void ref_pass(const bub_ctx *c, ref_out *o, const fp_wave_inst *rec, size_t n, int gi)
{
    for (size_t j = 0; j < n; j++) {
        const fp_wave_inst *r = &rec[j];
        size_t row = ref_row_of(&c->b->code, r->line);
        if (row == SIZE_MAX) {
            o->unknown++;
            continue;
        }
        int64_t stall = r->stall < 0 ? 0 : r->stall;
        o->hit[row]++;
        o->stall[row] += stall;
        o->lat[row] += r->dur;
        fp_class st = c->row_static[row];
        o->cls_cycles[row] += stall;
        if (stall > 0) {
            FP_GROW(o->st, o->n_st, o->cap_st);
            o->st[o->n_st++] = (bub_iv){r->time, r->time + stall, gi, (int32_t)st, (int64_t)row};
        }
        ref_window(c, o, r, row, stall);
    }
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ored: each chunk with its bub_rec_bits (the pass may then skip its clamps), else none.
 * Returns how many chunks had every line and category in the tables (wave_pass_direct). */
static size_t run_pass(bub_ctx *c, const fp_wave_inst *rec, size_t n, size_t chunk, int gi, bool ored)
{
    bub_waits q = {NULL, NULL, 0, 0, 0, NULL, NULL};
    c->n_st = c->n_ex = 0;
    c->ex_unsorted = false;
    fp_bub_wave_begin(c, false, &q);
    size_t direct = 0;
    for (size_t a = 0; a < n; a += chunk) {
        size_t k = n - a < chunk ? n - a : chunk;
        bub_rec_or o = bub_rec_bits(rec + a, k);
        direct += ored && o.line < c->lines_cap && o.cat < BUB_CATS;
        fp_bub_wave_chunk(c, rec + a, k, gi, ored ? &o : NULL);
    }
    return direct;
}

static void test_pass_reference(void **state)
{
    (void)state;
    fp_code code;
    load_synth(&code);
    fp_bubbles b;
    memset(&b, 0, sizeof b);
    b.code = code;
    b.insts = calloc(code.n + 1, sizeof *b.insts);
    assert_non_null(b.insts);
    bub_ctx c;
    fp_bub_ctx_init(&c, &b, NULL, NULL);
    /* the rows that are no wait, and lines of no row */
    int64_t use[64];
    size_t n_use = 0;
    for (int64_t l = -2; l <= code.max_index + 2 && n_use < 60; l++) {
        size_t row = ref_row_of(&code, l);
        if (row == SIZE_MAX || !c.row_wait[row])
            use[n_use++] = l;
    }
    enum { N = 5000 };
    fp_wave_inst *rec = calloc(N, sizeof *rec);
    assert_non_null(rec);
    /* rounds 6..11 as 0..5 with the lines and categories a direct pass reads unclamped:
     * lines 0 .. lines_cap - 1 (sentinels past n_lines), categories 0..15 */
    int64_t tame[64];
    size_t n_tame = 0;
    for (size_t k = 0; k < n_use; k++)
        if (use[k] >= 0)
            tame[n_tame++] = use[k];
    assert_true(c.lines_cap > c.n_lines + 2);
    tame[n_tame++] = (int64_t)c.lines_cap - 1;
    tame[n_tame++] = (int64_t)c.n_lines;
    size_t direct_chunks = 0;
    for (int pass = 0; pass < 24; pass++) {
        int round = pass % 12;
        bool ored = pass >= 12;
        bool tamed = round >= 6;
        int64_t t = 0;
        for (size_t j = 0; j < N; j++) {
            uint64_t x = next_rand();
            t += (int64_t)(x % 7) - (round % 6 == 5 ? 2 : 0); /* rounds 5, 11: out of time order too */
            if (t < 0)
                t = 0;
            rec[j].time = t;
            rec[j].stall = (x >> 8) % 4 == 0 ? 0 : (int64_t)((x >> 12) % 9);
            rec[j].dur = (int64_t)((x >> 20) % 12);
            rec[j].line = tamed ? tame[(x >> 28) % n_tame] : use[(x >> 28) % n_use];
            rec[j].cat = tamed ? (int32_t)((x >> 36) % BUB_CATS) : cats[(x >> 36) % (sizeof cats / sizeof *cats)];
        }
        size_t chunk = round % 2 ? N : (size_t)1 + (round % 6) * 7;
        ref_out o;
        memset(&o, 0, sizeof o);
        o.hit = calloc(code.n + 1, sizeof *o.hit);
        o.stall = calloc(code.n + 1, sizeof *o.stall);
        o.lat = calloc(code.n + 1, sizeof *o.lat);
        o.cls_cycles = calloc(code.n + 1, sizeof *o.cls_cycles);
        ref_pass(&c, &o, rec, N, 3);
        memset(b.insts, 0, (code.n + 1) * sizeof *b.insts);
        b.drain_stall = b.drain_waves = b.unknown_line_records = 0;
        size_t d = run_pass(&c, rec, N, chunk, 3, ored);
        direct_chunks += d;
        if (ored && tamed)
            assert_int_equal(d, (N + chunk - 1) / chunk); /* every chunk went the direct way */
        fp_bub_inst_fold(&c);
        for (size_t i = 0; i < code.n; i++) {
            assert_int_equal(b.insts[i].w_hit, o.hit[i]);
            assert_int_equal(b.insts[i].w_stall, o.stall[i]);
            assert_int_equal(b.insts[i].w_latency, o.lat[i]);
            assert_int_equal(b.insts[i].class_cycles[c.row_static[i]], o.cls_cycles[i]);
        }
        assert_int_equal(b.unknown_line_records, o.unknown);
        assert_int_equal(b.drain_stall, o.drain_stall);
        assert_int_equal(b.drain_waves, o.drain_waves);
        assert_int_equal(c.n_st, o.n_st);
        assert_memory_equal(c.st, o.st, o.n_st * sizeof *o.st);
        assert_int_equal(c.n_ex, o.n_ex);
        assert_memory_equal(c.ex, o.ex, o.n_ex * sizeof *o.ex);
        assert_int_equal(c.ex_unsorted, o.unsorted);
        assert_true(round % 6 != 5 || o.unsorted); /* the order break is seen */
        assert_true(o.n_st > 0 && o.n_ex > 0 && o.unknown > 0);
        free(o.hit);
        free(o.stall);
        free(o.lat);
        free(o.cls_cycles);
        free(o.st);
        free(o.ex);
    }
    assert_true(direct_chunks > 0);
    free(rec);
    fp_bub_ctx_free(&c);
    free(b.insts);
    fp_code_free(&code);
}

/* ---- the wait path in replay mode (no decoder list): a plain-array model of the two
 * counters (drop-oldest past BUB_REPLAY_CAP) as the reference for the pairs it charges,
 * with hostile counter values written over the parsed ones: negative, huge, zero, and
 * more outstanding than issued ---- */

typedef struct ref_ex {
    uint64_t i;
    int64_t rel;
    size_t row;
    int32_t cat;
} ref_ex;

typedef struct ref_q {
    ref_ex v[BUB_REPLAY_CAP];
    size_t n;
} ref_q;

static void ref_q_push(ref_q *q, ref_ex x)
{
    if (q->n == BUB_REPLAY_CAP) {
        memmove(q->v, q->v + 1, (BUB_REPLAY_CAP - 1) * sizeof *q->v);
        q->n--;
    }
    q->v[q->n++] = x;
}

/* retire down to keep into out (appended at *no) */
static void ref_q_wait(ref_q *q, int keep, ref_ex *out, size_t *no)
{
    if (keep < 0 || q->n <= (size_t)keep)
        return;
    size_t k = q->n - (size_t)keep;
    memcpy(out + *no, q->v, k * sizeof *q->v);
    *no += k;
    memmove(q->v, q->v + k, (q->n - k) * sizeof *q->v);
    q->n -= k;
}

static void test_wait_replay_reference(void **state)
{
    (void)state;
    fp_code code;
    load_synth(&code);
    fp_bubbles b;
    memset(&b, 0, sizeof b);
    b.code = code;
    b.insts = calloc(code.n + 1, sizeof *b.insts);
    assert_non_null(b.insts);
    bub_ctx c;
    fp_bub_ctx_init(&c, &b, NULL, NULL);
    int64_t use[64];
    size_t n_use = 0, n_wait_rows = 0;
    for (int64_t l = -1; l <= code.max_index + 1 && n_use < 60; l++) {
        size_t row = ref_row_of(&code, l);
        use[n_use++] = l;
        n_wait_rows += row != SIZE_MAX && c.row_wait[row];
    }
    assert_true(n_wait_rows >= 2);
    static const int hostile[] = {-1000000, -1, 0, 1, 3, 63, 64, 65, 1 << 30, INT32_MAX};
    enum { N = 4000 };
    fp_wave_inst *rec = calloc(N, sizeof *rec);
    ref_ex *ret = calloc(2 * BUB_REPLAY_CAP, sizeof *ret);
    size_t nn = code.n + 1;
    int64_t *cnt = calloc(nn * nn, sizeof *cnt), *cyc = calloc(nn * nn, sizeof *cyc), *dist = calloc(nn * nn, sizeof *dist);
    assert_true(rec && ret && cnt && cyc && dist);
    for (int round = 0; round < 8; round++) {
        for (size_t i = 0; i < code.n; i++)
            if (c.row_wait[i] && round > 0) { /* round 0: the parsed counters */
                c.row_wf[i].vm_n = hostile[next_rand() % (sizeof hostile / sizeof *hostile)];
                c.row_wf[i].lgkm_n = hostile[next_rand() % (sizeof hostile / sizeof *hostile)];
            }
        int64_t t = 0;
        for (size_t j = 0; j < N; j++) {
            uint64_t x = next_rand();
            t += (int64_t)(x % 7);
            rec[j].time = t;
            rec[j].stall = (x >> 8) % 4 == 0 ? 0 : (int64_t)((x >> 12) % 9); /* >= 0: the walk's check */
            rec[j].dur = (int64_t)((x >> 20) % 12);
            rec[j].line = use[(x >> 28) % n_use];
            rec[j].cat = cats[(x >> 36) % (sizeof cats / sizeof *cats)];
        }
        /* the reference */
        ref_q vm = {0}, lg = {0};
        memset(cnt, 0, nn * nn * sizeof *cnt);
        memset(cyc, 0, nn * nn * sizeof *cyc);
        memset(dist, 0, nn * nn * sizeof *dist);
        int64_t with = 0, execs = 0;
        for (size_t j = 0; j < N; j++) {
            size_t row = ref_row_of(&code, rec[j].line);
            if (row == SIZE_MAX)
                continue;
            int64_t stall = rec[j].stall < 0 ? 0 : rec[j].stall;
            if (c.row_wait[row]) {
                execs++;
                size_t no = 0;
                const fp_waitcnt_fields *f = &c.row_wf[row];
                if (f->vm)
                    ref_q_wait(&vm, f->vm_n, ret, &no);
                if (f->lgkm)
                    ref_q_wait(&lg, f->lgkm_n, ret, &no);
                with += no > 0;
                for (size_t k = 0; k < no; k++) {
                    cnt[row * nn + ret[k].row]++;
                    cyc[row * nn + ret[k].row] += rec[j].time + stall - ret[k].rel;
                    dist[row * nn + ret[k].row] += (int64_t)(j - ret[k].i - 1);
                }
                continue;
            }
            fp_counter k = fp_counter_of(c.row_static[row], (int)bub_cat_key(rec[j].cat));
            ref_ex me = {j, rec[j].time + stall, row, rec[j].cat};
            if (k == FP_CNT_VM)
                ref_q_push(&vm, me);
            else if (k == FP_CNT_LGKM)
                ref_q_push(&lg, me);
        }
        /* the pass, whole or chunked */
        free(b.pairs);
        b.pairs = NULL;
        b.n_pairs = b.cap_pairs = 0;
        free(c.ptab);
        c.ptab = NULL;
        c.ptab_cap = 0;
        b.waits_exec = b.waits_with_producers = b.waits_inferred = 0;
        run_pass(&c, rec, N, round % 2 ? N : (size_t)1 + (size_t)round * 5, 3, (round & 2) != 0);
        assert_int_equal(b.waits_exec, execs);
        assert_int_equal(b.waits_with_producers, with);
        assert_int_equal(b.waits_inferred, with);
        int64_t seen = 0;
        for (size_t p = 0; p < b.n_pairs; p++) {
            size_t w = (size_t)b.pairs[p].wait_line, pr = (size_t)b.pairs[p].prod_line;
            assert_true(w < nn && pr < nn);
            assert_int_equal(b.pairs[p].count, cnt[w * nn + pr]);
            assert_int_equal(b.pairs[p].cycles_sum, cyc[w * nn + pr]);
            assert_int_equal(b.pairs[p].distance_sum, dist[w * nn + pr]);
            seen += b.pairs[p].count;
        }
        int64_t want = 0;
        for (size_t k = 0; k < nn * nn; k++)
            want += cnt[k];
        assert_int_equal(seen, want); /* no pair of the reference is missing */
        assert_true(round > 0 || want > 0);
    }
    free(rec);
    free(ret);
    free(cnt);
    free(cyc);
    free(dist);
    free(b.pairs);
    fp_bub_ctx_free(&c);
    free(b.insts);
    fp_code_free(&code);
}

/* ---- bub_rec_bits (bubbles.c wave_scan's record check, and whether the pass may skip its
 * clamps): the vector way and the scalar one against plain ORs, on every count around the
 * blocks of 4 and the steps of 2 blocks, every start in an array, and values with single
 * high bits, negative ones in each field, and garbage in the padding (never ORed) ---- */

static void test_rec_bits(void **state)
{
    (void)state;
    enum { N = 700 };
    fp_wave_inst *rec = malloc((N + 1) * sizeof *rec);
    assert_non_null(rec);
    size_t vec = 0;
    for (int round = 0; round < 60; round++) {
        memset(rec, 0xFF, (N + 1) * sizeof *rec); /* padding: all ones */
        for (size_t j = 0; j <= N; j++) {
            uint64_t x = next_rand();
            rec[j].time = (int64_t)(x % 1000);
            rec[j].stall = (int64_t)((x >> 10) % 50);
            rec[j].dur = (int64_t)((x >> 20) % 60);
            rec[j].line = (int64_t)((x >> 30) % 300);
            rec[j].cat = (int32_t)((x >> 40) % 13);
        }
        /* one hostile value somewhere (round 0: none), in each of the five fields in turn */
        size_t at = (size_t)(next_rand() % (N + 1));
        int64_t hv = round % 4 == 1 ? -1 : (int64_t)((uint64_t)1 << (next_rand() % 63));
        if (round > 0) {
            int fld = round % 5;
            if (fld < 4)
                (&rec[at].time)[fld] = hv;
            else
                rec[at].cat = round % 4 == 1 ? -1 : (int32_t)((uint32_t)1 << (next_rand() % 31));
        }
        for (size_t n = 0; n <= N; n += n < 40 ? 1 : 37) {
            for (size_t s0 = 0; s0 < 3 && s0 + n <= N + 1; s0++) {
                const fp_wave_inst *r = rec + s0;
                uint64_t want = 0, wline = 0;
                uint32_t wcat = 0;
                for (size_t j = 0; j < n; j++) {
                    want |= (uint64_t)r[j].time | (uint64_t)r[j].stall | (uint64_t)r[j].dur;
                    wline |= (uint64_t)r[j].line;
                    wcat |= (uint32_t)r[j].cat;
                }
                bub_rec_or o = bub_rec_bits_scalar(r, n);
                assert_int_equal(o.cyc, want);
                assert_int_equal(o.line, wline);
                assert_int_equal(o.cat, wcat);
                o = bub_rec_bits(r, n);
                assert_int_equal(o.cyc, want);
                assert_int_equal(o.line, wline);
                assert_int_equal(o.cat, wcat);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
                if (__builtin_cpu_supports("avx2")) {
                    o = bub_rec_bits_avx2(r, n);
                    assert_int_equal(o.cyc, want);
                    assert_int_equal(o.line, wline);
                    assert_int_equal(o.cat, wcat);
                    vec++;
                }
#endif
            }
        }
    }
    free(rec);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2"))
        assert_true(vec > 1000);
#endif
}

/* ---- decoder-entry matching (wait_record): which entries each wait execution takes,
 * against the rule as first written (every entry's counter kinds computed, eagerly): the
 * run of entries on its line, up to one whose kinds meet those taken already. The pass is
 * run one record a chunk so the count matched after each wait is seen, with the entries
 * whole or in windows of 1..3 (the refill replaces the window between entries) ---- */

typedef struct win_src {
    const fp_wave_wait *e;
    const int64_t *prods;
    size_t n, at, w;
} win_src;

static bool win_more(void *user, bub_waits *q)
{
    win_src *ws = user;
    if (ws->at >= ws->n)
        return false;
    size_t k = ws->n - ws->at < ws->w ? ws->n - ws->at : ws->w;
    q->e = ws->e + ws->at;
    q->prods = ws->prods;
    q->n = k;
    q->k = 0;
    ws->at += k;
    return true;
}

static unsigned ref_kbits(const fp_code *code, const bub_ctx *c, const int64_t *prods, size_t n)
{
    unsigned ek = 0;
    for (size_t q = 0; q < n; q++) {
        size_t row = ref_row_of(code, prods[q]);
        if (row != SIZE_MAX)
            ek |= 1u << fp_counter_of(c->row_static[row], (int)BUB_CAT_OTHER);
    }
    return ek;
}

static void test_wait_matching_reference(void **state)
{
    (void)state;
    fp_code code;
    load_synth(&code);
    fp_bubbles b;
    memset(&b, 0, sizeof b);
    b.code = code;
    b.insts = calloc(code.n + 1, sizeof *b.insts);
    assert_non_null(b.insts);
    bub_ctx c;
    fp_bub_ctx_init(&c, &b, NULL, NULL);
    int64_t use[64], waits[16];
    size_t n_use = 0, n_waits = 0;
    for (int64_t l = -1; l <= code.max_index + 1 && n_use < 60; l++) {
        size_t row = ref_row_of(&code, l);
        use[n_use++] = l;
        if (row != SIZE_MAX && c.row_wait[row] && n_waits < 16)
            waits[n_waits++] = l;
    }
    assert_true(n_waits >= 2);
    enum { N = 3000, E = 4 * N };
    fp_wave_inst *rec = calloc(N, sizeof *rec);
    fp_wave_wait *ent = calloc(E, sizeof *ent);
    int64_t *prods = calloc(4 * E, sizeof *prods);
    size_t *want = calloc(N, sizeof *want);
    assert_true(rec && ent && prods && want);
    size_t multi = 0, stopped = 0;
    for (int round = 0; round < 8; round++) {
        size_t ne = 0, np = 0;
        for (size_t j = 0; j < N; j++) {
            uint64_t x = next_rand();
            bool w = x % 3 == 0;
            rec[j].time = (int64_t)j * 4;
            rec[j].stall = (int64_t)(x >> 4) % 5;
            rec[j].dur = (int64_t)(x >> 8) % 7;
            rec[j].line = w ? waits[(x >> 12) % n_waits] : use[(x >> 12) % n_use];
            rec[j].cat = (int32_t)((x >> 20) % 14);
            if (!w)
                continue;
            /* 0..3 entries on its line (some of the same kind: the next execution's), now
             * and then one on another line (never matched by this wait) */
            size_t k = (size_t)((x >> 24) % 4);
            for (size_t q = 0; q < k + ((x >> 28) % 19 == 0); q++) {
                uint64_t y = next_rand();
                fp_wave_wait *e = &ent[ne++];
                e->line = q < k ? rec[j].line : y % 5 ? waits[y % n_waits] : use[y % n_use];
                e->first = np;
                e->n = (size_t)(y >> 8) % 4; /* 0: an entry of no producer */
                for (size_t i = 0; i < e->n; i++)
                    prods[np++] = use[(y >> (12 + 6 * i)) % n_use];
            }
        }
        assert_true(ne <= E && np <= 4 * E);
        /* the reference */
        size_t k = 0;
        for (size_t j = 0; j < N; j++) {
            size_t row = ref_row_of(&code, rec[j].line);
            if (row != SIZE_MAX && c.row_wait[row]) {
                unsigned kinds = 0;
                size_t k0 = k;
                while (k < ne && ent[k].line == rec[j].line) {
                    unsigned ek = ref_kbits(&code, &c, prods + ent[k].first, ent[k].n);
                    if (kinds && (ek & kinds)) {
                        stopped++;
                        break;
                    }
                    kinds |= ek ? ek : 1u;
                    k++;
                }
                multi += k - k0 > 1;
            }
            want[j] = k;
        }
        /* the pass, one record a chunk */
        size_t wsz = round % 4 == 0 ? ne + 1 : (size_t)(round % 4);
        win_src ws = {ent, prods, ne, 0, wsz};
        bub_waits q = {NULL, prods, 0, 0, 0, win_more, &ws};
        win_more(&ws, &q);
        free(b.pairs);
        b.pairs = NULL;
        b.n_pairs = b.cap_pairs = 0;
        free(c.ptab);
        c.ptab = NULL;
        c.ptab_cap = 0;
        c.n_st = c.n_ex = 0;
        c.ex_unsorted = false;
        fp_bub_wave_begin(&c, true, &q);
        for (size_t j = 0; j < N; j++) {
            bub_rec_or o = bub_rec_bits(rec + j, 1);
            fp_bub_wave_chunk(&c, rec + j, 1, 0, round % 2 ? &o : NULL);
            assert_int_equal(c.wq.matched, want[j]);
        }
        fp_bub_wave_end(&c, (int64_t)ne);
        assert_int_equal(b.waits_unmatched_entries, (int64_t)(ne - want[N - 1]));
        b.waits_unmatched_entries = 0;
    }
    assert_true(multi > 100 && stopped > 100); /* both ends of a run are reached */
    free(b.pairs);
    free(rec);
    free(ent);
    free(prods);
    free(want);
    fp_bub_ctx_free(&c);
    free(b.insts);
    fp_code_free(&code);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_synth),
        cmocka_unit_test(test_table_corpus),
        cmocka_unit_test(test_pass_reference),
        cmocka_unit_test(test_wait_replay_reference),
        cmocka_unit_test(test_wait_matching_reference),
        cmocka_unit_test(test_rec_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
