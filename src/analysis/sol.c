/*
 * sol.c - speed of light from the trace (sol.h, docs/sol.md).
 *
 * Two small data tables do the decoding: the per-lane width of a memory
 * opcode (by its '_' tokens) and the MFMA input data type (by the text after
 * the MxNxK shape). Cycles per MFMA are not tabulated per opcode: they follow
 * from the opcode's FLOPs and the arch's dense rate in the SoC table, the same
 * numbers the peaks come from, so the two cannot disagree.
 */
#include "flyprof/sol.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flyprof/dataflow.h"
#include "flyprof/json.h"
#include "flyprof/opcost.h"
#include "flyprof/report_doc.h"
#include "flyprof/taxonomy.h"

/* Cycles one wave64 VALU instruction holds a 16-lane SIMD when the cost
 * table has nothing slower for it. */
#define FP_VALU_CYCLES 4.0

typedef struct width_tok {
    const char *tok;
    double bytes;
} width_tok;

/* First token (in opcode order) found here decides the per-lane width. */
static const width_tok WIDTHS[] = {
    {"dwordx4", 16}, {"b128", 16}, {"xyzw", 16}, {"dwordx3", 12}, {"b96", 12}, {"xyz", 12},
    {"dwordx2", 8},  {"b64", 8},   {"xy", 8},    {"x2", 8},       {"f64", 8},  {"u64", 8},
    {"i64", 8},      {"dword", 4}, {"b32", 4},   {"x", 4},        {"f32", 4},  {"u32", 4},
    {"i32", 4},      {"ushort", 2}, {"sshort", 2}, {"short", 2},  {"b16", 2},  {"u16", 2},
    {"i16", 2},      {"f16", 2},   {"bf16", 2},  {"ubyte", 1},    {"sbyte", 1}, {"byte", 1},
    {"u8", 1},       {"i8", 1},    {"b8", 1},
};

double fp_sol_lane_bytes(const char *isa)
{
    fp_class k = fp_classify(isa);
    if (k != FP_CL_VMEM_LOAD && k != FP_CL_VMEM_STORE && k != FP_CL_LDS_DMA && k != FP_CL_SCRATCH &&
        k != FP_CL_ATOMIC && k != FP_CL_LDS)
        return 0;
    char op[64];
    fp_opcode_lc(isa, op, sizeof op);
    /* crossbar ops move no LDS memory */
    if (k == FP_CL_LDS && (strstr(op, "swizzle") || strstr(op, "permute") || strstr(op, "nop") ||
                           strstr(op, "gws") || strstr(op, "append") || strstr(op, "consume")))
        return 0;
    double w = 0;
    char *save = NULL;
    for (char *t = strtok_r(op, "_", &save); t && w == 0; t = strtok_r(NULL, "_", &save)) {
        /* the transposing gfx950 reads (ds_read_b64_tr_b8): the first width is the access */
        for (size_t i = 0; i < sizeof WIDTHS / sizeof *WIDTHS; i++)
            if (!strcmp(t, WIDTHS[i].tok)) {
                w = WIDTHS[i].bytes;
                break;
            }
    }
    if (w == 0 && (k == FP_CL_ATOMIC))
        w = 4;
    fp_opcode_lc(isa, op, sizeof op);
    if (k == FP_CL_LDS && (strstr(op, "read2") || strstr(op, "write2")))
        w *= 2;
    if (strstr(op, "_d16") && strstr(op, "format"))
        w /= 2;
    return w;
}

typedef struct dtype_tok {
    const char *tok;
    fp_dtype dt;
} dtype_tok;

/* The input type is named after the shape; first match in this order. */
static const dtype_tok DTYPES[] = {
    {"f8f6f4", FP_DT_FP8}, {"fp8", FP_DT_FP8}, {"bf8", FP_DT_FP8}, {"xf32", FP_DT_TF32}, {"bf16", FP_DT_BF16},
    {"f16", FP_DT_FP16},   {"i8", FP_DT_INT8}, {"f64", FP_DT_FP64}, {"f32", FP_DT_FP32},
};

