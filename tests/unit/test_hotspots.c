/*
 * test_hotspots.c - the seed analyzer's computation and text on synthetic
 * code.json fixtures: every classification branch (EXP-wait, bare waitcnt,
 * s_waitcnt_vscnt ... that the corpus lacks), ties in every ranking, zero
 * latency rows, empty sources, CRLF snippets, hostile snapshot leaves, a
 * 0-cycle kernel and huge numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flyprof/att.h"
#include <cjson/cJSON.h>

#include "flyprof/hotspots.h"
#include "flyprof/occupancy.h"

/* ---- fixture helpers ---- */

typedef struct frow {
    const char *isa;
    int idx; /* LineNumber; -1 writes a non-integer ("x") */
    const char *src;
    long long lat, stall;
} frow;

static char *code_json(const frow *rows, size_t n)
{
    size_t cap = 4096 + n * 512;
    char *b = malloc(cap);
    size_t len = (size_t)snprintf(b, cap, "{\"code\":[[\"; sym_kernel_0\",0,0,\"\",0,0,0,0,0,0]");
    for (size_t i = 0; i < n; i++) {
        char idx[24];
        if (rows[i].idx < 0)
            snprintf(idx, sizeof idx, "\"x\"");
        else
            snprintf(idx, sizeof idx, "%d", rows[i].idx);
        len += (size_t)snprintf(b + len, cap - len, ",[\"%s\",0,%s,\"%s\",1,%zu,1,%lld,%lld,0]",
                                rows[i].isa, idx, rows[i].src, 4096 + i * 8, rows[i].lat,
                                rows[i].stall);
    }
    snprintf(b + len, cap - len, "],\"header\":[]}");
    return b;
}

typedef struct fix {
    fp_code code;
    fp_hotspots hs;
} fix;

static void load(fix *f, const frow *rows, size_t n)
{
    char *j = code_json(rows, n);
    fp_err err = {0};
    assert_int_equal(fp_code_parse(j, strlen(j), "t/code.json", &f->code, &err), 0);
    free(j);
    assert_int_equal(fp_hotspots_compute(&f->code, &f->hs, &err), 0);
}

static void unload(fix *f)
{
    fp_hotspots_free(&f->hs);
    fp_code_free(&f->code);
}

static char *render(const fp_hotspots *hs, const fp_snapshots *snaps, long long topk, bool detail,
                    long long ctx, const char *mode)
{
    fp_hs_regs regs;
    fp_hs_csv_regs none = {0};
    fp_hs_regs_compute(hs, fp_arch_by_name("gfx942"), FP_ARCH_FLAG, "--arch", &none, &regs);
    fp_hs_opts o = {.topk = topk, .show_src = strcmp(mode, "asm") != 0,
                    .show_asm = strcmp(mode, "src") != 0, .detail = detail, .context = ctx,
                    .loading_arg = "some/dir/ui_output_agent_1_dispatch_2"};
    fp_sb sb;
    fp_sb_init(&sb);
    fp_hotspots_render_text(hs, &regs, snaps, &o, &sb);
    return fp_sb_detach(&sb);
}

/* ---- classification (algorithm §4) ---- */

