// The scanner of html_scanner.h: a tokenizer just precise enough to find tags, attributes,
// comments and raw text the way the HTML tokenizer does, feeding the tree model (tree_model.h).
#include "lib/html/internal/html_scanner.h"

#include <gumbo.h>

#include <array>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/encoding/ascii.h"
#include "lib/html/internal/html_elements.h"
#include "lib/html/internal/tree_model.h"

namespace crawler::html::internal {
namespace {

using encoding::EqualsIgnoreCase;
using encoding::IsAsciiAlpha;
using encoding::IsAsciiWhitespace;
using encoding::StartsWithIgnoreCase;
using encoding::ToAsciiLower;
using encoding::TrimAsciiWhitespace;

// Longest tag name worth looking up in Gumbo's tag table ("annotation-xml", "foreignobject").
constexpr size_t kMaxKnownTagName = 16;

constexpr auto IsWhitespace = IsAsciiWhitespace;
constexpr auto IsAlpha = IsAsciiAlpha;
unsigned char Lower(char c) { return static_cast<unsigned char>(ToAsciiLower(c)); }

// The scanner: a tokenizer just precise enough to find tags, attributes, comments and raw text
// the way the HTML tokenizer does.
class Scanner {
 public:
  Scanner(std::string_view html, const NestingLimits& limits, ScanListener& listener)
      : in_(html), limits_(limits), listener_(listener), model_(limits.max_depth, listener) {}

  ScanReport Run() {
    const size_t n = in_.size();
    size_t pos = 0;
    while (pos < n && !listener_.Stop()) {
      const size_t lt = in_.find('<', pos);
      if (lt == std::string_view::npos) {
        Text(pos, n);
        break;
      }
      if (lt > pos) Text(pos, lt);
      pos = Markup(lt);
    }
    report_.max_modelled_depth = model_.max_depth_seen();
    report_.final_modelled_depth = model_.depth();
    return report_;
  }

 private:
  struct Attributes {
    size_t end = 0;         // just past the '>'; npos at end of input (the tag is discarded)
    size_t count = 0;
    uint32_t hash = 0;
    bool self_closing = false;
    // The first encoding="..." is text/html or application/xhtml+xml (annotation-xml), or
    // holds a character reference the model does not decode.
    bool html_encoding = false;
    bool unsure_encoding = false;
    bool font_attributes = false;  // color, face or size (see TagToken)
  };

  // The first "encoding" attribute counts, as the tokenizer drops later duplicates.
  void NoteEncoding(std::string_view name, std::string_view value, bool& seen, Attributes& a) {
    if (seen || !EqualsIgnoreCase(name, "encoding")) return;
    seen = true;
    a.unsure_encoding = value.find('&') != std::string_view::npos;
    a.html_encoding = EqualsIgnoreCase(value, "text/html") ||
                      EqualsIgnoreCase(value, "application/xhtml+xml");
  }

  void Text(size_t begin, size_t end, TextMode mode = TextMode::kData) {
    // U+0000 is dropped by the tree builder (but in foreign content, where it is U+FFFD).
    bool whitespace_only = true;
    bool null_only = true;
    for (size_t i = begin; i < end && whitespace_only; ++i) {
      whitespace_only = IsWhitespace(in_[i]) || in_[i] == '\0';
      null_only = null_only && in_[i] == '\0';
    }
    if (!whitespace_only || null_only) seen_content_ = true;
    if (null_only && !model_.InForeignContent()) {
      model_.NullText();
    } else {
      whitespace_only = whitespace_only && !null_only;
      if (!whitespace_only && model_.WouldFosterParent(nullptr)) listener_.Reordered();
      model_.Text(whitespace_only);
    }
    // A frameset document drops text (but whitespace, which is no text to a crawler).
    if (!model_.InFrameset()) {
      listener_.Text(begin, end, mode, model_.InHead(), model_.InForeignContent());
    }
  }

