/*
 * bundle.c - the artifact table, the capture-tag rule and the dispatch
 * resolution on top of src/att/dispatch.c (bundle.h).
 */
#include "flyprof/bundle.h"

#include "flyprof/capture_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"

static const fp_artifact_info ARTIFACTS[FP_ART_COUNT] = {
    {FP_ART_CAPTURE, "capture.json", "capture", false},
    {FP_ART_TILE, "tile.json", "tile", false},
    {FP_ART_BUBBLES, "bubbles.json", "bubbles", false},
    {FP_ART_MAP, "map.json", "map", false},
    {FP_ART_FLAME_FOLDED, "flamegraph.folded", "map", false},
    {FP_ART_FLAME_SVG, "flamegraph.svg", "map", false},
    {FP_ART_COUNTERS, "counters.json", "counters", false},
    {FP_ART_REPORT, "report.json", "report", false},
    {FP_ART_HEADLINES, "headlines.json", "report", false},
    {FP_ART_REPORT_MD, "REPORT.md", "report", false},
    {FP_ART_REPORT_HTML, "report.html", "report", false},
    {FP_ART_RUN, "run.json", "run", false},
    {FP_ART_DIFF, "diff.json", "diff", false},
    {FP_ART_TIMELINE, "timeline.json", "timeline", false},
    {FP_ART_ATT_DIR, "att", "capture", true},
    {FP_ART_ROCPROF_DIR, "rocprof", "capture", true},
    {FP_ART_PMC_DIR, "pmc", "counters", true},
    {FP_ART_RUN_DIR, "run", "run", true},
};

const fp_artifact_info *fp_artifact_get(fp_artifact id)
{
    return (unsigned)id < FP_ART_COUNT ? &ARTIFACTS[id] : NULL;
}

const char *fp_artifact_name(fp_artifact id)
{
    const fp_artifact_info *a = fp_artifact_get(id);
    return a ? a->name : NULL;
}

char *fp_bundle_path(const char *bundle, fp_artifact id)
{
    return fp_path_join(bundle, fp_artifact_name(id));
}

const cJSON *fp_bundle_capture_tag(const cJSON *capture, const char *want)
{
    const cJSON *tags = cJSON_GetObjectItemCaseSensitive(capture, "tags");
    const cJSON *t = NULL;
    if (want)
        t = cJSON_GetObjectItemCaseSensitive(tags, want);
    else if (cJSON_IsObject(tags) && cJSON_GetArraySize(tags) == 1 && fp_is_plain_name(tags->child->string))
        t = tags->child;
    else if (cJSON_IsObject(tags))
        t = cJSON_GetObjectItemCaseSensitive(tags, "big");
    return cJSON_IsObject(t) ? t : NULL;
}

const fp_cap_tag *fp_bundle_capture_tag_doc(const fp_capture_doc *capture, const char *want)
{
    if (!capture)
        return NULL;
    if (want)
        return fp_capture_tag_named(capture, want);
    /* the only recorded tag (its name, small or big, is plain), else big */
    const fp_cap_tag *only = fp_capture_only_tag(capture);
    return only ? only : capture->tags.big;
}

/* A relative path from capture.json: no absolute path, no "..", no empty parts. */
static bool safe_rel(const char *p)
{
    if (!p || !*p || p[0] == '/')
        return false;
    const char *s = p;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 0 || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        if (!e)
            break;
        s = e + 1;
    }
    return true;
}

/* capture.json: the tag to use when none was given, and the kept dispatch for it. */
static void read_capture(const char *bundle, const char *tag, char **tag_out, char **att_dir, char **kept,
                         cJSON *notes)
{
    *tag_out = NULL;
    *att_dir = NULL;
    *kept = NULL;
    char *path = fp_bundle_path(bundle, FP_ART_CAPTURE);
    cJSON *j = NULL;
    fp_err e = {0};
    if (!fp_is_file(path)) {
        free(path);
        return;
    }
    if (fp_json_parse_file(path, &j, &e) != 0) {
        char msg[FP_ERR_MSG_MAX + 64];
        snprintf(msg, sizeof msg, "capture.json ignored: %s", e.message);
        cJSON_AddItemToArray(notes, cJSON_CreateString(msg));
        fp_err_clear(&e);
        free(path);
        return;
    }
    free(path);
    const cJSON *t = fp_bundle_capture_tag(j, tag);
    if (t) {
        if (!tag && t->string && fp_is_plain_name(t->string))
            *tag_out = strdup(t->string);
        const char *ad = fp_json_get_str(t, "att_dir");
        const char *kd = fp_json_get_str(t, "kept_dispatch");
        if (ad && safe_rel(ad))
            *att_dir = strdup(ad);
        else if (ad)
            cJSON_AddItemToArray(notes, cJSON_CreateString("capture.json att_dir ignored: not a relative path inside the bundle"));
        if (kd && fp_is_plain_name(kd))
            *kept = strdup(kd);
        else if (kd)
            cJSON_AddItemToArray(notes, cJSON_CreateString("capture.json kept_dispatch ignored: not a plain directory name"));
    }
    cJSON_Delete(j);
}

int fp_bundle_dispatch(const char *bundle, const char *tag, long long dispatch, fp_dispatch_ref *out,
                       fp_err *err)
{
    /* the checks that come first (fp_dispatch_resolve_at repeats them) and a
     * bundle that is itself a dispatch dir: capture.json is not read */
    if (!bundle || !fp_is_dir(bundle) || (tag && !fp_is_plain_name(tag)) || fp_dispatch_is_dir(bundle))
        return fp_dispatch_resolve_at(bundle, tag, NULL, dispatch, out, err);
    fp_dispatch_hint h = {0};
    char *ctag = NULL, *att_dir = NULL, *kept = NULL;
    cJSON *notes = cJSON_CreateArray();
    h.notes = notes;
    read_capture(bundle, tag, &ctag, &att_dir, &kept, notes);
    h.tag = tag ? tag : ctag;
    /* no tag from the flag or capture.json: big when att/big exists */
    char *att = fp_bundle_path(bundle, FP_ART_ATT_DIR), *big = fp_path_join(att, "big");
    if (!h.tag && fp_is_dir(big))
        h.tag = "big";
    free(att);
    free(big);
    h.att_dir = att_dir;
    h.kept = kept;
    int rc = fp_dispatch_resolve_at(bundle, tag, &h, dispatch, out, err);
    cJSON_Delete(notes);
    free(ctag);
    free(att_dir);
    free(kept);
    return rc;
}
