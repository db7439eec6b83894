//===- ParserTest.cpp - Parsing, precedence, and load-time errors ---------===//
#include "incant/Cat/Model.h"
#include "incant/Cat/Parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

using namespace incant;
using namespace incant::cat;
using namespace incant::cat::ast;

namespace {

/// An S-expression of an expression tree, to pin down precedence.
std::string show(const Expr &E) {
  auto Un = [&](const char *Op) {
    return std::string("(") + Op + " " + show(*E.Ops[0]) + ")";
  };
  auto Bin = [&](const char *Op) {
    return std::string("(") + Op + " " + show(*E.Ops[0]) + " " +
           show(*E.Ops[1]) + ")";
  };
  switch (E.Kind) {
  case ExprKind::Name:
    return E.Name;
  case ExprKind::Empty:
    return "0";
  case ExprKind::Universe:
    return "_";
  case ExprKind::Union:
    return Bin("|");
  case ExprKind::Inter:
    return Bin("&");
  case ExprKind::Diff:
    return Bin("\\");
  case ExprKind::Seq:
    return Bin(";");
  case ExprKind::Product:
    return Bin("*");
  case ExprKind::Compl:
    return Un("~");
  case ExprKind::Plus:
    return Un("+");
  case ExprKind::Star:
    return Un("star");
  case ExprKind::Opt:
    return Un("?");
  case ExprKind::Inverse:
    return Un("inv");
  case ExprKind::Bracket:
    return Un("[]");
  case ExprKind::Call: {
    std::string S = "(" + E.Name;
    for (const auto &A : E.Ops)
      S += " " + show(*A);
    return S + ")";
  }
  }
  return "?";
}

std::optional<Module> parseText(const std::string &Text,
                                DiagnosticEngine &Diags) {
  return parseModule(std::make_shared<SourceFile>("t.cat", Text), Diags);
}

/// The tree of the expression in "let x = <Text>".
std::string tree(const std::string &Text) {
  DiagnosticEngine Diags;
  std::optional<Module> M = parseText("let x = " + Text, Diags);
  if (!M || M->Stmts.size() != 1)
    return "<error>";
  return show(*M->Stmts[0].Bindings[0].Body);
}

/// "line:col: message" of each error (and note) from loading \p Text.
std::vector<std::string> loadErrors(const std::string &Text,
                                    const std::string &Name = "t.cat",
                                    std::vector<std::string> Dirs = {}) {
  DiagnosticEngine Diags;
  std::optional<Model> M =
      Model::parse(std::make_shared<SourceFile>(Name, Text), Diags, Dirs);
  std::vector<std::string> Out;
  for (const Diagnostic &D : Diags.diagnostics())
    Out.push_back((D.Sev == Severity::Note ? "note " : "") +
                  (D.File && D.File->name() != Name ? D.File->name() + ":"
                                                    : std::string()) +
                  std::to_string(D.Range.Begin.Line) + ":" +
                  std::to_string(D.Range.Begin.Col) + ": " + D.Message);
  EXPECT_EQ(M.has_value(), Diags.numErrors() == 0);
  return Out;
}

std::string firstError(const std::string &Text) {
  std::vector<std::string> E = loadErrors(Text);
  return E.empty() ? "<none>" : E[0];
}

TEST(ParserTest, Precedence) {
  // herd's and Dat3M's order: | ; \ & (Dat3M's PTX models rely on it:
  // `[GEN]; cb; cb & pfo` is `[GEN]; cb; (cb & pfo)`).
  EXPECT_EQ(tree("a | b & c"), "(| a (& b c))");
  EXPECT_EQ(tree("a & b | c"), "(| (& a b) c)");
  EXPECT_EQ(tree("a ; b & c"), "(; a (& b c))");
  EXPECT_EQ(tree("a | b ; c"), "(| a (; b c))");
  EXPECT_EQ(tree("a & b \\ c"), "(\\ (& a b) c)");
  EXPECT_EQ(tree("a \\ b & c"), "(\\ a (& b c))");
  EXPECT_EQ(tree("a \\ b ; c"), "(; (\\ a b) c)");
  EXPECT_EQ(tree("a ; b \\ c"), "(; a (\\ b c))");
  EXPECT_EQ(tree("S * T & a"), "(& (* S T) a)");
  EXPECT_EQ(tree("a ; S * T"), "(; a (* S T))");
  EXPECT_EQ(tree("S * T ; a"), "(; (* S T) a)");
  EXPECT_EQ(tree("~a ; b"), "(; (~ a) b)");
  EXPECT_EQ(tree("~S * T"), "(* (~ S) T)");
  EXPECT_EQ(tree("~a+"), "(~ (+ a))");
  EXPECT_EQ(tree("~~a"), "(~ (~ a))");
  EXPECT_EQ(tree("(a | b) ; c"), "(; (| a b) c)");
}

TEST(ParserTest, Associativity) {
  EXPECT_EQ(tree("a | b | c"), "(| (| a b) c)");
  EXPECT_EQ(tree("a \\ b \\ c"), "(\\ (\\ a b) c)");
  EXPECT_EQ(tree("a ; b ; c"), "(; (; a b) c)");
}

TEST(ParserTest, PostfixOperators) {
  EXPECT_EQ(tree("r+"), "(+ r)");
  EXPECT_EQ(tree("r^+"), "(+ r)");
  EXPECT_EQ(tree("r*"), "(star r)");
  EXPECT_EQ(tree("r^*"), "(star r)");
  EXPECT_EQ(tree("r?"), "(? r)");
  EXPECT_EQ(tree("r^-1"), "(inv r)");
  EXPECT_EQ(tree("r^-1+?"), "(? (+ (inv r)))");
  // A postfix star followed by an operator, and a binary product.
  EXPECT_EQ(tree("r* | s"), "(| (star r) s)");
  EXPECT_EQ(tree("r* ; s*"), "(; (star r) (star s))");
  EXPECT_EQ(tree("(r*)"), "(star r)");
  EXPECT_EQ(tree("S * T"), "(* S T)");
  EXPECT_EQ(tree("S * (T)"), "(* S T)");
  EXPECT_EQ(tree("S * [T]"), "(* S ([] T))");
  EXPECT_EQ(tree("S * ~T"), "(* S (~ T))");
}

TEST(ParserTest, Atoms) {
  EXPECT_EQ(tree("0"), "0");
  EXPECT_EQ(tree("_"), "_");
  EXPECT_EQ(tree("[W]"), "([] W)");
  EXPECT_EQ(tree("[W] ; po ; [R]"), "(; (; ([] W) po) ([] R))");
  EXPECT_EQ(tree("f(a, b | c)"), "(f a (| b c))");
  EXPECT_EQ(tree("domain(rf)"), "(domain rf)");
  EXPECT_EQ(tree("WW(po-loc)"), "(WW po-loc)");
}

TEST(ParserTest, NamesWithDotsAndDashes) {
  EXPECT_EQ(tree("po-loc"), "po-loc");
  EXPECT_EQ(tree("a-b"), "a-b");
  EXPECT_EQ(tree("membar.cta | fence.sc.gpu"), "(| membar.cta fence.sc.gpu)");
  EXPECT_EQ(tree("fence.acq_rel.sys"), "fence.acq_rel.sys");
  EXPECT_EQ(tree("a \\ b"), "(\\ a b)");
  EXPECT_EQ(tree("_x"), "_x");
}

TEST(ParserTest, StatementsAndTitle) {
  DiagnosticEngine Diags;
  std::optional<Module> M = parseText(
      "\"My model\"\n"
      "(* a comment (* nested *) still comment *)\n"
      "let a = po\n"
      "let f(x, y) = x | y and g(z) = z\n"
      "let rec r = po | r ; r and s = r\n"
      "include \"other.cat\"\n"
      "acyclic a\n"
      "irreflexive a as irr\n"
      "empty a as e\n"
      "~empty a as ne\n"
      "flag ~empty a as fl\n"
      "show a, po as p\n"
      "unshow a\n",
      Diags);
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Title, "My model");
  ASSERT_EQ(M->Stmts.size(), 9u);
  EXPECT_EQ(M->Stmts[0].Kind, StmtKind::Let);
  const Stmt &Fn = M->Stmts[1];
  ASSERT_EQ(Fn.Bindings.size(), 2u);
  EXPECT_TRUE(Fn.Bindings[0].IsFunction);
  EXPECT_EQ(Fn.Bindings[0].Params, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(Fn.Bindings[1].Name, "g");
  EXPECT_EQ(M->Stmts[2].Kind, StmtKind::LetRec);
  EXPECT_EQ(M->Stmts[2].Bindings.size(), 2u);
  EXPECT_EQ(M->Stmts[3].Kind, StmtKind::Include);
  EXPECT_EQ(M->Stmts[3].Path, "other.cat");
  EXPECT_EQ(M->Stmts[4].Check, CheckKind::Acyclic);
  EXPECT_TRUE(M->Stmts[4].CheckName.empty());
  EXPECT_EQ(M->Stmts[5].Check, CheckKind::Irreflexive);
  EXPECT_EQ(M->Stmts[5].CheckName, "irr");
  EXPECT_EQ(M->Stmts[6].Check, CheckKind::Empty);
  EXPECT_TRUE(M->Stmts[7].Negated);
  EXPECT_FALSE(M->Stmts[7].Flag);
  EXPECT_TRUE(M->Stmts[8].Flag);
  EXPECT_TRUE(M->Stmts[8].Negated);
  EXPECT_EQ(M->Stmts[8].CheckName, "fl");
}

TEST(ParserTest, BareWordTitle) {
  DiagnosticEngine Diags;
  std::optional<Module> M = parseText("PTX\nlet a = po\n", Diags);
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Title, "PTX");
  M = parseText("let a = po\n", Diags);
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Title, "");
}

