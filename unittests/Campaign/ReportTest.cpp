//===- ReportTest.cpp - What a report computes from the databases ---------===//
#include "incant/Campaign/Report.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

using namespace incant::campaign;
namespace fs = std::filesystem;

namespace {

class ReportTest : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = fs::temp_directory_path() /
          ("incant-report-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(Dir);
    fs::create_directories(Dir);
    std::string E;
    auto S = Store::open(path("a.sqlite"), Store::Mode::Write, E);
    ASSERT_TRUE(S) << E;
    // SB: its weak state (both 0) observed; sc forbids it, ptx allows it.
    TestRecord SB = test("SB+cta-global", "SB");
    ResultRecord R = result(SB, 100,
                            {{"0:r2=0; 1:r2=0;", true, 5},
                             {"0:r2=0; 1:r2=1;", false, 50},
                             {"0:r2=1; 1:r2=0;", false, 45}});
    std::vector<VerdictRecord> V = {{"sc",
                                     false,
                                     false,
                                     4,
                                     {{"0:r2=0; 1:r2=1;", false, 0},
                                      {"0:r2=1; 1:r2=0;", false, 0},
                                      {"0:r2=1; 1:r2=1;", false, 0}}},
                                    {"ptx",
                                     true,
                                     false,
                                     4,
                                     {{"0:r2=0; 1:r2=0;", true, 0},
                                      {"0:r2=0; 1:r2=1;", false, 0},
                                      {"0:r2=1; 1:r2=0;", false, 0},
                                      {"0:r2=1; 1:r2=1;", false, 0}}}};
    R.OptCheck = "optcheck: ok";
    ASSERT_TRUE(S->put(SB, V, R));
    // MP <evil>: nothing weak seen; ptx allows the weak state.
    TestRecord MP = test("MP+<evil>&", "MP");
    ResultRecord R2 = result(MP, 200, {{"1:r0=0; 1:r2=0;", false, 200}});
    std::vector<VerdictRecord> V2 = {
        {"ptx",
         true,
         false,
         4,
         {{"1:r0=0; 1:r2=0;", false, 0}, {"1:r0=1; 1:r2=0;", true, 0}}}};
    R2.OptCheck = "optcheck: FAILED (1 load of 2 missing)";
    ASSERT_TRUE(S->put(MP, V2, R2));
    // A broken test.
    TestRecord Bad = test("broken", "broken");
    ResultRecord R3;
    R3.TestHash = Bad.Hash;
    R3.Params = "{}";
    R3.Chip = "cpu";
    R3.Backend = "opencl";
    R3.Error = true;
    R3.ErrorText = "broken.litmus:1:1: error: expected a header\nmore\n";
    ASSERT_TRUE(S->put(Bad, {}, R3));
  }
  void TearDown() override { fs::remove_all(Dir); }
  std::string path(const std::string &Name) { return (Dir / Name).string(); }

  static TestRecord test(const std::string &Name, const std::string &Family) {
    TestRecord T;
    T.Source = "GPU_PTX " + Name;
    T.Hash = testHash(T.Source);
    T.Name = Name;
    T.Path = Name + ".litmus";
    T.Family = Family;
    T.Scope = "cta-global";
    return T;
  }
  static ResultRecord result(const TestRecord &T, uint64_t N,
                             std::vector<StateRecord> H) {
    ResultRecord R;
    R.TestHash = T.Hash;
    R.Params = "{}";
    R.Chip = "cpu";
    R.Backend = "opencl";
    R.Instances = N;
    for (const StateRecord &S : H)
      (S.Satisfies ? R.Positive : R.Negative) += S.Count;
    R.Histogram = std::move(H);
    return R;
  }
  fs::path Dir;
};

