/*
 * rules_doc.h - the data of `flyprof rules` as a typed document: one row per knob
 * rule of src/analysis/rules.c, in table order, with its conditions, gate and
 * acceptance test rendered as text. Filled by fp_rules_doc_fill (rules.c), written by
 * the table in src/model/rules_doc.c.
 */
#ifndef FLYPROF_RULES_DOC_H
#define FLYPROF_RULES_DOC_H

#include "flyprof/model.h"

typedef struct fp_rule_row {
    char *id, *bubble_class;
    char *fires_when;  /* the rule's conditions as text */
    char *signal;      /* the primary signal's kind name */
    char *bound_gate;  /* the bounds it applies under */
    double priority;   /* tie-break between rules of equal gain (higher first) */
    char *confidence;  /* base confidence label */
    char *gain_model, *producers, *acceptance;
    char *knob, *api, *change, *expected;
} fp_rule_row;

typedef struct fp_rules_doc {
    int64_t count;
    fp_rule_row *rules;
    size_t nrules;
} fp_rules_doc;

extern const fp_schema fp_rules_doc_schema;

#endif
