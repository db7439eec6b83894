//===- ParserTest.cpp - Tests of the litmus parser and printer ------------===//
#include "Helpers.h"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace incant;
using namespace incant::litmus;
using namespace incant::litmus::test;

namespace {

TEST(LitmusParser, ThesisSB) {
  Parsed P = parseText(SBText);
  ASSERT_TRUE(P.T);
  const litmus::Test &T = *P.T;
  EXPECT_EQ(T.A, Arch::GPU_PTX);
  EXPECT_EQ(T.Name, "SB");
  EXPECT_EQ(T.NameRange.Begin.Col, 9u);
  ASSERT_EQ(T.Init.size(), 8u);
  EXPECT_EQ(T.Init[2].K, InitItem::RegDecl);
  EXPECT_EQ(T.Init[2].Thread, 0);
  EXPECT_EQ(T.Init[2].Ty, (ptx::Type{ptx::Type::B, 64}));
  EXPECT_EQ(T.Init[2].Name, "r1");
  ASSERT_TRUE(T.Init[2].Init);
  EXPECT_TRUE(T.Init[2].Init->IsLoc);
  EXPECT_EQ(T.Init[2].Init->Loc, "x");
  EXPECT_EQ(T.Init[2].Range.Begin.Line, 5u);
  ASSERT_EQ(T.Threads.size(), 2u);
  EXPECT_EQ(T.Threads[1].Id, 1);
  EXPECT_EQ(T.Threads[1].Range.Begin.Line, 13u);
  EXPECT_EQ(T.Threads[1].Range.Begin.Col, 6u);
  ASSERT_EQ(T.Rows.size(), 3u);
  const Cell &C = T.Rows[1].Cells[1];
  ASSERT_TRUE(C.Stmt.Inst);
  EXPECT_EQ(C.Stmt.Inst->Op, ptx::Opcode::St);
  EXPECT_EQ(C.Range.Begin.Line, 15u);
  EXPECT_EQ(C.Range.Begin.Col, 21u);
  EXPECT_EQ(C.Stmt.Inst->Ops[0].Range.Begin.Col, 31u);
  ASSERT_TRUE(T.Scopes);
  EXPECT_EQ(T.Scopes->Level, ScopeLevel::Device);
  ASSERT_EQ(T.Scopes->Kids.size(), 1u);
  EXPECT_EQ(T.Scopes->Kids[0].Level, ScopeLevel::CTA);
  EXPECT_EQ(T.Scopes->Kids[0].Kids.size(), 2u);
  EXPECT_EQ(T.Scopes->Kids[0].Kids[1].Kids[0].Thread, 1);
  ASSERT_EQ(T.MemMap.size(), 2u);
  EXPECT_EQ(T.MemMap[1].Name, "x");
  EXPECT_EQ(T.MemMap[1].R, Region::Shared);
  EXPECT_EQ(T.Q, Quantifier::Exists);
  EXPECT_EQ(T.Condition.K, CondExpr::And);
  ASSERT_EQ(T.Condition.Kids.size(), 2u);
  EXPECT_TRUE(T.Condition.Kids[1].Lhs.IsRef);
  EXPECT_EQ(T.Condition.Kids[1].Lhs.Ref.Thread, 1);
  EXPECT_EQ(T.Condition.Kids[1].Lhs.Ref.Name, "r2");
  EXPECT_EQ(T.Condition.Kids[1].Range.Begin.Line, 24u);
  EXPECT_EQ(T.Condition.Kids[1].Range.Begin.Col, 12u);
}

TEST(LitmusParser, AsplosLayout) {
  // ASPLOS'15 Fig. 12: two declarations per line, tree on one line.
  Parsed P = parseText(R"(GPU_PTX SB
{0:.reg .s32 r0; 0:.reg .s32 r2;
0:.reg .b64 r1 = x; 0:.reg .b64 r3 = y;
1:.reg .s32 r0; 1:.reg .s32 r2;
1:.reg .b64 r1 = y; 1:.reg .b64 r3 = x;}
T0 | T1 ;
mov.s32 r0,1 | mov.s32 r0,1 ;
st.cg.s32 [r1],r0 | st.cg.s32 [r1],r0 ;
ld.cg.s32 r2,[r3] | ld.cg.s32 r2,[r3] ;
ScopeTree(grid(cta(warp T0) (warp T1)))
x: shared, y: global
exists (0:r2=0 /\ 1:r2=0)
)");
  ASSERT_TRUE(P.T);
  EXPECT_EQ(P.T->Init.size(), 8u);
  EXPECT_EQ(P.T->Scopes->Level, ScopeLevel::Grid);
}

TEST(LitmusParser, PTXDialect) {
  Parsed P = parseText(R"(PTX MP+rel-acq
"Message passing,
two lines of comment"
{
x=0; y=0x10;
P1:%r0=0;
P1:r1=-2;
}
 P0@cta 0,gpu 0      | P1@cta 1,cluster 2,gpu 0 ;
 st.weak x, 1        | LC00:                    ;
 st.release.gpu y, 1 | ld.acquire.gpu %r0, y    ;
                     | ld.weak r1, x            ;
~exists
(P1:%r0 == 1 /\ P1:r1 != 1)
)");
  ASSERT_TRUE(P.T);
  const litmus::Test &T = *P.T;
  EXPECT_EQ(T.A, Arch::PTX);
  EXPECT_EQ(T.Name, "MP+rel-acq");
  ASSERT_EQ(T.Comments.size(), 1u);
  EXPECT_EQ(T.Comments[0], "Message passing,\ntwo lines of comment");
  EXPECT_EQ(T.Init[1].K, InitItem::LocInit);
  EXPECT_EQ(T.Init[1].Init->Int, 16);
  EXPECT_EQ(T.Init[2].K, InitItem::RegInit);
  EXPECT_EQ(T.Init[2].Thread, 1);
  EXPECT_EQ(T.Init[2].Name, "%r0");
  EXPECT_EQ(T.Init[3].Init->Int, -2);
  EXPECT_TRUE(T.Threads[0].HasPlacement);
  EXPECT_EQ(T.Threads[0].CTA, 0);
  EXPECT_EQ(T.Threads[0].Cluster, -1);
  EXPECT_EQ(T.Threads[1].Cluster, 2);
  EXPECT_EQ(T.Threads[1].CTA, 1);
  EXPECT_EQ(T.Rows[0].Cells[1].Stmt.Labels.size(), 1u);
  EXPECT_TRUE(T.Rows[2].Cells[0].Stmt.empty());
  EXPECT_EQ(T.Q, Quantifier::NotExists);
  EXPECT_EQ(T.Condition.Kids[1].K, CondExpr::Ne);
}

TEST(LitmusParser, ConditionForms) {
  auto Cond = [](const std::string &C) {
    std::string Text = "PTX t\n{ x=0; }\n P0 ;\n st.weak x, 1 ;\n" + C + "\n";
    Parsed P = parseText(Text);
    EXPECT_TRUE(P.T) << C;
    return P.T ? printCondition(*P.T, P.T->Condition) : std::string();
  };
  EXPECT_EQ(Cond("forall true"), "true");
  EXPECT_EQ(Cond("exists false"), "false");
  EXPECT_EQ(Cond("exists x=1 \\/ x=2 /\\ P0:r0=1"),
            "x == 1 \\/ x == 2 /\\ P0:r0 == 1");
  EXPECT_EQ(Cond("exists (x=1 \\/ x=2) /\\ ~P0:r0=1"),
            "(x == 1 \\/ x == 2) /\\ ~(P0:r0 == 1)");
  EXPECT_EQ(Cond("exists ~(x=1 /\\ 0:r0 != 2)"), "~(x == 1 /\\ P0:r0 != 2)");
  EXPECT_EQ(Cond("exists ((((x=1))))"), "x == 1");
  EXPECT_EQ(Cond("exists x = y"), "x == y");
  // Conditions with no register, and registers compared with each other.
  EXPECT_EQ(Cond("exists 0==0"), "0 == 0");
  EXPECT_EQ(Cond("exists -1 != 0x10"), "-1 != 0x10");
  EXPECT_EQ(Cond("exists (P0:r1 == P1:r2 /\\ 1 == P0:r0)"),
            "P0:r1 == P1:r2 /\\ 1 == P0:r0");
  EXPECT_EQ(Cond("exists 0:r1=1:r2"), "P0:r1 == P1:r2");
}

TEST(LitmusParser, ConditionErrors) {
  Parsed P = parseText("PTX t\n{ x=0; }\n P0 ;\n st.weak x, 1 ;\n"
                       "exists (0 == )\n");
  ASSERT_FALSE(P.T);
  ASSERT_FALSE(P.Diags.empty());
  EXPECT_EQ(P.Diags[0].Range.Begin.Line, 5u);
  EXPECT_EQ(P.Diags[0].Range.Begin.Col, 14u);
  EXPECT_NE(P.Diags[0].Message.find("expected an integer or a location"),
            std::string::npos)
      << P.Diags[0].Message;
}

TEST(LitmusParser, ScopeTreesAndComments) {
  Parsed P = parseText(R"(GPU_PTX t (* a comment *)
// line comment
{ x=0; }
 T0           | T1 | T2 ;
 st.cg.s32 [x], 1 | ld.cg.s32 r0, [x] | ;
scopeTree
(device (kernel (cta T0 T1) (cta T2)))
exists (1:r0=1)
)");
  ASSERT_TRUE(P.T) << DiagnosticEngine::format(P.Diags[0]);
  const ScopeNode &K = P.T->Scopes->Kids[0];
  EXPECT_EQ(K.Level, ScopeLevel::Kernel);
  EXPECT_EQ(K.Kids[0].Kids.size(), 2u);
  EXPECT_TRUE(K.Kids[0].Kids[1].IsThread);

  P = parseText(R"(GPU_PTX t
{ }
 T0 | T1 ;
 membar.cta | membar.cta ;
ScopeTree (device (cluster (cta (warp T0)) (cta (warp T1))))
locations [x; 0:r0;]
exists true
)");
  ASSERT_TRUE(P.T);
  EXPECT_EQ(P.T->Scopes->Kids[0].Level, ScopeLevel::Cluster);
  ASSERT_EQ(P.T->Locations.size(), 2u);
  EXPECT_EQ(P.T->Locations[1].Thread, 0);
}

TEST(LitmusParser, ParseErrors) {
  expectParseError("X86 SB\n", 1, 1, "expected the architecture");
  expectParseError("GPU_PTX\n{}", 1, 8, "expected a test name");
  expectParseError("GPU_PTX t\nT0 ;", 2, 1, "expected '{' to start the init");
  expectParseError("GPU_PTX t\n{ 0:.reg .f32 r0; }", 2, 10,
                   "unknown register type '.f32'");
  expectParseError("GPU_PTX t\n{ 0:.reg .s32 r0 x=1; }", 2, 18,
                   "expected ';' after the init item");
  expectParseError("GPU_PTX t\n{ x }", 2, 5, "expected '=' and an initial value");
  expectParseError("GPU_PTX t\n{ Q0:r0=1; }", 2, 3, "expected a thread");
  expectParseError("GPU_PTX t\n{}\nT0 | X1 ;", 3, 6, "expected a thread header");
  expectParseError("PTX t\n{}\nP0@warp 1 ;", 3, 4, "expected 'cta', 'cluster' or 'gpu'");
  expectParseError("GPU_PTX t\n{}\nT0 | T1 ;\nmembar.gl ;\n", 4, 1,
                   "this row has 1 cell but the test has 2 threads");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl\nexists true", 4, 10,
                   "expected ';' at the end of the program row");
  expectParseError("GPU_PTX t\n{}\nT0 | T1 ;\n  membar.gl | foo r1 ;\n", 4, 15,
                   "unknown instruction 'foo'");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\nScopeTree (device (block T0))",
                   5, 20, "expected a scope level");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\nScopeTree (cta (device T0))",
                   5, 17, "a 'device' cannot be inside this scope");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\nx: local\n", 5, 4,
                   "expected 'shared' or 'global'");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\n", 5, 1,
                   "expected a final condition");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\nexists (0:r0=1", 5, 15,
                   "expected ')'");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\nexists 0:r0=1 junk", 5, 15,
                   "expected end of file");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\nexists 0:r0 < 1", 5, 13,
                   "expected '=', '==' or '!='");
  expectParseError("GPU_PTX t\n{}\nT0 ;\nmembar.gl ;\n(* open", 5, 1,
                   "unterminated comment");
  expectParseError("GPU_PTX t \"open\n{}", 1, 11, "unterminated string");
  expectParseError("PTX t\n{}\nP0 ;\nmembar.gl ;\nexists P0:r0=99999999999999999999",
                   5, 14, "is too large");
}

