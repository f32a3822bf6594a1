#include "lib/fingerprint/sha1.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/fingerprint/base32.h"

namespace crawler::fingerprint {
namespace {

constexpr std::array<uint32_t, 5> kInitialState = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476,
                                                   0xC3D2E1F0};  // FIPS 180-4 §5.3.1

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

}  // namespace

void Sha1Hasher::Reset() {
  state_ = kInitialState;
  buffered_ = 0;
  total_bytes_ = 0;
}

// FIPS 180-4 §6.1.2, steps 1-4, for one 512-bit block.
void Sha1Hasher::ProcessBlock(const uint8_t* block) {
  std::array<uint32_t, 80> w;
  for (int t = 0; t < 16; ++t) {
    w[t] = (uint32_t{block[4 * t]} << 24) | (uint32_t{block[4 * t + 1]} << 16) |
           (uint32_t{block[4 * t + 2]} << 8) | uint32_t{block[4 * t + 3]};
  }
  for (int t = 16; t < 80; ++t) {
    w[t] = std::rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  }
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3], e = state_[4];
  for (int t = 0; t < 80; ++t) {
    uint32_t f;
    uint32_t k;
    if (t < 20) {
      f = (b & c) ^ (~b & d);  // Ch
      k = 0x5A827999;
    } else if (t < 40) {
      f = b ^ c ^ d;  // Parity
      k = 0x6ED9EBA1;
    } else if (t < 60) {
      f = (b & c) ^ (b & d) ^ (c & d);  // Maj
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;  // Parity
      k = 0xCA62C1D6;
    }
    const uint32_t temp = std::rotl(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = std::rotl(b, 30);
    b = a;
    a = temp;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
}

void Sha1Hasher::Update(std::string_view data) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  total_bytes_ += n;
  if (buffered_ > 0) {
    const size_t take = std::min(n, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < buffer_.size()) return;
    ProcessBlock(buffer_.data());
    buffered_ = 0;
  }
  while (n >= 64) {
    ProcessBlock(p);
    p += 64;
    n -= 64;
  }
  if (n > 0) std::memcpy(buffer_.data(), p, n);
  buffered_ = n;
}

Sha1Digest Sha1Hasher::Finish() {
  // Padding, FIPS 180-4 §5.1.1: a 1 bit, zeros up to 448 mod 512 bits, the 64-bit bit length.
  const uint64_t bit_length = total_bytes_ * 8;
  buffer_[buffered_++] = 0x80;
  if (buffered_ > 56) {
    std::memset(buffer_.data() + buffered_, 0, 64 - buffered_);
    ProcessBlock(buffer_.data());
    buffered_ = 0;
  }
  std::memset(buffer_.data() + buffered_, 0, 56 - buffered_);
  for (int i = 0; i < 8; ++i) buffer_[56 + i] = static_cast<uint8_t>(bit_length >> (56 - 8 * i));
  ProcessBlock(buffer_.data());

  Sha1Digest::Bytes out;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(state_[i] >> (24 - 8 * j));
  }
  Reset();
  return Sha1Digest(out);
}

Sha1Digest Sha1(std::string_view data) {
  Sha1Hasher hasher;
  hasher.Update(data);
  return hasher.Finish();
}

std::string Sha1Digest::ToHex() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * kSize);
  for (uint8_t b : bytes_) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string Sha1Digest::ToBase32() const {
  return Base32Encode(
      std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size()));
}

std::string Sha1Digest::ToWarcString() const { return absl::StrCat("sha1:", ToBase32()); }

absl::StatusOr<Sha1Digest> Sha1Digest::FromWarcString(std::string_view labelled) {
  const size_t colon = labelled.find(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError("WARC digest: missing 'algorithm:' label");
  }
  const std::string_view algorithm = labelled.substr(0, colon);
  const std::string_view value = labelled.substr(colon + 1);
  if (!EqualsIgnoreAsciiCase(algorithm, "sha1") && !EqualsIgnoreAsciiCase(algorithm, "sha-1")) {
    // The label comes from an untrusted file: quote at most a bounded, escaped prefix of it.
    return absl::UnimplementedError(
        absl::StrCat("WARC digest: unsupported algorithm '",
                     absl::CEscape(std::string(algorithm.substr(0, 32))), "'"));
  }
  Bytes bytes;
  if (value.size() == 2 * kSize) {
    for (size_t i = 0; i < kSize; ++i) {
      const int hi = HexValue(value[2 * i]);
      const int lo = HexValue(value[2 * i + 1]);
      if (hi < 0 || lo < 0) return absl::InvalidArgumentError("WARC digest: invalid hex digit");
      bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    return Sha1Digest(bytes);
  }
  if (value.size() != 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "WARC digest: sha1 value must be 32 base32 or 40 hex characters, got ", value.size()));
  }
  absl::StatusOr<std::string> decoded = Base32Decode(value);
  if (!decoded.ok()) return decoded.status();
  std::memcpy(bytes.data(), decoded->data(), kSize);  // 32 base32 characters are exactly 20 bytes
  return Sha1Digest(bytes);
}

}  // namespace crawler::fingerprint
