/*
 * capture_doc.c - the table of capture.json (capture_doc.h): the only place its
 * keys are spelled. Every field is optional on read (O): a capture.json is written
 * wherever the capture stopped, and hand-written bundles hold a subset; the writer
 * writes each reached stage whole (FP_K_INLINE groups), in the order capture always
 * wrote them.
 */
#include "flyprof/capture_doc.h"

#include <stdlib.h>
#include <string.h>

#define O FP_F_OPTIONAL
#define ON (FP_F_OPTIONAL | FP_F_OMIT_NULL)
#define SCHEMA(name, T, f) {name, sizeof(T), FP_FIELDS(f), false}

static const fp_field rocprof_f[] = {
    FP_STR(fp_cap_rocprof, path, "path", O),
    FP_STR(fp_cap_rocprof, version, "version", O),
    FP_STR(fp_cap_rocprof, rocm_version, "rocm_version", O),
    FP_STR(fp_cap_rocprof, default_output_format, "default_output_format", O),
    FP_STRS(fp_cap_rocprof, env_dropped, nenv_dropped, "env_dropped", ON),
};
static const fp_schema rocprof_s = SCHEMA("capture.rocprofv3", fp_cap_rocprof, rocprof_f);

static const fp_field wt_counts_f[] = {
    FP_I64(fp_cap_wt_counts, modified_files, "modified_files", O),
    FP_I64(fp_cap_wt_counts, untracked_files, "untracked_files", O),
};
static const fp_schema wt_counts_s = SCHEMA("capture.worktree.counts", fp_cap_wt_counts, wt_counts_f);

static const fp_field worktree_f[] = {
    FP_STR(fp_cap_worktree, path, "path", O),
    FP_BOOL(fp_cap_worktree, exists, "exists", O),
    FP_BOOL(fp_cap_worktree, git, "git", O),
    FP_STR(fp_cap_worktree, commit, "commit", O),
    FP_STR(fp_cap_worktree, branch, "branch", O),
    FP_OPTB(fp_cap_worktree, dirty, "dirty", O),
    FP_INLINE(fp_cap_worktree, counts, "git counts", &wt_counts_s),
    FP_STR(fp_cap_worktree, build_tree, "build_tree", O),
    FP_BOOL(fp_cap_worktree, build_tree_exists, "build_tree_exists", O),
    FP_BOOL(fp_cap_worktree, flydsl_pkg, "flydsl_pkg", O),
};
const fp_schema fp_cap_worktree_schema = SCHEMA("capture.worktree", fp_cap_worktree, worktree_f);

static const fp_field setting_f[] = {
    FP_STR(fp_cap_setting, value, "value", O),
    FP_STR(fp_cap_setting, source, "source", O),
};
static const fp_schema setting_s = SCHEMA("capture.config.setting", fp_cap_setting, setting_f);
static const fp_field setting_int_f[] = {
    FP_INT(fp_cap_setting_int, value, "value", O),
    FP_STR(fp_cap_setting_int, source, "source", O),
};
static const fp_schema setting_int_s = SCHEMA("capture.config.gpu", fp_cap_setting_int, setting_int_f);

static const fp_field config_f[] = {
    FP_OBJP(fp_cap_config, worktree, "worktree", &setting_s, O),
    FP_OBJP(fp_cap_config, rocprofv3, "rocprofv3", &setting_s, O),
    FP_OBJP(fp_cap_config, python, "python", &setting_s, O),
    FP_OBJP(fp_cap_config, gpu, "gpu", &setting_int_s, O),
    FP_OBJP(fp_cap_config, arch, "arch", &setting_s, O),
    FP_OBJP(fp_cap_config, recipes, "recipes", &setting_s, O),
    FP_STR(fp_cap_config, config_file, "config_file", O),
};
const fp_schema fp_cap_config_schema = SCHEMA("capture.config", fp_cap_config, config_f);

