/*
 * strbuf.c - growable string buffer and code-point aware padding.
 * Padding counts code points, not bytes, because the analyzer's tables contain
 * box-drawing and block characters that are 3 bytes in UTF-8.
 */
#include "flyprof/strbuf.h"
#include "flyprof/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an empty, never-grown buffer points at, so that buf is never NULL.
 * Shared by every such buffer and never written: every write through buf
 * happens after fp_sb_grow gave the buffer its own storage (cap > 0), which is
 * why the one cast that drops const below is safe. */
static const char fp_sb_empty[1];

void fp_sb_init(fp_sb *sb)
{
    sb->buf = (char *)fp_sb_empty;
    sb->len = 0;
    sb->cap = 0;
}

void fp_sb_free(fp_sb *sb)
{
    if (sb->cap)
        free(sb->buf);
    fp_sb_init(sb);
}

void fp_sb_reset(fp_sb *sb)
{
    sb->len = 0;
    if (sb->cap)
        sb->buf[0] = '\0';
}

void fp_sb_grow(fp_sb *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap = cap * 2;
    char *nb = sb->cap ? realloc(sb->buf, cap) : malloc(cap);
    if (!nb) {
        fputs("flyprof: out of memory\n", stderr);
        abort();
    }
    if (!sb->cap)
        nb[0] = '\0';
    sb->buf = nb;
    sb->cap = cap;
}

void fp_sb_add(fp_sb *sb, const void *data, size_t len)
{
    fp_sb_grow(sb, len);
    if (len)
        memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void fp_sb_adds(fp_sb *sb, const char *s) { fp_sb_add(sb, s, strlen(s)); }

void fp_sb_addc(fp_sb *sb, char c) { fp_sb_add(sb, &c, 1); }

void fp_sb_vaddf(fp_sb *sb, const char *fmt, va_list ap)
{
    /* Formatted straight into the free space when it fits (nearly always: the
     * buffer doubles), so the text is formatted once, not measured first. */
    if (!sb->cap)
        fp_sb_grow(sb, 63);
    size_t avail = sb->cap - sb->len;
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(sb->buf + sb->len, avail, fmt, cp);
    va_end(cp);
    if (n < 0) {
        sb->buf[sb->len] = '\0'; /* as if nothing was added */
        return;
    }
    if ((size_t)n >= avail) {
        fp_sb_grow(sb, (size_t)n);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    }
    sb->len += (size_t)n;
}

void fp_sb_addf(fp_sb *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fp_sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void fp_sb_addn(fp_sb *sb, const char *s, size_t n_times)
{
    size_t l = strlen(s);
    fp_sb_grow(sb, l * n_times);
    char *d = sb->buf + sb->len;
    if (l == 1) {
        memset(d, s[0], n_times);
    } else {
        for (size_t i = 0; i < n_times; i++, d += l)
            memcpy(d, s, l);
    }
    sb->len += l * n_times;
    sb->buf[sb->len] = '\0';
}

/* n spaces: one grow and one memset, not n one-byte appends */
static void add_spaces(fp_sb *sb, size_t n)
{
    if (!n)
        return;
    fp_sb_grow(sb, n);
    memset(sb->buf + sb->len, ' ', n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

char *fp_sb_detach(fp_sb *sb)
{
    char *r;
    if (sb->cap) {
        r = sb->buf;
    } else {
        r = malloc(1);
        if (!r)
            abort();
        r[0] = '\0';
    }
    fp_sb_init(sb);
    return r;
}

size_t fp_utf8_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

void fp_sb_pad_left(fp_sb *sb, const char *s, size_t width)
{
    size_t w = fp_utf8_len(s);
    fp_sb_adds(sb, s);
    add_spaces(sb, w < width ? width - w : 0);
}

void fp_sb_pad_right(fp_sb *sb, const char *s, size_t width)
{
    size_t w = fp_utf8_len(s);
    add_spaces(sb, w < width ? width - w : 0);
    fp_sb_adds(sb, s);
}

char *fp_xstrndup(const char *s, size_t n)
{
    char *r = malloc(n + 1);
    if (!r)
        abort();
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}
