/*
 * dispatch.h - resolving WHICH decoded ATT dispatch dir a command analyses
 * (shared by bubbles, map and report; the rules are in docs/bundle.md):
 *
 *   1. --bundle is itself a dispatch dir (has code.json) -> that dir;
 *   2. --dispatch N -> dispatch_<N> under att/<tag>/ (numeric match);
 *   3. capture.json tags.<tag>.kept_dispatch, when it names a non-empty dir;
 *   4. the highest-numbered non-empty ui_output_agent_*_dispatch_<n> under
 *      att/<tag>/ (else att/, else the bundle itself), ordered numerically.
 *
 * Empty shells (code null/empty, no wave files) are skipped and reported.
 * Nothing usable -> NO_ARTIFACT (or EMPTY_ATT when only shells exist) with the
 * inventory in the error envelope.
 */
#ifndef FLYPROF_DISPATCH_H
#define FLYPROF_DISPATCH_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "flyprof/error.h"

typedef struct fp_dispatch_ref {
    char *dir;          /* path of the chosen dispatch dir (owned) */
    char *name;         /* its base name (owned) */
    char *tag;          /* tag used, or NULL when --bundle was a dispatch dir (owned) */
    long long number;   /* the <n> of dispatch_<n>, -1 when the name has none */
    const char *how;    /* "dispatch_dir" | "--dispatch" | "capture.json" | "scan" */
    bool bundle_is_dispatch;
    cJSON *inventory;   /* [{dir, dispatch, empty, waves}] of the candidates (owned) */
    cJSON *notes;       /* array of strings: skipped shells, ignored flags (owned) */
} fp_dispatch_ref;

/* What the bundle layer read from capture.json for the scan (bundle.h,
 * fp_bundle_dispatch, which owns the tag rule): the tag to scan att/<tag> for
 * (NULL = none), capture.json's att_dir (a checked relative path) and
 * kept_dispatch (a plain name), and the notes reading it produced (copied into
 * out->notes first). */
typedef struct fp_dispatch_hint {
    const char *tag;
    const char *att_dir;
    const char *kept;
    const cJSON *notes;
} fp_dispatch_hint;

/* `tag` is the --tag flag (checked, and noted as ignored for a dispatch dir);
 * h NULL = nothing from capture.json. dispatch < 0 = not given. Commands call
 * fp_bundle_dispatch (bundle.h), which reads capture.json and calls this. */
int fp_dispatch_resolve_at(const char *bundle, const char *tag, const fp_dispatch_hint *h, long long dispatch,
                           fp_dispatch_ref *out, fp_err *err);
/* Whether dir is itself a dispatch dir (has code.json). */
bool fp_dispatch_is_dir(const char *dir);
void fp_dispatch_ref_free(fp_dispatch_ref *r);

/* Number n of a "..._dispatch_<n>[_suffix]" name; -1 when absent. */
long long fp_dispatch_number(const char *name);

/* Decoder warnings rocprofv3 printed while writing the ATT dirs of `tag`:
 * lines of <bundle>/rocprof/<tag>/rocprofv3.stderr.txt that mention data loss,
 * incomplete stitching, unresolved instructions or unloaded code objects.
 * Returns the count (0 when the file is absent); *lines (malloc'd strings, at
 * most `max`) may be NULL. */
size_t fp_dispatch_decoder_warnings(const char *bundle, const char *tag, char ***lines, size_t max);

/* Whether a dispatch dir is an empty shell; *waves = its wave file count. */
bool fp_dispatch_is_empty(const char *dir, long long *waves);

#endif
