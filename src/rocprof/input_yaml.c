/*
 * input_yaml.c - write rocprofv3 `-i` input files with libyaml from a cJSON
 * array of jobs (see input_yaml.h for the value mapping and why strings are
 * always double-quoted).
 */
#include "flyprof/input_yaml.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"

static int sb_write_handler(void *data, unsigned char *buffer, size_t size)
{
    fp_sb_add((fp_sb *)data, buffer, size);
    return 1;
}

static bool key_ok(const char *k)
{
    if (!k || !*k)
        return false;
    for (const char *p = k; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

/* An integer that a YAML reader will read back exactly. */
static bool is_int(const cJSON *v, char *buf, size_t n)
{
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d) || fabs(d) > 9007199254740992.0)
        return false;
    snprintf(buf, n, "%.0f", d);
    return true;
}

static int emit_ev(yaml_emitter_t *em, yaml_event_t *ev, fp_err *err)
{
    if (!yaml_emitter_emit(em, ev))
        return fp_err_set(err, FP_INTERNAL, "libyaml emitter: %s",
                          em->problem ? em->problem : "unknown error");
    return 0;
}

/* libyaml refuses a scalar that is not valid UTF-8 at initialisation and then
 * leaves the event uninitialised: emitting it anyway freed a stale pointer
 * (a double free found by tests/fuzz/fuzz_input_yaml); it also lets surrogates
 * through, which its own reader then refuses. The values come from the
 * user (--kernel regexes, paths), so this is their error, not an internal one. */
static int scalar_refused(const char *s, fp_err *err)
{
    return fp_err_set(err, FP_BAD_ARGS, "'%.60s' is not valid UTF-8: rocprofv3 cannot read it from its input file", s);
}

static int emit_plain(yaml_emitter_t *em, const char *s, fp_err *err)
{
    yaml_event_t ev;
    if (!fp_utf8_valid(s) ||
        !yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 0, YAML_PLAIN_SCALAR_STYLE))
        return scalar_refused(s, err);
    return emit_ev(em, &ev, err);
}

static int emit_quoted(yaml_emitter_t *em, const char *s, fp_err *err)
{
    yaml_event_t ev;
    if (!fp_utf8_valid(s) || !yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 0, 1,
                                                           YAML_DOUBLE_QUOTED_SCALAR_STYLE))
        return scalar_refused(s, err);
    return emit_ev(em, &ev, err);
}

static int emit_scalar(yaml_emitter_t *em, const char *key, const cJSON *v, fp_err *err)
{
    char num[40];
    if (cJSON_IsString(v))
        return emit_quoted(em, v->valuestring, err);
    if (cJSON_IsBool(v))
        return emit_plain(em, cJSON_IsTrue(v) ? "true" : "false", err);
    if (is_int(v, num, sizeof num))
        return emit_plain(em, num, err);
    return fp_err_set(err, FP_INTERNAL, "input yaml: value of '%s' must be a string, integer or boolean", key);
}

static int emit_value(yaml_emitter_t *em, const char *key, const cJSON *v, fp_err *err)
{
    if (!cJSON_IsArray(v))
        return emit_scalar(em, key, v, err);
    yaml_event_t ev;
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE);
    if (emit_ev(em, &ev, err))
        return -1;
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        if (cJSON_IsArray(it) || cJSON_IsObject(it))
            return fp_err_set(err, FP_INTERNAL, "input yaml: '%s' must be a list of scalars", key);
        if (emit_scalar(em, key, it, err))
            return -1;
    }
    yaml_sequence_end_event_initialize(&ev);
    return emit_ev(em, &ev, err);
}

static int emit_jobs(yaml_emitter_t *em, const cJSON *jobs, fp_err *err)
{
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if (emit_ev(em, &ev, err))
        return -1;
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    if (emit_ev(em, &ev, err))
        return -1;
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    if (emit_ev(em, &ev, err) || emit_plain(em, "jobs", err))
        return -1;
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
    if (emit_ev(em, &ev, err))
        return -1;
    const cJSON *job;
    cJSON_ArrayForEach(job, jobs)
    {
        if (!cJSON_IsObject(job))
            return fp_err_set(err, FP_INTERNAL, "input yaml: every job must be an object");
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        if (emit_ev(em, &ev, err))
            return -1;
        const cJSON *kv;
        cJSON_ArrayForEach(kv, job)
        {
            if (!key_ok(kv->string))
                return fp_err_set(err, FP_INTERNAL, "input yaml: bad key '%s' (rocprofv3 keys are dest names)",
                                  kv->string ? kv->string : "");
            if (emit_plain(em, kv->string, err) || emit_value(em, kv->string, kv, err))
                return -1;
        }
        yaml_mapping_end_event_initialize(&ev);
        if (emit_ev(em, &ev, err))
            return -1;
    }
    yaml_sequence_end_event_initialize(&ev);
    if (emit_ev(em, &ev, err))
        return -1;
    yaml_mapping_end_event_initialize(&ev);
    if (emit_ev(em, &ev, err))
        return -1;
    yaml_document_end_event_initialize(&ev, 1);
    if (emit_ev(em, &ev, err))
        return -1;
    yaml_stream_end_event_initialize(&ev);
    return emit_ev(em, &ev, err);
}

