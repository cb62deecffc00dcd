/*
 * hotspots.c - the seed analyzer's computation (algorithm doc §3-§8) and the
 * register/occupancy block of seed 000.
 *
 * The one idea: every ranking is a STABLE sort by a descending key, ties keep
 * code order (Python's sorted(reverse=True) semantics); here that is a merge
 * sort with the first-appearance index as the final tie-breaker.
 */
#include "flyprof/hotspots.h"
#include "flyprof/strtab.h"

#include <ctype.h>
#include <stdint.h>
#if defined(__SSE2__)
#include "flyprof/fscan.h" /* fp_fc_keychars16: the [A-Za-z0-9_] bytes of 16 */
#endif
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        abort();
    return p;
}

/* For arrays every used entry of which is written before it is read: calloc's
 * zeroing of ~100 KB was 3 % of a run (and touched pages never used). */
static void *xmalloc(size_t n, size_t sz)
{
    if (n && sz > SIZE_MAX / n)
        abort();
    void *p = malloc(n && sz ? n * sz : 1);
    if (!p)
        abort();
    return p;
}

/* ---- taxonomy (algorithm §4) as data ---- */

static const char *const type_names[FP_ST_COUNT] = {
    "VMEM-wait", "LDS/SMEM-wait", "EXP-wait", "waitcnt", "barrier", "VMEM-load",
    "VMEM-store", "LDS", "SMEM", "MFMA/FMA", "other",
};

const char *fp_stall_type_name(fp_stall_type t)
{
    return (unsigned)t < FP_ST_COUNT ? type_names[t] : "other";
}

typedef struct class_rule {
    const char *needles[4]; /* any of them, NULL-terminated */
    fp_stall_type type;
} class_rule;

/* Inside an s_waitcnt: the first counter named wins (vmcnt before lgkmcnt before
 * expcnt), so a combined wait counts as VMEM-wait; none named -> "waitcnt"
 * (e.g. s_waitcnt_vscnt). */
static const class_rule waitcnt_rules[] = {
    {{"vmcnt", NULL}, FP_ST_VMEM_WAIT},
    {{"lgkmcnt", NULL}, FP_ST_LGKM_WAIT},
    {{"expcnt", NULL}, FP_ST_EXP_WAIT},
};

/* Plain substring tests, not prefixes: s_buffer_load is VMEM-load, ds_load_* is
 * SMEM (contains "s_load"), v_pk_fma is other. Copied on purpose (algorithm §4). */
static const class_rule class_rules[] = {
    {{"s_barrier", "s_wait_idle", NULL}, FP_ST_BARRIER},
    {{"buffer_load", "global_load", "flat_load", NULL}, FP_ST_VMEM_LOAD},
    {{"buffer_store", "global_store", NULL}, FP_ST_VMEM_STORE},
    {{"ds_read", "ds_write", NULL}, FP_ST_LDS},
    {{"s_load", "s_store", NULL}, FP_ST_SMEM},
    {{"v_mfma", "v_fma", NULL}, FP_ST_MFMA},
};

static bool rule_hits(const class_rule *r, const char *low)
{
    for (int i = 0; r->needles[i]; i++)
        if (strstr(low, r->needles[i]))
            return true;
    return false;
}

/* Inside an s_waitcnt (lowercase text): the first counter named, else waitcnt. */
static fp_stall_type wait_rules(const char *low)
{
    for (size_t i = 0; i < sizeof waitcnt_rules / sizeof *waitcnt_rules; i++)
        if (rule_hits(&waitcnt_rules[i], low))
            return waitcnt_rules[i].type;
    return FP_ST_WAITCNT;
}

/* Call fn on a lowercase copy of isa. */
static fp_stall_type on_lower(const char *isa, fp_stall_type (*fn)(const char *low))
{
    size_t n = strlen(isa);
    char stackbuf[256];
    char *low = n < sizeof stackbuf ? stackbuf : xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)isa[i]);
    low[n] = '\0';
    fp_stall_type t = fn(low);
    if (low != stackbuf)
        free(low);
    return t;
}

static fp_stall_type classify_low(const char *low)
{
    if (strstr(low, "s_waitcnt"))
        return wait_rules(low);
    for (size_t i = 0; i < sizeof class_rules / sizeof *class_rules; i++)
        if (rule_hits(&class_rules[i], low))
            return class_rules[i].type;
    return FP_ST_OTHER;
}

