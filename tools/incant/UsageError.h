//===- UsageError.h - Command-line errors with their place -----*- C++ -*-===//
//
// CLI11 says what is wrong with the command line, not where. The tool
// reports it in the one diagnostic format, with the command line as the
// source: `<command line>:1:COL: error: ...`, the line and a caret under
// the argument the message is about (the first argument, from the left,
// that the message names; the end of the line when it names none, as for
// a missing value).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_USAGEERROR_H
#define INCANT_TOOL_USAGEERROR_H

#include "incant/Support/Diagnostic.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace incant::tool {

/// Reports \p Message about the command line \p Args (argv; argv[0] shown
/// as "incant") to \p OS.
inline void reportUsageError(const std::vector<std::string> &Args,
                             const std::string &Message, std::ostream &OS) {
  std::string Line = "incant";
  std::vector<std::pair<size_t, size_t>> Spans; // of Args[1...]
  for (size_t I = 1; I < Args.size(); ++I) {
    Line += ' ';
    Spans.emplace_back(Line.size(), Args[I].size());
    Line += Args[I];
  }
  // The argument the message names: "--iterations = x" names --iterations
  // (its value's place is what matters: the next argument, or after '=').
  auto Named = [&](const std::string &A) {
    if (A.empty())
      return false;
    std::string Key = A.substr(0, A.find('='));
    for (size_t P = Message.find(Key); P != std::string::npos;
         P = Message.find(Key, P + 1)) {
      bool StartOk = P == 0 || Message[P - 1] == ' ' || Message[P - 1] == ',' ||
                     Message[P - 1] == '\'';
      size_t E = P + Key.size();
      bool EndOk = E == Message.size() || Message[E] == ' ' ||
                   Message[E] == ':' || Message[E] == ',' || Message[E] == '=' ||
                   Message[E] == '\'';
      if (StartOk && EndOk)
        return true;
    }
    return false;
  };
  size_t Begin = Line.size(), Len = 0;
  for (size_t I = 0; I < Spans.size(); ++I)
    if (Args[I + 1].size() > 1 && Named(Args[I + 1])) {
      Begin = Spans[I].first;
      Len = Spans[I].second;
      // "--x v" with a bad v: point at v.
      bool Value = Message.find("= ") != std::string::npos ||
                   Message.find("Could not convert") != std::string::npos ||
                   Message.find("not in range") != std::string::npos ||
                   Message.find(", got '") != std::string::npos;
      if (Value && Args[I + 1].find('=') == std::string::npos &&
          I + 1 < Spans.size()) {
        Begin = Spans[I + 1].first;
        Len = Spans[I + 1].second;
      }
      break;
    }
  auto File = std::make_shared<SourceFile>("<command line>", Line);
  SourceRange R{File->locAt(static_cast<uint32_t>(Begin)),
                File->locAt(static_cast<uint32_t>(Begin + std::max<size_t>(Len, 1)))};
  DiagnosticEngine Diags(&OS);
  Diags.error(File, R, Message);
}

} // namespace incant::tool

#endif // INCANT_TOOL_USAGEERROR_H
