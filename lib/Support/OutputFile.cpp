//===- OutputFile.cpp - Output paths: checked first, written safely -------===//
#include "incant/Support/OutputFile.h"
#include "incant/Support/Hash.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
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
  if (Existed && !S_ISREG(St.st_mode)) {
    // A pipe, socket or device is not opened to check it: opening and
    // closing a pipe would hand its reader an end of file before the
    // output, and the real write would then wait for a reader forever.
    if (::access(Path.c_str(), W_OK) == 0)
      return true;
    Error = "cannot write '" + Path + "': " + std::strerror(errno);
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

namespace {

/// Whether \p Path is written in place rather than replaced: an existing
/// file that is not a regular one (a device, pipe, socket, terminal), or a
/// name of one of the process's own streams (/dev/stdout, /dev/fd/N,
/// /proc/self/fd/N), whatever it leads to.
bool writtenInPlace(const std::string &Path) {
  for (const char *Stream : {"/dev/stdout", "/dev/stderr", "/dev/fd/",
                             "/proc/self/fd/"})
    if (Path.rfind(Stream, 0) == 0)
      return true;
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 && !S_ISREG(St.st_mode);
}

/// Writes all of \p Text to \p Fd; false with errno set if a write fails.
bool writeAll(int Fd, std::string_view Text) {
  while (!Text.empty()) {
    ssize_t N = ::write(Fd, Text.data(), Text.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      if (N == 0)
        errno = EIO;
      return false;
    }
    Text.remove_prefix(size_t(N));
  }
  return true;
}

std::string cannotWrite(const std::string &Path) {
  return "cannot write '" + Path + "': " + std::strerror(errno);
}

bool writeInPlace(const std::string &Path, std::string_view Text,
                  std::string &Error, bool Append) {
  int Fd = ::open(Path.c_str(),
                  O_WRONLY | O_CLOEXEC | O_CREAT | (Append ? O_APPEND : O_TRUNC),
                  0644);
  if (Fd < 0) {
    Error = cannotWrite(Path);
    return false;
  }
  bool Ok = writeAll(Fd, Text);
  if (!Ok)
    Error = cannotWrite(Path);
  if (::close(Fd) != 0 && Ok) {
    Error = cannotWrite(Path);
    Ok = false;
  }
  return Ok;
}

/// Writes \p Text to a new file beside \p Path and renames it over
/// \p Path (through symbolic links: the file they lead to is replaced).
bool replaceFile(const std::string &Path, std::string_view Text,
                 std::string &Error) {
  std::error_code EC;
  std::filesystem::path Target = Path;
  if (std::filesystem::is_symlink(Target, EC)) {
    std::filesystem::path Resolved =
        std::filesystem::weakly_canonical(Target, EC);
    if (!EC)
      Target = Resolved;
  }
  std::filesystem::path Dir = Target.parent_path();
  std::string Tmp = ((Dir.empty() ? std::filesystem::path(".") : Dir) /
                     ("." + Target.filename().string() + ".incant-XXXXXX"))
                        .string();
  int Fd = ::mkstemp(Tmp.data());
  if (Fd < 0) {
    Error = "cannot write '" + Path +
            "': cannot create a file beside it: " + std::strerror(errno);
    return false;
  }
  // The replaced file's permissions stay (mkstemp's are 0600).
  struct stat St;
  mode_t Mode = 0644;
  if (::stat(Target.c_str(), &St) == 0)
    Mode = St.st_mode & 07777;
  else {
    mode_t Mask = ::umask(0);
    ::umask(Mask);
    Mode &= ~Mask;
  }
  bool Ok = ::fchmod(Fd, Mode) == 0 && writeAll(Fd, Text);
  if (!Ok)
    Error = cannotWrite(Path);
  if (::close(Fd) != 0 && Ok) {
    Error = cannotWrite(Path);
    Ok = false;
  }
  if (Ok && ::rename(Tmp.c_str(), Target.c_str()) != 0) {
    Error = "cannot replace '" + Path + "': " + std::strerror(errno);
    Ok = false;
  }
  if (!Ok)
    ::unlink(Tmp.c_str());
  return Ok;
}

} // namespace

bool checkOutputs(const std::vector<std::string> &Outputs,
                  const std::vector<std::string> &Inputs, std::string &Error) {
  auto SameFile = [](const std::string &A, const std::string &B) {
    struct stat SA, SB;
    return ::stat(A.c_str(), &SA) == 0 && ::stat(B.c_str(), &SB) == 0 &&
           SA.st_dev == SB.st_dev && SA.st_ino == SB.st_ino &&
           !S_ISCHR(SA.st_mode);
  };
  for (size_t I = 0; I < Outputs.size(); ++I) {
    const std::string &Out = Outputs[I];
    if (Out.empty() || Out == "-")
      continue;
    for (const std::string &In : Inputs)
      if (!In.empty() && In != "-" && SameFile(Out, In)) {
        Error = "the output '" + Out + "' is the input '" + In +
                "': it would be overwritten; write elsewhere";
        return false;
      }
    for (size_t J = 0; J < I; ++J)
      if (Outputs[J] == Out || SameFile(Outputs[J], Out)) {
        Error = "the outputs '" + Outputs[J] + "' and '" + Out +
                "' are the same file";
        return false;
      }
    if (!checkWritable(Out, Error))
      return false;
  }
  return true;
}

bool writeOutputFile(const std::string &Path, std::string_view Text,
                     std::string &Error, bool Append) {
  if (Append || writtenInPlace(Path))
    return writeInPlace(Path, Text, Error, Append);
  return replaceFile(Path, Text, Error);
}

bool finishStandardOutput(std::string &Error) {
  std::cout.flush();
  bool Failed = std::cout.fail();
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    Failed = true;
  if (!Failed)
    return true;
  Error = std::string("cannot write the standard output: ") +
          (errno ? std::strerror(errno)
                 : "a write to it failed (a full disk, a closed pipe?)");
  return false;
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
