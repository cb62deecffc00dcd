/* The passes a wave too big to hold takes in flyprof timeline and report.html (issue 22):
 * fp_wave_spans_chunked hands over exactly the spans of the general tokenizer
 * (fp_wave_parse_jscan) on the same bytes, in order, in chunks of at most `rows`, for
 * every key order and blanks, and says -1 for a file its scanner declines (after what it
 * gave) or that is absent; a callback's stop value stops it. fp_html_cols_add gives the same columns for spans in
 * chunks as in one call, and the sums a per-cycle reference makes where the axis is
 * exact (integer cycles per column). */
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
#include "flyprof/report.h"
#include "flyprof/strbuf.h"
#include "flyprof/wave.h"

typedef struct seen {
    const fp_wave *ref;
    size_t spans, max_chunk, calls;
    size_t stop_after; /* > 0: return 7 at this call */
} seen;

static int on_spans(void *u, const fp_wave *w)
{
    seen *s = u;
    s->calls++;
    assert_true(s->spans + w->n_spans <= s->ref->n_spans);
    for (size_t i = 0; i < w->n_spans; i++) {
        assert_int_equal(w->spans[i].state, s->ref->spans[s->spans + i].state);
        assert_int_equal(w->spans[i].dur, s->ref->spans[s->spans + i].dur);
    }
    s->spans += w->n_spans;
    s->max_chunk = w->n_spans > s->max_chunk ? w->n_spans : s->max_chunk;
    return s->stop_after && s->calls == s->stop_after ? 7 : 0;
}

/* The decoder's layout with the timeline moved to before part `at` of the others (0: before
 * begin/cu/end/id, 1: before the rows, 2: before simd/slot, 3: last but waitcnt), span
 * states 0..6 (5 and 6 out of range), durations with negatives and zeros. */
static void doc(fp_sb *sb, int nrow, int nspan, int at)
{
    fp_sb_adds(sb, "{\"duration\":9,\"name\":\"SE0\",\"num_insts\":1,\"wave\":{");
    for (int k = 0; k < 4; k++) {
        if (k == at) {
            fp_sb_adds(sb, "\"timeline\":[");
            for (int r = 0; r < nspan; r++)
                fp_sb_addf(sb, "%s[%d,%d]", r ? "," : "", r % 7, r % 11 == 3 ? -5 : r % 13 == 0 ? 0 : 4 + r % 300);
            fp_sb_adds(sb, "],");
        }
        if (k == 0)
            fp_sb_adds(sb, "\"begin\":1000,\"cu\":3,\"end\":999999,\"id\":0,");
        if (k == 1) {
            fp_sb_adds(sb, "\"instructions\":[");
            for (int r = 0; r < nrow; r++)
                fp_sb_addf(sb, "%s[%d,%d,%d,%d,%d]", r ? "," : "", 1004 + 4 * r, r % 12, r % 5, 4, 1 + r % 90);
            fp_sb_adds(sb, "],");
        }
        if (k == 2)
            fp_sb_adds(sb, "\"simd\":0,\"slot\":0,");
    }
    fp_sb_adds(sb, "\"waitcnt\":[[5,[[1,0]]]]}}");
}

static char *write_wave(const char *dir, const fp_sb *text)
{
    char *p = fp_path_join(dir, "se0_sm0_sl0_wv0.json");
    fp_err e = {0};
    assert_int_equal(fp_write_atomic(p, text->buf, text->len, &e), 0);
    return p;
}

