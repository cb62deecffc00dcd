/*
 * test_diff.c - report.json x 2: zero deltas against itself, instructions
 * matched by (source line, opcode, occurrence) when their pc moved, the
 * opcode fallback when the source changed, per-wave normalisation, acceptance
 * verdicts and the noise floor of the overall verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include <stdlib.h>

#include "flyprof/diff.h"
#include "flyprof/diff_doc.h"
#include "flyprof/json.h"
#include "flyprof/report_doc.h"

/* Report documents built as structs (fp_report_doc): only what a diff reads is
 * set, the rest is zero (a report without launch, sol, ... sections). */
static char *S(const char *s) { return fp_model_strdup(s); }

static void add_class(fp_report_doc *r, const char *name, int64_t cycles, double pct, double exposed)
{
    fp_report_class *c = fp_model_push((void **)&r->classes, &r->nclasses, sizeof *c);
    c->cls = S(name);
    c->rank = (int)r->nclasses;
    c->cycles = cycles;
    c->pct = pct;
    c->exposed = fp_optd_of(exposed);
}

static void add_line(fp_report_doc *r, const char *src, double stall, double pct, double exposed)
{
    fp_report_line *l = fp_model_push((void **)&r->lines, &r->nlines, sizeof *l);
    l->source = S(src);
    l->stall = stall;
    l->pct = pct;
    l->exposed = exposed;
}

static void add_inst(fp_report_doc *r, int64_t code_line, const char *inst, const char *cls, const char *src,
                     int64_t stall, double exposed)
{
    fp_report_inst *i = fp_model_push((void **)&r->instructions, &r->ninstructions, sizeof *i);
    i->code_line = code_line;
    i->inst = S(inst);
    i->cls = S(cls);
    i->source = S(src);
    i->stall = stall;
    i->exposed = exposed;
}

static void add_signal(fp_report_doc *r, const char *name, double v)
{
    fp_named_optd *s = fp_model_push((void **)&r->signals, &r->nsignals, sizeof *s);
    s->key = S(name);
    s->v = fp_optd_of(v);
}

static void head(fp_report_doc *r, const char *dispatch, int64_t latency, int64_t stall, double stall_pct, double waves,
                 double exposed_pct)
{
    memset(r, 0, sizeof *r);
    r->schema = 1;
    r->kernel = S("k");
    r->arch = S("gfx950");
    r->dispatch.name = S(dispatch);
    r->totals.latency = latency;
    r->totals.stall = stall;
    r->totals.stall_pct = stall_pct;
    r->totals.waves = fp_optd_of(waves);
    r->totals.exposed_pct = exposed_pct;
    r->workload.time_ns_per_call = fp_optd_none();
}

/* A minimal report: 2 waves, vmcnt + valu, three instructions. */
static void make_before(fp_report_doc *r)
{
    head(r, "d1", 10000, 6000, 60, 2, 50);
    add_class(r, "vmcnt", 5000, 83.33, 5000);
    add_class(r, "valu", 1000, 16.67, 0);
    add_line(r, "/k.py:10", 5000, 83.33, 5000);
    add_line(r, "/k.py:11", 1000, 16.67, 0);
    add_signal(r, "trace.scratch_insts", 4);
    add_inst(r, 1, "global_load_dword v0, v1, s[0:1]", "vmem_load", "/k.py:10", 0, 0);
    add_inst(r, 2, "s_waitcnt vmcnt(0)", "vmcnt", "/k.py:10", 5000, 5000);
    add_inst(r, 3, "v_add_f32 v0, v0, v2", "valu", "/k.py:11", 1000, 0);
    fp_report_rec *c = fp_model_push((void **)&r->recs, &r->nrecs, sizeof *c);
    c->rank = 1;
    c->rule = S("vmem_prefetch");
    c->acceptance = (fp_report_acceptance){.kind = S("line_stall_drop"), .cls = S("vmcnt"), .source = S("/k.py:10"),
                                           .before = 5000, .target = 3500, .text = S("t1")};
    c = fp_model_push((void **)&r->recs, &r->nrecs, sizeof *c);
    c->rank = 2;
    c->rule = S("scratch_spill");
    c->acceptance = (fp_report_acceptance){.kind = S("signal_below"), .signal = S("trace.scratch_insts"), .before = 4,
                                           .target = 1, .text = S("t2")};
}

