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
    assert_int_equal(fp_diff_gate("regressed", NULL), 0);          /* no gate */
    assert_int_equal(fp_diff_gate(NULL, "regressed"), 1);          /* no verdict never passes */
    assert_int_equal(fp_diff_gate("sideways", "regressed"), 1);    /* nor an unknown one */
    assert_int_equal(fp_diff_gate("regressed", "sometimes"), -1);  /* unknown gate */
    size_t n = 0;
    while (fp_diff_fail_on_choices[n])
        assert_int_not_equal(fp_diff_gate("neutral", fp_diff_fail_on_choices[n++]), -1);
    assert_int_equal(n, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_zero),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_moved_and_improved),
        cmocka_unit_test(test_noise_floor_and_source_change),
        cmocka_unit_test(test_doc_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
