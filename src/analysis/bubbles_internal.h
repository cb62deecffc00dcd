/*
 * bubbles_internal.h - state shared by bubbles.c (the walk), waitcnt.c (the
 * per-wave instruction pass and producer attribution) and exposed.c (the
 * per-SIMD sweep). Not a public header.
 */
#ifndef FLYPROF_BUBBLES_INTERNAL_H
#define FLYPROF_BUBBLES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "flyprof/bubbles.h"
#include "flyprof/mem.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h> /* bub_rec_bits_avx2 */
#endif


/* The class of a wave-end drain interval in the stall list (docs/exposed-stall.md): past
 * the real classes, so it is never an index into fp_bubbles.classes. */
#define BUB_CLS_DRAIN ((int32_t)FP_CL_COUNT)

/* A stall of one wave of the current SIMD group (or, class BUB_CLS_DRAIN, the wait at
 * s_endpgm). */
typedef struct bub_iv {
    int64_t t0, t1;
    int32_t wave; /* index into the group's waves */
    int32_t cls;  /* stall: dynamic class */
    int64_t row;  /* stall: code row position */
} bub_iv;

/* An in-flight span of the wave being read (the union of its issue windows): 16 bytes,
 * not a bub_iv's 32 (the largest wave of flash_attn_func-big has ~4,900 of them: ~19
 * fresh pages fewer a worker). */
typedef struct bub_span {
    int64_t t0, t1;
} bub_span;

/* One sweep item of a wave, 24 bytes, keyed by t (exposed.c, "the sweep"): the wave's
in-flight span [t, e) when e != BUB_EV_NOSPAN, the stall (or drain) that closes at t and
the one that opens at t. A stall during which its own wave has nothing in flight ("clean",
the usual one) only reads the CU's nothing-in-flight clock c0, which is the same at t and
at e while the span lasts: so a clean stall opening where a span ends opens in the span's
item, and the usual wave is one item per span (a stall ends where its issue window starts,
the next starts where that span ends). */
typedef struct bub_ev {
    int64_t t;
    int64_t e;      /* end of the span starting at t, BUB_EV_NOSPAN: none */
    uint32_t close; /* BUB_EV_UNCLEAN | (1 + index into the wave's stalls, BUB_EV_DRAIN), 0: none */
    uint32_t open;  /* ditto, of the one opening */
} bub_ev;
#define BUB_EV_NOSPAN INT64_MIN
#define BUB_EV_UNCLEAN 0x80000000u /* its wave may be in flight while it lasts: c0 + c1 */
#define BUB_EV_CODE 0x7FFFFFFFu    /* the code without that bit */
#define BUB_EV_DRAIN 0x7FFFFFFFu   /* the wave's s_endpgm drain (drains need no index) */
#define BUB_EV_MAX_STALLS 0x7FFFFFFDu /* stalls of one wave an item can name */

/* An open stall (or drain, idx BUB_OPEN_DRAIN) of a resident wave: snap is its wave's
 * exposed-time clock when it opened (exposed.c). */
typedef struct bub_open {
    uint32_t idx;
    int64_t snap;
} bub_open;
#define BUB_OPEN_DRAIN UINT32_MAX

/* What the runs of one wave share: a wave read whole is one run, a wave read in chunks
 * (issue 22) one run per chunk, and its in-flight state and clocks are the wave's. */
typedef struct bub_wst {
    int64_t c1;      /* cycles it alone was in flight (counted while an unclean stall is open) */
    int64_t span_hi; /* the end of the last span its runs so far hold */
    int refs;        /* runs holding it, + 1 while the wave is being read */
} bub_wst;

/* A resident run of a wave's events, time-ordered, consumed by the merge; its stalls are
 * the c->st intervals of its pass (or chunk), taken over (no copy). Every interval has
 * both its events in one run, so a run retires with none of its stalls open. */
typedef struct bub_rwave {
    bub_ev *ev;
    const bub_ev *at; /* its next item */
    size_t n, cap_ev;
    bub_iv *st;
    size_t n_st, cap_st;
    bub_open *open; /* its stalls and drains open at the sweep time */
    size_t n_open, cap_open;
    bool single;    /* built by build_run: at most one open, open[0] (exposed.c) */
    int cu;       /* index into bub_ctx.cus */
    struct bub_cu *cs;         /* &cus[cu] and its SIMD's results (exposed.c cu_state keeps */
    struct fp_bub_simd *cur;   /* them current when the arrays move) */
    bub_wst *ws;  /* its wave's */
} bub_rwave;

