/* test_taxonomy.c - the stall taxonomy table: every class, the prototype's
 * misclassifications fixed, and the wait-field parser. */
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/analysis/bubbles_internal.h" /* fp_bub_isa_nopipe */
#include "flyprof/att.h"
#include "flyprof/taxonomy.h"
#include "flyprof/wave.h"
#include "flyprof/error.h"

typedef struct tcase {
    const char *isa;
    const char *cls;
} tcase;

static const tcase CASES[] = {
    {"s_waitcnt vmcnt(2)", "vmcnt"},
    {"s_waitcnt lgkmcnt(0)", "lgkmcnt"},
    {"s_waitcnt expcnt(0)", "expcnt"},
    {"s_waitcnt vmcnt(0) lgkmcnt(0)", "waitcnt"}, /* combined: decided by the trace */
    {"s_waitcnt 0", "waitcnt"},
    {"s_waitcnt_vscnt null, 0x0", "vmcnt"},
    {"s_wait_loadcnt 0x0", "vmcnt"},
    {"s_wait_dscnt 0x0", "lgkmcnt"},
    {"s_wait_kmcnt 0x0", "lgkmcnt"},
    {"s_wait_idle", "barrier"},
    {"s_barrier", "barrier"},
    {"s_nop 7", "nop"},
    {"v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], a[0:15]", "mfma"},
    {"v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10", "mfma"},
    {"v_accvgpr_read_b32 v0, a0", "accvgpr"},
    {"v_accvgpr_write_b32 a0, v0", "accvgpr"},
    {"buffer_load_dwordx4 v64, s[16:19], 0 offen sc0 lds", "lds_dma"},
    {"buffer_load_dword v1, v2, s[4:7], 0 offen lds", "lds_dma"},
    {"global_load_lds_dwordx4 v[0:1], off", "lds_dma"},
    {"buffer_load_dwordx4 v[0:3], v0, s[4:7], 0 offen", "vmem_load"},
    {"global_load_dwordx4 v[0:3], v4, s[0:1]", "vmem_load"},
    {"flat_load_dword v0, v[1:2]", "vmem_load"},
    {"buffer_store_dwordx4 v[0:3], v0, s[4:7], 0 offen", "vmem_store"},
    {"global_store_dword v0, v1, s[0:1]", "vmem_store"},
    {"scratch_load_dword v0, off, s33", "scratch"},
    {"scratch_store_dwordx4 off, v[0:3], s33 offset:16", "scratch"},
    {"buffer_atomic_add_f32 v0, v1, s[4:7], 0 offen", "atomic"},
    {"global_atomic_pk_add_bf16 v0, v1, s[0:1]", "atomic"},
    {"ds_read_b128 v[16:19], v10", "lds"},
    {"ds_write2_b32 v1, v2, v3 offset1:1", "lds"},
    /* cross-lane shuffles: the LDS crossbar without LDS memory, DPP, permlane (issue 23 item 7) */
    {"ds_bpermute_b32 v0, v1, v2", "xlane"},
    {"ds_permute_b32 v0, v1, v2", "xlane"},
    {"ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)", "xlane"},
    {"v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", "xlane"},
    {"v_add_f32_dpp v0, v1, v2 row_shr:1 bound_ctrl:0", "xlane"},
    {"v_add_f32 v0, v1, v2 row_bcast:15 row_mask:0xa", "xlane"}, /* a DPP control without the suffix */
    {"v_add_f32_e32 v0, v1, v2 ; row_shr", "valu"},             /* a bare word is no DPP control */
    {"ds_read_addtid_b32 v0", "lds"},
    {"s_load_dwordx2 s[0:1], s[4:5], 0x0", "smem"},
    {"s_buffer_load_dword s0, s[4:7], 0x0", "smem"}, /* the prototype said vmem_load */
    {"s_memtime s[0:1]", "smem"},
    {"v_add_f32_e32 v0, v1, v0", "valu"},
    {"v_permlane32_swap_b32 v0, v1", "xlane"},
    {"v_readfirstlane_b32 s0, v1", "valu"},
    {"s_cbranch_scc1 -7", "branch"},
    {"s_branch 12", "branch"},
    {"s_setpc_b64 s[30:31]", "branch"},
    {"s_mov_b32 s0, 0", "salu"},
    {"s_endpgm", "drain"}, /* the store drain at exit: its own class (issue 9) */
    {"S_WAITCNT VMCNT(1)", "vmcnt"}, /* case-insensitive */
    {"exp mrt0 v0, v0, v0, v0", "other"},
    {"", "other"},
    /* operand words (one scan of the operands for every rule): whole words, any case,
     * separated by spaces, tabs or commas; "name:" needs a value after it */
    {"BUFFER_LOAD_DWORD v1, v2, s[4:7], 0 offen LDS", "lds_dma"},
    {"buffer_load_dword v1,v2,s[4:7],0,lds", "lds_dma"},
    {"buffer_load_dword\tv1, v2, s[4:7], 0\tlds", "lds_dma"},
    {"buffer_load_dword v1, v2, s[4:7], 0 offen ldsx", "vmem_load"}, /* not the word */
    {"buffer_load_dword v1, v2, s[4:7], 0 offen xlds", "vmem_load"},
    {"buffer_load_dword lds", "lds_dma"},                            /* the first operand */
    {"buffer_load_dword", "vmem_load"},                              /* no operands */
    {"v_add_f32 v0, v1, v2 ROW_SHL:1", "xlane"},
    {"v_add_f32 v0, v1, v2 row_shl:", "valu"},       /* a control with no value */
    {"v_add_f32 v0, v1, v2 row_mirror", "xlane"},     /* a word without ':' is exact */
    {"v_add_f32 v0, v1, v2 row_mirrors", "valu"},
    {"v_add_f32 v0, v1, v2 wave_ror:1", "xlane"},     /* the last rule of the group */
    {"v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3] row_shl:1", "mfma"}, /* an earlier rule wins */
    {"v_add_f32 lds, row_half_mirror", "xlane"},      /* a word of another opcode's rule is ignored */
    {"  \t v_add_f32 v0, v1, v2", "valu"},             /* leading blanks */
    {"  s_waitcnt lgkmcnt(1)", "lgkmcnt"},
    {"s_waitx vmcnt(1)", "salu"},                     /* s_wait but no counter wait */
};

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        const char *got = fp_class_name(fp_classify(CASES[i].isa));
        if (strcmp(got, CASES[i].cls)) {
            print_error("'%s': got %s, want %s\n", CASES[i].isa, got, CASES[i].cls);
            fail();
        }
    }
}