fp_stall_type fp_stall_classify(const char *isa) { return on_lower(isa, classify_low); }

/* ---- ISA scan (algorithm §8) ---- */

/* Opcodes that exist only on gfx950 (CDNA4): the analyzer's heuristic. */
static const char *const gfx950_markers[] = {"v_mfma_scale_f32", "v_mfma_f32_16x16x128",
                                             "v_mfma_f32_32x32x64"};


/* Instruction mix: count of instructions containing any needle (original case). */
typedef struct mix_rule {
    const char *needles[3];
    size_t off; /* offsetof(fp_isa_scan, counter) */
} mix_rule;

static const mix_rule mix_rules[] = {
    {{"v_mfma_", NULL}, offsetof(fp_isa_scan, mfma)},
    {{"buffer_load", NULL}, offsetof(fp_isa_scan, buffer_load)},
    {{"buffer_store", NULL}, offsetof(fp_isa_scan, buffer_store)},
    {{"ds_read", "ds_load", NULL}, offsetof(fp_isa_scan, ds_read)},
    {{"ds_write", "ds_store", NULL}, offsetof(fp_isa_scan, ds_write)},
};

/* A register index beyond any register file; clamps absurd numbers. */
#define ISA_REG_INDEX_CAP 1000000

/* Python's \w for ASCII text: [A-Za-z0-9_] (isalnum() in the C locale we run
 * in), one load per byte: the register scan tests every byte of the ISA. Bit 1
 * (value 3) marks '_': a token's OR of its bytes tells whether it holds one. */
static const unsigned char word_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
    ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
    ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['_'] = 3, ['a'] = 1, ['b'] = 1, ['c'] = 1,
    ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
    ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,
    ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

static inline bool word_char(unsigned char c) { return word_tab[c]; }

static inline bool digit(unsigned char c) { return (unsigned)(c - '0') < 10; }

#define N_MIX (sizeof mix_rules / sizeof *mix_rules)

/* The substring tests of one ISA text: mix rules hit (bit i) and gfx950 marker. */
static unsigned isa_needles(const char *isa)
{
    unsigned bits = 0;
    for (size_t i = 0; i < sizeof gfx950_markers / sizeof *gfx950_markers; i++)
        if (strstr(isa, gfx950_markers[i]))
            bits |= 1u << N_MIX;
    for (size_t i = 0; i < N_MIX; i++) {
        const mix_rule *m = &mix_rules[i];
        for (int k = 0; m->needles[k]; k++)
            if (strstr(isa, m->needles[k])) {
                bits |= 1u << i;
                break;
            }
    }
    return bits;
}

static void isa_scan_apply(fp_isa_scan *sc, unsigned bits)
{
    if (bits & (1u << N_MIX))
        sc->gfx950_opcodes = true;
    /* only the set bits: most instructions hit no mix rule */
    for (unsigned b = bits & ((1u << N_MIX) - 1); b; b &= b - 1)
        (*(size_t *)((char *)sc + mix_rules[__builtin_ctz(b)].off))++;
}

/* ---- one pass per instruction: classification and register scan ----
 *
 * Every needle (taxonomy, mix, gfx950 markers, "s_waitcnt") is made of
 * [A-Za-z0-9_] and holds a '_', so a match lies inside one maximal \w run
 * (token) that holds a '_'. So the answers for a whole text are the OR of
 * the answers for its '_' tokens - the mnemonic and modifiers such as
 * "op_sel_hi" - computed once per distinct token and looked up for every
 * other instruction. Exactly the substring tests on the whole text, without
 * re-running ~25 strstr per row. Only inside an s_waitcnt do the counters
 * (vmcnt, lgkmcnt, expcnt: no '_') matter: then the whole text decides.
 * Register operands are tokens too: `\b<r>(\d+)\b` is a token [va]\d+, and
 * `\b<r>\[(\d+)` is the token "v"/"a" before '[' and digits. */

#define N_CLASS (sizeof class_rules / sizeof *class_rules)
enum { TB_WAIT = 0, TB_CLASS0 = 1, TB_MIX0 = TB_CLASS0 + (int)N_CLASS };