TEST(LitmusParser, AllCellErrorsReported) {
  Parsed P = parseText("GPU_PTX t\n{}\nT0 | T1 ;\nfoo | bar ;\nbaz | membar.gl ;\n"
                       "ScopeTree (device (cta T0 T1))\nexists true\n");
  EXPECT_FALSE(P.T);
  ASSERT_EQ(P.Diags.size(), 3u);
  EXPECT_EQ(P.Diags[1].Range.Begin.Col, 7u);
  EXPECT_EQ(P.Diags[2].Range.Begin.Line, 5u);
}

TEST(LitmusParser, DeepConditionIsAnError) {
  std::string C(5000, '(');
  Parsed P = parseText("PTX t\n{}\nP0 ;\nmembar.gl ;\nexists " + C);
  EXPECT_FALSE(P.T);
  ASSERT_FALSE(P.Diags.empty());
  EXPECT_NE(P.Diags[0].Message.find("nested too deeply"), std::string::npos);
}

TEST(LitmusPrinter, CanonicalSB) {
  Parsed P = parseText(SBText);
  ASSERT_TRUE(P.T);
  EXPECT_EQ(printTest(*P.T), R"(GPU_PTX SB
{
0:.reg .s32 r0;
0:.reg .s32 r2;
0:.reg .b64 r1 = x;
0:.reg .b64 r3 = y;
1:.reg .s32 r0;
1:.reg .s32 r2;
1:.reg .b64 r1 = y;
1:.reg .b64 r3 = x;
}
 T0                 | T1                 ;
 mov.s32 r0, 1      | mov.s32 r0, 1      ;
 st.cg.s32 [r1], r0 | st.cg.s32 [r1], r0 ;
 ld.cg.s32 r2, [r3] | ld.cg.s32 r2, [r3] ;
ScopeTree
(device (cta (warp T0) (warp T1)))
y: global, x: shared
exists (0:r2=0 /\ 1:r2=0)
)");
}

