/*
 * bundle.h - the bundle layer: what a bundle directory holds and the rules for
 * reading it (docs/bundle.md).
 *
 *  - the artifact table: every file / directory a bundle holds, under one id,
 *    with the command that writes it; fp_bundle_path() is the one place an
 *    artifact name is joined to a bundle directory;
 *  - THE capture-tag rule (fp_bundle_capture_tag) and the dispatch resolution
 *    built on it (fp_bundle_dispatch: capture.json is read here, the ATT dirs
 *    are scanned by src/att/dispatch.c);
 *  - loading the inputs a command needs (report_load.h).
 *
 * Layer: above att, rocprof and analysis, below cmd.
 */
#ifndef FLYPROF_BUNDLE_H
#define FLYPROF_BUNDLE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "flyprof/dispatch.h"
#include "flyprof/error.h"

typedef enum fp_artifact {
    FP_ART_CAPTURE,       /* capture.json        capture */
    FP_ART_TILE,          /* tile.json           tile */
    FP_ART_BUBBLES,       /* bubbles.json        bubbles */
    FP_ART_MAP,           /* map.json            map */
    FP_ART_FLAME_FOLDED,  /* flamegraph.folded   map */
    FP_ART_FLAME_SVG,     /* flamegraph.svg      map */
    FP_ART_COUNTERS,      /* counters.json       counters */
    FP_ART_REPORT,        /* report.json         report */
    FP_ART_HEADLINES,     /* headlines.json      report */
    FP_ART_REPORT_MD,     /* REPORT.md           report */
    FP_ART_REPORT_HTML,   /* report.html         report */
    FP_ART_RUN,           /* run.json            run */
    FP_ART_DIFF,          /* diff.json           diff (in the "after" bundle) */
    FP_ART_TIMELINE,      /* timeline.json       timeline */
    FP_ART_ATT_DIR,       /* att/                capture: att/<tag>/ui_output_agent_*_dispatch_<n>/ */
    FP_ART_ROCPROF_DIR,   /* rocprof/            capture: rocprof/<tag>/ kernel_trace.csv, agent_info.csv */
    FP_ART_PMC_DIR,       /* pmc/                counters: counter CSVs or results.db */
    FP_ART_RUN_DIR,       /* run/                run: the step envelopes */
    FP_ART_COUNT
} fp_artifact;

typedef struct fp_artifact_info {
    fp_artifact id;
    const char *name;    /* file or directory name inside the bundle */
    const char *writer;  /* the command that writes it */
    bool dir;
} fp_artifact_info;

/* The row of the table for id (NULL for an id out of range). */
const fp_artifact_info *fp_artifact_get(fp_artifact id);
/* "capture.json" ... */
const char *fp_artifact_name(fp_artifact id);
/* <bundle>/<name of id> (malloc'd; fp_path_join's rules). */
char *fp_bundle_path(const char *bundle, fp_artifact id);

/* THE capture-tag rule: the tags.<tag> object of capture.json that a command
 * reads. `want` given -> tags.<want>; else, when tags has exactly one member
 * and its name is a plain name, that one; else tags.big. NULL when the chosen
 * member is absent or not an object (or capture is NULL). */
const cJSON *fp_bundle_capture_tag(const cJSON *capture, const char *want);

/* The same rule on a capture.json read by the strict reader (capture_doc.h): the
 * tag `want` names, else the only recorded tag, else tags.big; NULL when absent. */
struct fp_capture_doc;
struct fp_cap_tag;
const struct fp_cap_tag *fp_bundle_capture_tag_doc(const struct fp_capture_doc *capture, const char *want);

/* Which ATT dispatch dir a command analyses (the rules of dispatch.h): the
 * bundle itself when it is a dispatch dir; else capture.json is read here (its
 * tag by fp_bundle_capture_tag, att_dir, kept_dispatch; when no tag results and
 * att/big exists, the tag is big) and the dirs are scanned by
 * fp_dispatch_resolve_at. Same errors as fp_dispatch_resolve always had. */
int fp_bundle_dispatch(const char *bundle, const char *tag, long long dispatch, fp_dispatch_ref *out,
                       fp_err *err);

#endif
