/*
 * test_recipes.c - the recipes registry loader on hostile YAML: an alias bomb is
 * refused at once (issue 10 b), a legitimately shared anchor still loads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flyprof/fs.h"
#include "flyprof/recipes.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 356 bytes, 9 levels of 9 aliases: 9^9 = 387M copies if expanded. It ran for
 * minutes and took GBs before the conversion had a node budget. */
static void test_alias_bomb_refused(void **state)
{
    (void)state;
    alarm(20); /* a regression fails instead of hanging the suite */
    fp_recipes r = {0};
    fp_err e = {0};
    double t0 = now_s();
    assert_int_equal(fp_recipes_load(FP_TEST_DATA "/hostile/alias_bomb.yaml", &r, &e), -1);
    double dt = now_s() - t0;
    alarm(0);
    assert_int_equal(e.code, FP_BAD_INPUT);
    assert_non_null(strstr(e.message, "alias bomb"));
    assert_int_equal(r.n, 0);
    fp_err_clear(&e);
    /* not a timed assertion of speed: a guard that it stopped at the budget and did not expand */
    assert_true(dt < 10.0);
    fp_recipes_free(&r);
}

static void test_shared_anchor_loads(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_rcp_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *p = fp_path_join(tmpl, "recipes.yaml");
    static const char text[] = "common: &req [\"torch\", \"flydsl\"]\n"
                               "recipes:\n"
                               "  - {name: gemm_a, test_file: tests/kernels/test_a.py, requires: *req}\n"
                               "  - {name: gemm_b, test_file: tests/kernels/test_b.py, requires: *req}\n";
    fp_err e = {0};
    assert_int_equal(fp_write_atomic(p, text, sizeof text - 1, &e), 0);
    fp_recipes r = {0};
    assert_int_equal(fp_recipes_load(p, &r, &e), 0);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.v[1].name, "gemm_b");
    assert_int_equal(r.v[1].n_requires, 2);
    assert_string_equal(r.v[1].requires[1], "flydsl");
    fp_recipes_free(&r);
    unlink(p);
    rmdir(tmpl);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alias_bomb_refused),
        cmocka_unit_test(test_shared_anchor_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
