//===- Shapes.cpp - Named shapes and presets of `incant gen` --------------===//
#include "GenImpl.h"

#include <fmt/format.h>

#include <cassert>
#include <sstream>

using namespace incant;
using namespace incant::gen;

const std::vector<Shape> &gen::shapes() {
  // The nine classic shapes of the thesis and ASPLOS'15 first, then a few
  // more of diy's usual names.
  static const std::vector<Shape> S = {
      {"MP", "PodWW Rfe PodRR Fre", "message passing"},
      {"SB", "PodWR Fre PodWR Fre", "store buffering"},
      {"LB", "PodRW Rfe PodRW Rfe", "load buffering"},
      {"S", "PodWW Rfe PodRW Coe", "S"},
      {"R", "PodWW Coe PodWR Fre", "R"},
      {"2+2W", "PodWW Coe PodWW Coe", "two writers, two locations"},
      {"IRIW", "Rfe PodRR Fre Rfe PodRR Fre",
       "independent reads of independent writes"},
      {"WRC", "Rfe PodRW Rfe PodRR Fre", "write-to-read causality"},
      {"ISA2", "PodWW Rfe PodRW Rfe PodRR Fre",
       "message passing through a third thread"},
      {"CoRR", "Rfe PosRR Fre", "coherence of read-read pairs"},
      {"RWC", "Rfe PodRR Fre PodWR Fre", "read-to-write causality"},
      {"WWC", "Rfe PodRW Rfe PodRW Coe", "write-to-write causality"},
      {"3.SB", "PodWR Fre PodWR Fre PodWR Fre", "store buffering, 3 threads"},
      {"3.LB", "PodRW Rfe PodRW Rfe PodRW Rfe", "load buffering, 3 threads"},
      {"3.2W", "PodWW Coe PodWW Coe PodWW Coe", "2+2W, 3 threads"},
      {"Z6.3", "PodWW Coe PodWW Rfe PodRR Fre", "Z6.3"},
  };
  return S;
}

const std::vector<ShapeInfo> &gen::shapeInfos() {
  static const std::vector<ShapeInfo> Infos = [] {
    std::vector<ShapeInfo> V;
    for (const Shape &S : shapes()) {
      ShapeInfo I;
      I.Name = S.Name;
      std::istringstream In(S.Cycle);
      std::string W;
      while (In >> W) {
        std::optional<Edge> E = parseEdge(W);
        assert(E && "malformed shape table");
        I.Edges.push_back(*E);
      }
      V.push_back(std::move(I));
    }
    return V;
  }();
  return Infos;
}

static const char *const ClassicShapes = "MP,SB,LB,S,R,2+2W,IRIW,WRC,ISA2";

std::vector<std::string> gen::presetNames() {
  return {"campaign", "classic", "hopper", "modern"};
}

