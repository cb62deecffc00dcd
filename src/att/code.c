/*
 * code.c - code.json reader: a shape-specific fast path with jscan behind it.
 *
 * code.json is read by every hotspots/bubbles/report/map call, and on a
 * 2,000-instruction kernel tokenizing it was half of a hotspots run. The one
 * idea: fast_parse() reads exactly the shape the decoder writes
 * ({"code":[["isa",n,line,"source",n,n,n,n,n,n],...],"header":"...",...})
 * straight into the rows; on anything else it gives up and the whole document
 * is read again by the jscan path, which produces the result or the error
 * message. So the fast path only accepts documents both read identically
 * (tests/unit/test_code.c checks that on the corpus and on mutations).
 *
 * Strings live in one pool per fp_code (no malloc per cell), and equal
 * sources are stored once: 2,000 rows usually name ~100 distinct source
 * lines, and consumers that group by source can compare pointers first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/att.h"
#include "flyprof/fs.h"
#include "flyprof/fscan.h"
#include "flyprof/jscan.h"
#include "flyprof/mem.h"
#include "flyprof/strbuf.h"
#include "flyprof/strtab.h"

#define CODE_MIN_COLS 10

/* ---- string pool with an intern table for sources ---- */

typedef struct pool_block {
    struct pool_block *next;
    size_t used, cap;
    char data[];
} pool_block;

struct fp_code_pool {
    pool_block *blocks;
    fp_strtab interned;
    const char *last; /* the last interned string: neighbouring rows mostly share it */
    size_t last_len;
};

#define POOL_BLOCK 65536

static struct fp_code_pool *pool_new(void)
{
    struct fp_code_pool *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    return p;
}

static void pool_free(struct fp_code_pool *p)
{
    if (!p)
        return;
    for (pool_block *b = p->blocks, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    fp_strtab_free(&p->interned);
    free(p);
}

/* A NUL-terminated copy of s[0..n) in the pool. */
static char *pool_str(struct fp_code_pool *p, const char *s, size_t n)
{
    pool_block *b = p->blocks;
    if (!b || b->cap - b->used < n + 1) {
        size_t cap = n + 1 > POOL_BLOCK ? n + 1 : POOL_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b)
            abort();
        b->used = 0;
        b->cap = cap;
        b->next = p->blocks;
        p->blocks = b;
    }
    char *d = b->data + b->used;
    memcpy(d, s, n);
    d[n] = '\0';
    b->used += n + 1;
    return d;
}

/* The pool's one copy of s[0..n). */
static char *pool_intern(struct fp_code_pool *p, const char *s, size_t n)
{
    if (!p->last || p->last_len != n || memcmp(p->last, s, n)) {
        uint64_t h = fp_strtab_hash(s, n);
        const fp_strtab_slot *at = fp_strtab_get(&p->interned, s, n, h);
        if (at) {
            p->last = at->key;
        } else {
            p->last = pool_str(p, s, n);
            fp_strtab_put(&p->interned, p->last, n, h, 0);
        }
        p->last_len = n;
    }
    return (char *)p->last;
}

static fp_inst *grow_row(fp_code *code, size_t *cap)
{
    if (code->n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        fp_inst *nr = realloc(code->rows, *cap * sizeof *nr);
        if (!nr)
            abort();
        code->rows = nr;
    }
    fp_inst *row = &code->rows[code->n];
    memset(row, 0, sizeof *row);
    return row;
}

/* ---- the jscan path (any valid JSON; the error messages) ---- */

static int bad(fp_err *err, const char *name, fp_jscan *js, const char *what)
{
    if (js->tok == FP_JT_ERROR && js->error[0])
        return fp_err_set(err, FP_BAD_INPUT, "%s: invalid JSON: %s", name, js->error);
    return fp_err_set(err, FP_BAD_INPUT, "%s: %s at byte %zu", name, what, fp_js_offset(js));
}

/* Read one numeric cell; non-integers read as 0 (counted). Containers are skipped. */
static int num_cell(fp_jscan *js, fp_jtok t, int64_t *out, bool *ok, fp_code *code)
{
    *ok = false;
    *out = 0;
    if (t == FP_JT_NUMBER && js->num_is_int) {
        *out = js->inum;
        *ok = true;
        return 0;
    }
    code->coerced_cells++;
    if (t == FP_JT_OBJ_BEGIN || t == FP_JT_ARR_BEGIN)
        return fp_js_skip(js) ? 0 : -1;
    return t == FP_JT_ERROR ? -1 : 0;
}

