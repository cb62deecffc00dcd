/* A wave read in chunks (fp_wave_chunked, issue 22) hands over exactly what the whole
 * read holds: the same rows in the same order in chunks of at most `rows` (inst_base
 * their first index), the same spans, the same header and the same waitcnt entries
 * through the cursor, in batches of any size; waves under the limit go whole; a layout
 * the window's scanner declines (a pretty-printed file) goes whole too; begin() can
 * skip a wave or send it whole. The reference is fp_wave_parse_jscan, the general
 * tokenizer, on the same bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "flyprof/fs.h"
#include "flyprof/strbuf.h"
#include "flyprof/wave.h"

/* what the callbacks saw, concatenated */
typedef struct seen {
    fp_wave ref;          /* the whole parse of the file being walked */
    size_t rows, spans;   /* rows / spans handed over so far in the pass */
    size_t rows2;         /* pass 2 */
    size_t max_chunk;
    int begins, ends, wholes;
    size_t batch;         /* cursor batch size */
    int begin_rc;         /* what begin() returns */
    int64_t waits;        /* entries read through the cursor */
    size_t prods;
} seen;

static void same_inst(const fp_wave_inst *a, const fp_wave_inst *b)
{
    assert_int_equal(a->time, b->time);
    assert_int_equal(a->stall, b->stall);
    assert_int_equal(a->dur, b->dur);
    assert_int_equal(a->line, b->line);
    assert_int_equal(a->cat, b->cat);
}

static int scan_rows(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    seen *s = u;
    assert_int_equal(w->inst_base, s->rows);
    for (size_t i = 0; i < w->n_insts; i++)
        same_inst(&w->insts[i], &s->ref.insts[s->rows + i]);
    s->rows += w->n_insts;
    s->max_chunk = w->n_insts > s->max_chunk ? w->n_insts : s->max_chunk;
    return 0;
}

static int scan_spans(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    seen *s = u;
    for (size_t i = 0; i < w->n_spans; i++) {
        assert_int_equal(w->spans[i].state, s->ref.spans[s->spans + i].state);
        assert_int_equal(w->spans[i].dur, s->ref.spans[s->spans + i].dur);
    }
    s->spans += w->n_spans;
    return 0;
}

static int on_begin(void *u, const fp_wave_file *f, const fp_wave *w, int64_t n_waits, fp_wave_wcur *wc)
{
    (void)f;
    seen *s = u;
    s->begins++;
    assert_int_equal(s->rows, s->ref.n_insts);
    assert_int_equal(s->spans, s->ref.n_spans);
    assert_int_equal(w->begin, s->ref.begin);
    assert_int_equal(w->end, s->ref.end);
    assert_int_equal(w->cu, s->ref.cu);
    assert_int_equal(w->has_waitcnt, s->ref.has_waitcnt);
    assert_int_equal(n_waits, (int64_t)s->ref.n_waits);
    const fp_wave_wait *e;
    const int64_t *pr;
    size_t n;
    while (fp_wave_wcur_next(wc, s->batch, &e, &pr, &n)) {
        assert_true(n <= s->batch);
        for (size_t i = 0; i < n; i++) {
            const fp_wave_wait *r = &s->ref.waits[s->waits + (int64_t)i];
            assert_int_equal(e[i].line, r->line);
            assert_int_equal(e[i].n, r->n);
            for (size_t q = 0; q < r->n; q++)
                assert_int_equal(pr[e[i].first + q], s->ref.prods[r->first + q]);
            s->prods += r->n;
        }
        s->waits += (int64_t)n;
    }
    assert_false(fp_wave_wcur_failed(wc));
    assert_int_equal(s->waits, n_waits);
    s->rows2 = 0;
    return s->begin_rc;
}

