//===- Cycle.cpp - Spelling and parsing the edges of a cycle --------------===//
#include "incant/Gen/Cycle.h"

#include <fmt/format.h>

#include <array>

using namespace incant;
using namespace incant::gen;
using litmus::FenceKind;
using litmus::Scope;

namespace {

const char *scopeWord(Scope S) {
  switch (S) {
  case Scope::CTA: return "cta";
  case Scope::Cluster: return "cluster";
  case Scope::GPU: return "gpu";
  case Scope::Sys: return "sys";
  case Scope::None: break;
  }
  return "";
}

std::optional<Scope> parseScopeWord(std::string_view W) {
  if (W == "cta")
    return Scope::CTA;
  if (W == "cluster")
    return Scope::Cluster;
  if (W == "gpu")
    return Scope::GPU;
  if (W == "sys")
    return Scope::Sys;
  return std::nullopt;
}

char dirChar(Dir D) { return D == Dir::R ? 'R' : 'W'; }

std::optional<Dir> parseDir(char C) {
  if (C == 'R')
    return Dir::R;
  if (C == 'W')
    return Dir::W;
  return std::nullopt;
}

bool startsWith(std::string_view S, std::string_view P) {
  return S.substr(0, P.size()) == P;
}

} // namespace

std::string gen::printFence(const Fence &F) {
  switch (F.Kind) {
  case FenceKind::Membar:
    return std::string("membar.") +
           (F.Sc == Scope::GPU ? "gl" : scopeWord(F.Sc));
  case FenceKind::FenceSC:
    return std::string("fence.sc.") + scopeWord(F.Sc);
  case FenceKind::FenceAcqRel:
    return std::string("fence.acq_rel.") + scopeWord(F.Sc);
  case FenceKind::Proxy:
    return "fence.proxy.async";
  }
  return "";
}

std::optional<Fence> gen::parseFence(std::string_view T) {
  Fence F;
  std::string_view Rest;
  if (T == "fence.proxy.async")
    return Fence{FenceKind::Proxy, Scope::None};
  if (startsWith(T, "membar.")) {
    F.Kind = FenceKind::Membar;
    Rest = T.substr(7);
    if (Rest == "gl")
      return Fence{FenceKind::Membar, Scope::GPU};
    if (Rest != "cta" && Rest != "sys")
      return std::nullopt;
  } else if (startsWith(T, "fence.sc.")) {
    F.Kind = FenceKind::FenceSC;
    Rest = T.substr(9);
  } else if (startsWith(T, "fence.acq_rel.")) {
    F.Kind = FenceKind::FenceAcqRel;
    Rest = T.substr(14);
  } else {
    return std::nullopt;
  }
  std::optional<Scope> S = parseScopeWord(Rest);
  if (!S)
    return std::nullopt;
  F.Sc = *S;
  return F;
}

std::string gen::printLevel(Level L) {
  static const std::array<const char *, NumLevels> Names = {"warp", "cta",
                                                             "cluster", "gpu"};
  return Names[static_cast<unsigned>(L)];
}

std::optional<Level> gen::parseLevel(std::string_view T) {
  for (unsigned I = 0; I != NumLevels; ++I)
    if (T == printLevel(static_cast<Level>(I)))
      return static_cast<Level>(I);
  return std::nullopt;
}

std::string gen::printAccess(const Access &A) {
  switch (A.K) {
  case Access::Weak: return "weak";
  case Access::Volatile: return "volatile";
  case Access::Relaxed: return std::string("relaxed.") + scopeWord(A.Sc);
  case Access::Acquire: return std::string("acquire.") + scopeWord(A.Sc);
  case Access::Release: return std::string("release.") + scopeWord(A.Sc);
  case Access::Atomic: return std::string("atomic.") + scopeWord(A.Sc);
  case Access::Bulk: return "bulk";
  }
  return "";
}

std::optional<Access> gen::parseAccess(std::string_view T) {
  if (T == "weak")
    return Access{Access::Weak, Scope::None};
  if (T == "volatile")
    return Access{Access::Volatile, Scope::None};
  if (T == "bulk")
    return Access{Access::Bulk, Scope::None};
  static const std::pair<const char *, Access::Kind> Scoped[] = {
      {"relaxed.", Access::Relaxed},
      {"acquire.", Access::Acquire},
      {"release.", Access::Release},
      {"atomic.", Access::Atomic}};
  for (const auto &[Prefix, K] : Scoped) {
    std::string_view P(Prefix);
    if (!startsWith(T, P))
      continue;
    std::optional<Scope> S = parseScopeWord(T.substr(P.size()));
    if (!S)
      return std::nullopt;
    return Access{K, *S};
  }
  return std::nullopt;
}

