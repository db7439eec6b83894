//===- Libclang.h - libclang's C API, opened at run time -------*- C++ -*-===//
//
// The functions of libclang's C API that lib/Source uses, found with
// dlopen/dlsym in Debian's libclang-14.so.1 (or libclang.so.1) when the
// first file is parsed ($INCANT_LIBCLANG names another), so that incant
// starts on machines without it (the GPU machine): there the host code is
// not read, and a note says so. The declarations come from
// libclang-14-dev's headers at build time.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_LIB_SOURCE_LIBCLANG_H
#define INCANT_LIB_SOURCE_LIBCLANG_H

#include <clang-c/Index.h>

#include <string>

namespace incant::source {

#define INCANT_LIBCLANG_FUNCTIONS(X)                                           \
  X(clang_Cursor_Evaluate) X(clang_Cursor_getArgument)                         \
  X(clang_Cursor_getMangling) X(clang_Cursor_getNumArguments)                  \
  X(clang_Cursor_isNull) X(clang_EvalResult_dispose)                           \
  X(clang_EvalResult_getAsLongLong) X(clang_EvalResult_getAsUnsigned)          \
  X(clang_EvalResult_getKind) X(clang_EvalResult_isUnsignedInt)                \
  X(clang_Location_isFromMainFile) X(clang_createIndex) X(clang_disposeIndex)  \
  X(clang_disposeDiagnostic) X(clang_disposeString) X(clang_disposeTokens)     \
  X(clang_disposeTranslationUnit) X(clang_equalCursors) X(clang_getCString)    \
  X(clang_getCanonicalType) X(clang_getCursorExtent) X(clang_getCursorKind)    \
  X(clang_getCursorLocation) X(clang_getCursorReferenced)                      \
  X(clang_getCursorSpelling) X(clang_getCursorType)                            \
  X(clang_getDiagnostic) X(clang_getDiagnosticLocation)                        \
  X(clang_getDiagnosticSeverity) X(clang_getDiagnosticSpelling)                \
  X(clang_getFileName) X(clang_getNumDiagnostics)                              \
  X(clang_getExpansionLocation) X(clang_getNullCursor)                         \
  X(clang_getNumOverloadedDecls) X(clang_getOverloadedDecl)                    \
  X(clang_getPointeeType)                                                      \
  X(clang_getRangeEnd) X(clang_getRangeStart) X(clang_getTokenLocation)        \
  X(clang_getTokenSpelling) X(clang_getTranslationUnitCursor)                  \
  X(clang_getTypeSpelling) X(clang_hashCursor) X(clang_isDeclaration)          \
  X(clang_isExpression) X(clang_isStatement) X(clang_parseTranslationUnit2)    \
  X(clang_tokenize) X(clang_visitChildren)

struct LibclangApi {
#define INCANT_LIBCLANG_MEMBER(F) decltype(&::F) F = nullptr;
  INCANT_LIBCLANG_FUNCTIONS(INCANT_LIBCLANG_MEMBER)
#undef INCANT_LIBCLANG_MEMBER
};

/// The loaded API, or nullptr with \p Why (the library or a function is
/// missing). Loaded once.
const LibclangApi *libclang(std::string *Why = nullptr);

/// The API once libclang() has succeeded.
inline const LibclangApi &lc() { return *libclang(); }

} // namespace incant::source

#endif // INCANT_LIB_SOURCE_LIBCLANG_H
