//===- SourcePatch.cpp - A repair as an edit of the kernel's source -------===//
#include "incant/Repair/SourcePatch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace incant::repair {

namespace {

std::vector<std::string> splitLines(const std::string &S) {
  std::vector<std::string> Lines;
  std::string Cur;
  for (char C : S) {
    if (C == '\n') {
      Lines.push_back(Cur);
      Cur.clear();
    } else {
      Cur += C;
    }
  }
  if (!Cur.empty())
    Lines.push_back(Cur);
  return Lines;
}

std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t\r");
  if (B == std::string::npos)
    return "";
  size_t E = S.find_last_not_of(" \t\r");
  return S.substr(B, E - B + 1);
}

/// The line without a trailing // comment.
std::string code(const std::string &S) {
  size_t C = S.find("//");
  return trim(C == std::string::npos ? S : S.substr(0, C));
}

bool sameFile(const std::string &A, const std::string &B) {
  namespace fs = std::filesystem;
  std::error_code E1, E2;
  if (fs::equivalent(A, B, E1))
    return true;
  return fs::path(A).filename() == fs::path(B).filename();
}

/// Whether line \p L (1-based) of \p Lines starts a statement: the code
/// before it ends one (;, {, } or a preprocessor line), and it is no
/// closing brace or else.
bool startsStatement(const std::vector<std::string> &Lines, uint32_t L) {
  if (L == 0 || L > Lines.size())
    return false;
  std::string Here = code(Lines[L - 1]);
  if (Here.empty() || Here[0] == '}' || Here[0] == '{' ||
      (Here[0] == '#' && Here.rfind("#pragma", 0) != 0) ||
      Here.rfind("else", 0) == 0 || Here.rfind("case ", 0) == 0 ||
      Here.rfind("default", 0) == 0)
    return false;
  for (uint32_t P = L - 1; P >= 1; --P) {
    std::string Prev = code(Lines[P - 1]);
    if (Prev.empty() || Prev.rfind("/*", 0) == 0 || Prev[0] == '*')
      continue;
    char C = Prev.back();
    return C == ';' || C == '{' || C == '}' || Prev[0] == '#';
  }
  return false;
}

/// The line of the brace that closes the body of the `for` statement that
/// line \p L starts, or 0 when L starts none or its body is no block.
uint32_t forBodyEnd(const std::vector<std::string> &Lines, uint32_t L) {
  if (!L || L > Lines.size() || !std::regex_search(code(Lines[L - 1]),
                                                   std::regex(R"(^for\s*\()")))
    return 0;
  int Depth = 0;
  bool Open = false;
  for (uint32_t N = L; N <= Lines.size(); ++N) {
    std::string C = code(Lines[N - 1]);
    for (char Ch : C) {
      if (Ch == '{') {
        ++Depth;
        Open = true;
      } else if (Ch == '}' && Open && --Depth == 0) {
        return C[0] == '}' ? N : 0;
      }
    }
    if (!Open && !C.empty() && C.back() == ';')
      return 0; // for (...) statement;
  }
  return 0;
}

/// The frame of \p L a source edit goes to: the user's (the innermost in
/// the kernel's file), or with \p Outer the outermost one with a line (the
/// kernel's own code: for code inlined from a function, the call's line).
const ir::SourceFrame *frameOf(const ir::DebugLoc &L, bool Outer) {
  if (!Outer || !L.hasLine())
    return L.userFrame();
  for (auto It = L.Frames.rbegin(); It != L.Frames.rend(); ++It)
    if (It->Line != 0)
      return &*It;
  return L.userFrame();
}

/// The source line of \p Item in \p F when it is in \p Path.
uint32_t lineIn(const ir::FunctionIR &F, bool Outer, unsigned Item,
                const std::string &Path) {
  const ir::SourceFrame *Fr = frameOf(F.loc(Item), Outer);
  return Fr && sameFile(Fr->File, Path) ? Fr->Line : 0;
}

