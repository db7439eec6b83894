//===- PlotTest.cpp - The SVG plots are complete, escaped documents --------===//
#include "incant/Tune/Plot.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace incant;
using namespace incant::tune;

namespace {

bool wellFormedEnough(const std::string &S) {
  return S.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0 &&
         S.find("</svg>") != std::string::npos;
}

TEST(Plot, PatchMap) {
  PatchData D;
  D.Distances = {32, 64};
  D.Offsets = {4, 8, 12};
  D.Weak = {{{1, 9, std::nullopt}, {0, 0, 20}}};
  std::string S = patchMapSvg(D, {"MP<1>"}, 3);
  EXPECT_TRUE(wellFormedEnough(S));
  EXPECT_NE(S.find("MP&lt;1&gt;"), std::string::npos);
  EXPECT_NE(S.find("d=64 l=12: 20"), std::string::npos);
  EXPECT_EQ(S.find("MP<1>"), std::string::npos);
}

TEST(Plot, SequenceRanking) {
  SequenceData D;
  D.Seqs = allSequences(2);
  D.Score = {{1, 2}, {5, 1}, {3, 3}, {0, 0}, {2, 2}, {1, 1}};
  D.BaselineScore = {0, 0};
  chooseSequence(D);
  std::string S = sequenceRankingSvg(D, {"MP", "LB"});
  EXPECT_TRUE(wellFormedEnough(S));
  EXPECT_NE(S.find("chosen: " + paperNotation(D.Seqs[D.Best])),
            std::string::npos);
  EXPECT_NE(S.find("no stress: 0"), std::string::npos);
}

TEST(Plot, SpreadCurve) {
  SpreadData D;
  D.Spreads = {1, 2, 3};
  D.Score = {{1, 2}, {5, 6}, {3, 3}};
  chooseSpread(D);
  std::string S = spreadCurveSvg(D, {"MP", "LB"});
  EXPECT_TRUE(wellFormedEnough(S));
  EXPECT_NE(S.find("chosen m = 2"), std::string::npos);
  EXPECT_NE(S.find(">50 %<"), std::string::npos);
  EXPECT_NE(S.find("<polyline"), std::string::npos);
}

TEST(Plot, RandomSearch) {
  RandomData D;
  D.Trials.resize(3);
  for (size_t I = 0; I < 3; ++I) {
    D.Trials[I].Scores.resize(2);
    D.Trials[I].Scores[0].Weak = 10 * I;
    D.Trials[I].Scores[0].Seconds = 1;
    D.Trials[I].Scores[1].Weak = 5;
    D.Trials[I].Scores[1].Seconds = 1;
  }
  D.Trials[2].Winner = true;
  D.Best = 2;
  std::string S = randomSearchSvg(D, {"MP", "S&B"});
  EXPECT_TRUE(wellFormedEnough(S));
  EXPECT_NE(S.find("winner #2"), std::string::npos);
  EXPECT_NE(S.find("MP (max 20 weak/s)"), std::string::npos);
  EXPECT_NE(S.find("S&amp;B (max 5 weak/s)"), std::string::npos);
  // A y axis: ticks from 0 to 100 % of each test's best, and its label.
  for (const char *Tick : {">0 %<", ">25 %<", ">50 %<", ">75 %<", ">100 %<"})
    EXPECT_NE(S.find(Tick), std::string::npos) << Tick;
  EXPECT_NE(S.find("weak outcomes per second, % of the test's best"),
            std::string::npos);
}

TEST(Plot, EmptyDataStillMakesAPicture) {
  EXPECT_TRUE(wellFormedEnough(patchMapSvg({}, {}, 3)));
  EXPECT_TRUE(wellFormedEnough(sequenceRankingSvg({}, {})));
  EXPECT_TRUE(wellFormedEnough(spreadCurveSvg({}, {})));
}

} // namespace
