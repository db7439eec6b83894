//===- Store.cpp - The SQLite results store of a campaign -----------------===//
//
// The only file that talks to SQLite. Schema version 1; docs/campaign.md
// describes each table.
//
//===----------------------------------------------------------------------===//
#include "incant/Campaign/Store.h"
#include "incant/Support/FileLock.h"

#include <fmt/format.h>

#include <filesystem>
#include <sqlite3.h>

namespace incant::campaign {

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

/// A prepared statement, finalized on scope exit.
class Stmt {
public:
  Stmt(sqlite3 *Db, const char *Sql) {
    if (sqlite3_prepare_v2(Db, Sql, -1, &S, nullptr) != SQLITE_OK)
      S = nullptr;
  }
  ~Stmt() { sqlite3_finalize(S); }
  Stmt(const Stmt &) = delete;
  Stmt &operator=(const Stmt &) = delete;
  explicit operator bool() const { return S != nullptr; }

  Stmt &bind(int I, const std::string &V) {
    sqlite3_bind_text(S, I, V.data(), static_cast<int>(V.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Stmt &bind(int I, uint64_t V) {
    sqlite3_bind_int64(S, I, static_cast<sqlite3_int64>(V));
    return *this;
  }
  Stmt &bind(int I, bool V) { return bind(I, uint64_t(V)); }
  Stmt &bind(int I, uint32_t V) { return bind(I, uint64_t(V)); }
  Stmt &bind(int I, double V) {
    sqlite3_bind_double(S, I, V);
    return *this;
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(S); }
  bool run() { return step() == SQLITE_DONE; }

  std::string text(int I) const {
    const unsigned char *T = sqlite3_column_text(S, I);
    return T ? std::string(reinterpret_cast<const char *>(T),
                           static_cast<size_t>(sqlite3_column_bytes(S, I)))
             : std::string();
  }
  uint64_t u64(int I) const {
    return static_cast<uint64_t>(sqlite3_column_int64(S, I));
  }
  bool flag(int I) const { return sqlite3_column_int64(S, I) != 0; }
  double real(int I) const { return sqlite3_column_double(S, I); }

private:
  sqlite3_stmt *S = nullptr;
};

} // namespace

std::string testHash(const std::string &Text) {
  uint64_t H = 14695981039346656037ull;
  for (unsigned char C : Text) {
    H ^= C;
    H *= 1099511628211ull;
  }
  static const char Hex[] = "0123456789abcdef";
  std::string S(16, '0');
  for (int I = 15; I >= 0; --I, H >>= 4)
    S[static_cast<size_t>(I)] = Hex[H & 15];
  return S;
}

/// The tables of schema 1, each checked on opening: a database that lacks
/// one is damaged, never silently repaired.
const char *const Tables[] = {"meta",    "runs",    "tests",   "verdicts",
                              "allowed", "results", "outcomes"};

std::unique_ptr<Store> Store::open(const std::string &Path, Mode M,
                                   std::string &Error) {
  std::error_code EC;
  bool Exists = std::filesystem::exists(Path, EC);
  if (!Exists && M == Mode::Read) {
    Error = "no such database: " + Path;
    return nullptr;
  }
  if (std::filesystem::is_directory(Path, EC)) {
    Error = Path + " is a folder, not a database";
    return nullptr;
  }
  std::unique_ptr<Store> S(new Store());
  S->Path = Path;
  if (M == Mode::Write) {
    // One writer at a time, claimed before anything is read: two campaigns
    // started at once on one new database both passed the "no results
    // yet" check and then dropped half of each other's results.
    S->Lock = WriterLock::acquire(Path, Error);
    if (!S->Lock)
      return nullptr;
  }
  int Flags = (M == Mode::Read ? SQLITE_OPEN_READONLY
                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
              SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI;
  auto OpenWith = [&](const std::string &Name) {
    sqlite3_close_v2(S->Db);
    S->Db = nullptr;
    return sqlite3_open_v2(Name.c_str(), &S->Db, Flags, nullptr);
  };
  // A file name is passed as a URI (file:...) so that '?' and '#' in it are
  // escaped, not read as URI syntax.
  std::string Uri = "file:";
  for (char C : Path) {
    if (C == '?' || C == '#' || C == '%')
      Uri += fmt::format("%{:02X}", static_cast<unsigned char>(C));
    else
      Uri += C;
  }
  if (OpenWith(Uri) != SQLITE_OK) {
    Error = "cannot open " + Path + ": " +
            (S->Db ? sqlite3_errmsg(S->Db) : "out of memory");
    return nullptr;
  }
  sqlite3_busy_timeout(S->Db, 10000);
  // Reading the format first tells a foreign file (or one that is not
  // SQLite at all) from an incant database before anything is written.
  auto ReadTables = [&](std::set<std::string> &Names) {
    Stmt Q(S->Db, "SELECT name FROM sqlite_master WHERE type='table'");
    int Rc = SQLITE_ERROR;
    while (Q && (Rc = Q.step()) == SQLITE_ROW)
      Names.insert(Q.text(0));
    return Q && Rc == SQLITE_DONE;
  };
  std::set<std::string> Names;
  bool Readable = ReadTables(Names);
  if (!Readable && M == Mode::Read &&
      (sqlite3_errcode(S->Db) == SQLITE_CANTOPEN ||
       sqlite3_errcode(S->Db) == SQLITE_READONLY)) {
    // A WAL database in a folder this user cannot write (read-only media,
    // another user's results), whose -shm cannot be made: read it as
    // immutable (no writer can be at work where no -shm can be made).
    Names.clear();
    if (OpenWith(Uri + "?immutable=1") == SQLITE_OK)
      Readable = ReadTables(Names);
  }
  if (!Readable) {
    Error = Path + " is not an SQLite database (" + sqlite3_errmsg(S->Db) +
            ")";
    return nullptr;
  }
  std::string NotOurs = Path + " is not an incant campaign database";
  if (Names.empty()) {
    // An empty file (or a new one): a campaign or merge sets it up; a
    // reader finds nothing in it and must not write a schema into it.
    if (M == Mode::Read) {
      Error = NotOurs + " (it is empty)";
      return nullptr;
    }
  } else {
    if (!Names.count("meta")) {
      Error = NotOurs;
      return nullptr;
    }
    Stmt Q(S->Db, "SELECT value FROM meta WHERE key='format'");
    std::string F = Q && Q.step() == SQLITE_ROW ? Q.text(0) : "";
    Stmt V(S->Db, "SELECT value FROM meta WHERE key='schema'");
    std::string Ver = V && V.step() == SQLITE_ROW ? V.text(0) : "";
    if (F != Format) {
      Error = NotOurs;
      return nullptr;
    }
    if (Ver != SchemaVersion) {
      Error = Path + " has schema version " + Ver + "; this incant reads " +
              SchemaVersion;
      return nullptr;
    }
    std::string Missing;
    for (const char *T : Tables)
      if (!Names.count(T))
        Missing += (Missing.empty() ? "" : ", ") + std::string(T);
    if (!Missing.empty()) {
      Error = Path + " is damaged: table(s) " + Missing + " missing (it is "
              "left as it is)";
      return nullptr;
    }
  }
  if (M == Mode::Read)
    return S;
  if (!S->exec("PRAGMA journal_mode=WAL") ||
      !S->exec("PRAGMA synchronous=FULL") ||
      !S->exec("PRAGMA foreign_keys=ON")) {
    Error = "cannot set up " + Path + ": " + S->LastError;
    return nullptr;
  }
  if (Names.empty() &&
      (!S->exec("BEGIN IMMEDIATE") || !S->exec(Schema) ||
       !S->exec(
           "INSERT OR IGNORE INTO meta VALUES('format', 'incant-campaign')") ||
       !S->exec("INSERT OR IGNORE INTO meta VALUES('schema', '1')") ||
       !S->exec("COMMIT"))) {
    Error = "cannot set up " + Path + ": " + S->LastError;
    return nullptr;
  }
  return S;
}

Store::~Store() { sqlite3_close_v2(Db); }

bool Store::exec(const char *Sql) {
  char *Msg = nullptr;
  if (sqlite3_exec(Db, Sql, nullptr, nullptr, &Msg) == SQLITE_OK)
    return true;
  LastError = Msg ? Msg : sqlite3_errmsg(Db);
  sqlite3_free(Msg);
  return false;
}

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
    if (!F(R))
      return true;
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

int mergeStores(const std::string &Out, const std::vector<std::string> &Inputs,
                MergeStats &Stats, std::string &Error) {
  // The inputs first, read-only: a bad one leaves no output behind.
  std::vector<std::unique_ptr<Store>> Ins;
  for (const std::string &P : Inputs) {
    std::error_code EC;
    if (std::filesystem::equivalent(P, Out, EC)) {
      Error = P + " is the output database";
      return 2;
    }
    Ins.push_back(Store::open(P, Store::Mode::Read, Error));
    if (!Ins.back())
      return 2;
  }
  std::unique_ptr<Store> O = Store::open(Out, Store::Mode::Write, Error);
  if (!O)
    return 2;
  if (!O->begin()) {
    Error = "cannot write " + Out + ": " + O->error();
    return 2;
  }
  for (std::unique_ptr<Store> &In : Ins) {
    bool Ok = true;
    for (const auto &[Started, Json] : In->runs())
      Ok = Ok && O->addRun(Started, Json);
    Ok = Ok && In->forEachResult([&](const ResultRecord &R) {
      std::optional<TestRecord> T = In->test(R.TestHash);
      if (!T) {
        Error = In->path() + ": result of unknown test " + R.TestHash;
        return Ok = false;
      }
      bool Added = false;
      if (!O->put(*T, In->verdicts(R.TestHash), R, &Added)) {
        Error = "cannot write " + Out + ": " + O->error();
        return Ok = false;
      }
      ++(Added ? Stats.Added : Stats.Duplicates);
      return true;
    });
    if (!Ok) {
      if (Error.empty())
        Error = "cannot read " + In->path() + ": " + In->error();
      O->rollback();
      return 2;
    }
  }
  if (!O->commit()) {
    Error = "cannot write " + Out + ": " + O->error();
    O->rollback();
    return 2;
  }
  return 0;
}

} // namespace incant::campaign
