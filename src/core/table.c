/*
 * table.c - the width discipline of `-f table` (see table.h). Done on the
 * rendered text rather than in each renderer so that every command, present
 * and future, fits the same way, and the renderers stay simple.
 */
#include "flyprof/table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "flyprof/mem.h"

int fp_table_width(bool wide, bool stdout_tty, const char *columns_env)
{
    if (wide)
        return 0;
    if (stdout_tty && columns_env && *columns_env) {
        char *end = NULL;
        long v = strtol(columns_env, &end, 10);
        if (end && !*end && v >= FP_TABLE_WIDTH_MIN && v <= 100000)
            return (int)v;
    }
    return FP_TABLE_WIDTH_DEFAULT;
}

int fp_table_width_auto(bool wide)
{
    bool tty = isatty(STDOUT_FILENO);
    int w = fp_table_width(wide, tty, getenv("COLUMNS"));
    struct winsize ws;
    const char *cols = getenv("COLUMNS");
    if (w == FP_TABLE_WIDTH_DEFAULT && tty && !(cols && *cols) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
        ws.ws_col >= FP_TABLE_WIDTH_MIN && ws.ws_col < w)
        w = ws.ws_col;
    return w;
}

size_t fp_utf8_cols(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* ---------- source paths ---------- */

/* Source files a trace points at (FlyDSL is Python; the rest covers the
 * runtime and compiler frames a line table can name). */
static const char *const src_ext[] = {".py", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".hip", ".mlir", NULL};

static bool path_char(char c)
{
    return c && c != ' ' && c != '\t' && c != '\n' && c != '"' && c != '\'' && c != '`' && c != '(' && c != ')' &&
           c != '[' && c != ']' && c != ',' && c != ';' && c != '|' && c != '<' && c != '>' && c != ':' &&
           c != '=';
}

static bool has_src_ext(const char *p, size_t len)
{
    for (const char *const *e = src_ext; *e; e++) {
        size_t el = strlen(*e);
        if (len > el && !memcmp(p + len - el, *e, el))
            return true;
    }
    return false;
}

/* A source path starts at i: '/' at a word start, at least two components,
 * then ":<digit>" or a source extension. Returns its length or 0. */
static size_t src_path_at(const char *s, size_t i)
{
    if (s[i] != '/' || (i > 0 && path_char(s[i - 1]) && s[i - 1] != ':'))
        return 0;
    if (i > 0 && s[i - 1] == ':') /* "file.py:12:/x" never; "http://": not a path */
        return 0;
    size_t j = i;
    int slashes = 0;
    while (path_char(s[j])) {
        slashes += s[j] == '/';
        j++;
    }
    size_t len = j - i;
    if (slashes < 2 || s[j - 1] == '/')
        return 0;
    bool line = s[j] == ':' && s[j + 1] >= '0' && s[j + 1] <= '9';
    return line || has_src_ext(s + i, len) ? len : 0;
}

typedef struct spath {
    char *full;
    size_t short_off; /* the short form is full + short_off (or rel when set) */
    char *rel;
} spath;

typedef struct spaths {
    spath *v;
    size_t n, cap;
} spaths;

static spath *spaths_find(spaths *p, const char *s, size_t len)
{
    for (size_t k = 0; k < p->n; k++)
        if (strlen(p->v[k].full) == len && !memcmp(p->v[k].full, s, len))
            return &p->v[k];
    return NULL;
}

/* Offset of the suffix of `full` made of its last k components (k >= 1). */
static size_t suffix_off(const char *full, int k)
{
    size_t i = strlen(full);
    while (i > 0) {
        i--;
        if (full[i] == '/' && --k == 0)
            return i + 1;
    }
    return 0;
}

static bool ends_with_suffix(const char *full, const char *suf)
{
    size_t fl = strlen(full), sl = strlen(suf);
    if (sl > fl || strcmp(full + fl - sl, suf))
        return false;
    return sl == fl || full[fl - sl - 1] == '/';
}

void fp_table_shorten_paths(fp_sb *text, const char *root)
{
    if (!text->len)
        return;
    spaths p = {0};
    const char *s = text->buf;
    for (size_t i = 0; s[i]; i++) {
        size_t len = src_path_at(s, i);
        if (!len)
            continue;
        if (!spaths_find(&p, s + i, len)) {
            FP_GROW(p.v, p.n, p.cap);
            p.v[p.n++] = (spath){fp_xstrndup(s + i, len), 0, NULL};
        }
        i += len - 1;
    }
    if (!p.n)
        return;
    size_t rl = root ? strlen(root) : 0;
    while (rl > 1 && root[rl - 1] == '/')
        rl--;
    for (size_t k = 0; k < p.n; k++) {
        const char *full = p.v[k].full;
        if (rl > 1 && !strncmp(full, root, rl) && full[rl] == '/') {
            p.v[k].rel = strdup(full + rl + 1);
            continue;
        }
        /* the fewest trailing components no other path ends with */
        for (int c = 1;; c++) {
            size_t off = suffix_off(full, c);
            bool unique = true;
            for (size_t m = 0; m < p.n && unique; m++)
                if (m != k && ends_with_suffix(p.v[m].full, full + off))
                    unique = false;
            if (unique || off == 0) {
                p.v[k].short_off = off;
                break;
            }
        }
    }
    fp_sb out;
    fp_sb_init(&out);
    for (size_t i = 0; s[i];) {
        size_t len = src_path_at(s, i);
        if (!len) {
            fp_sb_addc(&out, s[i++]);
            continue;
        }
        spath *sp = spaths_find(&p, s + i, len);
        fp_sb_adds(&out, sp->rel ? sp->rel : sp->full + sp->short_off);
        i += len;
    }
    fp_sb_reset(text);
    fp_sb_add(text, out.buf, out.len);
    fp_sb_free(&out);
    for (size_t k = 0; k < p.n; k++) {
        free(p.v[k].full);
        free(p.v[k].rel);
    }
    free(p.v);
}

/* ---------- wrapping ---------- */

/* Byte offset in line (len bytes) of the first byte after `cols` columns. */
static size_t byte_at_col(const char *line, size_t len, size_t cols)
{
    size_t c = 0, i = 0;
    for (; i < len; i++) {
        if (((unsigned char)line[i] & 0xC0) != 0x80) {
            if (c == cols)
                return i;
            c++;
        }
    }
    return len;
}

/* Column where the continuation of a wrapped line starts: under the text of
 * a "label   text" or "  123 | source" line (a hanging indent), else two
 * deeper than the line; never past half the width, so something fits. */
static size_t hang_col(const char *line, size_t len, size_t indent, size_t width)
{
    size_t lim = len < 48 ? len : 48;
    /* a source gutter: spaces, '>', digits, then "| " (ASCII or box-drawing) */
    size_t i = indent;
    while (i < lim && (line[i] == ' ' || line[i] == '>' || (line[i] >= '0' && line[i] <= '9')))
        i++;
    if (i > indent && i < lim && line[i] == '|' && line[i - 1] == ' ')
        return fp_utf8_cols(line, i + 1) + 1 <= width / 2 ? fp_utf8_cols(line, i + 1) + 1 : indent + 2;
    if (i > indent && i + 3 <= len && !memcmp(line + i, "\xe2\x94\x82", 3) && line[i - 1] == ' ')
        return fp_utf8_cols(line, i + 3) + 1 <= width / 2 ? fp_utf8_cols(line, i + 3) + 1 : indent + 2;
    /* "label  text" / "[ok] name    text": under the text after the last run
     * of two or more spaces that starts in the first 48 columns */
    size_t best = 0;
    for (i = indent; i + 2 < lim; i++)
        if (line[i] != ' ' && line[i + 1] == ' ' && line[i + 2] == ' ') {
            size_t j = i + 1;
            while (j < len && line[j] == ' ')
                j++;
            size_t c = fp_utf8_cols(line, j);
            if (j < len && c <= width / 2 && c > indent)
                best = c;
            i = j - 1;
        }
    if (best)
        return best;
    return indent + 2 <= width / 2 ? indent + 2 : width / 4;
}

static void wrap_line(fp_sb *out, const char *line, size_t len, size_t width)
{
    size_t indent = 0;
    while (indent < len && line[indent] == ' ')
        indent++;
    size_t cont = hang_col(line, len, indent, width);
    /* columns of what is left, kept up to date instead of recounted per piece:
     * recounting made a 2 MB kernel name quadratic (9.5 s in table mode) */
    size_t cols = fp_utf8_cols(line, len);
    bool first = true;
    while (len) {
        size_t pad = first ? 0 : cont;
        if (!first)
            fp_sb_addn(out, " ", pad);
        if (cols + pad <= width) {
            fp_sb_add(out, line, len);
            break;
        }
        size_t cut = byte_at_col(line, len, width - pad);
        size_t brk = cut;
        /* the last space in the fitting part, past the line's own indent */
        size_t lo = first ? indent : 0;
        while (brk > lo && line[brk] != ' ')
            brk--;
        if (brk <= lo)
            brk = cut; /* no space: cut hard (on a code point boundary) */
        size_t end = brk;
        while (end > 0 && line[end - 1] == ' ' && end > lo)
            end--;
        fp_sb_add(out, line, end);
        fp_sb_addc(out, '\n');
        while (brk < len && line[brk] == ' ')
            brk++;
        cols -= fp_utf8_cols(line, brk);
        line += brk;
        len -= brk;
        first = false;
    }
}

void fp_table_wrap(fp_sb *text, int width)
{
    if (width <= 0 || !text->len)
        return;
    fp_sb out;
    fp_sb_init(&out);
    const char *s = text->buf, *end = s + text->len;
    bool changed = false;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (fp_utf8_cols(s, len) > (size_t)width) {
            wrap_line(&out, s, len, (size_t)width);
            changed = true;
        } else {
            fp_sb_add(&out, s, len);
        }
        if (nl)
            fp_sb_addc(&out, '\n');
        s += len + (nl ? 1 : 0);
    }
    if (changed) {
        fp_sb_reset(text);
        fp_sb_add(text, out.buf, out.len);
    }
    fp_sb_free(&out);
}

