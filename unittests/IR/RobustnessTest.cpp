//===- RobustnessTest.cpp - The IR on mangled modules: no crash, no hang --===//
//
// Line-level mutations of the checked-in kernels (lines dropped, duplicated,
// swapped) give modules with duplicate labels, branches to nowhere, uses
// before declarations, stray .loc chains and odd control flow. Whatever
// parses must go through the IR, the summary, validate() and a rewrite.
//
//===----------------------------------------------------------------------===//
#include "incant/IR/Rewriter.h"
#include "incant/IR/Summary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <sstream>

using namespace incant;
using namespace incant::ir;

namespace {

std::vector<std::string> lines(const std::string &Name) {
  std::ifstream In(std::string(INCANT_SOURCE_DIR) + "/test/ptx/Inputs/" + Name);
  std::vector<std::string> L;
  for (std::string S; std::getline(In, S);)
    L.push_back(S);
  return L;
}

TEST(IRRobustness, MutatedModules) {
  std::mt19937 Rng(12345);
  unsigned Parsed = 0;
  for (const char *Name : {"kern.ptx", "sync.ptx", "noloc.ptx"}) {
    std::vector<std::string> Orig = lines(Name);
    ASSERT_FALSE(Orig.empty());
    for (unsigned Round = 0; Round < 150; ++Round) {
      std::vector<std::string> L = Orig;
      unsigned Edits = 1 + Rng() % 4;
      for (unsigned E = 0; E < Edits && !L.empty(); ++E) {
        size_t A = Rng() % L.size(), B = Rng() % L.size();
        switch (Rng() % 3) {
        case 0: L.erase(L.begin() + static_cast<long>(A)); break;
        case 1: L.insert(L.begin() + static_cast<long>(A), L[B]); break;
        default: std::swap(L[A], L[B]); break;
        }
      }
      std::string Text;
      for (const std::string &S : L)
        Text += S + "\n";
      DiagnosticEngine D;
      auto M = ptx::parseModule(std::make_shared<SourceFile>(Name, Text), D);
      if (!M)
        continue;
      ++Parsed;
      {
        ModuleIR IR(*M);
        ModuleSummary S = summarize(IR);
        std::ostringstream OS;
        printSummary(S, true, OS);
        (void)summaryToJson(S).dump();
        for (const FunctionIR &F : IR.functions())
          for (unsigned Item : F.instructions())
            for (unsigned R : F.uses(Item))
              (void)F.reachingDefs(R, Item);
      }
      DiagnosticEngine V;
      (void)validate(*M, V);
      Rewriter RW(*M, V);
      {
        ModuleIR IR(*M);
        for (const FunctionIR &F : IR.functions()) {
          unsigned Func = RW.functionIndex(F.function());
          for (unsigned B = 0; B < F.blocks().size(); ++B)
            RW.insertAtBlockEntry(F, B, "membar.gl;");
          (void)RW.addRegister(Func, ".b32");
        }
      }
      RW.apply();
      auto Again = ptx::parseModule(
          std::make_shared<SourceFile>(Name, ptx::printModule(*M)), V);
      EXPECT_TRUE(Again) << Text;
    }
  }
  EXPECT_GT(Parsed, 50u);
}

} // namespace
