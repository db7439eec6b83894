//===- FenceStore.h - Fence searches in SQLite ------------------*- C++ -*-===//
//
// Every check a search makes (its number, purpose, fence set, what it
// asked for, runs, failures, time) is one row, written in its own
// transaction as soon as it is made; a search is identified by a
// fingerprint of everything that decides its checks (the application and
// its arguments, the oracle, the candidates, the iterations and stability
// budget). A search started again with the same fingerprint replays the
// stored checks in order and goes on from the first one not stored: a
// killed search resumes, a finished one prints its result again. The
// conventions are the campaign store's (Support/Sqlite.h): WAL,
// synchronous=FULL, a meta table with format "incant-fences", schema "1".
// Where incant is built without SQLite, open() says so.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_FENCES_FENCESTORE_H
#define INCANT_FENCES_FENCESTORE_H

#include "incant/Fences/Reduction.h"

#include <memory>
#include <string>

namespace incant::fences {

class FenceStore : public Journal {
public:
  /// Opens or creates \p Path; null with \p Error set on failure.
  static std::unique_ptr<FenceStore> open(const std::string &Path,
                                          std::string &Error);
  ~FenceStore() override;

  /// Continues the latest search with \p Fingerprint, or starts one (with
  /// \p App and \p OptionsJson for the record). \p Stored receives how many
  /// checks it already has.
  bool begin(const std::string &Fingerprint, const std::string &App,
             const std::string &OptionsJson, uint64_t &Stored,
             std::string &Error);
  std::optional<CheckOutcome> lookup(uint64_t Seq, const FenceSet &Set,
                                     const CheckSpec &Spec) override;
  bool record(const CheckRecord &C, std::string &Error) override;
  /// Stores the search's result (JSON) and marks it finished.
  bool finish(const std::string &ResultJson, std::string &Error);

private:
  FenceStore() = default;
  struct Impl;
  std::unique_ptr<Impl> I;
};

} // namespace incant::fences

#endif // INCANT_FENCES_FENCESTORE_H
