/* test_mcp.c - MCP tool schemas from the option tables (every option of every
 * command, types, enums, ranges, required), arguments -> argv that the CLI
 * parser accepts, path confinement and the --allow-gpu gates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/cmd/commands.h"
#include "flyprof/json.h"
#include "flyprof/mcp.h"

#define ENTRY(name) &fp_cmd_##name,
static const fp_command *const cmds[] = {FP_COMMANDS(ENTRY) NULL};
#undef ENTRY

static char g_root[4096];

static const fp_command *cmd_named(const char *n)
{
    for (const fp_command *const *c = cmds; *c; c++)
        if (!strcmp((*c)->name, n))
            return *c;
    fail_msg("no command %s", n);
    return NULL;
}

static const cJSON *props_of(const cJSON *tool)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tool, "inputSchema"), "properties");
}

static void test_every_option_in_schema(void **state)
{
    (void)state;
    static const char *const types[] = {"boolean", "string", "integer", "number", "string", "array"};
    for (int gpu = 0; gpu < 2; gpu++) {
        fp_mcp_policy p = {g_root, gpu == 1};
        for (const fp_command *const *c = cmds; *c; c++) {
            if (!strcmp((*c)->name, "mcp")) {
                assert_false(fp_mcp_tool_listed(*c, &p));
                continue;
            }
            cJSON *t = fp_mcp_tool_json(*c, &p);
            const cJSON *props = props_of(t);
            assert_non_null(props);
            assert_false(cJSON_IsTrue(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "inputSchema"),
                                                 "additionalProperties")));
            for (const fp_opt *o = (*c)->opts; o && o->lng; o++) {
                fp_mcp_role role = fp_mcp_opt_role(o);
                char wbuf[128];
                const char *w = fp_mcp_unclassified(*c, wbuf, sizeof wbuf);
                if (w)
                    fail_msg("%s: positional %s is not classified in src/core/mcp.c", (*c)->name, w);
                if (role == FP_MCP_UNKNOWN)
                    fail_msg("%s --%s: metavar '%s' is not classified in src/core/mcp.c (path or not?)",
                             (*c)->name, o->lng, o->metavar);
                const cJSON *s = cJSON_GetObjectItemCaseSensitive(props, o->lng);
                if (role == FP_MCP_PROGRAM && !p.allow_gpu) {
                    if (s)
                        fail_msg("%s --%s names a program but is offered without --allow-gpu", (*c)->name, o->lng);
                    continue;
                }
                if (!s)
                    fail_msg("%s --%s missing from the tool schema", (*c)->name, o->lng);
                assert_string_equal(fp_json_get_str(s, "type"), types[o->kind]);
                if (o->kind == FP_OPT_CHOICE) {
                    const cJSON *e = cJSON_GetObjectItemCaseSensitive(s, "enum");
                    int i = 0;
                    for (const char *const *ch = o->choices; *ch; ch++, i++)
                        assert_string_equal(cJSON_GetArrayItem(e, i)->valuestring, *ch);
                    assert_int_equal(cJSON_GetArraySize(e), i);
                }
                if (o->kind == FP_OPT_INT) {
                    int64_t mn, mx;
                    assert_int_equal(fp_json_get_i64(s, "minimum", &mn), 0);
                    assert_int_equal(fp_json_get_i64(s, "maximum", &mx), 0);
                    assert_true(mn == o->min && mx == o->max);
                }
            }
            /* every path the CLI checks (cmd->paths) is confined (or gated as a program) here too */
            for (const fp_path_rule *r = (*c)->paths; r && r->kind != FP_PATH_NONE; r++) {
                if (r->positional || !strcmp(r->opt, "bundle"))
                    continue;
                const fp_opt *o = (*c)->opts;
                while (o && o->lng && strcmp(o->lng, r->opt))
                    o++;
                assert_non_null(o && o->lng);
                const cJSON *s = cJSON_GetObjectItemCaseSensitive(props, o->lng);
                if (s && !strstr(fp_json_get_str(s, "description"), "inside the server root") &&
                    !strstr(fp_json_get_str(s, "description"), "needs the server's --allow-gpu"))
                    fail_msg("%s --%s is a path for the CLI but not confined by mcp", (*c)->name, o->lng);
            }
            if ((*c)->no_bundle)
                assert_null(cJSON_GetObjectItemCaseSensitive(props, "bundle"));
            /* nothing in the schema that the table does not have (bar positionals and --bundle) */
            char **pos;
            bool var;
            int np = fp_mcp_positionals(*c, &pos, &var);
            if ((*c)->max_pos >= 0)
                assert_int_equal(np, (*c)->max_pos);
            else
                assert_true(var && np >= 1);
            for (const cJSON *it = props->child; it; it = it->next) {
                bool known = !strcmp(it->string, "bundle");
                for (const fp_opt *o = (*c)->opts; o && o->lng && !known; o++)
                    known = !strcmp(o->lng, it->string);
                for (int i = 0; i < np && !known; i++)
                    known = !strcmp(pos[i], it->string);
                if (!known)
                    fail_msg("%s: schema property '%s' is no option", (*c)->name, it->string);
            }
            fp_mcp_names_free(pos, np);
            cJSON_Delete(t);
        }
    }
}

