//===- ModelFinder.h - Locate and cache .cat models by name ------*- C++ -*-===//
#ifndef INCANT_DRIVER_MODELFINDER_H
#define INCANT_DRIVER_MODELFINDER_H

#include "incant/Cat/Model.h"
#include "incant/Support/Diagnostic.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace incant::driver {

/// The folders searched for a model given by name, in order: \p Extra, then
/// $INCANT_MODELS, then `models/` of the installed share folder beside the
/// binary, then the source tree's models/ (for a build tree).
std::vector<std::string> modelSearchPath(const std::vector<std::string> &Extra);

/// The folder holding the shipped litmus library, if it can be found.
std::string libraryDir();

/// The shipped chip profile (`profiles/*.json` in the share folder or the
/// source tree) made by `incant tune` on a device named \p Chip with
/// \p Backend; "" if none.
std::string shippedProfileFor(const std::string &Chip,
                              const std::string &Backend);

/// Loads each model once. A name with a '/' or ending in .cat is a path;
/// otherwise NAME.cat is looked up in the search path.
class ModelFinder {
public:
  explicit ModelFinder(std::vector<std::string> ExtraDirs = {})
      : Dirs(modelSearchPath(ExtraDirs)) {}
  /// Null (after reporting to \p Diags) if the model is missing or malformed.
  const cat::Model *get(const std::string &NameOrPath, DiagnosticEngine &Diags);
  /// The display name of a model: its file stem.
  static std::string displayName(const std::string &NameOrPath);

private:
  std::vector<std::string> Dirs;
  std::map<std::string, std::unique_ptr<cat::Model>> Cache;
  std::map<std::string, bool> Failed;
};

} // namespace incant::driver

#endif // INCANT_DRIVER_MODELFINDER_H
