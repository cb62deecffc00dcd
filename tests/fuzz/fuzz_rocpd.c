/* fuzz_rocpd - a rocpd results.db image (SQLite) written to a temp file: the
 * counter reader, the discovery reader, and `flyprof counters --db`. */
#include <stdlib.h>

#include "flyprof/counters.h"
#include "flyprof/discovery.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a fresh name per input: SQLite must not see a -wal/-journal of the previous one */
    fz_remove("r");
    char *p = fz_write("r/run_results.db", data, size);
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    fp_err err = {0};
    int rc = fp_pmc_load_rocpd_ex(&s, p, true, &err);
    fz_check_err(rc, &err, "fp_pmc_load_rocpd");
    fp_err_clear(&err);
    fp_pmc_set_free(&s);
    fp_kcands k;
    rc = fp_discovery_load_rocpd(p, &k, &err);
    fz_check_err(rc, &err, "fp_discovery_load_rocpd");
    fp_err_clear(&err);
    if (rc == 0)
        fp_kcands_free(&k);
    const char *argv[] = {"counters", "--db", p};
    fz_run(NULL, 3, argv);
    free(p);
    return 0;
}
