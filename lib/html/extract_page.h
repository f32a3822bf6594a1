// ExtractPage: the links, visible text and metadata of one HTML page, as a crawler needs them.
//
// The body is decoded to UTF-8 (charset.h: BOM, Content-Type charset, <meta> prescan, default),
// bounded (nesting_limiter.h, gumbo_tree.h) and parsed as Gumbo parses it, an HTML5 parser that
// follows the HTML Standard's parsing algorithm with scripting disabled — which is what a
// crawler sees: <noscript> content is markup, and its links count. By default no tree is built:
// lib/html's tokenizer with its model of Gumbo's tree builder reads the same links, text and
// metadata in one pass (internal/token_extractor.h, ~10x faster), and hands the pages whose
// tree would not follow the markup's order to Gumbo (ExtractOptions::parser).
//
// Links (link.h), resolved against the document base URL and with the fragment removed:
//   <a href>, <area href>         rel=nofollow marks the link nofollow (HTML 4.6.7.11)
//   <frame src>, <iframe src>
//   <link rel=canonical href>     rel is a set of space-separated, case-insensitive tokens
//   <link rel=alternate href>     but not rel="alternate stylesheet", which is a style sheet
//   <meta http-equiv=refresh content="N; url=...">   (meta_refresh.h)
//   <img src>                     (srcset is not read)
//   script links                  the literal URLs that an element's click and key handlers
//                                 (onclick="location.href='/next'", script_navigation.h) or an
//                                 <a>/<area> javascript: href navigate to; rel=nofollow of an
//                                 <a>/<area> applies. Not those of <html>, <head>, <body> or
//                                 <template>. They come after all other links, each distinct
//                                 target once (internal/page_builder.h: ScriptLinks says why),
//                                 without anchor text, and count against max_links.
// Only HTML elements count (not SVG or MathML ones). Nothing is taken from comments, <script>,
// <style>, <textarea> or <template> contents: the parser makes those text or keeps them out of
// the tree. Character references are decoded by the parser. The base URL is the first
// <base href> in tree order, resolved against the page URL (HTML 4.2.3); if it does not resolve
// to an http(s) URL, or is longer than max_url_bytes, the page URL is used. <meta name=robots>
// with nofollow or none marks every link nofollow; noindex is reported in PageMeta. References to javascript:, mailto:, data: and
// other non-http(s) URLs, invalid URLs, empty attributes, same-document fragments
// (<a href="#top">) and attributes over max_url_bytes are counted in SkippedLinks, not returned.
//
// Visible text: the text of the body, not of <head>, <title>, <script>, <style>, <textarea>,
// <template>, <iframe>/<noembed>/<noframes> fallback, or elements with the hidden attribute;
// whitespace collapsed, block elements and <br> separated by newlines (text_builder.h).
//
// Bounds, all in ExtractOptions: input bytes read, nesting depth and attributes per element
// (before parsing), parser memory (relative to the input size), links, URL length, text, anchor
// text and title lengths. Work is at worst proportional to input size x nesting depth: the
// worst 8 MiB inputs found cost ~2.5 s of CPU with the defaults (development machine; most
// hostile patterns under 1 s), ordinary pages ~0.1 s per MiB with Gumbo and ~0.01 s with the
// tokenizer (bench/html).
//
// Thread-safety: ExtractPage is thread-safe; it keeps no state between calls.
#ifndef CRAWLER_LIB_HTML_EXTRACT_PAGE_H_
#define CRAWLER_LIB_HTML_EXTRACT_PAGE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/html/extracted_page.h"
#include "lib/url/url.h"

namespace crawler::html {

struct ExtractOptions {
  // Bytes of the body that are read; the rest is ignored (ExtractStats::input_truncated).
  // Bounds all other work. 8 MiB holds all but the rarest real pages.
  size_t max_input_bytes = 8 << 20;
  // Links returned; the rest are counted in SkippedLinks::over_limit.
  size_t max_links = 10'000;
  // Longer href/src values are skipped (SkippedLinks::too_long): no server takes them, and
  // they are a cheap way to bloat a frontier. 8 KiB is above every common server limit.
  size_t max_url_bytes = 8 << 10;
  // Whether the page's visible text is collected (ExtractedPage::text; empty when not). A crawl
  // that computes no fingerprints has no use for it. Anchor texts and the title are kept either
  // way.
  bool collect_text = true;
  // Visible text kept, in bytes; 1 MiB is far more than a fingerprint needs.
  size_t max_text_bytes = 1 << 20;
  size_t max_anchor_text_bytes = 256;
  // References that are not followable URLs (javascript:, mailto:, data:, other schemes, invalid)
  // kept verbatim in ExtractedPage::unresolved, at most this many per page, each cut to
  // max_anchor_text_bytes; they are counted in SkippedLinks either way. 0 keeps none: only a
  // crawl that exports them (a focused collection) pays for the copies.
  size_t max_unresolved_kept = 0;
  size_t max_title_bytes = 1024;
  // Elements nested deeper are flattened before parsing (nesting_limiter.h). Parse time grows
  // linearly with it on hostile input.
  size_t max_nesting_depth = 256;
  // Attributes kept per element (nesting_limiter.h).
  size_t max_attributes_per_element = 64;
  // The parser's memory budget is base + per_input_byte * (decoded input size); past it the
  // page fails with kResourceExhausted. Measured on 110,000 real documentation pages: at most
  // 16 bytes per input byte (syntax-highlighted source), typically 5-12. Pages made only of
  // empty elements (<br><br>...) need ~36, and unclosed formatting elements re-opened in
  // every paragraph grow the tree quadratically: those fail.
  size_t parse_memory_base_bytes = 16 << 20;
  size_t parse_memory_per_input_byte = 32;
  // <meta name=...> values whose content is read as robots directives, compared
  // ASCII-case-insensitively. Add the crawler's own product token to honour
  // <meta name="examplebot" content="nofollow">.
  std::vector<std::string> robots_meta_names = {"robots"};
  // How the markup is read. kTokenizer: one pass of lib/html's tokenizer, with its model of the
  // tree builder telling which elements are open (token_extractor.h); no tree is built. Where
  // Gumbo's tree would order content differently from the markup (foster parenting in tables,
  // the adoption agency moving a link or hidden element), or would outgrow its memory budget,
  // the page is parsed again with Gumbo. kGumbo: always Gumbo's tree, the reference the
  // tokenizer is tested against (tests/fuzz/html_diff_fuzzer.cc).
  enum class Parser { kGumbo, kTokenizer };
  Parser parser = Parser::kTokenizer;
};

// Extracts links, text and metadata from `body` (the raw bytes of an HTML response), fetched
// from `page_url`, whose Content-Type header was `content_type` (may be empty).
// Errors: kResourceExhausted when the parser's memory budget is exceeded (hostile markup);
// kInternal when the input trips one of Gumbo's internal assertions (gumbo_tree.h).
// Anything else in the input (bad encoding, broken markup, bad URLs) is decoded, repaired or
// skipped and counted, never an error.
absl::StatusOr<ExtractedPage> ExtractPage(std::string_view body, const url::Url& page_url,
                                          std::string_view content_type,
                                          const ExtractOptions& options = ExtractOptions());

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_EXTRACT_PAGE_H_
