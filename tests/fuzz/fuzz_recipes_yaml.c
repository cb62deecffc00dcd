/* fuzz_recipes_yaml - a recipes registry (--recipes / FLYPROF_RECIPES / config):
 * the YAML reader and its validation, then `flyprof list` over it. */
#include <stdlib.h>

#include "flyprof/recipes.h"
#include "flyprof/json.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *p = fz_write("y/recipes.yaml", data, size);
    fp_recipes r = {0};
    fp_err err = {0};
    int rc = fp_recipes_load(p, &r, &err);
    fz_check_err(rc, &err, "fp_recipes_load");
    fp_err_clear(&err);
    for (size_t i = 0; i < r.n; i++) {
        cJSON *j = fp_recipe_json(&r.v[i]);
        char *t = fp_json_print(j, false);
        fz_check_json_text(t, "a recipe");
        free(t);
        cJSON_Delete(j);
    }
    fp_recipes_free(&r);
    const char *argv[] = {"list", "--recipes", p};
    fz_run(NULL, 3, argv);
    free(p);
    return 0;
}
