// ExtractWithTokenizer: ExtractPage (extract_page.h) without a tree — links, visible text and
// metadata read from the events of lib/html's tokenizer (html_scanner.h), whose model of the
// tree builder's stack of open elements says which elements the text and links are in.
//
// It produces what the Gumbo path produces for the same input (same links in the same order,
// same anchor text, text, title and metadata): the scanner sees the same tokens Gumbo sees
// after LimitNesting, and the model follows Gumbo 0.10's tree builder. Where Gumbo's tree
// would not follow token order (ScanListener::Reordered: foster parenting, the adoption agency
// moving nodes, a merged <body hidden>), or the tree would come near the parser's memory
// budget, it gives up and the caller parses the page with Gumbo. The two are compared by
// tests/fuzz/html_diff_fuzzer.cc.
//
// Differences that remain (documented, not errors):
//   - ExtractStats::parse_memory_bytes is 0 (no tree), and tree_depth is the modelled stack's
//     deepest point (html = 1), which is where Gumbo's tree depth comes from too.
//
// Thread-safety: pure function of its arguments.
#ifndef CRAWLER_LIB_HTML_INTERNAL_TOKEN_EXTRACTOR_H_
#define CRAWLER_LIB_HTML_INTERNAL_TOKEN_EXTRACTOR_H_

#include <string_view>

#include "lib/html/extract_page.h"
#include "lib/html/extracted_page.h"
#include "lib/url/url.h"

namespace crawler::html::internal {

// Fills page.links, text, skipped, meta (but encoding) and stats (but input_truncated) from
// `html` (UTF-8, as decoded by ExtractPage). Returns false, with `page` partly filled, when the
// page needs Gumbo (see above); the caller must then start over from `html` with a page whose
// extraction fields are untouched (ExtractPage keeps a copy of the fields it set).
bool ExtractWithTokenizer(std::string_view html, const url::Url& page_url,
                          const ExtractOptions& options, ExtractedPage& page);

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_TOKEN_EXTRACTOR_H_
