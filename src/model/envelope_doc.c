/*
 * envelope_doc.c - the table of a flyprof envelope as a parent reads it back
 * (envelope_doc.h). The error object is open: a command adds its own members to it
 * (fp_err_extra: "kernels", "artifacts", ...), which a parent does not need.
 */
#include "flyprof/envelope_doc.h"

static const fp_field error_fields[] = {
    FP_STR(fp_envelope_error, code, "code", 0),
    FP_I64(fp_envelope_error, exit_code, "exitCode", 0),
    FP_STR(fp_envelope_error, message, "message", 0),
    FP_STR(fp_envelope_error, help, "help", 0),
};
static const fp_schema error_schema = {"envelope.error", sizeof(fp_envelope_error), FP_FIELDS(error_fields), true};

static const fp_field env_fields[] = {
    FP_BOOL(fp_envelope_doc, ok, "ok", 0),
    FP_STR(fp_envelope_doc, command, "command", 0),
    FP_STR(fp_envelope_doc, bundle, "bundle", FP_F_OMIT_NULL),
    FP_OBJP(fp_envelope_doc, error, "error", &error_schema, FP_F_OMIT_NULL),
    FP_JSON(fp_envelope_doc, data, "data", FP_F_OMIT_NULL),
    FP_STRS(fp_envelope_doc, warnings, nwarnings, "warnings", FP_F_OPTIONAL),
    FP_JSON(fp_envelope_doc, truncated, "truncated", FP_F_OMIT_NULL),
};
const fp_schema fp_envelope_doc_schema = {"envelope", sizeof(fp_envelope_doc), FP_FIELDS(env_fields), false};

int fp_envelope_read_file(const char *path, fp_envelope_doc *e, fp_err *err)
{
    return fp_model_read_file(&fp_envelope_doc_schema, path, e, err);
}

static const fp_field blocker_fields[] = {
    FP_STR(fp_doctor_blocker, code, "code", 0),
    FP_STR(fp_doctor_blocker, check, "check", 0),
    FP_STR(fp_doctor_blocker, message, "message", 0),
};
static const fp_schema blocker_schema = {"doctor.blockers", sizeof(fp_doctor_blocker), FP_FIELDS(blocker_fields), false};

static const fp_field gpu_fields[] = {
    FP_STR(fp_doctor_gpu, name, "name", FP_F_OPTIONAL),
};
static const fp_schema gpu_schema = {"doctor.gpu", sizeof(fp_doctor_gpu), FP_FIELDS(gpu_fields), true};

static const fp_field doctor_fields[] = {
    FP_STR(fp_doctor_view, verdict, "verdict", 0),
    FP_OBJP(fp_doctor_view, gpu, "gpu", &gpu_schema, FP_F_OPTIONAL),
    FP_ARR(fp_doctor_view, blockers, nblockers, "blockers", &blocker_schema, 0),
};
const fp_schema fp_doctor_view_schema = {"doctor data", sizeof(fp_doctor_view), FP_FIELDS(doctor_fields), true};
