//===- ModulePrinter.cpp - Print a PTX module ------------------------------===//
//
// Writes one canonical layout: header directives, then the items in order;
// a tab before every body item except labels. Everything appends to one
// string (no per-node strings), since the printer is on the benchmark's
// path.
//
//===----------------------------------------------------------------------===//
#include "incant/PTX/Module.h"
#include "InstParser.h"

#include <fmt/format.h>

#include <iterator>

namespace incant::ptx {

const char *linkageName(Linkage L) {
  switch (L) {
  case Linkage::None: return "";
  case Linkage::Visible: return ".visible";
  case Linkage::Extern: return ".extern";
  case Linkage::Weak: return ".weak";
  case Linkage::Common: return ".common";
  }
  return "";
}

namespace {

void appendUInt(std::string &Out, uint64_t V) { appendUnsigned(Out, V); }

void appendQuoted(std::string &Out, std::string_view S) {
  Out += '"';
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (C == '\n') {
      Out += "\\n";
      continue;
    }
    Out += C;
  }
  Out += '"';
}

/// A declaration without ';' (also a parameter).
void appendVariable(std::string &Out, const Variable &V) {
  if (V.Link != Linkage::None) {
    Out += linkageName(V.Link);
    Out += ' ';
  }
  Out += addrSpaceName(V.Space);
  if (!V.Attributes.empty()) {
    Out += " .attribute(";
    for (size_t K = 0; K != V.Attributes.size(); ++K) {
      if (K)
        Out += ", ";
      Out += V.Attributes[K];
    }
    Out += ')';
  }
  if (V.Align) {
    Out += " .align ";
    appendUInt(Out, V.Align);
  }
  if (V.Vec) {
    Out += " .v";
    appendUInt(Out, V.Vec);
  }
  Out += ' ';
  Out += V.Type;
  if (V.IsPtr) {
    Out += " .ptr";
    if (V.PtrSpace != AddrSpace::Generic) {
      Out += ' ';
      Out += addrSpaceName(V.PtrSpace);
    }
    if (V.PtrAlign) {
      Out += " .align ";
      appendUInt(Out, V.PtrAlign);
    }
  }
  Out += ' ';
  Out += V.Name;
  if (V.IsRange) {
    Out += '<';
    appendUInt(Out, V.RangeCount);
    Out += '>';
  }
  for (const std::optional<uint64_t> &D : V.Dims) {
    Out += '[';
    if (D)
      appendUInt(Out, *D);
    Out += ']';
  }
  if (V.Init) {
    Out += " = ";
    appendOperand(Out, *V.Init, /*Module=*/true);
  }
}

void appendParamList(std::string &Out, const std::vector<Variable> &Ps,
                     bool OnePerLine) {
  Out += '(';
  for (size_t K = 0; K != Ps.size(); ++K) {
    if (K)
      Out += ',';
    if (OnePerLine)
      Out += "\n\t";
    else if (K)
      Out += ' ';
    appendVariable(Out, Ps[K]);
  }
  if (OnePerLine && !Ps.empty())
    Out += '\n';
  Out += ')';
}

void appendPerf(std::string &Out, const PerfDirective &P) {
  Out += P.Name;
  for (size_t K = 0; K != P.Values.size(); ++K) {
    Out += K ? ", " : " ";
    appendUInt(Out, P.Values[K]);
  }
}

void appendLoc(std::string &Out, const LocDirective &L) {
  Out += ".loc\t";
  appendUInt(Out, L.File);
  Out += ' ';
  appendUInt(Out, L.Line);
  Out += ' ';
  appendUInt(Out, L.Col);
  if (L.HasInlinedAt) {
    Out += ", function_name ";
    Out += L.FunctionName;
    if (L.FunctionOffset) {
      Out += '+';
      appendUInt(Out, static_cast<uint64_t>(L.FunctionOffset));
    }
    Out += ", inlined_at ";
    appendUInt(Out, L.InlinedFile);
    Out += ' ';
    appendUInt(Out, L.InlinedLine);
    Out += ' ';
    appendUInt(Out, L.InlinedCol);
  }
}

void appendPragma(std::string &Out, const Pragma &P) {
  Out += ".pragma ";
  for (size_t K = 0; K != P.Strings.size(); ++K) {
    if (K)
      Out += ", ";
    appendQuoted(Out, P.Strings[K]);
  }
  Out += ';';
}

void appendRaw(std::string &Out, const RawDirective &R) {
  Out += R.Name;
  if (!R.Text.empty()) {
    Out += ' ';
    Out += R.Text;
  }
  Out += ';';
}

void appendPrototype(std::string &Out, const CallPrototype &P) {
  Out += P.Name;
  Out += " : .callprototype ";
  if (P.HasReturnList) {
    appendParamList(Out, P.Returns, false);
    Out += ' ';
  }
  Out += "_ ";
  appendParamList(Out, P.Params, false);
  for (const PerfDirective &A : P.Attrs) {
    Out += ' ';
    appendPerf(Out, A);
  }
  Out += ';';
}

struct BodyPrinter {
  std::string &Out;
  void operator()(const Instruction &I) {
    appendInstruction(Out, I, /*Module=*/true);
    Out += ';';
  }
  void operator()(const Label &L) {
    Out += L.Name;
    Out += ':';
  }
  void operator()(const Variable &V) {
    appendVariable(Out, V);
    Out += ';';
  }
  void operator()(const LocDirective &L) { appendLoc(Out, L); }
  void operator()(const Pragma &P) { appendPragma(Out, P); }
  void operator()(const CallPrototype &P) { appendPrototype(Out, P); }
  void operator()(const BlockBegin &) { Out += '{'; }
  void operator()(const BlockEnd &) { Out += '}'; }
  void operator()(const RawDirective &R) { appendRaw(Out, R); }
};

void appendFunction(std::string &Out, const Function &F) {
  if (F.Link != Linkage::None) {
    Out += linkageName(F.Link);
    Out += ' ';
  }
  Out += F.IsEntry ? ".entry " : ".func ";
  if (F.HasReturnList) {
    appendParamList(Out, F.Returns, false);
    Out += ' ';
  }
  Out += F.Name;
  if (F.HasParamList)
    appendParamList(Out, F.Params, true);
  for (const PerfDirective &P : F.Perf) {
    Out += '\n';
    appendPerf(Out, P);
  }
  if (!F.HasBody) {
    Out += ";\n";
    return;
  }
  Out += "\n{\n";
  BodyPrinter BP{Out};
  for (const BodyItem &It : F.Body) {
    if (!std::holds_alternative<Label>(It))
      Out += '\t';
    std::visit(BP, It);
    Out += '\n';
  }
  Out += "}\n";
}

struct ItemPrinter {
  std::string &Out;
  void operator()(const FileEntry &F) {
    Out += ".file\t";
    appendUInt(Out, F.Index);
    Out += ' ';
    appendQuoted(Out, F.Path);
    if (F.Timestamp) {
      Out += ", ";
      appendUInt(Out, *F.Timestamp);
      Out += ", ";
      appendUInt(Out, F.Size.value_or(0));
    }
    Out += '\n';
  }
  void operator()(const Variable &V) {
    appendVariable(Out, V);
    Out += ";\n";
  }
  void operator()(const Function &F) {
    Out += '\n';
    appendFunction(Out, F);
  }
  void operator()(const Section &S) {
    Out += ".section\t";
    Out += S.Name;
    Out += "\n{\n";
    Out += S.Text;
    if (!S.Text.empty())
      Out += '\n';
    Out += "}\n";
  }
  void operator()(const Pragma &P) {
    appendPragma(Out, P);
    Out += '\n';
  }
  void operator()(const RawDirective &R) {
    appendRaw(Out, R);
    Out += '\n';
  }
};

} // namespace

