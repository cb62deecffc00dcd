/*
 * rocpd.h - what every rocpd results.db reader checks first (issue 18).
 *
 * flyprof reads the rocpd schema of ROCm 7.0-7.2 (rocpd_metadata
 * schema_version "3", 3.0.x/3.0.2 with HIP graph ids in 7.13): the views and
 * columns it joins on (rocpd_kernel_dispatch.agent_id, rocpd_pmc_event, ...).
 * rocm-systems' tree already has schema 4.1.0, whose dispatches have no
 * agent_id: read as 3.x it would give wrong joins or SQL errors, so any
 * schema_version whose major is not 3 is BAD_INPUT naming the version. A
 * database without rocpd_metadata (hand-made, older) is accepted.
 */
#ifndef FLYPROF_ROCPD_H
#define FLYPROF_ROCPD_H

#include "flyprof/error.h"

struct sqlite3;

#define FP_ROCPD_SCHEMA_MAJOR 3

/* 0 when db's schema_version is 3.x or absent; -1 with BAD_INPUT otherwise. */
int fp_rocpd_schema_check(struct sqlite3 *db, const char *path, fp_err *err);

#endif
