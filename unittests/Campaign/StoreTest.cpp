//===- StoreTest.cpp - The SQLite results store ---------------------------===//
#include "incant/Campaign/Report.h"
#include "incant/Campaign/Store.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

using namespace incant::campaign;
namespace fs = std::filesystem;

namespace {

/// A fresh folder per test, removed afterwards.
class StoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = fs::temp_directory_path() /
          ("incant-store-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(Dir);
    fs::create_directories(Dir);
  }
  void TearDown() override { fs::remove_all(Dir); }
  std::string path(const std::string &Name) { return (Dir / Name).string(); }
  fs::path Dir;
};

TestRecord test(const std::string &Name) {
  TestRecord T;
  T.Source = "GPU_PTX " + Name + "\n...";
  T.Hash = testHash(T.Source);
  T.Name = Name;
  T.Path = Name + ".litmus";
  T.Family = "MP";
  T.Scope = "cta-global";
  T.Condition = "exists (1:r0=1 /\\ 1:r2=0)";
  return T;
}

ResultRecord result(const TestRecord &T, const std::string &Params = "{}",
                    const std::string &Chip = "cpu") {
  ResultRecord R;
  R.TestHash = T.Hash;
  R.Params = Params;
  R.Chip = Chip;
  R.Backend = "opencl";
  R.Instances = 100;
  R.Positive = 3;
  R.Negative = 97;
  R.ConditionOk = true;
  R.Seconds = 0.5;
  R.OptCheck = "optcheck: ok";
  R.Histogram = {{"1:r0=0; 1:r2=0;", false, 97}, {"1:r0=1; 1:r2=0;", true, 3}};
  return R;
}

std::vector<VerdictRecord> verdicts() {
  VerdictRecord Sc{"sc", false, false, 4, {{"1:r0=0; 1:r2=0;", false, 0}}};
  VerdictRecord Ptx{
      "ptx",
      true,
      false,
      4,
      {{"1:r0=0; 1:r2=0;", false, 0}, {"1:r0=1; 1:r2=0;", true, 0}}};
  return {Sc, Ptx};
}

TEST(TestHash, StableAndDistinct) {
  EXPECT_EQ(testHash(""), "cbf29ce484222325"); // FNV-1a's offset basis
  EXPECT_EQ(testHash("a"), "af63dc4c8601ec8c");
  EXPECT_NE(testHash("MP"), testHash("SB"));
}

TEST_F(StoreTest, PutThenReadBack) {
  std::string E;
  auto S = Store::open(path("a.sqlite"), Store::Mode::Write, E);
  ASSERT_TRUE(S) << E;
  EXPECT_EQ(S->numResults(), 0u);
  TestRecord T = test("MP+x");
  bool Added = false;
  ASSERT_TRUE(S->put(T, verdicts(), result(T), &Added)) << S->error();
  EXPECT_TRUE(Added);
  EXPECT_EQ(S->numResults(), 1u);
  EXPECT_TRUE(S->hasVerdicts(T.Hash));

  std::optional<TestRecord> T2 = S->test(T.Hash);
  ASSERT_TRUE(T2);
  EXPECT_EQ(T2->Name, "MP+x");
  EXPECT_EQ(T2->Source, T.Source);
  std::vector<VerdictRecord> V = S->verdicts(T.Hash);
  ASSERT_EQ(V.size(), 2u);
  EXPECT_EQ(V[0].Model, "ptx"); // sorted by name
  EXPECT_TRUE(V[0].Ok);
  EXPECT_EQ(V[0].Allowed.size(), 2u);
  EXPECT_EQ(V[1].Model, "sc");
  EXPECT_FALSE(V[1].Ok);

  std::vector<ResultRecord> Rs;
  ASSERT_TRUE(S->forEachResult([&](const ResultRecord &R) {
    Rs.push_back(R);
    return true;
  }));
  ASSERT_EQ(Rs.size(), 1u);
  EXPECT_EQ(Rs[0].Instances, 100u);
  EXPECT_EQ(Rs[0].Positive, 3u);
  EXPECT_EQ(Rs[0].OptCheck, "optcheck: ok");
  EXPECT_DOUBLE_EQ(Rs[0].Seconds, 0.5);
  ASSERT_EQ(Rs[0].Histogram.size(), 2u);
  EXPECT_EQ(Rs[0].Histogram[1].State, "1:r0=1; 1:r2=0;");
  EXPECT_EQ(Rs[0].Histogram[1].Count, 3u);
  EXPECT_TRUE(Rs[0].Histogram[1].Satisfies);
}

