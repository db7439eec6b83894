//===- StopSignals.h - SIGTERM and SIGINT as a request to stop --*- C++ -*-===//
//
// A long command that stores as it goes (a campaign) stops cleanly when a
// scheduler's time limit (SIGTERM) or Ctrl-C (SIGINT) comes: while a
// StopSignals object lives, the first such signal only sets a flag that
// the work polls; a second ends the process as the signal would. A signal
// the process was started ignoring stays ignored. One object at a time.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_STOPSIGNALS_H
#define INCANT_SUPPORT_STOPSIGNALS_H

#include <atomic>
#include <signal.h>

namespace incant {

class StopSignals {
public:
  StopSignals();
  ~StopSignals(); ///< Puts the previous handlers back.
  StopSignals(const StopSignals &) = delete;
  StopSignals &operator=(const StopSignals &) = delete;

  /// True once a signal came.
  const std::atomic<bool> &requested() const;
  /// The signal that came (SIGTERM, SIGINT), or 0.
  int signal() const;
  /// Its name ("SIGTERM"), or "" when none came.
  const char *name() const;

private:
  struct sigaction OldTerm {}, OldInt{};
};

} // namespace incant

#endif // INCANT_SUPPORT_STOPSIGNALS_H
