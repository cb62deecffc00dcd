/*
 * capture.h - the pieces of `capture` that are not orchestration: the
 * workload invocation (shell-like split, leading VAR=value env), the
 * kernel_iteration_range set (parse, auto choice, existence check), the
 * small-tag shape, and the ATT output inventory (which dispatch dirs exist,
 * which are empty shells, which one to keep).
 */
#ifndef FLYPROF_CAPTURE_H
#define FLYPROF_CAPTURE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"

/* ---- invocation ---- */

typedef struct fp_invocation {
    char **argv; /* NULL-terminated, owned */
    size_t argc;
    char **env;  /* "NAME=value" from leading assignments, NULL-terminated, owned */
    size_t nenv;
} fp_invocation;

/* Split like a POSIX shell word splitter (no expansion): blanks separate
 * words, '…' is literal, "…" honours \" \\ \$ \`, a backslash outside quotes
 * escapes the next char. Leading NAME=value words become env. Empty command
 * or an unterminated quote -> BAD_ARGS. */
int fp_invocation_parse(const char *cmd, fp_invocation *inv, fp_err *err);
void fp_invocation_free(fp_invocation *inv);

/* ---- kernel_iteration_range ---- */

/* The auto choice, documented in docs/commands/capture.md: warm iterations
 * only when the kernel ran often enough, always ones that exist:
 * hi = min(calls, FP_AUTO_ITER_HI); {hi-2, hi} when hi-2 >= 2, else {hi}. */
#define FP_AUTO_ITER_HI 8
size_t fp_iter_auto(long long calls, unsigned out[2]);

/* Parse rocprofv3's syntax (rocprof-formats.md §2.3: tokens split on "[], ",
 * "A-B" ranges, integers) into a sorted, de-duplicated set. Errors (BAD_ARGS):
 * bad token, reversed range, 0, more than FP_ITER_MAX elements. */
#define FP_ITER_MAX 4096
int fp_iter_parse(const char *s, unsigned **iters, size_t *n, fp_err *err);

/* ---- shapes ---- */

/* The `small` tag's shape: the first integer field divided by
 * FP_SMALL_SHAPE_DIV (at least 1); other fields unchanged. No integer field ->
 * BAD_ARGS. */
#define FP_SMALL_SHAPE_DIV 8
char *fp_shape_small(const char *shape, fp_err *err);

/* ---- ATT outputs ---- */

typedef struct fp_att_dir {
    char *name;             /* ui_output_agent_<H>_dispatch_<D> */
    long long dispatch;     /* D, -1 if absent */
    bool empty;             /* empty shell: no wave file or code null/empty */
    long long waves;
    long long instructions; /* code.json rows minus the "; symbol" rows */
    long long mapped;       /* of those, rows with a Source */
    bool code_ok;           /* code.json parsed */
} fp_att_dir;

/* Inventory of att_dir (ordered by dispatch number). Missing dir -> n = 0. */
int fp_att_inventory(const char *att_dir, fp_att_dir **v, size_t *n, fp_err *err);
void fp_att_inventory_free(fp_att_dir *v, size_t n);
/* The dispatch to keep: the non-empty one with the most waves, then most
 * instructions, then the lowest dispatch number; -1 when all are empty. */
long fp_att_pick(const fp_att_dir *v, size_t n);
/* (capture.json's "inventory" is filled as fp_cap_dispatch_dir in cmd_capture.c) */

/* Remove everything inside dir (not dir itself); missing dir is fine.
 * Refuses "/" and "" (BAD_ARGS). */
int fp_rm_rf_contents(const char *dir, fp_err *err);

/* Where capture and run put a bundle when --bundle is not given:
 * ./runs/<kernel>-<YYYYmmdd-HHMMSS> (absolute; '/' and ' ' in the name become '_'). */
char *fp_capture_default_bundle(const char *kernel);

/* Copy a file (not atomic: used for rocprofv3 outputs into the bundle). */
int fp_copy_file(const char *from, const char *to, fp_err *err);

#endif
