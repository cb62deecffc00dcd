/*
 * csv.c - rocprofv3 CSV reader (see csv.h for the quoting rule it implements).
 *
 * One pass over the bytes: cells are copied into one arena (never larger than
 * the input plus a byte) and indexed by offsets, so a 900-row kernel trace costs
 * a handful of allocations instead of one per cell. The quote rule is the one
 * idea: inside a quoted field a '"' ends the field only when the next byte is
 * ',', '\r', '\n' or the end of input, because rocprofv3 writes kernel names
 * such as `foo<"x">` without doubling the quotes.
 */
#include "flyprof/csv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/strbuf.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

/* Growable vector of size_t (cell offsets, row starts, line numbers). */
typedef struct zvec {
    size_t *v;
    size_t n, cap;
} zvec;

static inline void zpush(zvec *z, size_t x)
{
    if (z->n == z->cap) {
        z->cap = z->cap ? z->cap * 2 : 256;
        z->v = xrealloc(z->v, z->cap * sizeof *z->v);
    }
    z->v[z->n++] = x;
}

static bool is_sep(const char *buf, size_t len, size_t i)
{
    return i >= len || buf[i] == ',' || buf[i] == '\r' || buf[i] == '\n';
}

/* The bytes that end an unquoted cell (a table: the byte loop is most of the reader). */
static const bool CELL_END[256] = {[','] = true, ['\r'] = true, ['\n'] = true};

/* The first byte at or after i that ends an unquoted cell, or len: 16 bytes a step
 * (the byte loop was ~25 instructions a cell of kernel_trace.csv's numbers). */
static inline size_t cell_end(const char *buf, size_t len, size_t i)
{
#ifdef __SSE2__
    const __m128i comma = _mm_set1_epi8(','), cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n');
    for (; i + 16 <= len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, cr)), _mm_cmpeq_epi8(v, lf));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits)
            return i + (size_t)__builtin_ctz(bits);
    }
#endif
    while (i < len && !CELL_END[(unsigned char)buf[i]])
        i++;
    return i;
}

/* memmem for a needle of 2 bytes or more: 16 candidate positions a step whose first and
 * last bytes both match are compared whole (glibc's generic memmem was ~1.2 instructions
 * a byte of kernel_trace.csv, this ~0.3); the tail that no full step covers is memmem's. */
static const char *find_needle(const char *h, size_t hl, const char *n, size_t nl)
{
#ifdef __SSE2__
    if (nl >= 2 && hl >= nl) {
        const __m128i f = _mm_set1_epi8(n[0]), l = _mm_set1_epi8(n[nl - 1]);
        size_t i = 0;
        for (; i + nl - 1 + 16 <= hl; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(h + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(h + i + nl - 1));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l)));
            for (; m; m &= m - 1) {
                size_t k = i + (size_t)__builtin_ctz(m);
                if (memcmp(h + k + 1, n + 1, nl - 2) == 0)
                    return h + k;
            }
        }
        return memmem(h + i, hl - i, n, nl);
    }
#endif
    return memmem(h, hl, n, nl);
}

/* Does the row in [row_start, row_end) hold the needle? *hit caches the offset of its
 * next occurrence at or after an earlier row (NO_HIT: none in the rest of the input),
 * so the input is searched once overall, not once per row. */
#define NO_HIT ((size_t)-1)
static bool row_has(const char *buf, size_t len, size_t row_start, size_t row_end, const char *needle,
                    size_t needle_len, size_t *hit, bool *searched)
{
    if (!*searched || (*hit != NO_HIT && *hit < row_start)) {
        const char *h = find_needle(buf + row_start, len - row_start, needle, needle_len);
        *hit = h ? (size_t)(h - buf) : NO_HIT;
        *searched = true;
    }
    return *hit != NO_HIT && *hit + needle_len <= row_end;
}

/* A row that csv_parse would only count, scanned without its cell bookkeeping:
 * from the row's first byte i, the position after its line end (what csv_parse's
 * i is after the row) with its cell count, or ROW_SLOW wherever the general loop
 * would do anything but count - the input's end inside the row, a '\n' inside a
 * quoted cell (a line to count), a '"' inside an unquoted cell - and then that
 * loop reads the row (and gives any error). Unquoted runs go 16 bytes a step:
 * their commas are their cells. A 597 KB kernel trace of which 18 of 905 rows
 * are kept: ~60 instructions a cell before, ~10 now. */
