/*
 * table.h - making `-f table` output fit a human's terminal, in one place
 * (main.c applies it to every command's table): source paths shortened,
 * lines wrapped to a width (100 columns by default), and the details of an
 * error envelope (available dispatches, candidates, help) rendered as text.
 *
 * Full paths and unwrapped text stay in the JSON envelope and the artifacts;
 * this only changes what a person reads.
 */
#ifndef FLYPROF_TABLE_H
#define FLYPROF_TABLE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/strbuf.h"

/* The default width of table output: fits a split screen or a CI log. */
#define FP_TABLE_WIDTH_DEFAULT 100
/* A $COLUMNS narrower than this is ignored (a broken terminal setting). */
#define FP_TABLE_WIDTH_MIN 40

/* The width to render to: 0 (unlimited) with --wide; $COLUMNS when stdout is
 * a terminal and it parses; else FP_TABLE_WIDTH_DEFAULT. */
int fp_table_width(bool wide, bool stdout_tty, const char *columns_env);

/* The same for this process: a terminal narrower than the default (its
 * TIOCGWINSZ size; bash does not export $COLUMNS) narrows the default too. */
int fp_table_width_auto(bool wide);

/* Display columns of len bytes of UTF-8 (one per code point: the tables use
 * box-drawing and block characters, never double-width ones). */
size_t fp_utf8_cols(const char *s, size_t len);

/* Rewrite every absolute source path in text (a '/'-path followed by
 * ":<line>" or ending in a source extension such as .py) to the path relative
 * to `root` when it lies under it (root may be NULL), else to its shortest
 * suffix of whole components that no other source path in the same text
 * shares. The same path always gets the same short form. */
void fp_table_shorten_paths(fp_sb *text, const char *root);

/* Wrap every line longer than width columns (0 = leave as is) at the last
 * space that fits, continuation lines indented two more than the line;
 * a line without a usable space is cut hard. */
void fp_table_wrap(fp_sb *text, int width);

/* Both of the above, the way main.c applies them to a command's table. */
void fp_table_fit(fp_sb *text, int width, const char *root);

/* Make text from position `from` on safe to show on a terminal: every control
 * character but '\n' and '\t' (C0, DEL, and the C1 range U+0080..U+009F, which
 * includes the 8-bit CSI/OSC) becomes U+FFFD, so a kernel name, a code.json
 * line or a history record cannot carry ESC/BEL sequences (OSC 52 clipboard,
 * OSC 0 title, cursor moves) into a table, REPORT.md or an error message. */
void fp_term_safe(fp_sb *text, size_t from);

/* The fields of an error envelope beyond code/message/help (extra: the
 * object fp_err_extra filled), one "  name: value" line each; arrays of
 * scalars joined with ", ", arrays of objects one entry per line (name/
 * dispatch/line fields first), bounded to `max_items` entries. */
void fp_table_error_details(const cJSON *extra, size_t max_items, fp_sb *out);

#endif