/* After: 4 waves (per-wave cycles halve the raw counts), one instruction
 * inserted first (every pc moves), the wait's stall per wave cut by 60 %. */
static void make_after(fp_report_doc *r)
{
    head(r, "d2", 16000, 6000, 37.5, 4, 25);
    add_class(r, "vmcnt", 4000, 66.67, 4000);
    add_class(r, "valu", 2000, 33.33, 0);
    add_line(r, "/k.py:10", 4000, 66.67, 4000);
    add_line(r, "/k.py:11", 2000, 33.33, 0);
    add_signal(r, "trace.scratch_insts", 0);
    add_inst(r, 1, "s_mov_b32 s2, 0", "salu", "/k.py:9", 0, 0);
    add_inst(r, 2, "global_load_dword v0, v1, s[0:1]", "vmem_load", "/k.py:10", 0, 0);
    add_inst(r, 3, "s_waitcnt vmcnt(0)", "vmcnt", "/k.py:10", 4000, 4000);
    add_inst(r, 4, "v_add_f32 v0, v0, v2", "valu", "/k.py:11", 2000, 0);
}

static void test_self_zero(void **state)
{
    (void)state;
    fp_report_doc b;
    make_before(&b);
    fp_diff_doc d;
    fp_diff_reports(&b, &b, &d);
    assert_string_equal(d.verdict.overall, "neutral");
    assert_true(d.verdict.delta == 0);
    for (size_t k = 0; k < d.nclasses; k++) {
        assert_true(d.classes[k].delta.pct == 0);
        assert_true(d.classes[k].delta.stall_per_wave == 0);
    }
    const fp_diff_insts *i = &d.instructions;
    assert_int_equal((int)i->matched, 3);
    assert_int_equal((int)i->changed, 0);
    assert_int_equal((int)i->moved, 0);
    fp_diff_free(&d);
    fp_report_doc_free(&b);
}

static void test_moved_and_improved(void **state)
{
    (void)state;
    fp_report_doc b, a;
    make_before(&b);
    make_after(&a);
    fp_diff_doc d;
    fp_diff_reports(&b, &a, &d);
    const fp_diff_insts *i = &d.instructions;
    assert_int_equal((int)i->matched_by_source, 3);
    assert_int_equal((int)i->moved, 3);
    assert_int_equal((int)i->unmatched_after, 1);
    /* the wait: 2500 -> 1000 per wave; the add: 500 -> 500 (unchanged per wave) */
    assert_int_equal((int)i->changed, 1);
    const fp_diff_inst_change *top = &i->top_changes[0];
    assert_string_equal(top->opcode, "s_waitcnt");
    assert_true(top->delta_stall_per_wave == -1500);
    assert_true(top->before.code_line == 2 && top->after.code_line == 3);
    /* acceptance: the line's vmcnt stall per wave 2500 -> 1000 <= 1750: met; scratch 0 < 1: met */
    assert_string_equal(d.acceptance[0].verdict, "met");
    assert_true(d.acceptance[0].after.v == 1000);
    assert_string_equal(d.acceptance[1].verdict, "met");
    /* no durations: the stalled share decides, 60 -> 37.5 is beyond the floor */
    assert_string_equal(d.verdict.basis, "stall_pct");
    assert_string_equal(d.verdict.overall, "improved");
    fp_diff_free(&d);
    /* reversed: regressed */
    fp_diff_reports(&a, &b, &d);
    assert_string_equal(d.verdict.overall, "regressed");
    fp_diff_free(&d);
    fp_report_doc_free(&a);
    fp_report_doc_free(&b);
}

