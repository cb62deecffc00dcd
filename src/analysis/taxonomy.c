/*
 * taxonomy.c - the stall taxonomy as data. fp_classify() walks ONE ordered rule
 * table (first match wins) over the lower-cased opcode, optionally requiring an
 * operand word. The order fixes the prototype's misclassifications
 * (flyprof-spec.md §4.2): s_wait_idle is a barrier, s_buffer_load is SMEM,
 * scratch/atomics/LDS-DMA/s_nop/accvgpr moves get their own classes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "flyprof/taxonomy.h"
#include "flyprof/att.h"
#include "flyprof/wave.h"

const fp_class_info fp_class_table[FP_CL_COUNT] = {
    {FP_CL_VMCNT, "vmcnt", true, "s_waitcnt on vector memory (global/buffer loads and stores)"},
    {FP_CL_LGKMCNT, "lgkmcnt", true, "s_waitcnt on LDS, scalar memory or messages"},
    {FP_CL_EXPCNT, "expcnt", true, "s_waitcnt on exports / GDS"},
    {FP_CL_WAITCNT, "waitcnt", true, "s_waitcnt whose counter the trace could not tell"},
    {FP_CL_BARRIER, "barrier", true, "workgroup barrier (s_barrier, s_wait_idle)"},
    {FP_CL_NOP, "nop", true, "s_nop hazard padding (MFMA/VALU dependency distance)"},
    {FP_CL_MFMA, "mfma", false, "matrix core instruction issue"},
    {FP_CL_ACCVGPR, "accvgpr", false, "v_accvgpr_read/write/mov between the arch and accumulator files"},
    {FP_CL_LDS_DMA, "lds_dma", false, "global/buffer load straight into LDS"},
    {FP_CL_SCRATCH, "scratch", false, "scratch (register spill) traffic"},
    {FP_CL_ATOMIC, "atomic", false, "global/buffer/flat atomics"},
    {FP_CL_VMEM_LOAD, "vmem_load", false, "vector memory load issue"},
    {FP_CL_VMEM_STORE, "vmem_store", false, "vector memory store issue"},
    {FP_CL_LDS, "lds", false, "LDS instruction issue (ds_*)"},
    {FP_CL_XLANE, "xlane", false, "cross-lane shuffle: ds_bpermute/ds_permute/ds_swizzle (LDS crossbar, no LDS memory), DPP, v_permlane"},
    {FP_CL_SMEM, "smem", false, "scalar memory instruction issue"},
    {FP_CL_VALU, "valu", false, "vector ALU"},
    {FP_CL_BRANCH, "branch", false, "branches and jumps"},
    {FP_CL_SALU, "salu", false, "scalar ALU and other s_* instructions"},
    {FP_CL_DRAIN, "drain", true, "s_endpgm: outstanding memory (stores) draining at wave exit, never a prefetch target"},
    {FP_CL_OTHER, "other", false, "anything else"},
};

const char *fp_class_name(fp_class c)
{
    return (unsigned)c < FP_CL_COUNT ? fp_class_table[c].name : "other";
}

bool fp_class_is_bubble(fp_class c) { return (unsigned)c < FP_CL_COUNT && fp_class_table[c].is_bubble; }

int fp_class_by_name(const char *name)
{
    for (int i = 0; i < FP_CL_COUNT; i++)
        if (!strcmp(fp_class_table[i].name, name))
            return i;
    return -1;
}

typedef enum match_kind { M_PREFIX, M_CONTAINS } match_kind;

/* The operand words a rule may require: a NULL-terminated list and the set of their
 * first letters (bit c - 'a'; every bit for a word not starting with one), which
 * lets the operand scan skip an operand at its first byte. */
typedef struct word_list {
    uint32_t letters;
    const char *w[];
} word_list;

#define WSTR(w) w,
#define WLET(w) | (w[0] >= 'a' && w[0] <= 'z' ? 1u << (w[0] - 'a') : ~0u)
#define WORDS(LIST) {0 LIST(WLET), {LIST(WSTR) NULL}}

#define LDS_WORDS(X) X("lds")
static const word_list LDS_WORD = WORDS(LDS_WORDS);
/* DPP control operands (gfx9 spellings); a word ending in ':' takes a value */
#define DPP_WORDS(X) X("quad_perm:") X("row_shl:") X("row_shr:") X("row_ror:") X("row_mirror") X("row_half_mirror") \
    X("row_bcast:") X("wave_shl:") X("wave_shr:") X("wave_rol:") X("wave_ror:")
