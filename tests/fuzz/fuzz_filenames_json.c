/* fuzz_filenames_json - filenames.json of a dispatch dir: the wave listing's
 * cross-check (fp_wave_list_dir) and the empty-shell probe (fp_dispatch_is_empty).
 * The dir holds two wave files, or, when the input starts with '#', the names on that
 * first line (blank-separated, up to 16, of [A-Za-z0-9_.-]: canonical ones, leading
 * zeros, anything) and the rest is filenames.json. Round 5: the listing's fast ways (the
 * radix order, the fscan reader, the pairing by numbers) against its reference ways
 * (fp_wave_list_dir_general: qsort, jscan, the name-sorted merge) on the same dir. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/dispatch.h"
#include "flyprof/wave.h"
#include "fuzz_common.h"

/* The on-disk names of the '#' line; returns the bytes it took (0: no such line). */
static size_t make_files(const uint8_t *data, size_t size)
{
    static const char wave[] = "{\"cu\":0,\"instructions\":[[0,6,0,4,1]],\"timeline\":[[2,4]]}";
    const uint8_t *nl = size && data[0] == '#' ? memchr(data, '\n', size) : NULL;
    if (!nl) {
        free(fz_write("f/se0_sm0_sl0_wv0.json", (const uint8_t *)wave, sizeof wave - 1));
        free(fz_write("f/se1_sm2_sl0_wv3.json", (const uint8_t *)wave, sizeof wave - 1));
        return 0;
    }
    const uint8_t *p = data + 1;
    for (int made = 0; p < nl && made < 16;) {
        while (p < nl && *p == ' ')
            p++;
        char rel[80] = "f/";
        size_t l = 2;
        bool ok = true;
        for (; p < nl && *p != ' '; p++) {
            ok = ok && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                        *p == '_' || *p == '.' || *p == '-');
            if (l < sizeof rel - 1)
                rel[l++] = (char)*p;
            else
                ok = false;
        }
        rel[l] = '\0';
        if (ok && l > 2 && strcmp(rel, "f/filenames.json") && strcmp(rel, "f/.") && strcmp(rel, "f/..")) {
            free(fz_write(rel, (const uint8_t *)wave, sizeof wave - 1));
            made++;
        }
    }
    return (size_t)(nl - data) + 1;
}

static void same_list(const fp_wave_list *a, const fp_wave_list *b)
{
    if (a->n != b->n || a->filenames_json != b->filenames_json || a->listed != b->listed ||
        a->listed_missing != b->listed_missing || a->unlisted != b->unlisted)
        abort();
    for (size_t i = 0; i < a->n; i++) {
        const fp_wave_file *x = &a->files[i], *y = &b->files[i];
        if (strcmp(x->name, y->name) || x->se != y->se || x->simd != y->simd || x->slot != y->slot || x->id != y->id ||
            x->pos != y->pos || x->regular != y->regular || x->has_begin != y->has_begin ||
            x->begin != y->begin)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_remove("f");
    size_t skip = make_files(data, size);
    char *p = fz_write("f/filenames.json", data + skip, size - skip);
    char *dir = fz_path("f");
    fp_wave_list l, g;
    fp_err err = {0}, gerr = {0};
    int rc = fp_wave_list_dir(dir, &l, &err);
    fz_check_err(rc, &err, "fp_wave_list_dir");
    int grc = fp_wave_list_dir_general(dir, &g, &gerr);
    if (rc != grc)
        abort();
    if (rc == 0) {
        same_list(&l, &g);
        fp_wave_list_free(&l);
        fp_wave_list_free(&g);
    }
    fp_err_clear(&err);
    fp_err_clear(&gerr);
    long long waves = 0;
    (void)fp_dispatch_is_empty(dir, &waves);
    free(p);
    free(dir);
    return 0;
}
