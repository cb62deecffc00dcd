/*
 * mcp.c - MCP tool schemas generated from the option tables, and tool
 * arguments turned back into a validated argv (the only way a tool call
 * reaches a command: no shell, no raw argv).
 *
 * Mapping (JSON Schema <- fp_opt): FLAG -> boolean, STR -> string, INT ->
 * integer with minimum/maximum, DOUBLE -> number (minimum 0 unless the table
 * allows negatives), CHOICE -> string enum, LIST -> array of strings; the
 * table's default (when the CLI would show it) -> default; positionals ->
 * properties named after the usage line's words (DIR -> "dir"); what the usage
 * line shows outside brackets -> required.
 */
#include "flyprof/mcp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flyprof/json.h"
#include "flyprof/strbuf.h"

/* Every metavar the tables use, classified. A metavar missing here is
 * FP_MCP_UNKNOWN, which tests/unit/test_mcp.c refuses: a new option with a new
 * metavar needs a decision here (is it a path?). */
static const struct {
    const char *metavar;
    fp_mcp_role role;
} metavar_roles[] = {
    {"DIR", FP_MCP_PATH},    {"FILE", FP_MCP_PATH},   {"FILE...", FP_MCP_PATH}, {"PATH", FP_MCP_PATH},
    {"CSV", FP_MCP_PATH},    {"CMD", FP_MCP_PROGRAM}, {"APP", FP_MCP_PROGRAM},  {"N", FP_MCP_VALUE},
    {"MODE", FP_MCP_VALUE},  {"NAME", FP_MCP_VALUE},  {"ARCH", FP_MCP_VALUE},   {"TAG", FP_MCP_VALUE},
    {"BY", FP_MCP_VALUE},    {"S", FP_MCP_VALUE},     {"R", FP_MCP_VALUE},      {"GB", FP_MCP_VALUE},
    {"NS", FP_MCP_VALUE},    {"T", FP_MCP_VALUE},     {"GFX", FP_MCP_VALUE},    {"MHZ", FP_MCP_VALUE},
    {"GBS", FP_MCP_VALUE},   {"SET", FP_MCP_VALUE},   {"FMT", FP_MCP_VALUE},    {"W", FP_MCP_VALUE},
    {"M,N,K", FP_MCP_VALUE}, {"KERNEL", FP_MCP_VALUE}, {"K", FP_MCP_VALUE},      {"ID", FP_MCP_VALUE},
    {"REF", FP_MCP_VALUE},   {"WHEN", FP_MCP_VALUE},  {"REGEX", FP_MCP_VALUE},
    /* map --source-line matches paths recorded in code.json, it opens nothing given by the caller */
    {"FILE:LINE", FP_MCP_VALUE},
};

/* Options whose value names a program flyprof executes, or a config file that
 * can name one (rocprofv3:, python:): refused unless --allow-gpu, whatever the
 * metavar says. */
static const char *const program_opts[] = {"rocprofv3", "python", "config", NULL};

/* Commands that run a GPU workload: listed only with --allow-gpu. `mcp` itself
 * is never a tool. counters is listed, its live form (an application) is gated. */
static const char *const gpu_commands[] = {"capture", "run", "sweep", NULL};

static bool in_list(const char *const *l, const char *s)
{
    for (; *l; l++)
        if (!strcmp(*l, s))
            return true;
    return false;
}

static fp_mcp_role metavar_role(const char *mv)
{
    if (!mv)
        return FP_MCP_VALUE;
    for (size_t i = 0; i < sizeof metavar_roles / sizeof metavar_roles[0]; i++)
        if (!strcmp(metavar_roles[i].metavar, mv))
            return metavar_roles[i].role;
    return FP_MCP_UNKNOWN;
}

fp_mcp_role fp_mcp_opt_role(const fp_opt *o)
{
    if (o->kind == FP_OPT_FLAG)
        return FP_MCP_VALUE;
    if (in_list(program_opts, o->lng))
        return FP_MCP_PROGRAM;
    if (o->kind == FP_OPT_STR || o->kind == FP_OPT_LIST)
        return metavar_role(o->metavar);
    return FP_MCP_VALUE; /* numbers and choices are never paths */
}

bool fp_mcp_tool_listed(const fp_command *cmd, const fp_mcp_policy *p)
{
    if (!strcmp(cmd->name, "mcp"))
        return false;
    return p->allow_gpu || !in_list(gpu_commands, cmd->name);
}

/* ---- the usage line ---- */

static const fp_opt *find_opt(const fp_opt *opts, const char *name)
{
    for (const fp_opt *o = opts; o && o->lng; o++)
        if (!strcmp(o->lng, name))
            return o;
    return NULL;
}

/* The --bundle global, the only global a tool takes (format is the server's),
 * unless the command refuses it (cmd->no_bundle). */
