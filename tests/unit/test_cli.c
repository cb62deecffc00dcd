/* test_cli.c - the table-driven option parser: kinds, bounds, defaults, positionals, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/cli.h"

typedef struct args {
    long long topk;
    bool detail;
    const char *mode;
    const char *kernel;
    double ideal;
    fp_strlist csv;
    long long dispatch;
} args;

static const char *const modes[] = {"asm", "src", "both", NULL};

static const fp_opt opts[] = {
    {"topk", 0, FP_OPT_INT, offsetof(args, topk), "N", "rows", "15", NULL, 1, 1000000},
    {"detail", 'd', FP_OPT_FLAG, offsetof(args, detail), NULL, "detail", NULL, NULL, 0, 0},
    {"mode", 'm', FP_OPT_CHOICE, offsetof(args, mode), "M", "mode", "both", modes, 0, 0},
    {"kernel", 0, FP_OPT_STR, offsetof(args, kernel), "NAME", "kernel", NULL, NULL, 0, 0},
    {"ideal-gb", 0, FP_OPT_DOUBLE, offsetof(args, ideal), "GB", "ideal", NULL, NULL, 0, 0},
    {"csv", 0, FP_OPT_LIST, offsetof(args, csv), "FILE", "csv", NULL, NULL, 0, 0},
    {"dispatch", 0, FP_OPT_INT, offsetof(args, dispatch), "N", "not set by default", "-1", NULL, 0, 99},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

static int dummy_run(fp_ctx *c, void *a, char **p, int n, fp_err *e) { return 0; }

static const fp_command cmd = {.name = "t", .summary = "test", .usage = "flyprof t DIR", .opts = opts,
                               .args_size = sizeof(args), .min_pos = 1, .max_pos = 1, .run = dummy_run};

static int parse(args *a, fp_err *e, int argc, char **argv, char ***pos, int *npos)
{
    memset(a, 0, sizeof *a);
    memset(e, 0, sizeof *e);
    return fp_parse_opts(&cmd, a, argc, argv, pos, npos, e);
}

static void test_defaults_and_values(void **state)
{
    (void)state;
    args a;
    fp_err e;
    char **pos;
    int npos;
    char *argv[] = {"dir", "--topk=7", "-d", "--mode", "src", "--kernel", "k", "--ideal-gb", "1.5",
                    "--csv", "a.csv", "b.csv", "--csv", "c.csv"};
    assert_int_equal(parse(&a, &e, 14, argv, &pos, &npos), 0);
    assert_int_equal(npos, 1);
    assert_string_equal(pos[0], "dir");
    assert_int_equal(a.topk, 7);
    assert_true(a.detail);
    assert_string_equal(a.mode, "src");
    assert_string_equal(a.kernel, "k");
    assert_true(a.ideal == 1.5);
    assert_int_equal(a.csv.n, 3);
    assert_string_equal(a.csv.v[2], "c.csv");
    free(a.csv.v);
    free(pos);

    char *argv2[] = {"dir"};
    assert_int_equal(parse(&a, &e, 1, argv2, &pos, &npos), 0);
    assert_int_equal(a.topk, 15);
    assert_int_equal(a.dispatch, -1); /* out-of-range default = "not set" sentinel */
    assert_string_equal(a.mode, "both");
    assert_false(a.detail);
    free(pos);
}

static void test_usage_errors(void **state)
{
    (void)state;
    struct {
        int argc;
        char *argv[4];
    } bad[] = {
        {2, {"dir", "--topk"}},           {3, {"dir", "--topk", "0"}},
        {3, {"dir", "--topk", "-3"}},     {3, {"dir", "--topk", "12x"}},
        {3, {"dir", "--topk", "99999999999999999999"}},
        {3, {"dir", "--mode", "all"}},    {2, {"dir", "--nope"}},
        {2, {"dir", "-z"}},               {2, {"dir", "--detail=yes"}},
        {0, {NULL}},                      {2, {"a", "b"}},
        {3, {"dir", "--ideal-gb", "-1"}}, {3, {"dir", "--ideal-gb", "nan"}},
        {3, {"dir", "--kernel", ""}},     {2, {"dir", "-dz"}},
        {3, {"dir", "--dispatch", "-1"}}, /* the sentinel is not a value a user can pass */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        args a;
        fp_err e;
        char **pos;
        int npos;
        if (parse(&a, &e, bad[i].argc, bad[i].argv, &pos, &npos) != -1)
            fail_msg("accepted bad argv #%zu", i);
        assert_int_equal(e.code, FP_USAGE);
        assert_true(strlen(e.message) > 0);
        free(a.csv.v);
        free(pos);
    }
}