static void test_schema_details(void **state)
{
    (void)state;
    fp_mcp_policy p = {g_root, false};
    cJSON *t = fp_mcp_tool_json(cmd_named("hotspots"), &p);
    const cJSON *props = props_of(t);
    const cJSON *topk = cJSON_GetObjectItemCaseSensitive(props, "topk");
    int64_t v;
    assert_int_equal(fp_json_get_i64(topk, "default", &v), 0);
    assert_int_equal(v, 15);
    assert_int_equal(fp_json_get_i64(topk, "minimum", &v), 0);
    assert_int_equal(v, 1);
    assert_string_equal(fp_json_get_str(cJSON_GetObjectItemCaseSensitive(props, "mode"), "default"), "both");
    assert_string_equal(fp_json_get_str(cJSON_GetObjectItemCaseSensitive(props, "dir"), "type"), "string");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "inputSchema"), "required");
    assert_int_equal(cJSON_GetArraySize(req), 1);
    assert_string_equal(cJSON_GetArrayItem(req, 0)->valuestring, "dir");
    cJSON_Delete(t);

    /* map --dispatch defaults to -1 = "not set": no default in the schema */
    t = fp_mcp_tool_json(cmd_named("map"), &p);
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(props_of(t), "dispatch"), "default"));
    cJSON_Delete(t);

    /* diff: --before and --after are outside brackets in the usage line */
    t = fp_mcp_tool_json(cmd_named("diff"), &p);
    req = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "inputSchema"), "required");
    assert_int_equal(cJSON_GetArraySize(req), 2);
    assert_string_equal(cJSON_GetArrayItem(req, 0)->valuestring, "before");
    assert_string_equal(cJSON_GetArrayItem(req, 1)->valuestring, "after");
    cJSON_Delete(t);

    /* counters: the live application only with --allow-gpu */
    t = fp_mcp_tool_json(cmd_named("counters"), &p);
    assert_null(cJSON_GetObjectItemCaseSensitive(props_of(t), "app"));
    assert_null(cJSON_GetObjectItemCaseSensitive(props_of(t), "rocprofv3"));
    cJSON_Delete(t);
    p.allow_gpu = true;
    t = fp_mcp_tool_json(cmd_named("counters"), &p);
    assert_string_equal(fp_json_get_str(cJSON_GetObjectItemCaseSensitive(props_of(t), "app"), "type"), "array");
    cJSON_Delete(t);
    assert_true(fp_mcp_tool_listed(cmd_named("capture"), &p));
    p.allow_gpu = false;
    assert_false(fp_mcp_tool_listed(cmd_named("capture"), &p));
    assert_false(fp_mcp_tool_listed(cmd_named("run"), &p));
    assert_true(fp_mcp_tool_listed(cmd_named("counters"), &p));
}

