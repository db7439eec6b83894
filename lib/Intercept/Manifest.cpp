//===- Manifest.cpp - Unit manifests as JSON ------------------------------===//
#include "incant/Intercept/Manifest.h"
#include "runtime/incant_control.h"
#include "incant/Support/Json.h"

#include <nlohmann/json.hpp>

namespace incant::intercept {

using nlohmann::json;

std::string manifestToJson(const UnitManifest &M) {
  json Fns = json::array();
  for (const FunctionRecord &F : M.Functions) {
    json J = {{"name", F.Name}, {"entry", F.IsEntry}, {"remapped", F.Remapped}};
    if (!F.LeftAlone.empty())
      J["left_alone"] = F.LeftAlone;
    if (F.CallsRemapped)
      J["calls_remapped"] = true;
    if (!F.Calls.empty())
      J["calls"] = F.Calls;
    Fns.push_back(std::move(J));
  }
  json Sites = json::array();
  for (const Site &S : M.Sites) {
    json J = {{"id", S.Id},         {"pass", S.Pass}, {"function", S.Function},
              {"kind", S.Kind},     {"ptx_line", S.PtxLine},
              {"file", S.File},     {"line", S.Line}, {"col", S.Col}};
    if (!S.Text.empty())
      J["text"] = S.Text;
    if (!S.Object.empty())
      J["object"] = S.Object;
    if (!S.Static.empty())
      J["static"] = S.Static;
    Sites.push_back(std::move(J));
  }
  json Orders = json::array();
  for (const ExistingOrder &O : M.Orders)
    Orders.push_back({{"function", O.Function},
                      {"kind", O.Kind},
                      {"ptx_line", O.PtxLine},
                      {"file", O.File},
                      {"line", O.Line},
                      {"col", O.Col},
                      {"after_file", O.AfterFile},
                      {"after_line", O.AfterLine},
                      {"after_col", O.AfterCol}});
  json J = {{"unit", M.Id},         {"target", M.Target},
            {"ptx_file", M.PtxFile}, {"source", M.Source},
            {"passes", M.Passes},   {"functions", std::move(Fns)},
            {"sites", std::move(Sites)}, {"notes", M.Notes}};
  if (!M.Orders.empty())
    J["orders"] = std::move(Orders);
  return dumpJson(J);
}

std::optional<UnitManifest> manifestFromJson(std::string_view Text,
                                             std::string &Error) {
  json J = json::parse(Text, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object()) {
    Error = "the manifest is not a JSON object";
    return std::nullopt;
  }
  UnitManifest M;
  try {
    M.Id = J.at("unit").get<std::string>();
    M.Target = J.value("target", "");
    M.PtxFile = J.value("ptx_file", "");
    M.Source = J.value("source", "");
    M.Passes = J.value("passes", std::vector<std::string>{});
    M.Notes = J.value("notes", std::vector<std::string>{});
    for (const json &F : J.at("functions")) {
      FunctionRecord R;
      R.Name = F.at("name").get<std::string>();
      R.IsEntry = F.value("entry", false);
      R.Remapped = F.value("remapped", false);
      R.LeftAlone = F.value("left_alone", "");
      R.CallsRemapped = F.value("calls_remapped", false);
      R.Calls = F.value("calls", std::vector<std::string>{});
      M.Functions.push_back(std::move(R));
    }
    for (const json &S : J.at("sites")) {
      Site X;
      X.Id = S.at("id").get<uint32_t>();
      X.Pass = S.at("pass").get<std::string>();
      X.Function = S.at("function").get<std::string>();
      X.Kind = S.at("kind").get<std::string>();
      X.PtxLine = S.value("ptx_line", 0u);
      X.File = S.value("file", "");
      X.Line = S.value("line", 0u);
      X.Col = S.value("col", 0u);
      X.Text = S.value("text", "");
      X.Object = S.value("object", "");
      X.Static = S.value("static", "");
      M.Sites.push_back(std::move(X));
    }
    if (J.contains("orders"))
      for (const json &O : J.at("orders")) {
        ExistingOrder X;
        X.Function = O.at("function").get<std::string>();
        X.Kind = O.at("kind").get<std::string>();
        X.PtxLine = O.value("ptx_line", 0u);
        X.File = O.value("file", "");
        X.Line = O.value("line", 0u);
        X.Col = O.value("col", 0u);
        X.AfterFile = O.value("after_file", "");
        X.AfterLine = O.value("after_line", 0u);
        X.AfterCol = O.value("after_col", 0u);
        M.Orders.push_back(std::move(X));
      }
  } catch (const json::exception &E) {
    Error = std::string("malformed manifest: ") + E.what();
    return std::nullopt;
  }
  if (!isUnitId(M.Id)) {
    Error = "malformed manifest: '" + M.Id + "' is not a unit id";
    return std::nullopt;
  }
  return M;
}

std::string unitVarName(std::string_view Id) {
  return INCANT_UNIT_PREFIX + std::string(Id);
}
std::string ctlVarName(std::string_view Id) {
  return INCANT_CTL_PREFIX + std::string(Id);
}
std::string kernelCtlName(std::string_view Kernel) {
  return INCANT_KCTL_PREFIX + std::string(Kernel);
}

bool isUnitId(std::string_view Id) {
  if (Id.size() != INCANT_UNIT_ID_CHARS)
    return false;
  for (char C : Id)
    if (!((C >= '0' && C <= '9') || (C >= 'a' && C <= 'f')))
      return false;
  return true;
}

} // namespace incant::intercept
