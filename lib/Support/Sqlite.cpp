//===- Sqlite.cpp - Opening an incant database ----------------------------===//
#include "incant/Support/Sqlite.h"

#include <filesystem>
#include <set>

namespace incant::sqlite {

bool exec(sqlite3 *Db, const char *Sql, std::string &Error) {
  char *Msg = nullptr;
  if (sqlite3_exec(Db, Sql, nullptr, nullptr, &Msg) == SQLITE_OK)
    return true;
  Error = Msg ? Msg : sqlite3_errmsg(Db);
  sqlite3_free(Msg);
  return false;
}

namespace {

/// The tables \p Sql creates (`CREATE TABLE IF NOT EXISTS name(`), and
/// meta.
std::set<std::string> tablesOf(const std::string &Sql) {
  std::set<std::string> Names = {"meta"};
  const std::string Key = "CREATE TABLE IF NOT EXISTS ";
  for (size_t P = Sql.find(Key); P != std::string::npos;
       P = Sql.find(Key, P + 1)) {
    size_t B = P + Key.size(), E = Sql.find_first_of("( \n", B);
    Names.insert(Sql.substr(B, E - B));
  }
  return Names;
}

/// \p Path as an SQLite URI (file:...), '?', '#' and '%' escaped.
std::string uriOf(const std::string &Path) {
  static const char Hex[] = "0123456789ABCDEF";
  std::string Uri = "file:";
  for (char C : Path) {
    if (C == '?' || C == '#' || C == '%') {
      Uri += '%';
      Uri += Hex[(static_cast<unsigned char>(C) >> 4) & 15];
      Uri += Hex[static_cast<unsigned char>(C) & 15];
    } else {
      Uri += C;
    }
  }
  return Uri;
}

/// "" if SQLite finds \p Db whole (\p Pragma: integrity_check or
/// quick_check), else what it found first.
std::string damage(sqlite3 *Db, const char *Pragma) {
  Stmt Q(Db, Pragma);
  if (!Q)
    return sqlite3_errmsg(Db);
  int Rc = Q.step();
  if (Rc != SQLITE_ROW)
    return sqlite3_errmsg(Db);
  std::string First = Q.text(0);
  return First == "ok" ? "" : First;
}

} // namespace

bool hasSideFiles(const std::string &Path) {
  std::error_code EC;
  return std::filesystem::exists(Path + "-wal", EC) ||
         std::filesystem::exists(Path + "-shm", EC);
}

void closeReader(sqlite3 *Db, const std::string &Path, bool RemoveSideFiles) {
  sqlite3_close_v2(Db);
  if (!RemoveSideFiles || !hasSideFiles(Path))
    return;
  // A writer maps the -shm while it holds its lock: never take it from
  // under one.
  std::string Error;
  std::unique_ptr<WriterLock> Lock = WriterLock::acquire(Path, Error);
  if (!Lock)
    return;
  std::error_code EC;
  uintmax_t Wal = std::filesystem::file_size(Path + "-wal", EC);
  if (!EC && Wal != 0)
    return;
  std::filesystem::remove(Path + "-wal", EC);
  std::filesystem::remove(Path + "-shm", EC);
}

sqlite3 *openDatabase(const std::string &Path, Access A,
                      const std::string &Format, const std::string &Schema,
                      const char *Tables, const std::string &Kind,
                      std::unique_ptr<WriterLock> &Lock, std::string &Error) {
  std::error_code EC;
  bool Exists = std::filesystem::exists(Path, EC);
  // exists() says false both for a missing file and for one it may not
  // look at (a folder without search permission): name the real reason.
  if (EC && EC != std::errc::no_such_file_or_directory) {
    Error = "cannot open " + Path + ": " + EC.message();
    return nullptr;
  }
  if (!Exists && A == Access::Read) {
    Error = "no such database: " + Path;
    return nullptr;
  }
  if (std::filesystem::is_directory(Path, EC)) {
    Error = Path + " is a folder, not a database";
    return nullptr;
  }
  if (A == Access::Write) {
    // One writer at a time, claimed before anything is read: two campaigns
    // started at once on one new database both passed the "no results
    // yet" check and then dropped half of each other's results.
    Lock = WriterLock::acquire(Path, Error);
    if (!Lock)
      return nullptr;
  }
  sqlite3 *Db = nullptr;
  int Flags = (A == Access::Read ? SQLITE_OPEN_READONLY
                                 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
              SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI;
  auto OpenWith = [&](const std::string &Uri) {
    sqlite3_close_v2(Db);
    Db = nullptr;
    return sqlite3_open_v2(Uri.c_str(), &Db, Flags, nullptr);
  };
  auto Fail = [&](std::string Why) {
    Error = std::move(Why);
    sqlite3_close_v2(Db);
    Lock.reset();
    return nullptr;
  };
  if (OpenWith(uriOf(Path)) != SQLITE_OK)
    return Fail("cannot open " + Path + ": " +
                (Db ? sqlite3_errmsg(Db) : "out of memory"));
  sqlite3_busy_timeout(Db, 10000);
  // Reading the tables first tells a foreign file (or one that is not
  // SQLite at all) from an incant database before anything is written.
  std::set<std::string> Names;
  auto ReadTables = [&] {
    Names.clear();
    Stmt Q(Db, "SELECT name FROM sqlite_master WHERE type='table'");
    int Rc = SQLITE_ERROR;
    while (Q && (Rc = Q.step()) == SQLITE_ROW)
      Names.insert(Q.text(0));
    return Q && Rc == SQLITE_DONE;
  };
  bool Readable = ReadTables();
  if (!Readable && A == Access::Read &&
      (sqlite3_errcode(Db) == SQLITE_CANTOPEN ||
       sqlite3_errcode(Db) == SQLITE_READONLY)) {
    // A WAL database in a folder this user cannot write, whose -shm cannot
    // be made: read it as immutable (no writer can be at work where no
    // -shm can be made).
    if (OpenWith(uriOf(Path) + "?immutable=1") == SQLITE_OK)
      Readable = ReadTables();
  }
  if (!Readable)
    return Fail(Path + " is not an SQLite database (" + sqlite3_errmsg(Db) +
                ")");
  std::string NotOurs = Path + " is not an incant " + Kind + " database";
  if (Names.empty()) {
    // An empty (or new) file: a writer sets it up; a reader finds nothing
    // in it and must not write a schema into it.
    if (A == Access::Read)
      return Fail(NotOurs + " (it is empty)");
  } else {
    if (!Names.count("meta"))
      return Fail(NotOurs);
    Stmt Q(Db, "SELECT value FROM meta WHERE key='format'");
    std::string F = Q && Q.step() == SQLITE_ROW ? Q.text(0) : "";
    Stmt V(Db, "SELECT value FROM meta WHERE key='schema'");
    std::string Ver = V && V.step() == SQLITE_ROW ? V.text(0) : "";
    if (F != Format)
      return Fail(NotOurs);
    if (Ver != Schema)
      return Fail(Path + " has schema version " + Ver + "; this incant reads " +
                  Schema);
    // A table missing from a database of this format is damage, never
    // repaired silently (a dropped results table used to be recreated).
    std::string Missing;
    for (const std::string &T : tablesOf(Tables))
      if (!Names.count(T))
        Missing += (Missing.empty() ? "" : ", ") + T;
    if (!Missing.empty())
      return Fail(Path + " is damaged: table(s) " + Missing +
                  " missing (it is left as it is)");
    // Damage inside a page (an index that no longer matches its table)
    // would be read as results: the whole file is checked before a
    // report or a merge reads it, its structure before a writer adds to
    // it.
    std::string Damage =
        damage(Db, A == Access::Read ? "PRAGMA integrity_check(1)"
                                     : "PRAGMA quick_check(1)");
    if (!Damage.empty())
      return Fail(Path + " is damaged: " + Damage +
                  " (SQLite's integrity check; it is left as it is)");
  }
  if (A == Access::Read)
    return Db;
  std::string E;
  if (!exec(Db, "PRAGMA journal_mode=WAL", E) ||
      !exec(Db, "PRAGMA synchronous=FULL", E) ||
      !exec(Db, "PRAGMA foreign_keys=ON", E))
    return Fail("cannot set up " + Path + ": " + E);
  // Every table is there or the database is new: this adds only what is
  // missing of a new one (and indexes a later schema names).
  std::string SetMeta = "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY "
                        "KEY, value TEXT NOT NULL);"
                        "INSERT OR IGNORE INTO meta VALUES('format', '" +
                        Format + "');INSERT OR IGNORE INTO meta VALUES('schema', '" +
                        Schema + "');";
  if (!exec(Db, "BEGIN IMMEDIATE", E) || !exec(Db, Tables, E) ||
      !exec(Db, SetMeta.c_str(), E) || !exec(Db, "COMMIT", E))
    return Fail("cannot set up " + Path + ": " + E);
  return Db;
}

} // namespace incant::sqlite