static bool is_control_at(const unsigned char *p, const unsigned char *end, size_t *n)
{
    if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f) {
        *n = 1;
        return true;
    }
    if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 && p[1] <= 0x9f) {
        *n = 2;
        return true;
    }
    return false;
}

/* The first byte at or after q that can start a control character (< 0x20, 0x7f,
 * or 0xc2 of a C1 one), or end: 16 bytes a step, as the whole output passes
 * through here and nearly all of it is plain text (the byte loop was ~10
 * instructions a byte). */
static const unsigned char *term_candidate(const unsigned char *q, const unsigned char *end)
{
#if defined(__SSE2__)
    const __m128i c1f = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f), c2 = _mm_set1_epi8((char)0xc2);
    for (; end - q >= 16; q += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(x, c1f), c1f), _mm_cmpeq_epi8(x, del)),
                                   _mm_cmpeq_epi8(x, c2));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m)
            return q + __builtin_ctz(m);
    }
#endif
    while (q < end && !(*q < 0x20 || *q == 0x7f || *q == 0xc2))
        q++;
    return q;
}

void fp_term_safe(fp_sb *text, size_t from)
{
    if (from >= text->len)
        return;
    const unsigned char *p = (const unsigned char *)text->buf + from;
    const unsigned char *end = (const unsigned char *)text->buf + text->len;
    size_t n;
    const unsigned char *q = p;
    /* a byte that can start a control character at all, before the exact test */
    while ((q = term_candidate(q, end)) < end && !is_control_at(q, end, &n))
        q++;
    if (q == end)
        return; /* the common case: nothing to replace, no copy */
    fp_sb out;
    fp_sb_init(&out);
    fp_sb_add(&out, text->buf, (size_t)(q - (const unsigned char *)text->buf));
    while (q < end) {
        if (is_control_at(q, end, &n)) {
            fp_sb_add(&out, "\xef\xbf\xbd", 3);
            q += n;
        } else {
            fp_sb_addc(&out, (char)*q++);
        }
    }
    fp_sb_reset(text);
    fp_sb_add(text, out.buf, out.len);
    fp_sb_free(&out);
}