static void test_classify(void **state)
{
    (void)state;
    static const struct {
        const char *isa;
        const char *type;
    } cases[] = {
        {"s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)", "VMEM-wait"},
        {"s_waitcnt lgkmcnt(0)", "LDS/SMEM-wait"},
        {"s_waitcnt expcnt(0)", "EXP-wait"},
        {"s_waitcnt expcnt(1) lgkmcnt(0)", "LDS/SMEM-wait"},
        {"s_waitcnt 0", "waitcnt"},
        {"s_waitcnt", "waitcnt"},
        {"s_waitcnt_vscnt null, 0x0", "waitcnt"},
        {"S_WAITCNT VMCNT(3)", "VMEM-wait"},
        {"s_barrier", "barrier"},
        {"s_wait_idle", "barrier"},
        {"buffer_load_dwordx4 v[0:3], v8, s[4:7], 0 offen", "VMEM-load"},
        {"s_buffer_load_dword s0, s[4:7], 0x0", "VMEM-load"},
        {"buffer_load_dword v1, s[0:3], 0 offen lds", "VMEM-load"},
        {"global_load_dwordx2 v[0:1], v[2:3], off", "VMEM-load"},
        {"flat_load_dword v0, v[0:1]", "VMEM-load"},
        {"buffer_store_dwordx4 v[0:3], v8, s[12:15], 0 offen", "VMEM-store"},
        {"global_store_dword v[0:1], v2, off", "VMEM-store"},
        {"flat_store_dword v[0:1], v2", "other"},
        {"ds_read_b128 v[0:3], v4", "LDS"},
        {"ds_write_b64 v4, v[0:1]", "LDS"},
        {"ds_load_b128 v[0:3], v4", "SMEM"},
        {"ds_store_b64 v4, v[0:1]", "SMEM"},
        {"ds_bpermute_b32 v0, v1, v2", "other"},
        {"s_load_dwordx2 s[4:5], s[0:1], 0x0", "SMEM"},
        {"s_store_dword s0, s[2:3], 0x0", "SMEM"},
        {"v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], a[0:15]", "MFMA/FMA"},
        {"v_fmac_f32_e32 v0, v1, v2", "MFMA/FMA"},
        {"v_fma_f32 v0, v1, v2, v3", "MFMA/FMA"},
        {"v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", "other"},
        {"v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10", "other"},
        {"s_endpgm", "other"},
        {"", "other"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = fp_stall_type_name(fp_stall_classify(cases[i].isa));
        if (strcmp(got, cases[i].type))
            fail_msg("'%s': got %s, want %s", cases[i].isa, got, cases[i].type);
    }
    /* a 1000-char ISA goes through the heap path */
    char big[1001];
    memset(big, 'x', 1000);
    memcpy(big + 900, "s_barrier", 9);
    big[1000] = '\0';
    assert_string_equal(fp_stall_type_name(fp_stall_classify(big)), "barrier");
}

/* ---- aggregation and ties ---- */

static const frow tie_rows[] = {
    /* line A: stall 100 = VMEM-wait 50 + SMEM 50 (type tie -> first seen wins) */
    {"s_waitcnt vmcnt(0)", 1, "/k.py:10", 100, 50},
    {"s_load_dword s0, s[0:1], 0x0", 2, "/k.py:10", 60, 50},
    /* line B: stall 100 too (tie with A: A first) ; a zero-latency, zero-stall row */
    {"s_barrier", 3, "/k.py:20", 200, 100},
    {"v_add_u32 v0, v1, v2", 4, "/k.py:20", 0, 0},
    /* empty source -> <unknown>; stall 0 line */
    {"v_mov_b32 v9, 0", 5, "", 40, 0},
    /* LineNumber not an integer: dropped */
    {"s_waitcnt expcnt(0)", -1, "/k.py:30", 1000, 1000},
    /* EXP-wait 100 ties with barrier 100 and the VMEM-wait+SMEM line */
    {"s_waitcnt expcnt(0)", 6, "/k.py:40", 100, 100},
    {"s_waitcnt_vscnt null, 0x0", 7, "/k.py:40", 10, 0},
};

static void test_aggregation_and_ties(void **state)
{
    (void)state;
    fix f;
    load(&f, tie_rows, sizeof tie_rows / sizeof *tie_rows);
    const fp_hotspots *hs = &f.hs;
    assert_int_equal(hs->ninst, 7); /* header row and the "x" row dropped */
    assert_int_equal(hs->total_stall, 300);
    assert_int_equal(hs->total_cycles, 510);
    assert_int_equal(hs->n_stalling, 4);
    /* types: barrier 100, EXP-wait 100, VMEM-wait 50, SMEM 50; ties keep first appearance */
    assert_int_equal(hs->n_types, 4);
    assert_int_equal(hs->by_type[0].type, FP_ST_BARRIER);
    assert_int_equal(hs->by_type[1].type, FP_ST_EXP_WAIT);
    assert_int_equal(hs->by_type[2].type, FP_ST_VMEM_WAIT);
    assert_int_equal(hs->by_type[3].type, FP_ST_SMEM);
    /* lines: /k.py:10 (100), /k.py:20 (100), <unknown> (0), /k.py:40 (100) */
    assert_int_equal(hs->nlines, 4);
    assert_string_equal(hs->lines[2].loc, "<unknown>");
    assert_int_equal(hs->n_stalling_lines, 3);
    assert_string_equal(hs->lines[hs->line_rank[0]].loc, "/k.py:10");
    assert_string_equal(hs->lines[hs->line_rank[1]].loc, "/k.py:20");
    assert_string_equal(hs->lines[hs->line_rank[2]].loc, "/k.py:40");
    assert_string_equal(hs->lines[hs->line_rank[3]].loc, "<unknown>");
    assert_int_equal(hs->lines[0].cycles, 160);
    assert_int_equal(hs->lines[1].cycles, 200); /* the zero-latency row adds nothing */
    assert_int_equal(hs->lines[0].dominant, FP_ST_VMEM_WAIT); /* 50/50 tie: first seen */
    assert_int_equal(hs->lines[2].dominant, FP_ST_OTHER);     /* no stalling instruction */
    assert_int_equal(hs->lines[3].dominant, FP_ST_EXP_WAIT);
    /* instruction ranking: 100 (barrier, idx 3), 100 (EXP, idx 6), 50 (idx 1), 50 (idx 2) */
    assert_int_equal(hs->inst[hs->inst_rank[0]].row->index, 3);
    assert_int_equal(hs->inst[hs->inst_rank[1]].row->index, 6);
    assert_int_equal(hs->inst[hs->inst_rank[2]].row->index, 1);
    assert_int_equal(hs->inst[hs->inst_rank[3]].row->index, 2);
    unload(&f);
}

static void test_text_layout(void **state)
{
    (void)state;
    fix f;
    load(&f, tie_rows, sizeof tie_rows / sizeof *tie_rows);
    char *t = render(&f.hs, NULL, 15, true, 3, "both");
    /* header */
    assert_non_null(strstr(t, "\nLoading: some/dir/ui_output_agent_1_dispatch_2\n\n"
                              "  Kernel:        ui_output_agent_1_dispatch_2\n"
                              "  Instructions:  7\n"
                              "  Total cycles:  510\n"
                              "  Total stalls:  300  (58.8% of total cycles)\n"));
    /* stall types with code-point padding of the bar */
    assert_non_null(strstr(t, "  barrier              100  [██████████░░░░░░░░░░░░░░░░░░░░]  33.3%\n"
                              "  EXP-wait             100  [██████████░░░░░░░░░░░░░░░░░░░░]  33.3%\n"));
    /* source table: ties in order, the 0-stall <unknown> line stops nothing before it */
    assert_non_null(strstr(t, "    1       100   33.33%  [██████████████████░░░░░░░░░░░░]  62.5%  VMEM-wait     /k.py:10\n"
                              "    2       100   33.33%  [███████████████░░░░░░░░░░░░░░░]  50.0%  barrier       /k.py:20\n"
                              "    3       100   33.33%  [███████████████████████████░░░]  90.9%  EXP-wait      /k.py:40\n\n"));
    assert_null(strstr(t, "<unknown>\n    ──"));
    /* detail: no snapshots -> no Source: block, stalling instructions in stall order */
    assert_non_null(strstr(t, "\n    ── /k.py:10  (stall=100, 62% stall rate)\n"
                              "    Stalling instructions:\n"
                              "      stall=     50  type=VMEM-wait     s_waitcnt vmcnt(0)\n"
                              "      stall=     50  type=SMEM          s_load_dword s0, s[0:1], 0x0\n"));
    assert_null(strstr(t, "Source:"));
    /* instruction table */
    assert_non_null(strstr(t, "    1       100   33.33%  barrier       s_barrier                                         /k.py:20\n"));
    /* ends with one blank line */
    size_t n = strlen(t);
    assert_true(n > 2 && t[n - 1] == '\n' && t[n - 2] == '\n' && t[n - 3] != '\n');
    free(t);

    /* mode asm: no source table, no details; topk 1 */
    t = render(&f.hs, NULL, 1, true, 3, "asm");
    assert_null(strstr(t, "Hotspot Source Lines"));
    assert_null(strstr(t, "Stalling instructions"));
    assert_non_null(strstr(t, "Top-1 Hotspot Instructions  (by stall cycles)"));
    assert_null(strstr(t, "    2  "));
    free(t);
    unload(&f);
}

/* F(n) boundaries, long ISA cut with an ellipsis, long sources cut from the left. */
static void test_number_and_cut_formats(void **state)
{
    (void)state;
    static const frow rows[] = {
        {"v_pk_mul_f32 v[16:17], v[16:17], s[94:95] op_sel_hi:[1,0] this_is_long", 1,
         "/a/very/long/path/that/exceeds/the/forty/eight/character/limit/kernel.py:1170", 2000000, 999999},
        {"s_nop 0", 2, "/k.py:1", 1000, 1000},
        {"s_nop 1", 3, "/k.py:2", 999, 999},
        {"s_nop 2", 4, "/k.py:3", 1000000, 1000000},
    };
    fix f;
    load(&f, rows, 4);
    char *t = render(&f.hs, NULL, 15, false, 3, "both");
    assert_non_null(strstr(t, "  Total cycles:  3.00M\n"));
    assert_non_null(strstr(t, "  other              2.00M  [██████████████████████████████] 100.0%\n"));
    assert_non_null(strstr(t, "    1     1.00M   "));     /* 1000000 */
    assert_non_null(strstr(t, "    2   1000.0K   "));     /* 999999 */
    assert_non_null(strstr(t, "    3      1.0K   "));     /* 1000 */
    assert_non_null(strstr(t, "    4       999   "));
    /* asm: first 47 code points + … ; source: last 38 */
    assert_non_null(strstr(t, "v_pk_mul_f32 v[16:17], v[16:17], s[94:95] op_se…  "
                              "y/eight/character/limit/kernel.py:1170\n"));
    /* source table: last 48 code points */
    assert_non_null(strstr(t, "  other         s/the/forty/eight/character/limit/kernel.py:1170\n"));
    free(t);
    unload(&f);
}

/* A 0-cycle kernel and an empty code listing: a clear result, no division by zero. */
static void test_zero_cycles_and_empty(void **state)
{
    (void)state;
    static const frow rows[] = {{"s_nop 0", 1, "/k.py:1", 0, 0}, {"s_endpgm", 2, "/k.py:2", 0, 0}};
    fix f;
    load(&f, rows, 2);
    assert_int_equal(f.hs.total_cycles, 0);
    assert_int_equal(f.hs.n_stalling, 0);
    char *t = render(&f.hs, NULL, 15, true, 3, "both");
    assert_non_null(strstr(t, "  Total stalls:  0  (n/a: zero total cycles)\n"));
    /* tables print their headers and no rows */
    assert_non_null(strstr(t, "  ---  --------  -------  ------------  ------------------------------------------------  ------------------------------\n\n"));
    free(t);
    fp_hs_opts o = {.topk = 15, .show_src = true, .show_asm = true, .loading_arg = "d"};
    fp_hs_regs regs;
    fp_hs_regs_compute(&f.hs, fp_arch_by_name("gfx950"), FP_ARCH_FLAG, NULL, NULL, &regs);
    fp_hotspots_doc d;
    fp_hotspots_doc_fill(&f.hs, &regs, NULL, &o, &d);
    assert_false(d.stall_pct.known);
    assert_true(d.has_src);
    assert_int_equal(d.nsource_lines, 0);
    /* written: a null stall_pct and an empty (present) source_lines */
    cJSON *j = fp_model_write(&fp_hotspots_doc_schema, &d);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "stall_pct")));
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(j, "source_lines")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "source_lines")), 0);
    /* and read back strictly */
    fp_hotspots_doc back;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&fp_hotspots_doc_schema, j, &back, "hotspots", &err), 0);
    assert_true(back.has_src && back.has_asm);
    fp_model_free(&fp_hotspots_doc_schema, &back);
    cJSON_Delete(j);
    fp_model_free(&fp_hotspots_doc_schema, &d);
    unload(&f);

    load(&f, NULL, 0);
    assert_int_equal(f.hs.ninst, 0);
    t = render(&f.hs, NULL, 15, true, 3, "both");
    assert_non_null(strstr(t, "  Instructions:  0\n"));
    free(t);
    unload(&f);
}

