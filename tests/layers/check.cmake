# tests/layers/check.cmake - the layer rule, checked against the real targets
# (ctest layers/include_rule; run by `cmake -P`, no build needed).
#
# Each layer L has its headers in include/L/flyprof/ and its target fp_L sees
# only its own and lower layers' include dirs (CMakeLists.txt). This script
# preprocesses, with exactly the include dirs CMake gives fp_L
# (FP_LAYERS_FILE, written by file(GENERATE) from each target's transitive
# INCLUDE_DIRECTORIES):
#   1. every header of L on its own: a header may include only what its
#      layer sees;
#   2. one header of every other layer M: it must be found when the rule below
#      allows L -> M, and must FAIL with "not found" otherwise (an upward or
#      sideways include does not build).
# It also refuses a header outside the layer dirs (include/flyprof/) and a
# header name present in two layers (then "flyprof/x.h" would be ambiguous).
# `cc -E` only: about a hundred preprocessor runs, ~1 s.
#
# The rule (what each layer may include, itself aside): keep it in step with
# docs/architecture.md. It is written out here rather than read from the link
# graph so that a new target_link_libraries edge that breaks it fails here.
set(allowed_core "")
set(allowed_att core)
set(allowed_rocprof core)
set(allowed_flydsl core)
set(allowed_model core att rocprof)
set(allowed_analysis core att rocprof model)
set(allowed_bundle core att rocprof model analysis)
set(allowed_history core att rocprof model analysis bundle flydsl)
set(allowed_cmd core att rocprof model analysis bundle flydsl history)

include(${FP_LAYERS_FILE}) # FP_LAYERS, FP_INC_<layer>
set(work ${FP_WORK_DIR})
file(MAKE_DIRECTORY ${work})
set(failures 0)

file(GLOB stray ${FP_SRC}/include/*.h ${FP_SRC}/include/flyprof/*.h)
if(stray)
  message(SEND_ERROR "headers outside include/<layer>/flyprof/: ${stray}")
  math(EXPR failures "${failures} + 1")
endif()

# preprocess `#include "flyprof/<hdr>"` with the include dirs of layer; sets ok, out
function(probe layer hdr)
  string(MAKE_C_IDENTIFIER "${layer}_${hdr}" id)
  set(c ${work}/${id}.c)
  file(WRITE ${c} "#include \"flyprof/${hdr}\"\n")
  set(args "")
  foreach(d ${FP_INC_${layer}})
    list(APPEND args "-I${d}")
  endforeach()
  execute_process(COMMAND ${FP_CC} -E ${args} ${c} -o ${work}/${id}.i
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(rc EQUAL 0)
    set(ok TRUE PARENT_SCOPE)
  else()
    set(ok FALSE PARENT_SCOPE)
  endif()
  string(STRIP "${err}" err)
  set(out "${err}" PARENT_SCOPE)
endfunction()

set(owner_names "")
foreach(l ${FP_LAYERS})
  file(GLOB hs RELATIVE ${FP_SRC}/include/${l}/flyprof ${FP_SRC}/include/${l}/flyprof/*.h)
  list(SORT hs)
  set(headers_${l} ${hs})
  foreach(h ${hs})
    if(DEFINED owner_${h})
      message(SEND_ERROR "flyprof/${h} is in two layers: ${owner_${h}} and ${l}")
      math(EXPR failures "${failures} + 1")
    endif()
    set(owner_${h} ${l})
  endforeach()
endforeach()

# 1. each header with its own layer's include dirs
set(nheaders 0)
foreach(l ${FP_LAYERS})
  foreach(h ${headers_${l}})
    probe(${l} ${h})
    math(EXPR nheaders "${nheaders} + 1")
    if(NOT ok)
      message(SEND_ERROR "layer ${l}: its own header flyprof/${h} does not build with fp_${l}'s include dirs "
                         "(does it include a header of a layer above?):\n${out}")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()

# 2. every layer against one header of every other layer
set(nok 0)
set(nrefused 0)
foreach(l ${FP_LAYERS})
  foreach(m ${FP_LAYERS})
    if(m STREQUAL l OR NOT headers_${m})
      continue() # a layer without headers yet (model, bundle) has nothing to include
    endif()
    list(GET headers_${m} 0 h)
    probe(${l} ${h})
    list(FIND allowed_${l} ${m} i)
    if(i GREATER -1)
      if(ok)
        math(EXPR nok "${nok} + 1")
      else()
        message(SEND_ERROR "${l} may include ${m}, but flyprof/${h} does not build in fp_${l}:\n${out}")
        math(EXPR failures "${failures} + 1")
      endif()
    elseif(ok)
      message(SEND_ERROR "${l} must not see ${m}, yet flyprof/${h} builds with fp_${l}'s include dirs")
      math(EXPR failures "${failures} + 1")
    elseif(NOT out MATCHES "flyprof/${h}.*(No such file|not found)")
      message(SEND_ERROR "${l} -> ${m}: flyprof/${h} failed for another reason than not being found:\n${out}")
      math(EXPR failures "${failures} + 1")
    else()
      math(EXPR nrefused "${nrefused} + 1")
      string(REGEX MATCH "[^\n]*flyprof/${h}[^\n]*(No such file|not found)[^\n]*" line "${out}")
      string(REPLACE "${work}/" "" line "${line}")
      message(STATUS "refused ${l} -> ${m}: ${line}")
    endif()
  endforeach()
endforeach()

message(STATUS "${nheaders} headers build in their own layer; ${nok} allowed includes found, ${nrefused} forbidden ones refused")
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} layer rule violation(s)")
endif()