TEST_F(StoreTest, SameKeyStoredOnce) {
  std::string E;
  auto S = Store::open(path("a.sqlite"), Store::Mode::Write, E);
  ASSERT_TRUE(S) << E;
  TestRecord T = test("MP+x");
  bool Added = true;
  ASSERT_TRUE(S->put(T, verdicts(), result(T)));
  ASSERT_TRUE(S->put(T, verdicts(), result(T), &Added));
  EXPECT_FALSE(Added);
  EXPECT_EQ(S->numResults(), 1u);
  // Other parameters or another chip make another result.
  ASSERT_TRUE(S->put(T, {}, result(T, "{\"seed\":2}")));
  ASSERT_TRUE(S->put(T, {}, result(T, "{}", "gpu")));
  EXPECT_EQ(S->numResults(), 3u);
  EXPECT_EQ(S->resultKeys().size(), 3u);
  EXPECT_EQ(S->verdicts(T.Hash).size(), 2u);
}

TEST_F(StoreTest, ErrorsAreResults) {
  std::string E;
  auto S = Store::open(path("a.sqlite"), Store::Mode::Write, E);
  ASSERT_TRUE(S) << E;
  TestRecord T = test("broken");
  ResultRecord R;
  R.TestHash = T.Hash;
  R.Params = "{}";
  R.Chip = "cpu";
  R.Error = true;
  R.ErrorText = "broken.litmus:3:4: error: expected ';'\n";
  ASSERT_TRUE(S->put(T, {}, R));
  bool Seen = false;
  S->forEachResult([&](const ResultRecord &X) {
    Seen = X.Error && X.ErrorText == R.ErrorText && X.Histogram.empty();
    return true;
  });
  EXPECT_TRUE(Seen);
}

TEST_F(StoreTest, ReopenKeepsResults) {
  std::string E;
  TestRecord T = test("MP+x");
  {
    auto S = Store::open(path("a.sqlite"), Store::Mode::Write, E);
    ASSERT_TRUE(S) << E;
    ASSERT_TRUE(S->put(T, verdicts(), result(T)));
    ASSERT_TRUE(S->addRun("2026-01-01T00:00:00Z", "{\"a\":1}"));
  }
  auto S = Store::open(path("a.sqlite"), Store::Mode::Read, E);
  ASSERT_TRUE(S) << E;
  EXPECT_EQ(S->numResults(), 1u);
  ASSERT_EQ(S->runs().size(), 1u);
  EXPECT_EQ(S->runs()[0].second, "{\"a\":1}");
}

TEST_F(StoreTest, RefusesForeignFiles) {
  std::string E;
  EXPECT_FALSE(Store::open(path("missing.sqlite"), Store::Mode::Read, E));
  EXPECT_NE(E.find("no such database"), std::string::npos) << E;
  {
    std::ofstream F(path("text.sqlite"));
    F << "not a database, just text that is long enough to have a header "
         "page......................................................";
  }
  E.clear();
  EXPECT_FALSE(Store::open(path("text.sqlite"), Store::Mode::Write, E));
  EXPECT_NE(E.find("not an SQLite database"), std::string::npos) << E;
}

TEST_F(StoreTest, OneWriterAtATime) {
  std::string E;
  auto A = Store::open(path("a.sqlite"), Store::Mode::Write, E);
  ASSERT_TRUE(A) << E;
  EXPECT_FALSE(Store::open(path("a.sqlite"), Store::Mode::Write, E));
  EXPECT_NE(E.find("is being written by another incant process"),
            std::string::npos)
      << E;
  // Readers are not held up.
  EXPECT_TRUE(Store::open(path("a.sqlite"), Store::Mode::Read, E)) << E;
  A.reset();
  EXPECT_FALSE(fs::exists(path("a.sqlite-lock")));
  EXPECT_TRUE(Store::open(path("a.sqlite"), Store::Mode::Write, E)) << E;
}

TEST_F(StoreTest, ReadingNeverWrites) {
  std::string E;
  { std::ofstream F(path("zero.sqlite")); }
  EXPECT_FALSE(Store::open(path("zero.sqlite"), Store::Mode::Read, E));
  EXPECT_NE(E.find("(it is empty)"), std::string::npos) << E;
  EXPECT_EQ(fs::file_size(path("zero.sqlite")), 0u);
  EXPECT_FALSE(fs::exists(path("zero.sqlite-wal")));
  EXPECT_FALSE(Store::open(Dir.string(), Store::Mode::Read, E));
  EXPECT_NE(E.find("is a folder"), std::string::npos) << E;
}