/// The source line before which a barrier at \p Item (a body index of
/// \p F) goes, or 0 when none matches. The accesses and barriers
/// (\p Fixed) decide, not the register moves around them: either all of
/// the accesses of Item's own line come at or after Item, or Item's line
/// has no access and all of its code comes after Item or after another
/// added barrier (\p Added: the copies of an unrolled loop body each
/// get one), or all of the accesses of the line of the last access
/// before Item come before it and no access lies between (then the
/// barrier goes on the next line that starts a statement); in each case
/// those accesses are in Item's loop.
uint32_t boundary(const ir::FunctionIR &F, bool Outer, unsigned Item,
                  const std::string &Path,
                  const std::vector<std::string> &Lines,
                  const std::set<unsigned> &Fixed,
                  const std::set<unsigned> &Added) {
  unsigned Loop = F.loops().loopFor(F.blockOf(Item));
  auto Fits = [&](uint32_t L, bool After) {
    if (!L)
      return false;
    for (unsigned I : Fixed) {
      if (lineIn(F, Outer, I, Path) != L)
        continue;
      if (F.loops().loopFor(F.blockOf(I)) != Loop)
        return false;
      if (After ? I >= Item : I < Item)
        return false;
    }
    return true;
  };
  uint32_t Here = lineIn(F, Outer, Item, Path);
  bool HereHasAccess = false;
  for (unsigned I : Fixed)
    HereHasAccess |= lineIn(F, Outer, I, Path) == Here && Here;
  // Line Here heads Item's own loop (a while's or for's condition there):
  // before that line is before the loop, once, not in it; the parsed
  // source's rules place such a position (parsedBoundary).
  bool OwnHeader = false;
  if (Loop != ir::NoNode && Here &&
      std::regex_search(code(Lines[Here - 1]), std::regex(R"(^(while|for)\b)")))
    for (unsigned I : F.blocks()[F.loops().loops()[Loop].Header].Insts)
      OwnHeader |= lineIn(F, Outer, I, Path) == Here;
  if (HereHasAccess && !OwnHeader && Fits(Here, false) &&
      startsStatement(Lines, Here))
    return Here;
  // Code of line Here before Item must follow another added barrier with
  // no access between: an earlier copy of the statement, with its own.
  auto Covered = [&](unsigned I) {
    for (unsigned A : Added) {
      if (A > I)
        continue;
      bool Between = false;
      for (unsigned X : Fixed)
        Between |= X >= A && X < I;
      if (!Between)
        return true;
    }
    return false;
  };
  // A line without accesses: all of its code must start here (or after
  // another added barrier), in this loop (a for header's initialisation
  // is outside its loop).
  auto HereStarts = [&] {
    if (HereHasAccess || OwnHeader || !Here || !startsStatement(Lines, Here))
      return false;
    for (unsigned I : F.instructions())
      if (lineIn(F, Outer, I, Path) == Here &&
          ((I < Item && !Covered(I)) ||
           F.loops().loopFor(F.blockOf(I)) != Loop))
        return false;
    return true;
  };
  if (HereStarts())
    return Here;
  // A for loop's latch (its increment, on the header's line, runs after
  // the body): after every access of the loop's body, the barrier goes
  // at the end of the body, before the brace that closes it.
  if (uint32_t Close = forBodyEnd(Lines, Here); Close && Loop != ir::NoNode) {
    const ir::Loop &Lp = F.loops().loops()[Loop];
    bool Before = true;
    for (unsigned I : Fixed)
      if (Lp.contains(F.blockOf(I)))
        Before &= I < Item;
    if (Before)
      return Close;
  }
  // The last access before Item in its block, else in the block's
  // dominators.
  unsigned Prev = ir::NoNode;
  for (unsigned B = F.blockOf(Item); Prev == ir::NoNode && B != ir::NoNode;
       B = F.dominators().idom(B)) {
    for (unsigned I : F.blocks()[B].Insts)
      if (Fixed.count(I) && (B != F.blockOf(Item) || I < Item))
        Prev = I;
    if (B == F.entry())
      break;
  }
  uint32_t L = Prev == ir::NoNode ? 0 : lineIn(F, Outer, Prev, Path);
  // No access may run between Prev and Item (accesses of branches that
  // do not dominate Item, such as the earlier copies of unrolled code).
  for (unsigned I : Fixed)
    if (Prev != ir::NoNode && I > Prev && I < Item)
      return 0;
  if (!Fits(L, true))
    return 0;
  for (uint32_t N = L + 1; N <= Lines.size(); ++N) {
    std::string C = code(Lines[N - 1]);
    if (C.empty())
      continue;
    // Nothing of the code between may be an access after Item.
    for (unsigned I : Fixed)
      if (lineIn(F, Outer, I, Path) > L && lineIn(F, Outer, I, Path) < N)
        return 0;
    return startsStatement(Lines, N) ? N : 0;
  }
  return 0;
}

