//===- ManifestTest.cpp - Unit manifests as JSON --------------------------===//
#include "incant/Intercept/Manifest.h"

#include <gtest/gtest.h>

using namespace incant::intercept;

namespace {

UnitManifest sample() {
  UnitManifest M;
  M.Id = "0123456789abcdef";
  M.Target = "sm_90";
  M.PtxFile = "/tmp/a.ptx";
  M.Source = "/src/a.cu";
  M.Passes = {"randomise"};
  M.Functions = {{"_Z1kPi", true, true, "", true, {"_Z1fv", "*"}},
                 {"_Z1fv", false, false, "uses clusters (mapa)", false, {}}};
  M.Sites = {{0, "randomise", "_Z1kPi", "%ctaid.x read", 27, "/src/a.cu", 2, 30, "", "", ""},
             {1, "randomise", "_Z1kPi", "%tid.x read", 28, "", 0, 0, "", "", ""}};
  M.Orders = {{"_Z1kPi", "fence.sc.gpu", 31, "/src/a.cu", 5, 3, "/src/a.cu",
               4, 9}};
  M.Notes = {"a note"};
  return M;
}

TEST(Manifest, RoundTrip) {
  UnitManifest M = sample();
  std::string Error;
  auto Back = manifestFromJson(manifestToJson(M), Error);
  ASSERT_TRUE(Back) << Error;
  EXPECT_EQ(*Back, M);
}

TEST(Manifest, Malformed) {
  std::string Error;
  EXPECT_FALSE(manifestFromJson("not json", Error));
  EXPECT_NE(Error.find("not a JSON object"), std::string::npos) << Error;
  EXPECT_FALSE(manifestFromJson(R"({"unit": "0123"})", Error));
  EXPECT_FALSE(manifestFromJson(
      R"({"unit": "xyz3456789abcdef", "functions": [], "sites": []})", Error));
  EXPECT_NE(Error.find("not a unit id"), std::string::npos) << Error;
  EXPECT_FALSE(manifestFromJson(
      R"({"unit": "0123456789abcdef", "functions": [{"entry": true}], "sites": []})",
      Error));
  EXPECT_NE(Error.find("malformed manifest"), std::string::npos) << Error;
}

TEST(Manifest, Names) {
  EXPECT_EQ(unitVarName("0123456789abcdef"), "__incant_unit_0123456789abcdef");
  EXPECT_EQ(ctlVarName("0123456789abcdef"), "__incant_ctl_0123456789abcdef");
  EXPECT_EQ(kernelCtlName("_Z1kPi"), "__incant_k__Z1kPi");
  EXPECT_TRUE(isUnitId("0123456789abcdef"));
  EXPECT_FALSE(isUnitId("0123456789ABCDEF"));
  EXPECT_FALSE(isUnitId("0123456789abcde"));
}

} // namespace
