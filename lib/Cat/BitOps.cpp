//===- BitOps.cpp - Kernels on bit rows -----------------------------------===//
#include "BitOps.h"

#include <bit>
#include <vector>

namespace incant::cat::bits {

void complementSet(uint64_t *D, const uint64_t *A, unsigned N) {
  unsigned Wd = wordsFor(N);
  for (unsigned I = 0; I != Wd; ++I)
    D[I] = ~A[I];
  if (Wd)
    D[Wd - 1] &= lastMask(N);
}

void complementRel(uint64_t *D, const uint64_t *A, unsigned N) {
  unsigned Wd = wordsFor(N);
  for (unsigned R = 0; R != N; ++R)
    complementSet(D + size_t(R) * Wd, A + size_t(R) * Wd, N);
}

void fullSet(uint64_t *D, unsigned N) {
  unsigned Wd = wordsFor(N);
  for (unsigned I = 0; I != Wd; ++I)
    D[I] = ~uint64_t(0);
  if (Wd)
    D[Wd - 1] &= lastMask(N);
}

void identity(uint64_t *D, unsigned N) {
  unsigned Wd = wordsFor(N);
  zero(D, size_t(N) * Wd);
  for (unsigned R = 0; R != N; ++R)
    set(D + size_t(R) * Wd, R);
}

void compose(uint64_t *D, const uint64_t *A, const uint64_t *B, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    for (unsigned R = 0; R != N; ++R) {
      uint64_t Row = A[R], Acc = 0;
      while (Row) {
        Acc |= B[std::countr_zero(Row)];
        Row &= Row - 1;
      }
      D[R] = Acc;
    }
    return;
  }
  for (unsigned R = 0; R != N; ++R) {
    uint64_t *DR = D + size_t(R) * Wd;
    const uint64_t *AR = A + size_t(R) * Wd;
    zero(DR, Wd);
    for (unsigned W = 0; W != Wd; ++W) {
      uint64_t Bits = AR[W];
      while (Bits) {
        unsigned K = W * 64 + std::countr_zero(Bits);
        Bits &= Bits - 1;
        const uint64_t *BK = B + size_t(K) * Wd;
        for (unsigned I = 0; I != Wd; ++I)
          DR[I] |= BK[I];
      }
    }
  }
}

void inverse(uint64_t *D, const uint64_t *A, unsigned N) {
  unsigned Wd = wordsFor(N);
  zero(D, size_t(N) * Wd);
  if (Wd == 1) {
    for (unsigned R = 0; R != N; ++R) {
      uint64_t Bits = A[R], M = uint64_t(1) << R;
      while (Bits) {
        D[std::countr_zero(Bits)] |= M;
        Bits &= Bits - 1;
      }
    }
    return;
  }
  for (unsigned R = 0; R != N; ++R) {
    const uint64_t *AR = A + size_t(R) * Wd;
    for (unsigned W = 0; W != Wd; ++W) {
      uint64_t Bits = AR[W];
      while (Bits) {
        unsigned C = W * 64 + std::countr_zero(Bits);
        Bits &= Bits - 1;
        set(D + size_t(C) * Wd, R);
      }
    }
  }
}

void closeTransitively(uint64_t *D, unsigned N) {
  unsigned Wd = wordsFor(N);
  // Warshall on bit rows: after step K, row I holds every event reachable
  // from I through intermediate events < K+1.
  if (Wd == 1) {
    for (unsigned K = 0; K != N; ++K) {
      uint64_t M = uint64_t(1) << K, RK = D[K];
      for (unsigned I = 0; I != N; ++I)
        if (D[I] & M)
          D[I] |= RK;
    }
    return;
  }
  for (unsigned K = 0; K != N; ++K) {
    const uint64_t *RK = D + size_t(K) * Wd;
    for (unsigned I = 0; I != N; ++I) {
      uint64_t *RI = D + size_t(I) * Wd;
      if (test(RI, K))
        for (unsigned W = 0; W != Wd; ++W)
          RI[W] |= RK[W];
    }
  }
}

void addIdentity(uint64_t *D, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    for (unsigned R = 0; R != N; ++R)
      D[R] |= uint64_t(1) << R;
    return;
  }
  for (unsigned R = 0; R != N; ++R)
    set(D + size_t(R) * Wd, R);
}

void product(uint64_t *D, const uint64_t *S, const uint64_t *T, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    uint64_t Src = S[0], Tgt = T[0];
    for (unsigned R = 0; R != N; ++R)
      D[R] = ((Src >> R) & 1) ? Tgt : 0;
    return;
  }
  for (unsigned R = 0; R != N; ++R) {
    uint64_t *DR = D + size_t(R) * Wd;
    if (test(S, R))
      copy(DR, T, Wd);
    else
      zero(DR, Wd);
  }
}