static void test_spans(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_test_spans_XXXXXX";
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    static const size_t rows[] = {64, 65, 100, 4096};
    static const int nspan[] = {0, 1, 63, 64, 65, 5000};
    for (int at = 0; at < 4; at++)
        for (size_t n = 0; n < sizeof nspan / sizeof *nspan; n++)
            for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
                fp_sb sb;
                fp_sb_init(&sb);
                doc(&sb, 3000, nspan[n], at);
                char *p = write_wave(dir, &sb);
                fp_wave ref;
                fp_wave_init(&ref);
                fp_err e = {0};
                assert_int_equal(fp_wave_parse_jscan(&ref, sb.buf, sb.len, "w", &e), 0);
                assert_int_equal(ref.n_spans, (size_t)nspan[n]);
                fp_wave_list list;
                assert_int_equal(fp_wave_list_dir(dir, &list, &e), 0);
                assert_int_equal(list.n, 1);
                seen s = {.ref = &ref};
                assert_int_equal(fp_wave_spans_chunked(dir, &list.files[0], rows[i], on_spans, &s), 0);
                assert_int_equal(s.spans, ref.n_spans);
                assert_true(s.max_chunk <= rows[i]);
                if (nspan[n] > (int)rows[i]) { /* a stop value stops the pass and is returned */
                    s = (seen){.ref = &ref, .stop_after = 1};
                    assert_int_equal(fp_wave_spans_chunked(dir, &list.files[0], rows[i], on_spans, &s), 7);
                    assert_int_equal(s.calls, 1);
                }
                fp_wave_list_free(&list);
                fp_wave_free(&ref);
                unlink(p);
                free(p);
                fp_sb_free(&sb);
            }
    /* blanks between the tokens: still the window's scanner, the same spans */
    static const char *const docs[] = {
        "{ \"wave\" : { \"begin\" : 1, \"instructions\" : [ [1,2,0,4,1] ], \"timeline\" : [ [2, 4] , [3,-1] ] } }",
        /* declined late (an escape in a key it skips), after the spans: -1 */
        "{\"wave\":{\"begin\":1,\"instructions\":[[1,2,0,4,1]],\"timeline\":[[2,4],[3,1]]},\"z\\u006d\":1}"};
    for (int k = 0; k < 2; k++) {
        fp_sb sb;
        fp_sb_init(&sb);
        fp_sb_adds(&sb, docs[k]);
        char *p = write_wave(dir, &sb);
        fp_wave_list list;
        fp_err e = {0};
        assert_int_equal(fp_wave_list_dir(dir, &list, &e), 0);
        fp_wave ref;
        fp_wave_init(&ref);
        assert_int_equal(fp_wave_parse_jscan(&ref, sb.buf, sb.len, "w", &e), 0);
        seen s = {.ref = &ref};
        assert_int_equal(fp_wave_spans_chunked(dir, &list.files[0], 64, on_spans, &s), k ? -1 : 0);
        if (!k)
            assert_int_equal(s.spans, 2);
        unlink(p); /* absent, or a dir that is not there: -1 */
        assert_int_equal(fp_wave_spans_chunked(dir, &list.files[0], 64, on_spans, &s), -1);
        assert_int_equal(fp_wave_spans_chunked("/nonexistent/dir", &list.files[0], 64, on_spans, &s), -1);
        fp_wave_list_free(&list);
        fp_wave_free(&ref);
        free(p);
        fp_sb_free(&sb);
    }
    rmdir(dir);
}

typedef int64_t cols_t[FP_HTML_TL_W][FP_WS_COUNT];

static void test_cols(void **state)
{
    (void)state;
    enum { N = 3000 };
    fp_wave_span *sp = malloc(N * sizeof *sp);
    cols_t *one = calloc(1, sizeof *one), *parts = calloc(1, sizeof *parts), *ref = calloc(1, sizeof *ref);
    assert_true(sp && one && parts && ref);
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < 6; round++) {
        for (size_t i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            sp[i].state = (int32_t)(x % 7) - 1;                   /* -1 .. 5: out of range too */
            sp[i].dur = (int64_t)(x >> 8) % 61 - (x % 23 == 0 ? 70 : 0); /* some negative */
        }
        /* the wave starts before the axis (clamped to column 0) or inside it; the axis ends
         * before the wave does (clamped to the last column); cpp exact (2, 3) or not */
        int64_t begin = round % 2 ? 5000 : -700, t0 = 0;
        double cpp = round < 2 ? 2.0 : round < 4 ? 3.0 : 37.3;
        memset(one, 0, sizeof *one);
        memset(parts, 0, sizeof *parts);
        int64_t t = begin;
        fp_html_cols_add(*one, &t, sp, N, t0, cpp);
        int64_t t_end = t;
        t = begin;
        for (size_t i = 0, k = 1; i < N; i += k, k = k * 3 % 97 + 1) /* chunks of 1 .. 97 */
            fp_html_cols_add(*parts, &t, sp + i, i + k <= N ? k : N - i, t0, cpp);
        assert_int_equal(t, t_end);
        assert_memory_equal(one, parts, sizeof *one);
        if (cpp != 2.0 && cpp != 3.0)
            continue;
        /* the reference: every cycle in its column, floor((c - t0) / cpp), clamped */
        memset(ref, 0, sizeof *ref);
        t = begin;
        for (size_t i = 0; i < N; i++) {
            int64_t d = sp[i].dur > 0 ? sp[i].dur : 0;
            for (int64_t c = t; sp[i].state > 0 && sp[i].state < FP_WS_COUNT && c < t + d; c++) {
                int64_t q = c - t0 < 0 ? -1 : (c - t0) / (int64_t)cpp;
                q = q < 0 ? 0 : q >= FP_HTML_TL_W ? FP_HTML_TL_W - 1 : q;
                (*ref)[q][sp[i].state]++;
            }
            t += d;
        }
        assert_memory_equal(one, ref, sizeof *one);
    }
    free(sp);
    free(one);
    free(parts);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_spans), cmocka_unit_test(test_cols)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
