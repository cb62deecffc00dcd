/*
 * wave.c - streaming reader of the per-wave files of an ATT dispatch dir, plus
 * occupancy.json and wstates<k>.json.
 *
 * The one idea: never hold more than one wave file. fp_wave_walk() reads each
 * file into the same buffer and tokenizes it with jscan into the same fp_wave
 * (arrays grow once, then are reused), so 4,000 files cost one allocation each
 * for the path and nothing else.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "flyprof/fs.h"
#include "flyprof/fscan.h"
#include "flyprof/jscan.h"
#include "flyprof/json.h"
#include "flyprof/mem.h"
#include "flyprof/order.h"
#include "flyprof/satmath.h"
#include "flyprof/wave.h"


void fp_wave_init(fp_wave *w) { memset(w, 0, sizeof *w); }

void fp_wave_free(fp_wave *w)
{
    if (!w)
        return;
    free(w->insts);
    free(w->spans);
    free(w->waits);
    free(w->prods);
    memset(w, 0, sizeof *w);
}

static int wbad(fp_err *err, const char *name, fp_jscan *js, const char *what)
{
    if (js->tok == FP_JT_ERROR && js->error[0])
        return fp_err_set(err, FP_BAD_INPUT, "%s: invalid JSON: %s", name, js->error);
    return fp_err_set(err, FP_BAD_INPUT, "%s: %s at byte %zu", name, what, fp_js_offset(js));
}

/* Next token must be an integer. */
static bool next_int(fp_jscan *js, int64_t *v)
{
    if (fp_js_next(js) != FP_JT_NUMBER || !js->num_is_int)
        return false;
    *v = js->inum;
    return true;
}

/* Read an array of small int arrays: each row's first `want` ints go to out,
 * extra cells are skipped. Returns rows read or -1. The opening '[' has been read. */
typedef bool (*row_fn)(fp_wave *w, const int64_t *v, int nv);

static bool put_inst(fp_wave *w, const int64_t *v, int nv)
{
    if (nv < 5)
        return false;
    FP_GROW(w->insts, w->n_insts, w->cap_insts);
    fp_wave_inst *r = &w->insts[w->n_insts++];
    r->time = v[0];
    r->cat = (int32_t)(v[1] < 0 || v[1] > 1000 ? 0 : v[1]);
    r->stall = v[2];
    r->dur = v[3];
    r->line = v[4];
    return true;
}

static bool put_span(fp_wave *w, const int64_t *v, int nv)
{
    if (nv < 2)
        return false;
    FP_GROW(w->spans, w->n_spans, w->cap_spans);
    fp_wave_span *s = &w->spans[w->n_spans++];
    s->state = (int32_t)(v[0] < 0 || v[0] >= FP_WS_COUNT ? FP_WS_EMPTY : v[0]);
    s->dur = v[1];
    return true;
}

static int read_rows(fp_jscan *js, fp_wave *w, row_fn put, int want)
{
    int64_t v[8];
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_ARR_END)
            return 0;
        if (t != FP_JT_ARR_BEGIN)
            return -1;
        int nv = 0;
        for (;;) {
            t = fp_js_next(js);
            if (t == FP_JT_ARR_END)
                break;
            if (t != FP_JT_NUMBER || !js->num_is_int)
                return -1;
            if (nv < want)
                v[nv] = js->inum;
            nv++;
        }
        if (!put(w, v, nv < want ? nv : want))
            return -1;
    }
}

/* waitcnt: [[line, [[prod, count], ...]], ...] */
static int read_waits(fp_jscan *js, fp_wave *w)
{
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_ARR_END)
            return 0;
        if (t != FP_JT_ARR_BEGIN)
            return -1;
        int64_t line;
        if (!next_int(js, &line))
            return -1;
        if (fp_js_next(js) != FP_JT_ARR_BEGIN)
            return -1;
        FP_GROW(w->waits, w->n_waits, w->cap_waits);
        fp_wave_wait *e = &w->waits[w->n_waits++];
        e->line = line;
        e->first = w->n_prods;
        e->n = 0;
        for (;;) {
            t = fp_js_next(js);
            if (t == FP_JT_ARR_END)
                break;
            if (t != FP_JT_ARR_BEGIN)
                return -1;
            int64_t p;
            if (!next_int(js, &p))
                return -1;
            /* the second element (a count the tool always writes as 0) and any extras */
            for (;;) {
                t = fp_js_next(js);
                if (t == FP_JT_ARR_END)
                    break;
                if (t == FP_JT_ERROR || !fp_js_skip(js))
                    return -1;
            }
            FP_GROW(w->prods, w->n_prods, w->cap_prods);
            w->prods[w->n_prods++] = p;
            e->n++;
        }
        if (fp_js_next(js) != FP_JT_ARR_END) /* extra cells after the producer list */
            return -1;
    }
}

static int parse_wave_obj(fp_jscan *js, fp_wave *w, const char *name, fp_err *err)
{
    bool seen_insts = false;
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_OBJ_END)
            break;
        if (t != FP_JT_STRING)
            return wbad(err, name, js, "expected a key in \"wave\"");
        int64_t v;
        if (fp_js_str_eq(js, "instructions")) {
            if (fp_js_next(js) != FP_JT_ARR_BEGIN || read_rows(js, w, put_inst, 5) != 0)
                return wbad(err, name, js, "\"instructions\" is not an array of 5-integer rows");
            seen_insts = true;
        } else if (fp_js_str_eq(js, "timeline")) {
            if (fp_js_next(js) != FP_JT_ARR_BEGIN || read_rows(js, w, put_span, 2) != 0)
                return wbad(err, name, js, "\"timeline\" is not an array of [state, duration] rows");
        } else if (fp_js_str_eq(js, "waitcnt")) {
            fp_jtok t2 = fp_js_next(js);
            if (t2 == FP_JT_NULL)
                continue;
            if (t2 != FP_JT_ARR_BEGIN || read_waits(js, w) != 0)
                return wbad(err, name, js, "\"waitcnt\" is not an array of [line, [[producer, n]...]]");
            w->has_waitcnt = true;
        } else if (fp_js_str_eq(js, "begin") || fp_js_str_eq(js, "end") || fp_js_str_eq(js, "cu")) {
            char k = js->str[0];
            if (!next_int(js, &v))
                return wbad(err, name, js, "wave begin/end/cu is not an integer");
            if (k == 'b')
                w->begin = v;
            else if (k == 'e')
                w->end = v;
            else
                w->cu = (int)(v < 0 || v > 1 << 20 ? -1 : v);
        } else {
            fp_js_next(js);
            if (!fp_js_skip(js))
                return wbad(err, name, js, "bad value");
        }
    }
    if (!seen_insts)
        return fp_err_set(err, FP_BAD_INPUT, "%s: \"wave\" has no \"instructions\"", name);
    return 0;
}


/* ---- the fast path ----
 *
 * Wave files are ~99 % rows of small integers. This scanner reads exactly the
 * shape the decoder writes - an object of scalars plus "wave": {scalars,
 * "instructions"/"timeline": [[int,...],...], "waitcnt": [[int,[[int,int],...]],...]}
 * - with whitespace allowed anywhere, straight into the fp_wave arrays with no
 * per-token calls (the scalar pieces are include/core/flyprof/fscan.h's, shared with
 * code.json's fast path). Anything else (escapes in strings, nested unknown values, floats or >18-digit integers where an integer is wanted,
 * malformed input of any kind) makes it return -1 and fp_wave_parse() starts
 * over with jscan, which produces the result or the error message. So the fast
 * path never decides anything jscan would decide differently: it only accepts
 * documents both read identically, and on those it fills the same fields in the
 * same order (repeated keys append or override exactly as parse_wave_obj does).
 */

/* The fast path reads through a window (issue 22: a 549 MB wave file took the whole
 * file in memory besides its rows). wsrc's first member is the cursor the scanners
 * take, so they reach the window through it; ahead() runs only between complete
 * tokens (at the start of a row, a key or a value) and keeps WIN_AHEAD bytes in
 * view by moving the unread tail to the front and reading behind it. A token longer
 * than that, or any read trouble, runs into the window's end, which every scanner
 * treats as "no more input": the parse fails and fp_wave_walk reads the whole file
 * and starts over, exactly as before. A document in memory is a window at EOF. */
#define WIN_AHEAD ((size_t)64 << 10)
#define WIN_SIZE ((size_t)1 << 20)
/* The walk's window over a file read whole (stream_wave_file) is smaller: every page of
 * the window that read() fills is a fresh one the first time (the kernel's copy faults it
 * in), and a 1 MiB window took in each worker's largest file whole (flash_attn_func-big:
 * up to 420 KB, ~100 pages a worker). 64 KiB filled, refilled when fewer than 8 KiB are
 * left (the tail moved to the front: at most 8 KiB per refill): flash_attn_func-big, 1 job,
 * 1,041 -> ~950 page faults for +45 K instructions (+0.06 %: more reads and moves). A
 * token longer than WALK_AHEAD (no row of the decoder's is near it) only sends the file
 * the whole-file way, which reads it the same. */
#define WALK_FILL ((size_t)64 << 10)
#define WALK_AHEAD ((size_t)8 << 10)

typedef struct wsrc {
    fp_fc c;     /* first: the scanners get &s->c */
    char *buf;   /* the window (NULL: the whole document is in c) */
    size_t cap;  /* its size */
    size_t need; /* bytes ahead() keeps in view: WIN_AHEAD (< cap) */
    int fd;      /* read from here, or (fd < 0) copied from mem */
    const char *mem;
    size_t mem_len;
    size_t total; /* bytes read so far */
    bool eof, failed;
    /* NUL bytes kept after c.e (the window's own buffer has room for them; 0 for a
     * document in memory): the row scanners may read them - a NUL ends no row, so
     * none is ever taken past c.e - and take the rows of a file's last ROW_WINDOW
     * bytes too (a small file's tail went the per-token way) */
    size_t pad;
} wsrc;

/* What room() hands chunks to (see fp_wave_chunked in wave.h). */
struct fp_wave_sink {
    int (*rows)(void *user, fp_wave *w);  /* a full chunk of w->insts */
    int (*spans)(void *user, fp_wave *w); /* a full chunk of w->spans (NULL: dropped) */
    void *user;
    size_t limit;       /* sizing: rows past which a wave is too big (0: none) */
    bool chunking;      /* chunks handed over rather than arrays grown */
    bool too_big;       /* sizing found the wave past the limit */
    int stop;           /* a callback's nonzero return */
    int64_t waits_seen; /* entries counted while chunking */
    size_t waits_off;   /* file offset of the first entry */
};

static ssize_t src_read(wsrc *s, char *to, size_t n)
{
    if (s->fd >= 0)
        return read(s->fd, to, n);
    size_t k = s->mem_len - s->total < n ? s->mem_len - s->total : n;
    memcpy(to, s->mem + s->total, k);
    return (ssize_t)k;
}

static __attribute__((noinline)) void src_more(wsrc *s)
{
    size_t left = (size_t)(s->c.e - s->c.p);
    memmove(s->buf, s->c.p, left);
    s->c.p = s->buf;
    while (left < s->cap && !s->eof) {
        ssize_t n = src_read(s, s->buf + left, s->cap - left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->eof = true;
            s->failed |= n < 0;
            break;
        }
        left += (size_t)n;
        s->total += (size_t)n;
        if (s->total > FP_MAX_INPUT_FILE) { /* too big: the whole-file read words the error */
            s->eof = s->failed = true;
            left = 0;
        }
    }
    s->c.e = s->buf + left;
    memset(s->buf + left, 0, s->pad);
}

static inline void ahead(fp_fc *c)
{
    wsrc *s = (wsrc *)c;
    if (!s->eof && (size_t)(c->e - c->p) < s->need)
        src_more(s);
}

/* fp_fc_close over the window: the closing '}' and then only whitespace up to EOF. */
static bool src_close(fp_fc *c)
{
    wsrc *s = (wsrc *)c;
    ahead(c);
    if (!fp_fc_lit(c, '}'))
        return false;
    for (;;) {
        fp_fc_ws(c);
        if (c->p != c->e)
            return false;
        if (s->eof)
            return !s->failed;
        src_more(s);
    }
}

/* Room for one more row in an array of w, the rarely taken branch of every append of the
 * fast path. Without a sink: grow. With one (fp_wave_walk_with's chunked reading, issue
 * 22: a wave too big to hold): while sizing, a wave past the sink's row limit is "too big"
 * (the parse stops: it is read again in chunks); while chunking, a full array of rows or
 * spans is handed to the sink and emptied, and waitcnt entries are only counted (they are
 * read apart, through their own cursor: fp_wave_wcur). */
enum { ROOM_INSTS, ROOM_SPANS, ROOM_WAITS, ROOM_PRODS };

static __attribute__((noinline)) bool make_room(fp_wave *w, int kind)
{
    fp_wave_sink *s = w->sink;
    if (s && s->chunking) {
        int rc = 0;
        switch (kind) {
        case ROOM_INSTS:
            rc = s->rows ? s->rows(s->user, w) : 0;
            w->inst_base += w->n_insts;
            w->n_insts = 0;
            break;
        case ROOM_SPANS:
            rc = s->spans ? s->spans(s->user, w) : 0;
            w->n_spans = 0;
            break;
        case ROOM_WAITS:
            s->waits_seen += (int64_t)w->n_waits;
            w->n_waits = 0;
            break;
        default:
            w->n_prods = 0;
            break;
        }
        if (rc)
            s->stop = rc;
        return rc == 0;
    }
    switch (kind) {
    case ROOM_INSTS:
        if (s && s->limit && w->cap_insts >= s->limit) {
            s->too_big = true;
            return false;
        }
        FP_GROW(w->insts, w->n_insts, w->cap_insts);
        break;
    case ROOM_SPANS:
        FP_GROW(w->spans, w->n_spans, w->cap_spans);
        break;
    case ROOM_WAITS:
        FP_GROW(w->waits, w->n_waits, w->cap_waits);
        break;
    default:
        FP_GROW(w->prods, w->n_prods, w->cap_prods);
        break;
    }
    return true;
}

/* The rest of a row after its `want` cells: more integers, then ']'. */
static inline bool f_row_tail(fp_fc *c)
{
    int64_t x;
    while (fp_fc_lit(c, ','))
        if (!fp_fc_int(c, &x))
            return false;
    return fp_fc_lit(c, ']');
}

/* The compact rows the decoder writes, "[int,int,...,int]" with no spaces,
 * parsed without bounds checks inside a window known to hold the longest row
 * this accepts (k cells of <= 8 digits + separators, and the 32 + 8 bytes the
 * vector loads below touch; without SSE2, 6 cells of up to 19 digits and a
 * sign: all < 160 bytes). Returns the position after the
 * row's ']' or NULL: then the row goes the general way (fp_fc_lit/fp_fc_int), which
 * also takes what this declines - signs, 9+ digits, whitespace, extra cells. */
#define ROW_WINDOW 160
/* the scalar row_compact (no SSE2) reads up to 6 cells through fp_fc_ints_compact, then ']' */
_Static_assert(FP_FC_INTS_WINDOW(6) + 1 <= ROW_WINDOW, "row window too small for 6 cells");

/* 1..8 ASCII digits at s (8 bytes readable) to their value, word-at-a-time:
 * the digits are moved to the top of the word (the bytes after them, and any
 * borrow they caused, fall off), then pairs, quads and the octet are combined
 * by three multiplies. */
static inline int64_t swar_digits(const char *s, unsigned len)
{
    uint64_t w;
    memcpy(&w, s, 8);
    w = (w - 0x3030303030303030ull) << (64 - 8 * len);
    w = ((w * 2561) >> 8) & 0x00ff00ff00ff00ffull;
    w = ((w * 6553601) >> 16) & 0x0000ffff0000ffffull;
    return (int64_t)((w * 42949672960001ull) >> 32);
}

/* The compact case of an integer and the separator after it, "123," or
 * "123]", at p with 16 bytes readable: unsigned, 1..8 digits, no leading '0'
 * (8: the cycle counts of a long trace pass 10^7; they went the slow way).
 * The length comes from the first non-digit byte of one 8-byte word (a byte
 * below '0' borrows and one above '9' carries into the bytes after it, never
 * the ones before), the value word-at-a-time. Returns the digits' length, the
 * separator being p[len], or 0: not this case (the caller goes the general
 * way, which decides). A ',' or ']' after the digits also settles jscan's
 * "not followed by '.', 'e' or 'E'". */
static inline unsigned compact_int_sep(const char *p, int64_t *out)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t d = w - 0x3030303030303030ull;
    uint64_t nd = (d | (d + 0x7676767676767676ull)) & 0x8080808080808080ull;
    unsigned len = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
    if (len == 0 || (p[len] != ',' && p[len] != ']'))
        return 0;
    if (len == 1) {
        *out = *p - '0';
    } else {
        if (*p == '0')
            return 0;
        *out = swar_digits(p, len);
    }
    return len;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* One row from the bit mask of the non-digits among the 16 or 32 bytes after
 * its '[': cell i ends at the i-th non-digit, which must be ',' (']' for the
 * last), with 1..8 digits before it and no leading '0' unless the cell is "0".
 * Sentinel bits from just past the mask on stand for "not looked at": a cell
 * running into the first is either too long (declined) or ends at that byte,
 * which is then checked like any separator; a cell after it meets the next
 * sentinel at once (empty: declined), so the mask never runs out (ctz of 0).
 * Only unsigned cells of <= 8 digits: anything else is declined (NULL), never
 * misread. */
static inline const char *row_compact(const char *p, int64_t *v, int k)
{
    if (*p != '[')
        return NULL;
    const char *q = p + 1;
    const __m128i nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0');
    const __m128i a = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)q), zero);
    uint64_t sep = (uint64_t)(uint16_t)~_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a, nine), a));
    if (k > 2) {
        const __m128i b = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(q + 16)), zero);
        sep |= (uint64_t)(uint16_t)~_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(b, nine), b)) << 16;
        sep |= ~0ull << 32;
    } else {
        sep |= ~0ull << 16;
    }
    uint32_t start = 0;
#pragma GCC unroll 8
    for (int i = 0; i < k; i++) {
        uint32_t s = (uint32_t)__builtin_ctzll(sep);
        sep &= sep - 1;
        uint32_t len = s - start;
        if (len == 1) {
            v[i] = q[start] - '0';
        } else {
            if (len - 2 > 6 || q[start] == '0') /* empty cell (a sign, two separators), 9+ digits, 0-prefix */
                return NULL;
            v[i] = swar_digits(q + start, len);
        }
        if (q[s] != (i + 1 < k ? ',' : ']'))
            return NULL;
        start = s + 1;
    }
    return q + start;
}
#else
static inline const char *row_compact(const char *p, int64_t *v, int k)
{
    /* bounded digit loops: fp_wave_parse's buffer need not end in a NUL */
    const char *q = fp_fc_ints_compact(p, '[', v, k);
    return q && *q == ']' ? q + 1 : NULL;
}
#endif

/* ---- rows in batches ----
 *
 * Where the window holds many rows, the instruction and timeline rows are read in
 * batches: one window check and one capacity check per batch instead of per row
 * (ahead() and FP_GROW were a third of a row's cost), rows written straight into
 * w->insts / w->spans in file order. A batch stops at the first row it does not
 * take; that row goes the per-row way below (row_compact, else fp_fc_lit/fp_fc_int),
 * which decides, so a batch only ever accepts rows the per-row way reads the same.
 * Each row is '[' + cells + ']'; a batch consumes the ',' between rows but never the
 * one after its last row, so the caller's separator handling is unchanged. */
#define BATCH_ROWS 4096
/* the shortest rows: "[0,0,0,0,0]," and "[0,0]," - bounds the rows a window can hold */
#define INST_ROW_MIN 12
#define SPAN_ROW_MIN 6

/* The room for a batch of up to `want` rows (ROOM_INSTS) or spans (ROOM_SPANS) of a wave
 * with a sink, made as make_room() does for one: while sizing, grown but never past the
 * row limit (at it: too big); while chunking, what the chunk has left, after handing a
 * full one over. 0: stop (too big, or a callback's stop). */
static __attribute__((noinline)) size_t sink_batch(fp_wave *w, int kind, size_t want)
{
    bool insts = kind == ROOM_INSTS;
    size_t n = insts ? w->n_insts : w->n_spans, cap = insts ? w->cap_insts : w->cap_spans;
    fp_wave_sink *s = w->sink;
    if (s->chunking) {
        if (n >= cap) {
            if (!make_room(w, kind))
                return 0;
            n = 0;
        }
        return want < cap - n ? want : cap - n;
    }
    if (insts && s->limit && n + want > s->limit) {
        want = s->limit > n ? s->limit - n : 0;
        if (want == 0) {
            s->too_big = true;
            return 0;
        }
    }
    if (insts)
        FP_RESERVE(w->insts, w->n_insts, w->cap_insts, want);
    else
        FP_RESERVE(w->spans, w->n_spans, w->cap_spans, want);
    return want;
}


/* The bytes readable at c->p: the window's and its NUL pad (wsrc.pad). */
static inline size_t view(const fp_fc *c)
{
    return (size_t)(c->e - c->p) + ((const wsrc *)(const void *)c)->pad;
}

/* Where rows may start: ROW_WINDOW readable bytes after each. */
static inline const char *row_lim(const fp_fc *c)
{
    return c->p + (view(c) - ROW_WINDOW);
}

/* Rows a batch may take at p: every row it starts must have ROW_WINDOW bytes after
 * its start, so rows start below row_lim(); at most BATCH_ROWS. */
static inline size_t batch_room(const fp_fc *c, size_t min_row)
{
    size_t avail = view(c);
    if (avail <= ROW_WINDOW)
        return 0;
    size_t n = (avail - ROW_WINDOW) / min_row + 1;
    return n < BATCH_ROWS ? n : BATCH_ROWS;
}