/* A heap entry: a resident wave and the time of its next event (kept here, so a heap
 * step compares without following the wave's pointers). */
typedef struct bub_hent {
    int64_t t;
    bub_rwave *r;
} bub_hent;

/* Per lost-cycle key (class, code row, line; exposed.c key_*) of one CU: how many stalls
 * with it are open, and the CU's nothing-in-flight clock when the first of them opened. */
typedef struct bub_key {
    int64_t mark;
    int64_t cnt;
} bub_key;
typedef struct bub_keys {
    bub_key *k;
    size_t line0; /* the key of line 0: past the classes and the code rows */
} bub_keys;

/* Sweep state of one CU of the current (SE, SIMD) group, swept in item order (exposed.c):
 * c0 the cycles with nothing in flight up to the last item's time; q the larger of that
 * time and the latest end of the spans so far (every cycle before q is counted in c0 or
 * covered), the end of wave who1's span when later than that time; m2 the second latest
 * span end: a cycle t after every span start so far has exactly one wave in flight iff
 * m2 <= t < q (that wave who1); those cycles go to who1->c1 from p on while n_uncl
 * unclean stalls are open. */
typedef struct bub_cu {
    int cu;
    size_t simd_idx; /* its fp_bub_simd */
    int64_t c0, q, m2, p;
    struct bub_wst *who1;
    size_t n_uncl;
    size_t na, nd;   /* open stalls, open drains */
    int64_t mark_na, mark_nd; /* c0 when the first of them opened */
    const bub_rwave *solo_w;  /* the open stall (solo_w, solo_idx) opened with no other open: */
    uint32_t solo_idx;        /* its keys are not counted unless another one opens */
    bub_keys *keys;  /* while it has resident waves (from a pool) */
    size_t n_waves;  /* its resident waves */
} bub_cu;

/* Outstanding-counter replay (fallback when the decoder gave no edges). gfx9
 * vmcnt is at most 63 and lgkmcnt 15: deeper queues cannot be waited on. */
#define BUB_REPLAY_CAP 64

#define BUB_CATS 16 /* decoder categories 0..12 (FP_CAT_*), rounded up */

/* One execution of a wave record, as much as a later wait needs of it: the records
 * themselves may be gone (a wave read in chunks keeps one chunk). */
typedef struct bub_exe {
    uint64_t i;  /* index in the wave's stream */
    int64_t rel; /* time + stall: when it issued */
    uint32_t row;
    int32_t cat;
} bub_exe;

typedef struct bub_ring {
    bub_exe v[BUB_REPLAY_CAP];
    size_t head, n;
} bub_ring;

/* The decoder's waitcnt entries of the wave in progress, a window of them: e[k..n) are
 * not yet matched; when a wave is read in chunks, `more` replaces the window with the
 * next entries (false: none left). */
typedef struct bub_waits {
    const fp_wave_wait *e;
    const int64_t *prods;
    size_t n, k;
    int64_t matched; /* entries consumed by matching so far (the wave's whole stream) */
    bool (*more)(void *user, struct bub_waits *q);
    void *user;
} bub_waits;

/* A code.json LineNumber (0 .. max_index) as the instruction pass sees it: what it asks
 * of a record's line, built once per dispatch (fp_bub_inst_tables_init), and the pass's
 * per-row sums, per worker, so a record costs one lookup and no branch on its kind. The
 * decoder category of a record selects bit k of each 16-bit field of `cat`, k = its
 * category when 0..12, else BUB_CAT_OTHER (for every other value fp_counter_of takes its
 * class's default, and no such category is no-pipe). */
