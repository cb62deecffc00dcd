/*
 * isa_facts.c - the verdicts' facts that only the instruction listing shows
 * (issue 17): where the kernel-argument prologue ends, narrow (1/2-byte) global
 * accesses, VALU-hazard s_nop (not between MFMAs), cross-lane shuffles, and the
 * debug-info quality gate (seed pattern 5). See signals.h.
 *
 * Each fact is read from code.json's rows (opcode text, source, hit, stall) and
 * nothing else, so the rules that use them need no counters.
 */
#include "flyprof/signals.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/round.h"
#include "flyprof/satmath.h"
#include "flyprof/taxonomy.h"

static bool real_row(const fp_inst *r) { return r->index_ok && r->index > 0; }

const char *fp_signals_short_source(const char *source)
{
    if (!source)
        return "";
    const char *slash = strrchr(source, '/');
    return slash ? slash + 1 : source;
}

/* ---- kernel-argument prologue ---- */

void fp_signals_set_listing(fp_signals *s, const fp_code *code)
{
    s->smem_entry_end = 0;
    if (!code)
        return;
    /* The kernel-argument loads a kernel must wait for before anything else are
     * the scalar loads issued before its first s_waitcnt: that first wait cannot
     * move (nothing can run before the arguments arrive). A scalar load issued
     * after it is mid-kernel and can be hoisted into the prologue. */
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (real_row(r) && !strncmp(r->isa, "s_waitcnt", 9)) {
            s->smem_entry_end = r->index;
            return;
        }
    }
}

bool fp_signals_is_entry_smem(const fp_signals *s, int64_t code_line)
{
    return s->smem_entry_end > 0 && code_line > 0 && code_line < s->smem_entry_end;
}

/* ---- cross-lane shuffles ---- */

/* ds_bpermute / ds_permute / ds_swizzle move data between lanes through the LDS
 * crossbar: lgkmcnt counts them, but no LDS store is waited for. */
static const char *const crosslane_prefixes[] = {"ds_bpermute", "ds_permute", "ds_swizzle", NULL};

bool fp_signals_is_crosslane(const char *isa)
{
    for (size_t i = 0; isa && crosslane_prefixes[i]; i++)
        if (!strncmp(isa, crosslane_prefixes[i], strlen(crosslane_prefixes[i])))
            return true;
    return false;
}

/* ---- narrow global accesses ---- */

/* 1- and 2-byte global accesses: one element per lane per instruction, where a
 * dwordx2/x4 access moves 4-16 elements. */
static const char *const narrow_ops[] = {
    "buffer_load_ubyte", "buffer_load_sbyte", "buffer_load_ushort", "buffer_load_sshort", "buffer_load_short_d16",
    "buffer_load_ubyte_d16", "buffer_load_sbyte_d16", "buffer_store_byte", "buffer_store_short",
    "global_load_ubyte", "global_load_sbyte", "global_load_ushort", "global_load_sshort", "global_load_short_d16",
    "global_load_ubyte_d16", "global_load_sbyte_d16", "global_store_byte", "global_store_short", NULL,
};

bool fp_signals_is_narrow_global(const char *isa)
{
    for (size_t i = 0; isa && narrow_ops[i]; i++) {
        size_t n = strlen(narrow_ops[i]);
        /* the opcode, or the opcode followed by a suffix (_d16_hi) or operands */
        if (!strncmp(isa, narrow_ops[i], n) && (isa[n] == 0 || isa[n] == ' ' || isa[n] == '_'))
            return true;
    }
    return false;
}

static bool is_vmem_access(const char *isa)
{
    return !strncmp(isa, "buffer_load", 11) || !strncmp(isa, "buffer_store", 12) || !strncmp(isa, "global_load", 11) ||
           !strncmp(isa, "global_store", 12) || !strncmp(isa, "flat_load", 9) || !strncmp(isa, "flat_store", 10);
}

static char *xdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

static void narrow_facts(fp_signals *s, const fp_code *code)
{
    int64_t narrow = 0, vmem = 0, nstatic = 0;
    bool ovf = false; /* saturated sums of a hostile listing stay ordered, never wrap */
    const fp_inst *hot = NULL;
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!real_row(r) || !is_vmem_access(r->isa))
            continue;
        vmem = fp_sat_add(vmem, r->hit, &ovf);
        if (!fp_signals_is_narrow_global(r->isa))
            continue;
        nstatic++;
        narrow = fp_sat_add(narrow, r->hit, &ovf);
        /* the evidence: the most executed narrow access (ties: the most stalled) */
        if (!hot || r->hit > hot->hit || (r->hit == hot->hit && r->stall > hot->stall))
            hot = r;
    }
    s->narrow_static = nstatic;
    if (!s->waves.known || s->waves.v <= 0)
        return;
    s->narrow_per_wave = (fp_optd){true, fp_round((double)narrow / s->waves.v, 2)};
    s->narrow_frac = (fp_optd){true, vmem > 0 ? fp_round((double)narrow / (double)vmem, 4) : 0.0};
    if (!hot || hot->hit <= 0)
        return;
    fp_sig_hot *h = &s->narrow_hot;
    h->present = true;
    h->code_line = hot->index;
    h->isa = xdup(hot->isa);
    h->source = xdup(hot->source);
    h->hit = hot->hit;
    h->stall = hot->stall;
    h->entry_line = fp_signals_is_entry_line(s->snaps, hot->source);
    /* the acceptance test counts the narrow accesses, so the line figure is the count */
    h->line_class_stall = hot->stall;
}