static void test_class_info(void **state)
{
    (void)state;
    for (int i = 0; i < FP_CL_COUNT; i++) {
        assert_int_equal(fp_class_table[i].cls, i); /* indexed by class */
        assert_int_equal(fp_class_by_name(fp_class_table[i].name), i);
    }
    assert_true(fp_class_is_bubble(FP_CL_VMCNT));
    assert_true(fp_class_is_bubble(FP_CL_BARRIER));
    assert_true(fp_class_is_bubble(FP_CL_NOP));
    assert_false(fp_class_is_bubble(FP_CL_VMEM_LOAD));
    assert_false(fp_class_is_bubble(FP_CL_MFMA));
    assert_int_equal(fp_class_by_name("nope"), -1);
    /* every class the issue names exists */
    const char *need[] = {"vmcnt", "lgkmcnt", "expcnt", "waitcnt", "barrier", "mfma", "vmem_load", "vmem_store",
                          "lds", "smem", "valu", "branch", "salu", "other", "scratch", "atomic", "nop", "lds_dma",
                          "accvgpr", "xlane", "drain"};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        assert_true(fp_class_by_name(need[i]) >= 0);
}

/* ds_* shuffles are waited on with lgkmcnt; a DPP op (decoder category VALU) is in no queue */
static void test_xlane_counter(void **state)
{
    (void)state;
    assert_int_equal(fp_counter_of(FP_CL_XLANE, FP_CAT_LDS), FP_CNT_LGKM);
    assert_int_equal(fp_counter_of(FP_CL_XLANE, -1), FP_CNT_LGKM);
    assert_int_equal(fp_counter_of(FP_CL_XLANE, FP_CAT_VALU), FP_CNT_NONE);
    assert_false(fp_class_is_bubble(FP_CL_XLANE));
}

