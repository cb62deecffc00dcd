/*
 * replay_main.c - run a fuzz target's LLVMFuzzerTestOneInput over files and
 * directories of inputs without libFuzzer (any compiler): the committed seeds
 * and every crasher turned regression input are replayed in ctest this way.
 *
 *   replay_<target> FILE|DIR...    exit 0 when every input ran (a crash aborts)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flyprof/fs.h"
#include "flyprof/strbuf.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static size_t run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: no such input\n", path);
        exit(2);
    }
    if (S_ISDIR(st.st_mode)) {
        char **names = NULL;
        size_t n = 0, ran = 0;
        fp_err e = {0};
        if (fp_list_dir(path, &names, &n, &e) != 0)
            exit(2);
        for (size_t i = 0; i < n; i++) {
            if (names[i][0] == '.' || !strcmp(names[i], "README.md"))
                continue;
            char *p = fp_path_join(path, names[i]);
            ran += run_path(p);
            free(p);
        }
        fp_strv_free(names, n);
        return ran;
    }
    fp_sb sb;
    fp_sb_init(&sb);
    fp_err e = {0};
    if (fp_read_file(path, &sb, &e) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, e.message);
        exit(2);
    }
    /* a private copy of exactly `len` bytes, as libFuzzer hands it (ASan sees overreads) */
    uint8_t *copy = malloc(sb.len ? sb.len : 1);
    memcpy(copy, sb.buf, sb.len);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, sb.len);
    LLVMFuzzerTestOneInput(copy, sb.len);
    free(copy);
    fp_sb_free(&sb);
    return 1;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    size_t ran = 0;
    for (int i = 1; i < argc; i++)
        ran += run_path(argv[i]);
    printf("replayed %zu inputs\n", ran);
    return 0;
}
