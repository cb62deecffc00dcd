/*
 * csvout.c - a list of row objects as CSV (csvout.h).
 */
#include "flyprof/csvout.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/mem.h"

typedef struct cols {
    char **v;
    size_t n, cap;
} cols;

static bool has_col(const cols *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i], name))
            return true;
    return false;
}

static void add_col(cols *c, const char *name)
{
    if (has_col(c, name))
        return;
    FP_GROW(c->v, c->n, c->cap);
    c->v[c->n++] = fp_xstrndup(name, strlen(name));
}

/* The columns of one object: scalars and lists by name, objects by their members. */
static void collect(cols *c, const cJSON *o, const char *prefix)
{
    for (const cJSON *it = o->child; it; it = it->next) {
        fp_sb name;
        fp_sb_init(&name);
        fp_sb_addf(&name, "%s%s%s", prefix, prefix[0] ? "." : "", it->string ? it->string : "");
        if (cJSON_IsObject(it) && it->child)
            collect(c, it, name.buf);
        else
            add_col(c, name.buf);
        fp_sb_free(&name);
    }
}

/* The value at a dotted column name (members may not contain '.': flyprof's keys do not). */
static const cJSON *at(const cJSON *o, const char *name)
{
    const cJSON *v = o;
    for (const char *p = name; v && *p;) {
        size_t n = strcspn(p, ".");
        const cJSON *next = NULL;
        for (const cJSON *it = cJSON_IsObject(v) ? v->child : NULL; it && !next; it = it->next)
            if (it->string && strlen(it->string) == n && !strncmp(it->string, p, n))
                next = it;
        v = next;
        p += n + (p[n] == '.');
    }
    return v;
}

static bool is_number_text(const char *s)
{
    char *end = NULL;
    if (!s[0])
        return false;
    strtod(s, &end);
    return end && !*end;
}

void fp_csvout_cell(fp_sb *out, const char *text)
{
    /* a spreadsheet runs =cmd|..., +x, -x, @x as formulas (CSV injection); a number is data */
    bool formula = strchr("=+-@\t\r", text[0]) && text[0] && !is_number_text(text);
    bool quote = formula || strpbrk(text, ",\"\r\n") || (text[0] == ' ') ||
                 (text[0] && text[strlen(text) - 1] == ' ');
    if (!quote) {
        fp_sb_adds(out, text);
        return;
    }
    fp_sb_addc(out, '"');
    if (formula)
        fp_sb_addc(out, '\'');
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fp_sb_addc(out, '"');
        fp_sb_addc(out, *p);
    }
    fp_sb_addc(out, '"');
}

static void value_cell(fp_sb *out, const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return;
    if (cJSON_IsString(v)) {
        fp_csvout_cell(out, v->valuestring);
        return;
    }
    char *s = fp_json_print(v, false); /* numbers, booleans, lists: as the envelope writes them */
    fp_csvout_cell(out, s ? s : "");
    free(s);
}

int fp_csv_rows(const cJSON *rows, fp_sb *out, fp_err *err)
{
    if (!cJSON_IsArray(rows))
        return fp_err_set(err, FP_BAD_INPUT, "csv: the rows are not a list");
    cols c = {0};
    int rc = 0;
    for (const cJSON *r = rows->child; r && rc == 0; r = r->next)
        if (!cJSON_IsObject(r))
            rc = fp_err_set(err, FP_BAD_INPUT, "csv: a row is not an object");
        else
            collect(&c, r, "");
    for (size_t i = 0; rc == 0 && i < c.n; i++) {
        if (i)
            fp_sb_addc(out, ',');
        fp_csvout_cell(out, c.v[i]);
    }
    if (rc == 0 && c.n)
        fp_sb_adds(out, "\r\n");
    for (const cJSON *r = rows->child; r && rc == 0; r = r->next) {
        for (size_t i = 0; i < c.n; i++) {
            if (i)
                fp_sb_addc(out, ',');
            value_cell(out, at(r, c.v[i]));
        }
        fp_sb_adds(out, "\r\n");
    }
    for (size_t i = 0; i < c.n; i++)
        free(c.v[i]);
    free(c.v);
    return rc;
}
