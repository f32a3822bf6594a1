// RobotsCache: the fetcher's robots.txt knowledge (RFC 9309), one entry per host key: the rules
// in force, until when, and whether they stand for an unreachable file. It turns each robots.txt
// response into a decision (robots::RobotsPolicy: parse, follow a redirect, allow or disallow
// all, keep the last known rules), archives the response exactly as pages are archived (the
// shared path of response_archiver.h: entity body, response + request records, one WriteAll),
// queues the sitemaps it names (or /sitemap.xml) when asked, and answers "may this URL be
// fetched?".
//
// Bounded: at most `max_entries` hosts (expired entries dropped first, then an arbitrary one).
//
// Archive failures: a robots.txt whose records cannot be written is reported in
// RobotsResponse::archive_status, as a page's is in ProcessedPage::archive_status; the fetcher
// stops the crawl on either.
//
// Threading: not thread-safe; the fetcher's network loop owns it. The WARC writer, scope and
// observer it is given are thread-safe and must outlive it.
#ifndef CRAWLER_SERVICES_FETCHER_ROBOTS_CACHE_H_
#define CRAWLER_SERVICES_FETCHER_ROBOTS_CACHE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/robots/robots_policy.h"
#include "lib/robots/robots_rules.h"
#include "lib/scope/scope.h"
#include "lib/url/canonical_url.h"
#include "lib/url/url.h"
#include "lib/warc/warc_writer.h"
#include "services/collections/collection.h"
#include "services/fetcher/fetch_event.h"
#include "services/fetcher/http_transport.h"
#include "services/frontier/frontier_api.h"

namespace crawler::fetcher {

struct RobotsCacheOptions {
  robots::RobotsPolicyOptions policy;
  // The product token matched against User-agent lines (FetcherOptions::robots_agent).
  std::string agent = "crawler";
  // Hosts whose rules are kept (FetcherOptions::max_robots_entries).
  size_t max_entries = 100'000;
  // Which sitemaps to queue (FetcherOptions::sitemap_discovery): the Sitemap: URLs of each
  // robots.txt, and with kRobotsAndWellKnown /sitemap.xml of a host whose robots.txt (parsed, or
  // absent: 4xx) names none. Canonicalized as below, at depth 1, sitemap level 1.
  collections::SitemapDiscovery sitemap_discovery = collections::SitemapDiscovery::kOff;
  url::CanonicalizeOptions canonical;
};

struct RobotsEntry {
  robots::RobotsRules rules;
  absl::Time expires;
  // DisallowAll because robots.txt could not be fetched (5xx, network): the URLs it blocks are
  // retried later rather than given up (RFC 9309 §2.3.1.4: the site is "unreachable").
  bool unavailable = false;
  std::string why;  // for the log lines of the URLs it blocks: "HTTP 503", "connect_failed"
};

// Why a URL may not be fetched, as its completion says it.
struct RobotsDenial {
  std::string detail;  // "Disallow: /x" or "robots.txt unavailable (HTTP 503)"
  // Unreachable file: retry the URL, and lease nothing of the host before `host_not_before`
  // (a retry before robots.txt is fetched again would meet the same verdict).
  bool retry = false;
  absl::Time host_not_before = absl::InfinitePast();
};

// What one robots.txt response led to.
struct RobotsResponse {
  // Set when the response was a redirect to follow: fetch this URL next (same host's politeness)
  // and hand its response here with one more redirect followed. No entry was stored.
  std::optional<std::string> redirect_to;
  // Not OK when its WARC records could not be written.
  absl::Status archive_status;
};

class RobotsCache {
 public:
  // `warc` and `observer` may be null.
  RobotsCache(const RobotsCacheOptions& options, const scope::Scope& scope,
              warc::WarcWriter* warc, const Clock& clock, FetchObserver* observer);

  // The host's entry while it is fresh; null when unknown or expired (fetch robots.txt again).
  const RobotsEntry* Fresh(const std::string& host_key) const;

  // The Crawl-delay for this crawler in the host's rules (fresh or not), if any.
  std::optional<absl::Duration> CrawlDelay(const std::string& host_key) const;

  // Why `entry` forbids `url`, or nullopt when it may be fetched (RFC 9309 §2.2.2).
  std::optional<RobotsDenial> Check(const RobotsEntry& entry, const url::Url& url) const;

  // Takes the response to `url` (the host's /robots.txt, or a redirect hop of it, after
  // `redirects_followed` hops): decides, stores the entry, archives, queues sitemaps into
  // `sitemaps` and tells the observer.
  RobotsResponse OnResponse(const std::string& host_key, const std::string& url,
                            int redirects_followed, const HttpResult& result,
                            std::vector<frontier::UrlToAdd>& sitemaps);

  size_t size() const { return entries_.size(); }

 private:
  // Appends the sitemaps that `robots_url`'s response (decided as `action`, read as `rules`)
  // leads to, per options_.sitemap_discovery.
  void QueueSitemaps(const std::string& robots_url, robots::RobotsAction action,
                     const robots::RobotsRules& rules,
                     std::vector<frontier::UrlToAdd>& sitemaps) const;
  // Writes the response and request records of a robots.txt exchange.
  absl::Status Archive(const std::string& url, const HttpResult& result,
                       const std::string& raw_head);

  const RobotsCacheOptions options_;
  const robots::RobotsPolicy policy_;
  const scope::Scope& scope_;
  warc::WarcWriter* const warc_;
  const Clock& clock_;
  FetchObserver* const observer_;
  absl::flat_hash_map<std::string, RobotsEntry> entries_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_ROBOTS_CACHE_H_
