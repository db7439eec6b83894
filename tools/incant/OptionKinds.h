//===- OptionKinds.h - On/off switches and repeatable lists -----*- C++ -*-===//
//
// Two kinds of option spelt the same way in every command:
//
// - a switch: --NAME and --no-NAME, two options of their own, so that
//   --help says which is the default in words ("default: on") rather than
//   CLI11's `--no-NAME{false}`; either counts as NAME given (switchName);
// - a list: one value per occurrence (`-m sc -m ptx`, or `-m sc,ptx` where
//   values cannot hold commas), so a list option never swallows the test
//   files that follow it.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_TOOL_OPTIONKINDS_H
#define INCANT_TOOL_OPTIONKINDS_H

#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <vector>

namespace incant::tool {

/// --NAME sets \p Var, --no-NAME clears it; \p Desc says what on means.
inline void addSwitch(CLI::App *Sub, const std::string &Name, bool &Var,
                      const std::string &Desc) {
  CLI::Option *On = Sub->add_flag_callback(
      "--" + Name, [&Var] { Var = true; },
      Desc + (Var ? " (default: on)" : " (default: off)"));
  Sub->add_flag_callback(
      "--no-" + Name,
      [&Var, On, Name] {
        if (On->count() > 0)
          throw CLI::ValidationError("--" + Name + " and --no-" + Name,
                                     "give one of them");
        Var = false;
      },
      "Turn --" + Name + " off");
}

/// A list option taking one value per occurrence; with \p Commas, a value
/// "a,b" is two.
inline CLI::Option *addList(CLI::App *Sub, const std::string &Names,
                            std::vector<std::string> &Var,
                            const std::string &Desc, bool Commas = false) {
  CLI::Option *O = Sub->add_option(Names, Var, Desc)
                       ->expected(1)
                       ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                       ->allow_extra_args(false);
  if (Commas)
    O->delimiter(',');
  return O;
}

/// The long names of the options given on the command line, a switch's
/// --no-NAME as NAME: what a chip profile must not override.
inline std::set<std::string> givenOptions(const CLI::App *Sub) {
  std::set<std::string> Out;
  for (const CLI::Option *O : Sub->get_options()) {
    if (O->count() == 0 || O->get_lnames().empty())
      continue;
    std::string N = O->get_lnames()[0];
    if (N.rfind("no-", 0) == 0 && Sub->get_option_no_throw("--" + N.substr(3)))
      N = N.substr(3);
    Out.insert(N);
  }
  return Out;
}

} // namespace incant::tool

#endif // INCANT_TOOL_OPTIONKINDS_H
