/*
 * diff_doc.c - the tables of diff.json and of the `check` envelope (diff_doc.h):
 * the only place their keys are spelled. Key order and decimals are those of
 * the old hand-written builders in src/analysis/diff.c and src/cmd/cmd_check.c.
 */
#include "flyprof/diff_doc.h"

static const fp_field who_fields[] = {
    FP_STR(fp_diff_who, kernel, "kernel", 0),
    FP_STR(fp_diff_who, arch, "arch", 0),
    FP_STR(fp_diff_who, dispatch, "dispatch", 0),
    FP_STR(fp_diff_who, bound_type, "bound_type", 0),
    FP_STR(fp_diff_who, headline, "headline", 0),
};
static const fp_schema who_schema = {"diff.who", sizeof(fp_diff_who), FP_FIELDS(who_fields), false};

static const fp_field noise_fields[] = {
    FP_NUM(fp_diff_noise_floor, stall_pct_points, "stall_pct_points", 2, 0),
    FP_NUM(fp_diff_noise_floor, share_points, "share_points", 2, 0),
    FP_NUM(fp_diff_noise_floor, time_pct, "time_pct", 2, 0),
    FP_STR(fp_diff_noise_floor, source, "source", 0),
};
const fp_schema fp_diff_noise_floor_schema = {"diff.noise_floor", sizeof(fp_diff_noise_floor),
                                              FP_FIELDS(noise_fields), false};

/* {before, after, delta} at 0, 1 and 2 decimals: one field list per precision */
#define CHANGE_FIELDS(dec)                                                                                            \
    {                                                                                                                 \
        FP_OPTD(fp_diff_change, before, "before", dec, 0), FP_OPTD(fp_diff_change, after, "after", dec, 0),           \
            FP_OPTD(fp_diff_change, delta, "delta", dec, 0),                                                          \
    }
static const fp_field change0_fields[] = CHANGE_FIELDS(0);
static const fp_field change1_fields[] = CHANGE_FIELDS(1);
static const fp_field change2_fields[] = CHANGE_FIELDS(2);
static const fp_schema change0_schema = {"diff.change", sizeof(fp_diff_change), FP_FIELDS(change0_fields), false};
static const fp_schema change1_schema = {"diff.change", sizeof(fp_diff_change), FP_FIELDS(change1_fields), false};
static const fp_schema change2_schema = {"diff.change", sizeof(fp_diff_change), FP_FIELDS(change2_fields), false};

static const fp_field totals_fields[] = {
    FP_OBJ(fp_diff_totals, stall_pct, "stall_pct", &change2_schema, 0),
    FP_OBJ(fp_diff_totals, exposed_pct, "exposed_pct", &change2_schema, 0),
    FP_OBJ(fp_diff_totals, waves, "waves", &change0_schema, 0),
    FP_OBJ(fp_diff_totals, latency_per_wave, "latency_per_wave", &change1_schema, 0),
    FP_OBJ(fp_diff_totals, time_ns_per_call, "time_ns_per_call", &change1_schema, 0),
};
const fp_schema fp_diff_totals_schema = {"diff.totals", sizeof(fp_diff_totals), FP_FIELDS(totals_fields), false};

static const fp_field side_fields[] = {
    FP_NUM(fp_diff_side, stall, "stall", 0, 0),
    FP_NUM(fp_diff_side, exposed, "exposed", 0, 0),
    FP_NUM(fp_diff_side, pct, "pct", 2, 0),
    FP_NUM(fp_diff_side, stall_per_wave, "stall_per_wave", 1, 0),
    FP_NUM(fp_diff_side, exposed_per_wave, "exposed_per_wave", 1, 0),
};
static const fp_schema side_schema = {"diff.side", sizeof(fp_diff_side), FP_FIELDS(side_fields), false};

static const fp_field row_delta_fields[] = {
    FP_NUM(fp_diff_row_delta, pct, "pct", 2, 0),
    FP_NUM(fp_diff_row_delta, stall_per_wave, "stall_per_wave", 1, 0),
    FP_NUM(fp_diff_row_delta, exposed_per_wave, "exposed_per_wave", 1, 0),
};
static const fp_schema row_delta_schema = {"diff.delta", sizeof(fp_diff_row_delta), FP_FIELDS(row_delta_fields),
                                           false};

