/*
 * shellgen.h - shell completion (bash, zsh, fish) and man pages (flyprof(1), one
 * flyprof-<command>(1) per command) generated from the command and option tables, so
 * they list every option and cannot drift (docs/completion.md). The build runs
 * `flyprof help completion SHELL` / `flyprof help man [COMMAND]` to write them and
 * `cmake --install` installs them.
 */
#ifndef FLYPROF_SHELLGEN_H
#define FLYPROF_SHELLGEN_H

#include "flyprof/cli.h"
#include "flyprof/strbuf.h"

/* cmds: NULL-terminated. shell: "bash", "zsh" or "fish"; -1 for another. */
int fp_completion(const char *shell, const fp_command *const *cmds, fp_sb *out);

/* cmd NULL: flyprof(1) (commands, global options, exit status, environment);
 * else flyprof-<cmd>(1) (synopsis, description, options, examples). */
void fp_man_page(const fp_command *cmd, const fp_command *const *cmds, const char *version, fp_sb *out);

#endif
