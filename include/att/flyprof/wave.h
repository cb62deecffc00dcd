/*
 * wave.h - the per-wave files of a decoded ATT dispatch dir, read one at a time.
 *
 * A dispatch dir holds one se<S>_sm<M>_sl<L>_wv<N>.json per traced wave (up to
 * thousands, tens of MB). They are read through one reused 64 KiB window by the fast
 * scanner into ONE reusable fp_wave, and handed to a callback in a deterministic
 * order, so that memory is bounded by the rows of the largest wave (not its bytes:
 * a file is read whole only when the window's scanner declines it) plus what the
 * caller accumulates
 * (../shared/reference/rocprof-formats.md §5.8). Also here: the small side files
 * that describe waves over time (occupancy.json, wstates<k>.json).
 *
 * This layer only reads: it reports malformed files, it never decides policy.
 */
#ifndef FLYPROF_WAVE_H
#define FLYPROF_WAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/strbuf.h"

/* Decoder instruction categories (rocprofiler_thread_trace_decoder_inst_category_t). */
enum {
    FP_CAT_NONE = 0,
    FP_CAT_SMEM = 1,
    FP_CAT_SALU = 2,
    FP_CAT_VMEM = 3,
    FP_CAT_FLAT = 4,
    FP_CAT_LDS = 5,
    FP_CAT_VALU = 6,
    FP_CAT_JUMP = 7,
    FP_CAT_NEXT = 8,
    FP_CAT_IMMED = 9,
    FP_CAT_CONTEXT = 10,
    FP_CAT_MESSAGE = 11, /* s_endpgm: once per complete wave */
    FP_CAT_BVH = 12,
};

/* Wave states of the timeline (rocprofiler_thread_trace_decoder_wstate_type_t). */
enum { FP_WS_EMPTY = 0, FP_WS_IDLE = 1, FP_WS_EXEC = 2, FP_WS_WAIT = 3, FP_WS_STALL = 4, FP_WS_COUNT = 5 };

/* instructions[i] = [time, category, stall, duration, line] */
typedef struct fp_wave_inst {
    int64_t time;  /* cycle of the first issue attempt */
    int64_t stall; /* cycles until issue succeeded */
    int64_t dur;   /* total cycles (stall + issue on gfx9) */
    int64_t line;  /* code.json LineNumber */
    int32_t cat;   /* FP_CAT_* */
} fp_wave_inst;

typedef struct fp_wave_span {
    int32_t state; /* FP_WS_* */
    int64_t dur;
} fp_wave_span;

/* waitcnt[i] = [wait line, [[producer line, 0], ...]]; producers are
 * prods[first .. first + n). One entry per s_waitcnt execution that had
 * something outstanding, in execution order; a combined wait may have one
 * entry per counter kind. */
typedef struct fp_wave_wait {
    int64_t line;
    size_t first, n;
} fp_wave_wait;

typedef struct fp_wave_sink fp_wave_sink; /* wave.c: reading in chunks */

typedef struct fp_wave {
    /* identity: se/simd/slot/id from the file name, cu from the content */
    int se, simd, slot, id, cu;
    int64_t begin, end;
    bool has_waitcnt; /* the "waitcnt" key was present (possibly empty) */
    fp_wave_inst *insts;
    size_t n_insts, cap_insts;
    fp_wave_span *spans;
    size_t n_spans, cap_spans;
    fp_wave_wait *waits;
    size_t n_waits, cap_waits;
    int64_t *prods;
    size_t n_prods, cap_prods;
    /* read in chunks (fp_wave_chunked): insts[0] is the wave's row inst_base */
    size_t inst_base;
    fp_wave_sink *sink;
} fp_wave;

void fp_wave_init(fp_wave *w);
void fp_wave_free(fp_wave *w);
/* Parse one wave file's bytes into w (its arrays are reused). Malformed,
 * truncated or wrongly typed -> BAD_INPUT naming `name`. */
int fp_wave_parse(fp_wave *w, const char *buf, size_t len, const char *name, fp_err *err);
/* The same with the general tokenizer only: fp_wave_parse() tries a fast scanner
 * for the decoder's exact layout first and falls back to this on anything else
 * (exposed so tests can check both paths agree). */
int fp_wave_parse_jscan(fp_wave *w, const char *buf, size_t len, const char *name, fp_err *err);
/* The walk's way on a document in memory: the fast scanner through a window of `win`
 * bytes (>= 64) refilled as it goes - fp_wave_walk reads each file so, in 64 KiB, and
 * never holds a whole large file - then fp_wave_parse on anything it does not accept
 * (*windowed, if given, says whether the window's scanner accepted it). The same
 * result as fp_wave_parse for every input and window (tests, fuzzing). */
