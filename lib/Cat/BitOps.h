//===- BitOps.h - Kernels on bit rows shared by Relation and the interpreter ===//
//
// Sets are Wd = ceil(N/64) words; relations are N rows of Wd words (row i
// holds the successors of event i). Bits at positions >= N are always zero.
// These kernels work on raw word arrays so that the interpreter can run them
// on its register file without allocating.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_CAT_BITOPS_H
#define INCANT_LIB_CAT_BITOPS_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace incant::cat::bits {

inline unsigned wordsFor(unsigned N) { return (N + 63) / 64; }

/// Mask of the valid bits of the last word of an N-bit row.
inline uint64_t lastMask(unsigned N) {
  unsigned R = N % 64;
  return R ? (uint64_t(1) << R) - 1 : ~uint64_t(0);
}

inline bool test(const uint64_t *Row, unsigned I) {
  return (Row[I / 64] >> (I % 64)) & 1;
}
inline void set(uint64_t *Row, unsigned I) {
  Row[I / 64] |= uint64_t(1) << (I % 64);
}
inline void clear(uint64_t *Row, unsigned I) {
  Row[I / 64] &= ~(uint64_t(1) << (I % 64));
}

inline void copy(uint64_t *D, const uint64_t *A, size_t Len) {
  if (Len && D != A)
    std::memmove(D, A, Len * sizeof(uint64_t));
}
inline void zero(uint64_t *D, size_t Len) {
  if (Len)
    std::memset(D, 0, Len * sizeof(uint64_t));
}
inline bool isZero(const uint64_t *A, size_t Len) {
  uint64_t Acc = 0;
  for (size_t I = 0; I != Len; ++I)
    Acc |= A[I];
  return Acc == 0;
}
inline bool equal(const uint64_t *A, const uint64_t *B, size_t Len) {
  return Len == 0 || std::memcmp(A, B, Len * sizeof(uint64_t)) == 0;
}
inline void orOf(uint64_t *D, const uint64_t *A, const uint64_t *B,
                 size_t Len) {
  for (size_t I = 0; I != Len; ++I)
    D[I] = A[I] | B[I];
}
inline void andOf(uint64_t *D, const uint64_t *A, const uint64_t *B,
                  size_t Len) {
  for (size_t I = 0; I != Len; ++I)
    D[I] = A[I] & B[I];
}
inline void diffOf(uint64_t *D, const uint64_t *A, const uint64_t *B,
                   size_t Len) {
  for (size_t I = 0; I != Len; ++I)
    D[I] = A[I] & ~B[I];
}

/// D = complement of the set A (N bits).
void complementSet(uint64_t *D, const uint64_t *A, unsigned N);
/// D = complement of the relation A.
void complementRel(uint64_t *D, const uint64_t *A, unsigned N);
/// D = the set of all N events.
void fullSet(uint64_t *D, unsigned N);
/// D = identity relation.
void identity(uint64_t *D, unsigned N);
/// D = A ; B. D must not alias A or B.
void compose(uint64_t *D, const uint64_t *A, const uint64_t *B, unsigned N);
/// D = A^-1. D must not alias A.
void inverse(uint64_t *D, const uint64_t *A, unsigned N);
/// D = D+ in place.
void closeTransitively(uint64_t *D, unsigned N);
/// D = D | id in place.
void addIdentity(uint64_t *D, unsigned N);
/// D = S x T.
void product(uint64_t *D, const uint64_t *S, const uint64_t *T, unsigned N);
/// D = [S].
void identityOn(uint64_t *D, const uint64_t *S, unsigned N);
/// D = pairs of A with source in S and target in T. D may alias A.
void restrict(uint64_t *D, const uint64_t *A, const uint64_t *S,
              const uint64_t *T, unsigned N);
/// D (a set) = events with a successor in A.
void domain(uint64_t *D, const uint64_t *A, unsigned N);
/// D (a set) = events with a predecessor in A.
void range(uint64_t *D, const uint64_t *A, unsigned N);
bool isIrreflexive(const uint64_t *A, unsigned N);
bool isAcyclic(const uint64_t *A, unsigned N);
unsigned popcount(const uint64_t *A, size_t Len);

} // namespace incant::cat::bits

#endif // INCANT_LIB_CAT_BITOPS_H