TEST(ParserTest, SourceRanges) {
  DiagnosticEngine Diags;
  std::optional<Module> M = parseText("let x =\n  po | rf ; co\n", Diags);
  ASSERT_TRUE(M);
  const Expr &E = *M->Stmts[0].Bindings[0].Body;
  EXPECT_EQ(E.Range.Begin.Line, 2u);
  EXPECT_EQ(E.Range.Begin.Col, 3u);
  EXPECT_EQ(E.Range.End.Col, 15u);
  EXPECT_EQ(E.OpRange.Begin.Col, 6u);
  EXPECT_EQ(E.Ops[1]->Range.Begin.Col, 8u);
}

TEST(ParserTest, SyntaxErrorsArePinned) {
  EXPECT_EQ(firstError("let = po"),
            "1:5: expected a name to define, found '='");
  EXPECT_EQ(firstError("let x = po |"),
            "1:13: expected an expression, found end of file");
  EXPECT_EQ(firstError("let x = po\nacyclic x as"),
            "2:13: expected a check name after 'as', found end of file");
  EXPECT_EQ(firstError("let x = (po | rf\nacyclic x"),
            "2:1: expected ')', found keyword 'acyclic'");
  EXPECT_EQ(firstError("let x = po\n(* never (* closed *)\n"),
            "2:1: unterminated comment");
  EXPECT_EQ(firstError("let x = 12"),
            "1:9: unexpected number '12'; the only number in cat is 0 (the "
            "empty relation)");
  EXPECT_EQ(firstError("let x = po^2"), "1:11: expected '^-1', '^+' or '^*'");
  EXPECT_EQ(firstError("let x = let"),
            "1:9: expected an expression, found keyword 'let'");
  EXPECT_EQ(firstError("let x = po\nx"),
            "2:1: expected a statement (let, include, acyclic, irreflexive, "
            "empty, flag, show), found 'x'");
  EXPECT_EQ(firstError("procedure p() = call q() end"),
            "1:1: 'procedure' statements are not supported");
  EXPECT_EQ(firstError("include other"),
            "1:9: expected a quoted file name after 'include', found 'other'");
  EXPECT_EQ(firstError("let f(x, x) = x"), "1:10: parameter 'x' is given twice");
  EXPECT_EQ(firstError("let x = po $"), "1:12: unexpected character '$'");
  EXPECT_EQ(firstError("flag acyclc po"),
            "1:6: expected 'acyclic', 'irreflexive' or 'empty', found 'acyclc'");
  EXPECT_EQ(firstError("\"title\nlet x = po"), "1:1: unterminated string");
}

