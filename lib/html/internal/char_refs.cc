#include "lib/html/internal/char_refs.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "lib/encoding/ascii.h"
#include "lib/encoding/hex.h"
#include "lib/encoding/utf8.h"

namespace crawler::html::internal {
namespace {

using encoding::AppendUtf8;
using encoding::HexValue;
using encoding::IsAsciiAlnum;
using encoding::IsAsciiDigit;
using encoding::IsAsciiWhitespace;

struct NamedRef {
  std::string_view name;
  std::string_view utf8;
};

constexpr NamedRef kNamedRefs[] = {
#include "lib/html/internal/named_char_refs.inc"
};

// The longest name in the table.
constexpr size_t kMaxNameLength = 32;

const NamedRef* FindNamed(std::string_view name) {
  const auto it = std::lower_bound(
      std::begin(kNamedRefs), std::end(kNamedRefs), name,
      [](const NamedRef& ref, std::string_view n) { return ref.name < n; });
  return it != std::end(kNamedRefs) && it->name == name ? it : nullptr;
}

constexpr uint32_t kReplacement = 0xFFFD;

// 13.2.5.80: numeric references to C1 controls mean windows-1252 (0 where unchanged).
constexpr uint16_t kC1Replacements[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,  // 80-87
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,       // 88-8F
    0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,  // 90-97
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178,  // 98-9F
};

// Bytes that AppendDecoded looks at: '&', U+0000, CR, and the bytes that start a code point
// Gumbo replaces (InvalidCodePointLength).
struct SpecialBytes {
  bool flags[256] = {};
  constexpr SpecialBytes() {
    for (int b = 0; b < 0x20; ++b) flags[b] = !IsAsciiWhitespace(static_cast<char>(b));
    flags[static_cast<unsigned char>('\r')] = true;
    flags[static_cast<unsigned char>('&')] = true;
    flags[0x7F] = true;
    flags[0xC2] = true;
    flags[0xEF] = true;
    for (int b = 0xF0; b <= 0xF4; ++b) flags[b] = true;
  }
};
constexpr SpecialBytes kSpecialBytes;

// The length of the code point at s[i] if Gumbo's input stream replaces it with U+FFFD: C0
// controls but whitespace and U+0000 (handled apart), U+007F, C1 controls, U+FDD0-U+FDEF and
// U+xFFFE/U+xFFFF. 0 otherwise.
size_t InvalidCodePointLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
  };
  const unsigned char b0 = byte(0);
  if (b0 < 0x20) return b0 != 0 && !IsAsciiWhitespace(static_cast<char>(b0)) ? 1 : 0;
  if (b0 == 0x7F) return 1;
  if (b0 == 0xC2) return byte(1) >= 0x80 && byte(1) <= 0x9F ? 2 : 0;
  if (b0 == 0xEF) {
    if (byte(1) == 0xB7 && byte(2) >= 0x90 && byte(2) <= 0xAF) return 3;
    if (byte(1) == 0xBF && (byte(2) == 0xBE || byte(2) == 0xBF)) return 3;
    return 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if ((byte(1) & 0x0F) == 0x0F && byte(2) == 0xBF && (byte(3) == 0xBE || byte(3) == 0xBF)) {
      return 4;
    }
  }
  return 0;
}

// Decodes the numeric reference at raw[i] == '&', raw[i + 1] == '#'; returns the index after it,
// or i if there is none (no digits).
size_t Numeric(std::string_view raw, size_t i, std::string& out) {
  size_t p = i + 2;
  const bool hex = p < raw.size() && (raw[p] == 'x' || raw[p] == 'X');
  if (hex) ++p;
  const size_t digits_begin = p;
  uint32_t value = 0;
  for (; p < raw.size(); ++p) {
    const int digit = hex ? HexValue(raw[p]) : (IsAsciiDigit(raw[p]) ? raw[p] - '0' : -1);
    if (digit < 0) break;
    value = std::min<uint32_t>(value * (hex ? 16 : 10) + static_cast<uint32_t>(digit), 0x110000);
  }
  if (p == digits_begin) return i;
  if (p < raw.size() && raw[p] == ';') ++p;
  if (value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
    value = kReplacement;
  } else if (value >= 0x80 && value <= 0x9F && kC1Replacements[value - 0x80] != 0) {
    value = kC1Replacements[value - 0x80];
  }
  AppendUtf8(value, out);
  return p;
}

