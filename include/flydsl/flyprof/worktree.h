/*
 * worktree.h - the FlyDSL checkout as flyprof sees it: does it exist, is its
 * build tree there, and its provenance (git HEAD commit, branch, dirty) read
 * with libgit2 so no `git` executable is needed. Also the tracked files under
 * a directory (from the index, so build dirs and junk are ignored) with their
 * committed-or-staged content.
 */
#ifndef FLYPROF_WORKTREE_H
#define FLYPROF_WORKTREE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"

/* Where FlyDSL's build puts its python packages (relative to the worktree). */
#define FP_FLYDSL_BUILD_TREE "build-fly/python_packages"
/* The package directory inside the build tree. */
#define FP_FLYDSL_PKG "flydsl"

typedef struct fp_worktree {
    char *path;           /* absolute, owned */
    bool exists;
    bool build_tree;      /* <path>/build-fly/python_packages is a directory */
    bool flydsl_pkg;      /* ... and has flydsl/ inside */
    bool is_git;
    char commit[41];      /* HEAD commit hex, "" if none (unborn / not git) */
    char *branch;         /* short branch name, NULL when detached or not git */
    bool dirty;           /* tracked files modified or staged */
    size_t n_modified;    /* tracked files that differ from HEAD (index or workdir) */
    size_t n_untracked;
    char git_error[256];  /* libgit2's message when reading the repo failed */
} fp_worktree;

/* Inspect path (may not exist: exists=false, returns 0). Only impossible
 * states (OOM) fail. */
int fp_worktree_inspect(const char *path, fp_worktree *wt, fp_err *err);
void fp_worktree_free(fp_worktree *wt);

typedef struct fp_tracked_file {
    char *path;    /* repo-relative, '/' separated */
    char *content; /* index blob content, NUL-terminated (may be NULL if unreadable) */
    size_t len;
} fp_tracked_file;

/* Files in the git index whose path starts with `prefix` (e.g. "tests/kernels/"),
 * sorted by path, with the staged content. Not a git repo -> FP_NO_ARTIFACT. */
int fp_worktree_tracked(const char *repo_path, const char *prefix, fp_tracked_file **out, size_t *n,
                        fp_err *err);
void fp_tracked_free(fp_tracked_file *v, size_t n);

#endif
