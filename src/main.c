/*
 * main.c - the command table, the global flags, and the ONLY place that prints
 * the envelope and chooses the exit status.
 *
 * Contract: stdout carries exactly one JSON document per invocation (or, with
 * -f table, the human rendering); the exit status is the one bound to the
 * envelope's error code in fp_code_table.
 */
#include <errno.h>
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h> /* mallopt */
#endif
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "flyprof/cli.h"
#include "flyprof/config.h"
#include "flyprof/csvout.h"
#include "flyprof/error.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/shellgen.h"
#include "flyprof/table.h"

/* The one piece of global mutable state: set by the signal handler, read by
 * long-running commands (subprocess waits) through ctx->interrupted. */
static volatile sig_atomic_t g_interrupted;
/* a command's result left to the exit (fp_ctx.left_to_exit): reachable, so not a leak */
static void *g_left_to_exit;
/* Colour on stdout / stderr (set once from --color, NO_COLOR and the terminal test). */
static bool g_color_out, g_color_err;
#define SGR_BOLD "\033[1m"
#define SGR_RED "\033[31m"
#define SGR_YELLOW "\033[33m"
#define SGR_OFF "\033[0m"

static void on_signal(int sig) { g_interrupted = sig; }

/* `flyprof mcp` runs each tool call as a child with -f json and wants the table
 * rendering of the same run too: it names a descriptor in FLYPROF_TABLE_FD that
 * receives the table while stdout gets the envelope. Taken once and removed
 * from the environment (close-on-exec), so steps this run spawns never see it. */
static int g_table_fd = -1;

static void take_table_fd(void)
{
    const char *s = getenv("FLYPROF_TABLE_FD");
    long long fd;
    if (s && fp_parse_ll(s, &fd) == 0 && fd > 2 && fd < 1024 && fcntl((int)fd, F_SETFD, FD_CLOEXEC) == 0)
        g_table_fd = (int)fd;
    unsetenv("FLYPROF_TABLE_FD");
}

/* The envelope of a run that ends in abort(): every allocation failure aborts
 * (mem.h), and malloc has just set errno to ENOMEM, so the handler can tell "out
 * of memory" (IO_ERROR: the input does not fit the memory available) from any
 * other abort (INTERNAL). Both texts are built before the command runs, because
 * a signal handler may only write(); in table mode they go to stderr. */
static char *g_abort_text[2];
static size_t g_abort_len[2];
static int g_abort_fd = 1, g_abort_exit[2];

static void on_abort(int sig)
{
    (void)sig;
    int k = errno == ENOMEM ? 0 : 1;
    if (g_abort_text[k]) {
        ssize_t w = write(g_abort_fd, g_abort_text[k], g_abort_len[k]);
        (void)w;
        _exit(g_abort_exit[k]);
    }
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}

static void prepare_abort(const fp_ctx *ctx)
{
    static const struct {
        fp_errcode code;
        const char *message, *help;
    } why[2] = {
        {FP_IO_ERROR, "out of memory: the input does not fit in the memory this process may use",
         "raise the memory limit (ulimit -v, the container's), or analyse a smaller dispatch"},
        {FP_INTERNAL, "flyprof aborted (an internal error)", "please report it with the command line"},
    };
    bool table = ctx->format == FP_FMT_TABLE && g_table_fd < 0;
    g_abort_fd = table ? 2 : 1;
    for (int k = 0; k < 2; k++) {
        fp_sb t;
        fp_sb_init(&t);
        if (table) {
            fp_sb_addf(&t, "flyprof %s: error %s (exit %d): %s\n  help: %s\n", ctx->command, fp_code_name(why[k].code),
                       fp_code_exit(why[k].code), why[k].message, why[k].help);
            fp_term_safe(&t, 0);
        } else {
            cJSON *env = cJSON_CreateObject(), *e = cJSON_CreateObject();
            cJSON_AddItemToObject(env, "ok", cJSON_CreateFalse());
            fp_json_add_str(env, "command", ctx->command);
            fp_json_add_str(e, "code", fp_code_name(why[k].code));
            fp_json_add_int(e, "exitCode", fp_code_exit(why[k].code));
            fp_json_add_str(e, "message", why[k].message);
            fp_json_add_str(e, "help", why[k].help);
            cJSON_AddItemToObject(env, "error", e);
            char *p = fp_json_print(env, false);
            fp_sb_addf(&t, "%s\n", p ? p : "");
            free(p);
            cJSON_Delete(env);
        }
        g_abort_exit[k] = fp_code_exit(why[k].code);
        g_abort_len[k] = t.len;
        g_abort_text[k] = fp_sb_detach(&t);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_abort;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, NULL);
}

