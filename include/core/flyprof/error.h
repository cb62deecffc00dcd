/*
 * error.h - the error contract: a typed error value and the ONE table that binds
 * each error code to its sysexits-style exit status.
 *
 * Library functions never print and never exit: they return -1 and fill an
 * fp_err. Only main.c turns an fp_err into an envelope and an exit status.
 */
#ifndef FLYPROF_ERROR_H
#define FLYPROF_ERROR_H

#include <cjson/cJSON.h>
#include <stdarg.h>

/* Every error code flyprof can emit. Order is the order of the exit-code table
 * printed by `flyprof help exit-codes`, the README and docs/. */
typedef enum fp_errcode {
    FP_OK = 0,
    FP_REGRESSED,             /* 1: a --fail-on gate tripped (diff/check): not an error in flyprof */
    FP_USAGE,                 /* 64: unknown command/flag, missing or malformed argument */
    FP_BAD_INPUT,             /* 65: an input file exists but is malformed */
    FP_NO_ARTIFACT,           /* 66: the artifact a command needs is not there */
    FP_EMPTY_ATT,             /* 66: every ATT dispatch is an empty shell */
    FP_KERNEL_NOT_FOUND,      /* 66 */
    FP_NO_KERNEL_DISCOVERED,  /* 66 */
    FP_DISPATCH_OUT_OF_RANGE, /* 66 */
    FP_NO_RECOMMENDATION,     /* 66 */
    FP_ROCPROFV3_MISSING,     /* 69 */
    FP_NO_GPU,                /* 69 */
    FP_TRACE_DECODER_MISSING, /* 69 */
    FP_INTERNAL,              /* 70 */
    FP_IO_ERROR,              /* 74: cannot read or write */
    FP_CAPTURE_TIMEOUT,       /* 75 */
    FP_BAD_ARGS,              /* 78: arguments parse but make no sense together */
    FP_BUILD_TREE_MISSING,    /* 78 */
    FP_MISSING_PREREQ,        /* 78 */
    FP_INTERRUPTED,           /* 130 */
    FP_TASKS_FAILED,          /* 2: a sweep task did not end ok */
    FP_INCONCLUSIVE,          /* 3: a --fail-on gate could not decide: the change is not outside the noise */
    FP_TRACE_STITCH_FAILED,   /* 69: the decoder could not match the trace to the code object */
    FP_NO_BASELINE,           /* 4: check found no baseline entry (only an error with --strict) */
    FP_CODE_COUNT
} fp_errcode;

typedef struct fp_errcode_info {
    fp_errcode code;
    const char *name;    /* "EMPTY_ATT" */
    int exit_status;     /* 66 */
    const char *meaning; /* one line for the exit-code table */
    const char *default_help; /* what to do, when the raiser gave no specific help */
} fp_errcode_info;

/* The table itself; FP_CODE_COUNT entries, index == code. */
extern const fp_errcode_info fp_code_table[FP_CODE_COUNT];

const char *fp_code_name(fp_errcode code);
int fp_code_exit(fp_errcode code);
const char *fp_code_help(fp_errcode code);

#define FP_ERR_MSG_MAX 1024

typedef struct fp_err {
    fp_errcode code;
    char message[FP_ERR_MSG_MAX];
    char help[FP_ERR_MSG_MAX];
    cJSON *extra; /* optional object; its members are appended to the error envelope. Owned. */
} fp_err;

/* Set code + printf-style message; clears help/extra. Always returns -1 so that
 * callers can write `return fp_err_set(err, FP_BAD_INPUT, "...")`. NULL err is allowed. */
int fp_err_set(fp_err *err, fp_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int fp_err_vset(fp_err *err, fp_errcode code, const char *fmt, va_list ap);
/* Set the help line (what to do about it). Returns -1. */
int fp_err_help(fp_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Attach an extra member to the error envelope (takes ownership of item). */
void fp_err_extra(fp_err *err, const char *key, cJSON *item);
/* The same for a list of strings (for callers that build no JSON). */
void fp_err_extra_strs(fp_err *err, const char *key, const char *const *items, size_t n);
void fp_err_clear(fp_err *err);

#endif
