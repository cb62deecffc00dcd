/*
 * envelope_doc.h - a flyprof envelope read back by the command that ran it as a
 * child (`run`'s steps, `capture --with-pmc`'s counters pass): ok, command, error,
 * and the child's data kept as JSON for that command's own table to read
 * (fp_report_envelope_schema for report, ...). main.c writes envelopes (core);
 * this is only the reading side, so a parent never looks keys up by name.
 */
#ifndef FLYPROF_ENVELOPE_DOC_H
#define FLYPROF_ENVELOPE_DOC_H

#include "flyprof/model.h"

typedef struct fp_envelope_error {
    char *code;       /* "BAD_INPUT" */
    int64_t exit_code;
    char *message, *help;
} fp_envelope_error;

typedef struct fp_envelope_doc {
    bool ok;
    char *command;
    char *bundle;               /* absent on errors and without --bundle */
    fp_envelope_error *error;   /* NULL when ok */
    struct cJSON *data;         /* the child's data, read by its own table (NULL when absent) */
    char **warnings;
    size_t nwarnings;
    struct cJSON *truncated;    /* {"list":{"shown","total"}} or NULL */
} fp_envelope_doc;

extern const fp_schema fp_envelope_doc_schema;

/* What `run` reads of doctor's data: the verdict, the GPU's name and the blockers. An
 * open view (doctor's data has more members, written by cmd_doctor.c; unknown keys are
 * skipped here, mistyped known ones are still BAD_INPUT). */
typedef struct fp_doctor_blocker {
    char *code, *check, *message;
} fp_doctor_blocker;

typedef struct fp_doctor_gpu {
    char *name;
} fp_doctor_gpu;

typedef struct fp_doctor_view {
    char *verdict;           /* "ready" | "not-ready" */
    fp_doctor_gpu *gpu;      /* NULL when doctor saw none */
    fp_doctor_blocker *blockers;
    size_t nblockers;
} fp_doctor_view;

extern const fp_schema fp_doctor_view_schema;

/* Read the envelope a child printed into `path`: fp_model_read_file's errors. */
int fp_envelope_read_file(const char *path, fp_envelope_doc *e, fp_err *err);

#endif
