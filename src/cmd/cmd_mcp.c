/*
 * cmd_mcp.c - `flyprof mcp`: a Model Context Protocol server on stdio
 * (JSON-RPC 2.0, one message per line, protocol revision 2025-06-18).
 *
 * Story: stdout is reserved for protocol messages (the command's own final
 * envelope and anything else printed to fd 1 go to stderr); one tool per
 * command, schemas and argument checks from src/core/mcp.c; each tools/call
 * runs `flyprof <cmd> --opt=value... -f json -- positionals` as a child in its
 * own process group, cwd = the root, with FLYPROF_TABLE_FD naming a pipe that
 * receives the table rendering of the same run. A crash or a hang in a command
 * therefore cannot take the server down, and cancelling a call is killing the
 * child's group.
 *
 * Concurrency: one tool call runs at a time; further calls wait in a FIFO
 * (at most MAX_QUEUE). The loop polls stdin and the child's pipes together, so
 * ping, tools/list and notifications/cancelled are served while a call runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "flyprof/fs.h"
#include "flyprof/jscan.h"
#include "flyprof/json.h"
#include "flyprof/mcp.h"
#include "flyprof/proc.h"

extern char **environ;

#define PROTOCOL_LATEST "2025-06-18"
/* Revisions we can speak; a client asking for one of these gets it back. */
static const char *const protocol_versions[] = {"2025-06-18", "2025-03-26", "2024-11-05", NULL};

/* JSON-RPC 2.0 error codes. */
enum { RPC_PARSE = -32700, RPC_INVALID_REQUEST = -32600, RPC_NO_METHOD = -32601, RPC_INVALID_PARAMS = -32602,
       RPC_SERVER_BUSY = -32000 };

#define MAX_QUEUE 16
/* Child output kept: the envelope (beyond: an error), the table, the stderr tail. */
#define MAX_ENVELOPE ((size_t)64 << 20)
#define MAX_TABLE ((size_t)1 << 20)
#define ERR_TAIL 4096
/* Text content of a result: "a short text"; the full data is structuredContent. */
#define MAX_TEXT 32768
/* Poll slice while a call runs: bounds the latency of exit detection and heartbeats. */
#define SLICE_MS 200
#define PROGRESS_EVERY_S 1.0
/* SIGTERM -> SIGKILL of a cancelled call: longer than the child's own grace for
 * its children (FP_PROC_KILL_GRACE_MS), so a flyprof child that forwards the
 * cancel to a rocprofv3 process group gets to finish doing so. */
#define CANCEL_GRACE_S (FP_PROC_KILL_GRACE_MS / 1000.0 + 3.0)

typedef struct mcp_args {
    const char *root;
    bool allow_gpu;
} mcp_args;

static const fp_opt mcp_opts[] = {
    {"root", 0, FP_OPT_STR, offsetof(mcp_args, root), "DIR",
     "file-path arguments must resolve inside DIR; calls run with it as working directory (default: the "
     "current directory)", NULL, NULL, 0, 0},
    {"allow-gpu", 0, FP_OPT_FLAG, offsetof(mcp_args, allow_gpu), NULL,
     "offer capture, run and live counters, and options naming programs (--rocprofv3, --python, --config)",
     NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

#define FP_MCP_ENTRY(name) &fp_cmd_##name,
static const fp_command *const all_commands[] = {FP_COMMANDS(FP_MCP_ENTRY) NULL};
#undef FP_MCP_ENTRY

typedef struct call {
    cJSON *id;    /* request id, echoed (owned) */
    cJSON *token; /* _meta.progressToken or NULL (owned) */
    const fp_command *cmd;
    char **argv;  /* after the program name (owned) */
    struct call *next;
} call;

typedef struct running {
    call *c;
    pid_t pid;
    int fd[3]; /* parent ends: envelope (stdout), table, stderr; -1 when closed */
    fp_sb out, table, errtail, errline;
    bool out_overflow;
    double start, last_progress, term_at;
    double progress;
    char last_msg[256];
    bool cancelled, killed, reaped;
    int status;
} running;

typedef struct server {
    fp_ctx *ctx;
    fp_mcp_policy pol;
    int out; /* protocol channel (the original stdout) */
    char exe[PATH_MAX];
    fp_sb in;
    bool discarding;
    bool eof;      /* stdin closed: finish what was asked, then stop */
    bool out_dead; /* stdout closed: nobody reads results any more */
    bool initialized;
    const char *version;
    call *qhead;
    int qlen;
    running run;
    bool busy;
    long requests, calls, call_errors, rpc_errors;
    char *env_fixed[2]; /* "VAR=value" of the defaults confined to the root (confined_defaults) */
} server;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const fp_command *find_tool(const server *s, const char *name)
{
    for (const fp_command *const *c = all_commands; *c; c++)
        if (!strcmp((*c)->name, name) && fp_mcp_tool_listed(*c, &s->pol))
            return *c;
    return NULL;
}

/* ---- output ---- */

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid
 * (overlongs, surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    if (p[0] < 0x80)
        return 1;
    size_t len = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) || (p[0] == 0xF0 && p[1] < 0x90) ||
        (p[0] == 0xF4 && p[1] > 0x8F))
        return 0;
    return len;
}

static bool utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0, l; i < n; i += l)
        if ((l = utf8_seq((const unsigned char *)s + i, n - i)) == 0)
            return false;
    return true;
}

