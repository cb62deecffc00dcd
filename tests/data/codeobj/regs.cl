/* Kernels with register counts known by construction, compiled by the test
 * suite into real AMDGPU code objects (clang-19 -x cl -target amdgcn-amd-amdhsa
 * -mcpu=gfx942|gfx90a -nogpulib, linked by ld.lld-19 -shared): the clobbers pin
 * the highest VGPR / AGPR / SGPR each kernel touches, the __local array its LDS.
 * tests/unit/test_codeobj.c and tests/cli/capture_codeobj.sh read them. */

/* v0..v87 (88 arch VGPRs), a0..a7 (8 AGPRs): unified total 96 on gfx90a+; 1 KiB LDS */
__kernel void softmax_kernel_0(__global float *out, __global const float *in)
{
    __local float tile[256];
    unsigned l = __builtin_amdgcn_workitem_id_x();
    unsigned i = __builtin_amdgcn_workgroup_id_x() * 256 + l;
    tile[l] = in[i];
    __builtin_amdgcn_s_barrier();
    __asm__ volatile("; pin v87 a7 s40" ::: "v87", "a7", "s40");
    out[i] = tile[255 - l] * 2.0f;
}

/* v0..v40 (41 arch VGPRs), no AGPR, no LDS */
__kernel void fake_kernel_0(__global float *out)
{
    unsigned i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
    __asm__ volatile("; pin v40" ::: "v40");
    out[i] = 1.0f;
}
