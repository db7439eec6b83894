//===- OptionFuzzer.cpp - libFuzzer target for option values -------------===//
//
// Every text a user types after an option goes through one of these
// parsers: numbers with their range (Support/Range.h, what every numeric
// option of the tool is checked with), access sequences (--stress-seq),
// durations (--budget), grids (--distances, --offsets), cycles and edge
// lists (gen --cycle, --relax), shards (--shard). The first byte of an
// input picks the parser, the rest is the option's text. Each must give a
// value or an error, never crash or hang, and what it accepts must print
// back to something it reads the same way.
//
//===----------------------------------------------------------------------===//
#include "incant/Campaign/Campaign.h"
#include "incant/Gen/Cycle.h"
#include "incant/Harness/Params.h"
#include "incant/Support/Range.h"
#include "incant/Commands/TuneCommand.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace incant;

namespace {

[[noreturn]] void fail(const char *What, const std::string &Text) {
  std::fprintf(stderr, "%s: '%s'\n", What, Text.c_str());
  std::abort();
}

uint64_t hashOf(const std::string &S) {
  uint64_t H = 0xcbf29ce484222325ull;
  for (unsigned char C : S)
    H = (H ^ C) * 0x100000001b3ull;
  return H;
}

void wholeNumber(const std::string &Text) {
  // A range drawn from the text itself: small ones, and the full one.
  uint64_t H = hashOf(Text);
  IntRange R = H % 4 == 0 ? IntRange{} : IntRange{H % 1000, H % 1000 + H % 65536};
  std::string Error;
  std::optional<uint64_t> V = parseInRange(Text, R, Error);
  bool Digits = !Text.empty() &&
                Text.find_first_not_of("0123456789") == std::string::npos;
  if (!V) {
    if (Error.empty())
      fail("rejected without a message", Text);
    // Digits in range must be accepted.
    uint64_t W = 0;
    auto [P, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), W);
    if (Digits && Ec == std::errc() && R.contains(W))
      fail("a number in range was rejected", Text);
    return;
  }
  if (!Digits || !R.contains(*V))
    fail("accepted what is no number in range", Text);
  size_t Zeros = Text.find_first_not_of('0');
  std::string Plain = Zeros == std::string::npos ? "0" : Text.substr(Zeros);
  if (std::to_string(*V) != Plain)
    fail("a number read as another", Text);
}

void realNumber(const std::string &Text) {
  RealRange R{0, 1e6};
  std::string Error;
  std::optional<double> V = parseInRange(Text, R, Error);
  if (!V) {
    if (Error.empty())
      fail("rejected without a message", Text);
    return;
  }
  if (!std::isfinite(*V) || !R.contains(*V))
    fail("accepted a number out of range", Text);
}

void stressSeq(const std::string &Text) {
  std::vector<harness::StressAccess> Seq, Again;
  std::string Error;
  if (!harness::parseStressSeq(Text, Seq, Error)) {
    if (Error.empty())
      fail("rejected without a message", Text);
    return;
  }
  std::string Printed = harness::formatStressSeq(Seq);
  if (!harness::parseStressSeq(Printed, Again, Error) || Again != Seq)
    fail("a printed sequence reads differently", Text);
}

void duration(const std::string &Text) {
  double S = -1;
  if (tune::parseDuration(Text, S) && !(S >= 0 && S <= 1e7 * 3600))
    fail("a duration out of range", Text);
}

void grid(const std::string &Text) {
  std::vector<uint32_t> Out;
  std::string Error;
  if (!tune::parseRange(Text, Out, Error) && Error.empty())
    fail("rejected without a message", Text);
}

void cycle(const std::string &Text, bool List) {
  auto File = std::make_shared<SourceFile>(List ? "--relax" : "--cycle", Text);
  DiagnosticEngine Diags;
  if (List) {
    if (!gen::parseEdgeList(File, Diags) && !Diags.hasErrors())
      fail("rejected without a diagnostic", Text);
    for (const Diagnostic &D : Diags.diagnostics())
      (void)DiagnosticEngine::format(D);
    return;
  }
  std::optional<gen::Cycle> C = gen::parseCycle(File, Diags);
  for (const Diagnostic &D : Diags.diagnostics())
    (void)DiagnosticEngine::format(D); // printing must not crash either
  if (!C) {
    if (!Diags.hasErrors())
      fail("rejected without a diagnostic", Text);
    return;
  }
  std::string Printed = gen::printCycle(*C);
  DiagnosticEngine Again;
  std::optional<gen::Cycle> D = gen::parseCycle(
      std::make_shared<SourceFile>("--cycle", Printed), Again);
  if (!D || gen::printCycle(*D) != Printed)
    fail("a printed cycle reads differently", Text);
}

void shard(const std::string &Text) {
  uint32_t I = 0, N = 0;
  std::string Error;
  if (campaign::parseShard(Text, I, N, Error) && !(N > 0 && I < N))
    fail("a shard outside 0 <= i < N", Text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0 || Size > 4096)
    return 0;
  std::string Text(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  switch (Data[0] % 9) {
  case 0: wholeNumber(Text); break;
  case 1: realNumber(Text); break;
  case 2: stressSeq(Text); break;
  case 3: duration(Text); break;
  case 4: grid(Text); break;
  case 5: cycle(Text, false); break;
  case 6: cycle(Text, true); break;
  case 7: shard(Text); break;
  case 8: wholeNumber(Text); realNumber(Text); break;
  }
  return 0;
}
