//===- ClusterPairs.cpp - Shared memory across the CTAs of a cluster ------===//
//
// In a kernel that runs in thread-block clusters, a CTA's shared memory is
// also reached by the cluster's other CTAs: through an address `mapa`
// made (ir::MemoryAccess::Rank, the owner's rank), or any .shared::cluster
// or generic address whose object is not known. Such pairs are checked
// between threads of two CTAs too, with the intervals of cluster barriers
// (barrier.cluster.arrive; barrier.cluster.wait: cluster.sync()), and,
// where the cluster shape is fixed (`.reqnctapercluster`, CUDA's
// __cluster_dims__), with both threads in one cluster and both accesses in
// the shared memory of one CTA: the mapped rank, or the thread's own
// (%cluster_ctarank as a function of %ctaid, ir/ClusterIds.h).
//
//===----------------------------------------------------------------------===//
#include "Checker.h"
#include "incant/IR/ClusterIds.h"

namespace incant::race {

void Checker::findClusters() {
  const ptx::Function &Fn = F.function();
  ClusterKernel = ir::clusterShape(Fn).has_value();
  for (const ptx::PerfDirective &D : Fn.Perf)
    ClusterKernel |= D.Name == ".explicitcluster" ||
                     D.Name == ".reqnctapercluster" ||
                     D.Name == ".maxclusterrank";
  for (unsigned Item : F.instructions()) {
    const ptx::Instruction &I = F.inst(Item);
    ClusterKernel |= I.Name == "mapa" || I.Op == ptx::Opcode::BarrierCluster ||
                     I.ASpace == AddrSpace::SharedCluster;
  }
  if (ClusterKernel)
    ClusterBI = std::make_unique<ir::BarrierIntervals>(F, Bars,
                                                       PairScope::Cluster);
}

bool Checker::remoteCapable(const ir::MemoryAccess &A) const {
  return A.Rank != NoExpr || A.Space == AddrSpace::SharedCluster ||
         (A.Space == AddrSpace::Generic &&
          A.Object.K == ir::ObjectKind::Unknown);
}

Expr Checker::clusterFacts(Encoder &Enc, const ir::MemoryAccess &X,
                           const ir::MemoryAccess &Y) {
  const ptx::Function &Fn = F.function();
  // Without a fixed shape, or with an access whose memory is not known,
  // nothing more is assumed (more pairs may meet, never fewer).
  if (!ir::clusterShape(Fn) || X.Object.K == ir::ObjectKind::Unknown ||
      Y.Object.K == ir::ObjectKind::Unknown)
    return Expr::mkBool(true);
  ExprId Own = ir::clusterRegister(Pool, Fn, "%cluster_ctarank");
  Frame FA{0, NoNode}, FB{1, NoNode};
  std::vector<Expr> C;
  C.push_back(Enc.encode(FA, X.Rank != NoExpr ? X.Rank : Own)
                  .eq(Enc.encode(FB, Y.Rank != NoExpr ? Y.Rank : Own)));
  for (const char *D : {"%clusterid.x", "%clusterid.y", "%clusterid.z"}) {
    ExprId Id = ir::clusterRegister(Pool, Fn, D);
    C.push_back(Enc.encode(FA, Id).eq(Enc.encode(FB, Id)));
  }
  return Expr::mkAnd(C);
}

Checker::Outcome Checker::clusterQuery(unsigned I, unsigned J, Relation Rel,
                                       bool AnyWarp, bool WithAddress) {
  ClusterPair = true;
  if (Rel == Relation::OtherBlocks)
    IntervalsOverride = ClusterBI.get();
  Outcome Oc = query(I, J, Rel, AnyWarp, WithAddress);
  IntervalsOverride = nullptr;
  ClusterPair = false;
  Oc.SameCluster = Rel == Relation::OtherBlocks;
  if (Rel == Relation::OtherBlocks && Oc.V == Verdict::Safe &&
      Oc.Reason == "separated by a grid-wide barrier")
    Oc.Reason = "separated by a cluster barrier";
  return Oc;
}

} // namespace incant::race
