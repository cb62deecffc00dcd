/*
 * cli.h - what a command is (one static fp_command per src/cmd/cmd_<name>.c),
 * the table-driven option parser shared by every command (after git's
 * parse-options), and the per-invocation context a command fills.
 *
 * A command never prints to stdout and never exits: it fills ctx->data (and
 * optionally ctx->table for `-f table`) or returns -1 with an fp_err. main.c
 * turns that into the one envelope.
 */
#ifndef FLYPROF_CLI_H
#define FLYPROF_CLI_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"
#include "flyprof/strbuf.h"

typedef enum fp_format { FP_FMT_JSON, FP_FMT_TABLE } fp_format;

typedef struct fp_ctx {
    const char *command;   /* command name, for the envelope */
    fp_format format;
    bool quiet;            /* -q: no progress on stderr */
    const char *bundle;    /* --bundle as given, or NULL */
    char *bundle_abs;      /* absolute form for the envelope (owned) */
    cJSON *data;           /* the command's result object (owned) */
    cJSON *warnings;       /* array of strings (owned) */
    cJSON *truncated;      /* object or NULL (owned) */
    fp_sb table;           /* human rendering for -f table; empty -> main prints data */
    const volatile sig_atomic_t *interrupted; /* set by main on SIGINT/SIGTERM */
    const char *argv0;     /* path of this binary (for commands that re-run steps) */
    int width;             /* -f table width in columns, 0 = unlimited (--wide); see table.h */
    bool table_verbatim;   /* the table is a reference text (hotspots): not fitted to width */
} fp_ctx;

/* Append a warning (printf-style) to the envelope's "warnings". */
void fp_warn(fp_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A progress line on stderr, unless -q. */
void fp_progress(fp_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record that list `what` was cut to `shown` of `total` entries (no-op when shown >= total). */
void fp_truncated(fp_ctx *ctx, const char *what, size_t shown, size_t total);

/* ---- options ---- */

typedef enum fp_opt_kind {
    FP_OPT_FLAG,   /* bool */
    FP_OPT_STR,    /* const char * */
    FP_OPT_INT,    /* long long, bounded by [min, max] */
    FP_OPT_DOUBLE, /* double, must be finite and >= 0 unless min < 0 */
    FP_OPT_CHOICE, /* const char *, one of choices */
    FP_OPT_LIST,   /* fp_strlist: repeatable; also takes following non-flag words */
} fp_opt_kind;

typedef struct fp_strlist {
    const char **v; /* points into argv; array owned by the parser's caller (free v) */
    size_t n;
} fp_strlist;

typedef struct fp_opt {
    const char *lng;     /* long name without "--" */
    char shrt;           /* short name or 0 */
    fp_opt_kind kind;
    size_t off;          /* offsetof(args struct, field) */
    const char *metavar; /* "N", "DIR" */
    const char *help;
    const char *deflt;   /* default as text (parsed like the flag), or NULL */
    const char *const *choices; /* FP_OPT_CHOICE: NULL-terminated */
    long long min, max;  /* FP_OPT_INT bounds */
} fp_opt;

typedef struct fp_command {
    const char *name;
    const char *summary;  /* one line */
    const char *usage;    /* "flyprof hotspots DIR [options]" */
    const char *details;  /* a paragraph for help, may be NULL */
    const fp_opt *opts;   /* terminated by an entry with lng == NULL */
    size_t args_size;     /* size of the args struct the options fill */
    int min_pos, max_pos; /* positional argument counts; max -1 = unlimited */
    int (*run)(fp_ctx *ctx, void *args, char **pos, int npos, fp_err *err);
} fp_command;

/* Parse argv (after the command name, global flags already removed) into args
 * (zeroed, defaults applied first). Positionals are collected in order into
 * *pos (malloc'd array of argv pointers). A lone "--" ends options; words after
 * it are positionals. Errors are FP_USAGE. */
int fp_parse_opts(const fp_command *cmd, void *args, int argc, char **argv, char ***pos,
                  int *npos, fp_err *err);

/* Help of one command as data (for -h in JSON mode) and as text. */
cJSON *fp_command_help_json(const fp_command *cmd);
void fp_command_help_text(const fp_command *cmd, fp_sb *out);

/* The global flags, for help output. */
extern const fp_opt fp_global_opts[];

/* The strict integer parser used by the option parser (exposed for tests). */
int fp_parse_ll(const char *s, long long *out);

#endif
