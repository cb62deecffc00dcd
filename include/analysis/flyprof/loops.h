/*
 * loops.h - the back-edges of a kernel listing and what each one is (issue 23
 * item 6, docs/commands/report.md "Trace representativeness"): a loop is a backward branch whose body
 * executed more than once; a backward branch into an s_endpgm block is an exit,
 * not a loop; a short backward loop around a load/atomic and a compare is a
 * spin-wait (e.g. a split-K semaphore), whose iterations are waiting, not work.
 *
 * From code.json alone (static listing + Hit aggregates over the traced waves).
 */
#ifndef FLYPROF_LOOPS_H
#define FLYPROF_LOOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/att.h"

typedef enum fp_loop_kind {
    FP_LOOP_ITERATED = 0, /* the body ran more than once */
    FP_LOOP_NOT_RUN,      /* a loop no traced wave iterated */
    FP_LOOP_SPIN_WAIT,    /* short poll loop: load/atomic + compare + branch back */
    FP_LOOP_EXIT,         /* a backward branch to an s_endpgm block: an early exit */
    FP_LOOP_KINDS
} fp_loop_kind;

/* "loop", "loop_not_run", "spin_wait", "early_exit" */
const char *fp_loop_kind_name(fp_loop_kind k);

/* A spin-wait body has at most this many instructions. */
#define FP_LOOP_SPIN_MAX 8

typedef struct fp_loop {
    size_t branch_row, head_row; /* code rows: the backward branch and its target */
    int64_t branch_line, head_line; /* their code.json LineNumbers */
    int64_t body;                /* instructions head..branch */
    int64_t taken;               /* times the branch was taken (from the Hit counts) */
    int64_t dyn_insts;           /* executed instructions of the body (sum of Hit) */
    fp_loop_kind kind;
} fp_loop;

typedef struct fp_loops {
    fp_loop *v;
    size_t n;
    long main;                   /* index into v of the main loop (most dyn_insts among
                                  * ITERATED / NOT_RUN), -1 when none */
    size_t counts[FP_LOOP_KINDS];
} fp_loops;

void fp_loops_find(const fp_code *code, fp_loops *out);
void fp_loops_free(fp_loops *l);

#endif
