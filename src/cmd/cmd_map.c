/*
 * cmd_map.c - `flyprof map --bundle DIR`: ISA <-> source both ways, snippets,
 * and a flamegraph (docs/commands/map.md).
 *
 * Story: resolve the dispatch dir (dispatch.c) -> code.json + snapshots ->
 * select (--code-line N | --source-line FILE:LINE exact | top by stall) ->
 * mappings with snippets -> per-file rollup -> folded stacks + SVG ->
 * map.json, flamegraph.folded, flamegraph.svg (atomic) in the bundle or --out-dir.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flyprof/bundle_path.h"
#include "flyprof/att.h"
#include "flyprof/bubbles.h"
#include "flyprof/bundle.h"
#include "flyprof/dispatch.h"
#include "flyprof/flamegraph.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/map.h"
#include "flyprof/map_doc.h"
#include "flyprof/satmath.h"
#include "flyprof/taxonomy.h"

typedef struct map_args {
    const char *tag;
    long long dispatch;
    long long code_line;
    const char *source_line;
    long long context;
    long long limit;
    const char *weight;
    const char *out_dir;
} map_args;

static const char *const weight_choices[] = {"exposed", "stall", "latency", NULL};

static const fp_opt map_opts[] = {
    {"tag", 0, FP_OPT_STR, offsetof(map_args, tag), "TAG", "capture tag under att/ (small, big)", NULL, NULL, 0, 0},
    {"dispatch", 0, FP_OPT_INT, offsetof(map_args, dispatch), "N", "use ui_output_agent_*_dispatch_<N>", "-1",
     NULL, 0, 100000000000LL},
    {"code-line", 0, FP_OPT_INT, offsetof(map_args, code_line), "N",
     "the instruction with code.json LineNumber N -> its source", "-1", NULL, 0, 100000000000LL},
    {"source-line", 0, FP_OPT_STR, offsetof(map_args, source_line), "FILE:LINE",
     "the instructions of exactly this source line (FILE: exact path, else a unique suffix)", NULL, NULL, 0, 0},
    {"context", 0, FP_OPT_INT, offsetof(map_args, context), "N", "snippet lines on each side", "2", NULL, 0, 1000},
    {"limit", 'n', FP_OPT_INT, offsetof(map_args, limit), "N",
     "mappings in the default selection (top by stall) and in the envelope (0 = all)", "25", NULL, 0, 100000000},
    {"weight", 0, FP_OPT_CHOICE, offsetof(map_args, weight), "W",
     "flamegraph weight: exposed stall (no other wave of the SIMD issuing), stall or latency cycles", "exposed",
     weight_choices, 0, 0},
    {"out-dir", 'o', FP_OPT_STR, offsetof(map_args, out_dir), "DIR",
     "write map.json, flamegraph.folded and flamegraph.svg here instead of the bundle", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static bool counted(const fp_inst *r) { return r->index_ok && r->isa[0] != ';'; }

typedef struct sel {
    size_t *rows;
    size_t n;
    const char *kind;
    const char *file_match; /* "exact" | "suffix" | NULL */
    const char *matched_file;
    int *frame; /* matched frame per selected row (-1 n/a) */
} sel;

static void sel_add(sel *s, size_t row, int frame)
{
    s->rows = realloc(s->rows, (s->n + 1) * sizeof *s->rows);
    s->frame = realloc(s->frame, (s->n + 1) * sizeof *s->frame);
    if (!s->rows || !s->frame)
        abort();
    s->rows[s->n] = row;
    s->frame[s->n] = frame;
    s->n++;
}

typedef struct skey {
    int64_t stall;
    size_t row;
} skey;

