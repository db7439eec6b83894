//===- Phases.h - Where a command's time goes ---------------------*- C++ -*-===//
//
// A command's named phases (the backend's start, compiling, the SASS check,
// the launches, the model's verdict, ...), their wall time summed over the
// process, for `--timings`. Always recorded: a phase costs two clock reads
// and one locked map update. Phases run on several threads may overlap
// (the CUDA harness compiles while the device's context is made), so their
// sum can exceed the command's wall time.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_PHASES_H
#define INCANT_SUPPORT_PHASES_H

#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

namespace incant::phases {

/// Adds \p Seconds to phase \p Name (created on first use).
void add(const std::string &Name, double Seconds);

/// Times the enclosing scope as phase \p Name.
class Scope {
public:
  explicit Scope(std::string Name)
      : Name(std::move(Name)), Start(std::chrono::steady_clock::now()) {}
  ~Scope();
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

private:
  std::string Name;
  std::chrono::steady_clock::time_point Start;
};

struct Phase {
  std::string Name;
  double Seconds = 0;
  unsigned Count = 0; ///< Times the phase ran.
};

/// Every phase so far, in the order each first started.
std::vector<Phase> snapshot();

/// "timings: NAME S s (xN), ..." lines, one phase a line, with \p Total
/// (the command's wall time) last.
void print(std::ostream &OS, double Total);

} // namespace incant::phases

#endif // INCANT_SUPPORT_PHASES_H
