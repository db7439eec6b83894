//===- StopSignals.cpp - SIGTERM and SIGINT as a request to stop ----------===//
#include "incant/Support/StopSignals.h"

#include <cassert>

namespace incant {

namespace {

static_assert(std::atomic<bool>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free,
              "the handler may only touch lock-free atomics");
std::atomic<bool> Requested{false};
std::atomic<int> Which{0};
std::atomic<bool> Installed{false};

extern "C" void onStopSignal(int Sig) {
  Which.store(Sig);
  Requested.store(true);
}

} // namespace

StopSignals::StopSignals() {
  [[maybe_unused]] bool Was = Installed.exchange(true);
  assert(!Was && "one StopSignals object at a time");
  Requested = false;
  Which = 0;
  struct sigaction A {};
  A.sa_handler = onStopSignal;
  sigemptyset(&A.sa_mask);
  // The second signal finds the default action again and ends the process.
  A.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGTERM, &A, &OldTerm);
  sigaction(SIGINT, &A, &OldInt);
  // A signal the process was started ignoring (SIGINT in a shell's
  // background job) stays ignored.
  if (OldTerm.sa_handler == SIG_IGN)
    sigaction(SIGTERM, &OldTerm, nullptr);
  if (OldInt.sa_handler == SIG_IGN)
    sigaction(SIGINT, &OldInt, nullptr);
}

StopSignals::~StopSignals() {
  sigaction(SIGTERM, &OldTerm, nullptr);
  sigaction(SIGINT, &OldInt, nullptr);
  Installed = false;
}

const std::atomic<bool> &StopSignals::requested() const { return Requested; }

int StopSignals::signal() const { return Which.load(); }

const char *StopSignals::name() const {
  switch (Which.load()) {
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  default:
    return "";
  }
}

} // namespace incant