/// \p Item, or where it has no line in \p Path (code the compiler made,
/// `.loc` line 0), the first instruction after it in its block that has
/// one, when no access or barrier (\p Fixed) lies between: a barrier
/// before either orders the same accesses.
unsigned anchorOf(const ir::FunctionIR &F, bool Outer, unsigned Item,
                  const std::string &Path, const std::set<unsigned> &Fixed) {
  if (lineIn(F, Outer, Item, Path))
    return Item;
  for (unsigned I : F.blocks()[F.blockOf(Item)].Insts) {
    if (I < Item)
      continue;
    if (lineIn(F, Outer, I, Path))
      return I;
    if (Fixed.count(I))
      break;
  }
  return Item;
}

/// Where a barrier at \p Item runs in its loop when Item heads the loop's
/// header block (no access of the block before it): before every
/// iteration's body (Body: the header does not leave the loop, as in a
/// rotated loop, whose condition is at its latch), or before every check
/// of the condition (Check: the header leaves the loop).
enum class LoopHead { None, Body, Check };

LoopHead loopHead(const ir::FunctionIR &F, unsigned Item,
                  const std::set<unsigned> &Fixed) {
  unsigned B = F.blockOf(Item);
  unsigned L = F.loops().loopFor(B);
  if (L == ir::NoNode)
    return LoopHead::None;
  const ir::Loop &Lp = F.loops().loops()[L];
  if (Lp.Header != B)
    return LoopHead::None;
  for (unsigned I : F.blocks()[B].Insts)
    if (I < Item && Fixed.count(I))
      return LoopHead::None;
  for (unsigned S : F.cfg().succs(B))
    if (!Lp.contains(S))
      return LoopHead::Check;
  return LoopHead::Body;
}

/// The line a barrier at \p Item goes before in the parsed source (and in
/// \p Also, a second line it goes before too), or 0: for a position heading
/// a loop whose header holds its .loc, the start of the loop body (the
/// position runs before every iteration) or the loop's start and its
/// body's end (before every check of the condition); else the statement of
/// a block that holds the position, or the end of the loop body whose
/// header (a latch's increment or condition) does.
uint32_t parsedBoundary(const ir::FunctionIR &F, bool Outer, unsigned Item,
                        const std::string &Path,
                        const std::set<unsigned> &Fixed,
                        const source::Statements &Stmts, uint32_t &Also) {
  Also = 0;
  const ir::SourceFrame *Fr = frameOf(F.loc(Item), Outer);
  if (!Fr || !sameFile(Fr->File, Path))
    return 0;
  if (LoopHead H = loopHead(F, Item, Fixed); H != LoopHead::None)
    if (std::optional<source::LoopSpots> L = Stmts.loopAt(Fr->Line, Fr->Col)) {
      if (H == LoopHead::Body)
        return L->BodyStart;
      if (!L->Start || !L->BodyEnd)
        return 0;
      Also = L->Start;
      return L->BodyEnd;
    }
  std::optional<source::Spot> S = Stmts.before(Fr->Line, Fr->Col);
  return S ? S->Line : 0;
}

