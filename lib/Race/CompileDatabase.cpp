//===- CompileDatabase.cpp - compile_commands.json ------------------------===//
#include "incant/Race/CompileDatabase.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <system_error>

namespace fs = std::filesystem;

namespace incant::race {

namespace {

std::string normalPath(const fs::path &Dir, const std::string &P) {
  fs::path Full = fs::path(P).is_absolute() ? fs::path(P) : Dir / P;
  std::error_code EC;
  fs::path C = fs::weakly_canonical(Full, EC);
  return (EC ? Full.lexically_normal() : C).string();
}

/// Options whose value (the next word, or joined: -Idir) is a path.
const char *const PathOptions[] = {"-I", "-isystem", "-iquote", "-idirafter",
                                   "-include", "--include-path",
                                   "--system-include", "--pre-include"};
/// Options kept with their value (joined or the next word).
const char *const ValueOptions[] = {"-D", "-U", "--define-macro",
                                    "--undefine-macro", "-std", "--std",
                                    "-cl-std"};
/// nvcc flags that change the device code, kept as they are.
const std::regex KeptFlag(
    "--?(expt-relaxed-constexpr|expt-extended-lambda|extended-lambda|"
    "rdc(=.*)?|relocatable-device-code(=.*)?|use_fast_math|ftz=.*|"
    "prec-div=.*|prec-sqrt=.*|fmad=.*|default-stream(=.*)?)");
const std::regex ArchFlag("-arch|--gpu-architecture|-gencode|"
                          "--generate-code|-code|--gpu-code");
const std::regex SmName("sm_[0-9]+[af]?");

/// Whether \p W is option \p Opt, joined ("-DX", "-std=c++17") or alone;
/// the value's start in \p W (W.size() when alone).
std::optional<size_t> optionMatch(const std::string &W, const std::string &Opt) {
  if (W == Opt)
    return W.size();
  if (W.compare(0, Opt.size(), Opt) != 0)
    return std::nullopt;
  if (W[Opt.size()] == '=')
    return Opt.size() + 1;
  // Only single-dash options join without '=' (-Idir, -DX).
  if (Opt.size() == 2 && Opt[1] != '-')
    return Opt.size();
  return std::nullopt;
}

} // namespace

std::vector<std::string> splitCommandLine(const std::string &Command) {
  std::vector<std::string> Words;
  std::string W;
  bool InWord = false;
  for (size_t I = 0; I < Command.size(); ++I) {
    char C = Command[I];
    if (C == ' ' || C == '\t' || C == '\n') {
      if (InWord)
        Words.push_back(W);
      W.clear();
      InWord = false;
      continue;
    }
    InWord = true;
    if (C == '\\' && I + 1 < Command.size()) {
      W += Command[++I];
    } else if (C == '\'') {
      size_t E = Command.find('\'', I + 1);
      E = E == std::string::npos ? Command.size() : E;
      W += Command.substr(I + 1, E - I - 1);
      I = E;
    } else if (C == '"') {
      for (++I; I < Command.size() && Command[I] != '"'; ++I) {
        if (Command[I] == '\\' && I + 1 < Command.size() &&
            std::string_view("\"\\$`").find(Command[I + 1]) !=
                std::string_view::npos)
          ++I;
        W += Command[I];
      }
    } else {
      W += C;
    }
  }
  if (InWord)
    Words.push_back(W);
  return Words;
}

std::optional<std::vector<CompileCommand>>
readCompileDatabase(const std::string &Path, std::string &Error) {
  fs::path File = Path;
  std::error_code EC;
  if (fs::is_directory(File, EC) || File.extension() != ".json")
    File /= "compile_commands.json";
  std::ifstream In(File);
  if (!In) {
    Error = File.string() + ": no such file (-p takes the build folder that "
                            "holds compile_commands.json)";
    return std::nullopt;
  }
  nlohmann::json J = nlohmann::json::parse(In, nullptr, false);
  if (J.is_discarded() || !J.is_array()) {
    Error = File.string() + ": not a JSON array of compile commands";
    return std::nullopt;
  }
  std::vector<CompileCommand> DB;
  for (size_t I = 0; I < J.size(); ++I) {
    const nlohmann::json &E = J[I];
    auto Str = [&](const char *Key) {
      auto It = E.find(Key);
      return It != E.end() && It->is_string() ? It->get<std::string>() : "";
    };
    CompileCommand C;
    C.Directory = Str("directory");
    std::string F = Str("file");
    if (!E.is_object() || C.Directory.empty() || F.empty()) {
      Error = File.string() + ": entry " + std::to_string(I) +
              " has no \"directory\" or \"file\"";
      return std::nullopt;
    }
    C.File = normalPath(C.Directory, F);
    auto Args = E.find("arguments");
    if (Args != E.end() && Args->is_array()) {
      for (const nlohmann::json &A : *Args)
        if (A.is_string())
          C.Arguments.push_back(A.get<std::string>());
    } else {
      C.Arguments = splitCommandLine(Str("command"));
    }
    DB.push_back(std::move(C));
  }
  return DB;
}

const CompileCommand *findCompileCommand(const std::vector<CompileCommand> &DB,
                                         const std::string &File) {
  std::string Want = normalPath(fs::current_path(), File);
  for (const CompileCommand &C : DB)
    if (C.File == Want)
      return &C;
  return nullptr;
}

std::vector<std::string> ptxFlagsOf(const CompileCommand &C, std::string &Arch) {
  std::vector<std::string> Out;
  Arch.clear();
  const std::vector<std::string> &A = C.Arguments;
  for (size_t I = 1; I < A.size(); ++I) {
    const std::string &W = A[I];
    auto Next = [&]() -> std::string {
      return I + 1 < A.size() ? A[++I] : std::string();
    };
    bool Done = false;
    for (const char *Opt : PathOptions)
      if (std::optional<size_t> V = optionMatch(W, Opt); V && !Done) {
        std::string P = *V < W.size() ? W.substr(*V) : Next();
        Out.push_back(Opt);
        Out.push_back(normalPath(C.Directory, P));
        Done = true;
      }
    for (const char *Opt : ValueOptions)
      if (std::optional<size_t> V = optionMatch(W, Opt); V && !Done) {
        std::string Val = *V < W.size() ? W.substr(*V) : Next();
        bool Joined = std::string(Opt).size() == 2;
        Out.push_back(Joined ? Opt + Val : std::string(Opt) + "=" + Val);
        Done = true;
      }
    if (Done)
      continue;
    if (std::regex_match(W, KeptFlag)) {
      Out.push_back(W);
      continue;
    }
    std::smatch M;
    std::string Name = W.substr(0, W.find('='));
    if (std::regex_match(Name, ArchFlag)) {
      std::string Val = W.size() > Name.size() ? W.substr(Name.size() + 1)
                                               : Next();
      if (Arch.empty() && std::regex_search(Val, M, SmName))
        Arch = M.str();
      else if (Arch.empty() && std::regex_search(
                                   Val, M, std::regex("compute_([0-9]+[af]?)")))
        Arch = "sm_" + M[1].str();
    }
  }
  return Out;
}

} // namespace incant::race
