//===- Campaign.cpp - A campaign's tests, shards and parameters -----------===//
#include "incant/Campaign/Campaign.h"
#include "incant/Harness/ParamsJson.h"
#include "incant/Litmus/Load.h"
#include "incant/Support/Json.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

namespace fs = std::filesystem;

namespace incant::campaign {

std::string paramsKey(const std::string &Backend, const harness::RunParams &P) {
  // nlohmann::json keeps keys sorted, so equal parameters give equal text.
  nlohmann::json J = {{"backend", Backend},
                      {"iterations", P.Iterations},
                      {"instances", P.Instances},
                      {"group_size", P.GroupSize}};
  harness::addParamsJson(P, J);
  return dumpJson(J);
}

bool collectTests(const std::vector<std::string> &Inputs,
                  std::vector<std::string> &Files, std::string &Error) {
  std::vector<std::string> Expanded;
  if (!litmus::expandFolders(Inputs, Expanded, Error))
    return false;
  std::set<std::string> Found;
  for (const std::string &F : Expanded) {
    std::error_code EC;
    if (!fs::exists(F, EC)) {
      Error = "no such file or folder: " + F;
      return false;
    }
    Found.insert(fs::path(F).lexically_normal().string());
  }
  Files.assign(Found.begin(), Found.end());
  return true;
}

bool parseShard(const std::string &Text, uint32_t &Index, uint32_t &Count,
                std::string &Error) {
  size_t Slash = Text.find('/');
  auto Num = [](const std::string &S, uint32_t &V) {
    if (S.empty() || S.size() > 9 ||
        S.find_first_not_of("0123456789") != std::string::npos)
      return false;
    V = static_cast<uint32_t>(std::stoul(S));
    return true;
  };
  if (Slash == std::string::npos || !Num(Text.substr(0, Slash), Index) ||
      !Num(Text.substr(Slash + 1), Count) || Count == 0 || Index >= Count) {
    Error = "--shard '" + Text + "': expected i/N with 0 <= i < N";
    return false;
  }
  return true;
}

} // namespace incant::campaign