namespace {

const char *syncName(Edge::Kind K) {
  return K == Edge::Mbar ? "Mbar" : K == Edge::Tx ? "Tx" : "Cbar";
}

/// Mbar<s|d>XY.<rel|rlx>.<acq|rlx>.<scope>[.test][.loop],
/// Tx<s|d>WY.<st|red>.<acq|rlx>.<scope>[.test][.loop], Cbar<s|d>XY.<rel|rlx>.
std::string printSyncEdge(const Edge &E) {
  std::string S = fmt::format("{}{}{}{}", syncName(E.K), E.SameLoc ? 's' : 'd',
                              dirChar(E.Src), dirChar(E.Dst));
  const Sync &Y = E.S;
  if (E.K == Edge::Cbar)
    return S + (Y.RelArrive ? ".rel" : ".rlx");
  if (E.K == Edge::Mbar)
    S += Y.RelArrive ? ".rel" : ".rlx";
  else
    S += Y.Red ? ".red" : ".st";
  S += Y.AcqWait ? ".acq" : ".rlx";
  S += std::string(".") + scopeWord(Y.Sc);
  if (Y.TestWait)
    S += ".test";
  if (Y.Loop)
    S += ".loop";
  return S;
}

/// The part of a sync edge after its directions, e.g. ".rel.acq.cta.loop".
/// Words may be left out: the defaults are rel, acq (st for Tx), cta.
bool parseSyncMods(Edge &E, std::string_view Mods) {
  Sync Y;
  unsigned Pos = 0; // 0: arrive (or op), 1: wait, 2: scope, 3: flags.
  while (!Mods.empty()) {
    if (Mods[0] != '.')
      return false;
    Mods.remove_prefix(1);
    size_t Dot = Mods.find('.');
    std::string_view W = Mods.substr(0, Dot);
    Mods = Dot == std::string_view::npos ? std::string_view() : Mods.substr(Dot);
    bool Cbar = E.K == Edge::Cbar;
    if (Pos == 0 && E.K == Edge::Tx && (W == "st" || W == "red")) {
      Y.Red = W == "red";
      Pos = 1;
    } else if (Pos == 0 && E.K != Edge::Tx && (W == "rel" || W == "rlx")) {
      Y.RelArrive = W == "rel";
      Pos = 1;
    } else if (!Cbar && Pos <= 1 && (W == "acq" || W == "rlx")) {
      Y.AcqWait = W == "acq";
      Pos = 2;
    } else if (!Cbar && Pos <= 2 && (W == "cta" || W == "cluster")) {
      Y.Sc = W == "cta" ? Scope::CTA : Scope::Cluster;
      Pos = 3;
    } else if (!Cbar && W == "test" && !Y.TestWait && !Y.Loop) {
      Y.TestWait = true;
      Pos = 3;
    } else if (!Cbar && W == "loop" && !Y.Loop) {
      Y.Loop = true;
      Pos = 3;
    } else {
      return false;
    }
  }
  E.S = Y;
  return true;
}

} // namespace

std::string gen::printEdge(const Edge &E) {
  std::string S;
  std::string Dirs = {dirChar(E.Src), dirChar(E.Dst)};
  switch (E.K) {
  case Edge::Po:
    return (E.SameLoc ? "Pos" : "Pod") + Dirs;
  case Edge::Fenced:
    S = (E.SameLoc ? "Fences" : "Fenced") + Dirs;
    if (E.F)
      S += "." + printFence(*E.F);
    return S;
  case Edge::DpAddr:
    return std::string("DpAddrd") + dirChar(E.Dst);
  case Edge::DpData:
    return "DpDatadW";
  case Edge::DpCtrl:
    return std::string("DpCtrld") + dirChar(E.Dst);
  case Edge::Rf: S = "Rf"; break;
  case Edge::Fr: S = "Fr"; break;
  case Edge::Co: S = "Co"; break;
  case Edge::Mbar:
  case Edge::Tx:
  case Edge::Cbar: S = printSyncEdge(E); break;
  }
  if (E.isCom())
    S += E.External ? 'e' : 'i';
  if (E.External && E.Lvl)
    S += "@" + printLevel(*E.Lvl);
  return S;
}

