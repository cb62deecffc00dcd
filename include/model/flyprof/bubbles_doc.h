/*
 * bubbles_doc.h - the typed model of bubbles.json (docs/commands/bubbles.md is
 * its schema; docs/exposed-stall.md the exposed/hidden split and the gain bound).
 *
 * fp_bubbles_doc is the document as a struct: the analysis (fp_bubbles, bubbles.h)
 * is turned into it by fp_bubbles_doc_build (bubbles_json.c), written by the model
 * (fp_bubbles_schema, src/model/bubbles_doc.c: the ONLY place a key of bubbles.json
 * is spelled) and read back by the strict reader. Consumers (signals, report, html,
 * the bundle loader) take a `const fp_bubbles_doc *`.
 *
 * Units: every cycle count is in shader-clock cycles as code.json / the wave files
 * give them; *_pct are percentages (0..100, 2 decimals in the file); frac is a
 * fraction (0..1, 4 decimals); *_mean and stall_share 1 decimal. Integers that the
 * file prints as integers are int64_t (or int); a number or null is an fp_optd.
 *
 * Ownership: every string and list is owned by the document; free with
 * fp_bubbles_doc_free. A document built by fp_bubbles_doc_build keeps its strings in
 * `pool` (model.h's string pool): replace one with fp_model_free_str(doc->pool, s)
 * first, never free(); a string added later may be malloc'd as usual. Not to be
 * copied with fp_model_copy (the copy would share the pool).
 */
#ifndef FLYPROF_BUBBLES_DOC_H
#define FLYPROF_BUBBLES_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/model.h"
#include "flyprof/trace_facts_doc.h"

/* One candidate dispatch dir of the bundle (att/dispatch.c's inventory). */
typedef struct fp_bub_doc_inv {
    char *dir;           /* dispatch dir name */
    fp_optd dispatch;    /* the <n> of dispatch_<n>, null when the name has none */
    bool empty;          /* a shell: no wave files */
    int64_t waves;       /* wave files in it */
} fp_bub_doc_inv;

/* "dispatch": what was analysed. dir/name/symbol always; the resolution keys
 * (tag, dispatch, resolved_by, inventory) only when `resolved` (written by
 * `flyprof bubbles`; a document computed by `report` / `bundle` has none). */
typedef struct fp_bub_doc_dispatch {
    char *dir;           /* the dispatch dir (absolute in memory, bundle-relative in a bundle's file) */
    char *name;          /* its base name (ui_output_agent_*_dispatch_*) */
    char *symbol;        /* the kernel symbol from code.json, or null */
    bool resolved;       /* not a key: whether the four keys below are present */
    char *tag;           /* capture tag used, null when --bundle was a dispatch dir */
    fp_optd dispatch;    /* dispatch number, null when the name has none */
    char *resolved_by;   /* "dispatch_dir" | "--dispatch" | "capture.json" | "scan" */
    fp_bub_doc_inv *inventory;
    size_t n_inventory;
} fp_bub_doc_dispatch;

/* "totals": code.json sums (latency, stall, idle, hit, issue = latency - stall)
 * and the waves' (wave_stall = exposed + hidden). */
typedef struct fp_bub_doc_totals {
    int64_t instructions;  /* code rows with a valid index */
    int64_t latency, stall, idle, issue, hit;
    double stall_pct;      /* 100 * stall / latency */
    int64_t waves, wave_records, wave_stall, exposed, hidden;
    double exposed_pct;    /* 100 * exposed / wave_stall */
    /* issue 23 item 2 (facts-stall): what "hidden" means, and the wave-end drain
     * (s_endpgm's wait [time+stall, time+duration) for outstanding memory, outside the
     * stall sums): cycles, exposed / hidden like a stall, lost = no wave of the SIMD has
     * anything in flight (once per SIMD cycle), waves = s_endpgm executions that waited */
    char *hidden_by;       /* "issue_windows" (docs/exposed-stall.md) */
    int64_t drain_stall, drain_exposed, drain_hidden, drain_lost, drain_waves;
} fp_bub_doc_totals;

/* % of the four states' sum, in the file's order exec, wait, stall, idle (2 decimals). */
typedef struct fp_bub_doc_states4 {
    double exec, wait, stall, idle;
} fp_bub_doc_states4;

typedef struct fp_bub_doc_wstates {
    bool available;      /* wstates*.json were read */
    int64_t exec, wait, stall, idle;  /* their integrals, cycles */
    bool agrees;         /* within 1% of the waves' per-state cycles */
} fp_bub_doc_wstates;

