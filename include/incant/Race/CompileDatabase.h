//===- CompileDatabase.h - compile_commands.json, as clang-tidy -p reads it -*- C++ -*-===//
//
// A build's compilation database (CMake's CMAKE_EXPORT_COMPILE_COMMANDS,
// Bear, ...): for each source file, the folder and the command that
// compiled it. `incant race -p DIR` takes each file's flags from it: the
// macros, include paths, language standard and nvcc options that change
// what the kernel is, and the GPU architecture it was built for; the
// flags that only say what to produce (-c, -o, dependency files) or
// concern the host compiler are dropped, as nvcc -ptx is run instead.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_RACE_COMPILEDATABASE_H
#define INCANT_RACE_COMPILEDATABASE_H

#include <optional>
#include <string>
#include <vector>

namespace incant::race {

struct CompileCommand {
  std::string Directory;
  std::string File; ///< Absolute and normalised.
  std::vector<std::string> Arguments;
};

/// Reads DIR/compile_commands.json (or the file \p Path names); nullopt
/// with \p Error ("build/compile_commands.json: ...") if it cannot.
std::optional<std::vector<CompileCommand>>
readCompileDatabase(const std::string &Path, std::string &Error);

/// The entry that compiles \p File (compared as absolute, normalised
/// paths); null if none.
const CompileCommand *findCompileCommand(const std::vector<CompileCommand> &DB,
                                         const std::string &File);

/// "a.cc -o 'b c'" as words, the way a POSIX shell splits them (quotes,
/// backslashes), as the database's "command" strings are written.
std::vector<std::string> splitCommandLine(const std::string &Command);

/// The flags of \p C that a PTX build of the file needs (-D, -U, -I and the
/// other include options with relative paths made absolute, -std, nvcc's
/// --expt-*, -rdc, the math options); the architecture (sm_NN) of -arch,
/// --gpu-architecture or -gencode in \p Arch ("" if none).
std::vector<std::string> ptxFlagsOf(const CompileCommand &C, std::string &Arch);

} // namespace incant::race

#endif // INCANT_RACE_COMPILEDATABASE_H