/// The source position of the store that a barrier at \p Item would
/// separate from the reads of its own line: the last access before Item in
/// its block, the first at or after it and the first store after it come
/// from one line of \p Path (nullptr: they do not).
const ir::SourceFrame *storeSplit(const ir::FunctionIR &F, bool Outer,
                                  unsigned Item, const std::string &Path,
                                  const std::set<unsigned> &Fixed,
                                  const std::set<unsigned> &Writes) {
  unsigned Prev = ir::NoNode, Next = ir::NoNode, Store = ir::NoNode;
  for (unsigned I : F.blocks()[F.blockOf(Item)].Insts) {
    if (!Fixed.count(I))
      continue;
    if (I < Item)
      Prev = I;
    else if (Next == ir::NoNode)
      Next = I;
    if (I >= Item && Store == ir::NoNode && Writes.count(I))
      Store = I;
  }
  if (Prev == ir::NoNode || Next == ir::NoNode || Store == ir::NoNode)
    return nullptr;
  const ir::SourceFrame *P = frameOf(F.loc(Prev), Outer), *N = frameOf(F.loc(Next), Outer),
                        *S = frameOf(F.loc(Store), Outer);
  if (!P || !N || !S || !sameFile(S->File, Path) || !sameFile(P->File, Path) ||
      !sameFile(N->File, Path) || P->Line != S->Line || N->Line != S->Line)
    return nullptr;
  return S;
}

/// The bytes that the stores of line \p Line in \p Item's block write
/// before Item (\p WriteBytes: the accesses' writes and their sizes).
uint64_t storedBefore(const ir::FunctionIR &F, bool Outer, unsigned Item,
                      const std::string &Path, uint32_t Line,
                      const std::map<unsigned, unsigned> &WriteBytes) {
  uint64_t Bytes = 0;
  for (unsigned I : F.blocks()[F.blockOf(Item)].Insts)
    if (auto W = WriteBytes.find(I);
        I < Item && W != WriteBytes.end() && lineIn(F, Outer, I, Path) == Line)
      Bytes += W->second;
  return Bytes;
}

/// \p A when the barrier can split it: its line holds it and nothing else,
/// and its target has no effect of its own (it is evaluated after the
/// barrier, and twice for a compound assignment).
std::optional<source::Assignment>
splittable(std::optional<source::Assignment> A,
           const std::vector<std::string> &Lines) {
  if (!A || A->Line > Lines.size())
    return std::nullopt;
  auto Squeeze = [](std::string S) {
    S.erase(std::remove_if(S.begin(), S.end(),
                           [](unsigned char C) { return std::isspace(C); }),
            S.end());
    return S;
  };
  if (Squeeze(code(Lines[A->Line - 1])) != Squeeze(A->Lhs + A->Op + A->Rhs + ";") ||
      A->Lhs.find('=') != std::string::npos ||
      A->Lhs.find("++") != std::string::npos || A->Lhs.find("--") != std::string::npos)
    return std::nullopt;
  // Evaluated twice once split (`T v = rhs; barrier; lhs = v;` reads the
  // target's index after the barrier): only calls of the work-item
  // functions, whose values do not change, may appear in it.
  static const std::set<std::string> Pure = {
      "get_local_id",   "get_global_id",       "get_group_id",
      "get_local_size", "get_global_size",     "get_num_groups",
      "get_global_offset", "get_local_linear_id", "get_global_linear_id",
      "get_enqueued_local_size"};
  static const std::regex Call(R"(([A-Za-z_]\w*)\s*\()");
  for (auto M = std::sregex_iterator(A->Lhs.begin(), A->Lhs.end(), Call);
       M != std::sregex_iterator(); ++M)
    if (!Pure.count((*M)[1].str()))
      return std::nullopt;
  return A;
}

