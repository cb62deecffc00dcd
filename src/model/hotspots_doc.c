/*
 * hotspots_doc.c - the table of `flyprof hotspots` data (hotspots_doc.h): the one
 * place its keys are spelled.
 */
#include "flyprof/hotspots_doc.h"

#define T fp_hsd_type
static const fp_field type_fields[] = {
    FP_STR(T, type, "type", 0),
    FP_I64(T, stall, "stall", 0),
    FP_NUM(T, pct, "pct", 4, 0),
};
#undef T
static const fp_schema type_schema = {"hotspots.stall_by_type", sizeof(fp_hsd_type), FP_FIELDS(type_fields), false};

#define T fp_hsd_inst
static const fp_field inst_fields[] = {
    FP_OPTD(T, rank, "rank", -1, FP_F_OMIT_NULL),
    FP_I64(T, pc_index, "pc_index", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, cycles, "cycles", 0),
    FP_NUM(T, pct_total, "pct_total", 4, 0),
    FP_STR(T, type, "type", 0),
    FP_STR(T, asm_text, "asm", 0),
    FP_STR(T, source_loc, "source_loc", 0),
};
#undef T
static const fp_schema inst_schema = {"hotspots.instruction", sizeof(fp_hsd_inst), FP_FIELDS(inst_fields), false};

#define T fp_hsd_snip_line
static const fp_field snip_line_fields[] = {
    FP_I64(T, line, "line", 0),
    FP_STR(T, text, "text", 0),
    FP_BOOL(T, hot, "hot", 0),
};
#undef T
static const fp_schema snip_line_schema = {"hotspots.snippet.line", sizeof(fp_hsd_snip_line),
                                           FP_FIELDS(snip_line_fields), false};

#define T fp_hsd_snippet
static const fp_field snippet_fields[] = {
    FP_STR(T, file, "file", 0),
    FP_I64(T, hot_line, "hot_line", 0),
    FP_ARR(T, lines, nlines, "lines", &snip_line_schema, 0),
};
#undef T
static const fp_schema snippet_schema = {"hotspots.snippet", sizeof(fp_hsd_snippet), FP_FIELDS(snippet_fields), false};

#define T fp_hsd_line
static const fp_field line_fields[] = {
    FP_I64(T, rank, "rank", 0),
    FP_STR(T, source_loc, "source_loc", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, cycles, "cycles", 0),
    FP_NUM(T, pct_total, "pct_total", 4, 0),
    FP_NUM(T, stall_pct, "stall_pct", 4, 0),
    FP_STR(T, dominant_type, "dominant_type", 0),
    FP_I64(T, stalling_total, "stalling_total", 0),
    FP_NUMS(T, stalling_pc_index, nstalling_pc_index, "stalling_pc_index", -1, 0),
    FP_WHEN(T, has_detail, FP_K_ARR, stalling_instructions, nstalling_instructions, "stalling_instructions", 0,
            &inst_schema),
    FP_WHEN(T, has_detail, FP_K_OBJP, snippet, snippet, "snippet", 0, &snippet_schema),
};
#undef T
static const fp_schema line_schema = {"hotspots.source_line", sizeof(fp_hsd_line), FP_FIELDS(line_fields), false};

/* the CSV row's counts keep rocprofv3's column names as keys */
#define T fp_hsd_csv
static const fp_field csv_fields[] = {
    FP_STR(T, path, "path", 0),
    FP_I64(T, line, "line", 0),
    FP_STR(T, kernel_name, "kernel_name", 0),
    FP_I64(T, rows_matched, "rows_matched", 0),
    FP_OPTD(T, vgpr, "VGPR_Count", -1, 0),
    FP_OPTD(T, accum_vgpr, "Accum_VGPR_Count", -1, 0),
    FP_OPTD(T, sgpr, "SGPR_Count", -1, 0),
    FP_OPTD(T, lds, "LDS_Block_Size", -1, 0),
    FP_OPTD(T, workgroup_size, "workgroup_size", -1, 0),
    FP_BOOL(T, gfx950_undercount_corrected, "gfx950_undercount_corrected", 0),
};
#undef T
static const fp_schema csv_schema = {"hotspots.registers.kernel_trace", sizeof(fp_hsd_csv), FP_FIELDS(csv_fields), false};

#define T fp_hsd_valsrc
static const fp_field valsrc_fields[] = {
    FP_I64(T, value, "value", 0),
    FP_STR(T, source, "source", 0),
};
#undef T
static const fp_schema valsrc_schema = {"hotspots.registers.vgpr", sizeof(fp_hsd_valsrc), FP_FIELDS(valsrc_fields), false};

#define T fp_hsd_res
static const fp_field lds_fields[] = {
    FP_I64(T, amount, "bytes_per_workgroup", 0),
    FP_I64(T, per_unit, "per_cu", 0),
    FP_STR(T, source, "source", 0),
};
static const fp_field sgpr_fields[] = {
    FP_I64(T, amount, "count", 0),
    FP_I64(T, per_unit, "per_simd", 0),
    FP_STR(T, source, "source", 0),
};
#undef T
static const fp_schema lds_schema = {"hotspots.registers.lds", sizeof(fp_hsd_res), FP_FIELDS(lds_fields), false};
static const fp_schema sgpr_schema = {"hotspots.registers.sgpr", sizeof(fp_hsd_res), FP_FIELDS(sgpr_fields), false};

