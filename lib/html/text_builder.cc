#include "lib/html/text_builder.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

namespace crawler::html {
namespace {

// Length of the collapsible space at s[i], or 0: ASCII whitespace, or U+00A0 (C2 A0).
size_t SpaceLength(std::string_view s, size_t i) {
  switch (s[i]) {
    case '\t': case '\n': case '\f': case '\r': case ' ':
      return 1;
    case '\xC2':
      return i + 1 < s.size() && s[i + 1] == '\xA0' ? 2 : 0;
    default:
      return 0;
  }
}

// Bytes that may start a collapsible space (SpaceLength): a table lookup in the word loop.
struct SpaceStarts {
  bool flags[256] = {};
  constexpr SpaceStarts() {
    for (const char c : {'\t', '\n', '\f', '\r', ' ', '\xC2'}) {
      flags[static_cast<unsigned char>(c)] = true;
    }
  }
};
constexpr SpaceStarts kSpaceStarts;

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// True if a run of already-collapsed words ends at s[i]: a collapsible space other than a lone
// ' ' between two words.
bool EndsRun(std::string_view s, size_t i) {
  if (!kSpaceStarts.flags[static_cast<unsigned char>(s[i])] || SpaceLength(s, i) == 0) {
    return false;
  }
  return s[i] != ' ' || i + 1 >= s.size() || SpaceLength(s, i + 1) > 0;
}

// The high bit of each byte of `word` equal to `c` is set (and possibly of a byte above such a
// byte: the zero-byte test's borrow), nothing else.
constexpr uint64_t kOnes = 0x0101010101010101ull;
uint64_t BytesEqual(uint64_t word, unsigned char c) {
  const uint64_t x = word ^ (kOnes * c);
  return (x - kOnes) & ~x & (kOnes * 0x80);
}

// False if no run ends in s[i, i + 8): none of those bytes may start a collapsible space other
// than ' ', and no ' ' among them is followed by one that may. REQUIRES: i + 9 <= s.size().
bool MayEndRunInWord(std::string_view s, size_t i) {
  uint64_t bytes;
  uint64_t next;  // the bytes one further on
  std::memcpy(&bytes, s.data() + i, 8);
  std::memcpy(&next, s.data() + i + 1, 8);
  const uint64_t other_spaces = BytesEqual(bytes, '\t') | BytesEqual(bytes, '\n') |
                                BytesEqual(bytes, '\f') | BytesEqual(bytes, '\r') |
                                BytesEqual(bytes, 0xC2);
  const uint64_t next_spaces = BytesEqual(next, '\t') | BytesEqual(next, '\n') |
                               BytesEqual(next, '\f') | BytesEqual(next, '\r') |
                               BytesEqual(next, ' ') | BytesEqual(next, 0xC2);
  return (other_spaces | (BytesEqual(bytes, ' ') & next_spaces)) != 0;
}

}  // namespace

void TextBuilder::Append(std::string_view utf8) {
  size_t i = 0;
  while (i < utf8.size() && !truncated_) {
    if (const size_t space = SpaceLength(utf8, i); space > 0) {
      Space();
      i += space;
      continue;
    }
    // A run of words separated by single ' ' is already collapsed: it goes in at once. Its end
    // is looked for eight bytes at a time, byte by byte only in words that may hold it.
    size_t end = i + 1;
    while (end < utf8.size()) {
      if (utf8.size() - end >= 9 && !MayEndRunInWord(utf8, end)) {
        end += 8;
        continue;
      }
      const size_t stop = std::min(utf8.size(), end + 8);
      while (end < stop && !EndsRun(utf8, end)) ++end;
      if (end < stop) break;
    }
    if (!AppendWord(utf8.substr(i, end - i))) return;
    i = end;
  }
}

bool TextBuilder::AppendWord(std::string_view word) {
  if (truncated_) return false;
  std::string_view separator;
  if (!text_.empty()) {
    if (pending_ == Pending::kBreak) separator = "\n";
    if (pending_ == Pending::kSpace) separator = " ";
  }
  const size_t room = max_bytes_ - std::min(max_bytes_, text_.size());
  if (separator.size() + word.size() <= room) {
    text_.append(separator);
    text_.append(word);
    pending_ = Pending::kNone;
    return true;
  }
  truncated_ = true;
  if (separator.size() >= room) return false;
  // Keep what fits, without splitting a code point (nor ending on the space between words).
  size_t keep = room - separator.size();
  while (keep > 0 && IsContinuationByte(word[keep])) --keep;
  while (keep > 0 && word[keep - 1] == ' ') --keep;
  if (keep > 0) {
    text_.append(separator);
    text_.append(word.substr(0, keep));
  }
  return false;
}

}  // namespace crawler::html
