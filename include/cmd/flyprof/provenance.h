/*
 * provenance.h - the FlyDSL side's records as capture.json / doctor write them: the
 * resolved settings (fp_config) and the worktree (fp_worktree), filled into
 * capture_doc.h's structs (written by fp_cap_config_schema / fp_cap_worktree_schema).
 *
 * Layer: cmd (src/cmd/provenance.c). flydsl knows its own structs and model knows the
 * documents; only a layer above both may join them (docs/architecture.md).
 */
#ifndef FLYPROF_PROVENANCE_H
#define FLYPROF_PROVENANCE_H

#include "flyprof/capture_doc.h"
#include "flyprof/config.h"
#include "flyprof/worktree.h"

/* {"worktree": {"value": ..., "source": ...}, ...}; *o is overwritten. */
void fp_config_to_doc(const fp_config *c, fp_cap_config *o);
/* The "worktree" record (path, git, commit, branch, dirty, counts, build tree); *o is overwritten. */
void fp_worktree_to_doc(const fp_worktree *wt, fp_cap_worktree *o);

#endif
