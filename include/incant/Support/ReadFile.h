//===- ReadFile.h - A whole file as bytes ------------------------*- C++ -*-===//
//
// For files that are data, not source (a program's binary, a JSON file
// incant wrote): their bytes whole. Source that diagnostics point into is
// read with SourceFile::read (Diagnostic.h).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_READFILE_H
#define INCANT_SUPPORT_READFILE_H

#include <string>

namespace incant {

/// Reads the file \p Path into \p Bytes; false if it cannot be opened or
/// read (\p Bytes is then empty).
bool readFile(const std::string &Path, std::string &Bytes);

} // namespace incant

#endif // INCANT_SUPPORT_READFILE_H
