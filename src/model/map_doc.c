/*
 * map_doc.c - the table of map.json (map_doc.h): the one place its keys are spelled.
 * Every key is always written (null when unknown), in the order `flyprof map` has
 * always written them.
 */
#include "flyprof/map_doc.h"

#include <cjson/cJSON.h>

#include "flyprof/bundle_path.h"

#define T fp_map_snip_line
static const fp_field snip_line_fields[] = {
    FP_I64(T, n, "n", 0),
    FP_STR(T, text, "text", 0),
    FP_BOOL(T, hot, "hot", 0),
};
#undef T
static const fp_schema snip_line_schema = {"map.snippet.line", sizeof(fp_map_snip_line), FP_FIELDS(snip_line_fields),
                                           false};

#define T fp_map_snippet
static const fp_field snippet_fields[] = {
    FP_STR(T, file, "file", 0),
    FP_STR(T, snapshot, "snapshot", 0),
    FP_STR(T, match, "match", 0),
    FP_I64(T, line, "line", 0),
    FP_ARR(T, lines, nlines, "lines", &snip_line_schema, 0),
};
#undef T
const fp_schema fp_map_snippet_schema = {"map.snippet", sizeof(fp_map_snippet), FP_FIELDS(snippet_fields), false};

#define T fp_map_frame
static const fp_field frame_fields[] = {
    FP_STR(T, file, "file", 0),
    FP_OPTD(T, line, "line", -1, 0),
};
#undef T
static const fp_schema frame_schema = {"map.frame", sizeof(fp_map_frame), FP_FIELDS(frame_fields), false};

#define T fp_map_mapping
static const fp_field mapping_fields[] = {
    FP_I64(T, code_line, "code_line", 0),
    FP_STR(T, isa, "isa", 0),
    FP_STR(T, addr, "addr", 0),
    FP_STR(T, cls, "class", 0),
    FP_STR(T, source, "source", 0),
    FP_ARR(T, frames, nframes, "frames", &frame_schema, 0),
    FP_OPTD(T, matched_frame, "matched_frame", -1, 0),
    FP_I64(T, hit, "hit", 0),
    FP_I64(T, latency, "latency", 0),
    FP_I64(T, stall, "stall", 0),
    FP_OBJP(T, snippet, "snippet", &fp_map_snippet_schema, 0),
    FP_STR(T, confidence, "confidence", 0),
};
#undef T
static const fp_schema mapping_schema = {"map.mapping", sizeof(fp_map_mapping), FP_FIELDS(mapping_fields), false};

#define T fp_map_file
static const fp_field file_fields[] = {
    FP_STR(T, file, "file", 0),
    FP_I64(T, instructions, "instructions", 0),
    FP_I64(T, latency, "latency", 0),
    FP_I64(T, stall, "stall", 0),
};
#undef T
static const fp_schema file_schema = {"map.file", sizeof(fp_map_file), FP_FIELDS(file_fields), false};

#define T fp_map_dispatch
static const fp_field dispatch_fields[] = {
    FP_STR(T, dir, "dir", 0),
    FP_STR(T, name, "name", 0),
    FP_STR(T, symbol, "symbol", 0),
    FP_STR(T, tag, "tag", 0),
    FP_OPTD(T, dispatch, "dispatch", -1, 0),
    FP_STR(T, resolved_by, "resolved_by", 0),
};
#undef T
static const fp_schema dispatch_schema = {"map.dispatch", sizeof(fp_map_dispatch), FP_FIELDS(dispatch_fields), false};

#define T fp_map_selection
static const fp_field selection_fields[] = {
    FP_STR(T, kind, "kind", 0),
    FP_NUMSTR(T, query, "query", -1, 0),
    FP_STR(T, file_match, "file_match", 0),
    FP_STR(T, matched_file, "matched_file", 0),
    FP_I64(T, count, "count", 0),
};
#undef T
static const fp_schema selection_schema = {"map.selection", sizeof(fp_map_selection), FP_FIELDS(selection_fields),
                                           false};

#define T fp_map_flamegraph
static const fp_field flamegraph_fields[] = {
    FP_STR(T, weight, "weight", 0),
    FP_I64(T, stacks, "stacks", 0),
    FP_STR(T, order, "order", 0),
    FP_STR(T, folded, "folded", 0),
    FP_STR(T, svg, "svg", 0),
};
#undef T
static const fp_schema flamegraph_schema = {"map.flamegraph", sizeof(fp_map_flamegraph), FP_FIELDS(flamegraph_fields),
                                            false};

#define T fp_map_doc
static const fp_field map_fields[] = {
    FP_INT(T, schema, "schema", 0),
    FP_OBJ(T, dispatch, "dispatch", &dispatch_schema, 0),
    FP_OBJ(T, selection, "selection", &selection_schema, 0),
    FP_ARR(T, mappings, nmappings, "mappings", &mapping_schema, 0),
    FP_NUM(T, unmapped_pct, "unmapped_pct", 2, 0),
    FP_NUM(T, src_mapped_pct, "src_mapped_pct", 2, 0),
    FP_NUM(T, unmapped_latency_pct, "unmapped_latency_pct", 2, 0),
    FP_ARR(T, files, nfiles, "files", &file_schema, 0),
    FP_OBJ(T, flamegraph, "flamegraph", &flamegraph_schema, 0),
    FP_STR(T, artifact, "artifact", 0),
};
#undef T
const fp_schema fp_map_schema = {"map", sizeof(fp_map_doc), FP_FIELDS(map_fields), false};

int fp_map_read_file(const char *path, fp_map_doc *doc, fp_err *err)
{
    return fp_model_read_file(&fp_map_schema, path, doc, err);
}

int fp_map_write_file(const char *path, const fp_map_doc *doc, const char *bundle, fp_err *err)
{
    cJSON *j = fp_model_write(&fp_map_schema, doc);
    int rc = fp_bundle_write_json(path, j, bundle, err);
    cJSON_Delete(j);
    return rc;
}

void fp_map_free(fp_map_doc *doc) { fp_model_free(&fp_map_schema, doc); }
