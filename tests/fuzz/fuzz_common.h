/*
 * fuzz_common.h - what every libFuzzer target of tests/fuzz/ shares: a private
 * scratch directory, writing the input where a reader expects a file, running a
 * command in-process exactly as main.c does, and the oracles (the envelope is
 * one valid UTF-8 JSON document, a failure carries a typed, non-INTERNAL code).
 *
 * The same target sources build two ways (tests/fuzz/CMakeLists.txt): with
 * clang -fsanitize=fuzzer (FLYPROF_FUZZ=ON) as fuzz_<target>, and with any
 * compiler against replay_main.c as replay_<target>, which ctest runs over the
 * committed seeds and regression inputs (no clang needed).
 */
#ifndef FLYPROF_FUZZ_COMMON_H
#define FLYPROF_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The per-process scratch dir (under $FLYPROF_FUZZ_TMP, /dev/shm or /tmp),
 * created on first use and removed at exit. */
const char *fz_dir(void);
/* <fz_dir>/<rel> (malloc'd). */
char *fz_path(const char *rel);
/* Write data to <fz_dir>/<rel> (parents created, plain write: no fsync), return its path (malloc'd). */
char *fz_write(const char *rel, const uint8_t *data, size_t size);
/* Copy a directory tree (regular files and dirs) into <fz_dir>/<rel>; aborts on failure. */
char *fz_copy_tree(const char *src, const char *rel);
/* Remove <fz_dir>/<rel> recursively (missing is fine). */
void fz_remove(const char *rel);

/* Run `flyprof [--bundle B] <argv...>` in-process (argv[0] is the command name),
 * JSON format, quiet. Checks the oracles (aborts on a violation) and returns the
 * exit status main would return. */
int fz_run(const char *bundle, int argc, const char **argv);

/* Abort unless text is valid UTF-8 and one JSON document. */
void fz_check_json_text(const char *text, const char *what);
/* Abort when a failed call's error is untyped or INTERNAL. */
struct fp_err;
void fz_check_err(int rc, const struct fp_err *err, const char *what);

/* The shipped synthetic example (a bundle with att/ and rocprof/). */
#ifndef FZ_SRC_DIR
#define FZ_SRC_DIR "."
#endif
#define FZ_EXAMPLE FZ_SRC_DIR "/examples/synthetic_gemm"
#define FZ_EXAMPLE_DISPATCH "att/ui_output_agent_4242_dispatch_3"

#endif