static const word_list DPP_CONTROLS = WORDS(DPP_WORDS);

typedef struct rule {
    match_kind kind;
    const char *pat;          /* matched against the lower-cased opcode */
    size_t pat_len;           /* strlen(pat), from the literal (R below): no strlen per rule and call */
    const word_list *words;   /* optional: one of these operand words must also be present */
    fp_class cls;
    /* The pattern's first 16 bytes as little-endian words (a memcpy load of the
     * opcode gives the same) and their mask, precomputed by R() from the literal: a
     * test at one position is two xor/and on the zero-padded opcode (a shorter
     * opcode differs in a padding zero); a longer pattern compares its tail. */
    uint64_t pw[2], pm[2];
} rule;

/* byte i of the literal s (0 past its end; the index stays inside the literal) */
#define RB(s, i) ((uint64_t)(unsigned char)((i) < sizeof s - 1 ? (s)[(i) < sizeof s - 1 ? (i) : 0] : 0))
#define PB(s, i) (RB(s, i) << (8 * ((i) % 8)))
#define PM(s, i) ((uint64_t)((i) < sizeof s - 1 ? 0xFF : 0) << (8 * ((i) % 8)))
#define P8(F, s, o) (F(s, o) | F(s, o + 1) | F(s, o + 2) | F(s, o + 3) | F(s, o + 4) | F(s, o + 5) | F(s, o + 6) | F(s, o + 7))
#define R(kind, pat, words, cls)                                                                                    \
    {kind, pat, sizeof pat - 1, words, cls, {P8(PB, pat, 0), P8(PB, pat, 8)}, {P8(PM, pat, 0), P8(PM, pat, 8)}},
/* A rule's key: its pattern's bytes 0 and 2 (byte 2 only for a pattern of 3 or more
 * bytes, none for a contains rule), and which of them count. A rule whose key
 * differs from the opcode's cannot match: fp_classify tests all keys at once. */
#define RKEY(kind, pat, words, cls) (uint16_t)(kind == M_CONTAINS ? 0 : RB(pat, 0) | (sizeof pat > 3 ? RB(pat, 2) : 0) << 8),
#define RKEY_MASK(kind, pat, words, cls) (uint16_t)(kind == M_CONTAINS ? 0 : sizeof pat > 3 ? 0xFFFF : 0x00FF),

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "rule words are little-endian (PB)");