/* Sums near INT64_MAX saturate instead of overflowing (UBSan would catch it). */
static void test_huge_numbers(void **state)
{
    (void)state;
    const char *j = "{\"code\":[[\"s_nop 0\",0,1,\"/k.py:1\",0,0,1,9223372036854775807,9223372036854775807,0],"
                    "[\"s_nop 1\",0,2,\"/k.py:1\",0,0,1,9223372036854775807,9223372036854775807,0],"
                    "[\"s_nop 2\",0,3,\"/k.py:2\",0,0,1,99999999999999999999999,1.5,0]]}";
    fp_code code;
    fp_hotspots hs;
    fp_err err = {0};
    assert_int_equal(fp_code_parse(j, strlen(j), "t", &code, &err), 0);
    assert_true(code.coerced_cells >= 2); /* out-of-range and float cells read as 0 */
    assert_int_equal(fp_hotspots_compute(&code, &hs, &err), 0);
    assert_true(hs.overflow);
    assert_int_equal(hs.total_stall, INT64_MAX);
    char *t = render(&hs, NULL, 15, false, 3, "both");
    assert_non_null(strstr(t, "9223372036854.78M"));
    free(t);
    fp_hotspots_free(&hs);
    fp_code_free(&code);
}

/* ISA register scan and the opcode heuristic (algorithm §8). */
static void test_isa_scan(void **state)
{
    (void)state;
    static const frow rows[] = {
        {"v_mfma_f32_32x32x16_bf16 a[8:11], v[160:161], v[4:5], a[8:11]", 1, "", 1, 0},
        {"v_add_u32 v12abc, v300_x, v7", 2, "", 1, 0}, /* no word boundary: only v7 */
        {"buffer_load_dword v1, s[0:3], 0 offen", 3, "", 1, 0},
        {"s_buffer_load_dword s0, s[4:7], 0x0", 4, "", 1, 0},
        {"ds_load_b128 v[0:3], v4", 5, "", 1, 0},
        {"ds_store_b64 v4, v[0:1]", 6, "", 1, 0},
    };
    fix f;
    load(&f, rows, 6);
    assert_int_equal(f.hs.isa.max_v, 160);
    assert_int_equal(f.hs.isa.arch_vgpr, 161);
    assert_int_equal(f.hs.isa.max_a, 8);
    assert_int_equal(f.hs.isa.accum_vgpr, 9);
    assert_false(f.hs.isa.gfx950_opcodes);
    assert_int_equal(f.hs.isa.mfma, 1);
    assert_int_equal(f.hs.isa.buffer_load, 2);
    assert_int_equal(f.hs.isa.ds_read, 1);
    assert_int_equal(f.hs.isa.ds_write, 1);
    unload(&f);
    static const frow r2[] = {{"v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]", 1, "", 1, 0}};
    load(&f, r2, 1);
    assert_true(f.hs.isa.gfx950_opcodes);
    assert_int_equal(f.hs.isa.accum_vgpr, 0); /* only a0: "not used", as the analyzer says */
    unload(&f);
    static const frow r3[] = {{"s_endpgm", 1, "", 1, 0}};
    load(&f, r3, 1);
    assert_int_equal(f.hs.isa.arch_vgpr, 1); /* max_v + 1 even with no v register */
    unload(&f);
}