static void test_wait_fields(void **state)
{
    (void)state;
    fp_waitcnt_fields f;
    fp_waitcnt_parse("s_waitcnt vmcnt(4) lgkmcnt(0)", &f);
    assert_true(f.is_wait && f.vm && f.lgkm && !f.exp);
    assert_int_equal(f.vm_n, 4);
    assert_int_equal(f.lgkm_n, 0);
    assert_true(fp_class_is_combined_wait("s_waitcnt vmcnt(4) lgkmcnt(0)"));
    assert_false(fp_class_is_combined_wait("s_waitcnt vmcnt(4)"));
    fp_waitcnt_parse("s_waitcnt lgkmcnt(3)", &f); /* "kmcnt" inside lgkmcnt is not a second field */
    assert_true(f.lgkm && !f.vm);
    assert_int_equal(f.lgkm_n, 3);
    fp_waitcnt_parse("s_waitcnt vmcnt(0) expcnt(1) lgkmcnt(2)", &f);
    assert_int_equal(f.exp_n, 1);
    fp_waitcnt_parse("s_wait_idle", &f);
    assert_false(f.is_wait);
    fp_waitcnt_parse("v_add_f32 v0, v1, v2", &f);
    assert_false(f.is_wait);
    assert_int_equal(f.vm_n, -1); /* the early exit still fills the "not named" values */
    assert_int_equal(f.lgkm_n, -1);
    assert_int_equal(f.exp_n, -1);
    fp_waitcnt_parse(" \tS_WAITCNT_VSCNT null, 0x1", &f); /* leading blanks, upper case */
    assert_true(f.is_wait && f.vm && !f.lgkm);
    assert_int_equal(f.vm_n, 0);
}

static void test_counter_of(void **state)
{
    (void)state;
    assert_int_equal(fp_counter_of(FP_CL_OTHER, FP_CAT_VMEM), FP_CNT_VM);
    assert_int_equal(fp_counter_of(FP_CL_OTHER, FP_CAT_FLAT), FP_CNT_VM);
    assert_int_equal(fp_counter_of(FP_CL_OTHER, FP_CAT_LDS), FP_CNT_LGKM);
    assert_int_equal(fp_counter_of(FP_CL_OTHER, FP_CAT_SMEM), FP_CNT_LGKM);
    assert_int_equal(fp_counter_of(FP_CL_LDS_DMA, -1), FP_CNT_VM);
    assert_int_equal(fp_counter_of(FP_CL_SMEM, -1), FP_CNT_LGKM);
    assert_int_equal(fp_counter_of(FP_CL_VALU, FP_CAT_VALU), FP_CNT_NONE);
}

/* fp_branch_target: target = vaddr + 4 + 4 * simm16; expected values worked out by hand */
static bool target_of(const char *isa, int64_t vaddr, int64_t *t)
{
    fp_inst r = {0};
    r.isa = (char *)isa;
    r.vaddr = vaddr;
    *t = -777; /* left alone when there is no target */
    return fp_branch_target(&r, t);
}

static void test_branch_target(void **state)
{
    (void)state;
    int64_t t;
    assert_true(target_of("s_cbranch_execz 11", 256, &t)); /* forward: 256 + 4 + 44 */
    assert_int_equal(t, 304);
    assert_true(target_of("s_branch -3", 100, &t)); /* the generator's signed spelling */
    assert_int_equal(t, 92);
    assert_true(target_of("s_branch 65535", 100, &t)); /* the decoder's unsigned -1 */
    assert_int_equal(t, 100);
    assert_true(target_of("s_branch 63023", 20000, &t)); /* corpus value: -2513 dwords */
    assert_int_equal(t, 9952);
    assert_true(target_of("s_branch 32768", 200000, &t)); /* the most negative: -32768 */
    assert_int_equal(t, 68932);
    assert_true(target_of("s_branch 32767", 0, &t)); /* the most positive */
    assert_int_equal(t, 131072);
    assert_true(target_of("s_branch -32768", 200000, &t));
    assert_int_equal(t, 68932);
    assert_true(target_of("  S_BRANCH\t2", 8, &t)); /* blanks and case as fp_classify takes them */
    assert_int_equal(t, 20);
    /* out of the simm16 range, either spelling */
    assert_false(target_of("s_branch 65536", 0, &t));
    assert_false(target_of("s_branch -32769", 0, &t));
    assert_int_equal(t, -777);
    /* not a direct branch */
    assert_false(target_of("s_add_u32 s0, 5", 0, &t));
    assert_false(target_of("s_setpc_b64 s[0:1]", 0, &t));
    assert_false(target_of("v_mov_b32 v0, 4", 0, &t));
    /* no numeric operand */
    assert_false(target_of("s_branch", 0, &t));
    assert_false(target_of("s_branch ", 0, &t));
    assert_false(target_of("s_cbranch_scc1 label_12", 0, &t));
    assert_int_equal(t, -777);
}


