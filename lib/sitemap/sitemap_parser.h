// SitemapParser: a push-style, streaming, bounded parser for the three sitemap formats of the
// sitemaps.org protocol (https://www.sitemaps.org/protocol.html):
//   - XML <urlset> (section "XML tag definitions") and <sitemapindex> ("Using Sitemap index
//     files"), in the sitemaps.org namespace or in no namespace;
//   - text sitemaps ("Other Sitemap formats", "Text file"): one URL per line, UTF-8;
//   - either of them gzip-compressed ("You can compress your Sitemap files using gzip").
//
// Bytes arrive through Feed() in chunks of any size and entries leave through the callback as
// soon as each is complete, so a caller never holds the whole body. Format detection looks at
// content, never at names or headers: gzip by its magic bytes 1f 8b; then, after an optional
// byte-order mark and whitespace, '<' means XML and anything else means text.
//
// Bounds (section "Using Sitemap index files": at most 50,000 URLs, or 50,000 sitemaps in an
// index, and 50MB (52,428,800 bytes) uncompressed per file) come from SitemapOptions.
// Exceeding either stops the parse with kResourceExhausted; entries delivered before that
// stand. gzip input is inflated through a fixed 64 KiB window and counted as it comes out, so a
// gzip bomb costs at most one window beyond the cap, never an allocation of its inflated size.
// Every buffered text (a loc, a line, a field) is capped, so memory does not grow with the
// input beyond what expat needs to hold one token. XML nesting deeper than 256 elements stops
// the parse with kResourceExhausted (expat's per-element state would otherwise cost ~20x the
// input). Bytes are held back from expat while it waits for the end of a long token, so its
// rescanning of unfinished tokens (expat < 2.6, CVE-2023-52425) stays linear in total.
//
// Errors are sticky: after the first non-OK status, Feed() and Finish() return it again and
// deliver nothing more. Malformed XML and malformed gzip give kInvalidArgument; the entries
// delivered up to the error stand. Bad entries (no loc, over-long loc, an invalid line of a text
// sitemap) and bad optional fields (lastmod, changefreq, priority) are skipped and counted in
// SitemapStats, not errors.
//
// XML details: expat with namespace processing, so prefixed extension elements (image:, news:,
// video:, xhtml:link, ...) and anything in a foreign namespace are skipped with their subtrees.
// Besides the official namespace, the https:// spelling and Google's 0.84 namespace are accepted
// because real sitemaps use them. An undeclared prefix is a namespace error in expat and so ends
// the parse with kInvalidArgument. Entity declarations are refused (kInvalidArgument): sitemaps
// need none, and refusing them closes the door on entity-expansion attacks; external entities
// are never loaded. The root element must be <urlset> or <sitemapindex>; <url> inside a
// sitemap index or <sitemap> inside a urlset is skipped and counted.
//
// Thread-safety: a SitemapParser is used by one thread at a time. Movable, not copyable.
#ifndef CRAWLER_LIB_SITEMAP_SITEMAP_PARSER_H_
#define CRAWLER_LIB_SITEMAP_SITEMAP_PARSER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "lib/sitemap/sitemap_entry.h"

namespace crawler::sitemap {

enum class SitemapKind {
  kUnknown,       // not decided yet (too few bytes seen), or the root element was wrong
  kUrlset,        // XML <urlset>: entries are pages
  kSitemapIndex,  // XML <sitemapindex>: entries are child sitemaps (is_sitemap == true)
  kText,          // one URL per line; also an empty or all-whitespace body
};

// "unknown", "urlset", "sitemapindex", "text".
std::string_view SitemapKindName(SitemapKind kind);

// Negative values count as 0.
struct SitemapOptions {
  // Entries delivered before the parse stops with kResourceExhausted. The protocol's limit is
  // 50,000 URLs per sitemap and 50,000 sitemaps per index. Skipped entries do not count.
  int64_t max_urls = 50'000;
  // Uncompressed bytes read before the parse stops with kResourceExhausted: the protocol's
  // "50MB (52,428,800 bytes)". For gzip input this counts inflated bytes, which is what the
  // protocol limits and what defuses gzip bombs.
  int64_t max_uncompressed_bytes = 52'428'800;
  // Longest loc (bytes, after trimming) delivered; longer ones are skipped and counted. The
  // protocol says a loc "must be less than 2,048 characters".
  int64_t max_loc_bytes = 2'047;
};

// Counters for callers that report or export them.
struct SitemapStats {
  int64_t entries = 0;             // delivered to the callback
  int64_t skipped_entries = 0;     // <url>/<sitemap> without a usable <loc>, or in the wrong kind
                                   // of document; text lines that are over-long or not UTF-8
  int64_t invalid_fields = 0;      // lastmod/changefreq/priority unusable, or a repeated field
  int64_t uncompressed_bytes = 0;  // bytes of sitemap text consumed (after gunzip)
  bool gzip = false;               // the input was gzip-compressed
  bool truncated = false;          // a limit of SitemapOptions stopped the parse
};

class SitemapParser {
 public:
  // Receives each entry as soon as it is complete; may be empty (entries are then only counted).
  // REQUIRES: does not call back into the parser.
  using EntryCallback = absl::AnyInvocable<void(SitemapEntry)>;

  SitemapParser(SitemapOptions options, EntryCallback on_entry);
  ~SitemapParser();
  // A moved-from parser may only be destroyed or assigned to.
  SitemapParser(SitemapParser&&) noexcept;
  SitemapParser& operator=(SitemapParser&&) noexcept;
  SitemapParser(const SitemapParser&) = delete;
  SitemapParser& operator=(const SitemapParser&) = delete;

  // Consumes the next bytes of the body. OK means "no error so far"; entries may or may not have
  // been delivered. kFailedPrecondition after Finish().
  absl::Status Feed(std::string_view chunk);
  // Declares the end of the body and flushes the last entry. Non-OK if the body was truncated
  // (unclosed XML, incomplete gzip stream) or any earlier error occurred. Call once.
  absl::Status Finish();

  // What the body turned out to be; kUnknown until enough bytes were seen.
  SitemapKind kind() const;
  const SitemapStats& stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawler::sitemap

#endif  // CRAWLER_LIB_SITEMAP_SITEMAP_PARSER_H_
