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

#include "flyprof/diff.h"
#include "flyprof/json.h"

/* A minimal report: 2 waves, vmcnt + valu, three instructions. */
static const char *BEFORE =
    "{\"kernel\":\"k\",\"arch\":\"gfx950\",\"dispatch\":{\"name\":\"d1\"},"
    "\"totals\":{\"latency\":10000,\"stall\":6000,\"stall_pct\":60,\"waves\":2,\"exposed_pct\":50},"
    "\"workload\":{\"time_ns_per_call\":null},"
    "\"classes\":[{\"class\":\"vmcnt\",\"cycles\":5000,\"pct\":83.33,\"exposed\":5000},"
    "{\"class\":\"valu\",\"cycles\":1000,\"pct\":16.67,\"exposed\":0}],"
    "\"lines\":[{\"source\":\"/k.py:10\",\"stall\":5000,\"pct\":83.33,\"exposed\":5000},"
    "{\"source\":\"/k.py:11\",\"stall\":1000,\"pct\":16.67,\"exposed\":0}],"
    "\"signals\":{\"trace.scratch_insts\":4},"
    "\"instructions\":["
    "{\"code_line\":1,\"inst\":\"global_load_dword v0, v1, s[0:1]\",\"class\":\"vmem_load\",\"source\":\"/k.py:10\",\"stall\":0,\"exposed\":0},"
    "{\"code_line\":2,\"inst\":\"s_waitcnt vmcnt(0)\",\"class\":\"vmcnt\",\"source\":\"/k.py:10\",\"stall\":5000,\"exposed\":5000},"
    "{\"code_line\":3,\"inst\":\"v_add_f32 v0, v0, v2\",\"class\":\"valu\",\"source\":\"/k.py:11\",\"stall\":1000,\"exposed\":0}],"
    "\"recommendations\":["
    "{\"rank\":1,\"rule\":\"vmem_prefetch\",\"acceptance\":{\"kind\":\"line_stall_drop\",\"class\":\"vmcnt\","
    "\"source\":\"/k.py:10\",\"before\":5000,\"target\":3500,\"text\":\"t1\"}},"
    "{\"rank\":2,\"rule\":\"scratch_spill\",\"acceptance\":{\"kind\":\"signal_below\",\"signal\":\"trace.scratch_insts\","
    "\"before\":4,\"target\":1,\"text\":\"t2\"}}]}";

/* After: 4 waves (per-wave cycles halve the raw counts), one instruction
 * inserted first (every pc moves), the wait's stall per wave cut by 60 %. */
static const char *AFTER =
    "{\"kernel\":\"k\",\"arch\":\"gfx950\",\"dispatch\":{\"name\":\"d2\"},"
    "\"totals\":{\"latency\":16000,\"stall\":6000,\"stall_pct\":37.5,\"waves\":4,\"exposed_pct\":25},"
    "\"classes\":[{\"class\":\"vmcnt\",\"cycles\":4000,\"pct\":66.67,\"exposed\":4000},"
    "{\"class\":\"valu\",\"cycles\":2000,\"pct\":33.33,\"exposed\":0}],"
    "\"lines\":[{\"source\":\"/k.py:10\",\"stall\":4000,\"pct\":66.67,\"exposed\":4000},"
    "{\"source\":\"/k.py:11\",\"stall\":2000,\"pct\":33.33,\"exposed\":0}],"
    "\"signals\":{\"trace.scratch_insts\":0},"
    "\"instructions\":["
    "{\"code_line\":1,\"inst\":\"s_mov_b32 s2, 0\",\"class\":\"salu\",\"source\":\"/k.py:9\",\"stall\":0,\"exposed\":0},"
    "{\"code_line\":2,\"inst\":\"global_load_dword v0, v1, s[0:1]\",\"class\":\"vmem_load\",\"source\":\"/k.py:10\",\"stall\":0,\"exposed\":0},"
    "{\"code_line\":3,\"inst\":\"s_waitcnt vmcnt(0)\",\"class\":\"vmcnt\",\"source\":\"/k.py:10\",\"stall\":4000,\"exposed\":4000},"
    "{\"code_line\":4,\"inst\":\"v_add_f32 v0, v0, v2\",\"class\":\"valu\",\"source\":\"/k.py:11\",\"stall\":2000,\"exposed\":0}],"
    "\"recommendations\":[]}";

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double num(const cJSON *o, const char *k) { return get(o, k)->valuedouble; }

