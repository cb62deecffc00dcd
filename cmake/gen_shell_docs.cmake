# Writes the shell completions and man pages from the built binary's own option tables
# (`flyprof help completion SHELL`, `flyprof help man [COMMAND]`): run at build time by the
# fp_shell_docs target (CMakeLists.txt), installed by `cmake --install`. -DFLYPROF= -DOUT= -DCMDS=a,b
file(MAKE_DIRECTORY ${OUT}/completions ${OUT}/man/man1)
function(gen file)
  execute_process(COMMAND ${FLYPROF} help ${ARGN} -f table OUTPUT_FILE ${file}.tmp RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "flyprof help ${ARGN} failed (${rc})")
  endif()
  file(RENAME ${file}.tmp ${file})
endfunction()
gen(${OUT}/completions/flyprof.bash completion bash)
gen(${OUT}/completions/_flyprof completion zsh)
gen(${OUT}/completions/flyprof.fish completion fish)
gen(${OUT}/man/man1/flyprof.1 man)
string(REPLACE "," ";" CMD_LIST "${CMDS}")
foreach(c ${CMD_LIST})
  gen(${OUT}/man/man1/flyprof-${c}.1 man ${c})
endforeach()
