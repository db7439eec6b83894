//===- RaceCommand.cpp - `incant race`: data races and divergence ---------===//
#include "incant/Race/RaceCommand.h"
#include "incant/IR/FunctionIR.h"
#include "incant/PTX/Module.h"
#include "incant/Race/Race.h"
#include "incant/Support/Diagnostic.h"
#include "incant/Support/Process.h"
#include "incant/Support/PtxCompiler.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <map>
#include <set>
#include <cstdlib>
#include <ostream>

namespace incant::race {

namespace {

/// An integer option value: decimal or 0x hex, optionally negative.
std::optional<int64_t> parseInt(const std::string &S) {
  if (S.empty())
    return std::nullopt;
  char *End = nullptr;
  errno = 0;
  long long V = std::strtoll(S.c_str(), &End, 0);
  if (errno || End != S.c_str() + S.size())
    return std::nullopt;
  return V;
}

/// "X[,Y,Z]" with positive integers; missing dimensions are 1.
std::optional<std::array<int64_t, 3>> parseDim(const std::string &S) {
  std::array<int64_t, 3> D = {1, 1, 1};
  size_t Start = 0;
  for (unsigned I = 0; I < 3; ++I) {
    size_t Comma = S.find(',', Start);
    std::string Part = S.substr(Start, Comma == std::string::npos
                                           ? std::string::npos
                                           : Comma - Start);
    std::optional<int64_t> V = parseInt(Part);
    if (!V || *V < 1)
      return std::nullopt;
    D[I] = *V;
    if (Comma == std::string::npos)
      return D;
    Start = Comma + 1;
  }
  return std::nullopt; // a fourth dimension
}

bool checkDims(const std::string &Opt, const std::string &Text,
               const std::array<int64_t, 3> &D, bool Block,
               DiagnosticEngine &Diags) {
  static const int64_t MaxBlock[] = {1024, 1024, 64};
  static const int64_t MaxGrid[] = {2147483647, 65535, 65535};
  for (unsigned I = 0; I < 3; ++I)
    if (D[I] > (Block ? MaxBlock : MaxGrid)[I]) {
      Diags.error(fmt::format("{} {}: dimension {} is {}, more than CUDA "
                              "allows ({})",
                              Opt, Text, "xyz"[I], D[I],
                              (Block ? MaxBlock : MaxGrid)[I]));
      return false;
    }
  if (Block && D[0] * D[1] * D[2] > 1024) {
    Diags.error(fmt::format("{} {}: {} threads per block, more than CUDA "
                            "allows (1024)",
                            Opt, Text, D[0] * D[1] * D[2]));
    return false;
  }
  return true;
}

/// clang 14's NVPTX output with -gline-tables-only is not quite PTX: it
/// puts debug labels (`Ltmp3:`) inside call operand lists and writes
/// `.file 1 "dir" "name"`. Drops those labels (nothing branches to them)
/// and joins the two strings, so that OpenCL C kernels get source lines.
std::string fixClangLineInfo(const std::string &Ptx) {
  std::string Out;
  size_t Pos = 0;
  while (Pos < Ptx.size()) {
    size_t End = Ptx.find('\n', Pos);
    if (End == std::string::npos)
      End = Ptx.size();
    std::string Line = Ptx.substr(Pos, End - Pos);
    Pos = End + 1;
    bool Tmp = Line.size() > 5 && Line.compare(0, 4, "Ltmp") == 0 &&
               Line.back() == ':' &&
               Line.find_first_not_of("0123456789", 4) == Line.size() - 1;
    if (Tmp)
      continue;
    size_t F = Line.find(".file");
    size_t Q1 = Line.find('"');
    size_t Q2 = Q1 == std::string::npos ? Q1 : Line.find('"', Q1 + 1);
    size_t Q3 = Q2 == std::string::npos ? Q2 : Line.find('"', Q2 + 1);
    size_t Q4 = Q3 == std::string::npos ? Q3 : Line.find('"', Q3 + 1);
    if (F != std::string::npos && F < Q1 && Q4 != std::string::npos &&
        Line.find_first_not_of(" \t", Q2 + 1) == Q3) {
      std::string Dir = Line.substr(Q1 + 1, Q2 - Q1 - 1);
      std::string Name = Line.substr(Q3 + 1, Q4 - Q3 - 1);
      Line = Line.substr(0, Q1) + "\"" +
             (Name.empty() || Name[0] == '/' ? Name : Dir + "/" + Name) + "\"" +
             Line.substr(Q4 + 1);
    }
    Out += Line;
    Out += '\n';
  }
  return Out;
}

/// file:line, read/write and space of an access: how accesses of two
/// builds of one source are matched.
std::string accessKey(const Access &A) {
  const ir::SourceFrame *Fr = A.Loc.userFrame();
  return fmt::format("{}:{}:{}{}", Fr ? Fr->File : "", Fr ? Fr->Line : 0,
                     A.Reads ? "r" : "", A.Writes ? "w" : "");
}

/// Adds to \p R the races that \p RU (the unoptimised build) finds between
/// accesses of which at least one is missing from the optimised build: the
/// optimiser removed it (a store to memory nothing reads, a copy of an
/// undefined value), and with it a race of the source. Only for kernels in
/// which the optimised build, analysed more precisely, shows no race or
/// divergence.
void addUnoptimisedRaces(ModuleReport &R, const ModuleReport &RU) {
  for (KernelReport &K : R.Kernels) {
    K.Build = "optimized";
    if (K.Races || K.Divergent)
      continue;
    const KernelReport *KU = nullptr;
    for (const KernelReport &C : RU.Kernels)
      if (C.Name == K.Name)
        KU = &C;
    if (!KU)
      continue;
    std::set<std::string> Present;
    for (const Access &A : K.Accesses)
      Present.insert(accessKey(A));
    std::map<unsigned, unsigned> Added; // index in KU -> index in K
    auto Take = [&](unsigned I) {
      auto [It, New] = Added.emplace(I, static_cast<unsigned>(K.Accesses.size()));
      if (New) {
        Access A = KU->Accesses[I];
        A.Build = "unoptimized";
        K.Accesses.push_back(std::move(A));
      }
      return It->second;
    };
    unsigned Found = 0;
    for (const PairResult &P : KU->Pairs) {
      if (P.V != Verdict::Race)
        continue;
      if (Present.count(accessKey(KU->Accesses[P.First])) &&
          Present.count(accessKey(KU->Accesses[P.Second])))
        continue;
      PairResult Q = P;
      Q.First = Take(P.First);
      Q.Second = Take(P.Second);
      K.Pairs.push_back(std::move(Q));
      ++K.Races;
      ++Found;
    }
    if (Found)
      K.Notes.push_back(fmt::format(
          "{} race{} found in nvcc's unoptimised build (-Xcicc -O0) between "
          "accesses the optimised code no longer makes (their positions are "
          "in that build)",
          Found, Found == 1 ? "" : "s"));
  }
}

} // namespace

int runRace(const RaceCommand &Cmd, std::ostream &Out, std::ostream &Err) {
  DiagnosticEngine Diags(&Err);
  int Failed = 0;
  Options O;
  O.Kernel = Cmd.Kernel;
  O.TimeoutMs = Cmd.TimeoutMs;
  if (!Cmd.BlockDim.empty()) {
    std::optional<std::array<int64_t, 3>> D = parseDim(Cmd.BlockDim);
    if (!D) {
      Diags.error(fmt::format("--block-dim: expected X[,Y,Z] with positive "
                              "integers, got '{}'",
                              Cmd.BlockDim));
      return 2;
    }
    if (!checkDims("--block-dim", Cmd.BlockDim, *D, true, Diags))
      return 2;
    O.Launch.setBlock(*D);
  }
  if (!Cmd.GridDim.empty()) {
    std::optional<std::array<int64_t, 3>> D = parseDim(Cmd.GridDim);
    if (!D) {
      Diags.error(fmt::format("--grid-dim: expected X[,Y,Z] with positive "
                              "integers, got '{}'",
                              Cmd.GridDim));
      return 2;
    }
    if (!checkDims("--grid-dim", Cmd.GridDim, *D, false, Diags))
      return 2;
    O.Launch.setGrid(*D);
  }
  // CLI11 keeps the '=' of a short option's "-X=ARG" in the value; no
  // compiler argument starts with one.
  for (const std::string &A : Cmd.CompilerArgs)
    if (!A.empty() && A[0] == '=') {
      Diags.error(fmt::format("-X: '{}' starts with '='; write -X {} or "
                              "--compiler-arg={}",
                              A, A.substr(1), A.substr(1)));
      return 2;
    }
  for (const std::string &P : Cmd.Params) {
    size_t Eq = P.find('=');
    std::optional<int64_t> V =
        Eq == std::string::npos ? std::nullopt : parseInt(P.substr(Eq + 1));
    if (Eq == std::string::npos || Eq == 0 || !V) {
      Diags.error(fmt::format("--param: expected NAME=INTEGER (NAME a "
                              "parameter's PTX name or position), got '{}'",
                              P));
      return 2;
    }
    O.Launch.Params[P.substr(0, Eq)] = *V;
  }

  // The module(s) to check: the PTX as given, or what the compiler makes
  // of the source: for CUDA, nvcc's optimised build and, unless
  // --optimized, its unoptimised one (-Xcicc -O0), which still has every
  // access the source makes.
  KernelLanguage Lang = kernelLanguageOf(Cmd.File);
  auto Compile = [&](bool Unoptimised) -> std::shared_ptr<SourceFile> {
    PtxCompileOptions CO;
    CO.Arch = Cmd.Arch;
    if (Unoptimised)
      CO.ExtraArgs = {"-Xcicc", "-O0"};
    if (Lang == KernelLanguage::OpenCL)
      CO.ExtraArgs = {"-gline-tables-only"};
    CO.ExtraArgs.insert(CO.ExtraArgs.end(), Cmd.CompilerArgs.begin(),
                        Cmd.CompilerArgs.end());
    PtxCompileResult R = compileToPtx(Cmd.File, CO);
    if (!R.Argv.empty() && Cmd.Verbose)
      Err << "compiling with " << R.Compiler << ": " << shellQuote(R.Argv)
          << "\n";
    if (!R.ok()) {
      Err << R.Log;
      Diags.error(R.Message);
      Failed = exitCodeOf(R.errorKind());
      return nullptr;
    }
    if (Lang == KernelLanguage::OpenCL)
      R.Ptx = fixClangLineInfo(R.Ptx);
    return std::make_shared<SourceFile>(R.PtxName, std::move(R.Ptx));
  };
  std::shared_ptr<SourceFile> File, Unopt;
  if (Lang != KernelLanguage::Ptx) {
    File = Compile(false);
    if (!File)
      return Failed;
    if (Lang == KernelLanguage::Cuda && !Cmd.Optimized) {
      Unopt = Compile(true);
      if (!Unopt)
        return Failed;
    }
  } else {
    std::string Error;
    File = SourceFile::read(Cmd.File, Error);
    if (!File) {
      Diags.error(Cmd.File + ": " + Error);
      return 2;
    }
  }
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  if (!M)
    return 2;
  std::optional<ptx::Module> MU;
  if (Unopt) {
    MU = ptx::parseModule(Unopt, Diags);
    if (!MU)
      return 2;
  }

  // Parameters named on the command line must exist in the kernels checked.
  for (const auto &[Name, V] : O.Launch.Params) {
    bool Known = false;
    std::string Names;
    for (const ptx::ModuleItem &I : M->Items) {
      const auto *Fn = std::get_if<ptx::Function>(&I);
      if (!Fn || !Fn->IsEntry)
        continue;
      for (unsigned K = 0; K < Fn->Params.size(); ++K) {
        if (Fn->Params[K].Name == Name || std::to_string(K) == Name)
          Known = true;
        Names += (Names.empty() ? "" : ", ") + Fn->Params[K].Name;
      }
    }
    if (!Known) {
      Diags.error(fmt::format("--param {}: no kernel has that parameter (by "
                              "PTX name or position){}",
                              Name, Names.empty() ? "" : "; parameters: " + Names));
      return 2;
    }
  }

  ModuleReport R = checkModule(*M, O);
  if (!R.Error.empty()) {
    Diags.error(fmt::format("{}: {}", Cmd.File, R.Error));
    return 2;
  }
  R.File = Cmd.File;
  if (MU)
    addUnoptimisedRaces(R, checkModule(*MU, O));
  if (Cmd.Json)
    Out << reportToJson(R).dump() << "\n";
  else
    printReport(R, Out, Cmd.Verbose);

  bool Found = false, Open = false;
  for (const KernelReport &K : R.Kernels) {
    Found |= K.Races || K.Divergent;
    Open |= K.Unknown || K.UnknownBarriers;
  }
  if (Found || (Cmd.Strict && Open))
    return 1;
  return 0;
}

} // namespace incant::race
