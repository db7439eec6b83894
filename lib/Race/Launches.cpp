//===- Launches.cpp - The host code's launches as race options ------------===//
#include "incant/IR/Summary.h"
#include "incant/Race/Input.h"
#include "incant/Source/HostLaunches.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace incant::race {

namespace {

/// CUDA's limits on a launch (the programming guide's table of technical
/// specifications): a value outside them makes the launch fail, so it
/// says nothing about the launches that run.
bool validBlock(const source::Dims &B) {
  static constexpr int64_t Max[3] = {1024, 1024, 64};
  int64_t Product = 1;
  for (unsigned D = 0; D < 3; ++D) {
    if (!B[D])
      continue;
    if (*B[D] < 1 || *B[D] > Max[D])
      return false;
    Product *= *B[D];
  }
  return Product <= 1024;
}

bool validGrid(const source::Dims &G) {
  static constexpr int64_t Max[3] = {2147483647, 65535, 65535};
  for (unsigned D = 0; D < 3; ++D)
    if (G[D] && (*G[D] < 1 || *G[D] > Max[D]))
      return false;
  return true;
}

std::string dims(const std::array<std::optional<int64_t>, 3> &D) {
  auto One = [](const std::optional<int64_t> &V) {
    return V ? std::to_string(*V) : std::string("any");
  };
  return fmt::format("({},{},{})", One(D[0]), One(D[1]), One(D[2]));
}

bool givenParam(const LaunchConfig &L, const ptx::Function &Fn, unsigned I) {
  return L.Params.count(Fn.Params[I].Name) || L.Params.count(std::to_string(I));
}

/// The launch \p H of \p Fn with \p Given's values winning.
/// \p Where is the launch's position.
KnownLaunch known(const source::HostLaunch &H, const ptx::Function &Fn,
                  const LaunchConfig &Given, const std::string &File,
                  std::string &Where) {
  KnownLaunch K;
  K.Launch = Given;
  bool BlockOk = validBlock(H.Block), GridOk = validGrid(H.Grid);
  for (unsigned D = 0; D < 3; ++D) {
    if (!K.Launch.Block[D] && BlockOk)
      K.Launch.Block[D] = H.Block[D];
    if (!K.Launch.Grid[D] && GridOk)
      K.Launch.Grid[D] = H.Grid[D];
  }
  std::vector<std::string> Values;
  bool ArgsFit = H.Args.size() == Fn.Params.size();
  for (unsigned I = 0; ArgsFit && I < H.Args.size(); ++I) {
    if (!H.Args[I] || givenParam(Given, Fn, I))
      continue;
    K.Launch.Params[Fn.Params[I].Name] = *H.Args[I];
    std::string Name = I < H.ParamNames.size() && !H.ParamNames[I].empty()
                           ? H.ParamNames[I]
                           : Fn.Params[I].Name;
    Values.push_back(fmt::format("{} = {}", Name, *H.Args[I]));
  }
  Where = fmt::format(
      "{}:{}:{} ({})", std::filesystem::path(File).filename().string(), H.Line,
      H.Column, H.How == "<<<>>>" ? H.Spelling + "<<<...>>>" : H.How);
  K.Description = fmt::format("{}: gridDim {}, blockDim {}", Where,
                              dims(K.Launch.Grid), dims(K.Launch.Block));
  if (H.Cluster[0] || H.Cluster[1] || H.Cluster[2])
    K.Description += ", cluster " + dims(H.Cluster);
  if (H.Cooperative)
    K.Description += ", cooperative";
  for (const std::string &V : Values)
    K.Description += ", " + V;
  if (!BlockOk || !GridOk)
    K.Description += fmt::format(
        " (its {} is outside CUDA's limits: not used)",
        !BlockOk ? "block" : "grid");
  if (!ArgsFit)
    K.Description += fmt::format(" ({} arguments for {} parameters: not used)",
                                 H.Args.size(), Fn.Params.size());
  return K;
}

/// \p Mangled with each anonymous namespace spelled as clang spells it
/// (`12_GLOBAL__N_1`): nvcc names one after the file
/// (`46_GLOBAL__N__ec5de1b9_13_ci_kernels_cu_2293c141`), so that the host
/// code's name of a kernel there (libclang's) and its .entry's differ.
std::string anonymousAsClang(const std::string &Mangled) {
  static const std::string Anon = "_GLOBAL__N_";
  std::string Out;
  size_t At = 0;
  for (size_t P; (P = Mangled.find(Anon, At)) != std::string::npos;) {
    size_t Digits = P;
    while (Digits > At && std::isdigit(static_cast<unsigned char>(Mangled[Digits - 1])))
      --Digits;
    size_t Length = Digits < P ? std::stoul(Mangled.substr(Digits, P - Digits)) : 0;
    if (Digits == P || P + Length > Mangled.size() || Length < Anon.size()) {
      Out += Mangled.substr(At, P + Anon.size() - At);
      At = P + Anon.size();
      continue;
    }
    Out += Mangled.substr(At, Digits - At) + "12_GLOBAL__N_1";
    At = P + Length;
  }
  return Out + Mangled.substr(At);
}

bool sameLaunch(const LaunchConfig &A, const LaunchConfig &B) {
  return A.Block == B.Block && A.Grid == B.Grid && A.Params == B.Params &&
         A.BlockIdx == B.BlockIdx && A.Unsatisfiable == B.Unsatisfiable;
}

/// The value of \p L (a LaunchConfig, const or not) that axiom \p A fixes.
template <typename Config>
auto &axiomField(Config &L, const source::Axiom &A) {
  return A.Builtin == "blockDim" ? L.Block[A.Axis]
         : A.Builtin == "gridDim" ? L.Grid[A.Axis]
                                  : L.BlockIdx[A.Axis];
}

/// The file's `__axiom`s in each launch where the command line and the
/// launch leave the value open; true when one was used.
bool applyAxioms(const source::HostCode &H, const LaunchConfig &Given,
                 const std::string &Name, std::vector<KnownLaunch> &Ls) {
  bool Used = false;
  for (const source::Axiom &A : H.Axioms)
    for (KnownLaunch &L : Ls) {
      std::optional<int64_t> &Slot = axiomField(L.Launch, A);
      const std::optional<int64_t> &Own = axiomField(Given, A);
      std::string Axiom = fmt::format("{}.{} == {} (__axiom at {}:{})", A.Builtin,
                                      "xyz"[A.Axis], A.Value, Name, A.Line);
      const std::string Sep = L.Description.empty() ? "" : ", ";
      if (Own || Slot) {
        // The command line's or the launch's own value is what runs.
        if ((Own ? *Own : *Slot) != A.Value) {
          L.Description += fmt::format("{}{} is not this launch's: checked "
                                       "without it",
                                       Sep, Axiom);
          Used = true;
        }
        continue;
      }
      // A value no launch can have: the axiom is assumed all the same (as
      // GPUVerify does), and every pair then holds only vacuously.
      const std::optional<int64_t> &Grid = L.Launch.Grid[A.Axis];
      bool Possible = A.Builtin == "blockIdx"
                          ? A.Value >= 0 && (!Grid || A.Value < *Grid)
                          : A.Value >= 1;
      if (!Possible && L.Launch.Unsatisfiable.empty())
        L.Launch.Unsatisfiable =
            Grid && A.Builtin == "blockIdx"
                ? fmt::format("{} with gridDim.{} = {}", Axiom, "xyz"[A.Axis], *Grid)
                : Axiom;
      Slot = A.Value;
      L.Description += fmt::format("{}{}.{} = {} (__axiom at {}:{}{})", Sep,
                                   A.Builtin, "xyz"[A.Axis], A.Value, Name,
                                   A.Line, Possible ? "" : ": no launch can have it");
      Used = true;
    }
  // One incant cannot read only widens what is checked; the report says so.
  for (const auto &[Text, Line] : H.AxiomsNotRead)
    for (KnownLaunch &L : Ls) {
      L.Description += fmt::format("{}__axiom({}) at {}:{} not read (not "
                                   "blockIdx, blockDim or gridDim equal to an "
                                   "integer): checked without it",
                                   L.Description.empty() ? "" : ", ", Text,
                                   Name, Line);
      Used = true;
    }
  return Used;
}

/// The source's identifier of a PTX function: `fill` of `fill(int*)`,
/// `reduce4` of `void reduce4<int, 256u>(int*, int*, unsigned int)`, `k` of
/// `ns::k`. `(anonymous namespace)::k` gives `k`.
std::string sourceIdentifier(const std::string &PtxName) {
  std::string Base = ir::qualifiedKernelName(PtxName);
  Base = Base.substr(0, Base.find('<'));
  if (size_t Colons = Base.rfind("::"); Colons != std::string::npos)
    Base = Base.substr(Colons + 2);
  return Base.empty() ? PtxName : Base;
}

/// `__requires(f == g | f == h)` on kernel \p Fn's parameters: each
/// function-pointer parameter's functions (those of \p M with a body that
/// the names denote, every overload of a name) into \p T.
void callTargets(const source::HostCode &H, const ptx::Module &M,
                 const ptx::Function &Fn, const std::string &Base,
                 const std::string &File, Options &T) {
  for (const source::Requirement &Q : H.Requires) {
    if (Q.Functions.empty() || Q.Kernel != Base ||
        Q.Param >= Fn.Params.size())
      continue;
    std::vector<std::string> Ptx;
    for (const ptx::ModuleItem &I : M.Items) {
      const auto *G = std::get_if<ptx::Function>(&I);
      if (G && G->HasBody && !G->IsEntry &&
          std::find(Q.Functions.begin(), Q.Functions.end(),
                    sourceIdentifier(G->Name)) != Q.Functions.end())
        Ptx.push_back(G->Name);
    }
    if (Ptx.empty()) {
      T.CallTargetsAbsent = true;
      continue;
    }
    T.CallTargets[Fn.Name][Fn.Params[Q.Param].Name] = Ptx;
    std::string Names;
    for (const std::string &G : Q.Functions)
      Names += (Names.empty() ? "" : " or ") + G;
    T.CallTargetNotes[Fn.Name].push_back(fmt::format(
        "{} points to {} (__requires at {}:{}): a call through it calls "
        "that function",
        Q.Name, Names, std::filesystem::path(File).filename().string(),
        Q.Line));
  }
}

} // namespace

