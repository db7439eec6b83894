//===- HandBuilt.h - Litmus programs built in code, for tests and benches -===//
//
// MP, SB and LB (with a choice of fence and of placement) built directly as
// litmus::Program, so that the CUDA backend can be tested and measured
// without the .litmus parser. Header-only; used by unittests/CUDA and by
// bench/cuda/CudaLitmusBench.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_BENCH_CUDA_HANDBUILT_H
#define INCANT_BENCH_CUDA_HANDBUILT_H

#include "incant/Litmus/Program.h"

#include <string>

namespace incant::handbuilt {

enum class Place { CTA, Warp, Lane, Cluster };
enum class FenceSel { None, MembarGl, FenceScGpu };

inline litmus::Op mem(litmus::Op::Kind K, int Loc, int Reg, int64_t V,
                      litmus::Space Sp = litmus::Space::Global) {
  litmus::Op O{};
  O.K = K;
  O.Addr = litmus::Operand::addr(Loc);
  O.S = litmus::Sem::Relaxed;
  O.Sc = litmus::Scope::GPU;
  O.Sp = Sp;
  if (K == litmus::Op::Kind::Load)
    O.Dst = Reg;
  else
    O.Src = {litmus::Operand::imm(V)};
  return O;
}

inline litmus::Op fence(FenceSel F) {
  litmus::Op O{};
  O.K = litmus::Op::Kind::Fence;
  O.S = litmus::Sem::SC;
  O.Sc = litmus::Scope::GPU;
  O.Fence = F == FenceSel::MembarGl ? litmus::FenceKind::Membar
                                    : litmus::FenceKind::FenceSC;
  return O;
}

inline litmus::Cond regEq(int T, int R, int64_t V) {
  return litmus::Cond::eq(litmus::Term::reg(T, R), litmus::Term::constant(V));
}

inline litmus::Cond both(litmus::Cond A, litmus::Cond B) {
  litmus::Cond C;
  C.K = litmus::Cond::And;
  C.Kids = {std::move(A), std::move(B)};
  return C;
}

/// Two threads placed as \p Pl says; with \p Shared the locations are in
/// shared memory (only for CTA-local placements).
inline litmus::Program twoThreads(const std::string &Name, Place Pl,
                                  bool Shared) {
  litmus::Program P;
  P.Name = Name;
  auto Region = Shared ? litmus::Region::Shared : litmus::Region::Global;
  P.Locs = {{"x", {}, Region}, {"y", {}, Region}};
  P.Threads.resize(2);
  for (int T = 0; T < 2; ++T) {
    P.Threads[T].Id = T;
    P.Threads[T].Regs = {{"r0", 32, false, false, {}},
                         {"r1", 32, false, false, {}}};
    auto &W = P.Threads[T].Where;
    switch (Pl) {
    case Place::CTA:
      W.CTA = T;
      W.Cluster = T;
      break;
    case Place::Cluster:
      W.CTA = T;
      break;
    case Place::Warp:
      W.Warp = T;
      break;
    case Place::Lane:
      break;
    }
  }
  return P;
}

/// MP: T0 stores x then y, T1 loads y then x.
inline litmus::Program mp(Place Pl = Place::CTA, FenceSel F = FenceSel::None,
                          bool Shared = false) {
  auto Sp = Shared ? litmus::Space::Shared : litmus::Space::Global;
  litmus::Program P = twoThreads("MP", Pl, Shared);
  auto &T0 = P.Threads[0].Ops, &T1 = P.Threads[1].Ops;
  T0.push_back(mem(litmus::Op::Kind::Store, 0, -1, 1, Sp));
  if (F != FenceSel::None)
    T0.push_back(fence(F));
  T0.push_back(mem(litmus::Op::Kind::Store, 1, -1, 1, Sp));
  T1.push_back(mem(litmus::Op::Kind::Load, 1, 0, 0, Sp));
  if (F != FenceSel::None)
    T1.push_back(fence(F));
  T1.push_back(mem(litmus::Op::Kind::Load, 0, 1, 0, Sp));
  if (Pl == Place::Cluster) // cluster-scoped accesses make the cluster matter
    for (auto *T : {&T0, &T1})
      for (auto &O : *T)
        if (O.K != litmus::Op::Kind::Fence)
          O.Sc = litmus::Scope::Cluster;
  P.Condition = both(regEq(1, 0, 1), regEq(1, 1, 0));
  P.Observe = {{1, 0}, {1, 1}};
  return P;
}

/// SB: each thread stores one location and loads the other.
inline litmus::Program sb(Place Pl = Place::CTA, FenceSel F = FenceSel::None,
                          bool Shared = false) {
  auto Sp = Shared ? litmus::Space::Shared : litmus::Space::Global;
  litmus::Program P = twoThreads("SB", Pl, Shared);
  for (int T = 0; T < 2; ++T) {
    auto &Ops = P.Threads[T].Ops;
    Ops.push_back(mem(litmus::Op::Kind::Store, T, -1, 1, Sp));
    if (F != FenceSel::None)
      Ops.push_back(fence(F));
    Ops.push_back(mem(litmus::Op::Kind::Load, 1 - T, 0, 0, Sp));
  }
  P.Condition = both(regEq(0, 0, 0), regEq(1, 0, 0));
  P.Observe = {{0, 0}, {1, 0}};
  return P;
}

/// LB: each thread loads one location and stores the other.
inline litmus::Program lb(Place Pl = Place::CTA, FenceSel F = FenceSel::None,
                          bool Shared = false) {
  auto Sp = Shared ? litmus::Space::Shared : litmus::Space::Global;
  litmus::Program P = twoThreads("LB", Pl, Shared);
  for (int T = 0; T < 2; ++T) {
    auto &Ops = P.Threads[T].Ops;
    Ops.push_back(mem(litmus::Op::Kind::Load, T, 0, 0, Sp));
    if (F != FenceSel::None)
      Ops.push_back(fence(F));
    Ops.push_back(mem(litmus::Op::Kind::Store, 1 - T, -1, 1, Sp));
  }
  P.Condition = both(regEq(0, 0, 1), regEq(1, 0, 1));
  P.Observe = {{0, 0}, {1, 0}};
  return P;
}

} // namespace incant::handbuilt

#endif // INCANT_BENCH_CUDA_HANDBUILT_H