/* First match wins. Waits are handled before this table (fp_waitcnt_parse). */
#define TAX_RULES(X) \
    X(M_PREFIX, "s_wait_idle", NULL, FP_CL_BARRIER) \
    X(M_PREFIX, "s_barrier", NULL, FP_CL_BARRIER) \
    X(M_PREFIX, "s_nop", NULL, FP_CL_NOP) \
    X(M_PREFIX, "v_mfma", NULL, FP_CL_MFMA) \
    X(M_PREFIX, "v_smfma", NULL, FP_CL_MFMA) \
    X(M_PREFIX, "v_accvgpr_", NULL, FP_CL_ACCVGPR) \
    X(M_PREFIX, "scratch_", NULL, FP_CL_SCRATCH) \
    X(M_CONTAINS, "_atomic", NULL, FP_CL_ATOMIC) \
    /* LDS-DMA: gfx9 `buffer_load_dword ... lds`, gfx950 `global_load_lds_dwordx4` */ \
    X(M_PREFIX, "buffer_load", &LDS_WORD, FP_CL_LDS_DMA) \
    X(M_PREFIX, "global_load_lds", NULL, FP_CL_LDS_DMA) \
    X(M_CONTAINS, "_load_to_lds", NULL, FP_CL_LDS_DMA) \
    X(M_PREFIX, "buffer_load", NULL, FP_CL_VMEM_LOAD) \
    X(M_PREFIX, "tbuffer_load", NULL, FP_CL_VMEM_LOAD) \
    X(M_PREFIX, "global_load", NULL, FP_CL_VMEM_LOAD) \
    X(M_PREFIX, "flat_load", NULL, FP_CL_VMEM_LOAD) \
    X(M_PREFIX, "buffer_store", NULL, FP_CL_VMEM_STORE) \
    X(M_PREFIX, "tbuffer_store", NULL, FP_CL_VMEM_STORE) \
    X(M_PREFIX, "global_store", NULL, FP_CL_VMEM_STORE) \
    X(M_PREFIX, "flat_store", NULL, FP_CL_VMEM_STORE) \
    /* cross-lane shuffles go through the LDS crossbar but read/write no LDS \
     * memory: not LDS traffic (they still count on lgkmcnt) */ \
    X(M_PREFIX, "ds_bpermute", NULL, FP_CL_XLANE) \
    X(M_PREFIX, "ds_permute", NULL, FP_CL_XLANE) \
    X(M_PREFIX, "ds_swizzle", NULL, FP_CL_XLANE) \
    X(M_PREFIX, "ds_", NULL, FP_CL_LDS) \
    X(M_PREFIX, "s_load", NULL, FP_CL_SMEM) \
    X(M_PREFIX, "s_buffer_load", NULL, FP_CL_SMEM) \
    X(M_PREFIX, "s_store", NULL, FP_CL_SMEM) \
    X(M_PREFIX, "s_buffer_store", NULL, FP_CL_SMEM) \
    X(M_PREFIX, "s_scratch_", NULL, FP_CL_SMEM) \
    X(M_PREFIX, "s_dcache", NULL, FP_CL_SMEM) \
    X(M_PREFIX, "s_memtime", NULL, FP_CL_SMEM) \
    X(M_PREFIX, "s_memrealtime", NULL, FP_CL_SMEM) \
    /* the wait at the end of the program is the store drain, not scalar work */ \
    X(M_PREFIX, "s_endpgm", NULL, FP_CL_DRAIN) \
    X(M_PREFIX, "s_branch", NULL, FP_CL_BRANCH) \
    X(M_PREFIX, "s_cbranch", NULL, FP_CL_BRANCH) \
    X(M_PREFIX, "s_setpc", NULL, FP_CL_BRANCH) \
    X(M_PREFIX, "s_swappc", NULL, FP_CL_BRANCH) \
    /* DPP: the opcode suffix or a DPP control operand (gfx9 spellings) */ \
    X(M_CONTAINS, "_dpp", NULL, FP_CL_XLANE) \
    X(M_PREFIX, "v_permlane", NULL, FP_CL_XLANE) \
    X(M_PREFIX, "v_", &DPP_CONTROLS, FP_CL_XLANE) \
    X(M_PREFIX, "v_", NULL, FP_CL_VALU) \
    X(M_PREFIX, "s_", NULL, FP_CL_SALU)

static const rule RULES[] = {TAX_RULES(R)};
#define N_RULES (sizeof RULES / sizeof *RULES)
/* the keys in blocks of 8 (SSE2 compares a block at once); the padding is never a candidate */
#define N_KEYS ((N_RULES + 7) / 8 * 8)
static const uint16_t RULE_KEY[N_KEYS] __attribute__((aligned(16))) = {TAX_RULES(RKEY)};
static const uint16_t RULE_KEY_MASK[N_KEYS] __attribute__((aligned(16))) = {TAX_RULES(RKEY_MASK)};
_Static_assert(N_RULES <= 64, "the candidate set of a call is a 64-bit mask");

/* Counter fields of a wait: the gfx9 `s_waitcnt vmcnt(N) lgkmcnt(M)` syntax and
 * the gfx12-style single-counter opcodes. */
typedef struct wait_field {
    const char *name;
    size_t len; /* strlen(name) */
    int which;  /* 0 vm, 1 lgkm, 2 exp */
} wait_field;

#define WF(name, which) {name, sizeof name - 1, which}
static const wait_field WAIT_FIELDS[] = {
    WF("vmcnt", 0), WF("vscnt", 0), WF("loadcnt", 0), WF("storecnt", 0),
    WF("lgkmcnt", 1), WF("dscnt", 1), WF("kmcnt", 1),
    WF("expcnt", 2),
};

/* tolower of the C locale (flyprof never sets another), inline: no call per byte */
static inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

size_t fp_opcode_lc(const char *isa, char *op, size_t cap)
{
    while (*isa == ' ' || *isa == '\t')
        isa++;
    size_t n = 0;
    while (isa[n] && isa[n] != ' ' && isa[n] != '\t' && n + 1 < cap) {
        op[n] = ascii_lower(isa[n]);
        n++;
    }
    op[n] = '\0';
    return n;
}