/// The lines that replace assignment \p A split around \p Barrier.
std::vector<std::string> splitAssignmentLines(const source::Assignment &A,
                                    const std::string &Barrier,
                                    KernelLanguage Lang) {
  std::string Type = "auto";
  if (Lang != KernelLanguage::Cuda) { // C: the target's type, unqualified
    static const std::regex Qualifiers(
        R"(\b(const|volatile|__local|__global|__private|__constant)\b\s*|__attribute__\(\(address_space\(\d+\)\)\)\s*)");
    Type = trim(std::regex_replace(A.Type, Qualifiers, ""));
  }
  std::string Name = fmt::format("incant_split{}", A.Line);
  std::string Value = A.Op == "=" ? "(" + A.Rhs + ")"
                                  : fmt::format("{} {} ({})", A.Lhs,
                                                A.Op.substr(0, A.Op.size() - 1), A.Rhs);
  return {fmt::format("{} {} = {};", Type, Name, Value), Barrier,
          fmt::format("{} = {};", A.Lhs, Name)};
}

/// The lines that replace `memcpy(D, S, N);` (or `__builtin_memcpy`),
/// the code of \p Line, split after its first \p Bytes bytes around
/// \p Barrier: `memcpy(D, S, Bytes);`, the barrier, and the copy of the
/// rest, `memcpy((char *)(D) + Bytes, (const char *)(S) + Bytes, (N) -
/// Bytes);`. None when the line is no such call alone (CUDA's C++: the
/// casts drop no address space).
std::optional<std::vector<std::string>>
splitCopyLines(const std::string &Line, uint64_t Bytes,
               const std::string &Barrier) {
  static const std::regex Copy(R"(^((__builtin_)?memcpy)\s*\((.*)\)\s*;$)");
  std::smatch M;
  std::string C = code(Line);
  if (!Bytes || !std::regex_match(C, M, Copy))
    return std::nullopt;
  std::string Inner = M[3].str();
  if (Inner.find_first_of("\"'") != std::string::npos)
    return std::nullopt;
  std::vector<std::string> Args;
  std::string Cur;
  int Depth = 0;
  for (char Ch : Inner) {
    Depth += Ch == '(' || Ch == '[' || Ch == '{' ? 1
             : Ch == ')' || Ch == ']' || Ch == '}' ? -1 : 0;
    if (Depth < 0)
      return std::nullopt;
    if (Ch == ',' && Depth == 0) {
      Args.push_back(trim(Cur));
      Cur.clear();
    } else {
      Cur += Ch;
    }
  }
  Args.push_back(trim(Cur));
  if (Args.size() != 3 || Depth != 0)
    return std::nullopt;
  std::string F = M[1].str();
  return std::vector<std::string>{
      fmt::format("{}({}, {}, {});", F, Args[0], Args[1], Bytes), Barrier,
      fmt::format("{}((char *)({}) + {}, (const char *)({}) + {}, ({}) - {});",
                  F, Args[0], Bytes, Args[1], Bytes, Args[2], Bytes)};
}

std::string barrierText(KernelLanguage Lang, ir::BarrierKind K, bool Global) {
  if (K == ir::BarrierKind::Grid)
    return "cooperative_groups::this_grid().sync();";
  if (K == ir::BarrierKind::Cluster)
    return "cooperative_groups::this_cluster().sync();";
  if (K == ir::BarrierKind::CopyWait)
    return R"(asm volatile("cp.async.wait_all;" ::: "memory"); __syncthreads();)";
  if (K == ir::BarrierKind::Warp)
    return "__syncwarp();";
  if (Lang == KernelLanguage::OpenCL)
    return Global ? "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
                  : "barrier(CLK_LOCAL_MEM_FENCE);";
  return "__syncthreads();";
}

