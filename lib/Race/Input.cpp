//===- Input.cpp - Reading a kernel file and launch options ---------------===//
#include "incant/Race/Input.h"
#include "incant/Support/Process.h"
#include "incant/Support/PtxCompiler.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <string_view>

namespace incant::race {

namespace {

/// An integer option value: decimal or 0x hex, optionally negative. A
/// leading 0 does not make it octal: `010` is ten, as a user means it.
std::optional<int64_t> parseInt(const std::string &S) {
  std::string_view T = S;
  bool Neg = !T.empty() && T[0] == '-';
  if (Neg)
    T.remove_prefix(1);
  int Base = 10;
  if (T.size() > 2 && T[0] == '0' && (T[1] == 'x' || T[1] == 'X')) {
    Base = 16;
    T.remove_prefix(2);
  }
  uint64_t Mag = 0;
  auto [Ptr, Ec] = std::from_chars(T.data(), T.data() + T.size(), Mag, Base);
  if (T.empty() || Ec != std::errc() || Ptr != T.data() + T.size())
    return std::nullopt;
  uint64_t Max = uint64_t(INT64_MAX) + (Neg ? 1 : 0);
  if (Mag > Max)
    return std::nullopt;
  return Neg ? int64_t(0 - Mag) : int64_t(Mag);
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

} // namespace

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

bool parseLaunch(const std::string &BlockDim, const std::string &GridDim,
                 const std::vector<std::string> &Params, LaunchConfig &L,
                 DiagnosticEngine &Diags) {
  if (!BlockDim.empty()) {
    std::optional<std::array<int64_t, 3>> D = parseDim(BlockDim);
    if (!D) {
      Diags.error(fmt::format("--block-dim: expected X[,Y,Z] with positive "
                              "integers, got '{}'",
                              BlockDim));
      return false;
    }
    if (!checkDims("--block-dim", BlockDim, *D, true, Diags))
      return false;
    L.setBlock(*D);
  }
  if (!GridDim.empty()) {
    std::optional<std::array<int64_t, 3>> D = parseDim(GridDim);
    if (!D) {
      Diags.error(fmt::format("--grid-dim: expected X[,Y,Z] with positive "
                              "integers, got '{}'",
                              GridDim));
      return false;
    }
    if (!checkDims("--grid-dim", GridDim, *D, false, Diags))
      return false;
    L.setGrid(*D);
  }
  for (const std::string &P : Params) {
    size_t Eq = P.find('=');
    std::optional<int64_t> V =
        Eq == std::string::npos ? std::nullopt : parseInt(P.substr(Eq + 1));
    if (Eq == std::string::npos || Eq == 0 || !V) {
      Diags.error(fmt::format("--param: expected NAME=INTEGER (NAME a "
                              "parameter's PTX name or position), got '{}'",
                              P));
      return false;
    }
    auto [It, New] = L.Params.emplace(P.substr(0, Eq), *V);
    if (!New && It->second != *V) {
      Diags.error(fmt::format("--param {}: given twice, as {} and {}",
                              It->first, It->second, *V));
      return false;
    }
  }
  return true;
}

bool checkCompilerArgs(const std::vector<std::string> &Args,
                       DiagnosticEngine &Diags) {
  for (const std::string &A : Args)
    if (!A.empty() && A[0] == '=') {
      Diags.error(fmt::format("-X: '{}' starts with '='; write -X {} or "
                              "--compiler-arg={}",
                              A, A.substr(1), A.substr(1)));
      return false;
    }
  return true;
}

bool checkParams(const ptx::Module &M, const LaunchConfig &L,
                 DiagnosticEngine &Diags) {
  for (const auto &[Name, V] : L.Params) {
    bool Known = false;
    std::string Names;
    for (const ptx::ModuleItem &I : M.Items) {
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
      return false;
    }
  }
  // One parameter given by its name and by its position: the values agree.
  for (const ptx::ModuleItem &I : M.Items) {
    const auto *Fn = std::get_if<ptx::Function>(&I);
    if (!Fn || !Fn->IsEntry)
      continue;
    for (unsigned K = 0; K < Fn->Params.size(); ++K) {
      auto ByName = L.Params.find(Fn->Params[K].Name);
      auto ByPos = L.Params.find(std::to_string(K));
      if (ByName != L.Params.end() && ByPos != L.Params.end() &&
          ByName->second != ByPos->second) {
        Diags.error(fmt::format("--param {}={} and --param {}={} name the "
                                "same parameter of {}",
                                ByName->first, ByName->second, ByPos->first,
                                ByPos->second, Fn->Name));
        return false;
      }
    }
  }
  return true;
}

Expected<std::shared_ptr<SourceFile>> kernelPtx(const std::string &Path,
                                                const CompileRequest &Req,
                                                DiagnosticEngine &Diags,
                                                std::ostream &Err) {
  KernelLanguage Lang = kernelLanguageOf(Path);
  if (Lang == KernelLanguage::Ptx) {
    std::string Error;
    std::shared_ptr<SourceFile> File = SourceFile::read(Path, Error);
    if (!File) {
      Diags.error(Path + ": " + Error);
      return ErrorKind::Input;
    }
    return File;
  }
  PtxCompileOptions CO;
  CO.Arch = Req.Arch;
  if (Req.Unoptimised)
    CO.ExtraArgs = {"-Xcicc", "-O0"};
  // Line directives only: clang 14's NVPTX printer crashes writing the
  // debug sections of some kernels (-gline-tables-only), and incant reads
  // only the .loc lines, which both options write alike.
  if (Lang == KernelLanguage::OpenCL)
    CO.ExtraArgs = {"-gline-directives-only"};
  CO.ExtraArgs.insert(CO.ExtraArgs.end(), Req.Args.begin(), Req.Args.end());
  PtxCompileResult R = compileToPtx(Path, CO);
  if (!R.Argv.empty() && Req.Verbose)
    Err << "compiling with " << R.Compiler << ": " << shellQuote(R.Argv)
        << "\n";
  if (!R.ok()) {
    Err << R.Log;
    Diags.error(R.Message);
    return R.errorKind();
  }
  if (Lang == KernelLanguage::OpenCL)
    R.Ptx = fixClangLineInfo(R.Ptx);
  return std::make_shared<SourceFile>(R.PtxName, std::move(R.Ptx));
}

} // namespace incant::race