TEST_F(StoreTest, RollbackLeavesNothing) {
  std::string E;
  auto S = Store::open(path("a.sqlite"), Store::Mode::Write, E);
  ASSERT_TRUE(S) << E;
  TestRecord T = test("MP+x");
  ASSERT_TRUE(S->begin());
  ASSERT_TRUE(S->put(T, verdicts(), result(T)));
  S->rollback();
  EXPECT_EQ(S->numResults(), 0u);
  EXPECT_FALSE(S->test(T.Hash));
}

TEST_F(StoreTest, MergeDedupes) {
  std::string E;
  TestRecord A = test("MP+a"), B = test("SB+b");
  {
    auto S1 = Store::open(path("s0.sqlite"), Store::Mode::Write, E);
    auto S2 = Store::open(path("s1.sqlite"), Store::Mode::Write, E);
    ASSERT_TRUE(S1 && S2) << E;
    ASSERT_TRUE(S1->put(A, verdicts(), result(A)));
    ASSERT_TRUE(S2->put(B, verdicts(), result(B)));
    ASSERT_TRUE(S2->put(A, verdicts(), result(A))); // in both shards
  }
  MergeStats St;
  ASSERT_FALSE(mergeStores(path("all.sqlite"),
                           {path("s0.sqlite"), path("s1.sqlite")}, St, E))
      << E;
  EXPECT_EQ(St.Added, 2u);
  EXPECT_EQ(St.Duplicates, 1u);
  auto M = Store::open(path("all.sqlite"), Store::Mode::Read, E);
  ASSERT_TRUE(M) << E;
  EXPECT_EQ(M->numResults(), 2u);
  EXPECT_EQ(M->verdicts(B.Hash).size(), 2u);
  std::vector<ResultRecord> Rs;
  M->forEachResult([&](const ResultRecord &R) {
    Rs.push_back(R);
    return true;
  });
  ASSERT_EQ(Rs.size(), 2u);
  EXPECT_EQ(Rs[0].Histogram.size(), 2u);
  // Merging again adds nothing.
  MergeStats Again;
  ASSERT_FALSE(mergeStores(path("all.sqlite"), {path("s1.sqlite")}, Again, E));
  EXPECT_EQ(Again.Added, 0u);
  EXPECT_EQ(Again.Duplicates, 2u);
}

TEST_F(StoreTest, MergeOfAMissingInputWritesNothing) {
  std::string E;
  TestRecord A = test("MP+a");
  {
    auto S1 = Store::open(path("s0.sqlite"), Store::Mode::Write, E);
    ASSERT_TRUE(S1) << E;
    ASSERT_TRUE(S1->put(A, verdicts(), result(A)));
  }
  MergeStats St;
  EXPECT_EQ(mergeStores(path("all.sqlite"),
                        {path("s0.sqlite"), path("nope.sqlite")}, St, E),
            incant::ErrorKind::Input);
  EXPECT_NE(E.find("nope.sqlite"), std::string::npos) << E;
  // The inputs are opened first: no output is made.
  EXPECT_FALSE(fs::exists(path("all.sqlite")));
  EXPECT_FALSE(mergeStores(path("all.sqlite"), {path("s0.sqlite")}, St, E));
  EXPECT_EQ(mergeStores(path("all.sqlite"), {path("all.sqlite")}, St, E),
            incant::ErrorKind::Input);
}

/// Runs \p Sql on the file at \p Path with a plain connection (no foreign
/// keys): what another program, or damage, could do to it.
void tamper(const std::string &Path, const char *Sql) {
  sqlite3 *Db = nullptr;
  ASSERT_EQ(sqlite3_open(Path.c_str(), &Db), SQLITE_OK);
  char *Msg = nullptr;
  EXPECT_EQ(sqlite3_exec(Db, Sql, nullptr, nullptr, &Msg), SQLITE_OK)
      << (Msg ? Msg : "");
  sqlite3_free(Msg);
  sqlite3_close(Db);
}

/// A store of \p N tests, one result each (rows 1 to N).
void fill(const std::string &Path, unsigned N) {
  std::string E;
  auto S = Store::open(Path, Store::Mode::Write, E);
  ASSERT_TRUE(S) << E;
  for (unsigned I = 1; I <= N; ++I) {
    TestRecord T = test("MP+" + std::to_string(I));
    ASSERT_TRUE(S->put(T, verdicts(), result(T)));
  }
}

