/*
 * hotspots_render.c - the seed analyzer's text, byte for byte (algorithm doc §9),
 * and the same analysis as JSON data.
 *
 * The one idea: Python pads and cuts by code points, so every width here goes
 * through the UTF-8 helpers (fp_sb_pad_left/right, cp_prefix/cp_suffix), and
 * every float goes through printf, whose round-half-even on the exact binary
 * value is what Python's format() does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/hotspots.h"

/* Layout constants of the analyzer's text (algorithm §9). */
#define RULE_WIDTH 90          /* "═" x 90 around section titles */
#define BAR_CELLS 30           /* cells in a bar */
#define SRC_TABLE_SRC_CHARS 48 /* source column: last 48 code points */
#define ASM_TABLE_ASM_CHARS 48 /* asm column: cut to 47 + "…" when longer */
#define ASM_TABLE_SRC_CHARS 38 /* asm table source column: last 38 code points */
#define DETAIL_MAX_LINES 5     /* detail blocks for the first min(5, topk) lines */
#define DETAIL_MAX_INSTS 6     /* stalling instructions listed per block */

static const char RULE_CH[] = "\xe2\x95\x90";  /* U+2550 ═ */
static const char FULL_CH[] = "\xe2\x96\x88";  /* U+2588 █ */
static const char LIGHT_CH[] = "\xe2\x96\x91"; /* U+2591 ░ */
static const char ELLIPSIS[] = "\xe2\x80\xa6"; /* U+2026 … */
static const char VBAR[] = "\xe2\x94\x82";     /* U+2502 │ */
static const char DASH2[] = "\xe2\x94\x80\xe2\x94\x80"; /* "──" */

/* F(n): 1.23M / 45.6K / 789. */
static const char *fmt_cycles(int64_t n, char *buf, size_t len)
{
    if (n >= 1000000)
        snprintf(buf, len, "%.2fM", (double)n / 1e6);
    else if (n >= 1000)
        snprintf(buf, len, "%.1fK", (double)n / 1e3);
    else
        snprintf(buf, len, "%lld", (long long)n);
    return buf;
}

/* Python's f"{n:,}". */
static void add_thousands(fp_sb *sb, long long n)
{
    char d[32];
    snprintf(d, sizeof d, "%lld", n < 0 ? -n : n);
    if (n < 0)
        fp_sb_addc(sb, '-');
    size_t len = strlen(d);
    for (size_t i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            fp_sb_addc(sb, ',');
        fp_sb_addc(sb, d[i]);
    }
}

/* BAR(p): [████░░░]  12.3%  (39 code points). Cells are clamped to 0..30 so
 * that out-of-range percentages (negative or > 100 cells from odd files) keep
 * the bar's width; the number is printed as computed. */
static void add_bar(fp_sb *sb, double p)
{
    double f = p / 100.0 * BAR_CELLS;
    int filled = !isfinite(f) ? 0 : f <= 0 ? 0 : f >= BAR_CELLS ? BAR_CELLS : (int)f;
    fp_sb_addc(sb, '[');
    fp_sb_addn(sb, FULL_CH, (size_t)filled);
    fp_sb_addn(sb, LIGHT_CH, (size_t)(BAR_CELLS - filled));
    fp_sb_addf(sb, "] %5.1f%%", p);
}

/* Byte length of the first k code points of s. */
static size_t cp_prefix(const char *s, size_t k)
{
    size_t i = 0;
    while (s[i] && k) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        k--;
    }
    return i;
}

/* Pointer to the last k code points of s (Python s[-k:]). */
static const char *cp_suffix(const char *s, size_t k)
{
    size_t n = fp_utf8_len(s);
    if (n <= k)
        return s;
    return s + cp_prefix(s, n - k);
}

static void section(fp_sb *sb, const char *title)
{
    fp_sb_addc(sb, '\n');
    fp_sb_addn(sb, RULE_CH, RULE_WIDTH);
    fp_sb_addf(sb, "\n  %s\n", title);
    fp_sb_addn(sb, RULE_CH, RULE_WIDTH);
    fp_sb_addc(sb, '\n');
}

