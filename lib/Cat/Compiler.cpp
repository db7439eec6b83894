//===- Compiler.cpp - Resolve, type-check and compile a cat model ---------===//
//
// One pass over the statements in order (cat is sequential: a name refers to
// its latest definition before the use). Every `let` is compiled when it is
// met, so that type errors in unused definitions are reported too; dead code
// is removed afterwards. Functions are inlined at each call, with their
// parameters bound to the argument registers, and type-checked there.
//
//===----------------------------------------------------------------------===//
#include "Compiler.h"

#include "incant/Cat/Parser.h"
#include "incant/Cat/Primitives.h"

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace incant::cat {
using namespace ast;

namespace {

enum class Kind : uint8_t { Set, Rel, Empty, Error };

const char *kindName(Kind K) {
  switch (K) {
  case Kind::Set:
    return "a set";
  case Kind::Rel:
    return "a relation";
  case Kind::Empty:
    return "empty";
  case Kind::Error:
    break;
  }
  return "invalid";
}

struct Value {
  Kind K = Kind::Error;
  int32_t Reg = -1;
};

struct FuncDef;
struct Bound {
  const FuncDef *F = nullptr; ///< Set for a function, else V is the value.
  Value V;
};
using Env = std::map<std::string, Bound, std::less<>>;

struct FuncDef {
  const Binding *Def;
  std::shared_ptr<const SourceFile> File;
  Env Captured;
};

/// herd's filters: XY(r) keeps the pairs of r from X events to Y events.
struct Filter {
  std::string_view Name;
  std::string_view From, To;
};
constexpr Filter Filters[] = {
    {"WW", "W", "W"}, {"WR", "W", "R"}, {"RW", "R", "W"},
    {"RR", "R", "R"}, {"MM", "M", "M"}, {"RM", "R", "M"},
    {"MR", "M", "R"}, {"WM", "W", "M"}, {"MW", "M", "W"},
};

bool isBuiltin(std::string_view N) {
  if (N == "domain" || N == "range" || N == "fencerel")
    return true;
  for (const Filter &F : Filters)
    if (F.Name == N)
      return true;
  return false;
}

std::string locName(SourceRange R) {
  return std::to_string(R.Begin.Line) + ":" + std::to_string(R.Begin.Col);
}

class Compiler {
public:
  Compiler(DiagnosticEngine &Diags, const std::vector<std::string> &Dirs)
      : Diags(Diags), IncludeDirs(Dirs) {}

  bool compileTop(std::shared_ptr<const SourceFile> File);
  Program P;

private:
  void compileModule(const Module &M, Env &E);
  void compileLet(const Stmt &S, Env &E);
  void compileLetRec(const Stmt &S, Env &E);
  void compileCheck(const Stmt &S, Env &E);
  void compileInclude(const Stmt &S, Env &E);
  Value compile(const Expr &X, const Env &E);
  Value compileCall(const Expr &X, const Env &E);
  void checkNames(const Expr &X, const Env &E,
                  const std::vector<std::string> &Params);

  Value prim(std::string_view Name);
  int32_t newReg() { return int32_t(P.NumRegs++); }
  Value emit(Op Code, Kind Result, bool Rel, int32_t A = -1, int32_t B = -1,
             int32_t C = -1) {
    // Reuse an earlier identical operation (common subexpressions are
    // frequent once functions are inlined). Registers are never reused, so
    // an entry is still valid if the instruction at its pc still defines
    // it (dry runs of let rec truncate the code). Inside a let rec body
    // this is sound too: the body's last iteration runs on the final
    // values of the variables.
    if ((Code == Op::Union || Code == Op::Inter) && A > B)
      std::swap(A, B);
    auto Key = std::make_tuple(uint8_t(Code), Rel, A, B, C);
    if (auto It = Cse.find(Key); It != Cse.end()) {
      int32_t R = It->second;
      if (R < int32_t(DefPc.size()) && DefPc[R] >= 0 &&
          size_t(DefPc[R]) < P.Code.size() && P.Code[DefPc[R]].Dst == R)
        return Value{Result, R};
    }
    Instr I;
    I.Code = Code;
    I.Rel = Rel;
    I.Dst = newReg();
    I.A = A;
    I.B = B;
    I.C = C;
    if (DefPc.size() < P.NumRegs)
      DefPc.resize(P.NumRegs, -1);
    DefPc[I.Dst] = int32_t(P.Code.size());
    Cse[Key] = I.Dst;
    P.Code.push_back(I);
    return Value{Result, I.Dst};
  }
  /// The set S if \p Reg holds [S] computed by an IdOn, else -1.
  int32_t identityOnSet(int32_t Reg) const {
    if (Reg < 0 || size_t(Reg) >= DefPc.size() || DefPc[Reg] < 0 ||
        size_t(DefPc[Reg]) >= P.Code.size())
      return -1;
    const Instr &I = P.Code[DefPc[Reg]];
    return I.Dst == Reg && I.Code == Op::IdOn ? I.A : -1;
  }
  void error(SourceRange R, const std::string &Message) {
    if (Quiet)
      return;
    Failed = true;
    if (Reported.emplace(Cur.get(), R.Begin.Offset, Message).second)
      Diags.error(Cur, R, Message);
  }

  DiagnosticEngine &Diags;
  std::vector<std::string> IncludeDirs;
  std::shared_ptr<const SourceFile> Cur;
  std::set<std::tuple<const SourceFile *, uint32_t, std::string>> Reported;
  unsigned Quiet = 0; ///< > 0 while guessing the kinds of a let rec.
  bool Failed = false;
  bool TooBig = false;
  unsigned InlineDepth = 0;
  std::vector<std::unique_ptr<FuncDef>> Funcs;
  std::vector<std::unique_ptr<Module>> Modules;
  std::vector<std::filesystem::path> IncludeStack;
  std::map<unsigned, int32_t> PrimRegs;
  std::vector<int32_t> DefPc; ///< Register -> pc of the instruction defining it.
  std::map<std::tuple<uint8_t, bool, int32_t, int32_t, int32_t>, int32_t> Cse;
};

bool Compiler::compileTop(std::shared_ptr<const SourceFile> File) {
  unsigned ErrorsBefore = Diags.numErrors();
  std::optional<Module> M = parseModule(File, Diags);
  if (!M)
    return false;
  auto Owned = std::make_unique<Module>(std::move(*M));
  P.Title = Owned->Title;
  std::error_code EC;
  std::filesystem::path Canon =
      std::filesystem::weakly_canonical(File->name(), EC);
  IncludeStack.push_back(EC ? std::filesystem::path(File->name()) : Canon);
  Cur = File;
  Env E;
  compileModule(*Owned, E);
  Modules.push_back(std::move(Owned));
  if (Failed || Diags.numErrors() != ErrorsBefore)
    return false;
  removeDeadCode(P);
  return true;
}

void Compiler::compileModule(const Module &M, Env &E) {
  for (const Stmt &S : M.Stmts) {
    if (TooBig)
      return;
    switch (S.Kind) {
    case StmtKind::Let:
      compileLet(S, E);
      break;
    case StmtKind::LetRec:
      compileLetRec(S, E);
      break;
    case StmtKind::Check:
      compileCheck(S, E);
      break;
    case StmtKind::Include:
      compileInclude(S, E);
      break;
    }
  }
}

/// Whether \p X names \p Name (as a name, not a call).
static bool mentions(const Expr &X, const std::string &Name) {
  if (X.Kind == ExprKind::Name && X.Name == Name)
    return true;
  for (const auto &O : X.Ops)
    if (mentions(*O, Name))
      return true;
  return false;
}

void Compiler::compileLet(const Stmt &S, Env &E) {
  // `let a = e1 and b = e2`: every body sees the names before the let.
  std::vector<std::pair<std::string, Bound>> New;
  for (const Binding &B : S.Bindings) {
    if (B.IsFunction) {
      checkNames(*B.Body, E, B.Params);
      auto F = std::make_unique<FuncDef>(FuncDef{&B, Cur, E});
      New.push_back({B.Name, Bound{F.get(), {}}});
      Funcs.push_back(std::move(F));
    } else {
      // `let co = co+`: the model closes the primitive coherence order
      // itself, so it takes co to be a partial order (docs/cat.md).
      if (B.Name == "co" && !E.count("co") && mentions(*B.Body, "co"))
        P.PartialCoherence = true;
      New.push_back({B.Name, Bound{nullptr, compile(*B.Body, E)}});
    }
  }
  for (auto &[Name, Bd] : New)
    E.insert_or_assign(Name, Bd);
}

void Compiler::compileLetRec(const Stmt &S, Env &E) {
  size_t N = S.Bindings.size();
  bool Bad = false;
  for (const Binding &B : S.Bindings)
    if (B.IsFunction) {
      error(B.NameRange, "recursive functions are not supported");
      Bad = true;
    }
  if (Bad) {
    for (const Binding &B : S.Bindings)
      E.insert_or_assign(B.Name, Bound{});
    return;
  }

  // Guess each variable's kind (set or relation) by compiling the bodies
  // with the guesses so far until they agree; the code is thrown away.
  std::vector<Kind> Kinds(N, Kind::Empty);
  for (size_t Round = 0; Round <= N + 1; ++Round) {
    size_t CodeSize = P.Code.size(), FixSize = P.Fixes.size();
    ++Quiet;
    Env Inner = E;
    for (size_t I = 0; I != N; ++I)
      Inner.insert_or_assign(S.Bindings[I].Name,
                             Bound{nullptr, Value{Kinds[I], newReg()}});
    std::vector<Kind> Next(N);
    for (size_t I = 0; I != N; ++I)
      Next[I] = compile(*S.Bindings[I].Body, Inner).K;
    --Quiet;
    P.Code.resize(CodeSize);
    P.Fixes.resize(FixSize);
    if (Next == Kinds || TooBig)
      break;
    Kinds = Next;
  }
  for (Kind &K : Kinds)
    if (K != Kind::Set)
      K = Kind::Rel;

  int32_t FixIdx = int32_t(P.Fixes.size());
  P.Fixes.emplace_back();
  Instr Init;
  Init.Code = Op::FixInit;
  Init.A = FixIdx;
  P.Code.push_back(Init);
  int32_t BodyStart = int32_t(P.Code.size());

  Env Inner = E;
  std::vector<int32_t> VarRegs(N);
  for (size_t I = 0; I != N; ++I) {
    VarRegs[I] = newReg();
    Inner.insert_or_assign(S.Bindings[I].Name,
                           Bound{nullptr, Value{Kinds[I], VarRegs[I]}});
  }
  FixBlock Block;
  for (size_t I = 0; I != N; ++I) {
    const Binding &B = S.Bindings[I];
    Value V = compile(*B.Body, Inner);
    if (V.K == Kind::Error) {
      Bad = true;
      continue;
    }
    if (V.K != Kind::Empty && V.K != Kinds[I]) {
      error(B.Body->Range, "the definition of '" + B.Name + "' is " +
                               kindName(V.K) + ", but '" + B.Name +
                               "' is used as " + kindName(Kinds[I]));
      Bad = true;
      continue;
    }
    Block.Vars.push_back({VarRegs[I], V.Reg});
    Block.Rel.push_back(Kinds[I] == Kind::Rel);
  }
  P.Fixes[FixIdx] = std::move(Block);
  Instr Loop;
  Loop.Code = Op::FixLoop;
  Loop.A = FixIdx;
  Loop.B = BodyStart;
  P.Code.push_back(Loop);
  for (size_t I = 0; I != N; ++I)
    E.insert_or_assign(S.Bindings[I].Name,
                       Bad ? Bound{}
                           : Bound{nullptr, Value{Kinds[I], VarRegs[I]}});
}

void Compiler::compileCheck(const Stmt &S, Env &E) {
  Value V = compile(*S.Operand, E);
  if (V.K == Kind::Error)
    return;
  if (V.K == Kind::Set && S.Check != CheckKind::Empty) {
    error(S.Operand->Range,
          std::string("'") +
              (S.Check == CheckKind::Acyclic ? "acyclic" : "irreflexive") +
              "' needs a relation, but this is a set");
    return;
  }
  CheckInfo C;
  C.Kind = S.Check;
  C.Negated = S.Negated;
  C.Flag = S.Flag;
  C.Name = S.CheckName.empty() ? locName(S.Range) : S.CheckName;
  C.Reg = V.Reg;
  C.Rel = V.K != Kind::Set;
  P.Checks.push_back(std::move(C));
}

void Compiler::compileInclude(const Stmt &S, Env &E) {
  namespace fs = std::filesystem;
  std::error_code EC;
  fs::path Want(S.Path);
  std::vector<fs::path> Candidates;
  if (Want.is_absolute()) {
    Candidates.push_back(Want);
  } else {
    Candidates.push_back(fs::path(Cur->name()).parent_path() / Want);
    for (const std::string &D : IncludeDirs)
      Candidates.push_back(fs::path(D) / Want);
  }
  fs::path Found;
  for (const fs::path &C : Candidates)
    if (fs::is_regular_file(C, EC)) {
      Found = C;
      break;
    }
  if (Found.empty()) {
    std::string Where;
    for (const fs::path &C : Candidates)
      Where += (Where.empty() ? "" : ", ") + C.parent_path().string();
    error(S.Range, "cannot find included file '" + S.Path + "' (looked in " +
                       (Where.empty() ? std::string(".") : Where) + ")");
    return;
  }
  fs::path Canon = fs::weakly_canonical(Found, EC);
  if (EC)
    Canon = Found;
  for (const fs::path &Open : IncludeStack)
    if (Open == Canon) {
      error(S.Range, "include cycle: '" + S.Path + "' is already being read");
      return;
    }
  if (IncludeStack.size() > MaxIncludeDepth) {
    error(S.Range, "includes nested too deeply");
    return;
  }
  uintmax_t Size = fs::file_size(Found, EC);
  if (EC || Size > MaxIncludeBytes) {
    error(S.Range, "cannot read included file '" + S.Path + "'" +
                       (EC ? ": " + EC.message() : ": too large"));
    return;
  }
  std::string Err;
  std::shared_ptr<SourceFile> F = SourceFile::read(Found.string(), Err);
  if (!F) {
    error(S.Range, "cannot read included file '" + S.Path + "': " + Err);
    return;
  }
  unsigned ErrorsBefore = Diags.numErrors();
  std::optional<Module> M = parseModule(F, Diags);
  if (M) {
    auto Owned = std::make_unique<Module>(std::move(*M));
    IncludeStack.push_back(Canon);
    std::shared_ptr<const SourceFile> Saved = Cur;
    Cur = F;
    compileModule(*Owned, E);
    Cur = Saved;
    IncludeStack.pop_back();
    Modules.push_back(std::move(Owned));
  }
  if (Diags.numErrors() != ErrorsBefore) {
    Failed = true;
    Diags.note(Cur, S.Range, "in the file included here");
  }
}

Value Compiler::prim(std::string_view Name) {
  std::optional<unsigned> Idx = lookupPrimitive(Name);
  if (!Idx)
    return {};
  auto It = PrimRegs.find(*Idx);
  Kind K = primitiveNames()[*Idx].IsSet ? Kind::Set : Kind::Rel;
  if (It != PrimRegs.end())
    return Value{K, It->second};
  int32_t R = newReg();
  PrimRegs.emplace(*Idx, R);
  P.Prims.push_back(PrimReg{*Idx, R});
  return Value{K, R};
}

void Compiler::checkNames(const Expr &X, const Env &E,
                          const std::vector<std::string> &Params) {
  auto IsParam = [&](const std::string &N) {
    for (const std::string &Q : Params)
      if (Q == N)
        return true;
    return false;
  };
  if (X.Kind == ExprKind::Name) {
    if (!IsParam(X.Name) && !E.count(X.Name) && !isBuiltin(X.Name) &&
        !lookupPrimitive(X.Name))
      error(X.Range, "unknown name '" + X.Name + "'");
  } else if (X.Kind == ExprKind::Call) {
    if (IsParam(X.Name))
      error(X.Range, "'" + X.Name +
                         "' is a parameter; calling a parameter is not "
                         "supported");
    else if (!E.count(X.Name) && !isBuiltin(X.Name) &&
             !lookupPrimitive(X.Name))
      error(X.Range, "unknown function '" + X.Name + "'");
  }
  for (const auto &O : X.Ops)
    checkNames(*O, E, Params);
}

Value Compiler::compile(const Expr &X, const Env &E) {
  if (TooBig)
    return {};
  if (P.Code.size() >= MaxInstructions) {
    TooBig = true;
    unsigned Saved = Quiet;
    Quiet = 0;
    error(X.Range, "model too large: more than " +
                       std::to_string(MaxInstructions) +
                       " operations after expanding function calls");
    Quiet = Saved;
    return {};
  }
  auto Two = [&](Value &L, Value &R) {
    L = compile(*X.Ops[0], E);
    R = compile(*X.Ops[1], E);
    return L.K != Kind::Error && R.K != Kind::Error;
  };
  std::string OpText = X.OpRange.isValid() && Cur
                           ? std::string(Cur->slice(X.OpRange))
                           : std::string();
  switch (X.Kind) {
  case ExprKind::Name: {
    auto It = E.find(X.Name);
    if (It != E.end()) {
      if (It->second.F) {
        error(X.Range, "'" + X.Name + "' is a function of " +
                           std::to_string(It->second.F->Def->Params.size()) +
                           " argument(s); call it as " + X.Name + "(...)");
        return {};
      }
      return It->second.V;
    }
    if (isBuiltin(X.Name)) {
      error(X.Range, "'" + X.Name + "' is a built-in function; call it as " +
                         X.Name + "(...)");
      return {};
    }
    Value V = prim(X.Name);
    if (V.K == Kind::Error) {
      std::string Hint;
      if (X.Name.find('-') != std::string::npos)
        Hint = " (names may contain '-'; the difference of two relations is "
               "written 'a \\ b')";
      error(X.Range, "unknown name '" + X.Name + "'" + Hint);
    }
    return V;
  }
  case ExprKind::Empty:
    return emit(Op::Zero, Kind::Empty, true);
  case ExprKind::Universe:
    return prim("_");
  case ExprKind::Union:
  case ExprKind::Inter:
  case ExprKind::Diff: {
    Value L, R;
    if (!Two(L, R))
      return {};
    if ((L.K == Kind::Set && R.K == Kind::Rel) ||
        (L.K == Kind::Rel && R.K == Kind::Set)) {
      error(X.OpRange, "the operands of '" + OpText +
                           "' must both be sets or both be relations; the "
                           "left one is " +
                           kindName(L.K) + " and the right one is " +
                           kindName(R.K));
      return {};
    }
    Kind K = L.K == Kind::Empty ? R.K : L.K;
    Op Code = X.Kind == ExprKind::Union   ? Op::Union
              : X.Kind == ExprKind::Inter ? Op::Inter
                                          : Op::Diff;
    return emit(Code, K, K != Kind::Set, L.Reg, R.Reg);
  }
  case ExprKind::Seq: {
    Value L, R;
    if (!Two(L, R))
      return {};
    for (const Value *V : {&L, &R})
      if (V->K == Kind::Set) {
        error(X.Ops[V == &L ? 0 : 1]->Range,
              "';' composes relations, but this is a set (write [S] for the "
              "identity relation on a set S)");
        return {};
      }
    // [S];r and r;[S] are restrictions of r, far cheaper than compositions.
    if (int32_t S = identityOnSet(L.Reg); S >= 0)
      return emit(Op::Restrict, Kind::Rel, true, R.Reg, S, prim("_").Reg);
    if (int32_t S = identityOnSet(R.Reg); S >= 0)
      return emit(Op::Restrict, Kind::Rel, true, L.Reg, prim("_").Reg, S);
    return emit(Op::Seq, Kind::Rel, true, L.Reg, R.Reg);
  }
  case ExprKind::Product: {
    Value L, R;
    if (!Two(L, R))
      return {};
    for (const Value *V : {&L, &R})
      if (V->K == Kind::Rel) {
        error(X.Ops[V == &L ? 0 : 1]->Range,
              "'*' between two expressions is the cartesian product of two "
              "sets, but this is a relation");
        return {};
      }
    return emit(Op::Product, Kind::Rel, true, L.Reg, R.Reg);
  }
  case ExprKind::Compl: {
    Value V = compile(*X.Ops[0], E);
    if (V.K == Kind::Error)
      return {};
    if (V.K == Kind::Set)
      return emit(Op::ComplSet, Kind::Set, false, V.Reg);
    return emit(Op::ComplRel, Kind::Rel, true, V.Reg);
  }
  case ExprKind::Plus:
  case ExprKind::Star:
  case ExprKind::Opt:
  case ExprKind::Inverse: {
    Value V = compile(*X.Ops[0], E);
    if (V.K == Kind::Error)
      return {};
    if (V.K == Kind::Set) {
      error(X.OpRange, "'" + OpText + "' needs a relation, but its operand is "
                                      "a set");
      return {};
    }
    Op Code = X.Kind == ExprKind::Plus   ? Op::Plus
              : X.Kind == ExprKind::Star ? Op::Star
              : X.Kind == ExprKind::Opt  ? Op::Opt
                                         : Op::Inverse;
    return emit(Code, Kind::Rel, true, V.Reg);
  }
  case ExprKind::Bracket: {
    Value V = compile(*X.Ops[0], E);
    if (V.K == Kind::Error)
      return {};
    if (V.K == Kind::Rel) {
      error(X.Ops[0]->Range, "[...] needs a set, but this is a relation");
      return {};
    }
    return emit(Op::IdOn, Kind::Rel, true, V.Reg);
  }
  case ExprKind::Call:
    return compileCall(X, E);
  }
  return {};
}

Value Compiler::compileCall(const Expr &X, const Env &E) {
  size_t NArgs = X.Ops.size();
  auto It = E.find(X.Name);
  if (It != E.end() && !It->second.F) {
    error(X.Range, "'" + X.Name + "' is not a function");
    return {};
  }
  std::vector<Value> Args;
  for (const auto &A : X.Ops) {
    Args.push_back(compile(*A, E));
    if (Args.back().K == Kind::Error)
      return {};
  }
  auto Arity = [&](size_t Want) {
    if (NArgs == Want)
      return true;
    error(X.Range, "'" + X.Name + "' takes " + std::to_string(Want) +
                       " argument" + (Want == 1 ? "" : "s") + ", but " +
                       std::to_string(NArgs) + (NArgs == 1 ? " was" : " were") +
                       " given");
    return false;
  };

  if (It != E.end()) {
    const FuncDef &F = *It->second.F;
    if (!Arity(F.Def->Params.size()))
      return {};
    if (InlineDepth >= MaxInlineDepth) {
      error(X.Range, "function calls nested too deeply");
      return {};
    }
    Env Inner = F.Captured;
    for (size_t I = 0; I != NArgs; ++I)
      Inner.insert_or_assign(F.Def->Params[I], Bound{nullptr, Args[I]});
    std::shared_ptr<const SourceFile> Saved = Cur;
    Cur = F.File;
    ++InlineDepth;
    Value V = compile(*F.Def->Body, Inner);
    --InlineDepth;
    Cur = Saved;
    return V;
  }

  auto Need = [&](Kind Want) {
    if (Args[0].K == Kind::Empty || Args[0].K == Want)
      return true;
    error(X.Ops[0]->Range, "'" + X.Name + "' needs " + kindName(Want) +
                               ", but this is " + kindName(Args[0].K));
    return false;
  };
  if (X.Name == "domain" || X.Name == "range") {
    if (!Arity(1) || !Need(Kind::Rel))
      return {};
    return emit(X.Name == "domain" ? Op::Domain : Op::Range, Kind::Set, false,
                Args[0].Reg);
  }
  if (X.Name == "fencerel") {
    if (!Arity(1) || !Need(Kind::Set))
      return {};
    // po ; [S] ; po
    Value Po = prim("po");
    Value L = emit(Op::Restrict, Kind::Rel, true, Po.Reg, prim("_").Reg,
                   Args[0].Reg);
    return emit(Op::Seq, Kind::Rel, true, L.Reg, Po.Reg);
  }
  for (const Filter &Fl : Filters)
    if (Fl.Name == X.Name) {
      if (!Arity(1) || !Need(Kind::Rel))
        return {};
      Value From = prim(Fl.From), To = prim(Fl.To);
      return emit(Op::Restrict, Kind::Rel, true, Args[0].Reg, From.Reg,
                  To.Reg);
    }
  if (lookupPrimitive(X.Name))
    error(X.Range, "'" + X.Name + "' is not a function");
  else
    error(X.Range, "unknown function '" + X.Name + "'");
  return {};
}

} // namespace

void removeDeadCode(Program &P) {
  std::vector<bool> Live(P.NumRegs, false);
  for (const CheckInfo &C : P.Checks)
    Live[C.Reg] = true;
  std::vector<bool> Keep(P.Code.size(), false);
  auto Use = [&](const Instr &I) {
    for (int32_t R : {I.A, I.B, I.C})
      if (R >= 0)
        Live[R] = true;
  };
  for (size_t Pc = P.Code.size(); Pc-- > 0;) {
    const Instr &I = P.Code[Pc];
    if (I.Code == Op::FixLoop) {
      // Keep the whole block if any of its variables is needed.
      FixBlock &F = P.Fixes[I.A];
      size_t Start = Pc;
      while (Start > 0 && !(P.Code[Start].Code == Op::FixInit &&
                            P.Code[Start].A == I.A))
        --Start;
      bool Needed = false;
      for (auto [Var, Res] : F.Vars)
        Needed |= Live[Var];
      if (Needed) {
        for (size_t Q = Start; Q <= Pc; ++Q) {
          Keep[Q] = true;
          if (P.Code[Q].Code != Op::FixInit && P.Code[Q].Code != Op::FixLoop) {
            Use(P.Code[Q]);
            Live[P.Code[Q].Dst] = true;
          }
        }
        for (auto [Var, Res] : F.Vars)
          Live[Var] = Live[Res] = true;
      } else {
        F.Vars.clear();
        F.Rel.clear();
      }
      Pc = Start;
      continue;
    }
    if (I.Dst >= 0 && Live[I.Dst]) {
      Keep[Pc] = true;
      Use(I);
    }
  }
  std::vector<Instr> Code;
  for (size_t Pc = 0; Pc != P.Code.size(); ++Pc) {
    if (!Keep[Pc])
      continue;
    Code.push_back(P.Code[Pc]);
  }
  // Renumber the loops' jump targets.
  for (size_t Pc = 0; Pc != Code.size(); ++Pc)
    if (Code[Pc].Code == Op::FixLoop) {
      size_t Start = Pc;
      while (!(Code[Start].Code == Op::FixInit && Code[Start].A == Code[Pc].A))
        --Start;
      Code[Pc].B = int32_t(Start + 1);
    }
  P.Code = std::move(Code);
  std::vector<PrimReg> Prims;
  for (const PrimReg &R : P.Prims)
    if (Live[R.Reg])
      Prims.push_back(R);
  P.Prims = std::move(Prims);

  // Renumber the registers that are still used, densely.
  std::vector<int32_t> NewReg(P.NumRegs, -1);
  int32_t Next = 0;
  auto Map = [&](int32_t &R) {
    if (R < 0)
      return;
    if (NewReg[R] < 0)
      NewReg[R] = Next++;
    R = NewReg[R];
  };
  for (PrimReg &R : P.Prims)
    Map(R.Reg);
  for (Instr &I : P.Code)
    if (I.Code != Op::FixInit && I.Code != Op::FixLoop) {
      Map(I.Dst);
      Map(I.A);
      Map(I.B);
      Map(I.C);
    }
  for (FixBlock &F : P.Fixes)
    for (auto &[Var, Res] : F.Vars) {
      Map(Var);
      Map(Res);
    }
  for (CheckInfo &C : P.Checks)
    Map(C.Reg);
  P.NumRegs = unsigned(Next);
}

std::optional<Program> compileModel(std::shared_ptr<const SourceFile> File,
                                    DiagnosticEngine &Diags,
                                    const std::vector<std::string> &Includes) {
  Compiler C(Diags, Includes);
  if (!C.compileTop(std::move(File)))
    return std::nullopt;
  return std::move(C.P);
}

} // namespace incant::cat
