#include "lib/html/text_builder.h"

#include <algorithm>
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

}  // namespace

void TextBuilder::Append(std::string_view utf8) {
  size_t i = 0;
  while (i < utf8.size() && !truncated_) {
    if (const size_t space = SpaceLength(utf8, i); space > 0) {
      Space();
      i += space;
      continue;
    }
    // A run of words separated by single ' ' is already collapsed: it goes in at once.
    size_t end = i + 1;
    while (end < utf8.size()) {
      if (kSpaceStarts.flags[static_cast<unsigned char>(utf8[end])] &&
          SpaceLength(utf8, end) > 0) {
        if (utf8[end] != ' ' || end + 1 >= utf8.size() || SpaceLength(utf8, end + 1) > 0) break;
      }
      ++end;
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