/* Wait operands are short; a longer line is cut (its fields are at the start). */
#define WAIT_TEXT_MAX 256

void fp_waitcnt_parse(const char *isa_in, fp_waitcnt_fields *out)
{
    memset(out, 0, sizeof *out);
    out->vm_n = out->lgkm_n = out->exp_n = -1;
    /* not a wait unless the opcode starts "s_wait" (checked below on the lower-cased
     * copy): most rows stop here, before the copy */
    const char *op0 = isa_in;
    while (*op0 == ' ' || *op0 == '\t')
        op0++;
    for (size_t i = 0; i < 6; i++) /* strncasecmp(op0, "s_wait", 6), inline: most rows stop at byte 0 */
        if (ascii_lower(op0[i]) != "s_wait"[i])
            return;
    char isa[WAIT_TEXT_MAX];
    size_t k = 0;
    for (; isa_in[k] && k + 1 < sizeof isa; k++)
        isa[k] = ascii_lower(isa_in[k]);
    isa[k] = '\0';
    char op[64];
    fp_opcode_lc(isa, op, sizeof op);
    if (strncmp(op, "s_waitcnt", 9) != 0 && strncmp(op, "s_wait_", 7) != 0)
        return;
    if (!strcmp(op, "s_wait_idle"))
        return;
    out->is_wait = true;
    /* a single-counter opcode: s_waitcnt_vscnt, s_wait_loadcnt, s_wait_dscnt ... */
    const char *suffix = op[6] == 'c' ? op + 9 : op + 7; /* after "s_waitcnt" / "s_wait_" */
    if (*suffix == '_')
        suffix++;
    /* each field's value: 0 when the opcode names it, then its first "name(N)" at a
     * word boundary (after a blank, ',' or '&', or at the start) in the operands.
     * One scan of the boundaries for all fields (was one strstr pass per field: no
     * name has a border, so no skipped occurrence overlaps the one found here) */
    enum { NF = sizeof WAIT_FIELDS / sizeof *WAIT_FIELDS };
    int val[NF];
    bool found[NF];
    for (size_t i = 0; i < NF; i++) {
        val[i] = *suffix && !strcmp(suffix, WAIT_FIELDS[i].name) ? 0 : -1;
        found[i] = false;
    }
    for (size_t p = 0; p < k; p++) {
        if (p && isa[p - 1] != ' ' && isa[p - 1] != '\t' && isa[p - 1] != ',' && isa[p - 1] != '&')
            continue;
        for (size_t i = 0; i < NF; i++) {
            const char *name = WAIT_FIELDS[i].name;
            size_t nl = WAIT_FIELDS[i].len;
            if (found[i] || isa[p] != name[0] || strncmp(isa + p, name, nl) || isa[p + nl] != '(')
                continue;
            found[i] = true;
            val[i] = atoi(isa + p + nl + 1);
        }
    }
    for (size_t i = 0; i < NF; i++) {
        const wait_field *f = &WAIT_FIELDS[i];
        int n = val[i];
        if (n < 0)
            continue;
        if (f->which == 0) {
            out->vm = true;
            out->vm_n = n;
        } else if (f->which == 1) {
            out->lgkm = true;
            out->lgkm_n = n;
        } else {
            out->exp = true;
            out->exp_n = n;
        }
    }
}

bool fp_isa_is_scalar(const char *isa)
{
    while (*isa == ' ' || *isa == '\t')
        isa++;
    return (isa[0] == 's' || isa[0] == 'S') && isa[1] == '_';
}

bool fp_class_is_combined_wait(const char *isa)
{
    fp_waitcnt_fields f;
    fp_waitcnt_parse(isa, &f);
    return f.is_wait && (f.vm + f.lgkm + f.exp) > 1;
}

/* Is one of the words an operand word of the operands at p
 * (the text after the first word)? A word is present as a whole operand word
 * (separated by space, tab, comma or the end, any case); a word ending in ':'
 * matches a "name:value" operand (DPP controls). One scan of the operands for all
 * the words. */