/* ---- VALU-hazard s_nop ---- */

static bool is_nop(const fp_inst *r) { return fp_classify(r->isa) == FP_CL_NOP; }

/* s_nop stall outside MFMA->MFMA padding: the compiler filling VALU hazard
 * windows (v_cmp -> v_cndmask, readfirstlane, permlane), % of total stall. */
static void valu_nop_facts(fp_signals *s, const fp_code *code)
{
    /* sums in double: a hostile code.json's cycles may add up past int64 */
    double stall = 0, total = 0;
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!real_row(r))
            continue;
        total += (double)r->stall;
        if (!is_nop(r))
            continue;
        size_t a = i, z = i;
        while (a > 0 && is_nop(&code->rows[a - 1]))
            a--;
        while (z + 1 < code->n && is_nop(&code->rows[z + 1]))
            z++;
        bool between_mfma = a > 0 && z + 1 < code->n && fp_classify(code->rows[a - 1].isa) == FP_CL_MFMA &&
                            fp_classify(code->rows[z + 1].isa) == FP_CL_MFMA;
        if (!between_mfma)
            stall += (double)r->stall + (r->latency > r->stall ? (double)r->latency - (double)r->stall : 0.0);
    }
    /* a s_nop's cycles are its padding: stall and issue alike, over the total stall */
    s->valu_nop_pct = (fp_optd){true, total > 0 ? fp_round(100.0 * stall / total, 2) : 0.0};
}

/* ---- debug-info quality gate ---- */

/* Above this share of the listing's instructions on ONE kernel entry/decorator
 * line the line table is degenerate: most ops carry the kernel's own location
 * (the compiler's catch-all scope, seed pattern 5), so line-level evidence is
 * not a measurement. The instructions decide, not the stall: a hot wait filed
 * on the decorator line of an otherwise located 22-instruction kernel
 * (vec_add-big: 32 % of the instructions, 84 % of the stall) is one unlocated
 * op, not a broken table (its rule's confidence drops per evidence, rules.c).
 * In the corpus the decorator line holds 23-46 % of the instructions of the
 * located kernels and 65-97 % of the broken ones (docs/rules.md). */
#define FP_DEBUG_GATE_PCT 60.0

/* Entry lines tracked per listing: a kernel has one decorator (and its def line). */
#define FP_DEBUG_MAX_LINES 8

static void debug_gate(fp_signals *s, const fp_code *code)
{
    const char *line[FP_DEBUG_MAX_LINES];
    int64_t li[FP_DEBUG_MAX_LINES] = {0}, ls[FP_DEBUG_MAX_LINES] = {0}, insts = 0, stall = 0;
    bool ovf = false; /* saturated sums of a hostile listing stay ordered, never wrap */
    size_t nl = 0;
    for (size_t i = 0; i < code->n; i++) {
        const fp_inst *r = &code->rows[i];
        if (!real_row(r))
            continue;
        insts++;
        stall = fp_sat_add(stall, r->stall, &ovf);
        if (!r->source[0])
            continue;
        size_t k = 0;
        while (k < nl && strcmp(line[k], r->source))
            k++;
        if (k == nl) {
            /* a new line: kept only when it is an entry line (one snapshot lookup per line) */
            if (nl == FP_DEBUG_MAX_LINES || !fp_signals_is_entry_line(s->snaps, r->source))
                continue;
            line[nl++] = r->source;
        }
        li[k]++;
        ls[k] = fp_sat_add(ls[k], r->stall, &ovf);
    }
    /* the line with the largest share of instructions + share of stall */
    size_t best = SIZE_MAX;
    double best_score = -1;
    for (size_t k = 0; k < nl && insts > 0; k++) {
        double score = (double)li[k] / (double)insts + (stall > 0 ? (double)ls[k] / (double)stall : 0.0);
        if (score > best_score) {
            best = k;
            best_score = score;
        }
    }
    if (best == SIZE_MAX)
        return;
    double ipct = 100.0 * (double)li[best] / (double)insts;
    double spct = stall > 0 ? 100.0 * (double)ls[best] / (double)stall : 0.0;
    s->dbg.line = xdup(line[best]);
    s->dbg.insts_pct = fp_round(ipct, 1);
    s->dbg.stall_pct = fp_round(spct, 1);
    s->dbg.fired = ipct > FP_DEBUG_GATE_PCT;
    s->dbg.threshold_pct = FP_DEBUG_GATE_PCT;
}

void fp_signals_isa_facts(fp_signals *s, const fp_code *code)
{
    if (!code || code->n == 0)
        return;
    narrow_facts(s, code);
    valu_nop_facts(s, code);
    debug_gate(s, code);
}

/* ---- the span ratio ---- */

void fp_signals_verdict_derive(fp_signals *s)
{
    /* The exposed-stall gains are shares of the traced waves' time; the kernel's
     * duration also holds the launch ramp and the end-of-kernel writeback outside
     * the waves (0.44-0.70 of it for short corpus kernels). When the duration IS the
     * trace span there is nothing to scale. */
    s->span_ratio = fp_optd_none();
    if (!s->time_ns.known || s->time_ns.v <= 0 || !s->time_trace_ns.known || s->time_trace_ns.v <= 0 ||
        (s->time_source && !strcmp(s->time_source, "trace")))
        return;
    double r = s->time_trace_ns.v / s->time_ns.v;
    s->span_ratio = (fp_optd){true, fp_round(r > 1.0 ? 1.0 : r, 3)};
}
