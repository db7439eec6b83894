//===- Diagnostic.cpp - Source files and diagnostic printing --------------===//
#include "incant/Support/Diagnostic.h"
#include "incant/Support/InputFile.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>
#include <ostream>
#include <sstream>

namespace incant {

SourceFile::SourceFile(std::string Name, std::string Text)
    : Name(std::move(Name)), Text(std::move(Text)) {
  LineStarts.push_back(0);
  const char *B = this->Text.data(), *E = B + this->Text.size();
  for (const char *P = B;
       (P = static_cast<const char *>(std::memchr(P, '\n', size_t(E - P))));)
    LineStarts.push_back(uint32_t(++P - B));
}

bool readInputFile(const std::string &Path, std::string &Text,
                   std::string &Error) {
  // One open, one fstat and reads straight into the text: check reads
  // thousands of small tests per run. A folder would read as nothing (it
  // would pass as an empty file). Locations are 32-bit offsets: larger
  // files are refused, and so is a pipe or device that keeps giving.
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0) {
    Error = std::strerror(errno);
    return false;
  }
  struct FdCloser {
    int Fd;
    ~FdCloser() { ::close(Fd); }
  } Closer{Fd};
  struct stat St;
  if (::fstat(Fd, &St) != 0) {
    Error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(St.st_mode)) {
    Error = "is a folder, not a file";
    return false;
  }
  const uint64_t MaxSize = SourceFile::MaxSize;
  if (S_ISREG(St.st_mode) && uint64_t(St.st_size) > MaxSize) {
    Error = "is " + std::to_string(St.st_size) +
            " bytes; input files are limited to " + std::to_string(MaxSize) +
            " bytes";
    return false;
  }
  const uint64_t Limit = S_ISREG(St.st_mode) ? MaxSize : MaxStreamSize;
  Text.clear();
  size_t Size = 0;
  try {
    Text.resize(S_ISREG(St.st_mode) ? size_t(St.st_size) + 1 : 4096);
  } catch (const std::bad_alloc &) {
    Error = "out of memory while reading it";
    return false;
  }
  while (true) {
    if (Size == Text.size()) {
      try {
        Text.resize(std::min<size_t>(Text.size() * 2, Limit + 1));
      } catch (const std::bad_alloc &) {
        Error = "out of memory while reading it";
        return false;
      }
    }
    ssize_t N = ::read(Fd, Text.data() + Size, Text.size() - Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      Error = errno == EISDIR ? "is a folder, not a file" : "read error";
      return false;
    }
    if (N == 0)
      break;
    Size += size_t(N);
    // A regular file read to the size fstat gave is whole: no read more
    // to see its end (a system call per test, for check).
    if (S_ISREG(St.st_mode) && Size == size_t(St.st_size))
      break;
    if (Size > Limit) {
      Error = S_ISREG(St.st_mode)
                  ? "is more than " + std::to_string(MaxSize) + " bytes"
                  : "gives more than " + std::to_string(Limit) +
                        " bytes; input that is not a regular file (a pipe, "
                        "a device) is limited to that";
      return false;
    }
  }
  Text.resize(Size);
  return true;
}

std::shared_ptr<SourceFile> SourceFile::read(const std::string &Path,
                                             std::string &Error) {
  std::string Text;
  if (!readInputFile(Path, Text, Error))
    return nullptr;
  return std::make_shared<SourceFile>(Path, std::move(Text));
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
  // Lexers ask twice a token, front to back: the line of the last answer,
  // or the next one, usually holds Offset. The hint is only a guess (an
  // atomic, as a file may be shared between threads); it is checked.
  std::atomic_ref<uint32_t> Hint(LastLine);
  uint32_t Line = Hint.load(std::memory_order_relaxed); // 1-based
  auto Holds = [&](uint32_t L) {
    return L >= 1 && L <= LineStarts.size() && LineStarts[L - 1] <= Offset &&
           (L == LineStarts.size() || Offset < LineStarts[L]);
  };
  if (!Holds(Line)) {
    if (Holds(Line + 1)) {
      ++Line;
    } else {
      auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), Offset);
      Line = uint32_t(It - LineStarts.begin());
    }
    Hint.store(Line, std::memory_order_relaxed);
  }
  return SourceLoc{Line, Offset - LineStarts[Line - 1] + 1, Offset};
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

/// Whether byte \p C continues a UTF-8 character (cuts never split one).
static bool isUtf8Continuation(char C) {
  return (static_cast<unsigned char>(C) & 0xC0) == 0x80;
}

std::string DiagnosticEngine::capped(std::string_view Text, size_t Max) {
  if (Text.size() <= Max)
    return std::string(Text);
  size_t Cut = Max;
  while (Cut > 0 && isUtf8Continuation(Text[Cut]))
    --Cut;
  return std::string(Text.substr(0, Cut)) + "... (" +
         std::to_string(Text.size() - Cut) + " more bytes)";
}

std::string DiagnosticEngine::format(const Diagnostic &D) {
  std::ostringstream OS;
  if (D.File) {
    OS << capped(D.File->name(), MaxEchoed);
    if (D.Range.isValid())
      OS << ':' << D.Range.Begin.Line << ':' << D.Range.Begin.Col;
    OS << ": ";
  } else {
    OS << "incant: ";
  }
  OS << severityName(D.Sev) << ": " << capped(D.Message, MaxEchoed) << '\n';
  if (!D.File || !D.Range.isValid())
    return OS.str();
  std::string_view Line = D.File->line(D.Range.Begin.Line);
  // A long line is shown as a window around the caret, "..." marking the
  // cuts, so that a 5 MB line does not come back whole.
  uint32_t Col = D.Range.Begin.Col; // 1-based, in bytes
  std::string Pre, Post;
  if (Line.size() > MaxLineShown) {
    size_t Start = Col > MaxLineShown / 2 ? Col - 1 - MaxLineShown / 4 : 0;
    Start = std::min(Start, Line.size());
    while (Start > 0 && Start < Line.size() && isUtf8Continuation(Line[Start]))
      --Start;
    size_t End = std::min(Line.size(), Start + MaxLineShown);
    while (End < Line.size() && isUtf8Continuation(Line[End]))
      ++End;
    if (Start > 0)
      Pre = "...";
    if (End < Line.size())
      Post = "...";
    Line = Line.substr(Start, End - Start);
    Col = Col > Start ? uint32_t(Col - Start) : 1;
  }
  // Tabs are kept in the caret line so that the caret lines up.
  OS << Pre << Line << Post << '\n';
  std::string Caret(Pre.size(), ' ');
  for (uint32_t I = 1; I < Col && I <= Line.size(); ++I)
    Caret += Line[I - 1] == '\t' ? '\t' : ' ';
  Caret += '^';
  if (D.Range.End.Line == D.Range.Begin.Line &&
      D.Range.End.Col > D.Range.Begin.Col + 1 && Col <= Line.size() + 1) {
    uint32_t Len = std::min<uint32_t>(D.Range.End.Col - D.Range.Begin.Col,
                                      Line.size() + 1 - Col);
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
