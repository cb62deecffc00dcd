/*
 * doc_round_trip.h - the round trip every document test makes (included by the
 * test_<name>_doc.c files): a real document read by its table's strict reader and
 * written again by the same table gives the bytes of the file.
 */
#ifndef FP_TEST_DOC_ROUND_TRIP_H
#define FP_TEST_DOC_ROUND_TRIP_H

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "flyprof/fs.h"
#include "flyprof/model.h"
#include "flyprof/strbuf.h"

static void doc_round_trip(const fp_schema *s, const char *path)
{
    void *d = calloc(1, s->size);
    assert_non_null(d);
    fp_err err = {0};
    if (fp_model_read_file(s, path, d, &err) != 0)
        fail_msg("%s: %s", path, err.message);
    cJSON *j = fp_model_write(s, d);
    char *out = cJSON_Print(j);
    fp_sb file;
    fp_sb_init(&file);
    assert_int_equal(fp_read_file(path, &file, &err), 0);
    if (file.len && file.buf[file.len - 1] == '\n')
        file.buf[--file.len] = '\0';
    assert_string_equal(out, file.buf);
    free(out);
    fp_sb_free(&file);
    cJSON_Delete(j);
    fp_model_free(s, d);
    free(d);
}

#endif
