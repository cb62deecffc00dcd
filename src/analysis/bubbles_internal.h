/*
 * bubbles_internal.h - state shared by bubbles.c (the walk), waitcnt.c (the
 * per-wave instruction pass and producer attribution) and exposed.c (the
 * per-SIMD sweep). Not a public header.
 */
#ifndef FLYPROF_BUBBLES_INTERNAL_H
#define FLYPROF_BUBBLES_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>

#include "flyprof/bubbles.h"
#include "flyprof/mem.h"


/* The class of a wave-end drain interval in the stall list (docs/exposed-stall.md): past
 * the real classes, so it is never an index into fp_bubbles.classes. */
#define BUB_CLS_DRAIN ((int32_t)FP_CL_COUNT)

/* An interval of one wave of the current SIMD group: an instruction in flight (the union
 * of its issue windows) or a stall (or, class BUB_CLS_DRAIN, the wait at s_endpgm). */
typedef struct bub_iv {
    int64_t t0, t1;
    int32_t wave; /* index into the group's waves */
    int32_t cls;  /* stall: dynamic class */
    int64_t row;  /* stall: code row position */
} bub_iv;

/* One sweep event, 16 bytes: the sweep holds the events of every resident wave. */
typedef struct bub_ev {
    int64_t t;
    uint32_t idx;  /* stall events: index into the wave's stalls */
    uint32_t kind; /* EV_* in exposed.c */
} bub_ev;

typedef struct bub_stall {
    int64_t row, len;
    int32_t cls, line;
} bub_stall;

/* What the runs of one wave share: a wave read whole is one run, a wave read in chunks
 * (issue 22) one run per chunk, and its in-flight count is the wave's, not a run's. */
typedef struct bub_wst {
    int wexec; /* the wave's issue spans open at the sweep time */
    int refs;  /* runs holding it, + 1 while the wave is being read */
} bub_wst;

/* A resident run of a wave's events, time-ordered, consumed by the merge. Every interval
 * has both its events in one run, so a run retires with nothing of it active. */
typedef struct bub_rwave {
    bub_ev *ev;
    size_t n, k, cap_ev;
    bub_stall *st;
    size_t n_st, cap_st;
    int cu;      /* index into bub_ctx.cus */
    bub_wst *ws; /* its wave's */
} bub_rwave;

typedef struct bub_active {
    const bub_rwave *rw;
    uint32_t idx;
    int64_t row;
    int32_t cls, line;
} bub_active;

/* Sweep state of one CU of the current (SE, SIMD) group. */
typedef struct bub_cu {
    int cu;
    size_t simd_idx; /* its fp_bub_simd */
    bool started;
    int64_t t;       /* time of the last applied event */
    int exec;        /* in-flight spans open */
    bub_active *active;  /* stalled executions */
    size_t na, cap_active;
    bub_active *drain;   /* waves in their s_endpgm drain */
    size_t nd, cap_drain;
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

typedef struct bub_ctx {
    fp_bubbles *b;
    fp_bub_warn_fn warn;
    void *user;
    /* per code row */
    fp_class *row_static;
    unsigned char *row_wait;     /* 1: a counter wait */
    unsigned char *row_nopipe;   /* 1: occupies no pipe (waits, s_nop, s_barrier, messages) */
    fp_waitcnt_fields *row_wf;   /* parsed wait fields */
    uint32_t *last_stamp;        /* == stamp: row executed in the current wave */
    bub_exe *last_exe;           /* its most recent execution in the wave's stream */
    uint32_t stamp;
    /* fp_counter_of(class, category) for the decoder's categories, looked up per record */
    unsigned char cnt_of[FP_CL_COUNT][BUB_CATS];
    /* current SIMD group */
    int g_active, g_se, g_simd;
    bub_iv *st, *ex; /* the current wave's intervals */
    bool ex_unsorted;  /* an issue window started before the previous span ended */
    size_t n_st, cap_st, n_ex, cap_ex;
    /* streaming sweep (exposed.c) */
    bub_cu *cus;
    size_t n_cus, cap_cus;
    bub_rwave **heap, **free_rw;
    size_t n_heap, cap_heap, n_free, cap_free;
    bub_ev *tmp_ev;
    size_t cap_tmp;
    bub_wst *cur_ws;       /* the wave being read (its runs so far) */
    bub_wst **free_ws;
    size_t n_free_ws, cap_free_ws;
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
    /* accumulate(): a lost SIMD cycle counts once per class, instruction and line; these
     * marks (== mark_gen: already counted in this interval) replace a scan of the
     * earlier stalls for each one. Allocated on first use, per worker. */
    uint32_t *mark_cls, *mark_row, *mark_line, mark_gen;
    /* warnings already given */
    int warned_missing, warned_unknown;
} bub_ctx;

void fp_bub_ctx_init(bub_ctx *c, fp_bubbles *b, fp_bub_warn_fn warn, void *user);
void fp_bub_ctx_free(bub_ctx *c);
/* waitcnt.c: one wave's instruction stream (sums, attribution, stall intervals). */
void fp_bub_wave_insts(bub_ctx *c, const fp_wave *w, int gi);
/* The same in pieces, for a wave read in chunks: begin (has_waits: the wave carries
 * decoder entries; q: their first window, copied), then each chunk of records in stream
 * order, then end with the wave's total entry count. fp_bub_wave_insts is exactly
 * begin + one chunk + end. */
void fp_bub_wave_begin(bub_ctx *c, bool has_waits, const bub_waits *q);
void fp_bub_wave_chunk(bub_ctx *c, const fp_wave_inst *rec, size_t n, int gi);
void fp_bub_wave_end(bub_ctx *c, int64_t entries_total);
/* the per-worker tables (last_stamp, last_exe) of a ctx that shares another's rows */
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

/* Inline: called once per wave record, in fp_bub_wave_insts' loop. */
static inline void fp_bub_window(bub_ctx *c, const fp_wave_inst *r, size_t row, int64_t stall)
{
    int64_t t0 = r->time + stall, t1 = r->time + (r->dur > stall ? r->dur : stall);
    if (t1 <= t0)
        return;
    if (c->row_nopipe[row] || fp_bub_cat_nopipe(r->cat)) {
        if (c->row_static[row] == FP_CL_DRAIN) { /* the exit waits for outstanding memory */
            FP_GROW(c->st, c->n_st, c->cap_st);
            c->st[c->n_st++] = (bub_iv){t0, t1, 0, BUB_CLS_DRAIN, (int64_t)row};
            c->b->drain_stall += t1 - t0;
            c->b->drain_waves++;
        }
        return;
    }
    if (c->n_ex) {
        bub_iv *last = &c->ex[c->n_ex - 1];
        if (t0 <= last->t1 && t0 >= last->t0) {
            if (t1 > last->t1)
                last->t1 = t1; /* overlaps the window before: one in-flight span */
            return;
        }
        c->ex_unsorted |= t0 < last->t1;
    }
    FP_GROW(c->ex, c->n_ex, c->cap_ex);
    c->ex[c->n_ex++] = (bub_iv){t0, t1, 0, 0, 0};
}

/* exposed.c: an instruction that occupies no pipe while it "executes". */
bool fp_bub_isa_nopipe(const char *isa, fp_class cls);
void fp_bub_sweep_flush(bub_ctx *c, int64_t upto);
void fp_bub_sweep_end_group(bub_ctx *c);
void fp_bub_sweep_free(bub_ctx *c);
void fp_bub_split_source(const char *src, char **file, long *line);

#endif
