//===- Store.cpp - The SQLite results store of a campaign -----------------===//
//
// The only file that talks to SQLite. Schema version 1; docs/campaign.md
// describes each table.
//
//===----------------------------------------------------------------------===//
#include "incant/Campaign/Store.h"
#include "incant/Support/Hash.h"
#include "incant/Support/Sqlite.h"

#include <filesystem>
#include <sqlite3.h>

namespace incant::campaign {

using sqlite::Stmt;

namespace {

constexpr const char *Format = "incant-campaign";
constexpr const char *SchemaVersion = "1";

const char *const Schema = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, started TEXT NOT NULL, options TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tests(
  hash TEXT PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL,
  family TEXT NOT NULL, scope TEXT NOT NULL, condition TEXT NOT NULL,
  source TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS verdicts(
  test_hash TEXT NOT NULL REFERENCES tests(hash), model TEXT NOT NULL,
  ok INTEGER NOT NULL, incomplete INTEGER NOT NULL,
  candidates INTEGER NOT NULL,
  PRIMARY KEY(test_hash, model));
CREATE TABLE IF NOT EXISTS allowed(
  test_hash TEXT NOT NULL, model TEXT NOT NULL, state TEXT NOT NULL,
  satisfies INTEGER NOT NULL,
  PRIMARY KEY(test_hash, model, state),
  FOREIGN KEY(test_hash, model) REFERENCES verdicts(test_hash, model));
CREATE TABLE IF NOT EXISTS results(
  id INTEGER PRIMARY KEY,
  test_hash TEXT NOT NULL REFERENCES tests(hash),
  params TEXT NOT NULL, chip TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('ok', 'error')), error TEXT NOT NULL,
  backend TEXT NOT NULL, device_index INTEGER NOT NULL,
  platform TEXT NOT NULL, device_version TEXT NOT NULL, driver TEXT NOT NULL,
  incant_version TEXT NOT NULL, host TEXT NOT NULL,
  launches INTEGER NOT NULL, instances INTEGER NOT NULL,
  instances_per_launch INTEGER NOT NULL, groups INTEGER NOT NULL,
  group_size INTEGER NOT NULL, warp_size INTEGER NOT NULL,
  seconds REAL NOT NULL, positive INTEGER NOT NULL,
  negative INTEGER NOT NULL, condition_ok INTEGER NOT NULL,
  barrier_timeouts INTEGER NOT NULL, loop_bound_hits INTEGER NOT NULL,
  lost INTEGER NOT NULL, optcheck TEXT NOT NULL, finished TEXT NOT NULL,
  UNIQUE(test_hash, params, chip));
CREATE TABLE IF NOT EXISTS outcomes(
  result_id INTEGER NOT NULL REFERENCES results(id), state TEXT NOT NULL,
  count INTEGER NOT NULL, satisfies INTEGER NOT NULL,
  PRIMARY KEY(result_id, state));
)sql";

} // namespace

std::string testHash(const std::string &Text) {
  return hex16(fnv1a64(Text));
}

std::unique_ptr<Store> Store::open(const std::string &Path, Mode M,
                                   std::string &Error) {
  std::unique_ptr<Store> S(new Store());
  S->Path = Path;
  S->Reader = M == Mode::Read;
  S->RemoveSideFiles = S->Reader && !sqlite::hasSideFiles(Path);
  S->Db = sqlite::openDatabase(
      Path, M == Mode::Read ? sqlite::Access::Read : sqlite::Access::Write,
      Format, SchemaVersion, Schema, "campaign", S->Lock, Error);
  if (!S->Db)
    return nullptr;
  return S;
}

Store::~Store() {
  if (Reader)
    sqlite::closeReader(Db, Path, RemoveSideFiles);
  else
    sqlite3_close_v2(Db);
}

bool Store::exec(const char *Sql) { return sqlite::exec(Db, Sql, LastError); }

bool Store::begin() { return exec("BEGIN IMMEDIATE"); }
bool Store::commit() { return exec("COMMIT"); }
void Store::rollback() { exec("ROLLBACK"); }

