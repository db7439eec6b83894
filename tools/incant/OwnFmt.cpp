//===- OwnFmt.cpp - fmt's compiled part, for the static incant binary -----===//
//
// Debian ships fmt's compiled part only as a shared library (libfmt.so), so
// a static incant binary (tools/incant/CMakeLists.txt, INCANT_STATIC_CHECK)
// compiles it from fmt's headers here: built with FMT_HEADER_ONLY, fmt's
// functions are inline, and this file makes the compiler emit every one
// that the parts' objects (compiled against the shared library) call. The
// names are the same in both modes (fmt::v9::...), so the linker resolves
// the parts' calls to these copies.
//
// The list is the fmt functions the parts call (`nm -C -u` on the
// libraries incant links, grep fmt::) and the printing functions next to
// them. A new call to another one shows as an undefined reference to
// fmt::... when incant is linked: add it here, or configure with
// -DINCANT_STATIC_CHECK=OFF.
//
//===----------------------------------------------------------------------===//
// Before any fmt header: this file alone compiles fmt header-only.
#define FMT_HEADER_ONLY 1
#include <fmt/format.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto dragonbox::to_decimal<float>(float) noexcept
    -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal<double>(double) noexcept
    -> dragonbox::decimal_fp<double>;
template auto thousands_sep_impl<char>(locale_ref)
    -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
} // namespace detail
FMT_END_NAMESPACE

namespace {

// Taking the addresses makes the compiler emit the inline definitions (as
// weak symbols); `used` keeps the table from being dropped.
using Address = const void *;
[[gnu::used]] const Address OwnFmtFunctions[] = {
    reinterpret_cast<Address>(
        static_cast<std::string (*)(fmt::string_view, fmt::format_args)>(
            &fmt::vformat)),
    reinterpret_cast<Address>(
        static_cast<bool (*)(uint32_t)>(&fmt::detail::is_printable)),
    reinterpret_cast<Address>(&fmt::detail::throw_format_error),
    reinterpret_cast<Address>(
        static_cast<void (*)(std::FILE *, fmt::string_view, fmt::format_args)>(
            &fmt::vprint)),
    reinterpret_cast<Address>(
        static_cast<void (*)(fmt::string_view, fmt::format_args)>(
            &fmt::vprint)),
    reinterpret_cast<Address>(&fmt::format_system_error),
    reinterpret_cast<Address>(&fmt::report_system_error),
};

} // namespace

// format_error's destructor is its key function: defining one object's
// destruction here emits the destructor, the vtable and the type info.
[[gnu::used]] void incantOwnFmtFormatError() {
  fmt::format_error E("");
  (void)E;
}
