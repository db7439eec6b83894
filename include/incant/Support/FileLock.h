//===- FileLock.h - One writer per file at a time ---------------*- C++ -*-===//
//
// A database that one process writes at a time (a campaign store, a merge
// output) is claimed with an advisory lock on a file beside it,
// `PATH-lock`: flock(2), so the operating system drops the claim when the
// process ends, however it ends (kill -9 included), and readers are not
// held up. SQLite's own exclusive locking mode would also shut out
// readers, which a running campaign must allow (`report` on its partial
// results); SQLite's write lock lasts one transaction only.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_FILELOCK_H
#define INCANT_SUPPORT_FILELOCK_H

#include <memory>
#include <string>

namespace incant {

class WriterLock {
public:
  /// Claims \p Path for writing, without waiting. Null with \p Error set if
  /// another process holds it ("PATH is being written by another incant
  /// process") or the lock file cannot be made.
  static std::unique_ptr<WriterLock> acquire(const std::string &Path,
                                             std::string &Error);
  /// Releases the claim (and removes the lock file).
  ~WriterLock();
  WriterLock(const WriterLock &) = delete;
  WriterLock &operator=(const WriterLock &) = delete;

private:
  WriterLock(int Fd, std::string LockPath)
      : Fd(Fd), LockPath(std::move(LockPath)) {}
  int Fd;
  std::string LockPath;
};

} // namespace incant

#endif // INCANT_SUPPORT_FILELOCK_H