void fp_table_fit(fp_sb *text, int width, const char *root)
{
    fp_table_shorten_paths(text, root);
    fp_table_wrap(text, width);
}

/* ---------- error details ---------- */

static void scalar_text(const cJSON *v, fp_sb *out)
{
    if (cJSON_IsString(v))
        fp_sb_adds(out, v->valuestring);
    else if (cJSON_IsBool(v))
        fp_sb_adds(out, cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNull(v))
        fp_sb_adds(out, "null");
    else if (cJSON_IsNumber(v)) {
        if (v->valuedouble == (double)(long long)v->valuedouble)
            fp_sb_addf(out, "%lld", (long long)v->valuedouble);
        else
            fp_sb_addf(out, "%g", v->valuedouble);
    } else {
        char *s = cJSON_PrintUnformatted(v);
        fp_sb_adds(out, s ? s : "");
        free(s);
    }
}

/* One object of a list as "k=v k=v", the identifying fields first. */
static void object_text(const cJSON *o, fp_sb *out)
{
    static const char *const first[] = {"name", "dispatch", "dir", "line", "code_line", "source", NULL};
    bool any = false;
    for (const char *const *k = first; *k; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, *k);
        if (!v)
            continue;
        fp_sb_addf(out, "%s%s=", any ? " " : "", *k);
        scalar_text(v, out);
        any = true;
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        bool shown = false;
        for (const char *const *k = first; *k && !shown; k++)
            shown = !strcmp(v->string, *k);
        if (shown || cJSON_IsObject(v) || cJSON_IsArray(v))
            continue;
        fp_sb_addf(out, "%s%s=", any ? " " : "", v->string);
        scalar_text(v, out);
        any = true;
    }
}

void fp_table_error_details(const cJSON *extra, size_t max_items, fp_sb *out)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, extra)
    {
        fp_sb_addf(out, "  %s:", it->string);
        if (cJSON_IsArray(it)) {
            size_t n = (size_t)cJSON_GetArraySize(it), i = 0;
            const cJSON *e;
            bool objects = it->child && cJSON_IsObject(it->child);
            cJSON_ArrayForEach(e, it)
            {
                if (i == max_items)
                    break;
                if (objects) {
                    fp_sb_adds(out, "\n    ");
                    object_text(e, out);
                } else {
                    fp_sb_adds(out, i ? ", " : " ");
                    scalar_text(e, out);
                }
                i++;
            }
            if (n > max_items)
                fp_sb_addf(out, "%s(%zu more; -f json for all)", objects ? "\n    " : ", ", n - max_items);
            if (!n)
                fp_sb_adds(out, " (none)");
        } else if (cJSON_IsObject(it)) {
            fp_sb_adds(out, " ");
            object_text(it, out);
        } else {
            fp_sb_adds(out, " ");
            scalar_text(it, out);
        }
        fp_sb_addc(out, '\n');
    }
}
