/*
 * test_proc.c - the subprocess layer: exit status, captured output, env and
 * cwd, timeout killing the whole process group (grandchild included),
 * cancellation through the interrupt flag, and a missing executable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flyprof/cpus.h"
#include "flyprof/fs.h"
#include "flyprof/proc.h"

static void test_exit_status_and_output(void **state)
{
    (void)state;
    const char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    fp_sb out, errb;
    fp_sb_init(&out);
    fp_sb_init(&errb);
    fp_proc_opts o = {.argv = argv, .stdout_buf = &out, .stderr_buf = &errb, .timeout_s = 10};
    fp_proc_result r;
    fp_err err = {0};
    assert_int_equal(fp_proc_run(&o, &r, &err), 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 3);
    assert_false(r.timed_out);
    assert_string_equal(out.buf, "out\n");
    assert_string_equal(errb.buf, "err\n");
    fp_sb_free(&out);
    fp_sb_free(&errb);
}

static void test_env_cwd_and_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_proc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *outp = fp_path_join(dir, "o.txt");
    const char *env[] = {"FP_PROC_TEST=hello world", "HOME", NULL};
    const char *argv[] = {"sh", "-c", "printf '%s|%s|%s' \"$FP_PROC_TEST\" \"${HOME-unset}\" \"$(pwd)\"",
                          NULL};
    fp_proc_opts o = {.argv = argv, .env = env, .cwd = dir, .stdout_path = outp};
    fp_proc_result r;
    fp_err err = {0};
    assert_int_equal(fp_proc_run(&o, &r, &err), 0);
    assert_int_equal(r.exit_code, 0);
    fp_sb got;
    fp_sb_init(&got);
    assert_int_equal(fp_read_file(outp, &got, &err), 0);
    char want[512];
    char *real = realpath(dir, NULL);
    snprintf(want, sizeof want, "hello world|unset|%s", real);
    assert_string_equal(got.buf, want);
    free(real);
    fp_sb_free(&got);
    unlink(outp);
    rmdir(dir);
    free(outp);
}

static void test_timeout_kills_sleep(void **state)
{
    (void)state;
    const char *argv[] = {"sleep", "30", NULL};
    fp_proc_opts o = {.argv = argv, .timeout_s = 0.3};
    fp_proc_result r;
    fp_err err = {0};
    assert_int_equal(fp_proc_run(&o, &r, &err), -1);
    assert_int_equal(err.code, FP_CAPTURE_TIMEOUT);
    assert_true(r.timed_out);
    assert_false(r.exited);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.elapsed_s < 5.0);
}

/* The grandchild ignores SIGTERM and keeps stdout open: the group SIGKILL must
 * still end it, and fp_proc_run must not wait for the pipe's EOF. */
