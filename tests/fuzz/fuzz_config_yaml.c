/* fuzz_config_yaml - the config file (--config / FLYPROF_CONFIG): libyaml load,
 * the flat-mapping validation and the resolved-settings JSON. */
#include <stdlib.h>

#include "flyprof/capture_doc.h"
#include "flyprof/provenance.h"
#include "flyprof/config.h"
#include "flyprof/json.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    static const char *const vars[] = {"FLYPROF_WORKTREE", "FLYPROF_ROCPROFV3", "FLYPROF_PYTHON", "FLYPROF_GPU",
                                       "FLYPROF_ARCH",     "FLYPROF_RECIPES",   "FLYPROF_CONFIG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *p = fz_write("cfg/config.yaml", data, size);
    fp_config_args a = {0};
    a.config = p;
    fp_config c;
    fp_err err = {0};
    int rc = fp_config_load(&c, &a, &err);
    fz_check_err(rc, &err, "fp_config_load");
    fp_err_clear(&err);
    if (rc == 0) {
        fp_cap_config cd;
        fp_config_to_doc(&c, &cd);
        cJSON *j = fp_model_write(&fp_cap_config_schema, &cd);
        fp_model_free(&fp_cap_config_schema, &cd);
        char *t = fp_json_print(j, false);
        fz_check_json_text(t, "the config JSON");
        free(t);
        cJSON_Delete(j);
        fp_config_free(&c);
    }
    free(p);
    return 0;
}