typedef struct bub_line {
    uint64_t cat;    /* per category k: bit k counts on vmcnt, 16+k on lgkmcnt, 32+k its issue
                      * window occupies no pipe, 48+k ... and is an s_endpgm drain */
    /* the worker's sums of the row's w_hit, w_stall, w_latency, folded into b->insts by
     * fp_bub_inst_fold (with class_cycles[cls] += stall for a row that is no wait); apart
     * in memory, so the compiler keeps them three scalar adds (no vector pair) */
    int64_t hit;
    uint64_t last_g; /* its latest execution (bub_ctx.g_wave) */
    int64_t stall;
    uint32_t row;    /* its code row, BUB_LINE_NONE: the line is not in code.json */
    uint8_t cls;     /* the row's static class */
    uint8_t rare;    /* BUB_LINE_WAIT: a counter wait (wait_record), BUB_LINE_UNKNOWN: row NONE */
    uint8_t kbit;    /* as a named producer: 1 << its counter (category key BUB_CAT_OTHER), 0: row NONE */
    uint8_t pad;
    int64_t lat;
    /* per category key k, what the pass does with a record (BUB_F_*): `cat` and `rare`
     * folded into one byte, so a record costs one load and one test for every rare path
     * (64 bytes in all: a line's address is one shift) */
    uint8_t fl[BUB_CATS];
} bub_line;
#define BUB_F_VM 1u      /* joins the vmcnt queue */
#define BUB_F_LGKM 2u    /* joins the lgkmcnt queue */
#define BUB_F_NOPIPE 4u  /* its issue window occupies no pipe */
#define BUB_F_DRAIN 8u   /* ... and is an s_endpgm drain */
#define BUB_F_WAIT 16u   /* a counter wait (wait_record; VM and LGKM are 0) */
#define BUB_F_UNKNOWN 32u /* the line is not in code.json (every key) */
#define BUB_F_MEM (BUB_F_VM | BUB_F_LGKM)
#define BUB_F_RARE (BUB_F_MEM | BUB_F_DRAIN | BUB_F_WAIT | BUB_F_UNKNOWN) /* off the plain loop (with NOPIPE) */
#define BUB_LINE_NONE UINT32_MAX
#define BUB_LINE_WAIT 1u
#define BUB_LINE_UNKNOWN 2u
#define BUB_CAT_OTHER 15u
#define BUB_LB_VM 0
#define BUB_LB_LGKM 16
#define BUB_LB_NOPIPE 32
#define BUB_LB_DRAIN 48
/* The ORs over n records (bubbles.c wave_scan): of every time, stall and dur (a value at
 * or past some power of two, or negative, shows in it), of every line as unsigned and of
 * every cat as unsigned (the instruction pass indexes its tables by them without a clamp
 * when the ORs show them in range: waitcnt.c wave_pass_direct). */