/* The value of "cbsz:N" / "blgp:N" in the operands, -1 when absent. */
static int modifier(const char *isa, const char *name)
{
    const char *p = strstr(isa, name);
    if (!p)
        return -1;
    p += strlen(name);
    if (*p != ':')
        return -1;
    return atoi(p + 1);
}

double fp_sol_mfma_cycles(const char *isa, const fp_arch_rates *rates, int simds_per_cu, double *flop)
{
    if (flop)
        *flop = 0;
    if (fp_classify(isa) != FP_CL_MFMA || !rates || simds_per_cu <= 0)
        return 0;
    char op[96];
    fp_opcode_lc(isa, op, sizeof op);
    bool sparse = !strncmp(op, "v_smfmac", 8);
    /* the shape MxNxK: the first token "<d>x<d>x<d>..." */
    const char *p = op;
    long m = 0, n = 0, k = 0;
    const char *rest = NULL;
    while ((p = strchr(p, '_')) != NULL) {
        p++;
        char *e;
        m = strtol(p, &e, 10);
        if (m <= 0 || *e != 'x')
            continue;
        n = strtol(e + 1, &e, 10);
        if (n <= 0 || *e != 'x')
            continue;
        k = strtol(e + 1, &e, 10);
        if (k <= 0)
            continue;
        rest = e;
        break;
    }
    if (!rest)
        return 0;
    long blocks = 1;
    const char *b = rest;
    while ((b = strchr(b, '_')) != NULL) {
        b++;
        char *e;
        long v = strtol(b, &e, 10);
        if (v > 0 && *e == 'b' && (e[1] == '_' || e[1] == 0))
            blocks = v;
    }
    int dt = -1;
    for (size_t i = 0; i < sizeof DTYPES / sizeof *DTYPES && dt < 0; i++)
        if (strstr(rest, DTYPES[i].tok))
            dt = DTYPES[i].dt;
    if (dt < 0)
        return 0;
    /* f8f6f4: cbsz/blgp name the A/B formats (0,1 fp8/bf8; 2,3 fp6; 4 fp4): both
     * narrow runs at the fp4/fp6 rate, otherwise the fp8 rate */
    if (strstr(rest, "f8f6f4") && modifier(isa, "cbsz") >= 2 && modifier(isa, "blgp") >= 2)
        dt = FP_DT_FP4;
    double rate = rates->matrix_flop_clk_cu[dt];
    if (rate <= 0)
        return 0;
    /* a sparse op does the work of the dense op of half its K */
    double f = 2.0 * (double)m * (double)n * (double)(sparse ? k / 2 : k) * (double)blocks;
    if (flop)
        *flop = f;
    return f / (rate / simds_per_cu);
}

static fp_sol_num num(double v)
{
    fp_sol_num o = {true, v};
    return o;
}

/* Unique bytes per dispatch (issue 23 item 4): workgroup-dependent accesses scale
 * with the grid, a shared load's bytes cross HBM once (one workgroup's worth);
 * the percentage is clamped to 100 and flagged, never printed above the peak. */
static void unique_hbm(const fp_sol_in *in, fp_sol *out)
{
    if (in->traced_waves <= 0 || in->grid_waves <= 0 || in->wg_waves <= 0)
        return;
    double per_wave = 1.0 / in->traced_waves;
    double wg_dep = out->vmem_bytes_traced - out->shared_load_bytes_traced;
    double bytes = wg_dep * in->grid_waves * per_wave + out->shared_load_bytes_traced * in->wg_waves * per_wave;
    out->unique_bytes = num(round(bytes));
    if (in->time_ns <= 0)
        return;
    double gbs = bytes / in->time_ns;
    out->unique_gbs = num(fp_round(gbs, 1));
    if (in->peak_hbm_gbs <= 0)
        return;
    double pct = fp_round(100.0 * gbs / in->peak_hbm_gbs, 2);
    out->hbm_clamped = pct > 100.0;
    out->unique_pct = num(pct > 100.0 ? 100.0 : pct);
}

/* Memory partition modes and the share of the device's HBM stacks one partition
 * interleaves (AMD Instinct MI300X GPU partitioning overview: NPS4 = 4 memory partitions
 * of 2 stacks / 48 GB each; rocprofiler-compute src/utils/specs.py get_hbm_channels). */
