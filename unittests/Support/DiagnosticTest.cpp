#include "incant/Support/Diagnostic.h"
#include "incant/Support/InputFile.h"

#include <gtest/gtest.h>

using namespace incant;

TEST(SourceFile, LocAtAndLine) {
  SourceFile F("t.litmus", "ab\ncde\n\nf");
  SourceLoc L = F.locAt(4);
  EXPECT_EQ(L.Line, 2u);
  EXPECT_EQ(L.Col, 2u);
  EXPECT_EQ(F.line(2), "cde");
  EXPECT_EQ(F.line(3), "");
  EXPECT_EQ(F.line(4), "f");
  EXPECT_EQ(F.line(5), "");
}

TEST(DiagnosticEngine, FormatsLocationLineAndCaret) {
  auto F = std::make_shared<SourceFile>("t.litmus", "x=0;\n  ld.foo r0, [x];\n");
  DiagnosticEngine D;
  D.error(F, {F->locAt(7), F->locAt(13)}, "unknown instruction 'ld.foo'");
  ASSERT_EQ(D.numErrors(), 1u);
  EXPECT_EQ(DiagnosticEngine::format(D.diagnostics()[0]),
            "t.litmus:2:3: error: unknown instruction 'ld.foo'\n"
            "  ld.foo r0, [x];\n"
            "  ^~~~~~\n");
}

TEST(DiagnosticEngine, NoLocation) {
  DiagnosticEngine D;
  D.error("no such model 'foo'");
  EXPECT_EQ(DiagnosticEngine::format(D.diagnostics()[0]),
            "incant: error: no such model 'foo'\n");
}

// A 5 MB line (a name in a litmus file, a PTX line) comes back as a window
// around the caret, the caret still under the right byte.
TEST(DiagnosticEngine, LongLineIsAWindowAroundTheCaret) {
  std::string Text = "x=0;\n" + std::string(5'000'000, 'a') + " bad" +
                     std::string(1000, 'b') + "\n";
  auto F = std::make_shared<SourceFile>("t.litmus", Text);
  uint32_t At = 5 + 5'000'001;
  DiagnosticEngine D;
  D.error(F, {F->locAt(At), F->locAt(At + 3)}, "unexpected 'bad'");
  std::string S = DiagnosticEngine::format(D.diagnostics()[0]);
  EXPECT_LT(S.size(), 1000u);
  size_t Nl1 = S.find('\n'), Nl2 = S.find('\n', Nl1 + 1);
  std::string Line = S.substr(Nl1 + 1, Nl2 - Nl1 - 1);
  std::string Caret = S.substr(Nl2 + 1, S.size() - Nl2 - 2);
  EXPECT_EQ(Line.substr(0, 3), "...");
  EXPECT_EQ(Line.substr(Line.size() - 3), "...");
  size_t C = Caret.find('^');
  ASSERT_NE(C, std::string::npos);
  EXPECT_EQ(Line.substr(C, 3), "bad");
  EXPECT_EQ(Caret.substr(C), "^~~");
}

TEST(DiagnosticEngine, LongMessageIsCut) {
  DiagnosticEngine D;
  D.error("unknown preset '" + std::string(5'000'000, 'p') + "'");
  std::string S = DiagnosticEngine::format(D.diagnostics()[0]);
  EXPECT_LT(S.size(), DiagnosticEngine::MaxEchoed + 100);
  EXPECT_NE(S.find("... (4999017 more bytes)"), std::string::npos) << S.substr(S.size() - 60);
}

TEST(SourceFile, AFolderIsNotAFile) {
  std::string Error;
  EXPECT_EQ(SourceFile::read("/", Error), nullptr);
  EXPECT_EQ(Error, "is a folder, not a file");
}

TEST(SourceFile, ADeviceThatNeverEndsIsReadToItsLimitOnly) {
  // /dev/zero gives bytes for ever: the read stops after MaxStreamSize
  // (it used to go on to 2 GB and abort with std::bad_alloc).
  std::string Text, Error;
  EXPECT_FALSE(readInputFile("/dev/zero", Text, Error));
  EXPECT_NE(Error.find("gives more than 268435456 bytes"), std::string::npos)
      << Error;
  EXPECT_FALSE(SourceFile::read("/dev/zero", Error));
  // /dev/null ends at once: an empty input, as from an empty file.
  ASSERT_TRUE(readInputFile("/dev/null", Text, Error)) << Error;
  EXPECT_TRUE(Text.empty());
}