static void send_msg(server *s, cJSON *msg)
{
    char *raw = fp_json_print(msg, false); /* valid UTF-8 whatever the inputs held */
    cJSON_Delete(msg);
    if (!raw)
        return;
    /* The wire is UTF-8 JSON. A child's table or envelope can carry other bytes
     * (a source file in latin-1): they can only sit inside strings, where
     * U+FFFD replaces each. */
    fp_sb out;
    fp_sb_init(&out);
    size_t rn = strlen(raw);
    for (size_t i = 0, l; i < rn; i += l) {
        l = utf8_seq((const unsigned char *)raw + i, rn - i);
        if (l)
            fp_sb_add(&out, raw + i, l);
        else
            fp_sb_adds(&out, "\xEF\xBF\xBD"), l = 1;
    }
    free(raw);
    fp_sb_addc(&out, '\n');
    const char *p = out.buf;
    size_t left = out.len;
    while (left) {
        ssize_t w = write(s->out, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            s->out_dead = true; /* the client is gone */
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    fp_sb_free(&out);
}

static cJSON *msg_new(const cJSON *id)
{
    cJSON *m = cJSON_CreateObject();
    fp_json_add_str(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
    return m;
}

static void reply(server *s, const cJSON *id, cJSON *result)
{
    cJSON *m = msg_new(id);
    cJSON_AddItemToObject(m, "result", result);
    send_msg(s, m);
}

static void reply_error(server *s, const cJSON *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void reply_error(server *s, const cJSON *id, int code, const char *fmt, ...)
{
    fp_sb sb;
    fp_sb_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    fp_sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    cJSON *m = msg_new(id);
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    fp_json_add_int(e, "code", code);
    fp_json_add_str(e, "message", sb.buf);
    fp_sb_free(&sb);
    send_msg(s, m);
    s->rpc_errors++;
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("flyprof mcp: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- tool results ---- */

static bool structured(const server *s)
{
    return strcmp(s->version, "2025-06-18") >= 0; /* structuredContent is new in 2025-06-18 */
}

static void add_text(cJSON *result, const char *text, size_t len)
{
    cJSON *content = cJSON_AddArrayToObject(result, "content");
    cJSON *t = cJSON_CreateObject();
    fp_json_add_str(t, "type", "text");
    fp_sb sb;
    fp_sb_init(&sb);
    if (len > MAX_TEXT) {
        /* cut on a UTF-8 boundary */
        size_t cut = MAX_TEXT;
        while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
            cut--;
        fp_sb_add(&sb, text, cut);
        fp_sb_addf(&sb, "\n... (%zu more bytes; the full result is the structured content)\n", len - cut);
    } else {
        fp_sb_add(&sb, text, len);
    }
    fp_json_add_str(t, "text", sb.buf);
    fp_sb_free(&sb);
    cJSON_AddItemToArray(content, t);
}

/* A tool result from an envelope (owned). */
static cJSON *tool_result(const server *s, cJSON *env, const char *table, size_t table_len)
{
    cJSON *r = cJSON_CreateObject();
    bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(env, "ok"));
    if (ok) {
        if (table && table_len) {
            add_text(r, table, table_len);
        } else {
            char *d = fp_json_print(cJSON_GetObjectItemCaseSensitive(env, "data"), true);
            add_text(r, d ? d : "{}", d ? strlen(d) : 2);
            free(d);
        }
    } else {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(env, "error");
        fp_sb sb;
        fp_sb_init(&sb);
        int64_t ec = 0;
        fp_json_get_i64(e, "exitCode", &ec);
        const char *code = fp_json_get_str(e, "code"), *msg = fp_json_get_str(e, "message"),
                   *help = fp_json_get_str(e, "help");
        fp_sb_addf(&sb, "error %s (exit %lld): %s\n", code ? code : "?", (long long)ec, msg ? msg : "");
        if (help && help[0])
            fp_sb_addf(&sb, "help: %s\n", help);
        add_text(r, sb.buf, sb.len);
        fp_sb_free(&sb);
    }
    if (structured(s))
        cJSON_AddItemToObject(r, "structuredContent", env);
    else
        cJSON_Delete(env);
    cJSON_AddItemToObject(r, "isError", cJSON_CreateBool(!ok));
    return r;
}

/* The envelope a command would have printed for err (same shape as main.c's). */
static cJSON *error_envelope(const char *command, fp_err *err)
{
    cJSON *env = cJSON_CreateObject();
    cJSON_AddItemToObject(env, "ok", cJSON_CreateFalse());
    fp_json_add_str(env, "command", command);
    cJSON *e = cJSON_AddObjectToObject(env, "error");
    fp_json_add_str(e, "code", fp_code_name(err->code));
    fp_json_add_int(e, "exitCode", fp_code_exit(err->code));
    fp_json_add_str(e, "message", err->message);
    fp_json_add_str(e, "help", err->help[0] ? err->help : fp_code_help(err->code));
    if (err->extra)
        for (cJSON *it = err->extra->child; it; it = it->next)
            if (!cJSON_GetObjectItemCaseSensitive(e, it->string))
                cJSON_AddItemToObject(e, it->string, cJSON_Duplicate(it, 1));
    return env;
}

/* ---- children ---- */

static void call_free(call *c)
{
    if (!c)
        return;
    cJSON_Delete(c->id);
    cJSON_Delete(c->token);
    fp_mcp_argv_free(c->argv);
    free(c);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The child's argv: flyprof <cmd> -f json <rest>; -f before any "--" (main strips it there).
 * argv[0] is this binary's absolute path: `run` re-runs argv[0] once per step, and the
 * child's cwd is the root, where a bare "flyprof" names nothing. */
static const char **call_argv(const server *s, const call *c)
{
    size_t n = 0;
    while (c->argv[n])
        n++;
    const char **argv = calloc(n + 4, sizeof *argv);
    if (!argv)
        abort();
    size_t k = 0;
    argv[k++] = s->exe;
    argv[k++] = c->argv[0];
    argv[k++] = "-f";
    argv[k++] = "json";
    for (size_t i = 1; i < n; i++)
        argv[k++] = c->argv[i];
    return argv;
}

/* Defaults a command falls back to when the agent names no path (history's and
 * check's --db, bundle's --examples-dir): taken from the environment only when
 * that resolves inside the root, else a place under it, so no call reads the
 * user's global history or replaces $FLYPROF_EXAMPLES_DIR/<kernel>/ elsewhere. */
static const struct {
    const char *var, *under_root;
} confined_env[2] = {
    {"FLYPROF_HISTORY", ".flyprof/history.db"},
    {"FLYPROF_EXAMPLES_DIR", "runs/examples"},
};

static void confined_defaults(server *s)
{
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(confined_env[i].var);
        fp_err e = {0};
        char *res = v && v[0] ? fp_mcp_confine(s->pol.root, v, &e) : NULL;
        fp_sb sb;
        fp_sb_init(&sb);
        if (res)
            fp_sb_addf(&sb, "%s=%s", confined_env[i].var, res);
        else
            fp_sb_addf(&sb, "%s=%s/%s", confined_env[i].var, s->pol.root, confined_env[i].under_root);
        if (v && v[0] && !res)
            logf_("$%s=%s is outside the root: calls use %s", confined_env[i].var, v, strchr(sb.buf, '=') + 1);
        free(res);
        fp_err_clear(&e); /* the refusal's extra (its root) */
        s->env_fixed[i] = fp_sb_detach(&sb);
    }
}

static bool env_is(const char *entry, const char *var)
{
    size_t n = strlen(var);
    return !strncmp(entry, var, n) && entry[n] == '=';
}

/* The child's environment: ours, with FLYPROF_TABLE_FD=3 (its table rendering on
 * fd 3) and the confined defaults in place of the user's. */
static const char **call_env(const server *s)
{
    size_t ne = 0;
    while (environ[ne])
        ne++;
    const char **envp = calloc(ne + 4, sizeof *envp);
    if (!envp)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (!env_is(environ[i], "FLYPROF_TABLE_FD") && !env_is(environ[i], confined_env[0].var) &&
            !env_is(environ[i], confined_env[1].var))
            envp[k++] = environ[i];
    envp[k++] = "FLYPROF_TABLE_FD=3";
    envp[k++] = s->env_fixed[0];
    envp[k++] = s->env_fixed[1];
    return envp;
}

/* In the forked child: its own process group, stdin /dev/null, the pipes' write
 * ends on 1 (envelope), 3 (table) and 2 (stderr), cwd the policy root, then exec. */
static _Noreturn void exec_call(const server *s, int p[3][2], const char **argv, const char **envp)
{
    setpgid(0, 0);
    /* Move the write ends out of the way first, then onto 1, 3, 2. */
    int w[3];
    for (int i = 0; i < 3; i++)
        w[i] = fcntl(p[i][1], F_DUPFD_CLOEXEC, 10);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (w[0] < 0 || w[1] < 0 || w[2] < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(w[0], 1) < 0 ||
        dup2(w[1], 3) < 0 || dup2(w[2], 2) < 0)
        _exit(127);
    if (chdir(s->pol.root) != 0)
        _exit(127);
    execve(s->exe, (char *const *)argv, (char *const *)envp);
    _exit(127);
}

/* The running call's state, fresh: its pid, the read ends (non-blocking), empty buffers. */
static void running_begin(server *s, call *c, pid_t pid, int p[3][2])
{
    running *r = &s->run;
    for (int i = 0; i < 3; i++) {
        close(p[i][1]);
        r->fd[i] = p[i][0];
        fcntl(r->fd[i], F_SETFL, O_NONBLOCK);
    }
    r->c = c;
    r->pid = pid;
    fp_sb_init(&r->out);
    fp_sb_init(&r->table);
    fp_sb_init(&r->errtail);
    fp_sb_init(&r->errline);
    r->out_overflow = false;
    r->start = now_s();
    r->last_progress = r->start - PROGRESS_EVERY_S; /* the first stderr line is reported at once */
    r->term_at = 0;
    r->progress = 0;
    r->last_msg[0] = '\0';
    r->cancelled = r->killed = r->reaped = false;
    r->status = 0;
    s->busy = true;
}

/* Start call c as a child `flyprof <cmd> -f json ...` with three pipes (stdout, fd 3, stderr). */
static int spawn(server *s, call *c, fp_err *err)
{
    int p[3][2];
    for (int i = 0; i < 3; i++)
        if (pipe2(p[i], O_CLOEXEC) != 0) {
            for (int j = 0; j < i; j++)
                close(p[j][0]), close(p[j][1]);
            return fp_err_set(err, FP_IO_ERROR, "pipe: %s", strerror(errno));
        }
    const char **argv = call_argv(s, c);
    const char **envp = call_env(s);
    pid_t pid = fork();
    if (pid < 0) {
        for (int i = 0; i < 3; i++)
            close(p[i][0]), close(p[i][1]);
        free(argv);
        free(envp);
        return fp_err_set(err, FP_IO_ERROR, "fork: %s", strerror(errno));
    }
    if (pid == 0)
        exec_call(s, p, argv, envp); /* does not return */
    setpgid(pid, pid); /* also from the parent: no race with an early kill */
    free(argv);
    free(envp);
    running_begin(s, c, pid, p);
    return 0;
}

static void send_progress(server *s, bool force)
{
    running *r = &s->run;
    double t = now_s();
    if (!r->c->token || (!force && t - r->last_progress < PROGRESS_EVERY_S))
        return;
    double p = floor((t - r->start) * 10.0) / 10.0;
    if (p <= r->progress)
        p = r->progress + 0.1; /* progress must increase with every notification */
    r->progress = p;
    r->last_progress = t;
    cJSON *m = cJSON_CreateObject();
    fp_json_add_str(m, "jsonrpc", "2.0");
    fp_json_add_str(m, "method", "notifications/progress");
    cJSON *pr = cJSON_AddObjectToObject(m, "params");
    cJSON_AddItemToObject(pr, "progressToken", cJSON_Duplicate(r->c->token, 1));
    cJSON_AddItemToObject(pr, "progress", cJSON_CreateNumber(fp_round(p, 1)));
    fp_sb msg;
    fp_sb_init(&msg);
    fp_sb_addf(&msg, "%s: %.1f s%s%s", r->c->cmd->name, t - r->start, r->last_msg[0] ? ": " : "", r->last_msg);
    fp_json_add_str(pr, "message", msg.buf);
    fp_sb_free(&msg);
    send_msg(s, m);
}

/* A stderr line of the child: forwarded to our stderr, kept as the progress message. */
static void child_err_line(server *s, const char *line, size_t len)
{
    running *r = &s->run;
    fprintf(stderr, "[%s] %.*s\n", r->c->cmd->name, (int)len, line);
    const char *l = line;
    if (len > 9 && !strncmp(l, "flyprof: ", 9))
        l += 9, len -= 9;
    snprintf(r->last_msg, sizeof r->last_msg, "%.*s", (int)len, l);
    if (now_s() - r->last_progress >= 0.2)
        send_progress(s, true);
}

static void read_child(server *s, int i)
{
    running *r = &s->run;
    char buf[65536];
    for (;;) {
        ssize_t n = read(r->fd[i], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            close_fd(&r->fd[i]);
            if (i == 2 && r->errline.len)
                child_err_line(s, r->errline.buf, r->errline.len), fp_sb_reset(&r->errline);
            return;
        }
        if (i == 0) {
            if (r->out.len + (size_t)n > MAX_ENVELOPE)
                r->out_overflow = true;
            else
                fp_sb_add(&r->out, buf, (size_t)n);
        } else if (i == 1) {
            if (r->table.len + (size_t)n <= MAX_TABLE)
                fp_sb_add(&r->table, buf, (size_t)n);
        } else {
            fp_sb_add(&r->errtail, buf, (size_t)n);
            if (r->errtail.len > 2 * ERR_TAIL) {
                memmove(r->errtail.buf, r->errtail.buf + r->errtail.len - ERR_TAIL, ERR_TAIL);
                r->errtail.len = ERR_TAIL;
                r->errtail.buf[ERR_TAIL] = '\0';
            }
            for (ssize_t j = 0; j < n; j++) {
                if (buf[j] == '\n') {
                    child_err_line(s, r->errline.buf, r->errline.len);
                    fp_sb_reset(&r->errline);
                } else if (r->errline.len < 4096) {
                    fp_sb_addc(&r->errline, buf[j]);
                }
            }
        }
    }
}

static void kill_group(running *r, int sig)
{
    if (r->pid > 0)
        kill(-r->pid, sig);
}

/* Cancel the running call: SIGTERM to its group now, SIGKILL after the grace. */
static void cancel_running(server *s, const char *why)
{
    running *r = &s->run;
    if (r->cancelled)
        return;
    r->cancelled = true;
    r->term_at = now_s();
    logf_("cancelling %s (pid %d): %s", r->c->cmd->name, (int)r->pid, why);
    kill_group(r, SIGTERM);
}

/* Kill the process group of `pid` (unless it is ours) and pid itself. Returns
 * false when pid is not a child of ours any more (or is a zombie already). */
static bool kill_adopted(pid_t me, pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')'); /* comm may contain spaces and ')' */
    int ppid = 0, pgrp = 0;
    char st = 0;
    if (!rp || sscanf(rp + 1, " %c %d %d", &st, &ppid, &pgrp) != 3 || ppid != me || st == 'Z')
        return false;
    if (pgrp > 1 && pgrp != getpgrp())
        kill(-pgrp, SIGKILL);
    kill(pid, SIGKILL);
    return true;
}

/* The children of this (single-threaded) process: /proc/<pid>/task/<pid>/children
 * when the kernel has it, else a scan of /proc. */
static int adopted_children(pid_t me, pid_t *out, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)me, (int)me);
    int n = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        int pid;
        while (n < max && fscanf(f, "%d", &pid) == 1)
            out[n++] = (pid_t)pid;
        fclose(f);
        return n;
    }
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && n < max && (e = readdir(d)) != NULL)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
            out[n++] = (pid_t)atoi(e->d_name); /* kill_adopted filters on the parent */
    if (d)
        closedir(d);
    return n;
}

