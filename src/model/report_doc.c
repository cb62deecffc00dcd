/*
 * report_doc.c - the tables of report.json, headlines.json and the `report` envelope
 * (report_doc.h): the only place their keys are spelled. Key order is the order the
 * documents have always had; decimals are those the old writers rounded to (-1: the
 * number as computed, for the parts written with cJSON_AddNumberToObject).
 *
 * Conditional keys: FP_F_OMIT_NULL where the old writer left a key out (evidence.launch
 * / roof / occupancy / selection, the occupancy evidence members, acceptance members
 * that depend on the kind, a producer's share, capture_quality.recapture).
 */
#include "flyprof/report_doc.h"

#include <stddef.h>
#include <string.h>

#define OMIT FP_F_OMIT_NULL

/* ---- report.json ---- */

static const fp_field dispatch_fields[] = {
    FP_STR(fp_report_dispatch, name, "name", 0),
    FP_STR(fp_report_dispatch, tag, "tag", 0),
};
static const fp_schema dispatch_schema = {"report.dispatch", sizeof(fp_report_dispatch), FP_FIELDS(dispatch_fields),
                                          false};

static const fp_field bound_fields[] = {
    FP_STR(fp_report_bound, bound, "bound", 0),
    FP_STR(fp_report_bound, rule, "rule", 0),
    FP_STR(fp_report_bound, basis, "basis", 0),
    FP_STR(fp_report_bound, confidence, "confidence", 0),
    FP_STR(fp_report_bound, evidence, "evidence", 0),
    FP_BOOL(fp_report_bound, optimal, "optimal", 0),
    FP_STR(fp_report_bound, optimal_rule, "optimal_rule", 0),
    FP_STR(fp_report_bound, optimal_evidence, "optimal_evidence", 0),
    FP_STR(fp_report_bound, within, "within", 0),
    FP_STR(fp_report_bound, within_rule, "within_rule", 0),
    FP_BOOL(fp_report_bound, at_roof, "at_roof", 0),
    FP_OPTD(fp_report_bound, roof_pct_of_peak, "roof_pct_of_peak", 2, 0),
    FP_STR(fp_report_bound, roof_source, "roof_source", 0),
};
const fp_schema fp_report_bound_schema = {"report.bound", sizeof(fp_report_bound), FP_FIELDS(bound_fields), false};

static const fp_field launch_fields[] = {
    FP_NUM(fp_report_launch, workgroups, "workgroups", -1, 0),
    FP_INT(fp_report_launch, wg_waves, "wg_waves", 0),
    FP_NUM(fp_report_launch, grid_waves, "grid_waves", -1, 0),
    FP_OPTD(fp_report_launch, cus, "cus", -1, 0),
    FP_OPTD(fp_report_launch, resident_wgs_per_cu, "resident_wgs_per_cu", -1, 0),
    FP_OPTD(fp_report_launch, concurrent_wgs, "concurrent_wgs", -1, 0),
    FP_OPTD(fp_report_launch, rounds, "rounds", -1, 0),
    FP_OPTD(fp_report_launch, fill_pct, "fill_pct", -1, 0),
    FP_OPTD(fp_report_launch, tail_efficiency_pct, "tail_efficiency_pct", -1, 0),
    FP_OPTB(fp_report_launch, underfilled, "underfilled", 0),
    FP_OPTD(fp_report_launch, grid_waves_per_cu, "grid_waves_per_cu", -1, 0),
    FP_STR(fp_report_launch, text, "text", 0),
    /* issue 23: sources, SIMD fill (trace_facts_doc.c) */
    FP_STR(fp_report_launch, source, "source", FP_F_OPTIONAL),
    FP_OPTD(fp_report_launch, simds, "simds", -1, FP_F_OPTIONAL),
    FP_OPTD(fp_report_launch, simd_fill_pct, "simd_fill_pct", 2, FP_F_OPTIONAL),
    FP_OPTD(fp_report_launch, waves_per_simd_limit, "waves_per_simd_limit", -1, FP_F_OPTIONAL),
    FP_OPTD(fp_report_launch, resident_waves_per_simd, "resident_waves_per_simd", -1, FP_F_OPTIONAL),
    FP_OBJP(fp_report_launch, trace, "trace", &fp_rl_trace_schema, FP_F_OPTIONAL),
    FP_OBJP(fp_report_launch, csv, "csv", &fp_rl_csv_schema, FP_F_OPTIONAL),
    FP_STRS(fp_report_launch, warnings, nwarnings, "warnings", FP_F_OPTIONAL),
};
static const fp_schema launch_schema = {"report.launch", sizeof(fp_report_launch), FP_FIELDS(launch_fields), false};

static const fp_field hbm_trace_fields[] = {
    FP_OPTD(fp_report_sol_hbm_trace, bytes_per_dispatch, "bytes_per_dispatch", -1, 0),
    FP_OPTD(fp_report_sol_hbm_trace, gbs, "gbs", -1, 0),
    FP_OPTD(fp_report_sol_hbm_trace, pct_of_peak, "pct_of_peak", -1, 0),
    FP_NUM(fp_report_sol_hbm_trace, load_bytes_traced, "load_bytes_traced", -1, 0),
    FP_NUM(fp_report_sol_hbm_trace, store_bytes_traced, "store_bytes_traced", -1, 0),
    /* issue 23 item 4 (facts-stall); optional: reports written before still read */
    FP_OPTD(fp_report_sol_hbm_trace, unique_bytes_per_dispatch, "unique_bytes_per_dispatch", -1, FP_F_OPTIONAL),
    FP_OPTD(fp_report_sol_hbm_trace, unique_gbs, "unique_gbs", -1, FP_F_OPTIONAL),
    FP_OPTD(fp_report_sol_hbm_trace, unique_pct_of_peak, "unique_pct_of_peak", -1, FP_F_OPTIONAL),
    FP_NUM(fp_report_sol_hbm_trace, shared_load_bytes_traced, "shared_load_bytes_traced", -1, FP_F_OPTIONAL),
    FP_NUM(fp_report_sol_hbm_trace, shared_load_instructions, "shared_load_instructions", -1, FP_F_OPTIONAL),
};
static const fp_schema hbm_trace_schema = {"report.sol.hbm.trace", sizeof(fp_report_sol_hbm_trace),
                                           FP_FIELDS(hbm_trace_fields), false};

