//===- Ptxas.h - Reassembling rewritten modules in tests ------*- C++ -*-===//
//
// The Intercept tests check that what the passes write is PTX that ptxas
// accepts (INCANT_PTXAS, empty where ptxas is missing), without stack
// frames the original lacked, on small modules and on the PTX corpus.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_UNITTESTS_PTXAS_H
#define INCANT_UNITTESTS_PTXAS_H

#include "incant/Support/Process.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace ptxastest {

/// Stack frame bytes per function from `ptxas -v`, or nullopt (with the
/// output in \p Log) if ptxas rejects the module.
inline std::optional<std::map<std::string, unsigned>>
assemble(const std::string &Ptx, const std::string &Arch, bool Relocatable,
         const std::string &Name, std::string &Log) {
  std::filesystem::create_directories(INCANT_TEST_WORK_DIR);
  std::string In = std::string(INCANT_TEST_WORK_DIR) + "/" + Name + ".ptx";
  std::ofstream(In) << Ptx;
  std::vector<std::string> Argv = {INCANT_PTXAS, "-arch=" + Arch, "-v", In,
                                   "-o", In + ".cubin"};
  if (Relocatable)
    Argv.push_back("-c");
  incant::ProcessResult P = incant::runProcess(Argv);
  Log = P.Out + P.Err;
  if (!P.succeeded())
    return std::nullopt;
  std::map<std::string, unsigned> Frames;
  std::regex Re("Function properties for (\\S+)\\n\\s+(\\d+) bytes stack frame");
  for (std::sregex_iterator It(Log.begin(), Log.end(), Re), End; It != End; ++It)
    Frames[(*It)[1]] = static_cast<unsigned>(std::stoul((*It)[2]));
  return Frames;
}

/// How many YIELD instructions ptxas put in function \p Name of the sm_70
/// to sm_90 cubin \p Cubin (up to the next function of its section), or
/// nullopt if the file or the function is not there. Reads the ELF64
/// symbol table; an instruction is 16 bytes, its opcode the low 12 bits
/// (YIELD 0x946, as nvdisasm prints it), an encoding NVIDIA does not
/// document: a test that relies on it says so.
inline std::optional<unsigned> yieldsIn(const std::string &Cubin,
                                        const std::string &Name) {
  std::ifstream In(Cubin, std::ios::binary);
  std::string E((std::istreambuf_iterator<char>(In)),
                std::istreambuf_iterator<char>());
  auto U = [&](size_t At, size_t Bytes) -> uint64_t {
    uint64_t V = 0;
    for (size_t K = 0; K < Bytes && At + K < E.size(); ++K)
      V |= uint64_t(uint8_t(E[At + K])) << (8 * K);
    return V;
  };
  if (E.size() < 64 || E.compare(0, 4, "\x7f" "ELF") != 0)
    return std::nullopt;
  uint64_t ShOff = U(0x28, 8), ShSize = U(0x3a, 2), ShNum = U(0x3c, 2);
  auto Sec = [&](uint64_t I, size_t Field, size_t Bytes) {
    return U(ShOff + I * ShSize + Field, Bytes);
  };
  struct Fn {
    std::string Name;
    uint64_t Sec, Start;
  };
  std::vector<Fn> Fns;
  for (uint64_t I = 0; I < ShNum; ++I) {
    if (Sec(I, 4, 4) != 2) // SHT_SYMTAB
      continue;
    uint64_t Off = Sec(I, 0x18, 8), Size = Sec(I, 0x20, 8);
    uint64_t Str = Sec(Sec(I, 0x28, 4), 0x18, 8);
    for (uint64_t At = Off; At + 24 <= Off + Size; At += 24)
      if ((U(At + 4, 1) & 0xf) == 2) // STT_FUNC
        Fns.push_back({std::string(E.c_str() + Str + U(At, 4)), U(At + 6, 2),
                       U(At + 8, 8)});
  }
  for (const Fn &F : Fns) {
    if (F.Name != Name)
      continue;
    uint64_t End = Sec(F.Sec, 0x20, 8);
    for (const Fn &G : Fns)
      if (G.Sec == F.Sec && G.Start > F.Start)
        End = std::min(End, G.Start);
    uint64_t Base = Sec(F.Sec, 0x18, 8);
    unsigned N = 0;
    for (uint64_t At = F.Start; At + 16 <= End; At += 16)
      N += (U(Base + At, 2) & 0xfff) == 0x946;
    return N;
  }
  return std::nullopt;
}

#ifdef INCANT_PTX_CORPUS_DIR
/// Every module of the PTX corpus (built and handwritten).
inline std::vector<std::filesystem::path> corpusFiles() {
  std::vector<std::filesystem::path> Files;
  for (const char *Dir : {INCANT_PTX_CORPUS_DIR, INCANT_PTX_HANDWRITTEN_DIR}) {
    std::error_code EC;
    for (const auto &E : std::filesystem::directory_iterator(Dir, EC))
      if (E.path().extension() == ".ptx")
        Files.push_back(E.path());
  }
  return Files;
}
#endif

} // namespace ptxastest

#endif // INCANT_UNITTESTS_PTXAS_H
