/*
 * codeobj.h - the AMDGPU code object rocprofv3 writes next to the ATT output
 * (`<d>/<o>_<gfx>_code_object_id_<n>.out`, rocprof-formats.md §1.7): the
 * authoritative register, LDS and scratch counts of each kernel (issue 18,
 * item 4). Layer: rocprof (src/rocprof/codeobj.c).
 *
 * Why not the CSV / rocpd columns: rocprofiler-sdk computes VGPR_Count and
 * Accum_VGPR_Count from the kernel descriptor with a per-arch branch that in
 * ROCm 7.0-7.2 lacks gfx950 (VGPR_Count = half the real allocation, accum 0),
 * and the fix (rocm-systems PR #5862, May 2026) has no known first release;
 * ROCm 7.2.4 also reports SDK 1.3.0, so an "SDK >= 1.3.0" switch cannot tell.
 * The code object itself says what the compiler allocated.
 *
 * Two sources inside the ELF (an ET_DYN AMDGPU object, EM_AMDGPU = 224):
 *  - the NT_AMDGPU_METADATA note (type 32, owner "AMDGPU"): a msgpack map whose
 *    `amdhsa.kernels` lists, per kernel, `.name`, `.symbol`, `.vgpr_count`,
 *    `.agpr_count`, `.sgpr_count`, `.group_segment_fixed_size`,
 *    `.private_segment_fixed_size`, `.wavefront_size`, `.max_flat_workgroup_size`;
 *    `amdhsa.target` is "amdgcn-amd-amdhsa--gfx942[:…]". On gfx90a/gfx94x/gfx95x
 *    LLVM writes `.vgpr_count` as the unified total (arch VGPRs rounded to 4, plus
 *    AGPRs: 41 arch + 8 AGPR -> 52, checked with LLVM 19).
 *  - the 64-byte kernel descriptor at symbol `<name>.kd`: group/private segment
 *    sizes (bytes 0, 4), COMPUTE_PGM_RSRC3 (44; ACCUM_OFFSET bits 5:0, the arch
 *    VGPRs = (v+1)*4 on gfx90a+) and RSRC1 (48; GRANULATED_WORKITEM_VGPR_COUNT
 *    bits 5:0, the allocation = (v+1)*granule, granule 8 on gfx90a/94x/95x).
 *
 * The reader is for hostile input: libelf parses the ELF (elf_memory, every
 * section and note bounds-checked), the note's msgpack is first walked by a
 * bounded validator (every container's declared size must fit the remaining
 * bytes, nesting <= 32) and only then unpacked with msgpack-c.
 */
#ifndef FLYPROF_CODEOBJ_H
#define FLYPROF_CODEOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"

/* Largest code object read (the biggest FlyDSL/CK objects are a few MiB). */
#define FP_CODEOBJ_MAX_BYTES (256u << 20)

typedef struct fp_co_kernel {
    char *name;     /* `.name` ("fake_kernel_0"), owned */
    char *symbol;   /* `.symbol` ("fake_kernel_0.kd"), owned, may be NULL */
    /* from the metadata note; -1 when the key is absent */
    int vgpr_count, agpr_count, sgpr_count;
    long long group_segment_fixed_size, private_segment_fixed_size;
    int wavefront_size, max_flat_workgroup_size;
    /* from the kernel descriptor (has_kd) */
    bool has_kd;
    uint32_t kd_group_segment, kd_private_segment, rsrc1, rsrc2, rsrc3;
    int kd_vgpr_alloc;   /* (GRANULATED_WORKITEM_VGPR_COUNT + 1) * granule */
    int kd_accum_offset; /* (ACCUM_OFFSET + 1) * 4 on gfx90a/94x/95x, else -1 */
} fp_co_kernel;

typedef struct fp_codeobj {
    char arch[16];  /* from e_flags' EF_AMDGPU_MACH ("gfx942"); "" when unknown */
    unsigned mach;  /* the raw EF_AMDGPU_MACH value */
    char *target;   /* `amdhsa.target`, owned, may be NULL */
    fp_co_kernel *k;
    size_t n;
} fp_codeobj;

/* Read a code object from memory / a file. Not an AMDGPU ELF, no metadata
 * note, or malformed anywhere -> BAD_INPUT naming the problem (the file's
 * path in the message for fp_codeobj_read); a file that cannot be read ->
 * IO_ERROR. On error *co is empty. */
int fp_codeobj_read_mem(const void *buf, size_t len, fp_codeobj *co, fp_err *err);
int fp_codeobj_read(const char *path, fp_codeobj *co, fp_err *err);
void fp_codeobj_free(fp_codeobj *co);

/* The kernel a trace names: `.name` equal to name, or `.symbol` equal to name
 * or to name + ".kd". NULL when none matches (demangled C++ names do not match
 * their mangled `.name`: say so rather than guess). */
const fp_co_kernel *fp_codeobj_find(const fp_codeobj *co, const char *name);

/* The code objects rocprofv3 wrote into dir (`*_code_object_id_<n>.out`, in
 * ascending n): the first that holds `kernel` (fp_codeobj_find). Returns 1 and
 * fills *co (owned), *k (into *co) and *path (malloc'd); 0 when none does.
 * Only ELF files whose bytes contain the kernel name are parsed (rocprofv3 writes
 * every loaded code object, libraries included); those that are not valid code
 * objects are skipped and counted in *nbad; non-ELF files are skipped silently. */
int fp_codeobj_find_in_dir(const char *dir, const char *kernel, fp_codeobj *co, const fp_co_kernel **k,
                           char **path, size_t *nbad);

/* The arch name of an EF_AMDGPU_MACH value, NULL when not in the table. */
const char *fp_codeobj_mach_name(unsigned mach);

#endif
