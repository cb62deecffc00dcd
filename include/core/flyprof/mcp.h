/*
 * mcp.h - what `flyprof mcp` derives from the command table: one MCP tool per
 * command whose JSON Schema comes from the command's fp_opt table (so the tool
 * cannot drift from the CLI), and the reverse path, tool arguments -> a
 * validated argv for a child `flyprof <cmd> ... -f json`.
 *
 * Safety lives here, as data: which option values are filesystem paths (they
 * must resolve inside the server's root), which name a program to execute or
 * a GPU workload (only with --allow-gpu). The server loop is src/cmd/cmd_mcp.c.
 */
#ifndef FLYPROF_MCP_H
#define FLYPROF_MCP_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "flyprof/cli.h"
#include "flyprof/error.h"

/* Bound of one JSON-RPC message read from stdin (a line). */
#define FP_MCP_MAX_MESSAGE ((size_t)4 << 20)
/* Bounds of a single argument value and of a list argument. */
#define FP_MCP_MAX_VALUE 4096
#define FP_MCP_MAX_LIST 256

typedef struct fp_mcp_policy {
    const char *root; /* realpath of --root; path arguments must resolve inside it */
    bool allow_gpu;   /* capture/run/live counters and program-naming options */
} fp_mcp_policy;

/* What an option value (or positional) is, decided from its metavar plus a few
 * option names (see the tables in mcp.c). */
typedef enum fp_mcp_role {
    FP_MCP_VALUE,   /* plain value: passed as is */
    FP_MCP_PATH,    /* filesystem path: confined to the root, passed resolved */
    FP_MCP_PROGRAM, /* names a program flyprof executes (or a file naming one): --allow-gpu only */
    FP_MCP_UNKNOWN, /* metavar not classified yet (a test keeps this from happening) */
} fp_mcp_role;

fp_mcp_role fp_mcp_opt_role(const fp_opt *o);

/* Is the command offered as a tool under policy p? (capture/run need allow_gpu, mcp is never a tool.) */
bool fp_mcp_tool_listed(const fp_command *cmd, const fp_mcp_policy *p);

/* The positional arguments as named properties, parsed from cmd->usage:
 * names[i] (lower case, malloc'd), *variadic set when the last one is an array
 * (max_pos == -1, the words after `--`). Returns the count. */
int fp_mcp_positionals(const fp_command *cmd, char ***names, bool *variadic);
/* Options the usage line shows outside brackets (required): malloc'd long names. */
int fp_mcp_required_opts(const fp_command *cmd, char ***names);
void fp_mcp_names_free(char **names, int n);
/* A positional word of the usage line whose metavar is not classified (copied into buf), or NULL. */
const char *fp_mcp_unclassified(const fp_command *cmd, char *buf, size_t cap);

/* {name, title, description, inputSchema} for tools/list. */
cJSON *fp_mcp_tool_json(const fp_command *cmd, const fp_mcp_policy *p);

/* Validate `args` (an object, or NULL = {}) against the command and build the
 * argv of the child after the program name: cmd, --opt=value..., then `--` and
 * the positionals. NULL-terminated, every string malloc'd (fp_mcp_argv_free).
 * Errors: FP_USAGE (unknown/mistyped/missing argument), FP_BAD_ARGS (a path
 * outside the root, a gated argument). */
int fp_mcp_build_argv(const fp_command *cmd, const fp_mcp_policy *p, const cJSON *args, char ***argv,
                      fp_err *err);
void fp_mcp_argv_free(char **argv);

/* Resolve `path` (relative to root when not absolute) through symlinks; the
 * part that does not exist yet (an output) may not contain "..". Returns the
 * malloc'd real path when it lies inside root, else NULL with FP_BAD_ARGS. */
char *fp_mcp_confine(const char *root, const char *path, fp_err *err);

#endif
