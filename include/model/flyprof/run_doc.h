/*
 * run_doc.h - run.json as a type (model.h): what `flyprof run` did, step by step
 * (docs/commands/run.md). It is also run's envelope data. Table: src/model/run_doc.c,
 * the only place its keys are spelled. Producer: src/cmd/cmd_run.c.
 *
 * A step comes in four forms whose keys come in different orders (FP_K_ONEOF; the
 * forms share their rows through macros, so each key is still spelled once):
 *   ran      name, command, seconds, exit_code, envelope, stderr, status, [error],
 *            [summary], [entry, added, db]          a child process ran
 *   pmc      name, status, command, via, artifact   counters ran inside capture
 *   skipped  name, status, reason                   skipped / unavailable
 *   not-run  name, status                           never reached
 */
#ifndef FLYPROF_RUN_DOC_H
#define FLYPROF_RUN_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/model.h"

typedef struct fp_run_error {
    char *code;    /* the error code's name ("NO_ARTIFACT") */
    char *message;
} fp_run_error;

/* The form of a step (its `form` member): the index of its table. */
enum { FP_RUN_STEP_RAN, FP_RUN_STEP_PMC, FP_RUN_STEP_SKIPPED, FP_RUN_STEP_NOT_RUN };

typedef struct fp_run_step {
    int form;               /* FP_RUN_STEP_*: which keys it has, in which order */
    char *name;             /* the step ("doctor", "capture", ...) */
    char *status;           /* "ok" | "failed" | "interrupted" | "skipped" | "unavailable" | "not-run" */
    /* ran */
    char *command;          /* ran: the child's command line; pmc: capture's rocprofv3 command */
    double seconds;         /* wall time of the child, s, 2 decimals */
    int exit_code;          /* the child's exit code (128 + signal when killed) */
    char *envelope;         /* bundle-relative: run/<name>.json */
    char *stderr_path;      /* bundle-relative: run/<name>.stderr.txt ("stderr") */
    fp_run_error *error;    /* when the step failed */
    bool has_summary;       /* "summary" written: doctor's verdict, capture's kernel, report's headline */
    char *summary;
    fp_optd entry;          /* history: the entry id (written when the child gave one) */
    fp_optb added;          /* history: whether it was new (written when the child said) */
    bool has_db;            /* "db" written (history) */
    char *db;
    /* pmc */
    char *via;              /* "capture --with-pmc" */
    char *artifact;         /* capture's counters.json, null when the pass failed */
    /* skipped */
    char *reason;
} fp_run_step;

/* "artifacts": bundle file name -> the name when the file exists, else null */
typedef struct fp_run_artifact {
    char *key;
    char *present;
} fp_run_artifact;

/* "answer": the plan of a run that reached its report (docs/commands/run.md), so that an
 * agent needs no second read of report.json: the bound, the headline, the launch and
 * speed-of-light lines and the top recommendations (--limit, default 5). */
typedef struct fp_run_answer_rec {
    int rank;
    char *rule;
    char *knob;
    fp_optd est_gain_pct;     /* upper bound, % of kernel time; null when the trace is not representative */
    char *gain_model;         /* how est_gain_pct is estimated (the rule's gain model, docs/rules.md) */
    double confidence;        /* 0..1 */
    char *confidence_label;
    char *evidence;           /* the hottest instruction's source "file.py:line", or NULL */
    char *acceptance;         /* the acceptance test's text (what `diff` checks) */
} fp_run_answer_rec;

typedef struct fp_run_answer {
    char *bound;              /* report.json bound.bound */
    char *bound_confidence;
    bool optimal;
    char *headline;
    char *launch;             /* the report's "Launch: ..." line, or NULL */
    char *speed_of_light;     /* the report's "Speed of light: ..." line, or NULL */
    fp_run_answer_rec *recs;  /* "recommendations", by rank, at most --limit */
    size_t nrecs;
    int more_recommendations; /* ranked in report.json but not shown here */
    char *report;             /* bundle-relative: report.json, where the whole plan is */
} fp_run_answer;

typedef struct fp_run_doc {
    int schema;                     /* 1 */
    char *kernel;
    char *status;                   /* "ok" | "failed" | "interrupted" */
    fp_run_error *error;            /* the failing step's error */
    char *tag;                      /* --tag */
    char *analysis_tag;             /* the tag the analyses read */
    fp_run_answer *answer;          /* NULL (absent) unless the report step succeeded */
    fp_run_step *steps;             /* in the order they ran, then the not-run ones */
    size_t nsteps;
    char **step_warnings;           /* the steps' warnings, prefixed with the step's name */
    size_t nstep_warnings;
    double seconds;                 /* the whole run, s, 2 decimals */
    fp_run_artifact *artifacts;
    size_t nartifacts;
} fp_run_doc;

extern const fp_schema fp_run_doc_schema, fp_run_step_schema;

int fp_run_read_file(const char *path, fp_run_doc *doc, fp_err *err);
void fp_run_doc_free(fp_run_doc *doc);

#endif