/* ---- the per-instruction scan against the plain definitions (algorithm §4, §8) ---- */

static uint64_t scan_rng = 0x9E3779B97F4A7C15ULL;

static unsigned scan_next(unsigned n)
{
    scan_rng = scan_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((scan_rng >> 33) % n);
}

static bool ref_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The analyzer's regexes by hand: \b<r>(\d+)\b and \b<r>\[(\d+), the highest index. */
static int64_t ref_reg_max(const char *isa, char r)
{
    int64_t best = 0;
    for (size_t i = 0; isa[i]; i++) {
        if (isa[i] != r || (i > 0 && ref_word(isa[i - 1])))
            continue;
        size_t j = i + 1;
        bool bracket = isa[j] == '[';
        j += bracket;
        if (!(isa[j] >= '0' && isa[j] <= '9'))
            continue;
        int64_t v = 0;
        for (; isa[j] >= '0' && isa[j] <= '9'; j++)
            if (v <= 1000000)
                v = v * 10 + (isa[j] - '0');
        if (!bracket && ref_word(isa[j]))
            continue;
        if (v > 1000000)
            v = 1000000;
        if (v > best)
            best = v;
    }
    return best;
}

/* Random instruction texts from pieces - every needle, needles split, in upper case
 * and glued to other word bytes, register operands in every form, tokens of 15 to 40
 * bytes (the cache's 16/32-byte keys and past them), texts of 0 to ~120 bytes (both
 * scan paths) - run through fp_hotspots_compute: each row's type is fp_stall_classify's
 * (strstr on the lowercase text), and the register maxima and the instruction mix are
 * those of the plain definitions. */
