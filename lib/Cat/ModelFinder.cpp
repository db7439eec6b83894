//===- ModelFinder.cpp - Load and cache .cat models by name ---------------===//
#include "incant/Cat/ModelFinder.h"
#include "incant/Support/DataFiles.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace incant::cat {

ModelFinder::ModelFinder(std::vector<std::string> ExtraDirs)
    : Dirs(modelSearchPath(ExtraDirs)) {}

std::string ModelFinder::displayName(const std::string &NameOrPath) {
  return fs::path(NameOrPath).stem().string();
}

const Model *ModelFinder::get(const std::string &NameOrPath,
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
  std::optional<Model> M = Model::load(Path, Diags, Includes);
  if (!M) {
    Failed[NameOrPath] = true;
    return nullptr;
  }
  auto &Slot = Cache[NameOrPath];
  Slot = std::make_unique<Model>(std::move(*M));
  return Slot.get();
}

} // namespace incant::cat