  // Handles the markup starting at in_[lt] == '<'; returns where scanning resumes.
  size_t Markup(size_t lt) {
    const size_t n = in_.size();
    if (lt + 1 >= n) {
      Text(lt, n);
      return n;
    }
    const char c = in_[lt + 1];
    if (c == '!') {
      if (in_.compare(lt, 4, "<!--") == 0) {
        const size_t end = SkipComment(lt + 4);
        Defang(lt + 4, end);
        return end;
      }
      if (!seen_content_ && StartsWithIgnoreCase(in_.substr(lt + 2), "doctype")) {
        const size_t end = SkipPast('>', lt + 2);
        Doctype(in_.substr(lt + 9, end - (lt + 9)));
        seen_content_ = true;
        return end;
      }
      if (model_.CurrentNodeIsForeign() && in_.compare(lt, 9, "<![CDATA[") == 0) {
        const size_t close = in_.find("]]>", lt + 9);
        const size_t end = close == std::string_view::npos ? n : close;
        Defang(lt + 9, end);
        if (end > lt + 9) listener_.Cdata(lt + 9, end);
        return close == std::string_view::npos ? n : close + 3;
      }
      return SkipPast('>', lt + 2);
    }
    if (c == '?') return SkipPast('>', lt + 2);
    if (c == '/') {
      if (lt + 2 >= n) {
        Text(lt, n, TextMode::kRcdata);  // "</" at the end of the input is text
        return n;
      }
      if (IsAlpha(in_[lt + 2])) return Tag(lt, /*end_tag=*/true);
      return SkipPast('>', lt + 2);  // "</>" and bogus comments
    }
    if (IsAlpha(c)) return Tag(lt, /*end_tag=*/false);
    Text(lt, lt + 1);
    return lt + 1;
  }

  // A DOCTYPE first in the document, `rest` after "<!DOCTYPE" (up to and with its '>'): sets
  // the quirks mode, as far as the model needs it.
  void Doctype(std::string_view rest) {
    rest = TrimAsciiWhitespace(rest.substr(0, rest.find('>')));
    if (!EqualsIgnoreCase(rest.substr(0, 4), "html")) return;  // quirks (the default)
    model_.SetQuirks(TrimAsciiWhitespace(rest.substr(4)).empty() ? TreeModel::Quirks::kNo
                                                                 : TreeModel::Quirks::kUnsure);
  }

  size_t SkipPast(char c, size_t from) const {
    const size_t at = in_.find(c, from);
    return at == std::string_view::npos ? in_.size() : at + 1;
  }

  // `from` is just after "<!--".
  size_t SkipComment(size_t from) const {
    if (in_.compare(from, 1, ">") == 0) return from + 1;   // <!-->
    if (in_.compare(from, 2, "->") == 0) return from + 2;  // <!--->
    const size_t a = in_.find("-->", from);
    const size_t b = in_.find("--!>", from);
    if (a == std::string_view::npos && b == std::string_view::npos) return in_.size();
    return a <= b ? a + 3 : b + 4;
  }