/* The server is a child subreaper (prctl): a process a call spawned whose parent
 * died (rocprofv3 runs in its own process group, so killing the call's group
 * does not reach it when the flyprof child was SIGKILLed) is re-parented to
 * the server instead of init. Between calls every child of the server belongs
 * to the call that just ended: kill its group and reap it. */
static void reap_orphans(void)
{
    pid_t me = getpid();
    pid_t pids[4096];
    for (int round = 0; round < 3; round++) {
        int n = adopted_children(me, pids, 4096), found = 0;
        for (int i = 0; i < n; i++)
            found += kill_adopted(me, pids[i]);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (!found)
            break;
        usleep(20000);
    }
}

static void start_next(server *s);

static void finish(server *s)
{
    running *r = &s->run;
    /* Drain what is buffered (the group was killed before the leader was reaped). */
    for (int i = 0; i < 3; i++)
        if (r->fd[i] >= 0)
            read_child(s, i);
    for (int i = 0; i < 3; i++)
        close_fd(&r->fd[i]);
    reap_orphans();
    call *c = r->c;
    if (!r->cancelled) {
        cJSON *env = NULL;
        if (!r->out_overflow && r->out.len)
            env = cJSON_ParseWithLength(r->out.buf, r->out.len);
        if (env && !cJSON_IsObject(env)) {
            cJSON_Delete(env);
            env = NULL;
        }
        if (!env) {
            fp_err e = {0};
            if (r->out_overflow)
                fp_err_set(&e, FP_INTERNAL, "'%s' printed an envelope larger than %zu bytes", c->cmd->name,
                           MAX_ENVELOPE);
            else if (WIFSIGNALED(r->status))
                fp_err_set(&e, FP_INTERNAL, "'%s' died with signal %d", c->cmd->name, WTERMSIG(r->status));
            else
                fp_err_set(&e, FP_INTERNAL, "'%s' exited %d without an envelope", c->cmd->name,
                           WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1);
            fp_err_help(&e, "the server is still serving; stderr tail: %.600s",
                        r->errtail.len > 600 ? r->errtail.buf + r->errtail.len - 600 : r->errtail.buf);
            env = error_envelope(c->cmd->name, &e);
            fp_err_clear(&e);
        }
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(env, "ok")))
            s->call_errors++;
        reply(s, c->id, tool_result(s, env, r->table.buf, r->table.len));
    }
    logf_("%s %s in %.2f s", c->cmd->name, r->cancelled ? "cancelled" : "done", now_s() - r->start);
    fp_sb_free(&r->out);
    fp_sb_free(&r->table);
    fp_sb_free(&r->errtail);
    fp_sb_free(&r->errline);
    call_free(c);
    memset(r, 0, sizeof *r);
    r->fd[0] = r->fd[1] = r->fd[2] = -1;
    s->busy = false;
    start_next(s);
}