/* ---- the straightforward reference: the classifier and wait parser as they were
 * before the fast paths (round 4), kept here verbatim in substance: the first-match
 * walk over the rule table with strncmp / strstr / tolower, and one strstr pass per
 * wait field. fp_classify and fp_waitcnt_parse must agree with them on every input.
 * (A new rule goes into both tables: this test then checks the fast walk keeps it.) */
typedef enum ref_kind { M_PREFIX, M_CONTAINS } ref_kind;
typedef struct ref_rule {
    ref_kind kind;
    const char *pat;
    const char *word;
    fp_class cls;
} ref_rule;
#define RR(kind, pat, word, cls) {kind, pat, word, cls}
static const ref_rule REF_RULES[] = {
    RR(M_PREFIX, "s_wait_idle", NULL, FP_CL_BARRIER),
    RR(M_PREFIX, "s_barrier", NULL, FP_CL_BARRIER),
    RR(M_PREFIX, "s_nop", NULL, FP_CL_NOP),
    RR(M_PREFIX, "v_mfma", NULL, FP_CL_MFMA),
    RR(M_PREFIX, "v_smfma", NULL, FP_CL_MFMA),
    RR(M_PREFIX, "v_accvgpr_", NULL, FP_CL_ACCVGPR),
    RR(M_PREFIX, "scratch_", NULL, FP_CL_SCRATCH),
    RR(M_CONTAINS, "_atomic", NULL, FP_CL_ATOMIC),
    /* LDS-DMA: gfx9 `buffer_load_dword ... lds`, gfx950 `global_load_lds_dwordx4` */
    RR(M_PREFIX, "buffer_load", "lds", FP_CL_LDS_DMA),
    RR(M_PREFIX, "global_load_lds", NULL, FP_CL_LDS_DMA),
    RR(M_CONTAINS, "_load_to_lds", NULL, FP_CL_LDS_DMA),
    RR(M_PREFIX, "buffer_load", NULL, FP_CL_VMEM_LOAD),
    RR(M_PREFIX, "tbuffer_load", NULL, FP_CL_VMEM_LOAD),
    RR(M_PREFIX, "global_load", NULL, FP_CL_VMEM_LOAD),
    RR(M_PREFIX, "flat_load", NULL, FP_CL_VMEM_LOAD),
    RR(M_PREFIX, "buffer_store", NULL, FP_CL_VMEM_STORE),
    RR(M_PREFIX, "tbuffer_store", NULL, FP_CL_VMEM_STORE),
    RR(M_PREFIX, "global_store", NULL, FP_CL_VMEM_STORE),
    RR(M_PREFIX, "flat_store", NULL, FP_CL_VMEM_STORE),
    /* cross-lane shuffles go through the LDS crossbar but read/write no LDS
     * memory: not LDS traffic (they still count on lgkmcnt) */
    RR(M_PREFIX, "ds_bpermute", NULL, FP_CL_XLANE),
    RR(M_PREFIX, "ds_permute", NULL, FP_CL_XLANE),
    RR(M_PREFIX, "ds_swizzle", NULL, FP_CL_XLANE),
    RR(M_PREFIX, "ds_", NULL, FP_CL_LDS),
    RR(M_PREFIX, "s_load", NULL, FP_CL_SMEM),
    RR(M_PREFIX, "s_buffer_load", NULL, FP_CL_SMEM),
    RR(M_PREFIX, "s_store", NULL, FP_CL_SMEM),
    RR(M_PREFIX, "s_buffer_store", NULL, FP_CL_SMEM),
    RR(M_PREFIX, "s_scratch_", NULL, FP_CL_SMEM),
    RR(M_PREFIX, "s_dcache", NULL, FP_CL_SMEM),
    RR(M_PREFIX, "s_memtime", NULL, FP_CL_SMEM),
    RR(M_PREFIX, "s_memrealtime", NULL, FP_CL_SMEM),
    /* the wait at the end of the program is the store drain, not scalar work */
    RR(M_PREFIX, "s_endpgm", NULL, FP_CL_DRAIN),
    RR(M_PREFIX, "s_branch", NULL, FP_CL_BRANCH),
    RR(M_PREFIX, "s_cbranch", NULL, FP_CL_BRANCH),
    RR(M_PREFIX, "s_setpc", NULL, FP_CL_BRANCH),
    RR(M_PREFIX, "s_swappc", NULL, FP_CL_BRANCH),
    /* DPP: the opcode suffix or a DPP control operand (gfx9 spellings) */
    RR(M_CONTAINS, "_dpp", NULL, FP_CL_XLANE),
    RR(M_PREFIX, "v_permlane", NULL, FP_CL_XLANE),
    RR(M_PREFIX, "v_", "quad_perm:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "row_shl:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "row_shr:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "row_ror:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "row_mirror", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "row_half_mirror", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "row_bcast:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "wave_shl:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "wave_shr:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "wave_rol:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", "wave_ror:", FP_CL_XLANE),
    RR(M_PREFIX, "v_", NULL, FP_CL_VALU),
    RR(M_PREFIX, "s_", NULL, FP_CL_SALU),
};
#define REF_N (sizeof REF_RULES / sizeof *REF_RULES)

static const struct { const char *name; int which; } REF_WAIT_FIELDS[] = {
    {"vmcnt", 0}, {"vscnt", 0}, {"loadcnt", 0}, {"storecnt", 0}, {"lgkmcnt", 1}, {"dscnt", 1}, {"kmcnt", 1}, {"expcnt", 2},
};

static size_t ref_opcode_lc(const char *isa, char *op, size_t cap)
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

static void ref_waitcnt_parse(const char *isa_in, fp_waitcnt_fields *out)
{
    memset(out, 0, sizeof *out);
    out->vm_n = out->lgkm_n = out->exp_n = -1;
    char isa[256];
    size_t k = 0;
    for (; isa_in[k] && k + 1 < sizeof isa; k++)
        isa[k] = (char)tolower((unsigned char)isa_in[k]);
    isa[k] = '\0';
    char op[64];
    ref_opcode_lc(isa, op, sizeof op);
    if (strncmp(op, "s_waitcnt", 9) != 0 && strncmp(op, "s_wait_", 7) != 0)
        return;
    if (!strcmp(op, "s_wait_idle"))
        return;
    out->is_wait = true;
    const char *suffix = op[6] == 'c' ? op + 9 : op + 7;
    if (*suffix == '_')
        suffix++;
    for (size_t i = 0; i < sizeof REF_WAIT_FIELDS / sizeof *REF_WAIT_FIELDS; i++) {
        const char *name = REF_WAIT_FIELDS[i].name;
        int n = -1;
        if (*suffix && !strcmp(suffix, name))
            n = 0;
        const char *p = isa;
        size_t nl = strlen(name);
        while ((p = strstr(p, name)) != NULL) {
            bool boundary = p == isa || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ',' || p[-1] == '&';
            if (boundary && p[nl] == '(') {
                n = atoi(p + nl + 1);
                break;
            }
            p += nl;
        }
        if (n < 0)
            continue;
        int w = REF_WAIT_FIELDS[i].which;
        if (w == 0) {
            out->vm = true;
            out->vm_n = n;
        } else if (w == 1) {
            out->lgkm = true;
            out->lgkm_n = n;
        } else {
            out->exp = true;
            out->exp_n = n;
        }
    }
}

static bool ref_has_word(const char *isa, const char *word)
{
    const char *p = isa;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    size_t wl = strlen(word);
    bool prefix = word[wl - 1] == ':';
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t' && *p != ',')
            p++;
        size_t len = (size_t)(p - s);
        if (len && (prefix ? len > wl : len == wl) && strncasecmp(s, word, wl) == 0)
            return true;
    }
    return false;
}