/* -dm asm = -d -m asm; -masm = -m asm; a value-taking letter ends the cluster */
static void test_short_clusters(void **state)
{
    (void)state;
    args a;
    fp_err e;
    char **pos;
    int npos;
    char *argv[] = {"dir", "-dm", "asm"};
    assert_int_equal(parse(&a, &e, 3, argv, &pos, &npos), 0);
    assert_true(a.detail);
    assert_string_equal(a.mode, "asm");
    assert_int_equal(npos, 1);
    free(pos);
    char *argv2[] = {"-msrc", "dir"};
    assert_int_equal(parse(&a, &e, 2, argv2, &pos, &npos), 0);
    assert_false(a.detail);
    assert_string_equal(a.mode, "src");
    assert_int_equal(npos, 1);
    free(pos);
    char *argv3[] = {"dir", "-md"}; /* "d" is the value of -m: not a mode */
    assert_int_equal(parse(&a, &e, 2, argv3, &pos, &npos), -1);
    assert_int_equal(e.code, FP_USAGE);
    free(pos);
}

static void test_did_you_mean(void **state)
{
    (void)state;
    static const char *const cmds[] = {"run", "report", "rules", "bundle", "bubbles", "map"};
    assert_string_equal(fp_did_you_mean("reprot", 6, cmds, 6), "report"); /* transposition */
    assert_string_equal(fp_did_you_mean("bundel", 6, cmds, 6), "bundle");
    assert_string_equal(fp_did_you_mean("rulez", 5, cmds, 6), "rules");
    assert_string_equal(fp_did_you_mean("bubb", 4, cmds, 6), "bubbles"); /* unique prefix */
    assert_null(fp_did_you_mean("frobnicate", 10, cmds, 6));
    assert_null(fp_did_you_mean("xyz", 3, cmds, 6));
    args a;
    fp_err e;
    char **pos;
    int npos;
    char *argv[] = {"dir", "--topkk", "3"};
    assert_int_equal(parse(&a, &e, 3, argv, &pos, &npos), -1);
    assert_int_equal(e.code, FP_USAGE);
    assert_non_null(strstr(e.message, "did you mean --topk?"));
    assert_string_equal(cJSON_GetObjectItem(e.extra, "didYouMean")->valuestring, "--topk");
    fp_err_clear(&e);
    free(pos);
    char *argv2[] = {"dir", "--mode", "bth"};
    assert_int_equal(parse(&a, &e, 3, argv2, &pos, &npos), -1);
    assert_non_null(strstr(e.message, "did you mean 'both'?"));
    fp_err_clear(&e);
    free(pos);
}

static void test_double_dash(void **state)
{
    (void)state;
    args a;
    fp_err e;
    char **pos;
    int npos;
    char *argv[] = {"--", "--topk"};
    assert_int_equal(parse(&a, &e, 2, argv, &pos, &npos), 0);
    assert_int_equal(npos, 1);
    assert_string_equal(pos[0], "--topk");
    free(pos);
}

static void test_help_from_table(void **state)
{
    (void)state;
    cJSON *j = fp_command_help_json(&cmd);
    cJSON *o = cJSON_GetObjectItem(j, "options");
    assert_int_equal(cJSON_GetArraySize(o), 7);
    assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(o, 6), "default")); /* sentinel not shown */
    cJSON *first = cJSON_GetArrayItem(o, 0);
    assert_string_equal(cJSON_GetObjectItem(first, "flag")->valuestring, "--topk");
    assert_string_equal(cJSON_GetObjectItem(first, "default")->valuestring, "15");
    assert_int_equal(cJSON_GetObjectItem(first, "min")->valueint, 1);
    cJSON_Delete(j);
    fp_sb sb;
    fp_sb_init(&sb);
    fp_command_help_text(&cmd, &sb);
    assert_non_null(strstr(sb.buf, "usage: flyprof t DIR"));
    assert_non_null(strstr(sb.buf, "--mode M"));
    fp_sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_values),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_double_dash),
        cmocka_unit_test(test_short_clusters),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_help_from_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
