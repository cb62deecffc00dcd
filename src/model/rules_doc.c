/*
 * rules_doc.c - the table of `flyprof rules` data (rules_doc.h): the one place its
 * keys are spelled.
 */
#include "flyprof/rules_doc.h"

#define T fp_rule_row
static const fp_field row_fields[] = {
    FP_STR(T, id, "id", 0),
    FP_STR(T, bubble_class, "bubble_class", 0),
    FP_STR(T, fires_when, "fires_when", 0),
    FP_STR(T, signal, "signal", 0),
    FP_STR(T, bound_gate, "bound_gate", 0),
    FP_NUM(T, priority, "priority", 2, 0),
    FP_STR(T, confidence, "confidence", 0),
    FP_STR(T, gain_model, "gain_model", 0),
    FP_STR(T, producers, "producers", 0),
    FP_STR(T, acceptance, "acceptance", 0),
    FP_STR(T, knob, "knob", 0),
    FP_STR(T, api, "api", 0),
    FP_STR(T, change, "change", 0),
    FP_STR(T, expected, "expected", 0),
};
#undef T
static const fp_schema row_schema = {"rules.rule", sizeof(fp_rule_row), FP_FIELDS(row_fields), false};

static const fp_field doc_fields[] = {
    FP_I64(fp_rules_doc, count, "count", 0),
    FP_ARR(fp_rules_doc, rules, nrules, "rules", &row_schema, 0),
};
const fp_schema fp_rules_doc_schema = {"rules", sizeof(fp_rules_doc), FP_FIELDS(doc_fields), false};
