/*
 * opcost.c - the per-arch opcode cost table (opcost.h, docs/sol.md "Opcode cost table").
 *
 * Why a table and not FLOP / rate alone: the dense rate is per data type, but
 * on gfx950 the CDNA3-encoded fp8 ops (v_mfma_f32_16x16x32_fp8_fp8) run at the
 * CDNA3 rate, half of what the CDNA4 fp8 rate would give, and small-block ops
 * (4x4x4_16b) take more passes than their FLOPs say. Each row therefore names
 * its source:
 *   M  measured in the corpus (gfx950, MI350X): the mode of the issue-to-issue
 *      spacing of back-to-back same-opcode instructions of one wave
 *      (tests/tools/opcost_spacing.py prints it; the counts are quoted);
 *   L  LLVM's gfx950 scheduling model (llvm/test/tools/llvm-mca/AMDGPU
 *      gfx950 MFMA test: HWXDL passes x 4 cycles);
 *   R  AMD's published dense rate (soc.c): FLOP / (FLOP per clock per CU / 4).
 * First match wins (longer prefixes first where they overlap).
 */
#include "flyprof/opcost.h"

#include <stdlib.h>
#include <string.h>

#include "flyprof/sol.h"
#include "flyprof/taxonomy.h"

enum { FMT_ANY = 0, FMT_F8 = 1, FMT_NARROW = 2 };