void identityOn(uint64_t *D, const uint64_t *S, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    uint64_t Src = S[0];
    for (unsigned R = 0; R != N; ++R)
      D[R] = Src & (uint64_t(1) << R);
    return;
  }
  zero(D, size_t(N) * Wd);
  for (unsigned R = 0; R != N; ++R)
    if (test(S, R))
      set(D + size_t(R) * Wd, R);
}

void restrict(uint64_t *D, const uint64_t *A, const uint64_t *S,
              const uint64_t *T, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    uint64_t Src = S[0], Tgt = T[0];
    for (unsigned R = 0; R != N; ++R)
      D[R] = ((Src >> R) & 1) ? A[R] & Tgt : 0;
    return;
  }
  for (unsigned R = 0; R != N; ++R) {
    uint64_t *DR = D + size_t(R) * Wd;
    const uint64_t *AR = A + size_t(R) * Wd;
    if (test(S, R))
      andOf(DR, AR, T, Wd);
    else
      zero(DR, Wd);
  }
}

void domain(uint64_t *D, const uint64_t *A, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    uint64_t Acc = 0;
    for (unsigned R = 0; R != N; ++R)
      Acc |= uint64_t(A[R] != 0) << R;
    D[0] = Acc;
    return;
  }
  zero(D, Wd);
  for (unsigned R = 0; R != N; ++R)
    if (!isZero(A + size_t(R) * Wd, Wd))
      set(D, R);
}

void range(uint64_t *D, const uint64_t *A, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    uint64_t Acc = 0;
    for (unsigned R = 0; R != N; ++R)
      Acc |= A[R];
    D[0] = Acc;
    return;
  }
  zero(D, Wd);
  for (unsigned R = 0; R != N; ++R) {
    const uint64_t *AR = A + size_t(R) * Wd;
    for (unsigned W = 0; W != Wd; ++W)
      D[W] |= AR[W];
  }
}

bool isIrreflexive(const uint64_t *A, unsigned N) {
  unsigned Wd = wordsFor(N);
  if (Wd == 1) {
    uint64_t Diag = 0;
    for (unsigned R = 0; R != N; ++R)
      Diag |= A[R] & (uint64_t(1) << R);
    return Diag == 0;
  }
  for (unsigned R = 0; R != N; ++R)
    if (test(A + size_t(R) * Wd, R))
      return false;
  return true;
}

bool isAcyclic(const uint64_t *A, unsigned N) {
  unsigned Wd = wordsFor(N);
  // Repeatedly remove the sinks (events with no successor among those that
  // remain); the relation is acyclic iff this removes every event. Within a
  // pass an event goes as soon as it is a sink, highest first: po and rf
  // mostly lead to higher events, so one pass peels a whole chain (a pass
  // that removed only the sinks of its start took one pass per event of
  // the longest path).
  if (Wd == 1) {
    uint64_t Live = N ? lastMask(N) : 0;
    while (Live) {
      uint64_t Before = Live;
      for (uint64_t Bits = Live; Bits;) {
        unsigned I = 63 - unsigned(std::countl_zero(Bits));
        uint64_t M = uint64_t(1) << I;
        Bits &= ~M;
        if (!(A[I] & Live))
          Live &= ~M;
      }
      if (Live == Before)
        return false;
    }
    return true;
  }
  std::vector<uint64_t> Live(Wd);
  fullSet(Live.data(), N);
  while (!isZero(Live.data(), Wd)) {
    bool Any = false;
    for (unsigned W = Wd; W-- > 0;) {
      uint64_t Bits = Live[W];
      while (Bits) {
        unsigned Bit = 63 - unsigned(std::countl_zero(Bits));
        Bits &= ~(uint64_t(1) << Bit);
        const uint64_t *AR = A + size_t(W * 64 + Bit) * Wd;
        bool HasSucc = false;
        for (unsigned V = 0; V != Wd && !HasSucc; ++V)
          HasSucc = AR[V] & Live[V];
        if (!HasSucc) {
          Live[W] &= ~(uint64_t(1) << Bit);
          Any = true;
        }
      }
    }
    if (!Any)
      return false;
  }
  return true;
}

unsigned popcount(const uint64_t *A, size_t Len) {
  unsigned C = 0;
  for (size_t I = 0; I != Len; ++I)
    C += std::popcount(A[I]);
  return C;
}

} // namespace incant::cat::bits
