/* fuzz_kernel_filter - `kernels --filter` / capture's ranking: the regex cost
 * guard in front of regcomp (src/rocprof/discovery.c) and the match over a few
 * kernel names. Input: the filter, then '\n'-separated names. A filter the guard
 * accepts must compile quickly (no bomb) and the ranking must stay in range. */
#include <stdlib.h>
#include <string.h>

#include "flyprof/discovery.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    buf[size] = '\0';
    if (strlen(buf) != size) { /* a NUL cannot come through argv */
        free(buf);
        return 0;
    }
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    fp_kcand v[8];
    memset(v, 0, sizeof v);
    fp_kcands k = {.v = v, .source = "csv", .device_id = -1};
    char *names = nl ? nl + 1 : (char *)"";
    for (char *save = NULL, *t = strtok_r(names, "\n", &save); t && k.n < 8; t = strtok_r(NULL, "\n", &save)) {
        v[k.n].name = t;
        v[k.n].total_ns = (long long)k.n * 1000;
        k.n++;
    }
    fp_krank r;
    fp_err err = {0};
    int rc = fp_kernel_rank(&k, buf, 0, &r, &err);
    fz_check_err(rc, &err, "fp_kernel_rank");
    if (rc == 0) {
        if (r.n > k.n || r.matched > k.n || r.total_ns < 0)
            abort();
        fp_krank_free(&r);
    }
    free(buf);
    return 0;
}
