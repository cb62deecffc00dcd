/* fuzz_history_import - `flyprof history import FILE` (cmd_history.c import_line and
 * store.c's record check): JSON lines of history records. Issue 22: a NUL byte, a second
 * value on a line, duplicate classes/ranks/metrics and out-of-range ranks must be a typed
 * BAD_INPUT before the database is created, never an IO_ERROR or a crash; after a run that
 * succeeds `history list` reads the database back. */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = fz_write("hi/records.jsonl", data, size);
    char *db = fz_path("hi/h.db");
    unlink(db);
    const char *imp[] = {"history", "import", in, "--db", db};
    int rc = fz_run(NULL, 5, imp);
    if (rc == 0) {
        const char *ls[] = {"history", "list", "--db", db};
        fz_run(NULL, 4, ls); /* typed errors only (fz_run checks) */
    } else if (access(db, F_OK) == 0) {
        abort(); /* a refused import created the database */
    }
    unlink(db);
    free(db);
    free(in);
    return 0;
}
