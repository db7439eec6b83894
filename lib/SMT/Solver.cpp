//===- Solver.cpp - Satisfiability and weighted MaxSAT through Z3 ---------===//
#include "incant/SMT/Solver.h"
#include "Context.h"

#include <cassert>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace incant::smt {

//===-- Model -------------------------------------------------------------===//

Model::Model(_Z3_model *Mod) : M(Mod) {
  if (M)
    Z3_model_inc_ref(ctx(), M);
}

Model::Model(const Model &Other) : M(Other.M) {
  if (M)
    Z3_model_inc_ref(ctx(), M);
}

Model &Model::operator=(const Model &Other) {
  if (Other.M)
    Z3_model_inc_ref(ctx(), Other.M);
  if (M)
    Z3_model_dec_ref(ctx(), M);
  M = Other.M;
  return *this;
}

Model::~Model() {
  if (M)
    Z3_model_dec_ref(ctx(), M);
}

Expr Model::eval(const Expr &E) const {
  if (!M || !E.isValid())
    return {};
  Z3_ast Out = nullptr;
  if (!Z3_model_eval(ctx(), M, E.ast(), true, &Out) || !Out) {
    takeError();
    return {};
  }
  return Expr::fromAst(Out);
}

std::optional<int64_t> Model::evalInt(const Expr &E) const {
  return eval(E).asInt();
}

std::optional<uint64_t> Model::evalUInt(const Expr &E) const {
  Expr V = eval(E);
  if (V.isBV())
    return V.asUInt();
  std::optional<int64_t> I = V.asInt();
  if (I && *I >= 0)
    return static_cast<uint64_t>(*I);
  return std::nullopt;
}

std::optional<bool> Model::evalBool(const Expr &E) const {
  return eval(E).asBool();
}

std::string Model::toString() const {
  return M ? std::string(Z3_model_to_string(ctx(), M)) : std::string();
}

//===-- Result ------------------------------------------------------------===//

Result Result::sat(Model M, uint64_t Cost) {
  Result R;
  R.K = Sat;
  R.M = std::move(M);
  R.Cost = Cost;
  return R;
}

Result Result::unsat() {
  Result R;
  R.K = Unsat;
  return R;
}

Result Result::unknown(std::string Reason) {
  Result R;
  R.K = Unknown;
  R.Reason = std::move(Reason);
  return R;
}

Result Result::error(std::string Message) {
  Result R;
  R.K = Error;
  R.Reason = std::move(Message);
  return R;
}

bool Result::isTimeout() const {
  return K == Unknown && (Reason == "timeout" || Reason == "resource limit");
}

std::string Result::str() const {
  switch (K) {
  case Sat: return "sat";
  case Unsat: return "unsat";
  case Unknown: return "unknown (" + Reason + ")";
  case Error: return "error (" + Reason + ")";
  }
  return "?";
}

//===-- Limits ------------------------------------------------------------===//

// Z3's own `timeout` parameter is not used: its timer (scoped_timer) can
// deadlock in Z3 4.8.10 to 4.8.12 (Z3Prover/z3#5371), Debian 12's version.
// A watchdog thread interrupts the check instead.
namespace {
/// One thread for the process, armed for the length of each check (a
/// thread per check would cost a thread start each time).
class Timer {
public:
  static Timer &get() {
    // Never destroyed: its thread waits on it until the process ends.
    static Timer *T = new Timer;
    return *T;
  }
  /// Arms the timer for \p Ms milliseconds; returns the arming's number.
  uint64_t arm(unsigned Ms) {
    std::lock_guard<std::mutex> L(Mu);
    Deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(Ms);
    Armed = true;
    Fired = false;
    ++Arming;
    Cv.notify_one();
    return Arming;
  }
  /// Disarms it; whether arming \p Which ran out (and interrupted Z3).
  bool disarm(uint64_t Which) {
    std::lock_guard<std::mutex> L(Mu);
    bool F = Fired && Which == Arming;
    Armed = false;
    Fired = false;
    return F;
  }

private:
  Timer() : T([this] { loop(); }) { T.detach(); }
  void loop() {
    std::unique_lock<std::mutex> L(Mu);
    for (;;) {
      if (!Armed) {
        Cv.wait(L);
        continue;
      }
      uint64_t Which = Arming;
      if (Cv.wait_until(L, Deadline) == std::cv_status::timeout && Armed &&
          Which == Arming && !Fired) {
        Fired = true;
        Z3_interrupt(ctx());
      }
    }
  }
  std::mutex Mu;
  std::condition_variable Cv;
  std::chrono::steady_clock::time_point Deadline;
  bool Armed = false, Fired = false;
  uint64_t Arming = 0;
  std::thread T;
};

/// Arms the timer for one check (nothing when \p Ms is 0).
class Watchdog {
public:
  explicit Watchdog(unsigned Ms) {
    if (Ms)
      Which = Timer::get().arm(Ms);
  }
  ~Watchdog() { fired(); }
  /// Whether the time ran out; disarms.
  bool fired() {
    if (!Which)
      return Fired;
    Fired = Timer::get().disarm(Which);
    Which = 0;
    return Fired;
  }

private:
  uint64_t Which = 0;
  bool Fired = false;
};
} // namespace

