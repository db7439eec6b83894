//===- Builtins.cpp - Definitions of built-ins compilers leave as calls ---===//
#include "Builtins.h"
#include "incant/IR/Rewriter.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <optional>

namespace incant::ir {

namespace {

/// nvcc's: __<t>Atomic<Op>[_block|_system], __threadfence*, __trap,
/// __[u]mul24.
std::optional<std::string> cudaBuiltin(const std::string &Name) {
  if (Name == "__threadfence" || Name == "__threadfence_block" ||
      Name == "__threadfence_system") {
    const char *Bar = Name == "__threadfence"         ? "membar.gl"
                      : Name == "__threadfence_block" ? "membar.cta"
                                                      : "membar.sys";
    return fmt::format(".func {}()\n{{\n\t{};\n\tret;\n}}\n", Name, Bar);
  }
  if (Name == "__trap")
    return ".func __trap()\n{\n\ttrap;\n}\n";
  if (Name == "__umul24" || Name == "__mul24")
    return fmt::format(
        ".func (.param .b32 r) {}(.param .b32 a, .param .b32 b)\n{{\n"
        "\t.reg .b32 %v<3>;\n\tld.param.b32 %v0, [a];\n\tld.param.b32 %v1, "
        "[b];\n\tmul24.lo.{} %v2, %v0, %v1;\n\tst.param.b32 [r], %v2;\n"
        "\tret;\n}}\n",
        Name, Name == "__umul24" ? "u32" : "s32");
  // __<t>Atomic<Op>[_block|_system]
  size_t At = Name.find("Atomic");
  if (Name.compare(0, 2, "__") != 0 || At == std::string::npos)
    return std::nullopt;
  std::string T = Name.substr(2, At - 2);
  std::string Rest = Name.substr(At + 6);
  std::string Scope;
  for (auto [Suffix, S] : {std::pair{"_block", ".cta"}, std::pair{"_system", ".sys"}})
    if (Rest.size() > std::string_view(Suffix).size() &&
        Rest.compare(Rest.size() - std::string_view(Suffix).size(),
                     std::string::npos, Suffix) == 0) {
      Rest = Rest.substr(0, Rest.size() - std::string_view(Suffix).size());
      Scope = S;
    }
  static const std::map<std::string, std::string> Ops = {
      {"Add", "add"}, {"And", "and"}, {"CAS", "cas"}, {"Dec", "dec"},
      {"Exch", "exch"}, {"Inc", "inc"}, {"Max", "max"}, {"Min", "min"},
      {"Or", "or"}, {"Xor", "xor"}};
  auto Op = Ops.find(Rest);
  if (Op == Ops.end())
    return std::nullopt;
  bool Bitwise = Op->second == "and" || Op->second == "or" ||
                 Op->second == "xor" || Op->second == "exch" ||
                 Op->second == "cas";
  unsigned Bits;
  std::string Ty;
  if (T == "u" || T == "i") {
    Bits = 32;
    Ty = Bitwise ? "b32" : (T == "u" ? "u32" : "s32");
  } else if (T == "ull" || T == "ll" || T == "ill") {
    Bits = 64;
    Ty = Bitwise ? "b64" : (T == "ill" ? "s64" : "u64");
  } else if (T == "f") {
    Bits = 32;
    Ty = Bitwise ? "b32" : "f32";
  } else if (T == "d") {
    Bits = 64;
    Ty = "f64";
  } else if (T == "us") {
    Bits = 16;
    Ty = "b16";
  } else {
    return std::nullopt;
  }
  bool Cas = Op->second == "cas";
  std::string B = fmt::format("b{}", Bits);
  std::string Text = fmt::format(
      ".func (.param .{0} r) {1}(.param .b64 p, .param .{0} a{2})\n{{\n"
      "\t.reg .b64 %p;\n\t.reg .{0} %v<3>;\n"
      "\tld.param.b64 %p, [p];\n\tld.param.{0} %v0, [a];\n",
      B, Name, Cas ? fmt::format(", .param .{} c", B) : "");
  if (Cas)
    Text += fmt::format("\tld.param.{} %v1, [c];\n", B);
  Text += fmt::format("\tatom{}.{}.{} %v2, [%p], %v0{};\n", Scope, Op->second,
                      Ty, Cas ? ", %v1" : "");
  Text += fmt::format("\tst.param.{} [r], %v2;\n\tret;\n}}\n", B);
  return Text;
}

/// A work-item function of OpenCL C: the value of a special register for
/// dimension d (0, 1, 2), as a 64-bit size_t.
std::string workItem(const std::string &Name, const char *Reg,
                     const char *Reg2 = nullptr) {
  // r = Reg.d (or Reg.d * Reg2.d + tid.d for the global id, Reg.d * Reg2.d
  // for the global size).
  std::string Body =
      ".reg .b32 %d, %a, %b;\n\t.reg .pred %p<3>;\n\t.reg .b64 %w;\n"
      "\tld.param.b32 %d, [d];\n"
      "\tsetp.eq.u32 %p1, %d, 1;\n\tsetp.eq.u32 %p2, %d, 2;\n";
  for (const char *R : {Reg, Reg2}) {
    if (!R)
      continue;
    const char *V = R == Reg ? "%a" : "%b";
    Body += fmt::format("\tmov.u32 {0}, {1}.x;\n\t@%p1 mov.u32 {0}, {1}.y;\n"
                        "\t@%p2 mov.u32 {0}, {1}.z;\n",
                        V, R);
  }
  if (Reg2)
    Body += std::string(Name.find("global_id") != std::string::npos
                            ? "\t.reg .b32 %t;\n\tmov.u32 %t, %tid.x;\n"
                              "\t@%p1 mov.u32 %t, %tid.y;\n"
                              "\t@%p2 mov.u32 %t, %tid.z;\n"
                              "\tmad.lo.u32 %a, %a, %b, %t;\n"
                            : "\tmul.lo.u32 %a, %a, %b;\n");
  return fmt::format(".func (.param .b64 r) {}(.param .b32 d)\n{{\n\t{}"
                     "\tcvt.u64.u32 %w, %a;\n\tst.param.b64 [r], %w;\n"
                     "\tret;\n}}\n",
                     Name, Body);
}

/// clang's OpenCL C without a library: the work-item functions, barriers
/// and fences, and atomic_<op> / atom_<op> on (unsigned) int.
std::optional<std::string> openclBuiltin(const std::string &Name) {
  // _Z<length><name><parameter types>
  if (Name.compare(0, 2, "_Z") != 0)
    return std::nullopt;
  size_t I = 2, Len = 0;
  while (I < Name.size() && isdigit(static_cast<unsigned char>(Name[I])))
    Len = Len * 10 + static_cast<size_t>(Name[I++] - '0');
  if (!Len || I + Len > Name.size())
    return std::nullopt;
  std::string Base = Name.substr(I, Len), Args = Name.substr(I + Len);
  if (Base == "get_local_id")
    return workItem(Name, "%tid");
  if (Base == "get_group_id")
    return workItem(Name, "%ctaid");
  if (Base == "get_local_size" || Base == "get_enqueued_local_size")
    return workItem(Name, "%ntid");
  if (Base == "get_num_groups")
    return workItem(Name, "%nctaid");
  if (Base == "get_global_id")
    return workItem(Name, "%ctaid", "%ntid");
  if (Base == "get_global_size")
    return workItem(Name, "%ntid", "%nctaid");
  if (Base == "get_global_offset")
    return fmt::format(".func (.param .b64 r) {}(.param .b32 d)\n{{\n"
                       "\tst.param.b64 [r], 0;\n\tret;\n}}\n",
                       Name);
  if (Base == "barrier" || Base == "work_group_barrier")
    return fmt::format(".func {}(.param .b32 f)\n{{\n\tbar.sync 0;\n"
                       "\tret;\n}}\n",
                       Name);
  if (Base == "mem_fence" || Base == "read_mem_fence" ||
      Base == "write_mem_fence")
    return fmt::format(".func {}(.param .b32 f)\n{{\n\tmembar.cta;\n"
                       "\tret;\n}}\n",
                       Name);
  // atomic_add(volatile __global int *p, int v): PU3AS1Vii
  std::string Op;
  if (Base.compare(0, 7, "atomic_") == 0)
    Op = Base.substr(7);
  else if (Base.compare(0, 5, "atom_") == 0)
    Op = Base.substr(5);
  else
    return std::nullopt;
  size_t As = Args.find("PU3AS");
  if (As != 0 || Args.size() < 8)
    return std::nullopt;
  char Space = Args[5];
  size_t T = Args[6] == 'V' ? 7 : 6;
  char Ty = Args[T];
  const char *S = Space == '1' ? ".global" : Space == '3' ? ".shared" : "";
  bool Signed = Ty == 'i';
  // atomic_xchg also takes a float: the exchange moves its bits.
  if (Ty != 'i' && Ty != 'j' && !(Ty == 'f' && (Op == "xchg")))
    return std::nullopt;
  std::string Atom, Extra;
  unsigned NArgs = 1;
  if (Op == "add" || Op == "sub" || Op == "xchg" || Op == "min" ||
      Op == "max" || Op == "and" || Op == "or" || Op == "xor")
    NArgs = 2;
  else if (Op == "cmpxchg")
    NArgs = 3;
  else if (Op != "inc" && Op != "dec")
    return std::nullopt;
  std::string Type = Op == "add" || Op == "sub" || Op == "inc" || Op == "dec" ||
                             Op == "min" || Op == "max"
                         ? (Signed ? "s32" : "u32")
                         : "b32";
  std::string Params = ".param .b64 p";
  std::string Loads = "\tld.param.b64 %p, [p];\n";
  if (NArgs >= 2) {
    Params += ", .param .b32 a";
    Loads += "\tld.param.b32 %v0, [a];\n";
  }
  if (NArgs == 3) {
    Params += ", .param .b32 c";
    Loads += "\tld.param.b32 %v1, [c];\n";
  }
  std::string Inst;
  if (Op == "inc" || Op == "dec")
    Inst = fmt::format("\tatom{}.add.{} %v2, [%p], {};\n", S, Type,
                       Op == "inc" ? 1 : -1);
  else if (Op == "sub")
    Inst = fmt::format("\tneg.s32 %v0, %v0;\n\tatom{}.add.{} %v2, [%p], "
                       "%v0;\n",
                       S, Type);
  else if (Op == "cmpxchg")
    Inst = fmt::format("\tatom{}.cas.b32 %v2, [%p], %v0, %v1;\n", S);
  else
    Inst = fmt::format("\tatom{}.{}.{} %v2, [%p], %v0;\n", S,
                       Op == "xchg" ? "exch" : Op, Type);
  return fmt::format(".func (.param .b32 r) {}({})\n{{\n\t.reg .b64 %p;\n"
                     "\t.reg .b32 %v<3>;\n{}{}\tst.param.b32 [r], %v2;\n"
                     "\tret;\n}}\n",
                     Name, Params, Loads, Inst);
}

} // namespace

const ptx::Function *builtinDefinition(const std::string &Name) {
  static std::map<std::string, std::unique_ptr<ptx::Module>> Cache;
  auto It = Cache.find(Name);
  if (It == Cache.end()) {
    std::unique_ptr<ptx::Module> M;
    std::optional<std::string> Text = cudaBuiltin(Name);
    if (!Text)
      Text = openclBuiltin(Name);
    if (Text) {
      auto File = std::make_shared<SourceFile>(
          "<builtin " + Name + ">",
          ".version 8.0\n.target sm_90\n.address_size 64\n" + *Text);
      DiagnosticEngine Diags;
      if (std::optional<ptx::Module> P = ptx::parseModule(File, Diags)) {
        for (ptx::ModuleItem &I : P->Items)
          clearRanges(I);
        M = std::make_unique<ptx::Module>(std::move(*P));
      }
    }
    It = Cache.emplace(Name, std::move(M)).first;
  }
  return It->second ? It->second->findFunction(Name) : nullptr;
}

} // namespace incant::ir
