// TextBuilder: accumulates text for fingerprints and display with whitespace collapsed, the way
// a renderer's default white-space handling does: runs of ASCII whitespace (and U+00A0 NO-BREAK
// SPACE, which pages use for layout) become one space, block boundaries become one newline,
// and nothing leads or trails. Output is bounded; it is cut on a code point boundary.
//
// Thread-safety: not thread-safe; one builder per extraction.
#ifndef CRAWLER_LIB_HTML_TEXT_BUILDER_H_
#define CRAWLER_LIB_HTML_TEXT_BUILDER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace crawler::html {

class TextBuilder {
 public:
  // REQUIRES: the text appended is well-formed UTF-8.
  explicit TextBuilder(size_t max_bytes) : max_bytes_(max_bytes) {}

  void Append(std::string_view utf8);
  // A word boundary (e.g. between table cells): at most one space.
  void Space() { pending_ = pending_ == Pending::kNone ? Pending::kSpace : pending_; }
  // A block boundary: at most one newline.
  void Break() { pending_ = Pending::kBreak; }

  bool truncated() const { return truncated_; }
  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }
  std::string Take() && { return std::move(text_); }

 private:
  enum class Pending { kNone, kSpace, kBreak };

  // Appends words (separated by single spaces) after the pending separator; false once full.
  bool AppendWord(std::string_view word);

  const size_t max_bytes_;
  std::string text_;
  Pending pending_ = Pending::kNone;
  bool truncated_ = false;
};

// `utf8` normalised as TextBuilder does, at most `max_bytes` (e.g. an image's alt text as anchor
// text); empty for no text.
inline std::string BoundedText(std::optional<std::string_view> utf8, size_t max_bytes) {
  if (!utf8.has_value()) return std::string();
  TextBuilder builder(max_bytes);
  builder.Append(*utf8);
  return std::move(builder).Take();
}

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_TEXT_BUILDER_H_