TEST_F(StoreTest, AResultWithoutItsTestStopsMergeAndReport) {
  fill(path("s0.sqlite"), 10);
  TestRecord Sixth = test("MP+6");
  tamper(path("s0.sqlite"),
         ("DELETE FROM tests WHERE hash='" + Sixth.Hash + "'").c_str());
  MergeStats St;
  std::string E;
  EXPECT_EQ(mergeStores(path("all.sqlite"), {path("s0.sqlite")}, St, E),
            incant::ErrorKind::Input);
  EXPECT_NE(E.find("result 6"), std::string::npos) << E;
  EXPECT_NE(E.find("nothing was merged"), std::string::npos) << E;
  // One transaction: none of the five results before it was kept.
  EXPECT_EQ(St.Added, 0u);
  auto M = Store::open(path("all.sqlite"), Store::Mode::Read, E);
  ASSERT_TRUE(M) << E;
  EXPECT_EQ(M->numResults(), 0u);
  ReportData D;
  EXPECT_FALSE(loadReport({path("s0.sqlite")}, D, E));
  EXPECT_NE(E.find("result 6 is of test " + Sixth.Hash), std::string::npos)
      << E;
}

TEST_F(StoreTest, ADamagedStoreIsNeverRead) {
  fill(path("s0.sqlite"), 300);
  // 400 bytes of 0xff over a page of the results' index (the damage that
  // made report list results the intact database does not have).
  uint64_t Root = 0, PageSize = 0;
  {
    sqlite3 *Db = nullptr;
    ASSERT_EQ(sqlite3_open(path("s0.sqlite").c_str(), &Db), SQLITE_OK);
    sqlite3_stmt *Q = nullptr;
    sqlite3_prepare_v2(Db,
                       "SELECT rootpage FROM sqlite_master WHERE type='index' "
                       "AND tbl_name='results'",
                       -1, &Q, nullptr);
    ASSERT_EQ(sqlite3_step(Q), SQLITE_ROW);
    Root = uint64_t(sqlite3_column_int64(Q, 0));
    sqlite3_finalize(Q);
    sqlite3_prepare_v2(Db, "PRAGMA page_size", -1, &Q, nullptr);
    ASSERT_EQ(sqlite3_step(Q), SQLITE_ROW);
    PageSize = uint64_t(sqlite3_column_int64(Q, 0));
    sqlite3_finalize(Q);
    sqlite3_close(Db);
  }
  ASSERT_GT(Root, 1u);
  {
    std::fstream F(path("s0.sqlite"),
                   std::ios::in | std::ios::out | std::ios::binary);
    F.seekp(std::streamoff((Root - 1) * PageSize + 8));
    F << std::string(400, '\xff');
  }
  std::string E;
  EXPECT_FALSE(Store::open(path("s0.sqlite"), Store::Mode::Read, E));
  EXPECT_NE(E.find(path("s0.sqlite") + " is damaged"), std::string::npos)
      << E;
  ReportData D;
  EXPECT_FALSE(loadReport({path("s0.sqlite")}, D, E));
  MergeStats St;
  EXPECT_EQ(mergeStores(path("all.sqlite"), {path("s0.sqlite")}, St, E),
            incant::ErrorKind::Input);
  EXPECT_FALSE(fs::exists(path("all.sqlite")));
}

TEST_F(StoreTest, ReadersLeaveNoFilesBeside) {
  fill(path("s0.sqlite"), 3);
  ASSERT_FALSE(fs::exists(path("s0.sqlite-wal")));
  std::string E;
  {
    auto R = Store::open(path("s0.sqlite"), Store::Mode::Read, E);
    ASSERT_TRUE(R) << E;
    EXPECT_EQ(R->numResults(), 3u);
  }
  ReportData D;
  ASSERT_TRUE(loadReport({path("s0.sqlite")}, D, E)) << E;
  MergeStats St;
  ASSERT_FALSE(mergeStores(path("all.sqlite"), {path("s0.sqlite")}, St, E))
      << E;
  for (const char *Side : {"-wal", "-shm", "-lock"})
    EXPECT_FALSE(fs::exists(path("s0.sqlite") + Side)) << Side;
  // While a writer holds the store, a reader leaves its files alone.
  auto W = Store::open(path("s0.sqlite"), Store::Mode::Write, E);
  ASSERT_TRUE(W) << E;
  {
    auto R = Store::open(path("s0.sqlite"), Store::Mode::Read, E);
    ASSERT_TRUE(R) << E;
  }
  EXPECT_TRUE(fs::exists(path("s0.sqlite-shm")));
}

} // namespace
