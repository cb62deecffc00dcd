/*
 * flamegraph.c - folded stacks and the SVG renderer (flamegraph.h).
 *
 * The SVG is laid out from a trie of the folded stacks: each node's width is
 * proportional to its count, children left to right in stack order, the root
 * ("all") at the bottom. The picture is static SVG (<rect>, <text>, <title>), so
 * the file opens in any browser and diffs cleanly; the interactive form adds one
 * inline script (no network) that zooms into a clicked frame and highlights the
 * frames a search matches. Every text goes through markup.h (escaped, labels
 * cut on UTF-8 boundaries).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/flamegraph.h"
#include "flyprof/map.h"
#include "flyprof/markup.h"
#include "flyprof/mem.h"
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
    const fp_flame_opts *o;
    double scale; /* px per count */
    int max_depth;
    int64_t total;
    fp_sb *out;
} layout;

/* A frame's label: its name without the source root. */
static void label_of(const layout *L, const node *nd, const char **s, size_t *n)
{
    size_t k = L->o->strip ? strlen(L->o->strip) : 0;
    *s = nd->name, *n = nd->name_len;
    if (k && k < nd->name_len && !strncmp(nd->name, L->o->strip, k))
        *s += k, *n -= k;
}

static void draw(const layout *L, size_t id, double x)
{
    const node *nd = &L->t->v[id];
    double w = (double)nd->value * L->scale;
    if (w < MIN_W)
        return;
    double y = PAD + 24 + (double)(L->max_depth - nd->depth) * FRAME_H;
    unsigned h = hash(nd->name, nd->name_len);
    int r, g, b;
    if (is_hot(L->o->hot_leaves, nd->name, nd->name_len)) {
        r = 205 + (int)(h % 50), g = 50 + (int)(h / 7 % 60), b = 50 + (int)(h / 13 % 40);
    } else if (id == 0) {
        r = 200, g = 200, b = 200;
    } else {
        r = 225 + (int)(h % 30), g = 120 + (int)(h / 7 % 110), b = 30 + (int)(h / 13 % 40);
    }
    const char *lab;
    size_t ln;
    label_of(L, nd, &lab, &ln);
    fp_sb_addf(L->out, "<g class=\"f\" data-d=\"%d\"", nd->depth);
    if (L->o->interactive) {
        fp_sb_adds(L->out, " data-l=\"");
        fp_mk_xml(L->out, lab, ln);
        fp_sb_addc(L->out, '"');
    }
    fp_sb_adds(L->out, "><title>");
    fp_mk_xml(L->out, nd->name, nd->name_len);
    fp_sb_addf(L->out, " (%lld %s, %.2f%%)</title>", (long long)nd->value, L->o->unit,
               L->total ? 100.0 * (double)nd->value / (double)L->total : 0.0);
    fp_sb_addf(L->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
               x, y, w, FRAME_H - 1, r, g, b);
    size_t fit = w > 3 * CHAR_W ? (size_t)((w - 6) / CHAR_W) : 0;
    fp_sb_addf(L->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 5);
    if (fit >= 3 && fp_mk_chars(lab, ln) <= fit) {
        fp_mk_xml(L->out, lab, ln);
    } else if (fit >= 3) {
        fp_mk_xml(L->out, lab, fp_mk_prefix(lab, ln, fit - 2));
        fp_sb_adds(L->out, "..");
    }
    fp_sb_adds(L->out, "</text></g>\n");
    double cx = x;
    for (size_t c = nd->first_child; c != SIZE_MAX; c = L->t->v[c].next_sibling) {
        draw(L, c, cx);
        cx += (double)L->t->v[c].value * L->scale;
    }
}

/* The interactive part: zoom on click, Reset, Search (a regular expression over
 * the labels; the matched share is the union of the matched frames' widths). */
static const char ZOOM_JS[] =
    "(function(){var root=document.getElementById('fp-flame');if(!root)return;"
    "var W=+root.getAttribute('data-w'),PAD=10,CW=6.6;"
    "var fr=[].slice.call(root.querySelectorAll('g.f'));"
    "fr.forEach(function(g){var r=g.querySelector('rect');g._x=+r.getAttribute('x');g._w=+r.getAttribute('width');"
    "g._d=+g.getAttribute('data-d');g.addEventListener('click',function(){zoom(g);});});"
    "function fit(g,w){var t=g.querySelector('text'),l=Array.from(g.getAttribute('data-l')||''),"
    "n=w>3*CW?Math.floor((w-6)/CW):0;t.textContent=n<3?'':(l.length<=n?l.join(''):l.slice(0,n-2).join('')+'..');}"
    "function show(g,x,w){var r=g.querySelector('rect'),t=g.querySelector('text');g.style.display='';"
    "r.setAttribute('x',x);r.setAttribute('width',w);t.setAttribute('x',x+3);fit(g,w);}"
    "function zoom(z){var s=(W-2*PAD)/z._w;fr.forEach(function(g){g.classList.remove('p');"
    "var inside=g._x>=z._x-1e-6&&g._x+g._w<=z._x+z._w+1e-6;"
    "if(g._d>=z._d&&inside)show(g,PAD+(g._x-z._x)*s,g._w*s);"
    "else if(g._d<z._d&&g._x<=z._x+1e-6&&g._x+g._w>=z._x+z._w-1e-6){show(g,PAD,W-2*PAD);g.classList.add('p');}"
    "else g.style.display='none';});}"
    "function reset(){fr.forEach(function(g){g.classList.remove('p');show(g,g._x,g._w);});}"
    "function search(){var q=window.prompt('Search frames (regular expression)','');if(q===null)return;"
    "var rx;try{rx=new RegExp(q);}catch(e){return;}var iv=[];fr.forEach(function(g){"
    "var m=q!==''&&rx.test(g.getAttribute('data-l')||'');g.querySelector('rect').classList.toggle('m',m);"
    "if(m)iv.push([g._x,g._x+g._w]);});iv.sort(function(a,b){return a[0]-b[0];});var tot=0,e=-1;"
    "iv.forEach(function(v){if(v[0]>e){tot+=v[1]-v[0];e=v[1];}else if(v[1]>e){tot+=v[1]-e;e=v[1];}});"
    "document.getElementById('fp-matched').textContent=q===''?'':'matched '+(100*tot/(W-2*PAD)).toFixed(2)+'%';}"
    "document.getElementById('fp-reset').addEventListener('click',reset);"
    "document.getElementById('fp-search').addEventListener('click',search);})();";

