/*
 * rpenv.h - the environment flyprof hands rocprofv3 (issue 18, item 1).
 *
 * rocprofv3 reads every ROCPROF_* variable as a default: ROCPROF_OUTPUT_PATH /
 * ROCPROF_OUTPUT_FILE_NAME become the defaults of -d / -o, and with an input
 * file whose jobs set output_directory / output_file the 7.0 script raises
 * "RuntimeError: conflicting value for output_directory" (SDK 1.3: "Option ...
 * has conflicting values"); ROCPROF_OUTPUT_FORMAT, ROCPROF_KERNEL_FILTER_*,
 * ROCPROF_ATT_PARAM_*, ROCPROF_COUNTERS silently change what is collected
 * (rocprofv3.py of ROCm 7.0 = SDK 1.0.0 and of rocm-systems 2026). flyprof
 * passes every setting explicitly, so a stale shell variable can only do harm:
 * each inherited ROCPROF_* is removed from rocprofv3's environment and named
 * in a warning and in the provenance (capture.json / counters.json).
 *
 * ROCPROF_ATT_LIBRARY_PATH is the one a user sets on purpose (the trace
 * decoder's directory). It is removed too - ROCm 7.0-7.2 iterate the string
 * character by character, so "/opt/x" walks "/" (the whole filesystem) - and
 * its directories are handed back for the job's att_library_path instead.
 */
#ifndef FLYPROF_RPENV_H
#define FLYPROF_RPENV_H

#include <stddef.h>

#define FP_ROCPROF_ENV_PREFIX "ROCPROF_"
#define FP_ROCPROF_ATT_LIB_ENV "ROCPROF_ATT_LIBRARY_PATH"

/* The names of the ROCPROF_* variables in the process environment, sorted
 * (malloc'd array of malloc'd strings, free with fp_strv_free); returns n. */
size_t fp_rocprof_env_inherited(char ***names);

/* The directories of ROCPROF_ATT_LIBRARY_PATH (colon-separated, empty entries
 * dropped), for att_library_path; returns n (0 when unset). */
size_t fp_rocprof_att_lib_dirs(char ***dirs);

#endif
