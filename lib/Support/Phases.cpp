//===- Phases.cpp - Where a command's time goes ---------------------------===//
#include "incant/Support/Phases.h"

#include <fmt/format.h>

#include <mutex>
#include <ostream>

namespace incant::phases {

namespace {

struct Table {
  std::mutex M;
  std::vector<Phase> Phases;
};

Table &table() {
  static Table T;
  return T;
}

} // namespace

void add(const std::string &Name, double Seconds) {
  Table &T = table();
  std::lock_guard<std::mutex> Lock(T.M);
  for (Phase &P : T.Phases)
    if (P.Name == Name) {
      P.Seconds += Seconds;
      ++P.Count;
      return;
    }
  T.Phases.push_back({Name, Seconds, 1});
}

Scope::~Scope() {
  add(Name, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          Start)
                .count());
}

std::vector<Phase> snapshot() {
  Table &T = table();
  std::lock_guard<std::mutex> Lock(T.M);
  return T.Phases;
}

void print(std::ostream &OS, double Total) {
  for (const Phase &P : snapshot())
    OS << fmt::format("timings: {:<30} {:8.4f} s{}\n", P.Name, P.Seconds,
                      P.Count > 1 ? fmt::format(" ({} times)", P.Count) : "");
  OS << fmt::format("timings: {:<30} {:8.4f} s (wall, from the command's "
                    "start; phases on other threads overlap)\n",
                    "total", Total);
}

} // namespace incant::phases