TEST(ParserTest, CommentCloserInCommentTextGetsANote) {
  std::vector<std::string> E =
      loadErrors("(* atom.* (and red.*) are atomic *)\nlet x = po\n");
  ASSERT_EQ(E.size(), 2u);
  EXPECT_EQ(E[0], "1:23: expected a statement (let, include, acyclic, "
                  "irreflexive, empty, flag, show), found 'are'");
  EXPECT_EQ(E[1], "note 1:20: a comment ends here: '*)' closes a comment "
                  "wherever it appears");
}

TEST(ParserTest, HostileInputIsBounded) {
  std::string Deep = "let x = " + std::string(5000, '(') + "po" +
                     std::string(5000, ')');
  EXPECT_EQ(firstError(Deep).find("nested too deeply") != std::string::npos,
            true);
  std::string Long = "let x = po";
  for (int I = 0; I != 5000; ++I)
    Long += " | po";
  EXPECT_NE(firstError(Long).find("expression too large"), std::string::npos);
  std::string Post = "let x = po" + std::string(5000, '+');
  EXPECT_NE(firstError(Post).find("expression too large"), std::string::npos);
  std::string Tildes = "let x = " + std::string(5000, '~') + "po";
  EXPECT_NE(firstError(Tildes).find("nested too deeply"), std::string::npos);
  // Function calls that double the code at each level.
  std::string Blowup = "let f0(x) = x | x\n";
  for (int I = 1; I != 40; ++I)
    Blowup += "let f" + std::to_string(I) + "(x) = f" + std::to_string(I - 1) +
              "(f" + std::to_string(I - 1) + "(x))\n";
  Blowup += "acyclic f39(po)\n";
  EXPECT_NE(firstError(Blowup).find("model too large"), std::string::npos);
}

