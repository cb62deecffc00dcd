/*
 * bubbles_doc.c - the table of bubbles.json (bubbles_doc.h): the ONLY place its
 * keys are spelled, in the file's key order (docs/commands/bubbles.md). The same
 * tables drive the writer (`flyprof bubbles`, `report` and `bundle` write through
 * them) and the strict reader (report's bundle loader).
 *
 * Decimals are those the hand-written writer used: *_pct 2, frac 4, *_mean and
 * stall_share 1, occupancy means 2; integers are written as they are (-1).
 */
#include "flyprof/bubbles_doc.h"

#define T fp_bub_doc_inv
static const fp_field inv_fields[] = {
    FP_STR(T, dir, "dir", 0),
    FP_OPTD(T, dispatch, "dispatch", -1, 0),
    FP_BOOL(T, empty, "empty", 0),
    FP_I64(T, waves, "waves", 0),
};
#undef T
const fp_schema fp_bub_doc_inv_schema = {"bubbles.dispatch.inventory", sizeof(fp_bub_doc_inv), FP_FIELDS(inv_fields),
                                         false};

#define T fp_bub_doc_dispatch
static const fp_field dispatch_fields[] = {
    FP_STR(T, dir, "dir", 0),
    FP_STR(T, name, "name", 0),
    FP_STR(T, symbol, "symbol", 0),
    FP_STR_IF(T, tag, "tag", resolved),
    FP_OPTD_IF(T, dispatch, "dispatch", -1, resolved),
    FP_STR(T, resolved_by, "resolved_by", FP_F_OMIT_NULL),
    FP_ARR(T, inventory, n_inventory, "inventory", &fp_bub_doc_inv_schema, FP_F_OMIT_NULL),
};
#undef T
static const fp_schema dispatch_schema = {"bubbles.dispatch", sizeof(fp_bub_doc_dispatch), FP_FIELDS(dispatch_fields),
                                          false};

#define T fp_bub_doc_totals
static const fp_field totals_fields[] = {
    FP_I64(T, instructions, "instructions", 0),
    FP_I64(T, latency, "latency", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, idle, "idle", 0),
    FP_I64(T, issue, "issue", 0),
    FP_I64(T, hit, "hit", 0),
    FP_NUM(T, stall_pct, "stall_pct", 2, 0),
    FP_I64(T, waves, "waves", 0),
    FP_I64(T, wave_records, "wave_records", 0),
    FP_I64(T, wave_stall, "wave_stall", 0),
    FP_I64(T, exposed, "exposed", 0),
    FP_I64(T, hidden, "hidden", 0),
    FP_NUM(T, exposed_pct, "exposed_pct", 2, 0),
    /* issue 23 item 2 (facts-stall); optional: bubbles.json files written before still read */
    FP_STR(T, hidden_by, "hidden_by", FP_F_OPTIONAL),
    FP_I64(T, drain_stall, "drain_stall", FP_F_OPTIONAL),
    FP_I64(T, drain_exposed, "drain_exposed", FP_F_OPTIONAL),
    FP_I64(T, drain_hidden, "drain_hidden", FP_F_OPTIONAL),
    FP_I64(T, drain_lost, "drain_lost", FP_F_OPTIONAL),
    FP_I64(T, drain_waves, "drain_waves", FP_F_OPTIONAL),
};
#undef T
static const fp_schema totals_schema = {"bubbles.totals", sizeof(fp_bub_doc_totals), FP_FIELDS(totals_fields), false};

#define T fp_bub_doc_states4
static const fp_field states4_fields[] = {
    FP_NUM(T, exec, "exec", 2, 0),
    FP_NUM(T, wait, "wait", 2, 0),
    FP_NUM(T, stall, "stall", 2, 0),
    FP_NUM(T, idle, "idle", 2, 0),
};
#undef T
static const fp_schema states4_schema = {"bubbles.wave_states.pct", sizeof(fp_bub_doc_states4),
                                         FP_FIELDS(states4_fields), false};

#define T fp_bub_doc_wstates
static const fp_field wstates_fields[] = {
    FP_BOOL(T, available, "available", 0),
    FP_I64(T, exec, "exec", 0),
    FP_I64(T, wait, "wait", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, idle, "idle", 0),
    FP_BOOL(T, agrees, "agrees", 0),
};
#undef T
static const fp_schema wstates_schema = {"bubbles.wave_states.wstates", sizeof(fp_bub_doc_wstates),
                                         FP_FIELDS(wstates_fields), false};

