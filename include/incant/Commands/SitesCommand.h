//===- SitesCommand.h - `incant sites`: what the build changed --*- C++ -*-===//
//
//   incant sites ./app [--json]
//
// Lists the units (rewritten PTX modules) a binary carries, read from the
// binary itself (ImageScan.h): per unit its target and source, per
// function whether its thread ids are remapped or why they were left alone,
// and every site (id, kind, source file:line, function).
//
// Exit codes: 0 listed; 2 the file cannot be read or holds no unit (it was
// not built through incant).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_SITESCOMMAND_H
#define INCANT_COMMANDS_SITESCOMMAND_H

#include <iosfwd>
#include <string>

namespace incant::intercept {

struct SitesCommand {
  std::string File;
  bool Json = false;
};

int runSites(const SitesCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::intercept

#endif // INCANT_COMMANDS_SITESCOMMAND_H