static const fp_opt *global_opt(const fp_command *cmd, const char *name)
{
    if (strcmp(name, "bundle") || cmd->no_bundle)
        return NULL;
    return find_opt(fp_global_opts, name);
}

/* The CLI's own path rules (cmd->paths, checked by main before run): what they
 * name is a path whatever its metavar says. pos >= 0: positional number pos. */
static bool cli_path(const fp_command *cmd, const char *opt, int pos)
{
    for (const fp_path_rule *r = cmd->paths; r && r->kind != FP_PATH_NONE; r++)
        if (pos >= 0 ? (r->positional && r->pos == pos) : (!r->positional && r->opt && !strcmp(r->opt, opt)))
            return true;
    return false;
}

static fp_mcp_role cmd_opt_role(const fp_command *cmd, const fp_opt *o)
{
    fp_mcp_role r = fp_mcp_opt_role(o);
    return r == FP_MCP_VALUE && o->kind != FP_OPT_FLAG && cli_path(cmd, o->lng, -1) ? FP_MCP_PATH : r;
}

static fp_mcp_role cmd_pos_role(const fp_command *cmd, fp_mcp_role r, int pos)
{
    return r == FP_MCP_VALUE && cli_path(cmd, NULL, pos) ? FP_MCP_PATH : r;
}

static char *lower_dup(const char *s, size_t n)
{
    char *r = malloc(n + 1);
    if (!r)
        abort();
    for (size_t i = 0; i < n; i++)
        r[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i] == '-' ? '_' : s[i];
    r[n] = '\0';
    return r;
}

/* The usage line as data. Top-level " | " separates alternatives; an
 * alternative may start with a lower-case sub-command literal
 * ("history add --bundle DIR | list | show ID|latest | import FILE ...");
 * upper-case words are positionals (their metavar gives the role); options
 * outside [...] and (...) are required; the words after "--" are one array. */
#define U_MAX_ALT 12
#define U_MAX_POS 4
#define U_MAX_REQ 8
#define U_WORD 48

typedef struct u_alt {
    char sub[U_WORD];            /* sub-command literal, "" when none */
    char pos[U_MAX_POS][U_WORD]; /* positional words after it ("ID|latest", "DIR") */
    int npos;
    char req[U_MAX_REQ][U_WORD]; /* long names of the options outside brackets */
    int nreq;
} u_alt;

typedef struct u_info {
    u_alt alt[U_MAX_ALT];
    int nalt;
    bool subs;          /* positional 1 is a sub-command */
    bool variadic;      /* words after "--" */
    char var[U_WORD];   /* their first word (APP) */
} u_info;

static const fp_opt *usage_opt(const fp_command *cmd, const char *nm, size_t nl, bool lng)
{
    for (int pass = 0; pass < 2; pass++)
        for (const fp_opt *o = pass ? fp_global_opts : cmd->opts; o && o->lng; o++)
            if (lng ? strlen(o->lng) == nl && !strncmp(o->lng, nm, nl) : o->shrt && o->shrt == nm[0])
                return o;
    return NULL;
}

static bool is_literal(const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((w[i] >= 'a' && w[i] <= 'z') || w[i] == '-'))
            return false;
    return n > 0;
}

static void usage_parse(const fp_command *cmd, u_info *u)
{
    memset(u, 0, sizeof *u);
    u->nalt = 1;
    const char *s = cmd->usage ? cmd->usage : "";
    int depth = 0, word = 0;
    bool skip_value = false, after_dd = false, first = true;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        const char *b = s;
        while (*s && *s != ' ')
            s++;
        size_t len = (size_t)(s - b);
        int lead = 0, trail = 0;
        while (len && (*b == '[' || *b == '('))
            b++, len--, lead++;
        while (len && (b[len - 1] == ']' || b[len - 1] == ')'))
            len--, trail++;
        int d = depth + lead; /* depth inside this word */
        depth += lead - trail;
        if (word++ < 2 || len == 0)
            continue; /* "flyprof <name>" */
        u_alt *a = &u->alt[u->nalt - 1];
        if (len == 1 && *b == '|') {
            if (d == 0 && u->nalt < U_MAX_ALT) {
                u->nalt++;
                first = true;
            }
            skip_value = false;
            continue;
        }
        if (skip_value) {
            skip_value = false;
            continue;
        }
        if (len == 2 && !strncmp(b, "--", 2)) {
            after_dd = true;
            continue;
        }
        if (b[0] == '-') {
            bool lng = b[1] == '-';
            const char *nm = b + (lng ? 2 : 1);
            size_t nl = len - (size_t)(nm - b);
            const char *eq = memchr(nm, '=', nl);
            if (eq)
                nl = (size_t)(eq - nm);
            const fp_opt *o = usage_opt(cmd, nm, nl, lng);
            skip_value = o && o->kind != FP_OPT_FLAG && !eq;
            if (d == 0 && lng && o && a->nreq < U_MAX_REQ)
                snprintf(a->req[a->nreq++], U_WORD, "%s", o->lng);
            first = false;
            continue;
        }
        if (after_dd) {
            if (!u->variadic)
                snprintf(u->var, U_WORD, "%.*s", (int)len, b);
            u->variadic = true;
            continue;
        }
        if (first && d == 0 && is_literal(b, len)) {
            snprintf(a->sub, U_WORD, "%.*s", (int)len, b);
            u->subs = true;
        } else if (b[0] >= 'A' && b[0] <= 'Z' && a->npos < U_MAX_POS) {
            snprintf(a->pos[a->npos++], U_WORD, "%.*s", (int)len, b);
        }
        first = false;
    }
}

