/*
 * trace_facts_doc.c - the tables of bubbles.json's `launch_trace` and `workdist`
 * blocks (trace_facts_doc.h): the only place their keys are spelled.
 */
#include "flyprof/trace_facts_doc.h"

#define T fp_lt_se
static const fp_field lt_se_fields[] = {
    FP_I64(T, se, "se", 0),
    FP_I64(T, waves, "waves", 0),
    FP_I64(T, cus, "cus", 0),
    FP_I64(T, simds, "simds", 0),
    FP_I64(T, t0, "t0", 0),
    FP_I64(T, t1, "t1", 0),
    FP_OPTD(T, clock_mhz, "clock_mhz", 1, 0),
};
#undef T
static const fp_schema lt_se_schema = {"bubbles.launch_trace.per_se", sizeof(fp_lt_se), FP_FIELDS(lt_se_fields), false};

#define T fp_launch_trace
static const fp_field launch_trace_fields[] = {
    FP_I64(T, traced_ses, "traced_ses", 0),
    FP_I64(T, waves, "waves", 0),
    FP_I64(T, cus, "cus", 0),
    FP_I64(T, simds, "simds", 0),
    FP_I64(T, max_cus_per_se, "max_cus_per_se", 0),
    FP_BOOL(T, covers_ses, "covers_ses", 0),
    FP_OPTD(T, wg_waves, "wg_waves", 0, 0),
    FP_I64(T, peak_waves_per_simd, "peak_waves_per_simd", 0),
    FP_I64(T, peak_waves_per_cu, "peak_waves_per_cu", 0),
    FP_I64(T, span_cycles, "span_cycles", 0),
    FP_OPTD(T, span_ns, "span_ns", 1, 0),
    FP_OPTD(T, clock_mhz, "clock_mhz", 1, 0),
    FP_STR(T, clock_source, "clock_source", 0),
    FP_I64(T, wave_files, "wave_files", 0),
    FP_I64(T, wave_files_span_cycles, "wave_files_span_cycles", 0),
    FP_ARR(T, per_se, n_per_se, "per_se", &lt_se_schema, 0),
};
#undef T
const fp_schema fp_launch_trace_schema = {"bubbles.launch_trace", sizeof(fp_launch_trace),
                                          FP_FIELDS(launch_trace_fields), false};

#define T fp_wd_quant
static const fp_field quant_fields[] = {
    FP_I64(T, n, "n", 0),
    FP_NUM(T, min, "min", 1, 0),
    FP_NUM(T, p50, "p50", 1, 0),
    FP_NUM(T, p90, "p90", 1, 0),
    FP_NUM(T, max, "max", 1, 0),
};
#undef T
static const fp_schema quant_schema = {"bubbles.workdist.quantiles", sizeof(fp_wd_quant), FP_FIELDS(quant_fields),
                                       false};

#define T fp_wd_wave_ref
static const fp_field wave_ref_fields[] = {
    FP_I64(T, se, "se", 0),
    FP_I64(T, cu, "cu", 0),
    FP_I64(T, simd, "simd", 0),
    FP_I64(T, slot, "slot", 0),
    FP_I64(T, begin, "begin", 0),
    FP_I64(T, cycles, "cycles", 0),
    FP_STR(T, file, "file", 0),
    FP_OPTD(T, instructions, "instructions", 0, 0),
    FP_OPTD(T, iterations, "iterations", 0, 0),
};
#undef T
static const fp_schema wave_ref_schema = {"bubbles.workdist.wave", sizeof(fp_wd_wave_ref), FP_FIELDS(wave_ref_fields),
                                          false};

#define T fp_wd_cu_ref
static const fp_field cu_ref_fields[] = {
    FP_I64(T, se, "se", 0),
    FP_I64(T, cu, "cu", 0),
    FP_I64(T, busy_cycles, "busy_cycles", 0),
    FP_I64(T, waves, "waves", 0),
};
#undef T
static const fp_schema cu_ref_schema = {"bubbles.workdist.cu", sizeof(fp_wd_cu_ref), FP_FIELDS(cu_ref_fields), false};

#define T fp_workdist
static const fp_field workdist_fields[] = {
    FP_OBJ(T, wave_cycles, "wave_cycles", &quant_schema, 0),
    FP_OBJ(T, cu_cycles, "cu_cycles", &quant_schema, 0),
    FP_OBJ(T, cu_waves, "cu_waves", &quant_schema, 0),
    FP_OPTD(T, wave_imbalance, "wave_imbalance", 2, 0),
    FP_OPTD(T, cu_imbalance, "cu_imbalance", 2, 0),
    /* issue 17 follow-up: the critical CU's busy time, what work_imbalance's gain rests on
     * (optional: a bubbles.json written before it still reads) */
    FP_OBJ(T, cu_busy_cycles, "cu_busy_cycles", &quant_schema, FP_F_OPTIONAL),
    FP_OPTD(T, cu_busy_mean, "cu_busy_mean", 1, FP_F_OPTIONAL),
    FP_OPTD(T, cu_busy_excess_pct, "cu_busy_excess_pct", 2, FP_F_OPTIONAL),
    FP_OBJ(T, critical_cu, "critical_cu", &cu_ref_schema, FP_F_OPTIONAL),
    FP_I64(T, heavy_waves, "heavy_waves", 0),
    FP_I64(T, heavy_cus, "heavy_cus", 0),
    FP_OBJ(T, critical, "critical_wave", &wave_ref_schema, 0),
    FP_OBJ(T, traced_cycles, "traced_cycles", &quant_schema, 0),
    FP_OBJ(T, traced_instructions, "traced_instructions", &quant_schema, 0),
    FP_OBJP(T, traced_iterations, "traced_iterations", &quant_schema, 0),
    FP_OPTD(T, traced_imbalance, "traced_imbalance", 2, 0),
    FP_OBJ(T, critical_traced, "critical_traced_wave", &wave_ref_schema, 0),
};
#undef T
const fp_schema fp_workdist_schema = {"bubbles.workdist", sizeof(fp_workdist), FP_FIELDS(workdist_fields), false};

