//===- Generate.cpp - Families of cycles, variants, and `incant gen` ------===//
#include "GenImpl.h"

#include "incant/Litmus/Printer.h"
#include "incant/Support/Hash.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <unordered_set>

using namespace incant;
using namespace incant::gen;

namespace {

/// What a po edge of a shape (or a generic fence edge) may become.
struct PoChoice {
  enum Kind : uint8_t { None, WithFence, Addr, Data, Ctrl } K = None;
  Fence F;
};

struct AccessVariant {
  std::string Name;
  enum Kind : uint8_t { Uniform, AcqRel, RelAcq } K = Uniform;
  Access A; ///< Uniform: the kind; AcqRel/RelAcq: A.Sc is the scope.
};

/// A family's options, parsed.
struct Family {
  std::vector<Cycle> Templates; ///< May hold generic fences and levels.
  /// The first templates come from --cycle: their option text, to report a
  /// cycle that gives no test.
  std::vector<std::shared_ptr<SourceFile>> Explicit;
  std::vector<PoChoice> Po;
  std::vector<Level> Levels;
  bool Mixed = false;
  std::vector<AccessVariant> Accesses;
  std::vector<MemVariant> Memory;
  unsigned MaxThreads = 4;
};

std::shared_ptr<SourceFile> optionFile(const std::string &Option,
                                       const std::string &Text) {
  return std::make_shared<SourceFile>(Option, Text);
}

/// Parses each word of \p Text with \p Parse; reports unknown ones.
template <typename T, typename F>
bool parseList(const std::string &Option, const char *Noun,
               const std::string &Text, DiagnosticEngine &Diags,
               std::vector<T> &Out, F Parse, const char *Expected) {
  auto File = optionFile(Option, Text);
  bool Ok = true;
  for (const Word &W : splitWords(*File)) {
    std::optional<T> V = Parse(W.Text);
    if (!V) {
      Diags.error(File, W.Range,
                  fmt::format("unknown {} '{}' (expected {})", Noun, W.Text,
                              Expected));
      Ok = false;
      continue;
    }
    if (std::find(Out.begin(), Out.end(), *V) == Out.end())
      Out.push_back(*V);
  }
  if (Ok && Out.empty()) {
    Diags.error(File, {}, fmt::format("{} is empty", Option));
    Ok = false;
  }
  return Ok;
}

bool operator==(const PoChoice &A, const PoChoice &B) {
  return A.K == B.K && (A.K != PoChoice::WithFence || A.F == B.F);
}
bool operator==(const AccessVariant &A, const AccessVariant &B) {
  return A.Name == B.Name;
}

std::optional<PoChoice> parsePoChoice(std::string_view W) {
  if (W == "none" || W == "po")
    return PoChoice{PoChoice::None, {}};
  if (W == "addr")
    return PoChoice{PoChoice::Addr, {}};
  if (W == "data")
    return PoChoice{PoChoice::Data, {}};
  if (W == "ctrl")
    return PoChoice{PoChoice::Ctrl, {}};
  if (std::optional<Fence> F = parseFence(W))
    return PoChoice{PoChoice::WithFence, *F};
  return std::nullopt;
}

std::optional<AccessVariant> parseAccessVariant(std::string_view W) {
  AccessVariant V;
  V.Name = std::string(W);
  for (auto [Prefix, K] : {std::pair{"acqrel.", AccessVariant::AcqRel},
                           std::pair{"relacq.", AccessVariant::RelAcq}}) {
    std::string_view P(Prefix);
    if (W.substr(0, P.size()) != P)
      continue;
    std::optional<Access> A =
        parseAccess(std::string("relaxed.") + std::string(W.substr(P.size())));
    if (!A)
      return std::nullopt;
    V.K = K;
    V.A = *A;
    return V;
  }
  std::optional<Access> A = parseAccess(W);
  if (!A || A->K == Access::Acquire || A->K == Access::Release)
    return std::nullopt;
  V.A = *A;
  return V;
}

std::optional<MemVariant> parseMemory(std::string_view W) {
  if (W == "global")
    return MemVariant::Global;
  if (W == "shared")
    return MemVariant::Shared;
  if (W == "dsmem")
    return MemVariant::Dsmem;
  return std::nullopt;
}

/// Whether a po edge can take a choice: dependencies start from reads
/// (data ones end in writes) and go to another location.
bool fits(const PoChoice &P, const Edge &E) {
  switch (P.K) {
  case PoChoice::None:
  case PoChoice::WithFence: return true;
  case PoChoice::Addr:
  case PoChoice::Ctrl: return E.Src == Dir::R && !E.SameLoc;
  case PoChoice::Data:
    return E.Src == Dir::R && E.Dst == Dir::W && !E.SameLoc;
  }
  return false;
}

/// The shape's cycle with each po edge replaced by each choice of \p Po
/// that fits it.
void expandShape(const ShapeInfo &S, const std::vector<PoChoice> &Po,
                 std::vector<Cycle> &Out) {
  std::vector<Cycle> Acc(1);
  for (const Edge &E : S.Edges) {
    std::vector<Cycle> Next;
    for (const Cycle &C : Acc) {
      if (E.isCom()) {
        Cycle D = C;
        D.Edges.push_back(E);
        Next.push_back(std::move(D));
        continue;
      }
      // A choice that fits no po edge (a dependency from a write) leaves
      // the edge plain.
      bool AnyFits = false;
      for (const PoChoice &P : Po)
        AnyFits |= fits(P, E);
      if (!AnyFits) {
        Cycle D = C;
        D.Edges.push_back(E);
        Next.push_back(std::move(D));
        continue;
      }
      for (const PoChoice &P : Po) {
        if (!fits(P, E))
          continue;
        Edge X = E;
        switch (P.K) {
        case PoChoice::None: break;
        case PoChoice::WithFence:
          X.K = Edge::Fenced;
          X.F = P.F;
          break;
        case PoChoice::Addr: X.K = Edge::DpAddr; break;
        case PoChoice::Ctrl: X.K = Edge::DpCtrl; break;
        case PoChoice::Data: X.K = Edge::DpData; break;
        }
        Cycle D = C;
        D.Edges.push_back(X);
        Next.push_back(std::move(D));
      }
    }
    Acc = std::move(Next);
  }
  for (Cycle &C : Acc) {
    C.Kinds.assign(C.Edges.size(), std::nullopt);
    Out.push_back(std::move(C));
  }
}

/// The most partial cycles an enumeration, and concrete cycles (variants
/// included) a command, may go through; beyond, it stops with an error
/// rather than run for hours. Building a test takes 10 to 200 us.
constexpr uint64_t EnumBudget = 20'000'000;
constexpr uint64_t CycleBudget = 1'000'000;

/// diy's enumeration: the cycles of at most MaxSize edges from \p Pool, in
/// their least rotation, with at least one edge marked relaxed. False if
/// a budget ran out (partial cycles visited, cycles kept).
bool enumerateCycles(const std::vector<Edge> &Pool,
                     const std::vector<bool> &IsRelax, unsigned MaxSize,
                     unsigned MaxThreads, std::vector<Cycle> &Out) {
  std::vector<size_t> Seq;
  uint64_t Visited = 0, Stored = 0;
  auto Close = [&] {
    const Edge &First = Pool[Seq.front()], &Last = Pool[Seq.back()];
    if (Last.Dst != First.Src)
      return;
    unsigned Ext = 0, Diff = 0;
    bool Relax = false;
    for (size_t I : Seq) {
      Ext += Pool[I].External;
      Diff += !Pool[I].SameLoc;
      Relax |= IsRelax[I];
    }
    if (!Relax || Ext < 2 || Diff == 1)
      return;
    // Keep the least rotation only.
    size_t N = Seq.size();
    for (size_t R = 1; R != N; ++R) {
      for (size_t I = 0; I != N; ++I) {
        size_t A = Seq[(R + I) % N], B = Seq[I];
        if (A < B)
          return;
        if (A > B)
          break;
      }
    }
    if (++Stored > CycleBudget)
      return;
    Cycle C;
    for (size_t I : Seq)
      C.Edges.push_back(Pool[I]);
    C.Kinds.assign(N, std::nullopt);
    Out.push_back(std::move(C));
  };
  auto Rec = [&](auto &Self, unsigned Ext) -> void {
    if (++Visited > EnumBudget || Stored > CycleBudget)
      return;
    if (Seq.size() >= 2)
      Close();
    if (Seq.size() == MaxSize)
      return;
    for (size_t I = Seq.front(); I != Pool.size(); ++I) {
      if (Pool[I].Src != Pool[Seq.back()].Dst)
        continue;
      unsigned E = Ext + Pool[I].External;
      if (E > MaxThreads)
        continue;
      Seq.push_back(I);
      Self(Self, E);
      Seq.pop_back();
    }
  };
  for (size_t I = 0; I != Pool.size(); ++I) {
    Seq = {I};
    Rec(Rec, Pool[I].External);
  }
  return Visited <= EnumBudget && Stored <= CycleBudget;
}

std::optional<Family> parseFamily(const FamilyOptions &O,
                                  DiagnosticEngine &Diags) {
  Family F;
  bool Ok = true;
  Ok &= parseList("--fences", "fence", O.Fences, Diags, F.Po, parsePoChoice,
                  "none, addr, data, ctrl, membar.{cta,gl,sys}, "
                  "fence.sc.S, fence.acq_rel.S or fence.proxy.async");
  Ok &= parseList("--scopes", "scope relation", O.Scopes, Diags, F.Levels, parseLevel,
                  "warp, cta, cluster or gpu");
  Ok &= parseList("--accesses", "access variant", O.Accesses, Diags, F.Accesses,
                  parseAccessVariant,
                  "weak, volatile, relaxed.S, atomic.S, acqrel.S or "
                  "relacq.S with S one of cta, cluster, gpu, sys");
  Ok &= parseList("--mem", "memory variant", O.Memory, Diags, F.Memory, parseMemory,
                  "global, shared or dsmem");
  F.Mixed = O.MixedScopes;
  F.MaxThreads = O.MaxThreads;
  if (O.MaxThreads < 2 || O.MaxThreads > MaxThreadsLimit) {
    Diags.error(fmt::format("--threads must be between 2 and {}, not {}",
                            MaxThreadsLimit, O.MaxThreads));
    Ok = false;
  }

  for (const std::string &Text : O.Cycles) {
    auto File = optionFile("--cycle", Text);
    std::optional<Cycle> C = parseCycle(File, Diags);
    if (!C) {
      Ok = false;
      continue;
    }
    if (C->Edges.size() > MaxCycleEdges) {
      Diags.error(File, {},
                  fmt::format("a cycle has at most {} edges, this one {}",
                              MaxCycleEdges, C->Edges.size()));
      Ok = false;
      continue;
    }
    F.Templates.push_back(std::move(*C));
    F.Explicit.push_back(File);
  }
  if (!O.Shapes.empty()) {
    auto File = optionFile("--shapes", O.Shapes);
    for (const Word &W : splitWords(*File)) {
      const std::vector<ShapeInfo> &All = shapeInfos();
      auto It = std::find_if(All.begin(), All.end(), [&](const ShapeInfo &S) {
        return S.Name == W.Text;
      });
      if (It == All.end()) {
        std::string Known;
        for (const ShapeInfo &S : All)
          Known += (Known.empty() ? "" : ", ") + S.Name;
        Diags.error(File, W.Range,
                    fmt::format("unknown shape '{}' (known: {})", W.Text,
                                Known));
        Ok = false;
        continue;
      }
      expandShape(*It, F.Po, F.Templates);
    }
  }
  if (!O.Relax.empty()) {
    auto Relax = parseEdgeList(optionFile("--relax", O.Relax), Diags);
    auto Safe = parseEdgeList(optionFile("--safe", O.Safe), Diags);
    if (!Relax || !Safe) {
      Ok = false;
    } else if (O.MaxSize < 2 || O.MaxSize > MaxSizeLimit) {
      Diags.error(fmt::format("--size must be between 2 and {}, not {}",
                              MaxSizeLimit, O.MaxSize));
      Ok = false;
    } else if (O.MaxThreads >= 2 && O.MaxThreads <= MaxThreadsLimit) {
      std::vector<Edge> Pool;
      std::vector<bool> IsRelax;
      for (const Edge &E : *Relax)
        if (std::find(Pool.begin(), Pool.end(), E) == Pool.end()) {
          Pool.push_back(E);
          IsRelax.push_back(true);
        }
      for (const Edge &E : *Safe)
        if (std::find(Pool.begin(), Pool.end(), E) == Pool.end()) {
          Pool.push_back(E);
          IsRelax.push_back(Safe->empty());
        }
      if (!enumerateCycles(Pool, IsRelax, O.MaxSize, O.MaxThreads,
                           F.Templates)) {
        Diags.error(fmt::format("more than {} partial cycles to enumerate, "
                                "or more than {} cycles; lower --size or "
                                "--threads, or give fewer edges",
                                EnumBudget, CycleBudget));
        Ok = false;
      }
    }
  } else if (!O.Safe.empty()) {
    Diags.error("--safe needs --relax");
    Ok = false;
  }
  if (!Ok)
    return std::nullopt;
  // A generic fence edge needs fences to stand for.
  bool Generic = false, AnyFence = false;
  for (const Cycle &C : F.Templates)
    for (const Edge &E : C.Edges)
      Generic |= E.K == Edge::Fenced && !E.F;
  for (const PoChoice &P : F.Po)
    AnyFence |= P.K == PoChoice::WithFence;
  if (Generic && !AnyFence) {
    Diags.error(optionFile("--fences", O.Fences), {},
                "a generic Fenced edge needs at least one fence in --fences");
    return std::nullopt;
  }
  return F;
}

/// Every concrete cycle of a template: generic fences and levels replaced.
/// False if there would be more than the budget.
/// How many concrete cycles concretize gives for \p T: fence and level
/// choices multiply. Stops counting past the budget (returns more).
uint64_t countConcrete(const Cycle &T, const Family &F) {
  uint64_t Fences = 0;
  for (const PoChoice &P : F.Po)
    Fences += P.K == PoChoice::WithFence;
  uint64_t Count = 1;
  size_t GenericLevels = 0;
  for (const Edge &E : T.Edges) {
    if (E.K == Edge::Fenced && !E.F)
      Count *= Fences;
    GenericLevels += E.External && !E.Lvl;
    if (Count > CycleBudget)
      return Count;
  }
  if (GenericLevels && !F.Mixed)
    Count *= F.Levels.size();
  for (size_t I = 0; F.Mixed && I != GenericLevels; ++I)
    if ((Count *= F.Levels.size()) > CycleBudget)
      return Count;
  return Count;
}

bool concretize(const Cycle &T, const Family &F, std::vector<Cycle> &Out) {
  if (countConcrete(T, F) > CycleBudget)
    return false;
  std::vector<Cycle> Acc = {T};
  // Generic fences: each independently.
  for (size_t I = 0; I != T.Edges.size(); ++I) {
    if (T.Edges[I].K != Edge::Fenced || T.Edges[I].F)
      continue;
    std::vector<Cycle> Next;
    for (const Cycle &C : Acc)
      for (const PoChoice &P : F.Po) {
        if (P.K != PoChoice::WithFence)
          continue;
        Cycle D = C;
        D.Edges[I].F = P.F;
        Next.push_back(std::move(D));
      }
    Acc = std::move(Next);
  }
  // Generic levels: all alike, or each independently.
  std::vector<size_t> Gen;
  for (size_t I = 0; I != T.Edges.size(); ++I)
    if (T.Edges[I].External && !T.Edges[I].Lvl)
      Gen.push_back(I);
  if (Gen.empty()) {
    Out.insert(Out.end(), Acc.begin(), Acc.end());
    return true;
  }
  if (!F.Mixed) {
    for (const Cycle &C : Acc)
      for (Level L : F.Levels) {
        Cycle D = C;
        for (size_t I : Gen)
          D.Edges[I].Lvl = L;
        Out.push_back(std::move(D));
      }
    return true;
  }
  for (size_t I : Gen) {
    std::vector<Cycle> Next;
    for (const Cycle &C : Acc)
      for (Level L : F.Levels) {
        Cycle D = C;
        D.Edges[I].Lvl = L;
        Next.push_back(std::move(D));
      }
    Acc = std::move(Next);
  }
  Out.insert(Out.end(), Acc.begin(), Acc.end());
  return true;
}

/// The kinds of the events that the cycle leaves open, from a variant.
Cycle applyAccess(const Cycle &C, const AccessVariant &V) {
  Cycle D = C;
  size_t N = C.Edges.size();
  D.Kinds.resize(N);
  for (size_t I = 0; I != N; ++I) {
    if (D.Kinds[I])
      continue;
    Dir Dr = C.Edges[I].Src;
    const Edge &In = C.Edges[(I + N - 1) % N], &OutE = C.Edges[I];
    if (OutE.K == Edge::Tx)
      continue; // The async store's kind is its own.
    Access A;
    switch (V.K) {
    case AccessVariant::Uniform: A = V.A; break;
    case AccessVariant::AcqRel:
      A = {Dr == Dir::R ? Access::Acquire : Access::Release, V.A.Sc};
      break;
    case AccessVariant::RelAcq:
      if (Dr == Dir::W && !In.isCom())
        A = {Access::Release, V.A.Sc};
      else if (Dr == Dir::R && !OutE.isCom())
        A = {Access::Acquire, V.A.Sc};
      break;
    }
    D.Kinds[I] = A;
  }
  return D;
}

} // namespace