#if defined(__SSE2__)
/* Bit i set: p[i] (i < 32) is not an ASCII digit; bits 32..63 set (sentinels, so
 * a ctz always finds one). */
static inline uint64_t nondigits32(const char *p)
{
    const __m128i nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0');
    const __m128i a = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), zero);
    const __m128i b = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), zero);
    uint32_t d = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a, nine), a)) |
                 (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(b, nine), b)) << 16;
    return ~(uint64_t)d;
}

/* The values of two cells of 1..8 digits, at s0 (n0 digits) and s1 (n1), 8 bytes
 * readable at each, in one register: each cell's digits moved to the top of its
 * 64-bit lane (the bytes after them fall off), then pairs, quads and octets combined
 * by three multiply-adds - swar_digits for two cells at the cost of about one. */
static inline void digits2(const char *s0, unsigned n0, const char *s1, unsigned n1, int64_t *v0, int64_t *v1)
{
    const __m128i x = _mm_sub_epi8(_mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)s0),
                                                      _mm_loadl_epi64((const __m128i *)(const void *)s1)),
                                   _mm_set1_epi8('0'));
    const __m128i a = _mm_sll_epi64(x, _mm_cvtsi32_si128((int)(64 - 8 * n0)));
    const __m128i b = _mm_sll_epi64(x, _mm_cvtsi32_si128((int)(64 - 8 * n1)));
    const __m128i y = _mm_castpd_si128(_mm_move_sd(_mm_castsi128_pd(b), _mm_castsi128_pd(a))); /* a's low lane, b's high */
    const __m128i z = _mm_setzero_si128();
    const __m128i t10 = _mm_set1_epi32(0x0001000a), t100 = _mm_set1_epi32(0x00010064),
                  t10k = _mm_set1_epi32(0x00012710);
    __m128i pairs = _mm_packs_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(y, z), t10), _mm_madd_epi16(_mm_unpackhi_epi8(y, z), t10));
    __m128i quads = _mm_madd_epi16(pairs, t100); /* each <= 9999: fits the next pack */
    __m128i oct = _mm_madd_epi16(_mm_packs_epi32(quads, quads), t10k);
    *v0 = (uint32_t)_mm_cvtsi128_si32(oct);
    *v1 = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(oct, 4));
}

/* The smallest value of n digits without a leading '0' (0 for one digit: "0" is fine). */
static const int64_t min_of_len[9] = {0, 0, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

/* One instruction row "[T,C,S,D,L]" at p (p[0] == '[', ROW_WINDOW bytes readable)
 * from its non-digit mask, the decoder's common shape: C, S and D one digit each
 * (",d,d,d," after T: bits e0..e0+7 of the mask are 1010101 then a digit, the
 * three commas checked in one word), T and L 1..8 digits without a leading '0'
 * (a leading '0' is a value below the smallest of its length). The cells between
 * the mask's separators hold only digits, so each separator's byte and each cell's
 * length is all there is to check. NULL: not this shape, nothing decided (r may be
 * partly written; the caller does not count it). */
static inline const char *inst_common(const char *p, uint64_t nd, fp_wave_inst *r)
{
    unsigned e0 = (unsigned)__builtin_ctzll(nd & ~1ull);
    unsigned lt = e0 - 1;
    if (lt - 1 > 7 || ((nd >> e0) & 0xff) != 0x55)
        return NULL;
    uint64_t w;
    memcpy(&w, p + e0, 8);
    if ((w & 0x00ff00ff00ff00ffull) != 0x002c002c002c002cull)
        return NULL;
    const char *l = p + e0 + 7;
    unsigned ll = (unsigned)__builtin_ctzll(nd >> (e0 + 7));
    if (ll > 8 || l[ll] != ']')
        return NULL;
    int64_t t, line;
    digits2(p + 1, lt, l, ll, &t, &line);
    if (t < min_of_len[lt] || line < min_of_len[ll])
        return NULL;
    const unsigned char *u = (const unsigned char *)p + e0;
    r->time = t;
    r->cat = (int32_t)u[1] - '0';
    r->stall = (int64_t)u[3] - '0';
    r->dur = (int64_t)u[5] - '0';
    r->line = line;
    return l + ll + 1;
}
#endif

/* One instruction row at p (ROW_WINDOW bytes readable) into r, as row_compact +
 * put_inst; NULL as row_compact. */
static inline const char *inst_row(const char *p, fp_wave_inst *r)
{
    int64_t v[5];
    const char *q;
#if defined(__SSE2__)
    if (*p != '[')
        return NULL;
    if ((q = inst_common(p, nondigits32(p), r)) != NULL)
        return q;
#endif
    q = row_compact(p, v, 5);
    if (!q)
        return NULL;
    r->time = v[0];
    r->cat = (int32_t)(v[1] < 0 || v[1] > 1000 ? 0 : v[1]);
    r->stall = v[2];
    r->dur = v[3];
    r->line = v[4];
    return q;
}

/* Up to `room` instruction rows from c->p into r; returns how many. c->p ends after
 * the last row taken (at its following ',' or ']'), or stays at the first row when
 * none was taken. */
static size_t insts_batch(fp_fc *c, fp_wave_inst *r, size_t room)
{
    const char *p = c->p, *lim = row_lim(c), *end = c->p, *q;
    fp_wave_inst *r0 = r, *rend = r + room;
    while (r < rend && p < lim) {
#if defined(__SSE2__)
        /* the common rows in a loop of their own (the other ways' code would crowd its registers) */
        while (*p == '[' && (q = inst_common(p, nondigits32(p), r)) != NULL) {
            r++;
            end = q;
            if (*q != ',' || r == rend || (p = q + 1) >= lim)
                goto out;
        }
#endif
        if (!(q = inst_row(p, r)))
            break;
        r++;
        end = q;
        if (*q != ',')
            break;
        p = q + 1;
    }
#if defined(__SSE2__)
out:
#endif
    c->p = end;
    return (size_t)(r - r0);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_ROWS 1

/* The AVX2 row (issue 22: <= 4 instructions per byte): the common shape of
 * inst_common, found the same way from a 32-byte non-digit mask, then the four
 * int64 cells converted together. One byte shuffle puts T right-aligned in an
 * 8-byte lane and S, D, L in three more (the low 128-bit lane shuffles p[0..16),
 * which holds T, C, S, D; the high one p[e0+5..], which starts at D and holds L),
 * zeroing the rest; then the four cells are converted together (octets_avx2) and
 * stored as time, stall, dur, line - the first four fields of fp_wave_inst, in that
 * order. The shuffle (and the bounds below the smallest values without a leading
 * '0', for the leading-zero test) depend only on T's and L's lengths: same_tab, built by the compiler. */
_Static_assert(offsetof(fp_wave_inst, time) == 0 && offsetof(fp_wave_inst, stall) == 8 &&
                   offsetof(fp_wave_inst, dur) == 16 && offsetof(fp_wave_inst, line) == 24,
               "the AVX2 row stores time, stall, dur, line as one 32-byte vector");
/* byte b of an 8-byte lane: digit 7 - b from the end of a cell of n digits ending at
 * `last` (its last digit's index in the lane's source), or 0x80 (zero) */
#define SH_C(last, n, b) ((7 - (b)) < (n) ? (last) - (7 - (b)) : 0x80)
#define SH_CELL(last, n)                                                                                       \
    SH_C(last, n, 0), SH_C(last, n, 1), SH_C(last, n, 2), SH_C(last, n, 3), SH_C(last, n, 4), SH_C(last, n, 5), \
        SH_C(last, n, 6), SH_C(last, n, 7)
/* low lane, source p[0..16): T at 1..lt, then ",C," and S ending at lt + 3 + ls;
 * high lane, source from D's start: D ending at ld - 1, ',' and L ending at ld + ll */
#define SH_LO(lt, ls) SH_CELL(lt, lt), SH_CELL((lt) + 3 + (ls), ls)
#define SH_HI(ld, ll) SH_CELL((ld) - 1, ld), SH_CELL((ld) + (ll), ll)
#define SH_ROW(M, a) {{M(a, 0)}, {M(a, 1)}, {M(a, 2)}, {M(a, 3)}, {M(a, 4)}, {M(a, 5)}, {M(a, 6)}, {M(a, 7)}, {M(a, 8)}}
#define SH_TAB(M)                                                                                              \
    {SH_ROW(M, 0), SH_ROW(M, 1), SH_ROW(M, 2), SH_ROW(M, 3), SH_ROW(M, 4), SH_ROW(M, 5), SH_ROW(M, 6),          \
     SH_ROW(M, 7), SH_ROW(M, 8)}
/* the common shape's two lanes in one: S and D one digit */
#define SH_COMMON(lt, ll) SH_LO(lt, 1), SH_HI(1, ll)
/* [lt][ll]: the shuffle of a row whose T has lt digits and L ll (0 unused) */
/* [lt][ll]: one below the smallest T, S, D, L of a common row without a leading '0'
 * (min_of_len - 1): every cell must compare greater, one compare-and-test for all four */
#define BELOW_LEN(n)                                                                                           \
    ((n) < 2 ? -1 : (n) == 2 ? 9 : (n) == 3 ? 99 : (n) == 4 ? 999 : (n) == 5 ? 9999 : (n) == 6 ? 99999         \
                                                                     : (n) == 7 ? 999999 : 9999999)
#define BELOW_TL(lt, ll) BELOW_LEN(lt), -1, -1, BELOW_LEN(ll)
/* both in one table, by S's and D's length n, T's end e0 = lt + 1 and ll: one base, one index */
typedef struct common_row {
    unsigned char sh[32];
    int64_t below[4];
} common_row;
/* The rows whose S and D have one length n = 1..4 (n = 1: the common shape; the
 * decoder's stall and duration often agree, 2..4 are a sixth of a big trace's rows):
 * the low lane as SH_LO(lt, n); the high one from D's start when n = 1, p[e0 + 5..],
 * which for any n holds D (from n - 1) and L: D ending at 2 n - 2, L at 2 n - 1 + ll
 * (<= 15). */
#define SH_SAME(lt, n, ll) SH_LO(lt, n), SH_CELL(2 * (n) - 2, n), SH_CELL(2 * (n) - 1 + (ll), ll)
/* T's end e0 < 2 or L of no digits: no row passes (no value exceeds INT64_MAX) */
#define CT_BAD(e0, ll) ((e0) < 2 || (ll) == 0)
#define CT_BELOW(e0, ll, v) (CT_BAD(e0, ll) ? INT64_MAX : (v))
#define CT(n, e0, ll)                                                                                          \
    {{SH_SAME((e0) - 1, n, ll)},                                                                               \
     {CT_BELOW(e0, ll, BELOW_LEN((e0) - 1)), CT_BELOW(e0, ll, BELOW_LEN(n)), CT_BELOW(e0, ll, BELOW_LEN(n)),   \
      CT_BELOW(e0, ll, BELOW_LEN(ll))}}
#define CT_ROW(n, e0)                                                                                          \
    {CT(n, e0, 0), CT(n, e0, 1), CT(n, e0, 2), CT(n, e0, 3), CT(n, e0, 4), CT(n, e0, 5), CT(n, e0, 6),         \
     CT(n, e0, 7), CT(n, e0, 8)}
#define CT_N(n)                                                                                                \
    {CT_ROW(n, 0), CT_ROW(n, 1), CT_ROW(n, 2), CT_ROW(n, 3), CT_ROW(n, 4), CT_ROW(n, 5), CT_ROW(n, 6),         \
     CT_ROW(n, 7), CT_ROW(n, 8), CT_ROW(n, 9)}
/* [n - 1][e0][e4], by T's end and the ']' (e0 <= 25 and e4 <= 32 once the commas
 * matched). The array is flat, so e4 = 32 (no ']' in the 32 bytes) is a defined read of
 * the next e0's [0], an entry like all of e4 < e0 + 7, or of the 0 at the end; a
 * [..][33] array would cost a multiply per row (flash +0.3 M instructions):
 * the byte offset in same_tab of the row's entry of row[n - 1], e0 * 9 + ll with
 * ll = e4 - e0 - 5 - 2 n, when T and L have 1..8 digits, else 0 - row[0][0][0],
 * which no row passes. One load instead of the lengths' range checks, and one base
 * for both tables. */
#define CA_LL(n, e0, e4) ((e4) - (e0) - 5 - 2 * (n))
#define CA(n, e0, e4)                                                                                          \
    ((e0) >= 2 && (e0) <= 9 && CA_LL(n, e0, e4) >= 1 && CA_LL(n, e0, e4) <= 8                                  \
         ? (((n) - 1) * 90 + (e0) * 9 + CA_LL(n, e0, e4)) * (int)sizeof(common_row)                            \
         : 0)
#define CA8(n, e0, o)                                                                                          \
    CA(n, e0, o), CA(n, e0, (o) + 1), CA(n, e0, (o) + 2), CA(n, e0, (o) + 3), CA(n, e0, (o) + 4),              \
        CA(n, e0, (o) + 5), CA(n, e0, (o) + 6), CA(n, e0, (o) + 7)
#define CA_ROW(n, e0) CA8(n, e0, 0), CA8(n, e0, 8), CA8(n, e0, 16), CA8(n, e0, 24)
#define CA_N(n)                                                                                                \
    CA_ROW(n, 0),  CA_ROW(n, 1),  CA_ROW(n, 2),  CA_ROW(n, 3),  CA_ROW(n, 4),  CA_ROW(n, 5),  CA_ROW(n, 6),   \
     CA_ROW(n, 7),  CA_ROW(n, 8),  CA_ROW(n, 9),  CA_ROW(n, 10), CA_ROW(n, 11), CA_ROW(n, 12), CA_ROW(n, 13),  \
     CA_ROW(n, 14), CA_ROW(n, 15), CA_ROW(n, 16), CA_ROW(n, 17), CA_ROW(n, 18), CA_ROW(n, 19), CA_ROW(n, 20),  \
     CA_ROW(n, 21), CA_ROW(n, 22), CA_ROW(n, 23), CA_ROW(n, 24), CA_ROW(n, 25), CA_ROW(n, 26)
typedef struct same_tabs {
    common_row row[4][10][9]; /* [n - 1][e0][ll] */
    uint16_t at[4 * 27 * 32 + 1]; /* [((n - 1) * 27 + e0) * 32 + e4], flat: see above */
} same_tabs;
static const same_tabs same_tab __attribute__((aligned(32))) = {{CT_N(1), CT_N(2), CT_N(3), CT_N(4)},
                                                                {CA_N(1), CA_N(2), CA_N(3), CA_N(4), 0}};
_Static_assert(sizeof(common_row) == 64 && 4 * 90 * 64 <= UINT16_MAX, "same_tab's offsets fit 16 bits");

/* [n]: the commas of such a row from T's end on (bits 0, 2, 3 + n, 4 + 2 n; 0: no n) */
#define SAME_COMMAS(n) (5 | 1ull << (3 + (n)) | 1ull << (4 + 2 * (n)))
static const uint64_t same_commas[5] = {0, SAME_COMMAS(1), SAME_COMMAS(2), SAME_COMMAS(3), SAME_COMMAS(4)};
_Static_assert(SAME_COMMAS(1) == 0x55, "the common shape's commas");

/* The constants of inst_avx2, made once per batch and hidden from the compiler
 * (an empty asm), which otherwise rebuilds each of them in every row. */
typedef struct avx2_k {
    __m256i c0, nine, w10, w100, m10k, ones, comma;
} avx2_k;

__attribute__((target("avx2,bmi,bmi2"))) static inline void avx2_k_init(avx2_k *k)
{
    k->c0 = _mm256_set1_epi8('0');
    k->nine = _mm256_set1_epi8(9);
    k->w10 = _mm256_set1_epi16(0x010a);
    k->w100 = _mm256_set1_epi32(0x00010064);
    k->m10k = _mm256_set1_epi64x(10000);
    k->ones = _mm256_set1_epi8(-1);
    k->comma = _mm256_set1_epi8(',');
    __asm__("" : "+x"(k->c0), "+x"(k->nine), "+x"(k->w10), "+x"(k->w100), "+x"(k->m10k), "+x"(k->ones));
    __asm__("" : "+x"(k->comma));
}

/* Four cells of <= 8 digit values (each 8-byte lane right-aligned, most significant
 * first, zero-padded) to four int64: pairs and quads by two multiply-adds, which leave
 * each lane's high four digits in its low i32 and the low four in its high one; the
 * lane's value is then low i32 * 10000 + high i32: one unsigned 32 x 32 -> 64 multiply,
 * a shift and an add - no pack, no lane permute, the values come out in lane order. */
__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline __m256i octets_avx2(__m256i dig, const avx2_k *k)
{
    const __m256i quads = _mm256_madd_epi16(_mm256_maddubs_epi16(dig, k->w10), k->w100);
    return _mm256_add_epi64(_mm256_mul_epu32(quads, k->m10k), _mm256_srli_epi64(quads, 32));
}

/* The AVX2 row of any cell lengths, for the rows not of the common shape: "[T,C,S,D,L]" with C one
 * digit (the decoder's category; 2-digit ones, rare, go inst_row's way) and T, S,
 * D, L of 1..8 digits. The cells are found from a 32-byte non-digit mask (each
 * cell ends at the next non-digit), every non-digit inside the row must be a comma
 * and the last one ']', and no cell may start with '0' and go on (one test over the
 * whole 32 bytes: a '0' after a non-digit and before a digit; one in the next row
 * declines this one too, which is only slower). Then the four int64 cells are
 * converted together: one byte shuffle puts T, S, D, L right-aligned in four 8-byte
 * lanes, zeroing the rest (the low 128-bit lane shuffles p[0..16), which must hold
 * T and S; the high one the 16 bytes from D's start, which must hold D and L), then
 * they are converted together (octets_avx2) and stored as time, stall, dur, line -
 * the first four fields of fp_wave_inst, in that order. A lane's shuffle depends only on the lengths of its two cells: tables of
 * 9 x 9 built by the compiler. */
/* [lt][ls] and [ld][ll] (length 0 unused) */
static const unsigned char sh_lo[9][9][16] __attribute__((aligned(16))) = SH_TAB(SH_LO);
static const unsigned char sh_hi[9][9][16] __attribute__((aligned(16))) = SH_TAB(SH_HI);

/* That row, from where inst_avx2 found it is not the common shape (one load and one
 * pair of masks for both): x the 32 bytes at p, nd their non-digit mask (sentinels
 * from bit 32 on), cm their comma mask. */
__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline const char *inst_avx2_rest(const char *p, __m256i x, uint64_t nd,
                                                                                uint64_t cm, fp_wave_inst *r,
                                                                                const avx2_k *k)
{
    /* T's end: the first non-digit after the '[' (bit 0, the caller's test) - not the
     * first comma, which would leave a non-comma inside T unchecked on the way below */
    const unsigned e0 = (unsigned)__builtin_ctzll(nd & (nd - 1));
    const uint64_t zm = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, k->c0));
    if (zm & (nd << 1) & ~(nd >> 1)) /* a leading zero: a '0' after a non-digit, before a digit */
        return NULL;
    if (((nd >> e0) & 0xf) != 0x5) /* then one non-digit (C), a separator, a digit */
        return NULL;
    unsigned e2, e4, lt = e0 - 1, ls, ld, ll;
    e2 = e0 + 3 + (unsigned)__builtin_ctzll(nd >> (e0 + 3)); /* S's end */
    unsigned e3 = e2 + 1 + (unsigned)__builtin_ctzll(nd >> (e2 + 1)); /* D's */
    e4 = e3 + 1 + (unsigned)__builtin_ctzll(nd >> (e3 + 1)); /* L's */
    ls = e2 - e0 - 3, ld = e3 - e2 - 1, ll = e4 - e3 - 1;
    /* lengths 1..8 (0 wraps), T and S in the low 16 bytes, D and L in 16 from D */
    if ((lt - 1) > 7 || (ls - 1) > 7 || (ld - 1) > 7 || (ll - 1) > 7 || e2 > 16 || e4 - e2 > 16)
        return NULL;
    /* the non-digits between '[' and e4 are e0, e0 + 2, e2, e3: all commas; e4 is ']' */
    if ((nd & ~cm & ((1ull << e4) - 1) & ~1ull) || p[e4] != ']')
        return NULL;
    const __m256i src = _mm256_inserti128_si256(x, _mm_loadu_si128((const __m128i *)(const void *)(p + e2 + 1)), 1);
    const __m256i ctl = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_load_si128((const __m128i *)(const void *)sh_lo[lt][ls])),
                                                _mm_load_si128((const __m128i *)(const void *)sh_hi[ld][ll]), 1);
    const __m256i dig = _mm256_subs_epu8(_mm256_shuffle_epi8(src, ctl), k->c0); /* zeros stay 0 */
    const __m256i v = octets_avx2(dig, k); /* T, S, D, L as int64 */
    _mm256_storeu_si256((__m256i *)(void *)r, v);
    r->cat = (int32_t)(unsigned char)p[e0 + 1] - '0';
    return p + e4 + 1;
}

/* The row inst_avx2 found to be "[T,C,S,D,L]" with C one digit and S and D n = n1 + 1
 * digits each, T ending at e0 and L at e4 (T's and L's lengths are still to check). */
