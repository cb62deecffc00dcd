/*
 * csvout.h - `-f csv`: one list of row objects of a command's data as CSV (RFC 4180),
 * the one table -> CSV path every table command shares (docs/tables.md "CSV").
 *
 * Columns are the keys of the row objects in the order they first appear (nested
 * objects flattened as "parent.child"; a list cell is its compact JSON text); a missing
 * or null value is an empty cell; numbers are written as the JSON envelope writes them,
 * so the CSV holds the numbers of the envelope. A text cell that a spreadsheet would
 * run as a formula (it starts with = + - @ TAB or CR and is not a number) gets a
 * leading apostrophe.
 */
#ifndef FLYPROF_CSVOUT_H
#define FLYPROF_CSVOUT_H

#include <cjson/cJSON.h>

#include "flyprof/error.h"
#include "flyprof/strbuf.h"

/* rows: a JSON array of objects. Appends header + one line per row (CRLF line ends,
 * as RFC 4180 says). A non-array or a row that is no object is BAD_INPUT. */
int fp_csv_rows(const cJSON *rows, fp_sb *out, fp_err *err);

/* One cell, quoted when it must be and neutralised when a spreadsheet would run it. */
void fp_csvout_cell(fp_sb *out, const char *text);

#endif
