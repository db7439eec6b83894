//===- Diagnostic.h - Source locations and user-facing diagnostics -*- C++ -*-===//
//
// One diagnostic format for every input incant reads (litmus tests, .cat
// models, PTX, options):
//
//   file:line:col: error: message
//     <the source line>
//     ^~~~
//
// User mistakes are reported through a DiagnosticEngine and never thrown;
// a parser that reported an error returns an empty optional.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_DIAGNOSTIC_H
#define INCANT_SUPPORT_DIAGNOSTIC_H

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace incant {

/// A 1-based line and column in a SourceFile; line 0 means "no location".
struct SourceLoc {
  uint32_t Line = 0;
  uint32_t Col = 0;
  /// Byte offset into the file's text.
  uint32_t Offset = 0;
  bool isValid() const { return Line != 0; }
};

/// A half-open range [Begin, End) of source text.
struct SourceRange {
  SourceLoc Begin;
  SourceLoc End;
  bool isValid() const { return Begin.isValid(); }
};

/// The text of one input file, with a line index for printing carets.
class SourceFile {
public:
  SourceFile(std::string Name, std::string Text);

  /// The largest file read() takes: locations are 32-bit byte offsets.
  static constexpr uint64_t MaxSize = (uint64_t(1) << 31) - 1;

  /// Reads a file; returns null and sets Error (errno text, "is a folder,
  /// not a file", or the size limit) if it cannot.
  static std::shared_ptr<SourceFile> read(const std::string &Path,
                                          std::string &Error);

  const std::string &name() const { return Name; }
  const std::string &text() const { return Text; }
  /// Line \p Line (1-based) without its newline; empty if out of range.
  std::string_view line(uint32_t Line) const;
  /// The location of byte offset \p Offset.
  SourceLoc locAt(uint32_t Offset) const;
  /// The text covered by a range.
  std::string_view slice(SourceRange R) const;

private:
  std::string Name;
  std::string Text;
  std::vector<uint32_t> LineStarts;
  /// The line locAt() found last (1-based; 0: none), where it looks first.
  mutable uint32_t LastLine = 0;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity Sev = Severity::Error;
  std::shared_ptr<const SourceFile> File; ///< May be null (no location).
  SourceRange Range;
  std::string Message;
};

/// Collects diagnostics and prints them in the one format above.
class DiagnosticEngine {
public:
  /// Diagnostics are printed to \p OS as they are reported; pass null to
  /// only collect them.
  explicit DiagnosticEngine(std::ostream *OS = nullptr) : OS(OS) {}

  void report(Severity Sev, std::shared_ptr<const SourceFile> File,
              SourceRange Range, std::string Message);
  void error(std::shared_ptr<const SourceFile> File, SourceRange Range,
             std::string Message) {
    report(Severity::Error, std::move(File), Range, std::move(Message));
  }
  void warning(std::shared_ptr<const SourceFile> File, SourceRange Range,
               std::string Message) {
    report(Severity::Warning, std::move(File), Range, std::move(Message));
  }
  void note(std::shared_ptr<const SourceFile> File, SourceRange Range,
            std::string Message) {
    report(Severity::Note, std::move(File), Range, std::move(Message));
  }
  /// An error with no source location (a bad option, a missing file).
  void error(std::string Message) {
    report(Severity::Error, nullptr, {}, std::move(Message));
  }

  unsigned numErrors() const { return NumErrors; }
  unsigned numWarnings() const { return NumWarnings; }
  bool hasErrors() const { return NumErrors != 0; }
  const std::vector<Diagnostic> &diagnostics() const { return Diags; }

  /// Renders one diagnostic (with source line and caret) as text. Input
  /// never comes back whole: a message or file name is cut after MaxEchoed
  /// bytes, and a source line longer than MaxLineShown is shown as a window
  /// of that many bytes around the caret.
  static std::string format(const Diagnostic &D);
  static constexpr size_t MaxEchoed = 1000;
  static constexpr size_t MaxLineShown = 200;
  /// \p Text, cut after \p Max bytes (on a UTF-8 character boundary) with
  /// "... (N more bytes)" added.
  static std::string capped(std::string_view Text, size_t Max = MaxEchoed);

private:
  std::ostream *OS;
  std::vector<Diagnostic> Diags;
  unsigned NumErrors = 0;
  unsigned NumWarnings = 0;
};

} // namespace incant

#endif // INCANT_SUPPORT_DIAGNOSTIC_H