/* A valid value for every offered option: the argv built from it must be
 * accepted by the CLI's own parser (the other direction of "cannot drift"). */
static void test_argv_parses(void **state)
{
    (void)state;
    fp_mcp_policy p = {g_root, true};
    for (const fp_command *const *c = cmds; *c; c++) {
        if (!fp_mcp_tool_listed(*c, &p))
            continue;
        cJSON *a = cJSON_CreateObject();
        for (const fp_opt *o = (*c)->opts; o && o->lng; o++) {
            bool path = fp_mcp_opt_role(o) == FP_MCP_PATH;
            switch (o->kind) {
            case FP_OPT_FLAG: cJSON_AddTrueToObject(a, o->lng); break;
            case FP_OPT_INT: cJSON_AddNumberToObject(a, o->lng, (double)o->max); break;
            case FP_OPT_DOUBLE: cJSON_AddNumberToObject(a, o->lng, 1.5); break;
            case FP_OPT_CHOICE: cJSON_AddStringToObject(a, o->lng, o->choices[0]); break;
            case FP_OPT_STR: cJSON_AddStringToObject(a, o->lng, path ? "." : "x"); break;
            case FP_OPT_LIST: {
                cJSON *l = cJSON_AddArrayToObject(a, o->lng);
                cJSON_AddItemToArray(l, cJSON_CreateString("."));
                cJSON_AddItemToArray(l, cJSON_CreateString("sub/new.csv"));
                break;
            }
            }
        }
        if (!(*c)->no_bundle)
            cJSON_AddStringToObject(a, "bundle", "b");
        char **pos;
        bool var;
        int np = fp_mcp_positionals(*c, &pos, &var);
        bool enumerated[16] = {false};
        for (int i = 0; i < np; i++) {
            if (var && i == np - 1) {
                cJSON *l = cJSON_AddArrayToObject(a, pos[i]);
                cJSON_AddItemToArray(l, cJSON_CreateString("-x"));
            } else {
                /* an enumerated positional (history's sub-command) takes its last value
                 * (import, which takes the next positional), any other a value that
                 * looks like a flag */
                cJSON *tj = fp_mcp_tool_json(*c, &p);
                const cJSON *en = cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(props_of(tj), pos[i]), "enum");
                cJSON_AddStringToObject(a, pos[i], en ? cJSON_GetArrayItem(en, cJSON_GetArraySize(en) - 1)->valuestring : "-k");
                if (i < 16)
                    enumerated[i] = en != NULL;
                cJSON_Delete(tj);
            }
        }
        fp_err e = {0};
        char **argv = NULL;
        if (fp_mcp_build_argv(*c, &p, a, &argv, &e) != 0)
            fail_msg("%s: %s", (*c)->name, e.message);
        /* main strips the global --bundle before the command's parser sees argv */
        int argc = 0, bundles = 0;
        for (int i = 0; argv[i]; i++) {
            if (!strncmp(argv[i], "--bundle=", 9)) {
                bundles++;
                free(argv[i]);
                continue;
            }
            argv[argc++] = argv[i];
        }
        argv[argc] = NULL;
        assert_int_equal(bundles, (*c)->no_bundle ? 0 : 1);
        void *args = calloc(1, (*c)->args_size ? (*c)->args_size : 1);
        char **ppos = NULL;
        int npos = 0;
        if (fp_parse_opts(*c, args, argc - 1, argv + 1, &ppos, &npos, &e) != 0)
            fail_msg("%s: the CLI refuses the built argv: %s", (*c)->name, e.message);
        if (!var)
            assert_int_equal(npos, np);
        for (int i = 0; i < npos; i++) { /* a path positional arrives resolved: <root>/-k */
            if (i < 16 && enumerated[i])
                continue;
            const char *w = var ? "-x" : "-k";
            size_t l = strlen(ppos[i]);
            assert_true(l >= 2 && !strcmp(ppos[i] + l - 2, w));
            assert_true(!strcmp(ppos[i], w) || !strncmp(ppos[i], g_root, strlen(g_root)));
        }
        for (const fp_opt *o = (*c)->opts; o && o->lng; o++)
            if (o->kind == FP_OPT_LIST) {
                fp_strlist *l = (fp_strlist *)((char *)args + o->off);
                assert_int_equal(l->n, 2);
                assert_string_equal(l->v[0], g_root);
                free(l->v);
            }
        free(ppos);
        free(args);
        fp_mcp_argv_free(argv);
        fp_mcp_names_free(pos, np);
        cJSON_Delete(a);
        fp_err_clear(&e);
    }
}

