//===- Report.cpp - incant race's text and JSON reports -------------------===//
#include "ReportImpl.h"
#include "incant/IR/Summary.h"
#include "incant/Race/Race.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>
#include <tuple>

namespace incant::race {

namespace report {

std::string baseName(const std::string &Path) {
  size_t Slash = Path.find_last_of('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

std::string SourceCache::line(const std::string &Path, uint32_t Line) {
  auto It = Files.find(Path);
  if (It == Files.end()) {
    std::vector<std::string> Lines;
    std::ifstream In(Path);
    for (std::string L; std::getline(In, L);)
      Lines.push_back(L);
    It = Files.emplace(Path, std::move(Lines)).first;
  }
  if (Line == 0 || Line > It->second.size())
    return "";
  std::string L = It->second[Line - 1];
  size_t B = L.find_first_not_of(" \t");
  return B == std::string::npos ? "" : L.substr(B);
}

std::string where(const ir::DebugLoc &L, uint32_t PtxLine) {
  if (const ir::SourceFrame *Fr = L.userFrame())
    return fmt::format("{}:{}", Fr->File.empty() ? "?" : baseName(Fr->File),
                       Fr->Line);
  return fmt::format("PTX line {}", PtxLine);
}

std::string objectName(const std::string &Obj) {
  if (Obj.empty())
    return "unknown memory";
  if (Obj == "$dynamic_shared")
    return "dynamic shared memory";
  size_t P = Obj.rfind("_param_");
  if (P != std::string::npos) {
    std::string Rest = Obj.substr(P + 7);
    size_t Plus = Rest.find('+');
    if (Plus != std::string::npos)
      return fmt::format("parameter {} (bytes {} on)", Rest.substr(0, Plus),
                         Rest.substr(Plus + 1));
    return "parameter " + Rest;
  }
  std::string D = ir::demangle(Obj);
  if (!D.empty()) {
    size_t C = D.rfind("::");
    return C == std::string::npos ? D : D.substr(C + 2);
  }
  return Obj;
}

std::string triple(const std::array<int64_t, 3> &V) {
  return fmt::format("({},{},{})", V[0], V[1], V[2]);
}

std::string threadText(const ThreadWitness &T) {
  std::string S = fmt::format("thread {} of block {} (warp {}, lane {})",
                              triple(T.Tid), triple(T.Ctaid), T.Warp, T.Lane);
  for (const auto &[Line, K] : T.Iterations)
    S += fmt::format(", iteration {} of the loop at PTX line {}", K, Line);
  return S;
}

std::vector<Hazard> fold(const KernelReport &K, Verdict V,
                         bool WithSuppressed) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           unsigned>
      Index;
  std::vector<Hazard> Out;
  for (unsigned P = 0; P < K.Pairs.size(); ++P) {
    const PairResult &PR = K.Pairs[P];
    if (PR.V != V || (PR.Suppressed && !WithSuppressed))
      continue;
    const Access &A = K.Accesses[PR.First], &B = K.Accesses[PR.Second];
    std::string WA = where(A.Loc, A.PtxLine), WB = where(B.Loc, B.PtxLine);
    std::string Kind = V == Verdict::Race ? PR.Kind : PR.Reason;
    if (WB < WA) {
      std::swap(WA, WB);
      if (V == Verdict::Race)
        Kind = Kind.substr(Kind.find('-') + 1) + "-" +
               Kind.substr(0, Kind.find('-'));
    }
    auto Key = std::make_tuple(WA, WB, Kind, A.Object);
    auto [It, New] = Index.emplace(Key, static_cast<unsigned>(Out.size()));
    if (New)
      Out.emplace_back();
    Out[It->second].Pairs.push_back(P);
  }
  return Out;
}

const char *relationText(Relation R) {
  return R == Relation::OtherBlocks ? "different blocks"
         : R == Relation::SameWarp  ? "one warp"
                                    : "one block";
}

std::vector<std::string> witnessLines(const Witness &W, const Access *A,
                                      const Access *B) {
  std::vector<std::string> L = {threadText(W.A), threadText(W.B)};
  std::string Geo = fmt::format("blockDim {}, gridDim {}", triple(W.BlockDim),
                                triple(W.GridDim));
  for (const auto &[Name, V] : W.Params)
    Geo += fmt::format(", {} = {}", objectName(Name), V);
  L.push_back(Geo);
  if (A && B)
    L.push_back(fmt::format("both touch byte {} of {} (offsets {} and {})",
                            std::max(W.A.Offset, W.B.Offset),
                            objectName(A->Object), W.A.Offset, W.B.Offset));
  for (const ThreadWitness *T : {&W.A, &W.B})
    for (const auto &[What, V] : T->Assumed)
      L.push_back(fmt::format("assuming {} is {} for thread {}", What, V,
                              triple(T->Tid)));
  return L;
}

} // namespace report

namespace {

using namespace report;

void printWitness(std::ostream &OS, const Witness &W, const Access *A,
                  const Access *B, const std::string &Indent) {
  std::vector<std::string> Lines = witnessLines(W, A, B);
  for (size_t I = 0; I < Lines.size(); ++I)
    OS << Indent << (I == 0 ? "witness: " : I == 1 ? "     and " : "         ")
       << Lines[I] << "\n";
}

void printAccess(std::ostream &OS, SourceCache &SC, const Access &A,
                 const char *Role) {
  OS << fmt::format("    {:<6}at {}  {}", Role, where(A.Loc, A.PtxLine), A.Text)
     << "\n";
  if (const ir::SourceFrame *Fr = A.Loc.userFrame()) {
    std::string Text = SC.line(Fr->File, Fr->Line);
    if (!Text.empty())
      OS << fmt::format("          {} | {}", Fr->Line, Text) << "\n";
  }
}

std::string plural(unsigned N, const char *One, const char *Many) {
  return fmt::format("{} {}", N, N == 1 ? One : Many);
}

void printRace(std::ostream &OS, SourceCache &SC, const KernelReport &K,
               const Hazard &H) {
  const PairResult &P = K.Pairs[H.Pairs[0]];
  const Access &A = K.Accesses[P.First], &B = K.Accesses[P.Second];
  printAccess(OS, SC, A, A.Writes ? "write" : "read");
  printAccess(OS, SC, B, B.Writes ? "write" : "read");
  if (P.W)
    printWitness(OS, *P.W, &A, &B, "    ");
  if (!P.Hint.empty())
    OS << "    hint: " << P.Hint << "\n";
  if (H.Pairs.size() > 1)
    OS << fmt::format("    ({} more PTX pairs at these lines)\n",
                      H.Pairs.size() - 1);
}

void printBarrier(std::ostream &OS, SourceCache &SC, const BarrierResult &B,
                  bool Heading) {
  if (Heading)
    OS << fmt::format("  {}: {} at {} (PTX line {})\n",
                      B.V == Verdict::Race ? "barrier divergence"
                                           : "barrier divergence unknown",
                      B.Text, where(B.Loc, B.PtxLine), B.PtxLine);
  if (const ir::SourceFrame *Fr = B.Loc.userFrame()) {
    std::string Text = SC.line(Fr->File, Fr->Line);
    if (!Text.empty())
      OS << fmt::format("          {} | {}", Fr->Line, Text) << "\n";
  }
  if (B.V == Verdict::Unknown) {
    OS << "    " << B.Reason << "\n";
    return;
  }
  if (!B.W)
    return;
  OS << fmt::format("    {} reaches it; {} does not: {}\n", threadText(B.W->A),
                    threadText(B.W->B), B.Missed);
  OS << fmt::format("    blockDim {}, gridDim {}\n", triple(B.W->BlockDim),
                    triple(B.W->GridDim));
  for (const ThreadWitness *T : {&B.W->A, &B.W->B})
    for (const auto &[What, V] : T->Assumed)
      OS << fmt::format("    assuming {} is {} for thread {}\n", What, V,
                        triple(T->Tid));
}

/// Unknown pairs, grouped by reason (suppressed ones left out).
void printUnknown(std::ostream &OS, const KernelReport &K, bool Verbose) {
  std::map<std::string, std::vector<unsigned>> Unknown;
  for (unsigned P = 0; P < K.Pairs.size(); ++P)
    if (K.Pairs[P].V == Verdict::Unknown && !K.Pairs[P].Suppressed)
      Unknown[K.Pairs[P].Reason].push_back(P);
  for (const auto &[Reason, Ps] : Unknown) {
    OS << fmt::format("  unknown: {}: {}\n", plural(Ps.size(), "pair", "pairs"),
                      Reason);
    std::vector<std::string> Lines;
    for (unsigned P : Ps) {
      const Access &A = K.Accesses[K.Pairs[P].First];
      const Access &B = K.Accesses[K.Pairs[P].Second];
      std::string L = where(A.Loc, A.PtxLine) + " and " + where(B.Loc, B.PtxLine);
      if (std::find(Lines.begin(), Lines.end(), L) == Lines.end())
        Lines.push_back(L);
    }
    for (size_t I = 0; I < Lines.size() && (Verbose || I < 5); ++I)
      OS << "    " << Lines[I] << "\n";
    if (!Verbose && Lines.size() > 5)
      OS << fmt::format("    ... and {} more (-v lists them)\n", Lines.size() - 5);
  }
}

void printVerboseLists(std::ostream &OS, const KernelReport &K) {
  for (const PairResult &P : K.Pairs)
    if (P.V == Verdict::Safe)
      OS << fmt::format("  safe: {} and {}: {}\n",
                        where(K.Accesses[P.First].Loc, K.Accesses[P.First].PtxLine),
                        where(K.Accesses[P.Second].Loc, K.Accesses[P.Second].PtxLine),
                        P.Reason);
}

} // namespace

void printReport(const ModuleReport &MR, std::ostream &OS, bool Verbose,
                 bool CompilerLines) {
  SourceCache SC;
  for (unsigned KI = 0; KI < MR.Kernels.size(); ++KI) {
    const KernelReport &K = MR.Kernels[KI];
    OS << fmt::format("kernel {}{} at PTX line {}\n", K.Name,
                      K.Demangled.empty() ? "" : " (" + K.Demangled + ")",
                      K.PtxLine);
    if (!K.Launch.empty())
      OS << "  launch: " << K.Launch << "\n";
    std::vector<Hazard> Hs = fold(K, Verdict::Race);
    for (const Hazard &H : Hs) {
      const PairResult &P = K.Pairs[H.Pairs[0]];
      const Access &A = K.Accesses[P.First], &B = K.Accesses[P.Second];
      if (CompilerLines)
        OS << compilerLines(pairFinding(MR, KI, H, SC));
      else
        OS << fmt::format("  race: {} on {} memory, {}, between threads of {}\n",
                          P.Kind, A.Space == "generic" ? B.Space : A.Space,
                          objectName(A.Object.empty() ? B.Object : A.Object),
                          relationText(P.Rel));
      printRace(OS, SC, K, H);
    }
    unsigned Suppressed = static_cast<unsigned>(
        fold(K, Verdict::Race, true).size() - Hs.size() +
        fold(K, Verdict::Unknown, true).size() -
        fold(K, Verdict::Unknown).size());
    for (unsigned BI = 0; BI < K.Barriers.size(); ++BI) {
      const BarrierResult &B = K.Barriers[BI];
      if (B.Suppressed) {
        ++Suppressed;
        continue;
      }
      if (B.V == Verdict::Safe && !Verbose)
        continue;
      if (B.V == Verdict::Safe) {
        OS << fmt::format("  barrier {} at {}: safe: {}\n", B.Text,
                          where(B.Loc, B.PtxLine), B.Reason);
        continue;
      }
      bool Lines = CompilerLines && B.V == Verdict::Race;
      if (Lines)
        OS << compilerLines(barrierFinding(MR, KI, BI, SC));
      printBarrier(OS, SC, B, !Lines);
    }
    printUnknown(OS, K, Verbose);
    if (Verbose)
      printVerboseLists(OS, K);
    for (const std::string &N : K.Notes)
      OS << "  note: " << N << "\n";
    for (const std::string &A : K.OptionAssumptions)
      OS << "  assuming " << A << "\n";
    if (Verbose)
      for (const std::string &A : K.Assumptions)
        OS << "  assuming " << A << "\n";
    if (Verbose)
      for (unsigned I : K.unproved()) // what a dynamic checker must watch
        OS << fmt::format("  not proved safe: {}  {}\n",
                          where(K.Accesses[I].Loc, K.Accesses[I].PtxLine),
                          K.Accesses[I].Text);
    unsigned Unproved = static_cast<unsigned>(K.unproved().size());
    unsigned Divergent = 0;
    for (const BarrierResult &B : K.Barriers)
      Divergent += B.V == Verdict::Race && !B.Suppressed;
    OS << fmt::format(
        "  summary: {}, {}; pairs: {} race, {} safe, {} unknown; {} of {} "
        "not proved safe{}\n",
        plural(static_cast<unsigned>(Hs.size()), "race", "races"),
        plural(Divergent, "divergent barrier", "divergent barriers"), K.Races,
        K.Safe, K.Unknown, Unproved,
        plural(static_cast<unsigned>(K.Accesses.size()), "access", "accesses"),
        Suppressed ? fmt::format("; {} suppressed", Suppressed) : "");
  }
}

//===-- JSON --------------------------------------------------------------===//

namespace {

nlohmann::json tripleJson(const std::array<int64_t, 3> &V) {
  return nlohmann::json::array({V[0], V[1], V[2]});
}

nlohmann::json threadJson(const ThreadWitness &T) {
  nlohmann::json Its = nlohmann::json::array();
  for (const auto &[Line, K] : T.Iterations)
    Its.push_back({{"loop_ptx_line", Line}, {"iteration", K}});
  nlohmann::json As = nlohmann::json::array();
  for (const auto &[What, V] : T.Assumed)
    As.push_back({{"what", What}, {"value", V}});
  return {{"tid", tripleJson(T.Tid)}, {"ctaid", tripleJson(T.Ctaid)},
          {"warp", T.Warp},           {"lane", T.Lane},
          {"iterations", Its},        {"offset", T.Offset},
          {"assumed", As}};
}

nlohmann::json witnessJson(const std::optional<Witness> &W) {
  if (!W)
    return nullptr;
  nlohmann::json Ps = nlohmann::json::object();
  for (const auto &[Name, V] : W->Params)
    Ps[Name] = V;
  return {{"block_dim", tripleJson(W->BlockDim)},
          {"grid_dim", tripleJson(W->GridDim)},
          {"a", threadJson(W->A)},
          {"b", threadJson(W->B)},
          {"params", Ps}};
}

nlohmann::json sourcesJson(const std::vector<unsigned> &Sources) {
  nlohmann::json J = nlohmann::json::array();
  for (unsigned S : Sources)
    J.push_back(S == ir::NoNode ? nlohmann::json("entry") : nlohmann::json(S));
  return J;
}

} // namespace

nlohmann::json reportToJson(const ModuleReport &MR) {
  nlohmann::json Kernels = nlohmann::json::array();
  for (const KernelReport &K : MR.Kernels) {
    nlohmann::json Accs = nlohmann::json::array();
    for (unsigned I = 0; I < K.Accesses.size(); ++I) {
      const Access &A = K.Accesses[I];
      nlohmann::json J = {{"index", I},
                          {"item", A.Item},
                          {"part", A.Part},
                          {"ptx_line", A.PtxLine},
                          {"text", A.Text},
                          {"reads", A.Reads},
                          {"writes", A.Writes},
                          {"atomic", A.Atomic},
                          {"volatile", A.Volatile},
                          {"strong", A.Strong},
                          {"sem", A.Sem},
                          {"scope", A.Scope},
                          {"space", A.Space},
                          {"object", A.Object},
                          {"offset", A.Offset},
                          {"bytes", A.Bytes},
                          {"affine", A.Affine},
                          {"why", A.Why},
                          {"proved_safe", A.Proved},
                          {"build", A.Build}};
      nlohmann::json Calls = nlohmann::json::array();
      for (const auto &[Fn, At] : A.OriginCalls)
        Calls.push_back({{"function", Fn}, {"item", At}});
      J["origin"] = {{"function", A.OriginFunction},
                     {"item", A.OriginItem},
                     {"inlined_through", Calls}};
      J.update(ir::debugLocToJson(A.Loc));
      Accs.push_back(std::move(J));
    }
    nlohmann::json Pairs = nlohmann::json::array();
    for (const PairResult &P : K.Pairs)
      Pairs.push_back({{"first", P.First},
                       {"second", P.Second},
                       {"first_item", K.Accesses[P.First].Item},
                       {"second_item", K.Accesses[P.Second].Item},
                       {"verdict", verdictName(P.V)},
                       {"kind", P.Kind},
                       {"relation", P.V == Verdict::Race
                                        ? nlohmann::json(relationName(P.Rel))
                                        : nlohmann::json(nullptr)},
                       {"reason", P.Reason},
                       {"hint", P.Hint},
                       {"interval_sources", sourcesJson(P.Sources)},
                       {"witness", witnessJson(P.W)}});
    nlohmann::json Hazards = nlohmann::json::array();
    for (const Hazard &H : fold(K, Verdict::Race)) {
      const PairResult &P = K.Pairs[H.Pairs[0]];
      const Access &A = K.Accesses[P.First], &B = K.Accesses[P.Second];
      Hazards.push_back({{"kind", P.Kind},
                         {"first", where(A.Loc, A.PtxLine)},
                         {"second", where(B.Loc, B.PtxLine)},
                         {"object", A.Object},
                         {"pairs", H.Pairs}});
    }
    nlohmann::json Bars = nlohmann::json::array();
    for (const BarrierResult &B : K.Barriers) {
      nlohmann::json J = {{"item", B.Item},
                          {"origin", {{"function", B.OriginFunction},
                                      {"item", B.OriginItem}}},
                          {"ptx_line", B.PtxLine},
                          {"text", B.Text},
                          {"kind", ir::barrierKindName(B.Kind)},
                          {"assumed", B.Assumed},
                          {"note", B.Note},
                          {"divergence", verdictName(B.V)},
                          {"reason", B.Reason},
                          {"missed", B.Missed},
                          {"witness", witnessJson(B.W)}};
      J.update(ir::debugLocToJson(B.Loc));
      Bars.push_back(std::move(J));
    }
    Kernels.push_back(
        {{"name", K.Name},
         {"demangled", K.Demangled},
         {"build", K.Build},
         {"launch", K.Launch},
         {"ptx_line", K.PtxLine},
         {"accesses", Accs},
         {"pairs", Pairs},
         {"hazards", Hazards},
         {"barriers", Bars},
         {"notes", K.Notes},
         {"assumptions", K.Assumptions},
         {"option_assumptions", K.OptionAssumptions},
         {"unproved", K.unproved()},
         {"summary",
          {{"races", Hazards.size()},
           {"race_pairs", K.Races},
           {"safe_pairs", K.Safe},
           {"unknown_pairs", K.Unknown},
           {"divergent_barriers", K.Divergent},
           {"unknown_barriers", K.UnknownBarriers}}}});
  }
  return {{"file", MR.File}, {"kernels", Kernels}};
}

} // namespace incant::race
