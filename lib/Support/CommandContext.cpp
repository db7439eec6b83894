//===- CommandContext.cpp - One command's streams, messages and exit code --------===//
#include "incant/Support/CommandContext.h"
#include "incant/Support/OutputFile.h"

#include <ostream>

namespace incant {

int CommandContext::fail(ErrorKind K, std::string_view Message) {
  Err << Prefix << DiagnosticEngine::capped(Message) << "\n";
  Err.flush();
  return exitCodeOf(K);
}

int CommandContext::checkOutputs(std::initializer_list<std::string_view> Paths) {
  for (std::string_view P : Paths) {
    if (P.empty() || P == "-")
      continue;
    std::string Error;
    if (!checkWritable(std::string(P), Error))
      return fail(ErrorKind::Input, Error);
  }
  return 0;
}

} // namespace incant
