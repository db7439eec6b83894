//===- DataFiles.h - Where the shipped data lives ---------------*- C++ -*-===//
//
// incant ships data beside the tool: .cat models (models/), the litmus
// library (litmus/) and chip profiles (profiles/). They are found in the
// installed share folder beside the binary (BIN/../share/incant, where
// `cmake --install` puts them), then in the source tree the binary was
// built from (for a build tree). Models can also be given by folder
// (--models DIR, $INCANT_MODELS). The tool itself is found the same way.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_DATAFILES_H
#define INCANT_SUPPORT_DATAFILES_H

#include <string>
#include <vector>

namespace incant {

/// The path of the `incant` command running this process, for commands
/// that write a command line running incant again (nvcc's ptxas prefix, a
/// Slurm script): `incant` beside this binary where it is there (incant-all
/// is started through it: tools/incant/ToolMain.h), else this binary; ""
/// if /proc/self/exe cannot be read.
std::string incantCommand();

/// The file \p Name in this binary's folder (just \p Name, left to the
/// search path, if /proc/self/exe cannot be read).
std::string besideExecutable(const std::string &Name);

/// The user's cache folder for incant: $XDG_CACHE_HOME/incant, else
/// $HOME/.cache/incant; "" when neither variable is set.
std::string userCacheDir();

/// The folders that may hold models/, litmus/ and profiles/, in order.
std::vector<std::string> dataRoots();

/// The folders searched for a model given by name, in order: \p Extra, then
/// $INCANT_MODELS, then models/ under each data root.
std::vector<std::string> modelSearchPath(const std::vector<std::string> &Extra);

/// The folder holding the shipped litmus library; "" if none is found.
std::string libraryDir();

/// The shipped chip profiles: profiles/*.json under each data root, in
/// root order and sorted by name within a root.
std::vector<std::string> shippedProfileFiles();

} // namespace incant

#endif // INCANT_SUPPORT_DATAFILES_H