static void test_noise_floor_and_source_change(void **state)
{
    (void)state;
    fp_report_doc b, a;
    make_before(&b);
    make_before(&a);
    /* a small change within the floor is neutral */
    a.totals.stall_pct = 60 + FP_DIFF_NOISE_STALL_PTS / 2;
    /* every source location changed: the opcode fallback still pairs the instructions,
     * and the line acceptance test follows them to their new line */
    for (size_t k = 0; k < a.ninstructions; k++) {
        free(a.instructions[k].source);
        a.instructions[k].source = S("/k.py:99");
    }
    fp_diff_doc d;
    fp_diff_reports(&b, &a, &d);
    assert_string_equal(d.verdict.overall, "neutral");
    const fp_diff_insts *i = &d.instructions;
    assert_int_equal((int)i->matched, 3);
    assert_int_equal((int)i->matched_by_source, 0);
    /* the wait's vmcnt stall, now on :99: 5000 / 2 waves = 2500 > 1750 */
    assert_string_equal(d.acceptance[0].verdict, "not_met");
    assert_true(d.acceptance[0].after.v == 2500);
    assert_string_equal(d.acceptance[0].note, "hot line moved k.py:10 -> k.py:99 (2 of 2 instructions matched by "
                                              "opcode+occurrence (source changed)); per traced wave");
    fp_diff_free(&d);
    /* no instruction left at all: unknown, and the note says why */
    size_t keep = a.ninstructions;
    a.ninstructions = 0;
    fp_diff_reports(&b, &a, &d);
    assert_string_equal(d.acceptance[0].verdict, "unknown");
    assert_string_equal(d.acceptance[0].note, "no instruction maps to /k.py:10 in the after report, and none of "
                                              "its 2 instructions was found there by any identity");
    fp_diff_free(&d);
    a.ninstructions = keep;
    fp_report_doc_free(&a);
    fp_report_doc_free(&b);
}

/* diff.json through its table: the strict reader gives back the bytes written,
 * and a renamed key, a wrong type, an unknown key are typed errors */
static void test_doc_round_trip(void **state)
{
    (void)state;
    fp_report_doc b, a;
    make_before(&b);
    make_after(&a);
    fp_diff_doc d, back;
    fp_diff_reports(&b, &a, &d);
    cJSON *j = fp_model_write(&fp_diff_schema, &d);
    char *t1 = fp_json_print_bytes(j, true, NULL);
    fp_err err = {0};
    assert_int_equal(fp_model_read(&fp_diff_schema, j, &back, "diff.json", &err), 0);
    cJSON *j2 = fp_model_write(&fp_diff_schema, &back);
    char *t2 = fp_json_print_bytes(j2, true, NULL);
    assert_string_equal(t1, t2);
    assert_null(strstr(t1, "\"artifact\"")); /* the envelope's key only */
    fp_diff_free(&back);
    free(t1);
    free(t2);
    cJSON_Delete(j2);
    cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verdict");
    cJSON_AddItemToObject(v, "overal", cJSON_DetachItemFromObject(v, "overall"));
    assert_int_equal(fp_model_read(&fp_diff_schema, j, &back, "diff.json", &err), -1);
    assert_string_equal(err.message, "diff.json: $.verdict.overal: unknown key");
    cJSON_DeleteItemFromObject(v, "overal");
    assert_int_equal(fp_model_read(&fp_diff_schema, j, &back, "diff.json", &err), -1);
    assert_string_equal(err.message, "diff.json: $.verdict.overall: missing");
    cJSON_AddStringToObject(v, "overall", "improved");
    cJSON_ReplaceItemInObject(cJSON_GetObjectItemCaseSensitive(j, "lines"), "total", cJSON_CreateString("2"));
    assert_int_equal(fp_model_read(&fp_diff_schema, j, &back, "diff.json", &err), -1);
    assert_string_equal(err.message, "diff.json: $.lines.total: expected an integer, got a string");
    cJSON_Delete(j);
    fp_diff_free(&back);
    fp_diff_free(&d);
    fp_report_doc_free(&a);
    fp_report_doc_free(&b);
}