/* The role of a positional word: its first alternative ("ID|latest" -> ID). */
static fp_mcp_role word_role(const char *w)
{
    char mv[U_WORD];
    snprintf(mv, sizeof mv, "%.*s", (int)strcspn(w, "|"), w);
    return metavar_role(mv);
}

/* Positional slots: with sub-commands slot 0 is the sub-command and slot k the
 * k-th word of the chosen alternative; else the words of the (longest) alternative. */
static int u_slots(const u_info *u)
{
    int m = 0;
    for (int i = 0; i < u->nalt; i++)
        m = u->alt[i].npos > m ? u->alt[i].npos : m;
    return m + (u->subs ? 1 : 0);
}

static const u_alt *u_longest(const u_info *u)
{
    const u_alt *best = &u->alt[0];
    for (int i = 1; i < u->nalt; i++)
        if (u->alt[i].npos > best->npos)
            best = &u->alt[i];
    return best;
}

static bool u_required_everywhere(const u_info *u, const char *opt)
{
    for (int i = 0; i < u->nalt; i++) {
        bool found = false;
        for (int j = 0; j < u->alt[i].nreq && !found; j++)
            found = !strcmp(u->alt[i].req[j], opt);
        if (!found)
            return false;
    }
    return true;
}

int fp_mcp_positionals(const fp_command *cmd, char ***names, bool *variadic)
{
    u_info u;
    usage_parse(cmd, &u);
    int n = u_slots(&u) + (u.variadic ? 1 : 0);
    *names = calloc((size_t)n + 1, sizeof **names);
    if (!*names)
        abort();
    *variadic = u.variadic;
    const u_alt *l = u_longest(&u);
    for (int i = 0; i < u_slots(&u); i++) {
        if (u.subs)
            (*names)[i] = strdup(i == 0 ? "subcommand" : i == 1 ? "argument" : "argument2");
        else
            (*names)[i] = lower_dup(l->pos[i], strcspn(l->pos[i], "|"));
    }
    if (u.variadic)
        (*names)[n - 1] = lower_dup(u.var, strlen(u.var));
    /* A positional that collides with an option name gets an arg_ prefix. */
    for (int i = 0; i < n; i++) {
        if (find_opt(cmd->opts, (*names)[i]) || global_opt(cmd, (*names)[i])) {
            fp_sb sb;
            fp_sb_init(&sb);
            fp_sb_addf(&sb, "arg_%s", (*names)[i]);
            free((*names)[i]);
            (*names)[i] = fp_sb_detach(&sb);
        }
    }
    return n;
}

int fp_mcp_required_opts(const fp_command *cmd, char ***names)
{
    u_info u;
    usage_parse(cmd, &u);
    int n = 0;
    *names = calloc(U_MAX_REQ + 1, sizeof **names);
    if (!*names)
        abort();
    for (int j = 0; j < u.alt[0].nreq; j++)
        if (u_required_everywhere(&u, u.alt[0].req[j]))
            (*names)[n++] = strdup(u.alt[0].req[j]);
    return n;
}

const char *fp_mcp_unclassified(const fp_command *cmd, char *bad, size_t cap)
{
    u_info u;
    usage_parse(cmd, &u);
    for (int i = 0; i < u.nalt; i++)
        for (int j = 0; j < u.alt[i].npos; j++)
            if (word_role(u.alt[i].pos[j]) == FP_MCP_UNKNOWN) {
                snprintf(bad, cap, "%s", u.alt[i].pos[j]);
                return bad;
            }
    return NULL;
}

