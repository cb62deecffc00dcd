/*
 * test_counters.c - every counter formula against hand-computed values, the
 * seed's worked example (PA decode on MI300X: L2 hit 1.7 %, 32B 0 %, over-fetch
 * 1.04x, 2.85 TB/s = 54 % of peak => clean memory subsystem) from synthetic
 * counters, pass merging and the cross-pass flag, and the CSV reader on good
 * and bad files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/counters.h"
#include "flyprof/counters_doc.h"
#include "flyprof/strbuf.h"

static fp_soc_sel soc(const char *product)
{
    fp_soc_query q = {.gpu_name = product};
    fp_soc_sel s;
    fp_err err = {0};
    assert_int_equal(fp_soc_resolve(&q, &s, &err), 0);
    return s;
}

static fp_pmc_dispatch *disp(fp_pmc_set *s, size_t pass, long long id, long long start, long long end)
{
    fp_pmc_dispatch *d = fp_pmc_dispatch_get(s, pass, -1, "Agent 1", id, "pa_decode_kernel<16>(float*, int)");
    d->start_ns = start;
    d->end_ns = end;
    return d;
}

static double val(const cJSON *res, const char *id)
{
    cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "metrics"), id);
    assert_non_null(m);
    return cJSON_GetObjectItem(m, "value")->valuedouble;
}

static bool has(const cJSON *res, const char *id)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(res, "metrics"), id) != NULL;
}

static bool flag(const cJSON *res, const char *id, const char *key)
{
    cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "metrics"), id);
    return cJSON_IsTrue(cJSON_GetObjectItem(m, key));
}

static cJSON *compute(fp_pmc_set *s, const char *kernel, const fp_counters_opts *o, fp_bound_in *bin)
{
    fp_pmc_record *r;
    size_t n;
    bool uneven;
    fp_err err = {0};
    assert_int_equal(fp_pmc_records(s, kernel, &r, &n, &uneven, &err), 0);
    fp_counters_doc doc = {0};
    fp_counters_metrics(r, n, o, bin, &doc);
    fp_pmc_records_free(r, n);
    /* the assertions look at the document as counters.json holds it */
    cJSON *res = fp_model_write(&fp_counters_doc_schema, &doc);
    fp_counters_doc_free(&doc);
    return res;
}

/* Two passes like the seed's two PMC jobs (L2 job and EA job), one dispatch,
 * 1 ms; ideal 2.85 GB; fetched 1.04 x 2.85 GB in 64 B requests. */
