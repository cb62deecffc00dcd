/*
 * map_doc.h - map.json (`flyprof map`, docs/commands/map.md) as a typed document:
 * the dispatch mapped, the selection (--code-line N | --source-line FILE:LINE |
 * the top instructions by stall), one mapping per selected instruction (its
 * source chain, cycles and a snippet), whole-kernel mapping coverage, the
 * per-file rollup and the flamegraph's files. Filled by src/cmd/cmd_map.c (the
 * snippets by fp_snippet, map.h), written by the table in src/model/map_doc.c;
 * read back (strictly) by the report loader for the coverage figure.
 *
 * Cycles are the decoder's cycles (code.json columns); percentages are 0..100 with
 * 2 decimals. The command's envelope `data` is the same document with `mappings`
 * cut to --limit.
 */
#ifndef FLYPROF_MAP_DOC_H
#define FLYPROF_MAP_DOC_H

#include "flyprof/model.h"

/* One source line of a snippet. */
typedef struct fp_map_snip_line {
    int64_t n;  /* 1-based line number */
    char *text; /* the line, as in the snapshot */
    bool hot;   /* the selected line */
} fp_map_snip_line;

/* The lines around a frame's line, from the decoder's source snapshots. */
typedef struct fp_map_snippet {
    char *file;     /* the snapshot's virtual path (as code.json spells it) */
    char *snapshot; /* the local copy's file name in the dispatch dir */
    char *match;    /* "exact" | "suffix": how the frame's file matched the snapshot */
    int64_t line;   /* the frame's line */
    fp_map_snip_line *lines;
    size_t nlines;
} fp_map_snippet;

/* One frame of a source chain, innermost first. */
typedef struct fp_map_frame {
    char *file;   /* path as written in code.json */
    fp_optd line; /* null when the text after the last ':' is not a line number */
} fp_map_frame;

/* One selected instruction. */
typedef struct fp_map_mapping {
    int64_t code_line;     /* code.json LineNumber */
    char *isa;             /* the instruction text */
    char *addr;            /* "0x..." virtual address */
    char *cls;             /* taxonomy class name ("vmcnt", "mfma", ...) */
    char *source;          /* the source chain, "<unmapped>" when empty */
    fp_map_frame *frames;
    size_t nframes;
    fp_optd matched_frame; /* --source-line: the frame that matched; else null */
    int64_t hit;           /* executions summed over traced waves */
    int64_t latency;       /* cycles (stall + issue) */
    int64_t stall;         /* cycles blocked before issue */
    fp_map_snippet *snippet; /* NULL: no snapshot of the frame's file / line */
    char *confidence;      /* "exact" | "suffix" | "source_only" | "none" */
} fp_map_mapping;

/* Per innermost source file (or "<unmapped>"), by latency desc. */
typedef struct fp_map_file {
    char *file;
    int64_t instructions; /* counted instructions */
    int64_t latency, stall; /* summed cycles (saturated on overflow) */
} fp_map_file;

typedef struct fp_map_dispatch {
    char *dir;         /* the dispatch dir (absolute; bundle-relative in map.json) */
    char *name;        /* ui_output_agent_*_dispatch_* */
    char *symbol;      /* the kernel symbol from code.json, or null */
    char *tag;         /* capture tag, or null */
    fp_optd dispatch;  /* dispatch number, or null */
    char *resolved_by; /* how the dispatch was chosen (dispatch.h) */
} fp_map_dispatch;

typedef struct fp_map_selection {
    char *kind;          /* "code-line" | "source-line" | "top" */
    fp_numstr query;     /* --code-line N (a number), --source-line FILE:LINE (a string), else null */
    char *file_match;    /* --source-line: "exact" | "suffix"; else null */
    char *matched_file;  /* --source-line: the file matched; else null */
    int64_t count;       /* selected instructions (before the envelope's --limit) */
} fp_map_selection;

typedef struct fp_map_flamegraph {
    char *weight;  /* "stall" | "latency" */
    int64_t stacks; /* distinct folded stacks */
    char *order;   /* how a stack reads */
    char *folded;  /* flamegraph.folded (absolute; bundle-relative in map.json), null when not written */
    char *svg;     /* flamegraph.svg, likewise */
} fp_map_flamegraph;

typedef struct fp_map_doc {
    int schema; /* 1 */
    fp_map_dispatch dispatch;
    fp_map_selection selection;
    fp_map_mapping *mappings;
    size_t nmappings;
    double unmapped_pct;         /* % of the selected instructions without a snippet */
    double src_mapped_pct;       /* % of the kernel's latency on instructions with a source line */
    double unmapped_latency_pct; /* 100 - src_mapped_pct (0 when no latency) */
    fp_map_file *files;
    size_t nfiles;
    fp_map_flamegraph flamegraph;
    char *artifact; /* map.json's own path (absolute), null when not written */
} fp_map_doc;

extern const fp_schema fp_map_schema;
/* a snippet alone (fp_snippet's result; the fuzz target writes it) */
extern const fp_schema fp_map_snippet_schema;

/* Strict read of map.json (errors: model.h, doc = the path). */
int fp_map_read_file(const char *path, fp_map_doc *doc, fp_err *err);
/* Write map.json atomically; bundle non-NULL: its paths are written bundle-relative
 * (fp_bundle_write_json), as every artifact of a bundle. */
int fp_map_write_file(const char *path, const fp_map_doc *doc, const char *bundle, fp_err *err);
void fp_map_free(fp_map_doc *doc);

#endif
