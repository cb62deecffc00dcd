/*
 * git2_lazy.h - libgit2, loaded on first use with dlopen instead of at start-up.
 *
 * Why: libgit2 drags 15 shared libraries (krb5, mbedtls, libssh2, libcrypto, ...)
 * into every process. Measured on this project's machines, linking it costs about
 * 7 ms of start-up on EVERY command (a trivial binary: 4.6 ms without it, 11.3 ms
 * with it), which is most of the time of `flyprof hotspots` on a corpus case.
 * Only doctor/list/capture read a git worktree, so only they pay for it now.
 *
 * Include this AFTER <git2.h> (for the types); it redirects the git_* names used
 * by the worktree module to function pointers filled by fp_git2_load().
 */
#ifndef FLYPROF_GIT2_LAZY_H
#define FLYPROF_GIT2_LAZY_H

#include <git2.h>
#include <stddef.h>

typedef struct fp_git2_api {
    int (*libgit2_init)(void);
    int (*libgit2_shutdown)(void);
    const git_error *(*error_last)(void);
    int (*repository_open_ext)(git_repository **out, const char *path, unsigned int flags,
                               const char *ceiling_dirs);
    void (*repository_free)(git_repository *repo);
    int (*repository_head)(git_reference **out, git_repository *repo);
    int (*repository_index)(git_index **out, git_repository *repo);
    const git_oid *(*reference_target)(const git_reference *ref);
    char *(*oid_tostr)(char *out, size_t n, const git_oid *id);
    int (*reference_is_branch)(const git_reference *ref);
    const char *(*reference_shorthand)(const git_reference *ref);
    void (*reference_free)(git_reference *ref);
    int (*status_options_init)(git_status_options *opts, unsigned int version);
    int (*status_list_new)(git_status_list **out, git_repository *repo, const git_status_options *opts);
    size_t (*status_list_entrycount)(git_status_list *statuslist);
    const git_status_entry *(*status_byindex)(git_status_list *statuslist, size_t idx);
    void (*status_list_free)(git_status_list *statuslist);
    size_t (*index_entrycount)(const git_index *index);
    const git_index_entry *(*index_get_byindex)(git_index *index, size_t n);
    int (*index_entry_stage)(const git_index_entry *entry);
    void (*index_free)(git_index *index);
    int (*blob_lookup)(git_blob **blob, git_repository *repo, const git_oid *id);
    git_object_size_t (*blob_rawsize)(const git_blob *blob);
    const void *(*blob_rawcontent)(const git_blob *blob);
    void (*blob_free)(git_blob *blob);
} fp_git2_api;

/* Load libgit2 into *api (dlopen + dlsym). Returns api, or NULL with a reason in msg.
 * No process-wide state: a second call dlopens the already loaded library again (the
 * loader keeps one copy and counts references; the handle is never closed, as a linked
 * library would not be) and looks up the ~25 symbols anew, microseconds for the one or
 * two calls a command makes. */
const fp_git2_api *fp_git2_load(fp_git2_api *api, char *msg, size_t cap);

/* The git_* names below call through the API of the enclosing function: each function
 * that uses libgit2 declares `const fp_git2_api *g2` (what fp_git2_load returned). */

#define git_libgit2_init (g2->libgit2_init)
#define git_libgit2_shutdown (g2->libgit2_shutdown)
#define git_error_last (g2->error_last)
#define git_repository_open_ext (g2->repository_open_ext)
#define git_repository_free (g2->repository_free)
#define git_repository_head (g2->repository_head)
#define git_repository_index (g2->repository_index)
#define git_reference_target (g2->reference_target)
#define git_oid_tostr (g2->oid_tostr)
#define git_reference_is_branch (g2->reference_is_branch)
#define git_reference_shorthand (g2->reference_shorthand)
#define git_reference_free (g2->reference_free)
#define git_status_options_init (g2->status_options_init)
#define git_status_list_new (g2->status_list_new)
#define git_status_list_entrycount (g2->status_list_entrycount)
#define git_status_byindex (g2->status_byindex)
#define git_status_list_free (g2->status_list_free)
#define git_index_entrycount (g2->index_entrycount)
#define git_index_get_byindex (g2->index_get_byindex)
#define git_index_entry_stage (g2->index_entry_stage)
#define git_index_free (g2->index_free)
#define git_blob_lookup (g2->blob_lookup)
#define git_blob_rawsize (g2->blob_rawsize)
#define git_blob_rawcontent (g2->blob_rawcontent)
#define git_blob_free (g2->blob_free)

#endif
