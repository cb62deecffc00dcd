/*
 * annotate_doc.c - the table of `flyprof annotate` data (annotate_doc.h): the one
 * place its keys are spelled.
 */
#include "flyprof/annotate_doc.h"

#define T fp_ann_producer
static const fp_field prod_fields[] = {
    FP_I64(T, code_line, "code_line", 0),
    FP_STR(T, inst, "inst", 0),
    FP_STR(T, source, "source", 0),
    FP_I64(T, count, "count", 0),
    FP_NUM(T, load_to_use_mean, "load_to_use_mean", 1, 0),
    FP_I64(T, load_to_use_max, "load_to_use_max", 0),
    FP_NUM(T, stall_share, "stall_share", 1, 0),
    FP_STR(T, evidence, "evidence", 0),
};
#undef T
static const fp_schema prod_schema = {"annotate.waits_on", sizeof(fp_ann_producer), FP_FIELDS(prod_fields), false};

#define T fp_ann_row
static const fp_field row_fields[] = {
    FP_I64(T, code_line, "code_line", 0),
    FP_STR(T, addr, "addr", 0),
    FP_STR(T, isa, "isa", 0),
    FP_STR(T, cls, "class", 0),
    FP_STR(T, source, "source", 0),
    FP_STR(T, source_text, "source_text", 0),
    FP_BOOL(T, new_line, "new_line", 0),
    FP_BOOL(T, target, "target", 0),
    FP_BOOL(T, on_line, "on_line", 0),
    FP_I64(T, hit, "hit", 0),
    FP_I64(T, latency, "latency", 0),
    FP_I64(T, stall, "stall", 0),
    FP_I64(T, exposed, "exposed", 0),
    FP_NUM(T, stall_pct, "stall_pct", 2, 0),
    FP_ARR(T, waits_on, n_waits_on, "waits_on", &prod_schema, 0),
};
#undef T
static const fp_schema row_schema = {"annotate.rows", sizeof(fp_ann_row), FP_FIELDS(row_fields), false};

#define T fp_annotate_doc
static const fp_field dispatch_fields[] = {
    FP_STR(T, dispatch_dir, "dir", 0),
    FP_STR(T, dispatch_name, "name", 0),
    FP_STR(T, symbol, "symbol", 0),
};
static const fp_schema dispatch_view = {"annotate.dispatch", sizeof(T), FP_FIELDS(dispatch_fields), false};

static const fp_field target_fields[] = {
    FP_STR(T, kind, "kind", 0),
    FP_NUMSTR(T, query, "query", -1, 0),
    FP_I64(T, target_code_line, "code_line", 0),
    FP_STR(T, target_source, "source", 0),
    FP_OPTD(T, hotspot_rank, "hotspot_rank", -1, 0),
};
static const fp_schema target_view = {"annotate.target", sizeof(T), FP_FIELDS(target_fields), false};

static const fp_field totals_fields[] = {
    FP_I64(T, total_stall, "stall", 0),
    FP_I64(T, total_exposed, "exposed", 0),
};
static const fp_schema totals_view = {"annotate.totals", sizeof(T), FP_FIELDS(totals_fields), false};

static const fp_field doc_fields[] = {
    FP_VIEW("dispatch", &dispatch_view),
    FP_VIEW("target", &target_view),
    FP_I64(T, context, "context", 0),
    FP_VIEW("totals", &totals_view),
    FP_ARR(T, rows, n_rows, "rows", &row_schema, 0),
};
#undef T
const fp_schema fp_annotate_doc_schema = {"annotate", sizeof(fp_annotate_doc), FP_FIELDS(doc_fields), false};
