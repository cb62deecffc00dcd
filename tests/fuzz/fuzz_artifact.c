/* fuzz_artifact - one artifact read back by the commands that consume it. Built
 * once per artifact (FZ_ARTIFACT): the input is written as <bundle>/<artifact>
 * next to the shipped example's dispatch and CSVs, then
 *   report.json  -> `flyprof diff` (both sides) and `report.json` via --before FILE
 *   others       -> `flyprof report --bundle` (which reads capture, counters,
 *                   tile, bubbles and map.json; `bundle` reads them through the
 *                   same fp_report_from_bundle) and, for capture.json,
 *                   `flyprof bubbles`/`map`/`tile` which resolve the dispatch from it. */
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "fuzz_common.h"

#ifndef FZ_ARTIFACT
#define FZ_ARTIFACT "bubbles.json"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *bundle, *out, *good;
    if (!bundle) {
        bundle = fz_copy_tree(FZ_EXAMPLE, "b");
        out = fz_path("out");
        good = fz_path("good_report");
        /* a valid report.json for the other side of diff */
        const char *argv[] = {"report", "--out-dir", good, "--no-html"};
        if (fz_run(bundle, 4, argv) != 0)
            abort();
    }
    char *p = fz_write("b/" FZ_ARTIFACT, data, size);
    if (!strcmp(FZ_ARTIFACT, "report.json")) {
        char *gr = fp_path_join(good, "report.json");
        const char *a1[] = {"diff", "--before", p, "--after", gr, "--no-write"};
        fz_run(NULL, 6, a1);
        const char *a2[] = {"diff", "--before", gr, "--after", p, "--no-write"};
        fz_run(NULL, 6, a2);
        const char *a3[] = {"diff", "--before", p, "--after", p, "--no-write"};
        fz_run(NULL, 6, a3);
        free(gr);
    } else {
        const char *argv[] = {"report", "--out-dir", out};
        fz_run(bundle, 3, argv);
        if (!strcmp(FZ_ARTIFACT, "capture.json")) {
            char *ob = fp_path_join(out, "bubbles.json");
            const char *b[] = {"bubbles", "--out", ob};
            fz_run(bundle, 3, b);
            free(ob);
            const char *t[] = {"tile"};
            fz_run(bundle, 1, t);
        }
    }
    fz_remove("b/" FZ_ARTIFACT);
    free(p);
    return 0;
}
