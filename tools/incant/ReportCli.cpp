//===- ReportCli.cpp - `incant report` ------------------------------------===//
//
// What campaign databases show: a text summary and a self-contained HTML
// page. Exit codes: 0 done, 2 usage error, a missing or foreign database or
// an unwritable output.
//
//===----------------------------------------------------------------------===//
// Tool part: incantCampaign
#include "Options.h"
#include "Subcommand.h"
#include "incant/Commands/ReportCommand.h"

#include <iostream>

using namespace incant;

static void addReport(CLI::App &App, int &Rc) {
  static campaign::ReportCommand Cmd;
  CLI::App *Sub = App.add_subcommand(
      "report", "Summarise campaign databases: weak rates, model verdicts, "
                "outcomes a model forbids but a chip showed");
  Sub->add_option("--db", Cmd.Dbs, "Campaign databases")->required();
  Sub->add_option("--html", Cmd.Html,
                  "Write a self-contained HTML report to this file");
  Sub->add_flag("--text", Cmd.Text,
                "Print the text summary (the default without --html)");
  tool::addNumber(Sub, "--limit", Cmd.Limit, IntRange{0, 1'000'000},
                  "Most entries per model in each list of the text summary "
                  "(0: all)")
      ->capture_default_str();
  Sub->callback([&Rc] { Rc = campaign::runReport(Cmd, std::cout, std::cerr); });
}

static incant::tool::Subcommand Report(52, addReport);