void fp_mcp_names_free(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- schema ---- */

static const char *role_note(fp_mcp_role r)
{
    return r == FP_MCP_PATH      ? " [a path; must resolve inside the server root]"
           : r == FP_MCP_PROGRAM ? " [names a program to run; needs the server's --allow-gpu]"
                                 : "";
}

static cJSON *opt_schema(const fp_command *cmd, const fp_opt *o)
{
    cJSON *j = cJSON_CreateObject();
    fp_mcp_role role = cmd_opt_role(cmd, o);
    switch (o->kind) {
    case FP_OPT_FLAG:
        fp_json_add_str(j, "type", "boolean");
        cJSON_AddItemToObject(j, "default", cJSON_CreateFalse());
        break;
    case FP_OPT_STR:
        fp_json_add_str(j, "type", "string");
        fp_json_add_int(j, "minLength", 1);
        fp_json_add_int(j, "maxLength", FP_MCP_MAX_VALUE);
        if (fp_opt_default_shown(o))
            fp_json_add_str(j, "default", o->deflt);
        break;
    case FP_OPT_INT: {
        fp_json_add_str(j, "type", "integer");
        fp_json_add_int(j, "minimum", o->min);
        fp_json_add_int(j, "maximum", o->max);
        long long v;
        if (fp_opt_default_shown(o) && fp_parse_ll(o->deflt, &v) == 0)
            fp_json_add_int(j, "default", v);
        break;
    }
    case FP_OPT_DOUBLE:
        fp_json_add_str(j, "type", "number");
        if (o->min >= 0)
            fp_json_add_int(j, "minimum", 0);
        if (fp_opt_default_shown(o))
            cJSON_AddItemToObject(j, "default", cJSON_CreateNumber(strtod(o->deflt, NULL)));
        break;
    case FP_OPT_CHOICE: {
        fp_json_add_str(j, "type", "string");
        cJSON *e = cJSON_AddArrayToObject(j, "enum");
        for (const char *const *c = o->choices; c && *c; c++)
            cJSON_AddItemToArray(e, cJSON_CreateString(*c));
        if (fp_opt_default_shown(o))
            fp_json_add_str(j, "default", o->deflt);
        break;
    }
    case FP_OPT_LIST: {
        fp_json_add_str(j, "type", "array");
        cJSON *it = cJSON_AddObjectToObject(j, "items");
        fp_json_add_str(it, "type", "string");
        fp_json_add_int(it, "minLength", 1);
        fp_json_add_int(j, "minItems", 1);
        fp_json_add_int(j, "maxItems", FP_MCP_MAX_LIST);
        break;
    }
    }
    fp_sb d;
    fp_sb_init(&d);
    fp_sb_addf(&d, "--%s%s%s: %s%s", o->lng, o->metavar ? " " : "", o->metavar ? o->metavar : "", o->help,
               role_note(role));
    fp_json_add_str(j, "description", d.buf);
    fp_sb_free(&d);
    return j;
}

static bool opt_offered(const fp_opt *o, const fp_mcp_policy *p)
{
    return p->allow_gpu || fp_mcp_opt_role(o) != FP_MCP_PROGRAM;
}

cJSON *fp_mcp_tool_json(const fp_command *cmd, const fp_mcp_policy *p)
{
    cJSON *t = cJSON_CreateObject();
    fp_json_add_str(t, "name", cmd->name);
    fp_json_add_str(t, "title", cmd->summary);
    fp_sb d;
    fp_sb_init(&d);
    fp_sb_addf(&d, "%s.\n\nCLI: %s", cmd->summary, cmd->usage);
    if (cmd->details)
        fp_sb_addf(&d, "\n\n%s", cmd->details);
    fp_sb_adds(&d, "\n\nResult: the command's JSON envelope ({ok, command, data, warnings} or {ok:false, "
                   "error:{code, exitCode, message, help}}) as structuredContent, the table rendering as text.");
    fp_json_add_str(t, "description", d.buf);
    fp_sb_free(&d);

    cJSON *schema = cJSON_AddObjectToObject(t, "inputSchema");
    fp_json_add_str(schema, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(schema, "properties");
    cJSON *req = cJSON_CreateArray();

    u_info u;
    usage_parse(cmd, &u);
    char **pos;
    bool variadic;
    int npos = fp_mcp_positionals(cmd, &pos, &variadic);
    for (int i = 0; i < npos; i++) {
        bool is_var = variadic && i == npos - 1;
        if (is_var && !p->allow_gpu)
            continue; /* counters' live form runs an application */
        cJSON *j = cJSON_CreateObject();
        fp_sb pd;
        fp_sb_init(&pd);
        if (is_var) {
            fp_json_add_str(j, "type", "array");
            cJSON *it = cJSON_AddObjectToObject(j, "items");
            fp_json_add_str(it, "type", "string");
            fp_json_add_int(j, "minItems", 1);
            fp_json_add_int(j, "maxItems", FP_MCP_MAX_LIST);
            fp_sb_addf(&pd, "the words after `--` in `%s`%s", cmd->usage, role_note(FP_MCP_PROGRAM));
        } else {
            fp_json_add_str(j, "type", "string");
            fp_json_add_int(j, "minLength", 1);
            fp_json_add_int(j, "maxLength", FP_MCP_MAX_VALUE);
            if (u.subs && i == 0) {
                cJSON *e = cJSON_AddArrayToObject(j, "enum");
                for (int k = 0; k < u.nalt; k++)
                    if (u.alt[k].sub[0])
                        cJSON_AddItemToArray(e, cJSON_CreateString(u.alt[k].sub));
                fp_sb_adds(&pd, "the sub-command");
            } else if (u.subs) {
                fp_sb_addf(&pd, "argument %d after the sub-command:", i);
                for (int k = 0; k < u.nalt; k++)
                    if (u.alt[k].npos >= i)
                        fp_sb_addf(&pd, " %s %s%s;", u.alt[k].sub, u.alt[k].pos[i - 1],
                                   role_note(cmd_pos_role(cmd, word_role(u.alt[k].pos[i - 1]), i)));
                fp_sb_adds(&pd, " other sub-commands take none");
            } else {
                const char *w = u_longest(&u)->pos[i];
                fp_sb_addf(&pd, "positional argument %d (%s)%s", i + 1, w,
                           role_note(cmd_pos_role(cmd, word_role(w), i)));
            }
            fp_sb_addf(&pd, "; CLI: %s", cmd->usage);
            if (i < cmd->min_pos)
                cJSON_AddItemToArray(req, cJSON_CreateString(pos[i]));
        }
        fp_json_add_str(j, "description", pd.buf);
        fp_sb_free(&pd);
        cJSON_AddItemToObject(props, pos[i], j);
    }
    fp_mcp_names_free(pos, npos);

    for (const fp_opt *o = cmd->opts; o && o->lng; o++)
        if (opt_offered(o, p))
            cJSON_AddItemToObject(props, o->lng, opt_schema(cmd, o));
    if (global_opt(cmd, "bundle"))
        cJSON_AddItemToObject(props, "bundle", opt_schema(cmd, global_opt(cmd, "bundle")));
    if (cmd->bundle_required && !cmd->no_bundle)
        cJSON_AddItemToArray(req, cJSON_CreateString("bundle"));

    char **ro;
    int nro = fp_mcp_required_opts(cmd, &ro);
    for (int i = 0; i < nro; i++) {
        bool dup = false;
        for (const cJSON *r = req->child; r && !dup; r = r->next)
            dup = !strcmp(r->valuestring, ro[i]);
        if (!dup && cJSON_GetObjectItemCaseSensitive(props, ro[i]))
            cJSON_AddItemToArray(req, cJSON_CreateString(ro[i]));
    }
    fp_mcp_names_free(ro, nro);
    if (cJSON_GetArraySize(req))
        cJSON_AddItemToObject(schema, "required", req);
    else
        cJSON_Delete(req);
    cJSON_AddItemToObject(schema, "additionalProperties", cJSON_CreateFalse());
    return t;
}

/* ---- paths ---- */

static bool inside(const char *root, const char *p)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return p[0] == '/';
    return !strncmp(p, root, n) && (p[n] == '\0' || p[n] == '/');
}

/* The first part that does not resolve (cut points at the '/' before it): when it
 * exists as a link, a write there (SQLite creating a db, an output dir) would land
 * at the link's target, wherever that is. */
static bool dangling_link(const char *full, char *cut)
{
    char *end = strchr(cut + 1, '/');
    if (end)
        *end = '\0';
    struct stat st;
    bool link = lstat(full, &st) == 0 && S_ISLNK(st.st_mode);
    if (end)
        *end = '/';
    return link;
}

char *fp_mcp_confine(const char *root, const char *path, fp_err *err)
{
    if (!path || !path[0]) {
        fp_err_set(err, FP_USAGE, "empty path");
        return NULL;
    }
    fp_sb full;
    fp_sb_init(&full);
    if (path[0] == '/')
        fp_sb_adds(&full, path);
    else
        fp_sb_addf(&full, "%s/%s", root, path);
    /* Strip trailing slashes (realpath of the parent must not see "x/"). */
    while (full.len > 1 && full.buf[full.len - 1] == '/')
        full.buf[--full.len] = '\0';

    char *res = realpath(full.buf, NULL);
    if (!res && errno == ENOENT) {
        /* An output that does not exist yet: resolve the longest existing
         * ancestor, append the rest, which may not climb with "..". */
        char *cut = full.buf + full.len;
        while (!res) {
            char *slash = NULL;
            for (char *c = cut - 1; c > full.buf; c--)
                if (*c == '/') {
                    slash = c;
                    break;
                }
            if (!slash)
                break;
            *slash = '\0';
            res = realpath(full.buf, NULL);
            if (!res && errno != ENOENT)
                break;
            *slash = '/';
            cut = slash;
            if (res && dangling_link(full.buf, cut)) {
                fp_err_set(err, FP_BAD_ARGS, "path '%s' goes through a dangling symlink", path);
                fp_err_help(err, "its target cannot be checked against the server root; remove the link or give another path");
                free(res);
                fp_sb_free(&full);
                return NULL;
            }
            if (res) {
                fp_sb r;
                fp_sb_init(&r);
                fp_sb_adds(&r, res);
                free(res);
                res = NULL;
                bool bad = false;
                for (const char *c = cut; *c;) {
                    while (*c == '/')
                        c++;
                    const char *e = c;
                    while (*e && *e != '/')
                        e++;
                    if ((e - c == 2 && !strncmp(c, "..", 2)))
                        bad = true;
                    else if (e > c && !(e - c == 1 && *c == '.'))
                        fp_sb_addf(&r, "%s%.*s", r.len == 1 ? "" : "/", (int)(e - c), c);
                    c = e;
                }
                if (bad) {
                    fp_sb_free(&r);
                    fp_sb_free(&full);
                    fp_err_set(err, FP_BAD_ARGS, "path '%s' does not exist and climbs with '..'", path);
                    fp_err_help(err, "give a path inside the server root without '..' in its new part");
                    return NULL;
                }
                res = fp_sb_detach(&r);
                break;
            }
        }
    }
    fp_sb_free(&full);
    if (!res) {
        fp_err_set(err, FP_BAD_ARGS, "path '%s' cannot be resolved: %s", path, strerror(errno));
        return NULL;
    }
    if (!inside(root, res)) {
        fp_err_set(err, FP_BAD_ARGS, "path '%s' resolves to %s, outside the server root %s", path, res, root);
        fp_err_help(err, "this server only reads and writes under its --root; pass a path inside it");
        fp_err_extra(err, "root", cJSON_CreateString(root));
        free(res);
        return NULL;
    }
    return res;
}

/* ---- arguments -> argv ---- */

typedef struct argv_b {
    char **v;
    size_t n, cap;
} argv_b;

static void push(argv_b *a, char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        char **nv = realloc(a->v, a->cap * sizeof *nv);
        if (!nv)
            abort();
        a->v = nv;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

static char *fmt_opt(const char *lng, const char *val)
{
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_addf(&s, "--%s", lng);
    if (val)
        fp_sb_addf(&s, "=%s", val);
    return fp_sb_detach(&s);
}

void fp_mcp_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

static const char *json_type(const cJSON *v)
{
    return cJSON_IsBool(v) ? "boolean" : cJSON_IsNumber(v) ? "number" : cJSON_IsString(v) ? "string"
           : cJSON_IsArray(v) ? "array" : cJSON_IsObject(v) ? "object" : "null";
}

static int check_string(const char *what, const cJSON *v, fp_err *err)
{
    if (!cJSON_IsString(v) || !v->valuestring)
        return fp_err_set(err, FP_USAGE, "%s must be a string, got %s", what, json_type(v));
    size_t n = strlen(v->valuestring);
    if (n == 0)
        return fp_err_set(err, FP_USAGE, "%s must not be empty", what);
    if (n > FP_MCP_MAX_VALUE)
        return fp_err_set(err, FP_USAGE, "%s is longer than %d bytes", what, FP_MCP_MAX_VALUE);
    return 0;
}

/* A string value for role r: paths are confined and passed resolved. */
static char *role_value(const fp_mcp_policy *p, fp_mcp_role r, const char *what, const char *s, fp_err *err)
{
    char name[96];
    snprintf(name, sizeof name, "%s", what[0] == '\'' ? what + 1 : what);
    if (name[0] && name[strlen(name) - 1] == '\'')
        name[strlen(name) - 1] = '\0';
    if (r == FP_MCP_PROGRAM && !p->allow_gpu) {
        fp_err_set(err, FP_BAD_ARGS, "%s names a program to run: refused without --allow-gpu", what);
        return NULL;
    }
    if (r == FP_MCP_PATH) {
        char *res = fp_mcp_confine(p->root, s, err);
        if (!res)
            fp_err_extra(err, "argument", cJSON_CreateString(name));
        return res;
    }
    return strdup(s);
}

static int opt_value(const fp_command *cmd, const fp_opt *o, const fp_mcp_policy *p, const cJSON *v, argv_b *out,
                     fp_err *err)
{
    char what[96];
    snprintf(what, sizeof what, "'%s'", o->lng);
    fp_mcp_role role = cmd_opt_role(cmd, o);
    char buf[64];
    switch (o->kind) {
    case FP_OPT_FLAG:
        if (!cJSON_IsBool(v))
            return fp_err_set(err, FP_USAGE, "%s must be a boolean, got %s", what, json_type(v));
        if (cJSON_IsTrue(v))
            push(out, fmt_opt(o->lng, NULL));
        return 0;
    case FP_OPT_INT: {
        if (!cJSON_IsNumber(v))
            return fp_err_set(err, FP_USAGE, "%s must be an integer, got %s", what, json_type(v));
        double d = v->valuedouble;
        if (!isfinite(d) || d != floor(d) || d < -9.2e18 || d > 9.2e18)
            return fp_err_set(err, FP_USAGE, "%s must be an integer, got %g", what, d);
        long long ll = (long long)d;
        if (ll < o->min || ll > o->max)
            return fp_err_set(err, FP_USAGE, "%s must be between %lld and %lld, got %lld", what, o->min, o->max,
                              ll);
        snprintf(buf, sizeof buf, "%lld", ll);
        push(out, fmt_opt(o->lng, buf));
        return 0;
    }
    case FP_OPT_DOUBLE: {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return fp_err_set(err, FP_USAGE, "%s must be a number, got %s", what, json_type(v));
        if (o->min >= 0 && v->valuedouble < 0)
            return fp_err_set(err, FP_USAGE, "%s must not be negative, got %g", what, v->valuedouble);
        snprintf(buf, sizeof buf, "%.17g", v->valuedouble);
        push(out, fmt_opt(o->lng, buf));
        return 0;
    }
    case FP_OPT_CHOICE:
        if (check_string(what, v, err))
            return -1;
        for (const char *const *c = o->choices; c && *c; c++)
            if (!strcmp(*c, v->valuestring)) {
                push(out, fmt_opt(o->lng, *c));
                return 0;
            }
        {
            fp_sb sb;
            fp_sb_init(&sb);
            for (const char *const *c = o->choices; c && *c; c++)
                fp_sb_addf(&sb, "%s%s", c == o->choices ? "" : ", ", *c);
            fp_err_set(err, FP_USAGE, "%s must be one of %s", what, sb.buf);
            fp_sb_free(&sb);
        }
        return -1;
    case FP_OPT_STR: {
        if (check_string(what, v, err))
            return -1;
        char *val = role_value(p, role, what, v->valuestring, err);
        if (!val)
            return -1;
        push(out, fmt_opt(o->lng, val));
        free(val);
        return 0;
    }
    case FP_OPT_LIST: {
        int n = cJSON_GetArraySize(v);
        if (!cJSON_IsArray(v) || n < 1 || n > FP_MCP_MAX_LIST)
            return fp_err_set(err, FP_USAGE, "%s must be an array of 1 to %d strings", what, FP_MCP_MAX_LIST);
        for (const cJSON *it = v->child; it; it = it->next) {
            if (check_string(what, it, err))
                return -1;
            char *val = role_value(p, role, what, it->valuestring, err);
            if (!val)
                return -1;
            push(out, fmt_opt(o->lng, val));
            free(val);
        }
        return 0;
    }
    }
    return fp_err_set(err, FP_INTERNAL, "bad option kind");
}

static void accepted_help(const fp_command *cmd, const fp_mcp_policy *p, fp_err *err)
{
    cJSON *tool = fp_mcp_tool_json(cmd, p);
    cJSON *props = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tool, "inputSchema"),
                                                    "properties");
    fp_sb sb;
    fp_sb_init(&sb);
    for (const cJSON *it = props ? props->child : NULL; it; it = it->next)
        fp_sb_addf(&sb, "%s%s", sb.len ? ", " : "", it->string);
    fp_err_help(err, "tool '%s' accepts: %s (see its inputSchema)", cmd->name, sb.buf);
    fp_sb_free(&sb);
    cJSON_Delete(tool);
}