static int build(const char *cmd, bool gpu, const char *json, char ***argv, fp_err *e)
{
    fp_mcp_policy p = {g_root, gpu};
    cJSON *a = cJSON_Parse(json);
    assert_non_null(a);
    memset(e, 0, sizeof *e);
    int rc = fp_mcp_build_argv(cmd_named(cmd), &p, a, argv, e);
    cJSON_Delete(a);
    return rc;
}

static void expect_err(const char *cmd, bool gpu, const char *json, fp_errcode code, const char *needle)
{
    char **argv = NULL;
    fp_err e;
    if (build(cmd, gpu, json, &argv, &e) == 0)
        fail_msg("%s %s: accepted", cmd, json);
    assert_int_equal(e.code, code);
    if (!strstr(e.message, needle))
        fail_msg("%s %s: message '%s' lacks '%s'", cmd, json, e.message, needle);
    fp_err_clear(&e);
}

static void test_argv_values(void **state)
{
    (void)state;
    char **argv;
    fp_err e;
    assert_int_equal(build("hotspots", false, "{\"dir\":\"d\",\"topk\":3,\"detail\":true,\"mode\":\"asm\"}", &argv, &e),
                     0);
    char want_dir[4200];
    snprintf(want_dir, sizeof want_dir, "%s/d", g_root);
    const char *want[] = {"hotspots", "--topk=3", "--detail", "--mode=asm", "--", want_dir, NULL};
    for (int i = 0; want[i]; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[6]);
    fp_mcp_argv_free(argv);

    expect_err("hotspots", false, "{}", FP_USAGE, "missing required argument 'dir'");
    expect_err("hotspots", false, "{\"dir\":\"d\",\"nope\":1}", FP_USAGE, "unknown argument 'nope'");
    expect_err("hotspots", false, "{\"dir\":\"d\",\"topk\":\"3\"}", FP_USAGE, "must be an integer");
    expect_err("hotspots", false, "{\"dir\":\"d\",\"topk\":0}", FP_USAGE, "between 1 and");
    expect_err("hotspots", false, "{\"dir\":\"d\",\"topk\":2.5}", FP_USAGE, "must be an integer");
    expect_err("hotspots", false, "{\"dir\":\"d\",\"mode\":\"x\"}", FP_USAGE, "one of both, asm, src");
    expect_err("hotspots", false, "{\"dir\":\"d\",\"detail\":1}", FP_USAGE, "boolean");
    expect_err("hotspots", false, "{\"dir\":\"\"}", FP_USAGE, "empty");
    expect_err("hotspots", false, "{\"dir\":\"d\",\"dir\":\"e\"}", FP_USAGE, "given twice");
    expect_err("hotspots", false, "{\"dir\":\"/etc\"}", FP_BAD_ARGS, "outside the server root");
    expect_err("hotspots", false, "{\"dir\":\"../..\"}", FP_BAD_ARGS, "outside the server root");
    expect_err("report", false, "{\"bundle\":\"b\",\"out-dir\":\"new/../../x\"}", FP_BAD_ARGS, "'..'");
    expect_err("diff", false, "{\"before\":\"a\"}", FP_USAGE, "missing required argument 'after'");
    expect_err("tile", false, "{\"sclk-mhz\":-1}", FP_USAGE, "negative");
    expect_err("doctor", false, "{\"rocprofv3\":\"/bin/sh\"}", FP_BAD_ARGS, "--allow-gpu");
    expect_err("counters", false, "{\"app\":[\"sh\"]}", FP_BAD_ARGS, "--allow-gpu");
    expect_err("counters", true, "{\"app\":[]}", FP_USAGE, "array of 1");
    expect_err("counters", true, "{\"csv\":\"a.csv\"}", FP_USAGE, "array of 1");

    /* a symlink inside the root that leads out of it */
    char link[4200];
    snprintf(link, sizeof link, "%s/escape", g_root);
    assert_int_equal(symlink("/etc", link), 0);
    expect_err("hotspots", false, "{\"dir\":\"escape\"}", FP_BAD_ARGS, "outside the server root");
    expect_err("hotspots", false, "{\"dir\":\"escape/new/dir\"}", FP_BAD_ARGS, "outside the server root");

    /* an output that does not exist yet, inside the root */
    assert_int_equal(build("report", false, "{\"bundle\":\"b\",\"out-dir\":\"./new/./deeper/\"}", &argv, &e), 0);
    char want_out[4200];
    snprintf(want_out, sizeof want_out, "--out-dir=%s/new/deeper", g_root);
    assert_string_equal(argv[2], want_out); /* arguments keep their order: --bundle first */
    fp_mcp_argv_free(argv);

    /* with --allow-gpu the application words pass as given, after -- */
    assert_int_equal(build("counters", true, "{\"app\":[\"python3\",\"-c\",\"1\"],\"kernel\":\"k\"}", &argv, &e), 0);
    const char *want2[] = {"counters", "--kernel=k", "--", "python3", "-c", "1", NULL};
    for (int i = 0; want2[i]; i++)
        assert_string_equal(argv[i], want2[i]);
    fp_mcp_argv_free(argv);
}

