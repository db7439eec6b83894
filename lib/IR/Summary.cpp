//===- Summary.cpp - What a PTX kernel does with memory and sync ----------===//
#include "incant/IR/Summary.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <map>
#include <memory>
#include <ostream>

namespace incant::ir {

using ptx::AddrSpace;
using ptx::Instruction;
using ptx::Opcode;

const char *eventKindName(EventKind K) {
  switch (K) {
  case EventKind::Load: return "load";
  case EventKind::Store: return "store";
  case EventKind::AsyncCopy: return "async copy";
  case EventKind::Atomic: return "atomic";
  case EventKind::Fence: return "fence";
  case EventKind::Barrier: return "barrier";
  case EventKind::Call: return "call";
  }
  return "?";
}

std::string demangle(const std::string &Name) {
  if (Name.size() < 3 || Name.compare(0, 2, "_Z") != 0)
    return {};
  int Status = 0;
  std::unique_ptr<char, void (*)(void *)> Out(
      abi::__cxa_demangle(Name.c_str(), nullptr, nullptr, &Status),
      std::free);
  return Status == 0 && Out ? std::string(Out.get()) : std::string();
}

namespace {

/// The end of the top-level parameter list that ends \p D (the '(' that
/// matches its last ')'), or npos.
size_t paramListStart(const std::string &D) {
  if (D.empty() || D.back() != ')')
    return std::string::npos;
  int Depth = 0;
  for (size_t I = D.size(); I-- > 0;) {
    if (D[I] == ')')
      ++Depth;
    else if (D[I] == '(' && --Depth == 0)
      return I;
  }
  return std::string::npos;
}

/// The last space outside <> and () before \p End: where a written return
/// type ends ("void name<int>").
size_t returnTypeEnd(const std::string &D, size_t End) {
  int Depth = 0;
  size_t Space = std::string::npos;
  for (size_t I = 0; I < End; ++I) {
    char C = D[I];
    if (C == '<' || C == '(')
      ++Depth;
    else if ((C == '>' || C == ')') && Depth > 0)
      --Depth;
    else if (C == ' ' && Depth == 0)
      Space = I;
  }
  return Space;
}

/// \p Q without its "(anonymous namespace)::" components.
std::string withoutAnonymous(std::string Q) {
  const std::string Anon = "(anonymous namespace)::";
  for (size_t P; (P = Q.find(Anon)) != std::string::npos;)
    Q.erase(P, Anon.size());
  return Q;
}

/// Whether \p Want names \p Q: all of it, or its last components
/// ("ns::k" and "k" for "app::ns::k").
bool nameOrSuffix(const std::string &Q, const std::string &Want) {
  if (Q == Want)
    return true;
  return Q.size() > Want.size() + 2 &&
         Q.compare(Q.size() - Want.size(), Want.size(), Want) == 0 &&
         Q.compare(Q.size() - Want.size() - 2, 2, "::") == 0;
}

} // namespace

std::string qualifiedKernelName(const std::string &Mangled) {
  std::string D = demangle(Mangled);
  if (D.empty())
    return Mangled;
  size_t Params = paramListStart(D);
  if (Params == std::string::npos)
    return D;
  size_t Ret = returnTypeEnd(D, Params);
  size_t Begin = Ret == std::string::npos ? 0 : Ret + 1;
  return D.substr(Begin, Params - Begin);
}

bool kernelNameMatches(const std::string &Mangled, const std::string &Want) {
  if (Want.empty())
    return false;
  if (Mangled == Want)
    return true;
  std::string D = demangle(Mangled);
  if (D.empty())
    return false;
  if (D == Want)
    return true;
  std::string Q = qualifiedKernelName(Mangled);
  std::vector<std::string> Names = {Q, withoutAnonymous(Q)};
  // A template instance also by its template's name ("reduce2").
  if (!Q.empty() && Q.back() == '>') {
    int Depth = 0;
    for (size_t I = Q.size(); I-- > 0;) {
      if (Q[I] == '>')
        ++Depth;
      else if (Q[I] == '<' && --Depth == 0) {
        std::string T = Q.substr(0, I);
        Names.push_back(T);
        Names.push_back(withoutAnonymous(T));
        break;
      }
    }
  }
  // With parameters ("k(int*)"), they must be the kernel's.
  size_t WantParams = paramListStart(Want);
  std::string W = Want.substr(0, WantParams);
  if (WantParams != std::string::npos) {
    size_t Params = paramListStart(D);
    if (Params == std::string::npos ||
        D.substr(Params) != Want.substr(WantParams))
      return false;
  }
  for (const std::string &N : Names)
    if (nameOrSuffix(N, W) || nameOrSuffix(N, withoutAnonymous(W)))
      return true;
  return false;
}

std::string noKernelNamed(const ModuleIR &IR, const std::string &Want) {
  std::vector<std::string> Kernels;
  for (const FunctionIR &F : IR.functions())
    if (F.function().IsEntry)
      Kernels.push_back(F.name());
  if (Kernels.empty())
    return "the module has no kernel (.entry)";
  std::string S = "no kernel named '" + Want + "'; the module's kernels:";
  for (size_t I = 0; I < Kernels.size(); ++I) {
    std::string Q = qualifiedKernelName(Kernels[I]);
    S += (I ? ", " : " ") + (Q == Kernels[I] ? Q : Q + " (" + Kernels[I] + ")");
  }
  return S;
}

static std::string spaceName(AddrSpace S) {
  const char *N = ptx::addrSpaceName(S);
  return S == AddrSpace::Generic ? "generic" : std::string(N + 1);
}

static const char *semName(ptx::Sem S) {
  switch (S) {
  case ptx::Sem::None: return "";
  case ptx::Sem::Weak: return "weak";
  case ptx::Sem::Volatile: return "volatile";
  case ptx::Sem::Relaxed: return "relaxed";
  case ptx::Sem::Acquire: return "acquire";
  case ptx::Sem::Release: return "release";
  case ptx::Sem::AcqRel: return "acq_rel";
  case ptx::Sem::SC: return "sc";
  }
  return "";
}

static const char *scopeName(ptx::Scope S) {
  switch (S) {
  case ptx::Scope::None: return "";
  case ptx::Scope::CTA: return "cta";
  case ptx::Scope::Cluster: return "cluster";
  case ptx::Scope::GPU: return "gpu";
  case ptx::Scope::Sys: return "sys";
  }
  return "";
}

static const char *atomOpName(ptx::AtomOp Op) {
  switch (Op) {
  case ptx::AtomOp::None: return "";
  case ptx::AtomOp::Cas: return "cas";
  case ptx::AtomOp::Exch: return "exch";
  case ptx::AtomOp::Add: return "add";
  case ptx::AtomOp::Inc: return "inc";
  case ptx::AtomOp::Dec: return "dec";
  case ptx::AtomOp::And: return "and";
  case ptx::AtomOp::Or: return "or";
  case ptx::AtomOp::Xor: return "xor";
  case ptx::AtomOp::Min: return "min";
  case ptx::AtomOp::Max: return "max";
  case ptx::AtomOp::Sub: return "sub";
  }
  return "";
}

/// The name with its first \p N modifiers: "bar.sync", "mbarrier.arrive".
static std::string nameWithMods(const Instruction &I, unsigned N) {
  std::string S = I.Name;
  for (unsigned K = 0; K < N && K < I.Mods.size(); ++K)
    S += I.Mods[K].Text;
  return S;
}

static bool isDataSpace(AddrSpace S) {
  return S == AddrSpace::Global || S == AddrSpace::Shared ||
         S == AddrSpace::SharedCluster || S == AddrSpace::Generic;
}

static bool hasAddress(const Instruction &I) {
  for (const ptx::Operand &O : I.Ops)
    if (O.K == ptx::Operand::Address)
      return true;
  return false;
}

/// The event \p I is, if the summary reports it.
static std::optional<SummaryEvent> classify(const Instruction &I) {
  SummaryEvent E;
  E.Space = spaceName(I.ASpace);
  E.Sem = semName(I.S);
  E.Scope = scopeName(I.Sc);
  switch (I.Op) {
  case Opcode::Ld:
  case Opcode::Ldu:
    if (!isDataSpace(I.ASpace))
      return std::nullopt;
    E.Kind = EventKind::Load;
    E.Op = I.Name;
    break;
  case Opcode::St:
    if (!isDataSpace(I.ASpace))
      return std::nullopt;
    E.Kind = EventKind::Store;
    E.Op = I.Name;
    break;
  case Opcode::CpAsync:
    if (!hasAddress(I))
      return std::nullopt; // cp.async.commit_group, wait_group
    E.Kind = EventKind::AsyncCopy;
    E.Op = nameWithMods(I, 1);
    E.Space = "";
    break;
  case Opcode::Atom:
  case Opcode::Red: {
    E.Kind = EventKind::Atomic;
    E.Op = atomOpName(I.Atom);
    if (E.Op.empty()) // an operation the decoder does not name: min.f32...
      for (const ptx::Modifier &M : I.Mods)
        if (M.Text != ".global" && M.Text != ".shared" && M.Text.size() > 1 &&
            !ptx::parseAnyType(M.Text)) {
          E.Op = M.Text.substr(1);
          break;
        }
    if (E.Sem.empty())
      E.Sem = "relaxed";
    if (E.Scope.empty())
      E.Scope = "gpu";
    if (I.Op == Opcode::Red)
      E.Op = "red." + E.Op;
    break;
  }
  case Opcode::Fence:
    E.Kind = EventKind::Fence;
    E.Space = "";
    if (I.hasMod(".proxy")) {
      E.Op = nameWithMods(I, 2);
    } else {
      E.Op = "fence";
      if (E.Sem.empty())
        E.Sem = "acq_rel";
    }
    break;
  case Opcode::Membar:
    E.Kind = EventKind::Fence;
    E.Space = "";
    E.Op = "membar";
    E.Sem = "sc";
    break;
  case Opcode::Bar:
    E.Kind = EventKind::Barrier;
    E.Space = "";
    E.Op = nameWithMods(I, 1);
    if (E.Scope.empty())
      E.Scope = "cta";
    break;
  case Opcode::BarWarp:
  case Opcode::BarrierCluster:
    E.Kind = EventKind::Barrier;
    E.Space = "";
    E.Op = nameWithMods(I, 2);
    E.Scope = I.Op == Opcode::BarWarp ? "warp" : "cluster";
    break;
  case Opcode::Mbarrier:
    E.Kind = EventKind::Barrier;
    E.Space = "";
    E.Op = nameWithMods(I, 1);
    break;
  case Opcode::Call: {
    // Ops: [(returns)], callee, [(arguments)], [prototype].
    E.Kind = EventKind::Call;
    E.Space = "";
    E.Op = "indirect";
    for (const ptx::Operand &O : I.Ops)
      if (O.K != ptx::Operand::List) {
        // A register callee is an indirect call.
        E.Op = !O.Name.empty() && O.Name[0] == '%' ? "indirect " + O.Name
                                                   : O.Name;
        break;
      }
    break;
  }
  default:
    return std::nullopt;
  }
  switch (E.Kind) {
  case EventKind::Load:
  case EventKind::Store:
    E.Brief = E.Space;
    break;
  case EventKind::Atomic:
    E.Brief = fmt::format("{}.{}.{}{}{}.{}", I.Name, E.Sem, E.Scope,
                          E.Space == "generic" ? "" : ".",
                          E.Space == "generic" ? "" : E.Space,
                          E.Op.substr(E.Op.rfind('.') + 1));
    break;
  case EventKind::Fence: {
    // The name and modifiers up to the first type, as written.
    E.Brief = I.Name;
    for (const ptx::Modifier &M : I.Mods) {
      if (ptx::parseAnyType(M.Text))
        break;
      E.Brief += M.Text;
    }
    break;
  }
  default:
    E.Brief = E.Op;
    break;
  }
  E.Text = ptx::printInstruction(I);
  E.PtxLine = I.Range.Begin.Line;
  return E;
}

std::optional<SummaryEvent> summaryEvent(const FunctionIR &F, unsigned Item) {
  std::optional<SummaryEvent> E = classify(F.inst(Item));
  if (!E)
    return std::nullopt;
  E->Item = Item;
  E->Loc = F.loc(Item);
  E->LoopDepth = F.loops().depth(F.blockOf(Item));
  return E;
}

ModuleSummary summarize(const ModuleIR &IR) {
  ModuleSummary S;
  if (IR.module().File)
    S.File = IR.module().File->name();
  for (const FunctionIR &F : IR.functions()) {
    FunctionSummary FS;
    FS.Name = F.name();
    FS.Demangled = demangle(F.name());
    FS.IsEntry = F.function().IsEntry;
    FS.PtxLine = F.function().Range.Begin.Line;
    FS.Blocks = static_cast<unsigned>(F.blocks().size());
    FS.Instructions = static_cast<unsigned>(F.instructions().size());
    for (unsigned Item : F.instructions())
      if (std::optional<SummaryEvent> E = summaryEvent(F, Item))
        FS.Events.push_back(std::move(*E));
    for (const Loop &L : F.loops().loops()) {
      LoopSummary LS;
      LS.Depth = L.Depth;
      LS.Blocks = static_cast<unsigned>(L.Nodes.size());
      const BasicBlock &H = F.blocks()[L.Header];
      if (H.Begin < F.function().Body.size())
        LS.PtxLine = std::visit([](const auto &N) { return N.Range.Begin.Line; },
                                F.function().Body[H.Begin]);
      // The loop statement's line: the closing branch of the first latch
      // (the loop condition), else the first instruction with a line in
      // the header, then in the other blocks.
      const BasicBlock &Latch = F.blocks()[L.Latches.front()];
      if (!Latch.Insts.empty() && F.loc(Latch.Insts.back()).hasLine() &&
          endsBlock(F.inst(Latch.Insts.back())))
        LS.Loc = F.loc(Latch.Insts.back());
      std::vector<unsigned> Order = {L.Header};
      for (unsigned B : L.Nodes)
        if (B != L.Header)
          Order.push_back(B);
      for (unsigned B : Order) {
        if (LS.Loc.hasLine())
          break;
        for (unsigned Item : F.blocks()[B].Insts)
          if (F.loc(Item).hasLine()) {
            LS.Loc = F.loc(Item);
            break;
          }
        if (LS.Loc.hasLine())
          break;
      }
      FS.Loops.push_back(std::move(LS));
    }
    std::stable_sort(FS.Loops.begin(), FS.Loops.end(),
                     [](const LoopSummary &A, const LoopSummary &B) {
                       return A.PtxLine < B.PtxLine;
                     });
    S.Functions.push_back(std::move(FS));
  }
  return S;
}

//===-- Text --------------------------------------------------------------===//

static std::string baseName(const std::string &Path) {
  size_t Slash = Path.find_last_of('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

/// "kern.cu:16" for the user's frame, else "kern.ptx:212" (the PTX line).
static std::pair<std::string, uint32_t> where(const DebugLoc &L,
                                              uint32_t PtxLine,
                                              const std::string &PtxFile) {
  if (const SourceFrame *Fr = L.userFrame())
    return {Fr->File.empty() ? fmt::format("file{}", Fr->FileIndex)
                             : baseName(Fr->File),
            Fr->Line};
  return {baseName(PtxFile), PtxLine};
}

/// "kern.cu:16 20, util.h:3": lines grouped by file, files in order of
/// first appearance.
class LineList {
public:
  void add(std::pair<std::string, uint32_t> W) {
    auto It = std::find_if(Files.begin(), Files.end(),
                           [&](const auto &F) { return F.first == W.first; });
    if (It == Files.end()) {
      Files.emplace_back(W.first, std::vector<uint32_t>{});
      It = Files.end() - 1;
    }
    if (std::find(It->second.begin(), It->second.end(), W.second) ==
        It->second.end())
      It->second.push_back(W.second);
  }
  std::string str() const {
    std::string S;
    for (const auto &[File, Lines] : Files) {
      if (!S.empty())
        S += ", ";
      S += File + ":";
      std::vector<uint32_t> Sorted = Lines;
      std::sort(Sorted.begin(), Sorted.end());
      for (size_t I = 0; I < Sorted.size(); ++I)
        S += (I ? " " : "") + std::to_string(Sorted[I]);
    }
    return S;
  }

private:
  std::vector<std::pair<std::string, std::vector<uint32_t>>> Files;
};

/// The short name of a demangled function: no namespace, template
/// arguments, parameters or return type ("atomicCAS", "fetch_add").
static std::string shortName(const std::string &Demangled) {
  std::string Out;
  int Depth = 0;
  for (char C : Demangled) {
    if (C == '<') {
      ++Depth;
      continue;
    }
    if (C == '>') {
      Depth -= Depth > 0;
      continue;
    }
    if (Depth)
      continue;
    if (C == '(') {
      if (Out.size() >= 8 && Out.compare(Out.size() - 8, 8, "operator") == 0 &&
          Out.size() < Demangled.size())
        Out += "()";
      break;
    }
    if (C == ' ')
      Out.clear(); // a return type before the name
    else
      Out += C;
  }
  size_t Colon = Out.rfind("::");
  if (Colon != std::string::npos)
    Out = Out.substr(Colon + 2);
  return Out.empty() ? Demangled : Out;
}

static std::string frameText(const SourceFrame &Fr) {
  std::string S = Fr.File.empty() ? fmt::format("file{}", Fr.FileIndex)
                                   : baseName(Fr.File);
  S += fmt::format(":{}:{}", Fr.Line, Fr.Col);
  if (!Fr.Function.empty()) {
    std::string D = demangle(Fr.Function);
    S += fmt::format(" ({})", D.empty() ? Fr.Function : shortName(D));
  }
  return S;
}

static std::string describe(const SummaryEvent &E) {
  if (E.Kind == EventKind::Load || E.Kind == EventKind::Store)
    return E.Space + " " + eventKindName(E.Kind);
  return E.Brief;
}

void printSummary(const ModuleSummary &S, bool Verbose, std::ostream &OS) {
  unsigned Kernels = 0;
  for (const FunctionSummary &F : S.Functions)
    Kernels += F.IsEntry;
  OS << fmt::format("{}: {} kernel{}, {} device function{}\n",
                    baseName(S.File), Kernels, Kernels == 1 ? "" : "s",
                    S.Functions.size() - Kernels,
                    S.Functions.size() - Kernels == 1 ? "" : "s");
  for (const FunctionSummary &F : S.Functions) {
    OS << fmt::format("{} {}{} at {}:{}: {} block{}, {} instruction{}\n",
                      F.IsEntry ? "kernel" : "function", F.Name,
                      F.Demangled.empty() ? "" : " (" + F.Demangled + ")",
                      baseName(S.File), F.PtxLine, F.Blocks,
                      F.Blocks == 1 ? "" : "s", F.Instructions,
                      F.Instructions == 1 ? "" : "s");
    auto Row = [&](const std::string &Label, size_t Count,
                   const std::string &Rest) {
      OS << fmt::format("  {:<22}{:>4}  {}\n", Label, Count, Rest);
    };
    // Loads and stores: one row per kind and space.
    for (EventKind K : {EventKind::Load, EventKind::Store}) {
      for (const char *Space : {"global", "shared", "shared::cluster",
                                "generic"}) {
        LineList Lines;
        size_t N = 0;
        for (const SummaryEvent &E : F.Events)
          if (E.Kind == K && E.Space == Space) {
            ++N;
            Lines.add(where(E.Loc, E.PtxLine, S.File));
          }
        if (N)
          Row(fmt::format("{} {}s", Space, eventKindName(K)), N, Lines.str());
      }
    }
    // The others: one row per kind, grouped by description.
    for (EventKind K : {EventKind::AsyncCopy, EventKind::Atomic,
                        EventKind::Fence, EventKind::Barrier,
                        EventKind::Call}) {
      std::vector<std::pair<std::string, LineList>> Groups;
      size_t N = 0;
      for (const SummaryEvent &E : F.Events) {
        if (E.Kind != K)
          continue;
        ++N;
        const std::string &D = E.Brief;
        auto It = std::find_if(Groups.begin(), Groups.end(),
                               [&](const auto &G) { return G.first == D; });
        if (It == Groups.end()) {
          Groups.emplace_back(D, LineList());
          It = Groups.end() - 1;
        }
        It->second.add(where(E.Loc, E.PtxLine, S.File));
      }
      if (!N)
        continue;
      std::string Rest;
      for (const auto &[D, Lines] : Groups)
        Rest += (Rest.empty() ? "" : "; ") + D + " at " + Lines.str();
      std::string Label = K == EventKind::AsyncCopy ? "async copies"
                          : K == EventKind::Atomic  ? "atomics"
                          : K == EventKind::Fence   ? "fences"
                          : K == EventKind::Barrier ? "barriers"
                                                    : "calls";
      Row(Label, N, Rest);
    }
    if (!F.Loops.empty()) {
      std::string Rest;
      for (const LoopSummary &L : F.Loops) {
        auto W = where(L.Loc, L.PtxLine, S.File);
        Rest += fmt::format("{}depth {} at {}:{}", Rest.empty() ? "" : "; ",
                            L.Depth, W.first, W.second);
      }
      Row("loops", F.Loops.size(), Rest);
    }
    if (F.Events.empty() && F.Loops.empty())
      OS << "  no memory accesses, atomics, fences, barriers, calls or "
            "loops\n";
    if (!Verbose)
      continue;
    for (const SummaryEvent &E : F.Events) {
      std::string Chain;
      for (const SourceFrame &Fr : E.Loc.Frames)
        Chain += (Chain.empty() ? "" : " <- ") + frameText(Fr);
      OS << fmt::format("    {}:{}: {}: {}", baseName(S.File), E.PtxLine,
                        describe(E), E.Text);
      if (E.LoopDepth)
        OS << fmt::format(" [loop depth {}]", E.LoopDepth);
      if (!Chain.empty())
        OS << "  @ " << Chain;
      OS << "\n";
    }
  }
}

//===-- JSON --------------------------------------------------------------===//

static nlohmann::json frameJson(const SourceFrame &Fr) {
  nlohmann::json J = {{"file", Fr.File}, {"line", Fr.Line}, {"col", Fr.Col}};
  if (!Fr.Function.empty()) {
    J["function"] = Fr.Function;
    std::string D = demangle(Fr.Function);
    if (!D.empty())
      J["demangled"] = D;
  }
  return J;
}

nlohmann::json debugLocToJson(const DebugLoc &L) {
  nlohmann::json J = nlohmann::json::object();
  if (const SourceFrame *Fr = L.userFrame())
    J["source"] = frameJson(*Fr);
  else
    J["source"] = nullptr;
  nlohmann::json Chain = nlohmann::json::array();
  for (const SourceFrame &Fr : L.Frames)
    Chain.push_back(frameJson(Fr));
  J["frames"] = std::move(Chain);
  return J;
}

nlohmann::json summaryToJson(const ModuleSummary &S) {
  nlohmann::json Funcs = nlohmann::json::array();
  for (const FunctionSummary &F : S.Functions) {
    nlohmann::json Events = nlohmann::json::array();
    for (const SummaryEvent &E : F.Events) {
      nlohmann::json J = {{"kind", eventKindName(E.Kind)},
                          {"space", E.Space},
                          {"op", E.Op},
                          {"brief", E.Brief},
                          {"sem", E.Sem},
                          {"scope", E.Scope},
                          {"text", E.Text},
                          {"ptx_line", E.PtxLine},
                          {"loop_depth", E.LoopDepth}};
      J.update(debugLocToJson(E.Loc));
      Events.push_back(std::move(J));
    }
    nlohmann::json Loops = nlohmann::json::array();
    for (const LoopSummary &L : F.Loops) {
      nlohmann::json J = {{"depth", L.Depth},
                          {"blocks", L.Blocks},
                          {"ptx_line", L.PtxLine}};
      J.update(debugLocToJson(L.Loc));
      Loops.push_back(std::move(J));
    }
    Funcs.push_back({{"name", F.Name},
                     {"demangled", F.Demangled},
                     {"kind", F.IsEntry ? "entry" : "func"},
                     {"ptx_line", F.PtxLine},
                     {"blocks", F.Blocks},
                     {"instructions", F.Instructions},
                     {"events", std::move(Events)},
                     {"loops", std::move(Loops)}});
  }
  return {{"file", S.File}, {"functions", std::move(Funcs)}};
}

} // namespace incant::ir