typedef struct bub_rec_or {
    uint64_t cyc;
    uint64_t line;
    uint32_t cat;
} bub_rec_or;
/* The portable way. */
static inline bub_rec_or bub_rec_bits_scalar(const fp_wave_inst *r, size_t n)
{
    uint64_t acc = 0, line = 0;
    uint32_t cat = 0;
    for (const fp_wave_inst *end = r + n; r < end; r++) {
        acc |= (uint64_t)r->time | (uint64_t)r->stall | (uint64_t)r->dur;
        line |= (uint64_t)r->line;
        cat |= (uint32_t)r->cat;
    }
    return (bub_rec_or){acc, line, cat};
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The same with 32-byte ORs: 4 records are 160 bytes, 5 loads, and qword q of such a block
 * is field q % 5 of its record (time, stall, dur, line, cat with the padding above it), so
 * each of the 5 loads of a block ORs into its own accumulator and every lane keeps one
 * field; the records past the last whole block are read the scalar way. */
__attribute__((target("avx2"))) static inline bub_rec_or bub_rec_bits_avx2(const fp_wave_inst *r, size_t n)
{
    _Static_assert(sizeof(fp_wave_inst) == 40 && offsetof(fp_wave_inst, time) == 0 &&
                       offsetof(fp_wave_inst, stall) == 8 && offsetof(fp_wave_inst, dur) == 16 &&
                       offsetof(fp_wave_inst, line) == 24 && offsetof(fp_wave_inst, cat) == 32,
                   "bub_rec_bits_avx2 reads a block of 4 records as 20 qwords, field q % 5");
    size_t nb = n / 4;
    const char *p = (const char *)r, *end = p + nb * 160;
    /* two blocks a step, each into accumulators of its own: every OR takes its load along */
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0, b4 = a0;
#define BUB_OR_BLOCK(x, o)                                                                                             \
    do {                                                                                                               \
        x##0 = _mm256_or_si256(x##0, _mm256_loadu_si256((const __m256i *)(p + (o))));                                 \
        x##1 = _mm256_or_si256(x##1, _mm256_loadu_si256((const __m256i *)(p + (o) + 32)));                            \
        x##2 = _mm256_or_si256(x##2, _mm256_loadu_si256((const __m256i *)(p + (o) + 64)));                            \
        x##3 = _mm256_or_si256(x##3, _mm256_loadu_si256((const __m256i *)(p + (o) + 96)));                            \
        x##4 = _mm256_or_si256(x##4, _mm256_loadu_si256((const __m256i *)(p + (o) + 128)));                           \
    } while (0)
    if (nb & 1) { /* the odd block first: the loop's accumulators stay where they are */
        BUB_OR_BLOCK(a, 0);
        p += 160;
    }
    for (; p < end; p += 2 * 160) {
        BUB_OR_BLOCK(a, 0);
        BUB_OR_BLOCK(b, 160);
    }
#undef BUB_OR_BLOCK
    a0 = _mm256_or_si256(a0, b0);
    a1 = _mm256_or_si256(a1, b1);
    a2 = _mm256_or_si256(a2, b2);
    a3 = _mm256_or_si256(a3, b3);
    a4 = _mm256_or_si256(a4, b4);
    /* the fields by lane: a0 (time, stall, dur, line), a1 (cat, time, stall, dur), a2 (line,
     * cat, time, stall), a3 (dur, line, cat, time), a4 (stall, dur, line, cat) */
    const __m256i zero = _mm256_setzero_si256();
    __m256i cyc = _mm256_or_si256(_mm256_blend_epi32(a0, zero, 0xC0), _mm256_blend_epi32(a1, zero, 0x03));
    cyc = _mm256_or_si256(cyc, _mm256_or_si256(_mm256_blend_epi32(a2, zero, 0x0F), _mm256_blend_epi32(a3, zero, 0x3C)));
    cyc = _mm256_or_si256(cyc, _mm256_blend_epi32(a4, zero, 0xF0));
    /* lanes: line from a2, a3, a4, a0; cat from a1, a2, a3, a4 */
    __m256i line = _mm256_blend_epi32(_mm256_blend_epi32(_mm256_blend_epi32(a2, a3, 0x0C), a4, 0x30), a0, 0xC0);
    __m256i cat = _mm256_blend_epi32(_mm256_blend_epi32(_mm256_blend_epi32(a1, a2, 0x0C), a3, 0x30), a4, 0xC0);
    bub_rec_or o = bub_rec_bits_scalar(r + nb * 4, n % 4);
/* the OR of the 4 lanes of a vector */
#define BUB_OR_LANES(v, x)                                                                                             \
    (x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)),                                      \
     _mm_cvtsi128_si64(_mm_or_si128(x, _mm_unpackhi_epi64(x, x))))
    __m128i x;
    o.cyc |= (uint64_t)BUB_OR_LANES(cyc, x);
    o.line |= (uint64_t)BUB_OR_LANES(line, x);
    o.cat |= (uint32_t)BUB_OR_LANES(cat, x); /* the padding is the upper half */
#undef BUB_OR_LANES
    return o;
}
#endif
/* The best of the two on this CPU (the same value). */
static inline bub_rec_or bub_rec_bits(const fp_wave_inst *r, size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2"))
        return bub_rec_bits_avx2(r, n);
#endif
    return bub_rec_bits_scalar(r, n);
}

/* k of a record's category (above) */
static inline unsigned bub_cat_key(int32_t cat) { return (uint32_t)cat <= FP_CAT_BVH ? (uint32_t)cat : BUB_CAT_OTHER; }

