#include "lib/html/meta_refresh.h"

#include <cstdint>

#include "lib/encoding/ascii.h"

namespace crawler::html {

using encoding::IsAsciiDigit;
using encoding::IsAsciiWhitespace;

std::optional<MetaRefresh> ParseMetaRefresh(std::string_view input) {
  // Step numbers refer to the shared declarative refresh steps.
  size_t pos = 0;
  const size_t n = input.size();
  auto skip_whitespace = [&] {
    while (pos < n && IsAsciiWhitespace(input[pos])) ++pos;
  };
  auto at = [&](char c) { return pos < n && input[pos] == c; };
  auto at_either = [&](char a, char b) { return pos < n && (input[pos] == a || input[pos] == b); };

  MetaRefresh refresh;
  skip_whitespace();
  // 4-6: the time, a sequence of digits; if there are none, a '.' must follow.
  const size_t digits_begin = pos;
  uint64_t seconds = 0;
  while (pos < n && IsAsciiDigit(input[pos])) {
    if (seconds <= UINT32_MAX) seconds = seconds * 10 + static_cast<uint64_t>(input[pos] - '0');
    ++pos;
  }
  if (pos == digits_begin && !at('.')) return std::nullopt;
  refresh.delay_seconds = seconds > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(seconds);
  // 7: digits and '.' that follow are ignored.
  while (pos < n && (IsAsciiDigit(input[pos]) || input[pos] == '.')) ++pos;
  // 10: a separator, then an optional "url =".
  if (pos < n) {
    if (!IsAsciiWhitespace(input[pos]) && input[pos] != ';' && input[pos] != ',') {
      return std::nullopt;
    }
    skip_whitespace();
    if (at_either(';', ',')) ++pos;
    skip_whitespace();
  }
  if (pos >= n) return refresh;

  // 11: the URL, with "url=" and quotes optional.
  size_t url_begin = pos;
  bool prefixed = false;
  if (at_either('U', 'u')) {
    ++pos;
    if (at_either('R', 'r')) {
      ++pos;
      if (at_either('L', 'l')) {
        ++pos;
        skip_whitespace();
        if (at('=')) {
          ++pos;
          skip_whitespace();
          prefixed = true;
        }
      }
    }
    // Without a complete "url=", the URL is everything from the first 'u' ("parse" step).
    if (!prefixed) {
      refresh.url = input.substr(url_begin);
      return refresh;
    }
  }
  // "Skip quotes".
  char quote = '\0';
  if (at_either('\'', '"')) quote = input[pos++];
  url_begin = pos;
  std::string_view url = input.substr(url_begin);
  if (quote != '\0') {
    const size_t close = url.find(quote);
    if (close != std::string_view::npos) url = url.substr(0, close);
  }
  refresh.url = url;
  return refresh;
}

}  // namespace crawler::html
