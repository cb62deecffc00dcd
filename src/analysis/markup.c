/*
 * markup.c - escaping for the views (markup.h). One pass per string; UTF-8 is
 * validated with core's fp_utf8_seq (RFC 3629), so the SVG/HTML/JSON written
 * is valid whatever the input bytes.
 */
#include <stdbool.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/markup.h"

#define REPLACEMENT "\xEF\xBF\xBD"

/* Code point of a valid sequence of length l at p. */
static unsigned cp_of(const unsigned char *p, size_t l)
{
    static const unsigned char mask[5] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    unsigned c = p[0] & mask[l];
    for (size_t i = 1; i < l; i++)
        c = c << 6 | (p[i] & 0x3f);
    return c;
}

static const char *xml_entity(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

void fp_mk_xml(fp_sb *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    while (p < e) {
        size_t bad = 1, l = *p ? fp_utf8_seq(p, (size_t)(e - p), &bad) : 0;
        if (l == 1 && xml_entity(*p)) {
            fp_sb_adds(out, xml_entity(*p));
        } else if (l == 0) {
            fp_sb_adds(out, REPLACEMENT);
            l = bad ? bad : 1;
        } else {
            unsigned c = cp_of(p, l);
            bool forbidden = (c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7f && c <= 0x9f) || c == 0xfffe ||
                             c == 0xffff;
            if (forbidden)
                fp_sb_adds(out, REPLACEMENT);
            else
                fp_sb_add(out, p, l);
        }
        p += l;
    }
}

void fp_mk_xmls(fp_sb *out, const char *s)
{
    if (s)
        fp_mk_xml(out, s, strlen(s));
}

/* Length of the character at p (an invalid byte run is its maximal subpart). */
static size_t char_len(const unsigned char *p, size_t left)
{
    size_t bad = 1, l = *p ? fp_utf8_seq(p, left, &bad) : 0;
    return l ? l : bad ? bad : 1;
}

size_t fp_mk_chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; k++)
        i += char_len((const unsigned char *)s + i, n - i);
    return k;
}

size_t fp_mk_prefix(const char *s, size_t n, size_t max)
{
    size_t i = 0;
    for (size_t k = 0; i < n && k < max; k++)
        i += char_len((const unsigned char *)s + i, n - i);
    return i > n ? n : i;
}

size_t fp_mk_suffix_start(const char *s, size_t n, size_t max)
{
    size_t total = fp_mk_chars(s, n);
    return total <= max ? 0 : fp_mk_prefix(s, n, total - max);
}

void fp_mk_json(fp_sb *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    fp_sb_addc(out, '"');
    const unsigned char *p = (const unsigned char *)(s ? s : ""), *e = p + strlen((const char *)p);
    while (p < e) {
        if (*p == '"' || *p == '\\') {
            fp_sb_addc(out, '\\');
            fp_sb_addc(out, (char)*p++);
        } else if (*p < 0x20) {
            char u[7] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15], 0};
            fp_sb_adds(out, u);
            p++;
        } else {
            size_t bad = 1, l = fp_utf8_seq(p, (size_t)(e - p), &bad);
            if (l)
                fp_sb_add(out, p, l);
            else
                fp_sb_adds(out, REPLACEMENT);
            p += l ? l : bad ? bad : 1;
        }
    }
    fp_sb_addc(out, '"');
}

const char *fp_mk_short_path(const char *path, int parts)
{
    if (!path)
        return "";
    const char *p = path + strlen(path);
    while (p > path) {
        if (p[-1] == '/' && --parts == 0)
            return p;
        p--;
    }
    return path;
}