std::map<std::string, std::vector<KnownLaunch>>
hostLaunches(const std::string &File, const std::vector<std::string> &Args,
             const ptx::Module &M, const LaunchConfig &Given,
             std::string &Note, Options *Targets) {
  std::map<std::string, std::vector<KnownLaunch>> R;
  source::HostCode H = source::readHostLaunches(File, Args);
  if (!H.Problem.empty()) {
    Note = H.Problem;
    return R;
  }

  for (const ptx::ModuleItem &I : M.Items) {
    const auto *Fn = std::get_if<ptx::Function>(&I);
    if (!Fn || !Fn->IsEntry)
      continue;
    std::vector<KnownLaunch> &Ls = R[Fn->Name];
    const std::string Entry = anonymousAsClang(Fn->Name);
    for (const source::HostLaunch &L : H.Launches) {
      if (L.Kernel != Fn->Name && anonymousAsClang(L.Kernel) != Entry)
        continue;
      std::string Where;
      KnownLaunch K = known(L, *Fn, Given, File, Where);
      bool Merged = false;
      for (KnownLaunch &Old : Ls)
        if (sameLaunch(Old.Launch, K.Launch)) {
          Old.Description += "; the same at " + Where;
          Merged = true;
          break;
        }
      if (!Merged)
        Ls.push_back(std::move(K));
    }
    std::string Base = sourceIdentifier(Fn->Name);
    if (Targets)
      callTargets(H, M, *Fn, Base, File, *Targets);
    std::string Name = std::filesystem::path(File).filename().string();
    for (const auto &[Kernel, Line] : H.Escapes)
      if (Kernel == Base) {
        Ls.push_back({Given, fmt::format("any launch: {} is used at {}:{} "
                                         "other than in a launch that incant "
                                         "reads",
                                         Kernel, Name, Line)});
        break;
      }
    // __requires(param == value): in every launch that leaves it open.
    bool Any = Ls.empty();
    if (Any)
      Ls.push_back({Given, ""});
    bool Used = false;
    for (const source::Requirement &Q : H.Requires) {
      if (Q.Kernel != Base || Q.Param >= Fn->Params.size() ||
          !Q.Functions.empty() || givenParam(Given, *Fn, Q.Param))
        continue;
      for (KnownLaunch &L : Ls) {
        int64_t Value = Q.Value;
        std::string Why = "__requires";
        if (!Q.Size.empty()) {
          // Equal to a size this launch fixes; open where it is open.
          const std::optional<int64_t> &S = Q.Size == "blockDim"
                                                ? L.Launch.Block[Q.Axis]
                                                : L.Launch.Grid[Q.Axis];
          if (!S)
            continue;
          Value = *S;
          Why = fmt::format("__requires({} == {}.{})", Q.Name, Q.Size,
                            "xyz"[Q.Axis]);
        }
        auto [It, New] = L.Launch.Params.emplace(Fn->Params[Q.Param].Name, Value);
        if (!New)
          continue; // the launch's own value
        L.Description += fmt::format("{}{} = {} ({} at {}:{})",
                                     L.Description.empty() ? "" : ", ", Q.Name,
                                     Value, Why, Name, Q.Line);
        Used = true;
      }
    }
    Used |= applyAxioms(H, Given, Name, Ls);
    if (Any && Used)
      Ls.back().Description = "any launch with " + Ls.back().Description;
    else if (Any)
      Ls.pop_back();
    if (Ls.empty())
      R.erase(Fn->Name);
  }
  return R;
}