static int parse_row(fp_jscan *js, const char *name, fp_inst *row, fp_code *code, fp_err *err)
{
    int col = 0;
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_ERROR)
            return bad(err, name, js, "bad row");
        if (t == FP_JT_ARR_END)
            break;
        int64_t v = 0;
        bool ok = false;
        switch (col) {
        case 0:
            if (t != FP_JT_STRING)
                return bad(err, name, js, "row ISA (column 0) is not a string");
            row->isa = pool_str(code->pool_, js->str, js->str_len);
            break;
        case 3:
            if (t == FP_JT_STRING)
                row->source = pool_intern(code->pool_, js->str, js->str_len);
            else if (t == FP_JT_NULL)
                row->source = pool_intern(code->pool_, "", 0);
            else
                return bad(err, name, js, "row Source (column 3) is not a string");
            break;
        case 1:
            if (!fp_js_skip(js))
                return bad(err, name, js, "bad cell");
            break;
        default:
            if (num_cell(js, t, &v, &ok, code) != 0)
                return bad(err, name, js, "bad cell");
            switch (col) {
            case 2: row->index = v; row->index_ok = ok; break;
            case 4: row->codeobj = v; break;
            case 5: row->vaddr = v; break;
            case 6: row->hit = v; break;
            case 7: row->latency = v; break;
            case 8: row->stall = v; break;
            case 9: row->idle = v; break;
            default:
                code->coerced_cells -= !ok; /* extra columns (PC-sampling variant) are not ours */
                break;
            }
        }
        col++;
    }
    if (col < CODE_MIN_COLS)
        return fp_err_set(err, FP_BAD_INPUT, "%s: a code row has %d columns, expected at least %d",
                          name, col, CODE_MIN_COLS);
    return 0;
}

static int build_index(fp_code *code, const char *name, fp_err *err)
{
    int64_t maxi = 0;
    for (size_t i = 0; i < code->n; i++)
        if (code->rows[i].index_ok && code->rows[i].index > maxi)
            maxi = code->rows[i].index;
    /* LineNumber equals the row position in every known capture; refuse absurd
     * indices instead of allocating gigabytes for a hostile file. */
    if (maxi > (int64_t)code->n * 4 + 1024)
        return fp_err_set(err, FP_BAD_INPUT, "%s: LineNumber %lld is far beyond the %zu rows", name,
                          (long long)maxi, code->n);
    code->max_index = maxi;
    code->pos_of_index = malloc(((size_t)maxi + 1) * sizeof *code->pos_of_index);
    if (!code->pos_of_index)
        abort();
    for (int64_t i = 0; i <= maxi; i++)
        code->pos_of_index[i] = SIZE_MAX;
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (r->index_ok && r->index >= 0 && code->pos_of_index[r->index] == SIZE_MAX)
            code->pos_of_index[r->index] = i;
    }
    return 0;
}

static int jscan_parse(const char *buf, size_t len, const char *name, fp_code *out, fp_err *err)
{
    fp_jscan js;
    fp_js_init(&js, buf, len);
    int rc = -1;
    bool seen_code = false;
    size_t cap = 0;
    if (fp_js_next(&js) != FP_JT_OBJ_BEGIN) {
        bad(err, name, &js, "top level is not a JSON object");
        goto done;
    }
    for (;;) {
        fp_jtok t = fp_js_next(&js);
        if (t == FP_JT_OBJ_END)
            break;
        if (t != FP_JT_STRING) {
            bad(err, name, &js, "bad object");
            goto done;
        }
        if (!fp_js_str_eq(&js, "code")) {
            t = fp_js_next(&js);
            if (t == FP_JT_ERROR || !fp_js_skip(&js)) {
                bad(err, name, &js, "bad value");
                goto done;
            }
            continue;
        }
        seen_code = true;
        t = fp_js_next(&js);
        if (t == FP_JT_NULL) {
            out->null_code = true;
            continue;
        }
        if (t != FP_JT_ARR_BEGIN) {
            bad(err, name, &js, "\"code\" is not an array");
            goto done;
        }
        for (;;) {
            t = fp_js_next(&js);
            if (t == FP_JT_ARR_END)
                break;
            if (t != FP_JT_ARR_BEGIN) {
                bad(err, name, &js, "a code row is not an array");
                goto done;
            }
            fp_inst *row = grow_row(out, &cap);
            if (parse_row(&js, name, row, out, err) != 0)
                goto done;
            if (!row->source)
                row->source = pool_intern(out->pool_, "", 0);
            out->n++;
        }
    }
    if (fp_js_next(&js) != FP_JT_END) {
        bad(err, name, &js, "trailing data");
        goto done;
    }
    if (!seen_code) {
        fp_err_set(err, FP_BAD_INPUT, "%s: no \"code\" key", name);
        goto done;
    }
    rc = 0;
done:
    fp_js_free(&js);
    return rc;
}