static const fp_field command_f[] = {
    FP_STR(fp_cap_command, step, "step", O),
    FP_STRS(fp_cap_command, argv, nargv, "argv", O),
    FP_STR(fp_cap_command, command, "command", O),
    FP_STR(fp_cap_command, cwd, "cwd", O),
    FP_OPTD(fp_cap_command, exit_code, "exit_code", 0, O),
    FP_OPTD(fp_cap_command, signal, "signal", 0, ON),
    FP_BOOL(fp_cap_command, timed_out, "timed_out", O),
    FP_BOOL(fp_cap_command, interrupted, "interrupted", O),
    FP_NUM(fp_cap_command, seconds, "seconds", 2, O),
    FP_STR(fp_cap_command, stderr_path, "stderr", O),
};
static const fp_schema command_s = SCHEMA("capture.commands", fp_cap_command, command_f);

static const fp_field recipe_f[] = {
    FP_STR(fp_cap_recipe, name, "name", O),
    FP_STR(fp_cap_recipe, source, "source", O),
    FP_STR(fp_cap_recipe, test_file, "test_file", O),
    FP_STR(fp_cap_recipe, kernel_name_hint, "kernel_name_hint", O),
    FP_STR(fp_cap_recipe, shape_env, "shape_env", O),
};
static const fp_schema recipe_s = SCHEMA("capture.recipe", fp_cap_recipe, recipe_f);

static const fp_field invocation_f[] = {
    FP_STRS(fp_cap_invocation, argv, nargv, "argv", O),
    FP_STRS(fp_cap_invocation, env, nenv, "env", O),
    FP_STR(fp_cap_invocation, cwd, "cwd", O),
    FP_STR(fp_cap_invocation, command, "command", O),
};
static const fp_schema invocation_s = SCHEMA("capture.invocation_detail", fp_cap_invocation, invocation_f);

static const fp_field workload_f[] = {
    FP_OBJP(fp_cap_workload, recipe, "recipe", &recipe_s, O),
    FP_STR(fp_cap_workload, recipe_kernel, "recipe_kernel", O),
    FP_OBJP(fp_cap_workload, invocation_detail, "invocation_detail", &invocation_s, O),
    FP_STR(fp_cap_workload, invocation, "invocation", O),
    FP_STR(fp_cap_workload, shape, "shape", O),
};
static const fp_schema workload_s = SCHEMA("capture.workload", fp_cap_workload, workload_f);

static const fp_field candidate_f[] = {
    FP_I64(fp_cap_candidate, rank, "rank", O),
    FP_STR(fp_cap_candidate, name, "name", O),
    FP_I64(fp_cap_candidate, calls, "calls", O),
    FP_I64(fp_cap_candidate, total_ns, "total_ns", O),
    FP_NUM(fp_cap_candidate, pct, "pct", 2, O),
    FP_NUM(fp_cap_candidate, avg_ns, "avg_ns", 1, O),
    FP_I64(fp_cap_candidate, min_ns, "min_ns", O),
    FP_I64(fp_cap_candidate, max_ns, "max_ns", O),
    FP_BOOL(fp_cap_candidate, library, "library", O),
};
const fp_schema fp_cap_candidate_schema = SCHEMA("capture.discovery.candidates", fp_cap_candidate, candidate_f);

static const fp_field disc_found_f[] = {
    FP_I64(fp_cap_disc_found, dispatches, "dispatches", O),
    FP_I64(fp_cap_disc_found, kernels, "kernels", O),
    FP_ARR(fp_cap_disc_found, candidates, ncandidates, "candidates", &fp_cap_candidate_schema, O),
};
static const fp_schema disc_found_s = SCHEMA("capture.discovery.found", fp_cap_disc_found, disc_found_f);

static const fp_field discovery_f[] = {
    FP_STR(fp_cap_discovery, format, "format", O),
    FP_STR(fp_cap_discovery, dir, "dir", O),
    FP_INT(fp_cap_discovery, exit_code, "exit_code", O),
    FP_INLINE(fp_cap_discovery, found, "found", &disc_found_s),
};
static const fp_schema discovery_s = SCHEMA("capture.discovery", fp_cap_discovery, discovery_f);

