//===- Json.h - JSON text that never throws on its strings ------*- C++ -*-===//
//
// Strings that come from the user's files (a PTX .file name, a .cu path, a
// litmus test's name) may hold bytes that are not UTF-8, which JSON text
// cannot carry: the JSON library's plain dump() throws on them. Every JSON
// that incant writes goes through dumpJson, which writes such a byte as
// U+FFFD instead.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_JSON_H
#define INCANT_SUPPORT_JSON_H

#include <nlohmann/json.hpp>

#include <string>

namespace incant {

/// \p J as JSON text (one line, or indented by \p Indent spaces); a byte of
/// a string that is not UTF-8 becomes U+FFFD.
inline std::string dumpJson(const nlohmann::json &J, int Indent = -1) {
  return J.dump(Indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace incant

#endif // INCANT_SUPPORT_JSON_H