static bool any_word(const char *p, const word_list *wl_)
{
    /* most operands (v0, s[4:7], 0x10) start with no word's first letter */
    uint32_t letters = wl_->letters;
    const char *const *words = wl_->w;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t' && *p != ',')
            p++;
        size_t len = (size_t)(p - s);
        if (!len)
            continue;
        char c0 = ascii_lower(*s);
        if (c0 >= 'a' && c0 <= 'z' && !(letters >> (c0 - 'a') & 1))
            continue;
        for (size_t i = 0; words[i]; i++) {
            const char *word = words[i];
            if (c0 != word[0])
                continue;
            size_t wl = strlen(word);
            bool prefix = word[wl - 1] == ':';
            if ((prefix ? len > wl : len == wl) && strncasecmp(s, word, wl) == 0)
                return true;
        }
    }
    return false;
}

/* The lower-cased opcode (as fp_opcode_lc: at most 63 bytes), zero-padded so that
 * 16 bytes can be read at any of its positions, with the positions of its '_'. */
typedef struct opcode {
    union {
        char c[64 + 16];
        uint64_t align_;
    } u;
    size_t len;
    uint64_t underscores; /* bit i: c[i] == '_' */
} opcode;

/* Rule r's pattern at op + at (at <= the opcode's length). */
static inline bool pat_at(const rule *r, const opcode *op, size_t at)
{
    uint64_t w[2];
    memcpy(w, op->u.c + at, 16);
    uint64_t d = ((w[0] ^ r->pw[0]) & r->pm[0]) | ((w[1] ^ r->pw[1]) & r->pm[1]);
    return !d && (r->pat_len <= 16 || !memcmp(op->u.c + at + 16, r->pat + 16, r->pat_len - 16));
}

static bool rule_matches(const rule *r, const opcode *op)
{
    if (r->pat_len > op->len)
        return false; /* longer than the opcode: neither its prefix nor inside it */
    if (r->kind == M_PREFIX)
        return pat_at(r, op, 0);
    /* inside: strstr on the opcode, tried only where its first byte is (a '_' for
     * every contains rule of the table: those positions are listed) */
    size_t last = op->len - r->pat_len; /* the last position it fits at (< 63) */
    if (r->pat[0] == '_') {
        for (uint64_t u = op->underscores & ((2ULL << last) - 1); u; u &= u - 1)
            if (pat_at(r, op, (size_t)__builtin_ctzll(u)))
                return true;
        return false;
    }
    for (size_t at = 0; at <= last; at++)
        if (op->u.c[at] == r->pat[0] && pat_at(r, op, at))
            return true;
    return false;
}

/* The rules whose key admits the opcode's bytes 0 and 2 (bit i: RULES[i]), in
 * table order: every other rule cannot match. */
static uint64_t candidates(const opcode *op)
{
    uint16_t key = (uint16_t)((unsigned char)op->u.c[0] | (unsigned char)op->u.c[2] << 8);
    uint64_t m = 0;
#if defined(__SSE2__)
    const __m128i k = _mm_set1_epi16((short)key), zero = _mm_setzero_si128();
    for (size_t b = 0; b < N_KEYS; b += 8) {
        __m128i d = _mm_and_si128(_mm_xor_si128(k, _mm_load_si128((const __m128i *)(RULE_KEY + b))),
                                  _mm_load_si128((const __m128i *)(RULE_KEY_MASK + b)));
        __m128i eq = _mm_packs_epi16(_mm_cmpeq_epi16(d, zero), zero); /* one byte per rule */
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(eq) << b;
    }
#else
    for (size_t i = 0; i < N_KEYS; i++)
        m |= (uint64_t)!((key ^ RULE_KEY[i]) & RULE_KEY_MASK[i]) << i;
#endif
    return N_RULES == 64 ? m : m & ((1ULL << N_RULES) - 1);
}

/* The C locale's tolower with the opcode's ends (NUL, space, tab) as 0. */
#define LCB(c) (unsigned char)((c) == 0 || (c) == ' ' || (c) == '\t' ? 0 : (c) >= 'A' && (c) <= 'Z' ? (c) + 32 : (c))
#define LC4(c) LCB(c), LCB(c + 1), LCB(c + 2), LCB(c + 3)
#define LC16(c) LC4(c), LC4(c + 4), LC4(c + 8), LC4(c + 12)
#define LC64(c) LC16(c), LC16(c + 16), LC16(c + 32), LC16(c + 48)
static const unsigned char OP_LOWER[256] = {LC64(0), LC64(64), LC64(128), LC64(192)};