static void test_scan_reference(void **state)
{
    (void)state;
    static const char *const piece[] = {
        "s_waitcnt", "vmcnt(0)", "lgkmcnt(1)", "expcnt(2)", "s_barrier", "s_wait_idle", "buffer_load_dword",
        "global_load_b32", "flat_load", "buffer_store", "global_store_b64", "ds_read_b128", "ds_write2",
        "s_load_dwordx4", "s_store", "v_mfma_f32_32x32x16_bf16", "v_fma_f32", "ds_load", "ds_store",
        "v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_f32_32x32x64_f8", "S_WAITCNT", "V_MFMA_", "Ds_Read",
        "s_", "waitcnt", "_load", "v", "a", "v12", "a3", "v[4:7]", "a[10:13]", "v999", "v1234567", "v12abc",
        "xv3", "_v4", "v_", "av1", "v[", "[", "]", ", ", " ", ",", ":", "0x1f", "op_sel_hi:[1,0]",
        "offen", "s[0:3]", "s_waitcnt_vscnt", "null", "\xc3\xa9", "buffer_load_dwordx4_very_long_suffix_x",
        "a_b_c_d_e_f_g_h_i_j_k_l_m_n_o_p_q_r_s", "v_add_co_u32_e32_with_16byt", "abcdefghijklmno_",
    };
    enum { NROWS = 400 };
    for (int round = 0; round < 20; round++) {
        static char texts[NROWS][160];
        frow rows[NROWS];
        int64_t want_v = 0, want_a = 0;
        size_t mix[5] = {0};
        bool gfx950 = false;
        for (int i = 0; i < NROWS; i++) {
            size_t n = 0;
            for (unsigned k = scan_next(9); k--;) {
                const char *pc = piece[scan_next(sizeof piece / sizeof *piece)];
                char twin[32];
                if (!scan_next(6)) {
                    /* 27-byte tokens equal in their first 16 bytes, a needle or none after:
                     * the cache must compare the second key too */
                    static const char *const tail[] = {"buffer_load", "global_load", "ds_read_xyz", "s_barrier_x"};
                    memcpy(twin, "abcdefghijklmno_", 16);
                    if (scan_next(2))
                        memcpy(twin + 16, tail[scan_next(4)], 11);
                    else
                        for (int q = 16; q < 27; q++)
                            twin[q] = "abcxyz"[scan_next(6)];
                    twin[27] = '\0';
                    pc = twin;
                }
                size_t l = strlen(pc);
                if (n + l >= 140)
                    break;
                memcpy(texts[i] + n, pc, l);
                n += l;
            }
            texts[i][n] = '\0';
            const char *t = texts[i];
            rows[i] = (frow){t, i + 1, "/k.py:1", 10, 1};
            int64_t v = ref_reg_max(t, 'v'), a = ref_reg_max(t, 'a');
            want_v = v > want_v ? v : want_v;
            want_a = a > want_a ? a : want_a;
            mix[0] += strstr(t, "v_mfma_") != NULL;
            mix[1] += strstr(t, "buffer_load") != NULL;
            mix[2] += strstr(t, "buffer_store") != NULL;
            mix[3] += strstr(t, "ds_read") || strstr(t, "ds_load");
            mix[4] += strstr(t, "ds_write") || strstr(t, "ds_store");
            gfx950 |= strstr(t, "v_mfma_scale_f32") || strstr(t, "v_mfma_f32_16x16x128") || strstr(t, "v_mfma_f32_32x32x64");
        }
        fix f;
        load(&f, rows, NROWS);
        assert_int_equal(f.hs.ninst, NROWS);
        for (int i = 0; i < NROWS; i++) {
            if (f.hs.inst[i].type != fp_stall_classify(texts[i])) {
                print_error("'%s': %s, fp_stall_classify %s\n", texts[i], fp_stall_type_name(f.hs.inst[i].type),
                            fp_stall_type_name(fp_stall_classify(texts[i])));
                fail();
            }
        }
        assert_int_equal(f.hs.isa.max_v, want_v);
        assert_int_equal(f.hs.isa.max_a, want_a);
        assert_int_equal(f.hs.isa.mfma, mix[0]);
        assert_int_equal(f.hs.isa.buffer_load, mix[1]);
        assert_int_equal(f.hs.isa.buffer_store, mix[2]);
        assert_int_equal(f.hs.isa.ds_read, mix[3]);
        assert_int_equal(f.hs.isa.ds_write, mix[4]);
        assert_int_equal(f.hs.isa.gfx950_opcodes, gfx950);
        unload(&f);
    }
}

