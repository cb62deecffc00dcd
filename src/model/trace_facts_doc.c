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

#define T fp_workdist
static const fp_field workdist_fields[] = {
    FP_OBJ(T, wave_cycles, "wave_cycles", &quant_schema, 0),
    FP_OBJ(T, cu_cycles, "cu_cycles", &quant_schema, 0),
    FP_OBJ(T, cu_waves, "cu_waves", &quant_schema, 0),
    FP_OPTD(T, wave_imbalance, "wave_imbalance", 2, 0),
    FP_OPTD(T, cu_imbalance, "cu_imbalance", 2, 0),
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
