/*
 * test_codeobj.c - the AMDGPU code object reader (codeobj.h) on real code
 * objects the build compiles from tests/data/codeobj/regs.cl with clang-19 +
 * ld.lld-19 (gfx942, gfx90a) and a gfx942 object retargeted to gfx950
 * (tests/tools/co_retarget.py). The expected counts are pinned by the
 * kernels' register clobbers (v87 + a7 -> 88 arch + 8 AGPR = 96; v40 -> 41)
 * and __local array (1 KiB); the SGPR counts are LLVM 19's for each target
 * (tests/cli/capture_codeobj.sh checks every field against llvm-readelf-19
 * independently). Skipped when the build had no clang-19.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/codeobj.h"
#include "flyprof/fs.h"

static char *co_path(const char *arch)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/regs_%s.co", FP_CODEOBJ_DIR, arch);
    return p;
}

static void read_or_skip(const char *arch, fp_codeobj *co)
{
    if (!fp_is_file(co_path(arch)))
        skip();
    fp_err err = {0};
    int rc = fp_codeobj_read(co_path(arch), co, &err);
    if (rc != 0)
        fail_msg("%s: %s", co_path(arch), err.message);
}

static void check_kernels(const fp_codeobj *co, int sgpr_softmax)
{
    assert_int_equal(co->n, 2);
    const fp_co_kernel *s = fp_codeobj_find(co, "softmax_kernel_0");
    assert_non_null(s);
    assert_ptr_equal(fp_codeobj_find(co, "softmax_kernel_0.kd"), s);
    assert_null(fp_codeobj_find(co, "softmax")); /* no substring guessing */
    assert_string_equal(s->symbol, "softmax_kernel_0.kd");
    assert_int_equal(s->vgpr_count, 96); /* unified: 88 arch + 8 AGPR */
    assert_int_equal(s->agpr_count, 8);
    assert_int_equal(s->sgpr_count, sgpr_softmax);
    assert_int_equal(s->group_segment_fixed_size, 1024);
    assert_int_equal(s->private_segment_fixed_size, 0);
    assert_int_equal(s->wavefront_size, 64);
    assert_true(s->has_kd);
    assert_int_equal(s->kd_group_segment, 1024);
    assert_int_equal(s->kd_private_segment, 0);
    assert_int_equal(s->kd_accum_offset, 88); /* ACCUM_OFFSET: where the AGPRs start */
    assert_int_equal(s->kd_vgpr_alloc, 96);   /* granule 8 on gfx90a+ */
    const fp_co_kernel *f = fp_codeobj_find(co, "fake_kernel_0");
    assert_non_null(f);
    assert_int_equal(f->vgpr_count, 41);
    assert_int_equal(f->agpr_count, 0);
    assert_int_equal(f->group_segment_fixed_size, 0);
    assert_int_equal(f->kd_accum_offset, 44); /* 41 rounded up to 4 */
    assert_int_equal(f->kd_vgpr_alloc, 48);   /* 41 rounded up to 8 */
}

static void test_gfx942(void **state)
{
    (void)state;
    fp_codeobj co;
    read_or_skip("gfx942", &co);
    assert_string_equal(co.arch, "gfx942");
    assert_int_equal(co.mach, 0x4c);
    assert_non_null(co.target);
    assert_int_equal(strncmp(co.target, "amdgcn-amd-amdhsa--gfx942", 25), 0);
    check_kernels(&co, 47);
    fp_codeobj_free(&co);
}

static void test_gfx90a(void **state)
{
    (void)state;
    fp_codeobj co;
    read_or_skip("gfx90a", &co);
    assert_string_equal(co.arch, "gfx90a");
    assert_int_equal(strncmp(co.target, "amdgcn-amd-amdhsa--gfx90a", 25), 0);
    check_kernels(&co, 45);
    fp_codeobj_free(&co);
}

/* gfx950: LLVM 19 cannot build it; the retargeted gfx942 object must read as gfx950 */
static void test_gfx950_retargeted(void **state)
{
    (void)state;
    fp_codeobj co;
    read_or_skip("gfx950", &co);
    assert_string_equal(co.arch, "gfx950");
    assert_int_equal(co.mach, 0x4f);
    assert_int_equal(strncmp(co.target, "amdgcn-amd-amdhsa--gfx950", 25), 0);
    check_kernels(&co, 47);
    fp_codeobj_free(&co);
}

/* Hostile bytes: every prefix (a step of 61 bytes) and single-byte corruptions
 * of a real object either read or fail with BAD_INPUT, never crash (ASan/UBSan
 * builds make that strict); wrong machine and plain text are named. */
static void test_hostile(void **state)
{
    (void)state;
    if (!fp_is_file(co_path("gfx942")))
        skip();
    fp_sb b;
    fp_sb_init(&b);
    fp_err err = {0};
    assert_int_equal(fp_read_file(co_path("gfx942"), &b, &err), 0);
    fp_codeobj co;
    for (size_t n = 0; n < b.len; n += 61) {
        fp_err e = {0};
        if (fp_codeobj_read_mem(b.buf, n, &co, &e) == 0)
            fp_codeobj_free(&co);
        else
            assert_int_equal(e.code, FP_BAD_INPUT);
    }
    char *m = malloc(b.len);
    for (size_t i = 0; i < b.len; i += 7) {
        memcpy(m, b.buf, b.len);
        m[i] = (char)(m[i] ^ 0xa5);
        fp_err e = {0};
        if (fp_codeobj_read_mem(m, b.len, &co, &e) == 0)
            fp_codeobj_free(&co);
        else
            assert_int_equal(e.code, FP_BAD_INPUT);
    }
    memcpy(m, b.buf, b.len);
    m[18] = 62; /* e_machine = EM_X86_64 */
    assert_int_equal(fp_codeobj_read_mem(m, b.len, &co, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_non_null(strstr(err.message, "EM_AMDGPU"));
    assert_int_equal(fp_codeobj_read_mem("not an elf", 10, &co, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_int_equal(co.n, 0);
    free(m);
    fp_sb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gfx942),
        cmocka_unit_test(test_gfx90a),
        cmocka_unit_test(test_gfx950_retargeted),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
