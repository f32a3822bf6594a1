// Character references (HTML 13.2.5.72 onwards): decoding them in text and attribute values the
// way the HTML tokenizer does, for the tokenizer extractor (token_extractor.h), together with
// what Gumbo 0.10's input stream does to the characters themselves: CR and CR LF become LF, and
// code points the Standard calls parse errors in the input stream (13.2.3.5: controls other
// than ASCII whitespace, noncharacters) become U+FFFD.
//
// Named references match the longest name in the Standard's table (named_char_refs.inc),
// with or without ';' where the table has both forms; in an attribute value, a match without
// ';' followed by '=' or an alphanumeric is left as written (13.2.5.73). Numeric references
// follow 13.2.5.80: 0, surrogates and values past U+10FFFF become U+FFFD, 0x80-0x9F are read
// as windows-1252. U+0000 in the input is dropped in text (the tree builder ignores it "in
// body") and becomes U+FFFD in attribute values and RCDATA.
//
// Thread-safety: pure functions.
#ifndef CRAWLER_LIB_HTML_INTERNAL_CHAR_REFS_H_
#define CRAWLER_LIB_HTML_INTERNAL_CHAR_REFS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace crawler::html::internal {

enum class RefContext {
  kText,       // text: references decoded, U+0000 dropped
  kRcdata,     // RCDATA (<title>, <textarea>): references decoded
  kAttribute,  // attribute values: references decoded but the historical exception
  kRaw,        // raw text, CDATA: no references
};

// False only if AppendDecoded would append `raw` unchanged: no '&', U+0000, CR or code point
// that becomes U+FFFD. Fast: ordinary text is scanned with a table lookup per byte.
bool NeedsDecoding(std::string_view raw);

// Appends `raw` (well-formed UTF-8) to `out` as the parser reads it in `context`.
void AppendDecoded(std::string_view raw, RefContext context, std::string& out);

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_CHAR_REFS_H_
