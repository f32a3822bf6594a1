#include "lib/url/internal/host_parser.h"

#include <idn2.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/encoding/ascii.h"
#include "lib/encoding/hex.h"
#include "lib/url/internal/percent_encoding.h"

namespace crawler::url::internal {
namespace {

using encoding::AsAbsl;
using encoding::HexValue;
using encoding::ToAsciiLower;

absl::Status HostError(std::string_view validation_error, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(AsAbsl(what), " (", AsAbsl(validation_error), ")"));
}

// --- IPv6 (WHATWG URL 3.5, "IPv6 parser" and "IPv6 serializer") ---------------------------------

using Ipv6Address = std::array<uint16_t, 8>;

absl::Status ParseIpv6(std::string_view input, Ipv6Address& address) {
  address.fill(0);
  size_t piece_index = 0;
  std::optional<size_t> compress;
  size_t pointer = 0;
  auto c = [&]() -> int {
    return pointer < input.size() ? static_cast<unsigned char>(input[pointer]) : -1;
  };
  auto is_digit = [](int ch) { return ch >= '0' && ch <= '9'; };

  if (c() == ':') {
    if (pointer + 1 >= input.size() || input[pointer + 1] != ':') {
      return HostError("IPv6-invalid-compression", "IPv6 address starts with a single ':'");
    }
    pointer += 2;
    ++piece_index;
    compress = piece_index;
  }
  while (c() != -1) {
    if (piece_index == 8) {
      return HostError("IPv6-too-many-pieces", "IPv6 address has more than 8 pieces");
    }
    if (c() == ':') {
      if (compress) return HostError("IPv6-multiple-compression", "IPv6 address has two '::'");
      ++pointer;
      ++piece_index;
      compress = piece_index;
      continue;
    }
    uint32_t value = 0;
    size_t length = 0;
    while (length < 4 && c() != -1 && HexValue(static_cast<char>(c())) >= 0) {
      value = value * 0x10 + static_cast<uint32_t>(HexValue(static_cast<char>(c())));
      ++pointer;
      ++length;
    }
    if (c() == '.') {
      if (length == 0) {
        return HostError("IPv4-in-IPv6-invalid-code-point", "IPv4 part of IPv6 address is empty");
      }
      pointer -= length;
      if (piece_index > 6) {
        return HostError("IPv4-in-IPv6-too-many-pieces",
                         "IPv4 part of IPv6 address comes too late");
      }
      int numbers_seen = 0;
      while (c() != -1) {
        std::optional<uint32_t> ipv4_piece;
        if (numbers_seen > 0) {
          if (c() == '.' && numbers_seen < 4) {
            ++pointer;
          } else {
            return HostError("IPv4-in-IPv6-invalid-code-point", "bad IPv4 part of IPv6 address");
          }
        }
        if (!is_digit(c())) {
          return HostError("IPv4-in-IPv6-invalid-code-point", "bad IPv4 part of IPv6 address");
        }
        while (is_digit(c())) {
          const uint32_t number = static_cast<uint32_t>(c() - '0');
          if (!ipv4_piece) {
            ipv4_piece = number;
          } else if (*ipv4_piece == 0) {
            return HostError("IPv4-in-IPv6-invalid-code-point",
                             "IPv4 part of IPv6 address has a leading zero");
          } else {
            *ipv4_piece = *ipv4_piece * 10 + number;
          }
          if (*ipv4_piece > 255) {
            return HostError("IPv4-in-IPv6-out-of-range-part",
                             "IPv4 part of IPv6 address has a number > 255");
          }
          ++pointer;
        }
        address[piece_index] = static_cast<uint16_t>(address[piece_index] * 0x100 + *ipv4_piece);
        ++numbers_seen;
        if (numbers_seen == 2 || numbers_seen == 4) ++piece_index;
      }
      if (numbers_seen != 4) {
        return HostError("IPv4-in-IPv6-too-few-parts", "IPv4 part of IPv6 address is incomplete");
      }
      break;
    }
    if (c() == ':') {
      ++pointer;
      if (c() == -1) return HostError("IPv6-invalid-code-point", "IPv6 address ends with ':'");
    } else if (c() != -1) {
      return HostError("IPv6-invalid-code-point", "invalid character in IPv6 address");
    }
    address[piece_index] = static_cast<uint16_t>(value);
    ++piece_index;
  }
  if (compress) {
    size_t swaps = piece_index - *compress;
    piece_index = 7;
    while (piece_index != 0 && swaps > 0) {
      std::swap(address[piece_index], address[*compress + swaps - 1]);
      --piece_index;
      --swaps;
    }
  } else if (piece_index != 8) {
    return HostError("IPv6-too-few-pieces", "IPv6 address has fewer than 8 pieces");
  }
  return absl::OkStatus();
}

void SerializeIpv6(const Ipv6Address& address, std::string& out) {
  // The first longest run of two or more zero pieces is written as "::".
  std::optional<size_t> compress;
  size_t best_length = 1;
  for (size_t i = 0; i < 8;) {
    if (address[i] != 0) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < 8 && address[end] == 0) ++end;
    if (end - i > best_length) {
      best_length = end - i;
      compress = i;
    }
    i = end;
  }
  out.push_back('[');
  bool ignore0 = false;
  for (size_t i = 0; i < 8; ++i) {
    if (ignore0 && address[i] == 0) continue;
    ignore0 = false;
    if (compress == i) {
      out.append(i == 0 ? "::" : ":");
      ignore0 = true;
      continue;
    }
    char hex[4];
    int n = 0;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int digit = (address[i] >> shift) & 0xF;
      if (n == 0 && digit == 0 && shift != 0) continue;
      hex[n++] = encoding::kLowerHexDigits[digit];
    }
    out.append(hex, static_cast<size_t>(n));
    if (i != 7) out.push_back(':');
  }
  out.push_back(']');
}