  // Reads attributes from `p` (just after the tag name) to the end of the tag, dropping those
  // past the limit; the kept ones go to attributes_. A tag cut by the end of the input is
  // discarded by the tokenizer, but only after it has read (and compared) all its attributes,
  // so the excess goes all the same.
  Attributes ReadAttributes(size_t p) {
    const size_t n = in_.size();
    Attributes a;
    attributes_.clear();
    size_t drop_from = std::string_view::npos;
    size_t tag_close = std::string_view::npos;
    auto cut_by_end_of_input = [&] {
      if (drop_from != std::string_view::npos) {
        listener_.DroppedAttributes(drop_from, n, a.count - limits_.max_attributes);
        report_.dropped_attributes += a.count - limits_.max_attributes;
      }
      a.end = std::string_view::npos;
      return a;
    };
    bool seen_encoding = false;
    while (tag_close == std::string_view::npos) {
      while (p < n && IsWhitespace(in_[p])) ++p;
      if (p >= n) return cut_by_end_of_input();
      if (in_[p] == '>') {
        tag_close = p;
        break;
      }
      if (in_[p] == '/') {
        if (p + 1 < n && in_[p + 1] == '>') {
          a.self_closing = true;
          tag_close = p++;
          break;
        }
        ++p;
        continue;
      }
      if (++a.count == limits_.max_attributes + 1) drop_from = p;
      // Name: the first character may be '=', the rest ends at whitespace, '/', '>' or '='.
      const size_t name_begin = p;
      uint32_t h = Fnv1a(kFnvBasis, Lower(in_[p++]));
      while (p < n && !IsWhitespace(in_[p]) && in_[p] != '/' && in_[p] != '>' && in_[p] != '=') {
        h = Fnv1a(h, Lower(in_[p++]));
      }
      const std::string_view name = in_.substr(name_begin, p - name_begin);
      std::string_view value;
      size_t q = p;
      while (q < n && IsWhitespace(in_[q])) ++q;
      if (q < n && in_[q] == '=') {
        p = q + 1;
        while (p < n && IsWhitespace(in_[p])) ++p;
        if (p >= n) return cut_by_end_of_input();
        h = Fnv1a(h, '=');
        if (in_[p] == '"' || in_[p] == '\'') {
          const size_t close = in_.find(in_[p], p + 1);
          if (close == std::string_view::npos) return cut_by_end_of_input();
          for (size_t i = p + 1; i < close; ++i) h = Fnv1a(h, static_cast<unsigned char>(in_[i]));
          value = in_.substr(p + 1, close - p - 1);
          p = close + 1;
        } else {
          const size_t value_begin = p;
          while (p < n && !IsWhitespace(in_[p]) && in_[p] != '>') {
            h = Fnv1a(h, static_cast<unsigned char>(in_[p++]));
          }
          value = in_.substr(value_begin, p - value_begin);
        }
      } else {
        p = q;
      }
      NoteEncoding(name, value, seen_encoding, a);
      a.font_attributes = a.font_attributes || EqualsIgnoreCase(name, "color") ||
                          EqualsIgnoreCase(name, "face") || EqualsIgnoreCase(name, "size");
      // A sum of mixed per-attribute hashes does not depend on attribute order.
      a.hash += h * 0x9E3779B1u;
      if (a.count <= limits_.max_attributes) attributes_.push_back(ScannedAttribute{name, value});
    }
    a.end = p + 1;
    if (drop_from != std::string_view::npos) {
      listener_.DroppedAttributes(drop_from, tag_close, a.count - limits_.max_attributes);
      report_.dropped_attributes += a.count - limits_.max_attributes;
    }
    return a;
  }

  size_t Tag(size_t lt, bool end_tag) {
    const size_t n = in_.size();
    seen_content_ = true;
    size_t p = lt + (end_tag ? 2 : 1);
    char name[kMaxKnownTagName];
    size_t len = 0;
    uint32_t name_hash = kFnvBasis;
    while (p < n && !IsWhitespace(in_[p]) && in_[p] != '/' && in_[p] != '>') {
      const unsigned char c = Lower(in_[p++]);
      name_hash = Fnv1a(name_hash, c);
      if (len < kMaxKnownTagName) name[len] = static_cast<char>(c);
      ++len;
    }
    const Attributes attributes = ReadAttributes(p);
    if (attributes.end == std::string_view::npos) return n;  // EOF in a tag: discarded
    TagToken token;
    token.tag = len <= kMaxKnownTagName ? gumbo_tagn_enum(name, static_cast<unsigned>(len))
                                        : GUMBO_TAG_UNKNOWN;
    token.name_hash = name_hash;
    token.attr_hash = attributes.hash;
    token.self_closing = attributes.self_closing;
    token.html_encoding = attributes.html_encoding;
    token.font_attributes = attributes.font_attributes;
    ScannedTag scanned;
    scanned.tag = token.tag;
    scanned.end_tag = end_tag;
    scanned.self_closing = attributes.self_closing;
    scanned.attributes = &attributes_;
    if (end_tag) {
      if (model_.WouldFosterParent(nullptr) &&
          (token.tag == GUMBO_TAG_P || token.tag == GUMBO_TAG_BR)) {
        listener_.Reordered();  // they insert an element, which is foster-parented
      }
      // In foreign content </p> and </br> break out to the HTML rules (HTML 13.2.6.5), where
      // they may insert an element; Gumbo 0.10 does not always agree with the model there.
      if (model_.CurrentNodeIsForeign() &&
          (token.tag == GUMBO_TAG_P || token.tag == GUMBO_TAG_BR)) {
        listener_.Unmodelled();
      }
      model_.EndTag(token);
      listener_.EndTag(scanned, model_.insertion());
      return attributes.end;
    }
    token.user = listener_.StartTagData(scanned);
    const bool in_foreign = model_.CurrentNodeIsForeign();
    if (model_.WouldFosterParent(&token)) listener_.Reordered();
    const StartResult result = token.tag == GUMBO_TAG_ANNOTATION_XML && attributes.unsure_encoding
                                   ? StartResult::kDrop
                                   : model_.StartTag(token);
    const Insertion insertion =
        result == StartResult::kDrop ? Insertion::kDropped : model_.insertion();
    if (in_foreign && insertion == Insertion::kHtml) listener_.Unmodelled();
    listener_.StartTag(scanned, insertion);
    if (result == StartResult::kKeep && IsRawText(token.tag) && token.tag != GUMBO_TAG_PLAINTEXT) {
      // A raw text element the model says the parser will not read as raw text (foreign
      // content, ignored in a select or a frameset). Should the model be wrong, its content
      // must not turn into markup the model never saw.
      const size_t end = RawTextEnd(attributes.end, std::string_view(name, len));
      const bool escapable = token.tag == GUMBO_TAG_TITLE || token.tag == GUMBO_TAG_TEXTAREA;
      Defang(attributes.end, end, escapable);
      // To the parser (if the model is right) this is text now; the end tag comes next.
      if (end > attributes.end) {
        Text(attributes.end, end, escapable ? TextMode::kRcdata : TextMode::kData);
      }
      return end;
    }
    switch (result) {
      case StartResult::kDrop:
        // The whole tag goes; attribute drops inside it are subsumed.
        listener_.DroppedTag(lt, attributes.end);
        ++report_.dropped_start_tags;
        return attributes.end;
      case StartResult::kKeep:
        return attributes.end;
      case StartResult::kPlaintext:
        Defang(attributes.end, n);
        listener_.RawText(token.tag, attributes.end, n);
        return n;
      case StartResult::kRawText:
        // <title> and <textarea> (RCDATA) decode character references: "&lt;" keeps their
        // text as it was.
        return SkipRawText(token.tag, attributes.end, std::string_view(name, len),
                           token.tag == GUMBO_TAG_TITLE || token.tag == GUMBO_TAG_TEXTAREA);
    }
    return attributes.end;
  }