/// The indentation of line \p L of \p Lines, or of the code a
/// preprocessor line stands before; before a closing brace, the block's
/// own indentation (the least of its lines', where deeper than the brace;
/// else one step in).
std::string indentAt(const std::vector<std::string> &Lines, uint32_t L) {
  for (uint32_t N = L; N <= Lines.size(); ++N) {
    const std::string &C = Lines[N - 1];
    size_t First = C.find_first_not_of(" \t");
    if (First == std::string::npos || C[First] == '#')
      continue;
    std::string Indent = C.substr(0, First);
    if (C[First] != '}')
      return Indent;
    std::string Inner;
    int Depth = 0;
    for (uint32_t P = N - 1; P >= 1 && Depth >= 0; --P) {
      const std::string &Q = Lines[P - 1];
      std::string QC = code(Q);
      for (auto It = QC.rbegin(); It != QC.rend(); ++It)
        Depth += *It == '}' ? 1 : *It == '{' ? -1 : 0;
      size_t QF = Q.find_first_not_of(" \t");
      if (Depth < 0 || QF == std::string::npos || Q[QF] == '#')
        continue;
      if (QF > First && (Inner.empty() || QF < Inner.size()))
        Inner = Q.substr(0, QF);
    }
    return Inner.empty() ? Indent + "    " : Inner;
  }
  return "";
}

} // namespace