/* Python str.rstrip(): the whitespace code points of str.isspace(). */
static size_t rstrip_len(const char *s)
{
    size_t n = strlen(s);
    for (;;) {
        if (n == 0)
            return 0;
        unsigned char c = (unsigned char)s[n - 1];
        if (c < 0x80) {
            if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) {
                n--;
                continue;
            }
            return n;
        }
        /* decode the last code point */
        size_t st = n - 1;
        while (st > 0 && ((unsigned char)s[st] & 0xC0) == 0x80)
            st--;
        const unsigned char *u = (const unsigned char *)s + st;
        unsigned cp = 0;
        size_t blen = n - st;
        if (blen == 2 && (u[0] & 0xE0) == 0xC0)
            cp = ((u[0] & 0x1Fu) << 6) | (u[1] & 0x3Fu);
        else if (blen == 3 && (u[0] & 0xF0) == 0xE0)
            cp = ((u[0] & 0x0Fu) << 12) | ((u[1] & 0x3Fu) << 6) | (u[2] & 0x3Fu);
        bool space = cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
                     cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
        if (!space)
            return n;
        n = st;
    }
}

/* Python int() of the text after the last ':' (sign, digits, single '_' between
 * digits, surrounding whitespace). Values are clamped: far beyond any file. */
static bool py_int(const char *s, long long *out)
{
    const long long cap = 1LL << 40;
    while (*s == ' ' || (*s >= 0x09 && *s <= 0x0d))
        s++;
    int sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (!(*s >= '0' && *s <= '9'))
        return false;
    long long v = 0;
    while ((*s >= '0' && *s <= '9') || (*s == '_' && s[1] >= '0' && s[1] <= '9')) {
        if (*s != '_' && v < cap)
            v = v * 10 + (*s - '0');
        s++;
    }
    while (*s == ' ' || (*s >= 0x09 && *s <= 0x0d))
        s++;
    if (*s)
        return false;
    *out = sign * (v > cap ? cap : v);
    return true;
}

const fp_source_file *fp_hs_snippet(const fp_snapshots *snaps, const char *loc, long long ctx,
                                    size_t *lo, size_t *hi, long long *hot)
{
    if (!snaps || !loc)
        return NULL;
    const char *colon = strrchr(loc, ':');
    if (!colon)
        return NULL;
    long long L;
    if (!py_int(colon + 1, &L))
        return NULL;
    size_t plen = (size_t)(colon - loc);
    char *path = malloc(plen + 1);
    if (!path)
        abort();
    memcpy(path, loc, plen);
    path[plen] = '\0';
    const fp_source_file *f = fp_snapshots_find(snaps, path);
    free(path);
    if (!f)
        return NULL;
    long long a = L - ctx - 1, b = L + ctx;
    if (a < 0)
        a = 0;
    if (b > (long long)f->nlines)
        b = (long long)f->nlines;
    if (a >= b)
        return NULL;
    *lo = (size_t)a;
    *hi = (size_t)b;
    *hot = L;
    return f;
}

/* Stalling instructions of a line, stable by stall desc (at most max). */
static size_t line_top_insts(const fp_hotspots *hs, const fp_hs_line *L, size_t *out, size_t max)
{
    size_t n = 0;
    /* insertion into a small sorted array: stable, ties keep code order */
    for (size_t k = 0; k < L->nstalling; k++) {
        size_t id = L->stalling[k];
        int64_t s = hs->inst[id].row->stall;
        size_t pos = n;
        while (pos > 0 && hs->inst[out[pos - 1]].row->stall < s)
            pos--;
        if (pos >= max)
            continue;
        size_t end = n < max ? n : max - 1;
        memmove(out + pos + 1, out + pos, (end - pos) * sizeof *out);
        out[pos] = id;
        if (n < max)
            n++;
    }
    return n;
}

