//===- ImageScanTest.cpp - Finding units in binaries ----------------------===//
#include "incant/Intercept/ImageScan.h"
#include "runtime/incant_control.h"

#include <gtest/gtest.h>

using namespace incant::intercept;

namespace {

UnitManifest unit(const std::string &Id) {
  UnitManifest M;
  M.Id = Id;
  M.Target = "sm_90";
  M.Passes = {"randomise"};
  M.Functions = {{"_Z1kPi", true, true, "", false, {}}};
  M.Sites = {
      {0, "randomise", "_Z1kPi", "%tid.x read", 3, "a.cu", 1, 2, "", "", ""}};
  return M;
}

std::string rawCopy(const UnitManifest &M) {
  return INCANT_UNIT_MAGIC + manifestToJson(M) + std::string(1, '\0');
}

std::string ptxCopy(const UnitManifest &M) {
  std::string Bytes = rawCopy(M), List;
  for (char C : Bytes)
    List += (List.empty() ? "" : ", ") +
            std::to_string(static_cast<unsigned char>(C));
  return ".visible .global .align 1 .b8 " + unitVarName(M.Id) + "[" +
         std::to_string(Bytes.size()) + "] = {" + List + "};\n";
}

TEST(ImageScan, RawCopiesInBinaryNoise) {
  UnitManifest A = unit("0123456789abcdef"), B = unit("fedcba9876543210");
  std::string Bin = std::string("\x7f" "ELF\0\0junk", 9) + rawCopy(A) +
                    std::string(100, '\0') + rawCopy(B) + rawCopy(A) + "tail";
  auto U = findUnits(Bin);
  ASSERT_EQ(U.size(), 2u);
  EXPECT_EQ(U[0].Id, A.Id);
  ASSERT_TRUE(U[0].Manifest);
  EXPECT_EQ(*U[0].Manifest, A);
  EXPECT_EQ(U[1].Id, B.Id);
}

TEST(ImageScan, PtxText) {
  UnitManifest A = unit("00000000000000aa");
  auto U = findUnits(".version 9.0\n" + ptxCopy(A) + ".visible .entry k() {}\n");
  ASSERT_EQ(U.size(), 1u);
  ASSERT_TRUE(U[0].Manifest) << U[0].Error;
  EXPECT_EQ(*U[0].Manifest, A);
}

TEST(ImageScan, NameOnly) {
  // A symbol table names the unit; the data is elsewhere (compressed).
  auto U = findUnits(std::string("\0__incant_unit_0123456789abcdef\0", 32));
  ASSERT_EQ(U.size(), 1u);
  EXPECT_FALSE(U[0].Manifest);
  EXPECT_NE(U[0].Error.find("only the unit's name"), std::string::npos);
}

TEST(ImageScan, NotUnits) {
  EXPECT_TRUE(findUnits("").empty());
  EXPECT_TRUE(findUnits("__incant_unit_0123").empty());
  EXPECT_TRUE(findUnits("__incant_unit_0123456789abcdefg").empty());
  EXPECT_TRUE(findUnits("__incant_unit_0123456789ABCDEF").empty());
  // A cut-short raw copy names no unit.
  EXPECT_TRUE(findUnits(std::string(INCANT_UNIT_MAGIC) + "{\"unit\":").empty());
}

TEST(ImageScan, CorruptPtxCopy) {
  UnitManifest A = unit("00000000000000bb");
  std::string Text = ptxCopy(A);
  Text.replace(Text.find("= {") + 3, 2, "300"); // a byte above 255
  auto U = findUnits(Text);
  ASSERT_EQ(U.size(), 1u);
  EXPECT_FALSE(U[0].Manifest);
}

} // namespace
