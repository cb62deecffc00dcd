/*
 * workid.h - what `diff` needs to compare two captures fairly (issue 17 item 6):
 * the identity of the code (report.json "isa": a hash of the instruction texts,
 * of the opcodes alone, and the basic-block starts that give every instruction
 * its position in its block) and the work the traced waves did (report.json
 * "work": per-wave cycles, the main loop's iterations and cycles per iteration,
 * the wave-to-wave spread of each class's share of stall). docs/commands/diff.md
 * says how diff uses them.
 */
#ifndef FLYPROF_WORKID_H
#define FLYPROF_WORKID_H

#include <stdbool.h>
#include <stdint.h>

#include "flyprof/att.h"
#include "flyprof/error.h"
#include "flyprof/report_doc.h"

/* "isa" of a code listing (a new object; NULL when the listing has no instruction). */
fp_report_isa *fp_isa_of(const fp_code *code);

/* The main loop of a listing: among the backward branches that ran more often
 * than the kernel was entered (hits > the first instruction's hits: a backward
 * jump run once per wave is block layout, not a loop), the one whose body
 * (head .. back-edge in code order) has the most latency. false when none. */
typedef struct fp_main_loop {
    int64_t head, back_edge; /* code lines (LineNumber) */
    int64_t iterations;      /* the back-edge's hits */
    const char *source;      /* the back-edge's source (points into code) */
} fp_main_loop;
bool fp_main_loop_of(const fp_code *code, fp_main_loop *out);

/* "work" of the dispatch dir `dir` whose listing is `code`; `rep` gives each
 * executed instruction's class (its instructions[]), for the per-class share
 * spread. Unreadable wave files are skipped (bubbles warns about them). Returns
 * NULL when no wave could be read. */
fp_report_work *fp_work_of(const char *dir, const fp_code *code, const fp_report_doc *rep);

/* n, mean, sample sd, min, max of v[0..n) (all 0 when n == 0). */
fp_report_stat fp_stat_of(const double *v, size_t n);

#endif