/* the --fail-on gate shared by diff and check */
static void test_gate(void **state)
{
    (void)state;
    assert_int_equal(fp_diff_gate("regressed", "regressed"), 1);
    assert_int_equal(fp_diff_gate("improved", "regressed"), 0);
    assert_int_equal(fp_diff_gate("neutral", "regressed"), 0);
    assert_int_equal(fp_diff_gate("regressed", "any-change"), 1);
    assert_int_equal(fp_diff_gate("improved", "any-change"), 1);
    assert_int_equal(fp_diff_gate("neutral", "any-change"), 0);
    /* inconclusive neither passes nor trips: undecided (exit INCONCLUSIVE) */
    assert_int_equal(fp_diff_gate("inconclusive", "regressed"), 2);
    assert_int_equal(fp_diff_gate("inconclusive", "any-change"), 2);
    assert_int_equal(fp_diff_gate("inconclusive", NULL), 0);
    assert_int_equal(fp_diff_gate("regressed", NULL), 0);          /* no gate */
    assert_int_equal(fp_diff_gate(NULL, "regressed"), 1);          /* no verdict never passes */
    assert_int_equal(fp_diff_gate("sideways", "regressed"), 1);    /* nor an unknown one */
    assert_int_equal(fp_diff_gate("regressed", "sometimes"), -1);  /* unknown gate */
    size_t n = 0;
    while (fp_diff_fail_on_choices[n])
        assert_int_not_equal(fp_diff_gate("neutral", fp_diff_fail_on_choices[n++]), -1);
    assert_int_equal(n, 2);
}

/* t_{0.975}: the table's rows exactly, between rows interpolated in 1/df
 * (reference quantiles: the t density integrated, tests/tools/diff_ref.py t975) */
static void test_t975(void **state)
{
    (void)state;
    assert_true(fabs(fp_diff_t975(4) - 2.776) < 1e-9);
    assert_true(fabs(fp_diff_t975(30) - 2.042) < 1e-9);
    assert_true(fabs(fp_diff_t975(1e12) - 1.960) < 1e-9);
    assert_true(fabs(fp_diff_t975(8.2586) - 2.2935) < 0.002); /* the corpus pair's df: 2.2935 */
    assert_true(fabs(fp_diff_t975(11) - 2.2010) < 0.002);     /* 2.2010 */
    assert_true(fabs(fp_diff_t975(50) - 2.0086) < 0.002);     /* 2.0086 */
    assert_true(fabs(fp_diff_t975(0.5) - 12.706) < 1e-9);     /* below the table: its first row */
}

/* Welch: the corpus pair's per-iteration figures (sd 116.31 / 4 waves, 161.1 / 8):
 * se = sqrt(116.31^2/4 + 161.1^2/8) = 81.40, df = 8.26, t = 2.2935 -> +-186.7 */
static void test_welch(void **state)
{
    (void)state;
    double h = fp_diff_welch_half(116.31, 4, 161.1, 8);
    assert_true(fabs(h - 186.7) < 0.5);
    assert_true(isnan(fp_diff_welch_half(10, 1, 10, 8))); /* one wave: no spread */
    assert_true(fp_diff_welch_half(0, 4, 0, 4) == 0);      /* no spread at all */
}

