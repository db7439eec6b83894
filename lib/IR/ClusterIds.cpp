//===- ClusterIds.cpp - Cluster special registers as expressions ---------===//
#include "incant/IR/ClusterIds.h"

namespace incant::ir {

std::optional<std::array<int64_t, 3>> clusterShape(const ptx::Function &F) {
  for (const ptx::PerfDirective &D : F.Perf)
    if (D.Name == ".reqnctapercluster" && !D.Values.empty()) {
      std::array<int64_t, 3> S = {1, 1, 1};
      for (size_t K = 0; K < 3 && K < D.Values.size(); ++K)
        S[K] = static_cast<int64_t>(D.Values[K]);
      if (S[0] < 1 || S[1] < 1 || S[2] < 1)
        return std::nullopt;
      return S;
    }
  return std::nullopt;
}

ExprId clusterRegister(ExprPool &P, const ptx::Function &F,
                       const std::string &Name) {
  if (Name.rfind("%cluster", 0) != 0 && Name.rfind("%nclusterid", 0) != 0)
    return NoExpr;
  std::optional<std::array<int64_t, 3>> Shape = clusterShape(F);
  if (!Shape)
    return NoExpr;
  auto Id = [&](SymKind K, unsigned D) {
    Symbol S;
    S.K = K;
    S.Dim = static_cast<uint8_t>(D);
    return P.sym(S);
  };
  auto C = [&](unsigned D) { return P.constant((*Shape)[D]); };
  std::string Base = Name.substr(0, Name.find('.'));
  int Dim = -1;
  if (size_t Dot = Name.find('.'); Dot != std::string::npos &&
                                   Dot + 2 == Name.size() &&
                                   Name[Dot + 1] >= 'x' && Name[Dot + 1] <= 'z')
    Dim = Name[Dot + 1] - 'x';
  if (Dim >= 0) {
    unsigned D = static_cast<unsigned>(Dim);
    if (Base == "%cluster_ctaid")
      return P.rem(Id(SymKind::Ctaid, D), C(D), false);
    if (Base == "%clusterid")
      return P.div(Id(SymKind::Ctaid, D), C(D), false);
    if (Base == "%cluster_nctaid")
      return C(D);
    if (Base == "%nclusterid")
      return P.div(Id(SymKind::Nctaid, D), C(D), false);
    return NoExpr;
  }
  if (Name == "%cluster_ctarank") {
    ExprId X = P.rem(Id(SymKind::Ctaid, 0), C(0), false);
    ExprId Y = P.rem(Id(SymKind::Ctaid, 1), C(1), false);
    ExprId Z = P.rem(Id(SymKind::Ctaid, 2), C(2), false);
    return P.add(X, P.mul(C(0), P.add(Y, P.mul(C(1), Z))));
  }
  if (Name == "%cluster_nctarank")
    return P.constant((*Shape)[0] * (*Shape)[1] * (*Shape)[2]);
  return NoExpr;
}

} // namespace incant::ir
