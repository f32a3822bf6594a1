// ScanHtml: the one HTML tokenizer of lib/html, with a model of Gumbo 0.10's tree builder.
//
// A single pass over UTF-8 markup tokenises it as the HTML tokenizer does (tags, attributes,
// comments, CDATA, raw text and RCDATA) and keeps a model of the tree builder's stack of open
// elements: namespaces, implied end tags, scopes, table and select modes, foreign content, the
// form element pointer and the list of active formatting elements (nesting_limiter.h describes
// the model and its limits). The model decides where the tokenizer reads raw text, and it
// enforces NestingLimits: start tags that would nest too deep are dropped, as are attributes
// past the limit.
//
// Consumers are ScanListeners (one parser, several consumers):
//   - LimitNesting (nesting_limiter.h) turns the drops and defanged '<' into edits of the
//     markup that Gumbo then parses;
//   - the tokenizer extractor (token_extractor.h) reads links, text and metadata straight from
//     the events, with the modelled stack telling which elements are open.
// Both see the same tokens, so the tokenizer extractor reads what Gumbo reads after
// LimitNesting: where the scanner skips text without looking for markup (raw text, comments,
// CDATA, <template>), LimitNesting defangs every '<' that could open markup (CouldOpenMarkup),
// and Gumbo finds no markup there either.
//
// The model does not build a tree, so it cannot follow the tree builder where the tree's order
// differs from the token order: foster parenting (content misplaced in a table goes before the
// table), the adoption agency moving nodes, </form> with elements open inside the form. It
// reports those with ScanListener::Reordered.
//
// Thread-safety: ScanHtml is a pure function of its arguments; listeners are the caller's.
#ifndef CRAWLER_LIB_HTML_INTERNAL_HTML_SCANNER_H_
#define CRAWLER_LIB_HTML_INTERNAL_HTML_SCANNER_H_

#include <gumbo.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lib/encoding/ascii.h"
#include "lib/html/nesting_limiter.h"

namespace crawler::html::internal {

// The namespace of an element.
enum class Ns : uint8_t { kHtml, kSvg, kMathml };

struct ScannedAttribute {
  std::string_view name;   // as written (not lowercased)
  std::string_view value;  // as written: character references not decoded; empty if none
};

struct ScannedTag {
  GumboTag tag = GUMBO_TAG_UNKNOWN;
  bool end_tag = false;
  bool self_closing = false;
  // The attributes kept (the first NestingLimits::max_attributes), in order, duplicates
  // included (the first of a name counts). Valid during the listener call only.
  const std::vector<ScannedAttribute>* attributes = nullptr;
};

// What the tree builder does with a start tag's element.
enum class Insertion : uint8_t {
  kIgnored,  // no element (parse error, or merged into <html>/<body>)
  kHtml,     // an HTML element was inserted (and, if not void, pushed)
  kForeign,  // an SVG or MathML element
  kDropped,  // removed by the limits (NestingLimitReport::dropped_start_tags)
};

// One element of the modelled stack of open elements, as listeners see it.
struct OpenElementInfo {
  GumboTag tag;
  Ns ns;
  uint32_t user;  // ScanListener::StartTagData of the start tag it was made from
};

// How text between markup is to be read.
enum class TextMode : uint8_t {
  kData,       // character references are decoded
  kRcdata,     // RCDATA (<title>, <textarea>): no markup; references decoded
  kRaw,        // no markup, no references (<xmp>, <plaintext>, CDATA)
};

class ScanListener {
 public:
  virtual ~ScanListener() = default;

  // ---- The limits' edits (html[begin, end) offsets into the scanned string). ----
  // The start tag at [begin, end) is removed.
  virtual void DroppedTag(size_t /*begin*/, size_t /*end*/) {}
  // `count` attributes at [begin, end) are removed (begin may be inside a tag later dropped).
  virtual void DroppedAttributes(size_t /*begin*/, size_t /*end*/, size_t /*count*/) {}
  // The '<' at `pos` opens no markup to the scanner, which skips that text (CouldOpenMarkup).
  // `escapable`: references are decoded there (RCDATA), so "&lt;" keeps the text as it was.
  virtual void Defanged(size_t /*pos*/, bool /*escapable*/) {}