static const fp_field hbm_counters_fields[] = {
    FP_OPTD(fp_report_sol_hbm_counters, gbs, "gbs", -1, 0),
    FP_OPTD(fp_report_sol_hbm_counters, pct_of_peak, "pct_of_peak", -1, 0),
};
static const fp_schema hbm_counters_schema = {"report.sol.hbm.counters", sizeof(fp_report_sol_hbm_counters),
                                              FP_FIELDS(hbm_counters_fields), false};

static const fp_field hbm_fields[] = {
    FP_OPTD(fp_report_sol_hbm, bytes_per_dispatch, "bytes_per_dispatch", -1, 0),
    FP_OPTD(fp_report_sol_hbm, gbs, "gbs", -1, 0),
    FP_OPTD(fp_report_sol_hbm, pct_of_peak, "pct_of_peak", -1, 0),
    FP_STR(fp_report_sol_hbm, source, "source", 0),
    FP_OPTD(fp_report_sol_hbm, peak_gbs, "peak_gbs", -1, 0),
    /* issue 18 follow-up: a partitioned agent's peak (docs/sol.md) */
    FP_STR(fp_report_sol_hbm, peak_source, "peak_source", FP_F_OPTIONAL | FP_F_OMIT_NULL),
    FP_OBJ(fp_report_sol_hbm, trace, "trace", &hbm_trace_schema, 0),
    FP_OBJ(fp_report_sol_hbm, counters, "counters", &hbm_counters_schema, 0),
    FP_STR(fp_report_sol_hbm, caveat, "caveat", 0),
    FP_BOOL(fp_report_sol_hbm, clamped, "clamped", FP_F_OPTIONAL), /* issue 23 (facts-stall) */
};
static const fp_schema hbm_schema = {"report.sol.hbm", sizeof(fp_report_sol_hbm), FP_FIELDS(hbm_fields), false};

static const fp_field mfma_fields[] = {
    FP_OPTD(fp_report_sol_mfma, busy_pct, "busy_pct", -1, 0),
    FP_STR(fp_report_sol_mfma, source, "source", 0),
    FP_OPTD(fp_report_sol_mfma, trace_busy_pct, "trace_busy_pct", -1, 0),
    FP_OPTD(fp_report_sol_mfma, counters_util_pct, "counters_util_pct", -1, 0),
    FP_NUM(fp_report_sol_mfma, flop_traced, "flop_traced", -1, 0),
    FP_NUM(fp_report_sol_mfma, unknown_opcode_executions, "unknown_opcode_executions", -1, 0),
    /* issue 23 item 3 (facts-stall); optional: reports written before them still read */
    FP_NUM(fp_report_sol_mfma, cycles_traced, "cycles_traced", -1, FP_F_OPTIONAL),
    FP_NUM(fp_report_sol_mfma, rate_model_executions, "rate_model_executions", -1, FP_F_OPTIONAL),
};
static const fp_schema mfma_schema = {"report.sol.mfma", sizeof(fp_report_sol_mfma), FP_FIELDS(mfma_fields), false};

static const fp_field valu_fields[] = {
    FP_OPTD(fp_report_sol_valu, busy_pct, "busy_pct", -1, 0),
    FP_STR(fp_report_sol_valu, source, "source", 0),
    FP_OPTD(fp_report_sol_valu, trace_busy_pct, "trace_busy_pct", -1, 0),
    FP_OPTD(fp_report_sol_valu, counters_util_pct, "counters_util_pct", -1, 0),
    /* issue 23 item 3 (facts-stall) */
    FP_NUM(fp_report_sol_valu, cycles_traced, "cycles_traced", -1, FP_F_OPTIONAL),
    FP_NUM(fp_report_sol_valu, slow_executions, "slow_executions", -1, FP_F_OPTIONAL),
};
static const fp_schema valu_schema = {"report.sol.valu", sizeof(fp_report_sol_valu), FP_FIELDS(valu_fields), false};

static const fp_field lds_fields[] = {
    FP_NUM(fp_report_sol_lds, bytes, "bytes", -1, 0),
    FP_OPTD(fp_report_sol_lds, pct_of_peak, "pct_of_peak", -1, 0),
};
static const fp_schema lds_schema = {"report.sol.lds", sizeof(fp_report_sol_lds), FP_FIELDS(lds_fields), false};

static const fp_field sol_fields[] = {
    FP_OBJ(fp_report_sol, hbm, "hbm", &hbm_schema, 0),
    FP_OBJ(fp_report_sol, mfma, "mfma", &mfma_schema, 0),
    FP_OBJ(fp_report_sol, valu, "valu", &valu_schema, 0),
    FP_OBJ(fp_report_sol, lds, "lds", &lds_schema, 0),
};
static const fp_schema sol_schema = {"report.sol", sizeof(fp_report_sol), FP_FIELDS(sol_fields), false};