static int cmp_skey(const void *a, const void *b)
{
    const skey *x = a, *y = b;
    if (x->stall != y->stall)
        return x->stall > y->stall ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The source frames of every code row, and the file of each frame in row order
 * (repeats kept: fp_match_file and the error lists see them as the rows do). */
typedef struct row_frames {
    size_t nrows;
    fp_frame **fr;
    size_t *nfr;
    const char **files; /* point into fr */
    size_t nf;
} row_frames;

static void row_frames_load(const fp_code *code, row_frames *rf)
{
    *rf = (row_frames){.nrows = code->n};
    rf->fr = calloc(code->n + 1, sizeof *rf->fr);
    rf->nfr = calloc(code->n + 1, sizeof *rf->nfr);
    if (!rf->fr || !rf->nfr)
        abort();
    for (size_t i = 0; i < code->n; i++) {
        rf->nfr[i] = fp_source_frames(code->rows[i].source, &rf->fr[i]);
        for (size_t k = 0; k < rf->nfr[i]; k++) {
            rf->files = realloc(rf->files, (rf->nf + 1) * sizeof *rf->files);
            if (!rf->files)
                abort();
            rf->files[rf->nf++] = rf->fr[i][k].file;
        }
    }
}

static void row_frames_free(row_frames *rf)
{
    for (size_t i = 0; i < rf->nrows; i++)
        fp_frames_free(rf->fr[i], rf->nfr[i]);
    free(rf->fr);
    free(rf->nfr);
    free(rf->files);
}

/* The file of --source-line matched no file or several: the error lists the
 * files to choose from (all of them, or the ones the suffix matches). */
static int file_choice_error(const row_frames *rf, const char *want, fp_file_match m, fp_err *err)
{
    cJSON *av = cJSON_CreateArray();
    for (size_t i = 0; i < rf->nf; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = !strcmp(rf->files[i], rf->files[j]);
        if (!dup && (m == FP_FM_NONE || fp_path_suffix_match(rf->files[i], want)))
            cJSON_AddItemToArray(av, cJSON_CreateString(rf->files[i]));
    }
    if (m == FP_FM_NONE) {
        fp_err_set(err, FP_NO_ARTIFACT, "no instruction maps to a file matching '%s'", want);
        fp_err_help(err, "use one of error.available (exact path or a unique suffix)");
        fp_err_extra(err, "available", av);
    } else {
        fp_err_set(err, FP_BAD_ARGS, "'%s' matches several files", want);
        fp_err_help(err, "give a longer suffix: one of error.candidates");
        fp_err_extra(err, "candidates", av);
    }
    return -1;
}

/* No counted instruction maps to file:line: the error lists the lines of the
 * file that have instructions (sorted, distinct). */
static int line_choice_error(const row_frames *rf, const char *file, long line, fp_err *err)
{
    long *lines = NULL;
    size_t nl = 0;
    for (size_t i = 0; i < rf->nrows; i++)
        for (size_t k = 0; k < rf->nfr[i]; k++)
            if (!strcmp(rf->fr[i][k].file, file) && rf->fr[i][k].line >= 0) {
                lines = realloc(lines, (nl + 1) * sizeof *lines);
                if (!lines)
                    abort();
                lines[nl++] = rf->fr[i][k].line;
            }
    qsort(lines, nl, sizeof *lines, cmp_long);
    cJSON *av = cJSON_CreateArray();
    for (size_t i = 0; i < nl; i++)
        if (i == 0 || lines[i] != lines[i - 1])
            cJSON_AddItemToArray(av, fp_json_int(lines[i]));
    free(lines);
    fp_err_set(err, FP_NO_ARTIFACT, "no instruction maps to %s:%ld", file, line);
    fp_err_help(err, "lines of that file with instructions are in error.available");
    fp_err_extra(err, "available", av);
    return -1;
}

/* --source-line FILE:LINE: the counted rows with a frame at that line of the
 * one file FILE names (exact path or unique suffix), each with its frame. */
static int select_source_line(const fp_code *code, const char *spec, sel *s, char **want_file, fp_err *err)
{
    long line;
    if (fp_parse_file_line(spec, want_file, &line, err) != 0)
        return -1;
    row_frames rf;
    row_frames_load(code, &rf);
    const char *which = NULL;
    fp_file_match m = fp_match_file(*want_file, rf.files, rf.nf, &which);
    int rc = -1;
    if (m == FP_FM_NONE || m == FP_FM_AMBIGUOUS) {
        rc = file_choice_error(&rf, *want_file, m, err);
        goto done;
    }
    s->file_match = m == FP_FM_EXACT ? "exact" : "suffix";
    for (size_t i = 0; i < code->n; i++) {
        if (!counted(&code->rows[i]))
            continue;
        for (size_t k = 0; k < rf.nfr[i]; k++)
            if (rf.fr[i][k].line == line && !strcmp(rf.fr[i][k].file, which)) {
                sel_add(s, i, (int)k);
                break;
            }
    }
    s->matched_file = NULL;
    if (s->n == 0) {
        rc = line_choice_error(&rf, which, line, err);
        goto done;
    }
    /* keep the matched path: it lives in rf's frames, copy it */
    *want_file = realloc(*want_file, strlen(which) + 1);
    strcpy(*want_file, which);
    s->matched_file = *want_file;
    rc = 0;
done:
    row_frames_free(&rf);
    return rc;
}

/* One taxonomy everywhere: a wait naming several counters (s_waitcnt vmcnt(0)
 * lgkmcnt(0)) gets the class bubbles/report give it, the dominant class of
 * what the traced waves waited on (fp_bubbles_analyze); every other
 * instruction its static class. The trace is read when such a wait exists or
 * when the flamegraph is weighted by exposed stall (*exposed: per code row,
 * NULL when the trace was not read or could not be). Returns a class per code
 * row (caller frees both). */
static void quiet_warn(void *user, const char *msg) { (void)user, (void)msg; }

static fp_class *row_classes(fp_ctx *ctx, const char *dir, const fp_code *code, bool want_exposed, int64_t **exposed)
{
    fp_class *cls = malloc((code->n ? code->n : 1) * sizeof *cls);
    if (!cls)
        abort();
    *exposed = NULL;
    bool combined = false;
    for (size_t i = 0; i < code->n; i++) {
        cls[i] = fp_classify(code->rows[i].isa);
        combined = combined || (counted(&code->rows[i]) && fp_class_is_combined_wait(code->rows[i].isa));
    }
    if (!combined && !want_exposed)
        return cls;
    fp_bubbles b;
    fp_err e = {0};
    memset(&b, 0, sizeof b);
    if (fp_bubbles_analyze(dir, FP_RANK_EXPOSED, &b, quiet_warn, NULL, &e) == 0 && b.code.n == code->n) {
        *exposed = malloc((code->n ? code->n : 1) * sizeof **exposed);
        if (!*exposed)
            abort();
        for (size_t i = 0; i < code->n; i++) {
            (*exposed)[i] = b.insts[i].exposed;
            if (cls[i] == FP_CL_WAITCNT)
                cls[i] = b.insts[i].cls;
        }
    } else {
        fp_warn(ctx, "the trace could not be analysed (%s): combined waits keep the class 'waitcnt'%s",
                e.message[0] ? e.message : "code rows differ", want_exposed ? ", the flamegraph is weighted by stall" : "");
    }
    fp_bubbles_free(&b);
    fp_err_clear(&e);
    return cls;
}

static void mapping_fill(fp_map_mapping *o, const fp_code *code, const fp_class *cls, size_t row, int frame,
                         const fp_snapshots *snaps, long context, bool *unmapped)
{
    const fp_inst *r = &code->rows[row];
    o->code_line = r->index;
    o->isa = fp_model_strdup(r->isa);
    o->addr = fp_model_printf("0x%llx", (unsigned long long)r->vaddr);
    o->cls = fp_model_strdup(fp_class_name(cls[row]));
    o->source = fp_model_strdup(r->source[0] ? r->source : "<unmapped>");
    fp_frame *fr;
    size_t nf = fp_source_frames(r->source, &fr);
    for (size_t k = 0; k < nf; k++) {
        fp_map_frame *e = fp_model_push((void **)&o->frames, &o->nframes, sizeof *e);
        e->file = fp_model_strdup(fr[k].file);
        e->line = fr[k].line >= 0 ? fp_optd_of((double)fr[k].line) : fp_optd_none();
    }
    o->matched_frame = frame >= 0 ? fp_optd_of(frame) : fp_optd_none();
    o->hit = r->hit;
    o->latency = r->latency;
    o->stall = r->stall;
    int f = frame >= 0 ? frame : 0;
    o->snippet = nf ? fp_snippet(snaps, fr[f].file, fr[f].line, context) : NULL;
    const char *conf = !nf ? "none" : !o->snippet ? "source_only" : !strcmp(o->snippet->match, "exact") ? "exact" : "suffix";
    o->confidence = fp_model_strdup(conf);
    *unmapped = !o->snippet;
    fp_frames_free(fr, nf);
}

static int write_text(const char *dir, fp_artifact id, const fp_sb *sb, fp_err *err)
{
    char *p = fp_bundle_path(dir, id);
    int rc = fp_write_atomic(p, sb->buf, sb->len, err);
    free(p);
    return rc;
}

/* --code-line N: the counted instructions with that index */
static int select_code_line(const fp_code *code, long long line, sel *s, fp_err *err)
{
    s->kind = "code-line";
    for (size_t i = 0; i < code->n; i++)
        if (counted(&code->rows[i]) && code->rows[i].index == line)
            sel_add(s, i, -1);
    if (s->n == 0) {
        fp_err_set(err, FP_NO_ARTIFACT, "no instruction with code line %lld", line);
        cJSON *av = cJSON_CreateObject();
        int64_t lo = INT64_MAX, hi = -1;
        for (size_t i = 0; i < code->n; i++)
            if (counted(&code->rows[i])) {
                lo = code->rows[i].index < lo ? code->rows[i].index : lo;
                hi = code->rows[i].index > hi ? code->rows[i].index : hi;
            }
        fp_json_add_int(av, "min", hi < 0 ? 0 : lo);
        fp_json_add_int(av, "max", hi < 0 ? 0 : hi);
        fp_err_help(err, "code lines run from error.available.min to error.available.max");
        fp_err_extra(err, "available", av);
        return -1;
    }
    return 0;
}

/* the default: the --limit instructions that stall most */
static void select_top(fp_ctx *ctx, const fp_code *code, long long limit, sel *s)
{
    s->kind = "top";
    skey *k = malloc((code->n + 1) * sizeof *k);
    if (!k)
        abort();
    size_t nk = 0;
    for (size_t i = 0; i < code->n; i++)
        if (counted(&code->rows[i]) && code->rows[i].stall > 0)
            k[nk++] = (skey){code->rows[i].stall, i};
    qsort(k, nk, sizeof *k, cmp_skey);
    for (size_t i = 0; i < nk && (limit == 0 || i < (size_t)limit); i++)
        sel_add(s, k[i].row, -1);
    if (nk > s->n)
        fp_truncated(ctx, "mappings", s->n, nk);
    free(k);
}

/* map.json's head: which dispatch, which selection */
static void map_head(fp_map_doc *doc, const map_args *a, const fp_dispatch_ref *ref, const fp_code *code, const sel *s)
{
    doc->schema = 1;
    fp_map_dispatch *d = &doc->dispatch;
    d->dir = fp_path_abs(ref->dir); /* never cwd-relative; bundle-relative in map.json */
    d->name = fp_model_strdup(ref->name);
    d->symbol = fp_model_strdup(code->symbol);
    d->tag = fp_model_strdup(ref->tag);
    d->dispatch = ref->number >= 0 ? fp_optd_of((double)ref->number) : fp_optd_none();
    d->resolved_by = fp_model_strdup(ref->how);
    fp_map_selection *sj = &doc->selection;
    sj->kind = fp_model_strdup(s->kind);
    if (a->code_line >= 0)
        sj->query = (fp_numstr){.is_num = true, .num = (double)a->code_line};
    else
        sj->query.str = fp_model_strdup(a->source_line);
    sj->file_match = fp_model_strdup(s->file_match);
    sj->matched_file = fp_model_strdup(s->matched_file);
    sj->count = (int64_t)s->n;
}

/* whole-kernel mapping coverage, the per-file rollup (innermost file) and the
 * folded stacks of the flamegraph; *lat, *lat_mapped: total and source-mapped latency */
static void rollup(fp_ctx *ctx, fp_map_doc *doc, const char *weight, const fp_code *code, const fp_class *cls,
                   const int64_t *exposed, fp_folded *fo, fp_sb *tmp, int64_t *lat_out, int64_t *lat_mapped_out)
{
    /* whole-kernel mapping coverage and the per-file rollup (innermost file) */
    int64_t lat = 0, lat_mapped = 0;
    bool ovf = false; /* hostile code->json cells saturate instead of wrapping */
    typedef struct fr_agg { char *file; int64_t latency, stall; size_t n; } fr_agg;
    fr_agg *fa = NULL;
    size_t nfa = 0;
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!counted(r))
            continue;
        lat = fp_sat_add(lat, r->latency, &ovf);
        fp_frame *fr;
        size_t nf = fp_source_frames(r->source, &fr);
        const char *file = nf ? fr[0].file : "<unmapped>";
        if (nf)
            lat_mapped = fp_sat_add(lat_mapped, r->latency, &ovf);
        size_t j = 0;
        while (j < nfa && strcmp(fa[j].file, file))
            j++;
        if (j == nfa) {
            fa = realloc(fa, (nfa + 1) * sizeof *fa);
            if (!fa)
                abort();
            fa[nfa++] = (fr_agg){strdup(file), 0, 0, 0};
        }
        fa[j].latency = fp_sat_add(fa[j].latency, r->latency, &ovf);
        fa[j].stall = fp_sat_add(fa[j].stall, r->stall, &ovf);
        fa[j].n++;
        fp_frames_free(fr, nf);
        int64_t w = !strcmp(weight, "latency") ? r->latency : !strcmp(weight, "exposed") ? exposed[i] : r->stall;
        fp_flame_add_source(fo, r->source, fp_class_name(cls[i]), w, tmp);
    }
    if (ovf)
        fp_warn(ctx, "code->json cycle counts overflow 64-bit sums: file totals saturated");
    doc->src_mapped_pct = lat ? fp_round(100.0 * (double)lat_mapped / (double)lat, 2) : 0.0;
    doc->unmapped_latency_pct = lat ? fp_round(100.0 * (double)(lat - lat_mapped) / (double)lat, 2) : 0.0;
    /* files by latency desc, ties first-seen */
    for (size_t i = 1; i < nfa; i++)
        for (size_t j = i; j > 0 && fa[j - 1].latency < fa[j].latency; j--) {
            fr_agg t = fa[j];
            fa[j] = fa[j - 1];
            fa[j - 1] = t;
        }
    for (size_t i = 0; i < nfa; i++) {
        fp_map_file *e = fp_model_push((void **)&doc->files, &doc->nfiles, sizeof *e);
        e->file = fa[i].file; /* owned by doc from here on */
        e->instructions = (int64_t)fa[i].n;
        e->latency = fa[i].latency;
        e->stall = fa[i].stall;
    }
    free(fa);
    *lat_out = lat;
    *lat_mapped_out = lat_mapped;
}

