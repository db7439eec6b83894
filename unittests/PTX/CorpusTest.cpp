//===- CorpusTest.cpp - Every corpus module parses, round-trips, reassembles ===//
//
// For each PTX module of the corpus (corpus/ptx, compiled at build time):
//  1. it parses without errors or warnings;
//  2. print -> parse -> print gives the same text (a fixpoint);
//  3. ptxas (-arch=sm_90, or sm_90a for .target sm_90a; -c only where the
//     module has unresolved externs) assembles the original and the printed module
//     to the same machine code: every ELF section whose name does not
//     contain "debug" (code .text.*, .nv.info*, .nv.constant*, .nv.shared*,
//     relocations, symbols, strings) is byte-identical, and both cubins have
//     the same sections. Debug sections differ by design: they hold the PTX
//     text (.nv_debug_ptx_txt) and PTX line numbers, and the printer changes
//     the layout.
//
//===----------------------------------------------------------------------===//
#include "incant/PTX/Module.h"
#include "incant/Support/Process.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace incant;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> Files;
  std::string_view L = INCANT_PTX_CORPUS;
  while (!L.empty()) {
    size_t Bar = L.find('|');
    Files.emplace_back(L.substr(0, Bar));
    L = Bar == std::string_view::npos ? std::string_view() : L.substr(Bar + 1);
  }
  return Files;
}

std::string baseName(const std::string &Path) {
  return std::filesystem::path(Path).stem().string();
}

/// Sections of an ELF64 little-endian file: name -> (type, contents).
/// Returns false (and sets Error) if the file is not such an ELF file.
bool readSections(const std::string &Path,
                  std::map<std::string, std::pair<uint32_t, std::string>> &Out,
                  std::string &Error) {
  std::ifstream In(Path, std::ios::binary);
  std::string D((std::istreambuf_iterator<char>(In)),
                std::istreambuf_iterator<char>());
  auto U16 = [&](size_t O) {
    uint16_t V;
    std::memcpy(&V, D.data() + O, 2);
    return V;
  };
  auto U32 = [&](size_t O) {
    uint32_t V;
    std::memcpy(&V, D.data() + O, 4);
    return V;
  };
  auto U64 = [&](size_t O) {
    uint64_t V;
    std::memcpy(&V, D.data() + O, 8);
    return V;
  };
  if (D.size() < 64 || D.compare(0, 4, "\x7f" "ELF") != 0 || D[4] != 2 ||
      D[5] != 1) {
    Error = Path + ": not an ELF64 little-endian file";
    return false;
  }
  uint64_t ShOff = U64(0x28);
  uint16_t ShEntSize = U16(0x3A), ShNum = U16(0x3C), ShStrNdx = U16(0x3E);
  if (ShEntSize < 64 || ShOff + uint64_t(ShNum) * ShEntSize > D.size() ||
      ShStrNdx >= ShNum) {
    Error = Path + ": bad section header table";
    return false;
  }
  auto Hdr = [&](unsigned K) { return ShOff + uint64_t(K) * ShEntSize; };
  uint64_t StrOff = U64(Hdr(ShStrNdx) + 0x18);
  for (unsigned K = 0; K != ShNum; ++K) {
    uint64_t H = Hdr(K);
    uint32_t NameOff = U32(H), Type = U32(H + 4);
    uint64_t Off = U64(H + 0x18), Size = U64(H + 0x20);
    if (StrOff + NameOff >= D.size()) {
      Error = Path + ": bad section name";
      return false;
    }
    std::string Name(D.c_str() + StrOff + NameOff);
    std::string Bytes;
    // SHT_NOBITS and NVIDIA's .nv.shared.* (SHT_LOPROC + 10) hold no
    // bytes in the file: compare their sizes.
    if (Type == 8 || Type == 0x7000000a)
      Bytes = std::to_string(Size);
    else if (Off + Size <= D.size())
      Bytes = D.substr(Off, Size);
    else {
      Error = Path + ": section " + Name + " out of the file";
      return false;
    }
    Out[Name] = {Type, std::move(Bytes)};
  }
  return true;
}

/// The first line where two texts differ, for a readable failure.
std::string firstDifference(const std::string &A, const std::string &B) {
  std::istringstream SA(A), SB(B);
  std::string LA, LB;
  for (unsigned N = 1;; ++N) {
    bool GA = static_cast<bool>(std::getline(SA, LA));
    bool GB = static_cast<bool>(std::getline(SB, LB));
    if (!GA && !GB)
      return "no difference";
    if (!GA || !GB || LA != LB)
      return "line " + std::to_string(N) + ": '" + (GA ? LA : "<end>") +
             "' vs '" + (GB ? LB : "<end>") + "'";
  }
}

class PTXCorpus : public testing::TestWithParam<std::string> {};

