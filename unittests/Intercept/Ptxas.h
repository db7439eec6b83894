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