/* the flamegraph: folded text and SVG, and its map.json entry */
static void flamegraph(fp_map_doc *doc, const char *weight, const fp_code *code, const fp_dispatch_ref *ref,
                         fp_folded *fo, fp_sb *folded, fp_sb *svg)
{
    fp_folded_finish(fo);
    fp_folded_write(fo, folded);
    const char *hot[FP_CL_COUNT + 1];
    size_t nh = 0;
    for (int c = 0; c < FP_CL_COUNT; c++)
        if (fp_class_is_bubble((fp_class)c))
            hot[nh++] = fp_class_name((fp_class)c);
    hot[nh] = NULL;
    char title[512];
    snprintf(title, sizeof title, "%s - %s cycles by source line and class", code->symbol ? code->symbol : ref->name,
             weight);
    char *root = fp_flame_source_root(fo);
    fp_flame_opts o = {title, "cycles", hot, 1200, root, true};
    fp_flame_svg(fo, &o, svg);
    free(root);
    fp_map_flamegraph *fg = &doc->flamegraph;
    fg->weight = fp_model_strdup(weight);
    fg->stacks = (int64_t)fo->n;
    fg->order = fp_model_strdup("outermost call site first, then inlined frames, the instruction class as leaf");
}

/* flamegraph.folded, flamegraph.svg and map.json into out_dir (NULL: a dispatch
 * dir as --bundle, nothing written and the paths are null) */
