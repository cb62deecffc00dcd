/* fuzz_filenames_json - filenames.json of a dispatch dir: the wave listing's
 * cross-check (fp_wave_list_dir) and the empty-shell probe (fp_dispatch_is_empty),
 * in a dir that also holds two real wave files. */
#include <stdlib.h>

#include "flyprof/dispatch.h"
#include "flyprof/wave.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char wave[] = "{\"cu\":0,\"instructions\":[[0,6,0,4,1]],\"timeline\":[[2,4]]}";
    char *a = fz_write("f/se0_sm0_sl0_wv0.json", (const uint8_t *)wave, sizeof wave - 1);
    char *b = fz_write("f/se1_sm2_sl0_wv3.json", (const uint8_t *)wave, sizeof wave - 1);
    char *p = fz_write("f/filenames.json", data, size);
    char *dir = fz_path("f");
    fp_wave_list l;
    fp_err err = {0};
    int rc = fp_wave_list_dir(dir, &l, &err);
    fz_check_err(rc, &err, "fp_wave_list_dir");
    if (rc == 0)
        fp_wave_list_free(&l);
    fp_err_clear(&err);
    long long waves = 0;
    (void)fp_dispatch_is_empty(dir, &waves);
    free(a);
    free(b);
    free(p);
    free(dir);
    return 0;
}
