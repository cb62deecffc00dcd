/*
 * rules.c - the knob rules table and its evaluation (see rules.h).
 *
 * The one idea: every rule is a row. Thresholds, gates, the FlyDSL API, the
 * expected effect and the acceptance test live in the row, so adding a rule is
 * adding a row, and `flyprof rules` / bubble-knob-table.md print the same rows
 * the engine evaluates. The prototype's ten rules keep their ids and
 * thresholds (flyprof-spec.md §8.2), with its bugs fixed: inst_mix is
 * hit-weighted, occupancy comes from the 512-entry unified VGPR pool model,
 * and the gain is an upper-bound estimate from exposed stall, not stall % x
 * a weight.
 */
#include "flyprof/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/report_doc.h"
#include "flyprof/round.h"

/* Confidence of a rule before capture quality lowers it. */
#define FP_CONF_HIGH 0.9
#define FP_CONF_MEDIUM 0.7
#define FP_CONF_LOW 0.5
/* A primary signal read through its fallback condition is weaker evidence. */
#define FP_CONF_FALLBACK_FACTOR 0.8
/* Evidence on the entry/decorator line when the debug-info gate fired: 0.9 x 0.6
 * = 0.54, medium at best (the line is the compiler's catch-all scope). */
#define FP_CONF_ENTRY_LINE_FACTOR 0.6
/* Evidence on an entry line of a located listing (the gate did not fire): one
 * unlocated op, weak line evidence: 0.9 x 0.8 = 0.72, never high. */
#define FP_CONF_WEAK_LINE_FACTOR 0.8
/* Plan priority from the expected payoff gain x confidence (% of kernel time):
 * HIGH from 7.5 (10 % at 0.75), MED from 1.5 (3 % at 0.5); never above the
 * confidence label (a medium-confidence rule is at most MED, a low one LOW). */
#define FP_PRIO_HIGH_PAYOFF 7.5
#define FP_PRIO_MED_PAYOFF 1.5
/* Labels: >= 0.75 high, >= 0.5 medium, else low. */
#define FP_CONF_HIGH_MIN 0.75
#define FP_CONF_MEDIUM_MIN 0.5

#define C_(sig, cls, cmp, thr) {sig, cls, cmp, thr, FP_MISS_FAIL, FP_SIG_NONE, NULL, FP_GT, 0}
#define C_PASS(sig, cls, cmp, thr) {sig, cls, cmp, thr, FP_MISS_PASS, FP_SIG_NONE, NULL, FP_GT, 0}
#define C_FB(sig, cls, cmp, thr, fsig, fcls, fcmp, fthr) {sig, cls, cmp, thr, FP_MISS_FALLBACK, fsig, fcls, fcmp, fthr}