__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline const char *inst_same(const char *p, __m256i x, uint64_t e0,
                                                                            uint64_t e4, uint64_t n1, fp_wave_inst *r,
                                                                            const avx2_k *k)
{
    if (p[e4] != ']')
        return NULL;
    /* T's and L's lengths (1..8, else the entry no row passes) by the table */
    const common_row *t = (const common_row *)(const void *)((const char *)&same_tab + same_tab.at[(n1 * 27 + e0) * 32 + e4]);
    const __m256i src = _mm256_inserti128_si256(x, _mm_loadu_si128((const __m128i *)(const void *)(p + e0 + 5)), 1);
    const __m256i ctl = _mm256_load_si256((const __m256i *)(const void *)t->sh);
    const __m256i dig = _mm256_subs_epu8(_mm256_shuffle_epi8(src, ctl), k->c0); /* zeros stay 0 */
    const __m256i v = octets_avx2(dig, k); /* T, S, D, L as int64 */
    /* a leading '0': a value below the smallest of its length (C is one digit) */
    if (!_mm256_testc_si256(_mm256_cmpgt_epi64(v, _mm256_load_si256((const __m256i *)(const void *)t->below)), k->ones))
        return NULL;
    _mm256_storeu_si256((__m256i *)(void *)r, v);
    r->cat = (int32_t)(unsigned char)p[e0 + 1] - '0';
    return p + e4 + 1;
}

__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline const char *inst_avx2(const char *p, fp_wave_inst *r,
                                                                            const avx2_k *k)
{
    const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    const __m256i a = _mm256_sub_epi8(x, k->c0);
    const __m256i digit = _mm256_cmpeq_epi8(_mm256_min_epu8(a, k->nine), a), comma = _mm256_cmpeq_epi8(x, k->comma);
    const uint32_t cm = (uint32_t)_mm256_movemask_epi8(comma);
    const uint32_t dc = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(digit, comma)); /* digits and commas */
    /* The row from its digit and comma masks: the other bytes ("o": neither, sentinels
     * from bit 32 on) are the '[' at bit 0 (the caller's test) and then, first, the
     * row's ']' at e4; T ends at the first comma e0. The commas before e4 must be
     * exactly e0, e0 + 2, e0 + 3 + n, e0 + 4 + 2 n for one n = 1..4 (1: the common
     * shape): then every byte of the row but those and the brackets is a digit (neither
     * a comma nor an "o" byte), so C has one digit, S and D n, T e0 - 1 and L
     * e4 - e0 - 5 - 2 n. 64-bit positions: no sign extensions. */
    const uint64_t e0 = _tzcnt_u64(cm), e4 = (uint64_t)__builtin_ctzll(~(uint64_t)(dc | 1));
    /* (no comma: e0 is 64, the shift's count 0 - the machine's shift masks it anyway) */
    const uint64_t m = _bzhi_u64(cm, (unsigned)e4) >> (e0 & 63);
    if (m == 0x55) /* (its own call: n - 1 a constant, the table's index as for one shape) */
        return inst_same(p, x, e0, e4, 0, r, k);
    const uint64_t n = _tzcnt_u64(m >> 3); /* 64 when m has no bit past 2 */
    if (n - 2 > 2 || m != same_commas[n]) /* not this shape: the row of any lengths, from here */
        return inst_avx2_rest(p, x, ~(uint64_t)(uint32_t)_mm256_movemask_epi8(digit), cm, r, k);
    return inst_same(p, x, e0, e4, n - 1, r, k);
}

/* insts_batch with the AVX2 row first. */
__attribute__((target("avx2,bmi,bmi2"))) static size_t insts_batch_wide(fp_fc *c, fp_wave_inst *r, size_t room)
{
    const char *p = c->p, *lim = row_lim(c), *end = c->p, *q;
    fp_wave_inst *r0 = r, *rend = r + room;
    /* rows start >= INST_ROW_MIN bytes apart, so with every start below p + (room - 1) *
     * INST_ROW_MIN + 1 at most `room` rows fit: the inner loop need not count them */
    if ((size_t)(lim - p) > (room - 1) * INST_ROW_MIN + 1)
        lim = p + (room - 1) * INST_ROW_MIN + 1;
    avx2_k k;
    avx2_k_init(&k);
    while (r < rend && p < lim) {
        /* the inner loop calls nothing, so its constants stay in registers */
        if (*p == '[' && (q = inst_avx2(p, r, &k)) != NULL) {
            for (;;) {
                r++;
                end = q;
                uint16_t h;
                memcpy(&h, q, 2);
                p = q + 1;
                if (h != (',' | '[' << 8)) { /* not ",[" (little-endian): the array's end, or the ways below */
                    if (*q != ',')
                        goto out;
                    break;
                }
                if (p >= lim)
                    goto out;
                if ((q = inst_avx2(p, r, &k)) == NULL)
                    break;
            }
            if (r == rend || p >= lim)
                goto out;
        }
        /* a row inst_avx2 (either shape) declined: the SSE2 ways decide */
        if (!(q = inst_row(p, r)))
            break;
        r++;
        end = q;
        if (*q != ',')
            break;
        p = q + 1;
    }
out:
    c->p = end;
    return (size_t)(r - r0);
}
#endif

static bool baseline_rows; /* fp_wave_baseline_rows: tests and fuzzing take the SSE2 rows */

void fp_wave_baseline_rows(bool on) { baseline_rows = on; }

/* The AVX2 rows where the CPU has them (a runtime check: the build stays portable,
 * no -march flags), else the SSE2 (or scalar) ones. */
static inline bool wide_ok(void)
{
#if defined(HAVE_AVX2_ROWS)
    return !baseline_rows && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
#else
    return false;
#endif
}
#if !defined(HAVE_AVX2_ROWS)
#define insts_batch_wide insts_batch
#endif


/* One timeline row "[s,d]" at p (ROW_WINDOW bytes readable) into sp: the
 * decoder's shape (s one digit, d 1..8 digits, compact_int_sep's rule) in two
 * word checks, else row_compact; NULL as row_compact. */
static inline const char *span_row(const char *p, fp_wave_span *sp)
{
    int64_t v[2];
    uint64_t w;
    unsigned n;
    memcpy(&w, p, 8);
    if ((w & 0xff00ffull) == 0x2c005bull && (unsigned)(p[1] - '0') <= 9 && (n = compact_int_sep(p + 3, &v[1])) &&
        p[3 + n] == ']') {
        v[0] = p[1] - '0';
        p += 4 + n;
    } else if (!(p = row_compact(p, v, 2))) {
        return NULL;
    }
    sp->state = (int32_t)(v[0] < 0 || v[0] >= FP_WS_COUNT ? FP_WS_EMPTY : v[0]);
    sp->dur = v[1];
    return p;
}

/* Most timeline rows: "[s,d]" or "[s,dd]" (d without a leading '0'), byte by byte;
 * NULL for any other (span_row decides). */
static inline const char *span_short(const char *p, fp_wave_span *sp)
{
    uint32_t w; /* p[0..3]: '[' and ',' tested in one compare (little-endian) */
    memcpy(&w, p, 4);
    unsigned st = ((w >> 8) & 0xff) - '0', d0 = (w >> 24) - '0', d1 = (unsigned char)p[4] - '0';
    if ((w & 0x00ff00ffu) != 0x002c005bu || st > 9 || d0 > 9)
        return NULL;
    sp->state = (int32_t)(st < FP_WS_COUNT ? st : FP_WS_EMPTY);
    if (p[4] == ']') {
        sp->dur = d0;
        return p + 5;
    }
    if (d1 > 9 || d0 == 0 || p[5] != ']')
        return NULL;
    sp->dur = d0 * 10 + d1;
    return p + 6;
}

static size_t spans_batch(fp_fc *c, fp_wave_span *sp, size_t room)
{
    const char *p = c->p, *lim = row_lim(c), *end = c->p;
    fp_wave_span *s0 = sp, *send = sp + room;
    /* rows start >= SPAN_ROW_MIN bytes apart, so with every start below p + (room - 1) *
     * SPAN_ROW_MIN + 1 at most `room` rows fit: the short rows' loop need not count them */
    if ((size_t)(lim - p) > (room - 1) * SPAN_ROW_MIN + 1)
        lim = p + (room - 1) * SPAN_ROW_MIN + 1;
    while (sp < send && p < lim) {
        const char *q;
        while ((q = span_short(p, sp)) != NULL) { /* no calls: the short rows' loop */
            sp++;
            end = q;
            if (*q != ',' || (p = q + 1) >= lim)
                goto out;
        }
        q = span_row(p, sp);
        if (!q)
            break;
        sp++;
        end = q;
        if (*q != ',')
            break;
        p = q + 1;
    }
out:
    c->p = end;
    return (size_t)(sp - s0);
}

#if defined(HAVE_AVX2_ROWS)
/* ---- timeline rows two at a time (AVX2) ----
 *
 * A timeline row is 5..9 bytes, "[s,d]," with s one digit and d 1..4 (all but 0.1 % of
 * a big trace's); one at a time their per-row checks cost ~35 instructions, 5 a byte.
 * Two rows are taken at once from one 32-byte load: the lengths da, db of their d give
 * everything else (row B starts at 5 + da), so a table by (da, db) holds, for the 18
 * bytes or fewer of both rows and their ',' after each: the punctuation's positions,
 * a template of the bytes (the punctuation, '0' at a d's first digit when d has more
 * than one - a leading zero must not match - and 0xff, no byte of a row, elsewhere),
 * and a shuffle putting s and d, right-aligned, into the 4-byte groups 0 and 2 of a
 * 16-byte lane per row (row A's lane from the load, row B's from 16 bytes at its
 * start). One check decides both rows: the non-digits are exactly the punctuation
 * and the bytes equal the template exactly there; then two multiply-adds make each
 * lane [s, 0, d, 0] as i32 - an fp_wave_span, state and dur, padding 0 - and a state
 * past FP_WS_COUNT becomes FP_WS_EMPTY as put_span does. Anything else (d of 5+ digits,
 * a 2-digit s, blanks, the array's end) is left to span_short / span_row, which decide. */
_Static_assert(sizeof(fp_wave_span) == 16 && offsetof(fp_wave_span, state) == 0 && offsetof(fp_wave_span, dur) == 8,
               "two spans are stored as one 32-byte vector of [state, 0, dur] lanes");
/* row B's start, and the punctuation's bytes of both rows with their ',' after each */
#define SP_OB(a) (5 + (a))
#define SP_PUNCT(a, b, i)                                                                                      \
    ((i) == 0 || (i) == 2 || (i) == 3 + (a) || (i) == 4 + (a) || (i) == SP_OB(a) || (i) == SP_OB(a) + 2 ||     \
     (i) == SP_OB(a) + 3 + (b) || (i) == SP_OB(a) + 4 + (b))
#define SP_T(a, b, i)                                                                                          \
    ((i) == 0 || (i) == SP_OB(a) ? '['                                                                         \
     : (i) == 2 || (i) == 4 + (a) || (i) == SP_OB(a) + 2 || (i) == SP_OB(a) + 4 + (b) ? ','                    \
     : (i) == 3 + (a) || (i) == SP_OB(a) + 3 + (b)                                    ? ']'                    \
     : ((i) == 3 && (a) > 1) || ((i) == SP_OB(a) + 3 && (b) > 1)                      ? '0'                    \
                                                                                      : 0xff)
/* byte j of a lane whose row's d has n digits: s at byte 3, d ending at byte 11 */
#define SP_C(n, j) ((j) == 3 ? 1 : (j) >= 8 + 4 - (n) && (j) < 12 ? 3 + (j) - (8 + 4 - (n)) : 0x80)
#define SP_CTL(a, b, i) ((i) < 16 ? SP_C(a, i) : SP_C(b, (i) - 16))
#define SP_BIT(a, b, i) ((uint32_t)SP_PUNCT(a, b, i) << (i))
#define SP_X8(M, a, b, o) M(a, b, o), M(a, b, o + 1), M(a, b, o + 2), M(a, b, o + 3), M(a, b, o + 4), M(a, b, o + 5), \
                          M(a, b, o + 6), M(a, b, o + 7)
#define SP_X32(M, a, b) SP_X8(M, a, b, 0), SP_X8(M, a, b, 8), SP_X8(M, a, b, 16), SP_X8(M, a, b, 24)
#define SP_OR8(a, b, o) (SP_BIT(a, b, o) | SP_BIT(a, b, o + 1) | SP_BIT(a, b, o + 2) | SP_BIT(a, b, o + 3) |       \
                         SP_BIT(a, b, o + 4) | SP_BIT(a, b, o + 5) | SP_BIT(a, b, o + 6) | SP_BIT(a, b, o + 7))
/* (80 bytes: its vectors are read unaligned) */
typedef struct span2_row {
    unsigned char tmpl[32]; /* the bytes: punctuation, '0' at a leading digit, else 0xff */
    unsigned char ctl[32];  /* the shuffle: lane 0 from row A's start, lane 1 from row B's */
    uint64_t punct, range;  /* the punctuation's bits; the bits of both rows and their ',' */
} span2_row;
#define SP_ROW(a, b)                                                                                           \
    {{SP_X32(SP_T, a, b)}, {SP_X32(SP_CTL, a, b)},                                                             \
     (uint64_t)(SP_OR8(a, b, 0) | SP_OR8(a, b, 8) | SP_OR8(a, b, 16) | SP_OR8(a, b, 24)),                      \
     (1ull << (10 + (a) + (b))) - 1}
/* [da - 1][db - 1] */
static const span2_row span2_tab[4][4] __attribute__((aligned(32))) = {
    {SP_ROW(1, 1), SP_ROW(1, 2), SP_ROW(1, 3), SP_ROW(1, 4)},
    {SP_ROW(2, 1), SP_ROW(2, 2), SP_ROW(2, 3), SP_ROW(2, 4)},
    {SP_ROW(3, 1), SP_ROW(3, 2), SP_ROW(3, 3), SP_ROW(3, 4)},
    {SP_ROW(4, 1), SP_ROW(4, 2), SP_ROW(4, 3), SP_ROW(4, 4)}};

typedef struct span2_k {
    __m256i c0, nine, w10, w100, state_max;
} span2_k;

/* Two timeline rows at p (p[0] == '[' is checked here too; ROW_WINDOW bytes readable)
 * into sp[0], sp[1]: the position after row B's ',' (the next row's start), or NULL. */
__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline const char *span2_avx2(const char *p, fp_wave_span *sp,
                                                                                             const span2_k *k)
{
    const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    const __m256i a = _mm256_sub_epi8(x, k->c0);
    const uint64_t nd = ~(uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(a, k->nine), a));
    const uint64_t da = (uint64_t)__builtin_ctzll(nd >> 3);       /* row A's d: from byte 3 */
    const uint64_t db = (uint64_t)__builtin_ctzll(nd >> (8 + da)); /* row B's: 3 after its start */
    if (((da - 1) | (db - 1)) > 3) /* 1..4 digits each (0 wraps) */
        return NULL;
    const span2_row *t = &span2_tab[da - 1][db - 1];
    const uint64_t eq =
        (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_loadu_si256((const __m256i *)(const void *)t->tmpl)));
    if (((nd ^ t->punct) | (eq ^ t->punct)) & t->range)
        return NULL;
    const __m256i src = _mm256_inserti128_si256(x, _mm_loadu_si128((const __m128i *)(const void *)(p + SP_OB(da))), 1);
    const __m256i dig = _mm256_subs_epu8(_mm256_shuffle_epi8(src, _mm256_loadu_si256((const __m256i *)(const void *)t->ctl)),
                                         k->c0); /* zeros stay 0 */
    const __m256i v = _mm256_madd_epi16(_mm256_maddubs_epi16(dig, k->w10), k->w100);
    /* put_span: a state past the known ones is FP_WS_EMPTY (0) */
    _mm256_storeu_si256((__m256i *)(void *)sp, _mm256_andnot_si256(_mm256_cmpgt_epi32(v, k->state_max), v));
    return p + SP_OB(da) + SP_OB(db);
}

/* spans_batch with two rows at a time first. */
__attribute__((target("avx2,bmi,bmi2"))) static size_t spans_batch_wide(fp_fc *c, fp_wave_span *sp, size_t room)
{
    const char *p = c->p, *lim = row_lim(c), *end = c->p;
    fp_wave_span *s0 = sp, *send = sp + room;
    if ((size_t)(lim - p) > (room - 1) * SPAN_ROW_MIN + 1)
        lim = p + (room - 1) * SPAN_ROW_MIN + 1;
    span2_k k = {_mm256_set1_epi8('0'), _mm256_set1_epi8(9), _mm256_set1_epi16(0x010a), _mm256_set1_epi32(0x00010064),
                 _mm256_setr_epi32(FP_WS_COUNT - 1, INT32_MAX, INT32_MAX, INT32_MAX, FP_WS_COUNT - 1, INT32_MAX,
                                   INT32_MAX, INT32_MAX)};
    __asm__("" : "+x"(k.c0), "+x"(k.nine), "+x"(k.w10), "+x"(k.w100), "+x"(k.state_max));
    while (sp < send && p < lim) {
        const char *q;
        /* row A starts below lim (ROW_WINDOW bytes after it: both loads fit); row B may
         * not, so the room is counted */
        while (send - sp >= 2 && (q = span2_avx2(p, sp, &k)) != NULL) {
            sp += 2;
            end = q - 1; /* at row B's ',' */
            if ((p = q) >= lim)
                goto out;
        }
        /* one row the other ways (the short rows' loop would crowd the registers) */
        q = span_row(p, sp);
        if (!q)
            break;
        sp++;
        end = q;
        if (*q != ',')
            break;
        p = q + 1;
    }
out:
    c->p = end;
    return (size_t)(sp - s0);
}
#else
#define spans_batch_wide spans_batch
#endif

/* [[time, cat, stall, dur, line, ...], ...] - as read_rows + put_inst. */
static bool f_insts(fp_fc *c, fp_wave *w)
{
    if (!fp_fc_lit(c, '['))
        return false;
    if (fp_fc_lit(c, ']'))
        return true;
    bool batch = true; /* off for one row after a batch stopped at it */
    do {
        ahead(c);
        size_t room = batch ? batch_room(c, INST_ROW_MIN) : 0;
        if (room && w->sink) {
            if (!(room = sink_batch(w, ROOM_INSTS, room)))
                return false; /* too big, or a chunk callback stopped */
        } else if (room)
            FP_RESERVE(w->insts, w->n_insts, w->cap_insts, room);
        if (room) {
            size_t k = wide_ok() ? insts_batch_wide(c, w->insts + w->n_insts, room)
                                    : insts_batch(c, w->insts + w->n_insts, room);
            w->n_insts += k;
            batch = k == room; /* it stopped at a row it did not take: that row the way below */
            if (k)
                goto sep;
        }
        batch = true;
        int64_t v[5];
        const char *q = view(c) > ROW_WINDOW ? row_compact(c->p, v, 5) : NULL;
        if (q) {
            c->p = q;
        } else {
            if (!fp_fc_lit(c, '[') || !fp_fc_int(c, &v[0]))
                return false;
            for (int k = 1; k < 5; k++)
                if (!fp_fc_lit(c, ',') || !fp_fc_int(c, &v[k]))
                    return false;
            if (!f_row_tail(c))
                return false;
        }
        if (w->n_insts >= w->cap_insts && !make_room(w, ROOM_INSTS))
            return false;
        fp_wave_inst *r = &w->insts[w->n_insts++];
        r->time = v[0];
        r->cat = (int32_t)(v[1] < 0 || v[1] > 1000 ? 0 : v[1]);
        r->stall = v[2];
        r->dur = v[3];
        r->line = v[4];
    sep:
        ahead(c); /* a row the scanners took may end at the window's end (its NUL pad) */
        if (c->p < c->e && *c->p == ',') { /* the usual separator, no whitespace */
            c->p++;
            continue;
        }
        if (!fp_fc_lit(c, ','))
            break;
    } while (true);
    return fp_fc_lit(c, ']');
}

/* [[state, dur, ...], ...] - as read_rows + put_span. */
static bool f_spans(fp_fc *c, fp_wave *w)
{
    if (!fp_fc_lit(c, '['))
        return false;
    if (fp_fc_lit(c, ']'))
        return true;
    bool batch = true;
    do {
        ahead(c);
        size_t room = batch ? batch_room(c, SPAN_ROW_MIN) : 0;
        if (room && w->sink) {
            if (!(room = sink_batch(w, ROOM_SPANS, room)))
                return false; /* too big, or a chunk callback stopped */
        } else if (room)
            FP_RESERVE(w->spans, w->n_spans, w->cap_spans, room);
        if (room) {
            size_t k = wide_ok() ? spans_batch_wide(c, w->spans + w->n_spans, room)
                                    : spans_batch(c, w->spans + w->n_spans, room);
            w->n_spans += k;
            batch = k == room;
            if (k)
                goto sep;
        }
        batch = true;
        int64_t v[2];
        if (!fp_fc_lit(c, '[') || !fp_fc_int(c, &v[0]) || !fp_fc_lit(c, ',') || !fp_fc_int(c, &v[1]) ||
            !f_row_tail(c))
            return false;
        if (w->n_spans >= w->cap_spans && !make_room(w, ROOM_SPANS))
            return false;
        fp_wave_span *sp = &w->spans[w->n_spans++];
        sp->state = (int32_t)(v[0] < 0 || v[0] >= FP_WS_COUNT ? FP_WS_EMPTY : v[0]);
        sp->dur = v[1];
    sep:
        ahead(c);
        if (c->p < c->e && *c->p == ',') {
            c->p++;
            continue;
        }
        if (!fp_fc_lit(c, ','))
            break;
    } while (true);
    return fp_fc_lit(c, ']');
}

/* One waitcnt entry in the decoder's layout "[line,[[prod,n],...]]" with no
 * spaces and compact integers, as read_waits reads it; the caller guarantees
 * ROW_WINDOW bytes, and each producer is read only with 40 bytes ahead. On
 * anything else nothing is kept (the producers read are dropped) and NULL
 * sends the entry the general way. */