int fp_input_yaml_emit(const cJSON *jobs, fp_sb *out, fp_err *err)
{
    if (!cJSON_IsArray(jobs))
        return fp_err_set(err, FP_INTERNAL, "input yaml: jobs must be an array");
    yaml_emitter_t em;
    if (!yaml_emitter_initialize(&em))
        return fp_err_set(err, FP_INTERNAL, "libyaml: cannot initialise the emitter");
    fp_sb tmp;
    fp_sb_init(&tmp);
    yaml_emitter_set_output(&em, sb_write_handler, &tmp);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1); /* never fold long regexes */
    int rc = emit_jobs(&em, jobs, err);
    if (rc == 0 && !yaml_emitter_flush(&em))
        rc = fp_err_set(err, FP_INTERNAL, "libyaml: flush failed");
    yaml_emitter_delete(&em);
    if (rc == 0)
        fp_sb_add(out, tmp.buf, tmp.len);
    fp_sb_free(&tmp);
    return rc;
}

int fp_input_yaml_write(const char *path, const cJSON *jobs, fp_err *err)
{
    fp_sb sb;
    fp_sb_init(&sb);
    int rc = fp_input_yaml_emit(jobs, &sb, err);
    if (rc == 0)
        rc = fp_write_atomic(path, sb.buf, sb.len, err);
    fp_sb_free(&sb);
    return rc;
}

/* The same jobs as JSON: rocprofv3 loads .json input with the standard
 * library's json module, .yaml only when PyYAML is importable in the python
 * that runs the script (input_yaml.h). The jobs are first put through the
 * YAML emitter so both forms accept and refuse exactly the same values. */
int fp_input_json_emit(const cJSON *jobs, fp_sb *out, fp_err *err)
{
    fp_sb check;
    fp_sb_init(&check);
    int rc = fp_input_yaml_emit(jobs, &check, err);
    fp_sb_free(&check);
    if (rc != 0)
        return -1;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemReferenceToObject(root, "jobs", (cJSON *)jobs);
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt)
        abort();
    fp_sb_adds(out, txt);
    fp_sb_addc(out, '\n');
    free(txt);
    return 0;
}

int fp_input_json_write(const char *path, const cJSON *jobs, fp_err *err)
{
    fp_sb sb;
    fp_sb_init(&sb);
    int rc = fp_input_json_emit(jobs, &sb, err);
    if (rc == 0)
        rc = fp_write_atomic(path, sb.buf, sb.len, err);
    fp_sb_free(&sb);
    return rc;
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

char *fp_iter_range_str(const unsigned *iters, size_t n, fp_err *err)
{
    if (n == 0) {
        fp_err_set(err, FP_BAD_ARGS, "kernel_iteration_range: the set of iterations is empty");
        return NULL;
    }
    unsigned *v = malloc(n * sizeof *v);
    if (!v)
        abort();
    memcpy(v, iters, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_unsigned);
    if (v[0] == 0) {
        free(v);
        fp_err_set(err, FP_BAD_ARGS,
                   "kernel_iteration_range: iterations are 1-based (0 never matches a dispatch)");
        return NULL;
    }
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_addc(&sb, '[');
    size_t i = 0;
    bool first = true;
    while (i < n) {
        size_t j = i;
        while (j + 1 < n && (v[j + 1] == v[j] || v[j + 1] == v[j] + 1))
            j++;
        fp_sb_addf(&sb, first ? "%u" : ", %u", v[i]);
        if (v[j] != v[i])
            fp_sb_addf(&sb, "-%u", v[j]);
        first = false;
        i = j + 1;
    }
    fp_sb_addc(&sb, ']');
    free(v);
    return fp_sb_detach(&sb);
}