static const fp_field drain_fields[] = {
    FP_OPTD(fp_report_drain, cycles, "cycles", 0, 0),
    FP_OPTD(fp_report_drain, pct_of_latency, "pct_of_latency", 2, 0),
    FP_NUM(fp_report_drain, stall, "stall", 0, 0),
    /* issue 23 item 2 (facts-stall); optional: reports written before still read */
    FP_NUM(fp_report_drain, wait, "wait", 0, FP_F_OPTIONAL),
    FP_NUM(fp_report_drain, exposed, "exposed", 0, FP_F_OPTIONAL),
    FP_NUM(fp_report_drain, hidden, "hidden", 0, FP_F_OPTIONAL),
    FP_NUM(fp_report_drain, lost, "lost", 0, FP_F_OPTIONAL),
};
static const fp_schema drain_schema = {"report.drain", sizeof(fp_report_drain), FP_FIELDS(drain_fields), false};

static const fp_field totals_fields[] = {
    FP_I64(fp_report_totals, instructions, "instructions", 0),
    FP_I64(fp_report_totals, latency, "latency", 0),
    FP_I64(fp_report_totals, stall, "stall", 0),
    FP_NUM(fp_report_totals, stall_pct, "stall_pct", 2, 0),
    FP_OPTD(fp_report_totals, waves, "waves", 0, 0),
    FP_NUM(fp_report_totals, exposed, "exposed", 0, 0),
    FP_NUM(fp_report_totals, exposed_pct, "exposed_pct", 2, 0),
    FP_STR(fp_report_totals, hidden_by, "hidden_by", FP_F_OPTIONAL), /* issue 23 (facts-stall) */
};
static const fp_schema totals_schema = {"report.totals", sizeof(fp_report_totals), FP_FIELDS(totals_fields), false};

static const fp_field class_fields[] = {
    FP_STR(fp_report_class, cls, "class", 0),
    FP_INT(fp_report_class, rank, "rank", 0),
    FP_I64(fp_report_class, cycles, "cycles", 0),
    FP_NUM(fp_report_class, pct, "pct", 2, 0),
    FP_BOOL(fp_report_class, is_bubble, "is_bubble", 0),
    FP_OPTD(fp_report_class, exposed, "exposed", 0, 0),
    FP_OPTD(fp_report_class, gain_upper_pct, "gain_upper_pct", 2, 0),
    FP_OPTD(fp_report_class, mix, "mix", 4, 0),
};
static const fp_schema class_schema = {"report.classes", sizeof(fp_report_class), FP_FIELDS(class_fields), false};

static const fp_field occupancy_fields[] = {
    FP_OPTD(fp_report_occupancy, waves_per_cu, "waves_per_cu", 0, 0),
    FP_OPTD(fp_report_occupancy, waves_per_simd, "waves_per_simd", 0, 0),
    FP_STR(fp_report_occupancy, limiter, "limiter", 0),
    FP_OPTD(fp_report_occupancy, next_waves_per_cu, "next_waves_per_cu", 0, 0),
    FP_OPTD(fp_report_occupancy, vgprs_to_free, "vgprs_to_free", 0, 0),
    FP_OPTD(fp_report_occupancy, arch_vgpr, "arch_vgpr", 0, 0),
    FP_OPTD(fp_report_occupancy, accum_vgpr, "accum_vgpr", 0, 0),
    FP_OPTD(fp_report_occupancy, lds_bytes, "lds_bytes", 0, 0),
    FP_OPTD(fp_report_occupancy, sgpr, "sgpr", 0, 0),
    FP_OPTD(fp_report_occupancy, wg_size, "wg_size", 0, 0),
    FP_OPTD(fp_report_occupancy, scratch_bytes, "scratch_bytes", 0, 0),
    FP_STR(fp_report_occupancy, source, "source", 0),
    FP_STR(fp_report_occupancy, model, "model", 0),
};
static const fp_schema occupancy_schema = {"report.occupancy", sizeof(fp_report_occupancy),
                                           FP_FIELDS(occupancy_fields), false};

static const fp_field counters_fields[] = {
    FP_OPTD(fp_report_counters, l2_hit_pct, "l2_hit_pct", 2, 0),
    FP_OPTD(fp_report_counters, partial_32b_frac, "partial_32b_frac", 4, 0),
    FP_OPTD(fp_report_counters, lds_bank_conflict_pct, "lds_bank_conflict_pct", 2, 0),
    FP_OPTD(fp_report_counters, mfma_util, "mfma_util", 4, 0),
    FP_OPTD(fp_report_counters, achieved_hbm_gbs, "achieved_hbm_gbs", 1, 0),
    FP_OPTD(fp_report_counters, peak_hbm_gbs, "peak_hbm_gbs", 1, 0),
    FP_OPTD(fp_report_counters, pct_of_hbm_roof, "pct_of_hbm_roof", 2, 0),
};
const fp_schema fp_report_counters_schema = {"report.counters", sizeof(fp_report_counters),
                                             FP_FIELDS(counters_fields), false};

static const fp_field workload_fields[] = {
    FP_STR(fp_report_workload, shape, "shape", 0),
    FP_STR(fp_report_workload, invocation, "invocation", 0),
    FP_STR(fp_report_workload, tile, "tile", 0),
    FP_OPTD(fp_report_workload, time_ns_per_call, "time_ns_per_call", 1, 0),
};
static const fp_schema workload_schema = {"report.workload", sizeof(fp_report_workload), FP_FIELDS(workload_fields),
                                          false};

static const fp_field producer_fields[] = {
    FP_I64(fp_report_producer, code_line, "code_line", 0),
    FP_STR(fp_report_producer, inst, "inst", 0),
    FP_STR(fp_report_producer, source, "source", 0),
    FP_STR(fp_report_producer, cls, "class", 0),
    FP_OPTD(fp_report_producer, load_to_use_cycles, "load_to_use_cycles", 1, 0),
    FP_OPTD(fp_report_producer, share, "share", 3, OMIT),
};
static const fp_schema producer_schema = {"report.recommendations.evidence.hottest.waits_on",
                                          sizeof(fp_report_producer), FP_FIELDS(producer_fields), false};

