//===- Classify.cpp - A test's family and scope ---------------------------===//
#include "incant/Campaign/Classify.h"

#include <algorithm>
#include <cctype>

namespace incant::campaign {

std::string familyOf(const std::string &TestName) {
  size_t Plus = TestName.find('+');
  if (Plus == std::string::npos)
    return TestName;
  bool Count =
      Plus > 0 &&
      std::all_of(TestName.begin(), TestName.begin() + Plus, [](char C) {
        return std::isdigit(static_cast<unsigned char>(C));
      });
  if (Count) {
    size_t Next = TestName.find('+', Plus + 1);
    return TestName.substr(0, Next);
  }
  return TestName.substr(0, Plus);
}

std::string scopeOf(const litmus::Program &P) {
  const char *Level = "intra-warp";
  int Rank = 0;
  for (size_t I = 0; I < P.Threads.size(); ++I)
    for (size_t J = I + 1; J < P.Threads.size(); ++J) {
      const litmus::Placement &A = P.Threads[I].Where, &B = P.Threads[J].Where;
      int R = A.Device != B.Device ? 3
              : A.CTA != B.CTA     ? 2
              : A.Warp != B.Warp   ? 1
                                   : 0;
      if (R > Rank) {
        Rank = R;
        Level = R == 3 ? "inter-device" : R == 2 ? "inter-cta" : "inter-warp";
      }
    }
  bool Global = false, Shared = false;
  for (const litmus::Location &L : P.Locs)
    (L.R == litmus::Region::Shared ? Shared : Global) = true;
  const char *Region = Global && Shared ? "mixed"
                       : Shared         ? "shared"
                       : Global         ? "global"
                                        : "none";
  return std::string(Level) + "/" + Region;
}

} // namespace incant::campaign