static int write_map(fp_ctx *ctx, const char *out_dir, fp_map_doc *doc, const fp_sb *folded, const fp_sb *svg,
                     fp_err *err)
{
    if (!out_dir)
        return 0;
    char *pf = fp_bundle_path(out_dir, FP_ART_FLAME_FOLDED), *ps = fp_bundle_path(out_dir, FP_ART_FLAME_SVG),
         *pm = fp_bundle_path(out_dir, FP_ART_MAP);
    doc->flamegraph.folded = fp_path_abs(pf);
    doc->flamegraph.svg = fp_path_abs(ps);
    doc->artifact = fp_path_abs(pm);
    free(pf), free(ps), free(pm);
    if (write_text(out_dir, FP_ART_FLAME_FOLDED, folded, err) != 0 ||
        write_text(out_dir, FP_ART_FLAME_SVG, svg, err) != 0) {
        fp_err_help(err, "the bundle must be writable (or pass --out-dir DIR)");
        return -1;
    }
    char *pmj = fp_bundle_path(out_dir, FP_ART_MAP);
    int wr = fp_map_write_file(pmj, doc, ctx->bundle, err);
    free(pmj);
    if (wr != 0) {
        fp_err_help(err, "the bundle must be writable (or pass --out-dir DIR)");
        return -1;
    }
    return 0;
}

