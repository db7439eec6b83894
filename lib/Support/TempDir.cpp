//===- TempDir.cpp - A private temporary folder ---------------------------===//
#include "incant/Support/TempDir.h"

#include <atomic>
#include <cstring>
#include <fcntl.h>
#include <stdlib.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

namespace incant {

namespace {

/// The folders that live now, for a signal handler: a slot is Free, being
/// Filled, or Live (its path complete). Lock-free atomics and fixed
/// buffers only, so that removeLiveTempDirs may read them there.
enum SlotState : int { Free = 0, Filled = 1, Live = 2 };
constexpr size_t MaxLive = 64, MaxPath = 4096;
std::atomic<int> State[MaxLive];
char Paths[MaxLive][MaxPath];

size_t registerDir(const std::string &Path) {
  static_assert(std::atomic<int>::is_always_lock_free);
  if (Path.size() >= MaxPath)
    return MaxLive;
  for (size_t I = 0; I < MaxLive; ++I) {
    int F = Free;
    if (State[I].compare_exchange_strong(F, Filled)) {
      std::memcpy(Paths[I], Path.c_str(), Path.size() + 1);
      State[I].store(Live);
      return I;
    }
  }
  return MaxLive; // more at once than the table holds: not removed on a signal
}

/// Removes what folder \p Dir (a descriptor, closed here) holds, with
/// system calls a signal handler may make (getdents64, unlinkat, close);
/// \p Depth bounds the nesting followed.
void emptyDir(int Dir, int Depth) {
  struct Entry {
    uint64_t Ino;
    int64_t Off;
    unsigned short Len;
    unsigned char Type;
    char Name[1];
  };
  alignas(8) char Buf[4096];
  // Passes over the listing until one removes nothing (a listing always
  // holds "." and ".."; what is removed may shift what the next read
  // returns).
  for (bool Removed = true; Removed;) {
    Removed = false;
    ::lseek(Dir, 0, SEEK_SET);
    for (long N; (N = ::syscall(SYS_getdents64, Dir, Buf, sizeof Buf)) > 0;)
      for (long At = 0; At < N;) {
        const auto *E = reinterpret_cast<const Entry *>(Buf + At);
        At += E->Len;
        if (std::strcmp(E->Name, ".") == 0 || std::strcmp(E->Name, "..") == 0)
          continue;
        if (::unlinkat(Dir, E->Name, 0) == 0) {
          Removed = true;
          continue;
        }
        if (Depth > 0) {
          int Sub = ::openat(Dir, E->Name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
          if (Sub >= 0)
            emptyDir(Sub, Depth - 1);
        }
        Removed |= ::unlinkat(Dir, E->Name, AT_REMOVEDIR) == 0;
      }
  }
  ::close(Dir);
}

} // namespace

void removeLiveTempDirs() {
  for (size_t I = 0; I < MaxLive; ++I) {
    if (State[I].load() != Live)
      continue;
    int Dir = ::open(Paths[I], O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (Dir >= 0)
      emptyDir(Dir, 8);
    ::rmdir(Paths[I]);
  }
}

TempDir::TempDir(std::string_view Prefix) {
  namespace fs = std::filesystem;
  std::error_code EC;
  fs::path Base = fs::temp_directory_path(EC);
  if (EC)
    Base = "/tmp";
  std::string T = (Base / (std::string(Prefix) + "-XXXXXX")).string();
  if (::mkdtemp(T.data())) {
    Dir = T;
    Slot = registerDir(T);
  }
}

TempDir::~TempDir() {
  std::error_code EC;
  if (!Dir.empty())
    std::filesystem::remove_all(Dir, EC);
  if (Slot < MaxLive)
    State[Slot].store(Free);
}

} // namespace incant
