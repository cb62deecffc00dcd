/*
 * git2_lazy.c - dlopen libgit2 on first use (see git2_lazy.h for the measured why).
 * The library file is the one pkg-config found at build time (FP_LIBGIT2_SONAME,
 * FP_LIBGIT2_FILE), so the ABI matches the headers this was compiled against.
 */
#include "git2_lazy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* One row per function: its libgit2 name and where its pointer goes. */
#define SYM(field) {"git_" #field, offsetof(fp_git2_api, field)}
static const struct {
    const char *name;
    size_t off;
} git2_symbols[] = {
    SYM(libgit2_init),        SYM(libgit2_shutdown),     SYM(error_last),
    SYM(repository_open_ext), SYM(repository_free),      SYM(repository_head),
    SYM(repository_index),    SYM(reference_target),     SYM(oid_tostr),
    SYM(reference_is_branch), SYM(reference_shorthand),  SYM(reference_free),
    SYM(status_options_init), SYM(status_list_new),      SYM(status_list_entrycount),
    SYM(status_byindex),      SYM(status_list_free),     SYM(index_entrycount),
    SYM(index_get_byindex),   SYM(index_entry_stage),    SYM(index_free),
    SYM(blob_lookup),         SYM(blob_rawsize),         SYM(blob_rawcontent),
    SYM(blob_free),
};
#undef SYM

const fp_git2_api *fp_git2_load(fp_git2_api *api, char *msg, size_t cap)
{
    const char *candidates[] = {FP_LIBGIT2_SONAME, FP_LIBGIT2_FILE, "libgit2.so"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates && !h; i++)
        if (candidates[i][0])
            h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(msg, cap, "cannot load libgit2 (%s): %s", FP_LIBGIT2_SONAME, e ? e : "?");
        return NULL;
    }
    for (size_t i = 0; i < sizeof git2_symbols / sizeof *git2_symbols; i++) {
        void *p = dlsym(h, git2_symbols[i].name);
        if (!p) {
            snprintf(msg, cap, "libgit2 lacks %s", git2_symbols[i].name);
            return NULL;
        }
        /* POSIX guarantees object and function pointers convert through dlsym. */
        memcpy((char *)api + git2_symbols[i].off, &p, sizeof p);
    }
    return api;
}