const fp_rule fp_rules[] = {
    {"grid_fill", "launch",
     {C_FB(FP_SIG_SIMD_FILL_PCT, NULL, FP_LT, 100, FP_SIG_LAUNCH_FILL_PCT, NULL, FP_LT, 100)},
     FP_GATE_ANY, 10.0, "high", FP_GAIN_FILL, FP_PROD_ANY, FP_ACC_SIGNAL_ABOVE, 100,
     "Fill the machine: more workgroups than CUs (split-K / stream-K / a smaller tile)",
     "the FlyDSL tile knobs: smaller `tile_m`/`tile_n` (more output tiles), a split-K factor over the K loop with a "
     "reduction of the partial tiles, or a persistent stream-K loop over `gpu.block_id` striding by the CU count",
     "Launch at least one workgroup per CU: shrink the output tile or split the K dimension until "
     "workgroups >= CUs (the evidence gives both counts)",
     "The idle CUs get work; kernel time falls up to the fill ratio (bounded by the HBM roof)",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"hbm_roof_bytes", "vmcnt",
     {C_(FP_SIG_PCT_HBM_ROOF, NULL, FP_GT, 60)},
     FP_GATE_MEMORY, 1.3, "medium", FP_GAIN_BYTES, FP_PROD_ANY, FP_ACC_SIGNAL_DROP, 20,
     "Move fewer bytes (fuse, narrower storage dtype, no re-reads)",
     "fuse the producer/consumer op into this kernel; store activations/weights in a narrower dtype (bf16 -> fp8, "
     "fp8 -> fp4 with `rocdl.cdna4.MFMA_Scale`); keep re-read tiles in LDS instead of re-loading them",
     "A memory-bound kernel's time scales with the bytes it moves: fuse neighbouring elementwise ops, narrow the "
     "stored dtype, or reuse data on chip. The trace cannot say how many bytes can go, so the gain is a rate: ~10% "
     "of kernel time per 10% of the bytes removed (at the practical ceiling the only lever)",
     "Bytes per dispatch fall; time falls with them at today's bandwidth (~10% per 10% of the bytes)",
     FP_EVID_CLASS, FP_SIG_HBM_BYTES},
    {"hbm_ceiling", "vmcnt",
     {C_(FP_SIG_PCT_HBM_ROOF, NULL, FP_GT, 60)},
     FP_GATE_MEMORY, 0.75, "medium", FP_GAIN_ROOF, FP_PROD_ANY, FP_ACC_SIGNAL_ABOVE, 0,
     "Reach the practical HBM ceiling: more bytes in flight, full-line accesses",
     "`buffer_ops.buffer_load(..., vec_width=4)` (a dwordx4 per lane, contiguous lanes); issue the next tile's "
     "loads before the current tile's first `s_waitcnt vmcnt` (loop-carried `init=[...]`); `@autotune "
     "Config(waves_per_eu=N)` for more resident waves",
     "The kernel is memory-bound but moves its bytes below the arch's practical ceiling (the evidence gives both): "
     "keep more loads in flight per CU (more loads issued before the first wait, more resident waves) and make each "
     "access a full, coalesced line (dwordx4 per lane, no partial lines) so the memory queue never runs dry. The "
     "latency-hiding rules that fire name where",
     "Achieved HBM bandwidth rises toward the practical ceiling; time falls at most by the distance to it (the same "
     "bytes, moved faster)",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"smem_wait", "lgkmcnt",
     {C_(FP_SIG_SMEM_WAIT_PCT, NULL, FP_GT, 15)},
     FP_GATE_ANY, 0.7, "medium", FP_GAIN_CLASS, FP_PROD_SMEM, FP_ACC_LINE_STALL_DROP, 30,
     "Take scalar (SMEM) loads off the critical path",
     "pass small scalars as compile-time constants (`fx.Constexpr`) so they fold into the ISA; issue the "
     "`s_load`/`s_buffer_load` at the kernel top, before address math that does not need them",
     "The waves wait on s_load results (kernel arguments, scalar buffer loads) via lgkmcnt: fold constants, load "
     "them earlier, or merge loads so one wait covers them; in a short kernel this is launch latency",
     "The lgkmcnt waits on scalar loads shrink; the first vector work starts earlier",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"vmem_prefetch", "vmcnt",
     {C_(FP_SIG_GLOBAL_WAIT_PCT, NULL, FP_GT, 10)},
     FP_GATE_MEMORY | FP_GATE_LATENCY, 1.2, "high", FP_GAIN_CLASS, FP_PROD_GLOBAL, FP_ACC_LINE_STALL_DROP, 30,
     "Software-prefetch / double-buffer the global loads (loop-carried SSA)",
     "`for i in range(fx.Index(lo), fx.Index(hi), init=[...])` + `buffer_ops.buffer_load(...)` issued one iteration ahead",
     "Issue the next iteration's buffer_load at the loop top and consume the previous iteration's data "
     "(loop-carried through init=[...]); loop bounds MUST be fx.Index or the rewriter unrolls and drops init=",
     "VMEM latency overlaps the loop body; the s_waitcnt vmcnt stall at the hot line drains",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"vmem_queue_depth", "vmcnt",
     {C_(FP_SIG_CLASS_MIX, "vmem_load", FP_GT, 0.20), C_(FP_SIG_CLASS_STALL_PCT, "vmcnt", FP_GT, 10)},
     FP_GATE_MEMORY | FP_GATE_LATENCY, 0.8, "medium", FP_GAIN_CLASS, FP_PROD_ANY, FP_ACC_CLASS_EXPOSED_DROP, 20,
     "Tune VMEM issue grouping / use a vmcnt-only fence",
     "`rocdl.sched_vmem(N)`; `rocdl.s_wait_loadcnt(0)` (gfx950) or an inline `s_waitcnt vmcnt(N)` instead of a full barrier",
     "Group N loads and fence once with vmcnt(0) instead of interleaving fences; replace full barriers that only "
     "order global loads with a vmcnt-only wait",
     "More loads in flight (memory-level parallelism), fewer and later vmcnt drains",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"lds_write_read_distance", "lgkmcnt",
     {C_(FP_SIG_LDS_WAIT_PCT, NULL, FP_GT, 15)},
     FP_GATE_ANY, 1.1, "high", FP_GAIN_CLASS, FP_PROD_LDS, FP_ACC_LINE_STALL_DROP, 30,
     "Increase LDS write->read distance / prefetch the LDS read",
     "place independent `buffer_ops.buffer_load`/SALU work between `lds_ptr.store(...)` and the dependent "
     "`gpu.barrier()`; A0-prefetch with `lds_load_pack_k32(...)` after the barrier",
     "Hoist the next tile's LDS read across the barrier and batch all LDS reads before the MFMAs that consume them "
     "(seed pattern 3)",
     "The write->read latency exposed by s_waitcnt lgkmcnt(0) is hidden behind independent work",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"lds_bank_conflict", "lds",
     {C_FB(FP_SIG_LDS_CONFLICT_PCT, NULL, FP_GT, 5, FP_SIG_CLASS_STALL_PCT, "lds", FP_GT, 8)},
     FP_GATE_ANY, 1.0, "high", FP_GAIN_CLASS, FP_PROD_ANY, FP_ACC_CLASS_EXPOSED_DROP, 50,
     "Remove LDS bank conflicts (XOR swizzle preferred)",
     "`swizzle_xor16(row, col, k_blocks16)` on store AND load; or `+PADDING` in the `make_layout` stride; "
     "or `rocdl.cdna4.LDSReadTrans8_64b()` (gfx950)",
     "Swizzle the LDS tile layout identically on the write and the read side (or pad the row stride)",
     "No serialized bank-conflict replays; the LDS instruction stall shrinks",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"mfma_raw", "mfma",
     {C_(FP_SIG_CLASS_STALL_PCT, "mfma", FP_GT, 5), C_PASS(FP_SIG_MFMA_FRAC, NULL, FP_GT, 0.30)},
     FP_GATE_COMPUTE | FP_GATE_LATENCY, 0.9, "medium", FP_GAIN_CLASS, FP_PROD_ANY, FP_ACC_CLASS_EXPOSED_DROP, 30,
     "Fill the MFMA pipeline / break the accumulator RAW chain",
     "interleave `rocdl.sched_mfma(N)` with `rocdl.sched_dsrd(N)`/`rocdl.sched_vmem(N)`; tune `dsrd_preload`/"
     "`dvmem_preload`; `rocdl.s_setprio(...)`",
     "Interleave MFMAs of independent accumulators with the LDS/VMEM work of the next step",
     "Fewer idle cycles between dependent v_mfma; the MFMA pipe stays full",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"barrier_relax", "barrier",
     {C_(FP_SIG_CLASS_STALL_PCT, "barrier", FP_GT, 5)},
     FP_GATE_ANY, 0.8, "medium", FP_GAIN_CLASS, FP_PROD_ANY, FP_ACC_LINE_STALL_DROP, 30,
     "Relax / remove redundant synchronization",
     "drop redundant `gpu.barrier()`; `rocdl.s_wait_dscnt(0)` (gfx950); cross-wave reduce with "
     "`gpu.ShuffleOp(v, off, 64, mode='xor')` over [32,16,8,4,2,1]",
     "Barrier only the swapped LDS region in ping-pong buffering; replace an LDS cross-wave reduction by a "
     "wave-level shuffle reduction",
     "Less s_barrier stall: waves stop waiting for the slowest wave of the workgroup",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"occupancy_vgpr", "occupancy",
     {C_(FP_SIG_WAVES_PER_CU, NULL, FP_LT, 8), C_PASS(FP_SIG_VGPR_LIMITED, NULL, FP_GT, 0.5),
      C_PASS(FP_SIG_GRID_MORE_WAVES, NULL, FP_GT, 0.5)},
     FP_GATE_MEMORY | FP_GATE_LATENCY, 1.0, "high", FP_GAIN_OCCUPANCY, FP_PROD_ANY, FP_ACC_SIGNAL_ABOVE, 0,
     "Raise occupancy by cutting register footprint",
     "`use_async_copy=True` -> `rocdl.buffer_load_to_lds(...)`; smaller `tile_m`/`tile_k`; "
     "`@autotune Config(waves_per_eu=N)`",
     "Free VGPRs until the unified 512-entry pool fits one more wave per SIMD (the evidence gives the register "
     "budget); do NOT force maxnreg to push accum_vgpr to 0 (spills through v_accvgpr_read, measured 4.5x slower)",
     "More resident waves per CU to hide the exposed latency of the bubble classes",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"vectorize_copy", "vmem_load",
     {C_(FP_SIG_PARTIAL_32B, NULL, FP_GT, 0.15)},
     FP_GATE_MEMORY | FP_GATE_LATENCY, 1.0, "high", FP_GAIN_CLASS_X_SIG, FP_PROD_ANY, FP_ACC_SIGNAL_BELOW, 0.05,
     "Widen the copy / load width to full cache lines",
     "`buffer_ops.buffer_load(..., vec_width=4)`; 128-bit atom `fx.UniversalCopy(128)` / `rocdl.BufferCopy128b()`",
     "Load full 64B lines per lane group: vec_width = 128 // elem_bits and VEC_WIDTH*sizeof(elem) <= atom bits",
     "No 32B-partial HBM requests; the same bytes move in fewer, fuller transactions",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"mma_select", "mfma",
     {C_(FP_SIG_MFMA_FRAC, NULL, FP_GT, 0.30)},
     FP_GATE_COMPUTE, 0.9, "medium", FP_GAIN_CLASS, FP_PROD_ANY, FP_ACC_CLASS_EXPOSED_DROP, 20,
     "Pick the widest-K MMA atom for the dtype",
     "`fx.make_mma_atom(fx.rocdl.MFMA(m, n, k, dtype))` at max K; fp4: `rocdl.cdna4.MFMA_Scale(16, 16, 128, ...)`",
     "Use the widest K the dtype allows: fp8 mfma_f32_16x16x32_fp8_fp8 (K32), bf16 K16 (K32 on gfx950), "
     "fp4 K128",
     "Fewer MFMA issues for the same FLOPs; less issue overhead per tile",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"layout_l2", "vmcnt",
     {C_(FP_SIG_L2_HIT, NULL, FP_LT, 70), C_(FP_SIG_CLASS_STALL_PCT, "vmcnt", FP_GT, 10)},
     FP_GATE_MEMORY | FP_GATE_LATENCY, 0.7, "medium", FP_GAIN_CLASS, FP_PROD_ANY, FP_ACC_SIGNAL_ABOVE, 0,
     "Improve coalescing / L2 reuse via layout + XCD remap",
     "`fx.make_layout`/`zipped_divide`/`slice` for contiguous per-lane addresses; "
     "`fx.make_tiled_mma(atom, make_layout((M_rep, N_rep, K_rep), ...))`; `xcd_remap_bx_by(..., xcd_swizzle=N)`",
     "Make per-lane addresses contiguous and remap workgroups so tiles sharing data run on the same XCD",
     "Higher L2 hit rate, fewer HBM round trips behind the vmcnt waits",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"scratch_spill", "vmcnt",
     {C_(FP_SIG_SCRATCH_INSTS, NULL, FP_GT, 0)},
     FP_GATE_ANY, 1.5, "high", FP_GAIN_CLASS, FP_PROD_SCRATCH, FP_ACC_SIGNAL_BELOW, 1,
     "Eliminate register spills to scratch",
     "smaller `tile_m`/`tile_n` or fewer live accumulators; relax `@autotune Config(waves_per_eu=N)`; "
     "check `.private_segment_fixed_size` in final_isa.s (FLYDSL_DUMP_IR=1)",
     "Lower the register footprint until the compiler stops spilling (a higher waves_per_eu forces a smaller "
     "VGPR budget); never force maxnreg",
     "scratch_* loads/stores disappear, and the VMEM waits they cause go with them",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"mfma_hazard_nop", "nop",
     {C_(FP_SIG_NOP_MFMA_PCT, NULL, FP_GT, 3)},
     FP_GATE_COMPUTE | FP_GATE_LATENCY, 0.9, "medium", FP_GAIN_SIGNAL_PCT, FP_PROD_ANY, FP_ACC_SIGNAL_BELOW, 0,
     "Hide MFMA dependency hazards instead of padding them with s_nop",
     "`rocdl.sched_mfma(N)` interleaved with `rocdl.sched_dsrd(N)`/`rocdl.sched_vmem(N)`; more independent "
     "accumulators via `fx.make_tiled_mma(atom, make_layout((M_rep, N_rep, K_rep), ...))`",
     "Put independent MFMAs (another accumulator tile) or LDS/VMEM work between an MFMA and the MFMA that reads its "
     "result, so the compiler need not insert s_nop (5/8/12/20 passes by MFMA variant, CDNA4 ISA table 38)",
     "The s_nop cycles between dependent MFMAs disappear; the MFMA pipe stays busy",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"valu_hazard_nop", "nop",
     {C_(FP_SIG_VALU_NOP_PCT, NULL, FP_GT, 5)},
     FP_GATE_ANY, 0.6, "medium", FP_GAIN_CLASS, FP_PROD_ANY, FP_ACC_CLASS_EXPOSED_DROP, 50,
     "Fill VALU hazard windows instead of padding them with s_nop",
     "compute masks/predicates early (hoist the `arith.cmpf`/`arith.cmpi` feeding an `arith.select` away from its "
     "use); prefer select-free math (`arith.maximumf`, an additive -inf bias) for masking",
     "The compiler pads VALU read-after-write hazards (v_cmp -> v_cndmask on VCC, v_readfirstlane, permlane) with "
     "s_nop when no independent instruction is available: move independent work into the window or remove the "
     "compare/select pair",
     "The s_nop cycles shrink; the VALU pipe issues useful work instead",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"load_use_distance", "vmcnt",
     {C_(FP_SIG_LOAD_USE_EXPOSED, NULL, FP_GT, 0.5), C_(FP_SIG_GLOBAL_WAIT_PCT, NULL, FP_GT, 5)},
     FP_GATE_MEMORY | FP_GATE_LATENCY, 1.15, "high", FP_GAIN_HOT_LINE, FP_PROD_GLOBAL, FP_ACC_LINE_STALL_DROP, 30,
     "Issue the load earlier: it is consumed too close to its use",
     "hoist the `buffer_ops.buffer_load(...)` / `fx.copy(...)` named in the evidence to the top of the block "
     "(or into the previous iteration)",
     "Move the producer load earlier so independent work (for example a whole MFMA block) separates it from its "
     "first use; issue scale/index loads before the bulk loads (seed pattern 4)",
     "The measured load-to-use distance grows past the memory latency; the wait at the hot line stops stalling",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"wave_quantization", "launch",
     {C_(FP_SIG_TAIL_EFF_PCT, NULL, FP_LT, 85)},
     FP_GATE_ANY, 1.4, "medium", FP_GAIN_TAIL, FP_PROD_ANY, FP_ACC_SIGNAL_ABOVE, 0,
     "Remove the wave-quantization tail: a grid that fills its last round",
     "the FlyDSL tile knobs: `tile_m`/`tile_n` chosen so workgroups are a multiple of the resident slots (the "
     "evidence gives both), or a persistent loop over `gpu.block_id` striding by the slot count (stream-K)",
     "The grid needs more than one round of the machine's resident workgroup slots and the last round is partly "
     "empty (e.g. 1024 workgroups on 768 slots: 1.33 rounds run as 2): retile so the work divides evenly, or make "
     "the kernel persistent so every slot takes a share of the tail",
     "The last round's idle slots get work; time falls up to the idle share (bounded by the HBM floor)",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"work_imbalance", "launch",
     {C_(FP_SIG_CU_BUSY_EXCESS, NULL, FP_GT, 10)},
     FP_GATE_ANY, 1.35, "medium", FP_GAIN_IMBALANCE, FP_PROD_ANY, FP_ACC_SIGNAL_BELOW, 5,
     "Rebalance the work: the critical CU is busy well beyond the mean CU",
     "split the long work items (causal rows, long pages / sequences) over several workgroups with a reduction "
     "(split-KV / flash-decoding), or a persistent schedule that deals work items by cost (`gpu.block_id` over a "
     "sorted work list)",
     "The kernel ends when its busiest CU does: a few heavy work items (the causal diagonal, the long sequences of a "
     "paged batch) keep some CUs busy while the others have drained. Split the heavy items or order the schedule so "
     "every CU gets a similar share (the evidence names the critical CU, its busy time and the mean CU's)",
     "The critical CU's busy time falls towards the mean; kernel time falls with it (bounded by the HBM floor)",
     FP_EVID_NONE, FP_SIG_NONE},
    {"crosslane_shuffle", "lgkmcnt",
     {C_(FP_SIG_XLANE_WAIT_PCT, NULL, FP_GT, 10)},
     FP_GATE_ANY, 1.1, "high", FP_GAIN_CLASS, FP_PROD_XLANE, FP_ACC_LINE_STALL_DROP, 30,
     "Shorten cross-lane shuffle chains (batch the rounds, DPP / permlane for in-row steps)",
     "`gpu.ShuffleOp(v, off, 64, mode='xor')` of several independent values issued before the first use; DPP row "
     "ops (`row_shr`, `quad_perm`) or `v_permlane16_swap`/`v_permlane32_swap` (gfx950) for offsets < 32 instead of "
     "`ds_bpermute`",
     "Each reduction / selection round waits (lgkmcnt) for its ds_bpermute / ds_swizzle before the next starts: "
     "issue the shuffles of independent values (rows, top-k candidates) together so one wait covers them, and do the "
     "in-row steps with DPP / permlane, which do not go through the LDS crossbar",
     "Fewer serialized lgkmcnt waits on shuffles; the selection / reduction network's critical path shortens",
     FP_EVID_CLASS, FP_SIG_NONE},
    {"vectorize_global", "vmcnt",
     {C_(FP_SIG_NARROW_PER_WAVE, NULL, FP_GT, 4)},
     FP_GATE_ANY, 0.9, "medium", FP_GAIN_NARROW, FP_PROD_ANY, FP_ACC_SIGNAL_BELOW, 0,
     "Vectorize narrow (1/2-byte) global loads and stores",
     "`buffer_ops.buffer_load(..., vec_width=N)` / `buffer_ops.buffer_store(..., vec_width=N)` with N = 128 // "
     "elem_bits; or pack two bf16/fp16 into one i32 (`vector.bitcast`) before a dword store",
     "Each lane moves one 1/2-byte element per instruction (buffer_load_ushort, buffer_store_short, ...): give each "
     "lane 4-8 contiguous elements so one dwordx2/x4 access replaces 4-8 narrow ones (the evidence names the "
     "instruction and its count per wave)",
     "The narrow accesses per wave fall (the same bytes in fewer, wider instructions); VMEM issue and the waits "
     "behind them shrink",
     FP_EVID_NARROW, FP_SIG_NONE},
};
const size_t fp_rules_count = sizeof fp_rules / sizeof fp_rules[0];