static inline __attribute__((always_inline)) const char *wait_compact(const char *p, const char *end, fp_wave *w)
{
    size_t n0 = w->n_prods;
    int64_t line, prod, x;
    unsigned n;
    uint16_t h; /* two bytes in one compare (little-endian, as compact_int_sep) */
    if (*p++ != '[' || !(n = compact_int_sep(p, &line)) || (memcpy(&h, p + n, 2), h != (',' | '[' << 8)))
        return NULL;
    p += n + 2;
    if (*p == ']') {
        p++;
    } else {
        for (;;) {
            if (end - p < 40 || *p != '[')
                goto undo;
            p++;
            if (!(n = compact_int_sep(p, &prod)) || p[n] != ',')
                goto undo;
            p += n + 1;
            if ((memcpy(&h, p, 2), h == ('0' | ']' << 8))) { /* the count the decoder always writes */
                p += 2;
            } else {
                if (!(n = compact_int_sep(p, &x)) || p[n] != ']')
                    goto undo;
                p += n + 1;
            }
            if (w->n_prods >= w->cap_prods)
                make_room(w, ROOM_PRODS);
            w->prods[w->n_prods++] = prod;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p++ == ']')
                break;
            goto undo;
        }
    }
    if (*p++ != ']')
        goto undo;
    if (w->n_waits >= w->cap_waits)
        make_room(w, ROOM_WAITS);
    w->waits[w->n_waits++] = (fp_wave_wait){line, n0, w->n_prods - n0};
    return p;
undo:
    w->n_prods = n0;
    return NULL;
}

/* One entry of the waitcnt array: the compact way, else the general one. */
static bool f_wait_entry(fp_fc *c, fp_wave *w)
{
    ahead(c);
    const char *q = (size_t)(c->e - c->p) > ROW_WINDOW ? wait_compact(c->p, c->e, w) : NULL;
    if (q) {
        c->p = q;
        return true;
    }
    int64_t line;
    if (!fp_fc_lit(c, '[') || !fp_fc_int(c, &line) || !fp_fc_lit(c, ',') || !fp_fc_lit(c, '['))
        return false;
    if (w->n_waits >= w->cap_waits)
        make_room(w, ROOM_WAITS);
    fp_wave_wait *e = &w->waits[w->n_waits++];
    e->line = line;
    e->first = w->n_prods;
    e->n = 0;
    if (!fp_fc_lit(c, ']')) {
        do {
            int64_t p;
            /* the decoder writes [prod, 0]; other scalar cells are skipped by
             * read_waits too, but only integers are accepted here */
            if (!fp_fc_lit(c, '[') || !fp_fc_int(c, &p) || !f_row_tail(c))
                return false;
            if (w->n_prods >= w->cap_prods)
                make_room(w, ROOM_PRODS);
            w->prods[w->n_prods++] = p;
            e->n++;
        } while (fp_fc_lit(c, ','));
        if (!fp_fc_lit(c, ']'))
            return false;
    }
    return fp_fc_lit(c, ']');
}

/* Compact entries from c->p while each starts below lim (ROW_WINDOW bytes after it):
 * how many; c->p ends after the last one taken. */
static size_t waits_batch(fp_fc *c, fp_wave *w, const char *lim, const char *end)
{
    const char *p = c->p, *q;
    size_t k = 0;
    while (p < lim && (q = wait_compact(p, end, w)) != NULL) {
        k++;
        c->p = q;
        if (*q != ',')
            break;
        p = q + 1;
    }
    return k;
}

#if defined(HAVE_AVX2_ROWS)
/* ---- waitcnt entries of one producer (AVX2) ----
 *
 * Most entries (four in five of a big trace's) wait for one producer: "[L,[[P,0]]]",
 * ~12 bytes that wait_compact reads in ~130 instructions (two SWAR integers and a
 * dozen byte tests). With L and P of 1..4 digits the entry lies in 16 bytes and their
 * lengths (from the non-digit mask) index wait1_tab: the bytes' template (punctuation,
 * the count's '0', '0' at a number's first digit when it has more than one - a
 * leading zero must not match - else 0xff), which positions must be non-digits and
 * which must equal it, and a shuffle putting L and P right-aligned in two 4-byte
 * groups; one test decides the entry, two multiply-adds give both values. Stored as
 * wait_compact stores them (the producer, then the entry, each with its make_room).
 * Everything else goes wait_compact, which decides. */
#define W1_ND(a, b, i)                                                                                         \
    ((i) == 0 || (i) == (a) + 1 || (i) == (a) + 2 || (i) == (a) + 3 || (i) == (a) + 4 + (b) ||                 \
     (i) == (a) + 6 + (b) || (i) == (a) + 7 + (b) || (i) == (a) + 8 + (b))
#define W1_EQ(a, b, i) (W1_ND(a, b, i) || (i) == (a) + 5 + (b))
#define W1_T(a, b, i)                                                                                          \
    ((i) == 0 || (i) == (a) + 2 || (i) == (a) + 3                  ? '['                                       \
     : (i) == (a) + 1 || (i) == (a) + 4 + (b)                      ? ','                                       \
     : (i) == (a) + 6 + (b) || (i) == (a) + 7 + (b) || (i) == (a) + 8 + (b) ? ']'                              \
     : (i) == (a) + 5 + (b) || ((i) == 1 && (a) > 1) || ((i) == (a) + 4 && (b) > 1) ? '0'                      \
                                                                                     : 0xff)
/* byte j: L (at 1..a) right-aligned in bytes 0..3, P (at a + 4..) in bytes 4..7 */
#define W1_C(a, b, j)                                                                                          \
    ((j) < 4 ? ((j) >= 4 - (a) ? 1 + (j) - (4 - (a)) : 0x80) : (j) < 8 ? ((j) - 4 >= 4 - (b) ? (a) + 4 + (j) - 8 + (b) : 0x80) \
                                                                        : 0x80)
#define W1_X16(M, a, b) SP_X8(M, a, b, 0), SP_X8(M, a, b, 8)
#define W1_OR16(M, a, b)                                                                                       \
    (W1_B(M, a, b, 0) | W1_B(M, a, b, 1) | W1_B(M, a, b, 2) | W1_B(M, a, b, 3) | W1_B(M, a, b, 4) |            \
     W1_B(M, a, b, 5) | W1_B(M, a, b, 6) | W1_B(M, a, b, 7) | W1_B(M, a, b, 8) | W1_B(M, a, b, 9) |            \
     W1_B(M, a, b, 10) | W1_B(M, a, b, 11) | W1_B(M, a, b, 12) | W1_B(M, a, b, 13) | W1_B(M, a, b, 14) |       \
     W1_B(M, a, b, 15) | W1_B(M, a, b, 16))
#define W1_B(M, a, b, i) ((uint32_t)M(a, b, i) << (i))
typedef struct wait1_row {
    unsigned char tmpl[16]; /* the bytes, as above */
    unsigned char ctl[16];  /* the shuffle */
    uint32_t nd, eq, range; /* must be non-digits; must equal tmpl; the entry's bytes */
} __attribute__((aligned(16))) wait1_row;
#define W1_ROW(a, b) {{W1_X16(W1_T, a, b)}, {W1_X16(W1_C, a, b)}, W1_OR16(W1_ND, a, b), W1_OR16(W1_EQ, a, b), \
                      (1u << ((a) + (b) + 9)) - 1}
/* [len L - 1][len P - 1]; byte 16 (the last ']' of a 4 + 4 digit entry) is outside the
 * template: it is tested on its own */
static const wait1_row wait1_tab[4][4] = {
    {W1_ROW(1, 1), W1_ROW(1, 2), W1_ROW(1, 3), W1_ROW(1, 4)},
    {W1_ROW(2, 1), W1_ROW(2, 2), W1_ROW(2, 3), W1_ROW(2, 4)},
    {W1_ROW(3, 1), W1_ROW(3, 2), W1_ROW(3, 3), W1_ROW(3, 4)},
    {W1_ROW(4, 1), W1_ROW(4, 2), W1_ROW(4, 3), W1_ROW(4, 4)}};

/* One entry "[L,[[P,0]]]" at p (32 bytes readable): after it, or NULL (nothing kept). */
__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline const char *wait1_avx2(const char *p, fp_wave *w)
{
    const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    /* bits 16.. (beyond the load) set: a number running past byte 15 is not this shape */
    const uint64_t nd = ~(uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
    const uint64_t e0 = (uint64_t)__builtin_ctzll(nd & (nd - 1)); /* L's end; bit 0 is '[' (the caller's test) */
    const uint64_t lp = (uint64_t)__builtin_ctzll(nd >> (e0 + 3));
    if (((e0 - 2) | (lp - 1)) > 3) /* L and P 1..4 digits (0 wraps) */
        return NULL;
    const wait1_row *t = &wait1_tab[e0 - 2][lp - 1];
    const uint64_t eq =
        (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_load_si128((const __m128i *)(const void *)t->tmpl)));
    const unsigned last = (unsigned)(e0 + 7 + lp); /* the entry's last ']' */
    if ((((nd ^ t->nd) | (eq ^ t->eq)) & t->range & 0xffff) || p[last] != ']')
        return NULL;
    const __m128i v = _mm_madd_epi16(
        _mm_maddubs_epi16(_mm_subs_epu8(_mm_shuffle_epi8(x, _mm_load_si128((const __m128i *)(const void *)t->ctl)),
                                        _mm_set1_epi8('0')),
                          _mm_set1_epi16(0x010a)),
        _mm_set1_epi32(0x00010064));
    const int64_t line = (uint32_t)_mm_cvtsi128_si32(v), prod = (uint32_t)_mm_extract_epi32(v, 1);
    const size_t n0 = w->n_prods;
    if (w->n_prods >= w->cap_prods)
        make_room(w, ROOM_PRODS);
    w->prods[w->n_prods++] = prod;
    if (w->n_waits >= w->cap_waits)
        make_room(w, ROOM_WAITS);
    w->waits[w->n_waits++] = (fp_wave_wait){line, n0, w->n_prods - n0};
    return p + last + 1;
}

/* waits_batch with the one-producer entries first. */
__attribute__((target("avx2,bmi,bmi2"))) static size_t waits_batch_wide(fp_fc *c, fp_wave *w, const char *lim,
                                                                         const char *end)
{
    const char *p = c->p, *q;
    size_t k = 0;
    while (p < lim && *p == '[' && ((q = wait1_avx2(p, w)) != NULL || (q = wait_compact(p, end, w)) != NULL)) {
        k++;
        c->p = q;
        if (*q != ',')
            break;
        p = q + 1;
    }
    return k;
}
#else
#define waits_batch_wide waits_batch
#endif

/* [[line, [[prod, n, ...], ...]], ...] or null - as read_waits. */
static bool f_waits(fp_fc *c, fp_wave *w)
{
    ahead(c);
    fp_fc_ws(c);
    if ((size_t)(c->e - c->p) >= 4 && !memcmp(c->p, "null", 4)) {
        c->p += 4;
        return true;
    }
    if (!fp_fc_lit(c, '['))
        return false;
    w->has_waitcnt = true;
    if (w->sink && w->sink->chunking) /* where the entries begin, for their own cursor */
        w->sink->waits_off = ((wsrc *)c)->total - (size_t)(c->e - c->p);
    if (fp_fc_lit(c, ']'))
        return true;
    do {
        ahead(c);
        if (view(c) > ROW_WINDOW) {
            /* compact entries while ROW_WINDOW bytes follow each, with one window check */
            const char *lim = row_lim(c), *end = c->p + view(c);
            size_t k = wide_ok() ? waits_batch_wide(c, w, lim, end) : waits_batch(c, w, lim, end);
            if (k)
                continue; /* to the separator test below */
        }
        if (!f_wait_entry(c, w))
            return false;
    } while ((ahead(c), fp_fc_lit(c, ','))); /* an entry may end at the window's end */
    return fp_fc_lit(c, ']');
}

/* The keys of a wave file, in the order the decoder writes them: each `"key":` as 16
 * bytes (zero-padded) and its length. A file's ~14 keys cost ~100 instructions each
 * through fp_fc_key and the key_is chain (~1.4 k per file, a third of a small file's
 * parse); the key the decoder writes next is instead tried as one 16-byte compare. */
typedef struct next_key {
    char lit[16];
    unsigned n;
} next_key;

static const next_key wave_keys[] = {{"\"begin\":", 8},    {"\"cu\":", 5},       {"\"end\":", 6},
                                     {"\"id\":", 5},       {"\"instructions\":", 15}, {"\"simd\":", 7},
                                     {"\"slot\":", 7},     {"\"timeline\":", 11}, {"\"waitcnt\":", 10}};
enum { WK_BEGIN, WK_CU, WK_END, WK_ID, WK_INSTS, WK_SIMD, WK_SLOT, WK_TIMELINE, WK_WAITCNT, WK_COUNT };
static const next_key top_keys[] = {{"\"duration\":", 11}, {"\"name\":", 7}, {"\"num_insts\":", 12},
                                    {"\"num_stitched\":", 15}, {"\"wave\":", 7}};
enum { TK_DURATION, TK_NAME, TK_NUM_INSTS, TK_NUM_STITCHED, TK_WAVE, TK_COUNT };

/* The key `want` exactly at c->p - '"', the key, '"', ':', no blanks: what fp_fc_key
 * would read as that key - consumed; else false, nothing consumed (fp_fc_key decides).
 * 16 bytes are read (view(): a window's NUL pad counts; no literal byte is a NUL). */
static inline bool key_next(fp_fc *c, const next_key *want)
{
    if (view(c) < 16)
        return false;
#if defined(__SSE2__)
    const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)c->p);
    const unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_loadu_si128((const __m128i *)(const void *)want->lit)));
    const unsigned m = (1u << want->n) - 1;
    if ((eq & m) != m)
        return false;
#else
    if (memcmp(c->p, want->lit, want->n))
        return false;
#endif
    c->p += want->n;
    return true;
}

/* A key of the general way (fp_fc_key) as the index of its entry in keys[0..n), or n. */
static inline unsigned key_index(const char *k, size_t kl, const next_key *keys, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (keys[i].n == kl + 3 && !memcmp(k, keys[i].lit + 1, kl))
            return i;
    return n;
}

static bool f_wave_obj(fp_fc *c, fp_wave *w)
{
    bool seen_insts = false;
    if (!fp_fc_lit(c, '{'))
        return false;
    if (fp_fc_lit(c, '}'))
        return false; /* no "instructions": jscan words the error */
    unsigned next = 0; /* the decoder's next key */
    do {
        ahead(c);
        unsigned id;
        if (next < WK_COUNT && key_next(c, &wave_keys[next])) {
            id = next++;
        } else {
            const char *k;
            size_t kl;
            if (!fp_fc_key(c, &k, &kl))
                return false;
            id = key_index(k, kl, wave_keys, WK_COUNT);
        }
        int64_t v;
        if (id == WK_INSTS) {
            if (!f_insts(c, w))
                return false;
            seen_insts = true;
        } else if (id == WK_TIMELINE) {
            if (!f_spans(c, w))
                return false;
        } else if (id == WK_WAITCNT) {
            if (!f_waits(c, w))
                return false;
        } else if (id == WK_BEGIN) {
            if (!fp_fc_int_short(c, &v))
                return false;
            w->begin = v;
        } else if (id == WK_END) {
            if (!fp_fc_int_short(c, &v))
                return false;
            w->end = v;
        } else if (id == WK_CU) {
            if (!fp_fc_int_short(c, &v))
                return false;
            w->cu = (int)(v < 0 || v > 1 << 20 ? -1 : v);
        } else if (!fp_fc_skip_scalar(c)) {
            return false;
        }
    } while (fp_fc_lit(c, ','));
    return fp_fc_lit(c, '}') && seen_insts;
}

static int fast_parse(fp_wave *w, wsrc *src)
{
    fp_fc *c = &src->c;
    bool seen_wave = false;
    ahead(c);
    if (!fp_fc_lit(c, '{') || fp_fc_lit(c, '}'))
        return -1;
    unsigned next = 0; /* the decoder's next key */
    do {
        ahead(c);
        unsigned id;
        if (next < TK_COUNT && key_next(c, &top_keys[next])) {
            id = next++;
        } else {
            const char *k;
            size_t kl;
            if (!fp_fc_key(c, &k, &kl))
                return -1;
            id = key_index(k, kl, top_keys, TK_COUNT);
        }
        if (id == TK_WAVE) {
            if (seen_wave || !f_wave_obj(c, w))
                return -1;
            seen_wave = true;
        } else if (w->sink && w->sink->limit && id == TK_NUM_INSTS) {
            /* the decoder's own count, before the rows: a hint only (a wrong one costs
             * time, never a result), it saves growing the rows up to the limit first */
            int64_t v = 0;
            const char *at = c->p;
            if (!fp_fc_int(c, &v)) { /* not an integer: skipped as any scalar */
                c->p = at;
                if (!fp_fc_skip_scalar(c))
                    return -1;
            } else if (v > 0 && (uint64_t)v > w->sink->limit) {
                w->sink->too_big = true;
                return -1;
            }
        } else if (!fp_fc_skip_scalar(c)) {
            return -1;
        }
    } while (fp_fc_lit(c, ','));
    return src_close(c) && seen_wave ? 0 : -1;
}

static void wave_reset(fp_wave *w)
{
    w->n_insts = w->n_spans = w->n_waits = w->n_prods = 0;
    w->begin = w->end = 0;
    w->cu = 0;
    w->has_waitcnt = false;
}

int fp_wave_parse(fp_wave *w, const char *buf, size_t len, const char *name, fp_err *err)
{
    wave_reset(w);
    wsrc src = {{buf, buf + len}, NULL, 0, 0, -1, NULL, 0, len, true, false, 0};
    if (fast_parse(w, &src) == 0)
        return 0;
    return fp_wave_parse_jscan(w, buf, len, name, err);
}

int fp_wave_parse_windowed(fp_wave *w, const char *buf, size_t len, size_t win, bool *windowed, const char *name,
                           fp_err *err)
{
    wave_reset(w);
    win = win < 64 ? 64 : win;
    char *wb = malloc(win + ROW_WINDOW);
    if (!wb)
        abort();
    wsrc src = {{wb, wb}, wb, win, win / 2, -1, buf, len, 0, false, false, ROW_WINDOW};
    int rc = fast_parse(w, &src);
    free(wb);
    if (windowed)
        *windowed = rc == 0;
    return rc == 0 ? 0 : fp_wave_parse(w, buf, len, name, err);
}

int fp_wave_parse_jscan(fp_wave *w, const char *buf, size_t len, const char *name, fp_err *err)
{
    wave_reset(w);
    fp_jscan js;
    fp_js_init(&js, buf, len);
    int rc = -1;
    bool seen_wave = false;
    if (fp_js_next(&js) != FP_JT_OBJ_BEGIN) {
        wbad(err, name, &js, "top level is not an object");
        goto done;
    }
    for (;;) {
        fp_jtok t = fp_js_next(&js);
        if (t == FP_JT_OBJ_END)
            break;
        if (t != FP_JT_STRING) {
            wbad(err, name, &js, "expected a key");
            goto done;
        }
        if (fp_js_str_eq(&js, "wave")) {
            if (fp_js_next(&js) != FP_JT_OBJ_BEGIN) {
                wbad(err, name, &js, "\"wave\" is not an object");
                goto done;
            }
            if (parse_wave_obj(&js, w, name, err) != 0)
                goto done;
            seen_wave = true;
        } else {
            fp_js_next(&js);
            if (!fp_js_skip(&js)) {
                wbad(err, name, &js, "bad value");
                goto done;
            }
        }
    }
    if (fp_js_next(&js) != FP_JT_END) {
        wbad(err, name, &js, "trailing data");
        goto done;
    }
    if (!seen_wave) {
        fp_err_set(err, FP_BAD_INPUT, "%s: no \"wave\" object", name);
        goto done;
    }
    rc = 0;
done:
    fp_js_free(&js);
    return rc;
}

/* ---- file names and the walk ---- */

/* A number of a wave file name: decimal digits, at most 1000000 (leading zeros
 * allowed); *lead0 is set when it has one. The one-digit number (se, simd and slot
 * mostly are) first: it needs neither the limit nor the leading-zero test. */
static inline bool read_uint(const char **p, int *out, bool *lead0)
{
    const char *s = *p;
    unsigned v = (unsigned char)s[0] - '0', d;
    if (v > 9)
        return false;
    if ((d = (unsigned char)s[1] - '0') > 9) {
        *out = (int)v;
        *p = s + 1;
        return true;
    }
    *lead0 |= v == 0;
    v = v * 10 + d;
    s += 2;
    /* the prefix's value only grows: stopping at the first one past the limit is the
     * same as testing the whole number, and keeps v from overflowing */
    while ((d = (unsigned char)*s - '0') <= 9) {
        v = v * 10 + d;
        if (v > 1000000)
            return false;
        s++;
    }
    *out = (int)v;
    *p = s;
    return true;
}

/* The separator "_<a><b>" at *p (the name's NUL fails a compare, so no byte past it is
 * read). */
static inline bool eat_sep(const char **p, char a, char b)
{
    const char *q = *p;
    if (q[0] != '_' || q[1] != a || q[2] != b)
        return false;
    *p = q + 3;
    return true;
}

/* fp_wave_name_parse; *canonical: no number has a leading zero, so the name is the one
 * name of its (se, simd, slot, id) and names compare as their numbers do. Returns the
 * name's length (0: not a wave file name), which list_dir would otherwise strlen. */
static size_t name_parse(const char *name, int *se, int *simd, int *slot, int *id, bool *canonical)
{
    const char *p = name;
    bool lead0 = false;
    if (p[0] != 's' || p[1] != 'e')
        return 0;
    p += 2;
    if (!(read_uint(&p, se, &lead0) && eat_sep(&p, 's', 'm') && read_uint(&p, simd, &lead0) &&
          eat_sep(&p, 's', 'l') && read_uint(&p, slot, &lead0) && eat_sep(&p, 'w', 'v') && read_uint(&p, id, &lead0)))
        return 0;
    if (p[0] != '.' || p[1] != 'j' || p[2] != 's' || p[3] != 'o' || p[4] != 'n' || p[5] != '\0')
        return 0;
    *canonical = !lead0;
    return (size_t)(p + 5 - name);
}