TEST_F(ReportTest, ListsAndGroups) {
  ReportData D;
  std::string E;
  ASSERT_TRUE(loadReport({path("a.sqlite")}, D, E)) << E;
  ASSERT_EQ(D.Rows.size(), 3u);
  EXPECT_EQ(D.Rows[0].Test.Family, "MP"); // sorted by family
  EXPECT_EQ(D.Models, (std::vector<std::string>{"sc", "ptx"}));
  // sc forbids SB's observed weak state; ptx forbids nothing observed.
  ASSERT_EQ(D.ObservedForbidden.size(), 1u);
  EXPECT_EQ(D.ObservedForbidden[0].Model, "sc");
  EXPECT_EQ(D.ObservedForbidden[0].State, "0:r2=0; 1:r2=0;");
  EXPECT_EQ(D.ObservedForbidden[0].Count, 5u);
  // Allowed, never seen: sc and ptx's (1,1) of SB, ptx's weak MP state.
  ASSERT_EQ(D.AllowedUnseen.size(), 3u);
  EXPECT_EQ(D.AllowedUnseen[0].Model, "sc");
  EXPECT_EQ(D.AllowedUnseen[1].Model, "ptx");
  bool WeakMP = false;
  for (const auto &U : D.AllowedUnseen)
    WeakMP |= U.Satisfies && D.Rows[U.Row].Test.Family == "MP";
  EXPECT_TRUE(WeakMP);
  ASSERT_EQ(D.Summaries.size(), 2u);
  EXPECT_EQ(D.Summaries[0].Model, "sc");
  EXPECT_EQ(D.Summaries[0].Unsound, 1u);
  EXPECT_EQ(D.Summaries[1].Unsound, 0u);
  EXPECT_EQ(D.Summaries[1].Allows, 2u);
  ASSERT_EQ(D.Groups.size(), 2u); // the error is in no group
  EXPECT_EQ(D.Groups[1].Family, "SB");
  EXPECT_EQ(D.Groups[1].Positive, 5u);
  EXPECT_EQ(D.Groups[1].WeakTests, 1u);
  EXPECT_EQ(D.OptCheck.at("ok"), 1u);
  EXPECT_EQ(D.OptCheck.at("FAILED"), 1u);
  ASSERT_EQ(D.OptCheckFailed.size(), 1u);
  EXPECT_EQ(D.Rows[D.OptCheckFailed[0]].Test.Family, "MP");
}

TEST_F(ReportTest, SameDatabaseTwiceCountsOnce) {
  ReportData D;
  std::string E;
  ASSERT_TRUE(loadReport({path("a.sqlite"), path("a.sqlite")}, D, E)) << E;
  EXPECT_EQ(D.Rows.size(), 3u);
  EXPECT_EQ(D.Duplicates, 3u);
  EXPECT_FALSE(loadReport({path("none.sqlite")}, D, E));
}

TEST_F(ReportTest, TextAndHtml) {
  ReportData D;
  std::string E;
  ASSERT_TRUE(loadReport({path("a.sqlite")}, D, E)) << E;
  std::ostringstream T;
  printTextReport(D, 50, T);
  EXPECT_NE(T.str().find("3 result(s) of 3 test(s), 1 error(s)"),
            std::string::npos)
      << T.str();
  EXPECT_NE(T.str().find("sc: SB+cta-global: 0:r2=0; 1:r2=0; (weak) seen 5 "
                         "of 100"),
            std::string::npos)
      << T.str();
  EXPECT_NE(T.str().find("\n  broken.litmus:1:1: error: expected a header\n"),
            std::string::npos)
      << T.str();
  EXPECT_NE(T.str().find("Optcheck (the compiled code keeps the test's "
                         "accesses): 1 FAILED 1 ok\n  MP+<evil>&: optcheck: "
                         "FAILED (1 load of 2 missing)\n"),
            std::string::npos)
      << T.str();
  std::ostringstream L;
  printTextReport(D, 1, L);
  EXPECT_NE(L.str().find("ptx: ... and 1 more"), std::string::npos) << L.str();

  std::ostringstream H;
  printHtmlReport(D, H);
  std::string S = H.str();
  EXPECT_EQ(S.find("<evil>"), std::string::npos);
  EXPECT_NE(S.find("MP+&lt;evil&gt;&amp;"), std::string::npos);
  EXPECT_NE(S.find("<svg"), std::string::npos);
  EXPECT_EQ(S.find("http://www.w3.org/2000/svg"), S.find("http"))
      << "the page must load nothing from the network";
  EXPECT_NE(S.find("</html>"), std::string::npos);
}

} // namespace
