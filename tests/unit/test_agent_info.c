/*
 * test_agent_info.c - the agent_info.csv reader: the real MI350X row of
 * rocprof-formats.md §3.4, the first GPU, the sibling path, bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "flyprof/agent_info.h"

static const char AGENTS[] =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cu_Count\",\"Num_Xcc\",\"Simd_Per_Cu\","
    "\"Max_Waves_Per_Simd\",\"Gfx_Target_Version\",\"Device_Id\",\"Max_Engine_Clk_Fcompute\",\"Hive_Id\","
    "\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n"
    "0,0,\"CPU\",0,0,0,0,0,0,3700,0,\"AMD EPYC 9575F\",\"CPU\",\"AMD EPYC 9575F\",\"\"\n"
    "2,2,\"GPU\",256,8,4,8,90500,30112,2200,8861873366774386336,\"gfx950\",\"AMD\",\"AMD Instinct MI350X\","
    "\"ip discovery\"\n";

/* Two CPX partitions of an MI300X after the CPUs (nodes 2 and 3), then a
 * non-partitionable gfx90a: the traced agent by Agent_Id, partition by Num_Xcc. */
static const char PARTS[] =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cu_Count\",\"Num_Xcc\",\"Name\"\n"
    "0,0,\"CPU\",0,0,\"EPYC\"\n"
    "1,1,\"CPU\",0,0,\"EPYC\"\n"
    "2,2,\"GPU\",38,1,\"gfx942\"\n"
    "3,3,\"GPU\",38,1,\"gfx942\"\n"
    "4,4,\"GPU\",152,4,\"gfx942\"\n"
    "5,5,\"GPU\",104,1,\"gfx90a\"\n";

static void test_traced_agent(void **state)
{
    (void)state;
    fp_agent_info ai;
    fp_err err = {0};
    assert_int_equal(fp_agent_info_parse(PARTS, sizeof PARTS - 1, "p.csv", &ai, &err), 0);
    assert_ptr_equal(fp_agent_info_for(&ai, "Agent 3"), &ai.rows[3]);
    assert_ptr_equal(fp_agent_info_for(&ai, "Agent 2"), fp_agent_info_first_gpu(&ai));
    assert_ptr_equal(fp_agent_info_for(&ai, "GPU 1"), &ai.rows[3]); /* type-relative: the 2nd GPU */
    assert_null(fp_agent_info_for(&ai, "Agent 0"));                 /* a CPU */
    assert_null(fp_agent_info_for(&ai, "Agent 9"));
    assert_null(fp_agent_info_for(&ai, "Agent 3x"));
    assert_null(fp_agent_info_for(&ai, "Agent "));
    assert_null(fp_agent_info_for(&ai, NULL));
    assert_string_equal(fp_agent_partition(&ai.rows[2]), "CPX");
    assert_string_equal(fp_agent_partition(&ai.rows[4]), "DPX");
    assert_null(fp_agent_partition(&ai.rows[5])); /* gfx90a: no partition modes */
    assert_null(fp_agent_partition(&ai.rows[0]));
    fp_agent_info_free(&ai);
}

static void test_real_rows(void **state)
{
    (void)state;
    fp_agent_info ai;
    fp_err err = {0};
    assert_int_equal(fp_agent_info_parse(AGENTS, sizeof AGENTS - 1, "a.csv", &ai, &err), 0);
    assert_int_equal(ai.nrows, 2);
    assert_int_equal(fp_agent_info_check(&ai, "a.csv", &err), 0);
    assert_false(fp_agent_is_gpu(&ai.rows[0]));
    const fp_agent_row *g = fp_agent_info_first_gpu(&ai);
    assert_ptr_equal(g, &ai.rows[1]);
    assert_int_equal(g->line, 3);
    assert_string_equal(g->name, "gfx950");
    assert_string_equal(g->product_name, "AMD Instinct MI350X");
    assert_string_equal(g->model_name, "ip discovery");
    long long v;
    assert_true(fp_rp_int(&g->gfx_target_version, &v));
    assert_int_equal(v, 90500);
    assert_int_equal(fp_rp_int_sp(&g->device_id, -1), 30112);
    assert_int_equal(fp_rp_int_sp(&g->cu_count, -1), 256);
    assert_int_equal(fp_rp_int_sp(&g->num_xcc, -1), 8);
    assert_int_equal(fp_rp_int_sp(&g->node_id, -1), 2);
    assert_true(g->max_engine_clk_fcompute.d == 2200.0);
    assert_false(fp_rp_have(&g->array_count)); /* not in this header */
    fp_agent_info_free(&ai);
}

