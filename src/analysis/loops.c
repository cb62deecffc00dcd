/*
 * loops.c - back-edges of the listing and their kind (loops.h).
 */
#include "flyprof/loops.h"

#include <stdlib.h>
#include <string.h>

#include "flyprof/mem.h"
#include "flyprof/taxonomy.h"

static const char *const kind_names[FP_LOOP_KINDS] = {"loop", "loop_not_run", "spin_wait", "early_exit"};

const char *fp_loop_kind_name(fp_loop_kind k) { return k < FP_LOOP_KINDS ? kind_names[k] : "?"; }

/* A row's branch target (fp_branch_target), for listing rows only: the kernel
 * header rows (index 0) and rows without a LineNumber are no branches here.
 * c: the row's class (fp_classify, computed once per row by fp_loops_find: only a
 * branch has a target, so the others skip fp_branch_target's own classification). */
static bool branch_target(const fp_inst *r, fp_class c, int64_t *target)
{
    return c == FP_CL_BRANCH && r->index_ok && r->index != 0 && fp_branch_target(r, target);
}

static size_t row_at(const fp_code *code, int64_t vaddr)
{
    for (size_t j = 1; j < code->n; j++)
        if (code->rows[j].index_ok && code->rows[j].index > 0 && code->rows[j].vaddr == vaddr)
            return j;
    return SIZE_MAX;
}

static bool is_uncond(const char *isa) { return !strncmp(isa, "s_branch", 8); }

/* Times a backward branch at row i (target row j) was taken. An unconditional
 * s_branch is taken every time it runs; a conditional one ran more often than
 * its fall-through row, or its target ran more often than the row above it plus
 * the unconditional jumps into it (the listing's own encodings can misplace a
 * vaddr: either witness counts). */
/* The class of row k: cls[k], or (FP_CL_COUNT: not computed) classified now. */
static fp_class class_of(fp_class *cls, const fp_code *code, size_t k)
{
    if (cls[k] == FP_CL_COUNT)
        cls[k] = fp_classify(code->rows[k].isa);
    return cls[k];
}

static int64_t taken_count(const fp_code *code, const fp_class *cls, size_t i, size_t j, int64_t target)
{
    const fp_inst *r = &code->rows[i];
    if (is_uncond(r->isa))
        return r->hit;
    int64_t t = 0;
    if (i + 1 < code->n && code->rows[i + 1].index_ok && r->hit > code->rows[i + 1].hit)
        t = r->hit - code->rows[i + 1].hit;
    int64_t in = 0;
    const fp_inst *prev = j > 0 ? &code->rows[j - 1] : NULL;
    if (prev && prev->index_ok && prev->index > 0 && !is_uncond(prev->isa) && strncmp(prev->isa, "s_endpgm", 8) &&
        strncmp(prev->isa, "s_setpc", 7))
        in += prev->hit;
    for (size_t k = 0; k < code->n; k++) {
        int64_t t2;
        if (cls[k] == FP_CL_BRANCH && is_uncond(code->rows[k].isa) && branch_target(&code->rows[k], cls[k], &t2) &&
            t2 == target)
            in += code->rows[k].hit;
    }
    if (code->rows[j].hit - in > t)
        t = code->rows[j].hit - in;
    return t;
}

/* What a poll loop may hold besides its load/atomic: waits, the compare, mask and
 * move glue, sleeps. Arithmetic, stores, LDS or MFMA make it a loop doing work
 * (a streaming loop also has a load and a compare: on its trip counter). */
static const char *const spin_glue[] = {"v_cmp",  "s_cmp",   "s_bitcmp", "s_and_", "s_or_",  "s_xor_", "s_andn2",
                                        "s_orn2", "s_mov_",  "s_sleep",  "v_readfirstlane", "v_cndmask"};

