/*
 * worktree.c - FlyDSL worktree provenance with libgit2: HEAD commit, branch,
 * dirty state, and the tracked files of a directory read from the index.
 */
#include "flyprof/worktree.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "git2_lazy.h"

/* Files larger than this are not read from the index (kernel tests are a few KiB). */
#define FP_TRACKED_MAX_BYTES ((size_t)4 << 20)

static void git_msg(const fp_git2_api *g2, char *dst, size_t cap)
{
    const git_error *e = git_error_last();
    snprintf(dst, cap, "%s", e && e->message ? e->message : "unknown libgit2 error");
}

int fp_worktree_inspect(const char *path, fp_worktree *wt, fp_err *err)
{
    (void)err;
    memset(wt, 0, sizeof *wt);
    wt->path = fp_path_abs(path);
    wt->exists = fp_is_dir(wt->path);
    if (!wt->exists)
        return 0;
    char *bt = fp_path_join(wt->path, FP_FLYDSL_BUILD_TREE);
    wt->build_tree = fp_is_dir(bt);
    char *pkg = fp_path_join(bt, FP_FLYDSL_PKG);
    wt->flydsl_pkg = wt->build_tree && fp_is_dir(pkg);
    free(pkg);
    free(bt);

    fp_git2_api api;
    const fp_git2_api *g2 = fp_git2_load(&api, wt->git_error, sizeof wt->git_error);
    if (!g2)
        return 0;
    git_libgit2_init();
    git_repository *repo = NULL;
    /* exact path only: a worktree nested inside some other repo is not that repo */
    if (git_repository_open_ext(&repo, wt->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0) {
        git_msg(g2, wt->git_error, sizeof wt->git_error);
        git_libgit2_shutdown();
        return 0;
    }
    wt->is_git = true;
    git_reference *head = NULL;
    if (git_repository_head(&head, repo) == 0) {
        const git_oid *oid = git_reference_target(head);
        if (oid)
            git_oid_tostr(wt->commit, sizeof wt->commit, oid);
        if (git_reference_is_branch(head))
            wt->branch = strdup(git_reference_shorthand(head));
        git_reference_free(head);
    } else {
        git_msg(g2, wt->git_error, sizeof wt->git_error); /* unborn branch: no commit yet */
    }
    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    git_status_list *sl = NULL;
    if (git_status_list_new(&sl, repo, &so) == 0) {
        size_t n = git_status_list_entrycount(sl);
        for (size_t i = 0; i < n; i++) {
            const git_status_entry *e = git_status_byindex(sl, i);
            if (e->status == GIT_STATUS_WT_NEW)
                wt->n_untracked++;
            else if (e->status != GIT_STATUS_CURRENT && !(e->status & GIT_STATUS_IGNORED))
                wt->n_modified++;
        }
        git_status_list_free(sl);
    } else {
        git_msg(g2, wt->git_error, sizeof wt->git_error);
    }
    wt->dirty = wt->n_modified > 0;
    git_repository_free(repo);
    git_libgit2_shutdown();
    return 0;
}

void fp_worktree_free(fp_worktree *wt)
{
    if (!wt)
        return;
    free(wt->path);
    free(wt->branch);
    wt->path = wt->branch = NULL;
}


int fp_worktree_tracked(const char *repo_path, const char *prefix, fp_tracked_file **out, size_t *n,
                        fp_err *err)
{
    *out = NULL;
    *n = 0;
    char why[256];
    fp_git2_api api;
    const fp_git2_api *g2 = fp_git2_load(&api, why, sizeof why);
    if (!g2)
        return fp_err_set(err, FP_MISSING_PREREQ, "%s", why);
    git_libgit2_init();
    git_repository *repo = NULL;
    git_index *idx = NULL;
    int rc = 0;
    if (git_repository_open_ext(&repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0) {
        char m[256];
        git_msg(g2, m, sizeof m);
        git_libgit2_shutdown();
        return fp_err_set(err, FP_NO_ARTIFACT, "%s is not a git repository: %s", repo_path, m);
    }
    if (git_repository_index(&idx, repo) != 0) {
        char m[256];
        git_msg(g2, m, sizeof m);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return fp_err_set(err, FP_IO_ERROR, "%s: cannot read the git index: %s", repo_path, m);
    }
    size_t cnt = git_index_entrycount(idx), cap = 0;
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < cnt; i++) {
        const git_index_entry *e = git_index_get_byindex(idx, i);
        if (!e || strncmp(e->path, prefix, plen) != 0 || git_index_entry_stage(e) != 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            fp_tracked_file *nv = realloc(*out, cap * sizeof **out);
            if (!nv)
                abort();
            *out = nv;
        }
        fp_tracked_file *f = &(*out)[(*n)++];
        memset(f, 0, sizeof *f);
        f->path = strdup(e->path);
        git_blob *blob = NULL;
        if (git_blob_lookup(&blob, repo, &e->id) == 0) {
            size_t sz = (size_t)git_blob_rawsize(blob);
            if (sz <= FP_TRACKED_MAX_BYTES) {
                f->content = malloc(sz + 1);
                if (!f->content)
                    abort();
                memcpy(f->content, git_blob_rawcontent(blob), sz);
                f->content[sz] = '\0';
                f->len = sz;
            }
            git_blob_free(blob);
        }
    }
    /* the index is sorted by path already */
    git_index_free(idx);
    git_repository_free(repo);
    git_libgit2_shutdown();
    return rc;
}

void fp_tracked_free(fp_tracked_file *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].path);
        free(v[i].content);
    }
    free(v);
}
