//===- FenceStore.cpp - Fence searches in SQLite --------------------------===//
#include "incant/Fences/FenceStore.h"

#ifdef INCANT_HAVE_SQLITE
#include "incant/Support/Sqlite.h"
#include "incant/Support/Time.h"
#endif

namespace incant::fences {

#ifdef INCANT_HAVE_SQLITE

namespace {
const char *const Tables = R"sql(
CREATE TABLE IF NOT EXISTS searches(
  id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, started TEXT NOT NULL,
  app TEXT NOT NULL, options TEXT NOT NULL, result TEXT,
  finished TEXT);
CREATE TABLE IF NOT EXISTS checks(
  id INTEGER PRIMARY KEY,
  search INTEGER NOT NULL REFERENCES searches(id),
  seq INTEGER NOT NULL, purpose TEXT NOT NULL, round INTEGER NOT NULL,
  fence_set TEXT NOT NULL, runs_asked INTEGER NOT NULL,
  seconds_asked REAL NOT NULL, runs INTEGER NOT NULL,
  failures INTEGER NOT NULL, seconds REAL NOT NULL,
  first_failure TEXT NOT NULL, made TEXT NOT NULL,
  UNIQUE(search, seq));
CREATE INDEX IF NOT EXISTS searches_fingerprint ON searches(fingerprint);
)sql";
} // namespace

struct FenceStore::Impl {
  std::unique_ptr<WriterLock> Lock; ///< Released after Db is closed.
  sqlite3 *Db = nullptr;
  int64_t Search = 0;
  ~Impl() { sqlite3_close_v2(Db); }
};

std::unique_ptr<FenceStore> FenceStore::open(const std::string &Path,
                                             std::string &Error) {
  std::unique_ptr<FenceStore> S(new FenceStore());
  S->I = std::make_unique<Impl>();
  S->I->Db = sqlite::openDatabase(Path, sqlite::Access::Write,
                                  "incant-fences", "1", Tables, "fences",
                                  S->I->Lock, Error);
  if (!S->I->Db)
    return nullptr;
  return S;
}

bool FenceStore::begin(const std::string &Fingerprint, const std::string &App,
                       const std::string &OptionsJson, uint64_t &Stored,
                       std::string &Error) {
  Stored = 0;
  I->Search = 0;
  {
    sqlite::Stmt Q(I->Db, "SELECT id FROM searches WHERE fingerprint=? "
                          "ORDER BY id DESC LIMIT 1");
    if (Q && Q.bind(1, Fingerprint).step() == SQLITE_ROW)
      I->Search = int64_t(Q.u64(0));
  }
  if (I->Search) {
    sqlite::Stmt Q(I->Db, "SELECT count(*) FROM checks WHERE search=?");
    if (Q && Q.bind(1, uint64_t(I->Search)).step() == SQLITE_ROW)
      Stored = Q.u64(0);
    return true;
  }
  sqlite::Stmt Q(I->Db, "INSERT INTO searches(fingerprint, started, app, "
                        "options) VALUES(?, ?, ?, ?)");
  if (!Q ||
      !Q.bind(1, Fingerprint).bind(2, utcNowIso()).bind(3, App).bind(4, OptionsJson).run()) {
    Error = sqlite3_errmsg(I->Db);
    return false;
  }
  I->Search = sqlite3_last_insert_rowid(I->Db);
  return true;
}

std::optional<CheckOutcome> FenceStore::lookup(uint64_t Seq,
                                               const FenceSet &Set,
                                               const CheckSpec &Spec) {
  sqlite::Stmt Q(I->Db, "SELECT fence_set, runs_asked, seconds_asked, runs, "
                        "failures, seconds, first_failure FROM checks "
                        "WHERE search=? AND seq=?");
  if (!Q || Q.bind(1, uint64_t(I->Search)).bind(2, Seq).step() != SQLITE_ROW)
    return std::nullopt;
  if (Q.text(0) != formatSet(Set) || Q.u64(1) != Spec.Runs ||
      Q.real(2) != Spec.Seconds)
    return std::nullopt;
  CheckOutcome O;
  O.Runs = Q.u64(3);
  O.Failures = Q.u64(4);
  O.Seconds = Q.real(5);
  O.FirstFailure = Q.text(6);
  return O;
}

bool FenceStore::record(const CheckRecord &C, std::string &Error) {
  // A check replaces a stored one of the same number only when the search
  // went another way (its stored set or budget differed).
  sqlite::Stmt Q(I->Db,
                 "INSERT OR REPLACE INTO checks(search, seq, purpose, round, "
                 "fence_set, runs_asked, seconds_asked, runs, failures, "
                 "seconds, first_failure, made) VALUES(?, ?, ?, ?, ?, ?, ?, "
                 "?, ?, ?, ?, ?)");
  if (!Q || !Q.bind(1, uint64_t(I->Search))
                 .bind(2, C.Seq)
                 .bind(3, std::string(purposeName(C.P)))
                 .bind(4, uint64_t(C.Round))
                 .bind(5, formatSet(C.Set))
                 .bind(6, C.Spec.Runs)
                 .bind(7, C.Spec.Seconds)
                 .bind(8, C.Out.Runs)
                 .bind(9, C.Out.Failures)
                 .bind(10, C.Out.Seconds)
                 .bind(11, C.Out.FirstFailure)
                 .bind(12, utcNowIso())
                 .run()) {
    Error = sqlite3_errmsg(I->Db);
    return false;
  }
  // Checks after it belong to the other way.
  sqlite::Stmt D(I->Db, "DELETE FROM checks WHERE search=? AND seq>?");
  if (!D || !D.bind(1, uint64_t(I->Search)).bind(2, C.Seq).run()) {
    Error = sqlite3_errmsg(I->Db);
    return false;
  }
  return true;
}

bool FenceStore::finish(const std::string &ResultJson, std::string &Error) {
  sqlite::Stmt Q(I->Db,
                 "UPDATE searches SET result=?, finished=? WHERE id=?");
  if (!Q || !Q.bind(1, ResultJson)
                 .bind(2, utcNowIso())
                 .bind(3, uint64_t(I->Search))
                 .run()) {
    Error = sqlite3_errmsg(I->Db);
    return false;
  }
  return true;
}

#else

struct FenceStore::Impl {};

std::unique_ptr<FenceStore> FenceStore::open(const std::string &,
                                             std::string &Error) {
  Error = "this incant was built without SQLite (libsqlite3-dev): the "
          "fence store is not available";
  return nullptr;
}
bool FenceStore::begin(const std::string &, const std::string &,
                       const std::string &, uint64_t &, std::string &) {
  return false;
}
std::optional<CheckOutcome> FenceStore::lookup(uint64_t, const FenceSet &,
                                               const CheckSpec &) {
  return std::nullopt;
}
bool FenceStore::record(const CheckRecord &, std::string &) { return false; }
bool FenceStore::finish(const std::string &, std::string &) { return false; }

#endif

FenceStore::~FenceStore() = default;

} // namespace incant::fences
