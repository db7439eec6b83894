//===- Command.cpp - `incant gen`: write a family of tests ----------------===//
#include "incant/Gen/Generate.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>

using namespace incant;
using namespace incant::gen;

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
  GenStats Stats;
  std::optional<std::vector<GeneratedTest>> Tests =
      generate(Cmd.Opts, Diags, &Stats);
  if (!Tests)
    return 2;
  if (Tests->empty()) {
    Diags.error(fmt::format("the options give no test ({} cycles, all "
                            "impossible or isomorphic)",
                            Stats.Cycles));
    return 2;
  }
  if (Cmd.List) {
    for (const GeneratedTest &T : *Tests)
      Out << T.Name << '\t' << T.CycleText << '\n';
  } else {
    namespace fs = std::filesystem;
    std::error_code EC;
    fs::create_directories(Cmd.OutDir, EC);
    if (EC) {
      Diags.error(fmt::format("cannot create '{}': {}", Cmd.OutDir,
                              EC.message()));
      return 2;
    }
    for (const GeneratedTest &T : *Tests) {
      fs::path P = fs::path(Cmd.OutDir) / (T.Name + ".litmus");
      std::ofstream F(P, std::ios::binary);
      F << T.Text;
      F.close();
      if (!F) {
        Diags.error(fmt::format("cannot write '{}'", P.string()));
        return 2;
      }
    }
  }
  (Cmd.List ? Err : Out) << fmt::format(
      "{} tests{} ({} cycles: {} impossible, {} isomorphic to an earlier "
      "test)\n",
      Tests->size(), Cmd.List ? "" : " written to " + Cmd.OutDir,
      Stats.Cycles, Stats.Impossible, Stats.Isomorphic);
  return 0;
}
