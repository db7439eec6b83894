//===- ModelFinder.cpp - Locate and cache .cat models by name -------------===//
#include "incant/Driver/ModelFinder.h"
#include "incant/Harness/Profile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace incant::driver {

static fs::path executableDir() {
  std::error_code EC;
  fs::path Exe = fs::read_symlink("/proc/self/exe", EC);
  return EC ? fs::path() : Exe.parent_path();
}

/// Candidate roots holding models/ and litmus/: the installed share folder
/// beside the binary, then the source tree this binary was built from.
static std::vector<fs::path> dataRoots() {
  std::vector<fs::path> Roots;
  fs::path Dir = executableDir();
  if (!Dir.empty())
    Roots.push_back(Dir / ".." / "share" / "incant");
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
  for (const fs::path &Root : dataRoots())
    Dirs.push_back((Root / "models").lexically_normal().string());
  return Dirs;
}

std::string libraryDir() {
  for (const fs::path &Root : dataRoots()) {
    std::error_code EC;
    fs::path Lib = (Root / "litmus").lexically_normal();
    if (fs::is_directory(Lib, EC))
      return Lib.string();
  }
  return {};
}

std::string shippedProfileFor(const std::string &Chip,
                              const std::string &Backend) {
  for (const fs::path &Root : dataRoots()) {
    std::error_code EC;
    fs::path Dir = (Root / "profiles").lexically_normal();
    std::vector<fs::path> Files;
    for (fs::directory_iterator It(Dir, EC), End; !EC && It != End;
         It.increment(EC))
      if (It->path().extension() == ".json")
        Files.push_back(It->path());
    std::sort(Files.begin(), Files.end());
    for (const fs::path &F : Files) {
      DiagnosticEngine Quiet(nullptr);
      std::optional<harness::Profile> P =
          harness::readProfile(F.string(), Quiet);
      if (P && P->Chip == Chip && P->Backend == Backend)
        return F.string();
    }
  }
  return {};
}

std::string ModelFinder::displayName(const std::string &NameOrPath) {
  return fs::path(NameOrPath).stem().string();
}

const cat::Model *ModelFinder::get(const std::string &NameOrPath,
                                   DiagnosticEngine &Diags) {
  if (auto It = Cache.find(NameOrPath); It != Cache.end())
    return It->second.get();
  if (Failed.count(NameOrPath)) {
    return nullptr;
  }
  std::string Path;
  bool IsPath = NameOrPath.find('/') != std::string::npos ||
                fs::path(NameOrPath).extension() == ".cat";
  if (IsPath) {
    Path = NameOrPath;
  } else {
    for (const std::string &Dir : Dirs) {
      std::error_code EC;
      fs::path Candidate = fs::path(Dir) / (NameOrPath + ".cat");
      if (fs::is_regular_file(Candidate, EC)) {
        Path = Candidate.string();
        break;
      }
    }
    if (Path.empty()) {
      std::string Where;
      for (const std::string &Dir : Dirs)
        Where += (Where.empty() ? "" : ", ") + Dir;
      Diags.error("no model named '" + NameOrPath + "' (looked for " +
                  NameOrPath + ".cat in " + Where +
                  "; give a path to a .cat file or --models DIR)");
      Failed[NameOrPath] = true;
      return nullptr;
    }
  }
  std::vector<std::string> Includes(Dirs);
  std::optional<cat::Model> M = cat::Model::load(Path, Diags, Includes);
  if (!M) {
    Failed[NameOrPath] = true;
    return nullptr;
  }
  auto &Slot = Cache[NameOrPath];
  Slot = std::make_unique<cat::Model>(std::move(*M));
  return Slot.get();
}

} // namespace incant::driver