  // ---- Tokens, in document order. ----
  // Before the model sees a start tag: the value to attach to its element (OpenElementInfo::
  // user), inherited by the clones the tree builder makes of formatting elements.
  virtual uint32_t StartTagData(const ScannedTag& /*tag*/) { return 0; }
  // After the model has processed the start tag. For raw text elements, the content follows
  // as RawText (or Text if the model says the tree builder reads it as text).
  virtual void StartTag(const ScannedTag& /*tag*/, Insertion /*insertion*/) {}
  // `insertion`: kHtml if the end tag inserted an element (</br> is <br>; </p> without a p to
  // close inserts an empty one), else kIgnored.
  virtual void EndTag(const ScannedTag& /*tag*/, Insertion /*insertion*/) {}
  // Text the tree builder inserts, after the model has processed it: html[begin, end);
  // `in_head`: before the body (the text is the head's); `foreign`: in foreign content (where
  // the tree builder makes U+0000 U+FFFD rather than dropping it). Not called for text a
  // frameset document drops. kData and kRcdata text may contain '<' that CouldOpenMarkup: the
  // content of a raw text element the model says is read as text; LimitNesting has defanged
  // them (Defanged: a space in kData, "&lt;" in kRcdata) for the parser.
  virtual void Text(size_t /*begin*/, size_t /*end*/, TextMode /*mode*/, bool /*in_head*/,
                    bool /*foreign*/) {}
  // The content of a raw text element (script, style, xmp, iframe, noembed, noframes,
  // textarea, title, plaintext, template) that the model says the tokenizer reads as such.
  virtual void RawText(GumboTag /*tag*/, size_t /*begin*/, size_t /*end*/) {}
  // A CDATA section in foreign content: its content is text.
  virtual void Cdata(size_t /*begin*/, size_t /*end*/) {}

  // ---- The modelled stack of open elements. ----
  // `implied`: made by the tree builder (tbody, tr, colgroup) rather than for a start tag;
  // `clone`: a formatting element re-opened by "reconstruct the active formatting elements".
  virtual void Pushed(const OpenElementInfo& /*element*/, bool /*implied*/, bool /*clone*/) {}
  virtual void Popped(const OpenElementInfo& /*element*/) {}
  // The tree builder is about to put nodes where tree order differs from token order (see the
  // header comment). Called once per occurrence.
  virtual void Reordered() {}
  // Markup where the model is known to follow the tree builder less closely than elsewhere
  // (HTML elements inside SVG or MathML, whose breaking out and integration points interact
  // with the formatting elements in ways the model only estimates).
  virtual void Unmodelled() {}

  // Polled between tokens: true stops the scan.
  virtual bool Stop() const { return false; }
};

struct ScanReport {
  uint64_t dropped_start_tags = 0;
  uint64_t dropped_attributes = 0;
  uint64_t defanged = 0;
  size_t max_modelled_depth = 0;
  size_t final_modelled_depth = 0;
};

// Scans `html` (UTF-8), reporting to `listener`.
ScanReport ScanHtml(std::string_view html, const NestingLimits& limits, ScanListener& listener);

// True if the '<' at html[i] could open markup (a tag, end tag, comment or bogus comment): what
// LimitNesting defangs in text the scanner skips.
inline bool CouldOpenMarkup(std::string_view html, size_t i) {
  if (i + 1 >= html.size()) return false;
  const char next = html[i + 1];
  return encoding::IsAsciiAlpha(next) || next == '!' || next == '/' || next == '?';
}

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_HTML_SCANNER_H_