/* The snippet of mapping i was already printed for an earlier mapping (same file and line). */
static bool snippet_seen(const fp_map_mapping *maps, size_t i)
{
    const fp_map_snippet *a = maps[i].snippet;
    for (size_t k = 0; a && k < i; k++) {
        const fp_map_snippet *b = maps[k].snippet;
        if (b && b->line == a->line && !strcmp(b->file, a->file))
            return true;
    }
    return false;
}

/* The table: a header, one row per mapping, each source snippet once (a mapping
 * whose line was shown above says so instead of repeating it). */
static void map_table(fp_ctx *ctx, const fp_dispatch_ref *ref, const sel *s, int64_t lat, int64_t lat_mapped,
                      const fp_map_mapping *maps, size_t nmaps)
{
    fp_sb_addf(&ctx->table, "map: %s  (%s, %zu instructions)  source-mapped %.2f%% of latency\n", ref->name, s->kind,
               s->n, lat ? 100.0 * (double)lat_mapped / (double)lat : 0.0);
    if (nmaps)
        fp_sb_adds(&ctx->table, "\n    code_line      stall  class       instruction / source\n");
    for (size_t i = 0; i < nmaps; i++) {
        const fp_map_mapping *m = &maps[i];
        fp_sb_addf(&ctx->table, "  %11lld %10lld  %-11s %s\n%26s%s\n", (long long)m->code_line, (long long)m->stall,
                   m->cls, m->isa, "", m->source);
        if (snippet_seen(maps, i)) {
            fp_sb_addf(&ctx->table, "%26s(source line shown above)\n", "");
            continue;
        }
        for (size_t k = 0; m->snippet && k < m->snippet->nlines; k++) {
            const fp_map_snip_line *ln = &m->snippet->lines[k];
            fp_sb_addf(&ctx->table, "%24s%s%5lld | %s\n", "", ln->hot ? ">" : " ", (long long)ln->n, ln->text);
        }
    }
}