std::optional<std::vector<std::string>>
relocatableArgs(const Options &O, const std::vector<std::string> &Args) {
  if (!O.CallTargetsAbsent ||
      std::find(Args.begin(), Args.end(), "-rdc=true") != Args.end())
    return std::nullopt;
  std::vector<std::string> R = Args;
  R.push_back("-rdc=true");
  return R;
}

KnownLaunch commonLaunch(const std::vector<KnownLaunch> &Ls) {
  KnownLaunch C = Ls.front();
  for (const KnownLaunch &L : Ls) {
    for (unsigned D = 0; D < 3; ++D) {
      if (C.Launch.Block[D] != L.Launch.Block[D])
        C.Launch.Block[D].reset();
      if (C.Launch.Grid[D] != L.Launch.Grid[D])
        C.Launch.Grid[D].reset();
      if (C.Launch.BlockIdx[D] != L.Launch.BlockIdx[D])
        C.Launch.BlockIdx[D].reset();
    }
    if (C.Launch.Unsatisfiable != L.Launch.Unsatisfiable)
      C.Launch.Unsatisfiable.clear();
    for (auto It = C.Launch.Params.begin(); It != C.Launch.Params.end();) {
      auto Other = L.Launch.Params.find(It->first);
      It = Other == L.Launch.Params.end() || Other->second != It->second
               ? C.Launch.Params.erase(It)
               : std::next(It);
    }
  }
  if (Ls.size() > 1) {
    C.Description = fmt::format("what the {} launches agree on: gridDim {}, "
                                "blockDim {}",
                                Ls.size(), dims(C.Launch.Grid), dims(C.Launch.Block));
    for (const auto &[Name, V] : C.Launch.Params)
      C.Description += fmt::format(", {} = {}", Name, V);
  }
  return C;
}

} // namespace incant::race