/* The class of a counter wait from its fields. */
static fp_class wait_class(const fp_waitcnt_fields *f)
{
    int named = f->vm + f->lgkm + f->exp;
    if (named != 1)
        return FP_CL_WAITCNT;
    return f->vm ? FP_CL_VMCNT : f->lgkm ? FP_CL_LGKMCNT : FP_CL_EXPCNT;
}

/* The rule walk (no wait test); wf: the isa's fp_waitcnt_parse when the caller has it. */
static fp_class classify(const char *isa, const fp_waitcnt_fields *wf)
{
    opcode op;
    memset(op.u.c, 0, sizeof op.u.c);
    op.underscores = 0;
    const char *s = isa;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t ol = 0;
    for (unsigned char ch; ol + 1 < 64 && (ch = OP_LOWER[(unsigned char)s[ol]]); ol++)
        op.u.c[ol] = (char)ch;
    op.len = ol;
#if defined(__SSE2__)
    for (int b = 0; b < 64; b += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(op.u.c + b));
        op.underscores |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('_'))) << b;
    }
#else
    for (size_t i = 0; i < ol; i++)
        op.underscores |= (uint64_t)(op.u.c[i] == '_') << i;
#endif
    /* only an opcode starting "s_wait" can be a wait (fp_waitcnt_parse: s_waitcnt*,
     * s_wait_*); the full parse lower-cases the whole text, so skip it otherwise */
    if (!wf && ol >= 6 && !memcmp(op.u.c, "s_wait", 6)) {
        fp_waitcnt_fields f;
        fp_waitcnt_parse(isa, &f);
        if (f.is_wait)
            return wait_class(&f);
    }
    for (uint64_t m = candidates(&op); m; m &= m - 1) {
        const rule *r = &RULES[__builtin_ctzll(m)];
        if (!rule_matches(r, &op))
            continue;
        if (!r->words)
            return r->cls;
        /* the operands: after the first word of the text (as ever: with leading
         * blanks that word is empty and the opcode counts as an operand) */
        const char *ops = s == isa ? s + ol : isa;
        while (*ops && *ops != ' ' && *ops != '\t')
            ops++;
        if (any_word(ops, r->words))
            return r->cls;
    }
    return FP_CL_OTHER;
}

fp_class fp_classify(const char *isa) { return classify(isa, NULL); }

fp_class fp_classify_parsed(const char *isa, const fp_waitcnt_fields *wf)
{
    return wf->is_wait ? wait_class(wf) : classify(isa, wf);
}

bool fp_branch_target(const fp_inst *r, int64_t *target)
{
    if (fp_classify(r->isa) != FP_CL_BRANCH)
        return false;
    /* the operand follows the opcode (leading blanks skipped, as fp_classify does) */
    const char *p = r->isa + strspn(r->isa, " \t");
    p += strcspn(p, " \t");
    char *end;
    long imm = strtol(p, &end, 10);
    if (end == p || imm < -32768 || imm > 65535)
        return false;
    if (imm >= 32768)
        imm -= 65536; /* the decoder's unsigned spelling of a negative simm16 */
    *target = r->vaddr + 4 + 4 * (int64_t)imm;
    return true;
}

fp_counter fp_counter_of(fp_class c, int cat)
{
    switch (cat) {
    case FP_CAT_VMEM:
    case FP_CAT_FLAT:
        return FP_CNT_VM;
    case FP_CAT_SMEM:
    case FP_CAT_LDS:
        return FP_CNT_LGKM;
    default:
        break;
    }
    switch (c) {
    case FP_CL_VMEM_LOAD:
    case FP_CL_VMEM_STORE:
    case FP_CL_LDS_DMA:
    case FP_CL_SCRATCH:
    case FP_CL_ATOMIC:
        return FP_CNT_VM;
    case FP_CL_LDS:
    case FP_CL_SMEM:
        return FP_CNT_LGKM;
    case FP_CL_XLANE: /* ds_* shuffles count on lgkmcnt; DPP / permlane are VALU */
        return cat == FP_CAT_VALU ? FP_CNT_NONE : FP_CNT_LGKM;
    default:
        return FP_CNT_NONE;
    }
}