/* code.json (not an empty shell) and the source snapshots (optional: no snippets without them) */
static int load_code(fp_ctx *ctx, const char *dir, fp_code *code, fp_snapshots *snaps, fp_err *err)
{
    if (fp_code_load(dir, code, err) != 0)
        return -1;
    if (code->null_code || code->n == 0)
        return fp_err_set(err, FP_EMPTY_ATT, "%s: code.json has no instructions (an empty shell)", dir);
    fp_err se = {0};
    if (fp_snapshots_load(dir, snaps, &se) != 0) {
        fp_warn(ctx, "source snapshots unusable (%s): no snippets", se.message);
        fp_err_clear(&se);
        memset(snaps, 0, sizeof *snaps);
    }
    if (snaps->refused)
        fp_warn(ctx, "%zu snapshots.json leaves point outside the dispatch dir (refused)", snaps->refused);
    return 0;
}

/* selection: --code-line, --source-line, else the top stalls */
static int select_rows(fp_ctx *ctx, const map_args *a, const fp_code *code, sel *s, char **want_file, fp_err *err)
{
    if (a->code_line >= 0)
        return select_code_line(code, a->code_line, s, err);
    if (a->source_line) {
        s->kind = "source-line";
        return select_source_line(code, a->source_line, s, want_file, err);
    }
    select_top(ctx, code, a->limit, s);
    return 0;
}