static int on_rows(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    seen *s = u;
    assert_int_equal(w->inst_base, s->rows2);
    for (size_t i = 0; i < w->n_insts; i++)
        same_inst(&w->insts[i], &s->ref.insts[s->rows2 + i]);
    s->rows2 += w->n_insts;
    return 0;
}

static int on_end(void *u, const fp_wave_file *f, const fp_wave *w, bool ok)
{
    (void)f;
    (void)w;
    seen *s = u;
    assert_true(ok);
    assert_int_equal(s->rows2, s->ref.n_insts);
    s->ends++;
    return 0;
}

static int on_whole(void *u, const fp_wave_file *f, const fp_wave *w)
{
    (void)f;
    seen *s = u;
    assert_int_equal(w->n_insts, s->ref.n_insts);
    for (size_t i = 0; i < w->n_insts; i++)
        same_inst(&w->insts[i], &s->ref.insts[i]);
    s->wholes++;
    return 0;
}

static long long hint = 1; /* the file's num_insts: a hint the reader may use */

/* the decoder's layout: sorted keys, compact rows, waitcnt entries of 0, 2 and 40
 * producers; `odd` puts waitcnt before the instructions */

static void doc(fp_sb *sb, int nrow, int nwait, bool odd)
{
    fp_sb_addf(sb, "{\"duration\":9,\"name\":\"SE0\",\"num_insts\":%lld,\"wave\":{\"begin\":1000,", hint);
    fp_sb_adds(sb, "\"cu\":3,\"end\":999999,\"id\":0,");
    if (odd) {
        fp_sb_adds(sb, "\"waitcnt\":[");
        for (int r = 0; r < nwait; r++)
            fp_sb_addf(sb, "%s[%d,[[%d,0],[%d,0]]]", r ? "," : "", 10 + r % 90, r % 977, r % 501 + 1);
        fp_sb_adds(sb, "],");
    }
    fp_sb_adds(sb, "\"instructions\":[");
    for (int r = 0; r < nrow; r++)
        fp_sb_addf(sb, "%s[%d,%d,%d,%d,%d]", r ? "," : "", 1004 + 4 * r, r % 12, r % 7 ? 0 : r * 37 % 1320, 4 + r % 9,
                   1 + r % 1990);
    fp_sb_adds(sb, "],\"timeline\":[");
    for (int r = 0; r < nrow / 2; r++)
        fp_sb_addf(sb, "%s[%d,%d]", r ? "," : "", r % 5, 4 + r % 300);
    fp_sb_adds(sb, "]");
    if (!odd) {
        fp_sb_adds(sb, ",\"waitcnt\":[");
        for (int r = 0; r < nwait; r++) /* some entries long (many producers), some empty */
            if (r % 13 == 5)
                fp_sb_addf(sb, "%s[%d,[]]", r ? "," : "", 10 + r % 90);
            else if (r % 17 == 3) {
                fp_sb_addf(sb, "%s[%d,[", r ? "," : "", 10 + r % 90);
                for (int q = 0; q < 40; q++)
                    fp_sb_addf(sb, "%s[%d,0]", q ? "," : "", 100 + q);
                fp_sb_adds(sb, "]]");
            } else
                fp_sb_addf(sb, "%s[%d,[[%d,0],[%d,0]]]", r ? "," : "", 10 + r % 90, r % 977, r % 501 + 1);
        fp_sb_adds(sb, "]");
    }
    fp_sb_adds(sb, "}}");
}

static void walk_one(const char *dir, const fp_sb *text, size_t limit, size_t rows, seen *s)
{
    char *p = fp_path_join(dir, "se0_sm0_sl0_wv0.json");
    fp_err e = {0};
    assert_int_equal(fp_write_atomic(p, text->buf, text->len, &e), 0);
    free(p);
    fp_wave_init(&s->ref);
    assert_int_equal(fp_wave_parse_jscan(&s->ref, text->buf, text->len, "w", &e), 0);
    fp_wave_list list;
    assert_int_equal(fp_wave_list_dir(dir, &list, &e), 0);
    assert_int_equal(list.n, 1);
    fp_wave_chunked ck = {limit, rows, scan_rows, scan_spans, on_begin, on_rows, on_end};
    fp_wave_walker wk;
    fp_wave_walker_init(&wk);
    wk.chunked = &ck;
    assert_int_equal(fp_wave_walk_with(&wk, dir, &list, on_whole, NULL, s), 0);
    fp_wave_walker_free(&wk);
    fp_wave_list_free(&list);
    fp_wave_free(&s->ref);
}

