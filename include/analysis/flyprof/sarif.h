/*
 * sarif.h - the SARIF 2.1.0 log of `-f sarif` (sarif_doc.h) from a report, a diff or a
 * check: code scanning shows each result on the .py line it names (docs/sarif.md).
 *
 * fp_sarif_init makes the one run: tool.driver (flyprof, its version, one rule per knob
 * rule of rules.c with its help text, and the two regression rules) and, when
 * source_root is given, originalUriBaseIds SRCROOT = that directory; the adders append
 * results. A result's location is its "file.py:line" relative to source_root when the
 * file is under it (uriBaseId SRCROOT), else an absolute file: URI.
 *
 * Levels: a recommendation's from its priority (the estimated gain: >= 10 % error,
 * >= 3 % warning, else note, as REPORT.md labels HIGH / MED / LOW); a regression is an
 * error when the run's verdict is regressed (or check's gate tripped), else a warning.
 */
#ifndef FLYPROF_SARIF_H
#define FLYPROF_SARIF_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/diff_doc.h"
#include "flyprof/report_doc.h"
#include "flyprof/sarif_doc.h"

void fp_sarif_init(fp_sarif_log *log, const char *version, const char *source_root);

/* One result per recommendation of the report, in rank order. */
void fp_sarif_add_report(fp_sarif_log *log, const fp_report_doc *r, const char *source_root);

/* One result per source line whose share of the stall grew beyond the noise floor
 * (diff.json lines: key "file:line"). */
void fp_sarif_add_lines(fp_sarif_log *log, const fp_diff_row *rows, size_t n, bool regressed,
                        const char *source_root);

/* One result per stall class whose share grew beyond the noise floor (check / diff
 * classes), located at the class's hottest line of `where` (the current report) when
 * given. */
void fp_sarif_add_classes(fp_sarif_log *log, const fp_diff_row *rows, size_t n, bool regressed,
                          const fp_report_doc *where, const char *source_root);

/* "file:line" -> a location (false when it has no line number). */
bool fp_sarif_location_of(const char *source, const char *source_root, fp_sarif_location *out);

#endif
