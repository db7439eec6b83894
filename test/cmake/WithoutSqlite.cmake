# A build without SQLite and Z3 (INCANT_SQLITE=OFF, INCANT_USE_Z3=OFF, as on
# the GPU machine, which has neither sqlite3.h nor z3.h): it configures,
# CMake says which commands are off, and the tool's build graph holds none
# of their sources or libraries, so it links.
# Run by ctest as cmake -DSRC=... -DBIN=... -P WithoutSqlite.cmake;
# configuring only (seconds), not building.
file(REMOVE_RECURSE ${BIN})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G Ninja
          -DINCANT_SQLITE=OFF -DINCANT_USE_Z3=OFF -DINCANT_BENCH=OFF
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed (${rc}):\n${out}\n${err}")
endif()
foreach(expected
    "incant campaign/merge/report: off"
    "incant: CampaignCli.cpp left out (no incantCampaign)"
    "incant: MergeCli.cpp left out (no incantCampaign)"
    "incant: ReportCli.cpp left out (no incantCampaign)"
    "incant race: the static mode is off (no lib/Race); --dynamic only")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "configure did not say '${expected}':\n${out}")
  endif()
endforeach()
execute_process(COMMAND ninja -C ${BIN} -t commands incant
  OUTPUT_VARIABLE cmds RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ninja -t commands incant failed (${rc})")
endif()
foreach(absent CampaignCli MergeCli ReportCli libincantCampaign libsqlite3
        libincantSqlite libincantRace libincantSMT libz3
        /Commands/CampaignCommand.cpp /Commands/MergeCommand.cpp
        /Commands/ReportCommand.cpp /Commands/RaceCommand.cpp
        /Commands/RepairCommand.cpp)
  string(FIND "${cmds}" "${absent}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the tool still builds with ${absent}")
  endif()
endforeach()
foreach(present incant.cpp GenCli.cpp /Commands/GenCommand.cpp
        /Commands/CheckCommand.cpp /Commands/DynamicRaceCommand.cpp)
  string(FIND "${cmds}" "${present}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the tool no longer builds ${present}")
  endif()
endforeach()
file(REMOVE_RECURSE ${BIN})
message(STATUS "without SQLite: configured, campaign/merge/report left out")
