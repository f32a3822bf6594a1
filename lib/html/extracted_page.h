// ExtractedPage: what ExtractPage (extract_page.h) finds in one HTML page — its outgoing links,
// visible text, metadata, and counts of what was skipped or cut and why.
//
// Thread-safety: plain values.
#ifndef CRAWLER_LIB_HTML_EXTRACTED_PAGE_H_
#define CRAWLER_LIB_HTML_EXTRACTED_PAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/html/charset.h"
#include "lib/html/link.h"

namespace crawler::html {

struct PageMeta {
  // The first <title> of the document, whitespace stripped and collapsed (HTML 4.2.2).
  std::string title;
  // <html lang>, else the Content-Language pragma (<meta http-equiv=content-language>);
  // empty if neither says. As written in the page (e.g. "en-GB").
  std::string language;
  // The encoding the body was decoded from, and how it was determined (kDefault: nothing was
  // declared).
  Encoding encoding = Encoding::kUtf8;
  CharsetSource encoding_source = CharsetSource::kDefault;
  // From <meta name=robots> (and the other names in ExtractOptions::robots_meta_names).
  bool noindex = false;
  bool nofollow = false;
  // The document base URL links were resolved against: the first <base href> resolved against
  // the page URL, or the page URL itself (HTML 2.4.1 "document base URL").
  std::string base_url;
};

// References that were found but not returned as links, by reason.
struct SkippedLinks {
  uint64_t javascript = 0;     // javascript: URLs
  uint64_t mailto = 0;         // mailto: URLs
  uint64_t data = 0;           // data: URLs
  uint64_t other_scheme = 0;   // tel:, ftp:, file:, ... (anything but http/https)
  uint64_t invalid = 0;        // not a URL per the URL Standard
  uint64_t empty = 0;          // empty or whitespace-only attribute
  uint64_t too_long = 0;       // attribute longer than ExtractOptions::max_url_bytes
  uint64_t same_document = 0;  // <a href="#section">: a fragment of this very page
  uint64_t over_limit = 0;     // any reference after ExtractOptions::max_links were found

  uint64_t total() const {
    return javascript + mailto + data + other_scheme + invalid + empty + too_long +
           same_document + over_limit;
  }
};

// What the bounds did to this page; all zero/false for an ordinary page.
struct ExtractStats {
  bool input_truncated = false;   // only the first max_input_bytes were read
  bool text_truncated = false;    // visible text reached max_text_bytes
  uint64_t start_tags_dropped = 0;  // removed for nesting depth (nesting_limiter.h)
  uint64_t attributes_dropped = 0;  // removed for count per element
  // Deepest element of the parsed tree (html = 1); with ExtractOptions::Parser::kTokenizer,
  // of the modelled stack of open elements (nesting_limiter.h), as no tree is built.
  size_t tree_depth = 0;
  size_t parse_memory_bytes = 0;  // Gumbo's peak live memory; 0 if no tree was built
};

// A reference that is not a followable URL, as written (ExtractOptions::max_unresolved_kept).
struct UnresolvedRef {
  // "javascript", "mailto", "data", "other_scheme" or "invalid" (the SkippedLinks field).
  std::string reason;
  std::string value;  // trimmed, cut to ExtractOptions::max_anchor_text_bytes

  friend bool operator==(const UnresolvedRef&, const UnresolvedRef&) = default;
};

struct ExtractedPage {
  // In document order; duplicates are kept (each occurrence has its own anchor text).
  std::vector<Link> links;
  // Visible text: see ExtractPage for what counts. Empty unless ExtractOptions::collect_text.
  std::string text;
  // The visible text outside page furniture (navigation, site header and footer, ads,
  // bylines...: the rules are in internal/boilerplate.h), normalised as `text` is; what the
  // change digest reads. Empty unless ExtractOptions::collect_text, or when everything visible
  // is furniture.
  std::string main_text;
  PageMeta meta;
  SkippedLinks skipped;
  // The first ExtractOptions::max_unresolved_kept of the javascript, mailto, data, other_scheme
  // and invalid references, in document order.
  std::vector<UnresolvedRef> unresolved;
  ExtractStats stats;
};

}  // namespace crawler::html

#endif  // CRAWLER_LIB_HTML_EXTRACTED_PAGE_H_
