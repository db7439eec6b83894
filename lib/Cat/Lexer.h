//===- Lexer.h - Tokens of the cat language ---------------------*- C++ -*-===//
#ifndef INCANT_LIB_CAT_LEXER_H
#define INCANT_LIB_CAT_LEXER_H

#include "incant/Support/Diagnostic.h"

#include <string>

namespace incant::cat {

enum class Tok {
  Name,
  String,
  Zero,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Pipe,
  Amp,
  Backslash,
  Semi,
  Star,
  Plus,
  Question,
  Tilde,
  HatInv,  ///< ^-1
  HatPlus, ///< ^+
  HatStar, ///< ^*
  Comma,
  Equal,
  Eof,
  Error,
};

struct Token {
  Tok Kind = Tok::Eof;
  SourceRange Range;
  std::string Text; ///< Name: the name; String: the contents.
};

/// Splits a .cat file into tokens, skipping blanks and (nested) comments.
class Lexer {
public:
  Lexer(std::shared_ptr<const SourceFile> File, DiagnosticEngine &Diags)
      : File(std::move(File)), Diags(Diags) {}
  /// The next token; Tok::Error after reporting a diagnostic.
  Token next();

  /// Notes where the last comment ended if that is on the line of \p At
  /// (an error there is often text after a "*)" meant as comment text).
  void noteCommentEnd(SourceRange At);

  static bool isNameStart(char C);
  static bool isNameChar(char C);

private:
  SourceRange rangeOf(size_t Begin, size_t End) const;
  Token make(Tok K, size_t Begin, size_t End, std::string Text = {});
  Token error(size_t Begin, size_t End, std::string Message);

  std::shared_ptr<const SourceFile> File;
  DiagnosticEngine &Diags;
  size_t Pos = 0;
  SourceRange LastCommentEnd;
};

} // namespace incant::cat

#endif // INCANT_LIB_CAT_LEXER_H