#if defined(__SSE2__)
/* A token of <= 32 bytes as two zero-padded 16-byte keys, and its mask. */
typedef struct tok_ent {
    __m128i k0, k1;
    unsigned len; /* 0: empty */
    unsigned mask;
} tok_ent;
#define TOK_CACHE_BITS 7
#endif

typedef struct op_memo {
    fp_strtab tokens; /* token -> its mask */
#if defined(__SSE2__)
    /* in front of the table, direct-mapped: a hit is two compares, not a hash of
     * the bytes, a probe and a memcmp call (~120 instructions a token) */
    tok_ent cache[1u << TOK_CACHE_BITS];
#endif
} op_memo;

/* The needles of one '_' token (not NUL-terminated): bit TB_WAIT for
 * "s_waitcnt", TB_CLASS0 + i for class_rules[i] (lowercase, as
 * fp_stall_classify), TB_MIX0 + the isa_needles() bits (original case). */
static unsigned token_mask(const char *tok, size_t n)
{
    char ob[128], lb[128];
    char *orig = n < sizeof ob ? ob : xcalloc(n + 1, 1), *low = n < sizeof lb ? lb : xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) {
        orig[i] = tok[i];
        low[i] = (char)tolower((unsigned char)tok[i]);
    }
    orig[n] = low[n] = '\0';
    unsigned mask = strstr(low, "s_waitcnt") ? 1u << TB_WAIT : 0;
    for (size_t i = 0; i < N_CLASS; i++)
        if (rule_hits(&class_rules[i], low))
            mask |= 1u << (TB_CLASS0 + i);
    mask |= isa_needles(orig) << TB_MIX0;
    if (orig != ob)
        free(orig);
    if (low != lb)
        free(low);
    return mask;
}

/* A register token [va]\d+ (or "v"/"a" before "[digits"): its index into *max. */
static void reg_token(const char *w, size_t n, const char *after, int64_t *max_v, int64_t *max_a)
{
    const char *d = n == 1 && after[0] == '[' ? after + 1 : w + 1, *e = d;
    if (!digit((unsigned char)*d))
        return;
    int64_t v = 0;
    for (; digit((unsigned char)*e); e++)
        if (v <= ISA_REG_INDEX_CAP)
            v = v * 10 + (*e - '0');
    if (n > 1 && e != w + n)
        return; /* "v12abc": no word boundary after the digits */
    if (v > ISA_REG_INDEX_CAP)
        v = ISA_REG_INDEX_CAP;
    int64_t *m = *w == 'v' ? max_v : max_a;
    if (v > *m)
        *m = v;
}

/* The mask of one '_' token w[0..n), memoised; key is where the token lives in
 * the instruction text (the table borrows it: the text outlives the scan). */
static unsigned memo_token(op_memo *m, const char *w, size_t n)
{
    uint64_t h = fp_strtab_hash(w, n);
    const fp_strtab_slot *e = fp_strtab_get(&m->tokens, w, n, h);
    if (e)
        return (unsigned)e->val;
    unsigned tm = token_mask(w, n);
    fp_strtab_put(&m->tokens, w, n, h, tm);
    return tm;
}

