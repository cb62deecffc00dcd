/* fuzz_kernel_trace_csv - a rocprofv3 kernel_trace.csv: discovery's reader
 * (kernel candidates, registers) and `hotspots --kernel-trace` (the register /
 * LDS counts of the analysed kernel's row) on the shipped example dispatch. */
#include <stdlib.h>

#include "flyprof/discovery.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *disp;
    if (!disp)
        disp = fz_copy_tree(FZ_EXAMPLE "/" FZ_EXAMPLE_DISPATCH, "kt_dispatch");
    char *p = fz_write("kt/run_kernel_trace.csv", data, size);
    fp_kcands k;
    fp_err err = {0};
    /* the same bytes as the stats CSV and as the trace CSV */
    int rc = fp_discovery_load_csv(p, p, NULL, &k, &err);
    fz_check_err(rc, &err, "fp_discovery_load_csv");
    fp_err_clear(&err);
    if (rc == 0)
        fp_kcands_free(&k);
    const char *argv[] = {"hotspots", disp, "--kernel-trace", p};
    fz_run(NULL, 4, argv);
    free(p);
    return 0;
}