/* One row per branch of the rule (diff.md "Verdict"): delta, CI, same code -> verdict */
static void test_change_of(void **state)
{
    (void)state;
    static const struct {
        double d, lo, hi;
        bool ci, same;
        const char *want;
    } cases[] = {
        {-5, -8, -2, true, false, "improved"},       /* CI below 0, beyond the floor */
        {5, 2, 8, true, false, "regressed"},
        {-0.5, -1.5, 0.5, true, false, "neutral"},   /* CI inside +-2 % */
        {-1, -1.5, -0.5, true, false, "neutral"},    /* detectable, but below the floor */
        {-0.15, -2.22, 1.92, true, false, "inconclusive"}, /* changed code: cannot rule out -2.2 % */
        {-0.15, -2.22, 1.92, true, true, "neutral"},       /* the same binary: only sampling */
        {-5, -9, 1, true, true, "inconclusive"},     /* beyond the floor, CI contains 0 */
        {-1.5, -2.5, -0.5, true, false, "inconclusive"},
        {-3, -3.5, -2.5, true, true, "improved"},    /* the same code can still move (environment) */
        {1, 0, 0, false, false, "neutral"},          /* no spread: the floor alone */
        {3, 0, 0, false, true, "inconclusive"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(fp_diff_change_of(cases[i].d, cases[i].lo, cases[i].hi, cases[i].ci, cases[i].same),
                            cases[i].want);
}

static fp_report_isa *isa_of(const char *sha, const char *ops, int64_t n)
{
    fp_report_isa *i = calloc(1, sizeof *i);
    i->sha256 = S(sha);
    i->opcodes_sha256 = S(ops);
    i->instructions = n;
    double starts[] = {1, 2};
    for (size_t k = 0; k < 2; k++)
        *(double *)fp_model_push((void **)&i->block_starts, &i->nblock_starts, sizeof(double)) = starts[k];
    return i;
}

/* report.time of a duration from kernel_trace.csv rows with this content hash (or from the trace) */
static fp_report_time *time_of(const char *source, double ns, const char *rows_sha256)
{
    fp_report_time *t = calloc(1, sizeof *t);
    t->source = S(source);
    t->ns = fp_optd_of(ns);
    if (rows_sha256) {
        t->csv = calloc(1, sizeof *t->csv);
        t->csv->rows_sha256 = S(rows_sha256);
    }
    return t;
}

static fp_report_work *work_of(double per_iter, double sd, int64_t n, double iters)
{
    fp_report_work *w = calloc(1, sizeof *w);
    w->source = S("wave files");
    w->wave_cycles = (fp_report_stat){n, per_iter * iters + 1000, sd * iters, 0, 0};
    w->main_loop = calloc(1, sizeof *w->main_loop);
    w->main_loop->head = 1;
    w->main_loop->back_edge = 3;
    w->main_loop->iterations = (int64_t)(iters * (double)n);
    w->main_loop->iterations_per_wave = (fp_report_stat){n, iters, 0, iters, iters};
    w->main_loop->cycles_per_iteration = (fp_report_stat){n, per_iter, sd, 0, 0};
    return w;
}

/* The identity of the code and the per-iteration verdict with its CI */
static void test_identity_and_per_iteration(void **state)
{
    (void)state;
    fp_report_doc b, a;
    make_before(&b);
    make_before(&a);
    b.isa = isa_of("aa", "oo", 3);
    a.isa = isa_of("aa", "oo", 3);
    /* 4 waves x 5 iterations at 1000 +- 10 cycles, 8 waves x 4 at 1001 +- 10: per wave -20 %,
     * per iteration +0.1 % with CI +-1.4 %: the same code, neutral; the CSVs are one file */
    b.work = work_of(1000, 10, 4, 5);
    a.work = work_of(1001, 10, 8, 4);
    b.workload.time_ns_per_call = fp_optd_of(20000);
    a.workload.time_ns_per_call = fp_optd_of(30000); /* would be +50 %: void */
    b.time = time_of("csv", 20000, "c1");
    a.time = time_of("csv", 30000, "c1");
    fp_diff_doc d;
    fp_diff_reports(&b, &a, &d);
    assert_string_equal(d.code.identity, "unchanged");
    assert_true(d.work.time_void);
    assert_string_equal(d.verdict.basis, "cycles_per_iteration");
    assert_string_equal(d.verdict.overall, "neutral");
    assert_true(d.verdict.delta == 0.1);
    /* se = sqrt(100/4 + 100/8) = 6.124, df = 6.10 (t = 2.437): +-14.9 cycles = +-1.49 % */
    assert_true(fabs(d.verdict.ci_high.v - d.verdict.delta - 1.49) < 0.02);
    assert_true(d.work.iterations_per_wave.before.v == 5 && d.work.iterations_per_wave.after.v == 4);
    assert_true(d.work.per_wave.delta_pct.v < -15);
    /* cycle tests per main-loop iteration: the line's 5000 cycles / 20 iterations = 250 */
    assert_true(d.acceptance[0].before == 250);
    fp_diff_free(&d);
    /* other CSV rows: the duration decides again */
    free(a.time->csv->rows_sha256);
    a.time->csv->rows_sha256 = S("c2");
    fp_diff_reports(&b, &a, &d);
    assert_false(d.work.time_void);
    assert_string_equal(d.verdict.basis, "time_ns_per_call");
    assert_string_equal(d.verdict.overall, "regressed");
    fp_diff_free(&d);
    /* a duration that is a traced wave span is a sample: the waves decide, with a note */
    free(a.time->source);
    a.time->source = S("trace");
    fp_diff_reports(&b, &a, &d);
    assert_false(d.work.time_void);
    assert_string_equal(d.verdict.basis, "cycles_per_iteration");
    assert_int_equal(d.nnotes, 1);
    assert_string_equal(d.notes[0], "the after duration is a traced wave span, the before one a measurement: they "
                                    "do not decide the verdict");
    fp_diff_free(&d);
    /* no duration, 10 % slower per iteration, other operands: regressed per iteration */
    b.workload.time_ns_per_call = a.workload.time_ns_per_call = fp_optd_none();
    free(a.isa->sha256);
    a.isa->sha256 = S("bb");
    a.work->main_loop->cycles_per_iteration.mean = 1100;
    fp_diff_reports(&b, &a, &d);
    assert_string_equal(d.code.identity, "operands_changed");
    assert_string_equal(d.verdict.overall, "regressed");
    assert_true(d.verdict.ci_low.v > 0);
    fp_diff_free(&d);
    /* other opcodes too, 1 % slower with the same spread: inconclusive */
    free(a.isa->opcodes_sha256);
    a.isa->opcodes_sha256 = S("pp");
    a.work->main_loop->cycles_per_iteration.mean = 1010;
    fp_diff_reports(&b, &a, &d);
    assert_string_equal(d.code.identity, "changed");
    assert_string_equal(d.verdict.overall, "inconclusive");
    fp_diff_free(&d);
    /* one side without work (an older report): per wave / stalled share, code unknown */
    fp_model_free(&fp_report_schema, &a); /* frees a.work and a.isa with the rest */
    make_before(&a);
    fp_diff_reports(&b, &a, &d);
    assert_string_equal(d.code.identity, "unknown");
    assert_string_equal(d.verdict.basis, "stall_pct");
    assert_null(d.work.unit);
    fp_diff_free(&d);
    fp_report_doc_free(&a);
    fp_report_doc_free(&b);
}

/* every unknown says why: an unmeasured signal names what it needs, an unknown kind says so */
static void test_unknown_reasons(void **state)
{
    (void)state;
    fp_report_doc b, a;
    make_before(&b);
    make_before(&a);
    fp_report_rec *c = fp_model_push((void **)&b.recs, &b.nrecs, sizeof *c);
    c->rank = 3;
    c->rule = S("lds_bank_conflict");
    c->acceptance = (fp_report_acceptance){.kind = S("signal_below"), .signal = S("counters.lds_bank_conflict_pct"),
                                           .before = 40, .target = 10, .text = S("t3")};
    c = fp_model_push((void **)&b.recs, &b.nrecs, sizeof *c);
    c->rank = 4;
    c->rule = S("future_rule");
    c->acceptance = (fp_report_acceptance){.kind = S("bytes_drop"), .before = 1, .target = 0, .text = S("t4")};
    fp_diff_doc d;
    fp_diff_reports(&b, &a, &d);
    assert_int_equal(d.nacceptance, 4);
    assert_string_equal(d.acceptance[2].verdict, "unknown");
    assert_string_equal(d.acceptance[2].note, "the after report has no value for counters.lds_bank_conflict_pct: "
                                              "not measured without counters.json in the after bundle "
                                              "(`flyprof counters`)");
    assert_string_equal(d.acceptance[3].verdict, "unknown");
    assert_string_equal(d.acceptance[3].note, "unknown acceptance kind bytes_drop (written by another flyprof version?)");
    assert_int_equal(d.nnotes, 0);
    fp_diff_free(&d);
    /* exposed stall by issue windows on one side only: not comparable, said */
    b.totals.hidden_by = S("issue_windows");
    fp_diff_reports(&b, &a, &d);
    assert_int_equal(d.nnotes, 1);
    assert_non_null(strstr(d.notes[0], "totals.hidden_by differs"));
    fp_diff_free(&d);
    fp_report_doc_free(&a);
    fp_report_doc_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_zero),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_moved_and_improved),
        cmocka_unit_test(test_noise_floor_and_source_change),
        cmocka_unit_test(test_doc_round_trip),
        cmocka_unit_test(test_t975),
        cmocka_unit_test(test_welch),
        cmocka_unit_test(test_change_of),
        cmocka_unit_test(test_identity_and_per_iteration),
        cmocka_unit_test(test_unknown_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
