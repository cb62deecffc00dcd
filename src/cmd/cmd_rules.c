/*
 * cmd_rules.c - `flyprof rules`: the knob rules table as data, and with
 * `-f table` as the markdown skills/references/bubble-knob-table.md is
 * generated from (tests/cli/rules.sh fails when the two drift apart).
 */
#include <stddef.h>

#include "commands.h"
#include "flyprof/json.h"
#include "flyprof/rules.h"

typedef struct rules_args {
    int unused;
} rules_args;

static const fp_opt rules_opts[] = {{0}};

static int run_rules(fp_ctx *ctx, void *args, char **pos, int npos, fp_err *err)
{
    (void)args, (void)pos, (void)npos, (void)err;
    ctx->data = cJSON_CreateObject();
    fp_json_add_int(ctx->data, "count", (int64_t)fp_rules_count);
    cJSON_AddItemToObject(ctx->data, "rules", fp_rules_json());
    fp_rules_markdown(&ctx->table);
    return 0;
}

const fp_command fp_cmd_rules = {
    .name = "rules",
    .summary = "print the knob rules table (bubble class -> signal -> FlyDSL knob)",
    .usage = "flyprof rules [-f json|table]",
    .details = "The table `report` evaluates. `-f table` prints the markdown of "
               "skills/references/bubble-knob-table.md.",
    .opts = rules_opts,
    .args_size = sizeof(rules_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_rules,
    .no_bundle = true,
};
