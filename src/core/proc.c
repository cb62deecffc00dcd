/*
 * proc.c - fork/exec with a process group, captured output, a timeout and
 * cancellation. The one idea: the parent never blocks for long. It polls the
 * output pipes in short slices (FP_PROC_SLICE_MS), and between slices checks
 * the child, the clock and the interrupt flag, so a hung child or a Ctrl-C is
 * noticed within a slice and the whole process group is killed.
 */
#include "flyprof/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Poll granularity: bounds the latency of timeout and Ctrl-C handling. */
#define FP_PROC_SLICE_MS 50

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An absolute form without resolving symlinks: the child may chdir before
 * exec, so a relative program path must not stay relative. */
static char *absolute(const char *p)
{
    if (p[0] == '/')
        return strdup(p);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return strdup(p);
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_addf(&s, "%s/%s", cwd, p[0] == '.' && p[1] == '/' ? p + 2 : p);
    return fp_sb_detach(&s);
}

char *fp_proc_which(const char *name, const char *path_env)
{
    if (!name || !name[0])
        return NULL;
    if (strchr(name, '/')) {
        struct stat st;
        if (stat(name, &st) == 0 && S_ISREG(st.st_mode) && access(name, X_OK) == 0)
            return absolute(name);
        return NULL;
    }
    const char *path = path_env ? path_env : getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    const char *p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        fp_sb cand;
        fp_sb_init(&cand);
        if (n == 0)
            fp_sb_adds(&cand, "."); /* an empty PATH entry means the current directory */
        else
            fp_sb_add(&cand, p, n);
        fp_sb_addf(&cand, "/%s", name);
        struct stat st;
        if (stat(cand.buf, &st) == 0 && S_ISREG(st.st_mode) && access(cand.buf, X_OK) == 0) {
            char *abs = absolute(cand.buf);
            fp_sb_free(&cand);
            return abs;
        }
        fp_sb_free(&cand);
        if (!colon)
            break;
        p = colon + 1;
    }
    return NULL;
}

void fp_proc_argv_str(const char *const *argv, fp_sb *out)
{
    for (size_t i = 0; argv && argv[i]; i++) {
        const char *a = argv[i];
        if (i)
            fp_sb_addc(out, ' ');
        bool plain = a[0] != '\0';
        for (const char *c = a; *c; c++)
            if (!(strchr("_-+=/.,:@%", *c) || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
                  (*c >= 'A' && *c <= 'Z')))
                plain = false;
        if (plain) {
            fp_sb_adds(out, a);
            continue;
        }
        fp_sb_addc(out, '\'');
        for (const char *c = a; *c; c++) {
            if (*c == '\'')
                fp_sb_adds(out, "'\\''");
            else
                fp_sb_addc(out, *c);
        }
        fp_sb_addc(out, '\'');
    }
}

/* The child's environment: environ with o->env applied. Built in the parent
 * (no allocation between fork and exec). Returns a malloc'd NULL-terminated
 * array whose strings are either environ's or o->env's (not owned). */
static char **build_env(const char *const *extra)
{
    size_t n_env = 0, n_extra = 0;
    while (environ && environ[n_env])
        n_env++;
    while (extra && extra[n_extra])
        n_extra++;
    char **envp = calloc(n_env + n_extra + 1, sizeof *envp);
    if (!envp)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++) {
        const char *e = environ[i];
        size_t nl = strcspn(e, "=");
        bool overridden = false;
        for (size_t j = 0; j < n_extra && !overridden; j++) {
            size_t xl = strcspn(extra[j], "=");
            overridden = xl == nl && !strncmp(e, extra[j], nl);
        }
        if (!overridden)
            envp[k++] = (char *)e;
    }
    for (size_t j = 0; j < n_extra; j++)
        if (strchr(extra[j], '='))
            envp[k++] = (char *)extra[j];
    envp[k] = NULL;
    return envp;
}

static void kill_group(pid_t pid, int *status, bool *reaped)
{
    kill(-pid, SIGTERM);
    kill(pid, SIGTERM); /* in case setpgid lost a race with an early exec failure */
    double deadline = now_s() + FP_PROC_KILL_GRACE_MS / 1000.0;
    while (!*reaped && now_s() < deadline) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) {
            *reaped = true;
            break;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* Grandchildren may ignore SIGTERM or outlive the leader: always finish them. */
    kill(-pid, SIGKILL);
    if (!*reaped) {
        kill(pid, SIGKILL);
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
            ;
        *reaped = true;
    }
}

