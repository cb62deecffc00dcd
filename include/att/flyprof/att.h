/*
 * att.h - reading one decoded ATT dispatch directory (ui_output_agent_*_dispatch_*):
 * code.json rows and the snapshots.json source map. This layer knows the file
 * formats (../shared/reference/rocprof-formats.md §5) and nothing about policy:
 * it reports what it coerced or refused and lets commands decide.
 */
#ifndef FLYPROF_ATT_H
#define FLYPROF_ATT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"

/* One row of code.json: [ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle]. */
typedef struct fp_inst {
    char *isa;        /* col 0, never NULL; owned by the fp_code (do not free) */
    char *source;     /* col 3, "" when empty or null; "path:line[ -> caller:line]..." Equal
                       * sources of one fp_code share one pointer (interned), so a pointer
                       * compare is a fast equality test; a string compare stays correct. */
    int64_t index;    /* col 2 LineNumber: the key wave files and waitcnt edges use */
    bool index_ok;    /* col 2 was a JSON integer */
    int64_t codeobj;  /* col 4 */
    int64_t vaddr;    /* col 5 */
    int64_t hit;      /* col 6: executions summed over traced waves */
    int64_t latency;  /* col 7: cycles (stall + issue) */
    int64_t stall;    /* col 8: cycles blocked before issue */
    int64_t idle;     /* col 9: cycles idle before the first issue attempt */
} fp_inst;

typedef struct fp_code {
    fp_inst *rows;        /* every row, in file order, kernel header rows ("; sym") included */
    size_t n;
    char *symbol;         /* name from the first "; <symbol>" row, or NULL */
    bool null_code;       /* "code": null -> an empty shell */
    size_t coerced_cells; /* numeric cells (cols 2,4-9) that were not integers and read as 0 */
    /* index -> row position, for O(1) lookups from wave records */
    size_t *pos_of_index; /* SIZE_MAX where no row has that index */
    int64_t max_index;    /* pos_of_index has max_index + 1 entries (0 when empty) */
    struct fp_code_pool *pool_; /* the rows' strings (private to code.c) */
} fp_code;

/* Load <dir>/code.json. Missing -> NO_ARTIFACT; malformed JSON, a row that is not
 * an array of >= 10 cells, a non-string ISA -> BAD_INPUT. Numeric cells that are
 * not integers (floats, strings, null, out of int64 range) read as 0, as the seed
 * analyzer does, and are counted in coerced_cells. */
int fp_code_load(const char *dir, fp_code *out, fp_err *err);
/* Same, from a buffer (for tests); `name` is used in messages. */
int fp_code_parse(const char *buf, size_t len, const char *name, fp_code *out, fp_err *err);
/* The general (jscan) reader alone, without the fast path: tests check that both agree. */
int fp_code_parse_jscan(const char *buf, size_t len, const char *name, fp_code *out, fp_err *err);
void fp_code_free(fp_code *code);
/* Row for a LineNumber, or NULL when out of range / absent. */
const fp_inst *fp_code_at(const fp_code *code, int64_t index);

/* One source file copied by the decoder, keyed by its original absolute path. */
typedef struct fp_source_file {
    char *vpath;   /* "/sgl-workspace/.../kernel.py" */
    char *local;   /* "source_0_kernel.py" (inside the dispatch dir) */
    char **lines;  /* universal newlines: \r\n, \r and \n all end a line */
    size_t nlines;
} fp_source_file;

typedef struct fp_snapshots {
    fp_source_file *files;
    size_t n;
    size_t refused; /* leaves naming a path outside the dispatch dir (never read) */
    size_t missing; /* leaves whose file does not exist (skipped, like the seed) */
} fp_snapshots;

/* Load <dir>/snapshots.json. Absent -> 0 with n == 0. Malformed -> BAD_INPUT.
 * Leaves must be plain file names inside dir; anything else is refused. */
int fp_snapshots_load(const char *dir, fp_snapshots *out, fp_err *err);
void fp_snapshots_free(fp_snapshots *s);
const fp_source_file *fp_snapshots_find(const fp_snapshots *s, const char *vpath);
/* Split text into lines with universal newlines (exposed for tests). */
void fp_split_lines(const char *text, size_t len, char ***lines, size_t *n);

#endif
