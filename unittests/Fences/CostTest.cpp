//===- CostTest.cpp - The results and Figure 5 of `incant fences cost` ----===//
#include "incant/Fences/CostResult.h"

#include <gtest/gtest.h>

using namespace incant::fences;

namespace {

AppCost app(const std::string &Name, double No, double Cons, double Emp,
            bool Energy) {
  AppCost A;
  A.App = Name;
  unsigned Fences = 0;
  for (auto [V, Ms] : {std::pair{"no", No}, {"cons", Cons}, {"emp", Emp}}) {
    VariantCost C;
    C.Name = V;
    C.Fences = Fences;
    Fences += 7;
    C.Runs = C.Passed = C.Counted = 10;
    C.MedianMs = Ms;
    C.EnergyJ = Ms / 10;
    C.EnergyChanges = 40;
    C.EnergyOk = Energy;
    A.Variants.push_back(C);
  }
  return A;
}

size_t count(const std::string &S, const std::string &What) {
  size_t N = 0;
  for (size_t At = S.find(What); At != std::string::npos;
       At = S.find(What, At + 1))
    ++N;
  return N;
}

TEST(Cost, ResultsRoundTrip) {
  AppCost A = app("dot-nf", 0.5, 3.2, 0.55, true);
  AppCost B;
  std::string Error;
  ASSERT_TRUE(appCostFromJson(appCostJson(A), B, Error)) << Error;
  ASSERT_EQ(B.Variants.size(), 3u);
  EXPECT_EQ(B.App, "dot-nf");
  EXPECT_EQ(B.Variants[1].Name, "cons");
  EXPECT_DOUBLE_EQ(B.Variants[1].MedianMs, 3.2);
  EXPECT_EQ(B.Variants[2].Fences, 14u);
  EXPECT_FALSE(appCostFromJson("{}", B, Error));
  EXPECT_FALSE(appCostFromJson("not json", B, Error));
}

TEST(Cost, FigureFiveHasBothPanels) {
  std::string Svg = costPlotSvg({app("dot-nf", 0.5, 3.2, 0.55, true),
                                 app("scan-nf", 0.03, 0.09, 0.04, true)});
  EXPECT_EQ(Svg.rfind("<svg", 0), 0u);
  EXPECT_NE(Svg.find(">Energy</text>"), std::string::npos);
  EXPECT_NE(Svg.find(">Runtime</text>"), std::string::npos);
  // Per panel and application one dot (cons) and one cross (emp); the
  // legend has one of each.
  EXPECT_EQ(count(Svg, "<circle"), 2u * 2u + 1u);
  EXPECT_EQ(count(Svg, "(emp)"), 2u * 2u);
  EXPECT_NE(Svg.find("<title>scan-nf (cons): 0.03 / 0.09 ms</title>"),
            std::string::npos);
  EXPECT_EQ(Svg.substr(Svg.size() - 7), "</svg>\n");
}

TEST(Cost, NoEnergyNoEnergyPoints) {
  std::string Svg = costPlotSvg({app("a", 1, 2, 1.1, false)});
  EXPECT_EQ(count(Svg, "no data"), 1u); // the energy panel
  EXPECT_EQ(count(Svg, "<circle"), 1u + 1u);
}

} // namespace

TEST(Cost, MoreEnergyRunsAtTheRateSeen) {
  EXPECT_EQ(moreEnergyRuns(100, 20, 100), 0u); // enough
  EXPECT_EQ(moreEnergyRuns(150, 20, 100), 0u);
  // 20 steps in 20 runs: 80 more at one a run, but at most 20 this round.
  EXPECT_EQ(moreEnergyRuns(20, 20, 100), 20u);
  // 60 in 20 runs: 40 missing at 3 a run.
  EXPECT_EQ(moreEnergyRuns(60, 20, 100), 14u);
  // None seen yet: one in two runs assumed, still at most doubling.
  EXPECT_EQ(moreEnergyRuns(0, 20, 100), 20u);
  EXPECT_EQ(moreEnergyRuns(0, 0, 100), 1u);
  // Close to the target: at least one run.
  EXPECT_EQ(moreEnergyRuns(99, 3, 100), 1u);
}