static void start_next(server *s)
{
    while (!s->busy && s->qhead && !s->out_dead) {
        call *c = s->qhead;
        s->qhead = c->next;
        s->qlen--;
        c->next = NULL;
        fp_err e = {0};
        if (spawn(s, c, &e) != 0) {
            s->call_errors++;
            reply(s, c->id, tool_result(s, error_envelope(c->cmd->name, &e), NULL, 0));
            fp_err_clear(&e);
            call_free(c);
        }
    }
}

/* ---- requests ---- */

static bool id_equal_parsed(const cJSON *a, const cJSON *b);

/* Ids are kept raw (raw_id); a cancellation's requestId is compared by value. */
static bool id_equal(const cJSON *a, const cJSON *b)
{
    cJSON *pa = a && cJSON_IsRaw(a) ? cJSON_Parse(a->valuestring) : NULL;
    cJSON *pb = b && cJSON_IsRaw(b) ? cJSON_Parse(b->valuestring) : NULL;
    bool eq = id_equal_parsed(pa ? pa : a, pb ? pb : b);
    cJSON_Delete(pa);
    cJSON_Delete(pb);
    return eq;
}

static bool id_equal_parsed(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return false;
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return !strcmp(a->valuestring, b->valuestring);
    return cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble;
}

static void on_initialize(server *s, const cJSON *id, const cJSON *params)
{
    const char *asked = fp_json_get_str(params, "protocolVersion");
    if (!asked) {
        reply_error(s, id, RPC_INVALID_PARAMS, "initialize needs params.protocolVersion (a string)");
        return;
    }
    if (s->initialized) {
        reply_error(s, id, RPC_INVALID_REQUEST, "already initialized");
        return;
    }
    s->version = PROTOCOL_LATEST;
    for (const char *const *v = protocol_versions; *v; v++)
        if (!strcmp(*v, asked))
            s->version = *v;
    s->initialized = true;
    cJSON *r = cJSON_CreateObject();
    fp_json_add_str(r, "protocolVersion", s->version);
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
    cJSON_AddItemToObject(tools, "listChanged", cJSON_CreateFalse());
    cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
    fp_json_add_str(info, "name", "flyprof");
    fp_json_add_str(info, "title", "flyprof - why is this GPU kernel slow?");
    fp_json_add_str(info, "version", FLYPROF_VERSION);
    fp_sb ins;
    fp_sb_init(&ins);
    fp_sb_addf(&ins, "Each tool is one flyprof command; arguments are its options by long name (see "
                     "inputSchema). Paths resolve inside %s. Start with `report` on a bundle, `hotspots` on an "
                     "ATT dispatch dir; errors carry a code and a help line.%s",
               s->pol.root, s->pol.allow_gpu ? "" : " GPU commands (capture, run, live counters) are disabled.");
    fp_json_add_str(r, "instructions", ins.buf);
    fp_sb_free(&ins);
    logf_("client %s asked protocol %s, speaking %s",
          fp_json_get_str(fp_jget(params, "clientInfo"), "name") ? fp_json_get_str(fp_jget(params, "clientInfo"),
                                                                                    "name")
                                                                  : "?",
          asked, s->version);
    reply(s, id, r);
}

