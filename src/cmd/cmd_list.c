/*
 * cmd_list.c - `flyprof list`: the kernels flyprof can profile = the curated
 * recipes registry ∪ the kernels synthesizable from the worktree's tracked
 * tests/kernels/test_*.py. Registry entries win on a name clash. Nothing is
 * written; the list is the envelope.
 */
#include <stdlib.h>
#include <string.h>

#include "flyprof/cli.h"
#include "flyprof/config.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/recipes.h"
#include "flyprof/worktree.h"

typedef struct list_args {
    fp_config_args cfg;
    const char *category;
} list_args;

static const fp_opt list_opts[] = {
    FP_CONFIG_FILE_OPTS(list_args, cfg),
    {"category", 0, FP_OPT_STR, offsetof(list_args, category), "NAME",
     "only kernels of this category (gemm, attention, moe, reduction, elementwise, compute)", NULL, NULL, 0, 0},
    {NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0},
};

/* Never silent: a lone copied binary (no registry next to it) says where it looked. */
static void warn_no_registry(fp_ctx *ctx)
{
    fp_sb hint;
    fp_sb_init(&hint);
    fp_config_registry_hint(&hint);
    fp_warn(ctx, "%s", hint.buf);
    fp_sb_free(&hint);
}

static int list_run(fp_ctx *ctx, void *argsp, char **pos, int npos, fp_err *err)
{
    (void)pos;
    (void)npos;
    list_args *a = argsp;
    fp_config cfg;
    if (fp_config_load(&cfg, &a->cfg, err) != 0)
        return -1;
    fp_recipes rs = {0};
    int rc = 0;
    if (cfg.recipes.value && fp_recipes_load(cfg.recipes.value, &rs, err) != 0) {
        fp_err_help(err, "fix the registry, or point --recipes / FLYPROF_RECIPES at another one");
        rc = -1;
        goto out;
    }
    const char *scan = "not-configured";
    if (cfg.worktree.value) {
        if (!fp_is_dir(cfg.worktree.value)) {
            rc = fp_err_set(err, FP_BUILD_TREE_MISSING, "worktree %s does not exist", cfg.worktree.value);
            fp_err_help(err, "point --worktree / FLYPROF_WORKTREE at a FlyDSL checkout");
            goto out;
        }
        fp_err e2 = {0};
        if (fp_recipes_scan_worktree(cfg.worktree.value, &rs, &e2) == 0) {
            scan = "git-index";
        } else {
            scan = "not-a-git-repo";
            fp_warn(ctx, "worktree %s: %s; only registry recipes are listed", cfg.worktree.value, e2.message);
        }
        fp_err_clear(&e2);
    } else {
        fp_warn(ctx, "no worktree configured (--worktree / FLYPROF_WORKTREE): only registry recipes are listed");
    }
    fp_recipes_sort(&rs);
    if (!cfg.recipes.value)
        warn_no_registry(ctx);

    cJSON *d = ctx->data = cJSON_CreateObject();
    fp_json_add_str(d, "worktree", cfg.worktree.value);
    fp_json_add_str(d, "worktree_scan", scan);
    fp_json_add_str(d, "registry", cfg.recipes.value);
    fp_json_add_str(d, "registry_source", cfg.recipes.source);
    cJSON *ks = cJSON_CreateArray();
    size_t shown = 0, n_recipe = 0, n_synth = 0;
    fp_sb_adds(&ctx->table, "kernel                category     recipe  in-worktree  shape_env / test_file\n");
    for (size_t i = 0; i < rs.n; i++) {
        const fp_recipe *r = &rs.v[i];
        if (a->category && strcmp(a->category, r->category))
            continue;
        cJSON_AddItemToArray(ks, fp_recipe_json(r));
        shown++;
        if (r->has_recipe)
            n_recipe++;
        else
            n_synth++;
        fp_sb_pad_left(&ctx->table, r->name, 21);
        fp_sb_addc(&ctx->table, ' ');
        fp_sb_pad_left(&ctx->table, r->category, 12);
        fp_sb_addf(&ctx->table, " %-7s %-12s %s  %s\n", r->has_recipe ? "yes" : "synth",
                   r->in_worktree ? "yes" : "no", r->shape_env ? r->shape_env : "-", r->test_file);
    }
    fp_json_add_int(d, "count", (int64_t)shown);
    fp_json_add_int(d, "recipes", (int64_t)n_recipe);
    fp_json_add_int(d, "synthesized", (int64_t)n_synth);
    cJSON_AddItemToObject(d, "kernels", ks);
    /* the count is the headline: before the table */
    fp_sb t;
    fp_sb_init(&t);
    fp_sb_addf(&t, "%zu kernel(s): %zu with a recipe, %zu synthesized from %s\n\n", shown, n_recipe, n_synth,
               cfg.worktree.value ? cfg.worktree.value : "(no worktree)");
    fp_sb_add(&t, ctx->table.buf, ctx->table.len);
    fp_sb_free(&ctx->table);
    ctx->table = t;
out:
    fp_recipes_free(&rs);
    fp_config_free(&cfg);
    return rc;
}

/* Paths checked by main before run() (fp_check_paths: docs/exit-codes.md). */
static const fp_path_rule list_paths[] = {
    FP_CONFIG_PATH_RULES,
    {.kind = FP_PATH_NONE},
};

/* shown under "examples:" in help and in the man page */
static const char *const list_examples[] = {
    "flyprof list --worktree ~/FlyDSL",
    "flyprof list --category gemm -f csv",
    NULL,
};

const fp_command fp_cmd_list = {
    .examples = list_examples,
    .name = "list",
    .summary = "list profilable kernels: recipes registry + tests tracked in the FlyDSL worktree",
    .usage = "flyprof list [--worktree DIR] [--recipes FILE] [--category NAME]",
    .details = "Synthesizable kernels are the tracked tests/kernels/test_<name>.py files of the worktree "
               "(read from the git index, so build dirs and untracked junk are ignored).",
    .opts = list_opts,
    .args_size = sizeof(list_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = list_run,
    .paths = list_paths,
    .no_bundle = true,
};