static const fp_field hottest_fields[] = {
    FP_I64(fp_report_hottest, code_line, "code_line", 0),
    FP_STR(fp_report_hottest, inst, "inst", 0),
    FP_STR(fp_report_hottest, source, "source", 0),
    FP_STR(fp_report_hottest, snippet, "snippet", 0),
    FP_I64(fp_report_hottest, hit, "hit", 0),
    FP_I64(fp_report_hottest, stall, "stall", 0),
    FP_BOOL(fp_report_hottest, entry_line, "entry_line", 0),
    FP_OPTD(fp_report_hottest, exposed, "exposed", 0, 0),
    FP_STR(fp_report_hottest, explicit_line, "explicit_line", OMIT),
    FP_ARR(fp_report_hottest, waits_on, nwaits_on, "waits_on", &producer_schema, 0),
};
static const fp_schema hottest_schema = {"report.recommendations.evidence.hottest", sizeof(fp_report_hottest),
                                         FP_FIELDS(hottest_fields), false};

static const fp_field ev_launch_fields[] = {
    FP_NUM(fp_report_ev_launch, workgroups, "workgroups", 0, 0),
    FP_NUM(fp_report_ev_launch, cus, "cus", 0, 0),
    FP_NUM(fp_report_ev_launch, fill_pct, "fill_pct", 2, 0),
    FP_NUM(fp_report_ev_launch, wg_waves, "wg_waves", 0, 0),
    FP_OPTD(fp_report_ev_launch, simd_fill_pct, "simd_fill_pct", 2, OMIT),
    FP_OPTD(fp_report_ev_launch, rounds, "rounds", 0, OMIT),
    FP_OPTD(fp_report_ev_launch, slots, "slots", 0, OMIT),
    FP_OPTD(fp_report_ev_launch, tail_efficiency_pct, "tail_efficiency_pct", 2, OMIT),
};
static const fp_schema ev_launch_schema = {"report.recommendations.evidence.launch", sizeof(fp_report_ev_launch),
                                           FP_FIELDS(ev_launch_fields), false};

static const fp_field ev_roof_fields[] = {
    FP_NUM(fp_report_ev_roof, hbm_pct_of_peak, "hbm_pct_of_peak", 2, 0),
    FP_STR(fp_report_ev_roof, source, "source", 0),
    FP_NUM(fp_report_ev_roof, gain_cap_pct, "gain_cap_pct", 2, 0),
};
static const fp_schema ev_roof_schema = {"report.recommendations.evidence.roof", sizeof(fp_report_ev_roof),
                                         FP_FIELDS(ev_roof_fields), false};

static const fp_field ev_occupancy_fields[] = {
    FP_OPTD(fp_report_ev_occupancy, waves_per_cu, "waves_per_cu", 2, OMIT),
    FP_OPTD(fp_report_ev_occupancy, next_waves_per_cu, "next_waves_per_cu", 2, OMIT),
    FP_OPTD(fp_report_ev_occupancy, vgprs_to_free, "vgprs_to_free", 0, OMIT),
    FP_OPTD(fp_report_ev_occupancy, arch_vgpr, "arch_vgpr", 0, OMIT),
    FP_OPTD(fp_report_ev_occupancy, accum_vgpr, "accum_vgpr", 0, OMIT),
    FP_STR(fp_report_ev_occupancy, limiter, "limiter", 0),
};
static const fp_schema ev_occupancy_schema = {"report.recommendations.evidence.occupancy",
                                              sizeof(fp_report_ev_occupancy), FP_FIELDS(ev_occupancy_fields), false};

static const fp_field ev_imbalance_fields[] = {
    FP_NUM(fp_report_ev_imbalance, excess_pct, "excess_pct", 2, 0),
    FP_NUM(fp_report_ev_imbalance, critical_cycles, "critical_cycles", 0, 0),
    FP_NUM(fp_report_ev_imbalance, mean_cycles, "mean_cycles", 0, 0),
    FP_NUM(fp_report_ev_imbalance, median_cycles, "median_cycles", 0, 0),
    FP_NUM(fp_report_ev_imbalance, p90_cycles, "p90_cycles", 0, 0),
    FP_I64(fp_report_ev_imbalance, se, "se", 0),
    FP_I64(fp_report_ev_imbalance, cu, "cu", 0),
    FP_I64(fp_report_ev_imbalance, waves, "waves", 0),
    FP_NUM(fp_report_ev_imbalance, longest_wave_cycles, "longest_wave_cycles", 0, 0),
    FP_I64(fp_report_ev_imbalance, heavy_waves, "heavy_waves", 0),
    FP_I64(fp_report_ev_imbalance, heavy_cus, "heavy_cus", 0),
    FP_STR(fp_report_ev_imbalance, unit, "unit", 0),
};
static const fp_schema ev_imbalance_schema = {"report.recommendations.evidence.imbalance",
                                              sizeof(fp_report_ev_imbalance), FP_FIELDS(ev_imbalance_fields), false};