static void test_seed_worked_example(void **state)
{
    (void)state;
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    size_t p1 = fp_pmc_add_pass(&s, "pmc_l2_counter_collection.csv");
    size_t p2 = fp_pmc_add_pass(&s, "pmc_ea_counter_collection.csv");
    fp_pmc_dispatch *d = disp(&s, p1, 7, 1000, 1001000);
    fp_pmc_add(d, "TCC_HIT_sum", 787312);
    fp_pmc_add(d, "TCC_MISS_sum", 45525188);
    d = disp(&s, p2, 7, 5000, 1005000);
    fp_pmc_add(d, "TCC_EA0_RDREQ_sum", 46312500); /* x 64 B = 2,964,000,000 B */
    fp_pmc_add(d, "TCC_EA0_RDREQ_32B_sum", 0);
    fp_pmc_add(d, "TCC_BUBBLE_sum", 0);

    fp_soc_sel mi300 = soc("MI300X");
    fp_counters_opts o = {.soc = &mi300, .ideal_bytes = 2.85e9, .ea_channels = 1, .dtype = FP_DT_COUNT};
    fp_bound_in bin;
    fp_bound_in_init(&bin);
    cJSON *res = compute(&s, "pa_decode", &o, &bin);
    assert_float_equal(val(res, "l2_hit_pct"), 1.70, 1e-9);
    assert_float_equal(val(res, "partial_32b_pct"), 0.0, 1e-9);
    assert_float_equal(val(res, "fetch_bytes"), 2964000000.0, 0.5);
    assert_float_equal(val(res, "over_fetch"), 1.04, 1e-9);
    assert_float_equal(val(res, "ideal_gbs"), 2850.0, 1e-9);
    assert_float_equal(val(res, "ideal_pct_of_peak"), 53.8, 1e-9); /* 2850 / 5300 */
    assert_float_equal(val(res, "hbm_read_gbs"), 2964.0, 1e-9);
    assert_float_equal(val(res, "hbm_pct_of_peak"), 55.9, 1e-9);
    assert_true(flag(res, "hbm_gbs", "approximate")); /* no write counters */
    assert_false(flag(res, "l2_hit_pct", "cross_pass"));
    assert_false(has(res, "mfma_util_pct"));
    cJSON *miss = cJSON_GetObjectItem(res, "missing");
    assert_non_null(cJSON_GetObjectItem(miss, "mfma_util_pct"));

    fp_bound_result br;
    fp_bound_classify(&bin, &br);
    assert_int_equal(br.bound, FP_BOUND_MEMORY);
    assert_true(br.optimal);
    assert_string_equal(br.optimal_rule, "clean_stream");

    fp_counters_doc doc;
    fp_err rerr = {0};
    assert_int_equal(fp_model_read(&fp_counters_doc_schema, res, &doc, "counters.json", &rerr), 0);
    fp_counters_interpret(&doc);
    cJSON *whydoc = fp_model_write(&fp_counters_doc_schema, &doc);
    fp_counters_doc_free(&doc);
    cJSON *why = cJSON_DetachItemFromObject(whydoc, "interpretation");
    cJSON_Delete(whydoc);
    char *txt = cJSON_PrintUnformatted(why);
    assert_non_null(strstr(txt, "L2 hit 1.7% < 5%"));
    assert_non_null(strstr(txt, "32B partial 0.0% ~ 0"));
    assert_non_null(strstr(txt, "over-fetch 1.04x ~ 1.0"));
    assert_non_null(strstr(txt, "achieved 2.85 TB/s (ideal bytes / time) = 54% of peak HBM"));
    free(txt);
    cJSON_Delete(why);
    cJSON_Delete(res);
    fp_pmc_set_free(&s);
}

static void test_fetch_formulas(void **state)
{
    (void)state;
    fp_soc_sel mi350 = soc("MI350X");
    fp_counters_opts o = {.soc = &mi350, .ea_channels = 1, .dtype = FP_DT_COUNT};
    /* gfx950 exact: 32*10 + 64*100 + 128*1000 = 134,720 */
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    fp_pmc_dispatch *d = disp(&s, fp_pmc_add_pass(&s, "a"), 1, 0, 1000);
    fp_pmc_add(d, "TCC_EA0_RDREQ_32B_sum", 10);
    fp_pmc_add(d, "TCC_EA0_RDREQ_64B_sum", 100);
    fp_pmc_add(d, "TCC_EA0_RDREQ_128B_sum", 1000);
    fp_pmc_add(d, "TCC_EA0_RDREQ_sum", 1110);
    cJSON *res = compute(&s, NULL, &o, NULL);
    assert_float_equal(val(res, "fetch_bytes"), 134720.0, 0.0);
    assert_float_equal(val(res, "hbm_read_gbs"), 134.7, 1e-9); /* bytes / 1000 ns */
    assert_float_equal(val(res, "partial_32b_pct"), 0.9, 1e-9); /* 10/1110 = 0.9009 % */
    cJSON_Delete(res);
    fp_pmc_set_free(&s);

    /* SDK FETCH_SIZE with TCC_BUBBLE: 128*200 + 64*(1000-200-100) + 32*100 = 73,600; ea_channels 2 doubles */
    fp_pmc_set_init(&s);
    d = disp(&s, fp_pmc_add_pass(&s, "a"), 1, 0, 1000);
    fp_pmc_add(d, "TCC_EA0_RDREQ", 1000); /* unsuffixed names are the same counter */
    fp_pmc_add(d, "TCC_EA0_RDREQ_32B", 100);
    fp_pmc_add(d, "TCC_BUBBLE", 200);
    fp_pmc_add(d, "TCC_EA0_WRREQ_sum", 50);
    fp_pmc_add(d, "TCC_EA0_WRREQ_64B_sum", 30); /* 64*30 + 32*20 = 2,560 */
    o.ea_channels = 2;
    res = compute(&s, NULL, &o, NULL);
    assert_float_equal(val(res, "fetch_bytes"), 147200.0, 0.0);
    assert_float_equal(val(res, "write_bytes"), 5120.0, 0.0);
    assert_float_equal(val(res, "hbm_gbs"), 152.3, 1e-9);
    assert_false(flag(res, "fetch_bytes", "approximate"));
    assert_false(flag(res, "hbm_gbs", "approximate"));
    cJSON_Delete(res);
    fp_pmc_set_free(&s);

    /* no TCC_BUBBLE: 64*(1000-100) + 32*100 = 60,800, a lower bound */
    fp_pmc_set_init(&s);
    d = disp(&s, fp_pmc_add_pass(&s, "a"), 1, -1, -1);
    fp_pmc_add(d, "TCC_EA0_RDREQ_sum", 1000);
    fp_pmc_add(d, "TCC_EA0_RDREQ_32B_sum", 100);
    o.ea_channels = 1;
    res = compute(&s, NULL, &o, NULL);
    assert_float_equal(val(res, "fetch_bytes"), 60800.0, 0.0);
    assert_true(flag(res, "fetch_bytes", "approximate"));
    assert_false(has(res, "hbm_read_gbs")); /* no duration */
    cJSON *miss = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "missing"), "hbm_read_gbs");
    assert_string_equal(cJSON_GetArrayItem(miss, 0)->valuestring, "duration");
    cJSON_Delete(res);
    fp_pmc_set_free(&s);
}