static void render_regs(const fp_hotspots *hs, const fp_hs_regs *r, fp_sb *t)
{
    const fp_arch_limits *a = r->arch;
    const fp_occ_out *o = &r->occ;
    section(t, "Register Pressure & Occupancy");
    fp_sb_addf(t, "  Architecture:   %s (%s)", a->name, a->family);
    if (r->arch_src == FP_ARCH_HEURISTIC)
        fp_sb_addf(t, "  [guessed from opcodes]\n");
    else
        fp_sb_addf(t, "  [%s]\n", r->arch_detail ? r->arch_detail : "--arch");
    fp_sb_addf(t, "  arch_vgpr:      ~%d (ISA scan %d", r->arch_vgpr, hs->isa.arch_vgpr);
    if (r->gfx950_corrected)
        fp_sb_addf(t, "; kernel_trace 2 x VGPR_Count %d = %d combined, gfx950 under-count", r->csv->vgpr,
                   2 * r->csv->vgpr);
    else if (r->csv_arch_vgpr >= 0)
        fp_sb_addf(t, ", kernel_trace %d", r->csv_arch_vgpr);
    fp_sb_adds(t, ")\n");
    if (r->accum_vgpr > 0)
        fp_sb_addf(t, "  accum_vgpr:     %d (%s)\n", r->accum_vgpr,
                   strcmp(r->accum_vgpr_src, "isa") ? "kernel_trace" : "ISA scan");
    else
        fp_sb_adds(t, "  accum_vgpr:     0 (not used)\n");
    fp_sb_addf(t, "  total_vgpr:     %d / %d (combined pool, granule %d) -> %d waves/SIMD\n",
               o->total_vgpr, a->vgpr_pool, a->vgpr_granule, o->vgpr_limit);
    if (o->lds_limit >= 0)
        fp_sb_addf(t, "  LDS:            %d B per workgroup of %d waves / %d B per CU -> %d waves/SIMD\n",
                   r->in.lds_bytes, o->waves_per_wg, a->lds_per_cu, o->lds_limit);
    else
        fp_sb_adds(t, "  LDS:            unknown (no kernel_trace CSV)\n");
    if (o->sgpr_limit >= 0)
        fp_sb_addf(t, "  SGPR:           %d / %d -> %d waves/SIMD\n", r->in.sgpr, a->sgpr_per_simd,
                   o->sgpr_limit);
    else
        fp_sb_adds(t, "  SGPR:           unknown (no kernel_trace CSV)\n");
    fp_sb_addf(t, "  occupancy:      %d waves/SIMD  (bound by %s)\n", o->occupancy,
               fp_occ_limiter_name(o->bound_by));
    if (o->next_occ)
        fp_sb_addf(t, "  -> %d waves requires total_vgpr <= %d%s\n", o->next_occ, o->next_vgpr_target,
                   o->next_needs_more_than_vgpr ? " (and more LDS/SGPR headroom)" : "");
    if (r->csv && r->csv->have)
        fp_sb_addf(t, "  kernel_trace:   %s:%zu (%s)\n", r->csv->path, r->csv->line,
                   r->csv->kernel_name);
    fp_sb_adds(t, "\n  Instruction mix:\n");
    fp_sb_addf(t, "    MFMA: %zu,  buffer_load: %zu,  buffer_store: %zu\n", hs->isa.mfma,
               hs->isa.buffer_load, hs->isa.buffer_store);
    fp_sb_addf(t, "    ds_read: %zu,  ds_write: %zu\n", hs->isa.ds_read, hs->isa.ds_write);
}

static void render_types(const fp_hotspots *hs, fp_sb *t)
{
    char b[32];
    section(t, "Stall Breakdown by Type");
    fp_sb_adds(t, "  ");
    fp_sb_pad_left(t, "Type", 14);
    fp_sb_adds(t, "  ");
    fp_sb_pad_right(t, "Stall", 8);
    fp_sb_adds(t, "  Bar\n  ");
    fp_sb_addn(t, "-", 14);
    fp_sb_adds(t, "  ");
    fp_sb_addn(t, "-", 8);
    fp_sb_adds(t, "  ");
    fp_sb_addn(t, "-", 38);
    fp_sb_addc(t, '\n');
    for (size_t k = 0; k < hs->n_types; k++) {
        fp_sb_adds(t, "  ");
        fp_sb_pad_left(t, fp_stall_type_name(hs->by_type[k].type), 14);
        fp_sb_adds(t, "  ");
        fp_sb_pad_right(t, fmt_cycles(hs->by_type[k].stall, b, sizeof b), 8);
        fp_sb_adds(t, "  ");
        add_bar(t, fp_hs_pct(hs->by_type[k].stall, hs->total_stall));
        fp_sb_addc(t, '\n');
    }
}

