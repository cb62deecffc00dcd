/* test_bubbles_side.c - bubbles' side jobs (wstates<k>.json, occupancy.json +
 * realtime.json) start before code.json is parsed, on threads of their own (--jobs 2):
 * an early error or a signal must stop them between files instead of waiting for them
 * to read everything (on a 1 GB replay that was 0.2-0.3 s before the error envelope).
 * Counted, not timed: a hook holds each job before its first file until the job's own
 * stop test says stop (or a bound passes), and the files read are counted. And a run
 * that goes through is the same with the jobs beside it as without. */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/analysis/bubbles_internal.h"
#include "flyprof/bubbles.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/fs.h"
#include "flyprof/model.h"

#define EXAMPLE FP_TEST_DATA "/../../examples/synthetic_gemm/att/ui_output_agent_4242_dispatch_3"

/* What a test's hook sees: its calls, and the signal flag it may raise. */
typedef struct seen {
    _Atomic int calls;
    volatile sig_atomic_t *sig;
} seen;

/* Hold the job until it is told to stop; a bound (~seconds) so that a job never told
 * fails the count below instead of hanging the test. */
static void hold_until_stopped(void *user, bool (*stopping)(const void *job), const void *job)
{
    atomic_fetch_add(&((seen *)user)->calls, 1);
    for (long i = 0; i < 2000000 && !stopping(job); i++)
        sched_yield();
}

static void count_only(void *user, bool (*stopping)(const void *job), const void *job)
{
    (void)stopping;
    (void)job;
    atomic_fetch_add(&((seen *)user)->calls, 1);
}

/* The signal comes as a side job is about to read its first file (with one job: after
 * the walk, on this thread). */
static void signal_now(void *user, bool (*stopping)(const void *job), const void *job)
{
    (void)stopping;
    (void)job;
    seen *s = user;
    atomic_fetch_add(&s->calls, 1);
    *s->sig = SIGINT;
}

static void probe_init(bub_side_probe *p, seen *s, void (*hook)(void *, bool (*)(const void *), const void *))
{
    memset(s, 0, sizeof *s);
    atomic_init(&s->calls, 0);
    p->hook = hook;
    p->user = s;
    atomic_init(&p->files, 0);
}

static void copy_file(const char *from, const char *to)
{
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err e = {0};
    assert_int_equal(fp_read_file(from, &sb, &e), 0);
    assert_int_equal(fp_write_atomic(to, sb.buf, sb.len, &e), 0);
    fp_sb_free(&sb);
}

/* A dispatch dir with the example's side files and waves but a malformed code.json. */
static char *bad_code_dir(void)
{
    char tmpl[] = "/tmp/fp_side_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    const char *keep[] = {"wstates1.json", "wstates2.json", "wstates3.json", "wstates4.json", "occupancy.json",
                          "realtime.json", "se0_sm0_sl0_wv0.json", "filenames.json"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
        char *from = fp_path_join(EXAMPLE, keep[i]), *to = fp_path_join(tmpl, keep[i]);
        copy_file(from, to);
        free(from);
        free(to);
    }
    char *code = fp_path_join(tmpl, "code.json");
    fp_err e = {0};
    assert_int_equal(fp_write_atomic(code, "{\"code\": [[", 11, &e), 0);
    free(code);
    return strdup(tmpl);
}

static void remove_dir(char *dir)
{
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(dir);
}

/* BAD_INPUT from code.json with --jobs 2: both side jobs were started (the hook saw
 * them), were told to stop, and read no file. */
static void test_early_error_stops_side_jobs(void **state)
{
    (void)state;
    char *dir = bad_code_dir();
    bub_side_probe probe;
    seen s;
    probe_init(&probe, &s, hold_until_stopped);
    fp_bubbles b;
    fp_err err = {0};
    assert_int_equal(fp_bub_analyze_probed(dir, FP_RANK_EXPOSED, &b, NULL, NULL, 2, NULL, &probe, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_int_equal(atomic_load(&s.calls), 2); /* wstates and occupancy, each held once */
    assert_int_equal(atomic_load(&probe.files), 0);
    fp_err_clear(&err);
    remove_dir(dir);
}

/* A signal (SIGINT) pending: INTERRUPTED, and the side jobs stop on it as the walk does
 * (nothing read), with one job or two. */
static void test_signal_stops_side_jobs(void **state)
{
    (void)state;
    for (int jobs = 1; jobs <= 2; jobs++) {
        volatile sig_atomic_t sig = SIGINT;
        bub_side_probe probe;
        seen s;
        probe_init(&probe, &s, hold_until_stopped);
        fp_bubbles b;
        fp_err err = {0};
        assert_int_equal(fp_bub_analyze_probed(EXAMPLE, FP_RANK_EXPOSED, &b, NULL, NULL, jobs, &sig, &probe, &err),
                         -1);
        assert_int_equal(err.code, FP_INTERRUPTED);
        assert_int_equal(atomic_load(&probe.files), 0);
        fp_err_clear(&err);
    }
}

/* A signal after the walk, before the wstates files are read: INTERRUPTED (the job
 * stops and what it made is partial), not a document from part of them. */
static void test_signal_after_walk(void **state)
{
    (void)state;
    for (int jobs = 1; jobs <= 2; jobs++) {
        volatile sig_atomic_t late_sig = 0;
        bub_side_probe probe;
        seen s;
        probe_init(&probe, &s, signal_now);
        s.sig = &late_sig;
        fp_bubbles b;
        fp_err err = {0};
        assert_int_equal(
            fp_bub_analyze_probed(EXAMPLE, FP_RANK_EXPOSED, &b, NULL, NULL, jobs, &late_sig, &probe, &err), -1);
        assert_int_equal(err.code, FP_INTERRUPTED);
        assert_true(atomic_load(&s.calls) >= 1);
        assert_int_equal(atomic_load(&probe.files), 0);
        fp_err_clear(&err);
    }
}

static char *doc_text(const char *dir, int jobs, size_t *files)
{
    bub_side_probe probe;
    seen s;
    probe_init(&probe, &s, count_only);
    fp_bubbles b;
    fp_err err = {0};
    assert_int_equal(fp_bub_analyze_probed(dir, FP_RANK_EXPOSED, &b, NULL, NULL, jobs, NULL, &probe, &err), 0);
    *files = atomic_load(&probe.files);
    fp_bubbles_doc doc;
    memset(&doc, 0, sizeof doc);
    fp_bubbles_doc_build(&b, &doc);
    fp_bubbles_free(&b);
    char *t = fp_model_print(&fp_bubbles_schema, &doc, NULL);
    fp_bubbles_doc_free(&doc);
    return t;
}

/* A run that goes through: the same document with the side jobs on threads started
 * first (--jobs 2) as on this thread after the walk (--jobs 1), every file read. */
static void test_side_jobs_same_result(void **state)
{
    (void)state;
    size_t f1 = 0, f2 = 0;
    char *a = doc_text(EXAMPLE, 1, &f1), *b = doc_text(EXAMPLE, 2, &f2);
    assert_string_equal(a, b);
    assert_int_equal(f1, 6); /* wstates1..4, occupancy.json, realtime.json */
    assert_int_equal(f2, 6);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_early_error_stops_side_jobs),
        cmocka_unit_test(test_signal_stops_side_jobs),
        cmocka_unit_test(test_signal_after_walk),
        cmocka_unit_test(test_side_jobs_same_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