bool fp_wave_name_parse(const char *name, int *se, int *simd, int *slot, int *id)
{
    bool canonical;
    return name_parse(name, se, simd, slot, id, &canonical) != 0;
}

static int cmp_wave_file(const void *a, const void *b)
{
    const fp_wave_file *x = a, *y = b;
    if (x->se != y->se)
        return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* One wave_filenames entry: its name (in the document's buffer, len bytes, or owned and
 * NUL-terminated: jscan's decoded copy, which may hold a NUL), its begin cycle. */
typedef struct listed_ent {
    const char *name;
    size_t len;
    char *own;
    int64_t begin;
    bool has_begin;
    bool nums; /* flat_entry read the name: canonical, with these numbers */
    int se, simd, slot, id;
} listed_ent;

static int cmp_listed(const void *a, const void *b)
{
    return strcmp(((const listed_ent *)a)->name, ((const listed_ent *)b)->name);
}

static int cmp_file_name(const void *a, const void *b)
{
    return strcmp((*(const fp_wave_file *const *)a)->name, (*(const fp_wave_file *const *)b)->name);
}

/* Skip to the end of the container the cursor is in (its closing token included). */
static bool skip_rest(fp_jscan *js)
{
    int target = js->depth - 1;
    while (js->depth > target) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_ERROR || t == FP_JT_END)
            return false;
    }
    return true;
}

static listed_ent *listed_push(listed_ent **v, size_t *n, size_t *cap)
{
    FP_GROW(*v, *n, *cap);
    listed_ent *e = &(*v)[(*n)++];
    memset(e, 0, sizeof *e);
    return e;
}

/* Collect filenames.json wave_filenames[se][simd][slot][n] = [file, begin, end] with
 * the streaming tokenizer (a cJSON tree of a 54k-wave trace costs ~20 MB; this
 * costs the names). Objects are descended down to depth 3; at depth 3 each value
 * that is an array whose first cell is a string is one entry; anything else at any
 * level is skipped. Returns false on a syntax error. */
static bool collect_listed(fp_jscan *js, listed_ent **v, size_t *n, size_t *cap)
{
    /* the "wave_filenames" value's first token has been read */
    if (js->tok != FP_JT_OBJ_BEGIN)
        return fp_js_skip(js);
    int depth = 0; /* objects open below wave_filenames */
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_OBJ_END) {
            if (depth-- == 0)
                return true;
            continue;
        }
        if (t != FP_JT_STRING)
            return false;
        t = fp_js_next(js);
        if (depth < 3) {
            if (t == FP_JT_OBJ_BEGIN)
                depth++;
            else if (!fp_js_skip(js))
                return false;
            continue;
        }
        if (t != FP_JT_ARR_BEGIN) {
            if (!fp_js_skip(js))
                return false;
            continue;
        }
        t = fp_js_next(js);
        if (t == FP_JT_ARR_END)
            continue;
        if (t != FP_JT_STRING) {
            if (!fp_js_skip(js) || !skip_rest(js))
                return false;
            continue;
        }
        listed_ent *e = listed_push(v, n, cap);
        e->own = fp_xstrndup(js->str, js->str_len);
        e->name = e->own;
        e->len = js->str_len;
        t = fp_js_next(js);
        if (t == FP_JT_NUMBER && js->num_is_int) {
            e->begin = js->inum;
            e->has_begin = true;
        } else if (t != FP_JT_ARR_END && !fp_js_skip(js)) {
            return false;
        }
        if (t != FP_JT_ARR_END && !skip_rest(js))
            return false;
    }
}

/* filenames.json through jscan: false on a syntax error. */
static bool listed_jscan(const char *buf, size_t len, listed_ent **v, size_t *n, size_t *cap)
{
    fp_jscan js;
    fp_js_init(&js, buf, len);
    bool ok = fp_js_next(&js) == FP_JT_OBJ_BEGIN, seen = false;
    while (ok) {
        fp_jtok t = fp_js_next(&js);
        if (t == FP_JT_OBJ_END)
            break;
        if (t != FP_JT_STRING) {
            ok = false;
            break;
        }
        bool wf = !seen && fp_js_str_eq(&js, "wave_filenames"); /* the first one counts, as in cJSON */
        fp_js_next(&js);
        if (wf) {
            seen = true;
            ok = collect_listed(&js, v, n, cap);
        } else {
            ok = fp_js_skip(&js);
        }
    }
    ok = ok && fp_js_next(&js) == FP_JT_END;
    fp_js_free(&js);
    return ok;
}

/* ---- filenames.json the way rocprofv3 writes it, without a token stream ----
 * {"key": scalar or [scalars], ..., "wave_filenames": {se: {simd: {slot: {n: ["name",
 * begin, end], ...}}}}} with keys of [A-Za-z0-9_], names without escapes and an
 * integer begin (fp_fc_int, as jscan's num_is_int): the entries collect_listed finds, in
 * the same order, names pointing into the buffer. Anything else (a second
 * wave_filenames, containers elsewhere, escapes, another begin) returns false and
 * jscan decides from the start. */
static bool skip_flat(fp_fc *c)
{
    if (!fp_fc_lit(c, '['))
        return fp_fc_skip_scalar(c);
    if (fp_fc_lit(c, ']'))
        return true;
    do
        if (!fp_fc_skip_scalar(c))
            return false;
    while (fp_fc_lit(c, ','));
    return fp_fc_lit(c, ']');
}

static bool fast_entry(fp_fc *c, listed_ent **v, size_t *n, size_t *cap)
{
    if (!fp_fc_lit(c, '['))
        return false;
    if (fp_fc_lit(c, ']'))
        return true;
    const char *s;
    size_t sl;
    if (!fp_fc_str(c, &s, &sl))
        return false;
    listed_ent *e = listed_push(v, n, cap);
    e->name = s;
    e->len = sl;
    if (fp_fc_lit(c, ',')) {
        if (!fp_fc_int(c, &e->begin))
            return false;
        e->has_begin = true;
        while (fp_fc_lit(c, ','))
            if (!fp_fc_skip_scalar(c))
                return false;
    }
    return fp_fc_lit(c, ']');
}

#if defined(FP_FC_HAVE_NDIGITS8)
/* One number of a name as flat_entry takes it: 1..7 digits, no leading zero, at most
 * 1000000 (read_uint's limit); the position after it, or NULL. Byte by byte: these
 * are mostly one or two digits, where a word-wide count cost more than the digits. */
static inline const char *flat_num(const char *p, int *out)
{
    unsigned v = (unsigned char)p[0] - '0', d;
    if (v > 9)
        return NULL;
    const char *s = p + 1;
    if ((d = (unsigned char)*s - '0') <= 9) {
        if (v == 0)
            return NULL;
        do {
            v = v * 10 + d;
            if (++s - p > 7)
                return NULL;
        } while ((d = (unsigned char)*s - '0') <= 9);
        if (v > 1000000)
            return NULL;
    }
    *out = (int)v;
    return s;
}

/* The entry the way rocprofv3 writes every one: "<digits>":["se<S>_sm<M>_sl<L>_wv<N>.json",
 * <begin>,<end>] without blanks, a canonical name, begin 1..15 digits (or 0) and end
 * 1..7 digits without a leading zero, followed by ',' or '}'. Pushes it as fp_fc_key +
 * fast_entry would (the same name, len and begin) with the name's numbers, so
 * match_by_numbers need not read it again. Anything else: false with nothing read or
 * pushed (the caller takes the general way from the same place). Needs FLAT_VIEW bytes
 * in view: every read below stays inside them (the longest entry taken is ~90 bytes,
 * and each read stops at the first byte that does not fit). */
#define FLAT_VIEW 128
static bool flat_entry(fp_fc *c, listed_ent **v, size_t *n, size_t *cap)
{
    static const uint64_t P10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    const char *p = c->p;
    if (c->e - p < FLAT_VIEW || p[0] != '"')
        return false;
    const char *q = p + 1; /* the key: 1..7 digits, as fp_fc_key takes any of them */
    while ((unsigned)((unsigned char)*q - '0') <= 9 && q - p <= 7)
        q++;
    if (q == p + 1 || memcmp(q, "\":[\"se", 6))
        return false;
    const char *s = q + 4; /* the name */
    int se, simd, slot, id;
    if (!(q = flat_num(s + 2, &se)) || memcmp(q, "_sm", 3) || !(q = flat_num(q + 3, &simd)) || memcmp(q, "_sl", 3) ||
        !(q = flat_num(q + 3, &slot)) || memcmp(q, "_wv", 3) || !(q = flat_num(q + 3, &id)) ||
        memcmp(q, ".json\",", 7))
        return false;
    const char *nend = q + 5; /* the closing '"' */
    q += 7;
    uint64_t b, y;
    unsigned bd = (unsigned)fp_fc_digits8(q, &b);
    if (bd == 8) {
        unsigned m = (unsigned)fp_fc_digits8(q + 8, &y);
        if (m == 8)
            return false;
        b = b * P10[m] + y;
        bd += m;
    }
    if (bd == 0 || (bd > 1 && q[0] == '0') || q[bd] != ',')
        return false;
    q += bd + 1;
    /* end: a number fp_fc_skip_scalar takes, then ']' (mostly 5..7 digits: counted in one step) */
    const unsigned ed = fp_fc_ndigits8(q);
    if (ed - 1 > 6 || (ed > 1 && q[0] == '0') || q[ed] != ']' || (q[ed + 1] != ',' && q[ed + 1] != '}'))
        return false;
    q += ed;
    FP_GROW(*v, *n, *cap);
    (*v)[(*n)++] = (listed_ent){.name = s,
                                .len = (size_t)(nend - s),
                                .begin = (int64_t)b,
                                .has_begin = true,
                                .nums = true,
                                .se = se,
                                .simd = simd,
                                .slot = slot,
                                .id = id};
    c->p = q + 1;
    return true;
}
#endif

static bool fast_level(fp_fc *c, int depth, listed_ent **v, size_t *n, size_t *cap)
{
    if (!fp_fc_lit(c, '{'))
        return false;
    if (fp_fc_lit(c, '}'))
        return true;
    do {
#if defined(FP_FC_HAVE_NDIGITS8)
        if (depth == 3 && flat_entry(c, v, n, cap))
            continue;
#endif
        const char *k;
        size_t kl;
        if (!fp_fc_key(c, &k, &kl))
            return false;
        if (!(depth < 3 ? fast_level(c, depth + 1, v, n, cap) : fast_entry(c, v, n, cap)))
            return false;
    } while (fp_fc_lit(c, ','));
    return fp_fc_lit(c, '}');
}

static bool listed_fast(const char *buf, size_t len, listed_ent **v, size_t *n, size_t *cap)
{
    fp_fc c = {buf, buf + len};
    bool seen = false;
    if (!fp_fc_lit(&c, '{'))
        return false;
    if (!fp_fc_lit(&c, '}')) {
        do {
            const char *k;
            size_t kl;
            if (!fp_fc_key(&c, &k, &kl))
                return false;
            if (kl == 14 && !memcmp(k, "wave_filenames", 14)) {
                if (seen || !fast_level(&c, 0, v, n, cap))
                    return false;
                seen = true;
            } else if (!skip_flat(&c)) {
                return false;
            }
        } while (fp_fc_lit(&c, ','));
        if (!fp_fc_lit(&c, '}'))
            return false;
    }
    fp_fc_ws(&c);
    return c.p == c.e;
}

static void listed_free(listed_ent *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].own);
    free(v);
}

/* The merge by name (strcmp), for a listing with a name fp_wave_name_parse reads with
 * a leading zero: listed names and on-disk names both sorted, equal names paired. */
static void match_by_name(listed_ent *names, size_t n, fp_wave_list *out)
{
    for (size_t i = 0; i < n; i++)
        if (!names[i].own) /* NUL-terminated copies for strcmp */
            names[i].name = names[i].own = fp_xstrndup(names[i].name, names[i].len);
    if (n)
        qsort(names, n, sizeof *names, cmp_listed);
    fp_wave_file **disk = malloc((out->n + 1) * sizeof *disk);
    if (!disk)
        abort();
    for (size_t i = 0; i < out->n; i++)
        disk[i] = &out->files[i];
    if (out->n)
        qsort(disk, out->n, sizeof *disk, cmp_file_name);
    size_t i = 0, k = 0;
    while (i < n || k < out->n) {
        int c = i >= n ? 1 : k >= out->n ? -1 : strcmp(names[i].name, disk[k]->name);
        if (c == 0) {
            disk[k]->begin = names[i].begin;
            disk[k]->has_begin = names[i].has_begin;
            i++;
            k++;
        } else if (c < 0) {
            out->listed_missing++;
            i++;
        } else {
            out->unlisted++;
            k++;
        }
    }
    free(disk);
}

/* The same pairing when every on-disk name is canonical: a listed name (up to a NUL, as
 * strcmp reads it) equals a file's name exactly when it is canonical and has the file's
 * numbers, found in a table of the files' numbers (open addressing, linear probes, at
 * least twice the slots of files: about one probe a name where a bisection of the 4,112
 * files of a big trace took twelve compares). The files are inserted in their order and
 * their numbers are distinct (no two canonical names share them), so a name finds the
 * index the bisection's first key >= its numbers did. Of equal listed names the first in
 * the file pairs (the stable sort's first above), the others are missing. */
static size_t nums_hash(uint64_t k0, uint64_t k1, unsigned shift)
{
    return (size_t)(((k0 * 0x9e3779b97f4a7c15ull) ^ k1) * 0xc2b2ae3d27d4eb4full >> shift);
}

static void match_by_numbers(const listed_ent *names, size_t n, fp_wave_list *out)
{
    unsigned shift = 63; /* slots: 2^(64 - shift), the first power of two >= 2 (n + 1) */
    while (((size_t)1 << (64 - shift)) < 2 * (out->n + 1))
        shift--;
    const size_t mask = ((size_t)1 << (64 - shift)) - 1;
    bool *hit = calloc(out->n + 1, sizeof *hit);
    size_t *tab = calloc(mask + 1, sizeof *tab); /* a file's index + 1, 0: empty */
    /* the numbers (each in 0..1000000) as two words, in the files' order */
    uint64_t(*key)[2] = malloc((out->n + 1) * sizeof *key);
    if (!hit || !tab || !key)
        abort();
    for (size_t k = 0; k < out->n; k++) {
        const fp_wave_file *f = &out->files[k];
        key[k][0] = (uint64_t)f->se << 32 | (uint64_t)f->simd;
        key[k][1] = (uint64_t)f->slot << 32 | (uint64_t)f->id;
        size_t h = nums_hash(key[k][0], key[k][1], shift);
        while (tab[h])
            h = (h + 1) & mask;
        tab[h] = k + 1;
    }
    size_t paired = 0;
    for (size_t i = 0; i < n; i++) {
        char nm[64];
        /* flat_entry's names are read already (canonical, no NUL in them) */
        size_t l = names[i].nums ? 0 : strnlen(names[i].name, names[i].len), lo = 0;
        bool found = false;
        int se = names[i].se, simd = names[i].simd, slot = names[i].slot, id = names[i].id;
        if (l < sizeof nm) {
            bool canonical = names[i].nums;
            if (!canonical) {
                memcpy(nm, names[i].name, l);
                nm[l] = '\0';
            }
            if (canonical || (name_parse(nm, &se, &simd, &slot, &id, &canonical) && canonical)) {
                const uint64_t k0 = (uint64_t)se << 32 | (uint64_t)simd, k1 = (uint64_t)slot << 32 | (uint64_t)id;
                for (size_t h = nums_hash(k0, k1, shift); tab[h]; h = (h + 1) & mask) {
                    const size_t k = tab[h] - 1;
                    if (key[k][0] == k0 && key[k][1] == k1) {
                        lo = k;
                        found = true;
                        break;
                    }
                }
            }
        }
        if (!found || hit[lo]) {
            out->listed_missing++;
            continue;
        }
        hit[lo] = true;
        out->files[lo].begin = names[i].begin;
        out->files[lo].has_begin = names[i].has_begin;
        paired++;
    }
    out->unlisted = out->n - paired;
    free(key);
    free(tab);
    free(hit);
}

/* general: jscan and the merge by name only (fp_wave_list_dir_general) */
static void cross_check(const char *dir, fp_wave_list *out, bool canonical, bool general)
{
    char *path = fp_path_join(dir, "filenames.json");
    /* mapped, not read (as occupancy.json: no fresh page per 4 KiB of a read copy; 182 KB
     * in moe_reduce-big); both readers below are bounded by the length */
    fp_file_view fv;
    fp_err e = {0};
    int rc = fp_file_map(path, &fv, &e);
    free(path);
    fp_err_clear(&e);
    if (rc != 0) {
        fp_file_unmap(&fv);
        return;
    }
    listed_ent *names = NULL;
    size_t n = 0, cap = 0;
    if (!general) {
        /* room for the entries at once: each takes 32 bytes or more as rocprofv3 writes
         * them, and growing by doubling copied the 4,112 entries of a big trace ~2 times
         * over (FP_GROW still grows it for a denser document) */
        cap = fv.len / 32 + 1;
        names = malloc(cap * sizeof *names);
        if (!names)
            abort();
    }
    if (general || !listed_fast(fv.data, fv.len, &names, &n, &cap)) {
        listed_free(names, n);
        names = NULL;
        n = cap = 0;
        if (!listed_jscan(fv.data, fv.len, &names, &n, &cap)) {
            listed_free(names, n);
            fp_file_unmap(&fv);
            return;
        }
    }
    out->filenames_json = true;
    out->listed = n;
    if (canonical)
        match_by_numbers(names, n, out);
    else
        match_by_name(names, n, out);
    listed_free(names, n);
    fp_file_unmap(&fv); /* after the matching: fast entries point into it */
}

static unsigned bit_len(unsigned v) { return v ? 32u - (unsigned)__builtin_clz(v) : 0; }

/* out[0..n) = the files of v in (se, simd, slot, id, name) order, each named inside nm
 * (v's pos: its name's offset there; out's pos: its index). With canonical names the
 * numbers alone decide (no two files share them): packed into one 64-bit key, each
 * field in the bits its largest value needs (the 4,112 files of a big trace in 13 bits:
 * two radix passes, where 16 bits a field took four), and each file copied once into
 * its place; qsort when they need more than 64 bits or a name is not canonical. */
static void order_files(const fp_wave_file *v, size_t n, bool canonical, char *nm, fp_wave_file *out)
{
    unsigned o_se = 0, o_simd = 0, o_slot = 0, o_id = 0; /* each 0..1000000 (read_uint) */
    for (size_t i = 0; i < n && canonical; i++) {
        o_se |= (unsigned)v[i].se;
        o_simd |= (unsigned)v[i].simd;
        o_slot |= (unsigned)v[i].slot;
        o_id |= (unsigned)v[i].id;
    }
    const unsigned w_simd = bit_len(o_simd), w_slot = bit_len(o_slot), w_id = bit_len(o_id);
    if (!canonical || bit_len(o_se) + w_simd + w_slot + w_id > 64) {
        for (size_t i = 0; i < n; i++) {
            out[i] = v[i];
            out[i].name = nm + v[i].pos;
        }
        if (n)
            qsort(out, n, sizeof *out, cmp_wave_file);
    } else {
        uint64_t *key = malloc((n + 1) * sizeof *key);
        size_t *perm = malloc((n + 1) * sizeof *perm);
        if (!key || !perm)
            abort();
        for (size_t i = 0; i < n; i++)
            key[i] = (((uint64_t)v[i].se << w_simd | (uint64_t)v[i].simd) << w_slot | (uint64_t)v[i].slot) << w_id |
                     (uint64_t)v[i].id;
        fp_order_u64(key, n, perm);
        for (size_t i = 0; i < n; i++) {
            out[i] = v[perm[i]];
            out[i].name = nm + out[i].pos;
        }
        free(perm);
        free(key);
    }
    for (size_t i = 0; i < n; i++)
        out[i].pos = i;
}

/* general: the reference ways only - qsort, jscan, the merge by name (tests, fuzzing) */
static int list_dir(const char *dir, fp_wave_list *out, fp_err *err, bool general)
{
    memset(out, 0, sizeof *out);
    /* readdir's d_type says which entries are regular files, so the walk needs no
     * fstat per file; DT_UNKNOWN / DT_LNK (file systems without d_type, symlinks)
     * are resolved with one stat here */
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR)
            return fp_err_set(err, FP_NO_ARTIFACT, "%s: no such directory", dir);
        return fp_err_set(err, FP_IO_ERROR, "%s: cannot list: %s", dir, strerror(errno));
    }
    fp_wave_file *v = NULL;
    size_t n = 0, cap = 0, nb = 0, capb = 0;
    char *names = NULL; /* every name, NUL-terminated, one after the other (pos: offset) */
    /* room at once, from the directory's size (ext4: its entries' records, each at least
     * 8 bytes and its name; a wave file name takes 20 or more): growing by doubling
     * copied the 4,112 files of a big trace about twice over. Only a hint - the arrays
     * still grow past it - capped for file systems that report something else. */
    struct stat dst;
    if (fstat(dirfd(d), &dst) == 0 && dst.st_size > 0) {
        const size_t hint = (size_t)dst.st_size < ((size_t)1 << 24) ? (size_t)dst.st_size : (size_t)1 << 24;
        cap = hint / 28 + 1;
        capb = hint + 1;
        v = malloc(cap * sizeof *v);
        names = malloc(capb);
        if (!v || !names)
            abort();
    }
    bool canonical = true;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        fp_wave_file f;
        memset(&f, 0, sizeof f);
        bool canon = false;
        const size_t l = name_parse(de->d_name, &f.se, &f.simd, &f.slot, &f.id, &canon) + 1; /* with its NUL */
        if (l == 1)
            continue;
        if (de->d_type == DT_REG) {
            f.regular = true;
        } else if (de->d_type == DT_UNKNOWN || de->d_type == DT_LNK) {
            struct stat st;
            f.regular = fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISREG(st.st_mode);
            if (!f.regular && fstatat(dirfd(d), de->d_name, &st, 0) != 0)
                f.regular = true; /* dangling: let the open report it */
        }
        canonical = canonical && canon;
        FP_RESERVE(names, nb, capb, l);
        memcpy(names + nb, de->d_name, l);
        f.pos = nb;
        nb += l;
        FP_GROW(v, n, cap);
        v[n++] = f;
    }
    closedir(d);
    /* one block: the files, then their names (fp_wave_list_free frees it whole) */
    out->files = malloc(n * sizeof *out->files + nb + 1);
    if (!out->files)
        abort();
    char *nm = (char *)(out->files + n);
    if (nb)
        memcpy(nm, names, nb);
    canonical = canonical && !general;
    order_files(v, n, canonical, nm, out->files);
    out->n = n;
    free(v);
    free(names);
    cross_check(dir, out, canonical, general);
    return 0;
}

