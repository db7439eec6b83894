//===- OptCheck.cpp - Did the compiler keep the test's accesses? -----------===//

#include "incant/CUDA/OptCheck.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/Process.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace incant;
using namespace incant::cuda;

std::string OptCheckResult::line() const {
  switch (K) {
  case Ok:
    return Detail.empty() ? std::string("optcheck: ok")
                          : fmt::format("optcheck: ok ({})", Detail);
  case Failed:
    return fmt::format("optcheck: FAILED ({})", Detail);
  case Skipped:
    break;
  }
  return fmt::format("optcheck: skipped ({})", Detail);
}

std::string incant::cuda::sassClass(const std::string &Opcode) {
  std::string Base = Opcode.substr(0, Opcode.find('.'));
  if (Base == "LDG" || Base == "LDS" || Base == "LD")
    return "LD";
  if (Base == "STG" || Base == "STS" || Base == "ST")
    return "ST";
  if (Base == "ATOMG" || Base == "ATOMS" || Base == "ATOM" || Base == "RED" ||
      Base == "REDG" || Base == "REDS")
    return "RMW";
  if (Base == "MEMBAR" || Base == "FENCE")
    return "FENCE";
  // BAR.SYNC, BAR.SYNC.DEFER_BLOCKING, BAR.RED...; not BAR.ARV (arrive only)
  // and not the warp-level WARPSYNC.
  if (Base == "BAR" && Opcode.rfind("BAR.ARV", 0) != 0)
    return "BAR";
  return "";
}

namespace {

std::string normalise(const std::string &E) {
  if (E == "ATOM" || E == "RED")
    return "RMW";
  return E;
}

bool matches(const std::vector<std::string> &Expected,
             const std::vector<std::string> &Actual) {
  size_t J = 0;
  for (const std::string &E0 : Expected) {
    if (E0 == "FENCE?") {
      if (J < Actual.size() && Actual[J] == "FENCE")
        ++J;
      continue;
    }
    std::string E = normalise(E0);
    if (J >= Actual.size() || Actual[J] != E)
      return false;
    ++J;
  }
  return J == Actual.size();
}

} // namespace

OptCheckResult
incant::cuda::checkSass(const std::string &Sass,
                        const std::vector<std::vector<std::string>> &Expected,
                        const std::vector<std::string> &Names) {
  auto Name = [&](size_t R) {
    return R < Names.size() ? Names[R] : fmt::format("thread {}", R);
  };
  // "/*0090*/   @!P0 LDG.E.STRONG.GPU R2, desc[UR4][R2.64] ;"
  static const std::regex Insn(
      R"(/\*[0-9a-fA-F]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);)");
  static const std::regex Imm(R"((0x[0-9a-fA-F]+|\b[0-9]+\b))");
  struct Region {
    uint32_t Role;
    std::vector<std::string> Ops;
  };
  std::vector<Region> Done;
  std::map<uint32_t, std::vector<std::string>> Open;
  std::istringstream In(Sass);
  std::string Line;
  while (std::getline(In, Line)) {
    std::smatch M;
    if (!std::regex_search(Line, M, Insn))
      continue;
    std::string Opc = M[1].str();
    if (Opc.rfind("PMTRIG", 0) == 0) {
      std::string Rest = M[2].str();
      std::smatch I;
      if (!std::regex_search(Rest, I, Imm))
        continue;
      uint32_t V = static_cast<uint32_t>(std::stoul(I[1].str(), nullptr, 0));
      if (V < 0x100u)
        continue;
      uint32_t Role = (V - 0x100u) / 2u;
      if ((V - 0x100u) % 2u == 0) {
        Open[Role].clear();
        Open[Role].push_back("<open>");
      } else if (Open.count(Role)) {
        std::vector<std::string> Ops(Open[Role].begin() + 1, Open[Role].end());
        Done.push_back({Role, std::move(Ops)});
        Open.erase(Role);
      }
      continue;
    }
    std::string C = sassClass(Opc);
    if (C.empty())
      continue;
    for (auto &[R, Ops] : Open)
      if (!(C == "FENCE" && !Ops.empty() && Ops.back() == "FENCE"))
        Ops.push_back(C);
  }
  OptCheckResult Res;
  if (Done.empty()) {
    Res.K = OptCheckResult::Skipped;
    Res.Detail = "no role markers found in the SASS";
    return Res;
  }
  std::vector<bool> Seen(Expected.size(), false);
  for (const Region &R : Done) {
    if (R.Role >= Expected.size())
      continue;
    Seen[R.Role] = true;
    if (!matches(Expected[R.Role], R.Ops)) {
      Res.K = OptCheckResult::Failed;
      Res.Detail = fmt::format("{}: expected {}, SASS has {}", Name(R.Role),
                               fmt::join(Expected[R.Role], " "),
                               fmt::join(R.Ops, " "));
      return Res;
    }
  }
  for (size_t R = 0; R < Expected.size(); ++R)
    if (!Seen[R]) {
      Res.K = OptCheckResult::Failed;
      Res.Detail = fmt::format("{}: its code is missing from the SASS", Name(R));
      return Res;
    }
  Res.K = OptCheckResult::Ok;
  return Res;
}

bool incant::cuda::disassemble(const std::string &Cubin, std::string &Sass,
                               std::string &Why) {
  std::string Tool = incant::findCudaProgram("cuobjdump");
  bool UseCuobjdump = !Tool.empty();
  if (!UseCuobjdump)
    Tool = incant::findCudaProgram("nvdisasm");
  if (Tool.empty()) {
    Why = "no cuobjdump or nvdisasm";
    return false;
  }
  char Tmpl[] = "/tmp/incant-optcheck-XXXXXX";
  int Fd = mkstemp(Tmpl);
  if (Fd < 0) {
    Why = "cannot create a temporary file";
    return false;
  }
  close(Fd);
  {
    std::ofstream F(Tmpl, std::ios::binary);
    F.write(Cubin.data(), static_cast<std::streamsize>(Cubin.size()));
  }
  ProcessOptions Run;
  Run.Argv = {Tool};
  if (UseCuobjdump)
    Run.Argv.push_back("-sass");
  Run.Argv.push_back(Tmpl);
  Run.Stderr = OutputMode::Discard;
  // A cubin of a few kernels disassembles in well under a second.
  Run.TimeoutSeconds = 120;
  ProcessResult R = runProcess(Run);
  unlink(Tmpl);
  if (!R.started()) {
    Why = "cannot run " + Tool;
    return false;
  }
  Sass = std::move(R.Out);
  if (!R.succeeded() || Sass.empty()) {
    Why = Tool + " failed";
    return false;
  }
  return true;
}