/* ---- report.json ---- */

#define T fp_rl_trace
static const fp_field rl_trace_fields[] = {
    FP_I64(T, traced_ses, "traced_ses", 0),
    FP_OPTD(T, agent_ses, "agent_ses", 0, 0),
    FP_STR(T, unit, "unit", 0),
    FP_I64(T, traced_units, "traced_units", 0),
    FP_OPTD(T, agent_units, "agent_units", 0, 0),
    FP_I64(T, waves, "waves", 0),
    FP_OPTD(T, waves_agent, "waves_agent", 0, 0),
    FP_OPTD(T, wg_waves, "wg_waves", 0, 0),
    FP_OPTD(T, workgroups, "workgroups", 0, 0),
    FP_OPTD(T, workgroups_min, "workgroups_min", 0, 0),
    FP_OPTD(T, workgroups_max, "workgroups_max", 0, 0),
    FP_OPTD(T, simd_fill_pct, "simd_fill_pct", 2, 0),
    FP_I64(T, peak_waves_per_simd, "peak_waves_per_simd", 0),
    FP_STR(T, text, "text", 0),
};
#undef T
const fp_schema fp_rl_trace_schema = {"report.launch.trace", sizeof(fp_rl_trace), FP_FIELDS(rl_trace_fields), false};

#define T fp_rl_rejected
static const fp_field rl_rej_fields[] = {
    FP_I64(T, grid, "grid", 0),
    FP_I64(T, workgroup, "workgroup", 0),
    FP_I64(T, lds, "lds", 0),
    FP_I64(T, vgpr, "vgpr", 0),
};
#undef T
static const fp_schema rl_rej_schema = {"report.launch.csv.rejected", sizeof(fp_rl_rejected), FP_FIELDS(rl_rej_fields),
                                        false};

#define T fp_rl_csv
static const fp_field rl_csv_fields[] = {
    FP_I64(T, rows_named, "rows_named", 0),
    FP_I64(T, rows_used, "rows_used", 0),
    FP_OBJ(T, rejected, "rejected", &rl_rej_schema, 0),
    FP_OPTD(T, workgroups, "workgroups", 0, 0),
    FP_OPTD(T, wg_waves, "wg_waves", 0, 0),
};
#undef T
const fp_schema fp_rl_csv_schema = {"report.launch.csv", sizeof(fp_rl_csv), FP_FIELDS(rl_csv_fields), false};

#define T fp_rtm_trace
static const fp_field rtm_trace_fields[] = {
    FP_I64(T, span_cycles, "span_cycles", 0),
    FP_OPTD(T, span_ns, "span_ns", 1, 0),
    FP_OPTD(T, clock_mhz, "clock_mhz", 1, 0),
    FP_STR(T, clock_source, "clock_source", 0),
};
#undef T
static const fp_schema rtm_trace_schema = {"report.time.trace", sizeof(fp_rtm_trace), FP_FIELDS(rtm_trace_fields),
                                           false};

#define T fp_rtm_csv
static const fp_field rtm_csv_fields[] = {
    FP_I64(T, rows, "rows", 0),
    FP_I64(T, timed, "timed", 0),
    FP_I64(T, outliers, "outliers", 0),
    FP_OPTD(T, median_ns, "median_ns", 1, 0),
    FP_OPTD(T, min_ns, "min_ns", 1, 0),
    FP_OPTD(T, max_ns, "max_ns", 1, 0),
    FP_OPTD(T, mean_ns, "mean_ns", 1, 0),
    FP_STR(T, rows_sha256, "rows_sha256", 0),
};
#undef T
static const fp_schema rtm_csv_schema = {"report.time.csv", sizeof(fp_rtm_csv), FP_FIELDS(rtm_csv_fields), false};

#define T fp_report_time
static const fp_field report_time_fields[] = {
    FP_STR(T, source, "source", 0),
    FP_OPTD(T, ns, "ns", 1, 0),
    FP_OBJP(T, trace, "trace", &rtm_trace_schema, 0),
    FP_OBJP(T, csv, "csv", &rtm_csv_schema, 0),
    FP_OPTD(T, counters_ns, "counters_ns", 1, 0),
    FP_OPTD(T, capture_ns, "capture_ns", 1, 0),
    FP_STRS(T, warnings, nwarnings, "warnings", 0),
    FP_STR(T, text, "text", 0),
};
#undef T
const fp_schema fp_report_time_schema = {"report.time", sizeof(fp_report_time), FP_FIELDS(report_time_fields), false};

#define T fp_rq_loop
static const fp_field rq_loop_fields[] = {
    FP_I64(T, code_line, "code_line", 0),
    FP_I64(T, head_line, "head_line", 0),
    FP_STR(T, kind, "kind", 0),
    FP_I64(T, body, "body", 0),
    FP_I64(T, taken, "taken", 0),
    FP_BOOL(T, main, "main", 0),
};
#undef T
const fp_schema fp_rq_loop_schema = {"report.capture_quality.loops", sizeof(fp_rq_loop), FP_FIELDS(rq_loop_fields),
                                     false};