static void on_tools_list(server *s, const cJSON *id, const cJSON *params)
{
    if (fp_jget(params, "cursor") && !cJSON_IsNull(fp_jget(params, "cursor"))) {
        reply_error(s, id, RPC_INVALID_PARAMS, "invalid cursor (this server returns every tool in one page)");
        return;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON *a = cJSON_AddArrayToObject(r, "tools");
    for (const fp_command *const *c = all_commands; *c; c++)
        if (fp_mcp_tool_listed(*c, &s->pol))
            cJSON_AddItemToArray(a, fp_mcp_tool_json(*c, &s->pol));
    reply(s, id, r);
}

static void on_tools_call(server *s, const cJSON *id, const cJSON *params)
{
    const char *name = fp_json_get_str(params, "name");
    if (!name) {
        reply_error(s, id, RPC_INVALID_PARAMS, "tools/call needs params.name (a string)");
        return;
    }
    const fp_command *cmd = find_tool(s, name);
    if (!cmd) {
        reply_error(s, id, RPC_INVALID_PARAMS, "unknown tool '%s'%s", name,
                    (!strcmp(name, "capture") || !strcmp(name, "run")) && !s->pol.allow_gpu
                        ? " (GPU commands need the server's --allow-gpu)"
                        : "");
        return;
    }
    const cJSON *args = fp_jget(params, "arguments");
    if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
        reply_error(s, id, RPC_INVALID_PARAMS, "params.arguments must be an object");
        return;
    }
    s->calls++;
    fp_err e = {0};
    char **argv = NULL;
    if (fp_mcp_build_argv(cmd, &s->pol, cJSON_IsObject(args) ? args : NULL, &argv, &e) != 0) {
        s->call_errors++;
        reply(s, id, tool_result(s, error_envelope(cmd->name, &e), NULL, 0));
        fp_err_clear(&e);
        return;
    }
    if (s->qlen >= MAX_QUEUE) {
        fp_mcp_argv_free(argv);
        reply_error(s, id, RPC_SERVER_BUSY, "%d tool calls are already waiting; retry later", MAX_QUEUE);
        return;
    }
    call *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->id = cJSON_Duplicate(id, 1);
    const cJSON *tok = fp_jget(fp_jget(params, "_meta"), "progressToken");
    if (tok && (cJSON_IsString(tok) || cJSON_IsNumber(tok)))
        c->token = cJSON_Duplicate(tok, 1);
    c->cmd = cmd;
    c->argv = argv;
    call **tail = &s->qhead;
    while (*tail)
        tail = &(*tail)->next;
    *tail = c;
    s->qlen++;
    start_next(s);
}

