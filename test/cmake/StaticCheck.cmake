# The incant binary (incant check) is linked statically where that links
# (INCANT_STATIC_CHECK, CMakeLists.txt): then its link has -static, fmt
# compiled in (OwnFmt.cpp) and no shared libfmt; else it links libfmt.
# Run by ctest as cmake -DBIN=<build dir> -DSTATIC=<ON|OFF> -P
# StaticCheck.cmake; it reads the build graph, builds nothing.
execute_process(COMMAND ninja -C ${BIN} -t commands tools/incant/incant
  OUTPUT_VARIABLE cmds RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ninja -t commands tools/incant/incant failed (${rc})")
endif()
# The last command is incant's own link.
string(REGEX MATCH "[^\n]*-o tools/incant/incant [^\n]*" link "${cmds}")
if(link STREQUAL "")
  message(FATAL_ERROR "no link command for tools/incant/incant in:\n${cmds}")
endif()
string(FIND "${link}" "libfmt" fmt_at)
string(FIND "${link}" " -static" static_at)
string(FIND "${link}" "OwnFmt.cpp.o" own_at)
if(STATIC)
  if(NOT fmt_at EQUAL -1 OR static_at EQUAL -1 OR own_at EQUAL -1)
    message(FATAL_ERROR "incant is not linked statically with its own fmt:\n"
                        "${link}")
  endif()
elseif(fmt_at EQUAL -1 OR NOT static_at EQUAL -1)
  message(FATAL_ERROR "incant should link libfmt dynamically:\n${link}")
endif()
message(STATUS "incant's link: static ${STATIC}")
