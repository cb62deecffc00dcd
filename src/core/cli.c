/*
 * cli.c - option parsing from one static table per command, warnings/progress,
 * and help rendered from the same table as both data and text (so they cannot drift).
 */
#include "flyprof/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/json.h"

static const char *const fp_format_choices[] = {"json", "table", NULL};

/* Documentation of the flags main.c strips before a command sees argv. */
const fp_opt fp_global_opts[] = {
    {"format", 'f', FP_OPT_CHOICE, 0, "FMT",
     "output format: json (one envelope) or table (human text); default table on a terminal, else json",
     NULL, fp_format_choices, 0, 0},
    {"bundle", 0, FP_OPT_STR, 0, "DIR", "bundle directory that holds this pipeline's artifacts", NULL,
     NULL, 0, 0},
    {"wide", 0, FP_OPT_FLAG, 0, NULL, "tables: no width limit (default: 100 columns, or $COLUMNS on a terminal)",
     NULL, NULL, 0, 0},
    {"quiet", 'q', FP_OPT_FLAG, 0, NULL, "no progress lines on stderr", NULL, NULL, 0, 0},
    {"help", 'h', FP_OPT_FLAG, 0, NULL, "this help (an envelope in json mode)", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

void fp_warn(fp_ctx *ctx, const char *fmt, ...)
{
    fp_sb sb;
    fp_sb_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    fp_sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    if (!ctx->warnings)
        ctx->warnings = cJSON_CreateArray();
    cJSON_AddItemToArray(ctx->warnings, cJSON_CreateString(sb.buf));
    fp_sb_free(&sb);
}

void fp_progress(fp_ctx *ctx, const char *fmt, ...)
{
    if (ctx->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("flyprof: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void fp_truncated(fp_ctx *ctx, const char *what, size_t shown, size_t total)
{
    if (shown >= total)
        return;
    if (!ctx->truncated)
        ctx->truncated = cJSON_CreateObject();
    cJSON *o = cJSON_CreateObject();
    fp_json_add_int(o, "shown", (int64_t)shown);
    fp_json_add_int(o, "total", (int64_t)total);
    cJSON_DeleteItemFromObjectCaseSensitive(ctx->truncated, what);
    cJSON_AddItemToObject(ctx->truncated, what, o);
}

int fp_parse_ll(const char *s, long long *out)
{
    if (!s || !*s)
        return -1;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || !end || *end != '\0' || end == s)
        return -1;
    *out = v;
    return 0;
}

static const fp_opt *find_long(const fp_opt *opts, const char *name, size_t len)
{
    for (const fp_opt *o = opts; o && o->lng; o++)
        if (strlen(o->lng) == len && !strncmp(o->lng, name, len))
            return o;
    return NULL;
}

static const fp_opt *find_short(const fp_opt *opts, char c)
{
    for (const fp_opt *o = opts; o && o->lng; o++)
        if (o->shrt && o->shrt == c)
            return o;
    return NULL;
}

static int list_push(fp_strlist *l, const char *s)
{
    const char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!nv)
        abort();
    l->v = nv;
    l->v[l->n++] = s;
    return 0;
}

/* is_default: the table's own default, exempt from the range check so that an
 * out-of-range default can mean "not set" (see default_shown). */
static int set_value(const fp_opt *o, void *args, const char *val, bool is_default, fp_err *err)
{
    char *field = (char *)args + o->off;
    switch (o->kind) {
    case FP_OPT_FLAG:
        *(bool *)field = true;
        return 0;
    case FP_OPT_STR:
        if (!val[0])
            return fp_err_set(err, FP_USAGE, "--%s needs a non-empty value", o->lng);
        *(const char **)field = val;
        return 0;
    case FP_OPT_INT: {
        long long v;
        if (fp_parse_ll(val, &v) != 0)
            return fp_err_set(err, FP_USAGE, "--%s expects an integer, got '%s'", o->lng, val);
        if (!is_default && (v < o->min || v > o->max))
            return fp_err_set(err, FP_USAGE, "--%s must be between %lld and %lld, got %lld", o->lng,
                              o->min, o->max, v);
        *(long long *)field = v;
        return 0;
    }
    case FP_OPT_DOUBLE: {
        char *end = NULL;
        errno = 0;
        double d = strtod(val, &end);
        if (!val[0] || !end || *end || errno == ERANGE || !isfinite(d))
            return fp_err_set(err, FP_USAGE, "--%s expects a number, got '%s'", o->lng, val);
        if (o->min >= 0 && d < 0)
            return fp_err_set(err, FP_USAGE, "--%s must not be negative, got '%s'", o->lng, val);
        *(double *)field = d;
        return 0;
    }
    case FP_OPT_CHOICE:
        for (const char *const *c = o->choices; c && *c; c++)
            if (!strcmp(*c, val)) {
                *(const char **)field = *c;
                return 0;
            }
        {
            fp_sb sb;
            fp_sb_init(&sb);
            for (const char *const *c = o->choices; c && *c; c++)
                fp_sb_addf(&sb, "%s%s", c == o->choices ? "" : "|", *c);
            fp_err_set(err, FP_USAGE, "--%s must be one of %s, got '%s'", o->lng, sb.buf, val);
            fp_sb_free(&sb);
        }
        return -1;
    case FP_OPT_LIST:
        if (!val[0])
            return fp_err_set(err, FP_USAGE, "--%s needs a non-empty value", o->lng);
        return list_push((fp_strlist *)field, val);
    }
    return fp_err_set(err, FP_INTERNAL, "bad option kind");
}

int fp_parse_opts(const fp_command *cmd, void *args, int argc, char **argv, char ***pos,
                  int *npos, fp_err *err)
{
    *pos = calloc((size_t)argc + 1, sizeof **pos);
    if (!*pos)
        abort();
    *npos = 0;
    for (const fp_opt *o = cmd->opts; o && o->lng; o++)
        if (o->deflt && o->kind != FP_OPT_LIST && set_value(o, args, o->deflt, true, err) != 0)
            return fp_err_set(err, FP_INTERNAL, "bad default for --%s", o->lng);
    bool only_pos = false;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (only_pos || a[0] != '-' || !strcmp(a, "-") ||
            (a[1] >= '0' && a[1] <= '9')) { /* "-5" is a (bad) value, not a flag */
            (*pos)[(*npos)++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_pos = true;
            continue;
        }
        const fp_opt *o;
        const char *val = NULL;
        char shortname[3] = {0};
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            o = find_long(cmd->opts, name, len);
            if (!o)
                return fp_err_set(err, FP_USAGE, "unknown option --%.*s for '%s'", (int)len, name,
                                  cmd->name);
            if (eq)
                val = eq + 1;
        } else {
            if (a[2] != '\0')
                return fp_err_set(err, FP_USAGE, "unknown option %s for '%s' (short options take one letter)",
                                  a, cmd->name);
            o = find_short(cmd->opts, a[1]);
            shortname[0] = '-';
            shortname[1] = a[1];
            if (!o)
                return fp_err_set(err, FP_USAGE, "unknown option %s for '%s'", shortname, cmd->name);
        }
        if (o->kind == FP_OPT_FLAG) {
            if (val)
                return fp_err_set(err, FP_USAGE, "--%s takes no value", o->lng);
            if (set_value(o, args, "", false, err) != 0)
                return -1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc)
                return fp_err_set(err, FP_USAGE, "--%s needs a value (%s)", o->lng,
                                  o->metavar ? o->metavar : "VALUE");
            val = argv[++i];
        }
        if (set_value(o, args, val, false, err) != 0)
            return -1;
        if (o->kind == FP_OPT_LIST)
            while (i + 1 < argc && argv[i + 1][0] != '-')
                if (set_value(o, args, argv[++i], false, err) != 0)
                    return -1;
    }
    if (*npos < cmd->min_pos)
        return fp_err_set(err, FP_USAGE, "'%s' needs %d argument%s: %s", cmd->name, cmd->min_pos,
                          cmd->min_pos == 1 ? "" : "s", cmd->usage);
    if (cmd->max_pos >= 0 && *npos > cmd->max_pos)
        return fp_err_set(err, FP_USAGE, "'%s' takes at most %d argument%s, got '%s' extra: %s",
                          cmd->name, cmd->max_pos, cmd->max_pos == 1 ? "" : "s",
                          (*pos)[cmd->max_pos], cmd->usage);
    return 0;
}

static const char *kind_name(fp_opt_kind k)
{
    static const char *const names[] = {"flag", "string", "integer", "number", "choice", "list"};
    return names[k];
}

/* An integer default outside the accepted range is a "not set" sentinel, not a
 * value a user could pass: help does not show it. */
static bool default_shown(const fp_opt *o)
{
    long long v;
    if (!o->deflt)
        return false;
    if (o->kind == FP_OPT_INT && fp_parse_ll(o->deflt, &v) == 0)
        return v >= o->min && v <= o->max;
    return true;
}

static cJSON *opt_json(const fp_opt *o)
{
    cJSON *j = cJSON_CreateObject();
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_addf(&sb, "--%s", o->lng);
    fp_json_add_str(j, "flag", sb.buf);
    fp_sb_free(&sb);
    if (o->shrt) {
        char s[3] = {'-', o->shrt, 0};
        fp_json_add_str(j, "short", s);
    }
    fp_json_add_str(j, "type", kind_name(o->kind));
    if (o->metavar)
        fp_json_add_str(j, "metavar", o->metavar);
    if (o->choices) {
        cJSON *c = cJSON_AddArrayToObject(j, "choices");
        for (const char *const *p = o->choices; *p; p++)
            cJSON_AddItemToArray(c, cJSON_CreateString(*p));
    }
    if (o->kind == FP_OPT_INT) {
        fp_json_add_int(j, "min", o->min);
        fp_json_add_int(j, "max", o->max);
    }
    if (default_shown(o))
        fp_json_add_str(j, "default", o->deflt);
    fp_json_add_str(j, "help", o->help);
    return j;
}

cJSON *fp_command_help_json(const fp_command *cmd)
{
    cJSON *j = cJSON_CreateObject();
    fp_json_add_str(j, "name", cmd->name);
    fp_json_add_str(j, "summary", cmd->summary);
    fp_json_add_str(j, "usage", cmd->usage);
    if (cmd->details)
        fp_json_add_str(j, "details", cmd->details);
    cJSON *opts = cJSON_AddArrayToObject(j, "options");
    for (const fp_opt *o = cmd->opts; o && o->lng; o++)
        cJSON_AddItemToArray(opts, opt_json(o));
    cJSON *g = cJSON_AddArrayToObject(j, "globalOptions");
    for (const fp_opt *o = fp_global_opts; o->lng; o++)
        cJSON_AddItemToArray(g, opt_json(o));
    return j;
}

static void opt_text(const fp_opt *o, fp_sb *out)
{
    fp_sb left;
    fp_sb_init(&left);
    if (o->shrt)
        fp_sb_addf(&left, "-%c, ", o->shrt);
    else
        fp_sb_adds(&left, "    ");
    fp_sb_addf(&left, "--%s", o->lng);
    if (o->kind != FP_OPT_FLAG)
        fp_sb_addf(&left, " %s", o->metavar ? o->metavar : "VALUE");
    fp_sb_adds(out, "  ");
    fp_sb_pad_left(out, left.buf, 26);
    fp_sb_addf(out, " %s", o->help);
    if (default_shown(o))
        fp_sb_addf(out, " (default %s)", o->deflt);
    fp_sb_addc(out, '\n');
    fp_sb_free(&left);
}

void fp_command_help_text(const fp_command *cmd, fp_sb *out)
{
    fp_sb_addf(out, "usage: %s\n\n%s\n", cmd->usage, cmd->summary);
    if (cmd->details)
        fp_sb_addf(out, "\n%s\n", cmd->details);
    if (cmd->opts && cmd->opts->lng) {
        fp_sb_adds(out, "\noptions:\n");
        for (const fp_opt *o = cmd->opts; o->lng; o++)
            opt_text(o, out);
    }
    fp_sb_adds(out, "\nglobal options:\n");
    for (const fp_opt *o = fp_global_opts; o->lng; o++)
        opt_text(o, out);
}
