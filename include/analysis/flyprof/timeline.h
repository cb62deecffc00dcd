/*
 * timeline.h - the trace as a timeline for Perfetto UI and chrome://tracing
 * (`flyprof timeline`, docs/commands/timeline.md): the Chrome trace event
 * format's JSON object form {"traceEvents": [...], "displayTimeUnit": "ns",
 * "otherData": {...}}.
 *
 * One process per (SE, CU) the traced waves ran on; per traced wave one track
 * (tid 2k+1, "simd S slot L wave N") of its states (EXEC / WAIT / STALL / IDLE
 * slices from the wave file's timeline) and, with detail above `states`, the
 * track right under it (tid 2k+2, "... isa") with its instructions: runs of
 * consecutive instructions of one source line (`lines`) or every instruction
 * (`insts`), named "<opcode> <file.py>:<line>". One process per SE carries the
 * occupancy counter (resident waves from occupancy.json). Timestamps are µs:
 * from realtime.json (each SE's own shader-clock offset and rate), else a
 * given clock in MHz, else 1 cycle = 1 ns (otherData.timebase says which).
 *
 * Memory is bounded by one wave file (a chunk of one past the chunked limit,
 * read in passes) plus code.json: events are streamed to `flush` in 64 KiB
 * pieces as they are made.
 */
#ifndef FLYPROF_TIMELINE_H
#define FLYPROF_TIMELINE_H

#include <signal.h>
#include <stdint.h>

#include "flyprof/att.h"
#include "flyprof/error.h"

typedef enum fp_tl_detail { FP_TL_STATES = 0, FP_TL_LINES, FP_TL_INSTS } fp_tl_detail;

/* The names of the detail levels ("states", "lines", "insts"), NULL-terminated. */
extern const char *const fp_tl_detail_names[];

typedef struct fp_tl_in {
    const char *dir;        /* the dispatch dir */
    const fp_code *code;    /* its code.json (names and sources of the records) */
    fp_tl_detail detail;
    double clock_mhz;       /* used without realtime.json when > 0 */
    const char *kernel;     /* otherData.kernel, may be NULL */
    size_t max_waves;       /* > 0: draw at most this many waves, evenly spaced in file order */
    const volatile sig_atomic_t *interrupted; /* set on SIGINT/SIGTERM: stop between waves (may be NULL) */
} fp_tl_in;

typedef struct fp_tl_stats {
    int64_t waves_listed;   /* wave files of the dispatch */
    int64_t waves, waves_skipped, processes;
    int64_t slices;         /* "X" events */
    int64_t counters;       /* "C" events */
    int64_t clipped;        /* slices shortened or moved so that a track never overlaps itself */
    int64_t bytes;          /* of the JSON written */
    int64_t t0_ns, t1_ns;   /* first and last timestamp (ns of the viewer's axis) */
    const char *timebase;   /* "realtime.json" | "clock" | "cycles" (static) */
    double mhz_min, mhz_max;/* shader clock of the SEs, as realtime.json implies (0 when not) */
    int64_t ses_unaligned;  /* SEs of waves with no realtime.json entry (the first SE's map used) */
    char realtime_error[1024]; /* why realtime.json was not used, "" when it was or is absent */
} fp_tl_stats;

/* Write buffered output; return 0 or an errno value (stops the rendering). */
typedef int (*fp_tl_flush)(void *user, const char *buf, size_t len);

/* Render the whole timeline through flush. Errors: a wave walk that cannot list
 * the dir (as fp_wave_list_dir), occupancy.json malformed (BAD_INPUT), a flush
 * error (IO_ERROR with its errno), *interrupted set (INTERRUPTED, between two
 * waves). Unreadable wave files are skipped and counted. */
int fp_timeline_render(const fp_tl_in *in, fp_tl_flush flush, void *user, fp_tl_stats *st, fp_err *err);

#endif