/* Usage lines with sub-commands (history's) and a required group (kernels'). */
typedef struct hist_args {
    const char *db, *out, *kernel;
} hist_args;
static const fp_opt hist_opts[] = {
    {"db", 0, FP_OPT_STR, offsetof(hist_args, db), "FILE", "db", NULL, NULL, 0, 0},
    {"out", 'o', FP_OPT_STR, offsetof(hist_args, out), "PATH", "out", NULL, NULL, 0, 0},
    {"kernel", 'k', FP_OPT_STR, offsetof(hist_args, kernel), "K", "kernel", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};
static int no_run(fp_ctx *c, void *a, char **p, int n, fp_err *e) { return 0; }
static const fp_command hist = {
    .name = "hist",
    .summary = "s",
    .usage = "flyprof hist add --bundle DIR | list | show ID|latest | trend [--out DIR] | export [--out FILE] | "
             "import FILE  [--db FILE] [--kernel K]",
    .opts = hist_opts,
    .args_size = sizeof(hist_args),
    .min_pos = 1,
    .max_pos = 2,
    .run = no_run,
};
static const fp_command kern = {
    .name = "kern",
    .summary = "s",
    .usage = "flyprof kern (--db FILE | --out PATH | --bundle DIR) [--kernel K]",
    .opts = hist_opts,
    .args_size = sizeof(hist_args),
    .run = no_run,
};

static int hbuild(const fp_command *c, const char *json, char ***argv, fp_err *e)
{
    fp_mcp_policy p = {g_root, false};
    cJSON *a = cJSON_Parse(json);
    assert_non_null(a);
    memset(e, 0, sizeof *e);
    int rc = fp_mcp_build_argv(c, &p, a, argv, e);
    cJSON_Delete(a);
    return rc;
}

static void test_subcommands(void **state)
{
    (void)state;
    fp_mcp_policy p = {g_root, false};
    char **pos;
    bool var;
    int np = fp_mcp_positionals(&hist, &pos, &var);
    assert_int_equal(np, 2);
    assert_string_equal(pos[0], "subcommand");
    assert_string_equal(pos[1], "argument");
    fp_mcp_names_free(pos, np);
    char hbuf[128];
    assert_null(fp_mcp_unclassified(&hist, hbuf, sizeof hbuf));
    cJSON *t = fp_mcp_tool_json(&hist, &p);
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(t, "inputSchema");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(sch, "required");
    assert_int_equal(cJSON_GetArraySize(req), 1); /* --bundle only for add */
    assert_string_equal(cJSON_GetArrayItem(req, 0)->valuestring, "subcommand");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(props_of(t), "subcommand"),
                                                      "enum");
    assert_int_equal(cJSON_GetArraySize(e), 6);
    assert_string_equal(cJSON_GetArrayItem(e, 5)->valuestring, "import");
    cJSON_Delete(t);

    char **argv;
    fp_err err;
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"show\",\"argument\":\"latest\",\"kernel\":\"k\"}", &argv, &err),
                     0);
    const char *want[] = {"hist", "--kernel=k", "--", "show", "latest", NULL};
    for (int i = 0; want[i]; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[5]);
    fp_mcp_argv_free(argv);
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"add\",\"bundle\":\"b\"}", &argv, &err), 0);
    assert_string_equal(argv[3], "add");
    fp_mcp_argv_free(argv);
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"add\"}", &argv, &err), -1);
    assert_non_null(strstr(err.message, "missing required argument 'bundle' for add"));
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"show\"}", &argv, &err), -1);
    assert_non_null(strstr(err.message, "'argument' (ID|latest)"));
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"list\",\"argument\":\"x\"}", &argv, &err), -1);
    assert_non_null(strstr(err.message, "takes no argument"));
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"drop\"}", &argv, &err), -1);
    assert_non_null(strstr(err.message, "add, list, show, trend, export, import"));
    assert_int_equal(hbuild(&hist, "{}", &argv, &err), -1);
    assert_int_equal(err.code, FP_USAGE);
    /* import FILE is a path: confined; show ID is not */
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"import\",\"argument\":\"/etc/passwd\"}", &argv, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS);
    fp_err_clear(&err);
    assert_int_equal(hbuild(&hist, "{\"subcommand\":\"show\",\"argument\":\"/etc/passwd\"}", &argv, &err), 0);
    assert_string_equal(argv[3], "/etc/passwd");
    fp_mcp_argv_free(argv);

    /* a parenthesised group: none of its options is required on its own, no positional */
    np = fp_mcp_positionals(&kern, &pos, &var);
    assert_int_equal(np, 0);
    fp_mcp_names_free(pos, np);
    np = fp_mcp_required_opts(&kern, &pos);
    assert_int_equal(np, 0);
    fp_mcp_names_free(pos, np);
}

