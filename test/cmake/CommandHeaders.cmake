# The command layer is the only place of commands. A command header declares
# a command's options (`struct XCommand`) and its entry point
# (`int runX(const XCommand &, ...)`); every command header lives in
# include/incant/Commands, every entry point is defined in lib/Commands, and
# no part (a file in lib/ outside lib/Commands, a header in include/incant
# outside Commands) includes a command header: the parts take typed
# configurations (e.g. apptest::AppUnderTest, not StressCommand). Only the
# tool (tools/incant) and the tests of the commands include them. Fails
# naming each file that breaks the rule.
#   cmake -DSRC=<source tree> -P CommandHeaders.cmake
set(entry_point "\n(int|Expected<[A-Za-z:]+>) run[A-Za-z]*\\(const [A-Za-z:]*Command &")

# The command headers, and no command outside them.
file(GLOB command_headers RELATIVE ${SRC}/include
     ${SRC}/include/incant/Commands/*.h)
set(bad "")
set(entries 0)
foreach(h ${command_headers})
  file(READ ${SRC}/include/${h} text)
  if(text MATCHES "${entry_point}")
    math(EXPR entries "${entries} + 1")
  endif()
endforeach()
list(LENGTH command_headers n)
# The guard: the rule below checks nothing if it finds no command header.
if(n LESS 15 OR entries LESS 15)
  message(FATAL_ERROR "found only ${n} command headers (${entries} with an "
                      "entry point) in include/incant/Commands: "
                      "${command_headers}")
endif()

file(GLOB_RECURSE parts ${SRC}/lib/*.cpp ${SRC}/lib/*.h ${SRC}/include/incant/*.h)
foreach(f ${parts})
  file(RELATIVE_PATH rel ${SRC} ${f})
  if(rel MATCHES "^(lib|include/incant)/Commands/")
    continue()
  endif()
  file(READ ${f} text)
  # A command declared or defined in a part.
  if(text MATCHES "${entry_point}"
     OR text MATCHES "\n(int|Expected<[A-Za-z:]+>) [a-z]+::run[A-Za-z]*\\(const [A-Za-z:]*Command &")
    list(APPEND bad "${rel} declares or defines a command's entry point")
  endif()
  # A part that includes a command header (by any path).
  string(REGEX MATCHALL "#include \"[^\"]*Commands/[A-Za-z]+\\.h\"" incs "${text}")
  foreach(inc ${incs})
    list(APPEND bad "${rel}: ${inc}")
  endforeach()
endforeach()
if(bad)
  list(JOIN bad "\n  " lines)
  message(FATAL_ERROR "commands outside the command layer "
                      "(include/incant/Commands, lib/Commands):\n  ${lines}")
endif()
message(STATUS "${n} command headers in include/incant/Commands, included "
               "by no part")