static const struct {
    const char *mode;
    int parts;
} nps_rows[] = {{"NPS1", 1}, {"NPS2", 2}, {"NPS4", 4}, {"NPS8", 8}};

/* The memory modes a compute partition can run with (AMD's compatibility matrix and
 * rocprofiler-compute's mi_gpu_spec.yaml: SPX NPS1; DPX NPS1/NPS2; QPX and CPX NPS1/NPS4):
 * the fewest HBM parts an unknown mode may mean. */
static const struct {
    const char *partition;
    int max_parts;
} partition_rows[] = {{"SPX", 1}, {"DPX", 2}, {"QPX", 4}, {"CPX", 4}};

void fp_hbm_partition_peak(double device_gbs, const char *partition, const char *memory_partition,
                           fp_hbm_peak *out)
{
    memset(out, 0, sizeof *out);
    out->gbs = out->low_gbs = device_gbs;
    if (device_gbs <= 0)
        return;
    int parts = 0, worst = 1;
    for (size_t i = 0; memory_partition && i < sizeof nps_rows / sizeof *nps_rows; i++)
        if (!strcasecmp(memory_partition, nps_rows[i].mode))
            parts = nps_rows[i].parts;
    for (size_t i = 0; partition && i < sizeof partition_rows / sizeof *partition_rows; i++)
        if (!strcasecmp(partition, partition_rows[i].partition))
            worst = partition_rows[i].max_parts;
    if (parts > 1) {
        out->gbs = out->low_gbs = device_gbs / parts;
        snprintf(out->text, sizeof out->text, "device peak %.0f GB/s / %d: %s (each memory partition interleaves "
                 "1/%d of the HBM stacks)", device_gbs, parts, memory_partition, parts);
    } else if (parts == 1 && partition && strcasecmp(partition, "SPX")) {
        snprintf(out->text, sizeof out->text, "device peak: NPS1 interleaves every HBM stack, so a %s agent keeps "
                 "it (whether one agent alone can draw it is not documented)", partition);
    } else if (parts == 0 && worst > 1) {
        out->low_gbs = device_gbs / worst;
        snprintf(out->text, sizeof out->text, "device peak, NPS1 assumed: the memory partition mode of this %s "
                 "agent is unknown (NPS%d would give %.0f GB/s; range %.0f-%.0f GB/s)", partition, worst,
                 out->low_gbs, out->low_gbs, device_gbs);
    }
    out->source = out->text[0] ? out->text : NULL;
}

const char *fp_partition_name(int agent_xcds, int device_xcds)
{
    static const char *const names[] = {[1] = "SPX", [2] = "DPX", [4] = "QPX", [8] = "CPX"};
    if (agent_xcds <= 0 || device_xcds <= 0 || device_xcds % agent_xcds)
        return NULL;
    int n = device_xcds / agent_xcds;
    return n < (int)(sizeof names / sizeof *names) ? names[n] : NULL;
}

void fp_sol_set_peak(fp_sol_in *in, double device_gbs, const char *partition, const char *memory_partition,
                     fp_hbm_peak *store)
{
    fp_hbm_partition_peak(device_gbs, partition, memory_partition, store);
    in->peak_hbm_gbs = store->gbs;
    in->peak_source = store->source;
}

