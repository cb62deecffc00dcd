/*
 * test_sarif.c - the SARIF log (sarif.h, sarif_doc.h) and the JUnit XML escape (junit.h):
 * source "file:line" -> location relative to --source-root / absolute file: URI /
 * percent-encoded; the driver holds every knob rule plus the regression rules with
 * ruleIndex pointing at them; levels from the estimated gain; XML escaping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "flyprof/junit.h"
#include "flyprof/rules.h"
#include "flyprof/sarif.h"

static void loc(const char *src, const char *root, const char *uri, const char *base, int line)
{
    fp_sarif_location l;
    assert_true(fp_sarif_location_of(src, root, &l));
    assert_string_equal(l.uri, uri);
    if (base)
        assert_string_equal(l.uri_base_id, base);
    else
        assert_null(l.uri_base_id);
    assert_int_equal(l.start_line, line);
    free(l.uri);
    free(l.uri_base_id);
}

static void test_locations(void **state)
{
    (void)state;
    loc("/ws/FlyDSL/kernels/gemm.py:65", "/ws/FlyDSL", "kernels/gemm.py", "SRCROOT", 65);
    loc("/ws/FlyDSL/kernels/gemm.py:65", "/ws/FlyDSL/", "kernels/gemm.py", "SRCROOT", 65);
    loc("/ws/FlyDSLx/k.py:3", "/ws/FlyDSL", "file:///ws/FlyDSLx/k.py", NULL, 3); /* a sibling is not under */
    loc("/ws/a b/k%.py:7", NULL, "file:///ws/a%20b/k%25.py", NULL, 7);
    loc("kernels/k.py:9", "/r", "kernels/k.py", "SRCROOT", 9);
    fp_sarif_location l;
    assert_false(fp_sarif_location_of("/ws/k.py", NULL, &l));     /* no line */
    assert_false(fp_sarif_location_of("/ws/k.py:0", NULL, &l));   /* SARIF lines start at 1 */
    assert_false(fp_sarif_location_of("/ws/k.py:1x", NULL, &l));
    assert_false(fp_sarif_location_of(NULL, NULL, &l));
}

static void test_log(void **state)
{
    (void)state;
    fp_report_doc r;
    memset(&r, 0, sizeof r);
    r.kernel = "k";
    fp_report_rec recs[3];
    memset(recs, 0, sizeof recs);
    fp_report_hottest hot = {.source = "/ws/k.py:12", .inst = "s_waitcnt vmcnt(0)"};
    const char *ids[3] = {"vmem_prefetch", "grid_fill", "no_such_rule"};
    double gains[3] = {12.5, 3.0, 50};
    for (int i = 0; i < 3; i++) {
        recs[i].rank = i + 1;
        recs[i].rule = (char *)ids[i];
        recs[i].est_gain_pct = fp_optd_of(gains[i]);
        recs[i].knob = "knob";
        recs[i].bubble_class = "vmcnt";
        recs[i].confidence_label = "high";
        recs[i].acceptance.text = "accept";
    }
    recs[0].evidence.hottest = &hot;
    r.recs = recs;
    r.nrecs = 3;
    fp_sarif_log log;
    fp_sarif_init(&log, "9.9.9", "/ws");
    fp_sarif_add_report(&log, &r, "/ws");
    fp_sarif_run *run = &log.runs[0];
    assert_int_equal(run->nrules, fp_rules_count + 2);
    assert_string_equal(run->rules[fp_rules_count].id, "regressed_line");
    assert_string_equal(run->tool_version, "9.9.9");
    assert_int_equal(run->nbases, 1);
    assert_string_equal(run->bases[0].uri, "file:///ws/");
    assert_int_equal(run->nresults, 2); /* a rule the driver does not know gives no result */
    for (size_t i = 0; i < run->nresults; i++)
        assert_string_equal(run->rules[run->results[i].rule_index].id, run->results[i].rule_id);
    assert_string_equal(run->results[0].level, "error");   /* >= 10 % */
    assert_string_equal(run->results[1].level, "warning"); /* >= 3 % */
    assert_int_equal(run->results[0].nlocations, 1);
    assert_string_equal(run->results[0].locations[0].uri, "k.py");
    assert_int_equal(run->results[1].nlocations, 0);
    fp_sb out;
    fp_sb_init(&out);
    fp_sarif_print(&log, &out); /* frees the log */
    assert_non_null(strstr(out.buf, "\"$schema\":\t\"https://json.schemastore.org/sarif-2.1.0.json\""));
    assert_non_null(strstr(out.buf, "\"startLine\":\t12"));
    fp_sb_free(&out);
}

static void test_xml_escape(void **state)
{
    (void)state;
    fp_sb sb;
    fp_sb_init(&sb);
    fp_xml_escape(&sb, "a<b>&\"c'\x01\x1b[31m\tz\n");
    assert_string_equal(sb.buf, "a&lt;b&gt;&amp;&quot;c&apos;[31m\tz\n");
    fp_sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_log),
        cmocka_unit_test(test_xml_escape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