/* Issue 22 item 2: a dangling symlink inside the root is not a "new" part: a
 * write through it (SQLite creating the db) would land outside the root. */
static void test_confine_dangling_link(void **state)
{
    (void)state;
    char link[4300], ok[4300];
    snprintf(link, sizeof link, "%s/d/evil.db", g_root);
    assert_int_equal(symlink("/tmp/fp_mcp_outside_never_created.db", link), 0);
    fp_err e = {0};
    assert_null(fp_mcp_confine(g_root, "d/evil.db", &e));
    assert_int_equal(e.code, FP_BAD_ARGS);
    assert_non_null(strstr(e.message, "dangling symlink"));
    /* and below it */
    assert_null(fp_mcp_confine(g_root, "d/evil.db/x", &e));
    assert_int_equal(e.code, FP_BAD_ARGS);
    /* a plain new name next to it is still fine */
    char *r = fp_mcp_confine(g_root, "d/new.db", &e);
    assert_non_null(r);
    snprintf(ok, sizeof ok, "%s/d/new.db", g_root);
    assert_string_equal(r, ok);
    free(r);
    unlink(link);
}

static int setup(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_mcp_XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    char *r = realpath(d, NULL);
    snprintf(g_root, sizeof g_root, "%s", r);
    free(r);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/d", g_root);
    mkdir(sub, 0755);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_root);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_option_in_schema),
        cmocka_unit_test(test_schema_details),
        cmocka_unit_test(test_argv_parses),
        cmocka_unit_test(test_argv_values),
        cmocka_unit_test(test_subcommands),
        cmocka_unit_test(test_confine_dangling_link),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
