/* fuzz_sweep_spec - a sweep spec (flyprof sweep --spec): the YAML -> JSON tree
 * (yaml_json.c, libyaml events, depth and size bounds) and the strict spec table. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "flyprof/json.h"
#include "flyprof/sweep_doc.h"
#include "flyprof/yaml_json.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the same bytes as YAML and as JSON (the two readers the spec has) */
    static const char *const names[] = {"sp/spec.yaml", "sp/spec.json"};
    for (size_t i = 0; i < 2; i++) {
        char *p = fz_write(names[i], data, size);
        cJSON *j = NULL;
        fp_err err = {0};
        int rc = fp_yaml_json_parse_file(p, &j, &err);
        fz_check_err(rc, &err, "fp_yaml_json_parse_file");
        fp_err_clear(&err);
        if (rc == 0) {
            fp_sweep_spec s;
            rc = fp_model_read(&fp_sweep_spec_schema, j, &s, p, &err);
            fz_check_err(rc, &err, "spec reader");
            fp_err_clear(&err);
            if (rc == 0) {
                cJSON *w = fp_model_write(&fp_sweep_spec_schema, &s);
                char *t = fp_json_print(w, false);
                fz_check_json_text(t, "the spec written back");
                free(t);
                cJSON_Delete(w);
                fp_model_free(&fp_sweep_spec_schema, &s);
            }
        }
        cJSON_Delete(j);
        free(p);
    }
    return 0;
}
