/*
 * cli.c - option parsing from one static table per command, warnings/progress,
 * and help rendered from the same table as both data and text (so they cannot drift).
 */
#include "flyprof/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flyprof/json.h"

static const char *const fp_color_choices[] = {"auto", "always", "never", NULL};

/* in fp_format order */
static const char *const fp_format_choices[] = {"json", "table", "csv", "sarif", "junit", NULL};

const char *fp_format_name(fp_format f) { return fp_format_choices[f]; }

int fp_format_parse(const char *s, fp_format *f, const char **rows, fp_err *err)
{
    *rows = NULL;
    if (!strncmp(s, "csv:", 4) && s[4]) {
        *f = FP_FMT_CSV;
        *rows = s + 4;
        return 0;
    }
    for (int i = 0; fp_format_choices[i]; i++)
        if (!strcmp(s, fp_format_choices[i])) {
            *f = (fp_format)i;
            return 0;
        }
    return fp_err_set(err, FP_USAGE, "--format must be json, table, csv[:ROWS], sarif or junit, got '%s'", s);
}

/* Documentation of the flags main.c strips before a command sees argv. */
const fp_opt fp_global_opts[] = {
    {"format", 'f', FP_OPT_CHOICE, 0, "FMT",
     "output format: json (one envelope), table (human text), csv[:ROWS] (a table's rows), sarif (code "
     "scanning: report, check, diff) or junit (check); default $FLYPROF_FORMAT, else table on a terminal, "
     "else json",
     NULL, fp_format_choices, 0, 0},
    {"bundle", 0, FP_OPT_STR, 0, "DIR", "bundle directory that holds this pipeline's artifacts", NULL,
     NULL, 0, 0},
    {"wide", 0, FP_OPT_FLAG, 0, NULL, "tables: no width limit (default: 100 columns, or $COLUMNS on a terminal)",
     NULL, NULL, 0, 0},
    {"color", 0, FP_OPT_CHOICE, 0, "WHEN",
     "tables: colour (bold headline, red errors, yellow warnings): auto (a terminal, unless $NO_COLOR), always, "
     "never", "auto", fp_color_choices, 0, 0},
    {"quiet", 'q', FP_OPT_FLAG, 0, NULL, "no progress lines (nor wrote/next hints) on stderr", NULL, NULL, 0, 0},
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

/* Optimal string alignment distance (Levenshtein + adjacent transposition:
 * "reprot" is one edit from "report"). Words are short: O(n*m) on the stack. */
static size_t edit_distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n > 63 || m > 63)
        return (size_t)-1;
    size_t d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

const char *fp_did_you_mean(const char *word, size_t len, const char *const *cands, size_t n)
{
    /* close enough to be a typo: 1 edit for short words, a third of the word
     * for longer ones; a unique prefix ("--lim") also counts */
    size_t limit = len <= 4 ? 1 : len / 3, best_d = (size_t)-1;
    const char *best = NULL, *prefix = NULL;
    size_t nprefix = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        if (len >= 2 && !strncmp(cands[i], word, len)) {
            prefix = cands[i];
            nprefix++;
        }
        size_t dd = edit_distance(word, len, cands[i]);
        if (dd < best_d) {
            best_d = dd;
            best = cands[i];
        }
    }
    if (best && best_d <= limit)
        return best;
    return nprefix == 1 ? prefix : NULL;
}

/* The long names a command accepts, its own and the global ones. */
static size_t long_names(const fp_opt *opts, const char **out, size_t max)
{
    size_t n = 0;
    for (const fp_opt *o = opts; o && o->lng && n < max; o++)
        out[n++] = o->lng;
    for (const fp_opt *o = fp_global_opts; o->lng && n < max; o++)
        out[n++] = o->lng;
    return n;
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
 * out-of-range default can mean "not set" (see fp_opt_default_shown). */
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
            size_t nc = 0;
            while (o->choices && o->choices[nc])
                nc++;
            const char *dym = fp_did_you_mean(val, strlen(val), (const char *const *)o->choices, nc);
            if (dym) {
                fp_err_set(err, FP_USAGE, "--%s must be one of %s, got '%s' (did you mean '%s'?)", o->lng, sb.buf,
                           val, dym);
                fp_err_extra(err, "didYouMean", cJSON_CreateString(dym));
            } else {
                fp_err_set(err, FP_USAGE, "--%s must be one of %s, got '%s'", o->lng, sb.buf, val);
            }
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
    return fp_parse_opts_noted(cmd, args, argc, argv, pos, npos, NULL, err);
}

