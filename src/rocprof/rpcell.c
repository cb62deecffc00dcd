/*
 * rpcell.c - the three readings of a numeric rocprofv3 CSV cell (rpcell.h).
 */
#include "flyprof/rpcell.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/cli.h"

/* fp_csv_int's reading: spaces trimmed, 1..20 characters, strtoll of the whole. */
static bool int_sp(const char *c, long long *out)
{
    while (*c == ' ')
        c++;
    const char *e = c + strlen(c);
    while (e > c && e[-1] == ' ')
        e--;
    if (e == c || (size_t)(e - c) > 20)
        return false;
    char tmp[24];
    memcpy(tmp, c, (size_t)(e - c));
    tmp[e - c] = '\0';
    char *end = NULL;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (errno == ERANGE || !end || *end)
        return false;
    *out = v;
    return true;
}

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
    if (int_sp(s, &v)) {
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
