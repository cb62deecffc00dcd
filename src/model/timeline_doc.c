/*
 * timeline_doc.c - the table of the `flyprof timeline` envelope (timeline_doc.h):
 * the one place its keys are spelled.
 */
#include "flyprof/timeline_doc.h"

#define T fp_timeline_doc
static const fp_field dispatch_fields[] = {
    FP_STR(T, dispatch_dir, "dir", 0),
    FP_STR(T, dispatch_name, "name", 0),
    FP_STR(T, symbol, "symbol", 0),
};
static const fp_schema dispatch_view = {"timeline.dispatch", sizeof(T), FP_FIELDS(dispatch_fields), false};

static const fp_field clock_fields[] = {
    FP_OPTD(T, mhz_min, "min", 1, 0),
    FP_OPTD(T, mhz_max, "max", 1, 0),
};
static const fp_schema clock_view = {"timeline.shader_mhz", sizeof(T), FP_FIELDS(clock_fields), false};

static const fp_field span_fields[] = {
    FP_NUM(T, t0_us, "t0", 3, 0),
    FP_NUM(T, t1_us, "t1", 3, 0),
};
static const fp_schema span_view = {"timeline.span_us", sizeof(T), FP_FIELDS(span_fields), false};

static const fp_field doc_fields[] = {
    FP_STR(T, artifact, "artifact", 0),
    FP_VIEW("dispatch", &dispatch_view),
    FP_STR(T, detail, "detail", 0),
    FP_STR(T, timebase, "timebase", 0),
    FP_VIEW("shader_mhz", &clock_view),
    FP_I64(T, waves_listed, "waves_listed", 0),
    FP_I64(T, waves, "waves", 0),
    FP_I64(T, waves_skipped, "waves_skipped", 0),
    FP_I64(T, processes, "processes", 0),
    FP_I64(T, slices, "slices", 0),
    FP_I64(T, counters, "counters", 0),
    FP_I64(T, clipped, "clipped", 0),
    FP_I64(T, bytes, "bytes", 0),
    FP_VIEW("span_us", &span_view),
    FP_STR(T, open_with, "open_with", 0),
};
#undef T
const fp_schema fp_timeline_doc_schema = {"timeline", sizeof(fp_timeline_doc), FP_FIELDS(doc_fields), false};