static void rule_row(fp_sb *t, const int *w, size_t n)
{
    fp_sb_adds(t, "  ");
    for (size_t i = 0; i < n; i++) {
        if (i)
            fp_sb_adds(t, "  ");
        fp_sb_addn(t, "-", (size_t)w[i]);
    }
    fp_sb_addc(t, '\n');
}

static void render_detail(const fp_hotspots *hs, const fp_hs_line *L, const fp_snapshots *snaps,
                          const fp_hs_opts *o, fp_sb *t)
{
    char b[32];
    fp_sb_addf(t, "\n    %s %s  (stall=%s, %.0f%% stall rate)\n", DASH2, L->loc,
               fmt_cycles(L->stall, b, sizeof b), fp_hs_pct(L->stall, L->cycles));
    size_t lo, hi;
    long long hot;
    const fp_source_file *f = fp_hs_snippet(snaps, L->loc, o->context, &lo, &hi, &hot);
    if (f) {
        fp_sb_adds(t, "    Source:\n");
        for (size_t i = lo; i < hi; i++) {
            const char *text = f->lines[i];
            fp_sb_addf(t, "      %s %4zu %s ", (long long)(i + 1) == hot ? ">>>" : "   ", i + 1, VBAR);
            fp_sb_add(t, text, rstrip_len(text));
            fp_sb_addc(t, '\n');
        }
    }
    fp_sb_adds(t, "    Stalling instructions:\n");
    size_t top[DETAIL_MAX_INSTS];
    size_t n = line_top_insts(hs, L, top, DETAIL_MAX_INSTS);
    for (size_t k = 0; k < n; k++) {
        const fp_hs_inst *in = &hs->inst[top[k]];
        fp_sb_adds(t, "      stall=");
        fp_sb_pad_right(t, fmt_cycles(in->row->stall, b, sizeof b), 7);
        fp_sb_adds(t, "  type=");
        fp_sb_pad_left(t, fp_stall_type_name(in->type), 12);
        fp_sb_addf(t, "  %s\n", in->row->isa);
    }
}

static void render_src(const fp_hotspots *hs, const fp_snapshots *snaps, const fp_hs_opts *o,
                       fp_sb *t)
{
    char b[32], title[128];
    snprintf(title, sizeof title, "Top-%lld Hotspot Source Lines  (stall cycles aggregated)", o->topk);
    section(t, title);
    fp_sb_adds(t, "  ");
    fp_sb_pad_right(t, "#", 3);
    fp_sb_adds(t, "  ");
    fp_sb_pad_right(t, "Stall", 8);
    fp_sb_adds(t, "  ");
    fp_sb_pad_right(t, "%Total", 7);
    fp_sb_adds(t, "  ");
    fp_sb_pad_left(t, "StallBar", 38);
    fp_sb_adds(t, "  ");
    fp_sb_pad_left(t, "DomType", 12);
    fp_sb_adds(t, "  Source\n");
    static const int w[] = {3, 8, 7, 38, 12, 40};
    rule_row(t, w, 6);
    size_t limit = (size_t)o->topk < hs->nlines ? (size_t)o->topk : hs->nlines;
    for (size_t i = 0; i < limit; i++) {
        const fp_hs_line *L = &hs->lines[hs->line_rank[i]];
        if (L->stall == 0)
            break;
        fp_sb_addf(t, "  %3zu  ", i + 1);
        fp_sb_pad_right(t, fmt_cycles(L->stall, b, sizeof b), 8);
        fp_sb_addf(t, "  %6.2f%%  ", fp_hs_pct(L->stall, hs->total_stall));
        fp_sb bar;
        fp_sb_init(&bar);
        add_bar(&bar, fp_hs_pct(L->stall, L->cycles));
        fp_sb_pad_left(t, bar.buf, 38);
        fp_sb_free(&bar);
        fp_sb_adds(t, "  ");
        fp_sb_pad_left(t, fp_stall_type_name(L->dominant), 12);
        fp_sb_addf(t, "  %s\n", cp_suffix(L->loc, SRC_TABLE_SRC_CHARS));
    }
    if (!o->detail)
        return;
    size_t nd = o->topk < DETAIL_MAX_LINES ? (size_t)o->topk : DETAIL_MAX_LINES;
    for (size_t i = 0; i < nd && i < hs->nlines; i++) {
        const fp_hs_line *L = &hs->lines[hs->line_rank[i]];
        if (L->stall <= 0)
            continue;
        render_detail(hs, L, snaps, o, t);
    }
}