namespace {

/// Each way of writing one mbarrier (Mbar) or async-store (Tx) edge's
/// modifiers: the arrive's (or the store's) kind, the wait's semantics,
/// scope, instruction and retry.
std::vector<std::string> waitVariants(bool Tx) {
  std::vector<std::string> V;
  for (const char *First : Tx ? std::vector<const char *>{"st", "red"}
                              : std::vector<const char *>{"rel", "rlx"})
    for (const char *Wait : {"acq", "rlx"})
      for (const char *Sc : {"cta", "cluster"})
        for (const char *Inst : {"", ".test"})
          for (const char *Loop : {"", ".loop"}) {
            if (Tx && *Inst)
              continue; // test_wait is the mbarrier family's
            V.push_back(
                fmt::format(".{}.{}.{}{}{}", First, Wait, Sc, Inst, Loop));
          }
  return V;
}

/// hopper: Hopper's synchronisation as edges, each family with and without
/// what the PTX ISA says orders it (release arrive, acquire wait at a scope
/// that holds both threads, fence.proxy.async before an async access).
std::vector<FamilyOptions> hopperFamilies() {
  // mbarrier message passing, in one CTA and across a cluster.
  FamilyOptions Mbar;
  for (const std::string &V : waitVariants(false))
    for (const char *C : {"MbarsWR{} Fre", "MbarsWW{} Coe",
                          "Rfe MbarsRR{} Fre"})
      Mbar.Cycles.push_back(fmt::format(fmt::runtime(C), V));
  Mbar.Scopes = "cta,cluster";
  Mbar.Memory = "global,shared,dsmem";
  // st.async / red.async into another CTA, completing on its mbarrier,
  // with a generic write before the async store with no fence, a proxy
  // fence or a cluster fence.
  FamilyOptions Tx;
  for (const std::string &V : waitVariants(true)) {
    Tx.Cycles.push_back(fmt::format("TxsWR{} Fre", V));
    Tx.Cycles.push_back(fmt::format("TxsWW{} Coe", V));
    for (const char *Po : {"PodWW", "FencedWW.fence.proxy.async",
                           "FencedWW.fence.acq_rel.cluster"})
      Tx.Cycles.push_back(fmt::format("{} TxdWR{} Fre", Po, V));
  }
  Tx.Scopes = "cluster";
  Tx.Memory = "global,dsmem";
  // barrier.cluster, release and relaxed arrives.
  FamilyOptions Cbar;
  for (const char *V : {".rel", ".rlx"})
    for (const char *C : {"CbarsWR{} Fre", "CbarsWW{} Coe", "CbarsRW{} Rfe",
                          "CbardWR{0} Fre CbardWR{0} Fre",
                          "CbardWW{0} Rfe CbardRR{0} Fre"})
      Cbar.Cycles.push_back(fmt::format(fmt::runtime(C), V));
  Cbar.Scopes = "cta,cluster";
  Cbar.Memory = "global,shared,dsmem";
  Cbar.Accesses = "weak,relaxed.cluster";
  // Bulk copies (the async proxy) against generic accesses of the same
  // location in one thread, and after an acquire in another, with no fence,
  // fence.proxy.async or a fence of the generic proxy only.
  FamilyOptions Bulk;
  for (const char *F : {"", "fence.proxy.async", "fence.acq_rel.cta"}) {
    auto Po = [&](const char *Dirs, bool Same) {
      return *F ? fmt::format("Fence{}{}.{}", Same ? 's' : 'd', Dirs, F)
                : fmt::format("Po{}{}", Same ? 's' : 'd', Dirs);
    };
    // A generic write, then a bulk read (a copy out) of the location.
    Bulk.Cycles.push_back(fmt::format("{0} bulk Fre {0} bulk Fre",
                                      Po("WR", true)));
    // A bulk write, then a generic read of the location.
    Bulk.Cycles.push_back(fmt::format("bulk {0} Fre bulk {0} Fre",
                                      Po("WR", true)));
    // Message passing with the data read or written by a bulk copy.
    Bulk.Cycles.push_back(fmt::format(
        "PodWW release.gpu Rfe acquire.gpu {} bulk Fre", Po("RR", false)));
    Bulk.Cycles.push_back(fmt::format(
        "bulk {} release.gpu Rfe acquire.gpu PodRR Fre", Po("WW", false)));
  }
  Bulk.Scopes = "cta,gpu";
  Bulk.Memory = "global,shared";
  return {Mbar, Tx, Cbar, Bulk};
}

} // namespace

std::vector<FamilyOptions> gen::presetFamilies(const std::string &Name) {
  // classic: the thesis's and ASPLOS'15's tests: weak (.cg) accesses,
  // membar on each po edge, the thesis's three GPU configurations.
  FamilyOptions Classic;
  Classic.Shapes = ClassicShapes;
  Classic.Fences = "none,membar.cta,membar.gl,membar.sys";
  Classic.Scopes = "cta,gpu";
  Classic.Memory = "global,shared";
  // modern: PTX 6+ accesses, no fences.
  FamilyOptions Modern;
  Modern.Shapes = ClassicShapes;
  Modern.Fences = "none";
  Modern.Scopes = "warp,cta,cluster,gpu";
  Modern.Memory = "global,shared";
  Modern.Accesses = "volatile,relaxed.cta,relaxed.gpu,acqrel.cta,acqrel.gpu,"
                    "relacq.cta,relacq.gpu,atomic.gpu";
  if (Name == "classic")
    return {Classic};
  if (Name == "modern")
    return {Modern};
  if (Name == "hopper")
    return hopperFamilies();
  if (Name == "campaign") {
    // Every fence of both generations on each po edge, in every scope
    // relation, plus the modern access kinds without fences.
    FamilyOptions Fenced = Classic;
    Fenced.Fences = "none,membar.cta,membar.gl,membar.sys,fence.sc.cta,"
                    "fence.sc.gpu,fence.acq_rel.cta,fence.acq_rel.gpu";
    Fenced.Scopes = "warp,cta,cluster,gpu";
    return {Fenced, Modern};
  }
  return {};
}