void fp_flame_svg(const fp_folded *f, const fp_flame_opts *o, fp_sb *out)
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
    int width = o->width, height = PAD * 2 + 24 + (max_depth + 1) * FRAME_H + 16;
    fp_sb_addf(out,
               "<?xml version=\"1.0\" standalone=\"no\"?>\n"
               "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"fp-flame\" data-w=\"%d\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\">\n"
               "<style>#fp-flame text{font-family:monospace;font-size:%dpx;fill:#000;pointer-events:none}"
               "#fp-flame g.f rect:hover{stroke:#000;stroke-width:0.7}#fp-flame g.f{cursor:pointer}"
               "#fp-flame .p rect{opacity:.6}#fp-flame rect.m{fill:#e040fb}#fp-flame .t{font-size:15px;"
               "font-weight:bold}#fp-flame .b{pointer-events:all;cursor:pointer;fill:#06c}</style>\n"
               "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fdfdf6\"/>\n",
               width, width, height, width, height, FONT_PX, width, height);
    fp_sb_addf(out, "<text class=\"t\" x=\"%d\" y=\"%d\">", PAD, PAD + 14);
    fp_mk_xmls(out, o->title);
    fp_sb_addf(out, " (%lld %s)</text>\n", (long long)t.v[0].value, o->unit);
    if (o->interactive)
        fp_sb_addf(out, "<text id=\"fp-reset\" class=\"b\" x=\"%d\" y=\"%d\">Reset zoom</text>"
                        "<text id=\"fp-search\" class=\"b\" x=\"%d\" y=\"%d\">Search</text>"
                        "<text id=\"fp-matched\" x=\"%d\" y=\"%d\"></text>\n",
                   width - 190, PAD + 14, width - 100, PAD + 14, width - 300, height - 6);
    layout L = {&t, o, t.v[0].value > 0 ? (double)(width - 2 * PAD) / (double)t.v[0].value : 0.0, max_depth,
                t.v[0].value, out};
    if (t.v[0].value > 0)
        draw(&L, 0, PAD);
    fp_sb_addf(out, "<text x=\"%d\" y=\"%d\">hover a frame for its %s; red = bubble classes%s</text>\n", PAD,
               height - 6, o->unit, o->interactive ? "; click to zoom" : "");
    if (o->interactive)
        fp_sb_addf(out, "<script type=\"text/javascript\"><![CDATA[%s]]></script>\n", ZOOM_JS);
    fp_sb_adds(out, "</svg>\n");
    free(t.v);
}

void fp_flame_add_source(fp_folded *fo, const char *source, const char *leaf, int64_t w, fp_sb *tmp)
{
    fp_sb_reset(tmp);
    fp_frame *fr;
    size_t nf = fp_source_frames(source, &fr);
    if (nf == 0)
        fp_sb_adds(tmp, "<unmapped>;");
    fp_sb frame;
    fp_sb_init(&frame);
    for (size_t k = nf; k-- > 0;) {
        fp_sb_reset(&frame);
        fp_sb_adds(&frame, fr[k].file);
        if (fr[k].line >= 0)
            fp_sb_addf(&frame, ":%ld", fr[k].line);
        char *name = fp_flame_frame(frame.buf);
        fp_sb_adds(tmp, name);
        fp_sb_addc(tmp, ';');
        free(name);
    }
    fp_sb_free(&frame);
    fp_sb_adds(tmp, leaf);
    fp_folded_add(fo, tmp->buf, w);
    fp_frames_free(fr, nf);
}

char *fp_flame_source_root(const fp_folded *f)
{
    char *root = NULL;
    size_t rl = 0;
    for (size_t i = 0; i < f->n; i++) {
        const char *s = f->v[i].stack;
        while (*s) {
            size_t len = strcspn(s, ";");
            if (s[len] == ';' && s[0] == '/') { /* a file frame (the leaf is the class) */
                if (!root) {
                    root = fp_xstrndup(s, len);
                    rl = len;
                } else {
                    size_t k = 0;
                    while (k < rl && k < len && root[k] == s[k])
                        k++;
                    rl = k;
                }
            }
            s += len + (s[len] == ';');
        }
    }
    while (rl && root[rl - 1] != '/')
        rl--; /* a directory: never half a name */
    char *r = fp_xstrndup(root ? root : "", rl);
    free(root);
    return r;
}
