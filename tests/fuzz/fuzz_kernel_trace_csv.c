/* fuzz_kernel_trace_csv - a rocprofv3 kernel_trace.csv through its one reader
 * (src/rocprof/kernel_trace.c: every row typed, the row-choice rule with each
 * match/timestamp variant, the fast path), the same bytes as an agent_info.csv
 * (agent_info.c), discovery's reader (kernel candidates, registers) and
 * `hotspots --kernel-trace` (the register / LDS counts of the analysed kernel's
 * row) on the shipped example dispatch. */
#include <stdlib.h>
#include <string.h>

#include "flyprof/agent_info.h"
#include "flyprof/discovery.h"
#include "flyprof/kernel_trace.h"
#include "fuzz_common.h"

static void pick_all(const fp_kernel_trace *kt)
{
    static const fp_kt_match m[] = {FP_KT_EXACT, FP_KT_CONTAINS, FP_KT_EXACT_ELSE_CONTAINS};
    for (size_t r = 0; r < kt->nrows && r < 4; r++)
        for (size_t i = 0; i < 3; i++) {
            fp_kt_pick p;
            fp_kt_pick_rows(kt, kt->rows[r].kernel_name, m[i], i == 1 ? FP_KT_TIME_BOUNDED : FP_KT_TIME_ANY, &p);
            if (kt->rows[r].kernel_name && (p.n == 0 || p.first >= kt->nrows || p.last >= kt->nrows))
                abort(); /* a row always matches its own name */
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *disp;
    if (!disp)
        disp = fz_copy_tree(FZ_EXAMPLE "/" FZ_EXAMPLE_DISPATCH, "kt_dispatch");
    char *p = fz_write("kt/run_kernel_trace.csv", data, size);
    fp_err err = {0};
    fp_kernel_trace kt;
    int rc = fp_kernel_trace_parse((const char *)data, size, "fuzz.csv", &kt, &err);
    fz_check_err(rc, &err, "fp_kernel_trace_parse");
    fp_err_clear(&err);
    if (rc == 0) {
        pick_all(&kt);
        (void)fp_kernel_trace_check(&kt, "fuzz.csv", FP_KT_NEED_REGS, NULL);
        fp_kernel_trace_free(&kt);
    }
    fp_agent_info ai;
    rc = fp_agent_info_parse((const char *)data, size, "fuzz.csv", &ai, &err);
    fz_check_err(rc, &err, "fp_agent_info_parse");
    fp_err_clear(&err);
    if (rc == 0) {
        (void)fp_agent_info_first_gpu(&ai);
        fp_agent_info_free(&ai);
    }
    fp_kcands k;
    /* the same bytes as the stats CSV and as the trace CSV */
    rc = fp_discovery_load_csv(p, p, NULL, &k, &err);
    fz_check_err(rc, &err, "fp_discovery_load_csv");
    fp_err_clear(&err);
    if (rc == 0)
        fp_kcands_free(&k);
    const char *argv[] = {"hotspots", disp, "--kernel-trace", p};
    fz_run(NULL, 4, argv);
    free(p);
    return 0;
}
