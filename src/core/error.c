/*
 * error.c - the code -> exit-status table (sysexits.h numbers) and fp_err helpers.
 * This table is the single source of truth; `flyprof help` prints it and a test
 * checks that README.md and docs/exit-codes.md print the same rows.
 */
#include "flyprof/error.h"

#include <stdio.h>
#include <string.h>

const fp_errcode_info fp_code_table[FP_CODE_COUNT] = {
    {FP_OK, "OK", 0, "success", ""},
    {FP_REGRESSED, "REGRESSED", 1, "a --fail-on gate tripped: the after side regressed (or changed)", "the comparison ran and found a regression; see data.verdict and the per-class deltas"},
    {FP_USAGE, "USAGE", 64, "unknown command or flag, missing or malformed argument", "run `flyprof help <command>` for the command's usage"},
    {FP_BAD_INPUT, "BAD_INPUT", 65, "an input file exists but is malformed (truncated JSON, wrong types)", "the file is damaged or not what flyprof expects; re-capture or fix the file named in the message"},
    {FP_NO_ARTIFACT, "NO_ARTIFACT", 66, "the directory or artifact the command needs is not there", "check the path; `flyprof help <command>` says which artifacts the command reads"},
    {FP_EMPTY_ATT, "EMPTY_ATT", 66, "every traced dispatch is an empty shell", "no wave reached the traced CU: enlarge the shape, trace another iteration (--iter-range) or another CU"},
    {FP_KERNEL_NOT_FOUND, "KERNEL_NOT_FOUND", 66, "no kernel matches the name given", "run `flyprof list` for the kernels flyprof knows"},
    {FP_NO_KERNEL_DISCOVERED, "NO_KERNEL_DISCOVERED", 66, "the discovery pass saw no kernel dispatch", "check that the invocation really launches a GPU kernel (see error.candidates)"},
    {FP_DISPATCH_OUT_OF_RANGE, "DISPATCH_OUT_OF_RANGE", 66, "the dispatch asked for does not exist", "pick a dispatch from error.available"},
    {FP_NO_RECOMMENDATION, "NO_RECOMMENDATION", 66, "no rule promises more than the noise floor: nothing to recommend", "no stall class crossed a rule threshold, or every gain is under the 2 % noise floor (report.json also_seen); the evidence is in bubbles.json"},
    {FP_ROCPROFV3_MISSING, "ROCPROFV3_MISSING", 69, "rocprofv3 is not installed or not executable", "install ROCm (rocprofv3) or pass --rocprofv3 PATH; do not retry as is"},
    {FP_NO_GPU, "NO_GPU", 69, "no AMD GPU is visible", "run on a machine with an AMD Instinct GPU visible (/dev/kfd); do not retry as is"},
    {FP_TRACE_DECODER_MISSING, "TRACE_DECODER_MISSING", 69, "librocprof-trace-decoder.so cannot be found", "install librocprof-trace-decoder.so into <rocm>/lib or set ROCPROF_ATT_LIBRARY_PATH"},
    {FP_INTERNAL, "INTERNAL", 70, "a bug in flyprof", "this is a flyprof bug; please report it with the command line"},
    {FP_IO_ERROR, "IO_ERROR", 74, "a file cannot be read or written", "check permissions and free space for the path in the message"},
    {FP_CAPTURE_TIMEOUT, "CAPTURE_TIMEOUT", 75, "rocprofv3 did not finish in time (retry)", "retry once with a larger --timeout or a smaller shape"},
    {FP_BAD_ARGS, "BAD_ARGS", 78, "arguments are well-formed but inconsistent", "check the argument values against `flyprof help <command>`"},
    {FP_BUILD_TREE_MISSING, "BUILD_TREE_MISSING", 78, "the FlyDSL worktree or its build tree is missing", "point --worktree (or FLYPROF_WORKTREE) at a built FlyDSL checkout"},
    {FP_MISSING_PREREQ, "MISSING_PREREQ", 78, "an artifact an earlier step should have written is missing", "run the pipeline step that writes the missing artifact first"},
    {FP_INTERRUPTED, "INTERRUPTED", 130, "interrupted by SIGINT/SIGTERM", "the run was interrupted; artifacts already written are valid, re-run to finish"},
    {FP_TASKS_FAILED, "TASKS_FAILED", 2, "a finished sweep has a task that did not end ok", "see data.tasks[].status, error and reason; re-running the same sweep retries only those tasks"},
    {FP_INCONCLUSIVE, "INCONCLUSIVE", 3, "a --fail-on gate could not decide: the trace's own noise hides the change", "the comparison ran but the change is within the waves' spread (see data.verdict and data.work): trace more waves or repeat the capture"},
    {FP_TRACE_STITCH_FAILED, "TRACE_STITCH_FAILED", 69, "the trace does not match the kernel's code object", "code object / decoder version skew: update rocprof-trace-decoder to the one matching this ROCm (see `flyprof doctor`); do not retry as is"},
    {FP_NO_BASELINE, "NO_BASELINE", 4, "check --strict: no baseline entry in the history (else a warning)", "add one on main first (flyprof history add --bundle DIR); without --strict this is a warning and exit 0"},
};

const char *fp_code_help(fp_errcode code)
{
    if ((int)code < 0 || code >= FP_CODE_COUNT)
        return fp_code_table[FP_INTERNAL].default_help;
    return fp_code_table[code].default_help;
}

const char *fp_code_name(fp_errcode code)
{
    if ((int)code < 0 || code >= FP_CODE_COUNT)
        return "INTERNAL";
    return fp_code_table[code].name;
}

int fp_code_exit(fp_errcode code)
{
    if ((int)code < 0 || code >= FP_CODE_COUNT)
        return 70;
    return fp_code_table[code].exit_status;
}

int fp_err_vset(fp_err *err, fp_errcode code, const char *fmt, va_list ap)
{
    if (!err)
        return -1;
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    err->help[0] = '\0';
    if (err->extra) {
        cJSON_Delete(err->extra);
        err->extra = NULL;
    }
    return -1;
}

int fp_err_set(fp_err *err, fp_errcode code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fp_err_vset(err, code, fmt, ap);
    va_end(ap);
    return -1;
}

int fp_err_help(fp_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->help, sizeof err->help, fmt, ap);
    va_end(ap);
    return -1;
}

void fp_err_extra(fp_err *err, const char *key, cJSON *item)
{
    if (!err || !item) {
        cJSON_Delete(item);
        return;
    }
    if (!err->extra)
        err->extra = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(err->extra, key);
    cJSON_AddItemToObject(err->extra, key, item);
}

void fp_err_extra_strs(fp_err *err, const char *key, const char *const *items, size_t n)
{
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(list, cJSON_CreateString(items[i]));
    fp_err_extra(err, key, list);
}

void fp_err_clear(fp_err *err)
{
    if (!err)
        return;
    cJSON_Delete(err->extra);
    memset(err, 0, sizeof *err);
}
