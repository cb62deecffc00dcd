/*
 * proc.h - run one external program (rocprofv3, rocminfo, git, ...) without a
 * shell: an argv, extra environment variables, a working directory, stdout and
 * stderr captured to files or buffers, a timeout, and cancellation.
 *
 * The child runs in its own process group (setpgid) so that a timeout or a
 * Ctrl-C can kill the whole tree it spawned (rocprofv3 is a Python script that
 * execs or forks the workload, which may fork compilers): SIGTERM to the group,
 * then SIGKILL after FP_PROC_KILL_GRACE_MS. Because the child is not in the
 * terminal's foreground group, Ctrl-C reaches only flyprof; fp_proc_run sees
 * ctx->interrupted and forwards the kill.
 */
#ifndef FLYPROF_PROC_H
#define FLYPROF_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"
#include "flyprof/strbuf.h"

/* Time between SIGTERM and SIGKILL of the child group: rocprofv3's tool library
 * flushes its output files at exit, give it a moment to do so. */
#define FP_PROC_KILL_GRACE_MS 2000
/* Largest amount of child output kept in an fp_sb (more is counted, not kept). */
#define FP_PROC_BUF_MAX ((size_t)16 << 20)

typedef struct fp_proc_opts {
    const char *const *argv; /* NULL-terminated; argv[0] without '/' is looked up on PATH */
    const char *const *env;  /* NULL-terminated "NAME=value" entries added to (overriding)
                                the inherited environment; "NAME" alone removes NAME. May be NULL. */
    const char *cwd;         /* working directory, NULL = inherit */
    const char *stdout_path; /* if set, stdout goes to this file (created/truncated) */
    const char *stderr_path; /* likewise for stderr */
    fp_sb *stdout_buf;       /* if set (and no path), stdout is captured here (appended) */
    fp_sb *stderr_buf;       /* likewise; when neither is set the stream goes to /dev/null */
    bool inherit_stdio;      /* streams with neither a path nor a buffer are inherited
                                instead of going to /dev/null (test doubles running an app) */
    double timeout_s;        /* > 0: kill the group after this many seconds */
    const volatile sig_atomic_t *interrupted; /* when it becomes non-zero: kill the group */
    void (*tick)(void *arg, double elapsed_s); /* if set: called every poll slice while the child
                                                  runs (heartbeat.h), never after it ended */
    void *tick_arg;
} fp_proc_opts;

typedef struct fp_proc_result {
    bool exec_failed;  /* the program could not be started (see exec_errno) */
    int exec_errno;    /* ENOENT for "no such program", EACCES, ... */
    bool exited;       /* exited normally: exit_code is valid */
    int exit_code;
    int term_signal;   /* killed by this signal (0 if exited) */
    bool timed_out;
    bool interrupted;
    bool output_truncated; /* a buffer hit FP_PROC_BUF_MAX */
    double elapsed_s;
} fp_proc_result;

/* Run to completion. Returns 0 when the program ran and ended by itself,
 * whatever its exit status (look at r). Returns -1 with:
 *   FP_CAPTURE_TIMEOUT  timeout hit (group killed, r->timed_out)
 *   FP_INTERRUPTED      *interrupted became set (group killed, r->interrupted)
 *   FP_MISSING_PREREQ   the program could not be executed (r->exec_failed,
 *                       r->exec_errno; callers map ENOENT to their own code)
 *   FP_IO_ERROR         an output file or pipe could not be opened, fork failed
 * r is always filled. */
int fp_proc_run(const fp_proc_opts *o, fp_proc_result *r, fp_err *err);

/* Find an executable: a name containing '/' is checked as is; otherwise each
 * entry of path_env (PATH when NULL) is tried. Returns a malloc'd path or NULL. */
char *fp_proc_which(const char *name, const char *path_env);

/* One-line human form of an argv for logs and capture.json ("a 'b c' d"):
 * words with shell metacharacters are single-quoted so it can be pasted. */
void fp_proc_argv_str(const char *const *argv, fp_sb *out);

#endif