static const fp_field gpu_f[] = {
    FP_INT(fp_cap_gpu, index, "index", O),
    FP_STR(fp_cap_gpu, arch, "arch", O),
    FP_STR(fp_cap_gpu, product, "product", O),
    FP_STR(fp_cap_gpu, agent_id, "agent_id", ON),
    FP_OPTD(fp_cap_gpu, cu_count, "cu_count", 0, ON),
    FP_OPTD(fp_cap_gpu, num_xcc, "num_xcc", 0, ON),
    FP_OPTD(fp_cap_gpu, max_engine_clk_mhz, "max_engine_clk_mhz", 0, ON),
    FP_STR(fp_cap_gpu, partition, "partition", ON),
    FP_STR(fp_cap_gpu, memory_partition, "memory_partition", ON), /* round 3: the partition's HBM peak */
    FP_STR(fp_cap_gpu, visible_devices, "visible_devices", ON),
    FP_OPTD(fp_cap_gpu, physical_index, "physical_index", 0, ON),
};
static const fp_schema gpu_s = SCHEMA("capture.gpu", fp_cap_gpu, gpu_f);

static const fp_field kernel_f[] = {
    FP_STR(fp_cap_kernel, kernel, "kernel", O),
    FP_STR(fp_cap_kernel, match_confidence, "match_confidence", O),
    FP_I64(fp_cap_kernel, calls, "calls", O),
    FP_I64(fp_cap_kernel, total_ns, "total_ns", O),
    FP_OPTD(fp_cap_kernel, avg_ns, "avg_ns", 1, O),
    FP_STR(fp_cap_kernel, arch, "arch", O),
    FP_OBJP(fp_cap_kernel, gpu, "gpu", &gpu_s, O),
    FP_STR(fp_cap_kernel, product, "product", O),
};
static const fp_schema kernel_s = SCHEMA("capture.kernel", fp_cap_kernel, kernel_f);

static const fp_field iters_f[] = {
    FP_STR(fp_cap_iters, iter_range, "iter_range", O),
    FP_STR(fp_cap_iters, iter_range_source, "iter_range_source", O),
    FP_STR(fp_cap_iters, kernel_regex, "kernel_regex", O),
};
static const fp_schema iters_s = SCHEMA("capture.iterations", fp_cap_iters, iters_f);

/* ---- tags ---- */

static const fp_field attempt_f[] = {
    FP_STR(fp_cap_attempt, att_buffer_size, "att_buffer_size", O),
    FP_INT(fp_cap_attempt, exit_code, "exit_code", O),
    FP_BOOL(fp_cap_attempt, data_lost, "data_lost", O),
};
static const fp_schema attempt_s = SCHEMA("capture.tags.attempts", fp_cap_attempt, attempt_f);

static const fp_field dispatch_dir_f[] = {
    FP_STR(fp_cap_dispatch_dir, dir, "dir", O),
    FP_I64(fp_cap_dispatch_dir, dispatch, "dispatch", O),
    FP_BOOL(fp_cap_dispatch_dir, empty, "empty", O),
    FP_I64(fp_cap_dispatch_dir, waves, "waves", O),
    FP_I64(fp_cap_dispatch_dir, instructions, "instructions", O),
    FP_I64(fp_cap_dispatch_dir, mapped, "mapped", O),
    FP_NUM(fp_cap_dispatch_dir, mapped_pct, "mapped_pct", 1, O),
};
const fp_schema fp_cap_dispatch_dir_schema = SCHEMA("capture.tags.inventory", fp_cap_dispatch_dir, dispatch_dir_f);