uint64_t Store::numResults() {
  Stmt Q(Db, "SELECT count(*) FROM results");
  return Q && Q.step() == SQLITE_ROW ? Q.u64(0) : 0;
}

std::set<ResultKey> Store::resultKeys() {
  std::set<ResultKey> Keys;
  Stmt Q(Db, "SELECT test_hash, params, chip FROM results");
  while (Q && Q.step() == SQLITE_ROW)
    Keys.emplace(Q.text(0), Q.text(1), Q.text(2));
  return Keys;
}

bool Store::hasVerdicts(const std::string &TestHash) {
  Stmt Q(Db, "SELECT count(*) FROM verdicts WHERE test_hash=?");
  Q.bind(1, TestHash);
  return Q && Q.step() == SQLITE_ROW && Q.u64(0) != 0;
}

bool Store::addRun(const std::string &Started, const std::string &Json) {
  Stmt Q(Db, "INSERT INTO runs(started, options) VALUES(?, ?)");
  if (!Q || !Q.bind(1, Started).bind(2, Json).run()) {
    LastError = sqlite3_errmsg(Db);
    return false;
  }
  return true;
}

bool Store::put(const TestRecord &T, const std::vector<VerdictRecord> &V,
                const ResultRecord &R, bool *Added) {
  // A savepoint is a transaction of its own outside begin()/commit() and
  // nests inside them (merge).
  if (!exec("SAVEPOINT put"))
    return false;
  if (!putLocked(T, V, R, Added)) {
    std::string E = LastError;
    exec("ROLLBACK TO put");
    exec("RELEASE put");
    LastError = E;
    return false;
  }
  return exec("RELEASE put");
}

bool Store::putLocked(const TestRecord &T, const std::vector<VerdictRecord> &V,
                      const ResultRecord &R, bool *Added) {
  auto Fail = [&] {
    LastError = sqlite3_errmsg(Db);
    return false;
  };
  Stmt QT(Db, "INSERT OR IGNORE INTO tests VALUES(?, ?, ?, ?, ?, ?, ?)");
  if (!QT || !QT.bind(1, T.Hash)
                  .bind(2, T.Name)
                  .bind(3, T.Path)
                  .bind(4, T.Family)
                  .bind(5, T.Scope)
                  .bind(6, T.Condition)
                  .bind(7, T.Source)
                  .run())
    return Fail();
  for (const VerdictRecord &M : V) {
    Stmt QV(Db, "INSERT OR IGNORE INTO verdicts VALUES(?, ?, ?, ?, ?)");
    if (!QV || !QV.bind(1, T.Hash)
                    .bind(2, M.Model)
                    .bind(3, M.Ok)
                    .bind(4, M.Incomplete)
                    .bind(5, M.Candidates)
                    .run())
      return Fail();
    if (sqlite3_changes(Db) == 0)
      continue; // Already there, with its states.
    for (const StateRecord &S : M.Allowed) {
      Stmt QA(Db, "INSERT OR IGNORE INTO allowed VALUES(?, ?, ?, ?)");
      if (!QA || !QA.bind(1, T.Hash)
                      .bind(2, M.Model)
                      .bind(3, S.State)
                      .bind(4, S.Satisfies)
                      .run())
        return Fail();
    }
  }
  Stmt QR(Db, "INSERT OR IGNORE INTO results(test_hash, params, chip, status, "
              "error, backend, device_index, platform, device_version, "
              "driver, incant_version, host, launches, instances, "
              "instances_per_launch, groups, group_size, warp_size, seconds, "
              "positive, negative, condition_ok, barrier_timeouts, "
              "loop_bound_hits, lost, optcheck, finished) VALUES(?, ?, ?, ?, "
              "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
              "?, ?)");
  if (!QR)
    return Fail();
  QR.bind(1, R.TestHash)
      .bind(2, R.Params)
      .bind(3, R.Chip)
      .bind(4, std::string(R.Error ? "error" : "ok"))
      .bind(5, R.ErrorText)
      .bind(6, R.Backend)
      .bind(7, R.DeviceIndex)
      .bind(8, R.Platform)
      .bind(9, R.DeviceVersion)
      .bind(10, R.Driver)
      .bind(11, R.IncantVersion)
      .bind(12, R.Host)
      .bind(13, R.Launches)
      .bind(14, R.Instances)
      .bind(15, R.InstancesPerLaunch)
      .bind(16, R.Groups)
      .bind(17, R.GroupSize)
      .bind(18, R.WarpSize)
      .bind(19, R.Seconds)
      .bind(20, R.Positive)
      .bind(21, R.Negative)
      .bind(22, R.ConditionOk)
      .bind(23, R.BarrierTimeouts)
      .bind(24, R.LoopBoundHits)
      .bind(25, R.Lost)
      .bind(26, R.OptCheck)
      .bind(27, R.Finished);
  if (!QR.run())
    return Fail();
  bool New = sqlite3_changes(Db) != 0;
  if (Added)
    *Added = New;
  if (!New)
    return true;
  sqlite3_int64 Id = sqlite3_last_insert_rowid(Db);
  for (const StateRecord &S : R.Histogram) {
    Stmt QO(Db, "INSERT INTO outcomes VALUES(?, ?, ?, ?)");
    if (!QO || !QO.bind(1, static_cast<uint64_t>(Id))
                    .bind(2, S.State)
                    .bind(3, S.Count)
                    .bind(4, S.Satisfies)
                    .run())
      return Fail();
  }
  return true;
}