static void render_asm(const fp_hotspots *hs, const fp_hs_opts *o, fp_sb *t)
{
    char b[32], title[128];
    snprintf(title, sizeof title, "Top-%lld Hotspot Instructions  (by stall cycles)", o->topk);
    section(t, title);
    fp_sb_adds(t, "  ");
    fp_sb_pad_right(t, "#", 3);
    fp_sb_adds(t, "  ");
    fp_sb_pad_right(t, "Stall", 8);
    fp_sb_adds(t, "  ");
    fp_sb_pad_right(t, "%Total", 7);
    fp_sb_adds(t, "  ");
    fp_sb_pad_left(t, "Type", 12);
    fp_sb_adds(t, "  ");
    fp_sb_pad_left(t, "ASM", 48);
    fp_sb_adds(t, "  Source\n");
    static const int w[] = {3, 8, 7, 12, 48, 30};
    rule_row(t, w, 6);
    size_t limit = (size_t)o->topk < hs->n_stalling ? (size_t)o->topk : hs->n_stalling;
    fp_sb cut;
    fp_sb_init(&cut);
    for (size_t i = 0; i < limit; i++) {
        const fp_hs_inst *in = &hs->inst[hs->inst_rank[i]];
        fp_sb_addf(t, "  %3zu  ", i + 1);
        fp_sb_pad_right(t, fmt_cycles(in->row->stall, b, sizeof b), 8);
        fp_sb_addf(t, "  %6.2f%%  ", fp_hs_pct(in->row->stall, hs->total_stall));
        fp_sb_pad_left(t, fp_stall_type_name(in->type), 12);
        fp_sb_adds(t, "  ");
        fp_sb_reset(&cut);
        if (fp_utf8_len(in->row->isa) > ASM_TABLE_ASM_CHARS) {
            fp_sb_add(&cut, in->row->isa, cp_prefix(in->row->isa, ASM_TABLE_ASM_CHARS - 1));
            fp_sb_adds(&cut, ELLIPSIS);
        } else {
            fp_sb_adds(&cut, in->row->isa);
        }
        fp_sb_pad_left(t, cut.buf, ASM_TABLE_ASM_CHARS);
        fp_sb_addf(t, "  %s\n", cp_suffix(in->loc, ASM_TABLE_SRC_CHARS));
    }
    fp_sb_free(&cut);
}

void fp_hotspots_render_text(const fp_hotspots *hs, const fp_hs_regs *regs,
                             const fp_snapshots *snaps, const fp_hs_opts *o, fp_sb *t)
{
    char b[32];
    fp_sb_addf(t, "\nLoading: %s\n\n", o->loading_arg);
    fp_sb_adds(t, "  ");
    fp_sb_pad_left(t, "Kernel:", 15);
    fp_sb_addf(t, "%s\n  ", fp_path_base(o->loading_arg));
    fp_sb_pad_left(t, "Instructions:", 15);
    add_thousands(t, (long long)hs->ninst);
    fp_sb_adds(t, "\n  ");
    fp_sb_pad_left(t, "Total cycles:", 15);
    fp_sb_addf(t, "%s\n  ", fmt_cycles(hs->total_cycles, b, sizeof b));
    fp_sb_pad_left(t, "Total stalls:", 15);
    fp_sb_adds(t, fmt_cycles(hs->total_stall, b, sizeof b));
    /* The analyzer divides by total_cycles unguarded (ZeroDivisionError); a
     * kernel with zero total cycles is reported as such instead. */
    if (hs->total_cycles != 0)
        fp_sb_addf(t, "  (%.1f%% of total cycles)\n", fp_hs_pct(hs->total_stall, hs->total_cycles));
    else
        fp_sb_adds(t, "  (n/a: zero total cycles)\n");
    render_regs(hs, regs, t);
    render_types(hs, t);
    if (o->show_src)
        render_src(hs, snaps, o, t);
    if (o->show_asm)
        render_asm(hs, o, t);
    fp_sb_addc(t, '\n');
}

/* ---- the data (hotspots_doc.h; written by its table in src/model) ---- */

static char *dup(const char *s) { return fp_model_strdup(s); }

