/*
 * rpcell.c - the three readings of a numeric rocprofv3 CSV cell (rpcell.h).
 */
#include "flyprof/rpcell.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/cli.h"
#include "flyprof/csv.h"

void fp_rp_num_parse(const char *s, fp_rp_num *n)
{
    n->i = 0;
    n->d = 0;
    n->f = 0;
    if (!s)
        return;
    n->f = FP_RP_HAVE;
    /* 1..18 digits: every reading agrees, and (double)v is strtod's correctly
     * rounded value (both round the same exact integer to nearest). */
    long long v = 0;
    size_t k = 0;
    while (k < 18 && s[k] >= '0' && s[k] <= '9')
        v = v * 10 + (s[k++] - '0');
    if (k > 0 && s[k] == '\0') {
        n->i = v;
        n->d = (double)v;
        n->f |= FP_RP_INT | FP_RP_INT_SP | FP_RP_REAL;
        return;
    }
    if (fp_parse_ll(s, &v) == 0) {
        n->i = v;
        n->f |= FP_RP_INT;
    }
    if (fp_csv_parse_int(s, &v)) {
        n->i = v;
        n->f |= FP_RP_INT_SP;
    }
    if (*s) {
        char *end;
        double d = strtod(s, &end);
        if (!*end) {
            n->d = d;
            n->f |= FP_RP_REAL;
        }
    }
}
