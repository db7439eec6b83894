//===- Sqlite.cpp - Opening an incant database ----------------------------===//
#include "incant/Support/Sqlite.h"

#include <filesystem>

namespace incant::sqlite {

bool exec(sqlite3 *Db, const char *Sql, std::string &Error) {
  char *Msg = nullptr;
  if (sqlite3_exec(Db, Sql, nullptr, nullptr, &Msg) == SQLITE_OK)
    return true;
  Error = Msg ? Msg : sqlite3_errmsg(Db);
  sqlite3_free(Msg);
  return false;
}

sqlite3 *openDatabase(const std::string &Path, bool Create,
                      const std::string &Format, const std::string &Schema,
                      const char *Tables, const std::string &Kind,
                      std::string &Error) {
  std::error_code EC;
  bool Exists = std::filesystem::exists(Path, EC);
  if (!Exists && !Create) {
    Error = "no such database: " + Path;
    return nullptr;
  }
  sqlite3 *Db = nullptr;
  int Flags = SQLITE_OPEN_READWRITE | (Create ? SQLITE_OPEN_CREATE : 0) |
              SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(Path.c_str(), &Db, Flags, nullptr) != SQLITE_OK) {
    Error = "cannot open " + Path + ": " +
            (Db ? sqlite3_errmsg(Db) : "out of memory");
    sqlite3_close_v2(Db);
    return nullptr;
  }
  auto Fail = [&](std::string Why) {
    Error = std::move(Why);
    sqlite3_close_v2(Db);
    return nullptr;
  };
  sqlite3_busy_timeout(Db, 10000);
  // Reading the format first tells a foreign file (or one that is not
  // SQLite at all) from an incant database before anything is written.
  bool HasMeta = false;
  {
    Stmt Q(Db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
               "name='meta'");
    if (!Q || Q.step() != SQLITE_ROW)
      return Fail(Path + " is not an SQLite database (" + sqlite3_errmsg(Db) +
                  ")");
    HasMeta = Q.flag(0);
  }
  std::string NotOurs = Path + " is not an incant " + Kind + " database";
  if (HasMeta) {
    Stmt Q(Db, "SELECT value FROM meta WHERE key='format'");
    std::string F = Q && Q.step() == SQLITE_ROW ? Q.text(0) : "";
    Stmt V(Db, "SELECT value FROM meta WHERE key='schema'");
    std::string Ver = V && V.step() == SQLITE_ROW ? V.text(0) : "";
    if (F != Format)
      return Fail(NotOurs);
    if (Ver != Schema)
      return Fail(Path + " has schema version " + Ver + "; this incant reads " +
                  Schema);
  } else if (Exists) {
    Stmt Q(Db, "SELECT count(*) FROM sqlite_master");
    if (Q && Q.step() == SQLITE_ROW && Q.u64(0) != 0)
      return Fail(NotOurs);
  }
  std::string E;
  std::string SetMeta = "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY "
                        "KEY, value TEXT NOT NULL);"
                        "INSERT OR IGNORE INTO meta VALUES('format', '" +
                        Format + "');INSERT OR IGNORE INTO meta VALUES('schema', '" +
                        Schema + "');";
  if (!exec(Db, "PRAGMA journal_mode=WAL", E) ||
      !exec(Db, "PRAGMA synchronous=FULL", E) ||
      !exec(Db, "PRAGMA foreign_keys=ON", E) ||
      !exec(Db, "BEGIN IMMEDIATE", E) || !exec(Db, Tables, E) ||
      !exec(Db, SetMeta.c_str(), E) || !exec(Db, "COMMIT", E))
    return Fail("cannot set up " + Path + ": " + E);
  return Db;
}

} // namespace incant::sqlite