int fp_wave_parse_windowed(fp_wave *w, const char *buf, size_t len, size_t win, bool *windowed, const char *name,
                           fp_err *err);

/* Tests and fuzzing: true makes the parsers above take the baseline (SSE2, or
 * scalar) row scanner even where the CPU has the AVX2 one, so both are checked
 * against jscan on any machine; false (the default) takes the best there is.
 * Results never depend on it. */
void fp_wave_baseline_rows(bool on);

/* One wave file name, parsed. */
typedef struct fp_wave_file {
    char *name; /* se0_sm1_sl2_wv3.json */
    int se, simd, slot, id;
    size_t pos;     /* position in the (se, simd, slot, id) order of fp_wave_list_dir */
    bool regular;   /* a regular file (from the directory listing) */
    bool has_begin; /* filenames.json lists it with an integer begin cycle */
    int64_t begin;  /* that begin cycle */
} fp_wave_file;

/* Parse "se<S>_sm<M>_sl<L>_wv<N>.json" strictly (decimal, no extra text). */
bool fp_wave_name_parse(const char *name, int *se, int *simd, int *slot, int *id);

typedef struct fp_wave_list {
    fp_wave_file *files; /* ordered by (se, simd, slot, id) numerically */
    size_t n;
    /* cross-check with filenames.json */
    bool filenames_json;   /* present and readable */
    size_t listed;         /* entries in filenames.json wave_filenames */
    size_t listed_missing; /* listed there but absent from the dir */
    size_t unlisted;       /* on disk but not listed there */
} fp_wave_list;

/* List the wave files of dir in deterministic numeric order and cross-check
 * filenames.json (absent or malformed filenames.json is not an error here). */
int fp_wave_list_dir(const char *dir, fp_wave_list *out, fp_err *err);
void fp_wave_list_free(fp_wave_list *l);
/* Tests and fuzzing only: fp_wave_list_dir by its reference ways - qsort by (se, simd,
 * slot, id, name), filenames.json through jscan, the name-sorted merge - instead of the
 * radix order, the fscan reader and the pairing by numbers, so both are compared on the
 * same directory (fuzz_filenames_json); the same result. */
int fp_wave_list_dir_general(const char *dir, fp_wave_list *out, fp_err *err);

/* Called once per readable wave; return non-zero to stop the walk (that value
 * is returned by fp_wave_walk). */
typedef int (*fp_wave_cb)(void *user, const fp_wave_file *f, const fp_wave *w);
/* Called once per unreadable wave file (skipped); err holds why. */
typedef void (*fp_wave_skip_cb)(void *user, const fp_wave_file *f, const fp_err *err);

/* Read every file of `list` in order, one at a time, through one reusable window
 * (fp_wave_parse_windowed; a file the window's scanner declines is read whole). */
int fp_wave_walk(const char *dir, const fp_wave_list *list, fp_wave_cb cb, fp_wave_skip_cb skip,
                 void *user);

/* The same with the read buffer and the parsed wave kept across calls (many
 * short walks, e.g. one per (SE, SIMD) group, without re-growing them). */
/* ---- a wave too big to hold (issue 22: one 549 MB file took 2.4 GB) ----
 * A walker given a fp_wave_chunked reads a wave whose rows pass `limit` twice through its
 * window, never holding more than `rows` rows: pass 1 hands every chunk of rows and of
 * timeline spans to scan_rows / scan_spans; then begin() gets the header (w->begin, end,
 * cu, has_waitcnt; no rows) and the number of waitcnt entries, with a cursor over them;
 * pass 2 hands the rows again, chunk by chunk, to rows(); end() closes (ok: pass 2 read
 * the file as pass 1 did). Only the decoder's own layout is read so (the window's fast
 * scanner); a file it declines is read whole as before. Callbacks return 0 to go on;
 * begin() 1 skips the rest of the wave, -1 has it read whole instead (nothing of it may
 * have been kept); any other value stops the walk with that value. */
typedef struct fp_wave_wcur fp_wave_wcur;
/* The next up to `max` waitcnt entries (replacing the last ones); false when none is
 * left, or the file no longer reads (then fp_wave_wcur_failed). */
bool fp_wave_wcur_next(fp_wave_wcur *wc, size_t max, const fp_wave_wait **e, const int64_t **prods, size_t *n);
bool fp_wave_wcur_failed(const fp_wave_wcur *wc);

typedef struct fp_wave_chunked {
    size_t limit, rows;
    int (*scan_rows)(void *user, const fp_wave_file *f, const fp_wave *w);
    int (*scan_spans)(void *user, const fp_wave_file *f, const fp_wave *w);
    int (*begin)(void *user, const fp_wave_file *f, const fp_wave *w, int64_t n_waits, fp_wave_wcur *wc);
    int (*rows_cb)(void *user, const fp_wave_file *f, const fp_wave *w);
    int (*end)(void *user, const fp_wave_file *f, const fp_wave *w, bool ok);
} fp_wave_chunked;