// Decodes the named reference at raw[i] == '&'; returns the index after it, or i if there is
// none.
size_t Named(std::string_view raw, size_t i, RefContext context, std::string& out) {
  size_t end = i + 1;
  while (end < raw.size() && end - i - 1 < kMaxNameLength && IsAsciiAlnum(raw[end])) ++end;
  if (end < raw.size() && raw[end] == ';' && end - i - 1 < kMaxNameLength) ++end;
  for (size_t len = end - i - 1; len > 0; --len) {
    const NamedRef* ref = FindNamed(raw.substr(i + 1, len));
    if (ref == nullptr) continue;
    const size_t after = i + 1 + len;
    if (context == RefContext::kAttribute && ref->name.back() != ';' && after < raw.size() &&
        (raw[after] == '=' || IsAsciiAlnum(raw[after]))) {
      return i;  // historical: "&copy=3" in a URL stays as written
    }
    out.append(ref->utf8);
    return after;
  }
  return i;
}

}  // namespace

bool NeedsDecoding(std::string_view raw) {
  // Eight bytes at a time: a word without a byte below 0x20, '&', 0x7F or a byte from 0x80 up
  // holds no special byte; any other word is looked at byte by byte. (The tests below have no
  // false negatives; a false positive only costs the byte loop.)
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  size_t i = 0;
  for (; raw.size() - i >= 8; i += 8) {
    uint64_t w;
    std::memcpy(&w, raw.data() + i, 8);
    const uint64_t below_space = (w - kOnes * 0x20) & ~w;
    const uint64_t amp = w ^ (kOnes * '&');
    const uint64_t del = w ^ (kOnes * 0x7F);
    if (((below_space | ((amp - kOnes) & ~amp) | ((del - kOnes) & ~del) | w) & kHigh) == 0) {
      continue;
    }
    for (size_t j = i; j < i + 8; ++j) {
      if (kSpecialBytes.flags[static_cast<unsigned char>(raw[j])]) return true;
    }
  }
  for (; i < raw.size(); ++i) {
    if (kSpecialBytes.flags[static_cast<unsigned char>(raw[i])]) return true;
  }
  return false;
}

void AppendDecoded(std::string_view raw, RefContext context, std::string& out) {
  size_t copied = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (!kSpecialBytes.flags[static_cast<unsigned char>(c)]) continue;
    size_t after = i;  // past what replaces raw[i...], once handled
    if (c == '&') {
      if (context == RefContext::kRaw) continue;
      out.append(raw.substr(copied, i - copied));
      after = i + 1 < raw.size() && raw[i + 1] == '#' ? Numeric(raw, i, out)
                                                       : Named(raw, i, context, out);
      if (after == i) {
        out.push_back('&');
        after = i + 1;
      }
    } else if (c == '\0') {
      out.append(raw.substr(copied, i - copied));
      if (context != RefContext::kText) AppendUtf8(kReplacement, out);
      after = i + 1;
    } else if (c == '\r') {
      out.append(raw.substr(copied, i - copied));
      out.push_back('\n');
      after = i + 1 < raw.size() && raw[i + 1] == '\n' ? i + 2 : i + 1;
    } else {
      const size_t invalid = InvalidCodePointLength(raw, i);
      if (invalid == 0) continue;
      out.append(raw.substr(copied, i - copied));
      AppendUtf8(kReplacement, out);
      after = i + invalid;
    }
    copied = after;
    i = after - 1;
  }
  out.append(raw.substr(copied));
}

}  // namespace crawler::html::internal