static void test_timeout_kills_grandchild(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_proc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *pidf = fp_path_join(dir, "gc.pid");
    char script[512];
    snprintf(script, sizeof script,
             "sh -c 'trap \"\" TERM; echo $$ > %s; while :; do sleep 1; done' & wait", pidf);
    const char *argv[] = {"sh", "-c", script, NULL};
    fp_sb out;
    fp_sb_init(&out);
    fp_proc_opts o = {.argv = argv, .timeout_s = 0.5, .stdout_buf = &out};
    fp_proc_result r;
    fp_err err = {0};
    assert_int_equal(fp_proc_run(&o, &r, &err), -1);
    assert_int_equal(err.code, FP_CAPTURE_TIMEOUT);
    fp_sb pid_text;
    fp_sb_init(&pid_text);
    assert_int_equal(fp_read_file(pidf, &pid_text, &err), 0);
    pid_t gc = (pid_t)atoi(pid_text.buf);
    assert_true(gc > 1);
    /* SIGKILL was sent; give the kernel a moment to reap it (it is re-parented to init). */
    int alive = 1;
    for (int i = 0; i < 100 && alive; i++) {
        alive = kill(gc, 0) == 0;
        if (alive) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    assert_false(alive);
    fp_sb_free(&pid_text);
    fp_sb_free(&out);
    unlink(pidf);
    rmdir(dir);
    free(pidf);
}

static volatile sig_atomic_t g_flag;

static void test_interrupt(void **state)
{
    (void)state;
    g_flag = SIGINT; /* already set: the child is killed at the first check */
    const char *argv[] = {"sleep", "30", NULL};
    fp_proc_opts o = {.argv = argv, .interrupted = &g_flag};
    fp_proc_result r;
    fp_err err = {0};
    assert_int_equal(fp_proc_run(&o, &r, &err), -1);
    assert_int_equal(err.code, FP_INTERRUPTED);
    assert_true(r.interrupted);
    assert_true(r.elapsed_s < 5.0);
    g_flag = 0;
}

static void test_missing_executable(void **state)
{
    (void)state;
    const char *argv[] = {"fp-no-such-program-xyz", NULL};
    fp_proc_opts o = {.argv = argv};
    fp_proc_result r;
    fp_err err = {0};
    assert_int_equal(fp_proc_run(&o, &r, &err), -1);
    assert_int_equal(err.code, FP_MISSING_PREREQ);
    assert_true(r.exec_failed);
    assert_int_equal(r.exec_errno, ENOENT);

    const char *argv2[] = {"/nonexistent/dir/prog", NULL};
    o.argv = argv2;
    assert_int_equal(fp_proc_run(&o, &r, &err), -1);
    assert_true(r.exec_failed);

    /* A bad cwd is an exec-time failure reported through the errno pipe. */
    const char *argv3[] = {"true", NULL};
    fp_proc_opts o3 = {.argv = argv3, .cwd = "/nonexistent/dir"};
    assert_int_equal(fp_proc_run(&o3, &r, &err), -1);
    assert_true(r.exec_failed);
    assert_int_equal(r.exec_errno, ENOENT);
}

static void test_which_and_argv_str(void **state)
{
    (void)state;
    char *p = fp_proc_which("sh", "/nonexistent:/bin:/usr/bin");
    assert_non_null(p);
    assert_true(strstr(p, "/sh") != NULL);
    free(p);
    assert_null(fp_proc_which("sh", "/nonexistent"));
    /* a relative program path becomes absolute: the child may chdir before exec */
    char dir[] = "/tmp/fp_proc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *prog = fp_path_join(dir, "prog.sh");
    fp_err err = {0};
    assert_int_equal(fp_write_atomic(prog, "#!/bin/sh\necho ran\n", 19, &err), 0);
    chmod(prog, 0755);
    char old[4096];
    assert_non_null(getcwd(old, sizeof old));
    assert_int_equal(chdir(dir), 0);
    p = fp_proc_which("./prog.sh", NULL);
    assert_non_null(p);
    assert_string_equal(p, prog);
    const char *rargv[] = {"./prog.sh", NULL};
    fp_sb out;
    fp_sb_init(&out);
    fp_proc_opts o = {.argv = rargv, .cwd = "/", .stdout_buf = &out};
    fp_proc_result r;
    assert_int_equal(fp_proc_run(&o, &r, &err), 0);
    assert_string_equal(out.buf, "ran\n");
    assert_int_equal(chdir(old), 0);
    fp_sb_free(&out);
    free(p);
    unlink(prog);
    rmdir(dir);
    free(prog);
    assert_null(fp_proc_which("", NULL));
    const char *argv[] = {"rocprofv3", "-i", "a b.yaml", "--", "python", "it's.py", NULL};
    fp_sb s;
    fp_sb_init(&s);
    fp_proc_argv_str(argv, &s);
    assert_string_equal(s.buf, "rocprofv3 -i 'a b.yaml' -- python 'it'\\''s.py'");
    fp_sb_free(&s);
}

/* bubbles' default --jobs reads the CPUs this process may run on: its affinity mask, not
 * the online CPUs (a cpuset of one must give 1, whatever the machine has). */
static void test_cpus_usable(void **state)
{
    (void)state;
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    assert_int_equal(fp_cpus_usable(), CPU_COUNT(&all));
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    int pinned = fp_cpus_usable();
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    assert_int_equal(pinned, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_status_and_output), cmocka_unit_test(test_env_cwd_and_files),
        cmocka_unit_test(test_timeout_kills_sleep),    cmocka_unit_test(test_timeout_kills_grandchild),
        cmocka_unit_test(test_interrupt),              cmocka_unit_test(test_missing_executable),
        cmocka_unit_test(test_which_and_argv_str),     cmocka_unit_test(test_cpus_usable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
