#include "lib/fingerprint/base32.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crawler::fingerprint {
namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

// Value of a base32 character, or -1.
int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= '2' && c <= '7') return c - '2' + 26;
  return -1;
}

}  // namespace

std::string Base32Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 4) / 5 * 8);
  uint64_t buffer = 0;
  int bits = 0;
  for (char c : bytes) {
    buffer = (buffer << 8) | static_cast<uint8_t>(c);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push_back(kAlphabet[(buffer >> bits) & 31]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (5 - bits)) & 31]);
  while (out.size() % 8 != 0) out.push_back('=');
  return out;
}

absl::StatusOr<std::string> Base32Decode(std::string_view text) {
  size_t data_len = text.size();
  while (data_len > 0 && text[data_len - 1] == '=') --data_len;
  const size_t padding = text.size() - data_len;
  // Characters in the final (partial) 8-character group; 1, 3 and 6 cannot come from whole bytes.
  const size_t tail = data_len % 8;
  if (tail == 1 || tail == 3 || tail == 6) {
    return absl::InvalidArgumentError(
        absl::StrCat("base32: impossible length ", data_len, " (final group of ", tail, ")"));
  }
  if (padding != 0 && (text.size() % 8 != 0 || padding >= 8)) {
    return absl::InvalidArgumentError("base32: incomplete padding");
  }
  std::string out;
  out.reserve(data_len * 5 / 8);
  uint64_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < data_len; ++i) {
    const int value = DecodeChar(text[i]);
    if (value < 0) {
      return absl::InvalidArgumentError(absl::StrCat("base32: invalid character at offset ", i));
    }
    buffer = (buffer << 5) | static_cast<uint64_t>(value);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  if ((buffer & ((uint64_t{1} << bits) - 1)) != 0) {
    return absl::InvalidArgumentError("base32: non-zero pad bits in the last character");
  }
  return out;
}

}  // namespace crawler::fingerprint
