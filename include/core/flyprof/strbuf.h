/*
 * strbuf.h - a growable, always NUL-terminated byte buffer (after git's strbuf).
 * Used for table text, file contents and paths. Allocation failure aborts
 * (there is nothing sensible to do on a 24 GiB machine that cannot malloc).
 */
#ifndef FLYPROF_STRBUF_H
#define FLYPROF_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct fp_sb {
    char *buf; /* NUL-terminated; never NULL after fp_sb_init */
    size_t len;
    size_t cap;
} fp_sb;

void fp_sb_init(fp_sb *sb);
void fp_sb_free(fp_sb *sb);
void fp_sb_reset(fp_sb *sb);
void fp_sb_grow(fp_sb *sb, size_t extra);
void fp_sb_add(fp_sb *sb, const void *data, size_t len);
void fp_sb_adds(fp_sb *sb, const char *s);
void fp_sb_addc(fp_sb *sb, char c);
void fp_sb_addf(fp_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fp_sb_vaddf(fp_sb *sb, const char *fmt, va_list ap);
/* Append c `n` times. */
void fp_sb_addn(fp_sb *sb, const char *s, size_t n_times);
/* Take ownership of the buffer; sb is re-initialised. */
char *fp_sb_detach(fp_sb *sb);

/* Number of Unicode code points in a UTF-8 string (continuation bytes skipped). */
size_t fp_utf8_len(const char *s);
/* Append s padded with spaces to `width` code points; left or right aligned.
 * Strings wider than width overflow (never cut), like Python's format(). */
void fp_sb_pad_left(fp_sb *sb, const char *s, size_t width);  /* "%-*s" */
void fp_sb_pad_right(fp_sb *sb, const char *s, size_t width); /* "%*s"  */

#endif
