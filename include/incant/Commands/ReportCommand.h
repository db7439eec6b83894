//===- ReportCommand.h - `incant report` ------------------------*- C++ -*-===//
//
// The options of `incant report` and its entry point (what it prints:
// Report.h).
//
// Exit codes of runReport: 0 done; 2 a missing or foreign database, or an
// unwritable output.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_COMMANDS_REPORTCOMMAND_H
#define INCANT_COMMANDS_REPORTCOMMAND_H

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace incant::campaign {

struct ReportCommand {
  std::vector<std::string> Dbs;
  /// Write the HTML page here ("" : none).
  std::string Html;
  /// Print the text summary (also when no --html is given).
  bool Text = false;
  /// Most entries per model in each list of the text summary (0: all).
  size_t Limit = 50;
};

int runReport(const ReportCommand &Cmd, std::ostream &Out, std::ostream &Err);

} // namespace incant::campaign

#endif // INCANT_COMMANDS_REPORTCOMMAND_H
