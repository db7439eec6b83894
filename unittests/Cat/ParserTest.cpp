//===- ParserTest.cpp - Parsing and type errors of .cat files -------------===//
#include "incant/Cat/Parser.h"

#include <gtest/gtest.h>

using namespace incant;
using namespace incant::cat;

namespace {

TEST(ParserTest, Placeholder) {
  DiagnosticEngine Diags;
  auto M = parseModule(std::make_shared<SourceFile>("t.cat", "let a = po"),
                       Diags);
  ASSERT_TRUE(M);
}

} // namespace
