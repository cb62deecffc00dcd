/* test_bubbles_setup.c - the serial set-up and tear-down of `bubbles` done on two threads
 * (round 9), each against the one-thread way it replaced:
 *  - fp_bub_ctx_init_jobs(2) (the code rows classified by two threads) gives the tables of
 *    fp_bub_ctx_init, on every corpus code.json and a hostile synthetic one (waits of every
 *    shape, upper case, blanks, odd row counts around the split);
 *  - fp_bubbles_doc_build_jobs(2) (the hotspots built on a second thread, own pool adopted)
 *    prints the bytes of fp_bubbles_doc_build, for every rank order, on synthetic analyses
 *    with many tied stalls and pairs, around the thread's threshold; and every string of the
 *    document is in its pool (so fp_bubbles_doc_free frees each once). */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/analysis/bubbles_internal.h"
#include "flyprof/att.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/taxonomy.h"

/* splitmix64: the same inputs on every run */
static uint64_t rng;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void same_tables(const fp_code *code)
{
    fp_bubbles b1, b2;
    memset(&b1, 0, sizeof b1);
    memset(&b2, 0, sizeof b2);
    b1.code = b2.code = *code;
    b1.insts = calloc(code->n + 1, sizeof *b1.insts);
    b2.insts = calloc(code->n + 1, sizeof *b2.insts);
    assert_non_null(b1.insts);
    assert_non_null(b2.insts);
    bub_ctx c1, c2;
    fp_bub_ctx_init(&c1, &b1, NULL, NULL);
    fp_bub_ctx_init_jobs(&c2, &b2, NULL, NULL, 2);
    size_t n = code->n;
    assert_memory_equal(c1.row_static, c2.row_static, (n + 1) * sizeof *c1.row_static);
    assert_memory_equal(c1.row_wait, c2.row_wait, n + 1);
    assert_memory_equal(c1.row_nopipe, c2.row_nopipe, n + 1);
    for (size_t i = 0; i < n; i++) {
        const fp_waitcnt_fields *w1 = &c1.row_wf[i], *w2 = &c2.row_wf[i];
        assert_true(w1->is_wait == w2->is_wait && w1->vm == w2->vm && w1->lgkm == w2->lgkm && w1->exp == w2->exp);
        assert_true(w1->vm_n == w2->vm_n && w1->lgkm_n == w2->lgkm_n && w1->exp_n == w2->exp_n);
        assert_int_equal(b1.insts[i].cls, b2.insts[i].cls);
        /* and what one thread alone says of the row */
        assert_int_equal(c1.row_static[i], fp_classify(code->rows[i].isa));
    }
    assert_int_equal(c1.n_lines, c2.n_lines);
    for (size_t l = 0; l <= c1.n_lines; l++) {
        assert_int_equal(c1.lines[l].row, c2.lines[l].row);
        assert_int_equal(c1.lines[l].cls, c2.lines[l].cls);
        assert_int_equal(c1.lines[l].rare, c2.lines[l].rare);
        assert_int_equal(c1.lines[l].kbit, c2.lines[l].kbit);
        assert_int_equal(c1.lines[l].cat, c2.lines[l].cat);
        assert_memory_equal(c1.lines[l].fl, c2.lines[l].fl, sizeof c1.lines[l].fl);
    }
    fp_bub_ctx_free(&c1);
    fp_bub_ctx_free(&c2);
    free(b1.insts);
    free(b2.insts);
}

static void test_ctx_corpus(void **state)
{
    (void)state;
    glob_t g;
    size_t dirs = 0;
    if (glob(FP_CORPUS "/*/att/ui_output_*", GLOB_ONLYDIR, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            fp_code code;
            fp_err e = {0};
            if (fp_code_load(g.gl_pathv[i], &code, &e) == 0) {
                same_tables(&code);
                fp_code_free(&code);
                dirs++;
            }
            fp_err_clear(&e);
        }
        globfree(&g);
    }
    if (dirs == 0)
        skip(); /* no corpus beside this checkout */
}

static const char *const ISA[] = {
    "s_waitcnt vmcnt(0)", "s_waitcnt lgkmcnt(3)", "S_WAITCNT VMCNT(1) LGKMCNT(0)", "  s_waitcnt vmcnt(63) expcnt(7)",
    "s_waitcnt 0", "s_waitcnt_vscnt null, 0x0", "v_mfma_f32_32x32x8f16 a[0:15], v[2:3], v[4:5], a[0:15]",
    "buffer_load_dwordx4 v[0:3], v4, s[0:3], 0 offen", "global_store_dword v[1:2], v3, off", "ds_read_b128 v[0:3], v4",
    "ds_bpermute_b32 v1, v2, v3", "v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2]", "v_permlane32_swap v1, v2",
    "s_nop 4", "s_endpgm", "s_barrier", "s_branch 0xfffffff0", "s_cbranch_scc1 0x10", "s_load_dwordx8 s[8:15], s[0:1]",
    "v_add_f32 v1, v2, v3", "\\tv_exp_f32 v1, v2" /* a JSON escape: a tab in the ISA */, "", "x", "s_", "S_SETPRIO 3", "s_sleep 1", "flat_load_dword v1, v[2:3]",
};