std::optional<Edge> gen::parseEdge(std::string_view T) {
  Edge E;
  // Communication edges, with an optional scope relation.
  std::string_view Base = T;
  std::optional<Level> Lvl;
  if (size_t At = T.find('@'); At != std::string_view::npos) {
    Base = T.substr(0, At);
    Lvl = parseLevel(T.substr(At + 1));
    if (!Lvl)
      return std::nullopt;
  }
  static const struct {
    const char *Name;
    Edge::Kind K;
    Dir Src, Dst;
    bool Ext;
  } Coms[] = {{"Rfe", Edge::Rf, Dir::W, Dir::R, true},
              {"Rfi", Edge::Rf, Dir::W, Dir::R, false},
              {"Fre", Edge::Fr, Dir::R, Dir::W, true},
              {"Fri", Edge::Fr, Dir::R, Dir::W, false},
              {"Coe", Edge::Co, Dir::W, Dir::W, true},
              {"Coi", Edge::Co, Dir::W, Dir::W, false},
              {"Wse", Edge::Co, Dir::W, Dir::W, true},
              {"Wsi", Edge::Co, Dir::W, Dir::W, false}};
  for (const auto &C : Coms) {
    if (Base != C.Name)
      continue;
    if (Lvl && !C.Ext)
      return std::nullopt;
    E.K = C.K;
    E.Src = C.Src;
    E.Dst = C.Dst;
    E.External = C.Ext;
    E.SameLoc = true;
    E.Lvl = Lvl;
    return E;
  }
  // Synchronisation edges, with an optional scope relation.
  for (Edge::Kind K : {Edge::Mbar, Edge::Tx, Edge::Cbar}) {
    std::string_view Name = syncName(K);
    if (!startsWith(Base, Name) || Base.size() < Name.size() + 3)
      continue;
    std::string_view R = Base.substr(Name.size());
    std::optional<Dir> A = parseDir(R[1]), B = parseDir(R[2]);
    if ((R[0] != 's' && R[0] != 'd') || !A || !B)
      return std::nullopt;
    if (K == Edge::Tx && *A != Dir::W)
      return std::nullopt; // The source of a Tx edge is the async store.
    E.K = K;
    E.SameLoc = R[0] == 's';
    E.Src = *A;
    E.Dst = *B;
    E.External = true;
    E.Lvl = Lvl;
    if (!parseSyncMods(E, R.substr(3)))
      return std::nullopt;
    return E;
  }
  if (Lvl)
    return std::nullopt;

  // Program order: Pod/Pos XY.
  if ((startsWith(T, "Pod") || startsWith(T, "Pos")) && T.size() == 5) {
    std::optional<Dir> A = parseDir(T[3]), B = parseDir(T[4]);
    if (!A || !B)
      return std::nullopt;
    E.K = Edge::Po;
    E.SameLoc = T[2] == 's';
    E.Src = *A;
    E.Dst = *B;
    return E;
  }
  // Fences: Fenced/Fences XY [.fence].
  if ((startsWith(T, "Fenced") || startsWith(T, "Fences")) && T.size() >= 8) {
    std::optional<Dir> A = parseDir(T[6]), B = parseDir(T[7]);
    if (!A || !B)
      return std::nullopt;
    E.K = Edge::Fenced;
    E.SameLoc = T[5] == 's';
    E.Src = *A;
    E.Dst = *B;
    if (T.size() > 8) {
      if (T[8] != '.')
        return std::nullopt;
      E.F = parseFence(T.substr(9));
      if (!E.F)
        return std::nullopt;
    }
    return E;
  }
  // Dependencies, from a read to a different location.
  static const struct {
    const char *Name;
    Edge::Kind K;
    Dir Dst;
  } Deps[] = {{"DpAddrdR", Edge::DpAddr, Dir::R},
              {"DpAddrdW", Edge::DpAddr, Dir::W},
              {"DpDatadW", Edge::DpData, Dir::W},
              {"DpCtrldR", Edge::DpCtrl, Dir::R},
              {"DpCtrldW", Edge::DpCtrl, Dir::W}};
  for (const auto &D : Deps) {
    if (T != D.Name)
      continue;
    E.K = D.K;
    E.Src = Dir::R;
    E.Dst = D.Dst;
    return E;
  }
  return std::nullopt;
}

std::string gen::printCycle(const Cycle &C) {
  std::string S;
  for (size_t I = 0; I != C.Edges.size(); ++I) {
    if (I < C.Kinds.size() && C.Kinds[I] && C.Kinds[I]->K != Access::Weak)
      S += printAccess(*C.Kinds[I]) + " ";
    S += printEdge(C.Edges[I]);
    if (I + 1 != C.Edges.size())
      S += " ";
  }
  return S;
}

