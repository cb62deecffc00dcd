/*
 * fs.h - filesystem helpers: whole-file reads with a size cap, atomic writes
 * (temp file + fsync + rename, so a crash never leaves a half-written artifact),
 * directory listing in a stable order, and path joining.
 */
#ifndef FLYPROF_FS_H
#define FLYPROF_FS_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"
#include "flyprof/strbuf.h"

/* Largest single input file flyprof will read into memory (1 GiB): anything
 * bigger is not an ATT artifact and would only exhaust memory. */
#define FP_MAX_INPUT_FILE ((size_t)1 << 30)

bool fp_is_dir(const char *path);
bool fp_is_file(const char *path);

/* Read a whole file into sb (appends). Missing -> FP_NO_ARTIFACT, unreadable
 * -> FP_IO_ERROR, larger than FP_MAX_INPUT_FILE -> FP_BAD_INPUT. */
int fp_read_file(const char *path, fp_sb *sb, fp_err *err);

/* A read-only view of a whole file: mmap'ed (pages come from the page cache with
 * no copy and no per-page zero-fill fault) or, for empty/unmappable files, read
 * into memory. Same errors as fp_read_file. Always release with fp_file_unmap. */
typedef struct fp_file_view {
    const char *data;
    size_t len;
    void *map_;    /* private */
    fp_sb copy_;   /* private */
} fp_file_view;
int fp_file_map(const char *path, fp_file_view *v, fp_err *err);
void fp_file_unmap(fp_file_view *v);

/* Write data atomically to path (creates the parent directories). */
/* The same, with the content written by fill(fd, ctx), which returns 0 or an errno. */
int fp_write_atomic_fn(const char *path, int (*fill)(int fd, void *ctx), void *ctx, fp_err *err);
int fp_write_atomic(const char *path, const void *data, size_t len, fp_err *err);

/* mkdir -p. */
int fp_mkdir_p(const char *path, fp_err *err);

/* Join two path parts with exactly one '/'. Returns malloc'd string. */
char *fp_path_join(const char *a, const char *b);

/* Last path component, ignoring nothing (Python's os.path.basename: "a/b/" -> ""). */
const char *fp_path_base(const char *path);

/* Absolute form of path (realpath if it exists, else cwd-joined). malloc'd. */
char *fp_path_abs(const char *path);

/* Sorted (strcmp) list of entry names in dir, excluding "." and "..".
 * *names is a malloc'd array of malloc'd strings; free with fp_strv_free. */
int fp_list_dir(const char *dir, char ***names, size_t *count, fp_err *err);
void fp_strv_free(char **v, size_t n);

/* True when `name` is a plain file name: non-empty, no '/', not "." or "..".
 * Used to refuse hostile leaves in snapshots.json and similar indirections. */
bool fp_is_plain_name(const char *name);

#endif
