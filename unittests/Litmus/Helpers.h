//===- Helpers.h - Shared helpers of the litmus unit tests ------*- C++ -*-===//
#ifndef INCANT_UNITTESTS_LITMUS_HELPERS_H
#define INCANT_UNITTESTS_LITMUS_HELPERS_H

#include "incant/Litmus/Lower.h"
#include "incant/Litmus/Parser.h"
#include "incant/Litmus/Printer.h"

#include <gtest/gtest.h>

namespace incant::litmus::test {

struct Parsed {
  std::optional<Test> T;
  std::vector<Diagnostic> Diags;
};

inline Parsed parseText(const std::string &Text) {
  auto F = std::make_shared<SourceFile>("t.litmus", Text);
  DiagnosticEngine D;
  Parsed P;
  P.T = parseTest(F, D);
  P.Diags = D.diagnostics();
  return P;
}

struct Lowered {
  std::optional<Program> P;
  std::vector<Diagnostic> Diags;
};

/// Parses (which must succeed) and lowers.
inline Lowered lowerText(const std::string &Text) {
  Parsed Pa = parseText(Text);
  EXPECT_TRUE(Pa.T) << (Pa.Diags.empty() ? std::string()
                                         : DiagnosticEngine::format(
                                               Pa.Diags[0]));
  Lowered L;
  if (!Pa.T)
    return L;
  DiagnosticEngine D;
  L.P = lower(*Pa.T, D);
  L.Diags = D.diagnostics();
  return L;
}

/// Expects the first diagnostic at Line:Col with \p Msg in its message.
inline void expectDiag(const std::vector<Diagnostic> &Diags, uint32_t Line,
                       uint32_t Col, const std::string &Msg) {
  ASSERT_FALSE(Diags.empty()) << "no diagnostic; expected: " << Msg;
  const Diagnostic &D = Diags[0];
  EXPECT_EQ(D.Range.Begin.Line, Line) << DiagnosticEngine::format(D);
  EXPECT_EQ(D.Range.Begin.Col, Col) << DiagnosticEngine::format(D);
  EXPECT_NE(D.Message.find(Msg), std::string::npos)
      << DiagnosticEngine::format(D);
}

inline void expectParseError(const std::string &Text, uint32_t Line,
                             uint32_t Col, const std::string &Msg) {
  Parsed P = parseText(Text);
  EXPECT_FALSE(P.T) << Text;
  expectDiag(P.Diags, Line, Col, Msg);
}

inline void expectLowerError(const std::string &Text, uint32_t Line,
                             uint32_t Col, const std::string &Msg) {
  Lowered L = lowerText(Text);
  EXPECT_FALSE(L.P) << Text;
  expectDiag(L.Diags, Line, Col, Msg);
}

/// The thesis's SB test (Fig. 3.2), verbatim.
inline const char *SBText = R"(GPU_PTX SB
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

T0 | T1 ;
mov.s32 r0,1 | mov.s32 r0,1 ;
st.cg.s32 [r1],r0 | st.cg.s32 [r1],r0 ;
ld.cg.s32 r2,[r3] | ld.cg.s32 r2,[r3] ;

ScopeTree
(device (cta (warp T0) (warp T1)))

y: global, x: shared

exists
(0:r2=0 /\ 1:r2=0)
)";

} // namespace incant::litmus::test

#endif
