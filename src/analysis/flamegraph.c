/*
 * flamegraph.c - folded stacks and the SVG renderer (flamegraph.h).
 *
 * The SVG is laid out from a trie of the folded stacks: each node's width is
 * proportional to its count, children left to right in stack order, the root
 * ("all") at the bottom. Everything is static SVG (<rect>, <text>, <title>),
 * so the file opens in any browser and diffs cleanly.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/flamegraph.h"
#include "flyprof/satmath.h"

#define FRAME_H 17        /* px per stack level */
#define FONT_PX 11
#define CHAR_W 6.6        /* average glyph width of an 11 px monospace font */
#define MIN_W 0.3         /* narrower rectangles are not drawn */
#define PAD 10

char *fp_flame_frame(const char *name)
{
    size_t n = strlen(name);
    char *r = malloc(n + 1);
    if (!r)
        abort();
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        r[i] = c == ';' ? ':' : c < 0x20 ? ' ' : (char)c;
    }
    r[n] = '\0';
    return r;
}

void fp_folded_add(fp_folded *f, const char *stack, int64_t count)
{
    if (count <= 0)
        return;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 64;
        f->v = realloc(f->v, f->cap * sizeof *f->v);
        if (!f->v)
            abort();
    }
    f->v[f->n].stack = strdup(stack);
    if (!f->v[f->n].stack)
        abort();
    f->v[f->n].count = count;
    f->n++;
}

static int cmp_fold(const void *a, const void *b)
{
    return strcmp(((const fp_fold *)a)->stack, ((const fp_fold *)b)->stack);
}

void fp_folded_finish(fp_folded *f)
{
    if (f->n == 0)
        return;
    qsort(f->v, f->n, sizeof *f->v, cmp_fold);
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (k > 0 && !strcmp(f->v[k - 1].stack, f->v[i].stack)) {
            f->v[k - 1].count = fp_sat_add(f->v[k - 1].count, f->v[i].count, &f->saturated);
            free(f->v[i].stack);
        } else {
            f->v[k++] = f->v[i];
        }
    }
    f->n = k;
}

void fp_folded_write(const fp_folded *f, fp_sb *out)
{
    for (size_t i = 0; i < f->n; i++)
        fp_sb_addf(out, "%s %lld\n", f->v[i].stack, (long long)f->v[i].count);
}

void fp_folded_free(fp_folded *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        free(f->v[i].stack);
    free(f->v);
    memset(f, 0, sizeof *f);
}

/* ---- trie + layout ---- */

typedef struct node {
    const char *name; /* points into a folded stack copy */
    size_t name_len;
    int64_t value;
    int depth;
    size_t first_child, next_sibling, last_child; /* SIZE_MAX = none */
} node;

typedef struct trie {
    node *v;
    size_t n, cap;
} trie;

static size_t trie_new(trie *t, const char *name, size_t len, int depth)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->v = realloc(t->v, t->cap * sizeof *t->v);
        if (!t->v)
            abort();
    }
    t->v[t->n] = (node){name, len, 0, depth, SIZE_MAX, SIZE_MAX, SIZE_MAX};
    return t->n++;
}

static size_t child(trie *t, size_t parent, const char *name, size_t len)
{
    for (size_t c = t->v[parent].first_child; c != SIZE_MAX; c = t->v[c].next_sibling)
        if (t->v[c].name_len == len && !memcmp(t->v[c].name, name, len))
            return c;
    size_t c = trie_new(t, name, len, t->v[parent].depth + 1);
    if (t->v[parent].last_child == SIZE_MAX)
        t->v[parent].first_child = c;
    else
        t->v[t->v[parent].last_child].next_sibling = c;
    t->v[parent].last_child = c;
    return c;
}

static void xml_escape(fp_sb *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fp_sb_adds(out, "&amp;"); break;
        case '<': fp_sb_adds(out, "&lt;"); break;
        case '>': fp_sb_adds(out, "&gt;"); break;
        case '"': fp_sb_adds(out, "&quot;"); break;
        case '\'': fp_sb_adds(out, "&apos;"); break;
        default: fp_sb_addc(out, s[i]);
        }
    }
}

static unsigned hash(const char *s, size_t n)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static bool is_hot(const char *const *hot, const char *s, size_t n)
{
    for (; hot && *hot; hot++)
        if (strlen(*hot) == n && !memcmp(*hot, s, n))
            return true;
    return false;
}