static void test_no_gpu_and_bad_input(void **state)
{
    (void)state;
    fp_agent_info ai;
    fp_err err = {0};
    const char *cpu = "\"Agent_Type\",\"Name\"\n\"CPU\",\"x\"\n";
    assert_int_equal(fp_agent_info_parse(cpu, strlen(cpu), "a.csv", &ai, &err), 0);
    assert_null(fp_agent_info_first_gpu(&ai));
    fp_agent_info_free(&ai);
    const char *notype = "\"Name\"\n\"gfx950\"\n";
    assert_int_equal(fp_agent_info_parse(notype, strlen(notype), "a.csv", &ai, &err), 0);
    assert_int_equal(fp_agent_info_check(&ai, "a.csv", &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_string_equal(err.message, "a.csv: no Agent_Type column: not an agent_info.csv");
    fp_err_clear(&err);
    assert_null(fp_agent_info_first_gpu(&ai)); /* no type: not a GPU row */
    fp_agent_info_free(&ai);
    const char *ragged = "\"Agent_Type\",\"Name\"\n\"GPU\"\n";
    assert_int_not_equal(fp_agent_info_parse(ragged, strlen(ragged), "a.csv", &ai, &err), 0);
    assert_int_equal(err.code, FP_BAD_INPUT);
    fp_err_clear(&err);
    assert_int_not_equal(fp_agent_info_load("/nonexistent/agent_info.csv", &ai, &err), 0);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_err_clear(&err);
}

static void test_beside(void **state)
{
    (void)state;
    char *p = fp_agent_info_beside("rocprof/big/kernel_trace.csv", "kernel_trace.csv");
    assert_string_equal(p, "rocprof/big/agent_info.csv");
    free(p);
    p = fp_agent_info_beside("pmc/pass_1/123_counter_collection.csv", "counter_collection.csv");
    assert_string_equal(p, "pmc/pass_1/123_agent_info.csv");
    free(p);
    assert_null(fp_agent_info_beside("x.csv", "kernel_trace.csv"));
}

/* The memory partition mode from amdgpu's sysfs: Location_Id 0x7500 in domain 1 is the PCI
 * device 0001:75:00.0 (bus << 8 | device << 3 | function); anything but NPSn is refused. */
static void test_memory_partition(void **state)
{
    (void)state;
    static const char ROWS[] = "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Location_Id\",\"Domain\",\"Name\"\n"
                               "2,2,\"GPU\",29952,1,\"gfx942\"\n"
                               "3,3,\"GPU\",29963,0,\"gfx942\"\n" /* 0x750b: 0000:75:01.3 */
                               "4,4,\"GPU\",,,\"gfx942\"\n";
    char root[] = "/tmp/fp_test_nps_XXXXXX";
    assert_non_null(mkdtemp(root));
    char path[256];
    static const char *const dev[][2] = {{"0001:75:00.0", "NPS4\n"}, {"0000:75:01.3", "bogus\n"}};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dev[i][0]);
        assert_int_equal(mkdir(path, 0700), 0);
        snprintf(path, sizeof path, "%s/%s/current_memory_partition", root, dev[i][0]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(dev[i][1], f);
        fclose(f);
    }
    setenv("FLYPROF_SYSFS_PCI", root, 1);
    fp_agent_info ai;
    fp_err err = {0};
    assert_int_equal(fp_agent_info_parse(ROWS, sizeof ROWS - 1, "m.csv", &ai, &err), 0);
    char nps[8] = "";
    assert_true(fp_agent_memory_partition(&ai.rows[0], nps, sizeof nps));
    assert_string_equal(nps, "NPS4");
    assert_false(fp_agent_memory_partition(&ai.rows[1], nps, sizeof nps)); /* not a mode */
    assert_false(fp_agent_memory_partition(&ai.rows[2], nps, sizeof nps)); /* no location */
    assert_false(fp_agent_memory_partition(NULL, nps, sizeof nps));
    unsetenv("FLYPROF_SYSFS_PCI");
    fp_agent_info_free(&ai);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_rows),
        cmocka_unit_test(test_no_gpu_and_bad_input),
        cmocka_unit_test(test_beside),
        cmocka_unit_test(test_traced_agent),
        cmocka_unit_test(test_memory_partition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