/* Drain whatever is readable from fd into sb; returns false at EOF/error. */
static bool drain(int fd, fp_sb *sb, bool *trunc)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            size_t room = sb->len < FP_PROC_BUF_MAX ? FP_PROC_BUF_MAX - sb->len : 0;
            size_t take = (size_t)n < room ? (size_t)n : room;
            if (take)
                fp_sb_add(sb, buf, take);
            if (take < (size_t)n)
                *trunc = true;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        return false;
    }
}

/* O_NOFOLLOW: a log planted as a symlink must not redirect the child's output
 * onto (and truncate) the file it points at. */
static int open_out(const char *path, fp_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        fp_err_set(err, FP_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    return fd;
}

/* The pipes and files of one run: [0] = stdout, [1] = stderr. */
typedef struct proc_fds {
    int child[2];   /* what the child gets as fd 1 and 2 */
    int read[2];    /* our end of a pipe into a buffer, or -1 */
    int errpipe[2]; /* exec failures travel back through a close-on-exec pipe: EOF = exec worked */
} proc_fds;

/* Each output goes to a file, a pipe into a buffer, our own stdio, or /dev/null. */
static int open_outputs(const fp_proc_opts *o, proc_fds *f, fp_err *err)
{
    const char *paths[2] = {o->stdout_path, o->stderr_path};
    fp_sb *bufs[2] = {o->stdout_buf, o->stderr_buf};
    for (int i = 0; i < 2; i++) {
        if (paths[i]) {
            if ((f->child[i] = open_out(paths[i], err)) < 0)
                return -1;
        } else if (bufs[i]) {
            int p[2];
            if (pipe2(p, O_CLOEXEC) != 0)
                return fp_err_set(err, FP_IO_ERROR, "pipe: %s", strerror(errno));
            f->read[i] = p[0];
            f->child[i] = p[1];
            fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
        } else if (o->inherit_stdio) {
            f->child[i] = fcntl(i + 1, F_DUPFD_CLOEXEC, 3);
            if (f->child[i] < 0)
                return fp_err_set(err, FP_IO_ERROR, "dup: %s", strerror(errno));
        } else if ((f->child[i] = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
            return fp_err_set(err, FP_IO_ERROR, "/dev/null: %s", strerror(errno));
        }
    }
    if (pipe2(f->errpipe, O_CLOEXEC) != 0)
        return fp_err_set(err, FP_IO_ERROR, "pipe: %s", strerror(errno));
    return 0;
}

/* In the child: its own process group, default signals, the fds, then exec. The
 * errno of a failure goes back through the error pipe. */
static _Noreturn void child_exec(const fp_proc_opts *o, const char *exe, char **envp, int devnull,
                                 const proc_fds *f)
{
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL); /* flyprof ignores it; ignored signals survive exec */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int e = 0;
    if (devnull >= 0)
        dup2(devnull, 0);
    if (dup2(f->child[0], 1) < 0 || dup2(f->child[1], 2) < 0)
        e = errno;
    if (!e && o->cwd && chdir(o->cwd) != 0)
        e = errno;
    if (!e) {
        execve(exe, (char *const *)o->argv, envp);
        e = errno;
    }
    ssize_t wr = write(f->errpipe[1], &e, sizeof e);
    (void)wr;
    _exit(127);
}

/* Until the child is reaped: drain its pipes, kill its group on a signal or the
 * timeout, tick the heartbeat. */
static void supervise(const fp_proc_opts *o, pid_t pid, bool exec_ok, double t0, proc_fds *f, int *status,
                      fp_proc_result *r)
{
    fp_sb *bufs[2] = {o->stdout_buf, o->stderr_buf};
    bool reaped = false;
    bool open_fd[2] = {f->read[0] >= 0, f->read[1] >= 0};
    while (!reaped) {
        if (exec_ok && o->interrupted && *o->interrupted) {
            r->interrupted = true;
            kill_group(pid, status, &reaped);
            break;
        }
        if (exec_ok && o->timeout_s > 0 && now_s() - t0 >= o->timeout_s) {
            r->timed_out = true;
            kill_group(pid, status, &reaped);
            break;
        }
        struct pollfd pf[2];
        int np = 0;
        for (int i = 0; i < 2; i++)
            if (open_fd[i])
                pf[np++] = (struct pollfd){.fd = f->read[i], .events = POLLIN};
        if (np)
            poll(pf, (nfds_t)np, FP_PROC_SLICE_MS);
        else {
            struct timespec ts = {0, FP_PROC_SLICE_MS * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        for (int i = 0; i < 2; i++)
            if (open_fd[i])
                open_fd[i] = drain(f->read[i], bufs[i], &r->output_truncated);
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            reaped = true;
        else if (exec_ok && o->tick)
            o->tick(o->tick_arg, now_s() - t0);
    }
    /* The leader is gone: take what is left in the pipes, but do not wait for
     * EOF (a surviving grandchild may hold the write end forever). */
    for (int i = 0; i < 2; i++)
        if (open_fd[i])
            drain(f->read[i], bufs[i], &r->output_truncated);
}

/* The outcome: exit status or signal, and the error of a failed exec, a signal or a timeout. */
static int outcome(const fp_proc_opts *o, const char *exe, int status, bool exec_ok, int child_errno,
                   fp_proc_result *r, fp_err *err)
{
    if (WIFEXITED(status)) {
        r->exited = true;
        r->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->term_signal = WTERMSIG(status);
    }
    if (!exec_ok) {
        r->exec_failed = true;
        r->exec_errno = child_errno;
        r->exited = false;
        return fp_err_set(err, FP_MISSING_PREREQ, "cannot execute '%s': %s", exe, strerror(child_errno));
    }
    if (r->interrupted)
        return fp_err_set(err, FP_INTERRUPTED, "'%s' was stopped: flyprof received a signal", o->argv[0]);
    if (r->timed_out)
        return fp_err_set(err, FP_CAPTURE_TIMEOUT, "'%s' did not finish within %g s (process group killed)",
                          o->argv[0], o->timeout_s);
    return 0;
}

static void close_fds(proc_fds *f)
{
    for (int i = 0; i < 2; i++) {
        if (f->child[i] >= 0)
            close(f->child[i]);
        if (f->read[i] >= 0)
            close(f->read[i]);
        if (f->errpipe[i] >= 0)
            close(f->errpipe[i]);
        f->child[i] = f->read[i] = f->errpipe[i] = -1;
    }
}

int fp_proc_run(const fp_proc_opts *o, fp_proc_result *r, fp_err *err)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    if (!o->argv || !o->argv[0])
        return fp_err_set(err, FP_INTERNAL, "fp_proc_run: empty argv");

    char *exe = fp_proc_which(o->argv[0], NULL);
    if (!exe) {
        r->exec_failed = true;
        r->exec_errno = ENOENT;
        return fp_err_set(err, FP_MISSING_PREREQ, "cannot execute '%s': not found or not executable",
                          o->argv[0]);
    }
    proc_fds f = {{-1, -1}, {-1, -1}, {-1, -1}};
    int rc = -1;
    if (open_outputs(o, &f, err) != 0)
        goto out;
    char **envp = build_env(o->env);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        child_exec(o, exe, envp, devnull, &f);
    free(envp);
    if (devnull >= 0)
        close(devnull);
    if (pid < 0) {
        fp_err_set(err, FP_IO_ERROR, "fork: %s", strerror(errno));
        goto out;
    }
    setpgid(pid, pid); /* both sides set it: no window where a kill(-pid) misses */
    close(f.errpipe[1]);
    f.errpipe[1] = -1;
    for (int i = 0; i < 2; i++) {
        close(f.child[i]);
        f.child[i] = -1;
    }
    int child_errno = 0;
    ssize_t got;
    while ((got = read(f.errpipe[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
        ;
    bool exec_ok = got == 0;
    int status = 0;
    supervise(o, pid, exec_ok, t0, &f, &status, r);
    r->elapsed_s = now_s() - t0;
    rc = outcome(o, exe, status, exec_ok, child_errno, r, err);
out:
    close_fds(&f);
    free(exe);
    return rc;
}