static void on_cancelled(server *s, const cJSON *params)
{
    const cJSON *rid = fp_jget(params, "requestId");
    if (!rid)
        return;
    if (s->busy && id_equal(s->run.c->id, rid)) {
        cancel_running(s, fp_json_get_str(params, "reason") ? fp_json_get_str(params, "reason") : "cancelled");
        return;
    }
    for (call **pp = &s->qhead; *pp; pp = &(*pp)->next)
        if (id_equal((*pp)->id, rid)) {
            call *c = *pp;
            *pp = c->next;
            s->qlen--;
            logf_("dropped queued %s (cancelled)", c->cmd->name);
            call_free(c);
            return;
        }
    /* unknown or finished request: ignored, as the spec asks */
}

/* The top-level "id" of a message as written (a raw cJSON item, printed verbatim):
 * cJSON keeps numbers as doubles and strings only up to a NUL. NULL when the
 * message has no scalar id (the parsed one is used). */
static cJSON *raw_id(const char *line, size_t len)
{
    fp_jscan js;
    fp_js_init(&js, line, len);
    cJSON *out = NULL;
    if (fp_js_next(&js) != FP_JT_OBJ_BEGIN) {
        fp_js_free(&js);
        return NULL;
    }
    for (;;) {
        fp_jtok t = fp_js_next(&js);
        if (t != FP_JT_STRING || !js.is_key)
            break;
        bool is_id = fp_js_str_eq(&js, "id") && js.str_len == 2;
        size_t a = fp_js_offset(&js);
        t = fp_js_next(&js);
        size_t b = fp_js_offset(&js);
        if (is_id && (t == FP_JT_STRING || t == FP_JT_NUMBER)) {
            while (a < b && (line[a] == ' ' || line[a] == '\t' || line[a] == '\r' || line[a] == '\n' || line[a] == ':'))
                a++;
            char *txt = strndup(line + a, b - a);
            if (txt)
                out = cJSON_CreateRaw(txt);
            free(txt);
            break;
        }
        if (t == FP_JT_ERROR || !fp_js_skip(&js))
            break;
    }
    fp_js_free(&js);
    return out;
}


