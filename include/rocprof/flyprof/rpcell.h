/*
 * rpcell.h - one numeric cell of a rocprofv3 CSV, parsed once into every
 * reading today's consumers apply to it (the kernel_trace.csv and
 * agent_info.csv readers fill these; see kernel_trace.h, agent_info.h).
 *
 * Consumers grew three readings of "a number" and the refactor that made the
 * readers one (issue 16) kept each of them byte for byte:
 *   FP_RP_INT     fp_parse_ll: the whole cell is a decimal integer (strtoll,
 *                 leading white space and a sign allowed, no trailing bytes);
 *   FP_RP_INT_SP  the seed analyzer's reading (fp_csv_int): spaces trimmed on
 *                 both sides, at most 20 characters, then the same integer;
 *   FP_RP_REAL    strtod of the whole, non-empty cell (accepts 1.5, 1e3, inf).
 * A real rocprofv3 cell ("124", "2016989883593149") has all three, with
 * d == (double)i. A later issue chooses one reading per column.
 */
#ifndef FLYPROF_RPCELL_H
#define FLYPROF_RPCELL_H

#include <stdbool.h>

enum {
    FP_RP_HAVE = 1,    /* the header has the column (the cell may still be empty) */
    FP_RP_INT = 2,     /* i holds the fp_parse_ll value */
    FP_RP_INT_SP = 4,  /* i holds the fp_csv_int value */
    FP_RP_REAL = 8,    /* d holds the strtod value */
};

typedef struct fp_rp_num {
    long long i;     /* the integer (FP_RP_INT or FP_RP_INT_SP; equal when both) */
    double d;        /* the number (FP_RP_REAL) */
    unsigned char f; /* FP_RP_* bits; 0 = the column is absent */
} fp_rp_num;

/* Fill n from a cell (NULL = the column is absent). Plain digit strings take a
 * short path; every other cell goes through the three library parses. */
void fp_rp_num_parse(const char *cell, fp_rp_num *n);

static inline bool fp_rp_have(const fp_rp_num *n) { return n->f & FP_RP_HAVE; }
/* The strict integer reading; false (and *v untouched) when the cell is not one. */
static inline bool fp_rp_int(const fp_rp_num *n, long long *v)
{
    if (!(n->f & FP_RP_INT))
        return false;
    *v = n->i;
    return true;
}
/* The seed's reading: the integer, else dflt (also when the column is absent). */
static inline long long fp_rp_int_sp(const fp_rp_num *n, long long dflt) { return n->f & FP_RP_INT_SP ? n->i : dflt; }
static inline bool fp_rp_real(const fp_rp_num *n, double *d)
{
    if (!(n->f & FP_RP_REAL))
        return false;
    *d = n->d;
    return true;
}

#endif
