//===- Params.cpp - Stress access sequences ---------------------------------===//
#include "incant/Harness/Params.h"

#include <cctype>

namespace incant::harness {

bool parseStressSeq(const std::string &Text, std::vector<StressAccess> &Seq,
                    std::string &Error) {
  std::vector<StressAccess> Out;
  size_t I = 0;
  auto Skip = [&] {
    while (I < Text.size() && (Text[I] == ' ' || Text[I] == ','))
      ++I;
  };
  for (Skip(); I < Text.size(); Skip()) {
    StressAccess A;
    if (Text.compare(I, 2, "st") == 0)
      A.IsStore = true;
    else if (Text.compare(I, 2, "ld") == 0)
      A.IsStore = false;
    else {
      Error = "expected 'ld' or 'st' at column " + std::to_string(I + 1) +
              " of the access sequence '" + Text + "'";
      return false;
    }
    I += 2;
    size_t Start = I;
    uint32_t Loc = 0;
    while (I < Text.size() && std::isdigit((unsigned char)Text[I]) &&
           I - Start < 4)
      Loc = Loc * 10 + uint32_t(Text[I++] - '0');
    if (I == Start || (I < Text.size() && std::isdigit((unsigned char)Text[I]))) {
      Error = "expected a location number (0-9999) at column " +
              std::to_string(Start + 1) + " of the access sequence '" + Text +
              "'";
      return false;
    }
    A.Loc = Loc;
    Out.push_back(A);
  }
  if (Out.empty()) {
    Error = "the access sequence is empty (expected e.g. 'st0 ld1')";
    return false;
  }
  Seq = std::move(Out);
  return true;
}

std::string formatStressSeq(const std::vector<StressAccess> &Seq) {
  std::string S;
  for (const StressAccess &A : Seq) {
    if (!S.empty())
      S += ' ';
    S += A.IsStore ? "st" : "ld";
    S += std::to_string(A.Loc);
  }
  return S;
}

} // namespace incant::harness