typedef struct fp_bub_doc_states {
    int64_t exec, wait, stall, idle;  /* cycles, from the wave files */
    fp_bub_doc_states4 pct;           /* % of their sum */
    fp_bub_doc_wstates wstates;
} fp_bub_doc_states;

/* "classes[]": the stall taxonomy, ranked by cycles. */
typedef struct fp_bub_doc_class {
    char *cls;           /* "class": taxonomy name (taxonomy.h) */
    int64_t rank;        /* 1-based */
    int64_t cycles;      /* code.json stall in this class */
    double pct;          /* % of totals.stall */
    bool is_bubble;
    int64_t exposed, hidden;
    double gain_upper_pct; /* 100 * lost / gain.span_total */
    int64_t instructions;  /* static count */
    int64_t hit;
} fp_bub_doc_class;

/* "load_to_use_cycles": producer issue -> wait release. */
typedef struct fp_bub_doc_cycles {
    double mean;         /* 1 decimal */
    int64_t min, max;
} fp_bub_doc_cycles;

/* "hotspots[].waits_on[]": a producer the wait waited on. */
typedef struct fp_bub_doc_wait {
    int64_t code_line;   /* code.json index of the producer */
    char *inst, *source;
    int64_t count;       /* executions naming it */
    fp_bub_doc_cycles load_to_use_cycles;
    double distance_mean;  /* instructions issued in between */
    double stall_share;    /* the wait's stall apportioned to it, cycles */
    char *evidence;        /* "decoder" | "inferred" | "mixed" */
} fp_bub_doc_wait;

/* "hotspots[]": code rows with stall, ranked by rank_by. */
typedef struct fp_bub_doc_hotspot {
    int64_t rank, code_line;
    char *addr;          /* "0x..." */
    char *inst, *cls, *source;   /* cls: "class" */
    bool is_bubble;
    int64_t hit, latency, stall, idle, exposed, hidden;
    double stall_pct;    /* 100 * stall / latency */
    double share_pct;    /* 100 * stall / totals.stall */
    double gain_upper_pct;
    fp_bub_doc_wait *waits_on;
    size_t n_waits_on;
} fp_bub_doc_hotspot;

/* "lines[]": source lines with stall. */
typedef struct fp_bub_doc_line {
    char *source;        /* "file:line[ -> caller:line ...]" */
    char *file;          /* innermost file */
    fp_optd line;        /* innermost line, null when unparsable */
    int64_t stall;
    double pct;          /* % of totals.stall */
    int64_t exposed, hidden, latency, hit;
    char *dom_class;     /* the class with most cycles */
    double gain_upper_pct;
    int64_t instructions;
} fp_bub_doc_line;

typedef struct fp_bub_doc_file {
    char *file;
    int64_t stall;
    double pct;
    int64_t exposed, latency;
} fp_bub_doc_file;

/* "inst_mix": static (count of rows) and dynamic (hit) per class. */
typedef struct fp_bub_doc_mix {
    char *cls;           /* "class" */
    int64_t n;           /* "count" (static) or "hit" (dynamic) */
    double frac;         /* 4 decimals */
} fp_bub_doc_mix;

typedef struct fp_bub_doc_inst_mix {
    fp_bub_doc_mix *stat;  /* "static" */
    size_t n_stat;
    fp_bub_doc_mix *dyn;   /* "dynamic" */
    size_t n_dyn;
} fp_bub_doc_inst_mix;

/* "waitcnt.producers[]": producer instructions, by stall_share. */
typedef struct fp_bub_doc_producer {
    int64_t code_line;
    char *inst, *source, *cls;   /* cls: "class" */
    int64_t count;
    double *waits;       /* code.json indices of the waits (integers) */
    size_t n_waits;
    fp_bub_doc_cycles load_to_use_cycles;
    double distance_mean, stall_share;
    char *evidence;
} fp_bub_doc_producer;

typedef struct fp_bub_doc_producer_line {
    char *source;
    int64_t count;
    double stall_share, load_to_use_mean, distance_mean;
} fp_bub_doc_producer_line;

typedef struct fp_bub_doc_waitcnt {
    char *evidence;      /* "none" | "decoder" | "inferred" | "mixed" */
    int64_t executions, with_producers, inferred, unmatched_entries, producer_missing, producer_not_seen;
    fp_bub_doc_producer *producers;
    size_t n_producers;
    fp_bub_doc_producer_line *producer_lines;
    size_t n_producer_lines;
} fp_bub_doc_waitcnt;

