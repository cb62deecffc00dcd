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
static void rules_text(const fp_rules_doc *d, fp_sb *t)
{
    fp_sb_addf(t, "knob rules (%zu): bubble class -> signal -> FlyDSL knob; --markdown for the doc table\n",
               d->nrules);
    for (size_t i = 0; i < d->nrules; i++) {
        const fp_rule_row *r = &d->rules[i];
        fp_sb_addf(t, "\n%2zu  %s  class %s  gate %s  priority %.2f  confidence %s\n", i + 1, r->id, r->bubble_class,
                   r->bound_gate, r->priority, r->confidence);
        const struct {
            const char *label, *value;
        } rows[] = {{"fires when", r->fires_when}, {"knob", r->knob},         {"api", r->api},
                    {"change", r->change},         {"expected", r->expected}, {"gain model", r->gain_model},
                    {"acceptance", r->acceptance}};
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
            if (rows[k].value && rows[k].value[0])
                fp_sb_addf(t, "    %-11s %s\n", rows[k].label, rows[k].value);
    }
}

static int run_rules(fp_ctx *ctx, void *args, char **pos, int npos, fp_err *err)
{
    const rules_args *a = args;
    (void)pos, (void)npos, (void)err;
    fp_rules_doc d;
    fp_rules_doc_fill(&d);
    ctx->data = fp_model_write(&fp_rules_doc_schema, &d);
    if (a->markdown) {
        fp_rules_markdown(&ctx->table);
        ctx->table_verbatim = true;
    } else {
        rules_text(&d, &ctx->table);
    }
    fp_model_free(&fp_rules_doc_schema, &d);
    return 0;
}

/* shown under "examples:" in help and in the man page */
static const char *const rules_examples[] = {
    "flyprof rules -f table",
    "flyprof rules --markdown -f table > bubble-knob-table.md",
    NULL,
};

const fp_command fp_cmd_rules = {
    .examples = rules_examples,
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
