//===- Sarif.cpp - incant race's findings as a SARIF 2.1.0 log ------------===//
//
// The objects and properties of the OASIS SARIF 2.1.0 standard that a
// static checker's results need: a run whose tool names the three rules,
// one result per finding with every source site a location (a race has
// two: both accesses), the witness in the message, a fingerprint that
// does not move with line numbers, and an external suppression for a
// finding a suppressions file matched.
//
//===----------------------------------------------------------------------===//
#include "incant/Race/Findings.h"
#include "incant/Support/Hash.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <iterator>
#include <string_view>

namespace incant::race {

namespace {

using nlohmann::json;

const char *const SchemaUri = "https://docs.oasis-open.org/sarif/sarif/"
                              "v2.1.0/errata01/os/schemas/"
                              "sarif-schema-2.1.0.json";

struct Rule {
  FindingKind Kind;
  const char *Name, *Short, *Full, *Level;
};

const Rule Rules[] = {
    {FindingKind::Race, "DataRace",
     "Two threads access the same memory, one of them writing, with no "
     "barrier or atomic ordering between them",
     "A data race: two accesses to a common byte of shared or global "
     "memory, at least one a write, by two different threads, not ordered "
     "by a barrier both pass and not both atomic (or strong with a scope "
     "that includes both threads). The message gives a witness: the two "
     "threads, the launch and the byte.",
     "warning"},
    {FindingKind::Divergence, "BarrierDivergence",
     "Threads of a block may disagree on reaching a barrier",
     "Barrier divergence: one thread of a block (of the grid, for a grid "
     "barrier) reaches the barrier and another does not, which hangs or "
     "is undefined. The message gives a witness: the two threads and how "
     "the second misses the barrier.",
     "warning"},
    {FindingKind::Unknown, "NotDecided",
     "The analysis could not decide whether two accesses race",
     "A pair of accesses (or a barrier) that the analysis could neither "
     "prove safe nor show racing; the message gives the reason (an address "
     "computed from loaded data, a call not followed, a solver time "
     "limit).",
     "note"},
};

unsigned ruleIndex(FindingKind K) {
  for (unsigned I = 0; I < std::size(Rules); ++I)
    if (Rules[I].Kind == K)
      return I;
  return 0;
}

/// A path as a URI reference: an absolute path as a file: URI, a relative
/// one as a relative reference; bytes outside RFC 3986's unreserved and
/// path characters percent-encoded.
std::string pathUri(const std::string &Path) {
  std::string Out = !Path.empty() && Path[0] == '/' ? "file://" : "";
  for (unsigned char C : Path) {
    if (std::isalnum(C) || std::string_view("-._~/!$&'()*+,;=:@").find(C) !=
                               std::string_view::npos)
      Out += static_cast<char>(C);
    else
      Out += fmt::format("%{:02X}", C);
  }
  return Out;
}

json location(const FindingSite &S, const std::string &Message) {
  json Region = {{"startLine", S.Line}};
  if (S.Col)
    Region["startColumn"] = S.Col;
  if (!S.Text.empty())
    Region["snippet"] = {{"text", S.Text}};
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", pathUri(S.File)}}},
            {"region", Region}}},
          {"message", {{"text", Message}}}};
}

json result(const Finding &F) {
  json Locations = json::array();
  std::string Where;
  for (size_t I = 0; I < F.Sites.size(); ++I) {
    const FindingSite &S = F.Sites[I];
    Locations.push_back(location(S, I == 0 ? "the " + S.Role
                                           : "the other access: the " + S.Role));
    Where += fmt::format("{}{} at {}", I ? " and the " : "the ", S.Role,
                         siteText(S));
  }
  std::string Text = fmt::format("{} in kernel {}: {}", F.Title, F.Kernel,
                                 Where);
  if (!F.Detail.empty())
    Text += ". " + F.Detail;
  // A fingerprint of what the finding is, not where its lines are now.
  uint64_t H = fnv1a64(findingRuleId(F.Kind));
  H = fnv1a64(F.Kernel, fnv1a64("\n", H));
  H = fnv1a64(F.Variable, fnv1a64("\n", H));
  for (const FindingSite &S : F.Sites)
    H = fnv1a64(S.Text, fnv1a64("\n", H));
  json R = {{"ruleId", findingRuleId(F.Kind)},
            {"ruleIndex", ruleIndex(F.Kind)},
            {"level", Rules[ruleIndex(F.Kind)].Level},
            {"message", {{"text", Text}}},
            {"locations", Locations},
            {"partialFingerprints", {{"incantFinding/v1", hex16(H)}}},
            {"properties", {{"kernel", F.Kernel}, {"variable", F.Variable}}}};
  if (!F.Assumptions.empty())
    R["properties"]["assumptions"] = F.Assumptions;
  if (F.Suppressed)
    R["suppressions"] = json::array(
        {{{"kind", "external"},
          {"status", "accepted"},
          {"justification", "matched by a suppressions file"}}});
  return R;
}

} // namespace

json sarifLog(const std::vector<Finding> &Findings,
              const std::vector<std::string> &Files,
              const std::string &Version,
              const std::vector<std::string> &Assumptions) {
  json RuleList = json::array();
  for (const Rule &R : Rules)
    RuleList.push_back({{"id", findingRuleId(R.Kind)},
                        {"name", R.Name},
                        {"shortDescription", {{"text", R.Short}}},
                        {"fullDescription", {{"text", R.Full}}},
                        {"defaultConfiguration", {{"level", R.Level}}}});
  json Artifacts = json::array();
  for (const std::string &F : Files)
    Artifacts.push_back({{"location", {{"uri", pathUri(F)}}},
                         {"roles", json::array({"analysisTarget"})}});
  json Results = json::array();
  for (const Finding &F : Findings)
    Results.push_back(result(F));
  json Driver = {{"name", "incant"},
                 {"fullName", "incant race"},
                 {"rules", RuleList}};
  if (!Version.empty())
    Driver["version"] = Version;
  json Run = {{"tool", {{"driver", Driver}}},
              {"artifacts", Artifacts},
              {"columnKind", "unicodeCodePoints"},
              {"results", Results}};
  if (!Assumptions.empty())
    Run["properties"] = {{"assumptions", Assumptions}};
  return {{"$schema", SchemaUri},
          {"version", "2.1.0"},
          {"runs", json::array({Run})}};
}

} // namespace incant::race
