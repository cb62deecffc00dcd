/*
 * workdist.h - the traced dispatch's own facts (issue 23 items 1, 5, 8): from
 * occupancy.json (every CU of the traced SEs), realtime.json and the traced waves,
 * bubbles.json's `launch_trace` (waves, CUs and SIMDs used, waves per workgroup,
 * resident waves, the wave span and its time) and `workdist` (per-wave / per-CU
 * work quantiles, the critical wave, imbalance). Pure computation: the bubbles walk
 * collects one fp_wd_wave per traced wave and hands everything here.
 * docs/launch.md and docs/workdist.md give the definitions.
 */
#ifndef FLYPROF_WORKDIST_H
#define FLYPROF_WORKDIST_H

#include <stddef.h>
#include <stdint.h>

#include "flyprof/att.h"
#include "flyprof/bubbles_doc.h"
#include "flyprof/realtime.h"
#include "flyprof/trace_facts_doc.h"
#include "flyprof/wave.h"

/* One wave traced in detail (a wave file), as the walk saw it. */
typedef struct fp_wd_wave {
    int se, cu, simd, slot, id;
    int64_t begin, end;
    int64_t insts;       /* instruction records */
    int64_t iterations;  /* executions of the main loop's head row, -1 without a main loop */
} fp_wd_wave;

/* The wave's summary. iterations: the wave's executions of the main loop's head line, counted by the caller in
 * its pass over the records (bubbles.c), or -1 when there is no main loop. */
void fp_wd_wave_of(const fp_wave *w, int64_t iterations, fp_wd_wave *out);

/* The two blocks (allocated, free with fp_model_free + free; both NULL when occ is
 * NULL or has no SE). rt may be NULL (no realtime.json). waves are reordered. */
void fp_trace_facts(const fp_occupancy *occ, const fp_realtime *rt, fp_wd_wave *waves, size_t n,
                    bool have_loop, fp_launch_trace **lt, fp_workdist **wd);

/* The same in two steps, so the first can run while the waves are read (bubbles.c):
 * fp_trace_facts_occ computes everything that needs occupancy.json and realtime.json
 * only (NULL when occ is NULL or has no SE; occ and rt are not kept),
 * fp_trace_facts_waves adds the traced waves' figures and hands both blocks over
 * (consuming the part; a NULL part gives two NULLs). fp_trace_part_free drops a part
 * not handed over. */
typedef struct fp_trace_part fp_trace_part;
fp_trace_part *fp_trace_facts_occ(const fp_occupancy *occ, const fp_realtime *rt);
/* The same, freeing occ (fp_occupancy_free: left empty) as soon as its events are
 * read, before the per-wave distribution, which needs only the waves: what it allocates
 * then takes their pages (moe_reduce-big: 1.5 MB of events). */
fp_trace_part *fp_trace_facts_occ_drop(fp_occupancy *occ, const fp_realtime *rt);
void fp_trace_facts_waves(fp_trace_part *part, fp_wd_wave *waves, size_t n, bool have_loop, fp_launch_trace **lt,
                          fp_workdist **wd);
void fp_trace_part_free(fp_trace_part *part);

/* Tests and fuzzing only: fp_trace_facts by its reference ways - the sorting way per SE
 * (qsort, no counting passes) instead of dense_se's walk, the selection instead of the
 * counting quantiles, qsort instead of the traced waves' radix order - so the fast ways
 * are compared with them on the same input (fuzz_wave_side); the same results. */
void fp_trace_facts_general(const fp_occupancy *occ, const fp_realtime *rt, fp_wd_wave *waves, size_t n,
                            bool have_loop, fp_launch_trace **lt, fp_workdist **wd);
/* Tests and fuzzing only: fp_trace_facts with the small-keys walk (fp_occ_se.small_keys)
 * taken from one event on, not from the size where it pays: the same results. */
void fp_trace_facts_small_all(const fp_occupancy *occ, const fp_realtime *rt, fp_wd_wave *waves, size_t n,
                              bool have_loop, fp_launch_trace **lt, fp_workdist **wd);

/* Nearest-rank quantiles of v[0..n) (v is reordered: a selection, not a sort). */
void fp_wd_quantiles(double *v, size_t n, fp_wd_quant *q);

/* Each SE's occupancy level over time (bubbles.json's occupancy block: peak, mean, 16
 * buckets) from its events, one entry per occ->ses (allocated, free with free). The
 * _general twin, for tests and fuzzing, takes the reference way (doubles, two passes)
 * on every SE: the same numbers. */
struct fp_bub_occ_se *fp_occ_levels(const fp_occupancy *occ);
struct fp_bub_occ_se *fp_occ_levels_general(const fp_occupancy *occ);

/* bubbles.json's two blocks from the analysis (deep copies; NULL when it has none). */
struct fp_bubbles;
void fp_trace_facts_to_doc(const struct fp_bubbles *b, fp_bubbles_doc *d);

#endif