/* ---- the fast path ---- */

/* The source cell when it repeats the last interned string (most rows: ~100
 * distinct lines in 2,000 rows): one compare instead of a scan and a lookup.
 * That string was read by fp_fc_str (or is the "" of null), so it holds no '"',
 * '\\' or control byte: equal bytes and a closing '"' are the string fp_fc_str
 * would read. Anything else (blanks before it included) goes the general way. */
static bool same_source(fp_fc *c, const struct fp_code_pool *p, char **src)
{
    size_t n = p->last_len;
    if (!p->last || (size_t)(c->e - c->p) < n + 2 || c->p[0] != '"' || c->p[n + 1] != '"' ||
        memcmp(c->p + 1, p->last, n))
        return false;
    c->p += n + 2;
    *src = (char *)p->last;
    return true;
}

/* One row ["isa", scalar, int, "source"|null, int x 6, int...] - as parse_row
 * on the rows where no cell is coerced. */
static bool f_row(fp_fc *c, fp_code *out, size_t *cap)
{
    const char *s;
    size_t n;
    int64_t v[6];
    if (!fp_fc_lit(c, '[') || !fp_fc_str(c, &s, &n))
        return false;
    fp_inst *row = grow_row(out, cap);
    row->isa = pool_str(out->pool_, s, n);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* ",0,17," as the decoder writes it: both cells in one step (col 1 is unused;
     * an integer there is what fp_fc_skip_scalar would accept) */
    int64_t two[2];
    const char *q2 = (size_t)(c->e - c->p) > FP_FC_INTS_SHORT_WINDOW(2) ? fp_fc_ints_short(c->p, ',', two, 2) : NULL;
    if (q2 && *q2 == ',') {
        c->p = q2 + 1;
        row->index = two[1];
    } else
#endif
    {
        int64_t col1; /* unused; an integer (the decoder's 0) is read as fp_fc_skip_scalar would, cheaper */
        if (!fp_fc_lit(c, ',') || !(fp_fc_int(c, &col1) || fp_fc_skip_scalar(c)) || !fp_fc_lit(c, ',') ||
            !fp_fc_int(c, &row->index) || !fp_fc_lit(c, ','))
            return false;
    }
    row->index_ok = true;
    if (same_source(c, out->pool_, &row->source))
        ;
    else if (fp_fc_word(c, "null", 4))
        row->source = pool_intern(out->pool_, "", 0);
    else if (fp_fc_str(c, &s, &n))
        row->source = pool_intern(out->pool_, s, n);
    else
        return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the six numbers: short ones one load each, else 8 digits a step (~half of
     * the parse was the digit loop); the ',' or ']' required after them below is
     * what lets fp_fc_ints_short skip the '.'/'e' checks */
    const char *q = (size_t)(c->e - c->p) > FP_FC_INTS_SWAR_WINDOW(6) ? fp_fc_ints_short(c->p, ',', v, 6) : NULL;
    if (!q && (size_t)(c->e - c->p) > FP_FC_INTS_SWAR_WINDOW(6))
        q = fp_fc_ints_swar(c->p, ',', v, 6);
#else
    const char *q = (size_t)(c->e - c->p) > FP_FC_INTS_WINDOW(6) ? fp_fc_ints_compact(c->p, ',', v, 6) : NULL;
#endif
    if (q) {
        c->p = q;
    } else {
        for (int k = 0; k < 6; k++)
            if (!fp_fc_lit(c, ',') || !fp_fc_int(c, &v[k]))
                return false;
    }
    int64_t extra;
    while (fp_fc_lit(c, ',')) /* extra columns (PC-sampling variant): integers only here */
        if (!fp_fc_int(c, &extra))
            return false;
    if (!fp_fc_lit(c, ']'))
        return false;
    row->codeobj = v[0];
    row->vaddr = v[1];
    row->hit = v[2];
    row->latency = v[3];
    row->stall = v[4];
    row->idle = v[5];
    out->n++;
    return true;
}