#define T fp_hsd_next
static const fp_field next_fields[] = {
    FP_I64(T, waves, "waves", 0),
    FP_I64(T, total_vgpr_at_most, "total_vgpr_at_most", 0),
    FP_BOOL(T, other_limits_bind, "other_limits_bind", 0),
};
#undef T
static const fp_schema next_schema = {"hotspots.registers.next", sizeof(fp_hsd_next), FP_FIELDS(next_fields), false};

/* nested objects without a struct of their own: isa_scan, limits, instruction_mix */
#define T fp_hsd_regs
static const fp_field isa_fields[] = {
    FP_I64(T, isa_max_v, "max_v", 0),
    FP_I64(T, isa_max_a, "max_a", 0),
    FP_I64(T, isa_arch_vgpr, "arch_vgpr", 0),
    FP_I64(T, isa_accum_vgpr, "accum_vgpr", 0),
};
static const fp_field limits_fields[] = {
    FP_I64(T, limit_vgpr, "vgpr", 0),
    FP_OPTD(T, limit_lds, "lds", -1, 0),
    FP_OPTD(T, limit_sgpr, "sgpr", -1, 0),
    FP_I64(T, limit_hardware, "hardware", 0),
};
static const fp_field mix_fields[] = {
    FP_I64(T, mix_mfma, "mfma", 0),
    FP_I64(T, mix_buffer_load, "buffer_load", 0),
    FP_I64(T, mix_buffer_store, "buffer_store", 0),
    FP_I64(T, mix_ds_read, "ds_read", 0),
    FP_I64(T, mix_ds_write, "ds_write", 0),
};
#undef T
static const fp_schema isa_schema = {"hotspots.registers.isa_scan", sizeof(fp_hsd_regs), FP_FIELDS(isa_fields), false};
static const fp_schema limits_schema = {"hotspots.registers.limits", sizeof(fp_hsd_regs), FP_FIELDS(limits_fields), false};
static const fp_schema mix_schema = {"hotspots.registers.instruction_mix", sizeof(fp_hsd_regs), FP_FIELDS(mix_fields),
                                     false};

#define T fp_hsd_regs
static const fp_field regs_fields[] = {
    FP_STR(T, arch, "arch", 0),
    FP_STR(T, family, "family", 0),
    FP_STR(T, arch_source, "arch_source", 0),
    FP_STR(T, arch_detail, "arch_detail", 0),
    FP_STR(T, opcode_heuristic, "opcode_heuristic", 0),
    FP_VIEW("isa_scan", &isa_schema),
    FP_OBJP(T, kernel_trace, "kernel_trace", &csv_schema, 0),
    FP_OBJ(T, arch_vgpr, "arch_vgpr", &valsrc_schema, 0),
    FP_OBJ(T, accum_vgpr, "accum_vgpr", &valsrc_schema, 0),
    FP_I64(T, total_vgpr, "total_vgpr", 0),
    FP_I64(T, vgpr_pool, "vgpr_pool", 0),
    FP_OBJ(T, lds, "lds", &lds_schema, 0),
    FP_OBJ(T, sgpr, "sgpr", &sgpr_schema, 0),
    FP_I64(T, workgroup_size, "workgroup_size", 0),
    FP_I64(T, waves_per_workgroup, "waves_per_workgroup", 0),
    FP_VIEW("limits", &limits_schema),
    FP_I64(T, occupancy, "occupancy", 0),
    FP_STR(T, bound_by, "bound_by", 0),
    FP_OBJP(T, next, "next", &next_schema, 0),
    FP_VIEW("instruction_mix", &mix_schema),
};
#undef T
static const fp_schema regs_schema = {"hotspots.registers", sizeof(fp_hsd_regs), FP_FIELDS(regs_fields), false};

#define T fp_hotspots_doc
static const fp_field doc_fields[] = {
    FP_STR(T, kernel, "kernel", 0),
    FP_I64(T, instructions, "instructions", 0),
    FP_I64(T, total_cycles, "total_cycles", 0),
    FP_I64(T, total_stall, "total_stall", 0),
    FP_OPTD(T, stall_pct, "stall_pct", 4, 0),
    FP_ARR(T, stall_by_type, nstall_by_type, "stall_by_type", &type_schema, 0),
    FP_WHEN(T, has_src, FP_K_ARR, source_lines, nsource_lines, "source_lines", 0, &line_schema),
    FP_WHEN(T, has_src, FP_K_I64, source_lines_total, source_lines_total, "source_lines_total", 0, NULL),
    FP_WHEN(T, has_asm, FP_K_ARR, instructions_ranked, ninstructions_ranked, "instructions_ranked", 0, &inst_schema),
    FP_WHEN(T, has_asm, FP_K_I64, stalling_instructions_total, stalling_instructions_total,
            "stalling_instructions_total", 0, NULL),
    FP_OBJ(T, registers, "registers", &regs_schema, 0),
    FP_STR(T, dispatch_dir, "dispatch_dir", 0),
    FP_STR(T, symbol, "symbol", 0),
};
#undef T
const fp_schema fp_hotspots_doc_schema = {"hotspots", sizeof(fp_hotspots_doc), FP_FIELDS(doc_fields), false};