/* a class row and a line row differ only in the name of their key */
#define ROW_FIELDS(keyname)                                                                                           \
    {                                                                                                                 \
        FP_STR(fp_diff_row, key, keyname, 0), FP_OBJP(fp_diff_row, before, "before", &side_schema, 0),                \
            FP_OBJP(fp_diff_row, after, "after", &side_schema, 0),                                                    \
            FP_OBJ(fp_diff_row, delta, "delta", &row_delta_schema, 0),                                                \
            FP_BOOL(fp_diff_row, significant, "significant", 0),                                                      \
            FP_OPTD(fp_diff_row, ci_points, "ci_points", 2, FP_F_OMIT_NULL),                                          \
    }
static const fp_field class_row_fields[] = ROW_FIELDS("class");
static const fp_field line_row_fields[] = ROW_FIELDS("source");
const fp_schema fp_diff_class_row_schema = {"diff.classes", sizeof(fp_diff_row), FP_FIELDS(class_row_fields), false};
static const fp_schema line_row_schema = {"diff.lines.rows", sizeof(fp_diff_row), FP_FIELDS(line_row_fields), false};

static const fp_field lines_fields[] = {
    FP_I64(fp_diff_lines, total, "total", 0),
    FP_ARR(fp_diff_lines, rows, nrows, "rows", &line_row_schema, 0),
};
static const fp_schema lines_schema = {"diff.lines", sizeof(fp_diff_lines), FP_FIELDS(lines_fields), false};

static const fp_field code_fields[] = {
    FP_STR(fp_diff_code, identity, "identity", 0),
    FP_STR(fp_diff_code, sha256_before, "sha256_before", 0),
    FP_STR(fp_diff_code, sha256_after, "sha256_after", 0),
    FP_OPTD(fp_diff_code, instructions_before, "instructions_before", 0, 0),
    FP_OPTD(fp_diff_code, instructions_after, "instructions_after", 0, 0),
    FP_STR(fp_diff_code, why, "why", 0),
};
static const fp_schema code_schema = {"diff.code", sizeof(fp_diff_code), FP_FIELDS(code_fields), false};

static const fp_field ci_fields[] = {
    FP_OPTD(fp_diff_ci, before, "before", 1, 0),
    FP_OPTD(fp_diff_ci, after, "after", 1, 0),
    FP_OPTD(fp_diff_ci, sd_before, "sd_before", 1, 0),
    FP_OPTD(fp_diff_ci, sd_after, "sd_after", 1, 0),
    FP_I64(fp_diff_ci, n_before, "n_before", 0),
    FP_I64(fp_diff_ci, n_after, "n_after", 0),
    FP_OPTD(fp_diff_ci, delta_pct, "delta_pct", 2, 0),
    FP_OPTD(fp_diff_ci, ci_low_pct, "ci_low_pct", 2, 0),
    FP_OPTD(fp_diff_ci, ci_high_pct, "ci_high_pct", 2, 0),
    FP_STR(fp_diff_ci, change, "change", 0),
};
static const fp_schema ci_schema = {"diff.work.ci", sizeof(fp_diff_ci), FP_FIELDS(ci_fields), false};

static const fp_field work_fields[] = {
    FP_STR(fp_diff_work, unit, "unit", 0),
    FP_OBJ(fp_diff_work, per_wave, "per_wave", &ci_schema, 0),
    FP_OBJ(fp_diff_work, per_iteration, "per_iteration", &ci_schema, 0),
    FP_OBJ(fp_diff_work, iterations_per_wave, "iterations_per_wave", &change2_schema, 0),
    FP_STR(fp_diff_work, loop_before, "loop_before", 0),
    FP_STR(fp_diff_work, loop_after, "loop_after", 0),
    FP_BOOL(fp_diff_work, time_void, "time_void", 0),
    FP_STR(fp_diff_work, why, "why", 0),
};
static const fp_schema work_schema = {"diff.work", sizeof(fp_diff_work), FP_FIELDS(work_fields), false};

static const fp_field inst_side_fields[] = {
    FP_NUM(fp_diff_inst_side, code_line, "code_line", 0, 0),
    FP_NUM(fp_diff_inst_side, stall, "stall", 0, 0),
    FP_NUM(fp_diff_inst_side, exposed, "exposed", 0, 0),
    FP_NUM(fp_diff_inst_side, stall_per_wave, "stall_per_wave", 1, 0),
};
static const fp_schema inst_side_schema = {"diff.instructions.side", sizeof(fp_diff_inst_side),
                                           FP_FIELDS(inst_side_fields), false};

