//===- StressStore.cpp - `incant stress` results in SQLite ----------------===//
#include "incant/AppTest/StressStore.h"

#ifdef INCANT_HAVE_SQLITE
#include "incant/Support/Sqlite.h"
#include "incant/Support/Time.h"
#endif

namespace incant::apptest {

#ifdef INCANT_HAVE_SQLITE

namespace {
const char *const Tables = R"sql(
CREATE TABLE IF NOT EXISTS invocations(
  id INTEGER PRIMARY KEY, started TEXT NOT NULL, app TEXT NOT NULL,
  options TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  invocation INTEGER NOT NULL REFERENCES invocations(id),
  app TEXT NOT NULL, env TEXT NOT NULL, run_index INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  verdict TEXT NOT NULL CHECK(verdict IN ('pass', 'fail', 'hang', 'crash')),
  exit_code INTEGER NOT NULL, signal INTEGER NOT NULL, seconds REAL NOT NULL,
  reported INTEGER NOT NULL, launches INTEGER NOT NULL,
  stressed INTEGER NOT NULL, cap_hits INTEGER NOT NULL, notes TEXT NOT NULL,
  finished TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS runs_app_env ON runs(app, env);
)sql";
} // namespace

struct StressStore::Impl {
  std::unique_ptr<WriterLock> Lock; ///< Released after Db is closed.
  sqlite3 *Db = nullptr;
  int64_t Invocation = 0;
  std::string App;
  ~Impl() { sqlite3_close_v2(Db); }
};

std::unique_ptr<StressStore> StressStore::open(const std::string &Path,
                                               std::string &Error) {
  std::unique_ptr<StressStore> S(new StressStore());
  S->I = std::make_unique<Impl>();
  S->I->Db = sqlite::openDatabase(Path, sqlite::Access::Write,
                                  "incant-stress", "1", Tables, "stress",
                                  S->I->Lock, Error);
  if (!S->I->Db)
    return nullptr;
  return S;
}

bool StressStore::begin(const std::string &Started, const std::string &App,
                        const std::string &OptionsJson, std::string &Error) {
  sqlite::Stmt Q(I->Db,
                 "INSERT INTO invocations(started, app, options) VALUES(?, ?, ?)");
  if (!Q || !Q.bind(1, Started).bind(2, App).bind(3, OptionsJson).run()) {
    Error = sqlite3_errmsg(I->Db);
    return false;
  }
  I->Invocation = sqlite3_last_insert_rowid(I->Db);
  I->App = App;
  return true;
}

bool StressStore::put(const RunRecord &R, std::string &Error) {
  std::string Notes;
  for (const std::string &N : R.Notes)
    Notes += (Notes.empty() ? "" : "\n") + N;
  sqlite::Stmt Q(I->Db,
                 "INSERT INTO runs(invocation, app, env, run_index, seed, "
                 "verdict, exit_code, signal, seconds, reported, launches, "
                 "stressed, cap_hits, notes, finished) VALUES(?, ?, ?, ?, ?, "
                 "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!Q ||
      !Q.bind(1, uint64_t(I->Invocation))
           .bind(2, I->App)
           .bind(3, R.Env)
           .bind(4, R.Index)
           .bind(5, R.Seed)
           .bind(6, std::string(verdictName(R.V)))
           .bind(7, uint64_t(int64_t(R.ExitCode)))
           .bind(8, uint64_t(R.Signal))
           .bind(9, R.Seconds)
           .bind(10, R.Reported)
           .bind(11, R.Launches)
           .bind(12, R.Stressed)
           .bind(13, R.CapHits)
           .bind(14, Notes)
           .bind(15, utcNowIso())
           .run()) {
    Error = sqlite3_errmsg(I->Db);
    return false;
  }
  return true;
}

uint64_t StressStore::count(const std::string &App, const std::string &Env) {
  sqlite::Stmt Q(I->Db, "SELECT count(*) FROM runs WHERE app=? AND env=?");
  Q.bind(1, App).bind(2, Env);
  return Q && Q.step() == SQLITE_ROW ? Q.u64(0) : 0;
}

#else

struct StressStore::Impl {};

std::unique_ptr<StressStore> StressStore::open(const std::string &,
                                               std::string &Error) {
  Error = "this incant was built without SQLite (libsqlite3-dev): --db is "
          "not available";
  return nullptr;
}
bool StressStore::begin(const std::string &, const std::string &,
                        const std::string &, std::string &) {
  return false;
}
bool StressStore::put(const RunRecord &, std::string &) { return false; }
uint64_t StressStore::count(const std::string &, const std::string &) {
  return 0;
}

#endif

StressStore::~StressStore() = default;

} // namespace incant::apptest