static bool optd(fp_optd o, double *out)
{
    if (o.known)
        *out = o.v;
    return o.known;
}

/* ---- the signal kinds: one reader each, named in the table below ---- */

typedef bool (*sig_reader)(const fp_signals *s, const fp_sig_class *c, double *out);

/* a class absent from the taxonomy had no stall: a measured 0 */
static bool rd_class_stall(const fp_signals *s, const fp_sig_class *c, double *out)
{
    *out = c ? c->stall_pct : 0.0;
    return true;
}
static bool rd_class_gain(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!c) {
        *out = 0.0;
        return true;
    }
    return optd(c->gain_pct, out);
}
static bool rd_class_mix(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!c) {
        *out = 0.0;
        return true;
    }
    return optd(c->mix, out);
}
static bool rd_scratch(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->scratch_insts, out); }
static bool rd_nop_mfma(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->nop_mfma_pct, out); }
static bool rd_load_use(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->load_use_exposed, out); }
static bool rd_waves_cu(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->waves_per_cu, out); }
static bool rd_vgpr_limited(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!s->occ_limiter)
        return false;
    *out = !strcmp(s->occ_limiter, "VGPR") ? 1.0 : 0.0;
    return true;
}
static bool rd_partial(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->partial_32b, out); }
static bool rd_l2_hit(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->l2_hit, out); }
static bool rd_lds_conflict(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->lds_conflict_pct, out); }
static bool rd_mfma_frac(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->mfma_frac, out); }
static bool rd_hbm_roof(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (optd(s->pct_hbm_roof, out))
        return true;
    /* the trace's figure (sol's chosen one: unique bytes once the dataflow pass knows them, else the
     * requested bytes, which count cache hits): believed only where HBM could deliver it */
    const fp_sol_num *t = s->sol.hbm_source && !strcmp(s->sol.hbm_source, "trace") ? &s->sol.hbm_pct : &s->sol.trace_pct;
    if (t == &s->sol.hbm_pct && s->sol.hbm_clamped)
        return false; /* above what HBM can deliver: clamped to 100 for print, unmeasured here */
    if (t->have && t->v <= FP_SOL_TRACE_PLAUSIBLE_PCT) {
        *out = t->v;
        return true;
    }
    return false;
}
static bool rd_fill(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!s->launch.valid || s->launch.fill_pct < 0)
        return false;
    *out = s->launch.fill_pct;
    return true;
}
static bool rd_more_waves(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!s->launch.valid || s->launch.rounds <= 0)
        return false;
    *out = s->launch.grid_uses_more_waves ? 1.0 : 0.0;
    return true;
}
static bool rd_lds_wait(const fp_signals *s, const fp_sig_class *c, double *out)
{
    *out = fp_signals_wait_on_pct(s, "lgkmcnt", FP_PROD_LDS);
    return true;
}
static bool rd_global_wait(const fp_signals *s, const fp_sig_class *c, double *out)
{
    *out = fp_signals_wait_on_pct(s, "vmcnt", FP_PROD_GLOBAL);
    return true;
}
static bool rd_smem_wait(const fp_signals *s, const fp_sig_class *c, double *out)
{
    /* with no producer evidence nothing says the wait is on scalar loads */
    const fp_sig_class *lg = fp_signals_class(s, "lgkmcnt");
    *out = lg && lg->has_producers ? fp_signals_wait_on_pct(s, "lgkmcnt", FP_PROD_SMEM) : 0.0;
    return true;
}