int fp_wave_list_dir(const char *dir, fp_wave_list *out, fp_err *err) { return list_dir(dir, out, err, false); }

int fp_wave_list_dir_general(const char *dir, fp_wave_list *out, fp_err *err) { return list_dir(dir, out, err, true); }

void fp_wave_list_free(fp_wave_list *l)
{
    if (!l)
        return;
    free(l->files); /* the names with it */
    memset(l, 0, sizeof *l);
}

/* Read one wave file relative to the dispatch dir's fd into buf (reused: it only
 * grows). No fstat: regularity came from the listing, and the size from read()
 * returning 0. Messages match fp_read_file's. */
static int read_wave_file(int dfd, const char *dir, const fp_wave_file *f, fp_sb *buf, fp_err *err)
{
    buf->len = 0;
    if (!f->regular)
        return fp_err_set(err, FP_IO_ERROR, "%s/%s: not a regular file", dir, f->name);
    /* O_NONBLOCK: a FIFO swapped in after the listing must not block the open */
    int fd = openat(dfd, f->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return fp_err_set(err, FP_NO_ARTIFACT, "%s/%s: no such file", dir, f->name);
        return fp_err_set(err, FP_IO_ERROR, "%s/%s: cannot open: %s", dir, f->name, strerror(errno));
    }
    for (;;) {
        if (buf->cap - buf->len < 4096 + 1)
            fp_sb_grow(buf, buf->cap < 65536 ? 65536 : buf->cap);
        ssize_t n = read(fd, buf->buf + buf->len, buf->cap - buf->len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return fp_err_set(err, FP_IO_ERROR, "%s/%s: read failed: %s", dir, f->name, strerror(e));
        }
        if (n == 0)
            break;
        buf->len += (size_t)n;
        if (buf->len > FP_MAX_INPUT_FILE) {
            close(fd);
            return fp_err_set(err, FP_BAD_INPUT, "%s/%s: larger than the input limit", dir, f->name);
        }
    }
    buf->buf[buf->len] = '\0';
    close(fd);
    return 0;
}

/* The fast path over the file through the window (wsrc): true when it read the whole
 * file and accepted it; false (nothing decided) sends the file the old way - read whole,
 * fp_wave_parse - which gives the same result or words the error. */
static bool stream_wave_file(int dfd, const fp_wave_file *f, fp_wave_walker *wk, bool *too_big)
{
    if (!f->regular)
        return false;
    int fd = openat(dfd, f->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    wk->buf.len = 0;
    fp_sb_grow(&wk->buf, WALK_FILL + ROW_WINDOW);
    wsrc src = {{wk->buf.buf, wk->buf.buf}, wk->buf.buf, WALK_FILL, WALK_AHEAD, fd, NULL, 0, 0, false, false, ROW_WINDOW};
    wave_reset(&wk->w);
    wk->w.inst_base = 0;
    /* sizing: with a chunked reader, a wave growing past its limit stops here */
    fp_wave_sink sizing = {NULL, NULL, NULL, wk->chunked ? wk->chunked->limit : 0, false, false, 0, 0, 0};
    wk->w.sink = sizing.limit ? &sizing : NULL;
    bool ok = fast_parse(&wk->w, &src) == 0;
    wk->w.sink = NULL;
    *too_big = sizing.too_big;
    close(fd);
    return ok;
}


/* ---- reading a wave in chunks (fp_wave_chunked) ---- */

typedef struct chunk_glue {
    const fp_wave_chunked *ck;
    const fp_wave_file *f;
    void *user;
    bool pass2;
} chunk_glue;

static int glue_rows(void *u, fp_wave *w)
{
    chunk_glue *g = u;
    return g->pass2 ? g->ck->rows_cb(g->user, g->f, w) : g->ck->scan_rows(g->user, g->f, w);
}

static int glue_spans(void *u, fp_wave *w)
{
    chunk_glue *g = u;
    return g->ck->scan_spans(g->user, g->f, w);
}

static void size_exactly(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (*cap == n)
        return;
    void *p = realloc(*arr, n * elem);
    if (!p)
        abort();
    *arr = p;
    *cap = n;
}

/* One pass over the file in chunks: 0, -1 (the fast scanner declined or the file could
 * not be opened: nothing decided) or a callback's stop value. */
static int chunk_pass(int dfd, const fp_wave_file *f, fp_wave_walker *wk, fp_wave_sink *s)
{
    int fd = openat(dfd, f->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    fp_wave *w = &wk->w;
    size_t rows = wk->chunked->rows < 64 ? 64 : wk->chunked->rows;
    wave_reset(w);
    w->inst_base = 0;
    size_exactly((void **)&w->insts, &w->cap_insts, rows, sizeof *w->insts);
    size_exactly((void **)&w->spans, &w->cap_spans, rows, sizeof *w->spans);
    size_exactly((void **)&w->waits, &w->cap_waits, 1024, sizeof *w->waits);
    size_exactly((void **)&w->prods, &w->cap_prods, 4096, sizeof *w->prods);
    fp_sb_grow(&wk->buf, WIN_SIZE + ROW_WINDOW);
    wsrc src = {{wk->buf.buf, wk->buf.buf}, wk->buf.buf, wk->buf.cap - ROW_WINDOW, WIN_AHEAD, fd, NULL, 0, 0, false, false,
                ROW_WINDOW};
    s->chunking = true;
    s->stop = 0;
    s->waits_seen = 0;
    w->sink = s;
    bool ok = fast_parse(w, &src) == 0;
    close(fd);
    if (ok && w->n_insts && s->rows)
        s->stop = s->rows(s->user, w);
    w->inst_base += w->n_insts;
    w->n_insts = 0;
    if (ok && !s->stop && w->n_spans && s->spans)
        s->stop = s->spans(s->user, w);
    w->n_spans = 0;
    s->waits_seen += (int64_t)w->n_waits;
    w->n_waits = w->n_prods = 0;
    w->sink = NULL;
    s->chunking = false;
    return s->stop ? s->stop : ok ? 0 : -1;
}

struct fp_wave_wcur {
    wsrc src;
    fp_sb buf;
    fp_wave batch;
    int64_t left;
    bool first, failed;
};

bool fp_wave_wcur_next(fp_wave_wcur *wc, size_t max, const fp_wave_wait **e, const int64_t **prods, size_t *n)
{
    fp_wave *b = &wc->batch;
    b->n_waits = b->n_prods = 0;
    fp_fc *c = &wc->src.c;
    while (!wc->failed && wc->left > 0 && b->n_waits < max) {
        ahead(c);
        if (!wc->first && !fp_fc_lit(c, ','))
            wc->failed = true;
        else if (!f_wait_entry(c, b))
            wc->failed = true;
        wc->first = false;
        wc->left--;
    }
    *e = b->waits;
    *prods = b->prods;
    *n = wc->failed ? 0 : b->n_waits;
    return *n > 0;
}

bool fp_wave_wcur_failed(const fp_wave_wcur *wc) { return wc->failed; }

static bool wcur_open(fp_wave_wcur *wc, int dfd, const fp_wave_file *f, size_t off, int64_t n)
{
    memset(wc, 0, sizeof *wc);
    wc->src.fd = -1;
    if (n <= 0)
        return true;
    int fd = openat(dfd, f->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || lseek(fd, (off_t)off, SEEK_SET) < 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    fp_sb_init(&wc->buf);
    fp_sb_grow(&wc->buf, WIN_AHEAD * 2 + ROW_WINDOW);
    wc->src = (wsrc){{wc->buf.buf, wc->buf.buf}, wc->buf.buf, wc->buf.cap - ROW_WINDOW, WIN_AHEAD, fd, NULL, 0, off,
                     false, false, ROW_WINDOW};
    wc->left = n;
    wc->first = true;
    return true;
}

static void wcur_close(fp_wave_wcur *wc)
{
    if (wc->src.fd >= 0)
        close(wc->src.fd);
    fp_wave_free(&wc->batch);
    fp_sb_free(&wc->buf);
}

/* A wave past the limit: 0 read in chunks (or skipped by begin), -1 not readable so
 * (the caller reads it whole), else the stop value of a callback. */
static int walk_chunked(int dfd, const fp_wave_file *f, fp_wave_walker *wk, void *user)
{
    const fp_wave_chunked *ck = wk->chunked;
    chunk_glue g = {ck, f, user, false};
    fp_wave_sink s = {glue_rows, glue_spans, &g, 0, false, false, 0, 0, 0};
    fp_wave *w = &wk->w;
    w->se = f->se;
    w->simd = f->simd;
    w->slot = f->slot;
    w->id = f->id;
    int rc = chunk_pass(dfd, f, wk, &s);
    if (rc)
        return rc;
    int64_t n_waits = s.waits_seen;
    size_t off = s.waits_off;
    fp_wave_wcur wc;
    if (!wcur_open(&wc, dfd, f, off, n_waits))
        return -1;
    rc = ck->begin(user, f, w, n_waits, &wc);
    if (rc < 0) {
        wcur_close(&wc);
        return -1;
    }
    if (rc == 0) {
        g.pass2 = true;
        s.spans = NULL;
        int r2 = chunk_pass(dfd, f, wk, &s);
        /* the same file again: anything but a clean read of as many entries is a change */
        bool ok = r2 == 0 && s.waits_seen == n_waits && !wc.failed;
        rc = r2 > 0 ? r2 : ck->end(user, f, w, ok);
    } else if (rc == 1) {
        rc = 0;
    }
    wcur_close(&wc);
    return rc;
}

void fp_wave_chunked_sizes(fp_wave_chunked *ck)
{
    ck->limit = FP_WAVE_CHUNK_LIMIT;
    ck->rows = FP_WAVE_CHUNK_ROWS;
    const char *env = getenv("FLYPROF_WAVE_CHUNK_ROWS");
    char *end = NULL;
    long long n = env && *env ? strtoll(env, &end, 10) : 0;
    if (end && !*end && n >= 64 && n <= (1LL << 30))
        ck->limit = ck->rows = (size_t)n;
}

void fp_wave_walker_init(fp_wave_walker *wk)
{
    fp_sb_init(&wk->buf);
    fp_wave_init(&wk->w);
    wk->chunked = NULL;
}

void fp_wave_walker_free(fp_wave_walker *wk)
{
    fp_wave_free(&wk->w);
    fp_sb_free(&wk->buf);
}

int fp_wave_walk_with(fp_wave_walker *wk, const char *dir, const fp_wave_list *list, fp_wave_cb cb,
                      fp_wave_skip_cb skip, void *user)
{
    int rc = 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* one error record for the walk, zeroed once (it is over 2 KB: zeroing it per file
     * cost more than a small file's header); only the failure paths write it, and the
     * fp_err_clear after skip() leaves it zeroed for the next file */
    fp_err e = {0};
    for (size_t i = 0; i < list->n && rc == 0; i++) {
        const fp_wave_file *f = &list->files[i];
        bool streamed = false, too_big = false;
        if (dfd < 0)
            fp_err_set(&e, FP_IO_ERROR, "%s: cannot open: %s", dir, strerror(errno));
        else
            streamed = stream_wave_file(dfd, f, wk, &too_big);
        if (too_big) { /* past the chunked limit: read in chunks, or whole when it cannot be */
            int r = walk_chunked(dfd, f, wk, user);
            if (r >= 0) {
                rc = r;
                continue;
            }
        }
        if (dfd < 0 || (!streamed && (read_wave_file(dfd, dir, f, &wk->buf, &e) != 0 ||
                                      fp_wave_parse(&wk->w, wk->buf.buf, wk->buf.len, f->name, &e) != 0))) {
            if (skip)
                skip(user, f, &e);
            fp_err_clear(&e);
            continue;
        }
        wk->w.se = f->se;
        wk->w.simd = f->simd;
        wk->w.slot = f->slot;
        wk->w.id = f->id;
        rc = cb(user, f, &wk->w);
    }
    if (dfd >= 0)
        close(dfd);
    return rc;
}

int fp_wave_walk(const char *dir, const fp_wave_list *list, fp_wave_cb cb, fp_wave_skip_cb skip,
                 void *user)
{
    fp_wave_walker wk;
    fp_wave_walker_init(&wk);
    int rc = fp_wave_walk_with(&wk, dir, list, cb, skip, user);
    fp_wave_walker_free(&wk);
    return rc;
}

/* ---- occupancy.json ---- */

static int cmp_occ_time(const void *a, const void *b)
{
    const fp_occ_event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    /* ends before starts at the same cycle, so a slot reused at t never counts twice */
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return 0;
}

static int cmp_occ_se(const void *a, const void *b)
{
    const fp_occ_se *x = a, *y = b;
    return (x->se > y->se) - (x->se < y->se);
}

static bool se_key(const char *s, size_t len, int *se)
{
    if (len == 0 || len > 6)
        return false;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *se = v;
    return true;
}

/* Events come out of rocprofv3 nearly in order (only events of one cycle are
 * out of place): a stable insertion sort costs about a pass over them, and its
 * result is the one of the stable qsort it replaces. Past a budget of moves
 * (a hostile file) the rest goes to qsort, which, stable too, still gives that
 * result from the partly sorted array. */
static void occ_sort(fp_occ_se *s)
{
    size_t moves = 0, budget = 16 * s->n + 1024;
    for (size_t i = 1; i < s->n; i++) {
        if (cmp_occ_time(&s->ev[i], &s->ev[i - 1]) >= 0)
            continue; /* in place already (nearly every event): no copy out and back */
        fp_occ_event x = s->ev[i];
        size_t j = i;
        while (j > 0 && cmp_occ_time(&x, &s->ev[j - 1]) < 0) {
            s->ev[j] = s->ev[j - 1];
            j--;
            if (++moves > budget) {
                s->ev[j] = x;
                qsort(s->ev, s->n, sizeof *s->ev, cmp_occ_time);
                return;
            }
        }
        s->ev[j] = x;
    }
}

/* The usual occupancy row, "[time,c,s,l,b,x]" with single-digit cells after the time
 * (CU, SIMD, slot, start, the sixth), at p with ROW_WINDOW readable bytes: the time as
 * row_compact reads a cell (compact_int_sep's rule), then the ten bytes "d,d,d,d,d]" checked
 * as one word and two bytes. Returns the position after ']' or NULL (then row_compact
 * and the general way decide, as before): never a row they would read otherwise. The
 * four digits stay in *cells, byte 2i cell i + 1 (occ_put6 stores them). */
static inline const char *occ_row6(const char *p, int64_t *time, uint64_t *cells)
{
    if (*p != '[')
        return NULL;
    /* the time: compact_int_sep's rule on one word, 1..7 digits and then ',' only (8
     * digits, or ']', go to row_compact, which reads them as before) */
    uint64_t t;
    memcpy(&t, p + 1, 8);
    uint64_t dt = t - 0x3030303030303030ull;
    uint64_t nd = (dt | (dt + 0x7676767676767676ull)) & 0x8080808080808080ull;
    if (!nd)
        return NULL;
    unsigned n = (unsigned)__builtin_ctzll(nd) >> 3;
    if (n == 0 || (char)(t >> (8 * n)) != ',' || (n > 1 && (char)t == '0'))
        return NULL;
    dt <<= 64 - 8 * n; /* swar_digits on the word already loaded */
    dt = ((dt * 2561) >> 8) & 0x00ff00ff00ff00ffull;
    dt = ((dt * 6553601) >> 16) & 0x0000ffff0000ffffull;
    *time = (int64_t)((dt * 42949672960001ull) >> 32);
    const char *q = p + 2 + n;
    uint64_t w;
    memcpy(&w, q, 8);
    /* bytes 0, 2, 4, 6 digits, 1, 3, 5, 7 commas (little-endian): with every byte at or
     * above its '0' / ',' no borrow runs and each byte of d is exact; else the lowest
     * byte below is exact and fails its test (as in compact_int_sep) */
    uint64_t d = w - 0x2c302c302c302c30ull;
    if ((d & 0xff00ff00ff00ff00ull) || ((d | (d + 0x0076007600760076ull)) & 0x0080008000800080ull) ||
        (unsigned)(q[8] - '0') > 9 || q[9] != ']')
        return NULL;
    *cells = d;
    return q + 10;
}

/* One event [time, cu, simd, slot, start] appended to a series (both readers). */
static inline void occ_put(fp_occ_se *s, size_t *ecap, const int64_t *v)
{
    FP_GROW(s->ev, s->n, *ecap);
    fp_occ_event *ev = &s->ev[s->n++];
    ev->time = v[0];
    ev->cu = (int32_t)v[1];
    ev->simd = (int32_t)v[2];
    ev->slot = (int32_t)v[3];
    ev->start = v[4] ? 1 : 0;
}

/* occ_put for occ_row6's row: the time, and the four digits (bytes 0, 2, 4, 6 of cells,
 * the others 0) widened to cu, simd, slot, start in one store, the start made 0/1 by a
 * minimum with 1 in its lane - the fields as occ_put writes them. */
_Static_assert(offsetof(fp_occ_event, simd) == offsetof(fp_occ_event, cu) + 4 &&
                   offsetof(fp_occ_event, slot) == offsetof(fp_occ_event, cu) + 8 &&
                   offsetof(fp_occ_event, start) == offsetof(fp_occ_event, cu) + 12,
               "cu, simd, slot, start are one 16-byte run");
static inline void occ_put6(fp_occ_se *s, size_t *ecap, int64_t time, uint64_t cells)
{
    FP_GROW(s->ev, s->n, *ecap);
    fp_occ_event *ev = &s->ev[s->n++];
    ev->time = time;
#if defined(__SSE2__)
    const __m128i x = _mm_min_epi16(_mm_loadl_epi64((const __m128i *)(const void *)&cells), _mm_setr_epi16(255, 255, 255, 1, 0, 0, 0, 0));
    _mm_storeu_si128((__m128i *)(void *)&ev->cu, _mm_unpacklo_epi16(x, _mm_setzero_si128()));
#else
    ev->cu = (int32_t)(cells & 0xff);
    ev->simd = (int32_t)(cells >> 16 & 0xff);
    ev->slot = (int32_t)(cells >> 32 & 0xff);
    ev->start = (cells >> 48 & 0xff) ? 1 : 0;
#endif
}

/* The fast path: {"<se>": [[int x 5+], ...], ..., "<other>": scalar or an
 * object of scalars} with the rows as the wave rows (row_compact, else
 * fp_fc_lit/fp_fc_int), read into the same fields in the same order as the jscan
 * reader. Anything else returns -1 with nothing kept, and the jscan reader
 * decides. */
static int occ_fast(const char *buf, size_t len, fp_occupancy *out)
{
    memset(out, 0, sizeof *out);
    fp_fc c = {buf, buf + len};
    size_t cap = 0;
    if (!fp_fc_lit(&c, '{'))
        goto fail;
    if (!fp_fc_lit(&c, '}')) {
        do {
            const char *k;
            size_t kl;
            int se;
            if (!fp_fc_key(&c, &k, &kl))
                goto fail;
            if (!se_key(k, kl, &se)) {
                fp_fc_ws(&c);
                if (c.p < c.e && *c.p == '{') { /* "dispatches": {"0": "name", ...} */
                    c.p++;
                    if (!fp_fc_lit(&c, '}')) {
                        do {
                            if (!fp_fc_key(&c, &k, &kl) || !fp_fc_skip_scalar(&c))
                                goto fail;
                        } while (fp_fc_lit(&c, ','));
                        if (!fp_fc_lit(&c, '}'))
                            goto fail;
                    }
                } else if (!fp_fc_skip_scalar(&c)) {
                    goto fail;
                }
                continue;
            }
            if (!fp_fc_lit(&c, '['))
                goto fail;
            FP_GROW(out->ses, out->n, cap);
            fp_occ_se *s = &out->ses[out->n++];
            memset(s, 0, sizeof *s);
            s->se = se;
            s->small_keys = true; /* occ_row6's rows are; the others are checked below */
            /* Room for every row the rest of the document can hold (a row takes 11 bytes
             * or more, "[0,0,0,0,0]", and its ','), fitted when the array ends: address
             * space only, a page costs when a row reaches it. Doubling copied each SE's
             * events ~once (moe_reduce-big, 1.2 MB: ~115 page faults in realloc's copies).
             * At most 2^20 events (24 MB) at once: past that the array doubles as before. */
            size_t ecap = (size_t)(c.e - c.p) / 12 + 2;
            ecap = ecap < ((size_t)1 << 20) ? ecap : (size_t)1 << 20;
            s->ev = malloc(ecap * sizeof *s->ev);
            if (!s->ev)
                abort();
            if (!fp_fc_lit(&c, ']')) {
                for (;;) {
                    /* the usual rows back to back, each "," + "[" taken here as the
                     * separator below would; done: the row at c.p is read */
                    bool done = false;
                    while ((size_t)(c.e - c.p) > ROW_WINDOW) {
                        int64_t t;
                        uint64_t cells;
                        const char *q = occ_row6(c.p, &t, &cells);
                        if (!q)
                            break;
                        occ_put6(s, &ecap, t, cells);
                        c.p = q;
                        done = true;
                        if (q[0] != ',' || q[1] != '[')
                            break;
                        c.p = q + 1;
                        done = false;
                    }
                    if (done) {
                        if (!fp_fc_lit(&c, ','))
                            break;
                        continue;
                    }
                    int64_t v[6] = {0};
                    const char *q = NULL;
                    if ((size_t)(c.e - c.p) > ROW_WINDOW && !(q = row_compact(c.p, v, 6)))
                        q = row_compact(c.p, v, 5);
                    if (q) {
                        c.p = q;
                    } else {
                        int nv = 0;
                        int64_t x;
                        if (!fp_fc_lit(&c, '['))
                            goto fail;
                        if (!fp_fc_lit(&c, ']')) {
                            do {
                                if (!fp_fc_int(&c, &x))
                                    goto fail;
                                if (nv < 6)
                                    v[nv] = x;
                                nv++;
                            } while (fp_fc_lit(&c, ','));
                            if (!fp_fc_lit(&c, ']'))
                                goto fail;
                        }
                        if (nv < 5)
                            goto fail;
                    }
                    s->small_keys = s->small_keys && (uint64_t)v[0] < 100000000 && (uint64_t)v[1] <= 9 &&
                                    (uint64_t)v[2] <= 9 && (uint64_t)v[3] <= 9;
                    occ_put(s, &ecap, v);
                    if (!fp_fc_lit(&c, ','))
                        break;
                }
                if (!fp_fc_lit(&c, ']'))
                    goto fail;
            }
            if (s->n < ecap) { /* in place: the tail goes back to the heap */
                fp_occ_event *fit = realloc(s->ev, (s->n ? s->n : 1) * sizeof *s->ev);
                if (fit)
                    s->ev = fit;
            }
            occ_sort(s);
        } while (fp_fc_lit(&c, ','));
        if (!fp_fc_lit(&c, '}'))
            goto fail;
    }
    fp_fc_ws(&c);
    if (c.p != c.e)
        goto fail;
    if (out->n)
        qsort(out->ses, out->n, sizeof *out->ses, cmp_occ_se);
    return 0;
fail:
    fp_occupancy_free(out);
    return -1;
}

int fp_occupancy_parse(const char *buf, size_t len, fp_occupancy *out, fp_err *err)
{
    if (occ_fast(buf, len, out) == 0)
        return 0;
    return fp_occupancy_parse_jscan(buf, len, out, err);
}

int fp_occupancy_load(const char *dir, fp_occupancy *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    char *path = fp_path_join(dir, "occupancy.json");
    /* mapped, not read: a read copy faults in a fresh page per 4 KiB of the file (1.2 MB
     * in moe_reduce-big: ~175 of its 1,120 page faults, --jobs 1); the readers are
     * bounded by len and need no NUL after it */
    fp_file_view fv;
    int rc = fp_file_map(path, &fv, err);
    free(path);
    if (rc == 0)
        rc = fp_occupancy_parse(fv.data, fv.len, out, err);
    fp_file_unmap(&fv);
    return rc;
}

int fp_occupancy_parse_jscan(const char *buf, size_t len, fp_occupancy *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    fp_jscan js;
    fp_js_init(&js, buf, len);
    size_t cap = 0;
    int rc = -1;
    if (fp_js_next(&js) != FP_JT_OBJ_BEGIN) {
        wbad(err, "occupancy.json", &js, "top level is not an object");
        goto done;
    }
    for (;;) {
        fp_jtok t = fp_js_next(&js);
        if (t == FP_JT_OBJ_END)
            break;
        if (t != FP_JT_STRING) {
            wbad(err, "occupancy.json", &js, "expected a key");
            goto done;
        }
        int se;
        if (!se_key(js.str, js.str_len, &se)) {
            fp_js_next(&js);
            if (!fp_js_skip(&js)) {
                wbad(err, "occupancy.json", &js, "bad value");
                goto done;
            }
            continue;
        }
        if (fp_js_next(&js) != FP_JT_ARR_BEGIN) {
            wbad(err, "occupancy.json", &js, "an SE entry is not an array");
            goto done;
        }
        FP_GROW(out->ses, out->n, cap);
        fp_occ_se *s = &out->ses[out->n++];
        memset(s, 0, sizeof *s);
        s->se = se;
        size_t ecap = 0;
        for (;;) {
            t = fp_js_next(&js);
            if (t == FP_JT_ARR_END)
                break;
            if (t != FP_JT_ARR_BEGIN) {
                wbad(err, "occupancy.json", &js, "an event is not an array");
                goto done;
            }
            int64_t v[6] = {0};
            int nv = 0;
            for (;;) {
                t = fp_js_next(&js);
                if (t == FP_JT_ARR_END)
                    break;
                if (t != FP_JT_NUMBER || !js.num_is_int) {
                    wbad(err, "occupancy.json", &js, "an event cell is not an integer");
                    goto done;
                }
                if (nv < 6)
                    v[nv] = js.inum;
                nv++;
            }
            if (nv < 5) {
                wbad(err, "occupancy.json", &js, "an event has fewer than 5 cells");
                goto done;
            }
            occ_put(s, &ecap, v);
        }
        if (s->n) /* the reference: occ_sort must give what this gives */
            qsort(s->ev, s->n, sizeof *s->ev, cmp_occ_time);
    }
    if (fp_js_next(&js) != FP_JT_END) {
        wbad(err, "occupancy.json", &js, "trailing data");
        goto done;
    }
    if (out->n)
        qsort(out->ses, out->n, sizeof *out->ses, cmp_occ_se);
    rc = 0;
done:
    fp_js_free(&js);
    if (rc != 0)
        fp_occupancy_free(out);
    return rc;
}

void fp_occupancy_free(fp_occupancy *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++)
        free(o->ses[i].ev);
    free(o->ses);
    memset(o, 0, sizeof *o);
}

/* ---- wstates<k>.json ---- */

/* A repeated "state"/"time" key replaces the earlier array (last one wins, as in
 * most JSON readers); the capacity travels with the array so a second read
 * never writes past the first one's allocation. */
static int read_int_array(fp_jscan *js, int64_t **v, size_t *n, size_t *cap)
{
    *n = 0;
    if (fp_js_next(js) != FP_JT_ARR_BEGIN)
        return -1;
    for (;;) {
        fp_jtok t = fp_js_next(js);
        if (t == FP_JT_ARR_END)
            return 0;
        if (t != FP_JT_NUMBER || !js->num_is_int)
            return -1;
        FP_GROW(*v, *n, *cap);
        (*v)[(*n)++] = js->inum;
    }
}

/* ---- streaming wstates: two cursors over the file, no arrays ----
 *
 * A wstates file of a big trace is a step function with one entry per state
 * change of any wave (tens of MB at 1 GB of trace). The integral needs
 * state[i] and time[i+1] - time[i] side by side, so the file is read twice
 * in 64 KiB chunks: pass 1 checks the shape {"key": "string" | [ints], ...}
 * and finds where the "state" and "time" arrays start (skipping each to its
 * ']': pass 2 is the one that reads them); pass 2 walks the two arrays in
 * lockstep, checking every cell as jscan reads it while it integrates. Memory:
 * two chunk buffers. Anything else (escapes, nesting, floats, a repeated
 * "state" or "time" key, arrays of different lengths, errors of any kind) goes
 * to the whole-file jscan reader, which decides and words the error, so
 * results are the same either way. */
typedef struct chunk_rd {
    int fd;
    off_t off; /* file offset of buf[0] */
    size_t pos, len;
    char buf[65536];
} chunk_rd;

static __attribute__((noinline)) int cr_refill(chunk_rd *r)
{
    r->off += (off_t)r->len;
    r->pos = r->len = 0;
    for (;;) {
        ssize_t n = pread(r->fd, r->buf, sizeof r->buf, r->off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        r->len = (size_t)n;
        return (unsigned char)r->buf[0];
    }
}

static inline int cr_peek(chunk_rd *r)
{
    if (r->pos == r->len)
        return cr_refill(r);
    return (unsigned char)r->buf[r->pos];
}

static inline int cr_ws_peek(chunk_rd *r)
{
    for (;;) {
        while (r->pos < r->len) {
            char ch = r->buf[r->pos];
            if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t')
                return (unsigned char)ch;
            r->pos++;
        }
        if (cr_refill(r) < 0)
            return -1;
    }
}

static inline bool cr_lit(chunk_rd *r, int ch)
{
    if (r->pos < r->len && r->buf[r->pos] == ch) { /* the compact layout: no whitespace */
        r->pos++;
        return true;
    }
    if (cr_ws_peek(r) != ch)
        return false;
    r->pos++;
    return true;
}

/* Make at least `need` bytes available at pos unless the file ends first
 * (moves the tail to the front and reads behind it). */
static __attribute__((noinline)) void cr_fill_slow(chunk_rd *r)
{
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->off += (off_t)r->pos;
    r->len -= r->pos;
    r->pos = 0;
    while (r->len < sizeof r->buf) {
        ssize_t n = pread(r->fd, r->buf + r->len, sizeof r->buf - r->len, r->off + (off_t)r->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        r->len += (size_t)n;
    }
}

static inline void cr_fill(chunk_rd *r, size_t need)
{
    if (r->len - r->pos < need)
        cr_fill_slow(r);
}

/* The same integer rule as the wave fast path (fp_fc_int). */
static __attribute__((noinline)) bool cr_int(chunk_rd *r, int64_t *out)
{
    cr_ws_peek(r);
    cr_fill(r, 24); /* a sign, 18 digits and the byte after them, in one piece */
    const char *p = r->buf + r->pos, *e = r->buf + r->len;
    bool neg = p < e && *p == '-';
    p += neg;
    const char *d0 = p;
    uint64_t v = 0;
    while (p < e && (unsigned)(*p - '0') <= 9 && p - d0 < 19)
        v = v * 10 + (uint64_t)(*p++ - '0');
    size_t nd = (size_t)(p - d0);
    if (nd == 0 || nd > 18 || (nd > 1 && *d0 == '0'))
        return false;
    if (p < e && (*p == '.' || *p == 'e' || *p == 'E'))
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    r->pos = (size_t)(p - r->buf);
    return true;
}

static void cr_init(chunk_rd *r, int fd, off_t off)
{
    r->fd = fd;
    r->off = off;
    r->pos = r->len = 0;
}

static off_t cr_tell(const chunk_rd *r) { return r->off + (off_t)r->pos; }

#if defined(__SSE2__)
/* The first pass only checks and counts an array's cells: 16 bytes at a time while they
 * are compact cells - digits, then ',' - the block from a cell start up to its last ','
 * is taken in one step when it holds only digits and commas, no empty cell and no cell
 * with a leading '0' (all cells then have 1..15 digits: integers jscan reads as such).
 * Returns the bytes taken (0: not this case, the caller reads one cell its way). */
static inline size_t skim_cells16(const char *p, size_t *cnt)
{
    const __m128i x = _mm_loadu_si128((const __m128i *)p);
    const __m128i a = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    unsigned dig = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(9)), a));
    unsigned com = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')));
    if ((dig | com) != 0xFFFFu || !(dig & 1) || !com)
        return 0;
    unsigned last = 31u - (unsigned)__builtin_clz(com); /* the block's last ',' */
    unsigned range = (2u << last) - 1, c = com & range;
    unsigned starts = ((c << 1) | 1) & range & ~c;
    unsigned zer = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('0')));
    if ((c & (c >> 1)) || (starts & zer & (dig >> 1)))
        return 0; /* ",," or a leading zero */
    /* the bits of a 16-bit mask, summed in place (__builtin_popcount is a libgcc call
     * without -mpopcnt, which the portable build does not assume) */
    unsigned b = c - ((c >> 1) & 0x5555u);
    b = (b & 0x3333u) + ((b >> 2) & 0x3333u);
    b = (b + (b >> 4)) & 0x0f0fu;
    *cnt += (size_t)((b + (b >> 8)) & 0x1fu);
    return last + 1;
}
#endif