  // Where raw text that starts at `from` ends: the "</name" of the first appropriate end tag,
  // or the end of the input.
  size_t RawTextEnd(size_t from, std::string_view name) const {
    const size_t n = in_.size();
    for (size_t p = from;;) {
      const size_t lt = in_.find("</", p);
      if (lt == std::string_view::npos) return n;
      const size_t after_name = lt + 2 + name.size();
      if (after_name < n && EqualsIgnoreCase(in_.substr(lt + 2, name.size()), name) &&
          (IsWhitespace(in_[after_name]) || in_[after_name] == '/' || in_[after_name] == '>')) {
        return lt;
      }
      p = lt + 2;
    }
  }

  // Skips raw text up to and including the matching end tag, defanging it on the way.
  size_t SkipRawText(GumboTag tag, size_t from, std::string_view name, bool escapable) {
    const size_t end = RawTextEnd(from, name);
    Defang(from, end, escapable);
    listener_.RawText(tag, from, end);
    if (end == in_.size()) return end;
    const size_t close = ReadAttributes(end + 2 + name.size()).end;
    attributes_.clear();
    return close == std::string_view::npos ? in_.size() : close;
  }

  // Text the model skips (raw text, comments, CDATA) must never be markup to the parser, even
  // where the model misjudges the parser's state: every '<' that could open a tag, a comment
  // or an end tag there is reported (LimitNesting makes it "&lt;" where references are
  // decoded, `escapable`, else a space). Where the model is right, that changes only script
  // and style source, comments, and "<x"-like text in <xmp>.
  void Defang(size_t begin, size_t end, bool escapable = false) {
    for (size_t i = in_.find('<', begin); i < end && i != std::string_view::npos;
         i = in_.find('<', i + 1)) {
      if (!CouldOpenMarkup(in_, i)) continue;
      ++report_.defanged;
      listener_.Defanged(i, escapable);
    }
  }

  const std::string_view in_;
  const NestingLimits limits_;
  ScanListener& listener_;
  TreeModel model_;
  std::vector<ScannedAttribute> attributes_;  // of the current tag
  bool seen_content_ = false;  // a token other than whitespace, comments and a DOCTYPE
  ScanReport report_;
};

}  // namespace

ScanReport ScanHtml(std::string_view html, const NestingLimits& limits, ScanListener& listener) {
  return Scanner(html, limits, listener).Run();
}

}  // namespace crawler::html::internal