SourcePatch makeSourcePatch(const std::string &Path, const std::string &Source,
                            KernelLanguage Lang, const ModuleRepair &R,
                            const ir::ModuleIR &IR,
                            const source::Statements *Stmts, bool Outer) {
  SourcePatch P;
  std::vector<std::string> Lines = splitLines(Source);
  std::map<uint32_t, std::vector<std::string>> Before; // line -> statements
  std::set<uint32_t> Deleted;
  // line -> the assignment there and the barrier that splits it
  std::map<uint32_t, std::pair<source::Assignment, std::string>> Split;
  // line -> the memcpy there split in two around a barrier
  std::map<uint32_t, std::vector<std::string>> CopySplit;
  bool Grid = false;
  // __syncthreads(); OpenCL's barrier(...); cooperative groups'
  // g.sync(), this_grid().sync(), cg::sync(g) and synchronize(g).
  static const std::regex OnlyBarrier(
      R"(^(__syncthreads\s*\(\s*\)|__syncwarp\s*\([^;]*\)|barrier\s*\([^;]*\)|work_group_barrier\s*\([^;]*\))"
      R"(|[\w:]+(\(\s*\))?\s*(\.|->)\s*sync\s*\(\s*\))"
      R"(|([\w]+::)*(sync|synchronize)\s*\(\s*\w+\s*\))\s*;$)");
  for (const KernelRepair &K : R.Kernels) {
    if (K.Result != Outcome::Repaired)
      continue;
    const ir::FunctionIR *F = IR.find(K.Name);
    if (!F)
      continue;
    bool Global = false;
    for (const race::PairResult &Pr : K.Before.Pairs)
      Global |= Pr.V == race::Verdict::Race &&
                K.Before.Accesses[Pr.First].Space != "shared";
    // The lines of the barriers that stay.
    std::set<unsigned> RemovedItems;
    for (const Change &C : K.Removed)
      RemovedItems.insert(C.Item);
    std::set<std::pair<uint32_t, ir::BarrierKind>> Staying;
    for (const race::BarrierResult &B : K.Before.Barriers)
      if (!B.Assumed && !RemovedItems.count(B.Item))
        Staying.insert({lineIn(*F, Outer, B.Item, Path), B.Kind});
    for (const Change &C : K.Removed) {
      SourceEdit E{K.Name, false, lineIn(*F, Outer, C.Item, Path), "", "", &C};
      if (E.Line && Staying.count({E.Line, C.Kind}))
        E.Kept = true;
      else if (!E.Line || E.Line > Lines.size())
        E.Problem = "the barrier has no line in the source";
      else if (!std::regex_match(code(Lines[E.Line - 1]), OnlyBarrier))
        E.Problem = fmt::format("line {} holds more than the barrier call",
                                E.Line);
      else
        E.Text = trim(Lines[E.Line - 1]);
      if (E.Problem.empty() && !E.Kept)
        Deleted.insert(E.Line);
      P.Edits.push_back(E);
    }
    std::set<unsigned> Accesses;
    for (const race::Access &A : K.Before.Accesses)
      Accesses.insert(A.Item);
    for (const race::BarrierResult &B : K.Before.Barriers)
      Accesses.insert(B.Item);
    std::set<unsigned> Writes;
    std::map<unsigned, unsigned> WriteBytes;
    for (const race::Access &A : K.Before.Accesses)
      if (A.Writes) {
        Writes.insert(A.Item);
        WriteBytes[A.Item] = A.Bytes;
      }
    std::set<unsigned> Added;
    for (const Change &C : K.Added)
      Added.insert(C.Item);
    for (const Change &C : K.Added) {
      SourceEdit E{K.Name, true, lineIn(*F, Outer, C.Item, Path),
                   barrierText(Lang, C.Kind, Global), "", &C};
      std::set<unsigned> Others = Added;
      Others.erase(C.Item);
      const unsigned At = anchorOf(*F, Outer, C.Item, Path, Accesses);
      E.Line = boundary(*F, Outer, At, Path, Lines, Accesses, Others);
      const ir::SourceFrame *Store =
          !E.Line && Stmts ? storeSplit(*F, Outer, At, Path, Accesses, Writes) : nullptr;
      if (std::optional<source::Spot> S =
              Store ? Stmts->before(Store->Line, Store->Col) : std::nullopt;
          S && S->Line == Store->Line && !S->LoopEnd) {
        // Between the reads and the store of one statement.
        if (auto A = splittable(Stmts->assignmentAt(Store->Line, Store->Col), Lines)) {
          E.Line = A->Line;
          E.Split = true;
          // One barrier per statement: a block barrier orders a warp too.
          std::string &At = Split[A->Line].second;
          if (At.empty() || C.Kind == ir::BarrierKind::CTA)
            At = E.Text;
          Split[A->Line].first = *A;
          Grid |= C.Kind == ir::BarrierKind::Grid ||
                C.Kind == ir::BarrierKind::Cluster;
        } else if (uint64_t Bytes = storedBefore(*F, Outer, At, Path,
                                                  Store->Line, WriteBytes);
                   Lang == KernelLanguage::Cuda && !Split.count(Store->Line) &&
                   !CopySplit.count(Store->Line) &&
                   splitCopyLines(Lines[Store->Line - 1], Bytes, E.Text)) {
          // Between the bytes of one memcpy: the copy in two.
          E.Line = Store->Line;
          E.Split = true;
          E.CopyBytes = Bytes;
          CopySplit[Store->Line] =
              *splitCopyLines(Lines[Store->Line - 1], Bytes, E.Text);
        } else {
          E.Problem = fmt::format(
              "the barrier goes between the reads and the store of the "
              "statement at line {}, which is no assignment alone on its line "
              "with a target free of effects, nor a memcpy alone on its line "
              "with one barrier inside (PTX line {})",
              Store->Line, C.PtxLine);
        }
        P.Edits.push_back(E);
        continue;
      }
      if (!E.Line && Stmts) // the source's syntax tree
        E.Line = parsedBoundary(*F, Outer, At, Path, Accesses, *Stmts,
                                E.AlsoBefore);
      if (!E.Line)
        E.Problem = fmt::format(
            "no statement boundary in the source matches the PTX position "
            "(PTX line {})",
            C.PtxLine);
      if (E.Problem.empty()) {
        // Copies of one statement (an unrolled loop) get one barrier: the
        // block barrier where some copies have a warp barrier and others
        // a block barrier (it orders the warp too).
        for (uint32_t Line : {E.Line, E.AlsoBefore}) {
          if (!Line)
            continue;
          std::vector<std::string> &At = Before[Line];
          const std::string Warp = barrierText(Lang, ir::BarrierKind::Warp, false);
          bool Block = C.Kind == ir::BarrierKind::CTA;
          if (Block)
            At.erase(std::remove(At.begin(), At.end(), Warp), At.end());
          bool HasBlock = std::any_of(At.begin(), At.end(), [&](const std::string &T) {
            return T != Warp && T.find("this_grid") == std::string::npos;
          });
          if (std::find(At.begin(), At.end(), E.Text) == At.end() &&
              !(C.Kind == ir::BarrierKind::Warp && HasBlock))
            At.push_back(E.Text);
        }
        Grid |= C.Kind == ir::BarrierKind::Grid ||
                C.Kind == ir::BarrierKind::Cluster;
      }
      P.Edits.push_back(E);
    }
  }
  for (const SourceEdit &E : P.Edits)
    P.Complete &= E.Problem.empty();

  std::string Out;
  static const std::regex CgInclude(
      R"((^|\n)[ \t]*#[ \t]*include[ \t]*[<"]cooperative_groups\.h[>"])");
  if (Grid && !std::regex_search(Source, CgInclude))
    Out += "#include <cooperative_groups.h>\n";
  for (uint32_t L = 1; L <= Lines.size(); ++L) {
    const std::string &Line = Lines[L - 1];
    std::string Indent = indentAt(Lines, L);
    for (const std::string &S : Before[L])
      Out += Indent + S + "\n";
    if (auto It = Split.find(L); It != Split.end())
      for (const std::string &S :
           splitAssignmentLines(It->second.first, It->second.second, Lang))
        Out += Indent + S + "\n";
    else if (auto Cp = CopySplit.find(L); Cp != CopySplit.end())
      for (const std::string &S : Cp->second)
        Out += Indent + S + "\n";
    else if (!Deleted.count(L))
      Out += Line + "\n";
  }
  P.Patched = Out;
  return P;
}