static void test_compute_lds_occupancy(void **state)
{
    (void)state;
    fp_soc_sel mi300 = soc("MI300X");
    fp_counters_opts o = {.soc = &mi300, .ea_channels = 1, .dtype = FP_DT_COUNT};
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    size_t p1 = fp_pmc_add_pass(&s, "mfma"), p2 = fp_pmc_add_pass(&s, "lds");
    fp_pmc_dispatch *d = disp(&s, p1, 3, 0, 1000);
    fp_pmc_add(d, "GRBM_GUI_ACTIVE", 8000); /* 8 XCDs -> 1000 cycles */
    fp_pmc_add(d, "SQ_VALU_MFMA_BUSY_CYCLES", 608000); /* 100*608000/(1000*304*4) = 50 % */
    fp_pmc_add(d, "SQ_INSTS_VALU_MFMA_MOPS_BF16", 1e6); /* 512e6 FLOP in 1000 ns */
    fp_pmc_add(d, "SQ_INSTS_VALU_MFMA_MOPS_F8", 1e3);
    d = disp(&s, p2, 3, 0, 1000);
    fp_pmc_add(d, "GRBM_GUI_ACTIVE", 16000); /* this pass ran twice as long */
    fp_pmc_add(d, "SQ_LDS_BANK_CONFLICT", 100);
    fp_pmc_add(d, "SQ_LDS_IDX_ACTIVE", 500);
    fp_pmc_add(d, "SQ_ACCUM_PREV_HIRES", 9728000); /* / 2000 / 304 = 16 waves/CU */
    fp_pmc_add(d, "SQ_ACTIVE_INST_VALU", 304000); /* 100*304000/(2000*304) = 50 % */
    fp_pmc_add(d, "SQ_WAVES", 4096);
    fp_bound_in bin;
    fp_bound_in_init(&bin);
    cJSON *res = compute(&s, NULL, &o, &bin);
    assert_float_equal(val(res, "mfma_util_pct"), 50.0, 1e-9);
    assert_false(flag(res, "mfma_util_pct", "cross_pass")); /* GRBM taken from the same pass */
    assert_float_equal(val(res, "kernel_cycles"), 1000.0, 0.0);
    assert_float_equal(val(res, "mfma_flops"), 512512000.0, 0.0);
    assert_float_equal(val(res, "mfma_gflops"), 512512.0, 1e-9);
    /* dominant type bf16: 512512 / 1307443.2 = 39.199 % */
    assert_float_equal(val(res, "mfma_pct_of_peak"), 39.2, 1e-9);
    assert_float_equal(val(res, "lds_bank_conflicts_per_access"), 0.25, 1e-12);
    assert_float_equal(val(res, "lds_bank_conflict_pct"), 20.0, 1e-12);
    assert_float_equal(val(res, "occupancy_waves_per_cu"), 16.0, 1e-9);
    assert_float_equal(val(res, "occupancy_pct"), 50.0, 1e-9);
    assert_false(flag(res, "occupancy_waves_per_cu", "cross_pass"));
    assert_float_equal(val(res, "valu_util_pct"), 50.0, 1e-9);
    assert_float_equal(val(res, "waves"), 4096.0, 0.0);
    assert_true(bin.mfma_util_pct.have);
    fp_bound_result br;
    fp_bound_classify(&bin, &br);
    assert_int_equal(br.bound, FP_BOUND_COMPUTE);
    cJSON_Delete(res);

    /* explicit dtype: fp8 peak 2614886.4 -> 19.6 % */
    o.dtype = FP_DT_FP8;
    res = compute(&s, NULL, &o, NULL);
    assert_float_equal(val(res, "mfma_pct_of_peak"), 19.6, 1e-9);
    cJSON_Delete(res);
    fp_pmc_set_free(&s);
}

