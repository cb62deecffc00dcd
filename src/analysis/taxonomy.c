/*
 * taxonomy.c - the stall taxonomy as data. fp_classify() walks ONE ordered rule
 * table (first match wins) over the lower-cased opcode, optionally requiring an
 * operand word. The order fixes the prototype's misclassifications
 * (flyprof-spec.md §4.2): s_wait_idle is a barrier, s_buffer_load is SMEM,
 * scratch/atomics/LDS-DMA/s_nop/accvgpr moves get their own classes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct rule {
    match_kind kind;
    const char *pat;    /* matched against the lower-cased opcode */
    size_t pat_len;     /* strlen(pat), from the literal (R below): no strlen per rule and call */
    const char *word;   /* optional: an operand word that must also be present */
    fp_class cls;
} rule;

#define R(kind, pat, word, cls) {kind, pat, sizeof pat - 1, word, cls}

/* First match wins. Waits are handled before this table (fp_waitcnt_parse). */
static const rule RULES[] = {
    R(M_PREFIX, "s_wait_idle", NULL, FP_CL_BARRIER),
    R(M_PREFIX, "s_barrier", NULL, FP_CL_BARRIER),
    R(M_PREFIX, "s_nop", NULL, FP_CL_NOP),
    R(M_PREFIX, "v_mfma", NULL, FP_CL_MFMA),
    R(M_PREFIX, "v_smfma", NULL, FP_CL_MFMA),
    R(M_PREFIX, "v_accvgpr_", NULL, FP_CL_ACCVGPR),
    R(M_PREFIX, "scratch_", NULL, FP_CL_SCRATCH),
    R(M_CONTAINS, "_atomic", NULL, FP_CL_ATOMIC),
    /* LDS-DMA: gfx9 `buffer_load_dword ... lds`, gfx950 `global_load_lds_dwordx4` */
    R(M_PREFIX, "buffer_load", "lds", FP_CL_LDS_DMA),
    R(M_PREFIX, "global_load_lds", NULL, FP_CL_LDS_DMA),
    R(M_CONTAINS, "_load_to_lds", NULL, FP_CL_LDS_DMA),
    R(M_PREFIX, "buffer_load", NULL, FP_CL_VMEM_LOAD),
    R(M_PREFIX, "tbuffer_load", NULL, FP_CL_VMEM_LOAD),
    R(M_PREFIX, "global_load", NULL, FP_CL_VMEM_LOAD),
    R(M_PREFIX, "flat_load", NULL, FP_CL_VMEM_LOAD),
    R(M_PREFIX, "buffer_store", NULL, FP_CL_VMEM_STORE),
    R(M_PREFIX, "tbuffer_store", NULL, FP_CL_VMEM_STORE),
    R(M_PREFIX, "global_store", NULL, FP_CL_VMEM_STORE),
    R(M_PREFIX, "flat_store", NULL, FP_CL_VMEM_STORE),
    /* cross-lane shuffles go through the LDS crossbar but read/write no LDS
     * memory: not LDS traffic (they still count on lgkmcnt) */
    R(M_PREFIX, "ds_bpermute", NULL, FP_CL_XLANE),
    R(M_PREFIX, "ds_permute", NULL, FP_CL_XLANE),
    R(M_PREFIX, "ds_swizzle", NULL, FP_CL_XLANE),
    R(M_PREFIX, "ds_", NULL, FP_CL_LDS),
    R(M_PREFIX, "s_load", NULL, FP_CL_SMEM),
    R(M_PREFIX, "s_buffer_load", NULL, FP_CL_SMEM),
    R(M_PREFIX, "s_store", NULL, FP_CL_SMEM),
    R(M_PREFIX, "s_buffer_store", NULL, FP_CL_SMEM),
    R(M_PREFIX, "s_scratch_", NULL, FP_CL_SMEM),
    R(M_PREFIX, "s_dcache", NULL, FP_CL_SMEM),
    R(M_PREFIX, "s_memtime", NULL, FP_CL_SMEM),
    R(M_PREFIX, "s_memrealtime", NULL, FP_CL_SMEM),
    /* the wait at the end of the program is the store drain, not scalar work */
    R(M_PREFIX, "s_endpgm", NULL, FP_CL_DRAIN),
    R(M_PREFIX, "s_branch", NULL, FP_CL_BRANCH),
    R(M_PREFIX, "s_cbranch", NULL, FP_CL_BRANCH),
    R(M_PREFIX, "s_setpc", NULL, FP_CL_BRANCH),
    R(M_PREFIX, "s_swappc", NULL, FP_CL_BRANCH),
    /* DPP: the opcode suffix or a DPP control operand (gfx9 spellings) */
    R(M_CONTAINS, "_dpp", NULL, FP_CL_XLANE),
    R(M_PREFIX, "v_permlane", NULL, FP_CL_XLANE),
    R(M_PREFIX, "v_", "quad_perm:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "row_shl:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "row_shr:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "row_ror:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "row_mirror", FP_CL_XLANE),
    R(M_PREFIX, "v_", "row_half_mirror", FP_CL_XLANE),
    R(M_PREFIX, "v_", "row_bcast:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "wave_shl:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "wave_shr:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "wave_rol:", FP_CL_XLANE),
    R(M_PREFIX, "v_", "wave_ror:", FP_CL_XLANE),
    R(M_PREFIX, "v_", NULL, FP_CL_VALU),
    R(M_PREFIX, "s_", NULL, FP_CL_SALU),
};

/* Counter fields of a wait: the gfx9 `s_waitcnt vmcnt(N) lgkmcnt(M)` syntax and
 * the gfx12-style single-counter opcodes. */
typedef struct wait_field {
    const char *name;
    int which; /* 0 vm, 1 lgkm, 2 exp */
} wait_field;

static const wait_field WAIT_FIELDS[] = {
    {"vmcnt", 0}, {"vscnt", 0}, {"loadcnt", 0}, {"storecnt", 0},
    {"lgkmcnt", 1}, {"dscnt", 1}, {"kmcnt", 1},
    {"expcnt", 2},
};

size_t fp_opcode_lc(const char *isa, char *op, size_t cap)
{
    while (*isa == ' ' || *isa == '\t')
        isa++;
    size_t n = 0;
    while (isa[n] && isa[n] != ' ' && isa[n] != '\t' && n + 1 < cap) {
        op[n] = (char)tolower((unsigned char)isa[n]);
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
    const char *op0 = isa_in + strspn(isa_in, " \t");
    if (strncasecmp(op0, "s_wait", 6) != 0)
        return;
    char isa[WAIT_TEXT_MAX];
    size_t k = 0;
    for (; isa_in[k] && k + 1 < sizeof isa; k++)
        isa[k] = (char)tolower((unsigned char)isa_in[k]);
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
    for (size_t i = 0; i < sizeof WAIT_FIELDS / sizeof *WAIT_FIELDS; i++) {
        const wait_field *f = &WAIT_FIELDS[i];
        int n = -1;
        if (*suffix && !strcmp(suffix, f->name))
            n = 0;
        /* "name(N)" anywhere in the operands */
        const char *p = isa;
        size_t nl = strlen(f->name);
        while ((p = strstr(p, f->name)) != NULL) {
            bool boundary = p == isa || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ',' || p[-1] == '&';
            if (boundary && p[nl] == '(') {
                n = atoi(p + nl + 1);
                break;
            }
            p += nl;
        }
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

bool fp_class_is_combined_wait(const char *isa)
{
    fp_waitcnt_fields f;
    fp_waitcnt_parse(isa, &f);
    return f.is_wait && (f.vm + f.lgkm + f.exp) > 1;
}

#define N_RULES (sizeof RULES / sizeof *RULES)

static inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Is one of the words of rules r[0 .. n) an operand word of isa? A word is present as
 * a whole operand word (separated by space, tab, comma or the end, any case); a word
 * ending in ':' matches a "name:value" operand (DPP controls). One scan of the
 * operands for a run of rules that differ only in their word (the DPP rules are 12). */
static bool any_word(const char *isa, const rule *r, size_t n)
{
    const char *p = isa;
    while (*p && *p != ' ' && *p != '\t')
        p++;
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
        for (size_t i = 0; i < n; i++) {
            const char *word = r[i].word;
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

/* Rules i.. that differ from rule i only in their (non-NULL) word: the same pattern
 * and class, so the first of them to match is the first whose word is present. */
static size_t word_run(size_t i)
{
    const rule *r = &RULES[i];
    size_t j = i + 1;
    while (j < N_RULES && RULES[j].word && RULES[j].kind == r->kind && RULES[j].cls == r->cls &&
           !strcmp(RULES[j].pat, r->pat))
        j++;
    return j - i;
}

fp_class fp_classify(const char *isa)
{
    char op[64];
    size_t ol = fp_opcode_lc(isa, op, sizeof op);
    /* only an opcode starting "s_wait" can be a wait (fp_waitcnt_parse: s_waitcnt*,
     * s_wait_*); the full parse lower-cases the whole text, so skip it otherwise
     * (report classifies every row from several modules: ~12k calls) */
    if (!strncmp(op, "s_wait", 6)) {
        fp_waitcnt_fields f;
        fp_waitcnt_parse(isa, &f);
        if (f.is_wait) {
            int named = f.vm + f.lgkm + f.exp;
            if (named != 1)
                return FP_CL_WAITCNT;
            return f.vm ? FP_CL_VMCNT : f.lgkm ? FP_CL_LGKMCNT : FP_CL_EXPCNT;
        }
    }
    for (size_t i = 0; i < N_RULES; i++) {
        const rule *r = &RULES[i];
        bool m;
        if (r->pat_len > ol)
            m = false; /* longer than the opcode: neither its prefix nor inside it */
        else if (r->kind == M_PREFIX)
            m = r->pat[0] == op[0] && !strncmp(op + 1, r->pat + 1, r->pat_len - 1);
        else
            m = strstr(op, r->pat) != NULL;
        if (!m)
            continue;
        if (!r->word)
            return r->cls;
        size_t n = word_run(i);
        if (any_word(isa, r, n))
            return r->cls;
        i += n - 1;
    }
    return FP_CL_OTHER;
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
