# docs/architecture.md names every part: each lib/<Part> (a folder with a
# CMakeLists.txt) has a row in the parts table and is drawn in the
# dependency pictures, and README.md's list of parts names it; neither names
# a part that is not there. Fails naming what is missing or extra.
#   cmake -DSRC=<source tree> -P ArchitectureParts.cmake
file(GLOB lists RELATIVE ${SRC}/lib ${SRC}/lib/*/CMakeLists.txt)
set(parts "")
foreach(l ${lists})
  get_filename_component(p ${l} DIRECTORY)
  list(APPEND parts ${p})
endforeach()
list(LENGTH parts n)
if(n LESS 20)
  message(FATAL_ERROR "found only ${n} parts under lib/: ${parts}")
endif()

file(READ ${SRC}/docs/architecture.md doc)
string(FIND "${doc}" "## Dependencies" from)
string(FIND "${doc}" "## Data flow" to)
if(from EQUAL -1 OR to EQUAL -1 OR to LESS from)
  message(FATAL_ERROR "docs/architecture.md has no '## Dependencies' "
                      "section before '## Data flow'")
endif()
math(EXPR len "${to} - ${from}")
string(SUBSTRING "${doc}" ${from} ${len} pictures)
# Only the drawn pictures (the fenced blocks), not the text between them.
string(REGEX MATCHALL "```[^`]*```" blocks "${pictures}")
string(JOIN " " drawn ${blocks})

file(READ ${SRC}/README.md readme)
string(REGEX MATCH "hold one library per part\n?[^;]*;" readme_list "${readme}")
if(NOT readme_list)
  message(FATAL_ERROR "README.md has no list of parts ('hold one library "
                      "per part (...;')")
endif()
string(REGEX REPLACE "[\n(),;]" " " readme_list "${readme_list}")

set(bad "")
foreach(p ${parts})
  if(NOT doc MATCHES "\n\\| ${p} \\|")
    list(APPEND bad "docs/architecture.md: no row for ${p}")
  endif()
  if(NOT drawn MATCHES "(^|[^A-Za-z])${p}([^A-Za-z]|$)")
    list(APPEND bad "docs/architecture.md: ${p} is not drawn")
  endif()
  if(NOT readme_list MATCHES " ${p} ")
    list(APPEND bad "README.md: ${p} is not in the list of parts")
  endif()
endforeach()
# Rows for parts that are not there.
string(REGEX MATCHALL "\n\\| [A-Z][A-Za-z]+ \\| `incant" rows "${doc}")
foreach(r ${rows})
  string(REGEX REPLACE "\n\\| ([A-Za-z]+) .*" "\\1" name "${r}")
  list(FIND parts ${name} at)
  if(at EQUAL -1)
    list(APPEND bad "docs/architecture.md: a row for ${name}, not in lib/")
  endif()
endforeach()
if(bad)
  list(JOIN bad "\n  " lines)
  message(FATAL_ERROR "the parts in the docs are not those in lib/:\n  ${lines}")
endif()
message(STATUS "${n} parts, each in docs/architecture.md's table and "
               "pictures and in README.md")