/* A code.json of n rows drawn from ISA (and garbage), into dir; loaded. */
static void synth_code(const char *dir, size_t n, fp_code *code)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/code.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"code\":[[\"; synth_kernel\",0,0,\"\",2,4096,0,0,0,0]", f);
    for (size_t i = 1; i < n; i++) {
        const char *isa = ISA[next() % (sizeof ISA / sizeof *ISA)];
        int64_t lat = (int64_t)(next() % 50), st = (int64_t)(next() % 4) * 8; /* ties */
        fprintf(f, ",[\"%s\",0,%zu,\"k%d.py:%d\",2,%zu,%d,%lld,%lld,0]", isa, i, (int)(next() % 3),
                (int)(next() % 40), 4096 + 4 * i, (int)(next() % 9), (long long)(lat + st), (long long)st);
    }
    fputs("]}\n", f);
    fclose(f);
    fp_err e = {0};
    int rc = fp_code_load(dir, code, &e);
    if (rc != 0)
        print_error("%s\n", e.message);
    assert_int_equal(rc, 0);
}

static void test_ctx_synthetic(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_bubsetup_XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* around the one-thread threshold and odd halves */
    static const size_t sizes[] = {1, 2, 255, 256, 257, 1001, 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        fp_code code;
        synth_code(dir, sizes[k], &code);
        same_tables(&code);
        fp_code_free(&code);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/code.json", dir);
    unlink(path);
    rmdir(dir);
}

/* An analysis over code: random sums with many ties, pairs between random rows. */
static void synth_analysis(fp_bubbles *b, const fp_code *code, size_t n_pairs, fp_rank_by rank)
{
    memset(b, 0, sizeof *b);
    b->code = *code;
    b->rank_by = rank;
    b->insts = calloc(code->n + 1, sizeof *b->insts);
    assert_non_null(b->insts);
    for (size_t i = 0; i < code->n; i++) {
        b->insts[i].cls = fp_classify(code->rows[i].isa);
        b->insts[i].exposed = (int64_t)(next() % 4) * 5;
        b->insts[i].w_stall = (int64_t)(next() % 30);
        b->insts[i].wall = (int64_t)(next() % 7);
        b->insts[i].line_id = -1;
        b->t_stall += code->rows[i].stall;
        b->t_latency += code->rows[i].latency;
    }
    b->w_span = 1000;
    b->pairs = calloc(n_pairs + 1, sizeof *b->pairs);
    assert_non_null(b->pairs);
    b->n_pairs = n_pairs;
    for (size_t i = 0; i < n_pairs; i++) {
        fp_bub_pair *p = &b->pairs[i];
        p->wait_line = (int64_t)(next() % code->n);
        p->prod_line = (int64_t)(next() % code->n);
        p->count = (int64_t)(next() % 3) + 1;
        p->count_inferred = (int64_t)(next() % 2);
        p->cycles_sum = (int64_t)(next() % 1000);
        p->cycles_min = 1;
        p->cycles_max = 999;
        p->distance_sum = (int64_t)(next() % 50);
        p->stall_share = (double)(next() % 5) / 3.0;
    }
}

static void all_pooled(const fp_bubbles_doc *d)
{
    for (size_t i = 0; i < d->n_hotspots; i++) {
        const fp_bub_doc_hotspot *h = &d->hotspots[i];
        assert_true(fp_model_pool_owns(d->pool, h->addr) && fp_model_pool_owns(d->pool, h->inst) &&
                    fp_model_pool_owns(d->pool, h->cls) && fp_model_pool_owns(d->pool, h->source));
        for (size_t k = 0; k < h->n_waits_on; k++)
            assert_true(fp_model_pool_owns(d->pool, h->waits_on[k].inst) &&
                        fp_model_pool_owns(d->pool, h->waits_on[k].evidence));
    }
}

static void test_doc_jobs(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_bubsetup_XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* stalled rows from a few (one thread) to thousands; pairs from none to many */
    static const size_t sizes[] = {20, 150, 170, 600, 3000};
    size_t threaded = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        fp_code code;
        synth_code(dir, sizes[k], &code);
        for (int r = 0; r < 3; r++) {
            fp_bubbles b;
            synth_analysis(&b, &code, k == 0 ? 0 : sizes[k] / (size_t)(r + 1), (fp_rank_by)r);
            fp_bubbles_doc d1, d2;
            fp_bubbles_doc_build(&b, &d1);
            fp_bubbles_doc_build_jobs(&b, &d2, 2);
            threaded += d2.n_hotspots >= 64;
            size_t n1, n2;
            char *t1 = fp_model_print(&fp_bubbles_schema, &d1, &n1);
            char *t2 = fp_model_print(&fp_bubbles_schema, &d2, &n2);
            assert_int_equal(n1, n2);
            assert_string_equal(t1, t2);
            all_pooled(&d1);
            all_pooled(&d2);
            free(t1);
            free(t2);
            fp_bubbles_doc_free(&d1);
            fp_bubbles_doc_free(&d2);
            b.code = (fp_code){0}; /* code's, freed below */
            fp_bubbles_free(&b);
        }
        fp_code_free(&code);
    }
    assert_true(threaded >= 6); /* the thread's path was taken */
    char path[4200];
    snprintf(path, sizeof path, "%s/code.json", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctx_corpus),
        cmocka_unit_test(test_ctx_synthetic),
        cmocka_unit_test(test_doc_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