#define T fp_bub_doc_states
static const fp_field states_fields[] = {
    FP_I64(T, exec, "exec", 0),
    FP_I64(T, wait, "wait", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, idle, "idle", 0),
    FP_OBJ(T, pct, "pct", &states4_schema, 0),
    FP_OBJ(T, wstates, "wstates", &wstates_schema, 0),
};
#undef T
static const fp_schema states_schema = {"bubbles.wave_states", sizeof(fp_bub_doc_states), FP_FIELDS(states_fields),
                                        false};

#define T fp_bub_doc_class
static const fp_field class_fields[] = {
    FP_STR(T, cls, "class", 0),
    FP_I64(T, rank, "rank", 0),
    FP_I64(T, cycles, "cycles", 0),
    FP_NUM(T, pct, "pct", 2, 0),
    FP_BOOL(T, is_bubble, "is_bubble", 0),
    FP_I64(T, exposed, "exposed", 0),
    FP_I64(T, hidden, "hidden", 0),
    FP_NUM(T, gain_upper_pct, "gain_upper_pct", 2, 0),
    FP_I64(T, instructions, "instructions", 0),
    FP_I64(T, hit, "hit", 0),
};
#undef T
static const fp_schema class_schema = {"bubbles.classes", sizeof(fp_bub_doc_class), FP_FIELDS(class_fields), false};

#define T fp_bub_doc_cycles
static const fp_field cycles_fields[] = {
    FP_NUM(T, mean, "mean", 1, 0),
    FP_I64(T, min, "min", 0),
    FP_I64(T, max, "max", 0),
};
#undef T
static const fp_schema cycles_schema = {"bubbles.load_to_use_cycles", sizeof(fp_bub_doc_cycles),
                                        FP_FIELDS(cycles_fields), false};

#define T fp_bub_doc_wait
static const fp_field wait_fields[] = {
    FP_I64(T, code_line, "code_line", 0),
    FP_STR(T, inst, "inst", 0),
    FP_STR(T, source, "source", 0),
    FP_I64(T, count, "count", 0),
    FP_OBJ(T, load_to_use_cycles, "load_to_use_cycles", &cycles_schema, 0),
    FP_NUM(T, distance_mean, "distance_mean", 1, 0),
    FP_NUM(T, stall_share, "stall_share", 1, 0),
    FP_STR(T, evidence, "evidence", 0),
};
#undef T
static const fp_schema wait_schema = {"bubbles.hotspots.waits_on", sizeof(fp_bub_doc_wait), FP_FIELDS(wait_fields),
                                      false};

#define T fp_bub_doc_hotspot
static const fp_field hotspot_fields[] = {
    FP_I64(T, rank, "rank", 0),
    FP_I64(T, code_line, "code_line", 0),
    FP_STR(T, addr, "addr", 0),
    FP_STR(T, inst, "inst", 0),
    FP_STR(T, cls, "class", 0),
    FP_BOOL(T, is_bubble, "is_bubble", 0),
    FP_STR(T, source, "source", 0),
    FP_I64(T, hit, "hit", 0),
    FP_I64(T, latency, "latency", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, idle, "idle", 0),
    FP_I64(T, exposed, "exposed", 0),
    FP_I64(T, hidden, "hidden", 0),
    FP_NUM(T, stall_pct, "stall_pct", 2, 0),
    FP_NUM(T, share_pct, "share_pct", 2, 0),
    FP_NUM(T, gain_upper_pct, "gain_upper_pct", 2, 0),
    FP_ARR(T, waits_on, n_waits_on, "waits_on", &wait_schema, 0),
};
#undef T
static const fp_schema hotspot_schema = {"bubbles.hotspots", sizeof(fp_bub_doc_hotspot), FP_FIELDS(hotspot_fields),
                                         false};

