//===- Reduction.cpp - Empirical fence insertion (Algorithm 1) ------------===//
#include "incant/Fences/Reduction.h"
#include "incant/Intercept/Fences.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace incant::fences {

const char *purposeName(Purpose P) {
  switch (P) {
  case Purpose::All:
    return "all";
  case Purpose::None:
    return "none";
  case Purpose::Binary:
    return "binary";
  case Purpose::Chunk:
    return "chunk";
  case Purpose::Linear:
    return "linear";
  case Purpose::Stable:
    return "stable";
  case Purpose::Weaken:
    return "weaken";
  }
  return "?";
}

std::string formatSet(const FenceSet &S) {
  const auto &Kinds = intercept::fenceKindNames();
  std::string Out;
  for (auto It = S.begin(); It != S.end();) {
    auto End = std::next(It);
    uint32_t Last = It->first;
    while (End != S.end() && End->first == Last + 1 &&
           End->second == It->second) {
      Last = End->first;
      ++End;
    }
    if (!Out.empty())
      Out += ',';
    Out += Last == It->first ? fmt::format("{}", It->first)
                             : fmt::format("{}-{}", It->first, Last);
    if (It->second != 0)
      Out += "/" + Kinds[It->second];
    It = End;
  }
  return Out;
}

std::optional<FenceSet> parseSet(const std::string &Text) {
  FenceSet S;
  size_t B = 0;
  while (B < Text.size()) {
    size_t E = Text.find(',', B);
    if (E == std::string::npos)
      E = Text.size();
    std::string Item = Text.substr(B, E - B);
    B = E + 1;
    unsigned Kind = 0;
    if (size_t Slash = Item.find('/'); Slash != std::string::npos) {
      auto K = intercept::fenceKindIndex(Item.substr(Slash + 1));
      if (!K)
        return std::nullopt;
      Kind = *K;
      Item.resize(Slash);
    }
    size_t Dash = Item.find('-');
    auto Num = [](const std::string &T, uint32_t &V) {
      if (T.empty() || T.size() > 9 ||
          T.find_first_not_of("0123456789") != std::string::npos)
        return false;
      V = static_cast<uint32_t>(std::strtoul(T.c_str(), nullptr, 10));
      return true;
    };
    uint32_t First = 0, Last = 0;
    if (!Num(Item.substr(0, Dash), First) ||
        !Num(Dash == std::string::npos ? Item : Item.substr(Dash + 1), Last) ||
        Last < First || Last - First > (1u << 20))
      return std::nullopt;
    for (uint32_t I = First; I <= Last; ++I)
      S[I] = Kind;
  }
  return S;
}

bool ordersNoMore(const FenceSet &Sub, const FenceSet &Super) {
  // Kinds: 0 sc.gpu, 1 acq_rel.gpu, 2 sc.cta, 3 acq_rel.cta.
  auto AtLeast = [](unsigned Strong, unsigned Weak) {
    return Strong == Weak || Strong == 0 || Weak == 3;
  };
  for (const auto &[Fence, Kind] : Sub) {
    auto It = Super.find(Fence);
    if (It == Super.end() || !AtLeast(It->second, Kind))
      return false;
  }
  return true;
}

namespace {

class Search {
public:
  Search(const ReductionOptions &O, Oracle &Or, Journal *J, ProgressSink *P)
      : Opts(O), Or(Or), J(J), P(P) {}

  SearchResult run();

private:
  /// Runs (or replays) one check; nullopt on an oracle or journal error
  /// or when the budget is spent (Stop says which). A \p Fresh check makes
  /// all its runs now: earlier runs of its set that passed do not count.
  std::optional<bool> check(Purpose Pu, const FenceSet &F,
                            const CheckSpec &Spec, bool Fresh = false);
  CheckSpec iterations() const {
    return {I, Opts.CheckSeconds};
  }
  std::optional<FenceSet> binary(FenceSet F);
  std::optional<FenceSet> linear(FenceSet F);
  /// The next round's I after a failed stability check.
  uint64_t nextIterations() const;

