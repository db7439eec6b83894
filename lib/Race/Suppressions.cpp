//===- Suppressions.cpp - Known findings, named by their source lines -----===//
#include "ReportImpl.h"
#include "incant/IR/Summary.h"
#include "incant/Race/Findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace incant::race {

namespace {

std::string trim(std::string_view S) {
  size_t B = S.find_first_not_of(" \t\r");
  if (B == std::string_view::npos)
    return "";
  size_t E = S.find_last_not_of(" \t\r");
  return std::string(S.substr(B, E - B + 1));
}

/// Reads the entries of a suppressions file, one `[kind]` line and its
/// `key = value` lines each.
class SuppressionParser {
public:
  SuppressionParser(std::shared_ptr<SourceFile> File, DiagnosticEngine &Diags)
      : File(std::move(File)), Diags(Diags) {}

  std::optional<SuppressionFile> parse() {
    SuppressionFile Out;
    Out.Path = File->name();
    for (uint32_t N = 1; N <= lineCount(); ++N) {
      std::string_view L = File->line(N);
      size_t B = L.find_first_not_of(" \t\r");
      if (B == std::string_view::npos || L[B] == '#')
        continue;
      bool Ok = L[B] == '[' ? header(Out, N, L, B) : entry(Out, N, L, B);
      if (!Ok)
        return std::nullopt;
    }
    return Out;
  }

private:
  std::shared_ptr<SourceFile> File;
  DiagnosticEngine &Diags;

  uint32_t lineCount() const {
    const std::string &T = File->text();
    uint32_t N = static_cast<uint32_t>(std::count(T.begin(), T.end(), '\n'));
    return N + (!T.empty() && T.back() != '\n');
  }

  bool fail(uint32_t Line, size_t Col, std::string Message) {
    SourceLoc Loc{Line, static_cast<uint32_t>(Col + 1), 0};
    Diags.error(File, {Loc, Loc}, std::move(Message));
    return false;
  }

  bool header(SuppressionFile &Out, uint32_t N, std::string_view L, size_t B) {
    size_t E = L.find(']', B);
    if (E == std::string_view::npos || !trim(L.substr(E + 1)).empty())
      return fail(N, B, "expected '[race]', '[divergence]' or '[unknown]' "
                        "alone on its line");
    std::string Kind = trim(L.substr(B + 1, E - B - 1));
    std::optional<FindingKind> K = findingKindOf(Kind);
    if (!K)
      return fail(N, B + 1, fmt::format("unknown finding kind '{}'; expected "
                                        "race, divergence or unknown",
                                        Kind));
    Suppression S;
    S.Kind = *K;
    S.DeclLine = N;
    Out.Entries.push_back(std::move(S));
    return true;
  }

  bool entry(SuppressionFile &Out, uint32_t N, std::string_view L, size_t B) {
    size_t Eq = L.find('=', B);
    if (Eq == std::string_view::npos)
      return fail(N, B, "expected 'KEY = VALUE' (kernel, variable or line) "
                        "or a '[kind]' line");
    std::string Key = trim(L.substr(B, Eq - B));
    std::string Value = trim(L.substr(Eq + 1));
    if (Out.Entries.empty())
      return fail(N, B, "'" + Key + "' before the first '[kind]' line");
    Suppression &S = Out.Entries.back();
    if (Key == "kernel" || Key == "variable") {
      std::string &Field = Key == "kernel" ? S.Kernel : S.Variable;
      if (!Field.empty())
        return fail(N, B, "a second '" + Key + "' in this entry");
      if (Value.empty())
        return fail(N, Eq + 1, "expected a name (or '*' for any)");
      Field = Value;
      return true;
    }
    if (Key != "line")
      return fail(N, B, fmt::format("unknown key '{}'; expected kernel, "
                                    "variable or line",
                                    Key));
    size_t Colon = Value.find(": ");
    if (Colon == std::string::npos || Colon == 0)
      return fail(N, Eq + 1, "expected 'line = FILE: SOURCE LINE'");
    S.Lines.emplace_back(Value.substr(0, Colon),
                         normalizeSourceLine(Value.substr(Colon + 2)));
    return true;
  }
};

/// Whether \p Path is \p Name or ends with "/" + \p Name.
bool pathEndsWith(const std::string &Path, const std::string &Name) {
  if (Path == Name)
    return true;
  return Path.size() > Name.size() &&
         Path.compare(Path.size() - Name.size(), Name.size(), Name) == 0 &&
         Path[Path.size() - Name.size() - 1] == '/';
}

bool any(const std::string &Pattern) {
  return Pattern.empty() || Pattern == "*";
}

} // namespace

std::optional<SuppressionFile> readSuppressions(const std::string &Path,
                                                DiagnosticEngine &Diags) {
  std::string Error;
  std::shared_ptr<SourceFile> File = SourceFile::read(Path, Error);
  if (!File) {
    Diags.error(Path + ": " + Error);
    return std::nullopt;
  }
  return SuppressionParser(File, Diags).parse();
}

bool suppressionMatches(const Suppression &S, const Finding &F,
                        const std::string &KernelPtxName) {
  if (S.Kind != F.Kind)
    return false;
  if (!any(S.Kernel) && S.Kernel != F.Kernel &&
      !ir::kernelNameMatches(KernelPtxName, S.Kernel))
    return false;
  if (!any(S.Variable) && S.Variable != F.Variable)
    return false;
  if (S.Lines.empty())
    return true;
  if (S.Lines.size() != F.Sites.size())
    return false;
  // Every site one line of the entry, each line used once.
  std::vector<bool> Used(S.Lines.size());
  for (const FindingSite &Site : F.Sites) {
    bool Found = false;
    for (size_t I = 0; I < S.Lines.size() && !Found; ++I)
      if (!Used[I] && S.Lines[I].second == Site.Text &&
          pathEndsWith(Site.File, S.Lines[I].first))
        Used[I] = Found = true;
    if (!Found)
      return false;
  }
  return true;
}

unsigned applySuppressions(ModuleReport &R, SuppressionFile &S) {
  unsigned N = 0;
  for (const Finding &F : collectFindings(R)) {
    bool Hit = false;
    for (Suppression &E : S.Entries)
      if (suppressionMatches(E, F, R.Kernels[F.KernelIndex].Name)) {
        ++E.Matched;
        Hit = true;
      }
    if (!Hit)
      continue;
    ++N;
    KernelReport &K = R.Kernels[F.KernelIndex];
    for (unsigned P : F.Pairs)
      K.Pairs[P].Suppressed = true;
    if (F.Barrier)
      K.Barriers[*F.Barrier].Suppressed = true;
  }
  return N;
}

std::string suppressionsText(const std::vector<Finding> &Findings) {
  std::string Out =
      "# incant race suppressions (docs/race.md, \"Suppressions and "
      "baselines\").\n"
      "# Each entry names a finding by its kind, kernel, variable and the\n"
      "# text of its source lines; `incant race --suppressions FILE` leaves\n"
      "# out the findings an entry names.\n";
  std::set<std::string> Seen;
  for (const Finding &F : Findings) {
    std::string E = fmt::format("\n[{}]\nkernel = {}\n", findingRuleId(F.Kind),
                                F.Kernel);
    if (!F.Variable.empty())
      E += "variable = " + F.Variable + "\n";
    for (const FindingSite &S : F.Sites)
      E += fmt::format("line = {}: {}\n", report::baseName(S.File), S.Text);
    if (Seen.insert(E).second)
      Out += E;
  }
  return Out;
}

} // namespace incant::race
