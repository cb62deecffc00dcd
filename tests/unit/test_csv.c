/*
 * test_csv.c - the rocprofv3 CSV reader: quoting without escapes, long cells,
 * CRLF, ragged rows and empty files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/csv.h"

static int parse(const char *text, fp_csv *csv, fp_err *err)
{
    memset(err, 0, sizeof *err);
    return fp_csv_parse(text, strlen(text), "t.csv", csv, err);
}

/* The real kernel_trace.csv header and row of rocprof-formats.md §3.2. */
static void test_real_row(void **state)
{
    (void)state;
    const char *text =
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"VGPR_Count\",\"Accum_VGPR_Count\"\n"
        "\"KERNEL_DISPATCH\",\"Agent 2\",1,\"flash_attn_func_kernel_0\",124,0\n";
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse(text, &csv, &err), 0);
    assert_int_equal(csv.ncols, 6);
    assert_int_equal(csv.nrows, 1);
    assert_int_equal(fp_csv_col(&csv, "Kernel_Name"), 3);
    assert_int_equal(fp_csv_col(&csv, "Missing"), -1);
    assert_string_equal(fp_csv_cell(&csv, 0, 3), "flash_attn_func_kernel_0");
    assert_string_equal(fp_csv_cell(&csv, 0, fp_csv_col(&csv, "VGPR_Count")), "124");
    assert_string_equal(fp_csv_cell(&csv, 0, 1), "Agent 2");
    assert_null(fp_csv_cell(&csv, 0, -1));
    assert_null(fp_csv_cell(&csv, 1, 0));
    assert_int_equal(csv.line[0], 2);
    fp_csv_free(&csv);
}

static void test_quoted_commas_and_unescaped_quotes(void **state)
{
    (void)state;
    const char *text = "\"Name\",\"N\"\n"
                       "\"void f<float, 4>(float*, int)\",1\n"
                       "\"say \"hi\" there\",3\n"        /* embedded quote pair */
                       "\"\",4\n"                         /* empty quoted cell */
                       ",5\n";                            /* empty bare cell */
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse(text, &csv, &err), 0);
    assert_int_equal(csv.nrows, 4);
    assert_string_equal(csv.rows[0][0], "void f<float, 4>(float*, int)");
    assert_string_equal(csv.rows[0][1], "1");
    assert_string_equal(csv.rows[1][0], "say \"hi\" there");
    assert_string_equal(csv.rows[2][0], "");
    assert_string_equal(csv.rows[2][1], "4");
    assert_string_equal(csv.rows[3][0], "");
    assert_string_equal(csv.rows[3][1], "5");
    fp_csv_free(&csv);
}

/* `g<"a","b">`: the quote after a is followed by a comma, so it closes the
 * cell: the row has 3 cells and is reported as ragged with its line number.
 * That is the documented limit of an unescaped format; a lone embedded quote
 * not followed by a comma stays literal (previous test). */
static void test_ambiguous_quote_is_ragged(void **state)
{
    (void)state;
    const char *text = "\"Name\",\"N\"\n\"ok\",1\n\"g<\"a\",\"b\">\",2\n";
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse(text, &csv, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_non_null(strstr(err.message, "t.csv:3"));
    assert_int_equal(csv.nrows, 0);
    assert_null(csv.header);
}

static void test_long_name(void **state)
{
    (void)state;
    size_t n = 6000;
    char *name = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        name[i] = (char)('a' + (i % 26));
    name[100] = ',';
    name[200] = '"';
    name[n] = '\0';
    size_t tlen = n + 64;
    char *text = malloc(tlen);
    snprintf(text, tlen, "\"Kernel_Name\",\"X\"\n\"%s\",7\n", name);
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse(text, &csv, &err), 0);
    assert_int_equal(csv.nrows, 1);
    assert_int_equal(strlen(csv.rows[0][0]), n);
    assert_string_equal(csv.rows[0][0], name);
    assert_string_equal(csv.rows[0][1], "7");
    fp_csv_free(&csv);
    free(name);
    free(text);
}

static void test_crlf_and_no_final_newline(void **state)
{
    (void)state;
    const char *text = "\"A\",\"B\"\r\n\"x\",1\r\n\r\n\"y\",2";
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse(text, &csv, &err), 0);
    assert_int_equal(csv.nrows, 2);
    assert_string_equal(csv.header[1], "B");
    assert_string_equal(csv.rows[0][1], "1");
    assert_string_equal(csv.rows[1][0], "y");
    assert_string_equal(csv.rows[1][1], "2");
    assert_int_equal(csv.line[1], 4);
    fp_csv_free(&csv);
}