#if defined(HAVE_AVX2_ROWS)
/* skim_cells16 over 32 bytes (AVX2): a block may now hold a cell of 16..31 digits,
 * more than jscan's integers have - any run of 16 digits declines it (the caller's
 * per-cell way decides). */
__attribute__((target("avx2,popcnt"))) static size_t skim_cells32(const char *p, size_t *cnt)
{
    const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    const __m256i a = _mm256_sub_epi8(x, _mm256_set1_epi8('0'));
    uint32_t dig = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(a, _mm256_set1_epi8(9)), a));
    uint32_t com = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(',')));
    if ((dig | com) != 0xffffffffu || !(dig & 1) || !com)
        return 0;
    unsigned last = 31u - (unsigned)__builtin_clz(com); /* the block's last ',' */
    uint32_t range = (uint32_t)((2ull << last) - 1), c = com & range;
    uint32_t starts = ((c << 1) | 1) & range & ~c;
    uint32_t zer = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('0')));
    uint32_t run = dig & (dig >> 1); /* bit i: digits at i..i+1, then i..i+3, i..i+7, i..i+15 */
    run &= run >> 2;
    run &= run >> 4;
    run &= run >> 8;
    if ((c & (c >> 1)) || (starts & zer & (dig >> 1)) || (run & range))
        return 0; /* ",,", a leading zero, 16+ digits */
    *cnt += (size_t)__builtin_popcount(c);
    return last + 1;
}
#endif

/* Pass 1 on a "state" or "time" array: from just after its '[' to just after the first ']'
 * (an integer array holds none before its end; whatever else lies there fails pass 2). */
static bool cr_skip_array(chunk_rd *r)
{
    for (;;) {
        const char *p = memchr(r->buf + r->pos, ']', r->len - r->pos);
        if (p) {
            r->pos = (size_t)(p - r->buf) + 1;
            return true;
        }
        r->pos = r->len;
        if (cr_refill(r) < 0)
            return false;
    }
}

/* Pass 2, a cell the compact way declines: blanks, a sign, 9..18 digits, or near the end
 * of the buffer (cr_int refills). */
static __attribute__((noinline)) bool cell_slow(chunk_rd *r, int64_t *v, bool *end)
{
    if (!cr_int(r, v))
        return false;
    if (cr_lit(r, ',')) {
        *end = false;
        return true;
    }
    *end = true;
    return cr_lit(r, ']');
}

/* Pass 2: the cell at r (just after the '[' or a ','), as jscan reads it, and whether
 * ']' ends the array after it; false when it is not an int64 integer cell. */
static inline bool cell_next(chunk_rd *r, int64_t *v, bool *end)
{
    unsigned n;
    if (r->len - r->pos >= 16 && (n = compact_int_sep(r->buf + r->pos, v)) != 0) {
        *end = r->buf[r->pos + n] == ']';
        r->pos += n + 1;
        return true;
    }
    return cell_slow(r, v, end);
}

/* Pass 1, an array of another key: every cell checked (and counted), as jscan would. */
static bool cr_check_array(chunk_rd *r)
{
    const bool wide = wide_ok();
    size_t cnt = 0, took;
    (void)wide;
    (void)took;
    if (cr_ws_peek(r) == ']') {
        r->pos++;
        return true;
    }
    for (;;) {
        int64_t v;
        unsigned n;
#if defined(HAVE_AVX2_ROWS)
        if (wide && r->len - r->pos >= 32 && (took = skim_cells32(r->buf + r->pos, &cnt)) != 0) {
            r->pos += took;
            continue;
        }
#endif
#if defined(__SSE2__)
        if (r->len - r->pos >= 16 && (took = skim_cells16(r->buf + r->pos, &cnt)) != 0) {
            r->pos += took;
            continue;
        }
#endif
        if (r->len - r->pos >= 16 && (n = compact_int_sep(r->buf + r->pos, &v)) != 0) {
            r->pos += n + 1;
            if (r->buf[r->pos - 1] == ']')
                return true;
            continue;
        }
        if (!cr_int(r, &v))
            return false;
        if (cr_lit(r, ','))
            continue;
        return cr_lit(r, ']');
    }
}

/* Pass 1: the object's shape, and where the "state" and "time" arrays start (-1: absent).
 * false: not the simple shape (or a key repeated). */
static bool ws_shape(chunk_rd *r, off_t *off_s, off_t *off_t_)
{
    if (!cr_lit(r, '{'))
        return false;
    if (cr_ws_peek(r) == '}') {
        r->pos++;
        return cr_ws_peek(r) == -1;
    }
    for (;;) {
        if (!cr_lit(r, '"'))
            return false;
        char key[8];
        size_t kl = 0;
        int ch;
        while ((ch = cr_peek(r)) != '"') {
            if (ch < 0x20 || ch > 0x7e || ch == '\\')
                return false;
            if (kl < sizeof key)
                key[kl] = (char)ch;
            kl++;
            r->pos++;
        }
        r->pos++;
        if (!cr_lit(r, ':'))
            return false;
        bool is_s = kl == 5 && !memcmp(key, "state", 5), is_t = kl == 4 && !memcmp(key, "time", 4);
        ch = cr_ws_peek(r);
        if (ch == '"') {
            if (is_s || is_t)
                return false;
            r->pos++;
            while ((ch = cr_peek(r)) != '"') {
                if (ch < 0x20 || ch > 0x7e || ch == '\\')
                    return false;
                r->pos++;
            }
            r->pos++;
        } else if (ch == '[') {
            r->pos++;
            off_t *at = is_s ? off_s : is_t ? off_t_ : NULL;
            if (at) { /* read by pass 2; a repeated key (the last one wins) is jscan's */
                if (*at >= 0)
                    return false;
                *at = cr_tell(r);
                if (!cr_skip_array(r))
                    return false;
            } else if (!cr_check_array(r)) {
                return false;
            }
        } else {
            return false;
        }
        if (cr_lit(r, ','))
            continue;
        if (cr_lit(r, '}'))
            break;
        return false;
    }
    return cr_ws_peek(r) == -1; /* trailing bytes (or a read error): jscan decides */
}

/* A compact time cell at p (9 bytes readable) that is not the last: 1..8 digits, no
 * leading '0' unless alone, then ',' - compact_int_sep's rule on one word (and the byte
 * after it for 8 digits: cycle counts past 10^7, as in a trace longer than ~5 ms at 2 GHz,
 * where the replayed 1 GB trace spends 60 % of its time cells). Returns the bytes taken
 * with the ',' (0: not this case). */
static inline unsigned ws_time_cell(const char *p, int64_t *v)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t d = w - 0x3030303030303030ull;
    uint64_t nd = (d | (d + 0x7676767676767676ull)) & 0x8080808080808080ull;
    unsigned len = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
    if ((len < 8 ? (char)(w >> (8 * len)) : p[8]) != ',' || len == 0 || (len > 1 && (char)w == '0'))
        return 0;
    if (len < 8)
        d <<= 64 - 8 * len; /* swar_digits on the word already loaded */
    d = ((d * 2561) >> 8) & 0x00ff00ff00ff00ffull;
    d = ((d * 6553601) >> 16) & 0x0000ffff0000ffffull;
    *v = (int64_t)((d * 42949672960001ull) >> 32);
    return len + 1;
}

/* A compact state cell that is not the last: 1 or 2 digits (the number of waves in a
 * state), the same rule. */
static inline unsigned ws_state_cell(const char *p, int64_t *v)
{
    unsigned d0 = (unsigned char)p[0] - '0', d1 = (unsigned char)p[1] - '0';
    if (d0 > 9)
        return 0;
    if (p[1] == ',') {
        *v = d0;
        return 2;
    }
    if (d1 > 9 || d0 == 0 || p[2] != ',')
        return 0;
    *v = d0 * 10 + d1;
    return 3;
}

/* Four state cells of one length at p (16 bytes readable), each followed by ',':
 * "d,d,d,d," checked as one word (occ_row6's test: bytes 1, 3, 5, 7 exactly ',', the
 * others digits), or, with SSE2, "dd,dd,dd,dd," on the byte masks of 16 bytes (the two-
 * digit cells without a leading '0') - the usual stretches of a state array, which
 * ws_state_cell would otherwise read one by one. Returns the bytes taken (0: not this
 * case, the cells go one by one). */
static inline unsigned ws_state4_same(const char *p, int64_t v[4])
{
    uint64_t w;
    memcpy(&w, p, 8);
    const uint64_t d = w - 0x2c302c302c302c30ull;
    if (!(d & 0xff00ff00ff00ff00ull) && !((d | (d + 0x0076007600760076ull)) & 0x0080008000800080ull)) {
        v[0] = (int64_t)(d & 0xff);
        v[1] = (int64_t)(d >> 16 & 0xff);
        v[2] = (int64_t)(d >> 32 & 0xff);
        v[3] = (int64_t)(d >> 48 & 0xff);
        return 8;
    }
#if defined(__SSE2__)
    const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i a = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    const unsigned dig = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(9)), a));
    const unsigned com = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')));
    /* bytes 0..11: digits at 0, 1, 3, 4, 6, 7, 9, 10, commas at 2, 5, 8, 11, and no cell
     * opening with '0' (a '0' at 0, 3, 6, 9) */
    if ((dig & 0xfffu) != 0x6dbu || (com & 0xfffu) != 0x924u || ((unsigned char)p[0] == '0') |
                                                                  ((unsigned char)p[3] == '0') |
                                                                  ((unsigned char)p[6] == '0') | ((unsigned char)p[9] == '0'))
        return 0;
    v[0] = (p[0] - '0') * 10 + (p[1] - '0');
    v[1] = (p[3] - '0') * 10 + (p[4] - '0');
    v[2] = (p[6] - '0') * 10 + (p[7] - '0');
    v[3] = (p[9] - '0') * 10 + (p[10] - '0');
    return 12;
