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

/* -f: json (the envelope), table (text), and the documents of other tools: csv (a row
 * list of the data, csvout.h), sarif (code scanning), junit (CI test reports). */
typedef enum fp_format { FP_FMT_JSON, FP_FMT_TABLE, FP_FMT_CSV, FP_FMT_SARIF, FP_FMT_JUNIT } fp_format;
#define FP_FMT_BIT(f) (1u << (f))

/* "json", "table", "csv", "csv:ROWS", "sarif", "junit" -> *f (and *rows for csv:ROWS,
 * else NULL); USAGE otherwise. */
int fp_format_parse(const char *s, fp_format *f, const char **rows, fp_err *err);
const char *fp_format_name(fp_format f);

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
    bool data_on_error;    /* a failing command's data is still the answer (a --fail-on gate
                              that tripped): main puts data and warnings into the error envelope */
    bool table_only;       /* set by main: -f table to a terminal/pipe, no FLYPROF_TABLE_FD, so
                              when the command's table is non-empty its data is never printed
                              and a command may skip building it */
    fp_sb doc;             /* -f sarif / junit: the document the command printed into it (main
                              prints it instead of the envelope) */
    const char *csv_rows;  /* -f csv:ROWS: which row list of the data (NULL = the command's first) */
    void **left_to_exit;   /* set by main (NULL elsewhere): the process ends right after this
                              command, so a command may leave one big result here for the exit to
                              free instead of freeing it itself (kept reachable for LeakSanitizer) */
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

/* An old spelling of an option (one spelling per meaning across commands): accepted
 * for one release with a warning, not shown in help, completions or MCP schemas. */
typedef struct fp_opt_alias {
    const char *old, *now; /* long names without "--"; NULL old ends a list */
} fp_opt_alias;

/* Input and output paths named by options, checked by main.c before run() so
 * that the same mistake gives the same exit code in every command
 * (docs/exit-codes.md): a nonexistent input -> NO_ARTIFACT (66), a path of the
 * wrong kind -> BAD_ARGS (78), an unreadable one -> IO_ERROR (74). */
typedef enum fp_path_kind {
    FP_PATH_NONE = 0, /* terminates a rule list */
    FP_PATH_FILE,     /* an existing, readable regular file */
    FP_PATH_DIR,      /* an existing, readable and searchable directory */
    FP_PATH_ANY,      /* either of the two */
    FP_PATH_OUT_DIR,  /* a directory the command writes into: may not exist yet; if it does it must
                         be a writable directory */
    FP_PATH_OUT_FILE, /* a file the command writes: if it exists it must not be a directory */
} fp_path_kind;

typedef struct fp_path_rule {
    const char *opt;  /* long option name ("bundle" = the global --bundle), or, when positional,
                         the argument's metavar for messages */
    fp_path_kind kind;
    bool positional;  /* the rule is about positional argument number `pos` */
    int pos;
} fp_path_rule;

/* Check one path; `what` names it in the message ("--csv", "DIR"). */
int fp_check_path(const char *what, const char *path, fp_path_kind kind, fp_err *err);

typedef struct fp_command {
    const char *name;
    const char *summary;  /* one line */
    const char *usage;    /* "flyprof hotspots DIR [options]" */
    const char *details;  /* a paragraph for help, may be NULL */
    const fp_opt *opts;   /* terminated by an entry with lng == NULL */
    size_t args_size;     /* size of the args struct the options fill */
    int min_pos, max_pos; /* positional argument counts; max -1 = unlimited */
    int (*run)(fp_ctx *ctx, void *args, char **pos, int npos, fp_err *err);
    const fp_path_rule *paths; /* checked before run(); terminated by kind == FP_PATH_NONE; may be NULL */
    bool no_bundle;            /* the global --bundle does not apply: rejected, not shown in help */
    bool bundle_required;      /* no --bundle is a USAGE error (checked by main) */
    /* -f csv: the members of the data that are row lists (NULL-terminated; the first one
     * present is the default), NULL when the command has no table of rows */
    const char *const *csv_rows;
    unsigned formats;          /* FP_FMT_BIT(FP_FMT_SARIF) | ...: the documents it fills ctx->doc with */
    /* the usual next step, printed as "next: ..." on stderr after a table ({bundle} = the bundle) */
    const char *next;
    /* command lines shown under "examples:" in help and EXAMPLES in the man page (NULL-terminated) */
    const char *const *examples;
    const fp_opt_alias *aliases; /* deprecated spellings, or NULL */
} fp_command;

/* Check every path named in cmd->paths (options, positionals, the global
 * --bundle); unset ones are skipped. */
int fp_check_paths(const fp_command *cmd, const void *args, char **pos, int npos, const char *bundle,
                   fp_err *err);

/* Parse argv (after the command name, global flags already removed) into args
 * (zeroed, defaults applied first). Positionals are collected in order into
 * *pos (malloc'd array of argv pointers). A lone "--" ends options; words after
 * it are positionals. Errors are FP_USAGE. */
int fp_parse_opts(const fp_command *cmd, void *args, int argc, char **argv, char ***pos,
                  int *npos, fp_err *err);
/* The same; each deprecated spelling used (fp_command.aliases) adds one line to *notes
 * ("--top is deprecated: use --limit"), for the envelope's warnings. */
int fp_parse_opts_noted(const fp_command *cmd, void *args, int argc, char **argv, char ***pos, int *npos,
                        fp_sb *notes, fp_err *err);

/* The candidate closest to word[0..len) by edit distance (or the only one it
 * prefixes), when close enough to be a typo; else NULL. NULL entries skipped. */
const char *fp_did_you_mean(const char *word, size_t len, const char *const *cands, size_t n);

/* Help of one command as data (for -h in JSON mode) and as text. */
cJSON *fp_command_help_json(const fp_command *cmd);
void fp_command_help_text(const fp_command *cmd, fp_sb *out);

/* The global flags, for help output. */
extern const fp_opt fp_global_opts[];

/* An integer default outside the accepted range is a "not set" sentinel: help and
 * the MCP schemas do not show it. */
bool fp_opt_default_shown(const fp_opt *o);

/* The strict integer parser used by the option parser (exposed for tests). */
int fp_parse_ll(const char *s, long long *out);

#endif