// --- IPv4 (WHATWG URL 3.5, "IPv4 number parser", "ends in a number", "IPv4 parser") ----------

// Values above this are only ever compared against limits <= 2^32, so saturating keeps the
// arithmetic bounded without changing any outcome.
constexpr uint64_t kIpv4NumberCap = uint64_t{1} << 33;

std::optional<uint64_t> ParseIpv4Number(std::string_view input) {
  if (input.empty()) return std::nullopt;
  int radix = 10;
  if (input.size() >= 2 && input[0] == '0' && (input[1] == 'x' || input[1] == 'X')) {
    input.remove_prefix(2);
    radix = 16;
  } else if (input.size() >= 2 && input[0] == '0') {
    input.remove_prefix(1);
    radix = 8;
  }
  if (input.empty()) return 0;
  uint64_t value = 0;
  for (char ch : input) {
    const int digit = HexValue(ch);
    if (digit < 0 || digit >= radix) return std::nullopt;
    value = std::min(value * static_cast<uint64_t>(radix) + static_cast<uint64_t>(digit),
                     kIpv4NumberCap);
  }
  return value;
}

bool EndsInANumber(std::string_view input) {
  if (!input.empty() && input.back() == '.') {
    input.remove_suffix(1);
    if (input.empty()) return false;
  }
  const size_t dot = input.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? input : input.substr(dot + 1);
  if (!last.empty() && last.find_first_not_of("0123456789") == std::string_view::npos) {
    return true;
  }
  return ParseIpv4Number(last).has_value();
}

