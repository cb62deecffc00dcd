/*
 * test_config.c - configuration precedence (flag > env > file > default),
 * the recorded sources, and the errors of bad values and bad files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/capture.h"
#include "flyprof/provenance.h"
#include "flyprof/config.h"
#include "flyprof/capture_doc.h"
#include "flyprof/fs.h"

static char g_dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(g_dir, "/tmp/fp_cfg_XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    setenv("HOME", g_dir, 1);
    unsetenv("XDG_CONFIG_HOME");
    static const char *vars[] = {"FLYPROF_WORKTREE", "FLYPROF_ROCPROFV3", "FLYPROF_PYTHON", "FLYPROF_GPU",
                                 "FLYPROF_ARCH",     "FLYPROF_RECIPES",   "FLYPROF_CONFIG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fp_err err = {0};
    fp_rm_rf_contents(g_dir, &err);
    return rmdir(g_dir);
}

static void write_cfg(const char *name, const char *text)
{
    char *p = fp_path_join(g_dir, name);
    fp_err err = {0};
    assert_int_equal(fp_write_atomic(p, text, strlen(text), &err), 0);
    free(p);
}

static void test_defaults(void **state)
{
    (void)state;
    fp_config c;
    fp_err err = {0};
    assert_int_equal(fp_config_load(&c, NULL, &err), 0);
    assert_null(c.worktree.value);
    assert_string_equal(c.worktree.source, "unset");
    assert_string_equal(c.rocprofv3.value, "rocprofv3");
    assert_string_equal(c.rocprofv3.source, "default");
    assert_string_equal(c.python.value, "python3");
    assert_int_equal(c.gpu, 0);
    assert_null(c.config_file);
    fp_config_free(&c);
}

static void test_precedence(void **state)
{
    (void)state;
    write_cfg("c.yaml", "worktree: /from/file\ngpu: 2\narch: gfx942\npython: /file/python\n");
    char *cfg = fp_path_join(g_dir, "c.yaml");
    setenv("FLYPROF_GPU", "5", 1);
    setenv("FLYPROF_PYTHON", "", 1); /* empty env = unset: the file wins */
    fp_config_args a = {.config = cfg, .worktree = "/from/flag"};
    fp_config c;
    fp_err err = {0};
    assert_int_equal(fp_config_load(&c, &a, &err), 0);
    assert_string_equal(c.worktree.value, "/from/flag");
    assert_string_equal(c.worktree.source, "flag");
    assert_int_equal(c.gpu, 5);
    assert_string_equal(c.gpu_text.source, "env");
    assert_string_equal(c.arch.value, "gfx942");
    assert_string_equal(c.arch.source, "config");
    assert_string_equal(c.python.value, "/file/python");
    assert_non_null(c.config_file);
    fp_cap_config cd;
    fp_config_to_doc(&c, &cd);
    cJSON *j = fp_model_write(&fp_cap_config_schema, &cd);
    fp_model_free(&fp_cap_config_schema, &cd);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "gpu"), "value")->valueint, 5);
    cJSON_Delete(j);
    fp_config_free(&c);
    unsetenv("FLYPROF_GPU");
    unsetenv("FLYPROF_PYTHON");
    free(cfg);
}

static void test_home_config(void **state)
{
    (void)state;
    char *d = fp_path_join(g_dir, ".config/flyprof");
    fp_err err = {0};
    assert_int_equal(fp_mkdir_p(d, &err), 0);
    write_cfg(".config/flyprof/config.yaml", "rocprofv3: /opt/rocm/bin/rocprofv3\n");
    fp_config c;
    assert_int_equal(fp_config_load(&c, NULL, &err), 0);
    assert_string_equal(c.rocprofv3.value, "/opt/rocm/bin/rocprofv3");
    assert_string_equal(c.rocprofv3.source, "config");
    fp_config_free(&c);
    char *f = fp_path_join(d, "config.yaml");
    unlink(f);
    free(f);
    free(d);
}

static void test_errors(void **state)
{
    (void)state;
    fp_config c;
    fp_err err = {0};
    fp_config_args a = {.gpu = "-1"};
    assert_int_equal(fp_config_load(&c, &a, &err), -1);
    assert_int_equal(err.code, FP_USAGE); /* a bad number on the command line */
    setenv("FLYPROF_GPU", "x", 1);         /* ... and from the environment a setting that makes no sense */
    fp_config_args none = {0};
    assert_int_equal(fp_config_load(&c, &none, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS);
    unsetenv("FLYPROF_GPU");
    a.gpu = "1x";
    assert_int_equal(fp_config_load(&c, &a, &err), -1);
    a.gpu = "256";
    assert_int_equal(fp_config_load(&c, &a, &err), -1);
    fp_config_args b = {.arch = "gfx950;rm -rf /"};
    assert_int_equal(fp_config_load(&c, &b, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS);
    fp_config_args e = {.worktree = ""};
    assert_int_equal(fp_config_load(&c, &e, &err), -1);
    assert_int_equal(err.code, FP_USAGE);

    write_cfg("typo.yaml", "worktre: /x\n");
    char *p = fp_path_join(g_dir, "typo.yaml");
    fp_config_args t = {.config = p};
    assert_int_equal(fp_config_load(&c, &t, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_non_null(strstr(err.message, "worktre"));
    free(p);
    write_cfg("list.yaml", "- a\n- b\n");
    p = fp_path_join(g_dir, "list.yaml");
    t.config = p;
    assert_int_equal(fp_config_load(&c, &t, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    free(p);
    write_cfg("nested.yaml", "worktree: {a: 1}\n");
    p = fp_path_join(g_dir, "nested.yaml");
    t.config = p;
    assert_int_equal(fp_config_load(&c, &t, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    free(p);
    write_cfg("broken.yaml", "worktree: [\n");
    p = fp_path_join(g_dir, "broken.yaml");
    t.config = p;
    assert_int_equal(fp_config_load(&c, &t, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    free(p);
    t.config = "/nonexistent/config.yaml";
    assert_int_equal(fp_config_load(&c, &t, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_err_clear(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_home_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
