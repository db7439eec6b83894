//===- Progress.cpp - A progress line for long searches -------------------===//
#include "incant/Support/Progress.h"

#include <algorithm>
#include <iostream>
#include <unistd.h>

namespace incant {

using Clock = std::chrono::steady_clock;

/// Asked once a process: check makes a progress line per test, and the
/// question is a system call.
static bool stderrIsTerminal() {
  static const bool Terminal = isatty(STDERR_FILENO);
  return Terminal;
}

ProgressLine::ProgressLine(std::ostream &OS)
    : ProgressLine(OS, &OS == &std::cerr && stderrIsTerminal()) {}

ProgressLine::ProgressLine(std::ostream &OS, bool Terminal,
                           double DelaySeconds)
    : OS(&OS), Terminal(Terminal), Start(Clock::now()),
      Next(Start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(DelaySeconds))) {}

bool ProgressLine::due() { return Terminal && Clock::now() >= Next; }

double ProgressLine::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

void ProgressLine::show(const std::string &Line) {
  // One terminal line: a longer text would wrap and never be erased.
  std::string L = Line.substr(0, 100);
  *OS << '\r' << L;
  if (L.size() < Shown)
    *OS << std::string(Shown - L.size(), ' ');
  *OS << std::flush;
  Shown = std::max(Shown, L.size());
  Next = Clock::now() + std::chrono::milliseconds(100);
}

void ProgressLine::clear() {
  if (!Shown)
    return;
  *OS << '\r' << std::string(Shown, ' ') << '\r' << std::flush;
  Shown = 0;
}

} // namespace incant