static void handle_message(server *s, const char *line, size_t len)
{
    if (!utf8_valid(line, len)) { /* JSON text is UTF-8 (RFC 8259 §8.1) */
        reply_error(s, NULL, RPC_PARSE, "parse error: not valid UTF-8");
        return;
    }
    cJSON *m = cJSON_ParseWithLength(line, len);
    if (!m) {
        reply_error(s, NULL, RPC_PARSE, "parse error: not JSON");
        return;
    }
    if (!cJSON_IsObject(m)) {
        reply_error(s, NULL, RPC_INVALID_REQUEST, "%s", cJSON_IsArray(m)
                        ? "batches are not supported (MCP 2025-06-18 removed JSON-RPC batching)"
                        : "a message must be a JSON object");
        cJSON_Delete(m);
        return;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    bool id_ok = id && ((cJSON_IsString(id)) ||
                        (cJSON_IsNumber(id) && isfinite(id->valuedouble) && id->valuedouble == floor(id->valuedouble)));
    /* answers carry the id exactly as sent: 9223372036854775807 stays that, not 9.2e18 */
    cJSON *rid = id_ok ? raw_id(line, len) : NULL;
    const cJSON *echo = rid ? rid : id_ok ? id : NULL;
    const char *jv = fp_json_get_str(m, "jsonrpc");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
    if (!jv || strcmp(jv, "2.0")) {
        reply_error(s, echo, RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
    } else if (id && !id_ok) {
        reply_error(s, NULL, RPC_INVALID_REQUEST, "id must be a string or an integer");
    } else if (!method) {
        if (!(id && (cJSON_GetObjectItemCaseSensitive(m, "result") || cJSON_GetObjectItemCaseSensitive(m, "error"))))
            reply_error(s, echo, RPC_INVALID_REQUEST, "a request needs a method");
        /* else: a response; this server sends no requests, so it is dropped */
    } else if (!cJSON_IsString(method)) {
        reply_error(s, echo, RPC_INVALID_REQUEST, "method must be a string");
    } else if (params && !cJSON_IsObject(params)) {
        if (id)
            reply_error(s, echo, RPC_INVALID_PARAMS, "params must be an object");
    } else if (!id) {
        /* notifications: never answered */
        if (!strcmp(method->valuestring, "notifications/cancelled"))
            on_cancelled(s, params);
    } else {
        const char *mn = method->valuestring;
        s->requests++;
        if (!strcmp(mn, "initialize"))
            on_initialize(s, echo, params);
        else if (!strcmp(mn, "ping"))
            reply(s, echo, cJSON_CreateObject());
        else if (strcmp(mn, "tools/list") && strcmp(mn, "tools/call"))
            reply_error(s, echo, RPC_NO_METHOD, "method '%s' not found (this server offers tools only)", mn);
        else if (!s->initialized)
            reply_error(s, echo, RPC_INVALID_REQUEST, "not initialized: send initialize first");
        else if (!strcmp(mn, "tools/list"))
            on_tools_list(s, echo, params);
        else
            on_tools_call(s, echo, params);
    }
    cJSON_Delete(rid);
    cJSON_Delete(m);
}

/* Split stdin into lines; a line over FP_MCP_MAX_MESSAGE is dropped whole and answered once. */
static void read_stdin(server *s)
{
    char buf[65536];
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        if (s->in.len && !s->discarding) /* a last message without its newline */
            handle_message(s, s->in.buf, s->in.len);
        fp_sb_reset(&s->in);
        s->eof = true;
        return;
    }
    const char *p = buf, *end = buf + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t chunk = (size_t)((nl ? nl : end) - p);
        if (!s->discarding) {
            if (s->in.len + chunk > FP_MCP_MAX_MESSAGE) {
                s->discarding = true;
                fp_sb_reset(&s->in);
            } else {
                fp_sb_add(&s->in, p, chunk);
            }
        }
        if (!nl)
            break;
        if (s->discarding) {
            reply_error(s, NULL, RPC_INVALID_REQUEST, "message larger than %zu bytes: dropped",
                        FP_MCP_MAX_MESSAGE);
            s->discarding = false;
        } else {
            size_t l = s->in.len;
            while (l && (s->in.buf[l - 1] == '\r' || s->in.buf[l - 1] == ' ' || s->in.buf[l - 1] == '\t'))
                l--;
            if (l)
                handle_message(s, s->in.buf, l);
        }
        fp_sb_reset(&s->in);
        p = nl + 1;
    }
}

