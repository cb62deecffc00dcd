/*
 * config.h - the configuration shared by doctor, list, capture and run: where
 * the FlyDSL worktree, rocprofv3, python and the recipes registry are, which
 * GPU and arch. Each value comes from (first hit wins) the command-line flag,
 * the environment variable, the YAML config file, or the built-in default, and
 * the source is remembered so capture.json/run.json can record what was used.
 */
#ifndef FLYPROF_CONFIG_H
#define FLYPROF_CONFIG_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "flyprof/cli.h"
#include "flyprof/error.h"
#include "flyprof/strbuf.h"

/* The flags every configured command accepts; embed in the args struct and
 * list FP_CONFIG_OPTS(args_type, member) in the options table. */
typedef struct fp_config_args {
    const char *worktree, *rocprofv3, *python, *gpu, *arch, *recipes, *config;
    const char *format; /* never a flag of its own (-f is global): only the config file's `format:` */
} fp_config_args;

#define FP_CONFIG_OPT(type, m, f, meta, help) \
    {f, 0, FP_OPT_STR, offsetof(type, m), meta, help, NULL, NULL, 0, 0}
#define FP_CONFIG_OPTS(type, m)                                                                                  \
    FP_CONFIG_OPT(type, m.worktree, "worktree", "DIR", "FlyDSL checkout (default $FLYPROF_WORKTREE)"),            \
    FP_CONFIG_OPT(type, m.rocprofv3, "rocprofv3", "PATH", "profiler executable (default $FLYPROF_ROCPROFV3, "   \
                                                           "else rocprofv3 on PATH)"),                            \
    FP_CONFIG_OPT(type, m.python, "python", "PATH", "python for the workload (default $FLYPROF_PYTHON, python3)"), \
    FP_CONFIG_OPT(type, m.gpu, "gpu", "N", "GPU index, becomes HIP_VISIBLE_DEVICES (default 0)"),                 \
    FP_CONFIG_OPT(type, m.arch, "arch", "GFX", "arch override, e.g. gfx950 (default: detected)"),                \
    FP_CONFIG_OPT(type, m.recipes, "recipes", "FILE", "recipes registry, JSON or YAML (default "               \
                                                       "$FLYPROF_RECIPES, else the shipped one)"),                \
    FP_CONFIG_OPT(type, m.config, "config", "FILE", "YAML config file (default $FLYPROF_CONFIG, else "         \
                                                     "~/.config/flyprof/config.yaml if present)")

/* The settings that only locate files (list reads no GPU, profiler or python). */
#define FP_CONFIG_FILE_OPTS(type, m)                                                                             \
    FP_CONFIG_OPT(type, m.worktree, "worktree", "DIR", "FlyDSL checkout (default $FLYPROF_WORKTREE)"),            \
    FP_CONFIG_OPT(type, m.recipes, "recipes", "FILE", "recipes registry, JSON or YAML (default "               \
                                                       "$FLYPROF_RECIPES, else the shipped one)"),                \
    FP_CONFIG_OPT(type, m.config, "config", "FILE", "YAML config file (default $FLYPROF_CONFIG, else "         \
                                                     "~/.config/flyprof/config.yaml if present)")
/* Their fp_path_rule rows (explicit flags are checked like every path: docs/exit-codes.md). */
#define FP_CONFIG_PATH_RULES                                                                                     \
    {.opt = "worktree", .kind = FP_PATH_DIR}, {.opt = "recipes", .kind = FP_PATH_FILE},                            \
        {.opt = "config", .kind = FP_PATH_FILE}

/* Largest GPU index accepted (HIP_VISIBLE_DEVICES on an 8-GPU node is 0-7;
 * leave room for bigger nodes but refuse nonsense). */
#define FP_MAX_GPU_INDEX 255

typedef struct fp_config_value {
    char *value;        /* owned; NULL when unset */
    const char *source; /* "flag", "env", "config", "default", "unset" */
} fp_config_value;

typedef struct fp_config {
    fp_config_value worktree;  /* absolute path */
    fp_config_value rocprofv3; /* as given: a name (looked up on PATH) or a path */
    fp_config_value python;
    fp_config_value arch;      /* NULL = detect */
    fp_config_value recipes;   /* registry file; NULL = none */
    fp_config_value gpu_text;
    fp_config_value format;    /* the config file's `format:` (the default -f on a terminal), or unset */
    int gpu;
    char *config_file;         /* config file actually read, or NULL */
} fp_config;

/* Resolve every value. A bad --gpu or a malformed config file -> BAD_ARGS /
 * BAD_INPUT; a --config that does not exist -> NO_ARTIFACT. */
int fp_config_load(fp_config *c, const fp_config_args *a, fp_err *err);
void fp_config_free(fp_config *c);

/* No registry (recipes source "unset": a lone copied binary whose source tree is gone):
 * the sentence that says where it was looked for and how to point flyprof at one. */
void fp_config_registry_hint(fp_sb *out);

#endif