void printModule(const Module &M, std::string &Out) {
  if (M.VersionMajor || M.VersionMinor)
    fmt::format_to(std::back_inserter(Out), ".version {}.{}\n",
                   M.VersionMajor, M.VersionMinor);
  if (!M.Targets.empty()) {
    Out += ".target ";
    for (size_t K = 0; K != M.Targets.size(); ++K) {
      if (K)
        Out += ", ";
      Out += M.Targets[K];
    }
    Out += '\n';
  }
  if (M.AddressSize)
    fmt::format_to(std::back_inserter(Out), ".address_size {}\n",
                   M.AddressSize);
  ItemPrinter IP{Out};
  for (const ModuleItem &It : M.Items)
    std::visit(IP, It);
}

std::string printModule(const Module &M) {
  std::string Out;
  size_t Guess = M.File ? M.File->text().size() : 4096;
  Out.reserve(Guess + Guess / 8);
  printModule(M, Out);
  return Out;
}

std::string printVariable(const Variable &V) {
  std::string Out;
  appendVariable(Out, V);
  Out += ';';
  return Out;
}

std::string printBodyItem(const BodyItem &Item) {
  std::string Out;
  std::visit(BodyPrinter{Out}, Item);
  return Out;
}

std::string printLoc(const LocDirective &L) {
  std::string Out;
  appendLoc(Out, L);
  return Out;
}

} // namespace incant::ptx
