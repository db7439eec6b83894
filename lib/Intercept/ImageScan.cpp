//===- ImageScan.cpp - Finding instrumented units in binaries -------------===//
#include "incant/Intercept/ImageScan.h"
#include "runtime/incant_control.h"

#include <cctype>
#include <cstdint>
#include <map>

namespace incant::intercept {

namespace {

/// Decodes `[N] = {v, v, ...}` (PTX text after a variable's name) into
/// bytes, each value \p Width bytes little-endian (1 for `.b8`, 8 for
/// `.b64`); empty if the text is not such an initializer.
std::string decodeByteList(std::string_view S, unsigned Width) {
  size_t I = 0;
  auto Skip = [&] {
    while (I < S.size() && (S[I] == ' ' || S[I] == '\t' || S[I] == '\n' ||
                            S[I] == '\r'))
      ++I;
  };
  Skip();
  if (I >= S.size() || S[I] != '[')
    return {};
  // `[N]`: a few digits, looked for nearby (a scan to the end of a large
  // binary at each name would make the scan quadratic).
  size_t Close = S.substr(0, I + 24).find(']', I);
  if (Close == std::string_view::npos)
    return {};
  I = Close + 1;
  Skip();
  if (I >= S.size() || S[I] != '=')
    return {};
  ++I;
  Skip();
  if (I >= S.size() || S[I] != '{')
    return {};
  ++I;
  std::string Out;
  const uint64_t Max = Width == 8 ? UINT64_MAX : 255;
  for (;;) {
    Skip();
    // A word may be written negative (the PTX printer writes .b64 values
    // as signed): its two's complement.
    bool Neg = Width == 8 && I < S.size() && S[I] == '-';
    if (Neg)
      ++I;
    uint64_t V = 0;
    size_t Digits = 0;
    while (I < S.size() && S[I] >= '0' && S[I] <= '9' && Digits < 21) {
      unsigned D = unsigned(S[I++] - '0');
      if (V > (Max - D) / 10)
        return {};
      V = V * 10 + D;
      ++Digits;
    }
    if (Digits == 0 || (Neg && V > (uint64_t(1) << 63)))
      return {};
    if (Neg)
      V = 0 - V;
    for (unsigned B = 0; B < Width; ++B)
      Out += static_cast<char>((V >> (8 * B)) & 0xff);
    Skip();
    if (I < S.size() && S[I] == ',') {
      ++I;
      continue;
    }
    if (I < S.size() && S[I] == '}')
      return Out;
    return {};
  }
}

/// The manifest in \p Bytes, which start with the magic and end where its
/// NUL is (\p Bytes hold no NUL).
std::optional<UnitManifest> readManifest(std::string_view Bytes,
                                         std::string &Error) {
  constexpr std::string_view Magic = INCANT_UNIT_MAGIC;
  if (Bytes.substr(0, Magic.size()) != Magic) {
    Error = "no manifest magic";
    return std::nullopt;
  }
  return manifestFromJson(Bytes.substr(Magic.size()), Error);
}

/// \p Bytes up to their first NUL, or nothing if they have none (the
/// manifest is cut short).
std::optional<std::string_view> upToNul(std::string_view Bytes) {
  size_t End = Bytes.find('\0');
  if (End == std::string_view::npos)
    return std::nullopt;
  return Bytes.substr(0, End);
}

} // namespace

std::vector<FoundUnit> findUnits(std::string_view Bytes) {
  std::vector<FoundUnit> Units;
  std::map<std::string, size_t> Index;
  auto Unit = [&](const std::string &Id) -> FoundUnit & {
    auto [It, New] = Index.emplace(Id, Units.size());
    if (New)
      Units.push_back({Id, std::nullopt, ""});
    return Units[It->second];
  };

  // Raw copies (cubin data), each up to the first NUL after it: found once
  // for all the copies before it, so that the scan stays linear.
  constexpr std::string_view Magic = INCANT_UNIT_MAGIC;
  size_t Nul = 0;
  for (size_t At = Bytes.find(Magic); At != std::string_view::npos;
       At = Bytes.find(Magic, At + 1)) {
    if (Nul < At)
      Nul = Bytes.find('\0', At);
    if (Nul == std::string_view::npos)
      break; // no manifest after here is whole
    std::string Error;
    if (auto M = readManifest(Bytes.substr(At, Nul - At), Error)) {
      FoundUnit &U = Unit(M->Id);
      if (!U.Manifest)
        U.Manifest = std::move(M);
    }
  }
  // Names (symbol tables, PTX text).
  constexpr std::string_view Prefix = INCANT_UNIT_PREFIX;
  for (size_t At = Bytes.find(Prefix); At != std::string_view::npos;
       At = Bytes.find(Prefix, At + 1)) {
    std::string_view Id = Bytes.substr(At + Prefix.size(), INCANT_UNIT_ID_CHARS);
    if (!isUnitId(Id))
      continue;
    size_t After = At + Prefix.size() + Id.size();
    if (After < Bytes.size() &&
        (std::isalnum(static_cast<unsigned char>(Bytes[After])) ||
         Bytes[After] == '_'))
      continue;
    FoundUnit &U = Unit(std::string(Id));
    if (U.Manifest)
      continue;
    // The type before the name: `.b64` words (what incant writes) or
    // `.b8` bytes (what it wrote before).
    size_t TypeEnd = At;
    while (TypeEnd > 0 && (Bytes[TypeEnd - 1] == ' ' || Bytes[TypeEnd - 1] == '\t'))
      --TypeEnd;
    unsigned Width =
        TypeEnd >= 4 && Bytes.substr(TypeEnd - 4, 4) == ".b64" ? 8 : 1;
    std::string Data = decodeByteList(Bytes.substr(After, 1 << 30), Width);
    if (Data.empty())
      continue;
    std::string Error;
    std::optional<std::string_view> Text = upToNul(Data);
    std::optional<UnitManifest> M;
    if (Text)
      M = readManifest(*Text, Error);
    else
      Error = "the manifest is cut short";
    if (M && M->Id == U.Id)
      U.Manifest = std::move(M);
    else
      U.Error = Error.empty() ? "the manifest names another unit" : Error;
  }
  for (FoundUnit &U : Units)
    if (!U.Manifest && U.Error.empty())
      U.Error = "only the unit's name was found (no manifest bytes)";
  return Units;
}

std::string findUnitPtx(std::string_view Bytes, std::string_view Id) {
  // A fatbinary: u32 magic, u16 version, u16 header size, u64 size of the
  // entries; each entry: u16 kind (1 PTX, 2 ELF), u16 version, u32 header
  // size, u64 payload size, ... (its header), then the payload.
  auto U16 = [&](size_t At) {
    return At + 2 <= Bytes.size()
               ? uint16_t(uint8_t(Bytes[At]) | uint8_t(Bytes[At + 1]) << 8)
               : uint16_t(0);
  };
  auto U32 = [&](size_t At) { return uint32_t(U16(At)) | uint32_t(U16(At + 2)) << 16; };
  auto U64 = [&](size_t At) { return uint64_t(U32(At)) | uint64_t(U32(At + 4)) << 32; };
  const std::string Def = unitVarName(Id) + "[";
  constexpr std::string_view Magic = "\x50\xed\x55\xba";
  for (size_t At = Bytes.find(Magic); At != std::string_view::npos;
       At = Bytes.find(Magic, At + 1)) {
    uint64_t Header = U16(At + 6), Size = U64(At + 8);
    if (Header < 16 || Size > Bytes.size() - At - Header)
      continue;
    for (uint64_t E = At + Header, End = At + Header + Size; E + 16 <= End;) {
      uint16_t Kind = U16(E);
      uint64_t EHeader = U32(E + 4), Payload = U64(E + 8);
      if (EHeader < 16 || EHeader + Payload > End - E)
        break;
      std::string_view Text = Bytes.substr(E + EHeader, Payload);
      if (Kind == 1) { // a compressed payload does not show the name
        Text = Text.substr(0, Text.find('\0'));
        if (Text.find(Def) != std::string_view::npos)
          return std::string(Text);
      }
      E += EHeader + Payload;
    }
  }
  return {};
}

} // namespace incant::intercept