static const fp_opcost_row MFMA_ROWS[] = {
    /* ---- gfx950 (CDNA4) ---- */
    {"gfx950", "v_mfma_f32_16x16x32_bf16", FMT_ANY, 16,
     "M preshuffle_gemm_v2-big: 7654 of 7704 back-to-back at 16; L 4 passes"},
    {"gfx950", "v_mfma_f32_16x16x32_f16", FMT_ANY, 16, "L 4 passes; R fp16 4096/CU"},
    {"gfx950", "v_mfma_f32_32x32x16_bf16", FMT_ANY, 32, "M flash_attn_func-small: mode 32 (360 of 1276); L 8 passes"},
    {"gfx950", "v_mfma_f32_32x32x16_f16", FMT_ANY, 32, "L 8 passes; R fp16 4096/CU"},
    /* the CDNA3 fp8 encodings keep the CDNA3 rate on gfx950 */
    {"gfx950", "v_mfma_f32_16x16x32_fp8", FMT_ANY, 16,
     "M moe_gemm-big: 15993 of 18420 back-to-back at 16; L 4 passes (half the CDNA4 fp8 rate)"},
    {"gfx950", "v_mfma_f32_16x16x32_bf8", FMT_ANY, 16, "L 4 passes (CDNA3 encoding, CDNA3 rate)"},
    {"gfx950", "v_mfma_f32_32x32x16_fp8", FMT_ANY, 32, "L 8 passes (CDNA3 encoding, CDNA3 rate)"},
    {"gfx950", "v_mfma_f32_32x32x16_bf8", FMT_ANY, 32, "L 8 passes (CDNA3 encoding, CDNA3 rate)"},
    /* f8f6f4: 8 passes when either operand is fp8/bf8, 4 when both are fp6/fp4 */
    {"gfx950", "v_mfma_scale_f32_16x16x128_f8f6f4", FMT_NARROW, 16,
     "M pa_mqa_logits_fp4-big (cbsz:4 blgp:4): mode 16 (508 of 4336); R fp4 16384/CU"},
    {"gfx950", "v_mfma_scale_f32_16x16x128_f8f6f4", FMT_F8, 32,
     "R fp8 8192/CU; issue 23 measured 32-36 (blockscale_preshuffle_gemm-big never issues back-to-back)"},
    {"gfx950", "v_mfma_f32_16x16x128_f8f6f4", FMT_NARROW, 16, "R fp4 16384/CU (as the scaled op)"},
    {"gfx950", "v_mfma_f32_16x16x128_f8f6f4", FMT_F8, 32, "R fp8 8192/CU (as the scaled op)"},
    {"gfx950", "v_mfma_scale_f32_32x32x64_f8f6f4", FMT_NARROW, 32, "L 8 passes; R fp4 16384/CU"},
    {"gfx950", "v_mfma_scale_f32_32x32x64_f8f6f4", FMT_F8, 64, "R fp8 8192/CU"},
    {"gfx950", "v_mfma_f32_32x32x64_f8f6f4", FMT_NARROW, 32, "L 8 passes; R fp4 16384/CU"},
    {"gfx950", "v_mfma_f32_32x32x64_f8f6f4", FMT_F8, 64, "R fp8 8192/CU"},
    {"gfx950", "v_mfma_i32_16x16x64_i8", FMT_ANY, 16, "L 4 passes; R int8 8192/CU"},
    {"gfx950", "v_mfma_i32_32x32x32_i8", FMT_ANY, 32, "L 8 passes; R int8 8192/CU"},
    /* CDNA3-era shapes still encoded on gfx950 */
    {"gfx950", "v_mfma_f32_16x16x16", FMT_ANY, 16, "L 4 passes (f16/bf16)"},
    {"gfx950", "v_mfma_f32_32x32x8", FMT_ANY, 32, "L 8 passes (f16/bf16)"},
    {"gfx950", "v_mfma_i32_16x16x32_i8", FMT_ANY, 16, "L 4 passes"},
    {"gfx950", "v_mfma_i32_32x32x16_i8", FMT_ANY, 32, "L 8 passes"},
    {"gfx950", "v_mfma_f32_4x4x4_16b", FMT_ANY, 8, "L 2 passes (the FLOP rate would say 2)"},
    {"gfx950", "v_mfma_i32_4x4x4_16b", FMT_ANY, 8, "L 2 passes"},
    {"gfx950", "v_mfma_f32_4x4x1_16b_f32", FMT_ANY, 8, "L 2 passes"},
    {"gfx950", "v_mfma_f32_16x16x4_4b", FMT_ANY, 32, "L 8 passes (f16/bf16 4 blocks)"},
    {"gfx950", "v_mfma_f32_32x32x4_2b", FMT_ANY, 64, "L 16 passes (f16/bf16 2 blocks)"},
    {"gfx950", "v_mfma_f32_16x16x1_4b_f32", FMT_ANY, 32, "L 8 passes"},
    {"gfx950", "v_mfma_f32_32x32x1_2b_f32", FMT_ANY, 64, "L 16 passes"},
    {"gfx950", "v_mfma_f32_16x16x4_f32", FMT_ANY, 32, "L 8 passes; R fp32 256/CU"},
    {"gfx950", "v_mfma_f32_32x32x2_f32", FMT_ANY, 64, "L 16 passes; R fp32 256/CU"},
    {"gfx950", "v_mfma_f64_16x16x4_f64", FMT_ANY, 64, "L 16 passes; R fp64 128/CU"},
    {"gfx950", "v_mfma_f64_4x4x4_4b_f64", FMT_ANY, 16, "L 4 passes"},
    {"gfx950", "v_smfmac_f32_16x16x64", FMT_ANY, 16, "L 4 passes (f16/bf16)"},
    {"gfx950", "v_smfmac_f32_32x32x32", FMT_ANY, 32, "L 8 passes (f16/bf16 and fp8/bf8)"},
    {"gfx950", "v_smfmac_f32_16x16x128", FMT_ANY, 16, "L 4 passes (fp8/bf8)"},
    {"gfx950", "v_smfmac_f32_32x32x64", FMT_ANY, 32, "L 8 passes (fp8/bf8)"},
    {"gfx950", "v_smfmac_f32_16x16x32", FMT_ANY, 16, "L 4 passes"},
    {"gfx950", "v_smfmac_f32_32x32x16", FMT_ANY, 32, "L 8 passes"},
    {"gfx950", "v_smfmac_i32_16x16x128_i8", FMT_ANY, 16, "L 4 passes"},
    {"gfx950", "v_smfmac_i32_32x32x64_i8", FMT_ANY, 32, "L 8 passes"},
    /* ---- gfx942 (CDNA3): no trace in the corpus; the rate and LLVM agree on these ---- */
    {"gfx942", "v_mfma_f32_16x16x16", FMT_ANY, 16, "R f16/bf16 2048/CU: 8192 FLOP / 512; L 4 passes"},
    {"gfx942", "v_mfma_f32_32x32x8", FMT_ANY, 32, "R f16/bf16 2048/CU: 16384 FLOP / 512; L 8 passes"},
    {"gfx942", "v_mfma_f32_16x16x32_fp8", FMT_ANY, 16, "R fp8 4096/CU: 16384 FLOP / 1024"},
    {"gfx942", "v_mfma_f32_16x16x32_bf8", FMT_ANY, 16, "R fp8 4096/CU"},
    {"gfx942", "v_mfma_f32_32x32x16_fp8", FMT_ANY, 32, "R fp8 4096/CU: 32768 FLOP / 1024"},
    {"gfx942", "v_mfma_f32_32x32x16_bf8", FMT_ANY, 32, "R fp8 4096/CU"},
    {"gfx942", "v_mfma_i32_16x16x32_i8", FMT_ANY, 16, "R int8 4096/CU"},
    {"gfx942", "v_mfma_i32_32x32x16_i8", FMT_ANY, 32, "R int8 4096/CU"},
    {"gfx942", "v_mfma_f32_16x16x8_xf32", FMT_ANY, 16, "R tf32 1024/CU: 4096 FLOP / 256"},
    {"gfx942", "v_mfma_f32_32x32x4_xf32", FMT_ANY, 32, "R tf32 1024/CU"},
    {"gfx942", "v_mfma_f32_16x16x4_f32", FMT_ANY, 32, "R fp32 256/CU: 2048 FLOP / 64"},
    {"gfx942", "v_mfma_f32_32x32x2_f32", FMT_ANY, 64, "R fp32 256/CU"},
    {"gfx942", "v_mfma_f64_16x16x4_f64", FMT_ANY, 32, "R fp64 256/CU: 2048 FLOP / 64"},
};