/* MFMA busy in one pass, GRBM only in another: the ratio is flagged. */
static void test_cross_pass_flag(void **state)
{
    (void)state;
    fp_soc_sel mi300 = soc("MI300X");
    fp_counters_opts o = {.soc = &mi300, .ea_channels = 1, .dtype = FP_DT_COUNT};
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    size_t p1 = fp_pmc_add_pass(&s, "a"), p2 = fp_pmc_add_pass(&s, "b");
    fp_pmc_add(disp(&s, p1, 1, 0, 10), "GRBM_GUI_ACTIVE", 8000);
    fp_pmc_add(disp(&s, p2, 1, 0, 10), "SQ_VALU_MFMA_BUSY_CYCLES", 1300000); /* > 100 % */
    cJSON *res = compute(&s, NULL, &o, NULL);
    assert_true(flag(res, "mfma_util_pct", "cross_pass"));
    assert_true(val(res, "mfma_util_pct") > 100.0);
    cJSON *passes = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "metrics"), "mfma_util_pct"),
                                        "passes");
    assert_int_equal(cJSON_GetArraySize(passes), 2);
    cJSON_Delete(res);
    fp_pmc_set_free(&s);
}

/* Without a product there is no %-of-peak, and it is recorded as missing. */
static void test_no_product(void **state)
{
    (void)state;
    fp_soc_query q = {.arch = "gfx942"};
    fp_soc_sel sel;
    fp_err err = {0};
    assert_int_equal(fp_soc_resolve(&q, &sel, &err), 0);
    fp_counters_opts o = {.soc = &sel, .ea_channels = 1, .dtype = FP_DT_COUNT};
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    fp_pmc_dispatch *d = disp(&s, fp_pmc_add_pass(&s, "a"), 1, 0, 100);
    fp_pmc_add(d, "TCC_EA0_RDREQ_sum", 100);
    fp_pmc_add(d, "TCC_EA0_RDREQ_32B_sum", 0);
    cJSON *res = compute(&s, NULL, &o, NULL);
    assert_true(has(res, "hbm_read_gbs"));
    assert_false(has(res, "hbm_pct_of_peak"));
    cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "missing"), "hbm_pct_of_peak");
    assert_string_equal(cJSON_GetArrayItem(m, 0)->valuestring, "product (peak HBM)");
    cJSON_Delete(res);
    fp_pmc_set_free(&s);
}

