//===- OptCheck.cpp - Did the compiler keep the test's accesses? -----------===//

#include "incant/CUDA/OptCheck.h"
#include "Listing.h"
#include "incant/Support/FindProgram.h"
#include "incant/Support/Phases.h"
#include "incant/Support/Process.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>
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

bool isHex(char C) {
  return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'f') ||
         (C >= 'A' && C <= 'F');
}
bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isUpper(char C) { return C >= 'A' && C <= 'Z'; }
bool isWordChar(char C) {
  return isDigit(C) || isUpper(C) || (C >= 'a' && C <= 'z') || C == '_';
}

/// An instruction of a SASS listing line: "/*0090*/  @!P0 LDG.E R2, [R2] ;"
/// gives the opcode "LDG.E" and its operands " R2, [R2] " (up to the ';');
/// false when the line holds none. The first "/*ADDRESS*/" that starts an
/// instruction counts.
bool instruction(std::string_view L, std::string_view &Opcode,
                 std::string_view &Operands) {
  for (size_t P = L.find("/*"); P != std::string_view::npos;
       P = L.find("/*", P + 1)) {
    size_t I = P + 2, B = I;
    while (I < L.size() && isHex(L[I]))
      ++I;
    if (I == B || L.substr(I, 2) != "*/")
      continue;
    I += 2;
    B = I;
    while (I < L.size() && isBlank(L[I]))
      ++I;
    if (I == B)
      continue;
    if (I < L.size() && L[I] == '@') {
      // A predicate: @!?U?P[T0-9]+ and blanks.
      size_t J = I + 1;
      if (J < L.size() && L[J] == '!')
        ++J;
      if (J < L.size() && L[J] == 'U')
        ++J;
      if (J >= L.size() || L[J] != 'P')
        continue;
      size_t D = ++J;
      while (J < L.size() && (L[J] == 'T' || isDigit(L[J])))
        ++J;
      size_t S = J;
      while (J < L.size() && isBlank(L[J]))
        ++J;
      if (S == D || J == S)
        continue;
      I = J;
    }
    if (I >= L.size() || !isUpper(L[I]))
      continue;
    size_t O = I;
    while (I < L.size() &&
           (isUpper(L[I]) || isDigit(L[I]) || L[I] == '_' || L[I] == '.'))
      ++I;
    size_t Semi = L.find(';', I);
    if (Semi == std::string_view::npos)
      continue;
    Opcode = L.substr(O, I - O);
    Operands = L.substr(I, Semi - I);
    return true;
  }
  return false;
}

/// The first immediate of \p S: 0x-hex, or a decimal number standing alone
/// (not part of a register name such as R2).
std::optional<std::string_view> firstImmediate(std::string_view S) {
  for (size_t I = 0; I < S.size(); ++I) {
    if (!isDigit(S[I]))
      continue;
    if (S[I] == '0' && I + 2 < S.size() && S[I + 1] == 'x' &&
        isHex(S[I + 2])) {
      size_t J = I + 2;
      while (J < S.size() && isHex(S[J]))
        ++J;
      return S.substr(I, J - I);
    }
    if (I > 0 && isWordChar(S[I - 1]))
      continue;
    size_t J = I;
    while (J < S.size() && isDigit(S[J]))
      ++J;
    if (J < S.size() && isWordChar(S[J]))
      continue;
    return S.substr(I, J - I);
  }
  return std::nullopt;
}

} // namespace

OptCheckResult
incant::cuda::checkSass(const std::string &Sass,
                        const std::vector<std::vector<std::string>> &Expected,
                        const std::vector<std::string> &Names) {
  auto Name = [&](size_t R) {
    return R < Names.size() ? Names[R] : fmt::format("thread {}", R);
  };
  struct Region {
    uint32_t Role;
    std::vector<std::string> Ops;
  };
  std::vector<Region> Done;
  std::map<uint32_t, std::vector<std::string>> Open;
  forEachLine(Sass, [&](std::string_view Line) {
    std::string_view Opcode, Operands;
    if (!instruction(Line, Opcode, Operands))
      return;
    std::string Opc(Opcode);
    if (Opc.rfind("PMTRIG", 0) == 0) {
      std::optional<std::string_view> Imm = firstImmediate(Operands);
      if (!Imm)
        return;
      // Base 0 as the listing writes it: 0x-hex, decimal; too large for a
      // marker is no marker.
      std::string Digits(*Imm);
      errno = 0;
      unsigned long long V = std::strtoull(Digits.c_str(), nullptr, 0);
      if (errno == ERANGE || V < 0x100u || V > 0xffffffffu)
        return;
      uint32_t Role = static_cast<uint32_t>((V - 0x100u) / 2u);
      if ((V - 0x100u) % 2u == 0) {
        Open[Role].clear();
        Open[Role].push_back("<open>");
      } else if (Open.count(Role)) {
        std::vector<std::string> Ops(Open[Role].begin() + 1, Open[Role].end());
        Done.push_back({Role, std::move(Ops)});
        Open.erase(Role);
      }
      return;
    }
    std::string C = sassClass(Opc);
    if (C.empty())
      return;
    for (auto &[R, Ops] : Open)
      if (!(C == "FENCE" && !Ops.empty() && Ops.back() == "FENCE"))
        Ops.push_back(C);
  });
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

std::vector<std::string>
incant::cuda::disassemblerCommand(std::string &Why) {
  std::string Want;
  if (const char *E = std::getenv("INCANT_CUDA_DISASSEMBLER"))
    Want = E;
  if (!Want.empty() && Want != "cuobjdump" && Want != "nvdisasm") {
    Why = "INCANT_CUDA_DISASSEMBLER=" + Want +
          ": expected cuobjdump or nvdisasm";
    return {};
  }
  // nvdisasm first: without its dataflow analysis (which only labels
  // branch targets) it lists the same instructions as cuobjdump -sass for
  // less CPU (docs/campaign.md, calls 9 and 10).
  if (Want != "cuobjdump")
    if (std::string Tool = incant::findCudaProgram("nvdisasm"); !Tool.empty())
      return {Tool, "-ndf"};
  if (Want != "nvdisasm")
    if (std::string Tool = incant::findCudaProgram("cuobjdump"); !Tool.empty())
      return {Tool, "-sass"};
  Why = Want.empty() ? "no nvdisasm or cuobjdump" : "no " + Want;
  return {};
}

bool incant::cuda::disassemble(const std::string &Cubin, std::string &Sass,
                               std::string &Why) {
  incant::phases::Scope Timed("cuda: SASS (nvdisasm)");
  std::vector<std::string> Cmd = disassemblerCommand(Why);
  if (Cmd.empty())
    return false;
  const std::string &Tool = Cmd.front();
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
  Run.Argv = Cmd;
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
