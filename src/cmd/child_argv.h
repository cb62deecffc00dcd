/*
 * child_argv.h - the command line of a child `flyprof <cmd>` run by another
 * command (run's steps, capture's --with-pmc counters pass), spelled from the
 * child command's own fp_opt table (the global flags from fp_global_opts).
 *
 * Every option is looked up by its long name, so a parent can only pass what
 * the child accepts: the first name the child does not have is kept in
 * `unknown` and the parent fails with an internal error (a test catches it).
 * Private to src/cmd (moved out of cmd_run.c, where it was first written).
 */
#ifndef FLYPROF_CMD_CHILD_ARGV_H
#define FLYPROF_CMD_CHILD_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/cli.h"
#include "flyprof/strbuf.h"

typedef struct fp_argvb {
    const fp_command *cmd; /* the child */
    const char *v[64];     /* NULL-terminated; words past 63 are dropped */
    size_t n;
    char *owned[64]; /* "--name" spellings and formatted values */
    size_t nowned;
    const char *unknown; /* the first option name the child does not have */
} fp_argvb;

/* Append one word as is (the program, the command name, a positional). */
void fp_argv_push(fp_argvb *b, const char *s);
/* Keep sb's text for as long as b lives (sb is left empty) and return it. */
const char *fp_argv_own(fp_argvb *b, fp_sb *sb);
/* Free what b owns (not b itself). */
void fp_argv_free(fp_argvb *b);

/* The option of `opts` whose long name is `lng`, or NULL. */
const fp_opt *fp_argv_find_opt(const fp_opt *opts, const char *lng);
/* Option `lng` of `opts` as "--lng" (or "-s" when shrt), then its value unless
 * it is a flag. */
void fp_argv_opt_as(fp_argvb *b, const fp_opt *opts, const char *lng, bool shrt, const char *value);

/* The child's option `lng` with `value`; nothing when value is NULL (not set). */
void fp_argv_opt(fp_argvb *b, const char *lng, const char *value);
/* The child's flag `lng`, when on. */
void fp_argv_flag(fp_argvb *b, const char *lng, bool on);
/* The global --bundle DIR. */
void fp_argv_bundle(fp_argvb *b, const char *dir);
/* -f json: the child's envelope is read back; -q: its progress is not wanted */
void fp_argv_json(fp_argvb *b);
void fp_argv_quiet(fp_argvb *b);

#endif
