//===- ModelFinder.h - Load and cache .cat models by name -------*- C++ -*-===//
#ifndef INCANT_CAT_MODELFINDER_H
#define INCANT_CAT_MODELFINDER_H

#include "incant/Cat/Model.h"
#include "incant/Support/Diagnostic.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace incant::cat {

/// Loads each model once. A name with a '/' or ending in .cat is a path;
/// otherwise NAME.cat is looked up in the model search path
/// (modelSearchPath in Support/DataFiles.h: \p ExtraDirs first).
class ModelFinder {
public:
  explicit ModelFinder(std::vector<std::string> ExtraDirs = {});
  /// Null (after reporting to \p Diags) if the model is missing or malformed.
  const Model *get(const std::string &NameOrPath, DiagnosticEngine &Diags);
  /// The display name of a model: its file stem.
  static std::string displayName(const std::string &NameOrPath);

private:
  std::vector<std::string> Dirs;
  std::map<std::string, std::unique_ptr<Model>> Cache;
  std::map<std::string, bool> Failed;
};

} // namespace incant::cat

#endif // INCANT_CAT_MODELFINDER_H