/* Where the artifacts go: --out-dir, else the bundle (a dispatch dir gets
 * none); a query (--code-line / --source-line) reads only. */
static const char *map_out_dir(fp_ctx *ctx, const map_args *a, const fp_dispatch_ref *ref, bool query)
{
    if (query && a->out_dir)
        fp_warn(ctx, "--out-dir ignored: --code-line / --source-line write nothing");
    return query ? NULL : a->out_dir ? a->out_dir : ref->bundle_is_dispatch ? NULL : ctx->bundle;
}

static void fill_mappings(fp_map_doc *doc, const fp_code *code, const fp_class *cls, const sel *s,
                          const fp_snapshots *snaps, long context)
{
    size_t unm = 0;
    for (size_t i = 0; i < s->n; i++) {
        bool u;
        fp_map_mapping *m = fp_model_push((void **)&doc->mappings, &doc->nmappings, sizeof *m);
        mapping_fill(m, code, cls, s->rows[i], s->frame[i], snaps, context, &u);
        unm += u;
    }
    doc->unmapped_pct = s->n ? fp_round(100.0 * (double)unm / (double)s->n, 2) : 0.0;
}

static int run_map(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos;
    (void)npos;
    map_args *a = argsp;
    if (!ctx->bundle) {
        fp_err_set(err, FP_USAGE, "map needs --bundle DIR (a bundle or a ui_output_agent_* dispatch dir)");
        return fp_err_help(err, "run `flyprof capture` first, or point --bundle at a decoded ATT dir");
    }
    if (a->code_line >= 0 && a->source_line)
        return fp_err_set(err, FP_BAD_ARGS, "--code-line and --source-line are exclusive");
    fp_dispatch_ref ref;
    if (fp_bundle_dispatch(ctx->bundle, a->tag, a->dispatch, &ref, err) != 0) {
        fp_dispatch_ref_free(&ref);
        return -1;
    }
    const cJSON *note;
    cJSON_ArrayForEach(note, ref.notes)
        fp_warn(ctx, "%s", note->valuestring);

    int rc = -1;
    fp_code code = {0};
    fp_snapshots snaps = {0};
    sel s = {0};
    char *want_file = NULL;
    fp_map_doc doc = {0};
    fp_folded fo = {0};
    fp_class *cls = NULL;
    int64_t *exposed = NULL;
    fp_sb tmp, folded, svg;
    fp_sb_init(&tmp);
    fp_sb_init(&folded);
    fp_sb_init(&svg);
    bool query = a->code_line >= 0 || a->source_line;
    const char *out_dir = map_out_dir(ctx, a, &ref, query);

    if (load_code(ctx, ref.dir, &code, &snaps, err) != 0 || select_rows(ctx, a, &code, &s, &want_file, err) != 0)
        goto done;

    map_head(&doc, a, &ref, &code, &s);
    /* exposed stall needs the whole trace: only when the flamegraph is written */
    bool want_exposed = !query && !strcmp(a->weight, "exposed");
    cls = row_classes(ctx, ref.dir, &code, want_exposed, &exposed);
    const char *weight = !strcmp(a->weight, "exposed") && !exposed ? "stall" : a->weight;
    fill_mappings(&doc, &code, cls, &s, &snaps, (long)a->context);

    int64_t lat, lat_mapped;
    rollup(ctx, &doc, weight, &code, cls, exposed, &fo, &tmp, &lat, &lat_mapped);
    flamegraph(&doc, weight, &code, &ref, &fo, &folded, &svg);
    if (write_map(ctx, out_dir, &doc, &folded, &svg, err) != 0)
        goto done;
    /* the envelope: the same document, its mappings bounded by --limit (an
     * explicit selection's too) */
    size_t nall = doc.nmappings;
    if (a->limit > 0 && s.n > (size_t)a->limit) {
        doc.nmappings = (size_t)a->limit;
        fp_truncated(ctx, "mappings", (size_t)a->limit, s.n);
    }
    map_table(ctx, &ref, &s, lat, lat_mapped, doc.mappings, doc.nmappings);
    ctx->data = fp_model_write(&fp_map_schema, &doc);
    doc.nmappings = nall;
    rc = 0;
done:
    free(cls);
    free(exposed);
    fp_map_free(&doc);
    free(s.rows);
    free(s.frame);
    free(want_file);
    fp_folded_free(&fo);
    fp_sb_free(&tmp);
    fp_sb_free(&folded);
    fp_sb_free(&svg);
    fp_snapshots_free(&snaps);
    fp_code_free(&code);
    fp_dispatch_ref_free(&ref);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule map_paths[] = {
    {.opt = "bundle", .kind = FP_PATH_DIR}, {.opt = "out-dir", .kind = FP_PATH_OUT_DIR},
    {.kind = FP_PATH_NONE},
};

/* -f csv: the row lists of the data (the first present is the default; -f csv:NAME) */
static const char *const map_csv_rows[] = {"mappings", "files", NULL};

/* shown under "examples:" in help and in the man page */
static const char *const map_examples[] = {
    "flyprof map --bundle runs/softmax",
    "flyprof map --bundle runs/softmax --source-line kernels/softmax.py:42",
    NULL,
};

const fp_command fp_cmd_map = {
    .examples = map_examples,
    .next = "flyprof report --bundle {bundle}   (the ranked plan)",
    .csv_rows = map_csv_rows,
    .name = "map",
    .summary = "ISA <-> source both ways, snippets, folded stacks and an SVG flamegraph",
    .usage = "flyprof map --bundle DIR [--code-line N | --source-line FILE:LINE] [--context N] [--limit N] "
             "[--weight exposed|stall|latency] [--out-dir DIR]",
    .details = "Default selection: the top --limit instructions by stall. --source-line matches a line exactly "
               "(x.py:19 never selects x.py:190) on the instruction's own line or any inline call site; FILE is "
               "an exact path, else a unique path suffix; a query writes nothing. Without one, writes map.json, "
               "flamegraph.folded (flamegraph.pl / speedscope) and flamegraph.svg (click to zoom, search) into "
               "the bundle (not into a dispatch dir unless --out-dir).",
    .opts = map_opts,
    .args_size = sizeof(map_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_map,
    .paths = map_paths,
    .bundle_required = true,
};