static void test_chunks(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_test_chunk_XXXXXX";
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    static const size_t rows[] = {64, 100, 1000, 4096};
    static const size_t batch[] = {1, 7, 4096};
    for (int odd = 0; odd < 2; odd++)
        for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
            fp_sb sb;
            fp_sb_init(&sb);
            doc(&sb, 20000, 3000, odd);
            seen s = {.batch = batch[i % 3], .begin_rc = 0};
            walk_one(dir, &sb, rows[i], rows[i], &s);
            assert_int_equal(s.begins, 1);
            assert_int_equal(s.ends, 1);
            assert_int_equal(s.wholes, 0);
            assert_true(s.max_chunk <= rows[i] && s.max_chunk > 0);
            assert_int_equal(s.rows, 20000);
            assert_int_equal(s.waits, 3000);
            fp_sb_free(&sb);
        }
    /* under the limit: whole, no chunk callback */
    fp_sb sb;
    fp_sb_init(&sb);
    doc(&sb, 500, 50, false);
    seen s = {.batch = 8};
    walk_one(dir, &sb, 1000, 64, &s);
    assert_int_equal(s.wholes, 1);
    assert_int_equal(s.begins, 0);
    /* a num_insts past the limit sends even a small wave in chunks (a hint: only time) */
    hint = 1 << 20;
    fp_sb_free(&sb);
    fp_sb_init(&sb);
    doc(&sb, 500, 50, false);
    s = (seen){.batch = 8};
    walk_one(dir, &sb, 1000, 64, &s);
    assert_int_equal(s.begins, 1);
    assert_int_equal(s.ends, 1);
    assert_int_equal(s.wholes, 0);
    assert_int_equal(s.rows, 500);
    hint = 1;
    /* begin() 1: skipped after pass 1, no pass 2, no whole read */
    s = (seen){.batch = 8, .begin_rc = 1};
    walk_one(dir, &sb, 64, 64, &s);
    assert_int_equal(s.begins, 1);
    assert_int_equal(s.ends, 0);
    assert_int_equal(s.wholes, 0);
    /* begin() -1: read whole instead */
    s = (seen){.batch = 8, .begin_rc = -1};
    walk_one(dir, &sb, 64, 64, &s);
    assert_int_equal(s.begins, 1);
    assert_int_equal(s.wholes, 1);
    fp_sb_free(&sb);
    /* a file the window's scanner declines after the rows (a string escape in a key it
     * skips): pass 1 fails late, the wave is read whole */
    fp_sb_init(&sb);
    fp_sb_adds(&sb, "{\"wave\":{\"begin\":1,\"end\":9,\"instructions\":[");
    for (int r = 0; r < 300; r++)
        fp_sb_addf(&sb, "%s[%d,1,0,4,1]", r ? "," : "", 10 + r);
    fp_sb_adds(&sb, "]},\"z\\u006d\":1}");
    s = (seen){.batch = 8};
    walk_one(dir, &sb, 64, 64, &s);
    assert_int_equal(s.rows, 256); /* pass 1 handed its full chunks over before it declined */
    assert_int_equal(s.begins, 0);
    assert_int_equal(s.wholes, 1);
    fp_sb_free(&sb);
    char *p = fp_path_join(dir, "se0_sm0_sl0_wv0.json");
    unlink(p);
    free(p);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_chunks)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
