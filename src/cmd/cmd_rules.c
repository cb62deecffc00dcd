/*
 * cmd_rules.c - `flyprof rules`: the knob rules table as data; with `-f table`
 * one block per rule for a terminal, and with `--markdown` the markdown
 * skills/references/bubble-knob-table.md is generated from (tests/cli/rules.sh
 * fails when the two drift apart; a markdown table row cannot be wrapped, so
 * that one is printed as is, beyond 100 columns).
 */
#include <stdbool.h>
#include <stddef.h>

#include "commands.h"
#include "flyprof/json.h"
#include "flyprof/rules.h"

typedef struct rules_args {
    bool markdown;
} rules_args;

static const fp_opt rules_opts[] = {
    {"markdown", 0, FP_OPT_FLAG, offsetof(rules_args, markdown), NULL,
     "-f table prints the markdown of skills/references/bubble-knob-table.md (not fitted to the width)", NULL,
     NULL, 0, 0},
    {0}};

/* One block per rule: the id line, then what fires it and the knob. */
static void rules_text(const cJSON *rules, fp_sb *t)
{
    fp_sb_addf(t, "knob rules (%d): bubble class -> signal -> FlyDSL knob; --markdown for the doc table\n",
               cJSON_GetArraySize(rules));
    int i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, rules)
    {
        fp_sb_addf(t, "\n%2d  %s  class %s  gate %s  priority %.2f  confidence %s\n", ++i,
                   fp_json_get_str(r, "id"), fp_json_get_str(r, "bubble_class"), fp_json_get_str(r, "bound_gate"),
                   fp_jnum0(r, "priority"), fp_json_get_str(r, "confidence"));
        static const char *const rows[][2] = {{"fires when", "fires_when"}, {"knob", "knob"},
                                              {"api", "api"},               {"change", "change"},
                                              {"expected", "expected"},     {"gain model", "gain_model"},
                                              {"acceptance", "acceptance"}};
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
            const char *v = fp_json_get_str(r, rows[k][1]);
            if (v && v[0])
                fp_sb_addf(t, "    %-11s %s\n", rows[k][0], v);
        }
    }
}

static int run_rules(fp_ctx *ctx, void *args, char **pos, int npos, fp_err *err)
{
    const rules_args *a = args;
    (void)pos, (void)npos, (void)err;
    ctx->data = cJSON_CreateObject();
    fp_json_add_int(ctx->data, "count", (int64_t)fp_rules_count);
    cJSON *rules = fp_rules_json();
    cJSON_AddItemToObject(ctx->data, "rules", rules);
    if (a->markdown) {
        fp_rules_markdown(&ctx->table);
        ctx->table_verbatim = true;
    } else {
        rules_text(rules, &ctx->table);
    }
    return 0;
}

const fp_command fp_cmd_rules = {
    .name = "rules",
    .summary = "print the knob rules table (bubble class -> signal -> FlyDSL knob)",
    .usage = "flyprof rules [-f json|table] [--markdown]",
    .details = "The table `report` evaluates. `-f table` prints one block per rule; with --markdown, the "
               "markdown of skills/references/bubble-knob-table.md.",
    .opts = rules_opts,
    .args_size = sizeof(rules_args),
    .min_pos = 0,
    .max_pos = 0,
    .run = run_rules,
    .no_bundle = true,
};