/* The tokens of isa, one byte at a time: any length (the general path). */
static unsigned scan_tokens_bytes(op_memo *m, const char *isa, int64_t *max_v, int64_t *max_a)
{
    unsigned mask = 0;
    for (const char *p = isa; *p;) {
        if (!word_char((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *w = p;
        unsigned char t, seen = 0;
        for (; (t = word_tab[(unsigned char)*p]) != 0; p++)
            seen |= t;
        size_t n = (size_t)(p - w);
        if (seen & 2)
            mask |= memo_token(m, w, n);
        else if (*w == 'v' || *w == 'a')
            reg_token(w, n, p, max_v, max_a);
    }
    return mask;
}

#if defined(__SSE2__)
/* Texts shorter than this go through scan_tokens_simd (nearly all: ~30 bytes). */
#define SCAN_SIMD_MAX 64

/* The same tokens as scan_tokens_bytes for a text of n < SCAN_SIMD_MAX bytes:
 * its word bytes and its '_' bytes as two 64-bit masks, 16 bytes a step, and
 * then each token is a run of ones (found by ctz) instead of a table load and a
 * branch per byte (the byte loop was ~40 % of the analysis). */
static unsigned scan_tokens_simd(op_memo *m, const char *isa, size_t n, int64_t *max_v, int64_t *max_a)
{
    /* zero-padded copy: the loads never read past the text, and a NUL ends every
     * digit run reg_token reads */
    char buf[SCAN_SIMD_MAX + 32] = {0}; /* + 32: a token's two key loads */
    memcpy(buf, isa, n);
    const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint64_t word = 0, under = 0;
    for (size_t k = 0; k < n; k += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(buf + k));
        word |= (uint64_t)fp_fc_keychars16(x) << k;
        under |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('_'))) << k;
    }
    unsigned mask = 0;
    /* bit 63 is never set (n < 64), so every run ends inside the word */
    while (word) {
        unsigned s = (unsigned)__builtin_ctzll(word);
        unsigned len = (unsigned)__builtin_ctzll(~(word >> s));
        uint64_t tok = ((1ULL << len) - 1) << s;
        word &= ~tok;
        if (under & tok) {
            if (len > 32) {
                mask |= memo_token(m, isa + s, len);
                continue;
            }
            /* the token's bytes, the rest of each 16 zeroed */
            __m128i k0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(buf + s)),
                                       _mm_cmpgt_epi8(_mm_set1_epi8((char)len), iota));
            __m128i k1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(buf + s + 16)),
                                       _mm_cmpgt_epi8(_mm_set1_epi8((char)(len - 16)), iota));
            uint64_t lo, hi, lo1;
            memcpy(&lo, &k0, 8);
            memcpy(&hi, (const char *)&k0 + 8, 8);
            memcpy(&lo1, &k1, 8);
            uint64_t h = (lo ^ (hi * 0x9E3779B97F4A7C15ull) ^ (lo1 * 0xC2B2AE3D27D4EB4Full) ^ len) * 0xff51afd7ed558ccdull;
            tok_ent *ce = &m->cache[h >> (64 - TOK_CACHE_BITS)];
            if (ce->len == len && _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(ce->k0, k0), _mm_cmpeq_epi8(ce->k1, k1))) == 0xFFFF) {
                mask |= ce->mask;
            } else {
                unsigned tm = memo_token(m, isa + s, len);
                *ce = (tok_ent){k0, k1, len, tm};
                mask |= tm;
            }
        } else if (buf[s] == 'v' || buf[s] == 'a')
            reg_token(buf + s, len, buf + s + len, max_v, max_a);
    }
    return mask;
}
#endif

/* Type and mix/marker bits of one instruction; its registers into *max_v/a. */
static fp_stall_type scan_inst(op_memo *m, const char *isa, unsigned *bits, int64_t *max_v, int64_t *max_a)
{
    unsigned mask;
#if defined(__SSE2__)
    size_t n = strlen(isa);
    mask = n < SCAN_SIMD_MAX ? scan_tokens_simd(m, isa, n, max_v, max_a) : scan_tokens_bytes(m, isa, max_v, max_a);
#else
    mask = scan_tokens_bytes(m, isa, max_v, max_a);
#endif
    *bits = mask >> TB_MIX0;
    if (mask & (1u << TB_WAIT))
        return on_lower(isa, wait_rules); /* the counters its operands name decide */
    /* the first rule hit wins: the lowest class bit */
    unsigned cls = (mask >> TB_CLASS0) & ((1u << N_CLASS) - 1);
    return cls ? class_rules[__builtin_ctz(cls)].type : FP_ST_OTHER;
}

/* ---- aggregation ---- */

/* Saturating add: hostile files may hold values near INT64_MAX. */
static int64_t sat_add(int64_t a, int64_t b, bool *overflow)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *overflow = true;
        return b > 0 ? INT64_MAX : INT64_MIN;
    }
    return r;
}

double fp_hs_pct(int64_t a, int64_t b)
{
    return b == 0 ? 0.0 : 100.0 * (double)a / (double)b;
}

typedef struct sort_key {
    int64_t key;
    size_t idx;
} sort_key;

/* x ranks before y: larger key first, ties in first-appearance order. */
static inline bool ranks_before(const sort_key *x, const sort_key *y)
{
    return x->key > y->key || (x->key == y->key && x->idx < y->idx);
}

