//===- Progress.h - A progress line for long searches -----------*- C++ -*-===//
//
// Every search that can run long (check's enumeration, gen's cycles, tune's
// measurements) shows where it is the same way: nothing during the first
// second, nothing unless the stream is a terminal, then one line on
// standard error rewritten in place at most ten times a second, and erased
// when the search ends so that the results start on a clean line.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_PROGRESS_H
#define INCANT_SUPPORT_PROGRESS_H

#include <chrono>
#include <iosfwd>
#include <string>

namespace incant {

class ProgressLine {
public:
  /// Shows on \p OS when it is std::cerr and standard error is a terminal.
  explicit ProgressLine(std::ostream &OS);
  /// Shows on \p OS when \p Terminal, after \p DelaySeconds.
  ProgressLine(std::ostream &OS, bool Terminal, double DelaySeconds = 1.0);
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  /// Whether a line given now would be shown (one clock read): callers
  /// build the text only then.
  bool due();
  /// Shows \p Line if due(); \p Make (a callable returning the line) is
  /// called only then.
  template <typename F> void update(F &&Make) {
    if (due())
      show(Make());
  }
  /// Erases the line, if one is shown.
  void clear();
  /// Seconds since construction.
  double elapsed() const;

private:
  void show(const std::string &Line);

  std::ostream *OS;
  bool Terminal;
  std::chrono::steady_clock::time_point Start, Next;
  size_t Shown = 0; ///< Width of the line on the terminal; 0: none.
};

} // namespace incant

#endif // INCANT_SUPPORT_PROGRESS_H