#define T fp_bub_doc_line
static const fp_field line_fields[] = {
    FP_STR(T, source, "source", 0),
    FP_STR(T, file, "file", 0),
    FP_OPTD(T, line, "line", -1, 0),
    FP_I64(T, stall, "stall", 0),
    FP_NUM(T, pct, "pct", 2, 0),
    FP_I64(T, exposed, "exposed", 0),
    FP_I64(T, hidden, "hidden", 0),
    FP_I64(T, latency, "latency", 0),
    FP_I64(T, hit, "hit", 0),
    FP_STR(T, dom_class, "dom_class", 0),
    FP_NUM(T, gain_upper_pct, "gain_upper_pct", 2, 0),
    FP_I64(T, instructions, "instructions", 0),
};
#undef T
static const fp_schema line_schema = {"bubbles.lines", sizeof(fp_bub_doc_line), FP_FIELDS(line_fields), false};

#define T fp_bub_doc_file
static const fp_field file_fields[] = {
    FP_STR(T, file, "file", 0),
    FP_I64(T, stall, "stall", 0),
    FP_NUM(T, pct, "pct", 2, 0),
    FP_I64(T, exposed, "exposed", 0),
    FP_I64(T, latency, "latency", 0),
};
#undef T
static const fp_schema file_schema = {"bubbles.files", sizeof(fp_bub_doc_file), FP_FIELDS(file_fields), false};

#define T fp_bub_doc_mix
static const fp_field mix_static_fields[] = {
    FP_STR(T, cls, "class", 0),
    FP_I64(T, n, "count", 0),
    FP_NUM(T, frac, "frac", 4, 0),
};
static const fp_field mix_dynamic_fields[] = {
    FP_STR(T, cls, "class", 0),
    FP_I64(T, n, "hit", 0),
    FP_NUM(T, frac, "frac", 4, 0),
};
#undef T
static const fp_schema mix_static_schema = {"bubbles.inst_mix.static", sizeof(fp_bub_doc_mix),
                                            FP_FIELDS(mix_static_fields), false};
static const fp_schema mix_dynamic_schema = {"bubbles.inst_mix.dynamic", sizeof(fp_bub_doc_mix),
                                             FP_FIELDS(mix_dynamic_fields), false};

#define T fp_bub_doc_inst_mix
static const fp_field inst_mix_fields[] = {
    FP_ARR(T, stat, n_stat, "static", &mix_static_schema, 0),
    FP_ARR(T, dyn, n_dyn, "dynamic", &mix_dynamic_schema, 0),
};
#undef T
static const fp_schema inst_mix_schema = {"bubbles.inst_mix", sizeof(fp_bub_doc_inst_mix), FP_FIELDS(inst_mix_fields),
                                          false};

#define T fp_bub_doc_producer
static const fp_field producer_fields[] = {
    FP_I64(T, code_line, "code_line", 0),
    FP_STR(T, inst, "inst", 0),
    FP_STR(T, source, "source", 0),
    FP_STR(T, cls, "class", 0),
    FP_I64(T, count, "count", 0),
    FP_NUMS(T, waits, n_waits, "waits", -1, 0),
    FP_OBJ(T, load_to_use_cycles, "load_to_use_cycles", &cycles_schema, 0),
    FP_NUM(T, distance_mean, "distance_mean", 1, 0),
    FP_NUM(T, stall_share, "stall_share", 1, 0),
    FP_STR(T, evidence, "evidence", 0),
};
#undef T
static const fp_schema producer_schema = {"bubbles.waitcnt.producers", sizeof(fp_bub_doc_producer),
                                          FP_FIELDS(producer_fields), false};

#define T fp_bub_doc_producer_line
static const fp_field producer_line_fields[] = {
    FP_STR(T, source, "source", 0),
    FP_I64(T, count, "count", 0),
    FP_NUM(T, stall_share, "stall_share", 1, 0),
    FP_NUM(T, load_to_use_mean, "load_to_use_mean", 1, 0),
    FP_NUM(T, distance_mean, "distance_mean", 1, 0),
};
#undef T
static const fp_schema producer_line_schema = {"bubbles.waitcnt.producer_lines", sizeof(fp_bub_doc_producer_line),
                                               FP_FIELDS(producer_line_fields), false};

