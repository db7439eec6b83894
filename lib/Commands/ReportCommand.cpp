//===- ReportCommand.cpp - `incant report` --------------------------------===//
#include "incant/Commands/ReportCommand.h"
#include "incant/Campaign/Report.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/OutputFile.h"

#include <ostream>
#include <sstream>

namespace incant::campaign {

int runReport(const ReportCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  if (Cmd.Dbs.empty()) {
    Diags.error("no database given (--db FILE.sqlite ...)");
    return 2;
  }
  ReportData D;
  std::string E;
  if (!checkOutputs({Cmd.Html}, Cmd.Dbs, E) || !loadReport(Cmd.Dbs, D, E)) {
    Diags.error(E);
    return 2;
  }
  if (!Cmd.Html.empty()) {
    std::ostringstream Page;
    printHtmlReport(D, Page);
    if (!writeOutputFile(Cmd.Html, Page.str(), E)) {
      Diags.error(E);
      return 3;
    }
    // On stderr: stdout may be the text summary, redirected.
    Err << "incant report: wrote " << Cmd.Html << " (" << D.Rows.size()
        << " result(s))\n";
  }
  if (Cmd.Text || Cmd.Html.empty())
    printTextReport(D, Cmd.Limit, Out);
  return 0;
}

} // namespace incant::campaign