static const fp_field rec_evidence_fields[] = {
    FP_STR(fp_report_rec_evidence, signal, "signal", 0),
    FP_NUM(fp_report_rec_evidence, value, "value", 4, 0),
    FP_STR(fp_report_rec_evidence, fired_because, "fired_because", 0),
    FP_NUM(fp_report_rec_evidence, class_stall_pct, "class_stall_pct", 2, 0),
    FP_OPTD(fp_report_rec_evidence, exposed_stall, "exposed_stall", 0, 0),
    FP_OPTD(fp_report_rec_evidence, class_gain_pct, "class_gain_pct", 2, 0),
    FP_OBJP(fp_report_rec_evidence, launch, "launch", &ev_launch_schema, OMIT),
    FP_OBJP(fp_report_rec_evidence, roof, "roof", &ev_roof_schema, OMIT),
    FP_OBJP(fp_report_rec_evidence, occupancy, "occupancy", &ev_occupancy_schema, OMIT),
    FP_OBJP(fp_report_rec_evidence, imbalance, "imbalance", &ev_imbalance_schema, OMIT),
    FP_STR(fp_report_rec_evidence, selection, "selection", OMIT),
    FP_OBJP(fp_report_rec_evidence, hottest, "hottest", &hottest_schema, 0),
};
static const fp_schema rec_evidence_schema = {"report.recommendations.evidence", sizeof(fp_report_rec_evidence),
                                              FP_FIELDS(rec_evidence_fields), false};

static const fp_field acceptance_fields[] = {
    FP_STR(fp_report_acceptance, kind, "kind", 0),
    FP_STR(fp_report_acceptance, cls, "class", OMIT),
    FP_STR(fp_report_acceptance, metric, "metric", OMIT),
    FP_STR(fp_report_acceptance, source, "source", OMIT),
    FP_STR(fp_report_acceptance, inst, "inst", OMIT),
    FP_STR(fp_report_acceptance, signal, "signal", OMIT),
    FP_NUM(fp_report_acceptance, before, "before", -1, 0), /* rounded by the producer: 0 or 4 decimals by kind */
    FP_OPTD(fp_report_acceptance, drop_pct, "drop_pct", 1, OMIT),
    FP_NUM(fp_report_acceptance, target, "target", -1, 0), /* as before */
    FP_STR(fp_report_acceptance, text, "text", 0),
};
static const fp_schema acceptance_schema = {"report.recommendations.acceptance", sizeof(fp_report_acceptance),
                                            FP_FIELDS(acceptance_fields), false};

static const fp_field rec_fields[] = {
    FP_INT(fp_report_rec, rank, "rank", 0),
    FP_STR(fp_report_rec, rule, "rule", 0),
    FP_STR(fp_report_rec, bubble_class, "bubble_class", 0),
    FP_OPTD(fp_report_rec, est_gain_pct, "est_gain_pct", 2, 0),
    FP_NUM(fp_report_rec, confidence, "confidence", 2, 0),
    FP_STR(fp_report_rec, confidence_label, "confidence_label", 0),
    FP_NUM(fp_report_rec, priority, "priority", 2, 0),
    FP_STR(fp_report_rec, priority_label, "priority_label", OMIT),
    FP_STR(fp_report_rec, gain_model, "gain_model", OMIT),
    FP_STR(fp_report_rec, knob, "knob", 0),
    FP_STR(fp_report_rec, api, "api", 0),
    FP_STR(fp_report_rec, change, "change", 0),
    FP_STR(fp_report_rec, expected, "expected", 0),
    FP_OBJ(fp_report_rec, evidence, "evidence", &rec_evidence_schema, 0),
    FP_OBJ(fp_report_rec, acceptance, "acceptance", &acceptance_schema, 0),
};
const fp_schema fp_report_rec_schema = {"report.recommendations", sizeof(fp_report_rec), FP_FIELDS(rec_fields), false};

static const fp_field hot_line_fields[] = {
    FP_STR(fp_report_hot_line, source, "source", 0),
    FP_NUM(fp_report_hot_line, stall, "stall", 0, 0),
    FP_NUM(fp_report_hot_line, pct, "pct", 2, 0),
    FP_NUM(fp_report_hot_line, exposed, "exposed", 0, 0),
    FP_NUM(fp_report_hot_line, gain_upper_pct, "gain_upper_pct", 2, 0),
    FP_STR(fp_report_hot_line, dom_class, "dom_class", 0),
    FP_STR(fp_report_hot_line, text, "text", 0),
    FP_BOOL(fp_report_hot_line, entry_line, "entry_line", 0),
};
static const fp_schema hot_line_schema = {"report.hot_lines", sizeof(fp_report_hot_line), FP_FIELDS(hot_line_fields),
                                          false};

static const fp_field hs_producer_fields[] = {
    FP_NUM(fp_report_hs_producer, code_line, "code_line", 0, 0),
    FP_STR(fp_report_hs_producer, inst, "inst", 0),
    FP_STR(fp_report_hs_producer, source, "source", 0),
    FP_OPTD(fp_report_hs_producer, load_to_use_cycles, "load_to_use_cycles", 1, 0),
};
static const fp_schema hs_producer_schema = {"report.evidence_hotspots.waits_on", sizeof(fp_report_hs_producer),
                                             FP_FIELDS(hs_producer_fields), false};

static const fp_field hotspot_fields[] = {
    FP_NUM(fp_report_hotspot, code_line, "code_line", 0, 0),
    FP_STR(fp_report_hotspot, addr, "addr", 0),
    FP_STR(fp_report_hotspot, inst, "inst", 0),
    FP_STR(fp_report_hotspot, cls, "class", 0),
    FP_STR(fp_report_hotspot, source, "source", 0),
    FP_NUM(fp_report_hotspot, stall, "stall", 0, 0),
    FP_NUM(fp_report_hotspot, exposed, "exposed", 0, 0),
    FP_NUM(fp_report_hotspot, gain_upper_pct, "gain_upper_pct", 2, 0),
    FP_ARR(fp_report_hotspot, waits_on, nwaits_on, "waits_on", &hs_producer_schema, 0),
};
static const fp_schema hotspot_schema = {"report.evidence_hotspots", sizeof(fp_report_hotspot),
                                         FP_FIELDS(hotspot_fields), false};