static int fast_parse(const char *buf, size_t len, fp_code *out)
{
    fp_fc c = {buf, buf + len};
    bool seen_code = false;
    /* Rows take >= 23 bytes and ~140 in decoder output: reserve for len / 128
     * rows at once instead of copying the array through five doublings (pages
     * reserved but never touched cost nothing). */
    size_t cap = len / 128;
    if (cap > 256) {
        out->rows = malloc(cap * sizeof *out->rows);
        if (!out->rows)
            abort();
    } else {
        cap = 0;
    }
    if (!fp_fc_lit(&c, '{') || fp_fc_lit(&c, '}'))
        return -1;
    do {
        const char *k;
        size_t kl;
        if (!fp_fc_key(&c, &k, &kl))
            return -1;
        if (kl != 4 || memcmp(k, "code", 4)) {
            if (!fp_fc_skip_scalar(&c))
                return -1;
            continue;
        }
        seen_code = true;
        if (fp_fc_word(&c, "null", 4)) {
            out->null_code = true;
            continue;
        }
        if (!fp_fc_lit(&c, '['))
            return -1;
        if (fp_fc_lit(&c, ']'))
            continue;
        do
            if (!f_row(&c, out, &cap))
                return -1;
        while (fp_fc_lit(&c, ','));
        if (!fp_fc_lit(&c, ']'))
            return -1;
    } while (fp_fc_lit(&c, ','));
    return fp_fc_close(&c) && seen_code ? 0 : -1;
}

/* Start from an empty fp_code with its pool. */
static void code_reset(fp_code *out)
{
    fp_code_free(out);
    out->pool_ = pool_new();
}

static int finish(fp_code *out, const char *name, fp_err *err)
{
    /* Latency is stall + issue cycles (the decoder's definition), so a row whose stall
     * exceeds it is not decoder output; kept, its sums would give a stall share past
     * 100 % (1e18 once they saturate) and a negative issue. */
    for (size_t i = 0; i < out->n; i++) {
        const fp_inst *r = &out->rows[i];
        if (r->stall > 0 && r->stall > r->latency)
            return fp_err_set(err, FP_BAD_INPUT, "%s: row %zu (LineNumber %lld): Stall %lld exceeds its Latency %lld", name,
                              i, (long long)r->index, (long long)r->stall, (long long)r->latency);
    }
    for (size_t i = 0; i < out->n; i++) {
        const char *isa = out->rows[i].isa;
        if (isa[0] == ';') {
            const char *s = isa + 1;
            while (*s == ' ')
                s++;
            out->symbol = fp_xstrndup(s, strlen(s));
            break;
        }
    }
    return build_index(out, name, err);
}

int fp_code_parse_jscan(const char *buf, size_t len, const char *name, fp_code *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    code_reset(out);
    if (jscan_parse(buf, len, name, out, err) != 0 || finish(out, name, err) != 0) {
        fp_code_free(out);
        return -1;
    }
    return 0;
}

int fp_code_parse(const char *buf, size_t len, const char *name, fp_code *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    code_reset(out);
    if (fast_parse(buf, len, out) != 0) {
        code_reset(out);
        if (jscan_parse(buf, len, name, out, err) != 0) {
            fp_code_free(out);
            return -1;
        }
    }
    if (finish(out, name, err) != 0) {
        fp_code_free(out);
        return -1;
    }
    return 0;
}

int fp_code_load(const char *dir, fp_code *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    char *path = fp_path_join(dir, "code.json");
    fp_file_view fv;
    int rc = fp_file_map(path, &fv, err);
    if (rc == 0)
        rc = fp_code_parse(fv.data, fv.len, path, out, err);
    fp_file_unmap(&fv);
    free(path);
    return rc;
}

void fp_code_free(fp_code *code)
{
    if (!code)
        return;
    free(code->rows);
    pool_free(code->pool_);
    free(code->symbol);
    free(code->pos_of_index);
    memset(code, 0, sizeof *code);
}

const fp_inst *fp_code_at(const fp_code *code, int64_t index)
{
    if (!code->pos_of_index || index < 0 || index > code->max_index)
        return NULL;
    size_t p = code->pos_of_index[index];
    return p == SIZE_MAX ? NULL : &code->rows[p];
}