  const ReductionOptions &Opts;
  Oracle &Or;
  Journal *J;
  ProgressSink *P;
  SearchResult R;
  uint64_t I = 0;
  unsigned Round = 0;
  /// The set the current round's reduction has reached: the last one that
  /// passed its checks (every fence at the start of a round).
  FenceSet Current;
  /// Evidence: the failed checks (their sets imply the failure of every
  /// set they contain), the runs each passing set has passed so far.
  std::vector<uint64_t> Failed;
  std::map<FenceSet, uint64_t> Passed;
  /// Failed stability checks: how many, and their runs.
  uint64_t StableFailures = 0, StableRuns = 0;
  enum class Stop { No, Budget, Error } Stopped = Stop::No;
};

std::optional<bool> Search::check(Purpose Pu, const FenceSet &F,
                                  const CheckSpec &Spec, bool Fresh) {
  CheckRecord C;
  C.Seq = R.Checks.size();
  C.P = Pu;
  C.Round = Round;
  C.Set = F;
  C.Spec = Spec;
  auto Keep = [&]() -> bool {
    bool Bad = C.failed();
    if (Bad && !C.ImpliedBy) {
      Failed.push_back(C.Seq);
      Passed.erase(F);
    } else if (!Bad) {
      Passed[F] += C.Out.Runs;
    }
    if (Pu == Purpose::Stable && Bad) {
      ++StableFailures;
      StableRuns += C.PriorRuns + C.Out.Runs;
    }
    R.Seconds += C.Out.Seconds;
    R.Checks.push_back(C);
    if (P)
      P->checked(R.Checks.back());
    return !Bad;
  };
  if (Opts.Evidence) {
    for (uint64_t K : Failed)
      if (ordersNoMore(F, R.Checks[K].Set)) {
        C.ImpliedBy = K;
        C.Spec = {};
        return Keep();
      }
    if (auto It = Passed.find(F); !Fresh && It != Passed.end() && Spec.Runs) {
      C.PriorRuns = std::min(It->second, Spec.Runs);
      C.Spec.Runs = Spec.Runs - C.PriorRuns;
      if (!C.Spec.Runs) {
        C.Spec.Seconds = 0;
        return Keep();
      }
    }
  }
  const CheckSpec &Ask = C.Spec;
  if (auto Old = J ? J->lookup(C.Seq, F, Ask) : std::nullopt) {
    C.Out = *Old;
    C.Replayed = true;
  } else {
    if (Opts.Budget > 0 && R.NewSeconds >= Opts.Budget) {
      Stopped = Stop::Budget;
      return std::nullopt;
    }
    if (Opts.Budget > 0) {
      double Left = Opts.Budget - R.NewSeconds;
      // A stability check cut by the budget would prove nothing.
      if (Pu == Purpose::Stable && Ask.Seconds > Left && !Ask.Runs) {
        Stopped = Stop::Budget;
        return std::nullopt;
      }
    }
    if (!Or.check(C.Seq, F, Ask, C.Out, R.Error)) {
      Stopped = Stop::Error;
      return std::nullopt;
    }
    R.NewSeconds += C.Out.Seconds;
    if (J && !J->record(C, R.Error)) {
      Stopped = Stop::Error;
      R.Kind = ErrorKind::Internal;
      return std::nullopt;
    }
  }
  return Keep();
}

std::optional<FenceSet> Search::binary(FenceSet F) {
  Current = F;
  while (F.size() > 1) {
    // SplitFences: the first half in code order, then the second.
    FenceSet F1, F2;
    size_t Half = F.size() / 2, N = 0;
    for (const auto &X : F)
      (N++ < Half ? F1 : F2).insert(X);
    auto Without1 = check(Purpose::Binary, F2, iterations());
    if (!Without1)
      return std::nullopt;
    if (*Without1) {
      F = Current = F2;
      continue;
    }
    auto Without2 = check(Purpose::Binary, F1, iterations());
    if (!Without2)
      return std::nullopt;
    if (*Without2) {
      F = Current = F1;
      continue;
    }
    break;
  }
  return F;
}

std::optional<FenceSet> Search::linear(FenceSet F) {
  // Chunks of a quarter of F_b, an eighth, ... (the halves were the binary
  // reduction's last checks), then single fences: the paper's linear
  // reduction.
  Current = F;
  std::vector<size_t> Sizes;
  if (Opts.Chunks)
    for (size_t S = F.size() / 4; S > 1; S /= 2)
      Sizes.push_back(S);
  Sizes.push_back(1);
  for (size_t Size : Sizes) {
    std::vector<uint32_t> Order;
    for (const auto &X : F)
      Order.push_back(X.first);
    for (size_t B = 0; B < Order.size(); B += Size) {
      FenceSet Without = F;
      for (size_t K = B; K < std::min(B + Size, Order.size()); ++K)
        Without.erase(Order[K]);
      auto Ok = check(Size == 1 ? Purpose::Linear : Purpose::Chunk, Without,
                      iterations());
      if (!Ok)
        return std::nullopt;
      if (*Ok)
        F = Current = std::move(Without);
    }
  }
  return F;
}

uint64_t Search::nextIterations() const {
  uint64_t Next = 2 * I; // the paper's restart with twice the iterations
  if (Opts.Confidence <= 0 || Opts.Confidence >= 1 || !StableRuns)
    return Next;
  // Runs to the first failure are geometric: the failure rate's estimate
  // is failures over runs. Enough runs that a check of a set with that
  // rate fails with probability Confidence, within the stability check's
  // runs (a check longer than that one makes no sense) or 8 I.
  double Rate = double(StableFailures) / double(StableRuns);
  if (Rate >= 1)
    return Next;
  double Want = std::ceil(std::log(1 - Opts.Confidence) / std::log1p(-Rate));
  uint64_t Cap = Opts.Stable.Runs ? Opts.Stable.Runs : 8 * I;
  uint64_t W = Want > double(Cap) ? Cap : static_cast<uint64_t>(Want);
  return std::max(Next, W);
}

SearchResult Search::run() {
  FenceSet All;
  for (uint32_t C = 0; C < Opts.Candidates; ++C)
    All[C] = 0;
  I = std::max<uint64_t>(Opts.Iterations, 1);
  auto Finish = [&](SearchStatus S) {
    R.Status = S;
    R.FinalIterations = I;
    return R;
  };
  auto Stopped_ = [&](const FenceSet &Best) {
    R.Result = R.Strong = Best;
    return Finish(Stopped == Stop::Error ? SearchStatus::Error
                                         : SearchStatus::OutOfBudget);
  };

  auto AllStable = check(Purpose::All, All, Opts.Stable);
  if (!AllStable)
    return Stopped_(All);
  if (!*AllStable) {
    R.Result = R.Strong = All;
    return Finish(SearchStatus::Unstable);
  }
  if (Opts.TryNone && !All.empty()) {
    auto None = check(Purpose::None, {}, iterations());
    if (!None)
      return Stopped_(All);
    if (*None) {
      auto NoneStable = check(Purpose::Stable, {}, Opts.Stable);
      if (!NoneStable)
        return Stopped_(All);
      if (*NoneStable) {
        R.Result = R.Strong = {};
        return Finish(SearchStatus::Reduced);
      }
    }
  }

  FenceSet Fl = All;
  for (;;) {
    if (Round >= Opts.MaxRounds) {
      Stopped = Stop::Budget;
      return Stopped_(All);
    }
    ++Round;
    R.Rounds = Round;
    auto Fb = binary(All);
    if (!Fb)
      return Stopped_(Current);
    auto L = linear(*Fb);
    if (!L)
      return Stopped_(Current);
    Fl = *L;
    auto Stable = check(Purpose::Stable, Fl, Opts.Stable);
    if (!Stable)
      return Stopped_(Fl);
    if (*Stable)
      break;
    // F_l passed its checks and failed the longer one. Before blaming the
    // missing fences for that (another round), every fence on must still
    // be stable now (fresh runs).
    if (Opts.Recheck) {
      auto Still = check(Purpose::All, All, Opts.Stable, /*Fresh=*/true);
      if (!Still)
        return Stopped_(All);
      if (!*Still) {
        R.Result = R.Strong = All;
        R.UnstableAfterRound = Round;
        return Finish(SearchStatus::Unstable);
      }
    }
    I = nextIterations();
  }
  R.Strong = R.Result = Fl;
  if (!Opts.Weaken || Fl.empty())
    return Finish(SearchStatus::Reduced);

  // The weaker kinds, cheapest first.
  static const unsigned Weaker[] = {3 /*acq_rel.cta*/, 2 /*sc.cta*/,
                                    1 /*acq_rel.gpu*/};
  FenceSet W = Fl;
  bool Changed = false;
  for (const auto &[Fence, Kind] : Fl) {
    for (unsigned K : Weaker) {
      FenceSet Try = W;
      Try[Fence] = K;
      auto Ok = check(Purpose::Weaken, Try, iterations());
      if (!Ok) {
        // Out of budget: the strong set is the answer found.
        R.Status = SearchStatus::Reduced;
        if (Stopped == Stop::Error)
          R.Status = SearchStatus::Error;
        R.FinalIterations = I;
        return R;
      }
      if (*Ok) {
        W = std::move(Try);
        Changed = true;
        break;
      }
    }
  }
  if (Changed) {
    auto Stable = check(Purpose::Stable, W, Opts.Stable);
    if (!Stable) {
      R.Status = Stopped == Stop::Error ? SearchStatus::Error
                                        : SearchStatus::Reduced;
      R.FinalIterations = I;
      return R;
    }
    if (*Stable)
      R.Result = W;
    else
      R.WeakenedUnstable = true;
  }
  return Finish(SearchStatus::Reduced);
}

} // namespace

SearchResult reduceFences(const ReductionOptions &Opts, Oracle &O, Journal *J,
                          ProgressSink *P) {
  return Search(Opts, O, J, P).run();
}

} // namespace incant::fences