static void write_table_fd(fp_ctx *ctx)
{
    char *s = ctx->table.len ? NULL : (ctx->data ? fp_json_print(ctx->data, true) : NULL);
    const char *p = ctx->table.len ? ctx->table.buf : s ? s : "{}";
    size_t left = strlen(p);
    while (left) {
        ssize_t w = write(g_table_fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    free(s);
}

#define FP_TABLE_ENTRY(name) &fp_cmd_##name,
static const fp_command *const commands[] = {FP_COMMANDS(FP_TABLE_ENTRY) NULL};
#undef FP_TABLE_ENTRY

static const fp_command *find_command(const char *name)
{
    for (const fp_command *const *c = commands; *c; c++)
        if (!strcmp((*c)->name, name))
            return *c;
    return NULL;
}

/* Did-you-mean for a command name (or help topic). */
static const char *command_dym(const char *name)
{
    const char *names[64];
    size_t n = 0;
    for (const fp_command *const *c = commands; *c && n < 63; c++)
        names[n++] = (*c)->name;
    names[n++] = "help";
    return fp_did_you_mean(name, strlen(name), names, n);
}

/* The global flags main.c handles itself: short letter -> takes a value? */
static int global_short(char c)
{
    return c == 'f' ? 1 : (c == 'q' || c == 'h' || c == 'V') ? 0 : -1;
}

/* Split short-option clusters (-qf json, -qk NAME) into single options, with
 * the command's table for its own letters, so that global and command letters
 * mix. The first letter that takes a value ends the cluster (getopt's rules).
 * Returns a new argv (the strings it points to are argv's or copies in *owned). */
static char **expand_clusters(int argc, char **argv, int *nout, char ***owned, int *nowned)
{
    const fp_command *cmd = NULL;
    for (int i = 1; i < argc && !cmd; i++) { /* the command: the first word that is no option value */
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            break;
        if (!strcmp(a, "-f") || !strcmp(a, "--format") || !strcmp(a, "--bundle") || !strcmp(a, "--color") ||
            (a[0] == '-' && a[1] != '-' && a[1] && a[strlen(a) - 1] == 'f'))
            i++;
        else if (a[0] != '-')
            cmd = find_command(a);
    }
    char **out = calloc(2 * (size_t)argc + 1, sizeof *out);
    *owned = calloc(2 * (size_t)argc + 1, sizeof **owned);
    if (!out || !*owned)
        abort();
    int n = 0;
    *nowned = 0;
    bool after_dd = false, is_value = false;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (is_value) { /* the value of the option before: "--invocation '-m x'" stays whole */
            is_value = false;
            out[n++] = a;
            continue;
        }
        if (i > 0 && !after_dd && a[0] == '-' && a[1] == '-' && a[2] && !strchr(a, '=')) {
            const char *name = a + 2;
            is_value = !strcmp(name, "format") || !strcmp(name, "bundle") || !strcmp(name, "color");
            for (const fp_opt *p = cmd ? cmd->opts : NULL; p && p->lng; p++)
                if (!strcmp(p->lng, name))
                    is_value = p->kind != FP_OPT_FLAG;
        }
        if (i == 0 || after_dd || a[0] != '-' || a[1] == '-' || !a[1] || !a[2] || (a[1] >= '0' && a[1] <= '9')) {
            after_dd = after_dd || (i > 0 && !strcmp(a, "--"));
            out[n++] = a;
            continue;
        }
        for (size_t k = 1; a[k]; k++) {
            const fp_opt *o = NULL;
            for (const fp_opt *p = cmd ? cmd->opts : NULL; p && p->lng && !o; p++)
                if (p->shrt == a[k])
                    o = p;
            int takes = o ? o->kind != FP_OPT_FLAG : global_short(a[k]);
            char *one = malloc(3);
            if (!one)
                abort();
            one[0] = '-', one[1] = a[k], one[2] = '\0';
            (*owned)[(*nowned)++] = one;
            out[n++] = one;
            if (takes == 1 && a[k + 1]) {
                out[n++] = a + k + 1; /* -kNAME */
                break;
            }
            if (takes == 1) {
                is_value = true; /* -qk NAME: NAME is a value, even "-x" */
                break;
            }
        }
    }
    *nout = n;
    return out;
}

static cJSON *command_list_json(void)
{
    cJSON *a = cJSON_CreateArray();
    for (const fp_command *const *c = commands; *c; c++) {
        cJSON *o = cJSON_CreateObject();
        fp_json_add_str(o, "name", (*c)->name);
        fp_json_add_str(o, "summary", (*c)->summary);
        fp_json_add_str(o, "usage", (*c)->usage);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *exit_codes_json(void)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < FP_CODE_COUNT; i++) {
        cJSON *o = cJSON_CreateObject();
        fp_json_add_str(o, "code", fp_code_table[i].name);
        fp_json_add_int(o, "exitCode", fp_code_table[i].exit_status);
        fp_json_add_str(o, "meaning", fp_code_table[i].meaning);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static void exit_codes_text(fp_sb *out)
{
    fp_sb_adds(out, "| exit | code | meaning |\n|---:|---|---|\n");
    for (int i = 0; i < FP_CODE_COUNT; i++)
        fp_sb_addf(out, "| %d | `%s` | %s |\n", fp_code_table[i].exit_status, fp_code_table[i].name,
                   fp_code_table[i].meaning);
}

static void top_help(fp_ctx *ctx)
{
    ctx->data = cJSON_CreateObject();
    fp_json_add_str(ctx->data, "name", "flyprof");
    fp_json_add_str(ctx->data, "version", FLYPROF_VERSION);
    fp_json_add_str(ctx->data, "usage", "flyprof <command> [args] [options]");
    cJSON_AddItemToObject(ctx->data, "commands", command_list_json());
    cJSON *g = cJSON_AddArrayToObject(ctx->data, "globalOptions");
    for (const fp_opt *o = fp_global_opts; o->lng; o++) {
        cJSON *j = cJSON_CreateObject();
        fp_sb f;
        fp_sb_init(&f);
        fp_sb_addf(&f, "--%s", o->lng);
        fp_json_add_str(j, "flag", f.buf);
        fp_sb_free(&f);
        fp_json_add_str(j, "help", o->help);
        cJSON_AddItemToArray(g, j);
    }
    cJSON_AddItemToObject(ctx->data, "exitCodes", exit_codes_json());

    fp_sb *t = &ctx->table;
    fp_sb_adds(t, "flyprof " FLYPROF_VERSION
                  " - why is this GPU kernel slow? (AMD Instinct gfx942/gfx950, rocprofv3 ATT)\n\n"
                  "usage: flyprof <command> [args] [options]\n\ncommands:\n");
    for (const fp_command *const *c = commands; *c; c++) {
        fp_sb_adds(t, "  ");
        fp_sb_pad_left(t, (*c)->name, 10);
        fp_sb_addf(t, " %s\n", (*c)->summary);
    }
    fp_sb_adds(t, "\nglobal options:\n");
    for (const fp_opt *o = fp_global_opts; o->lng; o++) {
        fp_sb_addf(t, "  %s%c%s--%s", o->shrt ? "-" : "", o->shrt ? o->shrt : ' ',
                   o->shrt ? ", " : "   ", o->lng);
        fp_sb_addf(t, "  %s\n", o->help);
    }
    fp_sb_adds(t, "\n`flyprof help <command>` for a command's options; `flyprof help exit-codes`.\n\n"
                  "exit codes:\n");
    exit_codes_text(t);
}

/* The table on stdout, its first line (the headline: the one-line answer) in bold
 * on a colour terminal. */
static void print_table(const fp_sb *t)
{
    size_t first = strcspn(t->buf, "\n");
    if (g_color_out && first > 0) {
        fputs(SGR_BOLD, stdout);
        fwrite(t->buf, 1, first, stdout);
        fputs(SGR_OFF, stdout);
        fwrite(t->buf + first, 1, t->len - first, stdout);
    } else {
        fwrite(t->buf, 1, t->len, stdout);
    }
}

/* Table mode, after a success: "wrote PATH" for each file the data names (its
 * `artifact`, the values of its `artifacts`) and the command's "next:" step, on
 * stderr (stdout stays the table); -q silences them. */
static void hints(const fp_command *cmd, const fp_ctx *ctx)
{
    if (ctx->quiet || !cmd || !cJSON_IsObject(ctx->data))
        return;
    const char *one = fp_json_get_str(ctx->data, "artifact");
    if (one && one[0] == '/')
        fprintf(stderr, "wrote %s\n", one);
    const cJSON *many = cJSON_GetObjectItemCaseSensitive(ctx->data, "artifacts");
    for (const cJSON *it = cJSON_IsObject(many) ? many->child : NULL; it; it = it->next)
        if (cJSON_IsString(it) && it->valuestring[0] == '/')
            fprintf(stderr, "wrote %s\n", it->valuestring);
    if (cmd->next) {
        const char *b = ctx->bundle_abs ? ctx->bundle_abs : "DIR", *at = strstr(cmd->next, "{bundle}");
        if (at)
            fprintf(stderr, "next: %.*s%s%s\n", (int)(at - cmd->next), cmd->next, b, at + 8);
        else
            fprintf(stderr, "next: %s\n", cmd->next);
    }
}

/* -f csv / sarif / junit: only commands that have such an answer take it. */
static int check_format(const fp_command *cmd, fp_ctx *ctx, fp_err *err)
{
    if (ctx->format == FP_FMT_CSV && !cmd->csv_rows)
        return fp_err_set(err, FP_USAGE, "-f csv: '%s' has no table of rows (json or table)", cmd->name);
    if (ctx->format == FP_FMT_CSV && ctx->csv_rows) {
        fp_sb names;
        fp_sb_init(&names);
        bool found = false;
        for (const char *const *r = cmd->csv_rows; *r; r++) {
            found |= !strcmp(*r, ctx->csv_rows);
            fp_sb_addf(&names, "%s%s", names.len ? ", " : "", *r);
        }
        if (!found)
            fp_err_set(err, FP_USAGE, "-f csv:%s: '%s' has no rows '%s' (it has: %s)", ctx->csv_rows, cmd->name,
                       ctx->csv_rows, names.buf);
        fp_sb_free(&names);
        return found ? 0 : -1;
    }
    if (ctx->format > FP_FMT_CSV && !(cmd->formats & FP_FMT_BIT(ctx->format)))
        return fp_err_set(err, FP_USAGE, "-f %s: '%s' has no %s output (report, check and diff write sarif; check "
                          "writes junit)", fp_format_name(ctx->format), cmd->name, fp_format_name(ctx->format));
    return 0;
}

/* -f csv: the row list of the data the command names (first present, or csv:ROWS). */
static int csv_of(const fp_command *cmd, fp_ctx *ctx, fp_sb *out, fp_err *err)
{
    for (const char *const *r = cmd->csv_rows; *r; r++) {
        if (ctx->csv_rows && strcmp(*r, ctx->csv_rows))
            continue;
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(ctx->data, *r);
        if (rows)
            return fp_csv_rows(rows, out, err);
    }
    /* e.g. `history show`: a sub-command whose answer is one record, not rows */
    fp_err_set(err, FP_USAGE, "-f csv: this answer of '%s' has no list of rows", cmd->name);
    return fp_err_help(err, "use -f json or -f table here; -f csv fits the answers with rows (docs/tables.md)");
}

/* The error as text on stderr, with what the JSON error carries beyond the message
 * (available dispatches, candidates), fitted like a table. */
static void error_text(const fp_ctx *ctx, const fp_err *err)
{
    fp_sb det;
    fp_sb_init(&det);
    fp_sb_addf(&det, "flyprof %s: error %s (exit %d): %s\n", ctx->command ? ctx->command : "",
               fp_code_name(err->code), fp_code_exit(err->code), err->message);
    if (err->help[0])
        fp_sb_addf(&det, "  help: %s\n", err->help);
    /* a typo is one line of did-you-mean plus the usage line: no lists of every command */
    if (!cJSON_GetObjectItemCaseSensitive(err->extra, "didYouMean"))
        fp_table_error_details(err->extra, 20, &det);
    fp_term_safe(&det, 0); /* no control sequence from the data; the colour is ours, added after */
    fp_table_fit(&det, ctx->width, getenv("FLYPROF_WORKTREE"));
    char *e = g_color_err ? strstr(det.buf, ": error ") : NULL;
    if (e) { /* "error CODE" in red */
        e += 2;
        size_t n = 6 + strcspn(e + 6, " ");
        fwrite(det.buf, 1, (size_t)(e - det.buf), stderr);
        fputs(SGR_RED, stderr);
        fwrite(e, 1, n, stderr);
        fputs(SGR_OFF, stderr);
        fputs(e + n, stderr);
    } else {
        fputs(det.buf, stderr);
    }
    fp_sb_free(&det);
}

static void warnings_text(const fp_ctx *ctx)
{
    int n = ctx->warnings ? cJSON_GetArraySize(ctx->warnings) : 0;
    for (int i = 0; i < n; i++) {
        fp_sb w;
        fp_sb_init(&w);
        fp_sb_addf(&w, "%s\n", cJSON_GetArrayItem(ctx->warnings, i)->valuestring);
        fp_term_safe(&w, 0);
        fprintf(stderr, "%swarning:%s %s", g_color_err ? SGR_YELLOW : "", g_color_err ? SGR_OFF : "", w.buf);
        fp_sb_free(&w);
    }
}

static int finish_stdout(const fp_ctx *ctx, int rc, const fp_err *err);

/* -f csv / sarif / junit: the document on stdout (also with a tripped gate's answer),
 * warnings and errors as text on stderr, as in table mode. */
static int emit_document(const fp_command *cmd, fp_ctx *ctx, int rc, fp_err *err, bool with_data)
{
    fp_sb out;
    fp_sb_init(&out);
    if ((rc == 0 || with_data) && ctx->format == FP_FMT_CSV) {
        fp_err cerr = {0};
        if (csv_of(cmd, ctx, &out, &cerr) != 0 && rc == 0) {
            *err = cerr;
            rc = -1;
        }
    } else if (rc == 0 || with_data) {
        fp_sb_add(&out, ctx->doc.buf, ctx->doc.len);
    }
    if (rc == 0 || with_data) {
        fwrite(out.buf, 1, out.len, stdout);
        warnings_text(ctx);
    }
    if (rc != 0)
        error_text(ctx, err);
    fp_sb_free(&out);
    return finish_stdout(ctx, rc, err);
}

/* `help completion SHELL` / `help man [COMMAND]`: the generated files (the build writes
 * them, `cmake --install` installs them), printed verbatim; the JSON form holds the text. */
static int generated_help(fp_ctx *ctx, const char *topic, const char *arg, fp_err *err)
{
    ctx->table_verbatim = true;
    if (!strcmp(topic, "completion")) {
        if (fp_completion(arg, commands, &ctx->table) != 0)
            return fp_err_set(err, FP_USAGE, "help completion takes bash, zsh or fish, not '%s'", arg ? arg : "");
    } else {
        const fp_command *cmd = arg ? find_command(arg) : NULL;
        if (arg && !cmd)
            return fp_err_set(err, FP_USAGE, "help man: no command '%s'", arg);
        fp_man_page(cmd, commands, FLYPROF_VERSION, &ctx->table);
    }
    ctx->data = cJSON_CreateObject();
    fp_json_add_str(ctx->data, "text", ctx->table.buf);
    return 0;
}

/* The exit status once the envelope (or table) went to stdout. When it did not
 * arrive (stdout closed, full, a broken pipe: SIGPIPE is ignored) the caller
 * got no answer, so success must not be reported: IO_ERROR's status, on stderr
 * why (a failure keeps its own status). */
static int finish_stdout(const fp_ctx *ctx, int rc, const fp_err *err)
{
    errno = 0;
    bool lost = fflush(stdout) != 0 || ferror(stdout);
    if (lost)
        fprintf(stderr, "flyprof %s: error IO_ERROR: the %s was not delivered: cannot write stdout: %s\n",
                ctx->command ? ctx->command : "", ctx->format == FP_FMT_TABLE ? "table" : "envelope",
                errno ? strerror(errno) : "write error");
    if (rc != 0)
        return fp_code_exit(err->code);
    return lost ? fp_code_exit(FP_IO_ERROR) : 0;
}

/* Print the one envelope; returns the exit status. */
static int emit(const fp_command *cmd, fp_ctx *ctx, int rc, fp_err *err)
{
    if (rc != 0 && err->code == FP_OK)
        fp_err_set(err, FP_INTERNAL, "command failed without an error code");

    /* A failing command may still have an answer to show (diff --fail-on):
     * its data and warnings go with the error. */
    bool with_data = rc != 0 && ctx->data_on_error && ctx->data;
    /* no terminal control sequence from the data reaches a terminal, verbatim or not */
    fp_term_safe(&ctx->table, 0);
    if (ctx->format >= FP_FMT_CSV && cmd && g_table_fd < 0)
        return emit_document(cmd, ctx, rc, err, with_data);
    if (ctx->format >= FP_FMT_CSV) /* no command ran (help, a usage error before it): the envelope */
        ctx->format = g_table_fd >= 0 ? FP_FMT_TABLE : FP_FMT_JSON;
    /* fit the table once, for the terminal and for FLYPROF_TABLE_FD (mcp's text) alike */
    if (ctx->format == FP_FMT_TABLE && ctx->table.len && !ctx->table_verbatim)
        fp_table_fit(&ctx->table, ctx->width, getenv("FLYPROF_WORKTREE"));
    if (ctx->format == FP_FMT_TABLE && g_table_fd < 0) {
        if (with_data && ctx->table.len)
            fwrite(ctx->table.buf, 1, ctx->table.len, stdout);
        if (rc == 0) {
            if (ctx->table.len) {
                print_table(&ctx->table);
            } else {
                char *s = ctx->data ? fp_json_print(ctx->data, true) : NULL;
                printf("%s\n", s ? s : "{}");
                free(s);
            }
        }
        if (rc == 0 || with_data)
            warnings_text(ctx);
        if (rc == 0)
            hints(cmd, ctx);
        if (rc != 0)
            error_text(ctx, err);
        return finish_stdout(ctx, rc, err);
    }

    if (g_table_fd >= 0 && (rc == 0 || with_data))
        write_table_fd(ctx);
    cJSON *env = cJSON_CreateObject();
    cJSON_AddItemToObject(env, "ok", cJSON_CreateBool(rc == 0));
    fp_json_add_str(env, "command", ctx->command);
    if (rc == 0) {
        if (ctx->bundle_abs)
            fp_json_add_str(env, "bundle", ctx->bundle_abs);
        cJSON_AddItemToObject(env, "data", ctx->data ? ctx->data : cJSON_CreateObject());
        ctx->data = NULL;
        cJSON_AddItemToObject(env, "warnings", ctx->warnings ? ctx->warnings : cJSON_CreateArray());
        ctx->warnings = NULL;
        if (ctx->truncated) {
            cJSON_AddItemToObject(env, "truncated", ctx->truncated);
            ctx->truncated = NULL;
        }
    } else {
        cJSON *e = cJSON_CreateObject();
        fp_json_add_str(e, "code", fp_code_name(err->code));
        fp_json_add_int(e, "exitCode", fp_code_exit(err->code));
        fp_json_add_str(e, "message", err->message);
        fp_json_add_str(e, "help", err->help[0] ? err->help : fp_code_help(err->code));
        if (err->extra) {
            cJSON *it = err->extra->child;
            while (it) {
                cJSON *next = it->next;
                cJSON *d = cJSON_DetachItemViaPointer(err->extra, it);
                if (!cJSON_GetObjectItemCaseSensitive(e, d->string))
                    cJSON_AddItemToObject(e, d->string, d);
                else
                    cJSON_Delete(d);
                it = next;
            }
        }
        cJSON_AddItemToObject(env, "error", e);
        if (with_data) {
            cJSON_AddItemToObject(env, "data", ctx->data);
            ctx->data = NULL;
            cJSON_AddItemToObject(env, "warnings", ctx->warnings ? ctx->warnings : cJSON_CreateArray());
            ctx->warnings = NULL;
        }
    }
    char *s = fp_json_print(env, false);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    }
    cJSON_Delete(env);
    return finish_stdout(ctx, rc, err);
}

int main(int argc, char **argv)
{
    /* Freed memory stays in the heap for the next allocation (no mmap per block of
     * 128 KB or more, no trim): a command's phases reuse pages instead of faulting in
     * fresh ones (bubbles: the workers' per-wave buffers, then the document; ~95 of
     * 1,700 page faults on flash_attn_func-big). Blocks past 64 MiB are still mapped. */
#if defined(__GLIBC__) /* other C libraries keep their own defaults */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    /* One arena for every thread: a second thread's own arena starts empty, so what it
     * allocates comes from fresh pages even where the main arena holds freed ones (the
     * set-up's, code.json's). bubbles on flash_attn_func-big, 2 jobs: ~1,885 -> ~1,835
     * page faults. The walk allocates little per file (its buffers are kept), so the one
     * lock is rarely contended; small blocks go through each thread's tcache anyway. */
    mallopt(M_ARENA_MAX, 1);
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    fp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    fp_sb_init(&ctx.table);
    fp_sb_init(&ctx.doc);
    ctx.interrupted = &g_interrupted;
    ctx.argv0 = argv[0];
    ctx.left_to_exit = &g_left_to_exit; /* main returns after the one command it runs */
    ctx.format = isatty(STDOUT_FILENO) ? FP_FMT_TABLE : FP_FMT_JSON;
    fp_err err;
    memset(&err, 0, sizeof err);

    char **owned = NULL;
    int nowned = 0;
    char **xargv = expand_clusters(argc, argv, &argc, &owned, &nowned);
    argv = xargv;

    /* Pass 1: strip global flags wherever they appear (before a "--"). */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        abort();
    int nrest = 0;
    bool want_help = false, want_version = false, after_dd = false, wide = false;
    const char *format_arg = NULL, *color_arg = "auto";
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (after_dd) {
            rest[nrest++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            after_dd = true;
            rest[nrest++] = argv[i];
            continue;
        }
        const char *val = NULL;
        if (!strcmp(a, "-f") || !strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
            if (a[1] == '-' && a[8] == '=') {
                val = a + 9;
            } else if (i + 1 < argc) {
                val = argv[++i];
            } else {
                rc = fp_err_set(&err, FP_USAGE, "%s needs a value: json, table, csv, sarif or junit", a);
                continue;
            }
            format_arg = val;
        } else if (!strcmp(a, "--bundle") || !strncmp(a, "--bundle=", 9)) {
            if (a[8] == '=')
                val = a + 9;
            else if (i + 1 < argc)
                val = argv[++i];
            if (!val || !val[0]) {
                rc = fp_err_set(&err, FP_USAGE, "--bundle needs a directory");
                continue;
            }
            ctx.bundle = val;
        } else if (!strcmp(a, "--wide")) {
            wide = true;
        } else if (!strcmp(a, "--color") || !strncmp(a, "--color=", 8)) {
            const char *v = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : "";
            if (!strcmp(v, "auto") || !strcmp(v, "always") || !strcmp(v, "never"))
                color_arg = v;
            else if (rc == 0)
                rc = fp_err_set(&err, FP_USAGE, "--color must be auto, always or never, got '%s'", v);
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            ctx.quiet = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            want_help = true;
        } else if ((!strcmp(a, "--version") || !strcmp(a, "-V")) && nrest == 0) {
            /* only before a command: `rules --version` is an unknown option of rules */
            want_version = true;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    /* -f, else $FLYPROF_FORMAT (a shell's choice: `doctor | tail` as a table), else the
     * terminal test: JSON when stdout is no terminal is the agent contract */
    const char *env_format = getenv("FLYPROF_FORMAT");
    if (!format_arg && env_format && env_format[0])
        format_arg = env_format;
    fp_config cfg = {0}; /* the config file's `format:`: the default on a terminal only (never for agents) */
    if (!format_arg && rc == 0 && isatty(STDOUT_FILENO)) {
        fp_err cerr = {0};
        if (fp_config_load(&cfg, NULL, &cerr) == 0 && cfg.format.value && !strcmp(cfg.format.source, "config"))
            format_arg = cfg.format.value;
        fp_err_clear(&cerr); /* a broken config file is the command's own error to report */
    }
    if (format_arg && rc == 0 && fp_format_parse(format_arg, &ctx.format, &ctx.csv_rows, &err) != 0) {
        rc = -1;
        if (format_arg == env_format)
            fp_err_help(&err, "FLYPROF_FORMAT is '%s': unset it or give -f", env_format);
        else if (format_arg == cfg.format.value)
            fp_err_help(&err, "the config file %s says format: %s", cfg.config_file, format_arg);
    }
    take_table_fd();
    if (g_table_fd >= 0)
        ctx.format = FP_FMT_TABLE; /* commands build their table; emit prints the envelope too */
    ctx.table_only = ctx.format == FP_FMT_TABLE && g_table_fd < 0;
    /* colour: on a terminal unless NO_COLOR (no-color.org) or --color never; --color always forces it */
    const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
    bool color_auto = !(nc && nc[0]) && !(term && !strcmp(term, "dumb"));
    g_color_out = !strcmp(color_arg, "always") || (!strcmp(color_arg, "auto") && color_auto && isatty(STDOUT_FILENO));
    g_color_err = !strcmp(color_arg, "always") || (!strcmp(color_arg, "auto") && color_auto && isatty(STDERR_FILENO));
    if (ctx.bundle)
        ctx.bundle_abs = fp_path_abs(ctx.bundle);
    ctx.width = fp_table_width_auto(wide);

    const char *name = nrest > 0 && rest[0][0] != '-' ? rest[0] : NULL;
    ctx.command = name ? name : (want_version ? "version" : "help");
    prepare_abort(&ctx);
    const fp_command *cmd = NULL, *ran = NULL; /* ran: the command whose run() answers */

    if (rc != 0) {
        /* a bad global flag: report it below */
    } else if (!name && want_version) {
        ctx.data = cJSON_CreateObject();
        fp_json_add_str(ctx.data, "name", "flyprof");
        fp_json_add_str(ctx.data, "version", FLYPROF_VERSION);
        fp_sb_adds(&ctx.table, "flyprof " FLYPROF_VERSION "\n");
    } else if (!name && nrest > 0) {
        rc = fp_err_set(&err, FP_USAGE, "unknown option '%s' (expected a command first)", rest[0]);
        fp_err_help(&err, "run `flyprof help` for the list of commands");
    } else if (!name && !want_help) {
        /* bare `flyprof`: the usage, as an error (nothing was done) */
        top_help(&ctx);
        ctx.data_on_error = true;
        rc = fp_err_set(&err, FP_USAGE, "no command given");
        fp_err_help(&err, "run `flyprof help` for the list of commands");
    } else if (!name || !strcmp(name, "help")) {
        ctx.command = "help";
        const char *topic = name && nrest > 1 ? rest[1] : NULL;
        const char *arg = name && nrest > 2 ? rest[2] : NULL;
        bool gen = topic && (!strcmp(topic, "completion") || !strcmp(topic, "man"));
        if (name && nrest > (gen ? 3 : 2)) {
            rc = fp_err_set(&err, FP_USAGE, "help takes at most one topic");
        } else if (gen) {
            rc = generated_help(&ctx, topic, arg, &err);
        } else if (!topic) {
            top_help(&ctx);
        } else if (!strcmp(topic, "exit-codes")) {
            ctx.data = cJSON_CreateObject();
            cJSON_AddItemToObject(ctx.data, "exitCodes", exit_codes_json());
            exit_codes_text(&ctx.table);
        } else if ((cmd = find_command(topic)) != NULL) {
            ctx.data = fp_command_help_json(cmd);
            fp_command_help_text(cmd, &ctx.table);
        } else {
            const char *dym = command_dym(topic);
            if (dym)
                rc = fp_err_set(&err, FP_USAGE, "no help topic '%s' (did you mean '%s'?)", topic, dym);
            else
                rc = fp_err_set(&err, FP_USAGE, "no help topic '%s'", topic);
            fp_err_help(&err, "topics: a command name, exit-codes, completion bash|zsh|fish, man [COMMAND]");
            fp_err_extra(&err, "commands", command_list_json());
            if (dym)
                fp_err_extra(&err, "didYouMean", cJSON_CreateString(dym));
        }
    } else if ((cmd = find_command(name)) == NULL) {
        const char *dym = command_dym(name);
        if (dym)
            rc = fp_err_set(&err, FP_USAGE, "unknown command '%s' (did you mean '%s'?)", name, dym);
        else
            rc = fp_err_set(&err, FP_USAGE, "unknown command '%s'", name);
        const fp_command *sug = dym ? find_command(dym) : NULL;
        if (sug)
            fp_err_help(&err, "usage: %s", sug->usage);
        else
            fp_err_help(&err, "run `flyprof help` for the list of commands");
        fp_err_extra(&err, "commands", command_list_json());
        if (dym)
            fp_err_extra(&err, "didYouMean", cJSON_CreateString(dym));
    } else if (want_help) {
        ctx.data = fp_command_help_json(cmd);
        fp_command_help_text(cmd, &ctx.table);
    } else {
        ran = cmd;
        void *args = calloc(1, cmd->args_size ? cmd->args_size : 1);
        char **pos = NULL;
        int npos = 0;
        if (!args)
            abort();
        fp_sb notes;
        fp_sb_init(&notes);
        rc = fp_parse_opts_noted(cmd, args, nrest - 1, rest + 1, &pos, &npos, &notes, &err);
        for (char *l = notes.buf, *nl; l && *l; l = nl + 1) {
            nl = strchr(l, '\n');
            *nl = '\0';
            fp_warn(&ctx, "%s", l);
        }
        fp_sb_free(&notes);
        if (rc == 0 && cmd->no_bundle && ctx.bundle)
            rc = fp_err_set(&err, FP_USAGE, "unknown option --bundle for '%s' (it reads no bundle)", cmd->name);
        if (rc == 0)
            rc = check_format(cmd, &ctx, &err);
        if (rc == 0 && cmd->bundle_required && !ctx.bundle)
            rc = fp_err_set(&err, FP_USAGE, "'%s' needs --bundle DIR", cmd->name);
        if (rc == 0)
            rc = fp_check_paths(cmd, args, pos, npos, ctx.bundle, &err);
        if (rc != 0 && err.code == FP_USAGE && !err.help[0])
            fp_err_help(&err, "usage: %s (see `flyprof help %s`)", cmd->usage, cmd->name);
        if (rc == 0) {
            rc = cmd->run(&ctx, args, pos, npos, &err);
            if (rc == 0 && g_interrupted)
                rc = fp_err_set(&err, FP_INTERRUPTED, "interrupted by signal %d", (int)g_interrupted);
        }
        /* Free the list options the parser grew. */
        for (const fp_opt *o = cmd->opts; o && o->lng; o++)
            if (o->kind == FP_OPT_LIST)
                free(((fp_strlist *)((char *)args + o->off))->v);
        free(pos);
        free(args);
    }

    int status = emit(ran, &ctx, rc, &err);
    cJSON_Delete(ctx.data);
    cJSON_Delete(ctx.warnings);
    cJSON_Delete(ctx.truncated);
    fp_sb_free(&ctx.table);
    fp_sb_free(&ctx.doc);
    fp_config_free(&cfg);
    free(ctx.bundle_abs);
    fp_err_clear(&err);
    free(rest);
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
    free(owned);
    free(xargv);
    return status;
}
