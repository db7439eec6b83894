# ctest apps.usage: every application rejects a bad command line with exit
# status 2 and one "<name>: ERROR: ..." line, and answers --help with 0,
# before it needs a GPU. APPS: the binaries, separated by '|'.
string(REPLACE "|" ";" apps "${APPS}")
set(failures 0)
foreach(app ${apps})
  get_filename_component(name ${app} NAME)
  foreach(args "--no-such-option" "--size;0" "--repeat;x" "--blocks")
    execute_process(COMMAND ${app} ${args} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_QUIET)
    if(NOT rc EQUAL 2 OR NOT out MATCHES "^${name}: ERROR: ")
      message(SEND_ERROR "${name} ${args}: exit ${rc}, stdout '${out}'")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
  execute_process(COMMAND ${app} --help RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "--repeat N")
    message(SEND_ERROR "${name} --help: exit ${rc}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
list(LENGTH apps n)
if(n EQUAL 0)
  message(FATAL_ERROR "no applications were given")
endif()
message(STATUS "${n} applications checked, ${failures} failures")