int fp_parse_opts_noted(const fp_command *cmd, void *args, int argc, char **argv, char ***pos, int *npos,
                        fp_sb *notes, fp_err *err)
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
            for (const fp_opt_alias *al = cmd->aliases; !o && al && al->old; al++)
                if (strlen(al->old) == len && !strncmp(al->old, name, len)) { /* one release of grace */
                    o = find_long(cmd->opts, al->now, strlen(al->now));
                    if (notes)
                        fp_sb_addf(notes, "--%s is deprecated (one spelling per meaning): use --%s\n", al->old, al->now);
                }
            if (!o) {
                const char *names[128];
                size_t nn = long_names(cmd->opts, names, 128);
                const char *dym = fp_did_you_mean(name, len, names, nn);
                if (!dym)
                    return fp_err_set(err, FP_USAGE, "unknown option --%.*s for '%s'", (int)len, name, cmd->name);
                fp_err_set(err, FP_USAGE, "unknown option --%.*s for '%s' (did you mean --%s?)", (int)len, name,
                           cmd->name, dym);
                fp_sb sug;
                fp_sb_init(&sug);
                fp_sb_addf(&sug, "--%s", dym);
                fp_err_extra(err, "didYouMean", cJSON_CreateString(sug.buf));
                fp_sb_free(&sug);
                return -1;
            }
            if (eq)
                val = eq + 1;
        } else {
            /* a cluster: -dk NAME = -d -k NAME, -kNAME = -k NAME (getopt's rules):
             * flags are set as they come, the first option taking a value ends
             * the cluster (the rest of the word, else the next word, is its value) */
            for (size_t k = 1;; k++) {
                o = find_short(cmd->opts, a[k]);
                shortname[0] = '-';
                shortname[1] = a[k];
                if (!o)
                    return fp_err_set(err, FP_USAGE, "unknown option %s for '%s'", shortname, cmd->name);
                if (o->kind != FP_OPT_FLAG) {
                    if (a[k + 1])
                        val = a + k + 1;
                    break;
                }
                if (!a[k + 1])
                    break; /* the last flag of the cluster is set below */
                if (set_value(o, args, "", false, err) != 0)
                    return -1;
            }
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
bool fp_opt_default_shown(const fp_opt *o)
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
    if (fp_opt_default_shown(o))
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
        if (!(cmd->no_bundle && !strcmp(o->lng, "bundle"))) /* only what applies */
            cJSON_AddItemToArray(g, opt_json(o));
    if (cmd->examples) {
        cJSON *ex = cJSON_AddArrayToObject(j, "examples");
        for (const char *const *e = cmd->examples; *e; e++)
            cJSON_AddItemToArray(ex, cJSON_CreateString(*e));
    }
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
    if (fp_opt_default_shown(o))
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
        if (!(cmd->no_bundle && !strcmp(o->lng, "bundle")))
            opt_text(o, out);
    if (cmd->examples && cmd->examples[0]) {
        fp_sb_adds(out, "\nexamples:\n");
        for (const char *const *e = cmd->examples; *e; e++)
            fp_sb_addf(out, "  %s\n", *e);
    }
}

/* ---- input/output paths: the one check behind the mistake -> exit-code table ---- */

static const char *kind_noun(fp_path_kind k)
{
    static const char *const nouns[] = {"path", "file", "directory", "file or directory", "directory",
                                        "file"};
    return nouns[k];
}

static const char *stat_noun(const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return "a file";
    if (S_ISDIR(st->st_mode))
        return "a directory";
    if (S_ISFIFO(st->st_mode))
        return "a FIFO";
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
        return "a device";
    if (S_ISSOCK(st->st_mode))
        return "a socket";
    return "not a file";
}