#define ROW_SLOW ((size_t)-1)
static size_t count_row(const char *buf, size_t len, size_t i, size_t *ncells)
{
    size_t cells = 0;
    for (;;) {
        if (i >= len)
            return ROW_SLOW;
        if (buf[i] == '"') {
            /* as csv_parse: a '"' closes the cell only before a separator or the end */
            size_t s = i + 1;
            for (;;) {
                const char *q = s < len ? memchr(buf + s, '"', len - s) : NULL;
                if (!q)
                    return ROW_SLOW;
                s = (size_t)(q - buf) + 1;
                if (is_sep(buf, len, s))
                    break;
            }
            if (memchr(buf + i, '\n', s - i))
                return ROW_SLOW;
            cells++;
            i = s;
            if (i < len && buf[i] == ',') {
                i++;
                continue;
            }
            break;
        }
        /* unquoted cells up to the next '"', '\r' or '\n' */
        size_t j = i, commas = 0;
#ifdef __SSE2__
        const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"'), cr = _mm_set1_epi8('\r'),
                      lf = _mm_set1_epi8('\n');
        for (; j + 16 <= len; j += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + j));
            unsigned stop = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, cr)), _mm_cmpeq_epi8(v, lf)));
            unsigned cm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma));
            if (stop) {
                unsigned b = (unsigned)__builtin_ctz(stop);
                for (cm &= (1u << b) - 1; cm; cm &= cm - 1)
                    commas++;
                j += b;
                goto stopped;
            }
            for (; cm; cm &= cm - 1)
                commas++;
        }
#endif
        for (; j < len && buf[j] != '"' && buf[j] != '\r' && buf[j] != '\n'; j++)
            commas += buf[j] == ',';
#ifdef __SSE2__
    stopped:
#endif
        if (j >= len)
            return ROW_SLOW;
        if (buf[j] == '"') {
            if (buf[j - 1] != ',')
                return ROW_SLOW; /* a literal '"' inside an unquoted cell */
            cells += commas;
            i = j;
            continue;
        }
        cells += commas + 1;
        i = j;
        break;
    }
    if (i >= len)
        return ROW_SLOW;
    if (buf[i] == '\r')
        i++;
    if (i < len && buf[i] == '\n')
        i++;
    *ncells = cells;
    return i;
}

/* A needle (needle_len > 0) keeps only the header and the rows whose bytes contain it:
 * every row is parsed and checked (same errors), but a row's cells are only bounds in
 * the source until its end, and copied into the arena only when it is kept, so one pass
 * does what a check pass plus a parse of the candidate lines did (a 1.2 MB
 * kernel_trace.csv of one kernel: 14.5 M -> ~7 M instructions; moe_gemm-big's 597 KB
 * with 18 of 905 rows kept: 2.87 M with every cell copied and rolled back). */
