# SPDX-License-Identifier: Apache-2.0
# Writes the module-definition file of a compat DLL (cudart64_12.dll,
# cublas64_12.dll) just before it links: every global function defined in
# its objects whose name starts with PREFIX (the Linux version scripts'
# `cuda*;` and `cublas*;`; many of the functions come from macros, so the
# names are read from the objects, not the sources).
#   cmake -DNM=... -DPREFIX=cuda -DDLL=cudart64_12.dll -DOUT=x.def
#         -DOBJECTS="a.obj;b.obj" -P make_def.cmake
execute_process(COMMAND ${NM} --defined-only --extern-only ${OBJECTS} OUTPUT_VARIABLE syms
                COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL "[0-9a-fA-F]+ T ${PREFIX}[A-Za-z0-9_]*" hits "${syms}")
set(names)
foreach(h ${hits})
  string(REGEX REPLACE ".* T " "" n "${h}")
  list(APPEND names ${n})
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
set(text "LIBRARY ${DLL}\nEXPORTS\n")
foreach(n ${names})
  string(APPEND text "  ${n}\n")
endforeach()
file(WRITE ${OUT}.new "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.new ${OUT})