static const fp_field kept_f[] = {
    FP_STR(fp_cap_kept, kept_dispatch, "kept_dispatch", O),
    FP_I64(fp_cap_kept, dispatch, "dispatch", O),
    FP_I64(fp_cap_kept, waves, "waves", O),
    FP_I64(fp_cap_kept, instructions, "instructions", O),
    FP_I64(fp_cap_kept, mapped, "mapped", O),
    FP_OPTD(fp_cap_kept, mapped_pct, "mapped_pct", 1, O),
};
static const fp_schema kept_s = SCHEMA("capture.tags.kept", fp_cap_kept, kept_f);

static const fp_field reg_occ_f[] = {
    FP_OPTD(fp_cap_reg_occ, total_vgpr, "total_vgpr", 0, O),
    FP_BOOL(fp_cap_reg_occ, gfx950_undercount_corrected, "gfx950_undercount_corrected", O),
    FP_I64(fp_cap_reg_occ, arch_vgpr, "arch_vgpr", O),
    FP_I64(fp_cap_reg_occ, accum_vgpr, "accum_vgpr", O),
    FP_I64(fp_cap_reg_occ, waves_per_simd, "waves_per_simd", O),
    FP_STR(fp_cap_reg_occ, occupancy_limited_by, "occupancy_limited_by", O),
};
static const fp_schema reg_occ_s = SCHEMA("capture.tags.registers.occupancy", fp_cap_reg_occ, reg_occ_f);

static const fp_field codeobj_f[] = {
    FP_STR(fp_cap_codeobj, path, "path", O),
    FP_STR(fp_cap_codeobj, arch, "arch", O),
    FP_STR(fp_cap_codeobj, target, "target", O),
    FP_STR(fp_cap_codeobj, symbol, "symbol", O),
    FP_OPTD(fp_cap_codeobj, vgpr_count, "vgpr_count", 0, O),
    FP_OPTD(fp_cap_codeobj, agpr_count, "agpr_count", 0, O),
    FP_OPTD(fp_cap_codeobj, sgpr_count, "sgpr_count", 0, O),
    FP_OPTD(fp_cap_codeobj, group_segment_fixed_size, "group_segment_fixed_size", 0, O),
    FP_OPTD(fp_cap_codeobj, private_segment_fixed_size, "private_segment_fixed_size", 0, O),
    FP_OPTD(fp_cap_codeobj, wavefront_size, "wavefront_size", 0, O),
    FP_OPTD(fp_cap_codeobj, kd_vgpr_alloc, "kd_vgpr_alloc", 0, O),
    FP_OPTD(fp_cap_codeobj, kd_accum_offset, "kd_accum_offset", 0, O),
};
static const fp_schema codeobj_s = SCHEMA("capture.tags.registers.code_object", fp_cap_codeobj, codeobj_f);

static const fp_field registers_f[] = {
    FP_STR(fp_cap_registers, source, "source", O),
    FP_OPTD(fp_cap_registers, vgpr_count, "vgpr_count", 0, O),
    FP_OPTD(fp_cap_registers, accum_vgpr_count, "accum_vgpr_count", 0, O),
    FP_OPTD(fp_cap_registers, sgpr_count, "sgpr_count", 0, O),
    FP_OPTD(fp_cap_registers, lds_bytes, "lds_bytes", 0, O),
    FP_OPTD(fp_cap_registers, scratch_bytes, "scratch_bytes", 0, O),
    FP_OPTD(fp_cap_registers, workgroup_size, "workgroup_size", 0, O),
    FP_INLINE(fp_cap_registers, occ, "occupancy", &reg_occ_s),
    FP_OBJP(fp_cap_registers, code_object, "code_object", &codeobj_s, ON),
    FP_STRS(fp_cap_registers, cross_check, ncross_check, "cross_check", ON),
};
static const fp_schema registers_s = SCHEMA("capture.tags.registers", fp_cap_registers, registers_f);

static const fp_field vgpr_f[] = {
    FP_OPTD(fp_cap_vgpr, arch_vgpr, "arch_vgpr", 0, O),
    FP_OPTD(fp_cap_vgpr, accum_vgpr, "accum_vgpr", 0, O),
};
static const fp_schema vgpr_s = SCHEMA("capture.tags.vgpr", fp_cap_vgpr, vgpr_f);

