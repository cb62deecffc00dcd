/*
 * sarif_doc.h - a SARIF 2.1.0 log (OASIS, https://docs.oasis-open.org/sarif/sarif/v2.1.0/)
 * as a type (model.h): what `-f sarif` prints on report, check and diff for code scanning
 * (GitHub / GitLab annotate the .py lines the results name). Table: src/model/sarif_doc.c,
 * the only place its keys are spelled. Producer: src/analysis/sarif.c.
 *
 * One run: tool.driver (name, version, informationUri, one rule per knob rule and per
 * regression kind, with help text), originalUriBaseIds (SRCROOT = --source-root) and the
 * results, each at a .py file and line relative to SRCROOT when it is under it.
 */
#ifndef FLYPROF_SARIF_DOC_H
#define FLYPROF_SARIF_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/model.h"
#include "flyprof/strbuf.h"

typedef struct fp_sarif_rule {
    char *id;
    char *name;          /* PascalCase of the id (SARIF's "friendly name") */
    char *short_text;    /* shortDescription.text */
    char *full_text;     /* fullDescription.text */
    char *help_text;     /* help.text */
    char *level;         /* defaultConfiguration.level: error | warning | note */
    char *bubble_class;  /* properties: the stall class the rule targets, or NULL */
    char *gain_model;    /* properties: how the gain is estimated, or NULL */
} fp_sarif_rule;

typedef struct fp_sarif_location {
    char *uri;           /* relative to uri_base_id, or an absolute file: URI */
    char *uri_base_id;   /* "SRCROOT" or NULL */
    int start_line;      /* region.startLine, >= 1 */
} fp_sarif_location;

typedef struct fp_sarif_result {
    char *rule_id;
    int rule_index;      /* index in tool.driver.rules */
    char *level;         /* error | warning | note */
    char *message;       /* message.text */
    fp_sarif_location *locations;
    size_t nlocations;
    /* properties */
    fp_optd rank;
    fp_optd est_gain_pct;
    fp_optd confidence;
    char *acceptance;
} fp_sarif_result;

typedef struct fp_sarif_base {
    char *key;           /* "SRCROOT" */
    char *uri;           /* file:///abs/dir/ */
} fp_sarif_base;

typedef struct fp_sarif_run {
    char *tool_name, *tool_version, *semantic_version, *information_uri; /* information_uri: NULL = absent */
    fp_sarif_rule *rules;
    size_t nrules;
    fp_sarif_base *bases; /* originalUriBaseIds (absent when empty) */
    size_t nbases;
    fp_sarif_result *results;
    size_t nresults;
} fp_sarif_run;

typedef struct fp_sarif_log {
    char *schema;        /* "$schema" */
    char *version;       /* "2.1.0" */
    fp_sarif_run *runs;
    size_t nruns;
} fp_sarif_log;

extern const fp_schema fp_sarif_schema;

/* The log as JSON text (pretty, newline-terminated) appended to out; the log is freed. */
void fp_sarif_print(fp_sarif_log *log, fp_sb *out);

#endif
