/* test_taxonomy.c - the stall taxonomy table: every class, the prototype's
 * misclassifications fixed, and the wait-field parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/att.h"
#include "flyprof/taxonomy.h"
#include "flyprof/wave.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_class_info),
        cmocka_unit_test(test_wait_fields),
        cmocka_unit_test(test_counter_of),
        cmocka_unit_test(test_xlane_counter),
        cmocka_unit_test(test_branch_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