/// The test's name, at most MaxNameLength bytes (it is a file name): a
/// longer one keeps its start and gets a hash of the whole name.
static std::string boundedName(const std::string &Name) {
  if (Name.size() <= MaxNameLength)
    return Name;
  // Cut after a whole edge where there is one.
  size_t Cut = Name.rfind('+', MaxNameLength - 17);
  if (Cut == std::string::npos || Cut < MaxNameLength / 2)
    Cut = MaxNameLength - 17;
  return Name.substr(0, Cut) + "+" + hex16(fnv1a64(Name));
}

std::optional<GenStats> gen::generate(const GenOptions &Opts,
                                      DiagnosticEngine &Diags,
                                      const TestSink &Sink,
                                      const GenProgress &Progress) {
  std::vector<Family> Families;
  for (const FamilyOptions &O : Opts.Families) {
    std::optional<Family> F = parseFamily(O, Diags);
    if (F)
      Families.push_back(std::move(*F));
  }
  if (Diags.hasErrors())
    return std::nullopt;
  // The work is known before any test is built: refuse too much of it.
  uint64_t Total = 0;
  for (const Family &F : Families)
    for (const Cycle &T : F.Templates) {
      Total += countConcrete(T, F) * F.Accesses.size() * F.Memory.size();
      if (Total > CycleBudget) {
        Diags.error(fmt::format("the options give more than {} cycles; give "
                                "shorter lists",
                                CycleBudget));
        return std::nullopt;
      }
    }
  GenStats S;
  S.Total = Total;
  auto Start = std::chrono::steady_clock::now();
  auto OutOfTime = [&] {
    if (S.Incomplete)
      return true;
    if (Opts.TimeLimit <= 0 ||
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      Start)
                .count() < Opts.TimeLimit)
      return false;
    S.Incomplete = true;
    S.IncompleteReason = fmt::format("stopped at the time limit of {}s after "
                                     "{} of {} cycles",
                                     Opts.TimeLimit, S.Cycles, S.Total);
    return true;
  };
  std::unordered_set<std::string> Keys;
  std::map<std::string, unsigned> Names;
  // Builds every variant of template TI of F; gives each test to Emit (if
  // set) and returns whether one was built, with the first reason if not.
  auto Variants = [&](const Family &F, size_t TI, bool Count,
                      const std::function<bool(GeneratedTest &&)> &Emit,
                      std::string &FirstWhy) {
    std::vector<Cycle> Concrete;
    concretize(F.Templates[TI], F, Concrete);
    bool Built = false;
    for (const Cycle &C : Concrete) {
      if (Count && OutOfTime())
        return Built;
      // Kinds written in the cycle name the test (the variant's name
      // would say "weak" for MP+rel+acq).
      bool Written = std::any_of(C.Kinds.begin(), C.Kinds.end(),
                                 [](const auto &K) { return K.has_value(); });
      for (const AccessVariant &V : F.Accesses)
        for (MemVariant Mem : F.Memory) {
          if (Count)
            ++S.Cycles;
          std::string Why;
          std::optional<GeneratedTest> G;
          unsigned Threads = unsigned(std::count_if(
              C.Edges.begin(), C.Edges.end(),
              [](const Edge &E) { return E.External; }));
          if (Threads > F.MaxThreads)
            Why = fmt::format("{} threads, more than --threads {}", Threads,
                              F.MaxThreads);
          else
            G = buildTest(applyAccess(C, V), Mem, Written ? "" : V.Name,
                          Why);
          if (!G) {
            S.Impossible += Count;
            if (FirstWhy.empty())
              FirstWhy = Why;
            continue;
          }
          Built = true;
          if (!Emit)
            return true;
          if (!Emit(std::move(*G)))
            return Built;
        }
    }
    return Built;
  };
  // A --cycle that gives no test is an error found before any test is
  // handed out, so that nothing is written for a wrong command.
  for (const Family &F : Families)
    for (size_t TI = 0; TI < F.Explicit.size(); ++TI) {
      std::string FirstWhy;
      if (Variants(F, TI, false, {}, FirstWhy))
        continue;
      const SourceFile &File = *F.Explicit[TI];
      SourceRange All = {File.locAt(0),
                         File.locAt(uint32_t(File.text().size()))};
      Diags.error(F.Explicit[TI], All, "impossible cycle: " + FirstWhy);
    }
  if (Diags.hasErrors())
    return std::nullopt;
  bool Stopped = false;
  auto Emit = [&](GeneratedTest &&G) {
    if (!Keys.insert(G.Key).second) {
      ++S.Isomorphic;
      return true;
    }
    // Two different tests with one name: number the later ones.
    std::string Base = boundedName(G.Name);
    unsigned &Seen = Names[Base];
    std::string Name = Seen++ ? Base + fmt::format("+v{}", Seen) : Base;
    if (Name != G.Name) {
      G.Name = Name;
      G.AST.Name = G.Name;
      G.Text = litmus::printTest(G.AST);
    }
    ++S.Tests;
    if (!Sink(std::move(G)))
      Stopped = true;
    return !Stopped;
  };
  for (const Family &F : Families)
    for (size_t TI = 0; TI != F.Templates.size() && !Stopped && !S.Incomplete;
         ++TI) {
      std::string FirstWhy;
      Variants(F, TI, true, Emit, FirstWhy);
      if (Progress)
        Progress(S);
    }
  if (Stopped)
    return std::nullopt;
  return S;
}

std::optional<std::vector<GeneratedTest>>
gen::generate(const GenOptions &Opts, DiagnosticEngine &Diags,
              GenStats *Stats) {
  std::vector<GeneratedTest> Out;
  std::optional<GenStats> S = generate(
      Opts, Diags, [&](GeneratedTest &&G) {
        Out.push_back(std::move(G));
        return true;
      });
  if (!S)
    return std::nullopt;
  if (Stats)
    *Stats = *S;
  return Out;
}
