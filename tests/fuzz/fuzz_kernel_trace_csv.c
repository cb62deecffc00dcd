/* fuzz_kernel_trace_csv - a rocprofv3 kernel_trace.csv through its one reader
 * (src/rocprof/kernel_trace.c: every row typed, the row-choice rule with each
 * match/timestamp variant, the fast path), the same bytes as an agent_info.csv
 * (agent_info.c), discovery's reader (kernel candidates, registers) and
 * `hotspots --kernel-trace` (the register / LDS counts of the analysed kernel's
 * row) on the shipped example dispatch; and the needle reader of csv.c against
 * the full reader (same verdict and message; exactly the rows whose cells hold
 * the needle, same cells, same line numbers). */
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <stdbool.h>

#include "flyprof/agent_info.h"
#include "flyprof/csv.h"
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

/* A needle of up to 4 [A-Za-z0-9_] bytes taken from the input (so it often hits):
 * without ',', quotes or line ends it lies inside one cell, so "the row's bytes
 * hold it" and "one of the row's cells holds it" are the same test. */
static void check_matching(const uint8_t *data, size_t size)
{
    char needle[5] = "a";
    const uint8_t *nl = memchr(data, '\n', size);
    size_t k = 0;
    for (size_t i = nl ? (size_t)(nl - data) + 1 : 0; i < size && k < 4; i++) {
        if (isalnum(data[i]) || data[i] == '_')
            needle[k++] = (char)data[i];
        else if (k)
            break;
    }
    if (k)
        needle[k] = '\0';
    fp_csv all, some;
    fp_err e1 = {0}, e2 = {0};
    int r1 = fp_csv_parse((const char *)data, size, "f.csv", &all, &e1);
    int r2 = fp_csv_parse_matching((const char *)data, size, "f.csv", needle, &some, &e2);
    if (r1 != r2 || e1.code != e2.code || strcmp(e1.message, e2.message))
        abort();
    fp_err_clear(&e1);
    fp_err_clear(&e2);
    if (r1 != 0)
        return;
    if (memchr(data, '\0', size)) {
        fp_csv_free(&all); /* a NUL cuts the cells as C strings: strstr cannot be the oracle */
        fp_csv_free(&some);
        return;
    }
    size_t j = 0;
    for (size_t r = 0; r < all.nrows; r++) {
        bool has = false;
        for (size_t c = 0; c < all.ncols && !has; c++)
            has = strstr(all.rows[r][c], needle) != NULL;
        if (!has)
            continue;
        if (j >= some.nrows || some.line[j] != all.line[r])
            abort();
        for (size_t c = 0; c < all.ncols; c++)
            if (strcmp(some.rows[j][c], all.rows[r][c]))
                abort();
        j++;
    }
    if (j != some.nrows || some.ncols != all.ncols)
        abort();
    fp_csv_free(&all);
    fp_csv_free(&some);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *disp;
    if (!disp)
        disp = fz_copy_tree(FZ_EXAMPLE "/" FZ_EXAMPLE_DISPATCH, "kt_dispatch");
    char *p = fz_write("kt/run_kernel_trace.csv", data, size);
    check_matching(data, size);
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
