//===- Findings.cpp - Races, divergent barriers and unknowns as findings --===//
#include "incant/Race/Findings.h"
#include "ReportImpl.h"
#include "incant/IR/Summary.h"

#include <fmt/format.h>

namespace incant::race {

const char *findingRuleId(FindingKind K) {
  switch (K) {
  case FindingKind::Race: return "race";
  case FindingKind::Divergence: return "divergence";
  case FindingKind::Unknown: return "unknown";
  }
  return "?";
}

std::optional<FindingKind> findingKindOf(const std::string &Id) {
  for (FindingKind K :
       {FindingKind::Race, FindingKind::Divergence, FindingKind::Unknown})
    if (Id == findingRuleId(K))
      return K;
  return std::nullopt;
}

std::string normalizeSourceLine(const std::string &Line) {
  std::string Out;
  for (char C : Line) {
    bool Blank = C == ' ' || C == '\t' || C == '\r';
    if (Blank) {
      if (!Out.empty() && Out.back() != ' ')
        Out += ' ';
    } else {
      Out += C;
    }
  }
  if (!Out.empty() && Out.back() == ' ')
    Out.pop_back();
  return Out;
}

std::string siteText(const FindingSite &S) {
  return S.Col ? fmt::format("{}:{}:{}", S.File, S.Line, S.Col)
               : fmt::format("{}:{}", S.File, S.Line);
}

namespace report {

namespace {

/// Where an access or barrier is: its source frame, or the PTX line of
/// the file checked.
FindingSite site(const ModuleReport &R, const ir::DebugLoc &Loc,
                 uint32_t PtxLine, const std::string &Ptx, std::string Role,
                 SourceCache &SC) {
  FindingSite S;
  S.Role = std::move(Role);
  if (const ir::SourceFrame *Fr = Loc.userFrame()) {
    S.File = Fr->File.empty() ? R.File : Fr->File;
    S.Line = Fr->Line;
    S.Col = Fr->Col;
    S.Text = normalizeSourceLine(SC.line(Fr->File, Fr->Line));
  }
  if (S.Text.empty()) { // no source line: the PTX instruction
    S.File = R.File;
    S.Line = PtxLine;
    S.Col = 0;
    S.Text = normalizeSourceLine(Ptx);
  }
  return S;
}

std::string accessRole(const Access &A) {
  std::string Role = A.Writes ? "write" : "read";
  return A.Atomic ? "atomic " + Role : Role;
}

} // namespace

Finding pairFinding(const ModuleReport &R, unsigned KI, const Hazard &H,
                    SourceCache &SC) {
  const KernelReport &K = R.Kernels[KI];
  const PairResult &P = K.Pairs[H.Pairs[0]];
  const Access &A = K.Accesses[P.First], &B = K.Accesses[P.Second];
  Finding F;
  F.Kind = P.V == Verdict::Race ? FindingKind::Race : FindingKind::Unknown;
  F.Kernel = ir::qualifiedKernelName(K.Name);
  F.Variable = objectName(A.Object.empty() ? B.Object : A.Object);
  F.KernelIndex = KI;
  F.Pairs = H.Pairs;
  F.Assumptions = K.OptionAssumptions;
  F.Suppressed = P.Suppressed;
  F.Sites = {site(R, A.Loc, A.PtxLine, A.Text, accessRole(A), SC),
             site(R, B.Loc, B.PtxLine, B.Text, accessRole(B), SC)};
  std::string Space = A.Space == "generic" ? B.Space : A.Space;
  if (F.Kind == FindingKind::Race) {
    F.Title = fmt::format("data race: {} on {} memory, {}, between threads "
                          "of {}",
                          P.Kind, Space, F.Variable, relationText(P.Rel));
    if (P.W) {
      std::vector<std::string> L = witnessLines(*P.W, &A, &B);
      F.Detail = "witness: " + L[0] + " and " + L[1];
      for (size_t I = 2; I < L.size(); ++I)
        F.Detail += "; " + L[I];
    }
    if (!P.Hint.empty())
      F.Detail += (F.Detail.empty() ? "hint: " : ". Hint: ") + P.Hint;
  } else {
    F.Title = fmt::format("race not decided on {} memory, {}", Space,
                          F.Variable);
    F.Detail = P.Reason;
  }
  return F;
}

Finding barrierFinding(const ModuleReport &R, unsigned KI, unsigned BI,
                       SourceCache &SC) {
  const KernelReport &K = R.Kernels[KI];
  const BarrierResult &B = K.Barriers[BI];
  Finding F;
  F.Kind = B.V == Verdict::Race ? FindingKind::Divergence
                                : FindingKind::Unknown;
  F.Kernel = ir::qualifiedKernelName(K.Name);
  F.Variable = "";
  F.KernelIndex = KI;
  F.Barrier = BI;
  F.Assumptions = K.OptionAssumptions;
  F.Suppressed = B.Suppressed;
  F.Sites = {site(R, B.Loc, B.PtxLine, B.Text, "barrier", SC)};
  if (F.Kind == FindingKind::Divergence) {
    F.Title = fmt::format("barrier divergence: {}", B.Text);
    if (B.W)
      F.Detail = fmt::format(
          "witness: {} reaches it; {} does not: {}; blockDim {}, gridDim {}",
          threadText(B.W->A), threadText(B.W->B), B.Missed,
          triple(B.W->BlockDim), triple(B.W->GridDim));
  } else {
    F.Title = fmt::format("barrier divergence not decided: {}", B.Text);
    F.Detail = B.Reason;
  }
  return F;
}

std::string compilerLines(const Finding &F) {
  std::string S;
  for (size_t I = 0; I < F.Sites.size(); ++I) {
    const FindingSite &Site = F.Sites[I];
    if (I == 0)
      S += fmt::format("{}: {}: {} [{}]\n", siteText(Site),
                       F.Kind == FindingKind::Unknown ? "note" : "warning",
                       F.Title, findingRuleId(F.Kind));
    else
      S += fmt::format("{}: note: the {} it {} with\n", siteText(Site),
                       Site.Role,
                       F.Kind == FindingKind::Race ? "races" : "may race");
  }
  return S;
}

} // namespace report

std::vector<Finding> collectFindings(const ModuleReport &R,
                                     bool WithSuppressed) {
  using namespace report;
  SourceCache SC;
  std::vector<Finding> Out;
  for (unsigned KI = 0; KI < R.Kernels.size(); ++KI) {
    const KernelReport &K = R.Kernels[KI];
    for (const Hazard &H : fold(K, Verdict::Race, WithSuppressed))
      Out.push_back(pairFinding(R, KI, H, SC));
    for (unsigned BI = 0; BI < K.Barriers.size(); ++BI)
      if (K.Barriers[BI].V != Verdict::Safe &&
          (WithSuppressed || !K.Barriers[BI].Suppressed))
        Out.push_back(barrierFinding(R, KI, BI, SC));
    for (const Hazard &H : fold(K, Verdict::Unknown, WithSuppressed))
      Out.push_back(pairFinding(R, KI, H, SC));
  }
  return Out;
}

} // namespace incant::race