#else
    return 0;
#endif
}

#if defined(__SSE2__)
/* Four time cells of one length L (1..7 digits) at p, 32 bytes readable, each followed by
 * ',' and none with a leading '0' unless alone - checked together on the byte masks of
 * the 32 bytes (non-digits, commas, zeros: the first four non-digits must be the commas at
 * L, 2L+1, 3L+2, 4L+3) - the usual stretch of a time array, whose cycle counts keep their
 * length for thousands of cells. Returns the bytes taken (0: not this case). */
static inline unsigned ws_time4(const char *p, int64_t v[4])
{
    const __m128i z = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9), comma = _mm_set1_epi8(',');
    const __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    const __m128i a0 = _mm_sub_epi8(x0, z), a1 = _mm_sub_epi8(x1, z);
    uint32_t dig = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a0, nine), a0)) |
                   (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a1, nine), a1)) << 16;
    uint32_t com = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x0, comma)) |
                   (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x1, comma)) << 16;
    uint32_t nd = ~dig;
    if (!nd)
        return 0;
    unsigned len = (unsigned)__builtin_ctz(nd);
    if (len == 0 || len > 7)
        return 0;
    unsigned w = len + 1;
    uint32_t seps = 1u << len | 1u << (len + w) | 1u << (len + 2 * w) | 1u << (len + 3 * w);
    uint32_t low = (uint32_t)((1ull << (4 * w)) - 1); /* 4 w <= 32 */
    if ((nd & low) != seps || (com & seps) != seps)
        return 0;
    if (len > 1) {
        uint32_t zer = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a0, _mm_setzero_si128())) |
                       (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a1, _mm_setzero_si128())) << 16;
        if (zer & (1u | 1u << w | 1u << 2 * w | 1u << 3 * w))
            return 0; /* a leading '0' */
    }
    digits2(p, len, p + w, len, &v[0], &v[1]);
    digits2(p + 2 * w, len, p + 3 * w, len, &v[2], &v[3]);
    return 4 * w;
}
#endif

#if defined(HAVE_AVX2_ROWS)
/* ws_time4 with AVX2 (wide_ok): the same four cells, the same rule. With L the first
 * cell's length and w = L + 1, the 128-bit lanes hold p[0..16) and p[2w..2w+16), each
 * two cells at 0 and w (2w <= 16): one mask test per kind over both lanes (digits and
 * commas where they must be, no '0' opening a cell of 2+ digits), then one byte shuffle
 * puts each cell right-aligned in an 8-byte lane and three multiply-adds make the
 * values - the 4 x (two loads, shifts and packs) of digits2 in one pass. */
#define WS_SH(last, n, b) ((7 - (b)) < (n) ? (last) - (7 - (b)) : 0x80)
#define WS_CELL(last, n)                                                                                        \
    WS_SH(last, n, 0), WS_SH(last, n, 1), WS_SH(last, n, 2), WS_SH(last, n, 3), WS_SH(last, n, 4), WS_SH(last, n, 5), \
        WS_SH(last, n, 6), WS_SH(last, n, 7)
#define WS_LANE(L) {WS_CELL((L) - 1, L), WS_CELL(2 * (L), L)}
#define WS_PAIR(L) (((1u << (L)) - 1) | ((1u << (L)) - 1) << ((L) + 1)) /* digit bytes of one lane */
#define WS_BOTH(m) ((m) | (m) << 16)
typedef struct ws_len {
    unsigned char sh[16];
    uint32_t dig, care, com, zer; /* over both lanes */
} ws_len;
#define WS_LEN(L)                                                                                          \
    {WS_LANE(L), WS_BOTH(WS_PAIR(L)), WS_BOTH((1u << (2 * (L) + 2)) - 1),                                  \
     WS_BOTH(1u << (L) | 1u << (2 * (L) + 1)), (L) > 1 ? WS_BOTH(1u | 1u << ((L) + 1)) : 0u}
static const ws_len ws_len_tab[8] __attribute__((aligned(16))) = {
    {{0}, 0, 0, 0, 0}, WS_LEN(1), WS_LEN(2), WS_LEN(3), WS_LEN(4), WS_LEN(5), WS_LEN(6), WS_LEN(7)};

__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline unsigned ws_time4_avx2(const char *p, __m128i *v)
{
    uint64_t q;
    memcpy(&q, p, 8);
    const uint64_t d8 = q - 0x3030303030303030ull;
    const uint64_t nd8 = (d8 | (d8 + 0x7676767676767676ull)) & 0x8080808080808080ull;
    const unsigned len = nd8 ? (unsigned)__builtin_ctzll(nd8) >> 3 : 8; /* the first cell's digits */
    if (len - 1 > 6)
        return 0;
    const unsigned w = len + 1;
    const ws_len *t = &ws_len_tab[len];
    const __m256i x = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p)),
                                              _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * w)), 1);
    const __m256i a = _mm256_sub_epi8(x, _mm256_set1_epi8('0'));
    const uint32_t dig = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(a, _mm256_set1_epi8(9)), a));
    const uint32_t com = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(',')));
    const uint32_t zer = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, _mm256_setzero_si256()));
    if ((dig & t->care) != t->dig || (com & t->com) != t->com || (zer & t->zer))
        return 0;
    const __m256i y =
        _mm256_shuffle_epi8(a, _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)(const void *)t->sh)));
    const __m256i pairs = _mm256_maddubs_epi16(y, _mm256_set1_epi16(0x010a));
    const __m256i quads = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00010064)); /* each <= 9999 */
    const __m256i oct = _mm256_madd_epi16(_mm256_packus_epi32(quads, quads), _mm256_set1_epi32(0x00012710));
    /* each lane holds its two values twice: the first of each, in order */
    *v = _mm256_castsi256_si128(_mm256_permute4x64_epi64(oct, 0x08));
    return 4 * w;
}

/* Four state cells of 1 or 2 digits at p (16 bytes readable), each followed by ',', as
 * ws_state4_same reads them, into the four 32-bit lanes of *v: "d,d,d,d," widened from
 * the word already checked, "dd,dd,dd,dd," by one shuffle and one multiply-add. Returns
 * the bytes taken (0: not this case). */
__attribute__((target("avx2,bmi,bmi2"), always_inline)) static inline unsigned ws_state4_vec(const char *p, __m128i *v)
{
    uint64_t w;
    memcpy(&w, p, 8);
    const uint64_t d = w - 0x2c302c302c302c30ull;
    if (!(d & 0xff00ff00ff00ff00ull) && !((d | (d + 0x0076007600760076ull)) & 0x0080008000800080ull)) {
        *v = _mm_cvtepu16_epi32(_mm_cvtsi64_si128((long long)d)); /* the commas became 0 */
        return 8;
    }
    const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i a = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    const unsigned dig = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(9)), a));
    const unsigned com = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')));
    const unsigned zer = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_setzero_si128()));
    /* as ws_state4_same: digits at 0, 1, 3, 4, 6, 7, 9, 10, commas at 2, 5, 8, 11, no '0'
     * opening a cell */
    if ((dig & 0xfffu) != 0x6dbu || (com & 0xfffu) != 0x924u || (zer & 0x249u))
        return 0;
    const __m128i tens = _mm_shuffle_epi8(a, _mm_setr_epi8(0, 1, 3, 4, 6, 7, 9, 10, -1, -1, -1, -1, -1, -1, -1, -1));
    *v = _mm_cvtepi16_epi32(_mm_maddubs_epi16(tens, _mm_set1_epi16(0x010a)));
    return 12;
}

#endif

/* Pass 2 in the compact case - time cells of 1..8 digits, state cells of 1..2, no sign, no
 * blank, not the arrays' last cells - a block of up to WS_BLOCK steps with plain arithmetic:
 * its values are in [0, 10^8), the first term (the state carried in, below WS_COMPACT)
 * below 10^16 and the others below 10^10, so from |acc| <= 2^62 no partial sum of the block
 * can leave int64 and the saturating sums would give the same numbers with no overflow.
 * Returns the steps taken (fewer than WS_BLOCK: the caller takes one step its way, which
 * also ends the arrays). */
#define WS_BLOCK 256
#define WS_COMPACT 100000000 /* 10^8: compact_int_sep's bound, for the values carried in */
static size_t ws_block(chunk_rd *r, chunk_rd *rt, int64_t *s0, int64_t *t0, int64_t *acc)
{
    int64_t s = *s0, t = *t0, sum = *acc;
    if (s < 0 || s >= WS_COMPACT || t < 0 || t >= WS_COMPACT || sum > ((int64_t)1 << 62) || sum < -((int64_t)1 << 62))
        return 0;
    /* cursors in locals: r and rt may be one object as far as the compiler knows */
    const char *ps = r->buf + r->pos, *pt = rt->buf + rt->pos;
    /* a step takes at most 3 bytes of state (2 digits and ',') and 9 of time (8 and ','),
     * and reads up to 16 at each cursor: the steps that surely fit, bounds checked once */
    ptrdiff_t room_s = (ptrdiff_t)(r->len - r->pos) - 16, room_t = (ptrdiff_t)(rt->len - rt->pos) - 32;
    if (room_s < 0 || room_t < 0)
        return 0;
    size_t n = (size_t)(room_s / 3 < room_t / 9 ? room_s / 3 : room_t / 9) + 1;
    if (n > WS_BLOCK)
        n = WS_BLOCK;
    size_t k = 0;
#if defined(__SSE2__)
    /* four steps at once while the time cells keep one length (k + 4 <= n: 32 bytes of time
     * readable, see above) */
    while (k + 4 <= n) {
        int64_t tv[4], sv[4];
        unsigned a = ws_time4(pt, tv), b = a ? ws_state4_same(ps, sv) : 0, b0, b1, b2, b3;
        if (!a || (!b && (!(b0 = ws_state_cell(ps, &sv[0])) || !(b1 = ws_state_cell(ps + b0, &sv[1])) ||
                          !(b2 = ws_state_cell(ps + b0 + b1, &sv[2])) ||
                          !(b3 = ws_state_cell(ps + b0 + b1 + b2, &sv[3])) || !(b = b0 + b1 + b2 + b3))))
            break;
        pt += a;
        ps += b;
        sum += s * (tv[0] - t) + sv[0] * (tv[1] - tv[0]) + sv[1] * (tv[2] - tv[1]) + sv[2] * (tv[3] - tv[2]);
        s = sv[3];
        t = tv[3];
        k += 4;
    }
#endif
    for (; k < n; k++) {
        int64_t s1, t1;
        unsigned a = ws_time_cell(pt, &t1), b;
        if (!a || !(b = ws_state_cell(ps, &s1)))
            break;
        pt += a;
        ps += b;
        sum += s * (t1 - t);
        s = s1;
        t = t1;
    }
    r->pos = (size_t)(ps - r->buf);
    rt->pos = (size_t)(pt - rt->buf);
    *s0 = s;
    *t0 = t;
    *acc = sum;
    return k;
}

#if defined(HAVE_AVX2_ROWS)
/* ws_block with ws_time4_avx2 (wide_ok): the same steps and results. The four steps'
 * terms in vectors: the times and states in 32-bit lanes, each lane's previous one by an
 * alignr from the last four, the products in 32 bits (a state below 100 times a time
 * difference below 10^7: below 2^31) summed in 64-bit lanes. For that the values carried
 * in must be a cell's too (a state below 100, a time below 10^7): else ws_block's way. */
__attribute__((target("avx2,bmi,bmi2"))) static size_t ws_block_wide(chunk_rd *r, chunk_rd *rt, int64_t *s0, int64_t *t0, int64_t *acc)
{
    int64_t s = *s0, t = *t0, sum = *acc;
    if (s < 0 || s >= 100 || t < 0 || t >= 10000000)
        return ws_block(r, rt, s0, t0, acc);
    if (sum > ((int64_t)1 << 62) || sum < -((int64_t)1 << 62))
        return 0;
    /* cursors in locals: r and rt may be one object as far as the compiler knows */
    const char *ps = r->buf + r->pos, *pt = rt->buf + rt->pos;
    /* a step takes at most 3 bytes of state (2 digits and ',') and 9 of time (8 and ','),
     * and reads up to 16 at each cursor: the steps that surely fit, bounds checked once */
    ptrdiff_t room_s = (ptrdiff_t)(r->len - r->pos) - 16, room_t = (ptrdiff_t)(rt->len - rt->pos) - 32;
    if (room_s < 0 || room_t < 0)
        return 0;
    size_t n = (size_t)(room_s / 3 < room_t / 9 ? room_s / 3 : room_t / 9) + 1;
    if (n > WS_BLOCK)
        n = WS_BLOCK;
    size_t k = 0;
    /* ws_block's loops, the time cells by ws_time4_avx2 (reads p[0..2w+16), 2w + 16 <= 32) */
    __m128i sv = _mm_cvtsi32_si128((int)s), tv = _mm_cvtsi32_si128((int)t); /* lane 3 after the shift */
    sv = _mm_shuffle_epi32(sv, 0);
    tv = _mm_shuffle_epi32(tv, 0);
    __m256i vsum = _mm256_setzero_si256();
    while (k + 4 <= n) {
        __m128i ts, ss;
        unsigned a = ws_time4_avx2(pt, &ts), b = a ? ws_state4_vec(ps, &ss) : 0;
        if (a && !b) {
            int64_t c[4];
            unsigned b0, b1, b2, b3;
            if (!(b0 = ws_state_cell(ps, &c[0])) || !(b1 = ws_state_cell(ps + b0, &c[1])) ||
                !(b2 = ws_state_cell(ps + b0 + b1, &c[2])) || !(b3 = ws_state_cell(ps + b0 + b1 + b2, &c[3])))
                break;
            b = b0 + b1 + b2 + b3;
            ss = _mm_setr_epi32((int)c[0], (int)c[1], (int)c[2], (int)c[3]);
        }
        if (!a)
            break;
        pt += a;
        ps += b;
        /* lanes: the state before each time, and the time before it */
        const __m128i sp = _mm_alignr_epi8(ss, sv, 12), tp = _mm_alignr_epi8(ts, tv, 12);
        vsum = _mm256_add_epi64(vsum, _mm256_cvtepi32_epi64(_mm_mullo_epi32(sp, _mm_sub_epi32(ts, tp))));
        sv = ss;
        tv = ts;
        k += 4;
    }
    s = (uint32_t)_mm_extract_epi32(sv, 3);
    t = (uint32_t)_mm_extract_epi32(tv, 3);
    const __m128i h = _mm_add_epi64(_mm256_castsi256_si128(vsum), _mm256_extracti128_si256(vsum, 1));
    sum += _mm_cvtsi128_si64(h) + _mm_extract_epi64(h, 1);
    for (; k < n; k++) {
        int64_t s1, t1;
        unsigned a = ws_time_cell(pt, &t1), b;
        if (!a || !(b = ws_state_cell(ps, &s1)))
            break;
        pt += a;
        ps += b;
        sum += s * (t1 - t);
        s = s1;
        t = t1;
    }
    r->pos = (size_t)(ps - r->buf);
    rt->pos = (size_t)(pt - rt->buf);
    *s0 = s;
    *t0 = t;
    *acc = sum;
    return k;
}

#endif

/* 0 ok, -1 not the simple shape (use jscan). */
static int wstates_stream(int fd, int64_t *out, bool *sat, size_t *ns_out, size_t *nt_out)
{
    chunk_rd *r = malloc(sizeof *r), *rt = malloc(sizeof *rt);
    if (!r || !rt)
        abort();
    int rc = -1;
    off_t off_s = -1, off_t_ = -1;
    cr_init(r, fd, 0);
    if (!ws_shape(r, &off_s, &off_t_))
        goto done;
    size_t n = 0;
    int64_t acc = 0;
    bool ov = false; /* the sum and its flag in locals: stores through out/sat could alias the cursors */
    if (off_s >= 0 || off_t_ >= 0) {
        if (off_s < 0 || off_t_ < 0)
            goto done; /* one array only: jscan counts the other's cells for the error */
        cr_init(r, fd, off_s);
        cr_init(rt, fd, off_t_);
        bool es = cr_ws_peek(r) == ']', et = cr_ws_peek(rt) == ']';
        int64_t s0, t0;
        if (!es && !et) {
            if (!cell_next(r, &s0, &es) || !cell_next(rt, &t0, &et))
                goto done;
            n = 1;
            const bool wide = wide_ok(); /* once per file */
            (void)wide;
            while (!es && !et) {
#if defined(HAVE_AVX2_ROWS)
                size_t k = wide ? ws_block_wide(r, rt, &s0, &t0, &acc) : ws_block(r, rt, &s0, &t0, &acc);
#else
                size_t k = ws_block(r, rt, &s0, &t0, &acc);
#endif
                n += k;
                if (k == WS_BLOCK)
                    continue;
                int64_t s1, t1;
                if (!cell_next(rt, &t1, &et) || !cell_next(r, &s1, &es))
                    goto done;
                acc = fp_sat_add(acc, fp_sat_mul(s0, fp_sat_sub(t1, t0, &ov), &ov), &ov);
                s0 = s1;
                t0 = t1;
                n++;
            }
        }
        if (es != et)
            goto done; /* different lengths: jscan counts them for the error */
    }
    *ns_out = *nt_out = n;
    *out = acc;
    *sat |= ov;
    rc = 0;
done:
    free(r);
    free(rt);
    return rc;
}

int fp_wstates_integral(const char *dir, int state, int64_t *out, bool *saturated, fp_err *err)
{
    *out = 0;
    *saturated = false;
    char name[32];
    snprintf(name, sizeof name, "wstates%d.json", state);
    char *path = fp_path_join(dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
        struct stat fst;
        size_t ns = 0, nt = 0;
        int src = fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) && (size_t)fst.st_size <= FP_MAX_INPUT_FILE
                      ? wstates_stream(fd, out, saturated, &ns, &nt)
                      : -1;
        close(fd);
        if (src == 0) {
            free(path);
            if (ns != nt)
                return fp_err_set(err, FP_BAD_INPUT, "%s: \"state\" has %zu entries but \"time\" %zu", name, ns, nt);
            return 0;
        }
        *out = 0;
        *saturated = false;
    }
    fp_sb sb;
    fp_sb_init(&sb);
    int rc = fp_read_file(path, &sb, err);
    free(path);
    if (rc == 0)
        rc = fp_wstates_parse_jscan(sb.buf, sb.len, state, out, saturated, err);
    fp_sb_free(&sb);
    return rc;
}

int fp_wstates_parse_jscan(const char *buf, size_t len, int state, int64_t *out, bool *saturated, fp_err *err)
{
    *out = 0;
    *saturated = false;
    char name[32];
    snprintf(name, sizeof name, "wstates%d.json", state);
    fp_jscan js;
    fp_js_init(&js, buf, len);
    int64_t *st = NULL, *tm = NULL;
    size_t ns = 0, nt = 0, cs = 0, ct = 0;
    int rc = -1;
    if (fp_js_next(&js) != FP_JT_OBJ_BEGIN) {
        wbad(err, name, &js, "top level is not an object");
        goto done;
    }
    for (;;) {
        fp_jtok t = fp_js_next(&js);
        if (t == FP_JT_OBJ_END)
            break;
        if (t != FP_JT_STRING) {
            wbad(err, name, &js, "expected a key");
            goto done;
        }
        if (fp_js_str_eq(&js, "state") || fp_js_str_eq(&js, "time")) {
            bool is_state = js.str[0] == 's';
            if ((is_state ? read_int_array(&js, &st, &ns, &cs) : read_int_array(&js, &tm, &nt, &ct)) != 0) {
                wbad(err, name, &js, "\"state\"/\"time\" is not an integer array");
                goto done;
            }
        } else {
            fp_js_next(&js);
            if (!fp_js_skip(&js)) {
                wbad(err, name, &js, "bad value");
                goto done;
            }
        }
    }
    if (ns != nt) {
        fp_err_set(err, FP_BAD_INPUT, "%s: \"state\" has %zu entries but \"time\" %zu", name, ns, nt);
        goto done;
    }
    for (size_t i = 0; i + 1 < ns; i++) {
        int64_t dt = fp_sat_sub(tm[i + 1], tm[i], saturated);
        *out = fp_sat_add(*out, fp_sat_mul(st[i], dt, saturated), saturated);
    }
    rc = 0;
done:
    free(st);
    free(tm);
    fp_js_free(&js);
    return rc;
}

/* ---- a wave's timeline alone, in chunks (fp_wave_spans_chunked) ----
 * A third pass over a wave read in chunks, for a reader that must know the header before
 * the first span (the timeline's slices start at w->begin, which a file may write after
 * its "timeline"): chunk_pass again, the rows dropped (no rows sink), the spans handed on. */

typedef struct spans_glue {
    int (*fn)(void *user, const fp_wave *w);
    void *user;
} spans_glue;

static int spans_only(void *u, fp_wave *w)
{
    spans_glue *g = u;
    return g->fn(g->user, w);
}

int fp_wave_spans_chunked(const char *dir, const fp_wave_file *f, size_t rows, int (*fn)(void *user, const fp_wave *w),
                          void *user)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    fp_wave_chunked ck = {0};
    ck.rows = rows;
    fp_wave_walker wk;
    fp_wave_walker_init(&wk);
    wk.chunked = &ck;
    spans_glue g = {fn, user};
    fp_wave_sink s = {NULL, spans_only, &g, 0, false, false, 0, 0, 0};
    int rc = chunk_pass(dfd, f, &wk, &s);
    fp_wave_walker_free(&wk);
    close(dfd);
    return rc;
}