typedef struct bub_ctx {
    fp_bubbles *b;
    fp_bub_warn_fn warn;
    void *user;
    /* per code row */
    fp_class *row_static;
    unsigned char *row_wait;     /* 1: a counter wait */
    unsigned char *row_nopipe;   /* 1: occupies no pipe (waits, s_nop, s_barrier, messages) */
    fp_waitcnt_fields *row_wf;   /* parsed wait fields */
    bub_exe *last_exe;           /* its most recent execution, saved at a chunk's end */
    /* fp_counter_of(class, category) for the decoder's categories, looked up per record */
    unsigned char cnt_of[FP_CL_COUNT][BUB_CATS];
    /* the instruction pass's per-line table (fp_bub_inst_tables_init): the ctx that built
     * it owns it, and a worker's copy of the ctx takes its own copy at its first wave */
    bub_line *lines;
    size_t n_lines;
    size_t lines_cap; /* entries of lines: n_lines and sentinels up to a power of two (wave_pass_direct) */
    const struct bub_ctx *lines_owner;
    /* a row ran in the wave in progress iff its line's last_g > g_wave: last_g is g_wave +
     * its index in the wave + 1 (no per-wave reset); the record itself is read from the
     * chunk in progress, or from last_exe (kept at a chunk's end) */
    uint64_t g_wave, g_next;
    const fp_wave_inst *ck_rec; /* the chunk in progress, its first record's index ck_wi0 */
    uint64_t ck_wi0;
    /* current SIMD group */
    int g_active, g_se, g_simd;
    bub_iv *st;      /* the current wave's stalls */
    bub_span *ex;    /* ... and in-flight spans */
    bool ex_unsorted;  /* an issue window started before the previous span ended */
    size_t n_st, cap_st, n_ex, cap_ex;
    /* streaming sweep (exposed.c) */
    bub_cu *cus;
    size_t n_cus, cap_cus;
    bub_hent *heap; /* resident waves by next event time */
    bool heap_unsorted; /* false: the heap is an ascending array (few resident waves: exposed.c) */
    bub_rwave **free_rw;
    size_t n_heap, cap_heap, n_free, cap_free;
    bub_ev *tmp_ev;
    size_t cap_tmp;
    int64_t g_flushed;     /* events before this time are swept */
    bool order_broken;     /* a wave had an event before g_flushed: redo unbounded */
    size_t resident_events, peak_resident_events;
    const int64_t *watermark; /* per walk position (bubbles.c plan_walk) */
    bool bounded_pass;        /* the walk goes by begin inside dated groups */
    const fp_wave_file *walk_files;
    size_t cur_pos;           /* listing position of the wave being read */
    /* pair hash: open addressing over b->pairs indices (+1, 0 = empty) */
    size_t *ptab;
    size_t ptab_cap;
    /* scratch for one wait's producers */
    bub_exe *prod;
    size_t cap_prod;
    /* scratch: executions a wait retires by counter replay */
    bub_exe *ret;
    size_t cap_ret;
    /* the wave in progress (fp_bub_wave_begin .. fp_bub_wave_end): its records may come
     * in chunks, so everything that spans records lives here, not in the records */
    bub_ring vmq, lgq;   /* outstanding vector / LDS-SMEM-message executions */
    uint64_t wave_i;     /* index in the wave's stream of the next record */
    bool replay;         /* no decoder entries: producers by counter replay alone */
    bub_waits wq;        /* decoder entries not yet matched, wq.k the next */
    bub_wst *cur_ws;     /* the sweep state of the wave being read (its runs so far) */
    bub_wst ws_gone;     /* who1 of a CU whose latest span's wave has retired (exposed.c) */
    bub_wst **free_ws;
    size_t n_free_ws, cap_free_ws;
    /* the sweep's per-key counters of CUs without resident waves, for reuse */
    bub_keys **keys_free;
    size_t n_keys_free, cap_keys_free;
    /* warnings already given */
    int warned_missing, warned_unknown;
} bub_ctx;

void fp_bub_ctx_init(bub_ctx *c, fp_bubbles *b, fp_bub_warn_fn warn, void *user);
/* The same with the per-row classification split over two threads when jobs >= 2 (and
 * code.json has enough rows); the tables are the same for any jobs. */
void fp_bub_ctx_init_jobs(bub_ctx *c, fp_bubbles *b, fp_bub_warn_fn warn, void *user, int jobs);
void fp_bub_ctx_free(bub_ctx *c);
/* waitcnt.c: one wave's instruction stream (sums, attribution, stall intervals). Every
 * record's stall is >= 0, taken as it is (a clamp per record cost the loop a register):
 * the walk refuses a wave with a value out of range before it gets here (bubbles.c
 * wave_scan, records_insane). o: bub_rec_bits of its records, NULL: not known (the pass
 * then clamps every line and category). */
void fp_bub_wave_insts(bub_ctx *c, const fp_wave *w, int gi, const bub_rec_or *o);
/* The same in pieces, for a wave read in chunks: begin (has_waits: the wave carries
 * decoder entries; q: their first window, copied), then each chunk of records in stream
 * order, then end with the wave's total entry count. fp_bub_wave_insts is exactly
 * begin + one chunk + end. */