static const fp_field missing_fields[] = {
    FP_STR(fp_report_missing, artifact, "artifact", 0),
    FP_STR(fp_report_missing, effect, "effect", 0),
};
static const fp_schema missing_schema = {"report.evidence.missing", sizeof(fp_report_missing),
                                         FP_FIELDS(missing_fields), false};

static const fp_field evidence_fields[] = {
    FP_STRS(fp_report_evidence, available, navailable, "available", 0),
    FP_ARR(fp_report_evidence, missing, nmissing, "missing", &missing_schema, 0),
};
const fp_schema fp_report_evidence_schema = {"report.evidence", sizeof(fp_report_evidence), FP_FIELDS(evidence_fields),
                                          false};

static const fp_field debug_info_fields[] = {
    FP_BOOL(fp_report_debug_info, fired, "fired", 0),
    FP_STR(fp_report_debug_info, line, "line", 0),
    FP_NUM(fp_report_debug_info, instructions_pct, "instructions_pct", 1, 0),
    FP_NUM(fp_report_debug_info, stall_pct, "stall_pct", 1, 0),
    FP_NUM(fp_report_debug_info, threshold_pct, "threshold_pct", 1, 0),
    FP_STR(fp_report_debug_info, fix, "fix", OMIT),
};
static const fp_schema debug_info_schema = {"report.capture_quality.debug_info", sizeof(fp_report_debug_info),
                                            FP_FIELDS(debug_info_fields), false};

static const fp_field quality_fields[] = {
    FP_STR(fp_report_quality, confidence, "confidence", 0),
    FP_NUM(fp_report_quality, confidence_multiplier, "confidence_multiplier", 2, 0),
    FP_OPTD(fp_report_quality, src_mapped_pct, "src_mapped_pct", 1, 0),
    FP_STRS(fp_report_quality, reasons, nreasons, "reasons", 0),
    FP_BOOL(fp_report_quality, representative, "representative", 0),
    FP_OPTD(fp_report_quality, coverage_pct, "coverage_pct", 2, 0),
    FP_I64(fp_report_quality, static_instructions, "static_instructions", 0),
    FP_I64(fp_report_quality, executed_instructions, "executed_instructions", 0),
    FP_BOOL(fp_report_quality, has_loop, "has_loop", 0),
    FP_OPTB(fp_report_quality, loop_executed, "loop_executed", 0),
    FP_OPTD(fp_report_quality, traced_waves, "traced_waves", 0, 0),
    FP_OPTD(fp_report_quality, launched_waves, "launched_waves", 0, 0),
    FP_OPTD(fp_report_quality, traced_pct_of_launched, "traced_pct_of_launched", 3, 0),
    FP_STRS(fp_report_quality, representative_reasons, nrepresentative_reasons, "representative_reasons", 0),
    FP_STR(fp_report_quality, recapture, "recapture", OMIT),
    FP_ARR(fp_report_quality, loops, nloops, "loops", &fp_rq_loop_schema, FP_F_OPTIONAL), /* issue 23 */
    FP_OBJP(fp_report_quality, debug_info, "debug_info", &debug_info_schema, OMIT),
};
static const fp_schema quality_schema = {"report.capture_quality", sizeof(fp_report_quality),
                                         FP_FIELDS(quality_fields), false};

static const fp_field line_fields[] = {
    FP_STR(fp_report_line, source, "source", 0),
    FP_NUM(fp_report_line, stall, "stall", 0, 0),
    FP_NUM(fp_report_line, exposed, "exposed", 0, 0),
    FP_NUM(fp_report_line, pct, "pct", 2, 0),
    FP_STR(fp_report_line, dom_class, "dom_class", 0),
};
static const fp_schema line_schema = {"report.lines", sizeof(fp_report_line), FP_FIELDS(line_fields), false};

static const fp_field inst_fields[] = {
    FP_I64(fp_report_inst, code_line, "code_line", 0),
    FP_STR(fp_report_inst, inst, "inst", 0),
    FP_STR(fp_report_inst, cls, "class", 0),
    FP_STR(fp_report_inst, source, "source", 0),
    FP_I64(fp_report_inst, hit, "hit", 0),
    FP_I64(fp_report_inst, stall, "stall", 0),
    FP_NUM(fp_report_inst, exposed, "exposed", 0, 0),
};
static const fp_schema inst_schema = {"report.instructions", sizeof(fp_report_inst), FP_FIELDS(inst_fields), false};

/* ---- diff's inputs: "isa" and "work" (issue 17 item 6; report_doc.h) ---- */

#define OPT FP_F_OPTIONAL

static const fp_field isa_fields[] = {
    FP_STR(fp_report_isa, sha256, "sha256", 0),
    FP_STR(fp_report_isa, opcodes_sha256, "opcodes_sha256", 0),
    FP_I64(fp_report_isa, instructions, "instructions", 0),
    FP_NUMS(fp_report_isa, block_starts, nblock_starts, "block_starts", 0, 0),
};
static const fp_schema isa_schema = {"report.isa", sizeof(fp_report_isa), FP_FIELDS(isa_fields), false};

static const fp_field stat_fields[] = {
    FP_I64(fp_report_stat, n, "n", 0),
    FP_NUM(fp_report_stat, mean, "mean", 2, 0),
    FP_NUM(fp_report_stat, sd, "sd", 2, 0),
    FP_NUM(fp_report_stat, min, "min", 2, 0),
    FP_NUM(fp_report_stat, max, "max", 2, 0),
};
static const fp_schema stat_schema = {"report.work.stat", sizeof(fp_report_stat), FP_FIELDS(stat_fields), false};

