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


/* An interval of one wave of the current SIMD group: issue (EXEC) or stall. */
typedef struct bub_iv {
    int64_t t0, t1;
    int32_t wave; /* index into the group's waves */
    int32_t cls;  /* stall: dynamic class */
    int64_t row;  /* stall: code row position */
} bub_iv;

typedef struct bub_gwave {
    int cu;
    int64_t begin, end;
} bub_gwave;

/* Outstanding-counter replay (fallback when the decoder gave no edges). gfx9
 * vmcnt is at most 63 and lgkmcnt 15: deeper queues cannot be waited on. */
#define BUB_REPLAY_CAP 64

typedef struct bub_ctx {
    fp_bubbles *b;
    fp_bub_warn_fn warn;
    void *user;
    /* per code row */
    fp_class *row_static;
    unsigned char *row_wait;     /* 1: a counter wait */
    fp_waitcnt_fields *row_wf;   /* parsed wait fields */
    uint32_t *last_stamp;        /* == stamp: row executed in the current wave */
    size_t *last_i;              /* its most recent position in the wave's stream */
    uint32_t stamp;
    /* current SIMD group */
    int g_active, g_se, g_simd;
    bub_iv *st, *ex;
    size_t n_st, cap_st, n_ex, cap_ex;
    bub_gwave *gw;
    size_t n_gw, cap_gw;
    /* pair hash: open addressing over b->pairs indices (+1, 0 = empty) */
    size_t *ptab;
    size_t ptab_cap;
    /* scratch for one wait's producers */
    size_t *prod_i;
    size_t cap_prod;
    /* scratch: executions a wait retires by counter replay */
    size_t *ret_i;
    size_t cap_ret;
    /* warnings already given */
    int warned_missing, warned_unknown;
} bub_ctx;

void fp_bub_ctx_init(bub_ctx *c, fp_bubbles *b, fp_bub_warn_fn warn, void *user);
void fp_bub_ctx_free(bub_ctx *c);
/* waitcnt.c: one wave's instruction stream (sums, attribution, stall intervals). */
void fp_bub_wave_insts(bub_ctx *c, const fp_wave *w, int gi);
/* exposed.c: sweep the buffered intervals of the current group into exposed/lost. */
void fp_bub_sweep_group(bub_ctx *c);
void fp_bub_split_source(const char *src, char **file, long *line);

#endif
