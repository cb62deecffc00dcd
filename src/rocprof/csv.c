/*
 * csv.c - rocprofv3 CSV reader (see csv.h for the quoting rule it implements).
 *
 * One pass over the bytes: a small state machine builds the current cell in a
 * strbuf and pushes finished rows. The quote rule is the one idea: inside a
 * quoted field a '"' ends the field only when the next byte is ',', '\r', '\n'
 * or the end of input, because rocprofv3 writes kernel names such as
 * `foo<"x">` without doubling the quotes.
 */
#include "flyprof/csv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/strbuf.h"

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

typedef struct row_vec {
    char **cells;
    size_t n, cap;
} row_vec;

static void row_push(row_vec *r, fp_sb *cell)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 32;
        r->cells = xrealloc(r->cells, r->cap * sizeof *r->cells);
    }
    r->cells[r->n++] = fp_sb_detach(cell);
}

static void row_clear(row_vec *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->cells[i]);
    r->n = 0;
}

static bool is_sep(const char *buf, size_t len, size_t i)
{
    return i >= len || buf[i] == ',' || buf[i] == '\r' || buf[i] == '\n';
}

/* Store the finished row: the first one becomes the header. */
static int finish_row(fp_csv *out, row_vec *r, size_t line, size_t *rows_cap, const char *name,
                      fp_err *err)
{
    if (!out->header) {
        out->ncols = r->n;
        out->header = xrealloc(NULL, r->n * sizeof(char *));
        memcpy(out->header, r->cells, r->n * sizeof(char *));
        r->n = 0;
        return 0;
    }
    if (r->n != out->ncols)
        return fp_err_set(err, FP_BAD_INPUT, "%s:%zu: row has %zu cells, the header has %zu", name,
                          line, r->n, out->ncols);
    if (out->nrows == *rows_cap) {
        *rows_cap = *rows_cap ? *rows_cap * 2 : 64;
        out->rows = xrealloc(out->rows, *rows_cap * sizeof *out->rows);
        out->line = xrealloc(out->line, *rows_cap * sizeof *out->line);
    }
    char **cells = xrealloc(NULL, r->n * sizeof(char *));
    memcpy(cells, r->cells, r->n * sizeof(char *));
    out->rows[out->nrows] = cells;
    out->line[out->nrows] = line;
    out->nrows++;
    r->n = 0;
    return 0;
}

int fp_csv_parse(const char *buf, size_t len, const char *name, fp_csv *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    if (!name)
        name = "csv";
    row_vec r = {0};
    fp_sb cell;
    fp_sb_init(&cell);
    size_t rows_cap = 0, line = 1, row_line = 1;
    size_t i = 0;
    int rc = 0;
    /* Skip a UTF-8 BOM: harmless if absent, and spreadsheets add it. */
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len) {
        /* Start of a line: skip blank lines (also CR-only endings). */
        if (r.n == 0 && (buf[i] == '\n' || buf[i] == '\r')) {
            if (buf[i] == '\n' || i + 1 >= len || buf[i + 1] != '\n')
                line++;
            i++;
            continue;
        }
        if (r.n == 0)
            row_line = line;
        /* One cell. */
        fp_sb_reset(&cell);
        if (buf[i] == '"') {
            size_t start = ++i;
            for (;;) {
                if (i >= len) {
                    rc = fp_err_set(err, FP_BAD_INPUT,
                                    "%s:%zu: quoted cell is not closed before the end of the file",
                                    name, row_line);
                    goto fail;
                }
                if (buf[i] == '"' && is_sep(buf, len, i + 1))
                    break;
                if (buf[i] == '\n')
                    line++;
                i++;
            }
            fp_sb_add(&cell, buf + start, i - start);
            i++; /* closing quote */
        } else {
            size_t start = i;
            while (!is_sep(buf, len, i))
                i++;
            fp_sb_add(&cell, buf + start, i - start);
        }
        row_push(&r, &cell);
        if (i < len && buf[i] == ',') {
            i++;
            if (i < len)
                continue; /* next cell (an empty one when a line end follows) */
            fp_sb_reset(&cell); /* a trailing comma at the end of input */
            row_push(&r, &cell);
        }
        /* End of row: CRLF, LF, CR or end of input. */
        if (i < len && buf[i] == '\r')
            i++;
        if (i < len && buf[i] == '\n')
            i++;
        line++;
        if (finish_row(out, &r, row_line, &rows_cap, name, err) != 0) {
            rc = -1;
            goto fail;
        }
    }
    if (!out->header) {
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: empty CSV (no header row)", name);
        goto fail;
    }
    fp_sb_free(&cell);
    free(r.cells);
    return 0;
fail:
    row_clear(&r);
    free(r.cells);
    fp_sb_free(&cell);
    fp_csv_free(out);
    return rc ? rc : -1;
}

int fp_csv_load(const char *path, fp_csv *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_sb sb;
    fp_sb_init(&sb);
    if (fp_read_file(path, &sb, err) != 0) {
        fp_sb_free(&sb);
        return -1;
    }
    int rc = fp_csv_parse(sb.buf, sb.len, path, out, err);
    fp_sb_free(&sb);
    return rc;
}

int fp_csv_col(const fp_csv *csv, const char *name)
{
    if (!csv || !name)
        return -1;
    for (size_t c = 0; c < csv->ncols; c++)
        if (strcmp(csv->header[c], name) == 0)
            return (int)c;
    return -1;
}

const char *fp_csv_cell(const fp_csv *csv, size_t row, int col)
{
    if (!csv || col < 0 || (size_t)col >= csv->ncols || row >= csv->nrows)
        return NULL;
    return csv->rows[row][col];
}

long long fp_csv_int(const fp_csv *csv, size_t row, int col, long long dflt, bool *ok)
{
    const char *c = fp_csv_cell(csv, row, col);
    if (ok)
        *ok = false;
    if (!c)
        return dflt;
    while (*c == ' ')
        c++;
    const char *e = c + strlen(c);
    while (e > c && e[-1] == ' ')
        e--;
    if (e == c || (size_t)(e - c) > 20)
        return dflt;
    char tmp[24];
    memcpy(tmp, c, (size_t)(e - c));
    tmp[e - c] = '\0';
    char *end = NULL;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (errno == ERANGE || !end || *end)
        return dflt;
    if (ok)
        *ok = true;
    return v;
}

void fp_csv_free(fp_csv *csv)
{
    if (!csv)
        return;
    if (csv->header) {
        for (size_t c = 0; c < csv->ncols; c++)
            free(csv->header[c]);
        free(csv->header);
    }
    for (size_t r = 0; r < csv->nrows; r++) {
        for (size_t c = 0; c < csv->ncols; c++)
            free(csv->rows[r][c]);
        free(csv->rows[r]);
    }
    free(csv->rows);
    free(csv->line);
    memset(csv, 0, sizeof *csv);
}
