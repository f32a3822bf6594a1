// PageBuilder: what both of ExtractPage's parsers (extract_page.h) share once they have found
// something — resolving link references into Links and counting the skipped ones, gathering
// script links, the document-wide facts (base URL, robots and language metadata, title) and
// their rules.
//
// Thread-safety: not thread-safe; one builder per extraction.
#ifndef CRAWLER_LIB_HTML_INTERNAL_PAGE_BUILDER_H_
#define CRAWLER_LIB_HTML_INTERNAL_PAGE_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/html/extract_page.h"
#include "lib/html/extracted_page.h"
#include "lib/html/robots_meta.h"
#include "lib/url/url.h"

namespace crawler::html::internal {

inline constexpr size_t kNoLink = static_cast<size_t>(-1);

// True if the space-separated token list `tokens` contains `token` (ASCII case-insensitive).
bool HasToken(std::string_view tokens, std::string_view token);

// HTML 4.2.5.3, Content-Language state: the pragma-set default language.
std::string PragmaLanguage(std::string_view content);

// The document-wide facts links depend on. Attribute values are decoded.
struct DocumentFacts {
  std::optional<std::string> base_href;  // first <base href>
  std::optional<std::string> html_lang;  // lang of the root <html>
  std::optional<std::string> content_language;  // first Content-Language pragma
  RobotsMeta robots;
};

// <meta name=... content=...>: folds the robots directives of a name in
// options.robots_meta_names into `facts`, and the first Content-Language pragma.
void NoteMeta(std::optional<std::string_view> name, std::optional<std::string_view> http_equiv,
              std::optional<std::string_view> content, const ExtractOptions& options,
              DocumentFacts& facts);

// Writes the facts to page.meta: robots, language, and the base URL (the first <base href>
// resolved against the page URL if usable, HTML 4.2.3; else the page URL), which it returns.
url::Url ApplyFacts(const DocumentFacts& facts, const url::Url& page_url,
                    const ExtractOptions& options, ExtractedPage& page);

// Resolves link references against the base URL and appends them to page.links, counting the
// skipped ones in page.skipped. page.meta.nofollow must be final.
class LinkResolver {
 public:
  LinkResolver(const url::Url& page_url, const url::Url& base, const ExtractOptions& options,
               ExtractedPage& page)
      : page_url_(page_url), base_(base), options_(options), page_(page) {}

  // Returns the index of the new link in page.links, or kNoLink if it was skipped.
  size_t Add(LinkKind kind, std::string_view value, bool rel_nofollow);

  // References dropped before they reached Add, for the cap on links.
  void CountOverLimit(uint64_t count) { page_.skipped.over_limit += count; }

 private:
  const url::Url& page_url_;
  const url::Url& base_;
  const ExtractOptions& options_;
  ExtractedPage& page_;
};

// The script links of a page (kScript, script_navigation.h): the targets of its elements'
// navigation handlers and of its javascript: hrefs, gathered while a parser walks the page and
// appended to page.links after every other link, each distinct target once, in the order its
// first occurrence was met, nofollow only if every occurrence was.
//
// Why after the other links and once each, rather than next to their element: the tree builder
// clones formatting elements (<a>, <b>, <font>, ...) with all their attributes when it re-opens
// them, so Gumbo's tree holds an element's handler once per clone, while the tokenizer sees its
// start tag once and learns of clones only as pushes. A clone repeats its original's targets and
// never comes before it, and where the tokenizer extractor keeps a page (token_extractor.h) the
// elements are in token order in the tree too; so the distinct targets in order of first
// occurrence, and the nofollow of each, are the same in both parsers whatever was cloned.
//
// Bounds: each handler's code is read up to kMaxScriptCodeBytes; at most `max_targets` distinct
// targets are kept (ExtractOptions::max_links: more could not be returned), the other distinct
// targets are counted in SkippedLinks::over_limit (by hash, which both parsers compute alike).
class ScriptLinks {
 public:
  explicit ScriptLinks(size_t max_targets) : max_targets_(max_targets) {}

  // The code of one handler attribute of an element; `rel_nofollow`: the element is an <a> or
  // <area> with rel=nofollow.
  void AddHandler(std::string_view code, bool rel_nofollow);
  // The href of an <a> or <area>: its script if it is a javascript: URL.
  void AddHref(std::string_view href, bool rel_nofollow);

  // Resolves the targets into page.links through `links`, after all other links were added.
  void ResolveInto(LinkResolver& links);

 private:
  struct Target {
    std::string value;
    bool rel_nofollow;
  };

  const size_t max_targets_;
  std::vector<Target> targets_;
  absl::flat_hash_map<std::string, size_t> index_;  // value -> index into targets_
  absl::flat_hash_set<size_t> over_limit_;          // hashes of the targets not kept
};

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_PAGE_BUILDER_H_