absl::Status ParseIpv4(std::string_view input, uint32_t& address) {
  std::array<uint64_t, 4> numbers{};
  size_t count = 0;
  if (!input.empty() && input.back() == '.') input.remove_suffix(1);  // "1.2.3.4." is allowed
  size_t start = 0;
  while (true) {
    const size_t dot = input.find('.', start);
    const std::string_view part =
        input.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (count == 4) return HostError("IPv4-too-many-parts", "IPv4 address has more than 4 parts");
    const std::optional<uint64_t> number = ParseIpv4Number(part);
    if (!number) return HostError("IPv4-non-numeric-part", "IPv4 address has a non-numeric part");
    numbers[count++] = *number;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (size_t i = 0; i + 1 < count; ++i) {
    if (numbers[i] > 255) {
      return HostError("IPv4-out-of-range-part", "IPv4 address has a part > 255");
    }
  }
  if (numbers[count - 1] >= (uint64_t{1} << (8 * (5 - count)))) {
    return HostError("IPv4-out-of-range-part", "IPv4 address is out of range");
  }
  uint64_t ipv4 = numbers[count - 1];
  for (size_t i = 0; i + 1 < count; ++i) ipv4 += numbers[i] << (8 * (3 - i));
  address = static_cast<uint32_t>(ipv4);
  return absl::OkStatus();
}

void SerializeIpv4(uint32_t address, std::string& out) {
  absl::StrAppend(&out, address >> 24, ".", (address >> 16) & 0xFF, ".", (address >> 8) & 0xFF, ".",
                  address & 0xFF);
}

// --- Domains (WHATWG URL 3.3, "domain to ASCII"; UTS #46 via libidn2) -------------------------

constexpr std::array<bool, 256> MakeForbiddenDomainCodePoints() {
  std::array<bool, 256> t{};
  // C0 controls, space, DEL, '%', and the forbidden host code points.
  for (int c = 0; c <= 0x20; ++c) t[c] = true;
  t[0x7F] = true;
  for (char c : std::string_view("%#/:<>?@[\\]^|")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr std::array<bool, 256> kForbiddenDomainCodePoints = MakeForbiddenDomainCodePoints();

bool IsAscii(std::string_view s) {
  for (char ch : s) {
    if (static_cast<unsigned char>(ch) >= 0x80) return false;
  }
  return true;
}

// Length of the label separator at `s[i]`: UTS #46 maps U+3002, U+FF0E and U+FF61 to '.', and
// no other code point maps to anything containing '.', so splitting on these four before mapping
// gives the same labels as splitting after.
size_t SeparatorLength(std::string_view s, size_t i) {
  if (s[i] == '.') return 1;
  if (s.size() - i >= 3) {
    const std::string_view three = s.substr(i, 3);
    if (three == "\xE3\x80\x82" || three == "\xEF\xBC\x8E" || three == "\xEF\xBD\xA1") return 3;
  }
  return 0;
}

struct Idn2Deleter {
  void operator()(char* p) const { idn2_free(p); }
};

absl::Status LabelToAscii(std::string_view label, std::string& out) {
  if (IsAscii(label)) {
    // UTS #46 maps ASCII to itself except for case, and with UseSTD3ASCIIRules=false and
    // CheckHyphens=false validates nothing else in an ASCII label. "xn--" labels are kept as
    // they are too (see the header).
    for (char ch : label) out.push_back(ToAsciiLower(ch));
    return absl::OkStatus();
  }
  const std::string z(label);  // libidn2 wants a NUL-terminated string
  if (z.find('\0') != std::string::npos) {
    return HostError("domain-invalid-code-point", "host contains U+0000");
  }
  char* raw = nullptr;
  const int rc = idn2_to_ascii_8z(z.c_str(), &raw, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
  const std::unique_ptr<char, Idn2Deleter> ascii(raw);
  if (rc != IDN2_OK) {
    return HostError("domain-to-ASCII",
                     absl::StrCat("IDNA conversion of host failed: ", idn2_strerror_name(rc)));
  }
  out.append(ascii.get());
  return absl::OkStatus();
}

absl::Status DomainToAscii(std::string_view domain, std::string& out) {
  const size_t out_begin = out.size();
  if (IsAscii(domain)) {
    for (char ch : domain) out.push_back(ToAsciiLower(ch));
  } else {
    size_t label_begin = 0;
    for (size_t i = 0; i <= domain.size();) {
      const size_t separator = i < domain.size() ? SeparatorLength(domain, i) : 1;
      if (separator == 0) {
        ++i;
        continue;
      }
      if (absl::Status s = LabelToAscii(domain.substr(label_begin, i - label_begin), out);
          !s.ok()) {
        return s;
      }
      if (i < domain.size()) out.push_back('.');
      i += separator;
      label_begin = i;
    }
  }
  const std::string_view result = std::string_view(out).substr(out_begin);
  if (result.empty()) return HostError("domain-to-ASCII", "host is empty after IDNA mapping");
  for (char ch : result) {
    if (kForbiddenDomainCodePoints[static_cast<unsigned char>(ch)]) {
      return HostError("domain-invalid-code-point", "host contains a forbidden code point");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseSpecialHost(std::string_view input, std::string& out) {
  if (!input.empty() && input.front() == '[') {
    if (input.back() != ']' || input.size() < 2) {
      return HostError("IPv6-unclosed", "IPv6 address is missing its closing ']'");
    }
    Ipv6Address address;
    if (absl::Status s = ParseIpv6(input.substr(1, input.size() - 2), address); !s.ok()) return s;
    SerializeIpv6(address, out);
    return absl::OkStatus();
  }
  if (input.empty()) return HostError("host-missing", "empty host");
  // Percent-decoding only when there is something to decode keeps the common case free of a
  // copy.
  std::string decoded;
  std::string_view domain = input;
  if (input.find('%') != std::string_view::npos) {
    decoded = PercentDecode(input);
    domain = decoded;
  }
  const size_t begin = out.size();
  if (absl::Status s = DomainToAscii(domain, out); !s.ok()) return s;
  const std::string_view ascii_domain = std::string_view(out).substr(begin);
  if (EndsInANumber(ascii_domain)) {
    uint32_t address = 0;
    const absl::Status s = ParseIpv4(ascii_domain, address);
    out.resize(begin);
    if (!s.ok()) return s;
    SerializeIpv4(address, out);
  }
  return absl::OkStatus();
}

}  // namespace crawler::url::internal