static const fp_field inventoried_f[] = {
    FP_ARR(fp_cap_inventoried, inventory, ninventory, "inventory", &fp_cap_dispatch_dir_schema, O),
    FP_STR(fp_cap_inventoried, reason, "reason", ON),
    FP_INLINE(fp_cap_inventoried, kept, "kept", &kept_s),
    FP_OBJP(fp_cap_inventoried, registers, "registers", &registers_s, ON),
    FP_INLINE(fp_cap_inventoried, vgpr, "vgpr", &vgpr_s),
};
const fp_schema fp_cap_inventoried_schema = SCHEMA("capture.tags.inventoried", fp_cap_inventoried, inventoried_f);

static const fp_field tag_done_f[] = {
    FP_STR(fp_cap_tag_done, att_buffer_size, "att_buffer_size", O),
    FP_BOOL(fp_cap_tag_done, truncated, "truncated", O),
    FP_STR(fp_cap_tag_done, quality, "quality", ON),
    FP_INT(fp_cap_tag_done, exit_code, "exit_code", O),
    FP_STR(fp_cap_tag_done, kernel_trace_csv, "kernel_trace_csv", ON),
    FP_STR(fp_cap_tag_done, agent_info_csv, "agent_info_csv", ON),
    FP_INLINE(fp_cap_tag_done, inventoried, "inventoried", &fp_cap_inventoried_schema),
};
static const fp_schema tag_done_s = SCHEMA("capture.tags.done", fp_cap_tag_done, tag_done_f);

static const fp_field tag_f[] = {
    FP_STR(fp_cap_tag, status, "status", O),
    FP_STR(fp_cap_tag, shape, "shape", O),
    FP_STR(fp_cap_tag, iter_range, "iter_range", O),
    FP_STR(fp_cap_tag, att_dir, "att_dir", O),
    FP_ARR(fp_cap_tag, attempts, nattempts, "attempts", &attempt_s, O),
    FP_INLINE(fp_cap_tag, done, "done", &tag_done_s),
};
static const fp_schema tag_s = SCHEMA("capture.tags.tag", fp_cap_tag, tag_f);

static const fp_field tags_f[] = {
    FP_OBJP(fp_cap_tags, small, "small", &tag_s, ON),
    FP_OBJP(fp_cap_tags, big, "big", &tag_s, ON),
};
static const fp_schema tags_s = SCHEMA("capture.tags", fp_cap_tags, tags_f);

/* ---- pmc, end ---- */

static const fp_field pmc_failed_f[] = {
    FP_STR(fp_cap_pmc_failed, error_code, "error_code", O),
};
static const fp_schema pmc_failed_s = SCHEMA("capture.pmc.failed", fp_cap_pmc_failed, pmc_failed_f);

static const fp_field pmc_f[] = {
    FP_STR(fp_cap_pmc, command, "command", O),
    FP_NUM(fp_cap_pmc, seconds, "seconds", 2, O),
    FP_STR(fp_cap_pmc, counters_json, "counters_json", ON),
    FP_INLINE(fp_cap_pmc, failed, "failed", &pmc_failed_s),
    FP_STR(fp_cap_pmc, status, "status", O),
};
static const fp_schema pmc_s = SCHEMA("capture.pmc", fp_cap_pmc, pmc_f);

static const fp_field error_f[] = {
    FP_STR(fp_cap_error, code, "code", O),
    FP_STR(fp_cap_error, message, "message", O),
};
static const fp_schema error_s = SCHEMA("capture.error", fp_cap_error, error_f);

static const fp_field durations_f[] = {
    FP_NUM(fp_cap_durations, total_s, "total_s", 2, O),
};
static const fp_schema durations_s = SCHEMA("capture.durations", fp_cap_durations, durations_f);