#define T fp_bub_doc_waitcnt
static const fp_field waitcnt_fields[] = {
    FP_STR(T, evidence, "evidence", 0),
    FP_I64(T, executions, "executions", 0),
    FP_I64(T, with_producers, "with_producers", 0),
    FP_I64(T, inferred, "inferred", 0),
    FP_I64(T, unmatched_entries, "unmatched_entries", 0),
    FP_I64(T, producer_missing, "producer_missing", 0),
    FP_I64(T, producer_not_seen, "producer_not_seen", 0),
    FP_ARR(T, producers, n_producers, "producers", &producer_schema, 0),
    FP_ARR(T, producer_lines, n_producer_lines, "producer_lines", &producer_line_schema, 0),
};
#undef T
static const fp_schema waitcnt_schema = {"bubbles.waitcnt", sizeof(fp_bub_doc_waitcnt), FP_FIELDS(waitcnt_fields),
                                         false};

#define T fp_bub_doc_simd
static const fp_field simd_fields[] = {
    FP_I64(T, se, "se", 0),
    FP_I64(T, cu, "cu", 0),
    FP_I64(T, simd, "simd", 0),
    FP_I64(T, waves, "waves", 0),
    FP_I64(T, span, "span", 0),
    FP_I64(T, issue, "issue", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, exposed, "exposed", 0),
    FP_I64(T, lost, "lost", 0),
};
#undef T
static const fp_schema simd_schema = {"bubbles.simds", sizeof(fp_bub_doc_simd), FP_FIELDS(simd_fields), false};

#define T fp_bub_doc_gain
static const fp_field gain_fields[] = {
    FP_I64(T, span_total, "span_total", 0),
    FP_STR(T, formula, "formula", 0),
};
#undef T
static const fp_schema gain_schema = {"bubbles.gain", sizeof(fp_bub_doc_gain), FP_FIELDS(gain_fields), false};

#define T fp_bub_doc_occ_se
static const fp_field occ_se_fields[] = {
    FP_I64(T, se, "se", 0),
    FP_I64(T, traced_waves, "traced_waves", 0),
    FP_I64(T, events, "events", 0),
    FP_I64(T, peak, "peak", 0),
    FP_NUM(T, mean, "mean", 2, 0),
    FP_I64(T, t0, "t0", 0),
    FP_I64(T, t1, "t1", 0),
    FP_NUMS(T, over_time, n_over_time, "over_time", 2, 0),
};
#undef T
static const fp_schema occ_se_schema = {"bubbles.occupancy.per_se", sizeof(fp_bub_doc_occ_se), FP_FIELDS(occ_se_fields),
                                        false};

#define T fp_bub_doc_occupancy
static const fp_field occupancy_fields[] = {
    FP_BOOL(T, available, "available", 0),
    FP_I64(T, traced_waves, "traced_waves", 0),
    FP_ARR(T, per_se, n_per_se, "per_se", &occ_se_schema, 0),
};
#undef T
static const fp_schema occupancy_schema = {"bubbles.occupancy", sizeof(fp_bub_doc_occupancy),
                                           FP_FIELDS(occupancy_fields), false};

#define T fp_bub_doc_code_vs_waves
static const fp_field cvw_fields[] = {
    FP_I64(T, hit_code, "hit_code", 0),
    FP_I64(T, hit_waves, "hit_waves", 0),
    FP_I64(T, stall_code, "stall_code", 0),
    FP_I64(T, stall_waves, "stall_waves", 0),
    FP_BOOL(T, agree, "agree", 0),
};
#undef T
static const fp_schema cvw_schema = {"bubbles.quality.code_vs_waves", sizeof(fp_bub_doc_code_vs_waves),
                                     FP_FIELDS(cvw_fields), false};

#define T fp_bub_doc_quality
static const fp_field quality_fields[] = {
    FP_I64(T, waves_listed, "waves_listed", 0),
    FP_I64(T, waves_read, "waves_read", 0),
    FP_I64(T, waves_skipped, "waves_skipped", 0),
    FP_STRS(T, skipped, n_skipped, "skipped", 0),
    FP_I64(T, waves_truncated, "waves_truncated", 0),
    FP_BOOL(T, filenames_json, "filenames_json", 0),
    FP_I64(T, listed_missing, "listed_missing", 0),
    FP_I64(T, unlisted, "unlisted", 0),
    FP_NUMS(T, ses, n_ses, "ses", -1, 0),
    FP_NUM(T, latency_mapped_pct, "latency_mapped_pct", 2, 0),
    FP_I64(T, unknown_line_records, "unknown_line_records", 0),
    FP_OBJ(T, code_vs_waves, "code_vs_waves", &cvw_schema, 0),
    FP_STRS(T, empty_shells, n_empty_shells, "empty_shells", 0),
    FP_STRS(T, decoder_warnings, n_decoder_warnings, "decoder_warnings", 0),
    FP_STR(T, confidence, "confidence", 0),
    FP_STRS(T, reasons, n_reasons, "reasons", 0),
};
#undef T
static const fp_schema quality_schema = {"bubbles.quality", sizeof(fp_bub_doc_quality), FP_FIELDS(quality_fields),
                                         false};

