//===- Shapes.cpp - Named shapes and presets of `incant gen` --------------===//
#include "GenImpl.h"

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
  return {"campaign", "classic", "modern"};
}

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