void fp_sol_compute(const fp_sol_in *in, fp_sol *out)
{
    *out = (fp_sol){0};
    int ws = in->wave_size > 0 ? in->wave_size : 64;
    fp_dataflow df = {0};
    if (in->code)
        fp_dataflow_run(in->code, &df);
    for (size_t i = 0; in->code && i < in->code->n; i++) {
        const fp_inst *r = &in->code->rows[i];
        if (!r->index_ok || r->index == 0 || r->hit <= 0)
            continue;
        fp_class k = fp_classify(r->isa);
        double hits = (double)r->hit;
        switch (k) {
        case FP_CL_VMEM_LOAD:
        case FP_CL_VMEM_STORE:
        case FP_CL_LDS_DMA:
        case FP_CL_SCRATCH:
        case FP_CL_ATOMIC: {
            double b = fp_sol_lane_bytes(r->isa) * ws * hits;
            out->vmem_bytes_traced += b;
            /* stores, atomics and scratch stay unique: each workgroup writes its own */
            if ((k == FP_CL_VMEM_LOAD || k == FP_CL_LDS_DMA) && df.kind && df.kind[i] == FP_ADDR_SHARED) {
                out->shared_load_bytes_traced += b;
                out->shared_load_rows++;
            }
            if (k == FP_CL_VMEM_STORE)
                out->vmem_store_bytes_traced += b;
            else
                out->vmem_load_bytes_traced += b;
            /* an LDS-DMA load also writes those bytes into LDS */
            if (k == FP_CL_LDS_DMA)
                out->lds_bytes_traced += b;
            break;
        }
        case FP_CL_LDS: out->lds_bytes_traced += fp_sol_lane_bytes(r->isa) * ws * hits; break;
        case FP_CL_MFMA: {
            fp_opcost c = fp_opcost_mfma(r->isa, in->rates, in->simds_per_cu);
            if (c.cycles > 0) {
                out->mfma_cycles_traced += c.cycles * hits;
                out->mfma_flop_traced += c.flop * hits;
                out->mfma_rate_model += c.src == FP_COST_RATE ? r->hit : 0;
            } else {
                out->mfma_unknown += r->hit;
            }
            break;
        }
        case FP_CL_XLANE: /* DPP / permlane run on the VALU; ds_* shuffles do not */
            if (strncmp(r->isa + strspn(r->isa, " \t"), "v_", 2) != 0)
                break;
            /* fall through */
        case FP_CL_VALU: {
            fp_opcost c = fp_opcost_valu(r->isa, in->rates ? in->rates->arch : NULL);
            double cyc = c.cycles > 0 ? c.cycles : FP_VALU_CYCLES;
            out->valu_cycles_traced += cyc * hits;
            out->valu_slow += cyc > FP_VALU_CYCLES ? r->hit : 0;
            break;
        }
        default: break;
        }
    }
    fp_dataflow_free(&df);
    /* HBM from the trace: traced bytes scaled to the whole grid, over the kernel time */
    if (in->traced_waves > 0 && in->grid_waves > 0) {
        double bytes = out->vmem_bytes_traced * in->grid_waves / in->traced_waves;
        out->trace_bytes = num(round(bytes));
        if (in->time_ns > 0) {
            double gbs = bytes / in->time_ns;
            out->trace_gbs = num(fp_round(gbs, 1));
            if (in->peak_hbm_gbs > 0)
                out->trace_pct = num(fp_round(100.0 * gbs / in->peak_hbm_gbs, 2));
        }
    }
    if (in->have_ctr_gbs)
        out->ctr_gbs = num(in->ctr_gbs);
    if (in->have_ctr_hbm_pct)
        out->ctr_pct = num(in->ctr_hbm_pct);
    else if (in->have_ctr_gbs && in->peak_hbm_gbs > 0)
        out->ctr_pct = num(fp_round(100.0 * in->ctr_gbs / in->peak_hbm_gbs, 2));
    if (out->ctr_pct.have || out->ctr_gbs.have) {
        out->hbm_source = "counters";
        out->hbm_gbs = out->ctr_gbs;
        out->hbm_pct = out->ctr_pct;
        if (out->ctr_gbs.have && in->time_ns > 0)
            out->hbm_bytes = num(round(out->ctr_gbs.v * in->time_ns));
    } else if (out->trace_bytes.have) {
        /* the fact is the unique bytes; the requested bytes stay as the upper bound */
        unique_hbm(in, out);
        out->hbm_source = "trace";
        out->hbm_bytes = out->unique_bytes.have ? out->unique_bytes : out->trace_bytes;
        out->hbm_gbs = out->unique_bytes.have ? out->unique_gbs : out->trace_gbs;
        out->hbm_pct = out->unique_bytes.have ? out->unique_pct : out->trace_pct;
        if (out->hbm_pct.have && out->hbm_pct.v > 100.0) {
            out->hbm_clamped = true;
            out->hbm_pct.v = 100.0;
        }
    }
    /* pipes: busy cycles over the traced SIMD cycles */
    if (in->span_total > 0) {
        if (in->rates)
            out->trace_mfma_busy = num(fp_round(100.0 * out->mfma_cycles_traced / in->span_total, 2));
        out->trace_valu_busy = num(fp_round(100.0 * out->valu_cycles_traced / in->span_total, 2));
    }
    if (in->have_ctr_mfma)
        out->ctr_mfma = num(in->ctr_mfma_pct);
    if (in->have_ctr_valu)
        out->ctr_valu = num(in->ctr_valu_pct);
    out->mfma_busy = out->ctr_mfma.have ? out->ctr_mfma : out->trace_mfma_busy;
    out->mfma_source = out->ctr_mfma.have ? "counters" : out->trace_mfma_busy.have ? "trace" : NULL;
    out->valu_busy = out->ctr_valu.have ? out->ctr_valu : out->trace_valu_busy;
    out->valu_source = out->ctr_valu.have ? "counters" : out->trace_valu_busy.have ? "trace" : NULL;
    if (in->cu_cycles > 0 && in->lds_bytes_clk_cu > 0)
        out->lds_pct = num(fp_round(100.0 * out->lds_bytes_traced / (in->cu_cycles * in->lds_bytes_clk_cu), 2));
}

