//===- StressStore.h - `incant stress` results in SQLite --------*- C++ -*-===//
//
// One row per run of the application (environment, seed, verdict, exit
// status, time, what the injected library did), one row per invocation
// (its options as JSON). The conventions are the campaign store's
// (Support/Sqlite.h): WAL, synchronous=FULL, one transaction per row, a
// meta table with format "incant-stress" and schema "1". Where incant is
// built without SQLite, open() says so.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_APPTEST_STRESSSTORE_H
#define INCANT_APPTEST_STRESSSTORE_H

#include "incant/AppTest/AppUnderTest.h"

#include <cstdint>
#include <memory>
#include <string>

namespace incant::apptest {

class StressStore {
public:
  /// Opens or creates \p Path; null with \p Error set on failure.
  static std::unique_ptr<StressStore> open(const std::string &Path,
                                           std::string &Error);
  ~StressStore();
  StressStore(const StressStore &) = delete;
  StressStore &operator=(const StressStore &) = delete;

  /// Records an invocation; its id goes to every later put().
  bool begin(const std::string &Started, const std::string &App,
             const std::string &OptionsJson, std::string &Error);
  bool put(const RunRecord &R, std::string &Error);
  /// Runs stored for \p App (its command line) in environment \p Env.
  uint64_t count(const std::string &App, const std::string &Env);

private:
  StressStore() = default;
  struct Impl;
  std::unique_ptr<Impl> I;
};

} // namespace incant::apptest

#endif // INCANT_APPTEST_STRESSSTORE_H