std::optional<TestRecord> Store::test(const std::string &Hash) {
  Stmt Q(Db, "SELECT hash, name, path, family, scope, condition, source FROM "
             "tests WHERE hash=?");
  Q.bind(1, Hash);
  if (!Q || Q.step() != SQLITE_ROW)
    return std::nullopt;
  return TestRecord{Q.text(0), Q.text(1), Q.text(2), Q.text(3),
                    Q.text(4), Q.text(5), Q.text(6)};
}

std::vector<VerdictRecord> Store::verdicts(const std::string &TestHash) {
  std::vector<VerdictRecord> Out;
  Stmt Q(Db, "SELECT model, ok, incomplete, candidates FROM verdicts WHERE "
             "test_hash=? ORDER BY model");
  Q.bind(1, TestHash);
  while (Q && Q.step() == SQLITE_ROW) {
    VerdictRecord V;
    V.Model = Q.text(0);
    V.Ok = Q.flag(1);
    V.Incomplete = Q.flag(2);
    V.Candidates = Q.u64(3);
    Stmt QA(Db, "SELECT state, satisfies FROM allowed WHERE test_hash=? AND "
                "model=? ORDER BY state");
    QA.bind(1, TestHash).bind(2, V.Model);
    while (QA && QA.step() == SQLITE_ROW)
      V.Allowed.push_back({QA.text(0), QA.flag(1), 0});
    Out.push_back(std::move(V));
  }
  return Out;
}

