/*
 * commands.h - the command table as an X-macro: adding a command is adding
 * one line here and one file src/cmd/cmd_<name>.c defining `fp_cmd_<name>`.
 * Order here is the order `flyprof help` lists them.
 */
#ifndef FLYPROF_COMMANDS_H
#define FLYPROF_COMMANDS_H

#include "flyprof/cli.h"

#define FP_COMMANDS(X) \
    X(run) \
    X(doctor) \
    X(list) \
    X(kernels) \
    X(tile) \
    X(capture) \
    X(counters) \
    X(hotspots) \
    X(bubbles) \
    X(map) \
    X(timeline) \
    X(annotate) \
    X(report) \
    X(diff) \
    X(history) \
    X(check) \
    X(bundle) \
    X(sweep) \
    X(rules) \
    X(mcp)

/* --source-root DIR of the commands that write -f sarif (report, check, diff): result
 * locations are relative to it (uriBaseId SRCROOT), so code scanning finds the .py files */
#define FP_SOURCE_ROOT_OPT(T, m)                                                                            \
    {"source-root", 0, FP_OPT_STR, offsetof(T, m), "DIR",                                                   \
     "-f sarif: result locations relative to this checkout (the paths the trace recorded, e.g. "            \
     "/workspace/FlyDSL)", NULL, NULL, 0, 0}

#define FP_DECLARE_COMMAND(name) extern const fp_command fp_cmd_##name;
FP_COMMANDS(FP_DECLARE_COMMAND)
#undef FP_DECLARE_COMMAND

#endif