static const fp_field inst_change_fields[] = {
    FP_STR(fp_diff_inst_change, source, "source", 0),
    FP_STR(fp_diff_inst_change, opcode, "opcode", 0),
    FP_I64(fp_diff_inst_change, occurrence, "occurrence", 0),
    FP_STR(fp_diff_inst_change, matched_by, "matched_by", 0),
    FP_STR(fp_diff_inst_change, inst, "inst", 0),
    FP_OBJ(fp_diff_inst_change, before, "before", &inst_side_schema, 0),
    FP_OBJ(fp_diff_inst_change, after, "after", &inst_side_schema, 0),
    FP_NUM(fp_diff_inst_change, delta_stall_per_wave, "delta_stall_per_wave", 1, 0),
};
const fp_schema fp_diff_inst_change_schema = {"diff.instructions.top_changes", sizeof(fp_diff_inst_change),
                                             FP_FIELDS(inst_change_fields), false};

static const fp_field insts_fields[] = {
    FP_I64(fp_diff_insts, before, "before", 0),
    FP_I64(fp_diff_insts, after, "after", 0),
    FP_I64(fp_diff_insts, matched, "matched", 0),
    FP_I64(fp_diff_insts, matched_by_source, "matched_by_source", 0),
    FP_I64(fp_diff_insts, moved, "moved", 0),
    FP_I64(fp_diff_insts, unmatched_before, "unmatched_before", 0),
    FP_I64(fp_diff_insts, unmatched_after, "unmatched_after", 0),
    FP_I64(fp_diff_insts, changed, "changed", 0),
    FP_ARR(fp_diff_insts, top_changes, ntop_changes, "top_changes", &fp_diff_inst_change_schema, 0),
};
static const fp_schema insts_schema = {"diff.instructions", sizeof(fp_diff_insts), FP_FIELDS(insts_fields), false};

static const fp_field acceptance_fields[] = {
    FP_STR(fp_diff_acceptance, rule, "rule", 0),
    FP_NUM(fp_diff_acceptance, rank, "rank", 0, 0),
    FP_STR(fp_diff_acceptance, test, "test", 0),
    FP_STR(fp_diff_acceptance, kind, "kind", 0),
    FP_NUM(fp_diff_acceptance, before, "before", 2, 0),
    FP_OPTD(fp_diff_acceptance, after, "after", 2, 0),
    FP_NUM(fp_diff_acceptance, target, "target", 2, 0),
    FP_STR(fp_diff_acceptance, verdict, "verdict", 0),
    FP_STR(fp_diff_acceptance, note, "note", 0),
};
static const fp_schema acceptance_schema = {"diff.acceptance", sizeof(fp_diff_acceptance),
                                            FP_FIELDS(acceptance_fields), false};

static const fp_field verdict_fields[] = {
    FP_STR(fp_diff_verdict_doc, overall, "overall", 0),
    FP_STR(fp_diff_verdict_doc, basis, "basis", 0),
    FP_NUM(fp_diff_verdict_doc, delta, "delta", 2, 0),
    FP_OPTD(fp_diff_verdict_doc, ci_low, "ci_low", 2, FP_F_OMIT_NULL),
    FP_OPTD(fp_diff_verdict_doc, ci_high, "ci_high", 2, FP_F_OMIT_NULL),
    FP_STR(fp_diff_verdict_doc, why, "why", 0),
    /* diff.json only (check has no acceptance tests) */
    FP_OPTD(fp_diff_verdict_doc, acceptance_met, "acceptance_met", 0, FP_F_OMIT_NULL),
    FP_OPTD(fp_diff_verdict_doc, acceptance_total, "acceptance_total", 0, FP_F_OMIT_NULL),
};
const fp_schema fp_diff_verdict_schema = {"diff.verdict", sizeof(fp_diff_verdict_doc), FP_FIELDS(verdict_fields),
                                          false};

/* diff.json, then the envelope's own last key: the file's schema is the same
 * list without it, so every key is still spelled once */