TEST(TypeCheckTest, KindErrorsArePinned) {
  EXPECT_EQ(firstError("let x = po | R"),
            "1:12: the operands of '|' must both be sets or both be "
            "relations; the left one is a relation and the right one is a set");
  EXPECT_EQ(firstError("let x = R &\n  po"),
            "1:11: the operands of '&' must both be sets or both be "
            "relations; the left one is a set and the right one is a relation");
  EXPECT_EQ(firstError("acyclic R | W as a"),
            "1:9: 'acyclic' needs a relation, but this is a set");
  EXPECT_EQ(firstError("irreflexive R"),
            "1:13: 'irreflexive' needs a relation, but this is a set");
  EXPECT_EQ(firstError("let x = [po]"),
            "1:10: [...] needs a set, but this is a relation");
  EXPECT_EQ(firstError("let x = po * R"),
            "1:9: '*' between two expressions is the cartesian product of two "
            "sets, but this is a relation");
  EXPECT_EQ(firstError("let x = po ; R"),
            "1:14: ';' composes relations, but this is a set (write [S] for "
            "the identity relation on a set S)");
  EXPECT_EQ(firstError("let x = R+"),
            "1:10: '+' needs a relation, but its operand is a set");
  EXPECT_EQ(firstError("let x = W^-1"),
            "1:10: '^-1' needs a relation, but its operand is a set");
  EXPECT_EQ(firstError("let x = domain(R)"),
            "1:16: 'domain' needs a relation, but this is a set");
  EXPECT_EQ(firstError("let x = fencerel(po)"),
            "1:18: 'fencerel' needs a set, but this is a relation");
  EXPECT_EQ(firstError("let x = WW(R)"),
            "1:12: 'WW' needs a relation, but this is a set");
  // Empty (0) goes with both.
  EXPECT_EQ(loadErrors("let x = (0 | R) * (W & 0)\nlet y = 0 ; po | 0\n"
                       "empty 0\nacyclic 0\nlet z = [0]\n"),
            std::vector<std::string>{});
}

