//===- Sqlite.h - SQLite prepared statements and databases ------*- C++ -*-===//
//
// The conventions every incant database follows (the campaign store, the
// stress store): WAL journal with synchronous=FULL, so a process killed at
// any moment leaves each stored row whole; a `meta` table naming the
// format and schema version, checked before anything is written. Only for
// parts that link SQLite (it includes sqlite3.h).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_SQLITE_H
#define INCANT_SUPPORT_SQLITE_H

#include <cstdint>
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


/// Opens (creating if \p Create) the database at \p Path and checks or sets
/// up its `meta` table (format \p Format, schema \p Schema) and \p Tables
/// (SQL run once inside the first transaction). Null with \p Error set if
/// it cannot be opened, is not SQLite, or is another format or version.
/// \p Kind names the format in messages ("campaign": "... is not an incant
/// campaign database").
sqlite3 *openDatabase(const std::string &Path, bool Create,
                      const std::string &Format, const std::string &Schema,
                      const char *Tables, const std::string &Kind,
                      std::string &Error);

/// Runs \p Sql; false with \p Error set on failure.
bool exec(sqlite3 *Db, const char *Sql, std::string &Error);

} // namespace incant::sqlite

#endif // INCANT_SUPPORT_SQLITE_H