/* Register block: CSV values, gfx950 doubling, max(ISA, CSV). */
static void test_regs_block(void **state)
{
    (void)state;
    static const frow rows[] = {{"v_mov_b32 v241, 0", 1, "", 1, 0}};
    fix f;
    load(&f, rows, 1);
    fp_hs_csv_regs csv = {.have = true, .path = "kt.csv", .kernel_name = "k", .line = 2, .matches = 1,
                          .vgpr = 124, .accum = 0, .sgpr = 112, .lds = 49152, .wg = 256};
    fp_hs_regs r;
    fp_hs_regs_compute(&f.hs, fp_arch_by_name("gfx950"), FP_ARCH_AGENT_INFO, "agent_info.csv", &csv, &r);
    assert_true(r.gfx950_corrected);
    assert_int_equal(r.arch_vgpr, 248);
    assert_string_equal(r.arch_vgpr_src, "kernel_trace_x2");
    assert_int_equal(r.occ.total_vgpr, 248);
    assert_int_equal(r.occ.vgpr_limit, 2);
    assert_int_equal(r.occ.lds_limit, 3); /* 163840 // 49152 = 3 WGs * 4 waves / 4 */
    assert_int_equal(r.occ.sgpr_limit, 7);
    assert_int_equal(r.occ.occupancy, 2);
    /* gfx942: believed as is; the ISA scan (242) wins over a low CSV (124) */
    fp_hs_regs_compute(&f.hs, fp_arch_by_name("gfx942"), FP_ARCH_FLAG, "--arch", &csv, &r);
    assert_false(r.gfx950_corrected);
    assert_int_equal(r.arch_vgpr, 242);
    assert_string_equal(r.arch_vgpr_src, "isa");
    assert_int_equal(r.occ.total_vgpr, 248);
    /* text keeps the grep-able lines */
    fp_hs_opts o = {.topk = 15, .show_src = true, .show_asm = true, .loading_arg = "d"};
    fp_sb sb;
    fp_sb_init(&sb);
    fp_hotspots_render_text(&f.hs, &r, NULL, &o, &sb);
    assert_non_null(strstr(sb.buf, "  Architecture:   gfx942 (CDNA3)"));
    assert_non_null(strstr(sb.buf, "  arch_vgpr:      ~242 ("));
    assert_non_null(strstr(sb.buf, "  accum_vgpr:     0 (not used)\n"));
    assert_non_null(strstr(sb.buf, "  occupancy:      1 waves/SIMD  (bound by LDS)\n"));
    fp_sb_free(&sb);
    unload(&f);
}

