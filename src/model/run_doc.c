/*
 * run_doc.c - the table of run.json (run_doc.h): the only place its keys are
 * spelled. A step's four forms share their rows through the STEP_* macros.
 */
#include "flyprof/run_doc.h"

#define ON FP_F_OMIT_NULL
#define SCHEMA(name, T, f) {name, sizeof(T), FP_FIELDS(f), false}

static const fp_field error_f[] = {
    FP_STR(fp_run_error, code, "code", 0),
    FP_STR(fp_run_error, message, "message", 0),
};
static const fp_schema error_s = SCHEMA("run.error", fp_run_error, error_f);

/* the rows of a step, each spelled once */
#define STEP_NAME FP_STR(fp_run_step, name, "name", 0)
#define STEP_STATUS FP_STR(fp_run_step, status, "status", 0)
#define STEP_COMMAND FP_STR(fp_run_step, command, "command", 0)

static const fp_field ran_f[] = {
    STEP_NAME,
    STEP_COMMAND,
    FP_NUM(fp_run_step, seconds, "seconds", 2, 0),
    FP_INT(fp_run_step, exit_code, "exit_code", 0),
    FP_STR(fp_run_step, envelope, "envelope", 0),
    FP_STR(fp_run_step, stderr_path, "stderr", 0),
    STEP_STATUS,
    FP_OBJP(fp_run_step, error, "error", &error_s, ON),
    FP_WHEN(fp_run_step, has_summary, FP_K_STR, summary, summary, "summary", 0, NULL),
    FP_OPTD(fp_run_step, entry, "entry", 0, ON),
    FP_OPTB(fp_run_step, added, "added", ON),
    FP_WHEN(fp_run_step, has_db, FP_K_STR, db, db, "db", 0, NULL),
};
static const fp_field pmc_f[] = {
    STEP_NAME,
    STEP_STATUS,
    STEP_COMMAND,
    FP_STR(fp_run_step, via, "via", 0),
    FP_STR(fp_run_step, artifact, "artifact", 0),
};
static const fp_field skipped_f[] = {
    STEP_NAME,
    STEP_STATUS,
    FP_STR(fp_run_step, reason, "reason", 0),
};
static const fp_field not_run_f[] = {
    STEP_NAME,
    STEP_STATUS,
};
/* in FP_RUN_STEP_* order; the reader takes the first that fits */
static const fp_schema step_forms[] = {
    SCHEMA("run.steps (ran)", fp_run_step, ran_f),
    SCHEMA("run.steps (pmc)", fp_run_step, pmc_f),
    SCHEMA("run.steps (skipped)", fp_run_step, skipped_f),
    SCHEMA("run.steps (not-run)", fp_run_step, not_run_f),
};
static const fp_field step_f[] = {
    FP_ONEOF(fp_run_step, form, "a step", step_forms),
};
const fp_schema fp_run_step_schema = SCHEMA("run.steps", fp_run_step, step_f);

static const fp_field artifact_f[] = {
    {NULL, FP_K_STR, offsetof(fp_run_artifact, present), 0, 0, NULL, 0, 0},
};
static const fp_schema artifact_s = SCHEMA("run.artifacts", fp_run_artifact, artifact_f);

static const fp_field answer_rec_f[] = {
    FP_INT(fp_run_answer_rec, rank, "rank", 0),
    FP_STR(fp_run_answer_rec, rule, "rule", 0),
    FP_STR(fp_run_answer_rec, knob, "knob", 0),
    FP_OPTD(fp_run_answer_rec, est_gain_pct, "est_gain_pct", 2, 0),
    FP_STR(fp_run_answer_rec, gain_model, "gain_model", 0),
    FP_NUM(fp_run_answer_rec, confidence, "confidence", 2, 0),
    FP_STR(fp_run_answer_rec, confidence_label, "confidence_label", 0),
    FP_STR(fp_run_answer_rec, evidence, "evidence", 0),
    FP_STR(fp_run_answer_rec, acceptance, "acceptance", 0),
};
static const fp_schema answer_rec_s = SCHEMA("run.answer.recommendations", fp_run_answer_rec, answer_rec_f);

static const fp_field answer_f[] = {
    FP_STR(fp_run_answer, bound, "bound", 0),
    FP_STR(fp_run_answer, bound_confidence, "bound_confidence", 0),
    FP_BOOL(fp_run_answer, optimal, "optimal", 0),
    FP_STR(fp_run_answer, headline, "headline", 0),
    FP_STR(fp_run_answer, launch, "launch", 0),
    FP_STR(fp_run_answer, speed_of_light, "speed_of_light", 0),
    FP_ARR(fp_run_answer, recs, nrecs, "recommendations", &answer_rec_s, 0),
    FP_INT(fp_run_answer, more_recommendations, "more_recommendations", 0),
    FP_STR(fp_run_answer, report, "report", 0),
};
static const fp_schema answer_s = SCHEMA("run.answer", fp_run_answer, answer_f);

static const fp_field run_f[] = {
    FP_INT(fp_run_doc, schema, "schema", 0),
    FP_STR(fp_run_doc, kernel, "kernel", 0),
    FP_STR(fp_run_doc, status, "status", 0),
    FP_OBJP(fp_run_doc, error, "error", &error_s, ON),
    FP_STR(fp_run_doc, tag, "tag", 0),
    FP_STR(fp_run_doc, analysis_tag, "analysis_tag", 0),
    FP_OBJP(fp_run_doc, answer, "answer", &answer_s, ON),
    FP_ARR(fp_run_doc, steps, nsteps, "steps", &fp_run_step_schema, 0),
    FP_STRS(fp_run_doc, step_warnings, nstep_warnings, "step_warnings", 0),
    FP_NUM(fp_run_doc, seconds, "seconds", 2, 0),
    FP_MAP(fp_run_doc, artifacts, nartifacts, "artifacts", &artifact_s, 0),
};
const fp_schema fp_run_doc_schema = SCHEMA("run", fp_run_doc, run_f);

int fp_run_read_file(const char *path, fp_run_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_run_doc_schema, path, doc, err);
}

void fp_run_doc_free(fp_run_doc *doc) { fp_model_free(&fp_run_doc_schema, doc); }