void fp_bub_wave_begin(bub_ctx *c, bool has_waits, const bub_waits *q);
void fp_bub_wave_chunk(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi, const bub_rec_or *o);
void fp_bub_wave_end(bub_ctx *c, int64_t entries_total);
/* waitcnt.c: the instruction pass's tables of a dispatch (from fp_bub_ctx_init, after
 * the per-row classes), and their end (from fp_bub_ctx_free; a worker's copy frees only
 * what it allocated itself). */
void fp_bub_inst_tables_init(bub_ctx *c);
void fp_bub_inst_tables_free(bub_ctx *c);
/* c (a copy of `from`, before any wave) takes over from's table instead of making its own
 * at its first wave: one table of 64 bytes per line (and the sentinels up to a power of
 * two) fewer, written once. `from` keeps no table (it reads none after). */
void fp_bub_inst_tables_adopt(bub_ctx *c, bub_ctx *from);
/* c (a copy of another ctx) makes its own table unless it has one (adopted, or made by an
 * earlier call): before anything reads it (fp_bub_line_hits) and before its first wave. */
void fp_bub_inst_tables_own(bub_ctx *c);
/* The pass's sums so far into c->b->insts (then 0): before anything reads them there. */
void fp_bub_inst_fold(bub_ctx *c);
/* The wave pass's executions so far of a line (not yet folded), 0 for a line not in code.json. */
int64_t fp_bub_line_hits(const bub_ctx *c, int64_t line);
/* the per-worker tables (last_exe) of a ctx that shares another's rows */
void fp_bub_ctx_own_tables(bub_ctx *c);
/* exposed.c: the streaming sweep of the current (SE, SIMD) group. add_wave takes
 * the current wave's c->ex / c->st intervals (and leaves them to be reset);
 * flush sweeps every event before `upto`; end_group sweeps the rest. */
void fp_bub_sweep_add_wave(bub_ctx *c, int cu, int64_t begin, int64_t end, size_t pos);
/* A chunk of a wave read in chunks: its intervals so far become a run now, except the
 * last in-flight span (the next chunk's first window may still join it); returns the
 * earliest time any later event of the wave can have if its records stay in time order
 * (the caller may flush up to there). add_wave ends the wave as for a wave read whole. */
int64_t fp_bub_sweep_add_chunk(bub_ctx *c, int cu, int64_t next_record_time);
/* exposed.c, per record of the current wave (from fp_bub_wave_insts, in record order):
 * its issue window joins the wave's in-flight union in c->ex, an s_endpgm's drain goes to
 * c->st; windows_done repairs the union when records came out of time order. */
void fp_bub_windows_done(bub_ctx *c);

/* Decoder categories that occupy no pipe: IMMED (s_waitcnt, s_nop, s_barrier,
 * s_sleep, s_setprio) and MESSAGE (s_endpgm, s_sendmsg). */
static inline bool fp_bub_cat_nopipe(int cat) { return cat == FP_CAT_IMMED || cat == FP_CAT_MESSAGE; }

/* exposed.c: an instruction that occupies no pipe while it "executes". */
bool fp_bub_isa_nopipe(const char *isa, fp_class cls);
void fp_bub_sweep_flush(bub_ctx *c, int64_t upto);
void fp_bub_sweep_end_group(bub_ctx *c);
void fp_bub_sweep_free(bub_ctx *c);
void fp_bub_split_source(const char *src, char **file, long *line);

/* bubbles.c's side jobs (wstates<k>.json, occupancy.json + realtime.json) start before
 * code.json is parsed and stop between files when the pass no longer wants them (an
 * early error, a misdated wave, a signal). For tests, a probe: called before each file
 * a job reads, with what the job checks to stop, and the count of files they began. */
typedef struct bub_side_probe {
    void (*hook)(void *user, bool (*stopping)(const void *job), const void *job);
    void *user;
    _Atomic size_t files;
} bub_side_probe;
/* fp_bubbles_analyze_cancel with a probe (NULL: none, as fp_bubbles_analyze_cancel). */
int fp_bub_analyze_probed(const char *dir, fp_rank_by rank_by, fp_bubbles *out, fp_bub_warn_fn warn, void *user,
                          int jobs, const volatile sig_atomic_t *cancel, bub_side_probe *probe, fp_err *err);

#endif