static void test_records_merge(void **state)
{
    (void)state;
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    size_t p1 = fp_pmc_add_pass(&s, "a"), p2 = fp_pmc_add_pass(&s, "b");
    fp_pmc_add(disp(&s, p1, 9, 0, 10), "SQ_WAVES", 2);
    fp_pmc_add(disp(&s, p1, 5, 0, 10), "SQ_WAVES", 1);
    fp_pmc_add(disp(&s, p2, 105, 0, 10), "TCC_HIT_sum", 10);
    fp_pmc_add(disp(&s, p2, 109, 0, 10), "TCC_HIT_sum", 20);
    fp_pmc_add(fp_pmc_dispatch_get(&s, p1, -1, "Agent 1", 6, "other_kernel"), "SQ_WAVES", 99);
    fp_pmc_record *r;
    size_t n;
    bool uneven;
    fp_err err = {0};
    assert_int_equal(fp_pmc_records(&s, "pa_decode", &r, &n, &uneven, &err), 0);
    assert_int_equal(n, 2);
    assert_false(uneven);
    assert_int_equal(r[0].per_pass[0]->dispatch_id, 5); /* ordered by id */
    assert_int_equal(r[0].per_pass[1]->dispatch_id, 105);
    assert_float_equal(fp_pmc_get(&r[1], "SQ_WAVES").v, 2.0, 0.0);
    assert_float_equal(fp_pmc_get(&r[1], "TCC_HIT").v, 20.0, 0.0);
    assert_int_equal(fp_pmc_get(&r[1], "TCC_HIT").pass, 1);
    assert_float_equal(r[0].duration_ns, 10.0, 0.0);
    fp_pmc_records_free(r, n);

    assert_int_equal(fp_pmc_records(&s, NULL, &r, &n, &uneven, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS); /* two kernels, no --kernel */
    fp_err_clear(&err);
    assert_int_equal(fp_pmc_records(&s, "nope", &r, &n, &uneven, &err), -1);
    assert_int_equal(err.code, FP_KERNEL_NOT_FOUND);
    fp_err_clear(&err);

    fp_pmc_add(disp(&s, p2, 113, 0, 10), "TCC_HIT_sum", 30); /* a third dispatch in pass 2 only */
    assert_int_equal(fp_pmc_records(&s, "pa_decode", &r, &n, &uneven, &err), 0);
    assert_int_equal(n, 2);
    assert_true(uneven);
    fp_pmc_records_free(r, n);
    fp_pmc_set_free(&s);
}

static const char header[] =
    "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\","
    "\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
    "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\","
    "\"End_Timestamp\"\n";

static char tmpdir[64];

static char *write_tmp(const char *name, const char *body)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(body, f);
    fclose(f);
    return path;
}

static int load(const char *body, fp_pmc_set *s, fp_err *err)
{
    fp_pmc_set_init(s);
    memset(err, 0, sizeof *err);
    return fp_pmc_load_csv(s, write_tmp("x_counter_collection.csv", body), err);
}

/* issue 18: the agent_info row of the agent the rows name (Logical_Node_Id), not the first GPU row;
 * fp_pmc_keep keeps one agent and, per pass, one process. */
