//===- ImageScan.cpp - Finding instrumented units in binaries -------------===//
#include "incant/Intercept/ImageScan.h"
#include "runtime/incant_control.h"

#include <cctype>
#include <map>

namespace incant::intercept {

namespace {

/// Decodes `[N] = {b, b, ...}` (PTX text after a variable's name) into
/// bytes; empty if the text is not such an initializer.
std::string decodeByteList(std::string_view S) {
  size_t I = 0;
  auto Skip = [&] {
    while (I < S.size() && (S[I] == ' ' || S[I] == '\t' || S[I] == '\n' ||
                            S[I] == '\r'))
      ++I;
  };
  Skip();
  if (I >= S.size() || S[I] != '[')
    return {};
  size_t Close = S.find(']', I);
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
  for (;;) {
    Skip();
    unsigned V = 0;
    size_t Digits = 0;
    while (I < S.size() && S[I] >= '0' && S[I] <= '9' && Digits < 4) {
      V = V * 10 + unsigned(S[I++] - '0');
      ++Digits;
    }
    if (Digits == 0 || V > 255)
      return {};
    Out += static_cast<char>(V);
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

/// The manifest in \p Bytes (starting with the magic, ending at a NUL).
std::optional<UnitManifest> readManifest(std::string_view Bytes,
                                         std::string &Error) {
  constexpr std::string_view Magic = INCANT_UNIT_MAGIC;
  if (Bytes.substr(0, Magic.size()) != Magic) {
    Error = "no manifest magic";
    return std::nullopt;
  }
  Bytes.remove_prefix(Magic.size());
  size_t End = Bytes.find('\0');
  if (End == std::string_view::npos) {
    Error = "the manifest is cut short";
    return std::nullopt;
  }
  return manifestFromJson(Bytes.substr(0, End), Error);
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

  // Raw copies (cubin data).
  constexpr std::string_view Magic = INCANT_UNIT_MAGIC;
  for (size_t At = Bytes.find(Magic); At != std::string_view::npos;
       At = Bytes.find(Magic, At + 1)) {
    std::string Error;
    if (auto M = readManifest(Bytes.substr(At), Error)) {
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
    std::string Data = decodeByteList(Bytes.substr(After, 1 << 30));
    if (Data.empty())
      continue;
    std::string Error;
    if (auto M = readManifest(Data, Error); M && M->Id == U.Id)
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