int fp_check_path(const char *what, const char *path, fp_path_kind kind, fp_err *err)
{
    if (kind == FP_PATH_NONE || !path)
        return 0;
    bool out = kind == FP_PATH_OUT_DIR || kind == FP_PATH_OUT_FILE;
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        if ((e == ENOENT || e == ENOTDIR) && out)
            return 0; /* created by the command */
        if (e == ENOENT || e == ENOTDIR) {
            fp_err_set(err, FP_NO_ARTIFACT, "%s %s: no such %s", what, path, kind_noun(kind));
            return fp_err_help(err, "check the path (relative paths are taken from the current directory)");
        }
        fp_err_set(err, FP_IO_ERROR, "%s %s: cannot access: %s", what, path, strerror(e));
        return fp_err_help(err, "check the permissions of the path and of its parent directories");
    }
    bool is_dir = S_ISDIR(st.st_mode), is_reg = S_ISREG(st.st_mode);
    bool ok_kind = kind == FP_PATH_FILE || kind == FP_PATH_OUT_FILE ? is_reg
                   : kind == FP_PATH_ANY                             ? is_reg || is_dir
                                                                     : is_dir;
    if (kind == FP_PATH_OUT_FILE)
        ok_kind = !is_dir; /* replaced by the command: only a directory is surely wrong */
    if (!ok_kind) {
        fp_err_set(err, FP_BAD_ARGS, "%s %s is %s, expected a %s", what, path, stat_noun(&st), kind_noun(kind));
        return fp_err_help(err, "`flyprof help <command>` says what each option expects");
    }
    int rc;
    if (kind == FP_PATH_OUT_DIR)
        rc = faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS);
    else if (kind == FP_PATH_OUT_FILE)
        rc = 0; /* the atomic write reports its own error */
    else if (is_dir)
        rc = faccessat(AT_FDCWD, path, R_OK | X_OK, AT_EACCESS);
    else {
        /* open, not access(): it is what the command will do; O_NONBLOCK cannot
         * hang (only regular files get here) */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        rc = fd < 0 ? -1 : 0;
        if (fd >= 0)
            close(fd);
    }
    if (rc != 0) {
        int e = errno;
        fp_err_set(err, FP_IO_ERROR, "%s %s: cannot %s: %s", what, path, out ? "write" : "read", strerror(e));
        return fp_err_help(err, "check the permissions of the path");
    }
    return 0;
}

int fp_check_paths(const fp_command *cmd, const void *args, char **pos, int npos, const char *bundle,
                   fp_err *err)
{
    for (const fp_path_rule *r = cmd->paths; r && r->kind != FP_PATH_NONE; r++) {
        char what[96];
        if (r->positional) {
            if (r->pos < npos && fp_check_path(r->opt, pos[r->pos], r->kind, err) != 0)
                return -1;
            continue;
        }
        snprintf(what, sizeof what, "--%s", r->opt);
        if (!strcmp(r->opt, "bundle")) {
            if (fp_check_path(what, bundle, r->kind, err) != 0)
                return -1;
            continue;
        }
        const fp_opt *o = find_long(cmd->opts, r->opt, strlen(r->opt));
        if (!o)
            return fp_err_set(err, FP_INTERNAL, "path rule for unknown option --%s of '%s'", r->opt, cmd->name);
        const char *field = (const char *)args + o->off;
        if (o->kind == FP_OPT_STR) {
            if (fp_check_path(what, *(const char *const *)field, r->kind, err) != 0)
                return -1;
        } else if (o->kind == FP_OPT_LIST) {
            const fp_strlist *l = (const fp_strlist *)field;
            for (size_t i = 0; i < l->n; i++)
                if (fp_check_path(what, l->v[i], r->kind, err) != 0)
                    return -1;
        } else {
            return fp_err_set(err, FP_INTERNAL, "path rule on non-path option --%s of '%s'", r->opt, cmd->name);
        }
    }
    return 0;
}