TEST(TypeCheckTest, NameErrorsArePinned) {
  EXPECT_EQ(firstError("let x = po\nacyclic x | foo"),
            "2:13: unknown name 'foo'");
  EXPECT_EQ(firstError("let x = a-b"),
            "1:9: unknown name 'a-b' (names may contain '-'; the difference "
            "of two relations is written 'a \\ b')");
  EXPECT_EQ(firstError("acyclic x\nlet x = po"), "1:9: unknown name 'x'");
  EXPECT_EQ(firstError("let x = nope(po)"), "1:9: unknown function 'nope'");
  EXPECT_EQ(firstError("let x = po(R)"), "1:9: 'po' is not a function");
  EXPECT_EQ(firstError("let y = po\nlet x = y(R)"),
            "2:9: 'y' is not a function");
  EXPECT_EQ(firstError("let x = domain"),
            "1:9: 'domain' is a built-in function; call it as domain(...)");
  EXPECT_EQ(firstError("let f(a) = a\nlet x = f"),
            "2:9: 'f' is a function of 1 argument(s); call it as f(...)");
  // Unknown names in a function that is never called.
  EXPECT_EQ(firstError("let f(a) = a | b"), "1:16: unknown name 'b'");
  EXPECT_EQ(firstError("let f(a) = a(po)"),
            "1:12: 'a' is a parameter; calling a parameter is not supported");
  EXPECT_EQ(firstError("let rec f(a) = a"),
            "1:9: recursive functions are not supported");
}

TEST(TypeCheckTest, ArityAndFunctionBodies) {
  EXPECT_EQ(firstError("let f(a, b) = a | b\nlet x = f(po)"),
            "2:9: 'f' takes 2 arguments, but 1 was given");
  EXPECT_EQ(firstError("let x = domain(po, rf)"),
            "1:9: 'domain' takes 1 argument, but 2 were given");
  // A kind error in a function body points into the body, once.
  std::vector<std::string> E =
      loadErrors("let f(a) = a ; po\nlet x = f(R)\nlet y = f(W)\n");
  ASSERT_EQ(E.size(), 1u);
  EXPECT_EQ(E[0], "1:12: ';' composes relations, but this is a set (write [S] "
                  "for the identity relation on a set S)");
  // Shadowing: later definitions win; a let may redefine a primitive.
  EXPECT_EQ(loadErrors("let po = R\nlet x = [po]\nlet fr = rf^-1;co\n"),
            std::vector<std::string>{});
  // A let rec whose kinds disagree.
  EXPECT_EQ(firstError("let rec a = b and b = R | a ; po"),
            "1:25: the operands of '|' must both be sets or both be "
            "relations; the left one is a set and the right one is a relation");
}

class IncludeTest : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = std::filesystem::temp_directory_path() /
          ("incant-cat-include-" + std::to_string(::getpid()));
    std::filesystem::create_directories(Dir / "lib");
  }
  void TearDown() override { std::filesystem::remove_all(Dir); }
  void write(const std::string &Name, const std::string &Text) {
    std::ofstream(Dir / Name) << Text;
  }
  std::vector<std::string> load(const std::string &Name,
                                std::vector<std::string> Dirs = {}) {
    DiagnosticEngine Diags;
    std::optional<Model> M = Model::load((Dir / Name).string(), Diags, Dirs);
    std::vector<std::string> Out;
    for (const Diagnostic &D : Diags.diagnostics())
      Out.push_back(std::filesystem::path(D.File ? D.File->name() : "")
                        .filename()
                        .string() +
                    ":" + std::to_string(D.Range.Begin.Line) + ":" +
                    std::to_string(D.Range.Begin.Col) + ": " + D.Message);
    EXPECT_EQ(M.has_value(), Diags.numErrors() == 0);
    Loaded = std::move(M);
    return Out;
  }
  std::filesystem::path Dir;
  std::optional<Model> Loaded;
};