static fp_optd put(fp_sol_num n) { return n.have ? fp_optd_of(n.v) : fp_optd_none(); }

void fp_sol_to_doc(const fp_sol *s, const fp_sol_in *in, fp_report_sol *o)
{
    memset(o, 0, sizeof *o);
    fp_report_sol_hbm *h = &o->hbm;
    h->bytes_per_dispatch = put(s->hbm_bytes);
    h->gbs = put(s->hbm_gbs);
    h->pct_of_peak = put(s->hbm_pct);
    h->source = fp_model_strdup(s->hbm_source);
    h->peak_gbs = in->peak_hbm_gbs > 0 ? fp_optd_of(in->peak_hbm_gbs) : fp_optd_none();
    h->peak_source = fp_model_strdup(in->peak_source); /* omitted when the SoC's own figure is used */
    h->trace.bytes_per_dispatch = put(s->trace_bytes);
    h->trace.gbs = put(s->trace_gbs);
    h->trace.pct_of_peak = put(s->trace_pct);
    h->trace.load_bytes_traced = s->vmem_load_bytes_traced;
    h->trace.store_bytes_traced = s->vmem_store_bytes_traced;
    h->counters.gbs = put(s->ctr_gbs);
    h->counters.pct_of_peak = put(s->ctr_pct);
    h->trace.unique_bytes_per_dispatch = put(s->unique_bytes);
    h->trace.unique_gbs = put(s->unique_gbs);
    h->trace.unique_pct_of_peak = put(s->unique_pct);
    h->trace.shared_load_bytes_traced = s->shared_load_bytes_traced;
    h->trace.shared_load_instructions = (double)s->shared_load_rows;
    h->clamped = s->hbm_clamped;
    h->caveat = fp_model_strdup("trace: the figure is the unique bytes (a load whose address does not depend on the "
                                "workgroup id counted once); trace.bytes_per_dispatch are the bytes the vector-memory "
                                "instructions request (every lane and re-read counted, L2/MALL hits included): the "
                                "upper bound; above 100% of peak they are cache traffic and the figure is clamped");
    o->mfma.busy_pct = put(s->mfma_busy);
    o->mfma.source = fp_model_strdup(s->mfma_source);
    o->mfma.trace_busy_pct = put(s->trace_mfma_busy);
    o->mfma.counters_util_pct = put(s->ctr_mfma);
    o->mfma.flop_traced = s->mfma_flop_traced;
    o->mfma.unknown_opcode_executions = (double)s->mfma_unknown;
    o->mfma.cycles_traced = s->mfma_cycles_traced;
    o->mfma.rate_model_executions = (double)s->mfma_rate_model;
    o->valu.cycles_traced = s->valu_cycles_traced;
    o->valu.slow_executions = (double)s->valu_slow;
    o->valu.busy_pct = put(s->valu_busy);
    o->valu.source = fp_model_strdup(s->valu_source);
    o->valu.trace_busy_pct = put(s->trace_valu_busy);
    o->valu.counters_util_pct = put(s->ctr_valu);
    o->lds.bytes = s->lds_bytes_traced;
    o->lds.pct_of_peak = put(s->lds_pct);
}