static fp_class ref_classify(const char *isa)
{
    char op[64];
    ref_opcode_lc(isa, op, sizeof op);
    fp_waitcnt_fields f;
    ref_waitcnt_parse(isa, &f);
    if (f.is_wait) {
        int named = f.vm + f.lgkm + f.exp;
        if (named != 1)
            return FP_CL_WAITCNT;
        return f.vm ? FP_CL_VMCNT : f.lgkm ? FP_CL_LGKMCNT : FP_CL_EXPCNT;
    }
    for (size_t i = 0; i < REF_N; i++) {
        const ref_rule *r = &REF_RULES[i];
        bool m = r->kind == M_PREFIX ? !strncmp(op, r->pat, strlen(r->pat)) : strstr(op, r->pat) != NULL;
        if (m && (!r->word || ref_has_word(isa, r->word)))
            return r->cls;
    }
    return FP_CL_OTHER;
}

/* The opcodes that occupy no pipe (exposed.c's NOPIPE_PREFIX), the way it was decided
 * before it compared in place: the lower-cased opcode's copy, strncmp per prefix. */
static bool ref_nopipe(const char *isa, fp_class cls)
{
    static const char *const P[] = {"s_waitcnt", "s_wait_", "s_nop", "s_barrier", "s_endpgm",
                                    "s_sendmsg", "s_sleep", "s_setprio", "s_ttracedata"};
    if (fp_class_table[cls].is_bubble)
        return true;
    char op[32];
    fp_opcode_lc(isa, op, sizeof op);
    for (size_t i = 0; i < sizeof P / sizeof *P; i++)
        if (!strncmp(op, P[i], strlen(P[i])))
            return true;
    return false;
}