static bool rd_xlane_wait(const fp_signals *s, const fp_sig_class *c, double *out)
{
    /* waits on shuffles, plus the issue stall of a cross-lane class when the taxonomy has one */
    const fp_sig_class *x = fp_signals_class(s, "xlane");
    *out = fp_signals_wait_on_pct(s, "lgkmcnt", FP_PROD_XLANE) + (x ? x->stall_pct : 0.0);
    const fp_sig_class *lg = fp_signals_class(s, "lgkmcnt");
    if (!x && !(lg && lg->has_producers))
        *out = 0.0; /* no producer evidence: nothing says the waits are shuffles */
    return true;
}
static bool rd_hbm_bytes(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!s->have_sol || !s->sol.hbm_bytes.have)
        return false;
    *out = s->sol.hbm_bytes.v;
    return true;
}
static bool rd_simd_fill(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!s->bound_in.simd_fill_pct.have)
        return false;
    *out = s->bound_in.simd_fill_pct.v;
    return true;
}
/* only a grid of two rounds or more has a tail: one round is fill (grid_fill) */
static bool rd_tail(const fp_signals *s, const fp_sig_class *c, double *out)
{
    if (!s->launch.valid || s->launch.rounds < 2 || s->launch.tail_efficiency_pct < 0)
        return false;
    *out = s->launch.tail_efficiency_pct;
    return true;
}
/* The critical CU's busy time over the mean CU's (workdist.c): resident waves
 * overlap once, and the same figure holds in one round or over several (the
 * dispatcher refills a CU's free slots, its busy time is the union). */
static bool rd_cu_busy_excess(const fp_signals *s, const fp_sig_class *c, double *out)
{
    return s->workdist && optd(s->workdist->cu_busy_excess_pct, out);
}
static bool rd_valu_nop(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->valu_nop_pct, out); }
static bool rd_narrow(const fp_signals *s, const fp_sig_class *c, double *out) { return optd(s->narrow_per_wave, out); }

/* The one table of signal kinds: the name rules and report.json print, the unit of
 * the value, and its reader. Indexed by fp_sig_kind (checked at start-up of the
 * lookups below: an entry out of order is a bug the first call reports). */
static const fp_sig_info sig_table[FP_SIG_KIND_COUNT] = {
    {FP_SIG_NONE, "none", "", NULL},
    {FP_SIG_CLASS_STALL_PCT, "stall_pct", "% of total stall", rd_class_stall},
    {FP_SIG_CLASS_GAIN_PCT, "gain_pct", "% of kernel time (upper bound)", rd_class_gain},
    {FP_SIG_CLASS_MIX, "inst_mix", "fraction of executed instructions", rd_class_mix},
    {FP_SIG_SCRATCH_INSTS, "trace.scratch_insts", "executed instructions", rd_scratch},
    {FP_SIG_NOP_MFMA_PCT, "trace.nop_between_mfma_pct", "% of total latency", rd_nop_mfma},
    {FP_SIG_LOAD_USE_EXPOSED, "trace.load_use_exposed_frac", "fraction of load latency", rd_load_use},
    {FP_SIG_WAVES_PER_CU, "occupancy.waves_per_cu", "waves", rd_waves_cu},
    {FP_SIG_VGPR_LIMITED, "occupancy.vgpr_limited", "0 or 1", rd_vgpr_limited},
    {FP_SIG_PARTIAL_32B, "counters.partial_32b_frac", "fraction of HBM requests", rd_partial},
    {FP_SIG_L2_HIT, "counters.l2_hit_rate", "%", rd_l2_hit},
    {FP_SIG_LDS_CONFLICT_PCT, "counters.lds_bank_conflict_pct", "% of LDS cycles", rd_lds_conflict},
    {FP_SIG_MFMA_FRAC, "counters.mfma_util", "fraction of MFMA pipe cycles", rd_mfma_frac},
    {FP_SIG_PCT_HBM_ROOF, "sol.hbm.pct_of_peak", "% of peak HBM bandwidth", rd_hbm_roof},
    {FP_SIG_LAUNCH_FILL_PCT, "launch.fill_pct", "% of CUs", rd_fill},
    {FP_SIG_GRID_MORE_WAVES, "launch.grid_uses_more_waves", "0 or 1", rd_more_waves},
    {FP_SIG_LDS_WAIT_PCT, "waits.lgkmcnt_on_lds_pct", "% of total stall", rd_lds_wait},
    {FP_SIG_GLOBAL_WAIT_PCT, "waits.vmcnt_on_global_pct", "% of total stall", rd_global_wait},
    {FP_SIG_SMEM_WAIT_PCT, "waits.lgkmcnt_on_smem_pct", "% of total stall", rd_smem_wait},
    {FP_SIG_XLANE_WAIT_PCT, "waits.lgkmcnt_on_crosslane_pct", "% of total stall", rd_xlane_wait},
    {FP_SIG_VALU_NOP_PCT, "trace.valu_nop_pct", "% of total stall", rd_valu_nop},
    {FP_SIG_NARROW_PER_WAVE, "isa.narrow_global_per_wave", "executed accesses per wave", rd_narrow},
    {FP_SIG_HBM_BYTES, "sol.hbm.bytes_per_dispatch", "bytes", rd_hbm_bytes},
    {FP_SIG_SIMD_FILL_PCT, "launch.simd_fill_pct", "% of SIMDs", rd_simd_fill},
    {FP_SIG_TAIL_EFF_PCT, "launch.tail_efficiency_pct", "% of the rounds' slots", rd_tail},
    {FP_SIG_CU_BUSY_EXCESS, "workdist.cu_busy_excess_pct", "% of the critical CU's busy time above the mean CU's",
     rd_cu_busy_excess},
};

const fp_sig_info *fp_sig_info_of(fp_sig_kind k)
{
    if (k < 0 || k >= FP_SIG_KIND_COUNT || sig_table[k].kind != k)
        return NULL;
    return &sig_table[k];
}

const char *fp_sig_kind_name(fp_sig_kind k)
{
    const fp_sig_info *i = fp_sig_info_of(k);
    return i ? i->name : "?";
}

static void sig_text(fp_sig_kind k, const char *cls, fp_sb *out)
{
    if (cls && (k == FP_SIG_CLASS_STALL_PCT || k == FP_SIG_CLASS_GAIN_PCT))
        fp_sb_addf(out, "%s.%s", cls, fp_sig_kind_name(k));
    else if (cls && k == FP_SIG_CLASS_MIX)
        fp_sb_addf(out, "inst_mix.%s", cls);
    else
        fp_sb_adds(out, fp_sig_kind_name(k));
}

bool fp_sig_value(const fp_signals *s, fp_sig_kind k, const char *cls, double *out)
{
    const fp_sig_info *i = fp_sig_info_of(k);
    if (!i || !i->read)
        return false;
    return i->read(s, cls ? fp_signals_class(s, cls) : NULL, out);
}

static bool cmp_ok(fp_cmp c, double v, double thr) { return c == FP_GT ? v > thr : v < thr; }

/* Evaluates one condition. *used_fb is set when the fallback decided;
 * *val gets the value that was compared (NAN when the condition passed unmeasured). */
static bool cond_holds(const fp_signals *s, const fp_rule_cond *c, double *val, bool *used_fb)
{
    double v;
    *used_fb = false;
    *val = NAN;
    if (fp_sig_value(s, c->sig, c->cls, &v)) {
        *val = v;
        return cmp_ok(c->cmp, v, c->thr);
    }
    switch (c->missing) {
    case FP_MISS_PASS: return true;
    case FP_MISS_FALLBACK:
        *used_fb = true;
        if (!fp_sig_value(s, c->fb_sig, c->fb_cls, &v))
            return false;
        *val = v;
        return cmp_ok(c->fb_cmp, v, c->fb_thr);
    default: return false;
    }
}

static unsigned bound_bit(const char *bound)
{
    if (!bound)
        return 0;
    if (!strcmp(bound, "memory"))
        return FP_GATE_MEMORY;
    if (!strcmp(bound, "compute"))
        return FP_GATE_COMPUTE;
    if (!strcmp(bound, "latency"))
        return FP_GATE_LATENCY;
    return 0;
}

static double conf_base(const char *label)
{
    if (!strcmp(label, "high"))
        return FP_CONF_HIGH;
    if (!strcmp(label, "medium"))
        return FP_CONF_MEDIUM;
    return FP_CONF_LOW;
}

const char *fp_conf_label(double c)
{
    return c >= FP_CONF_HIGH_MIN ? "high" : c >= FP_CONF_MEDIUM_MIN ? "medium" : "low";
}

static double class_gain(const fp_sig_class *c)
{
    return c && c->gain_pct.known ? c->gain_pct.v : 0.0;
}

/* Upper-bound gain of the hottest instruction of a class: its exposed (else
 * raw) stall over the kernel's latency, never more than the class's gain. */
static double hot_line_gain(const fp_signals *s, const fp_sig_class *c)
{
    if (!c || !c->hot.present || s->total_latency <= 0)
        return 0.0;
    double cyc = c->hot.exposed.known ? c->hot.exposed.v : (double)c->hot.stall;
    double g = 100.0 * cyc / (double)s->total_latency;
    double cg = class_gain(c);
    return c->gain_pct.known && g > cg ? cg : g;
}

/* Occupancy payoff: with w resident waves and w' after the change, at most
 * (1 - w/w') of the exposed bubble stall can be covered by the extra waves. */
static double occupancy_gain(const fp_signals *s)
{
    if (!s->waves_per_cu.known || s->waves_per_cu.v <= 0)
        return 0.0;
    double next = s->next_waves_per_cu.known ? s->next_waves_per_cu.v : s->waves_per_cu.v * 2;
    if (next <= s->waves_per_cu.v)
        return 0.0;
    double bubble = 0.0;
    for (size_t i = 0; i < s->nclasses; i++)
        if (s->classes[i].is_bubble)
            bubble += class_gain(&s->classes[i]);
    return bubble * (1.0 - s->waves_per_cu.v / next);
}