static int csv_parse(const char *buf, size_t len, const char *name, fp_csv *out, const char *needle,
                     size_t needle_len, fp_err *err)
{
    memset(out, 0, sizeof *out);
    if (!name)
        name = "csv";
    /* Every cell is at most its source bytes and is followed in the source by a
     * separator or the end: len + 2 always holds all cells with their NULs. */
    char *arena = malloc(len + 2);
    if (!arena)
        abort();
    size_t alen = 0;
    zvec cells = {0};     /* arena offset of each cell */
    zvec row_first = {0}; /* index in cells of each row's first cell (header = row 0) */
    zvec row_line = {0};
    zvec rowc = {0};      /* the current row's cells as source bounds: start, end, ... */
    size_t ncols = 0, in_row = 0, line = 1, start_line = 1, i = 0, nrows_seen = 0, row_start = 0;
    size_t hit = 0; /* row_has()'s cache */
    bool searched = false;
    int rc = 0;
    /* Skip a UTF-8 BOM: harmless if absent, and spreadsheets add it. */
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len) {
        /* Start of a line: skip blank lines (also CR-only endings). */
        if (in_row == 0 && (buf[i] == '\n' || buf[i] == '\r')) {
            if (buf[i] == '\n' || i + 1 >= len || buf[i + 1] != '\n')
                line++;
            i++;
            continue;
        }
        if (in_row == 0) {
            start_line = line;
            row_start = i;
            /* a row that is only counted (not kept, the right cell count): counted fast */
            size_t nc, end;
            if (needle_len && nrows_seen > 0 && (end = count_row(buf, len, i, &nc)) != ROW_SLOW && nc == ncols &&
                !row_has(buf, len, row_start, end, needle, needle_len, &hit, &searched)) {
                i = end;
                line++;
                nrows_seen++;
                continue;
            }
        }
        /* One cell. */
        size_t s, e;
        if (buf[i] == '"') {
            s = ++i;
            /* jump from quote to quote (memchr); a '\n' inside still counts a line */
            for (;;) {
                const char *q = i < len ? memchr(buf + i, '"', len - i) : NULL;
                if (!q) {
                    rc = fp_err_set(err, FP_BAD_INPUT,
                                    "%s:%zu: quoted cell is not closed before the end of the file",
                                    name, start_line);
                    goto fail;
                }
                size_t qi = (size_t)(q - buf);
                for (const char *nl = buf + i; (nl = memchr(nl, '\n', (size_t)(q - nl))) != NULL; nl++)
                    line++;
                i = qi;
                if (is_sep(buf, len, i + 1))
                    break;
                i++;
            }
            e = i++; /* skip the closing quote */
        } else {
            s = i;
            i = cell_end(buf, len, i);
            e = i;
        }
        /* copied at the row's end, and only when the row is kept (most are not) */
        zpush(&rowc, s);
        zpush(&rowc, e);
        in_row++;
        bool trailing_empty = false;
        if (i < len && buf[i] == ',') {
            i++;
            if (i < len)
                continue; /* next cell (an empty one when a line end follows) */
            trailing_empty = true; /* a comma at the very end of the input */
        }
        if (trailing_empty) {
            zpush(&rowc, i);
            zpush(&rowc, i);
            in_row++;
        }
        /* End of row: CRLF, LF, CR or end of input. */
        if (i < len && buf[i] == '\r')
            i++;
        if (i < len && buf[i] == '\n')
            i++;
        line++;
        if (nrows_seen == 0) {
            ncols = in_row;
        } else if (in_row != ncols) {
            rc = fp_err_set(err, FP_BAD_INPUT, "%s:%zu: row has %zu cells, the header has %zu", name,
                            start_line, in_row, ncols);
            goto fail;
        }
        nrows_seen++;
        if (!needle_len || nrows_seen == 1 || row_has(buf, len, row_start, i, needle, needle_len, &hit, &searched)) {
            zpush(&row_first, cells.n);
            zpush(&row_line, start_line);
            for (size_t k = 0; k < rowc.n; k += 2) {
                zpush(&cells, alen);
                memcpy(arena + alen, buf + rowc.v[k], rowc.v[k + 1] - rowc.v[k]);
                alen += rowc.v[k + 1] - rowc.v[k];
                arena[alen++] = '\0';
            }
        }
        rowc.n = 0;
        in_row = 0;
    }
    if (nrows_seen == 0) {
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: empty CSV (no header row)", name);
        goto fail;
    }
    /* Offsets -> pointers (the arena no longer moves). */
    out->arena_ = arena;
    out->cells_ = xrealloc(NULL, cells.n * sizeof(char *));
    for (size_t k = 0; k < cells.n; k++)
        out->cells_[k] = arena + cells.v[k];
    out->ncols = ncols;
    out->header = out->cells_;
    out->nrows = row_first.n - 1;
    out->rows = xrealloc(NULL, out->nrows * sizeof *out->rows);
    out->line = xrealloc(NULL, out->nrows * sizeof *out->line);
    for (size_t r = 0; r < out->nrows; r++) {
        out->rows[r] = out->cells_ + row_first.v[r + 1];
        out->line[r] = row_line.v[r + 1];
    }
    free(cells.v);
    free(row_first.v);
    free(row_line.v);
    free(rowc.v);
    return 0;
fail:
    free(arena);
    free(rowc.v);
    free(cells.v);
    free(row_first.v);
    free(row_line.v);
    memset(out, 0, sizeof *out);
    return rc ? rc : -1;
}

int fp_csv_parse(const char *buf, size_t len, const char *name, fp_csv *out, fp_err *err)
{
    return csv_parse(buf, len, name, out, NULL, 0, err);
}

int fp_csv_load(const char *path, fp_csv *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_file_view fv;
    if (fp_file_map(path, &fv, err) != 0)
        return -1;
    int rc = fp_csv_parse(fv.data, fv.len, path, out, err);
    fp_file_unmap(&fv);
    return rc;
}

int fp_csv_parse_matching(const char *buf, size_t len, const char *name, const char *needle, fp_csv *out,
                          fp_err *err)
{
    return csv_parse(buf, len, name, out, needle, needle ? strlen(needle) : 0, err);
}

int fp_csv_load_matching(const char *path, const char *needle, fp_csv *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_file_view fv;
    if (fp_file_map(path, &fv, err) != 0)
        return -1;
    int rc = fp_csv_parse_matching(fv.data, fv.len, path, needle, out, err);
    fp_file_unmap(&fv);
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

bool fp_csv_parse_int(const char *c, long long *out)
{
    while (*c == ' ')
        c++;
    const char *e = c + strlen(c);
    while (e > c && e[-1] == ' ')
        e--;
    if (e == c || (size_t)(e - c) > 20)
        return false;
    char tmp[24];
    memcpy(tmp, c, (size_t)(e - c));
    tmp[e - c] = '\0';
    char *end = NULL;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (errno == ERANGE || !end || *end)
        return false;
    *out = v;
    return true;
}

long long fp_csv_int(const fp_csv *csv, size_t row, int col, long long dflt, bool *ok)
{
    const char *c = fp_csv_cell(csv, row, col);
    long long v;
    bool good = c && fp_csv_parse_int(c, &v);
    if (ok)
        *ok = good;
    return good ? v : dflt;
}

void fp_csv_free(fp_csv *csv)
{
    if (!csv)
        return;
    free(csv->arena_);
    free(csv->cells_);
    free(csv->rows);
    free(csv->line);
    memset(csv, 0, sizeof *csv);
}
