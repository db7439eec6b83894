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

int CommandContext::checkOutputs(const std::vector<std::string> &Outputs,
                                 const std::vector<std::string> &Inputs) {
  std::string Error;
  if (!incant::checkOutputs(Outputs, Inputs, Error))
    return fail(ErrorKind::Input, Error);
  return 0;
}

} // namespace incant