static const fp_field capture_f[] = {
    FP_INT(fp_capture_doc, schema, "schema", O),
    FP_STR(fp_capture_doc, requested_kernel, "requested_kernel", O),
    FP_STR(fp_capture_doc, tag, "tag", O),
    FP_STR(fp_capture_doc, captured_at, "captured_at", O),
    FP_STR(fp_capture_doc, host, "host", O),
    FP_OBJP(fp_capture_doc, rocprofv3, "rocprofv3", &rocprof_s, O),
    FP_OBJP(fp_capture_doc, worktree, "worktree", &fp_cap_worktree_schema, O),
    FP_OBJP(fp_capture_doc, config, "config", &fp_cap_config_schema, O),
    FP_NUM(fp_capture_doc, timeout_s, "timeout_s", 3, O),
    FP_OBJ(fp_capture_doc, tags, "tags", &tags_s, O),
    FP_ARR(fp_capture_doc, commands, ncommands, "commands", &command_s, O),
    FP_INLINE(fp_capture_doc, workload, "workload", &workload_s),
    FP_OBJP(fp_capture_doc, discovery, "discovery", &discovery_s, ON),
    FP_INLINE(fp_capture_doc, kernel, "kernel", &kernel_s),
    FP_INLINE(fp_capture_doc, iters, "iterations", &iters_s),
    FP_OBJP(fp_capture_doc, pmc, "pmc", &pmc_s, ON),
    FP_STR(fp_capture_doc, status, "status", O),
    FP_OBJP(fp_capture_doc, error, "error", &error_s, ON),
    FP_OBJ(fp_capture_doc, durations, "durations", &durations_s, O),
};
const fp_schema fp_capture_schema = SCHEMA("capture", fp_capture_doc, capture_f);

int fp_capture_read_file(const char *path, fp_capture_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_capture_schema, path, doc, err);
}

int fp_capture_write_file(const fp_capture_doc *doc, const char *path, fp_err *err)
{
    return fp_model_write_file(&fp_capture_schema, doc, path, err);
}

void fp_capture_free(fp_capture_doc *doc) { fp_model_free(&fp_capture_schema, doc); }

const fp_cap_tag *fp_capture_tag_named(const fp_capture_doc *doc, const char *name)
{
    if (!name)
        return NULL;
    if (!strcmp(name, "small"))
        return doc->tags.small;
    if (!strcmp(name, "big"))
        return doc->tags.big;
    return NULL;
}

const fp_cap_tag *fp_capture_only_tag(const fp_capture_doc *doc)
{
    if ((doc->tags.small != NULL) == (doc->tags.big != NULL))
        return NULL;
    return doc->tags.small ? doc->tags.small : doc->tags.big;
}

/* ---- the kernel ranking (discovery.h) as fp_cap_candidate rows: here, above rocprof ---- */

void fp_krank_to_doc(const fp_kcands *k, const fp_krank *r, fp_cap_candidate **out, size_t *n)
{
    for (size_t j = 0; j < r->n; j++) {
        const fp_kcand *c = &k->v[r->idx[j]];
        fp_cap_candidate *o = fp_model_push((void **)out, n, sizeof *o);
        o->rank = (int64_t)r->idx[j] + 1;
        o->name = fp_model_strdup(c->name);
        o->calls = c->calls;
        o->total_ns = c->total_ns;
        o->pct = r->total_ns > 0 ? 100.0 * (double)c->total_ns / (double)r->total_ns : 0;
        o->avg_ns = c->avg_ns;
        o->min_ns = c->min_ns;
        o->max_ns = c->max_ns;
        o->library = c->noise;
    }
}

cJSON *fp_krank_json(const fp_kcands *k, const fp_krank *r)
{
    fp_cap_candidate *v = NULL;
    size_t n = 0;
    fp_krank_to_doc(k, r, &v, &n);
    cJSON *a = cJSON_CreateArray();
    for (size_t j = 0; j < n; j++) {
        cJSON_AddItemToArray(a, fp_model_write(&fp_cap_candidate_schema, &v[j]));
        fp_model_free(&fp_cap_candidate_schema, &v[j]);
    }
    free(v);
    return a;
}