/* Merge sort of a[0..n) by ranks_before, tmp of n entries: the comparison is
 * inlined (qsort's callback cost ~3x on the ~2,000-row rankings). The order
 * is total (idx breaks ties), so the result is that of any correct sort. */
static void sort_keys(sort_key *a, sort_key *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            sort_key x = a[i];
            size_t j = i;
            for (; j > 0 && ranks_before(&x, &a[j - 1]); j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    sort_keys(a, tmp, h);
    sort_keys(a + h, tmp, n - h);
    if (!ranks_before(&a[h], &a[h - 1]))
        return; /* already in order */
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = ranks_before(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

/* Stable descending order of keys[0..n): out[i] = ids[k] (or k) of the i-th.
 * Long lists by a stable LSD radix sort on the key mapped to an unsigned whose
 * ascending order is the keys' descending one: stable from code order, that is
 * the (key desc, first appearance) order of sort_keys; only the bytes in which
 * the keys differ take a pass (stall counts: ~3 of 8). Short ones by sort_keys. */
static void rank_desc(const int64_t *keys, const size_t *ids, size_t n, size_t *out)
{
    if (n < 64) {
        sort_key *k = xmalloc(n + n / 2 + 1, sizeof *k); /* the merge copies only a left half */
        for (size_t i = 0; i < n; i++) {
            k[i].key = keys[i];
            k[i].idx = i;
        }
        sort_keys(k, k + n, n);
        for (size_t i = 0; i < n; i++)
            out[i] = ids ? ids[k[i].idx] : k[i].idx;
        free(k);
        return;
    }
    typedef struct rk {
        uint64_t u;
        size_t idx;
    } rk;
    rk *base = xmalloc(2 * n, sizeof *base), *a = base, *b = base + n;
    uint64_t diff = 0;
    for (size_t i = 0; i < n; i++) {
        /* flip the sign bit (signed order -> unsigned), complement (descending) */
        a[i] = (rk){~((uint64_t)keys[i] ^ 0x8000000000000000ULL), i};
        diff |= a[i].u ^ a[0].u;
    }
    for (int sh = 0; sh < 64; sh += 8) {
        if (!((diff >> sh) & 0xFF))
            continue; /* every key has this byte: the pass would keep the order */
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((a[i].u >> sh) & 0xFF) + 1]++;
        for (int d = 0; d < 256; d++)
            cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++)
            b[cnt[(a[i].u >> sh) & 0xFF]++] = a[i];
        rk *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = ids ? ids[a[i].idx] : a[i].idx;
    free(base);
}

static void group_lines(fp_hotspots *out)
{
    fp_strtab bytext = {0}; /* source text -> line index */
    /* lines grow with the distinct sources (~100 for 2,000 rows), not the rows:
     * on this VM every fresh page costs ~10 us, as much as ~30k instructions */
    size_t lcap = 0, *ncap = NULL;
    for (size_t i = 0; i < out->ninst; i++) {
        fp_hs_inst *in = &out->inst[i];
        size_t li;
        if (i > 0 && in->loc == out->inst[i - 1].loc) {
            /* the code reader stores equal sources once and neighbours mostly
             * share a line: one pointer compare instead of a hash */
            li = out->inst[i - 1].line;
        } else {
            size_t n = strlen(in->loc);
            uint64_t h = fp_strtab_hash(in->loc, n);
            const fp_strtab_slot *e = fp_strtab_get(&bytext, in->loc, n, h);
            if (e) {
                li = e->val;
            } else {
                if (out->nlines == lcap) {
                    lcap = lcap ? 2 * lcap : 64;
                    out->lines = realloc(out->lines, lcap * sizeof *out->lines);
                    ncap = realloc(ncap, lcap * sizeof *ncap);
                    if (!out->lines || !ncap)
                        abort();
                }
                li = out->nlines++;
                memset(&out->lines[li], 0, sizeof out->lines[li]);
                ncap[li] = 0;
                out->lines[li].loc = in->loc;
                fp_strtab_put(&bytext, in->loc, n, h, li);
            }
        }
        in->line = li;
        fp_hs_line *L = &out->lines[li];
        L->stall = sat_add(L->stall, in->row->stall, &out->overflow);
        L->cycles = sat_add(L->cycles, in->row->latency, &out->overflow);
        if (in->row->stall > 0) {
            if (L->nstalling == ncap[li]) {
                ncap[li] = ncap[li] ? ncap[li] * 2 : 4;
                size_t *ns = realloc(L->stalling, ncap[li] * sizeof *ns);
                if (!ns)
                    abort();
                L->stalling = ns;
            }
            L->stalling[L->nstalling++] = i;
        }
    }
    free(ncap);
    fp_strtab_free(&bytext);
}

/* Dominant type: max per-type stall over the line's stalling instructions,
 * ties to the type seen first; no stalling instruction -> other. */
static fp_stall_type dominant_type(const fp_hotspots *hs, const fp_hs_line *L)
{
    int64_t sum[FP_ST_COUNT] = {0};
    fp_stall_type seen[FP_ST_COUNT];
    bool have[FP_ST_COUNT] = {false};
    int ns = 0;
    bool ovf = false;
    for (size_t k = 0; k < L->nstalling; k++) {
        const fp_hs_inst *in = &hs->inst[L->stalling[k]];
        if (!have[in->type]) {
            have[in->type] = true;
            seen[ns++] = in->type;
        }
        sum[in->type] = sat_add(sum[in->type], in->row->stall, &ovf);
    }
    fp_stall_type dom = FP_ST_OTHER;
    for (int k = 0; k < ns; k++)
        if (k == 0 || sum[seen[k]] > sum[dom])
            dom = seen[k];
    return dom;
}

int fp_hotspots_compute(const fp_code *code, fp_hotspots *out, fp_err *err)
{
    memset(out, 0, sizeof *out);
    if (!code)
        return fp_err_set(err, FP_INTERNAL, "hotspots: no code");
    /* Row filter (§2): LineNumber must be an integer != 0; drops the "; sym" row. */
    /* every field of a kept row is written below (line by group_lines): no zeroing */
    out->inst = xmalloc(code->n, sizeof *out->inst);
    op_memo memo = {0};
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!r->index_ok || r->index == 0)
            continue;
        fp_hs_inst *in = &out->inst[out->ninst];
        in->row = r;
        in->loc = r->source && r->source[0] ? r->source : "<unknown>";
        unsigned bits;
        in->type = scan_inst(&memo, r->isa, &bits, &out->isa.max_v, &out->isa.max_a);
        isa_scan_apply(&out->isa, bits);
        out->ninst++;
    }
    fp_strtab_free(&memo.tokens);

    /* Totals, per-type sums (types in first-appearance order), ISA scan. */
    int64_t type_sum[FP_ST_COUNT] = {0};
    bool type_seen[FP_ST_COUNT] = {false};
    size_t n_types = 0;
    size_t order[FP_ST_COUNT] = {0};
    for (size_t i = 0; i < out->ninst; i++) {
        const fp_hs_inst *in = &out->inst[i];
        out->total_stall = sat_add(out->total_stall, in->row->stall, &out->overflow);
        out->total_cycles = sat_add(out->total_cycles, in->row->latency, &out->overflow);
        if (in->row->stall > 0) {
            if (!type_seen[in->type]) {
                type_seen[in->type] = true;
                order[n_types++] = (size_t)in->type;
            }
            type_sum[in->type] = sat_add(type_sum[in->type], in->row->stall, &out->overflow);
            out->n_stalling++;
        }
    }
    out->isa.arch_vgpr = (int)out->isa.max_v + 1;
    out->isa.accum_vgpr = out->isa.max_a > 0 ? (int)out->isa.max_a + 1 : 0;

    int64_t tkeys[FP_ST_COUNT] = {0};
    size_t tperm[FP_ST_COUNT];
    for (size_t k = 0; k < n_types; k++)
        tkeys[k] = type_sum[order[k]];
    rank_desc(tkeys, order, n_types, tperm);
    for (size_t k = 0; k < n_types; k++) {
        out->by_type[k].type = (fp_stall_type)tperm[k];
        out->by_type[k].stall = type_sum[tperm[k]];
    }
    out->n_types = n_types;

    group_lines(out);
    for (size_t li = 0; li < out->nlines; li++) {
        out->lines[li].dominant = dominant_type(out, &out->lines[li]);
        if (out->lines[li].stall > 0)
            out->n_stalling_lines++;
    }

    /* Rankings. */
    size_t nk = out->nlines > out->ninst ? out->nlines : out->ninst;
    int64_t *keys = xmalloc(nk, sizeof *keys);
    out->line_rank = xmalloc(out->nlines, sizeof *out->line_rank);
    for (size_t li = 0; li < out->nlines; li++)
        keys[li] = out->lines[li].stall;
    rank_desc(keys, NULL, out->nlines, out->line_rank);
    size_t *ids = xmalloc(out->n_stalling, sizeof *ids);
    size_t m = 0;
    for (size_t i = 0; i < out->ninst; i++)
        if (out->inst[i].row->stall > 0) {
            keys[m] = out->inst[i].row->stall;
            ids[m++] = i;
        }
    out->inst_rank = xmalloc(out->n_stalling, sizeof *out->inst_rank);
    rank_desc(keys, ids, m, out->inst_rank);
    free(ids);
    free(keys);
    return 0;
}