void expectStable(const std::string &Name, const std::string &Text) {
  Parsed P = parseText(Text);
  ASSERT_TRUE(P.T) << Name << ": "
                   << (P.Diags.empty() ? ""
                                       : DiagnosticEngine::format(P.Diags[0]));
  std::string Once = printTest(*P.T);
  Parsed P2 = parseText(Once);
  ASSERT_TRUE(P2.T) << Name << " printed:\n"
                    << Once
                    << (P2.Diags.empty()
                            ? ""
                            : DiagnosticEngine::format(P2.Diags[0]));
  EXPECT_EQ(printTest(*P2.T), Once) << Name;
}

TEST(LitmusPrinter, RoundTripEveryCorpusFile) {
  namespace fs = std::filesystem;
  fs::path Dir = fs::path(INCANT_SOURCE_DIR) / "fuzz" / "corpus" / "litmus";
  unsigned N = 0;
  for (const auto &E : fs::directory_iterator(Dir)) {
    if (E.path().extension() != ".litmus")
      continue;
    std::ifstream In(E.path());
    std::stringstream SS;
    SS << In.rdbuf();
    expectStable(E.path().filename().string(), SS.str());
    ++N;
  }
  EXPECT_GE(N, 6u);
}

TEST(LitmusPrinter, RoundTripInline) {
  expectStable("sb", SBText);
  expectStable("ptx", R"(PTX t
"c"
{ x=0; P0:r0=0x80000000; P1:r1 = x; }
 P0@cta 0,cluster 1,gpu 2 | P1 ;
 L0: @!p bra L0 | ;
 | red.relaxed.gpu.add [x+4], -1 ;
locations [x;]
forall ~(~x=1 \/ P0:r0 != 2) /\ true
)");
}

} // namespace