std::string unifiedDiff(const std::string &Path, const std::string &Old,
                        const std::string &New) {
  // Lines only inserted or deleted: a longest common subsequence of lines.
  std::vector<std::string> A = splitLines(Old), B = splitLines(New);
  size_t N = A.size(), M = B.size();
  std::vector<std::vector<uint32_t>> L(N + 1, std::vector<uint32_t>(M + 1));
  for (size_t I = N; I-- > 0;)
    for (size_t J = M; J-- > 0;)
      L[I][J] = A[I] == B[J] ? L[I + 1][J + 1] + 1
                             : std::max(L[I + 1][J], L[I][J + 1]);
  struct Op {
    char K;
    size_t I, J;
  };
  std::vector<Op> Ops;
  size_t I = 0, J = 0;
  while (I < N || J < M) {
    if (I < N && J < M && A[I] == B[J]) {
      Ops.push_back({' ', I++, J++});
    } else if (J < M && (I == N || L[I][J + 1] >= L[I + 1][J])) {
      Ops.push_back({'+', I, J++});
    } else {
      Ops.push_back({'-', I++, J});
    }
  }
  std::string Out = fmt::format("--- a/{}\n+++ b/{}\n", Path, Path);
  const size_t Ctx = 3;
  for (size_t K = 0; K < Ops.size();) {
    if (Ops[K].K == ' ') {
      ++K;
      continue;
    }
    size_t Start = K >= Ctx ? K - Ctx : 0, End = K;
    // Extend the hunk while changes are within 2*Ctx lines of each other.
    size_t Last = K;
    for (size_t X = K; X < Ops.size(); ++X) {
      if (Ops[X].K != ' ')
        Last = X;
      else if (X - Last > 2 * Ctx)
        break;
    }
    End = std::min(Ops.size(), Last + Ctx + 1);
    size_t OldLen = 0, NewLen = 0;
    for (size_t X = Start; X < End; ++X) {
      OldLen += Ops[X].K != '+';
      NewLen += Ops[X].K != '-';
    }
    Out += fmt::format("@@ -{},{} +{},{} @@\n", Ops[Start].I + (OldLen ? 1 : 0),
                       OldLen, Ops[Start].J + (NewLen ? 1 : 0), NewLen);
    for (size_t X = Start; X < End; ++X)
      Out += Ops[X].K + (Ops[X].K == '+' ? B[Ops[X].J] : A[Ops[X].I]) + "\n";
    K = End;
  }
  return Out;
}

} // namespace incant::repair