static Z3_params makeParams(const Limits &L) {
  Z3_context C = ctx();
  Z3_params P = Z3_mk_params(C);
  Z3_params_inc_ref(C, P);
  if (L.ResourceLimit) {
    unsigned R = L.ResourceLimit > ~0u ? ~0u
                                       : static_cast<unsigned>(L.ResourceLimit);
    Z3_params_set_uint(C, P, Z3_mk_string_symbol(C, "rlimit"), R);
  }
  return P;
}

/// Z3's reason for unknown in the project's words: "timeout" when the
/// watchdog stopped it, "resource limit" for rlimit, else what Z3 said.
static std::string unknownReason(std::string Z3Reason, bool TimedOut) {
  if (TimedOut || Z3Reason.find("timeout") != std::string::npos)
    return "timeout";
  if (Z3Reason.find("resource") != std::string::npos ||
      Z3Reason.find("rlimit") != std::string::npos)
    return "resource limit";
  return Z3Reason.empty() ? std::string("unknown") : Z3Reason;
}

//===-- Solver ------------------------------------------------------------===//

Solver::Solver(Limits L) : Lim(L) {
  S = Z3_mk_solver(ctx());
  Z3_solver_inc_ref(ctx(), S);
  setLimits(L);
}

Solver::~Solver() { Z3_solver_dec_ref(ctx(), S); }

void Solver::setLimits(Limits L) {
  Lim = L;
  Z3_params P = makeParams(L);
  Z3_solver_set_params(ctx(), S, P);
  Z3_params_dec_ref(ctx(), P);
}

void Solver::add(const Expr &E) {
  assert(E.isValid() && E.isBool() && "assertions are boolean terms");
  Z3_solver_assert(ctx(), S, E.ast());
}

void Solver::push() {
  Z3_solver_push(ctx(), S);
  ++Depth;
}

void Solver::pop(unsigned Scopes) {
  assert(Scopes <= Depth && "pop without a matching push");
  Z3_solver_pop(ctx(), S, Scopes);
  Depth -= Scopes;
}

Result Solver::check() { return check({}); }

Result Solver::check(const std::vector<Expr> &Assumptions) {
  Z3_context C = ctx();
  takeError();
  std::vector<Z3_ast> As;
  for (const Expr &E : Assumptions) {
    assert(E.isValid() && E.isBool());
    As.push_back(E.ast());
  }
  Z3_lbool R;
  bool TimedOut;
  {
    Watchdog W(Lim.TimeoutMs);
    R = As.empty() ? Z3_solver_check(C, S)
                   : Z3_solver_check_assumptions(
                         C, S, static_cast<unsigned>(As.size()), As.data());
    TimedOut = W.fired();
  }
  if (TimedOut && R != Z3_L_UNDEF)
    TimedOut = false; // it finished as the time ran out
  if (std::string E = takeError(); !E.empty() && !TimedOut)
    return Result::error(E);
  switch (R) {
  case Z3_L_TRUE:
    return Result::sat(Model(Z3_solver_get_model(C, S)));
  case Z3_L_FALSE:
    return Result::unsat();
  default:
    return Result::unknown(
        unknownReason(Z3_solver_get_reason_unknown(C, S), TimedOut));
  }
}

//===-- MaxSat ------------------------------------------------------------===//

MaxSat::MaxSat(Limits L) : Lim(L) {
  O = Z3_mk_optimize(ctx());
  Z3_optimize_inc_ref(ctx(), O);
  Z3_params P = makeParams(L);
  Z3_optimize_set_params(ctx(), O, P);
  Z3_params_dec_ref(ctx(), P);
}

MaxSat::~MaxSat() { Z3_optimize_dec_ref(ctx(), O); }

void MaxSat::addHard(const Expr &E) {
  assert(E.isValid() && E.isBool());
  Z3_optimize_assert(ctx(), O, E.ast());
}

void MaxSat::addSoft(const Expr &E, uint64_t Weight) {
  assert(E.isValid() && E.isBool() && Weight > 0);
  std::string W = std::to_string(Weight);
  Z3_optimize_assert_soft(ctx(), O, E.ast(), W.c_str(),
                          Z3_mk_string_symbol(ctx(), "incant"));
  Soft.emplace_back(E, Weight);
}

Result MaxSat::check() {
  Z3_context C = ctx();
  takeError();
  Z3_lbool R;
  bool TimedOut;
  {
    Watchdog W(Lim.TimeoutMs);
    R = Z3_optimize_check(C, O, 0, nullptr);
    TimedOut = W.fired() && R == Z3_L_UNDEF;
  }
  if (std::string E = takeError(); !E.empty() && !TimedOut)
    return Result::error(E);
  switch (R) {
  case Z3_L_TRUE: {
    Model M(Z3_optimize_get_model(C, O));
    uint64_t Cost = 0;
    for (const auto &[E, W] : Soft)
      if (M.evalBool(E) != std::optional<bool>(true))
        Cost += W;
    return Result::sat(std::move(M), Cost);
  }
  case Z3_L_FALSE:
    return Result::unsat();
  default:
    return Result::unknown(
        unknownReason(Z3_optimize_get_reason_unknown(C, O), TimedOut));
  }
}

std::string z3Version() {
  unsigned Major = 0, Minor = 0, Build = 0, Rev = 0;
  Z3_get_version(&Major, &Minor, &Build, &Rev);
  return std::to_string(Major) + "." + std::to_string(Minor) + "." +
         std::to_string(Build);
}

} // namespace incant::smt
