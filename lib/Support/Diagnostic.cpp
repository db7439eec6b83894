//===- Diagnostic.cpp - Source files and diagnostic printing --------------===//
#include "incant/Support/Diagnostic.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>

namespace incant {

SourceFile::SourceFile(std::string Name, std::string Text)
    : Name(std::move(Name)), Text(std::move(Text)) {
  LineStarts.push_back(0);
  for (uint32_t I = 0, E = this->Text.size(); I != E; ++I)
    if (this->Text[I] == '\n')
      LineStarts.push_back(I + 1);
}

std::shared_ptr<SourceFile> SourceFile::read(const std::string &Path,
                                             std::string &Error) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Error = std::strerror(errno);
    return nullptr;
  }
  std::ostringstream SS;
  SS << In.rdbuf();
  if (In.bad()) {
    Error = "read error";
    return nullptr;
  }
  return std::make_shared<SourceFile>(Path, SS.str());
}

std::string_view SourceFile::line(uint32_t Line) const {
  if (Line == 0 || Line > LineStarts.size())
    return {};
  uint32_t Begin = LineStarts[Line - 1];
  uint32_t End = Line < LineStarts.size() ? LineStarts[Line] - 1 : Text.size();
  if (End > Begin && Text[End - 1] == '\r')
    --End;
  return std::string_view(Text).substr(Begin, End - Begin);
}

SourceLoc SourceFile::locAt(uint32_t Offset) const {
  Offset = std::min<uint32_t>(Offset, Text.size());
  auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), Offset);
  uint32_t LineIdx = It - LineStarts.begin(); // 1-based line
  return SourceLoc{LineIdx, Offset - LineStarts[LineIdx - 1] + 1, Offset};
}

std::string_view SourceFile::slice(SourceRange R) const {
  if (!R.isValid() || R.End.Offset < R.Begin.Offset ||
      R.End.Offset > Text.size())
    return {};
  return std::string_view(Text).substr(R.Begin.Offset,
                                       R.End.Offset - R.Begin.Offset);
}

static const char *severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

std::string DiagnosticEngine::format(const Diagnostic &D) {
  std::ostringstream OS;
  if (D.File) {
    OS << D.File->name();
    if (D.Range.isValid())
      OS << ':' << D.Range.Begin.Line << ':' << D.Range.Begin.Col;
    OS << ": ";
  } else {
    OS << "incant: ";
  }
  OS << severityName(D.Sev) << ": " << D.Message << '\n';
  if (!D.File || !D.Range.isValid())
    return OS.str();
  std::string_view Line = D.File->line(D.Range.Begin.Line);
  // Tabs are kept in the caret line so that the caret lines up.
  OS << Line << '\n';
  std::string Caret;
  for (uint32_t I = 1; I < D.Range.Begin.Col && I <= Line.size(); ++I)
    Caret += Line[I - 1] == '\t' ? '\t' : ' ';
  Caret += '^';
  if (D.Range.End.Line == D.Range.Begin.Line &&
      D.Range.End.Col > D.Range.Begin.Col + 1) {
    uint32_t Len = std::min<uint32_t>(D.Range.End.Col - D.Range.Begin.Col,
                                      Line.size() + 1 - D.Range.Begin.Col);
    if (Len > 1)
      Caret.append(Len - 1, '~');
  }
  OS << Caret << '\n';
  return OS.str();
}

void DiagnosticEngine::report(Severity Sev,
                              std::shared_ptr<const SourceFile> File,
                              SourceRange Range, std::string Message) {
  Diagnostic D{Sev, std::move(File), Range, std::move(Message)};
  if (Sev == Severity::Error)
    ++NumErrors;
  else if (Sev == Severity::Warning)
    ++NumWarnings;
  if (OS)
    *OS << format(D) << std::flush;
  Diags.push_back(std::move(D));
}

} // namespace incant
