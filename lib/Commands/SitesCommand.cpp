//===- SitesCommand.cpp - `incant sites` ----------------------------------===//
#include "incant/Commands/SitesCommand.h"
#include "incant/Support/CommandContext.h"
#include "incant/Intercept/ImageScan.h"

#include "incant/IR/Summary.h"
#include "incant/Support/InputFile.h"
#include "incant/Support/Json.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace incant::intercept {

namespace {

std::string shortPath(const std::string &P) {
  return P.empty() ? "?" : std::filesystem::path(P).filename().string();
}

std::string withDemangled(const std::string &Name) {
  std::string D = ir::demangle(Name);
  return D.empty() ? Name : fmt::format("{} ({})", Name, D);
}

} // namespace

int runSites(const SitesCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  CommandContext Ctx(Out, Err);
  std::string Bytes, Error;
  if (!readInputFile(Cmd.File, Bytes, Error))
    return Ctx.fail(ErrorKind::Input,
                    fmt::format("cannot read {}: {}", Cmd.File, Error));
  std::vector<FoundUnit> Units = findUnits(Bytes);
  if (Units.empty())
    return Ctx.fail(ErrorKind::Input,
                    fmt::format("{} was not built through incant (no "
                                "instrumented module in it; a compressed "
                                "fatbinary hides them: build with `eval "
                                "\"$(incant build-env)\"`, which passes "
                                "--no-compress)",
                                Cmd.File));
  if (Cmd.Json) {
    nlohmann::json J = nlohmann::json::array();
    for (const FoundUnit &U : Units)
      J.push_back(U.Manifest ? nlohmann::json::parse(manifestToJson(*U.Manifest))
                             : nlohmann::json{{"unit", U.Id}, {"error", U.Error}});
    Out << dumpJson(J) << "\n";
    return 0;
  }
  fmt::print(Out, "{}: {} instrumented module{}\n", Cmd.File, Units.size(),
             Units.size() == 1 ? "" : "s");
  for (const FoundUnit &U : Units) {
    if (!U.Manifest) {
      fmt::print(Out, "\nunit {}: no manifest ({})\n", U.Id, U.Error);
      continue;
    }
    const UnitManifest &M = *U.Manifest;
    fmt::print(Out, "\nunit {} ({}, {}): passes {}\n", M.Id, M.Target,
               shortPath(M.Source), fmt::join(M.Passes, ", "));
    for (const FunctionRecord &F : M.Functions) {
      std::string What = F.Remapped ? "thread ids remapped"
                         : !F.LeftAlone.empty()
                             ? "thread ids left alone: " + F.LeftAlone
                             : "reads no thread ids";
      if (F.CallsRemapped)
        What += "; calls device functions that read them";
      fmt::print(Out, "  {} {}: {}\n", F.IsEntry ? "kernel" : "function",
                 withDemangled(F.Name), What);
    }
    if (M.Sites.empty())
      continue;
    fmt::print(Out, "  {:>5}  {:<10} {:<16} {:<24} {}\n", "site", "pass",
               "kind", "source", "function");
    for (const Site &S : M.Sites) {
      std::string Src =
          S.Line ? fmt::format("{}:{}:{}", shortPath(S.File), S.Line, S.Col)
                 : fmt::format("ptx:{}", S.PtxLine);
      fmt::print(Out, "  {:>5}  {:<10} {:<16} {:<24} {}\n", S.Id, S.Pass,
                 S.Kind, Src, S.Function);
    }
    for (const std::string &N : M.Notes)
      fmt::print(Out, "  note: {}\n", N);
  }
  return 0;
}

} // namespace incant::intercept