static void test_keep_agent_process(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/fp_test_keep_XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    write_tmp("x_agent_info.csv",
              "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cu_Count\",\"Num_Xcc\",\"Name\",\"Product_Name\"\n"
              "0,0,\"CPU\",0,0,\"EPYC\",\"AMD EPYC\"\n"
              "2,2,\"GPU\",304,8,\"gfx942\",\"AMD Instinct MI300X\"\n"
              "3,3,\"GPU\",38,1,\"gfx942\",\"AMD Instinct MI300X\"\n");
    fp_sb body;
    fp_sb_init(&body);
    fp_sb_adds(&body, header);
    /* dispatch 1 on Agent 3, 2 on Agent 2, 3 on Agent 3 (a multi-GPU process), all pid 100 */
    const char *agent[] = {"Agent 3", "Agent 2", "Agent 3"};
    for (int i = 0; i < 3; i++)
        fp_sb_addf(&body, "%d,%d,\"%s\",1,100,100,64,17,\"k_0\",64,0,0,8,0,16,\"SQ_WAVES\",%d,10,20\n", i + 1,
                   i + 1, agent[i], 10 * (i + 1));
    fp_pmc_set s;
    fp_err err;
    assert_int_equal(load(body.buf, &s, &err), 0);
    assert_int_equal(s.nagents, 2);
    assert_int_equal(s.agent.cu_count, 304); /* before keep: the first GPU row */
    fp_pmc_kept k;
    fp_pmc_keep(&s, "Agent 2", "k_", &k);
    assert_true(k.found);
    assert_false(k.wanted_absent);
    assert_string_equal(k.agent, "Agent 2");
    assert_int_equal(k.other_agents, 1);
    assert_string_equal(k.other_agent, "Agent 3");
    assert_int_equal(k.agent_rows_dropped, 2);
    assert_int_equal(s.nd, 1);
    assert_int_equal(s.d[0].dispatch_id, 2);
    assert_true(k.facts_matched);
    assert_int_equal(s.agent.cu_count, 304);
    /* the lookup index still finds the kept dispatch (it was rebuilt) */
    assert_ptr_equal(fp_pmc_dispatch_get(&s, 0, 100, "Agent 2", 2, "k_0"), &s.d[0]);
    fp_pmc_set_free(&s);

    /* no wish: the first row's agent (Agent 3) and its own row: 38 CUs, 1 XCD */
    assert_int_equal(load(body.buf, &s, &err), 0);
    fp_pmc_keep(&s, NULL, "k_", &k);
    assert_string_equal(k.agent, "Agent 3");
    assert_int_equal(s.nd, 2);
    assert_int_equal(s.agent.cu_count, 38);
    assert_int_equal(s.agent.num_xcc, 1);
    fp_pmc_set_free(&s);
    /* a wish no row ran on: flagged, the first row's agent kept */
    assert_int_equal(load(body.buf, &s, &err), 0);
    fp_pmc_keep(&s, "Agent 9", "k_", &k);
    assert_true(k.wanted_absent);
    assert_string_equal(k.agent, "Agent 3");
    fp_pmc_set_free(&s);
    fp_sb_free(&body);

    /* two processes' files of one run in ONE pass (equal dispatch ids): the first file's process */
    fp_sb p1, p2;
    fp_sb_init(&p1);
    fp_sb_init(&p2);
    fp_sb_adds(&p1, header);
    fp_sb_adds(&p2, header);
    for (int i = 1; i <= 2; i++) {
        fp_sb_addf(&p1, "%d,%d,\"Agent 2\",1,200,200,64,17,\"k_0\",64,0,0,8,0,16,\"SQ_WAVES\",1,10,20\n", i, i);
        fp_sb_addf(&p2, "%d,%d,\"Agent 2\",1,201,201,64,17,\"k_0\",64,0,0,8,0,16,\"SQ_WAVES\",2,10,20\n", i, i);
    }
    char *f1 = strdup(write_tmp("pmc_200_counter_collection.csv", p1.buf));
    char *f2 = strdup(write_tmp("pmc_201_counter_collection.csv", p2.buf));
    const char *files[] = {f1, f2};
    fp_pmc_set_init(&s);
    memset(&err, 0, sizeof err);
    assert_int_equal(fp_pmc_load_csv_run(&s, files, 2, &err), 0);
    assert_int_equal(s.npasses, 1);
    assert_int_equal(s.nd, 4); /* (pid, agent, id) keeps them apart */
    fp_pmc_keep(&s, "Agent 2", "k_", &k);
    assert_int_equal(k.process_passes, 1);
    assert_int_equal(k.process_rows_dropped, 2);
    assert_int_equal(s.nd, 2);
    assert_int_equal(s.d[0].pid, 200);
    assert_string_equal(s.passes[0], f1);
    fp_pmc_set_free(&s);
    free(f1);
    free(f2);
    fp_sb_free(&p1);
    fp_sb_free(&p2);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    assert_int_equal(system(cmd), 0);
}

