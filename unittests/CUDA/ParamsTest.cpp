//===- ParamsTest.cpp - The harness's remainders without division ---------===//
//
// incant_params.h's incant_mod64, incant_mod32 and incant_div32 replace the
// CUDA harness's `%` and `/` by run-time values (Barrett reduction with a
// magic number from the host). The device computes them with the same
// formulas (__umul64hi, __umulhi for the host's high-product helpers), so
// they must equal `%` and `/` for every dividend and divisor the harness
// can meet: checked here on the edges (0, d - 1, d, multiples of d and
// their neighbours, the largest values) and on random values, for small
// divisors, powers of two and their neighbours, and the largest divisors.
//
//===----------------------------------------------------------------------===//
#include "runtime/incant_params.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

__extension__ typedef unsigned __int128 U128;

std::vector<uint32_t> divisors() {
  std::vector<uint32_t> D;
  for (uint32_t V = 1; V <= 2100; ++V)
    D.push_back(V);
  for (uint32_t S = 11; S < 32; ++S)
    for (int64_t Dv = -1; Dv <= 1; ++Dv)
      D.push_back(static_cast<uint32_t>((int64_t(1) << S) + Dv));
  for (uint32_t V : {131072u, 4718592u, 0x7FFFFFFFu, 0x80000000u,
                     0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu})
    D.push_back(V);
  std::mt19937 Rng(19);
  for (int I = 0; I < 2000; ++I)
    D.push_back(Rng() | 1u);
  return D;
}

std::vector<uint64_t> dividends(uint32_t D, std::mt19937_64 &Rng) {
  std::vector<uint64_t> X = {0,
                             1,
                             D - 1ull,
                             D,
                             D + 1ull,
                             2ull * D - 1,
                             2ull * D,
                             0xFFFFFFFFull,
                             0x100000000ull,
                             ~0ull,
                             ~0ull - 1};
  for (uint64_t K : {3ull, 1000ull, 0xFFFFFFFFull, ~0ull / D})
    for (int64_t Dv = -1; Dv <= 1; ++Dv)
      X.push_back(K * D + static_cast<uint64_t>(Dv));
  for (int I = 0; I < 64; ++I) {
    X.push_back(Rng());
    X.push_back(Rng() >> 32);
    X.push_back(static_cast<uint64_t>(static_cast<uint32_t>(Rng() % 4096)) *
                static_cast<uint32_t>(Rng()));
  }
  return X;
}

TEST(CudaParams, MagicIsTwoToThe64OverD) {
  EXPECT_EQ(incant_magic64(1), ~0ull);
  for (uint32_t D : divisors()) {
    if (D > 1) {
      EXPECT_EQ(incant_magic64(D),
                static_cast<uint64_t>((U128(1) << 64) / D))
          << D;
    }
  }
}

TEST(CudaParams, HostHighProductIsExact) {
  std::mt19937_64 Rng(7);
  for (int I = 0; I < 100000; ++I) {
    uint64_t A = Rng(), B = Rng();
    if (I % 4 == 0)
      A = ~0ull - (A & 0xFF);
    if (I % 8 == 1)
      B = ~0ull;
    EXPECT_EQ(incant_mulhi64_host(A, B),
              static_cast<uint64_t>((U128(A) * B) >> 64));
  }
}

TEST(CudaParams, RemaindersAndQuotientsAreExact) {
  std::mt19937_64 Rng(5);
  size_t Checked = 0;
  for (uint32_t D : divisors()) {
    const uint64_t M = incant_magic64(D);
    for (uint64_t X : dividends(D, Rng)) {
      ASSERT_EQ(incant_mod64(X, D, M), X % D) << X << " % " << D;
      const uint32_t X32 = static_cast<uint32_t>(X);
      ASSERT_EQ(incant_mod32(X32, D, M), X32 % D) << X32 << " % " << D;
      ASSERT_EQ(incant_div32(X32, D, M), X32 / D) << X32 << " / " << D;
      ++Checked;
    }
  }
  EXPECT_GT(Checked, 800000u); // 896,550 checks
}

} // namespace