bool Store::forEachResult(const std::function<bool(const ResultRecord &)> &F) {
  Stmt Q(Db, "SELECT id, test_hash, params, chip, status, error, backend, "
             "device_index, platform, device_version, driver, incant_version, "
             "host, launches, instances, instances_per_launch, groups, "
             "group_size, warp_size, seconds, positive, negative, "
             "condition_ok, barrier_timeouts, loop_bound_hits, lost, "
             "optcheck, finished FROM results ORDER BY id");
  if (!Q) {
    LastError = sqlite3_errmsg(Db);
    return false;
  }
  int Rc;
  while ((Rc = Q.step()) == SQLITE_ROW) {
    ResultRecord R;
    uint64_t Id = Q.u64(0);
    R.Id = Id;
    R.TestHash = Q.text(1);
    R.Params = Q.text(2);
    R.Chip = Q.text(3);
    R.Error = Q.text(4) == "error";
    R.ErrorText = Q.text(5);
    R.Backend = Q.text(6);
    R.DeviceIndex = static_cast<uint32_t>(Q.u64(7));
    R.Platform = Q.text(8);
    R.DeviceVersion = Q.text(9);
    R.Driver = Q.text(10);
    R.IncantVersion = Q.text(11);
    R.Host = Q.text(12);
    R.Launches = Q.u64(13);
    R.Instances = Q.u64(14);
    R.InstancesPerLaunch = Q.u64(15);
    R.Groups = Q.u64(16);
    R.GroupSize = Q.u64(17);
    R.WarpSize = Q.u64(18);
    R.Seconds = Q.real(19);
    R.Positive = Q.u64(20);
    R.Negative = Q.u64(21);
    R.ConditionOk = Q.flag(22);
    R.BarrierTimeouts = Q.u64(23);
    R.LoopBoundHits = Q.u64(24);
    R.Lost = Q.u64(25);
    R.OptCheck = Q.text(26);
    R.Finished = Q.text(27);
    Stmt QO(Db, "SELECT state, satisfies, count FROM outcomes WHERE "
                "result_id=? ORDER BY state");
    QO.bind(1, Id);
    while (QO && QO.step() == SQLITE_ROW)
      R.Histogram.push_back({QO.text(0), QO.flag(1), QO.u64(2)});
    if (!F(R)) {
      LastError.clear();
      return false;
    }
  }
  if (Rc != SQLITE_DONE) {
    LastError = sqlite3_errmsg(Db);
    return false;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> Store::runs() {
  std::vector<std::pair<std::string, std::string>> Out;
  Stmt Q(Db, "SELECT started, options FROM runs ORDER BY id");
  while (Q && Q.step() == SQLITE_ROW)
    Out.emplace_back(Q.text(0), Q.text(1));
  return Out;
}

std::optional<ErrorKind> mergeStores(const std::string &Out,
                                     const std::vector<std::string> &Inputs,
                                     MergeStats &Stats, std::string &Error) {
  // The inputs first, read-only and checked whole: a bad one leaves no
  // output behind.
  std::vector<std::unique_ptr<Store>> Ins;
  for (const std::string &P : Inputs) {
    std::error_code EC;
    if (std::filesystem::equivalent(P, Out, EC)) {
      Error = "the input " + P + " is the output database " + Out;
      return ErrorKind::Input;
    }
    Ins.push_back(Store::open(P, Store::Mode::Read, Error));
    if (!Ins.back())
      return ErrorKind::Input;
  }
  std::unique_ptr<Store> O = Store::open(Out, Store::Mode::Write, Error);
  if (!O)
    return ErrorKind::Input;
  if (!O->begin()) {
    Error = "cannot write " + Out + ": " + O->error();
    return ErrorKind::Internal;
  }
  // One transaction: every row of every input is copied, or none.
  MergeStats Counted;
  for (std::unique_ptr<Store> &In : Ins) {
    bool Ok = true;
    // A write that failed (Internal), or an input that cannot be read.
    ErrorKind Kind = ErrorKind::Input;
    for (const auto &[Started, Json] : In->runs())
      if (Ok && !O->addRun(Started, Json)) {
        Error = "cannot write " + Out + ": " + O->error();
        Kind = ErrorKind::Internal;
        Ok = false;
      }
    if (Ok && !In->forEachResult([&](const ResultRecord &R) {
          std::optional<TestRecord> T = In->test(R.TestHash);
          if (!T) {
            Error = In->path() + ": result " + std::to_string(R.Id) +
                    " is of test " + R.TestHash +
                    ", which is not in its tests table (the database is "
                    "damaged); nothing was merged";
            return false;
          }
          bool Added = false;
          if (!O->put(*T, In->verdicts(R.TestHash), R, &Added)) {
            Error = "cannot write " + Out + ": " + O->error() +
                    " (copying result " + std::to_string(R.Id) + " of " +
                    In->path() + "); nothing was merged";
            Kind = ErrorKind::Internal;
            return false;
          }
          ++(Added ? Counted.Added : Counted.Duplicates);
          return true;
        })) {
      if (Error.empty())
        Error = "cannot read " + In->path() + ": " + In->error() +
                "; nothing was merged";
      Ok = false;
    }
    if (!Ok) {
      O->rollback();
      return Kind;
    }
  }
  if (!O->commit()) {
    Error = "cannot write " + Out + ": " + O->error() + "; nothing was merged";
    O->rollback();
    return ErrorKind::Internal;
  }
  Stats = Counted;
  return std::nullopt;
}

} // namespace incant::campaign
