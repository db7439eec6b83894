//===- OutputFile.h - Checking an output path before the work ---*- C++ -*-===//
//
// A command that writes its result at the end (a chip profile after a
// tuning budget, an HTML report, kernel sources) checks the path first, so
// that an unwritable one is an input error at once, not after the work.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_OUTPUTFILE_H
#define INCANT_SUPPORT_OUTPUTFILE_H

#include <string>
#include <string_view>

namespace incant {

/// Whether the file \p Path can be created or replaced: it is opened for
/// writing (without truncating; a file created by the check is removed
/// again). False with \p Error ("cannot write 'P': reason") if not.
bool checkWritable(const std::string &Path, std::string &Error);

/// Creates the folder \p Dir (and its parents) and checks that files can
/// be created in it. False with \p Error if not.
bool checkWritableDir(const std::string &Dir, std::string &Error);

/// \p Name made a file name: characters other than letters, digits and
/// `+-_.` become `_`, a leading `.` gets `test` before it, and a name of
/// more than 120 bytes is cut and gets `+` and a hash of the whole name.
/// Generated files are named after litmus tests this way.
std::string safeFileName(std::string_view Name);

} // namespace incant

#endif // INCANT_SUPPORT_OUTPUTFILE_H
