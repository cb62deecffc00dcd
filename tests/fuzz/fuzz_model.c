/* fuzz_model - the typed-artifact engine (include/model/flyprof/model.h) on any JSON:
 * the input is read by the strict reader of every document table flyprof has; a
 * document a table accepts must write back, read again and write the same bytes
 * (the reader and the writer are one table), and round / copy / free must be clean
 * under ASan. A refusal must be BAD_INPUT with a "$" key path in its message. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "flyprof/bubbles_doc.h"
#include "flyprof/capture_doc.h"
#include "flyprof/counters_doc.h"
#include "flyprof/diff_doc.h"
#include "flyprof/envelope_doc.h"
#include "flyprof/history_doc.h"
#include "flyprof/hotspots_doc.h"
#include "flyprof/json.h"
#include "flyprof/map_doc.h"
#include "flyprof/report_doc.h"
#include "flyprof/rules_doc.h"
#include "flyprof/run_doc.h"
#include "flyprof/sarif_doc.h"
#include "flyprof/tile_doc.h"
#include "fuzz_common.h"

static const fp_schema *const schemas[] = {
    &fp_bubbles_schema,      &fp_capture_schema,        &fp_counters_doc_schema, &fp_diff_schema,
    &fp_diff_envelope_schema, &fp_check_schema,         &fp_envelope_doc_schema, &fp_doctor_view_schema,
    &fp_history_record_schema, &fp_history_add_schema,  &fp_history_list_schema, &fp_history_trend_schema,
    &fp_hotspots_doc_schema, &fp_map_schema,            &fp_report_schema,       &fp_headlines_schema,
    &fp_report_envelope_schema, &fp_rules_doc_schema,   &fp_run_doc_schema,      &fp_tile_doc_schema,
    &fp_sarif_schema,
};

static char *text_of(const fp_schema *s, const void *doc)
{
    cJSON *j = fp_model_write(s, doc);
    char *t = fp_json_print_bytes(j, false, NULL);
    cJSON_Delete(j);
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    buf[size] = '\0';
    cJSON *j = cJSON_ParseWithLength(buf, size);
    free(buf);
    if (!j)
        return 0;
    for (size_t i = 0; i < sizeof schemas / sizeof *schemas; i++) {
        const fp_schema *s = schemas[i];
        void *doc = calloc(1, s->size), *again = calloc(1, s->size), *copy = calloc(1, s->size);
        if (!doc || !again || !copy)
            abort();
        fp_err err = {0};
        if (fp_model_read(s, j, doc, "fuzz.json", &err) != 0) {
            if (err.code != FP_BAD_INPUT || !strstr(err.message, "fuzz.json: $"))
                abort();
        } else {
            char *t1 = text_of(s, doc);
            cJSON *j2 = cJSON_Parse(t1);
            if (!j2 || fp_model_read(s, j2, again, "again", &err) != 0)
                abort(); /* what a table writes, it reads */
            char *t2 = text_of(s, again);
            if (strcmp(t1, t2) != 0)
                abort(); /* and writes the same bytes */
            fp_model_copy(s, copy, again);
            fp_model_round(s, copy);
            char *t3 = text_of(s, copy);
            free(t3);
            free(t1);
            free(t2);
            cJSON_Delete(j2);
        }
        fp_model_free(s, doc);
        fp_model_free(s, again);
        fp_model_free(s, copy);
        free(doc);
        free(again);
        free(copy);
        fp_err_clear(&err);
    }
    cJSON_Delete(j);
    return 0;
}
