//===- ModelFinderTest.cpp - Loading shipped models by name ---------------===//
#include "incant/Cat/ModelFinder.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::cat;

namespace {

TEST(ModelFinderTest, LoadsShippedModelsByNameOnce) {
  ModelFinder F;
  DiagnosticEngine Diags;
  const Model *Ptx = F.get("ptx", Diags);
  ASSERT_TRUE(Ptx) << (Diags.diagnostics().empty()
                           ? ""
                           : DiagnosticEngine::format(Diags.diagnostics()[0]));
  EXPECT_EQ(F.get("ptx", Diags), Ptx);
  EXPECT_TRUE(F.get("sc", Diags));
  EXPECT_TRUE(
      F.get(std::string(INCANT_SOURCE_DIR) + "/models/ptx-rmo.cat", Diags));
  EXPECT_EQ(Diags.numErrors(), 0u);
  EXPECT_EQ(ModelFinder::displayName("models/ptx-rmo.cat"), "ptx-rmo");
  EXPECT_EQ(ModelFinder::displayName("sc"), "sc");
}

TEST(ModelFinderTest, AnUnknownNameSaysWhereItLooked) {
  ModelFinder F({"/nonexistent-models"});
  DiagnosticEngine Diags;
  EXPECT_FALSE(F.get("tso", Diags));
  ASSERT_EQ(Diags.numErrors(), 1u);
  const std::string &M = Diags.diagnostics()[0].Message;
  EXPECT_EQ(M.rfind("no model named 'tso' (looked for tso.cat in "
                    "/nonexistent-models, ",
                    0),
            0u)
      << M;
  // Reported once: a second lookup fails quietly.
  EXPECT_FALSE(F.get("tso", Diags));
  EXPECT_EQ(Diags.numErrors(), 1u);
}

} // namespace