#define T fp_bubbles_doc
static const fp_field bubbles_fields[] = {
    FP_INT(T, schema, "schema", 0),
    FP_OBJ(T, dispatch, "dispatch", &dispatch_schema, 0),
    FP_STR(T, rank_by, "rank_by", 0),
    FP_OBJ(T, totals, "totals", &totals_schema, 0),
    FP_OBJ(T, wave_states, "wave_states", &states_schema, 0),
    FP_ARR(T, classes, n_classes, "classes", &class_schema, 0),
    FP_ARR(T, hotspots, n_hotspots, "hotspots", &hotspot_schema, 0),
    FP_ARR(T, lines, n_lines, "lines", &line_schema, 0),
    FP_ARR(T, files, n_files, "files", &file_schema, 0),
    FP_OBJ(T, inst_mix, "inst_mix", &inst_mix_schema, 0),
    FP_OBJ(T, waitcnt, "waitcnt", &waitcnt_schema, 0),
    FP_ARR(T, simds, n_simds, "simds", &simd_schema, 0),
    FP_OBJ(T, gain, "gain", &gain_schema, 0),
    FP_OBJ(T, occupancy, "occupancy", &occupancy_schema, 0),
    FP_OBJ(T, quality, "quality", &quality_schema, 0),
    /* issue 23: the dispatch's own launch facts and work distribution (trace_facts_doc.c) */
    FP_OBJP(T, launch_trace, "launch_trace", &fp_launch_trace_schema, FP_F_OPTIONAL),
    FP_OBJP(T, workdist, "workdist", &fp_workdist_schema, FP_F_OPTIONAL),
};
#undef T
const fp_schema fp_bubbles_schema = {"bubbles", sizeof(fp_bubbles_doc), FP_FIELDS(bubbles_fields), false};

int fp_bubbles_read_file(const char *path, fp_bubbles_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_bubbles_schema, path, doc, err);
}

int fp_bubbles_write_file(const fp_bubbles_doc *doc, const char *path, fp_err *err)
{
    return fp_model_write_file(&fp_bubbles_schema, doc, path, err);
}

void fp_bubbles_doc_free(fp_bubbles_doc *doc)
{
    if (doc)
        fp_model_free_pooled(&fp_bubbles_schema, doc, doc->pool);
}

static const char *key_at(const fp_schema *s, size_t off)
{
    for (size_t i = 0; i < s->nfields; i++)
        if (s->fields[i].off == off)
            return s->fields[i].key;
    return NULL;
}

const char *fp_bub_limited_name(int i)
{
    switch (i) {
    case 0: return key_at(&fp_bubbles_schema, offsetof(fp_bubbles_doc, hotspots));
    case 1: return key_at(&fp_bubbles_schema, offsetof(fp_bubbles_doc, lines));
    case 2: return key_at(&fp_bubbles_schema, offsetof(fp_bubbles_doc, files));
    case 3: return key_at(&waitcnt_schema, offsetof(fp_bub_doc_waitcnt, producers));
    default: return NULL;
    }
}

static size_t cut(size_t *n, size_t limit)
{
    size_t total = *n;
    if (limit && *n > limit)
        *n = limit;
    return total;
}

void fp_bubbles_doc_limit(const fp_bubbles_doc *full, size_t limit, fp_bubbles_doc *view,
                          size_t total[FP_BUB_LIMITED])
{
    *view = *full;
    size_t t[FP_BUB_LIMITED];
    t[0] = cut(&view->n_hotspots, limit);
    t[1] = cut(&view->n_lines, limit);
    t[2] = cut(&view->n_files, limit);
    t[3] = cut(&view->waitcnt.n_producers, limit);
    cut(&view->waitcnt.n_producer_lines, limit);
    if (total)
        for (int i = 0; i < FP_BUB_LIMITED; i++)
            total[i] = t[i];
}