/* Rules that hide memory latency. Below the practical ceiling they are legitimate
 * (more bytes in flight is how a memory-bound kernel reaches it) and their gain is
 * capped by the distance to it, as every same-bytes gain is; AT the ceiling there is
 * no latency left to hide behind bandwidth, so they do not fire (issue 17). */
static const char *const roof_suppressed[] = {"vmem_prefetch", "vmem_queue_depth", "load_use_distance", "occupancy_vgpr",
                                           NULL};

static bool in_list(const char *id, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(id, list[i]))
            return true;
    return false;
}

const char *fp_priority_label(double gain_pct, double confidence)
{
    double payoff = gain_pct * confidence;
    int by_payoff = payoff >= FP_PRIO_HIGH_PAYOFF ? 2 : payoff >= FP_PRIO_MED_PAYOFF ? 1 : 0;
    int by_conf = confidence >= FP_CONF_HIGH_MIN ? 2 : confidence >= FP_CONF_MEDIUM_MIN ? 1 : 0;
    static const char *const labels[] = {"LOW", "MED", "HIGH"};
    return labels[by_payoff < by_conf ? by_payoff : by_conf];
}

/* Narrow global accesses: at most the global-memory classes' exposed stall in
 * the share the narrow accesses have of all global accesses (widening them
 * removes instructions, not bytes). */
static const char *const global_classes[] = {"vmcnt", "vmem_load", "vmem_store", NULL};

static double narrow_gain(const fp_signals *s)
{
    if (!s->narrow_frac.known)
        return 0.0;
    double g = 0;
    for (size_t i = 0; global_classes[i]; i++)
        g += class_gain(fp_signals_class(s, global_classes[i]));
    return g * s->narrow_frac.v;
}

/* At HBM % of peak `hbm`, the most kernel time fewer stalls can save before the
 * bytes alone need the time: the distance to the arch's PRACTICAL ceiling (not
 * to the theoretical peak), 1 - hbm / ceiling, in %. */
static double ceiling_of(const fp_signals *s) { return s->bound_res.ceiling_pct > 0 ? s->bound_res.ceiling_pct : 100.0; }

static double roof_room(const fp_signals *s, double hbm) { return fp_gain_ceiling(hbm, s->bound_res.ceiling_pct); }

double fp_gain_ceiling(double hbm_pct, double ceiling_pct)
{
    double ceil = ceiling_pct > 0 ? ceiling_pct : 100.0;
    double room = 100.0 * (1.0 - hbm_pct / ceil);
    return room < 0 ? 0 : room;
}

double fp_gain_capped(double gain_pct, double room_pct)
{
    double g = gain_pct > room_pct ? room_pct : gain_pct;
    return g < 0 ? 0 : g;
}

bool fp_rules_at_ceiling(const fp_signals *s)
{
    return s->bound_res.at_roof && roof_room(s, s->bound_res.roof_pct) < FP_RULES_MIN_GAIN_PCT;
}

/* Traced wave span / kernel duration: a share of the traced waves' time is this
 * much of the kernel's (1 when unknown: the gain then stays in traced time). */
static double span_ratio(const fp_signals *s) { return s->span_ratio.known ? s->span_ratio.v : 1.0; }

/* The models whose figure is a share of the traced SIMD time (exposed stall). */
static bool stall_share_model(fp_gain_model g)
{
    return g == FP_GAIN_CLASS || g == FP_GAIN_CLASS_X_SIG || g == FP_GAIN_HOT_LINE || g == FP_GAIN_OCCUPANCY ||
           g == FP_GAIN_SIGNAL_PCT || g == FP_GAIN_NARROW;
}

/* The part of a wave's time that more, smaller waves do not shrink: the
 * kernel-argument wait at entry and the store drain at exit, % of latency. */
static double fixed_overhead_frac(const fp_signals *s)
{
    if (s->total_latency <= 0)
        return 0.0;
    const fp_sig_class *lg = fp_signals_class(s, "lgkmcnt"), *dr = fp_signals_class(s, "drain");
    double cyc = (lg ? lg->stall_prod[FP_PROD_SMEM_ENTRY] : 0) + (dr ? (double)dr->stall : 0);
    double f = cyc / (double)s->total_latency;
    return f > 1 ? 1 : f;
}

/* A launch fix (more waves, a full last round): the idle share x the part of the
 * wave that scales, of the WAVES' time: the launch ramp and end-of-kernel
 * writeback outside them do not shrink with more waves, so x the span ratio
 * (traced wave span / kernel duration). The HBM floor caps it with every gain. */
static double launch_gain(const fp_signals *s, double busy_pct, bool scale_overhead)
{
    double g = 100.0 - busy_pct;
    if (scale_overhead)
        g *= 1.0 - fixed_overhead_frac(s);
    g *= span_ratio(s);
    return g < 0 ? 0 : g;
}

/* The most kernel time any change can save: the distance from today's HBM
 * figure to the practical ceiling (the bytes need at least HBM % / ceiling % of
 * today's time). At the roof the roof's figure; 100 when HBM is unmeasured. */
bool fp_rules_hbm_room(const fp_signals *s, double *room)
{
    double hbm;
    if (s->bound_res.at_roof)
        *room = roof_room(s, s->bound_res.roof_pct);
    else if (fp_sig_value(s, FP_SIG_PCT_HBM_ROOF, NULL, &hbm))
        *room = roof_room(s, hbm);
    else
        return false;
    return true;
}

static double hbm_floor_room(const fp_signals *s)
{
    double room;
    return fp_rules_hbm_room(s, &room) ? room : 100.0;
}

/* Rebalancing: every CU busy for the mean CU's time instead of the critical
 * CU's. The excess is a share of the traced span (the critical CU is busy for
 * ~all of it), so x the span ratio, then <= the HBM floor (a share of kernel time). */
double fp_gain_imbalance(double excess_pct, double span_ratio, double floor_room)
{
    double g = (excess_pct > 0 ? excess_pct : 0) * span_ratio;
    return g > floor_room ? floor_room : g;
}

/* The ranking: a gain below diff's noise floor is no recommendation (noted,
 * after the ranked ones); then gain desc, priority desc, table order. No rule is
 * pinned first: each gain is already a share of today's kernel time (an
 * under-filled launch's stall shares are of the busy waves, whose time IS the
 * kernel's), so the larger gain is the larger payoff. */
static int rec_cmp(const void *a, const void *b)
{
    const fp_rec *x = a, *y = b;
    if (x->noted != y->noted)
        return x->noted ? 1 : -1;
    if (x->gain_pct != y->gain_pct)
        return x->gain_pct > y->gain_pct ? -1 : 1;
    if (x->rule->priority != y->rule->priority)
        return x->rule->priority > y->rule->priority ? -1 : 1;
    return x->rule < y->rule ? -1 : x->rule > y->rule; /* table order */
}

