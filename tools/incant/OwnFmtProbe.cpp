//===- OwnFmtProbe.cpp - Configure-time check of the static incant --------===//
//
// Not part of any target: CMakeLists.txt links this, compiled against the
// shared libfmt as the parts are, with OwnFmt.cpp, statically. It uses fmt
// the ways the parts do (format, format_to a string, floating point, hex,
// join), so a libfmt whose calls OwnFmt.cpp does not provide fails here
// and incant is linked dynamically instead of failing to link.
//
//===----------------------------------------------------------------------===//
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>
#include <string>
#include <vector>

int main(int Argc, char **) {
  std::vector<int> V{Argc, 2};
  std::string S = fmt::format("{} {:.2f} {:x} {:016x} {} {}", Argc, Argc / 3.0,
                              unsigned(Argc), uint64_t(Argc), "s",
                              fmt::join(V, " "));
  fmt::format_to(std::back_inserter(S), "{}{}", 'c', float(Argc));
  try {
    S += fmt::format(fmt::runtime(S.substr(0, 1) + "{"), Argc);
  } catch (const fmt::format_error &) {
  }
  return S.empty();
}