static bool spin_part(const char *isa, fp_class c, bool *mem, bool *cmp)
{
    if (c == FP_CL_VMEM_LOAD || c == FP_CL_ATOMIC || c == FP_CL_SMEM) {
        *mem = true;
        return true;
    }
    if (c == FP_CL_BRANCH || c == FP_CL_NOP || c == FP_CL_VMCNT || c == FP_CL_LGKMCNT || c == FP_CL_WAITCNT)
        return true;
    for (size_t g = 0; g < sizeof spin_glue / sizeof *spin_glue; g++)
        if (!strncmp(isa, spin_glue[g], strlen(spin_glue[g]))) {
            *cmp |= g < 3;
            return true;
        }
    return false;
}

/* What the body head..branch is: an exit when it reaches s_endpgm, a spin-wait
 * when it is short and only polls memory (a load or atomic, a compare, glue). */
static fp_loop_kind body_kind(const fp_code *code, fp_class *cls, size_t j, size_t i, int64_t taken)
{
    bool mem = false, cmp = false, poll = i - j + 1 <= FP_LOOP_SPIN_MAX;
    for (size_t k = j; k <= i; k++) {
        const char *isa = code->rows[k].isa;
        if (cls[k] == FP_CL_COUNT && !poll)
            continue; /* not an s_ opcode, so no s_endpgm: its class matters only to a poll loop */
        fp_class c = class_of(cls, code, k);
        if (c == FP_CL_DRAIN)
            return FP_LOOP_EXIT;
        poll = poll && spin_part(isa, c, &mem, &cmp);
    }
    if (poll && mem && cmp)
        return FP_LOOP_SPIN_WAIT;
    return taken > 0 ? FP_LOOP_ITERATED : FP_LOOP_NOT_RUN;
}

/* The main loop: an iterated loop before one that never ran, then the most
 * instructions repeated (taken x body: an inner loop that carries the work beats
 * the outer loop around it, a short reduction loop does not), then the most
 * executed instructions in the body. */
static bool better_main(const fp_loop *l, const fp_loop *m)
{
    if (l->kind != FP_LOOP_ITERATED && l->kind != FP_LOOP_NOT_RUN)
        return false;
    if (!m)
        return true;
    bool li = l->kind == FP_LOOP_ITERATED, mi = m->kind == FP_LOOP_ITERATED;
    if (li != mi)
        return li;
    double lr = (double)l->taken * (double)l->body, mr = (double)m->taken * (double)m->body;
    if (lr != mr)
        return lr > mr;
    return l->dyn_insts > m->dyn_insts;
}

void fp_loops_find(const fp_code *code, fp_loops *out)
{
    memset(out, 0, sizeof *out);
    out->main = -1;
    size_t cap = 0;
    if (!code || !code->n)
        return;
    fp_class *cls = malloc(code->n * sizeof *cls);
    if (!cls)
        abort();
    /* a branch or s_endpgm has an s_ opcode (fp_isa_is_scalar): the other rows are
     * classified only if a short loop body needs them (FP_CL_COUNT: not yet) */
    for (size_t i = 0; i < code->n; i++)
        cls[i] = fp_isa_is_scalar(code->rows[i].isa) ? fp_classify(code->rows[i].isa) : FP_CL_COUNT;
    for (size_t i = 0; i < code->n; i++) {
        int64_t target;
        const fp_inst *r = &code->rows[i];
        if (!branch_target(r, cls[i], &target) || target >= r->vaddr)
            continue;
        size_t j = row_at(code, target);
        if (j == SIZE_MAX || j > i)
            continue;
        FP_GROW(out->v, out->n, cap);
        fp_loop *L = &out->v[out->n++];
        memset(L, 0, sizeof *L);
        L->branch_row = i;
        L->head_row = j;
        L->branch_line = r->index;
        L->head_line = code->rows[j].index;
        L->body = (int64_t)(i - j + 1);
        for (size_t k = j; k <= i; k++)
            L->dyn_insts += code->rows[k].hit;
        L->taken = taken_count(code, cls, i, j, target);
        L->kind = body_kind(code, cls, j, i, L->taken);
        out->counts[L->kind]++;
        if (better_main(L, out->main < 0 ? NULL : &out->v[out->main]))
            out->main = (long)(out->n - 1);
    }
    free(cls);
}

void fp_loops_free(fp_loops *l)
{
    if (!l)
        return;
    free(l->v);
    memset(l, 0, sizeof *l);
}
