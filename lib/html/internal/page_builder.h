// PageBuilder: what both of ExtractPage's parsers (extract_page.h) share once they have found
// something — resolving link references into Links and counting the skipped ones, the
// document-wide facts (base URL, robots and language metadata, title) and their rules.
//
// Thread-safety: not thread-safe; one builder per extraction.
#ifndef CRAWLER_LIB_HTML_INTERNAL_PAGE_BUILDER_H_
#define CRAWLER_LIB_HTML_INTERNAL_PAGE_BUILDER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

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

 private:
  const url::Url& page_url_;
  const url::Url& base_;
  const ExtractOptions& options_;
  ExtractedPage& page_;
};

}  // namespace crawler::html::internal

#endif  // CRAWLER_LIB_HTML_INTERNAL_PAGE_BUILDER_H_