void fp_rules_eval(const fp_signals *s, fp_rec **recs, size_t *n)
{
    *recs = calloc(fp_rules_count ? fp_rules_count : 1, sizeof **recs);
    if (!*recs)
        abort();
    *n = 0;
    /* a parallelism-bound launch: the rules gate on what bounds each busy CU */
    unsigned bb = s->bound_res.bound == FP_BOUND_PARALLELISM ? bound_bit(fp_bound_name(s->bound_res.within))
                                                             : bound_bit(s->bound);
    for (size_t i = 0; i < fp_rules_count; i++) {
        const fp_rule *r = &fp_rules[i];
        if (bb && !(r->gate & bb))
            continue;
        if (fp_rules_at_ceiling(s) && in_list(r->id, roof_suppressed))
            continue;
        bool ok = true, primary_fb = false;
        double primary = NAN;
        for (int k = 0; k < FP_RULE_MAX_CONDS && r->conds[k].sig != FP_SIG_NONE && ok; k++) {
            double v;
            bool fb;
            ok = cond_holds(s, &r->conds[k], &v, &fb);
            if (k == 0) {
                primary = v;
                primary_fb = fb;
            }
        }
        if (!ok)
            continue;
        fp_rec *rec = &(*recs)[(*n)++];
        rec->rule = r;
        rec->value = isnan(primary) ? 0.0 : primary;
        rec->value_fallback = primary_fb;
        rec->cls = fp_signals_class(s, r->bubble_class);
        rec->hot = rec->cls && rec->cls->hot.present ? &rec->cls->hot : NULL;
        if (r->prod != FP_PROD_ANY && rec->cls && rec->cls->hot_prod[r->prod].present)
            rec->hot = &rec->cls->hot_prod[r->prod];
        if (r->evid == FP_EVID_NARROW)
            rec->hot = s->narrow_hot.present ? &s->narrow_hot : NULL;
        if (r->evid == FP_EVID_NONE)
            rec->hot = NULL;
        switch (r->gain) {
        case FP_GAIN_CLASS:
            rec->gain_pct = class_gain(rec->cls);
            /* Narrowed to a producer group only when the trace names producers:
             * without them the class gain is the best evidence there is. */
            if (r->prod != FP_PROD_ANY && rec->cls && rec->cls->has_producers) {
                /* Per-instruction bounds overlap (waves hide each other), so their sum
                 * can exceed the class's own bound: never claim more than the class. */
                double g = rec->cls->gain_prod_pct[r->prod].known ? rec->cls->gain_prod_pct[r->prod].v : 0.0;
                rec->gain_pct = g < rec->gain_pct ? g : rec->gain_pct;
            }
            break;
        case FP_GAIN_SIGNAL_PCT: rec->gain_pct = rec->value; break;
        case FP_GAIN_CLASS_X_SIG: {
            double f = rec->value < 0 ? 0 : rec->value > 1 ? 1 : rec->value;
            rec->gain_pct = class_gain(rec->cls) * f;
            break;
        }
        case FP_GAIN_HOT_LINE: rec->gain_pct = hot_line_gain(s, rec->cls); break;
        case FP_GAIN_OCCUPANCY: rec->gain_pct = occupancy_gain(s); break;
        case FP_GAIN_FILL: rec->gain_pct = launch_gain(s, rec->value, true); break;
        case FP_GAIN_TAIL: rec->gain_pct = launch_gain(s, rec->value, false); break;
        case FP_GAIN_IMBALANCE: rec->gain_pct = fp_gain_imbalance(rec->value, span_ratio(s), 100.0); break;
        case FP_GAIN_ROOF: rec->gain_pct = roof_room(s, rec->value); break;
        case FP_GAIN_NARROW: rec->gain_pct = narrow_gain(s); break;
        case FP_GAIN_BYTES: rec->gain_pct = FP_RULES_BYTES_STEP_PCT; break;
        }
        /* exposed stall is a share of the traced waves' time: of the kernel's, it is
         * that share x traced wave span / kernel duration (issue 17) */
        if (stall_share_model(r->gain))
            rec->gain_pct *= span_ratio(s);
        /* no change that keeps the bytes can take the kernel below the time they need
         * at the practical ceiling (at the roof: the distance to the roof). Fewer
         * bytes lower that floor itself: not capped by it */
        double room = hbm_floor_room(s);
        if (r->gain != FP_GAIN_BYTES && rec->gain_pct > room) {
            rec->capped = true;
            rec->cap_pct = fp_round(room, 2);
            rec->gain_pct = fp_gain_capped(rec->gain_pct, room);
        }
        rec->gain_pct = fp_round(rec->gain_pct, 2);
        /* a best case inside diff's noise floor cannot be verified by a re-capture,
         * and a rate (per 10 % of bytes) has no size to rank: seen, not recommended */
        rec->noted = rec->gain_pct < FP_RULES_MIN_GAIN_PCT || r->gain == FP_GAIN_BYTES;
        double c = conf_base(r->base_conf) * s->capture_confidence;
        if (primary_fb)
            c *= FP_CONF_FALLBACK_FACTOR;
        /* evidence on a kernel entry line that holds most of the listing is debug-info
         * aggregation (seed pattern 5), not a located cause */
        if (rec->hot && rec->hot->entry_line && stall_share_model(r->gain)) /* (a bytes / launch rule does not rest on the line) */
            c *= s->dbg.fired ? FP_CONF_ENTRY_LINE_FACTOR : FP_CONF_WEAK_LINE_FACTOR;
        rec->confidence = fp_round(c, 2);
        rec->priority_label = fp_priority_label(rec->gain_pct, rec->confidence);
    }
    qsort(*recs, *n, sizeof **recs, rec_cmp);
    for (size_t i = 0; i < *n; i++)
        (*recs)[i].rank = (*recs)[i].noted ? 0 : (int)i + 1;
}

/* ---- rendering ---- */

void fp_gate_text(unsigned gate, fp_sb *out)
{
    if ((gate & FP_GATE_ANY) == FP_GATE_ANY) {
        fp_sb_adds(out, "any");
        return;
    }
    const char *sep = "";
    if (gate & FP_GATE_MEMORY) {
        fp_sb_addf(out, "%smemory", sep);
        sep = "|";
    }
    if (gate & FP_GATE_COMPUTE) {
        fp_sb_addf(out, "%scompute", sep);
        sep = "|";
    }
    if (gate & FP_GATE_LATENCY)
        fp_sb_addf(out, "%slatency", sep);
}

static void num_text(double v, fp_sb *out)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.4g", v);
    fp_sb_adds(out, buf);
}

void fp_rule_cond_text(const fp_rule *r, fp_sb *out)
{
    for (int k = 0; k < FP_RULE_MAX_CONDS && r->conds[k].sig != FP_SIG_NONE; k++) {
        const fp_rule_cond *c = &r->conds[k];
        if (k)
            fp_sb_adds(out, " AND ");
        if (c->missing == FP_MISS_FALLBACK)
            fp_sb_adds(out, "(");
        sig_text(c->sig, c->cls, out);
        fp_sb_adds(out, c->cmp == FP_GT ? " > " : " < ");
        num_text(c->thr, out);
        if (c->missing == FP_MISS_PASS)
            fp_sb_adds(out, " (or unmeasured)");
        if (c->missing == FP_MISS_FALLBACK) {
            fp_sb_adds(out, "; if unmeasured: ");
            sig_text(c->fb_sig, c->fb_cls, out);
            fp_sb_adds(out, c->fb_cmp == FP_GT ? " > " : " < ");
            num_text(c->fb_thr, out);
            fp_sb_adds(out, ")");
        }
    }
}

const char *fp_gain_model_text(fp_gain_model g)
{
    switch (g) {
    case FP_GAIN_CLASS: return "class exposed stall";
    case FP_GAIN_CLASS_X_SIG: return "class exposed stall x signal";
    case FP_GAIN_HOT_LINE: return "hottest line exposed stall";
    case FP_GAIN_OCCUPANCY: return "bubble exposed stall x (1 - waves/next waves)";
    case FP_GAIN_SIGNAL_PCT: return "the signal (% of latency)";
    case FP_GAIN_FILL:
        return "(100 - SIMD fill %) x (1 - fixed per-wave overhead share) x traced wave span / kernel duration, <= "
               "the HBM floor 100 x (1 - HBM % / practical ceiling)";
    case FP_GAIN_TAIL:
        return "(100 - tail efficiency %) (idle slots of the rounds) x traced wave span / kernel duration, <= the HBM "
               "floor";
    case FP_GAIN_IMBALANCE:
        return "100 x (1 - mean CU busy / critical CU busy) (a CU's busy time: the union of its waves' residencies) "
               "x traced wave span / kernel duration, <= the HBM floor";
    case FP_GAIN_ROOF:
        return "100 x (1 - sol.hbm.pct_of_peak / practical ceiling): the bandwidth left to the practical ceiling, the "
               "same bytes moved faster";
    case FP_GAIN_BYTES:
        return "a rate: ~10% of kernel time per 10% of the unique bytes removed (time scales with the bytes at "
               "today's bandwidth; not capped by the HBM floor, which fewer bytes lower); how many bytes can go is "
               "not in the trace, so it is not ranked";
    case FP_GAIN_NARROW: return "global-memory exposed stall x narrow share of global accesses";
    }
    return "?";
}

/* The model of one recommendation's gain, with the scale it applied. */
static char *gain_model_scaled(const fp_signals *s, fp_gain_model g)
{
    if (!stall_share_model(g) && g != FP_GAIN_IMBALANCE && g != FP_GAIN_FILL && g != FP_GAIN_TAIL)
        return fp_model_strdup(fp_gain_model_text(g));
    if (!s->span_ratio.known)
        return fp_model_printf("%s; %% of the traced waves' time (not scaled to the kernel: its duration or the "
                               "trace span is unknown, or the duration is the trace span)", fp_gain_model_text(g));
    return fp_model_printf("%s; x %.3f = traced wave span %.2f us / kernel duration %.2f us (%s): %% of kernel time",
                           fp_gain_model_text(g), s->span_ratio.v, s->time_trace_ns.v / 1e3, s->time_ns.v / 1e3,
                           s->time_source ? s->time_source : "?");
}

/* ... and, when the HBM floor cut it, by how much: a latency-hiding gain below the
 * roof is worth at most the distance to the practical ceiling (docs/rules.md). */
static char *gain_model_text(const fp_signals *s, const fp_rec *r)
{
    char *m = gain_model_scaled(s, r->rule->gain);
    if (!r->capped || r->rule->gain == FP_GAIN_ROOF)
        return m;
    char *c = fp_model_printf("%s; capped at %.2f%% = the distance to the practical ceiling (the same bytes cannot "
                              "move faster than it)", m, r->cap_pct);
    free(m);
    return c;
}

