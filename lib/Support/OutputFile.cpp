//===- OutputFile.cpp - Checking an output path before the work -----------===//
#include "incant/Support/OutputFile.h"
#include "incant/Support/Hash.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace incant {

bool checkWritable(const std::string &Path, std::string &Error) {
  struct stat St;
  bool Existed = ::stat(Path.c_str(), &St) == 0;
  if (Existed && S_ISDIR(St.st_mode)) {
    Error = "cannot write '" + Path + "': it is a folder";
    return false;
  }
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                  0644);
  if (Fd < 0) {
    Error = "cannot write '" + Path + "': " + std::strerror(errno);
    return false;
  }
  ::close(Fd);
  if (!Existed)
    ::unlink(Path.c_str());
  return true;
}

bool checkWritableDir(const std::string &Dir, std::string &Error) {
  std::error_code EC;
  std::filesystem::create_directories(Dir, EC);
  if (EC) {
    Error = "cannot create the folder '" + Dir + "': " + EC.message();
    return false;
  }
  if (!std::filesystem::is_directory(Dir, EC)) {
    Error = "cannot use '" + Dir + "' as a folder: it is a file";
    return false;
  }
  // A file that cannot exist already: the check leaves nothing behind.
  std::string Probe =
      (std::filesystem::path(Dir) / (".incant-write-check-" +
                                     std::to_string(::getpid())))
          .string();
  int Fd = ::open(Probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                  0644);
  if (Fd < 0) {
    Error = "cannot write in the folder '" + Dir + "': " +
            std::strerror(errno);
    return false;
  }
  ::close(Fd);
  ::unlink(Probe.c_str());
  return true;
}

std::string safeFileName(std::string_view Name) {
  constexpr size_t Max = 120;
  std::string S;
  for (char C : Name)
    S += (std::isalnum(static_cast<unsigned char>(C)) || C == '+' ||
          C == '-' || C == '_' || C == '.')
             ? C
             : '_';
  if (S.empty() || S[0] == '.')
    S = "test" + S;
  if (S.size() > Max)
    S = S.substr(0, Max - 17) + "+" + hex16(fnv1a64(Name));
  return S;
}

} // namespace incant