static void check_nopipe(const char *isa, fp_class cls)
{
    if (fp_bub_isa_nopipe(isa, cls) != ref_nopipe(isa, cls)) {
        print_error("'%s' (%s): fp_bub_isa_nopipe %d, reference %d\n", isa, fp_class_name(cls),
                    fp_bub_isa_nopipe(isa, cls), ref_nopipe(isa, cls));
        fail();
    }
}

static void check_one(const char *isa, size_t *n)
{
    fp_class got = fp_classify(isa), want = ref_classify(isa);
    check_nopipe(isa, want);
    check_nopipe(isa, FP_CL_VALU); /* a class that decides nothing: the opcode alone */
    /* loops.c classifies only s_ opcodes to find branches and s_endpgm */
    if ((want == FP_CL_BRANCH || want == FP_CL_DRAIN) && !fp_isa_is_scalar(isa)) {
        print_error("'%s': %s without an s_ opcode\n", isa, fp_class_name(want));
        fail();
    }
    if (got != want) {
        print_error("'%s': fp_classify %s, reference %s\n", isa, fp_class_name(got), fp_class_name(want));
        fail();
    }
    fp_waitcnt_fields a, b;
    fp_waitcnt_parse(isa, &a);
    ref_waitcnt_parse(isa, &b);
    if (fp_classify_parsed(isa, &a) != want) {
        print_error("'%s': fp_classify_parsed %s, reference %s\n", isa, fp_class_name(fp_classify_parsed(isa, &a)),
                    fp_class_name(want));
        fail();
    }
    if (a.is_wait != b.is_wait || a.vm != b.vm || a.lgkm != b.lgkm || a.exp != b.exp || a.vm_n != b.vm_n ||
        a.lgkm_n != b.lgkm_n || a.exp_n != b.exp_n) {
        print_error("'%s': fp_waitcnt_parse differs from the reference\n", isa);
        fail();
    }
    (*n)++;
}

/* Every ISA line of every corpus code.json, and each with its case flipped. */
static size_t corpus_lines(void)
{
    size_t n = 0;
    DIR *d = opendir(FP_CORPUS);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char att[4096];
        snprintf(att, sizeof att, "%s/%s/att", FP_CORPUS, de->d_name);
        DIR *a = opendir(att);
        for (struct dirent *ae; a && (ae = readdir(a));) {
            if (strncmp(ae->d_name, "ui_output_", 10))
                continue;
            char dir[8192];
            snprintf(dir, sizeof dir, "%s/%s", att, ae->d_name);
            fp_code code;
            fp_err e = {0};
            if (fp_code_load(dir, &code, &e) == 0) {
                for (size_t i = 0; i < code.n; i++) {
                    const char *isa = code.rows[i].isa;
                    check_one(isa, &n);
                    char up[512];
                    size_t k = 0;
                    for (; isa[k] && k + 1 < sizeof up; k++)
                        up[k] = (char)(k % 3 ? toupper((unsigned char)isa[k]) : isa[k]);
                    up[k] = '\0';
                    check_one(up, &n);
                }
                fp_code_free(&code);
            }
            fp_err_clear(&e);
        }
        if (a)
            closedir(a);
    }
    if (d)
        closedir(d);
    return n;
}