/* ---- snapshots: CRLF sources, context windows, hostile leaves ---- */

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *fh = fopen(p, "wb");
    assert_non_null(fh);
    fputs(text, fh);
    fclose(fh);
}

static void test_snippets(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fp_hs_XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    write_file("source_0_k.py", "line1\r\nline2   \t\r\n\r\nline4\r\nline5\r\n");
    write_file("snapshots.json",
               "{\"/\":{\"w\":{\"k.py\":\"source_0_k.py\",\"evil.py\":\"../../etc/passwd\"}}}");
    fp_snapshots s;
    fp_err err = {0};
    assert_int_equal(fp_snapshots_load(tmpdir, &s, &err), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.refused, 1);
    assert_null(fp_snapshots_find(&s, "/w/evil.py"));

    static const frow rows[] = {
        {"s_waitcnt vmcnt(0)", 1, "/w/k.py:2", 10, 9},
        {"s_nop 0", 2, "/w/evil.py:1", 10, 5},   /* the refused file: no snippet */
        {"s_nop 1", 3, "/w/k.py:0", 10, 4},      /* L = 0: lines 1..ctx, no marker */
        {"s_nop 2", 4, "/w/k.py:99", 10, 3},     /* beyond the end: no Source: */
        {"s_nop 3", 5, "/w/k.py: 5", 10, 2},     /* int(" 5") == 5 */
    };
    fix f;
    load(&f, rows, 5);
    char *t = render(&f.hs, &s, 15, true, 1, "src");
    assert_null(strchr(t, '\r'));
    assert_non_null(strstr(t, "    ── /w/k.py:2  (stall=9, 90% stall rate)\n"
                              "    Source:\n"
                              "             1 │ line1\n"
                              "      >>>    2 │ line2\n"
                              "             3 │ \n"
                              "    Stalling instructions:\n"));
    assert_non_null(strstr(t, "    ── /w/evil.py:1  (stall=5, 50% stall rate)\n    Stalling instructions:\n"));
    assert_non_null(strstr(t, "    ── /w/k.py:0  (stall=4, 40% stall rate)\n    Source:\n             1 │ line1\n    Stalling"));
    assert_non_null(strstr(t, "    ── /w/k.py:99  (stall=3, 30% stall rate)\n    Stalling instructions:\n"));
    assert_non_null(strstr(t, "      >>>    5 │ line5\n"));
    assert_null(strstr(t, "root:"));
    free(t);
    /* context 0 shows only the hot line */
    t = render(&f.hs, &s, 15, true, 0, "src");
    assert_non_null(strstr(t, "    Source:\n      >>>    2 │ line2\n    Stalling"));
    free(t);
    /* detail blocks stop at min(5, topk) */
    t = render(&f.hs, &s, 2, true, 0, "src");
    assert_null(strstr(t, "/w/k.py:0  (stall"));
    free(t);
    unload(&f);
    fp_snapshots_free(&s);
    char p[256];
    snprintf(p, sizeof p, "%s/source_0_k.py", tmpdir);
    unlink(p);
    snprintf(p, sizeof p, "%s/snapshots.json", tmpdir);
    unlink(p);
    rmdir(tmpdir);
}

