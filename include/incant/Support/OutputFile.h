//===- OutputFile.h - Output paths: checked first, written safely -*- C++ -*-===//
//
// A command that writes its result at the end (a chip profile after a
// tuning budget, an HTML report, a repaired kernel) checks its output paths
// first (checkOutputs), so that an unwritable one, or one that names an
// input, is an input error at once, not after the work; then it writes
// through writeOutputFile, which never turns a device into a file and never
// loses a failed write.
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_OUTPUTFILE_H
#define INCANT_SUPPORT_OUTPUTFILE_H

#include <string>
#include <string_view>
#include <vector>

namespace incant {

/// Whether the file \p Path can be created or replaced: it is opened for
/// writing (without truncating; a file created by the check is removed
/// again). False with \p Error ("cannot write 'P': reason") if not.
bool checkWritable(const std::string &Path, std::string &Error);

/// Checks, before any work, every output path of a command: each of
/// \p Outputs (empty ones and "-", standard output, are skipped) can be
/// written (checkWritable) and is not the same file as one of \p Inputs or
/// as another output, whatever names or links lead to it (the same device
/// and inode; a character device such as /dev/null may be both). False
/// with \p Error naming both paths ("the output 'k.ptx' is the input
/// 'k.ptx'").
bool checkOutputs(const std::vector<std::string> &Outputs,
                  const std::vector<std::string> &Inputs, std::string &Error);

/// Writes \p Text to \p Path. A regular file, or one that does not exist
/// yet, is written to a temporary file beside it that then replaces it (a
/// symbolic link to it is followed, so the link stays); anything else (a
/// device such as /dev/null, a pipe, a terminal, /dev/stdout) is opened and
/// written in place, never replaced. Every write and the close are
/// checked; on failure nothing is left behind but what the device took,
/// and \p Error says why ("cannot write '/dev/full': No space left on
/// device"). With \p Append the text goes after what a file holds, in
/// place.
bool writeOutputFile(const std::string &Path, std::string_view Text,
                     std::string &Error, bool Append = false);

/// Flushes standard output (both std::cout and stdio) and checks that
/// every write to it went through. False with \p Error if not ("cannot
/// write the standard output: No space left on device").
bool finishStandardOutput(std::string &Error);

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
