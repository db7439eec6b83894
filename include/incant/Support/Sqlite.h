//===- Sqlite.h - SQLite prepared statements and databases ------*- C++ -*-===//
//
// The conventions every incant database follows (the campaign store, the
// stress store): WAL journal with synchronous=FULL, so a process killed at
// any moment leaves each stored row whole; a `meta` table naming the
// format and schema version, checked before anything is written; readers
// open read-only and never write; one writer at a time. Only for parts
// that link SQLite (it includes sqlite3.h).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_SQLITE_H
#define INCANT_SUPPORT_SQLITE_H

#include "incant/Support/FileLock.h"

#include <cstdint>
#include <memory>
#include <sqlite3.h>
#include <string>

namespace incant::sqlite {

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


/// How a database is opened: Read never writes to it (report, merge's
/// inputs); Write may, and claims it for this process alone.
enum class Access { Read, Write };

/// Opens the database at \p Path and checks its `meta` table (format
/// \p Format, schema \p Schema, \p Kind naming it in messages: "... is not
/// an incant campaign database") and that every table of \p Tables (its
/// `CREATE TABLE IF NOT EXISTS` statements) is there.
///
/// Read: opened read-only and never written, whatever it holds: an empty
/// file or a missing table is an error, never set up or repaired; a WAL
/// database in a folder this user cannot write (read-only media, another
/// user's results) is read as immutable; the whole file is checked first
/// (PRAGMA integrity_check): a damaged one is an error naming it, never
/// read. Close it with closeReader().
/// Write: created if absent; claimed for this process alone before
/// anything is read (\p Lock, a WriterLock: a second writer gets an error
/// at once; keep it until the connection is closed); \p Tables run once if
/// the database is new; a missing table is an error here too, and so is
/// an existing database that fails PRAGMA quick_check.
/// Null with \p Error set if it cannot be opened or is not such a database.
sqlite3 *openDatabase(const std::string &Path, Access A,
                      const std::string &Format, const std::string &Schema,
                      const char *Tables, const std::string &Kind,
                      std::unique_ptr<WriterLock> &Lock, std::string &Error);

/// Whether SQLite's -wal or -shm file is beside \p Path.
bool hasSideFiles(const std::string &Path);

/// Closes \p Db, a connection openDatabase() opened with Access::Read. A
/// read-only connection to a WAL database makes its -wal and -shm files
/// and cannot remove them: with \p RemoveSideFiles (they were not there
/// before it opened), they are removed when no writer holds the database
/// (its WriterLock is free) and the -wal holds nothing.
void closeReader(sqlite3 *Db, const std::string &Path, bool RemoveSideFiles);

/// Runs \p Sql; false with \p Error set on failure.
bool exec(sqlite3 *Db, const char *Sql, std::string &Error);

} // namespace incant::sqlite

#endif // INCANT_SUPPORT_SQLITE_H
