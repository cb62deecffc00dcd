/*
 * code.c - code.json reader on the fast tokenizer (code.json is read on every
 * hotspots/bubbles call and cJSON alone costs several ms on the big ones).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/att.h"
#include "flyprof/fs.h"
#include "flyprof/jscan.h"
#include "flyprof/mem.h"
#include "flyprof/strbuf.h"

#define CODE_MIN_COLS 10

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
    memset(row, 0, sizeof *row);
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
            row->isa = fp_xstrndup(js->str, js->str_len);
            break;
        case 3:
            if (t == FP_JT_STRING)
                row->source = fp_xstrndup(js->str, js->str_len);
            else if (t == FP_JT_NULL)
                row->source = fp_xstrndup("", 0);
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

static void free_rows(fp_code *code)
{
    for (size_t i = 0; i < code->n; i++) {
        free(code->rows[i].isa);
        free(code->rows[i].source);
    }
    free(code->rows);
    code->rows = NULL;
    code->n = 0;
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

int fp_code_parse(const char *buf, size_t len, const char *name, fp_code *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
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
            if (out->n == cap) {
                cap = cap ? cap * 2 : 256;
                fp_inst *nr = realloc(out->rows, cap * sizeof *nr);
                if (!nr)
                    abort();
                out->rows = nr;
            }
            fp_inst *row = &out->rows[out->n];
            if (parse_row(&js, name, row, out, err) != 0) {
                free(row->isa);
                free(row->source);
                goto done;
            }
            if (!row->source)
                row->source = fp_xstrndup("", 0);
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
    if (build_index(out, name, err) != 0)
        goto done;
    rc = 0;
done:
    fp_js_free(&js);
    if (rc != 0)
        fp_code_free(out);
    return rc;
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
    free_rows(code);
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