static const fp_field loop_fields[] = {
    FP_I64(fp_report_loop, head, "head", 0),
    FP_I64(fp_report_loop, back_edge, "back_edge", 0),
    FP_STR(fp_report_loop, source, "source", 0),
    FP_I64(fp_report_loop, iterations, "iterations", 0),
    FP_OBJ(fp_report_loop, iterations_per_wave, "iterations_per_wave", &stat_schema, 0),
    FP_OBJ(fp_report_loop, cycles_per_iteration, "cycles_per_iteration", &stat_schema, 0),
};
static const fp_schema loop_schema = {"report.work.main_loop", sizeof(fp_report_loop), FP_FIELDS(loop_fields), false};

/* a class's share sd, in points (2 decimals) */
static const fp_field share_sd_fields[] = {
    {.key = NULL, .kind = FP_K_NUM, .off = offsetof(fp_model_kv, v), .dec = 2},
};
static const fp_schema share_sd_schema = {"report.work.share_sd", sizeof(fp_model_kv), FP_FIELDS(share_sd_fields),
                                          false};

static const fp_field work_fields[] = {
    FP_STR(fp_report_work, source, "source", 0),
    FP_OBJ(fp_report_work, wave_cycles, "wave_cycles", &stat_schema, 0),
    FP_OBJP(fp_report_work, main_loop, "main_loop", &loop_schema, 0),
    FP_MAP(fp_report_work, share_sd, nshare_sd, "share_sd", &share_sd_schema, 0),
};
static const fp_schema work_schema = {"report.work", sizeof(fp_report_work), FP_FIELDS(work_fields), false};

static const fp_field note_fields[] = {
    FP_STR(fp_report_note, rule, "rule", 0),
    FP_STR(fp_report_note, bubble_class, "bubble_class", 0),
    FP_OPTD(fp_report_note, est_gain_pct, "est_gain_pct", 2, 0),
    FP_NUM(fp_report_note, confidence, "confidence", 2, 0),
    FP_STR(fp_report_note, reason, "reason", 0),
};
static const fp_schema note_schema = {"report.also_seen", sizeof(fp_report_note), FP_FIELDS(note_fields), false};

static const fp_field report_fields[] = {
    FP_INT(fp_report_doc, schema, "schema", 0),
    FP_STR(fp_report_doc, kernel, "kernel", 0),
    FP_STR(fp_report_doc, recipe_kernel, "recipe_kernel", 0),
    FP_STR(fp_report_doc, arch, "arch", 0),
    FP_STR(fp_report_doc, product, "product", 0),
    FP_OBJ(fp_report_doc, dispatch, "dispatch", &dispatch_schema, 0),
    FP_STR(fp_report_doc, bound_type, "bound_type", 0),
    FP_OBJ(fp_report_doc, bound, "bound", &fp_report_bound_schema, 0),
    FP_OBJP(fp_report_doc, launch, "launch", &launch_schema, 0),
    FP_STR(fp_report_doc, launch_reason, "launch_reason", 0),
    FP_OBJP(fp_report_doc, time, "time", &fp_report_time_schema, FP_F_OPTIONAL),   /* issue 23 */
    FP_OBJP(fp_report_doc, workdist, "workdist", &fp_workdist_schema, FP_F_OPTIONAL), /* issue 23 */
    FP_OBJP(fp_report_doc, sol, "sol", &sol_schema, 0),
    FP_OBJ(fp_report_doc, drain, "drain", &drain_schema, 0),
    FP_STRS(fp_report_doc, summary, nsummary, "summary", 0),
    FP_BOOL(fp_report_doc, optimal, "optimal", 0),
    FP_STR(fp_report_doc, headline, "headline", 0),
    FP_OBJ(fp_report_doc, totals, "totals", &totals_schema, 0),
    FP_ARR(fp_report_doc, classes, nclasses, "classes", &class_schema, 0),
    FP_OBJP(fp_report_doc, occupancy, "occupancy", &occupancy_schema, 0),
    FP_OBJP(fp_report_doc, counters, "counters", &fp_report_counters_schema, 0),
    FP_OBJ(fp_report_doc, workload, "workload", &workload_schema, 0),
    FP_OPTDMAP(fp_report_doc, signals, nsignals, "signals", 4, 0),
    FP_ARR(fp_report_doc, recs, nrecs, "recommendations", &fp_report_rec_schema, 0),
    FP_ARR(fp_report_doc, also_seen, nalso_seen, "also_seen", &note_schema, OPT),
    FP_ARR(fp_report_doc, hot_lines, nhot_lines, "hot_lines", &hot_line_schema, 0),
    FP_ARR(fp_report_doc, evidence_hotspots, nevidence_hotspots, "evidence_hotspots", &hotspot_schema, 0),
    FP_OBJ(fp_report_doc, evidence, "evidence", &fp_report_evidence_schema, 0),
    FP_OBJ(fp_report_doc, capture_quality, "capture_quality", &quality_schema, 0),
    FP_STR(fp_report_doc, repro, "repro", 0),
    FP_OBJP(fp_report_doc, isa, "isa", &isa_schema, OPT),
    FP_OBJP(fp_report_doc, work, "work", &work_schema, OPT),
    FP_ARR(fp_report_doc, lines, nlines, "lines", &line_schema, 0),
    FP_ARR(fp_report_doc, instructions, ninstructions, "instructions", &inst_schema, 0),
};
const fp_schema fp_report_schema = {"report", sizeof(fp_report_doc), FP_FIELDS(report_fields), false};

/* ---- headlines.json ---- */

static const fp_field hl_launch_fields[] = {
    FP_OPTD(fp_headlines_launch, fill_pct, "fill_pct", -1, 0),
    FP_OPTB(fp_headlines_launch, underfilled, "underfilled", 0),
};
static const fp_schema hl_launch_schema = {"headlines.launch", sizeof(fp_headlines_launch),
                                           FP_FIELDS(hl_launch_fields), false};