typedef struct layout {
    const trie *t;
    const char *const *hot;
    double scale; /* px per count */
    int max_depth;
    int64_t total;
    const char *unit;
    fp_sb *out;
} layout;

static void draw(const layout *L, size_t id, double x)
{
    const node *nd = &L->t->v[id];
    double w = (double)nd->value * L->scale;
    if (w < MIN_W)
        return;
    double y = PAD + 24 + (double)(L->max_depth - nd->depth) * FRAME_H;
    unsigned h = hash(nd->name, nd->name_len);
    int r, g, b;
    if (is_hot(L->hot, nd->name, nd->name_len)) {
        r = 205 + (int)(h % 50), g = 50 + (int)(h / 7 % 60), b = 50 + (int)(h / 13 % 40);
    } else if (id == 0) {
        r = 200, g = 200, b = 200;
    } else {
        r = 225 + (int)(h % 30), g = 120 + (int)(h / 7 % 110), b = 30 + (int)(h / 13 % 40);
    }
    fp_sb_adds(L->out, "<g><title>");
    xml_escape(L->out, nd->name, nd->name_len);
    fp_sb_addf(L->out, " (%lld %s, %.2f%%)</title>", (long long)nd->value, L->unit,
               L->total ? 100.0 * (double)nd->value / (double)L->total : 0.0);
    fp_sb_addf(L->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
               x, y, w, FRAME_H - 1, r, g, b);
    size_t fit = w > 3 * CHAR_W ? (size_t)((w - 6) / CHAR_W) : 0;
    if (fit >= 3) {
        fp_sb_addf(L->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5);
        if (nd->name_len <= fit) {
            xml_escape(L->out, nd->name, nd->name_len);
        } else {
            xml_escape(L->out, nd->name, fit - 2);
            fp_sb_adds(L->out, "..");
        }
        fp_sb_adds(L->out, "</text>");
    }
    fp_sb_adds(L->out, "</g>\n");
    double cx = x;
    for (size_t c = nd->first_child; c != SIZE_MAX; c = L->t->v[c].next_sibling) {
        draw(L, c, cx);
        cx += (double)L->t->v[c].value * L->scale;
    }
}

void fp_flame_svg(const fp_folded *f, const char *title, const char *unit, const char *const *hot_leaves,
                  int width, fp_sb *out)
{
    trie t = {0};
    bool sat = false; /* hostile counts saturate; map already warns about them */
    trie_new(&t, "all", 3, 0);
    int max_depth = 0;
    for (size_t i = 0; i < f->n; i++) {
        size_t cur = 0;
        const char *s = f->v[i].stack;
        t.v[0].value = fp_sat_add(t.v[0].value, f->v[i].count, &sat);
        while (*s) {
            const char *e = strchr(s, ';');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            cur = child(&t, cur, s, len);
            t.v[cur].value = fp_sat_add(t.v[cur].value, f->v[i].count, &sat);
            if (t.v[cur].depth > max_depth)
                max_depth = t.v[cur].depth;
            s = e ? e + 1 : s + len;
        }
    }
    int height = PAD * 2 + 24 + (max_depth + 1) * FRAME_H + 16;
    fp_sb_addf(out,
               "<?xml version=\"1.0\" standalone=\"no\"?>\n"
               "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\">\n"
               "<style>text{font-family:monospace;font-size:%dpx;fill:#000;pointer-events:none}"
               "rect:hover{stroke:#000;stroke-width:0.7}.t{font-size:15px;font-weight:bold}</style>\n"
               "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fdfdf6\"/>\n",
               width, height, width, height, FONT_PX, width, height);
    fp_sb_addf(out, "<text class=\"t\" x=\"%d\" y=\"%d\">", PAD, PAD + 14);
    xml_escape(out, title, strlen(title));
    fp_sb_addf(out, " (%lld %s)</text>\n", (long long)t.v[0].value, unit);
    layout L = {&t, hot_leaves, t.v[0].value > 0 ? (double)(width - 2 * PAD) / (double)t.v[0].value : 0.0,
                max_depth, t.v[0].value, unit, out};
    if (t.v[0].value > 0)
        draw(&L, 0, PAD);
    fp_sb_addf(out, "<text x=\"%d\" y=\"%d\">hover a frame for its %s; red = bubble classes</text>\n", PAD,
               height - 6, unit);
    fp_sb_adds(out, "</svg>\n");
    free(t.v);
}
