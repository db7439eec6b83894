//===- ErrorTest.cpp - Error kinds and Expected ---------------------------===//
#include "incant/Support/Error.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace incant;

namespace {

Expected<std::string> half(int N) {
  if (N < 0)
    return ErrorKind::Input;
  if (N % 2)
    return ErrorKind::Internal;
  return std::to_string(N / 2);
}

TEST(ErrorTest, ExitCodesByKind) {
  EXPECT_EQ(exitCodeOf(ErrorKind::Input), 2);
  EXPECT_EQ(exitCodeOf(ErrorKind::Device), 3);
  EXPECT_EQ(exitCodeOf(ErrorKind::Internal), 3);
  EXPECT_STREQ(kindName(ErrorKind::Device), "device");
}

TEST(ErrorTest, ExpectedHoldsAValueOrAKind) {
  Expected<std::string> A = half(8);
  ASSERT_TRUE(A);
  EXPECT_EQ(*A, "4");
  EXPECT_EQ(A->size(), 1u);
  Expected<std::string> B = half(-1);
  ASSERT_FALSE(B);
  EXPECT_EQ(B.error(), ErrorKind::Input);
  EXPECT_EQ(half(3).error(), ErrorKind::Internal);
}

TEST(ErrorTest, ExpectedTakesMoveOnlyValues) {
  auto Make = [](bool Ok) -> Expected<std::unique_ptr<int>> {
    if (!Ok)
      return ErrorKind::Device;
    auto P = std::make_unique<int>(7);
    return P;
  };
  Expected<std::unique_ptr<int>> P = Make(true);
  ASSERT_TRUE(P);
  EXPECT_EQ(**P, 7);
  std::unique_ptr<int> Taken = std::move(*P);
  EXPECT_EQ(*Taken, 7);
  EXPECT_EQ(Make(false).error(), ErrorKind::Device);
}

} // namespace
