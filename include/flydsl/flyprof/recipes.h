/*
 * recipes.h - which kernels flyprof can profile and how: the curated recipes
 * registry (a JSON or YAML file) united with the kernels synthesizable from
 * the FlyDSL worktree (tracked tests/kernels/test_<name>.py files, read from
 * the git index with libgit2 so build dirs and junk are ignored).
 *
 * Registry format (YAML; JSON with the same shape is accepted):
 *
 *   recipes:
 *     - name: rmsnorm                       # what the user types
 *       test_file: tests/kernels/test_rmsnorm.py   # relative to the worktree
 *       kernel_name_hint: rmsnorm_kernel    # substring of the JIT kernel name
 *       kernels: [rmsnorm_kernel]           # python function names (fallback match)
 *       invocation: python tests/kernels/test_rmsnorm.py   # default: python <test_file>
 *       shape_env: ROCDSL_RMSNORM_SHAPES    # env var that receives --shape
 *       category: reduction                 # default: from the name
 *       requires: [multi-gpu]               # extra requirements
 *       note: free text
 */
#ifndef FLYPROF_RECIPES_H
#define FLYPROF_RECIPES_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"

/* Where synthesizable kernel tests live in a FlyDSL worktree. */
#define FP_KERNEL_TESTS_DIR "tests/kernels/"

typedef struct fp_recipe {
    char *name;
    char *test_file;   /* worktree-relative */
    char *hint;        /* kernel_name_hint, may be NULL */
    char **kernels;    /* function names */
    size_t n_kernels;
    char *invocation;  /* may be NULL: "python <test_file>" */
    char *shape_env;   /* may be NULL */
    char *category;
    char **requires;
    size_t n_requires;
    char *note;
    bool has_recipe;   /* came from the registry */
    bool in_worktree;  /* its test file is tracked in the worktree */
} fp_recipe;

typedef struct fp_recipes {
    fp_recipe *v;
    size_t n;
} fp_recipes;

/* Load a registry file (.json parsed as JSON, anything else as YAML).
 * Missing -> NO_ARTIFACT; malformed, missing name/test_file, absolute or
 * ".." paths -> BAD_INPUT. Appends to out. */
int fp_recipes_load(const char *path, fp_recipes *out, fp_err *err);

/* Add the kernels synthesizable from the worktree's tracked
 * tests/kernels/test_*.py: registry entries whose test file is tracked get
 * in_worktree = true; other tests become synthesized entries (shape_env from
 * the first ROCDSL_*SHAPES name in the file). Not a git repo -> NO_ARTIFACT. */
int fp_recipes_scan_worktree(const char *worktree, fp_recipes *out, fp_err *err);

/* Sort by name (stable). */
void fp_recipes_sort(fp_recipes *r);

/* By name, else by kernel_name_hint or a function name. NULL if none. */
const fp_recipe *fp_recipes_find(const fp_recipes *r, const char *name);

/* Category of a kernel from its name (table-driven). */
const char *fp_kernel_category(const char *name);

cJSON *fp_recipe_json(const fp_recipe *r);
void fp_recipes_free(fp_recipes *r);

#endif