int fp_mcp_build_argv(const fp_command *cmd, const fp_mcp_policy *p, const cJSON *args, char ***argv,
                      fp_err *err)
{
    *argv = NULL;
    if (args && !cJSON_IsObject(args))
        return fp_err_set(err, FP_USAGE, "arguments must be an object");
    argv_b out = {0};
    push(&out, strdup(cmd->name));
    char **pos;
    bool variadic;
    int npos = fp_mcp_positionals(cmd, &pos, &variadic);
    const cJSON **posv = calloc((size_t)npos + 1, sizeof *posv);
    if (!posv)
        abort();
    int rc = 0;

    for (const cJSON *it = args ? args->child : NULL; it && rc == 0; it = it->next) {
        const char *k = it->string ? it->string : "";
        for (const cJSON *prev = args->child; prev != it; prev = prev->next)
            if (prev->string && !strcmp(prev->string, k)) {
                rc = fp_err_set(err, FP_USAGE, "argument '%s' given twice", k);
                break;
            }
        if (rc)
            break;
        int pi = -1;
        for (int i = 0; i < npos; i++)
            if (!strcmp(pos[i], k))
                pi = i;
        if (pi >= 0) {
            posv[pi] = it;
            continue;
        }
        const fp_opt *o = find_opt(cmd->opts, k);
        if (!o)
            o = global_opt(cmd, k);
        if (!o || !opt_offered(o, p)) {
            if (o)
                rc = fp_err_set(err, FP_BAD_ARGS, "argument '%s' names a program to run: refused without "
                                "--allow-gpu", k);
            else
                rc = fp_err_set(err, FP_USAGE, "unknown argument '%s' for tool '%s'", k, cmd->name);
            accepted_help(cmd, p, err);
            break;
        }
        rc = opt_value(cmd, o, p, it, &out, err);
    }

    u_info u;
    usage_parse(cmd, &u);
    const u_alt *alt = u_longest(&u); /* without sub-commands: the positional words */
    if (rc == 0 && u.subs) {
        const cJSON *v = posv[0];
        alt = NULL;
        for (int k = 0; v && cJSON_IsString(v) && k < u.nalt && !alt; k++)
            if (!strcmp(u.alt[k].sub, v->valuestring))
                alt = &u.alt[k];
        if (!alt) {
            fp_sb l;
            fp_sb_init(&l);
            for (int k = 0; k < u.nalt; k++)
                if (u.alt[k].sub[0])
                    fp_sb_addf(&l, "%s%s", l.len ? ", " : "", u.alt[k].sub);
            rc = v ? fp_err_set(err, FP_USAGE, "'%s' must be one of %s", pos[0], l.buf)
                   : fp_err_set(err, FP_USAGE, "missing required argument '%s' (%s)", pos[0], l.buf);
            fp_sb_free(&l);
        }
    }
    if (rc == 0 && cmd->bundle_required && !cmd->no_bundle && !cJSON_GetObjectItemCaseSensitive(args, "bundle"))
        rc = fp_err_set(err, FP_USAGE, "missing required argument 'bundle'");
    /* options the usage line requires: everywhere, or in the chosen sub-command */
    for (int i = 0; rc == 0 && i < alt->nreq; i++)
        if (!cJSON_GetObjectItemCaseSensitive(args, alt->req[i]) &&
            (u.subs || u_required_everywhere(&u, alt->req[i])))
            rc = fp_err_set(err, FP_USAGE, "missing required argument '%s'%s%s", alt->req[i],
                            u.subs ? " for " : "", u.subs ? alt->sub : "");

    if (rc == 0) {
        bool sep = false, gap = false;
        for (int i = 0; i < npos && rc == 0; i++) {
            const cJSON *v = posv[i];
            bool is_var = variadic && i == npos - 1;
            /* the metavar word of this slot in the chosen alternative, NULL = none */
            const char *w = is_var ? u.var
                            : u.subs ? (i == 0 ? "SUBCOMMAND" : i - 1 < alt->npos ? alt->pos[i - 1] : NULL)
                                     : (i < alt->npos ? alt->pos[i] : NULL);
            if (!v) {
                if (!is_var && w && (u.subs || i < cmd->min_pos))
                    rc = fp_err_set(err, FP_USAGE, "missing required argument '%s' (%s)%s%s", pos[i], w,
                                    u.subs ? " for " : "", u.subs ? alt->sub : "");
                gap = true;
                continue;
            }
            if (!w) {
                rc = fp_err_set(err, FP_USAGE, "'%s %s' takes no argument '%s'", cmd->name, alt->sub, pos[i]);
                break;
            }
            if (gap && !is_var) {
                rc = fp_err_set(err, FP_USAGE, "'%s' needs the positional arguments before it", pos[i]);
                break;
            }
            if (!sep) {
                push(&out, strdup("--"));
                sep = true;
            }
            char what[96];
            snprintf(what, sizeof what, "'%s'", pos[i]);
            if (is_var) {
                int n = cJSON_GetArraySize(v);
                if (!p->allow_gpu) {
                    rc = fp_err_set(err, FP_BAD_ARGS, "%s runs an application: refused without --allow-gpu", what);
                } else if (!cJSON_IsArray(v) || n < 1 || n > FP_MCP_MAX_LIST) {
                    rc = fp_err_set(err, FP_USAGE, "%s must be an array of 1 to %d strings", what, FP_MCP_MAX_LIST);
                } else {
                    for (const cJSON *x = v->child; x && rc == 0; x = x->next)
                        if (check_string(what, x, err) == 0)
                            push(&out, strdup(x->valuestring));
                        else
                            rc = -1;
                }
                continue;
            }
            if (check_string(what, v, err)) {
                rc = -1;
                break;
            }
            char *val = u.subs && i == 0 ? strdup(v->valuestring)
                                         : role_value(p, cmd_pos_role(cmd, word_role(w), i), what, v->valuestring, err);
            if (!val)
                rc = -1;
            else
                push(&out, val);
        }
    }
    free(posv);
    fp_mcp_names_free(pos, npos);
    if (rc && err && !err->help[0] && err->code == FP_USAGE)
        accepted_help(cmd, p, err);
    if (rc) {
        fp_mcp_argv_free(out.v);
        return -1;
    }
    *argv = out.v;
    return 0;
}