static void test_self_zero(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse(BEFORE);
    cJSON *d = fp_diff_reports(b, b);
    assert_string_equal(fp_json_get_str(get(d, "verdict"), "overall"), "neutral");
    assert_true(num(get(d, "verdict"), "delta") == 0);
    const cJSON *c;
    cJSON_ArrayForEach(c, get(d, "classes"))
    {
        assert_true(num(get(c, "delta"), "pct") == 0);
        assert_true(num(get(c, "delta"), "stall_per_wave") == 0);
    }
    const cJSON *i = get(d, "instructions");
    assert_int_equal((int)num(i, "matched"), 3);
    assert_int_equal((int)num(i, "changed"), 0);
    assert_int_equal((int)num(i, "moved"), 0);
    cJSON_Delete(d);
    cJSON_Delete(b);
}

static void test_moved_and_improved(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse(BEFORE), *a = cJSON_Parse(AFTER);
    cJSON *d = fp_diff_reports(b, a);
    const cJSON *i = get(d, "instructions");
    assert_int_equal((int)num(i, "matched_by_source"), 3);
    assert_int_equal((int)num(i, "moved"), 3);
    assert_int_equal((int)num(i, "unmatched_after"), 1);
    /* the wait: 2500 -> 1000 per wave; the add: 500 -> 500 (unchanged per wave) */
    assert_int_equal((int)num(i, "changed"), 1);
    const cJSON *top = cJSON_GetArrayItem(get(i, "top_changes"), 0);
    assert_string_equal(fp_json_get_str(top, "opcode"), "s_waitcnt");
    assert_true(num(top, "delta_stall_per_wave") == -1500);
    assert_true(num(get(top, "before"), "code_line") == 2 && num(get(top, "after"), "code_line") == 3);
    /* acceptance: the line's vmcnt stall per wave 2500 -> 1000 <= 1750: met; scratch 0 < 1: met */
    const cJSON *acc = get(d, "acceptance");
    assert_string_equal(fp_json_get_str(cJSON_GetArrayItem(acc, 0), "verdict"), "met");
    assert_true(num(cJSON_GetArrayItem(acc, 0), "after") == 1000);
    assert_string_equal(fp_json_get_str(cJSON_GetArrayItem(acc, 1), "verdict"), "met");
    /* no durations: the stalled share decides, 60 -> 37.5 is beyond the floor */
    assert_string_equal(fp_json_get_str(get(d, "verdict"), "basis"), "stall_pct");
    assert_string_equal(fp_json_get_str(get(d, "verdict"), "overall"), "improved");
    cJSON_Delete(d);
    /* reversed: regressed */
    d = fp_diff_reports(a, b);
    assert_string_equal(fp_json_get_str(get(d, "verdict"), "overall"), "regressed");
    cJSON_Delete(d);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_noise_floor_and_source_change(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse(BEFORE), *a = cJSON_Parse(BEFORE);
    /* a small change within the floor is neutral */
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "totals"), "stall_pct"),
                         60 + FP_DIFF_NOISE_STALL_PTS / 2);
    /* every source location changed: the opcode fallback still pairs the instructions,
     * and the line acceptance test becomes undecidable */
    const cJSON *ins;
    cJSON_ArrayForEach(ins, cJSON_GetObjectItem(a, "instructions"))
        cJSON_ReplaceItemInObject((cJSON *)ins, "source", cJSON_CreateString("/k.py:99"));
    cJSON *d = fp_diff_reports(b, a);
    assert_string_equal(fp_json_get_str(get(d, "verdict"), "overall"), "neutral");
    const cJSON *i = get(d, "instructions");
    assert_int_equal((int)num(i, "matched"), 3);
    assert_int_equal((int)num(i, "matched_by_source"), 0);
    assert_string_equal(fp_json_get_str(cJSON_GetArrayItem(get(d, "acceptance"), 0), "verdict"), "unknown");
    cJSON_Delete(d);
    cJSON_Delete(a);
    cJSON_Delete(b);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
