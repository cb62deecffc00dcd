/*
 * markup.h - text into the views' markup (SVG, HTML, the timeline's JSON),
 * always escaped, never filtered (issue 22 item 3): whatever bytes a kernel
 * name, a source path or a snapshot line holds, the output is well-formed and
 * inert. Shared by flamegraph.c, html.c, trend.c, timeline.c and annotate.c.
 */
#ifndef FLYPROF_MARKUP_H
#define FLYPROF_MARKUP_H

#include <stddef.h>

#include "flyprof/strbuf.h"

/* s[0..n) as XML/HTML character data or attribute value: & < > " ' escaped,
 * invalid UTF-8 and characters XML 1.0 forbids or a terminal acts on (C0
 * controls but tab and newline, DEL, C1) replaced by U+FFFD. */
void fp_mk_xml(fp_sb *out, const char *s, size_t n);
/* The same for a NUL-terminated string (NULL prints nothing). */
void fp_mk_xmls(fp_sb *out, const char *s);
/* Characters of s[0..n) (an invalid byte counts as one). */
size_t fp_mk_chars(const char *s, size_t n);
/* Bytes of the first `max` characters of s[0..n): never ends inside a UTF-8 sequence. */
size_t fp_mk_prefix(const char *s, size_t n, size_t max);
/* Bytes where the last `max` characters of s[0..n) begin (a suffix on a boundary). */
size_t fp_mk_suffix_start(const char *s, size_t n, size_t max);
/* s as a JSON string literal with its quotes (valid UTF-8 out, controls \u-escaped). */
void fp_mk_json(fp_sb *out, const char *s);
/* The short form of a source path: its last `parts` components ("ops/kernel.py"). */
const char *fp_mk_short_path(const char *path, int parts);

#endif
