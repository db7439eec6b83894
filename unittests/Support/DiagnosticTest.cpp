#include "incant/Support/Diagnostic.h"

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
