/*
 * bubbles_table.h - the `-f table` text of `flyprof bubbles` (docs/commands/bubbles.md):
 * the classes, then the hotspots with what each wait waited for (producer opcode,
 * line, load-to-use cycles), one row per instruction (--by inst) or per source
 * line (--by line: identical waits of one line in one row).
 */
#ifndef FLYPROF_BUBBLES_TABLE_H
#define FLYPROF_BUBBLES_TABLE_H

#include <stdbool.h>

#include "flyprof/bubbles_doc.h"
#include "flyprof/strbuf.h"

/* doc: the envelope's view (lists bounded by --limit); full: the complete
 * document (the per-line grouping looks at every hotspot of a line). */
void fp_bubbles_table(const fp_bubbles_doc *doc, const fp_bubbles_doc *full, bool by_line, fp_sb *out);

#endif
