/*
 * csv.h - a generic reader for the CSV files rocprofv3 writes (kernel_trace.csv,
 * agent_info.csv, kernel_stats.csv, counter_collection.csv, ...).
 *
 * rocprofv3's writer quotes string cells but does NOT escape embedded quotes
 * (../shared/reference/rocprof-formats.md §3.1), so a '"' closes a quoted field
 * only when it is followed by a comma, a CR/LF or the end of the input; any
 * other '"' inside a quoted field is a literal character. No unescaping is
 * done: `""` inside a field stays two quote characters.
 * Lines may be of any length; CRLF and a missing final newline are tolerated.
 * Columns must be looked up by header name (fp_csv_col), never by position
 * (§3.7: `rocpd convert` adds a leading column).
 */
#ifndef FLYPROF_CSV_H
#define FLYPROF_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"

typedef struct fp_csv {
    char **header;  /* ncols header cells (quotes removed) */
    size_t ncols;
    char ***rows;   /* nrows rows of ncols cells each (never NULL cells) */
    size_t nrows;
    size_t *line;   /* 1-based line number where each row starts (for messages) */
    char *arena_;   /* private: every cell's bytes, NUL-separated (one allocation) */
    char **cells_;  /* private: every cell pointer, row-major (header first) */
} fp_csv;

/* Parse buf[0..len) (need not be NUL-terminated). `name` is used in messages.
 * Empty input or input with no header -> BAD_INPUT; a row whose cell count
 * differs from the header's -> BAD_INPUT naming the line. Blank lines are skipped.
 * On error *out is left empty (nothing to free, though fp_csv_free is safe). */
int fp_csv_parse(const char *buf, size_t len, const char *name, fp_csv *out, fp_err *err);
/* Read and parse a file. Missing -> NO_ARTIFACT; unreadable -> IO_ERROR. */
int fp_csv_load(const char *path, fp_csv *out, fp_err *err);
/* Only the header and the rows whose bytes contain `needle` (memmem), for callers
 * that look up one kernel in a multi-MB kernel_trace.csv: rows keep their order and
 * real line numbers. Every row is still parsed and checked in the same one pass
 * (same errors as fp_csv_parse); an empty or NULL needle keeps every row. */
int fp_csv_parse_matching(const char *buf, size_t len, const char *name, const char *needle, fp_csv *out,
                          fp_err *err);
int fp_csv_load_matching(const char *path, const char *needle, fp_csv *out, fp_err *err);
/* Index of the header column named `name` (exact match), or -1. */
int fp_csv_col(const fp_csv *csv, const char *name);
/* Cell (row, col) or NULL when out of range / col < 0. */
const char *fp_csv_cell(const fp_csv *csv, size_t row, int col);
/* The integer reading of a cell: spaces trimmed, 1..20 characters, strtoll of the whole
 * (what fp_csv_int and the kernel_trace cell reader both use). */
bool fp_csv_parse_int(const char *c, long long *out);
/* Integer cell: 0 and *ok = true when it is a plain decimal integer (surrounding
 * spaces allowed); otherwise returns `dflt` with *ok = false (a missing column,
 * an empty cell, a float such as "1.5", text). */
long long fp_csv_int(const fp_csv *csv, size_t row, int col, long long dflt, bool *ok);
/* Frees everything; accepts NULL and a zeroed struct. */
void fp_csv_free(fp_csv *csv);

#endif
