//===- CostResult.cpp - What fences cost an application -------------------===//
#include "incant/Fences/CostResult.h"
#include "incant/Support/Json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace incant::fences {

uint64_t moreEnergyRuns(uint64_t Steps, uint64_t Runs, uint64_t Target) {
  if (Steps >= Target)
    return 0;
  double Rate = Steps ? double(Steps) / double(std::max<uint64_t>(Runs, 1))
                      : 0.5;
  auto Want = uint64_t(std::ceil(double(Target - Steps) / Rate));
  return std::clamp<uint64_t>(Want, 1, std::max<uint64_t>(Runs, 1));
}

std::string appCostJson(const AppCost &A) {
  nlohmann::json V = nlohmann::json::array();
  for (const VariantCost &C : A.Variants)
    V.push_back({{"name", C.Name},
                 {"fences", C.Fences},
                 {"runs", C.Runs},
                 {"passed", C.Passed},
                 {"counted", C.Counted},
                 {"median_ms", C.MedianMs},
                 {"energy_j", C.EnergyJ},
                 {"energy_steps", C.EnergyChanges},
                 {"energy_ok", C.EnergyOk}});
  return dumpJson(nlohmann::json{{"app", A.App}, {"variants", V}});
}

bool appCostFromJson(const std::string &Line, AppCost &A, std::string &Error) {
  nlohmann::json J = nlohmann::json::parse(Line, nullptr, false);
  if (J.is_discarded() || !J.is_object() || !J.contains("variants") ||
      !J["variants"].is_array()) {
    Error = "not a result of incant fences cost";
    return false;
  }
  A.App = J.value("app", "");
  for (const auto &V : J["variants"]) {
    VariantCost C;
    C.Name = V.value("name", "");
    C.Fences = V.value("fences", 0u);
    C.Runs = V.value("runs", uint64_t(0));
    C.Passed = V.value("passed", uint64_t(0));
    C.Counted = V.value("counted", C.Passed);
    C.MedianMs = V.value("median_ms", 0.0);
    C.EnergyJ = V.value("energy_j", 0.0);
    C.EnergyChanges = V.value("energy_steps", uint64_t(0));
    C.EnergyOk = V.value("energy_ok", false);
    A.Variants.push_back(C);
  }
  return true;
}

} // namespace incant::fences