TEST_P(PTXCorpus, ParsesRoundTripsAndReassembles) {
  const std::string &Path = GetParam();
  std::string Error;
  auto File = SourceFile::read(Path, Error);
  ASSERT_TRUE(File) << Path << ": " << Error;

  std::ostringstream Msgs;
  DiagnosticEngine Diags(&Msgs);
  std::optional<ptx::Module> M = ptx::parseModule(File, Diags);
  ASSERT_TRUE(M) << Msgs.str();
  EXPECT_EQ(Diags.numWarnings(), 0u) << Msgs.str();

  std::string P1 = ptx::printModule(*M);
  auto File2 = std::make_shared<SourceFile>(Path + ".printed", P1);
  DiagnosticEngine Diags2(&Msgs);
  std::optional<ptx::Module> M2 = ptx::parseModule(File2, Diags2);
  ASSERT_TRUE(M2) << Msgs.str();
  std::string P2 = ptx::printModule(*M2);
  ASSERT_EQ(P1, P2) << "print -> parse -> print is not a fixpoint: "
                    << firstDifference(P1, P2);

  std::string Ptxas = INCANT_PTXAS;
  if (Ptxas.empty() || Ptxas.find("NOTFOUND") != std::string::npos)
    GTEST_SKIP() << "ptxas not found: the reassembly check is skipped";
  std::filesystem::path Work = INCANT_PTX_WORK_DIR;
  std::filesystem::create_directories(Work);
  std::string Name = baseName(Path);
  std::string Printed = (Work / (Name + ".printed.ptx")).string();
  std::string CubinA = (Work / (Name + ".orig.cubin")).string();
  std::string CubinB = (Work / (Name + ".printed.cubin")).string();
  std::ofstream(Printed, std::ios::binary) << P1;
  // sm_90a modules (wgmma, setmaxnreg) need the arch-specific target.
  std::string Arch = "sm_90";
  for (const std::string &T : M->Targets)
    if (T == "sm_90a")
      Arch = T;
  // Whole-program mode first; a module with unresolved extern functions
  // (clang's OpenCL output calls the builtins) needs -c. ptxas -c names a
  // function-scope .shared variable after its PTX line ($__name__43), which
  // the printer's layout changes; the whole-program mode does not.
  auto Assemble = [&](const std::string &In, const std::string &Out,
                      bool Relocatable) {
    ProcessOptions Run;
    Run.Argv = {Ptxas, "-arch=" + Arch};
    if (Relocatable)
      Run.Argv.push_back("-c");
    Run.Argv.insert(Run.Argv.end(), {In, "-o", Out});
    Run.Stderr = OutputMode::Discard;
    return runProcess(Run).succeeded();
  };
  bool Relocatable = false;
  if (!Assemble(Path, CubinA, false)) {
    Relocatable = true;
    ASSERT_TRUE(Assemble(Path, CubinA, true))
        << "ptxas rejects the original " << Path;
  }
  ASSERT_TRUE(Assemble(Printed, CubinB, Relocatable))
      << "ptxas rejects the printed module " << Printed;

  std::map<std::string, std::pair<uint32_t, std::string>> A, B;
  ASSERT_TRUE(readSections(CubinA, A, Error)) << Error;
  ASSERT_TRUE(readSections(CubinB, B, Error)) << Error;
  unsigned Compared = 0;
  for (const auto &[SecName, Sec] : A) {
    if (SecName.find("debug") != std::string::npos)
      continue;
    auto It = B.find(SecName);
    if (It == B.end()) {
      ADD_FAILURE() << "section " << SecName << " is missing after printing";
      continue;
    }
    EXPECT_EQ(Sec.first, It->second.first) << "section type of " << SecName;
    EXPECT_TRUE(Sec.second == It->second.second)
        << "section " << SecName << " differs after printing";
    if (SecName.rfind(".text.", 0) == 0)
      ++Compared;
  }
  for (const auto &[SecName, Sec] : B)
    if (SecName.find("debug") == std::string::npos && !A.count(SecName))
      ADD_FAILURE() << "section " << SecName << " appears after printing";
  EXPECT_GT(Compared, 0u) << "no code section compared";
}

std::string testName(const testing::TestParamInfo<std::string> &Info) {
  std::string N = baseName(Info.param);
  for (char &C : N)
    if (!std::isalnum(static_cast<unsigned char>(C)))
      C = '_';
  return N;
}

INSTANTIATE_TEST_SUITE_P(Module, PTXCorpus, testing::ValuesIn(corpusFiles()),
                         testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PTXCorpus);

TEST(PTXCorpusSetup, ToolsFound) {
  std::string Note = INCANT_PTX_CORPUS_NOTE;
  if (!Note.empty())
    GTEST_SKIP() << Note;
  EXPECT_FALSE(corpusFiles().empty());
}

} // namespace