/* Synthetic lines built from the table's own pieces, operand words, wait fields and
 * noise (blanks, separators, case, opcodes past 63 bytes): a deterministic LCG. */
static void test_reference(void **state)
{
    (void)state;
    size_t n = corpus_lines();
    size_t from_corpus = n;
    static const char *const PIECES[] = {
        "s_", "v_", "ds_", "_", "wait", "cnt", "waitcnt", "s_wait_idle", "s_wait", "_atomic", "_dpp", "_load_to_lds",
        "buffer_load", "global_load_lds", "lds", "LDS", "quad_perm:", "row_shl:", "row_mirror", "row_half_mirror",
        "wave_ror:", "row_bcast:15", "vmcnt(", "lgkmcnt(", "expcnt(", "kmcnt(", "dscnt(", "vscnt", "loadcnt(",
        "storecnt", "0", "1", "7)", ")", "(", "-1", "&", ",", " ", "  ", "\t", ":", "mfma", "smfma", "accvgpr_",
        "permlane", "scratch_", "endpgm", "branch", "cbranch", "setpc", "swappc", "nop", "barrier", "memtime",
        "memrealtime", "dcache", "buffer_store", "tbuffer_", "flat_", "global_", "store", "load", "x", "Q", "_dw",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\xc3\xa9", "S_", "V_", "BUFFER_LOAD", "Row_Shl:",
    };
    const size_t np = sizeof PIECES / sizeof *PIECES;
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int t = 0; t < 300000; t++) {
        char buf[256];
        size_t len = 0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int parts = 1 + (int)((x >> 33) % 9);
        for (int p = 0; p < parts; p++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *piece = PIECES[(x >> 33) % np];
            size_t pl = strlen(piece);
            if (len + pl + 1 >= sizeof buf)
                break;
            memcpy(buf + len, piece, pl);
            len += pl;
        }
        buf[len] = '\0';
        check_one(buf, &n);
    }
    fprintf(stderr, "reference: %zu corpus lines (case flips included), %zu in all\n", from_corpus, n);
    assert_true(from_corpus > 10000 || access(FP_CORPUS, F_OK) != 0);
}

/* fp_bub_isa_nopipe against the reference on opcodes built near its prefixes: case,
 * blanks before, cut short, run on, a blank inside. */
static void test_nopipe(void **state)
{
    (void)state;
    static const char *const PIECES[] = {"s_", "S_", "s", "_", "waitcnt", "wait_", "WAIT", "nop", "NOP", "barrier",
                                         "endpgm", "sendmsg", "sleep", "setprio", "ttracedata", "tracedata", " ",
                                         "\t", "x", "v_", "ds_", "0", "vmcnt(0)", "\xc3\xa9", "", "s_wait"};
    const size_t np = sizeof PIECES / sizeof *PIECES;
    uint64_t x = 0x2545F4914F6CDD1DULL;
    for (int t = 0; t < 200000; t++) {
        char buf[128];
        size_t len = 0;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int parts = 1 + (int)((x >> 33) % 5);
        for (int p = 0; p < parts; p++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *piece = PIECES[(x >> 33) % np];
            size_t pl = strlen(piece);
            if (len + pl + 1 >= sizeof buf)
                break;
            memcpy(buf + len, piece, pl);
            len += pl;
        }
        buf[len] = '\0';
        check_nopipe(buf, FP_CL_VALU);
        check_nopipe(buf, (fp_class)((x >> 40) % FP_CL_COUNT));
    }
    assert_true(fp_bub_isa_nopipe(" \tS_NOP 0", FP_CL_VALU));
    assert_true(fp_bub_isa_nopipe("s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)", FP_CL_SALU));
    assert_false(fp_bub_isa_nopipe("s_wai", FP_CL_SALU));
    assert_false(fp_bub_isa_nopipe("v_nop", FP_CL_VALU));
    assert_false(fp_bub_isa_nopipe("s nop", FP_CL_SALU));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_class_info),
        cmocka_unit_test(test_wait_fields),
        cmocka_unit_test(test_counter_of),
        cmocka_unit_test(test_xlane_counter),
        cmocka_unit_test(test_branch_target),
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_nopipe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