static const fp_field hl_sol_fields[] = {
    FP_OPTD(fp_headlines_sol, hbm_pct_of_peak, "hbm_pct_of_peak", -1, 0),
    FP_OPTD(fp_headlines_sol, mfma_busy_pct, "mfma_busy_pct", -1, 0),
};
static const fp_schema hl_sol_schema = {"headlines.sol", sizeof(fp_headlines_sol), FP_FIELDS(hl_sol_fields), false};

static const fp_field headlines_fields[] = {
    FP_STR(fp_headlines_doc, kernel, "kernel", 0),
    FP_STR(fp_headlines_doc, arch, "arch", 0),
    FP_STR(fp_headlines_doc, product, "product", 0),
    FP_STR(fp_headlines_doc, bound_type, "bound_type", 0),
    FP_STR(fp_headlines_doc, headline, "headline", 0),
    FP_BOOL(fp_headlines_doc, optimal, "optimal", 0),
    FP_STRS(fp_headlines_doc, summary, nsummary, "summary", 0),
    FP_OBJ(fp_headlines_doc, launch, "launch", &hl_launch_schema, 0),
    FP_OBJ(fp_headlines_doc, sol, "sol", &hl_sol_schema, 0),
    FP_BOOL(fp_headlines_doc, representative, "representative", 0),
    FP_OBJP(fp_headlines_doc, top_recommendation, "top_recommendation", &fp_report_rec_schema, 0),
};
const fp_schema fp_headlines_schema = {"headlines", sizeof(fp_headlines_doc), FP_FIELDS(headlines_fields), false};

/* ---- the `report` command's envelope data ---- */

static const fp_field brief_rec_fields[] = {
    FP_INT(fp_report_brief_rec, rank, "rank", 0),
    FP_STR(fp_report_brief_rec, rule, "rule", 0),
    FP_STR(fp_report_brief_rec, bubble_class, "bubble_class", 0),
    FP_OPTD(fp_report_brief_rec, est_gain_pct, "est_gain_pct", 2, 0),
    FP_STR(fp_report_brief_rec, confidence_label, "confidence_label", 0),
    FP_STR(fp_report_brief_rec, knob, "knob", 0),
    FP_STR(fp_report_brief_rec, source, "source", 0),
    FP_STR(fp_report_brief_rec, acceptance, "acceptance", 0),
};
static const fp_schema brief_rec_schema = {"report.data.recommendations", sizeof(fp_report_brief_rec),
                                           FP_FIELDS(brief_rec_fields), false};

static const fp_field artifacts_fields[] = {
    FP_STR(fp_report_artifacts, report_json, "report_json", OMIT),
    FP_STR(fp_report_artifacts, headlines_json, "headlines_json", OMIT),
    FP_STR(fp_report_artifacts, report_md, "report_md", OMIT),
    FP_STR(fp_report_artifacts, report_html, "report_html", OMIT),
};
const fp_schema fp_report_artifacts_schema = {"report.data.artifacts", sizeof(fp_report_artifacts),
                                              FP_FIELDS(artifacts_fields), false};

static const fp_field envelope_fields[] = {
    FP_STR(fp_report_envelope, kernel, "kernel", 0),
    FP_STR(fp_report_envelope, arch, "arch", 0),
    FP_STR(fp_report_envelope, product, "product", 0),
    FP_STR(fp_report_envelope, bound_type, "bound_type", 0),
    FP_STR(fp_report_envelope, headline, "headline", 0),
    FP_BOOL(fp_report_envelope, optimal, "optimal", 0),
    FP_STRS(fp_report_envelope, summary, nsummary, "summary", 0),
    FP_ARR(fp_report_envelope, recs, nrecs, "recommendations", &brief_rec_schema, 0),
    FP_ARR(fp_report_envelope, missing_evidence, nmissing_evidence, "missing_evidence", &missing_schema, 0),
    FP_OBJ(fp_report_envelope, artifacts, "artifacts", &fp_report_artifacts_schema, 0),
};
const fp_schema fp_report_envelope_schema = {"report.data", sizeof(fp_report_envelope), FP_FIELDS(envelope_fields),
                                             false};

/* ---- entry points ---- */

int fp_report_read_file(const char *path, fp_report_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_report_schema, path, doc, err);
}

int fp_report_write_file(const fp_report_doc *doc, const char *path, fp_err *err)
{
    return fp_model_write_file(&fp_report_schema, doc, path, err);
}

void fp_report_doc_free(fp_report_doc *doc) { fp_model_free(&fp_report_schema, doc); }

int fp_headlines_write_file(const fp_headlines_doc *doc, const char *path, fp_err *err)
{
    return fp_model_write_file(&fp_headlines_schema, doc, path, err);
}

void fp_headlines_doc_free(fp_headlines_doc *doc) { fp_model_free(&fp_headlines_schema, doc); }

bool fp_report_signal(const fp_report_doc *doc, const char *name, double *v)
{
    for (size_t i = 0; name && i < doc->nsignals; i++)
        if (doc->signals[i].key && !strcmp(doc->signals[i].key, name)) {
            if (!doc->signals[i].v.known)
                return false;
            *v = doc->signals[i].v.v;
            return true;
        }
    return false;
}

void fp_report_counters_each(const fp_report_counters *c, void (*fn)(const char *key, fp_optd v, void *user),
                             void *user)
{
    for (size_t i = 0; i < fp_report_counters_schema.nfields; i++) {
        const fp_field *f = &fp_report_counters_schema.fields[i];
        fn(f->key, *(const fp_optd *)(const void *)((const char *)c + f->off), user);
    }
}
