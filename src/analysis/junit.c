/*
 * junit.c - check's comparison as JUnit XML (junit.h).
 */
#include "flyprof/junit.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void fp_xml_escape(fp_sb *out, const char *s)
{
    static const struct {
        char c;
        const char *ent;
    } ents[] = {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&apos;"}};
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        const char *ent = NULL;
        for (size_t i = 0; i < sizeof ents / sizeof ents[0] && !ent; i++)
            if (*p == (unsigned char)ents[i].c)
                ent = ents[i].ent;
        if (ent)
            fp_sb_adds(out, ent);
        else if (*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r')
            fp_sb_addc(out, (char)*p);
    }
}

/* One testcase's verdict: failed (with why), skipped, or passed. */
typedef struct tcase {
    const char *classname;
    const char *name;
    bool failed, skipped;
    char text[256]; /* before -> after (delta) */
} tcase;

static void emit_case(fp_sb *out, const tcase *c, const char *why)
{
    fp_sb_adds(out, "    <testcase classname=\"");
    fp_xml_escape(out, c->classname);
    fp_sb_adds(out, "\" name=\"");
    fp_xml_escape(out, c->name);
    fp_sb_adds(out, "\" time=\"0\">\n");
    if (c->failed) {
        fp_sb_adds(out, "      <failure type=\"REGRESSED\" message=\"");
        fp_xml_escape(out, why);
        fp_sb_adds(out, "\">");
        fp_xml_escape(out, c->text);
        fp_sb_adds(out, "</failure>\n");
    } else if (c->skipped) {
        fp_sb_adds(out, "      <skipped message=\"");
        fp_xml_escape(out, c->text);
        fp_sb_adds(out, "\"/>\n");
    }
    fp_sb_adds(out, "      <system-out>");
    fp_xml_escape(out, c->text);
    fp_sb_adds(out, "</system-out>\n    </testcase>\n");
}

static tcase total_case(const char *name, const fp_diff_change *ch, const fp_check_doc *d)
{
    tcase c = {.classname = "flyprof.check.totals", .name = name};
    c.skipped = !ch->before.known || !ch->after.known;
    if (c.skipped) {
        snprintf(c.text, sizeof c.text, "%s: not known on both sides", name);
        return c;
    }
    snprintf(c.text, sizeof c.text, "%s: %g -> %g (%+g)", name, ch->before.v, ch->after.v,
             ch->delta.known ? ch->delta.v : ch->after.v - ch->before.v);
    c.failed = d->gate.tripped && d->verdict.basis && !strcmp(d->verdict.basis, name);
    return c;
}

static tcase class_case(const fp_diff_row *r, const fp_check_doc *d)
{
    tcase c = {.classname = "flyprof.check.classes", .name = r->key};
    snprintf(c.text, sizeof c.text, "%s share of stall: %.2f%% -> %.2f%% (%+.2f points%s)", r->key,
             r->before ? r->before->pct : 0.0, r->after ? r->after->pct : 0.0, r->delta.pct,
             r->significant ? ", beyond the noise floor" : "");
    c.failed = d->gate.tripped && r->significant && r->delta.pct > 0;
    return c;
}

void fp_check_junit(const fp_check_doc *d, fp_sb *out)
{
    const fp_diff_totals *t = &d->totals;
    tcase cases[5 + 64];
    size_t n = 0;
    cases[n++] = total_case("time_ns_per_call", &t->time_ns_per_call, d);
    cases[n++] = total_case("stall_pct", &t->stall_pct, d);
    cases[n++] = total_case("exposed_pct", &t->exposed_pct, d);
    cases[n++] = total_case("latency_per_wave", &t->latency_per_wave, d);
    for (size_t i = 0; i < d->nclasses && n < sizeof cases / sizeof cases[0]; i++)
        cases[n++] = class_case(&d->classes[i], d);
    size_t failures = 0, skipped = 0;
    for (size_t i = 0; i < n; i++)
        failures += cases[i].failed, skipped += cases[i].skipped;
    fp_sb suite;
    fp_sb_init(&suite);
    fp_sb_addf(&suite, "flyprof check %s%s%s", d->current.kernel ? d->current.kernel : "?",
               d->current.shape && d->current.shape[0] ? " " : "", d->current.shape ? d->current.shape : "");
    fp_sb_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fp_sb_addf(out, "<testsuites name=\"flyprof check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", n,
               failures, skipped);
    fp_sb_adds(out, "  <testsuite name=\"");
    fp_xml_escape(out, suite.buf);
    fp_sb_addf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"0\">\n", n, failures, skipped);
    fp_sb_adds(out, "    <properties>\n");
    const char *props[][2] = {{"verdict", d->verdict.overall}, {"basis", d->verdict.basis}, {"why", d->verdict.why},
                              {"fail_on", d->gate.fail_on},    {"baseline", d->baseline_ref}, {"db", d->db}};
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
        fp_sb_addf(out, "      <property name=\"%s\" value=\"", props[i][0]);
        fp_xml_escape(out, props[i][1]);
        fp_sb_adds(out, "\"/>\n");
    }
    fp_sb_adds(out, "    </properties>\n");
    for (size_t i = 0; i < n; i++)
        emit_case(out, &cases[i], d->verdict.why);
    fp_sb_adds(out, "  </testsuite>\n</testsuites>\n");
    fp_sb_free(&suite);
}

void fp_check_junit_none(const char *kernel, const char *why, fp_sb *out)
{
    tcase c = {.classname = "flyprof.check", .name = "baseline", .skipped = true};
    snprintf(c.text, sizeof c.text, "no baseline: %s", why ? why : "");
    fp_sb_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fp_sb_adds(out, "<testsuites name=\"flyprof check\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n");
    fp_sb_adds(out, "  <testsuite name=\"flyprof check ");
    fp_xml_escape(out, kernel);
    fp_sb_adds(out, "\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0\">\n");
    emit_case(out, &c, NULL);
    fp_sb_adds(out, "  </testsuite>\n</testsuites>\n");
}
