/* fuzz_counters_csv - a rocprofv3 counter_collection.csv: the CSV tokenizer,
 * the PMC reader and `flyprof counters --csv` (records, metrics, interpretation). */
#include <stdlib.h>

#include "flyprof/counters.h"
#include "flyprof/csv.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fp_csv csv;
    fp_err err = {0};
    int rc = fp_csv_parse((const char *)data, size, "x.csv", &csv, &err);
    fz_check_err(rc, &err, "fp_csv_parse");
    fp_err_clear(&err);
    if (rc == 0) {
        int c = fp_csv_col(&csv, "Counter_Value");
        for (size_t r = 0; r < csv.nrows; r++)
            (void)fp_csv_int(&csv, r, c, 0, NULL);
        fp_csv_free(&csv);
    }
    char *p = fz_write("c/pass_1/run_counter_collection.csv", data, size);
    fp_pmc_set s;
    fp_pmc_set_init(&s);
    rc = fp_pmc_load_csv(&s, p, &err);
    fz_check_err(rc, &err, "fp_pmc_load_csv");
    fp_err_clear(&err);
    fp_pmc_set_free(&s);
    /* the file as two processes of one pass, then the agent / process choice (issue 18) */
    const char *two[] = {p, p};
    fp_pmc_set_init(&s);
    rc = fp_pmc_load_csv_run(&s, two, 2, &err);
    fz_check_err(rc, &err, "fp_pmc_load_csv_run");
    fp_err_clear(&err);
    if (rc == 0) {
        fp_pmc_kept k;
        fp_pmc_keep(&s, "Agent 2", NULL, &k);
        for (size_t i = 0; i < s.nd; i++) /* the index still finds every kept dispatch */
            if (fp_pmc_dispatch_get(&s, s.d[i].pass, s.d[i].pid, s.d[i].agent, s.d[i].dispatch_id, s.d[i].kernel) !=
                &s.d[i])
                abort();
    }
    fp_pmc_set_free(&s);
    const char *argv[] = {"counters", "--csv", p};
    fz_run(NULL, 3, argv);
    free(p);
    return 0;
}