/* The sizes every chunked reader uses: waves past 2^18 rows (10 MiB of rows) go in chunks of
 * 2^16; FLYPROF_WAVE_CHUNK_ROWS=N (N >= 64; tests) sets both to N. */
#define FP_WAVE_CHUNK_LIMIT ((size_t)1 << 18)
#define FP_WAVE_CHUNK_ROWS ((size_t)1 << 16)
void fp_wave_chunked_sizes(fp_wave_chunked *ck);

/* For a chunked reader's begin(): the timeline spans of wave file f of dir once more, in
 * order, up to `rows` (>= 64) at a time in w->spans[0 .. w->n_spans) to fn (a third pass:
 * the rows and waitcnt entries are read but dropped), for a reader that must have the
 * header before the spans (flyprof timeline, report.html). 0 read; -1 the window's scanner
 * no longer reads the file (it changed since pass 1: what fn was given is to be dropped)
 * or it cannot be opened; else fn's nonzero return, which stops the pass. */
int fp_wave_spans_chunked(const char *dir, const fp_wave_file *f, size_t rows, int (*fn)(void *user, const fp_wave *w),
                          void *user);

typedef struct fp_wave_walker {
    fp_sb buf;
    fp_wave w;
    const fp_wave_chunked *chunked; /* NULL: every wave is read whole */
} fp_wave_walker;
void fp_wave_walker_init(fp_wave_walker *wk);
void fp_wave_walker_free(fp_wave_walker *wk);
int fp_wave_walk_with(fp_wave_walker *wk, const char *dir, const fp_wave_list *list, fp_wave_cb cb,
                      fp_wave_skip_cb skip, void *user);

/* ---- occupancy.json: per SE, [time, cu, simd, slot, start, kernel_idx] events ---- */
typedef struct fp_occ_event {
    int64_t time;
    int32_t cu, simd, slot, start;
} fp_occ_event;

typedef struct fp_occ_se {
    int se;
    fp_occ_event *ev; /* sorted by time (stable) */
    size_t n;
    /* set by fp_occupancy_parse only, when it saw that every event's cu, simd and slot
     * are 0..9 and its time in [0, 10^8) (what rocprofv3 writes): the launch facts then
     * skip a pass over the events (workdist.c one_se); false says nothing */
    bool small_keys;
} fp_occ_se;

typedef struct fp_occupancy {
    fp_occ_se *ses; /* ordered by SE number */
    size_t n;
} fp_occupancy;

/* Absent file -> NO_ARTIFACT; malformed -> BAD_INPUT. */
int fp_occupancy_load(const char *dir, fp_occupancy *out, fp_err *err);
/* The same on a document in memory: a fast path for the layout rocprofv3 writes,
 * falling back to the jscan reader (fp_occupancy_parse_jscan, kept callable so
 * tests can check that the two agree) on anything else. */
int fp_occupancy_parse(const char *buf, size_t len, fp_occupancy *out, fp_err *err);
int fp_occupancy_parse_jscan(const char *buf, size_t len, fp_occupancy *out, fp_err *err);
void fp_occupancy_free(fp_occupancy *o);

/* The same events without keeping them (occstream.c): for each SE array in file
 * order, fn(user, se, NULL) and then its events in time order (equal times: ends
 * first, each kind in file order, as the loader's stable sort). Constant memory.
 * 0 done; 1 not the plain rocprofv3 layout (times going back, a repeated SE, a
 * row it cannot read, malformed): nothing is promised about the events already
 * given, use fp_occupancy_load; -1 no file (NO_ARTIFACT) or not a regular file. */
typedef void (*fp_occ_stream_fn)(void *user, int se, const fp_occ_event *ev);
int fp_occupancy_stream(const char *dir, fp_occ_stream_fn fn, void *user, fp_err *err);

/* ---- wstates<k>.json: a step function of the number of traced waves in state k ---- */
/* Integral of the step function (wave-cycles in that state). Absent -> NO_ARTIFACT.
 * A product or sum beyond int64 saturates and sets *saturated. A repeated
 * "state"/"time" key replaces the earlier array. */
int fp_wstates_integral(const char *dir, int state, int64_t *out, bool *saturated, fp_err *err);
/* The whole-file (jscan) reader alone, on the document in buf, without the streaming
 * passes: fp_wstates_integral's reference for anything the passes decline. Exposed for
 * tests and fuzzing (fuzz_wave_side compares both on every input), as the other _jscan
 * twins are; the commands reach it only through fp_wstates_integral. */
int fp_wstates_parse_jscan(const char *buf, size_t len, int state, int64_t *out, bool *saturated, fp_err *err);

#endif
