//===- FileLock.cpp - One writer per file at a time -----------------------===//
#include "incant/Support/FileLock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace incant {

std::unique_ptr<WriterLock> WriterLock::acquire(const std::string &Path,
                                                std::string &Error) {
  std::string LockPath = Path + "-lock";
  // The holder removes the lock file when it is done: a claim taken on a
  // file that was removed meanwhile is not a claim, so check the path
  // still names the locked file, and try again if not.
  for (int Attempt = 0; Attempt != 100; ++Attempt) {
    int Fd = ::open(LockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (Fd < 0) {
      Error = "cannot lock " + Path + " for writing: cannot create " +
              LockPath + ": " + std::strerror(errno);
      return nullptr;
    }
    if (::flock(Fd, LOCK_EX | LOCK_NB) != 0) {
      int E = errno;
      ::close(Fd);
      Error = E == EWOULDBLOCK
                  ? Path + " is being written by another incant process (a "
                           "campaign or a merge); one writer per database "
                           "at a time: wait for it to end, or use another "
                           "file"
                  : "cannot lock " + Path + " for writing: " +
                        std::strerror(E);
      return nullptr;
    }
    struct stat A, B;
    if (::fstat(Fd, &A) == 0 && ::stat(LockPath.c_str(), &B) == 0 &&
        A.st_dev == B.st_dev && A.st_ino == B.st_ino)
      return std::unique_ptr<WriterLock>(new WriterLock(Fd, LockPath));
    ::close(Fd);
  }
  Error = "cannot lock " + Path + " for writing: " + LockPath +
          " keeps changing";
  return nullptr;
}

WriterLock::~WriterLock() {
  // Removed while still held, so that no one can claim the old file.
  ::unlink(LockPath.c_str());
  ::close(Fd);
}

} // namespace incant