void fp_hotspots_free(fp_hotspots *hs)
{
    if (!hs)
        return;
    for (size_t i = 0; i < hs->nlines; i++)
        free(hs->lines[i].stalling);
    free(hs->lines);
    free(hs->inst);
    free(hs->line_rank);
    free(hs->inst_rank);
    memset(hs, 0, sizeof *hs);
}

/* ---- register / occupancy block ---- */

void fp_hs_regs_compute(const fp_hotspots *hs, const fp_arch_limits *arch, fp_arch_src arch_src,
                        const char *arch_detail, const fp_hs_csv_regs *csv, fp_hs_regs *out)
{
    memset(out, 0, sizeof *out);
    out->arch = arch;
    out->arch_src = arch_src;
    out->arch_detail = arch_detail;
    out->heuristic = hs->isa.gfx950_opcodes ? "gfx950" : "gfx942";
    out->csv = csv;
    out->csv_arch_vgpr = -1;
    out->arch_vgpr = hs->isa.arch_vgpr;
    out->accum_vgpr = hs->isa.accum_vgpr;
    out->arch_vgpr_src = "isa";
    out->accum_vgpr_src = "isa";
    if (csv && csv->have) {
        int v = csv->vgpr > 0 ? csv->vgpr : 0;
        int acc = csv->accum > 0 ? csv->accum : 0;
        /* gfx950 on ROCm <= 7.2: VGPR_Count is half the unified allocation and the
         * accum count is 0 (rocprof-formats.md §3.5); the doubled value is the whole
         * allocation, of which the ISA-visible AGPRs are a part. */
        int combined = fp_occ_csv_combined_vgpr(arch, v, acc, false, &out->gfx950_corrected);
        int csv_arch = out->gfx950_corrected ? combined - hs->isa.accum_vgpr : v;
        if (csv_arch < 0)
            csv_arch = 0;
        out->csv_arch_vgpr = csv_arch;
        /* arch_vgpr = max(ISA scan, CSV): a low CSV field cannot under-report. */
        if (csv_arch > out->arch_vgpr) {
            out->arch_vgpr = csv_arch;
            out->arch_vgpr_src = out->gfx950_corrected ? "kernel_trace_x2" : "kernel_trace";
        }
        if (acc > out->accum_vgpr) {
            out->accum_vgpr = acc;
            out->accum_vgpr_src = "kernel_trace";
        }
        out->in.lds_bytes = csv->lds > 0 ? csv->lds : 0;
        out->in.sgpr = csv->sgpr > 0 ? csv->sgpr : 0;
        out->in.wg_size = csv->wg > 0 ? csv->wg : 0;
    }
    out->in.arch_vgpr = out->arch_vgpr;
    out->in.accum_vgpr = out->accum_vgpr;
    if (out->gfx950_corrected) {
        /* The doubled CSV value IS the combined allocation: the ISA-visible split
         * plus that total, never arch(upper bound) + accum again. */
        out->in.arch_vgpr = hs->isa.arch_vgpr;
        out->in.accum_vgpr = hs->isa.accum_vgpr;
        out->in.total_vgpr_floor = out->csv_arch_vgpr + hs->isa.accum_vgpr;
    }
    fp_occ_compute(arch, &out->in, &out->occ);
}
