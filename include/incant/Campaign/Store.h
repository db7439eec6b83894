//===- Store.h - The SQLite results store of a campaign ---------*- C++ -*-===//
//
// One campaign database holds the tests (source, hash, family, scope), each
// shipped model's verdict on each test with the final states it allows, and
// one result per (test, parameters, chip): the device, driver, incant
// version, the histogram, instances, time and optcheck status, or the error
// that kept the test from running. docs/campaign.md shows the schema.
//
// Every put() is one transaction, or a savepoint inside begin()/commit()
// (a campaign stores the results that are ready together), and the
// database runs in WAL mode with synchronous=FULL, so a process killed at
// any moment leaves every stored result whole and none half-written. Only SQLite's C API is used, and only
// in Store.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_CAMPAIGN_STORE_H
#define INCANT_CAMPAIGN_STORE_H

#include "incant/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

struct sqlite3;

namespace incant {
class WriterLock;
}

namespace incant::campaign {

/// A test as stored once per database, keyed by the hash of its source.
struct TestRecord {
  std::string Hash;      ///< testHash() of Source.
  std::string Name;      ///< The test's name (the file stem if unparsable).
  std::string Path;      ///< The file it was read from.
  std::string Family;    ///< familyOf(Name): MP, SB, 2+2W, ...
  std::string Scope;     ///< scopeOf(Program): e.g. "inter-cta global".
  std::string Condition; ///< `exists (1:r0=1 /\ 1:r2=0)`; empty if unparsable.
  std::string Source;
};

/// A final state, in herd's spelling (`1:r0=1; 1:r2=0;`).
struct StateRecord {
  std::string State;
  bool Satisfies = false; ///< Satisfies the condition's proposition.
  uint64_t Count = 0;     ///< Observed count (0 for a model's allowed state).
};

/// One model's verdict on one test: whether the condition holds and which
/// final states the model allows.
struct VerdictRecord {
  std::string Model; ///< Display name: sc, ptx-rmo, ptx, or a .cat's stem.
  bool Ok = false;
  bool Incomplete = false; ///< Enumeration stopped early: Allowed is partial.
  uint64_t Candidates = 0;
  std::vector<StateRecord> Allowed;
};

/// One run of one test with one set of parameters on one chip.
struct ResultRecord {
  /// Its row in the database it was read from (for messages); 0 for one
  /// not read from a database. Not copied by a merge.
  uint64_t Id = 0;
  std::string TestHash;
  std::string Params; ///< paramsKey(): canonical JSON of what was asked for.
  std::string Chip;   ///< Device name.
  bool Error = false; ///< The test could not run here (parse, lower, build).
  std::string ErrorText;
  std::string Backend;
  uint32_t DeviceIndex = 0;
  std::string Platform;
  std::string DeviceVersion;
  std::string Driver;
  std::string IncantVersion;
  std::string Host;
  uint64_t Launches = 0;
  uint64_t Instances = 0;
  uint64_t InstancesPerLaunch = 0;
  uint64_t Groups = 0;
  uint64_t GroupSize = 0;
  uint64_t WarpSize = 0;
  double Seconds = 0;
  uint64_t Positive = 0; ///< Instances whose state satisfies the proposition.
  uint64_t Negative = 0;
  bool ConditionOk = false; ///< The quantified condition held in this run.
  uint64_t BarrierTimeouts = 0;
  uint64_t LoopBoundHits = 0;
  uint64_t Lost = 0;
  std::string OptCheck; ///< "optcheck: ..." from CUDA; empty otherwise.
  std::string Finished; ///< UTC time the result was stored (ISO 8601).
  std::vector<StateRecord> Histogram;
};

/// The identity of a result: merge and --resume keep one per key.
using ResultKey = std::tuple<std::string, std::string, std::string>;
inline ResultKey keyOf(const ResultRecord &R) {
  return {R.TestHash, R.Params, R.Chip};
}

class Store {
public:
  /// Read: the database is opened read-only (report, merge's inputs) and
  /// never written, whatever it holds (an empty file, a missing table: an
  /// error). Write: created if absent, claimed for this process alone
  /// (WriterLock: a second writer gets an error at once), set up if new.
  enum class Mode { Read, Write };

  /// Opens the database at \p Path. Null with \p Error set if it cannot
  /// be opened, is not an incant campaign database, lacks a table of the
  /// schema, or (Write) another process writes it.
  static std::unique_ptr<Store> open(const std::string &Path, Mode M,
                                     std::string &Error);
  ~Store();
  Store(const Store &) = delete;
  Store &operator=(const Store &) = delete;

  const std::string &path() const { return Path; }
  /// The last SQLite error, for messages.
  const std::string &error() const { return LastError; }

  uint64_t numResults();
  std::set<ResultKey> resultKeys();
  bool hasVerdicts(const std::string &TestHash);

  /// Stores a result in one transaction, with its test and verdicts when
  /// they are not there yet. False (error() says why) if nothing was stored.
  /// An existing result with the same key is kept and \p R is dropped
  /// (\p Added says which happened).
  bool put(const TestRecord &T, const std::vector<VerdictRecord> &V,
           const ResultRecord &R, bool *Added = nullptr);

  /// Records one invocation (the campaign log); \p Json is its options.
  bool addRun(const std::string &Started, const std::string &Json);

  /// Whole-database transactions around many puts (merge).
  bool begin();
  bool commit();
  void rollback();

  std::optional<TestRecord> test(const std::string &Hash);
  std::vector<VerdictRecord> verdicts(const std::string &TestHash);
  /// Every result with its histogram, in insertion order; stops when \p F
  /// returns false. False when \p F stopped it (error() is then empty) or
  /// on a database error.
  bool forEachResult(const std::function<bool(const ResultRecord &)> &F);
  /// The run log: (started, options JSON).
  std::vector<std::pair<std::string, std::string>> runs();

private:
  Store() = default;
  bool exec(const char *Sql);
  bool putLocked(const TestRecord &T, const std::vector<VerdictRecord> &V,
                 const ResultRecord &R, bool *Added);

  std::unique_ptr<WriterLock> Lock; ///< Released after Db is closed.
  sqlite3 *Db = nullptr;
  std::string Path;
  std::string LastError;
  /// Opened read-only; its -wal and -shm were not there before.
  bool Reader = false, RemoveSideFiles = false;
};

/// 16 hex digits: a 64-bit FNV-1a hash of \p Text (stable across builds and
/// machines, enough to tell 10^5 tests apart).
std::string testHash(const std::string &Text);

struct MergeStats {
  uint64_t Added = 0;
  uint64_t Duplicates = 0;
};
/// Copies every test, verdict and result of \p Inputs into \p Out (created if
/// absent) in one transaction; a result whose key is already there is not
/// copied again. Nothing on success; else, with \p Error set and nothing
/// merged, the kind of failure: Input for a missing, foreign or damaged
/// database (or an input that is the output), Internal for a write to
/// \p Out that failed.
std::optional<ErrorKind> mergeStores(const std::string &Out,
                                     const std::vector<std::string> &Inputs,
                                     MergeStats &Stats, std::string &Error);

} // namespace incant::campaign

#endif // INCANT_CAMPAIGN_STORE_H
