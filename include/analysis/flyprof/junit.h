/*
 * junit.h - `check -f junit`: the comparison as a JUnit XML report (the schema CI systems
 * read: testsuites > testsuite > testcase [failure | skipped]), docs/commands/check.md.
 *
 * One testcase per gated metric: each total of the comparison (stall_pct, exposed_pct,
 * latency_per_wave, time_ns_per_call; skipped when a side lacks it) and each stall
 * class's share. A testcase fails exactly when the --fail-on gate tripped on it: the
 * verdict's basis metric when the gate tripped, and each class whose share grew beyond
 * the noise floor then; so the failures agree with check's exit status.
 */
#ifndef FLYPROF_JUNIT_H
#define FLYPROF_JUNIT_H

#include "flyprof/diff_doc.h"
#include "flyprof/strbuf.h"

void fp_check_junit(const fp_check_doc *d, fp_sb *out);

/* No baseline yet (check without --strict): one skipped testcase "baseline". */
void fp_check_junit_none(const char *kernel, const char *why, fp_sb *out);

/* Text as XML 1.0 character data / attribute value: & < > " ' escaped, characters
 * XML 1.0 cannot hold (C0 controls but TAB, LF, CR) dropped. */
void fp_xml_escape(fp_sb *out, const char *s);

#endif