static const fp_field diff_fields[] = {
    FP_INT(fp_diff_doc, schema, "schema", 0),
    FP_OBJ(fp_diff_doc, before, "before", &who_schema, 0),
    FP_OBJ(fp_diff_doc, after, "after", &who_schema, 0),
    FP_OBJ(fp_diff_doc, noise_floor, "noise_floor", &fp_diff_noise_floor_schema, 0),
    FP_OBJ(fp_diff_doc, totals, "totals", &fp_diff_totals_schema, 0),
    FP_OBJ(fp_diff_doc, code, "code", &code_schema, FP_F_OPTIONAL), /* absent from older diff.json */
    FP_OBJ(fp_diff_doc, work, "work", &work_schema, FP_F_OPTIONAL),
    FP_ARR(fp_diff_doc, classes, nclasses, "classes", &fp_diff_class_row_schema, 0),
    FP_OBJ(fp_diff_doc, lines, "lines", &lines_schema, 0),
    FP_OBJ(fp_diff_doc, instructions, "instructions", &insts_schema, 0),
    FP_ARR(fp_diff_doc, acceptance, nacceptance, "acceptance", &acceptance_schema, 0),
    FP_OBJ(fp_diff_doc, verdict, "verdict", &fp_diff_verdict_schema, 0),
    FP_STRS(fp_diff_doc, notes, nnotes, "notes", 0),
    FP_STR(fp_diff_doc, artifact, "artifact", 0), /* envelope only: must stay last */
};
const fp_schema fp_diff_schema = {"diff", sizeof(fp_diff_doc), diff_fields,
                                  sizeof diff_fields / sizeof diff_fields[0] - 1, false};
const fp_schema fp_diff_envelope_schema = {"diff envelope", sizeof(fp_diff_doc), FP_FIELDS(diff_fields), false};

/* ---- check */

static const fp_field check_side_fields[] = {
    FP_OPTD(fp_check_side, id, "id", -1, 0),
    FP_STR(fp_check_side, kernel, "kernel", 0),
    FP_STR(fp_check_side, shape, "shape", 0),
    FP_STR(fp_check_side, arch, "arch", 0),
    FP_STR(fp_check_side, commit, "commit", 0),
    FP_OPTB(fp_check_side, dirty, "dirty", 0),
    FP_STR(fp_check_side, captured_at, "captured_at", 0),
    FP_STR(fp_check_side, bound, "bound", 0),
    FP_STR(fp_check_side, hash, "hash", 0),
};
static const fp_schema check_side_schema = {"check.side", sizeof(fp_check_side), FP_FIELDS(check_side_fields), false};

static const fp_field check_gate_fields[] = {
    FP_STR(fp_check_gate, fail_on, "fail_on", 0),
    FP_BOOL(fp_check_gate, tripped, "tripped", 0),
};
static const fp_schema check_gate_schema = {"check.gate", sizeof(fp_check_gate), FP_FIELDS(check_gate_fields), false};

static const fp_field check_fields[] = {
    FP_STR(fp_check_doc, db, "db", 0),
    FP_STR(fp_check_doc, baseline_ref, "baseline_ref", 0),
    FP_STR(fp_check_doc, baseline_policy, "baseline_policy", 0),
    FP_OBJ(fp_check_doc, baseline, "baseline", &check_side_schema, 0),
    FP_OBJ(fp_check_doc, current, "current", &check_side_schema, 0),
    FP_OBJ(fp_check_doc, noise_floor, "noise_floor", &fp_diff_noise_floor_schema, 0),
    FP_OBJ(fp_check_doc, totals, "totals", &fp_diff_totals_schema, 0),
    FP_ARR(fp_check_doc, classes, nclasses, "classes", &fp_diff_class_row_schema, 0),
    FP_OBJ(fp_check_doc, verdict, "verdict", &fp_diff_verdict_schema, 0),
    FP_OBJ(fp_check_doc, gate, "gate", &check_gate_schema, 0),
    FP_STRS(fp_check_doc, notes, nnotes, "notes", 0),
};
const fp_schema fp_check_schema = {"check", sizeof(fp_check_doc), FP_FIELDS(check_fields), false};

static const fp_field check_none_fields[] = {
    FP_STR(fp_check_none_doc, db, "db", 0),
    FP_STR(fp_check_none_doc, baseline_ref, "baseline_ref", 0),
    FP_STR(fp_check_none_doc, status, "status", 0),
    FP_OBJ(fp_check_none_doc, current, "current", &check_side_schema, 0),
    FP_STR(fp_check_none_doc, message, "message", 0),
};
const fp_schema fp_check_none_schema = {"check (no baseline)", sizeof(fp_check_none_doc), FP_FIELDS(check_none_fields),
                                        false};

int fp_diff_read_file(const char *path, fp_diff_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_diff_schema, path, doc, err);
}

int fp_diff_write_file(const fp_diff_doc *doc, const char *path, fp_err *err)
{
    return fp_model_write_file(&fp_diff_schema, doc, path, err);
}

void fp_diff_free(fp_diff_doc *doc) { fp_model_free(&fp_diff_envelope_schema, doc); }