typedef struct fp_bub_doc_simd {
    int64_t se, cu, simd, waves;
    int64_t span;        /* last wave end - first wave begin, cycles */
    int64_t issue, stall, exposed;
    int64_t lost;        /* SIMD cycles with no wave issuing */
} fp_bub_doc_simd;

typedef struct fp_bub_doc_gain {
    int64_t span_total;  /* sum of the simds' span */
    char *formula;
} fp_bub_doc_gain;

typedef struct fp_bub_doc_occ_se {
    int64_t se, traced_waves, events, peak;
    double mean;         /* time-weighted mean resident waves, 2 decimals */
    int64_t t0, t1;
    double *over_time;   /* mean resident waves per time bucket, 2 decimals */
    size_t n_over_time;
} fp_bub_doc_occ_se;

typedef struct fp_bub_doc_occupancy {
    bool available;
    int64_t traced_waves;
    fp_bub_doc_occ_se *per_se;
    size_t n_per_se;
} fp_bub_doc_occupancy;

typedef struct fp_bub_doc_code_vs_waves {
    int64_t hit_code, hit_waves, stall_code, stall_waves;
    bool agree;
} fp_bub_doc_code_vs_waves;

typedef struct fp_bub_doc_quality {
    int64_t waves_listed, waves_read, waves_skipped;
    char **skipped;      /* first skipped files, with why */
    size_t n_skipped;
    int64_t waves_truncated;
    bool filenames_json;
    int64_t listed_missing, unlisted;
    double *ses;         /* shader engines seen (integers, ascending) */
    size_t n_ses;
    double latency_mapped_pct;
    int64_t unknown_line_records;
    fp_bub_doc_code_vs_waves code_vs_waves;
    char **empty_shells; /* empty dispatch dirs of the inventory (filled by `flyprof bubbles`) */
    size_t n_empty_shells;
    char **decoder_warnings;
    size_t n_decoder_warnings;
    char *confidence;    /* "high" | "medium" | "low" */
    char **reasons;
    size_t n_reasons;
} fp_bub_doc_quality;

typedef struct fp_bubbles_doc {
    int schema;          /* FP_BUBBLES_SCHEMA */
    fp_bub_doc_dispatch dispatch;
    char *rank_by;       /* "exposed" | "stall" | "latency" */
    fp_bub_doc_totals totals;
    fp_bub_doc_states wave_states;
    fp_bub_doc_class *classes;
    size_t n_classes;
    fp_bub_doc_hotspot *hotspots;
    size_t n_hotspots;
    fp_bub_doc_line *lines;
    size_t n_lines;
    fp_bub_doc_file *files;
    size_t n_files;
    fp_bub_doc_inst_mix inst_mix;
    fp_bub_doc_waitcnt waitcnt;
    fp_bub_doc_simd *simds;
    size_t n_simds;
    fp_bub_doc_gain gain;
    fp_bub_doc_occupancy occupancy;
    fp_bub_doc_quality quality;
    /* issue 23 (trace_facts_doc.h): null when occupancy.json was not read */
    fp_launch_trace *launch_trace;
    fp_workdist *workdist;
    /* not a key: the strings fp_bubbles_doc_build copied (NULL for a document read) */
    fp_model_pool *pool;
} fp_bubbles_doc;

extern const fp_schema fp_bubbles_schema;
/* one inventory entry (att/dispatch.c's inventory items read into the document) */
extern const fp_schema fp_bub_doc_inv_schema;

/* Strict read of a bubbles.json file (model.h's errors, with the key path). */
int fp_bubbles_read_file(const char *path, fp_bubbles_doc *doc, fp_err *err);
/* Write atomically (pretty-printed). */
int fp_bubbles_write_file(const fp_bubbles_doc *doc, const char *path, fp_err *err);
void fp_bubbles_doc_free(fp_bubbles_doc *doc);

/* The ranked lists of the document that --limit bounds in an envelope, in the
 * order their cuts are reported: hotspots, lines, files, waitcnt.producers
 * (waitcnt.producer_lines is bounded too but not reported). */
enum { FP_BUB_LIMITED = 4 };
/* The key of bounded list i ("hotspots", "lines", "files", "producers"): the table's. */
const char *fp_bub_limited_name(int i);

/* A view of *full with every bounded list cut to `limit` entries (0 = all): a
 * shallow copy sharing full's memory - never free it, and keep full alive while
 * it is used. total[i] receives the length of list i (fp_bub_limited_name)
 * before the cut (total may be NULL). */
void fp_bubbles_doc_limit(const fp_bubbles_doc *full, size_t limit, fp_bubbles_doc *view,
                          size_t total[FP_BUB_LIMITED]);

#endif
