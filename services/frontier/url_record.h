// UrlRecord: what the frontier knows about one URL it has seen: where it stands (queued, waiting
// for a retry or re-visit, done), its place in its host's queue, and the last fetch outcome with
// the validators and fingerprint a conditional re-fetch and change detection need.
//
// The record is stored in the frontier's "frontier.urls" column family (encoding in
// services/frontier/storage_format.h, layout in docs/storage-format.md) and returned by
// Frontier::LookupUrl ("why is this URL in this state").
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_FRONTIER_URL_RECORD_H_
#define CRAWLER_SERVICES_FRONTIER_URL_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace crawler::frontier {

// How a fetch attempt ended, as the fetcher classifies it. Values are stored on disk: never
// renumber, only append.
enum class OutcomeClass : uint8_t {
  kFetched = 1,       // 2xx with a body
  kNotModified = 2,   // 304 to a conditional GET
  kRedirect = 3,      // 3xx; the target goes through AddUrls as a new URL
  kHttpError = 4,     // 4xx/5xx
  kNetworkError = 5,  // DNS, connect, TLS, timeout, reset: no HTTP response
  kRobotsDenied = 6,  // robots.txt disallows it; no request made
  kDuplicate = 7,     // fetched, but the content duplicates another page
  kOutOfScope = 8,    // dropped before the request (e.g. SSRF guard, scope rule)
};
inline constexpr uint8_t kMaxOutcomeClass = 8;

// Stable lowercase name ("not_modified"), for logs and metric labels.
std::string_view OutcomeClassName(OutcomeClass outcome);

// True for outcomes in which the host answered a request: those count towards the page limits
// (FrontierOptions::max_pages_total / max_pages_per_host).
bool CountsAsPage(OutcomeClass outcome);

// Where a URL stands. Stored on disk: never renumber.
enum class UrlStatus : uint8_t {
  // In its host's queue, or leased to a fetcher (the leases column family says which).
  kQueued = 1,
  // In the due index until next_visit: a retry after a transient failure (later: a re-visit).
  kWaiting = 2,
  // A final outcome is recorded and nothing is scheduled.
  kDone = 3,
  // Taken out of its queue or the due index by the operator (Frontier::DropHostQueue): never
  // fetched again, and still in the seen-set, so a later link does not queue it again.
  kDropped = 4,
};
std::string_view UrlStatusName(UrlStatus status);

// A URL that names a sitemap (sitemaps.org) is fetched and read for the pages it lists rather
// than kept as a page. Its level: 1 for a sitemap found in robots.txt, at /sitemap.xml or given
// as a seed; n + 1 for one listed by a sitemap index read at level n. 0: a page. The level
// bounds the nesting of index files (the protocol allows none; some sites nest once).
inline constexpr uint8_t kMaxSitemapLevel = 3;

// What a sitemap's <url> entry said of a page (sitemaps.org, "XML tag definitions"). Only
// lastmod is evidence the re-visit policy uses (docs/recrawl.md, "Sitemaps"): the site's claim
// of when the page last changed, read as Last-Modified is. changefreq and priority are kept
// for explanations only: a site's own guess of how often a page changes is never set against
// measured changes.
struct SitemapHints {
  // <lastmod>; InfinitePast: none given.
  absl::Time lastmod = absl::InfinitePast();
  // <changefreq> as 1 + sitemap::ChangeFreq (1 "always" ... 7 "never"); 0: none given.
  uint8_t changefreq = 0;
  // <priority> in thousandths, [0, 1000]; -1: none given.
  int16_t priority_permille = -1;

  bool empty() const {
    return lastmod == absl::InfinitePast() && changefreq == 0 && priority_permille < 0;
  }
  friend bool operator==(const SitemapHints&, const SitemapHints&) = default;
};

struct UrlRecord {
  UrlStatus status = UrlStatus::kQueued;

  // Position in the host's queue: host number, then (255 - priority), depth and the host's
  // insertion sequence number. A URL always returns to this position when re-queued.
  uint64_t host_id = 0;
  uint8_t priority = 0;
  uint32_t depth = 0;
  uint64_t seq = 0;

  // Failed attempts (outcomes with retry) since the last final outcome.
  uint32_t attempts = 0;
  // Final outcomes recorded so far.
  uint32_t fetch_count = 0;
  absl::Time first_seen = absl::InfinitePast();
  // The page the URL was first found on; empty for seeds or when unknown.
  std::string discovered_from;

  // The last outcome (final or retried); nullopt before the first one.
  std::optional<OutcomeClass> last_outcome;
  int http_status = 0;
  absl::Time fetch_time = absl::InfinitePast();
  // Validators of the last 200 response, kept across 304s: they make the next fetch conditional.
  std::string etag;
  std::string last_modified;
  // SimHash (or other 64-bit fingerprint) of the last fetched content; 0 when unknown.
  uint64_t content_fingerprint = 0;
  uint64_t content_length = 0;

  // When status is kWaiting: the time the URL becomes due again. InfinitePast otherwise.
  absl::Time next_visit = absl::InfinitePast();
  // Visit history kept by the re-visit policy (opaque here; bounded by its writer).
  std::string visit_history;
  // Change digest (lib/fingerprint/change_digest.h) of the last fetched content's main text;
  // 0 when unknown (not HTML, no main content, or stored before digests were recorded).
  uint64_t change_digest = 0;

  // A sitemap, at this level (kMaxSitemapLevel); 0 for a page.
  uint8_t sitemap_level = 0;
  // What the newest sitemap that listed the URL said of it.
  SitemapHints sitemap;
  // Re-visits brought forward because a sitemap's lastmod was newer than the last visit, and
  // how many of them found the content changed: a site whose lastmod keeps claiming changes
  // that visits do not find loses the right to bring visits forward (measured evidence wins).
  uint32_t lastmod_pulls = 0;
  uint32_t lastmod_pulls_changed = 0;
  // The URL's current wait was brought forward by a lastmod (counted at its next visit).
  bool lastmod_pulled = false;

  friend bool operator==(const UrlRecord&, const UrlRecord&) = default;
};

// Whether the URL's sitemap lastmod is believed, as evidence of a change (docs/recrawl.md,
// "Sitemaps"): until a re-visit it brought forward finds the content unchanged, and from then on
// while at least half of those re-visits found a change.
bool LastmodTrusted(const UrlRecord& record);

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_URL_RECORD_H_
