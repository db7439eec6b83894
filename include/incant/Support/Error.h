//===- Error.h - What kind of failure, carried to the top -------*- C++ -*-===//
//
// A step that fails reports what went wrong to a DiagnosticEngine (the one
// message format) and returns the kind of failure, so that the command
// chooses its exit code, and a campaign whether to store the result, from
// the kind and not from what the messages look like:
//
//   Input     the user's input cannot be used: a malformed or unsupported
//             test, model, option or file (exit code 2);
//   Device    the machine cannot do it: no driver, runtime, device or
//             compiler, or a device call failed (exit code 3);
//   Internal  incant, or a tool it drives, failed on input it accepted: a
//             generated kernel that does not compile, no temporary folder
//             (exit code 3: the run could not be done, and the input is not
//             to blame).
//
//===----------------------------------------------------------------------===//
#ifndef INCANT_SUPPORT_ERROR_H
#define INCANT_SUPPORT_ERROR_H

#include <cassert>
#include <optional>
#include <utility>

namespace incant {

enum class ErrorKind { Input, Device, Internal };

/// The exit code of a command that stops on an error of kind \p K.
constexpr int exitCodeOf(ErrorKind K) { return K == ErrorKind::Input ? 2 : 3; }

/// A word for messages: "input", "device", "internal".
constexpr const char *kindName(ErrorKind K) {
  return K == ErrorKind::Input    ? "input"
         : K == ErrorKind::Device ? "device"
                                  : "internal";
}

/// A value, or the kind of the error that prevented it (its messages went
/// to a DiagnosticEngine). Converts from either, so a function returning
/// Expected<T> can `return Value;` or `return ErrorKind::Device;`.
template <typename T> class Expected {
public:
  Expected(T V) : Value(std::move(V)) {}
  Expected(ErrorKind K) : Kind(K) {}

  explicit operator bool() const { return Value.has_value(); }
  bool has_value() const { return Value.has_value(); }
  T &operator*() {
    assert(Value && "no value: check the Expected first");
    return *Value;
  }
  const T &operator*() const {
    assert(Value && "no value: check the Expected first");
    return *Value;
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }
  /// The kind of error; only without a value.
  ErrorKind error() const {
    assert(!Value && "a value, not an error");
    return Kind;
  }

private:
  std::optional<T> Value;
  ErrorKind Kind = ErrorKind::Internal;
};

} // namespace incant

#endif // INCANT_SUPPORT_ERROR_H
