//===- InputFile.h - Reading a whole input file, bounded --------*- C++ -*-===//
//
// What every command reads goes through one bounded read: a regular file's
// size is checked before it is read (SourceFile::MaxSize), and what is not
// a regular file (a pipe, a device such as /dev/zero, a terminal), whose
// size is not known before it is read, is read up to MaxStreamSize bytes:
// /dev/zero is refused in a fraction of a second, never read to 2 GB.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_INPUTFILE_H
#define INCANT_SUPPORT_INPUTFILE_H

#include <cstdint>
#include <string>

namespace incant {

/// The most readInputFile takes from what is not a regular file: 256 MiB.
constexpr uint64_t MaxStreamSize = uint64_t(1) << 28;

/// Reads the whole file \p Path into \p Text within those limits (binaries
/// too: `incant sites`). False with \p Error (errno text, "is a folder, not
/// a file", a size limit, "out of memory while reading it") if not.
bool readInputFile(const std::string &Path, std::string &Text,
                   std::string &Error);

} // namespace incant

#endif // INCANT_SUPPORT_INPUTFILE_H