static void accept_rule_text(const fp_rule *r, fp_sb *out)
{
    switch (r->accept) {
    case FP_ACC_CLASS_EXPOSED_DROP:
        fp_sb_addf(out, "exposed %s stall drops by >= %.0f%%", r->bubble_class, r->accept_value);
        break;
    case FP_ACC_LINE_STALL_DROP:
        fp_sb_addf(out, "stall at the hottest %s .py:line drops by >= %.0f%%", r->bubble_class, r->accept_value);
        break;
    case FP_ACC_SIGNAL_BELOW:
        if (r->accept_value > 0) {
            sig_text(r->conds[0].sig, r->conds[0].cls, out);
            fp_sb_adds(out, " < ");
            num_text(r->accept_value, out);
        } else {
            sig_text(r->conds[0].sig, r->conds[0].cls, out);
            fp_sb_adds(out, " drops by >= 50%");
        }
        break;
    case FP_ACC_SIGNAL_DROP:
        sig_text(r->accept_sig ? r->accept_sig : r->conds[0].sig, NULL, out);
        fp_sb_addf(out, " drops by >= %.0f%%", r->accept_value);
        break;
    case FP_ACC_SIGNAL_ABOVE:
        sig_text(r->conds[0].sig, r->conds[0].cls, out);
        if (r->conds[0].sig == FP_SIG_WAVES_PER_CU)
            fp_sb_adds(out, " reaches the next occupancy step");
        else if (r->gain == FP_GAIN_ROOF)
            fp_sb_adds(out, " closes >= half the distance to the practical ceiling");
        else {
            fp_sb_adds(out, " >= ");
            num_text(r->conds[0].thr, out);
        }
        break;
    }
}

/* Markdown cells must not contain a bare '|'. */
static void md_cell(fp_sb *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fp_sb_adds(out, "\\|");
        else if (*s == '\n')
            fp_sb_addc(out, ' ');
        else
            fp_sb_addc(out, *s);
    }
}

void fp_rules_markdown(fp_sb *out)
{
    fp_sb_adds(out, "# Bubble -> knob table\n\n"
                    "<!-- GENERATED by `flyprof rules -f table --markdown` from src/analysis/rules.c; do not edit by hand "
                    "(tests/cli/rules.sh fails when they drift). -->\n\n"
                    "Each rule fires when all its conditions hold and the kernel's bound (bound.h) is in its "
                    "gate. Recommendations are ranked by estimated upper-bound gain (ties: priority, then this "
                    "order). See docs/rules.md.\n\n"
                    "| # | rule | bubble class | fires when | bound gate | priority | confidence | gain model | "
                    "acceptance test |\n"
                    "|---:|---|---|---|---|---:|---|---|---|\n");
    fp_sb tmp;
    fp_sb_init(&tmp);
    for (size_t i = 0; i < fp_rules_count; i++) {
        const fp_rule *r = &fp_rules[i];
        fp_sb_addf(out, "| %zu | `%s` | `%s` | ", i + 1, r->id, r->bubble_class);
        fp_sb_reset(&tmp);
        fp_rule_cond_text(r, &tmp);
        md_cell(out, tmp.buf);
        fp_sb_adds(out, " | ");
        fp_sb_reset(&tmp);
        fp_gate_text(r->gate, &tmp);
        md_cell(out, tmp.buf);
        fp_sb_addf(out, " | %.2f | %s | %s%s%s%s | ", r->priority, r->base_conf, fp_gain_model_text(r->gain),
                   r->prod != FP_PROD_ANY ? " (waits on " : "", r->prod != FP_PROD_ANY ? fp_prod_group_name(r->prod) : "",
                   r->prod != FP_PROD_ANY ? " producers)" : "");
        fp_sb_reset(&tmp);
        accept_rule_text(r, &tmp);
        md_cell(out, tmp.buf);
        fp_sb_adds(out, " |\n");
    }
    fp_sb_adds(out, "\n## Knobs\n");
    for (size_t i = 0; i < fp_rules_count; i++) {
        const fp_rule *r = &fp_rules[i];
        fp_sb_addf(out, "\n### %zu. `%s` - %s\n\n", i + 1, r->id, r->knob);
        fp_sb_addf(out, "- **FlyDSL API:** %s\n", r->api);
        fp_sb_addf(out, "- **Change:** %s\n", r->change);
        fp_sb_addf(out, "- **Expected:** %s\n", r->expected);
    }
    fp_sb_adds(out, "\n### Already optimal\n\nNo rule is proposed when the shared bound classification "
                    "(docs/bound.md) finds a memory-bound kernel at its roof: achieved HBM bandwidth >= 85% of peak "
                    "(`near_roof`), or >= 50% with a clean access pattern (`clean_stream`). This needs counters.json "
                    "with timing.\n");
    fp_sb_free(&tmp);
}

void fp_rules_doc_fill(fp_rules_doc *d)
{
    memset(d, 0, sizeof *d);
    d->count = (int64_t)fp_rules_count;
    fp_sb tmp;
    fp_sb_init(&tmp);
    for (size_t i = 0; i < fp_rules_count; i++) {
        const fp_rule *r = &fp_rules[i];
        fp_rule_row *o = fp_model_push((void **)&d->rules, &d->nrules, sizeof *o);
        o->id = fp_model_strdup(r->id);
        o->bubble_class = fp_model_strdup(r->bubble_class);
        fp_sb_reset(&tmp);
        fp_rule_cond_text(r, &tmp);
        o->fires_when = fp_model_strdup(tmp.buf);
        o->signal = fp_model_strdup(fp_sig_kind_name(r->conds[0].sig));
        fp_sb_reset(&tmp);
        fp_gate_text(r->gate, &tmp);
        o->bound_gate = fp_model_strdup(tmp.buf);
        o->priority = r->priority;
        o->confidence = fp_model_strdup(r->base_conf);
        o->gain_model = fp_model_strdup(fp_gain_model_text(r->gain));
        o->producers = fp_model_strdup(fp_prod_group_name(r->prod));
        fp_sb_reset(&tmp);
        accept_rule_text(r, &tmp);
        o->acceptance = fp_model_strdup(tmp.buf);
        o->knob = fp_model_strdup(r->knob);
        o->api = fp_model_strdup(r->api);
        o->change = fp_model_strdup(r->change);
        o->expected = fp_model_strdup(r->expected);
    }
    fp_sb_free(&tmp);
    fp_model_round(&fp_rules_doc_schema, d); /* the numbers of the envelope */
}

/* ---- one recommendation as data ---- */

/* A source line or NULL: "" (unmapped) is written as null. */
static char *src_or_null(const char *src) { return fp_model_strdup(src && src[0] ? src : NULL); }

/* A new zeroed struct (aborts on OOM, like the model's helpers). */
static void *new_obj(size_t size)
{
    void *p = calloc(1, size);
    if (!p)
        abort();
    return p;
}

/* On an entry line: the next line with explicit ops, i.e. the first producer the
 * wait names whose own line is not an entry line (NULL when none). */
static const char *explicit_line(const fp_signals *s, const fp_sig_hot *h)
{
    if (!h->entry_line)
        return NULL;
    for (size_t i = 0; i < h->nproducers; i++) {
        const char *src = h->producers[i].source;
        if (src && src[0] && !fp_signals_is_entry_line(s->snaps, src))
            return src;
    }
    return NULL;
}

static fp_report_hottest *hot_doc(const fp_signals *s, const fp_sig_hot *h)
{
    fp_report_hottest *o = new_obj(sizeof *o);
    o->code_line = h->code_line;
    o->inst = fp_model_strdup(h->isa);
    o->source = src_or_null(h->source);
    o->snippet = fp_model_strdup(h->snippet);
    o->hit = h->hit;
    o->stall = h->stall;
    o->entry_line = h->entry_line;
    o->exposed = h->exposed;
    o->explicit_line = fp_model_strdup(explicit_line(s, h));
    for (size_t i = 0; i < h->nproducers; i++) {
        const fp_sig_producer *p = &h->producers[i];
        fp_report_producer *po = fp_model_push((void **)&o->waits_on, &o->nwaits_on, sizeof *po);
        po->code_line = p->code_line;
        po->inst = fp_model_strdup(p->isa);
        po->source = src_or_null(p->source);
        po->cls = src_or_null(p->cls);
        po->load_to_use_cycles = p->load_to_use;
        po->share = p->share; /* absent when unknown */
    }
    return o;
}

/* The class fallback of an acceptance test: the class's exposed (else total) stall. */
static void accept_class(const fp_rule *ru, const fp_sig_class *c, fp_report_acceptance *o, double *base)
{
    *base = c ? (c->exposed.known ? c->exposed.v : (double)c->stall) : 0;
    o->kind = fp_model_strdup("class_exposed_drop");
    o->cls = fp_model_strdup(ru->bubble_class);
    o->metric = fp_model_strdup(c && c->exposed.known ? "exposed" : "stall");
    o->before = fp_round(*base, 0);
    o->drop_pct = fp_optd_of(ru->accept_value);
    o->target = fp_round(*base * (1 - ru->accept_value / 100.0), 0);
}

/* The acceptance test, concrete for this kernel: names the line, the
 * baseline and the target so that `diff` can check it mechanically.
 * before / target are rounded here (0 decimals for the drops, 4 for signals). */
