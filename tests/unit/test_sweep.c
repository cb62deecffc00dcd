/* test_sweep.c - sweep's pure parts: task names, Slurm states, counts, table and
 * SVG (escaping, layout), and the YAML spec reader (yaml_json.c) with the spec table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "flyprof/json.h"
#include "flyprof/sweep.h"
#include "flyprof/yaml_json.h"

static void test_task_name(void **state)
{
    (void)state;
    char *n = fp_sweep_task_name("rmsnorm", "4096,8192,bf16");
    assert_string_equal(n, "rmsnorm--4096_8192_bf16");
    free(n);
    n = fp_sweep_task_name("../x y", "a/b\n\xc3\xa9");
    assert_string_equal(n, "_._x_y--a_b___"); /* no '/', no hidden name, UTF-8 bytes replaced */
    free(n);
}

static void test_slurm_states(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"COMPLETED", "ok"},         {"TIMEOUT", "timeout"},      {"CANCELLED by 0", "cancelled"},
        {"CANCELLED", "cancelled"},  {"NODE_FAIL", "failed"},     {"OUT_OF_MEMORY", "failed"},
        {"PENDING", "pending"},      {"RUNNING", "running"},      {"COMPLETING", "running"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(fp_sweep_status_of_slurm(cases[i][0]), cases[i][1]);
    assert_null(fp_sweep_status_of_slurm("COMPLETEDX")); /* a prefix is not a state */
    assert_null(fp_sweep_status_of_slurm("WHATEVER"));
    assert_null(fp_sweep_status_of_slurm(NULL));
    assert_true(fp_sweep_status_final("timeout"));
    assert_false(fp_sweep_status_final("running"));
}

static fp_sweep_row row(const char *k, const char *s, const char *status, double us)
{
    fp_sweep_row r;
    memset(&r, 0, sizeof r);
    r.kernel = (char *)k;
    r.shape = (char *)s;
    r.status = (char *)status;
    r.duration_us = us > 0 ? fp_optd_of(us) : fp_optd_none();
    r.bound = (char *)"memory";
    return r;
}

static void test_count_table_svg(void **state)
{
    (void)state;
    fp_sweep_row rows[] = {row("a<b>", "1,2", "ok", 10), row("a<b>", "3,4", "ok", 100), row("c", "1,2", "timeout", 0),
                           row("c", "3,4", "running", 0)};
    fp_sweep_doc d;
    memset(&d, 0, sizeof d);
    d.tasks = rows;
    d.nrows = 4;
    d.out = (char *)"/x";
    d.backend = (char *)"slurm";
    fp_sweep_count(&d);
    assert_int_equal(d.ntasks, 4);
    assert_int_equal(d.n_ok, 2);
    assert_int_equal(d.n_timeout, 1);
    assert_int_equal(d.n_unfinished, 1);
    fp_sb t;
    fp_sb_init(&t);
    fp_sweep_table(&d, &t);
    assert_non_null(strstr(t.buf, "4 task(s): 2 ok, 0 failed, 0 cancelled, 1 timeout, 1 unfinished"));
    assert_non_null(strstr(t.buf, "100.00"));
    fp_sb_free(&t);
    fp_sb svg;
    fp_sb_init(&svg);
    fp_sweep_svg(&d, &svg);
    assert_null(strstr(svg.buf, "a<b>"));            /* escaped */
    assert_non_null(strstr(svg.buf, ">a&lt;b&gt;<"));
    assert_non_null(strstr(svg.buf, "rgb(90,200,90)"));  /* the fastest shape: green */
    assert_non_null(strstr(svg.buf, "rgb(240,80,90)"));  /* 10x slower: red */
    assert_non_null(strstr(svg.buf, ">timeout<"));
    /* 2 kernels x 2 shapes: four cells */
    size_t cells = 0;
    for (const char *p = svg.buf; (p = strstr(p, "width=\"150\"")); p++)
        cells++;
    assert_int_equal(cells, 4);
    fp_sb_free(&svg);
}

static char *tmp_file(const char *name, const char *text)
{
    char dir[] = "/tmp/fp_sweep_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    return p;
}

static void read_spec(const char *name, const char *text, int want_rc, const char *want)
{
    char *p = tmp_file(name, text);
    cJSON *j = NULL;
    fp_err err = {0};
    int rc = fp_yaml_json_parse_file(p, &j, &err);
    fp_sweep_spec s;
    if (rc == 0) {
        rc = fp_model_read(&fp_sweep_spec_schema, j, &s, "spec", &err);
        if (rc == 0) {
            cJSON *w = fp_model_write(&fp_sweep_spec_schema, &s);
            char *out = fp_json_print(w, false);
            assert_string_equal(out, want);
            free(out);
            cJSON_Delete(w);
            fp_model_free(&fp_sweep_spec_schema, &s);
        }
    }
    assert_int_equal(rc, want_rc);
    if (rc != 0 && !strstr(err.message, want))
        fail_msg("'%s' does not say '%s'", err.message, want);
    cJSON_Delete(j);
    fp_err_clear(&err);
    unlink(p);
    *strrchr(p, '/') = '\0';
    rmdir(p);
    free(p);
}

static void test_spec_reader(void **state)
{
    (void)state;
    read_spec("s.yaml",
              "# a comment\nkernels:\n  - name: rmsnorm\n    shapes:\n      - 4096,8192,bf16\n      - \"8192\"\n"
              "gpus_per_task: 2\nslurm: {partition: gpu, time: '00:20:00', extra: [--exclusive]}\n",
              0,
              "{\"kernels\":[{\"name\":\"rmsnorm\",\"shapes\":[\"4096,8192,bf16\",\"8192\"]}],\"gpus_per_task\":2,"
              "\"slurm\":{\"partition\":\"gpu\",\"time\":\"00:20:00\",\"extra\":[\"--exclusive\"]}}");
    read_spec("s.json", "{\"kernels\":[{\"name\":\"a\",\"shapes\":[\"x\"]}]}", 0,
              "{\"kernels\":[{\"name\":\"a\",\"shapes\":[\"x\"]}]}");
    /* a plain number is a number, so the strict table refuses it as a shape */
    read_spec("s.yaml", "kernels: [{name: a, shapes: [8192]}]", -1, "$.kernels[0].shapes[0]: expected a string");
    read_spec("s.yaml", "kernels: [{name: a, name: b, shapes: [x]}]", -1, "duplicate key 'name'");
    read_spec("s.yaml", "kernels: &x [*x]", -1, "line 1: aliases are not supported");
    read_spec("s.yaml", "a: 1\n---\nb: 2\n", -1, "line 2: more than one document");
    read_spec("s.yaml", "", -1, "empty document");
    read_spec("s.yaml", "kernels: [{name: a, shapes: [x]}]\nextra_key: 1\n", -1, "$.extra_key");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_name),
        cmocka_unit_test(test_slurm_states),
        cmocka_unit_test(test_count_table_svg),
        cmocka_unit_test(test_spec_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