/* VALU: a wave64 op holds a 16-lane SIMD 4 cycles; transcendentals are slower. */
static const fp_opcost_row VALU_ROWS[] = {
    {"gfx950", "v_exp_", FMT_ANY, 8, "M flash_attn_func-small: v_exp_f32 -> next VALU 8 cycles in 1297 of 1300"},
    {"gfx950", "v_rcp_", FMT_ANY, 8, "M moe_gemm-big 95 of 96, topk_gating_softmax-big 16 of 16 at 8"},
    {"gfx950", "v_log_", FMT_ANY, 8, "as v_exp (the same transcendental unit)"},
    {"gfx950", "v_rsq_", FMT_ANY, 8, "as v_exp"},
    {"gfx950", "v_sqrt_", FMT_ANY, 8, "as v_exp"},
    {"gfx950", "v_sin_", FMT_ANY, 8, "as v_exp"},
    {"gfx950", "v_cos_", FMT_ANY, 8, "as v_exp"},
    {"gfx942", "v_exp_", FMT_ANY, 16, "quarter rate: CDNA4 doubled the transcendental rate (2 x gfx950's 8); not measured"},
    {"gfx942", "v_rcp_", FMT_ANY, 16, "as v_exp"},
    {"gfx942", "v_log_", FMT_ANY, 16, "as v_exp"},
    {"gfx942", "v_rsq_", FMT_ANY, 16, "as v_exp"},
    {"gfx942", "v_sqrt_", FMT_ANY, 16, "as v_exp"},
    {"gfx942", "v_sin_", FMT_ANY, 16, "as v_exp"},
    {"gfx942", "v_cos_", FMT_ANY, 16, "as v_exp"},
    /* FP64 vector: 128 FLOP/clk/CU on both (MI300X 81.7 TF, MI355X 78.6 TF) = one wave64 FMA per SIMD per 4 cycles */
    {"*", "v_pk_", FMT_ANY, 4, "M layernorm-big: v_pk_mul_f32 526 of 592 back-to-back at 4"},
    {"*", "v_", FMT_ANY, 4, "ISA: wave64 over 16 lanes; M pa_mqa_logits_fp4-big: v_add_f32 7517 of 7680 at 4"},
};

const fp_opcost_row *fp_opcost_mfma_rows(size_t *n)
{
    *n = sizeof MFMA_ROWS / sizeof *MFMA_ROWS;
    return MFMA_ROWS;
}

const fp_opcost_row *fp_opcost_valu_rows(size_t *n)
{
    *n = sizeof VALU_ROWS / sizeof *VALU_ROWS;
    return VALU_ROWS;
}

/* The value of "name:N" in the operands, -1 when absent. */
static int modifier(const char *isa, const char *name)
{
    const char *p = strstr(isa, name);
    if (!p || p[strlen(name)] != ':')
        return -1;
    return atoi(p + strlen(name) + 1);
}

static const fp_opcost_row *find(const fp_opcost_row *rows, size_t n, const char *arch, const char *op, int fmt)
{
    for (size_t i = 0; i < n; i++) {
        const fp_opcost_row *r = &rows[i];
        if (strcmp(r->arch, "*") && (!arch || strcmp(r->arch, arch)))
            continue;
        if (r->fmt != FMT_ANY && r->fmt != fmt)
            continue;
        if (!strncmp(op, r->prefix, strlen(r->prefix)))
            return r;
    }
    return NULL;
}

fp_opcost fp_opcost_mfma(const char *isa, const fp_arch_rates *rates, int simds_per_cu)
{
    fp_opcost o = {0, 0, FP_COST_UNKNOWN, NULL};
    double rate_cycles = fp_sol_mfma_cycles(isa, rates, simds_per_cu, &o.flop);
    if (fp_classify(isa) != FP_CL_MFMA)
        return o;
    char op[96];
    fp_opcode_lc(isa, op, sizeof op);
    int fmt = FMT_ANY;
    if (strstr(op, "f8f6f4"))
        fmt = modifier(isa, "cbsz") >= 2 && modifier(isa, "blgp") >= 2 ? FMT_NARROW : FMT_F8;
    const fp_opcost_row *r = rates ? find(MFMA_ROWS, sizeof MFMA_ROWS / sizeof *MFMA_ROWS, rates->arch, op, fmt) : NULL;
    if (r) {
        o.cycles = r->cycles;
        o.src = FP_COST_TABLE;
        o.source = r->source;
    } else if (rate_cycles > 0) {
        o.cycles = rate_cycles;
        o.src = FP_COST_RATE;
    }
    return o;
}

fp_opcost fp_opcost_valu(const char *isa, const char *arch)
{
    fp_opcost o = {0, 0, FP_COST_UNKNOWN, NULL};
    char op[64];
    fp_opcode_lc(isa, op, sizeof op);
    const fp_opcost_row *r = find(VALU_ROWS, sizeof VALU_ROWS / sizeof *VALU_ROWS, arch, op, FMT_ANY);
    if (r) {
        o.cycles = r->cycles;
        o.src = FP_COST_TABLE;
        o.source = r->source;
    }
    return o;
}
