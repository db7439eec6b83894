//===- DataFiles.cpp - Where the shipped data lives -----------------------===//
#include "incant/Support/DataFiles.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace incant {

static fs::path executableDir() {
  std::error_code EC;
  fs::path Exe = fs::read_symlink("/proc/self/exe", EC);
  return EC ? fs::path() : Exe.parent_path();
}

std::string besideExecutable(const std::string &Name) {
  fs::path Dir = executableDir();
  return Dir.empty() ? Name : (Dir / Name).string();
}

std::string incantCommand() {
  std::error_code EC;
  fs::path Exe = fs::read_symlink("/proc/self/exe", EC);
  if (EC)
    return {};
  fs::path Front = Exe.parent_path() / "incant";
  return fs::exists(Front, EC) ? Front.string() : Exe.string();
}

std::vector<std::string> dataRoots() {
  std::vector<std::string> Roots;
  fs::path Dir = executableDir();
  if (!Dir.empty())
    Roots.push_back((Dir / ".." / "share" / "incant").string());
#ifdef INCANT_SOURCE_DATA_DIR
  Roots.push_back(INCANT_SOURCE_DATA_DIR);
#endif
  return Roots;
}

std::vector<std::string>
modelSearchPath(const std::vector<std::string> &Extra) {
  std::vector<std::string> Dirs(Extra);
  if (const char *Env = std::getenv("INCANT_MODELS"); Env && *Env)
    Dirs.push_back(Env);
  for (const std::string &Root : dataRoots())
    Dirs.push_back((fs::path(Root) / "models").lexically_normal().string());
  return Dirs;
}

std::string libraryDir() {
  for (const std::string &Root : dataRoots()) {
    std::error_code EC;
    fs::path Lib = (fs::path(Root) / "litmus").lexically_normal();
    if (fs::is_directory(Lib, EC))
      return Lib.string();
  }
  return {};
}

std::vector<std::string> shippedProfileFiles() {
  std::vector<std::string> All;
  for (const std::string &Root : dataRoots()) {
    std::error_code EC;
    fs::path Dir = (fs::path(Root) / "profiles").lexically_normal();
    std::vector<std::string> Files;
    for (fs::directory_iterator It(Dir, EC), End; !EC && It != End;
         It.increment(EC))
      if (It->path().extension() == ".json")
        Files.push_back(It->path().string());
    std::sort(Files.begin(), Files.end());
    All.insert(All.end(), Files.begin(), Files.end());
  }
  return All;
}

std::string userCacheDir() {
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X == '/')
    return std::string(X) + "/incant";
  if (const char *H = std::getenv("HOME"); H && *H == '/')
    return std::string(H) + "/.cache/incant";
  return "";
}

} // namespace incant