TEST_F(IncludeTest, DefinitionsOfIncludedFilesAreVisible) {
  write("base.cat", "\"base\"\nlet com = rf | co | fr\n");
  write("main.cat", "\"main\"\ninclude \"base.cat\"\nacyclic po | com as sc\n");
  EXPECT_EQ(load("main.cat"), std::vector<std::string>{});
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Loaded->name(), "main");
}

TEST_F(IncludeTest, SearchesIncludeDirsAfterTheIncludingFile) {
  write("lib/std.cat", "let com = rf | co | fr\n");
  write("main.cat", "include \"std.cat\"\nacyclic po | com\n");
  EXPECT_EQ(load("main.cat", {(Dir / "lib").string()}),
            std::vector<std::string>{});
  std::vector<std::string> E = load("main.cat");
  ASSERT_FALSE(E.empty());
  EXPECT_EQ(E[0].substr(0, 49),
            "main.cat:1:9: cannot find included file 'std.cat'");
}

TEST_F(IncludeTest, ErrorsPointIntoTheIncludedFile) {
  write("bad.cat", "let x = po\nlet y = x | R\n");
  write("main.cat", "let a = po\ninclude \"bad.cat\"\n");
  std::vector<std::string> E = load("main.cat");
  ASSERT_EQ(E.size(), 2u);
  EXPECT_EQ(E[0].substr(0, 36), "bad.cat:2:11: the operands of '|' mu");
  EXPECT_EQ(E[1], "main.cat:2:9: in the file included here");
}

TEST_F(IncludeTest, CyclesAreErrors) {
  write("a.cat", "include \"b.cat\"\n");
  write("b.cat", "let x = po\ninclude \"a.cat\"\n");
  std::vector<std::string> E = load("a.cat");
  ASSERT_FALSE(E.empty());
  EXPECT_EQ(E[0], "b.cat:2:9: include cycle: 'a.cat' is already being read");
  write("self.cat", "include \"self.cat\"\n");
  E = load("self.cat");
  ASSERT_FALSE(E.empty());
  EXPECT_EQ(E[0],
            "self.cat:1:9: include cycle: 'self.cat' is already being read");
}

TEST_F(IncludeTest, IncludingTwiceIsFine) {
  write("d.cat", "let d = addr | data\n");
  write("main.cat", "include \"d.cat\"\ninclude \"d.cat\"\nacyclic d\n");
  EXPECT_EQ(load("main.cat"), std::vector<std::string>{});
}

TEST_F(IncludeTest, MissingModelFile) {
  DiagnosticEngine Diags;
  EXPECT_FALSE(Model::load((Dir / "none.cat").string(), Diags));
  ASSERT_EQ(Diags.numErrors(), 1u);
  EXPECT_NE(Diags.diagnostics()[0].Message.find("cannot read model"),
            std::string::npos);
}

TEST(ShippedModelsTest, ParseAndCheck) {
  // Every model shipped in models/ must load, and the ones the tool names
  // (sc, ptx-rmo, ptx) must be there: a missing or empty folder fails.
  std::filesystem::path Models =
      std::filesystem::path(INCANT_SOURCE_DIR) / "models";
  std::error_code EC;
  std::set<std::string> Loaded;
  for (std::filesystem::directory_iterator It(Models, EC), End;
       !EC && It != End; It.increment(EC)) {
    if (It->path().extension() != ".cat")
      continue;
    DiagnosticEngine Diags;
    std::optional<Model> M = Model::load(It->path().string(), Diags);
    std::string All;
    for (const Diagnostic &D : Diags.diagnostics())
      All += DiagnosticEngine::format(D);
    EXPECT_TRUE(M) << It->path() << ": " << All;
    if (M)
      Loaded.insert(It->path().stem().string());
  }
  ASSERT_FALSE(EC) << "cannot list " << Models << ": " << EC.message();
  for (const char *Name : {"sc", "ptx-rmo", "ptx"})
    EXPECT_TRUE(Loaded.count(Name)) << "models/" << Name << ".cat did not load";
}

} // namespace
