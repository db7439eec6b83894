//===- CorpusTest.cpp - The IR over every module of the PTX corpus --------===//
//
// For each module the corpus build produced (corpus/ptx, compiled at build
// time): the IR builds, validate() finds nothing, every instruction of a
// function with .loc lines has a location, and a module with a fence after
// every global access prints, validates and (where ptxas is installed)
// assembles for sm_90.
//
//===----------------------------------------------------------------------===//
#include "incant/IR/Rewriter.h"
#include "incant/IR/Summary.h"
#include "incant/Support/Process.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace incant;
using namespace incant::ir;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpus() {
  std::vector<fs::path> Files;
  for (const char *Dir :
       {INCANT_PTX_CORPUS_DIR, INCANT_SOURCE_DIR "/corpus/ptx/handwritten"}) {
    std::error_code EC;
    for (const auto &E : fs::directory_iterator(Dir, EC))
      if (E.path().extension() == ".ptx")
        Files.push_back(E.path());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

TEST(IRCorpus, EveryModule) {
  std::vector<fs::path> Files = corpus();
  if (Files.empty())
    GTEST_SKIP() << "no corpus modules in " << INCANT_PTX_CORPUS_DIR
                 << " (nvcc or clang missing, or ptx-corpus not built)";
  const std::string Ptxas = "/usr/local/cuda/bin/ptxas";
  bool HavePtxas = ::access(Ptxas.c_str(), X_OK) == 0;
  for (const fs::path &P : Files) {
    SCOPED_TRACE(P.filename().string());
    std::string Err;
    auto File = SourceFile::read(P.string(), Err);
    ASSERT_TRUE(File) << Err;
    DiagnosticEngine D;
    auto M = ptx::parseModule(File, D);
    ASSERT_TRUE(M);

    DiagnosticEngine V;
    EXPECT_EQ(validate(*M, V), 0u)
        << (V.diagnostics().empty()
                ? ""
                : DiagnosticEngine::format(V.diagnostics()[0]));

    Rewriter RW(*M, D);
    unsigned Fences = 0;
    {
      ModuleIR IR(*M);
      ModuleSummary S = summarize(IR);
      EXPECT_EQ(S.Functions.size(), IR.functions().size());
      for (const FunctionIR &F : IR.functions()) {
        bool HasLoc = false;
        for (const ptx::BodyItem &B : F.function().Body)
          HasLoc |= std::holds_alternative<ptx::LocDirective>(B);
        unsigned Func = RW.functionIndex(F.function());
        // nvcc and clang emit reducible control flow.
        EXPECT_TRUE(F.loops().irreducibleEdges().empty()) << F.name();
        for (unsigned Item : F.instructions()) {
          const ptx::Instruction &I = F.inst(Item);
          // nvcc writes a .loc before a function's first instruction.
          if (HasLoc && Item > F.instructions().front()) {
            EXPECT_FALSE(F.loc(Item).Frames.empty())
                << F.name() << ": " << ptx::printInstruction(I);
          }
          bool Global = I.ASpace == ptx::AddrSpace::Global &&
                        (I.Op == ptx::Opcode::Ld || I.Op == ptx::Opcode::St ||
                         I.Op == ptx::Opcode::Atom || I.Op == ptx::Opcode::Red);
          if (Global && fallsThrough(I)) {
            ASSERT_TRUE(RW.insertAfter(Func, Item, "fence.sc.gpu;"));
            ++Fences;
          }
        }
      }
    }
    RW.apply();
    std::string Text = ptx::printModule(*M);
    auto Again = ptx::parseModule(
        std::make_shared<SourceFile>(P.filename().string(), Text), D);
    ASSERT_TRUE(Again);
    EXPECT_EQ(validate(*Again, V), 0u);
    if (!HavePtxas || Fences == 0)
      continue;
    // The process id keeps parallel runs (other checkouts on this machine)
    // from writing and removing one file.
    std::string Base = ::testing::TempDir() + "incant-ir-corpus-" +
                       std::to_string(::getpid()) + "-" + P.stem().string();
    std::ofstream(Base + ".ptx") << Text;
    // sm_90a modules (wgmma, setmaxnreg) need the arch-specific target.
    bool Sm90a = std::find(M->Targets.begin(), M->Targets.end(), "sm_90a") !=
                 M->Targets.end();
    // -c: OpenCL modules call extern functions (get_global_id) that only a
    // link would resolve.
    ProcessOptions Run;
    Run.Argv = {Ptxas, "-c", Sm90a ? "-arch=sm_90a" : "-arch=sm_90",
                Base + ".ptx", "-o", Base + ".cubin"};
    Run.Stderr = OutputMode::ToStdout;
    ProcessResult R = runProcess(Run);
    EXPECT_TRUE(R.succeeded()) << "ptxas rejected the module with " << Fences
                               << " fences (" << R.describe() << "):\n"
                               << R.Out.substr(0, 2000);
    fs::remove(Base + ".ptx");
    fs::remove(Base + ".cubin");
  }
}

} // namespace
