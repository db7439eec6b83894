//===- GenCommand.cpp - `incant gen`: write a family of tests -------------===//
#include "incant/Commands/GenCommand.h"
#include "incant/Support/OutputFile.h"
#include "incant/Support/Progress.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

using namespace incant;
using namespace incant::gen;

namespace fs = std::filesystem;

namespace {

/// What is in \p P: its bytes, or nullopt if there is no such file.
std::optional<std::string> existing(const fs::path &P) {
  std::error_code EC;
  if (!fs::exists(P, EC))
    return std::nullopt;
  std::ifstream In(P, std::ios::binary);
  std::ostringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

} // namespace

int gen::runGen(const GenCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  if (Cmd.Opts.Families.empty()) {
    Diags.error("nothing to generate: give --cycle, --relax, --shapes or "
                "--preset");
    return 2;
  }
  if (Cmd.OutDir.empty() && !Cmd.List) {
    Diags.error("give an output folder with -o DIR (or --list)");
    return 2;
  }
  if (!Cmd.List) {
    std::error_code EC;
    fs::create_directories(Cmd.OutDir, EC);
    if (EC || !fs::is_directory(Cmd.OutDir, EC)) {
      Diags.error(fmt::format("cannot create the folder '{}': {}", Cmd.OutDir,
                              EC ? EC.message() : "a file is in the way"));
      return 2;
    }
  }
  uint64_t Written = 0, Unchanged = 0;
  ProgressLine Progress(Err);
  // Each test is written as soon as it is built. A file that holds a
  // different test is never replaced silently: the run stops there.
  auto Sink = [&](GeneratedTest &&T) {
    if (Cmd.List) {
      Out << T.Name << '\t' << T.CycleText << '\n';
      return true;
    }
    fs::path P = fs::path(Cmd.OutDir) / (T.Name + ".litmus");
    std::optional<std::string> Old = existing(P);
    if (Old && *Old == T.Text) {
      ++Unchanged;
      return true;
    }
    if (Old && !Cmd.Force) {
      Diags.error(fmt::format("'{}' exists and holds another test; nothing "
                              "was overwritten (give --force to replace it, "
                              "or another folder)",
                              P.string()));
      return false;
    }
    std::string Error;
    if (!writeOutputFile(P.string(), T.Text, Error)) {
      Diags.error(Error);
      return false;
    }
    ++Written;
    return true;
  };
  auto Show = [&](const GenStats &S) {
    Progress.update([&] {
      return fmt::format("gen: {}/{} cycles, {} tests", S.Cycles, S.Total,
                         S.Tests);
    });
  };
  std::optional<GenStats> Stats = generate(Cmd.Opts, Diags, Sink, Show);
  Progress.clear();
  if (!Stats) {
    if (!Cmd.List && Written)
      Err << fmt::format("gen: {} tests were written to {} before the "
                         "error\n",
                         Written, Cmd.OutDir);
    return 2;
  }
  if (Stats->Tests == 0) {
    Diags.error(fmt::format("the options give no test ({} cycles, all "
                            "impossible or isomorphic)",
                            Stats->Cycles));
    return 2;
  }
  std::string Where;
  if (!Cmd.List)
    Where = Unchanged ? fmt::format(" in {}: {} written, {} already there",
                                    Cmd.OutDir, Written, Unchanged)
                      : " written to " + Cmd.OutDir;
  if (Stats->Incomplete) {
    Diags.warning(nullptr, {},
                  "the family is incomplete: " + Stats->IncompleteReason +
                      "; raise --timeout (0: no limit)");
    Where += " (incomplete)";
  }
  (Cmd.List ? Err : Out) << fmt::format(
      "{} tests{} ({} cycles: {} impossible, {} isomorphic to an earlier "
      "test)\n",
      Stats->Tests, Where, Stats->Cycles, Stats->Impossible,
      Stats->Isomorphic);
  return 0;
}