/* The rankings (radix sort for long lists) against a plain stable sort: stalls with
 * many ties, every magnitude, negatives and saturating sums, over 2,000 rows and
 * 300 lines; and short lists (the merge sort) too. */
static void rank_ref(const int64_t *key, size_t n, size_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = i;
    for (size_t i = 1; i < n; i++) /* insertion: stable, larger key first */
        for (size_t j = i; j > 0 && key[out[j]] > key[out[j - 1]]; j--) {
            size_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
}

static void test_rankings_reference(void **state)
{
    (void)state;
    uint64_t x = 99;
    for (int round = 0; round < 40; round++) {
        size_t n = round < 10 ? (size_t)(5 + round * 7) : 2000;
        size_t nsrc = round < 10 ? 20 : 300;
        fp_code code;
        memset(&code, 0, sizeof code);
        code.rows = calloc(n, sizeof *code.rows);
        code.n = n;
        char (*src)[32] = calloc(nsrc, sizeof *src); /* "/k.py:" + any size_t */
        assert_true(code.rows && src);
        for (size_t s2 = 0; s2 < nsrc; s2++)
            snprintf(src[s2], sizeof src[s2], "/k.py:%zu", s2);
        for (size_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            fp_inst *r = &code.rows[i];
            r->isa = (char *)"s_nop 0";
            r->index = (int64_t)i + 1;
            r->index_ok = true;
            r->source = src[(x >> 40) % nsrc];
            int kind = (int)((x >> 20) % 10);
            r->stall = kind < 5 ? (int64_t)((x >> 33) % 8)                  /* many ties */
                       : kind < 8 ? (int64_t)((x >> 10) >> ((x >> 4) % 50)) /* every magnitude */
                       : kind < 9 ? -(int64_t)((x >> 33) % 1000)           /* hostile: negative */
                                  : INT64_MAX;                              /* sums saturate */
            r->latency = r->stall > 0 ? r->stall : 0;
        }
        fp_hotspots hs;
        fp_err err = {0};
        assert_int_equal(fp_hotspots_compute(&code, &hs, &err), 0);
        /* instructions: the stalling ones, stall desc, code order on ties */
        int64_t *key = calloc(n + nsrc, sizeof *key);
        size_t *id = calloc(n + nsrc, sizeof *id), *want = calloc(n + nsrc, sizeof *want);
        size_t m = 0;
        for (size_t i = 0; i < hs.ninst; i++)
            if (hs.inst[i].row->stall > 0) {
                key[m] = hs.inst[i].row->stall;
                id[m++] = i;
            }
        assert_int_equal(m, hs.n_stalling);
        rank_ref(key, m, want);
        for (size_t i = 0; i < m; i++)
            assert_int_equal(hs.inst_rank[i], id[want[i]]);
        /* lines: by their (saturated) stall sums, first appearance on ties */
        for (size_t li = 0; li < hs.nlines; li++)
            key[li] = hs.lines[li].stall;
        rank_ref(key, hs.nlines, want);
        for (size_t i = 0; i < hs.nlines; i++)
            assert_int_equal(hs.line_rank[i], want[i]);
        if (round >= 10)
            assert_true(hs.nlines >= 64 && m >= 64); /* the radix path ran */
        free(key);
        free(id);
        free(want);
        fp_hotspots_free(&hs);
        free(code.rows);
        free(src);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_aggregation_and_ties),
        cmocka_unit_test(test_text_layout),
        cmocka_unit_test(test_number_and_cut_formats),
        cmocka_unit_test(test_zero_cycles_and_empty),
        cmocka_unit_test(test_huge_numbers),
        cmocka_unit_test(test_isa_scan),
        cmocka_unit_test(test_regs_block),
        cmocka_unit_test(test_snippets),
        cmocka_unit_test(test_rankings_reference),
        cmocka_unit_test(test_scan_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