static fp_hsd_snippet *snippet_doc(const fp_snapshots *snaps, const char *loc, long long ctx)
{
    size_t lo, hi;
    long long hot;
    const fp_source_file *f = fp_hs_snippet(snaps, loc, ctx, &lo, &hi, &hot);
    if (!f)
        return NULL;
    fp_hsd_snippet *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->file = dup(f->local);
    s->hot_line = hot;
    for (size_t i = lo; i < hi; i++) {
        fp_hsd_snip_line *l = fp_model_push((void **)&s->lines, &s->nlines, sizeof *l);
        l->line = (int64_t)(i + 1);
        l->text = strndup(f->lines[i], rstrip_len(f->lines[i]));
        if (!l->text)
            abort();
        l->hot = (long long)(i + 1) == hot;
    }
    return s;
}

static void inst_doc(const fp_hotspots *hs, size_t id, size_t rank, fp_hsd_inst *j)
{
    const fp_hs_inst *in = &hs->inst[id];
    j->rank = rank ? fp_optd_of((double)rank) : fp_optd_none();
    j->pc_index = in->row->index;
    j->stall = in->row->stall;
    j->cycles = in->row->latency;
    j->pct_total = fp_hs_pct(in->row->stall, hs->total_stall);
    j->type = dup(fp_stall_type_name(in->type));
    j->asm_text = dup(in->row->isa);
    j->source_loc = dup(in->loc);
}

static fp_optd opt_count(int v) { return v >= 0 ? fp_optd_of(v) : fp_optd_none(); }

static void regs_doc(const fp_hotspots *hs, const fp_hs_regs *r, fp_hsd_regs *j)
{
    static const char *const arch_src[] = {"flag", "agent_info", "heuristic"};
    const fp_occ_out *o = &r->occ;
    j->arch = dup(r->arch->name);
    j->family = dup(r->arch->family);
    j->arch_source = dup(arch_src[r->arch_src]);
    j->arch_detail = dup(r->arch_detail);
    j->opcode_heuristic = dup(r->heuristic);
    j->isa_max_v = hs->isa.max_v;
    j->isa_max_a = hs->isa.max_a;
    j->isa_arch_vgpr = hs->isa.arch_vgpr;
    j->isa_accum_vgpr = hs->isa.accum_vgpr;
    bool csv = r->csv && r->csv->have;
    if (csv) {
        fp_hsd_csv *c = calloc(1, sizeof *c);
        if (!c)
            abort();
        c->path = dup(r->csv->path);
        c->line = (int64_t)r->csv->line;
        c->kernel_name = dup(r->csv->kernel_name);
        c->rows_matched = (int64_t)r->csv->matches;
        c->vgpr = opt_count(r->csv->vgpr);
        c->accum_vgpr = opt_count(r->csv->accum);
        c->sgpr = opt_count(r->csv->sgpr);
        c->lds = opt_count(r->csv->lds);
        c->workgroup_size = opt_count(r->csv->wg);
        c->gfx950_undercount_corrected = r->gfx950_corrected;
        j->kernel_trace = c;
    }
    j->arch_vgpr = (fp_hsd_valsrc){r->arch_vgpr, dup(r->arch_vgpr_src)};
    j->accum_vgpr = (fp_hsd_valsrc){r->accum_vgpr, dup(r->accum_vgpr_src)};
    j->total_vgpr = o->total_vgpr;
    j->vgpr_pool = r->arch->vgpr_pool;
    j->lds = (fp_hsd_res){r->in.lds_bytes, r->arch->lds_per_cu, dup(csv ? "kernel_trace" : NULL)};
    j->sgpr = (fp_hsd_res){r->in.sgpr, r->arch->sgpr_per_simd, dup(csv ? "kernel_trace" : NULL)};
    j->workgroup_size = r->in.wg_size;
    j->waves_per_workgroup = o->waves_per_wg;
    j->limit_vgpr = o->vgpr_limit;
    j->limit_lds = opt_count(o->lds_limit);
    j->limit_sgpr = opt_count(o->sgpr_limit);
    j->limit_hardware = r->arch->max_waves_per_simd;
    j->occupancy = o->occupancy;
    j->bound_by = dup(fp_occ_limiter_name(o->bound_by));
    if (o->next_occ) {
        j->next = calloc(1, sizeof *j->next);
        if (!j->next)
            abort();
        *j->next = (fp_hsd_next){o->next_occ, o->next_vgpr_target, o->next_needs_more_than_vgpr};
    }
    j->mix_mfma = (int64_t)hs->isa.mfma;
    j->mix_buffer_load = (int64_t)hs->isa.buffer_load;
    j->mix_buffer_store = (int64_t)hs->isa.buffer_store;
    j->mix_ds_read = (int64_t)hs->isa.ds_read;
    j->mix_ds_write = (int64_t)hs->isa.ds_write;
}