std::vector<Word> gen::splitWords(const SourceFile &File) {
  std::vector<Word> Out;
  const std::string &T = File.text();
  size_t I = 0;
  auto IsSep = [](char C) {
    return C == ',' || C == ' ' || C == '\t' || C == '\n';
  };
  while (I < T.size()) {
    while (I < T.size() && IsSep(T[I]))
      ++I;
    size_t B = I;
    while (I < T.size() && !IsSep(T[I]))
      ++I;
    if (I == B)
      continue;
    Word W;
    W.Text = T.substr(B, I - B);
    W.Range = {File.locAt(uint32_t(B)), File.locAt(uint32_t(I))};
    Out.push_back(std::move(W));
  }
  return Out;
}

static std::string unknownEdgeMessage(const std::string &W) {
  return fmt::format(
      "unknown relaxation '{}' (expected Pod/Pos XY, Fenced/Fences XY[.fence], "
      "DpAddrdR/W, DpDatadW, DpCtrldR/W, Rfe/Rfi/Fre/Fri/Coe/Coi[@level], "
      "Mbar/Cbar<s|d>XY[.mods][@level], Tx<s|d>WY[.mods][@level])",
      W);
}

std::optional<std::vector<Edge>>
gen::parseEdgeList(std::shared_ptr<const SourceFile> File,
                   DiagnosticEngine &Diags) {
  std::vector<Edge> Out;
  bool Bad = false;
  for (const Word &W : splitWords(*File)) {
    std::optional<Edge> E = parseEdge(W.Text);
    if (!E) {
      Diags.error(File, W.Range, unknownEdgeMessage(W.Text));
      Bad = true;
      continue;
    }
    Out.push_back(*E);
  }
  if (Bad)
    return std::nullopt;
  return Out;
}

std::optional<Cycle> gen::parseCycle(std::shared_ptr<const SourceFile> File,
                                     DiagnosticEngine &Diags) {
  Cycle C;
  std::vector<SourceRange> EdgeRanges;
  std::optional<Access> Pending;
  SourceRange PendingRange;
  std::optional<Access> Leading; // A kind before the first edge.
  bool Bad = false;
  for (const Word &W : splitWords(*File)) {
    if (std::optional<Access> A = parseAccess(W.Text)) {
      if (Pending) {
        Diags.error(File, W.Range,
                    fmt::format("two access kinds for one event ('{}' and "
                                "'{}')",
                                printAccess(*Pending), W.Text));
        Bad = true;
      }
      Pending = A;
      PendingRange = W.Range;
      continue;
    }
    std::optional<Edge> E = parseEdge(W.Text);
    if (!E) {
      Diags.error(File, W.Range,
                  parseFence(W.Text)
                      ? fmt::format("a fence is written as an edge, e.g. "
                                    "'FencedWR.{}'",
                                    W.Text)
                      : unknownEdgeMessage(W.Text));
      Bad = true;
      continue;
    }
    if (Pending) {
      Access A = *Pending;
      if ((A.K == Access::Acquire && E->Src == Dir::W) ||
          (A.K == Access::Release && E->Src == Dir::R)) {
        Diags.error(File, PendingRange,
                    fmt::format("'{}' cannot qualify a {}", printAccess(A),
                                E->Src == Dir::W ? "write" : "read"));
        Bad = true;
      }
    }
    C.Edges.push_back(*E);
    C.Kinds.push_back(Pending);
    EdgeRanges.push_back(W.Range);
    Pending.reset();
  }
  if (Pending) {
    // A kind after the last edge qualifies the first event (the cycle
    // closes there).
    if (C.Kinds.empty() || C.Kinds[0]) {
      Diags.error(File, PendingRange,
                  C.Kinds.empty() ? "an access kind must stand next to an edge"
                                  : "two access kinds for one event");
      Bad = true;
    } else {
      C.Kinds[0] = Pending;
    }
  }
  if (Bad)
    return std::nullopt;
  if (C.Edges.empty()) {
    Diags.error(File, {}, "empty cycle");
    return std::nullopt;
  }
  for (size_t I = 0; I != C.Edges.size(); ++I) {
    size_t J = (I + 1) % C.Edges.size();
    if (C.Edges[I].Dst != C.Edges[J].Src) {
      Diags.error(File, EdgeRanges[J],
                  fmt::format("impossible cycle: '{}' ends in a {} but '{}' "
                              "starts from a {}",
                              printEdge(C.Edges[I]),
                              C.Edges[I].Dst == Dir::R ? "read" : "write",
                              printEdge(C.Edges[J]),
                              C.Edges[J].Src == Dir::R ? "read" : "write"));
      return std::nullopt;
    }
  }
  return C;
}