static void accept_doc(const fp_signals *s, const fp_rec *r, fp_report_acceptance *o)
{
    const fp_rule *ru = r->rule;
    fp_sb t;
    fp_sb_init(&t);
    const fp_sig_class *c = r->cls;
    double base;
    switch (ru->accept) {
    case FP_ACC_CLASS_EXPOSED_DROP:
        accept_class(ru, c, o, &base);
        fp_sb_addf(&t, "exposed %s stall drops by >= %.0f%% (from %.0f to <= %.0f cycles)", ru->bubble_class,
                   ru->accept_value, base, base * (1 - ru->accept_value / 100.0));
        break;
    case FP_ACC_LINE_STALL_DROP: {
        const fp_sig_hot *h = r->hot;
        /* a line the compiler uses as its catch-all scope moves with any location fix:
         * the test would break on a rebuild that changes nothing else */
        bool entry = h && h->entry_line; /* (gate fired or not: a location fix moves it either way) */
        if (h && h->source && h->source[0] && !entry) {
            double tgt;
            base = (double)h->line_class_stall;
            tgt = base * (1 - ru->accept_value / 100.0);
            o->kind = fp_model_strdup("line_stall_drop");
            o->cls = fp_model_strdup(ru->bubble_class);
            o->source = fp_model_strdup(h->source);
            o->inst = fp_model_strdup(h->isa);
            o->before = fp_round(base, 0);
            o->drop_pct = fp_optd_of(ru->accept_value);
            o->target = fp_round(tgt, 0);
            fp_sb_addf(&t, "%s stall at %s drops by >= %.0f%% (from %.0f to <= %.0f cycles)", ru->bubble_class,
                       h->source, ru->accept_value, base, tgt);
        } else {
            /* no source line to pin: fall back to the class */
            accept_class(ru, c, o, &base);
            fp_sb_addf(&t, "exposed %s stall drops by >= %.0f%% (%s)", ru->bubble_class, ru->accept_value,
                       entry ? "the evidence line is the kernel entry line, a debug-info artifact" : "no source line to pin");
        }
        break;
    }
    case FP_ACC_SIGNAL_BELOW: {
        double target = ru->accept_value > 0 ? ru->accept_value : r->value * 0.5;
        o->kind = fp_model_strdup("signal_below");
        sig_text(ru->conds[0].sig, ru->conds[0].cls, &t);
        o->signal = fp_model_strdup(t.buf);
        o->before = fp_round(r->value, 4);
        o->target = fp_round(target, 4);
        fp_sb_addf(&t, " falls below %.4g (now %.4g)", target, r->value);
        break;
    }
    case FP_ACC_SIGNAL_DROP: {
        /* measured on its own signal (bytes for a move-fewer-bytes rule), not on stall */
        fp_sig_kind k = ru->accept_sig ? ru->accept_sig : ru->conds[0].sig;
        double v = 0;
        if (!fp_sig_value(s, k, NULL, &v)) {
            accept_class(ru, c, o, &base);
            fp_sb_addf(&t, "exposed %s stall drops by >= %.0f%% (%s unmeasured)", ru->bubble_class, ru->accept_value,
                       fp_sig_kind_name(k));
            break;
        }
        double target = v * (1 - ru->accept_value / 100.0);
        o->kind = fp_model_strdup("signal_below");
        o->signal = fp_model_strdup(fp_sig_kind_name(k));
        o->before = fp_round(v, 4);
        o->drop_pct = fp_optd_of(ru->accept_value);
        o->target = fp_round(target, 4);
        fp_sb_addf(&t, "%s drops by >= %.0f%%: below %.6g (now %.6g)", fp_sig_kind_name(k), ru->accept_value, target, v);
        break;
    }
    case FP_ACC_SIGNAL_ABOVE: {
        double target = ru->conds[0].thr;
        if (ru->conds[0].sig == FP_SIG_WAVES_PER_CU)
            target = s->next_waves_per_cu.known ? s->next_waves_per_cu.v : r->value * 2;
        else if (ru->gain == FP_GAIN_ROOF) /* closes at least half the distance to the practical ceiling */
            target = r->value + (ceiling_of(s) - r->value) / 2;
        else if (ru->conds[0].cmp == FP_LT)
            target = ru->conds[0].thr; /* e.g. l2 hit rate rises to the threshold */
        o->kind = fp_model_strdup("signal_above");
        sig_text(ru->conds[0].sig, ru->conds[0].cls, &t);
        o->signal = fp_model_strdup(t.buf);
        o->before = fp_round(r->value, 4);
        o->target = fp_round(target, 4);
        fp_sb_addf(&t, " reaches >= %.4g (now %.4g)", target, r->value);
        break;
    }
    }
    o->text = fp_model_strdup(t.buf);
    fp_sb_free(&t);
}

void fp_rec_to_doc(const fp_signals *s, const fp_rec *r, fp_report_rec *o)
{
    const fp_rule *ru = r->rule;
    memset(o, 0, sizeof *o);
    o->rank = r->rank;
    o->rule = fp_model_strdup(ru->id);
    o->bubble_class = fp_model_strdup(ru->bubble_class);
    /* a trace that is not representative supports no number (issue 17): the rank stays, the gain is null */
    o->est_gain_pct = s->representative ? fp_optd_of(r->gain_pct) : fp_optd_none();
    o->confidence = r->confidence;
    o->confidence_label = fp_model_strdup(fp_conf_label(r->confidence));
    o->priority = ru->priority;
    /* no number, no payoff: a rule on a trace that is not representative is LOW */
    o->priority_label = fp_model_strdup(!s->representative ? "LOW"
                                        : r->priority_label ? r->priority_label
                                                            : fp_priority_label(r->gain_pct, r->confidence));
    o->gain_model = gain_model_text(s, r);
    o->knob = fp_model_strdup(ru->knob);
    o->api = fp_model_strdup(ru->api);
    o->change = fp_model_strdup(ru->change);
    o->expected = fp_model_strdup(ru->expected);

    fp_report_rec_evidence *ev = &o->evidence;
    fp_sb t;
    fp_sb_init(&t);
    const fp_rule_cond *c0 = &ru->conds[0];
    if (r->value_fallback)
        sig_text(c0->fb_sig, c0->fb_cls, &t);
    else
        sig_text(c0->sig, c0->cls, &t);
    ev->signal = fp_model_strdup(t.buf);
    ev->value = r->value;
    fp_sb_reset(&t);
    fp_rule_cond_text(ru, &t);
    ev->fired_because = fp_model_strdup(t.buf);
    fp_sb_free(&t);
    const fp_sig_class *c = r->cls;
    ev->class_stall_pct = c ? c->stall_pct : 0.0;
    ev->exposed_stall = c ? c->exposed : fp_optd_none();
    ev->class_gain_pct = c ? c->gain_pct : fp_optd_none();
    if ((ru->gain == FP_GAIN_FILL || ru->gain == FP_GAIN_TAIL) && s->launch.valid) {
        const fp_launch *L = &s->launch;
        ev->launch = new_obj(sizeof *ev->launch);
        *ev->launch = (fp_report_ev_launch){L->workgroups, L->cus, L->fill_pct, L->wg_waves, fp_optd_none(),
                                            fp_optd_none(), fp_optd_none(), fp_optd_none()};
        if (s->bound_in.simd_fill_pct.have)
            ev->launch->simd_fill_pct = fp_optd_of(s->bound_in.simd_fill_pct.v);
        if (L->rounds > 0) {
            ev->launch->rounds = fp_optd_of(L->rounds);
            ev->launch->slots = fp_optd_of(L->concurrent_wgs);
            ev->launch->tail_efficiency_pct = fp_optd_of(L->tail_efficiency_pct);
        }
    }
    if (s->bound_res.at_roof) {
        ev->roof = new_obj(sizeof *ev->roof);
        ev->roof->hbm_pct_of_peak = s->bound_res.roof_pct;
        ev->roof->source = fp_model_strdup(s->bound_res.roof_source);
        ev->roof->gain_cap_pct = roof_room(s, s->bound_res.roof_pct);
    }
    if (ru->gain == FP_GAIN_IMBALANCE && s->workdist) {
        const fp_workdist *w = s->workdist;
        fp_report_ev_imbalance *im = ev->imbalance = new_obj(sizeof *ev->imbalance);
        const fp_wd_quant *q = &w->cu_busy_cycles;
        *im = (fp_report_ev_imbalance){r->value, q->max, w->cu_busy_mean.known ? w->cu_busy_mean.v : 0, q->p50, q->p90,
                                       w->critical_cu.se, w->critical_cu.cu, w->critical_cu.waves,
                                       w->wave_cycles.max, w->heavy_waves, w->heavy_cus, fp_model_strdup("cu_busy")};
    }
    if (ru->gain == FP_GAIN_OCCUPANCY) {
        fp_report_ev_occupancy *oc = ev->occupancy = new_obj(sizeof *ev->occupancy);
        oc->waves_per_cu = s->waves_per_cu;
        oc->next_waves_per_cu = s->next_waves_per_cu;
        oc->vgprs_to_free = s->vgpr_to_next;
        oc->arch_vgpr = s->arch_vgpr;
        oc->accum_vgpr = s->accum_vgpr;
        oc->limiter = fp_model_strdup(s->occ_limiter);
    }
    if (ru->prod != FP_PROD_ANY) {
        if (c && r->hot == &c->hot_prod[ru->prod])
            ev->selection = fp_model_printf("waits mainly on %s producers", fp_prod_group_name(ru->prod));
        else
            ev->selection = fp_model_strdup("no wait mainly on such a producer: hottest of the class");
    }
    if (r->hot)
        ev->hottest = hot_doc(s, r->hot);
    accept_doc(s, r, &o->acceptance);
}

const fp_rule *fp_rule_find(const char *id)
{
    for (size_t i = 0; id && i < fp_rules_count; i++)
        if (!strcmp(fp_rules[i].id, id))
            return &fp_rules[i];
    return NULL;
}
