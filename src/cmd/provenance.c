/*
 * provenance.c - fp_config / fp_worktree as capture_doc.h's records (provenance.h),
 * shared by capture and doctor.
 */
#include "flyprof/provenance.h"

#include <stdlib.h>

#include "flyprof/fs.h"

static fp_cap_setting *setting_doc(const fp_config_value *v)
{
    fp_cap_setting *o = calloc(1, sizeof *o);
    if (!o)
        abort();
    o->value = fp_model_strdup(v->value);
    o->source = fp_model_strdup(v->source);
    return o;
}

void fp_config_to_doc(const fp_config *c, fp_cap_config *o)
{
    *o = (fp_cap_config){0};
    fp_cap_setting_int *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    o->worktree = setting_doc(&c->worktree);
    o->rocprofv3 = setting_doc(&c->rocprofv3);
    o->python = setting_doc(&c->python);
    g->value = c->gpu;
    g->source = fp_model_strdup(c->gpu_text.source);
    o->gpu = g;
    o->arch = setting_doc(&c->arch);
    o->recipes = setting_doc(&c->recipes);
    o->config_file = fp_model_strdup(c->config_file);
}

void fp_worktree_to_doc(const fp_worktree *wt, fp_cap_worktree *o)
{
    *o = (fp_cap_worktree){0};
    o->path = fp_model_strdup(wt->path);
    o->exists = wt->exists;
    o->git = wt->is_git;
    o->commit = fp_model_strdup(wt->commit[0] ? wt->commit : NULL);
    o->branch = fp_model_strdup(wt->branch);
    if (wt->is_git) {
        o->dirty = (fp_optb){true, wt->dirty};
        if (!(o->counts = calloc(1, sizeof *o->counts)))
            abort();
        o->counts->modified_files = (int64_t)wt->n_modified;
        o->counts->untracked_files = (int64_t)wt->n_untracked;
    }
    o->build_tree = wt->path ? fp_path_join(wt->path, FP_FLYDSL_BUILD_TREE) : NULL;
    o->build_tree_exists = wt->build_tree;
    o->flydsl_pkg = wt->flydsl_pkg;
}