static void test_trailing_comma(void **state)
{
    (void)state;
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse("a,b\n1,\n2,", &csv, &err), 0);
    assert_int_equal(csv.nrows, 2);
    assert_string_equal(csv.rows[0][1], "");
    assert_string_equal(csv.rows[1][1], "");
    fp_csv_free(&csv);
}

static void test_missing_columns(void **state)
{
    (void)state;
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse("\"A\",\"B\",\"C\"\n1,2,3\n4,5\n", &csv, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_non_null(strstr(err.message, "t.csv:3"));
    assert_non_null(strstr(err.message, "2 cells"));
    assert_int_equal(parse("\"A\",\"B\"\n1,2,3\n", &csv, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_non_null(strstr(err.message, "t.csv:2"));
}

static void test_empty_and_unterminated(void **state)
{
    (void)state;
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse("", &csv, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_int_equal(parse("\n\r\n", &csv, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_int_equal(parse("\"A\"\n\"never closed\n", &csv, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    /* header only: valid, zero rows */
    assert_int_equal(parse("\"A\",\"B\"\n", &csv, &err), 0);
    assert_int_equal(csv.nrows, 0);
    assert_int_equal(csv.ncols, 2);
    fp_csv_free(&csv);
    fp_csv_free(NULL);
}

static void test_int_cells(void **state)
{
    (void)state;
    fp_csv csv;
    fp_err err;
    assert_int_equal(parse("a,b,c,d,e\n 42 ,1.5,x,,-7\n", &csv, &err), 0);
    bool ok = false;
    assert_int_equal(fp_csv_int(&csv, 0, 0, -1, &ok), 42);
    assert_true(ok);
    assert_int_equal(fp_csv_int(&csv, 0, 1, -1, &ok), -1);
    assert_false(ok);
    assert_int_equal(fp_csv_int(&csv, 0, 2, 0, &ok), 0);
    assert_false(ok);
    assert_int_equal(fp_csv_int(&csv, 0, 3, 5, NULL), 5);
    assert_int_equal(fp_csv_int(&csv, 0, 4, 0, NULL), -7);
    assert_int_equal(fp_csv_int(&csv, 0, 9, 3, NULL), 3);
    assert_int_equal(fp_csv_int(&csv, 1, 0, 3, NULL), 3);
    fp_csv_free(&csv);
    assert_int_equal(parse("a\n99999999999999999999999\n", &csv, &err), 0);
    assert_int_equal(fp_csv_int(&csv, 0, 0, 0, &ok), 0);
    assert_false(ok);
    fp_csv_free(&csv);
}

static void test_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_csv_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/kernel_trace.csv", dir);
    fp_csv csv;
    fp_err err = {0};
    assert_int_equal(fp_csv_load(path, &csv, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("\"X\"\n42\n", f);
    fclose(f);
    assert_int_equal(fp_csv_load(path, &csv, &err), 0);
    assert_string_equal(csv.rows[0][0], "42");
    fp_csv_free(&csv);
    unlink(path);
    rmdir(dir);
}

/* some (a matching load) is all (the full parse) cut to the rows one of whose cells
 * holds needle, cell for cell and line for line: how many. */
static size_t assert_filtered(const fp_csv *all, const fp_csv *some, const char *needle)
{
    assert_int_equal(some->ncols, all->ncols);
    size_t j = 0;
    for (size_t r = 0; r < all->nrows; r++) {
        bool has = false;
        for (size_t c = 0; c < all->ncols; c++)
            has |= strstr(all->rows[r][c], needle) != NULL;
        if (!has)
            continue;
        assert_true(j < some->nrows);
        assert_int_equal(some->line[j], all->line[r]);
        for (size_t c = 0; c < all->ncols; c++)
            assert_string_equal(some->rows[j][c], all->rows[r][c]);
        j++;
    }
    assert_int_equal(some->nrows, j);
    return j;
}

/* The needle reader keeps exactly the rows of the full reader whose text holds the
 * needle, with the same cells and line numbers, and refuses what the full reader
 * refuses: CRLF and CR endings, blank lines, a quoted cell spanning lines (the needle
 * on its second line), a needle that straddles two rows, a ragged row after the
 * last candidate. */
static void test_matching_is_a_filter(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "\"N\",\"V\"\nkern_a,1\nother,2\n\nkern_a2,3\n",
        "\"N\",\"V\"\r\nkern_a,1\r\nother,2\r\nxkern_ay,3",
        "\"N\",\"V\"\rkern_a,1\rother,2\r",
        "\"N\",\"V\"\n\"two\nkern_a lines\",1\nother,2\n",
        "\"N\",\"V\"\nx,ker\nn_a,2\nkern_a,3\n",
        "\"N\",\"V\"\n\"kern_a<\"x\">\",5\n,\n",
    };
    for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++) {
        const char *t = inputs[k];
        fp_csv all, some;
        fp_err e1 = {0}, e2 = {0};
        assert_int_equal(fp_csv_parse(t, strlen(t), "t.csv", &all, &e1), 0);
        assert_int_equal(fp_csv_parse_matching(t, strlen(t), "t.csv", "kern_a", &some, &e2), 0);
        assert_filtered(&all, &some, "kern_a");
        fp_csv_free(&all);
        fp_csv_free(&some);
    }
    /* a ragged row is BAD_INPUT with the same message, candidate or not */
    const char *bad = "\"N\",\"V\"\nkern_a,1\nother\n";
    fp_csv c;
    fp_err e1 = {0}, e2 = {0};
    assert_int_equal(fp_csv_parse(bad, strlen(bad), "t.csv", &c, &e1), -1);
    assert_int_equal(fp_csv_parse_matching(bad, strlen(bad), "t.csv", "kern_a", &c, &e2), -1);
    assert_int_equal(e1.code, FP_BAD_INPUT);
    assert_int_equal(e2.code, FP_BAD_INPUT);
    assert_string_equal(e1.message, e2.message);
    fp_err_clear(&e1);
    fp_err_clear(&e2);
}

/* Unquoted cells of every length 0..40 (the reader scans 16 bytes a step) in a buffer that
 * is NOT NUL-terminated where it ends, and needles of 1..12 bytes planted at every offset
 * of a row, near its ends and at the very end of the input (the needle search compares 16
 * candidate positions a step): against a plain split on ',' / '\n' and a naive substring
 * test, in an exact-size heap copy so ASan sees any read past the end. */
static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

static bool naive_has(const char *h, size_t hl, const char *n, size_t nl)
{
    for (size_t i = 0; i + nl <= hl; i++)
        if (memcmp(h + i, n, nl) == 0)
            return true;
    return false;
}

static void test_scan_reference(void **state)
{
    (void)state;
    const char alpha[] = "abcxyz0123_-.";
    char text[8192];
    for (int round = 0; round < 300; round++) {
        int ncols = 1 + (int)(rnd() % 5), nrows = 1 + (int)(rnd() % 12);
        size_t n = 0, starts[16], ends[16];
        char needle[16];
        size_t nl = 1 + rnd() % 12;
        for (size_t k = 0; k < nl; k++)
            needle[k] = alpha[rnd() % 6]; /* letters only: cells may hold it by chance */
        needle[nl] = '\0';
        for (int r = 0; r <= nrows; r++) {
            starts[r] = n;
            for (int c = 0; c < ncols; c++) {
                size_t len = rnd() % 41 + (c == 0); /* an empty line is skipped, not a row */
                for (size_t k = 0; k < len; k++)
                    text[n++] = alpha[rnd() % (sizeof alpha - 1)];
                if (r > 0 && c == ncols - 1 && rnd() % 3 == 0 && len >= nl) /* plant it at the cell's end */
                    memcpy(text + n - nl, needle, nl);
                if (c < ncols - 1)
                    text[n++] = ',';
            }
            ends[r] = n;
            if (r < nrows || rnd() % 2)
                text[n++] = '\n';
        }
        char *buf = malloc(n);
        assert_non_null(buf);
        memcpy(buf, text, n);
        fp_csv all, some;
        fp_err e1 = {0}, e2 = {0};
        assert_int_equal(fp_csv_parse(buf, n, "t.csv", &all, &e1), 0);
        assert_int_equal(fp_csv_parse_matching(buf, n, "t.csv", needle, &some, &e2), 0);
        assert_int_equal(all.ncols, (size_t)ncols);
        if (all.nrows != (size_t)nrows) {
            print_error("%zu rows, generated %d: '%.*s'\n", all.nrows, nrows, (int)n, buf);
            fail();
        }
        size_t kept = 0;
        for (int r = 0; r <= nrows; r++) {
            /* the reference split of row r */
            size_t p = starts[r];
            for (int c = 0; c < ncols; c++) {
                size_t q = p;
                while (q < ends[r] && text[q] != ',')
                    q++;
                const char *cell = r == 0 ? all.header[c] : all.rows[r - 1][c];
                assert_int_equal(strlen(cell), q - p);
                assert_memory_equal(cell, text + p, q - p);
                p = q + 1;
            }
            if (r > 0 && naive_has(text + starts[r], ends[r] - starts[r], needle, nl)) {
                assert_true(kept < some.nrows);
                assert_int_equal(some.line[kept], all.line[r - 1]);
                for (int c = 0; c < ncols; c++)
                    assert_string_equal(some.rows[kept][c], all.rows[r - 1][c]);
                kept++;
            }
        }
        assert_int_equal(some.nrows, kept);
        fp_csv_free(&all);
        fp_csv_free(&some);
        free(buf);
    }
}

/* Quoted cells (holding commas, '"' before a letter, now and then a newline), literal
 * '"' inside unquoted cells, LF / CRLF / CR endings, blank lines, ragged rows, an
 * unclosed quote and a comma at the very end: the matching load (which only counts
 * the rows it does not keep, through its own scanner) against the full parse - the
 * same result code and message, and as rows exactly those whose bytes hold the needle,
 * cell for cell and line for line. */
static void test_matching_counts_reference(void **state)
{
    (void)state;
    static const char letters[] = "abkernxyz019";
    const char *needle = "kern";
    char text[16384];
    int errors = 0, kept_total = 0;
    for (int round = 0; round < 3000; round++) {
        int ncols = 1 + (int)(rnd() % 6), nrows = 1 + (int)(rnd() % 12);
        size_t n = 0;
        for (int r = 0; r <= nrows; r++) {
            while (r > 0 && rnd() % 8 == 0)
                n += (size_t)sprintf(text + n, "%s", rnd() % 2 ? "\n" : "\r\n");
            int cells = ncols;
            if (r > 0 && ncols > 1 && rnd() % 40 == 0) /* (a row of no cell is a blank line) */
                cells += rnd() % 2 ? 1 : -1;
            for (int c = 0; c < cells; c++) {
                if (c)
                    text[n++] = ',';
                if (rnd() % 3 == 0) {
                    text[n++] = '"';
                    for (size_t k = rnd() % 30; k--;) {
                        unsigned w = rnd() % 20;
                        if (w == 0)
                            text[n++] = ',';
                        else if (w == 1) {
                            text[n++] = '"';
                            text[n++] = 'q'; /* not before a separator: inside the cell */
                        } else if (w == 2 && rnd() % 4 == 0)
                            text[n++] = '\n';
                        else
                            text[n++] = letters[rnd() % (sizeof letters - 1)];
                    }
                    if (r > 0 && rnd() % 4 == 0)
                        n += (size_t)sprintf(text + n, "%s", needle);
                    text[n++] = '"';
                } else {
                    size_t len = rnd() % 24 + (ncols == 1); /* an empty line is not a row */
                    for (size_t k = 0; k < len; k++)
                        text[n++] = k > 0 && k + 1 < len && rnd() % 25 == 0 ? '"' : letters[rnd() % (sizeof letters - 1)];
                    if (r > 0 && rnd() % 6 == 0)
                        n += (size_t)sprintf(text + n, "%s", needle);
                }
            }
            if (r == nrows && rnd() % 40 == 0)
                text[n++] = rnd() % 2 ? ',' : '"'; /* a comma at the end, an unclosed quote */
            if (r < nrows || rnd() % 2) {
                unsigned e = rnd() % 3;
                n += (size_t)sprintf(text + n, "%s", e == 0 ? "\n" : e == 1 ? "\r\n" : "\r");
            }
        }
        char *buf = malloc(n);
        assert_non_null(buf);
        memcpy(buf, text, n);
        fp_csv all, some;
        fp_err e1 = {0}, e2 = {0};
        int r1 = fp_csv_parse(buf, n, "t.csv", &all, &e1), r2 = fp_csv_parse_matching(buf, n, "t.csv", needle, &some, &e2);
        assert_int_equal(r1, r2);
        if (r1 != 0) {
            errors++;
            assert_int_equal(e1.code, e2.code);
            assert_string_equal(e1.message, e2.message);
            fp_err_clear(&e1);
            fp_err_clear(&e2);
            free(buf);
            continue;
        }
        /* "kern" is letters and cells are the row's bytes less its separators and
         * delimiting quotes: the row's bytes hold it when one of its cells does */
        kept_total += (int)assert_filtered(&all, &some, needle);

        fp_csv_free(&all);
        fp_csv_free(&some);
        free(buf);
    }
    print_message("matching_counts: %d of 3000 inputs refused, %d rows kept\n", errors, kept_total);
    assert_true(errors > 100 && errors < 2000);
    assert_true(kept_total > 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_row),
        cmocka_unit_test(test_quoted_commas_and_unescaped_quotes),
        cmocka_unit_test(test_ambiguous_quote_is_ragged),
        cmocka_unit_test(test_long_name),
        cmocka_unit_test(test_crlf_and_no_final_newline),
        cmocka_unit_test(test_trailing_comma),
        cmocka_unit_test(test_missing_columns),
        cmocka_unit_test(test_empty_and_unterminated),
        cmocka_unit_test(test_int_cells),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_matching_is_a_filter),
        cmocka_unit_test(test_matching_counts_reference),
        cmocka_unit_test(test_scan_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