static void line_doc(const fp_hotspots *hs, const fp_hs_line *L, size_t rank, const fp_snapshots *snaps,
                     const fp_hs_opts *o, fp_hsd_line *e)
{
    size_t topk = (size_t)o->topk;
    e->rank = (int64_t)rank;
    e->source_loc = dup(L->loc);
    e->stall = L->stall;
    e->cycles = L->cycles;
    e->pct_total = fp_hs_pct(L->stall, hs->total_stall);
    e->stall_pct = fp_hs_pct(L->stall, L->cycles);
    e->dominant_type = dup(fp_stall_type_name(L->dominant));
    /* The line's stalling instructions, by stall: bounded by topk too. */
    size_t cap = L->nstalling < topk ? L->nstalling : topk;
    size_t *top = malloc((cap ? cap : 1) * sizeof *top);
    if (!top)
        abort();
    size_t n = line_top_insts(hs, L, top, cap);
    e->stalling_total = (int64_t)L->nstalling;
    for (size_t k = 0; k < n; k++)
        *(double *)fp_model_push((void **)&e->stalling_pc_index, &e->nstalling_pc_index, sizeof(double)) =
            (double)hs->inst[top[k]].row->index;
    if (o->detail) {
        e->has_detail = true;
        for (size_t k = 0; k < n && k < DETAIL_MAX_INSTS; k++)
            inst_doc(hs, top[k], 0,
                     fp_model_push((void **)&e->stalling_instructions, &e->nstalling_instructions, sizeof(fp_hsd_inst)));
        e->snippet = snippet_doc(snaps, L->loc, o->context);
    }
    free(top);
}

void fp_hotspots_doc_fill(const fp_hotspots *hs, const fp_hs_regs *regs, const fp_snapshots *snaps,
                          const fp_hs_opts *o, fp_hotspots_doc *d)
{
    memset(d, 0, sizeof *d);
    d->kernel = dup(fp_path_base(o->loading_arg));
    d->instructions = (int64_t)hs->ninst;
    d->total_cycles = hs->total_cycles;
    d->total_stall = hs->total_stall;
    d->stall_pct = hs->total_cycles != 0 ? fp_optd_of(fp_hs_pct(hs->total_stall, hs->total_cycles)) : fp_optd_none();
    for (size_t k = 0; k < hs->n_types; k++) {
        fp_hsd_type *e = fp_model_push((void **)&d->stall_by_type, &d->nstall_by_type, sizeof *e);
        e->type = dup(fp_stall_type_name(hs->by_type[k].type));
        e->stall = hs->by_type[k].stall;
        e->pct = fp_hs_pct(hs->by_type[k].stall, hs->total_stall);
    }
    size_t topk = (size_t)o->topk;
    if (o->show_src) {
        d->has_src = true;
        size_t limit = topk < hs->n_stalling_lines ? topk : hs->n_stalling_lines;
        for (size_t i = 0; i < limit; i++)
            line_doc(hs, &hs->lines[hs->line_rank[i]], i + 1, snaps, o,
                     fp_model_push((void **)&d->source_lines, &d->nsource_lines, sizeof(fp_hsd_line)));
        d->source_lines_total = (int64_t)hs->n_stalling_lines;
    }
    if (o->show_asm) {
        d->has_asm = true;
        size_t limit = topk < hs->n_stalling ? topk : hs->n_stalling;
        for (size_t i = 0; i < limit; i++)
            inst_doc(hs, hs->inst_rank[i], i + 1,
                     fp_model_push((void **)&d->instructions_ranked, &d->ninstructions_ranked, sizeof(fp_hsd_inst)));
        d->stalling_instructions_total = (int64_t)hs->n_stalling;
    }
    regs_doc(hs, regs, &d->registers);
}