static void test_csv_reader(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/fp_test_counters_XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    write_tmp("x_agent_info.csv",
              "\"Node_Id\",\"Agent_Type\",\"Device_Id\",\"Gfx_Target_Version\",\"Cu_Count\",\"Num_Xcc\",\"Name\","
              "\"Product_Name\"\n"
              "0,\"CPU\",0,0,0,0,\"EPYC\",\"AMD EPYC\"\n"
              "2,\"GPU\",30112,90500,256,8,\"gfx950\",\"AMD Instinct MI350X\"\n");
    fp_sb body;
    fp_sb_init(&body);
    fp_sb_adds(&body, header);
    fp_sb_adds(&body, "1,1,\"Agent 1\",1,15606,15606,1048576,17,\"void add<float>(float*, float const*, int)\",64,"
                      "0,0,8,0,16,\"SQ_WAVES\",16384.000000,3200098838431081,3200098838483232\n");
    fp_sb_adds(&body, "1,1,\"Agent 1\",1,15606,15606,1048576,17,\"void add<float>(float*, float const*, int)\",64,"
                      "0,0,8,0,16,\"TCC_HIT_sum\",12.5,3200098838431081,3200098838483232\n");
    fp_pmc_set s;
    fp_err err;
    assert_int_equal(load(body.buf, &s, &err), 0);
    assert_int_equal(s.npasses, 1);
    assert_int_equal(s.nd, 1);
    assert_string_equal(s.d[0].kernel, "void add<float>(float*, float const*, int)");
    assert_int_equal(s.d[0].n, 2);
    assert_int_equal(s.d[0].end_ns - s.d[0].start_ns, 52151);
    assert_int_equal(s.d[0].grid_size, 1048576);
    assert_string_equal(s.agent.product_name, "AMD Instinct MI350X");
    assert_int_equal(s.agent.device_id, 30112);
    assert_int_equal(s.agent.num_xcc, 8);
    fp_pmc_set_free(&s);
    fp_sb_free(&body);

    /* bad files: every one BAD_INPUT */
    const char *bad_rows[] = {
        "1,1,\"A\",1,1,1,1,1,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",abc,1,2\n",     /* non-numeric */
        "1,1,\"A\",1,1,1,1,1,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",1e30,1,2\n",    /* huge */
        "1,1,\"A\",1,1,1,1,1,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",-5,1,2\n",      /* negative */
        "1,1,\"A\",1,1,1,1,1,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",nan,1,2\n",     /* not finite */
        "1,x,\"A\",1,1,1,1,1,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",5,1,2\n",       /* dispatch id */
        "1,1,\"A\",1,1,1,1,1,\"k\",64,0,0,8,0,16,\"\",5,1,2\n",               /* empty counter name */
        "1,1,\"A\",1,1,1,1,1,\"k, j\",64,0,0,8,0,16,\"SQ_WAVES\",5,1,2,9\n",  /* extra cell */
        "1,1,\"A\",1,1,1,1,1,\"k\",64,0,0,8,0,16,\"SQ_WAVES\",5,1,99999999999999999999999\n", /* huge int */
    };
    for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
        fp_sb_init(&body);
        fp_sb_adds(&body, header);
        fp_sb_adds(&body, bad_rows[i]);
        assert_int_equal(load(body.buf, &s, &err), -1);
        if (err.code != FP_BAD_INPUT)
            fail_msg("bad row %zu gave %s", i, fp_code_name(err.code));
        fp_err_clear(&err);
        fp_pmc_set_free(&s);
        fp_sb_free(&body);
    }
    /* missing column */
    assert_int_equal(load("\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Value\"\n1,\"k\",5\n", &s, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_non_null(strstr(err.message, "Counter_Name"));
    fp_pmc_set_free(&s);
    /* empty file */
    assert_int_equal(load("", &s, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    fp_pmc_set_free(&s);
    /* missing file */
    fp_pmc_set_init(&s);
    assert_int_equal(fp_pmc_load_csv(&s, "/nonexistent/x.csv", &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_pmc_set_free(&s);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    assert_int_equal(system(cmd), 0);
}

static void test_groups_fit_one_pass(void **state)
{
    (void)state;
    const char *arches[] = {"gfx942", "gfx950"};
    for (size_t a = 0; a < 2; a++) {
        size_t ng;
        const char *const *const *g = fp_counters_groups(arches[a], &ng);
        assert_non_null(g);
        assert_int_equal(ng, 4);
        bool lds_idx = false, bubble_or_128 = false;
        for (size_t i = 0; i < ng; i++) {
            int tcc = 0, sq = 0, grbm = 0;
            for (const char *const *c = g[i]; *c; c++) {
                /* the SDK-derived occupancy takes SQ_LEVEL_WAVES + SQ_ACCUM_PREV_HIRES (+ the GUI) */
                if (!strcmp(*c, "MeanOccupancyPerCU")) {
                    sq += 2;
                    continue;
                }
                /* MfmaUtil / VALUBusy / LdsBankConflict: their bases are in the same group already */
                if (fp_counter_derived_base(*c)) {
                    for (const char *const *b = fp_counter_derived_base(*c); *b; b++) {
                        bool in_group = false;
                        for (const char *const *o = g[i]; *o; o++)
                            in_group |= !strcmp(*o, *b);
                        assert_true(in_group);
                    }
                    continue;
                }
                assert_string_not_equal(*c, "SQ_ACCUM_PREV_HIRES"); /* never the raw accumulator */
                const char *b = fp_counter_block(*c);
                assert_non_null(b);
                tcc += !strcmp(b, "TCC");
                sq += !strcmp(b, "SQ");
                grbm += !strcmp(b, "GRBM");
                assert_null(strstr(*c, "TCC_EA_RDREQ")); /* old gfx90a names never */
                lds_idx |= !strcmp(*c, "SQ_LDS_IDX_ACTIVE");
                bubble_or_128 |= !strcmp(*c, "TCC_BUBBLE_sum") || !strcmp(*c, "TCC_EA0_RDREQ_128B_sum");
            }
            assert_true(tcc <= fp_counter_block_limit("TCC"));
            assert_true(sq <= fp_counter_block_limit("SQ"));
            assert_true(grbm <= fp_counter_block_limit("GRBM"));
        }
        assert_true(lds_idx);
        assert_true(bubble_or_128);
    }
    assert_null(fp_counters_groups("gfx90a", NULL));
}

/* The packer: 4 groups -> 2 passes on both arches; every group whole in one pass;
 * each pass's hardware counters within the block limits, counted here from the
 * names (MeanOccupancyPerCU = its three base counters, shared ones once). */
static int hw_count(const char *const *pass, const char *prefix)
{
    const char *set[64];
    int n = 0;
    for (const char *const *c = pass; *c; c++) {
        const char *mean[] = {"SQ_LEVEL_WAVES", "SQ_ACCUM_PREV_HIRES", "GRBM_GUI_ACTIVE", NULL};
        const char *one[] = {*c, NULL};
        /* the other derived counters' bases are spelled out here too, not taken from counters.c */
        const char *mfma[] = {"SQ_VALU_MFMA_BUSY_CYCLES", "GRBM_GUI_ACTIVE", NULL};
        const char *valu[] = {"SQ_ACTIVE_INST_VALU", "GRBM_GUI_ACTIVE", NULL};
        const char *lds[] = {"SQ_LDS_BANK_CONFLICT", "SQ_LDS_IDX_ACTIVE", NULL};
        const char *const *base = !strcmp(*c, "MeanOccupancyPerCU") ? mean
                                  : !strcmp(*c, "MfmaUtil")         ? mfma
                                  : !strcmp(*c, "VALUBusy")         ? valu
                                  : !strcmp(*c, "LdsBankConflict")  ? lds
                                                                    : one;
        for (const char *const *b = base; *b; b++) {
            bool have = false;
            for (int i = 0; i < n; i++)
                have |= !strcmp(set[i], *b);
            if (!have)
                set[n++] = *b;
        }
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        k += !strncmp(set[i], prefix, strlen(prefix));
    return k;
}

static void test_pack_passes(void **state)
{
    (void)state;
    const char *arches[] = {"gfx942", "gfx950"};
    for (size_t a = 0; a < 2; a++) {
        size_t ng;
        const char *const *const *g = fp_counters_groups(arches[a], &ng);
        fp_counter_passes p;
        assert_int_equal(fp_counters_pack(g, ng, &p), 0);
        assert_int_equal(p.n, 2);
        for (size_t i = 0; i < p.n; i++) {
            assert_true(hw_count(p.pass[i], "TCC_") <= 4);
            assert_true(hw_count(p.pass[i], "SQ_") <= 8);
            assert_true(hw_count(p.pass[i], "GRBM_") <= 2);
        }
        for (size_t k = 0; k < ng; k++) { /* a whole group in exactly one pass */
            size_t whole = 0;
            for (size_t i = 0; i < p.n; i++) {
                bool all = true;
                for (const char *const *c = g[k]; *c; c++) {
                    bool in = false;
                    for (const char **q = p.pass[i]; *q; q++)
                        in |= !strcmp(*q, *c);
                    all &= in;
                }
                whole += all;
            }
            assert_int_equal(whole, 1);
        }
        fp_counter_passes_free(&p);
    }
    /* a group that alone exceeds a block cannot be packed */
    static const char *const big[] = {"TCC_A", "TCC_B", "TCC_C", "TCC_D", "TCC_E", NULL};
    static const char *const *const one[] = {big, NULL};
    fp_counter_passes p;
    assert_int_equal(fp_counters_pack(one, 1, &p), -1);
    assert_int_equal(p.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_worked_example), cmocka_unit_test(test_fetch_formulas),
        cmocka_unit_test(test_compute_lds_occupancy), cmocka_unit_test(test_cross_pass_flag),
        cmocka_unit_test(test_no_product),           cmocka_unit_test(test_records_merge),
        cmocka_unit_test(test_csv_reader),           cmocka_unit_test(test_groups_fit_one_pass),
        cmocka_unit_test(test_pack_passes),
        cmocka_unit_test(test_keep_agent_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
