//===- Load.cpp - Read, parse and lower a litmus file ---------------------===//
#include "incant/Litmus/Load.h"
#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"
#include "incant/Litmus/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace incant::litmus {

std::optional<LoadedTest> loadTest(const std::string &Path,
                                   DiagnosticEngine &Diags) {
  std::string Error;
  std::shared_ptr<SourceFile> File = SourceFile::read(Path, Error);
  if (!File) {
    Diags.error("cannot read '" + Path + "': " + Error);
    return std::nullopt;
  }
  std::optional<Test> T = parseTest(File, Diags);
  if (!T)
    return std::nullopt;
  std::optional<Program> P = lower(*T, Diags);
  if (!P)
    return std::nullopt;
  return LoadedTest{std::move(File), std::move(*T), std::move(*P)};
}

std::string testHash(const Test &T) {
  uint64_t H = 14695981039346656037ull;
  for (unsigned char C : printTest(T)) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return fmt::format("{:016x}", H);
}

bool expandFolders(const std::vector<std::string> &Inputs,
                   std::vector<std::string> &Files, std::string &Error) {
  namespace fs = std::filesystem;
  Files.clear();
  for (const std::string &In : Inputs) {
    std::error_code EC;
    if (!fs::is_directory(In, EC)) {
      Files.push_back(In);
      continue;
    }
    std::vector<std::string> Found;
    fs::recursive_directory_iterator It(
        In, fs::directory_options::skip_permission_denied, EC),
        End;
    for (; !EC && It != End; It.increment(EC))
      if (It->path().extension() == ".litmus" && It->is_regular_file(EC))
        Found.push_back(It->path().lexically_normal().string());
    if (EC) {
      Error = "cannot list " + In + ": " + EC.message();
      return false;
    }
    if (Found.empty()) {
      Error = "no .litmus file under the folder " + In;
      return false;
    }
    std::sort(Found.begin(), Found.end());
    Files.insert(Files.end(), Found.begin(), Found.end());
  }
  return true;
}

} // namespace incant::litmus