static void serve(server *s)
{
    /* EOF on stdin ends the session once the running and queued calls are
     * answered; a signal (the client's SIGTERM) or a closed stdout cancels them. */
    while (!(s->eof && !s->busy && !s->qhead)) {
        bool stop = *s->ctx->interrupted || s->out_dead;
        if (stop && !s->busy)
            break;
        if (stop)
            cancel_running(s, *s->ctx->interrupted ? "the server was signalled" : "the client went away");
        struct pollfd pf[4];
        int np = 0, who[4];
        if (!s->eof) {
            pf[np] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
            who[np++] = -1;
        }
        if (s->busy)
            for (int i = 0; i < 3; i++)
                if (s->run.fd[i] >= 0) {
                    pf[np] = (struct pollfd){.fd = s->run.fd[i], .events = POLLIN};
                    who[np++] = i;
                }
        /* Once the child closed its pipes it is exiting: look again soon. */
        bool pipes_open = s->busy && (s->run.fd[0] >= 0 || s->run.fd[1] >= 0 || s->run.fd[2] >= 0);
        int pr = poll(pf, (nfds_t)np, !s->busy ? -1 : pipes_open ? SLICE_MS : 2);
        if (pr < 0 && errno != EINTR) {
            logf_("poll: %s", strerror(errno));
            s->eof = s->out_dead = true;
        }
        for (int i = 0; pr > 0 && i < np; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (who[i] < 0)
                read_stdin(s);
            else if (s->busy)
                read_child(s, who[i]);
        }
        if (!s->busy)
            continue;
        running *r = &s->run;
        if (!r->reaped) {
            /* Peek without reaping: while the zombie leader exists its pid (and
             * group id) cannot be reused, so killing the group is safe. */
            siginfo_t si;
            memset(&si, 0, sizeof si);
            int w = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT);
            if (w == 0 && si.si_pid == r->pid) {
                kill_group(r, SIGKILL); /* whatever the call spawned does not outlive it */
                waitpid(r->pid, &r->status, 0);
                r->reaped = true;
            } else if (w < 0 && errno == ECHILD) {
                r->reaped = true;
            }
        }
        if (r->reaped) {
            finish(s);
            continue;
        }
        if (r->cancelled && !r->killed && now_s() - r->term_at > CANCEL_GRACE_S) {
            kill_group(r, SIGKILL);
            r->killed = true;
        }
        if (!r->cancelled)
            send_progress(s, false);
    }
    /* Calls still queued when the client left are dropped unanswered. */
    while (s->qhead) {
        call *c = s->qhead;
        s->qhead = c->next;
        call_free(c);
    }
}

static int mcp_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos;
    (void)npos;
    mcp_args *a = argsp;
    server s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.run.fd[0] = s.run.fd[1] = s.run.fd[2] = -1;
    s.version = PROTOCOL_LATEST;
    s.pol.allow_gpu = a->allow_gpu;
    char *root = realpath(a->root ? a->root : ".", NULL);
    if (!root || !fp_is_dir(root)) {
        free(root);
        return fp_err_set(err, FP_BAD_ARGS, "--root %s is not a directory", a->root ? a->root : ".");
    }
    s.pol.root = root;
    ssize_t n = readlink("/proc/self/exe", s.exe, sizeof s.exe - 1);
    if (n <= 0) {
        free(root);
        return fp_err_set(err, FP_INTERNAL, "cannot find this binary (/proc/self/exe): %s", strerror(errno));
    }
    s.exe[n] = '\0';
    /* The protocol owns the real stdout; fd 1 becomes stderr so that nothing
     * else (this command's final envelope included) can corrupt the stream. */
    fflush(stdout);
    s.out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (s.out < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        free(root);
        return fp_err_set(err, FP_IO_ERROR, "cannot set up the protocol channel: %s", strerror(errno));
    }
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* see reap_orphans */
    confined_defaults(&s);
    fp_sb_init(&s.in);
    logf_("serving on stdio, root %s%s", root, a->allow_gpu ? ", GPU commands allowed" : "");
    serve(&s);
    fp_sb_free(&s.in);
    free(s.env_fixed[0]);
    free(s.env_fixed[1]);
    close(s.out);
    logf_("stopped: %ld requests, %ld tool calls (%ld failed), %ld protocol errors", s.requests, s.calls,
          s.call_errors, s.rpc_errors);
    ctx->data = cJSON_CreateObject();
    fp_json_add_str(ctx->data, "root", root);
    fp_json_add_int(ctx->data, "requests", s.requests);
    fp_json_add_int(ctx->data, "toolCalls", s.calls);
    fp_json_add_int(ctx->data, "toolErrors", s.call_errors);
    fp_json_add_int(ctx->data, "protocolErrors", s.rpc_errors);
    free(root);
    if (s.out_dead) /* a response could not be written: the client did not get its answers */
        return fp_err_set(err, FP_IO_ERROR, "the protocol channel (stdout) was closed: responses were lost");
    return 0;
}

/* main checks the root before run: nonexistent 66, not a directory 78, unreadable 74 */
static const fp_path_rule mcp_paths[] = {
    {.opt = "root", .kind = FP_PATH_DIR},
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const mcp_examples[] = {
    "flyprof mcp --root ~/work",
    "flyprof mcp --root ~/work --allow-gpu",
    NULL,
};

const fp_command fp_cmd_mcp = {
    .examples = mcp_examples,
    .name = "mcp",
    .summary = "MCP server on stdio: one tool per command, schemas from the option tables (for agents)",
    .usage = "flyprof mcp [--root DIR] [--allow-gpu]",
    .details = "JSON-RPC 2.0, one message per line, MCP protocol 2025-06-18: initialize, ping, tools/list, "
               "tools/call, notifications/cancelled, progress notifications. Each call runs `flyprof <cmd> ... "
               "-f json` as a child in its own process group (cancel = kill the group); calls run one at a "
               "time, ping/list/cancel are served meanwhile. Path arguments must resolve inside --root. stdout "
               "carries only protocol messages; logs and this command's own envelope go to stderr.",
    .opts = mcp_opts,
    .args_size = sizeof(mcp_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = mcp_run,
    .paths = mcp_paths,
    .no_bundle = true,
};
