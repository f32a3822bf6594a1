// The frontier's API types: the values that cross a process boundary between the frontier and
// its callers (fetchers, the scheduler, tools). Plain values with no behaviour, so anything that
// talks to a frontier (FrontierClient) depends on this header and services/frontier/url_record.h
// only, not on the frontier core or its storage. The gRPC layer converts them to and from
// proto/crawler/v1 one to one.
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_FRONTIER_FRONTIER_API_H_
#define CRAWLER_SERVICES_FRONTIER_FRONTIER_API_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/recrawl/rate_histogram.h"
#include "lib/recrawl/rate_prior.h"
#include "services/collections/collection_name.h"
#include "services/collections/focus_options.h"
#include "services/collections/revisit_options.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

// A collection's re-visit and focus options, as the frontier applies them.
using RevisitOptions = collections::RevisitOptions;
using FocusOptions = collections::FocusOptions;
using collections::ValidateCollectionName;
using collections::ValidateFocusOptions;
using collections::ValidateRevisitOptions;
using collections::EffectivePolicyOptions;

// What a frontier partition needs of a collection to run its queues (proto FrontierCollection;
// the scheduler pushes it with OpenCollection). Server-wide settings (lease duration, retries,
// seen cache) are the frontier server's own (FrontierOptions); frontier_options.h composes the
// two (WithCollection).
struct CollectionSettings {
  // [a-z0-9][a-z0-9_-]{0,62}: it names a directory on the frontier's disk.
  std::string name;
  // Pages this partition may fetch (its share of the collection's budget); nullopt: unlimited.
  std::optional<uint64_t> max_pages;
  // Pages per host; nullopt: unlimited.
  std::optional<uint64_t> max_pages_per_host;
  // URLs of one host on lease at once, [1, 1024].
  uint32_t max_in_flight_per_host = 2;
  // Link distance from a seed beyond which URLs are refused; nullopt: unlimited.
  std::optional<uint32_t> max_depth;
  RevisitOptions revisit;
  // A focused collection's bandit (needs max_pages; the scheduler moves max_pages by where the
  // rewards are, which the partition applies without reopening). Off: a coverage crawl.
  FocusOptions focus;
  // Which collection of this name (its creation time in microseconds): one deleted and created
  // again under the name is another, whose partition starts from an empty store. 0: unknown.
  uint64_t generation = 0;

  friend bool operator==(const CollectionSettings&, const CollectionSettings&) = default;
};

// Identifies one leased URL. Unique for the life of the store (a persisted counter), never 0.
using LeaseId = uint64_t;

struct UrlToAdd {
  // The canonical form (lib/url); the frontier compares bytes and does not canonicalise.
  std::string canonical_url;
  // The politeness / partition key of the URL's host (lib/url). At most 255 bytes.
  std::string host_key;
  // Link distance from a seed (seeds: 0).
  uint32_t depth = 0;
  // The page the link was found on; empty for seeds. Stored for "why is this here" lookups.
  std::string discovered_from;
  // Higher pops earlier within its host (sitemaps, canonical links...); equal priorities pop
  // breadth-first. 0 for ordinary links.
  uint8_t priority = 0;
  // A sitemap to read rather than a page: its level (url_record.h, kMaxSitemapLevel); 0 for a
  // page. Sitemaps are fetched like pages (politeness, robots.txt, retries) but never count as
  // pages. Above kMaxSitemapLevel the URL is invalid.
  uint8_t sitemap_level = 0;
  // A page listed by a sitemap: what its entry said. A URL already seen takes a newer lastmod
  // (and, when it waits for a re-visit, may be visited sooner: docs/recrawl.md, "Sitemaps").
  SitemapHints sitemap;

  friend bool operator==(const UrlToAdd&, const UrlToAdd&) = default;
};

struct AddResult {
  size_t added = 0;              // new URLs, now queued
  size_t already_seen = 0;       // in the seen-set already (or repeated within the batch)
  size_t rejected_by_limit = 0;  // max_depth, max_urls_per_host or a page budget exhausted
  size_t invalid = 0;            // empty or oversized URL or host key
  // Kept for the partition that owns or will own their host (a reshard is under way): the
  // mover delivers them there.
  size_t held = 0;
  // Of already_seen: URLs whose record took a newer sitemap lastmod, and of those the
  // re-visits brought forward by it. Not part of the counts' sum above.
  size_t lastmod_updates = 0;
  size_t lastmod_pulls = 0;

  // Adds `more`'s counts (the answer to another part of the same batch).
  AddResult& operator+=(const AddResult& more) {
    added += more.added;
    already_seen += more.already_seen;
    rejected_by_limit += more.rejected_by_limit;
    invalid += more.invalid;
    held += more.held;
    lastmod_updates += more.lastmod_updates;
    lastmod_pulls += more.lastmod_pulls;
    return *this;
  }

  friend bool operator==(const AddResult&, const AddResult&) = default;
};

// What the last fetch of a URL returned, for a conditional GET and change detection.
struct PreviousFetch {
  OutcomeClass outcome = OutcomeClass::kFetched;
  int http_status = 0;
  absl::Time fetch_time = absl::InfinitePast();
  std::string etag;           // empty if none
  std::string last_modified;  // empty if none
  uint64_t content_fingerprint = 0;

  friend bool operator==(const PreviousFetch&, const PreviousFetch&) = default;
};

struct LeasedTask {
  LeaseId lease_id = 0;
  std::string canonical_url;
  std::string host_key;
  uint32_t depth = 0;
  uint8_t priority = 0;
  // A sitemap at this level (UrlToAdd::sitemap_level): read it for the URLs it lists. 0: a page.
  uint8_t sitemap_level = 0;
  // Complete by then (wall time), or the URL is re-queued and a late completion is ignored.
  absl::Time deadline;
  // 1 for the first attempt, 2 for the first retry...
  uint32_t attempt = 1;
  // Set when the URL was fetched (or attempted) before.
  std::optional<PreviousFetch> previous;

  friend bool operator==(const LeasedTask&, const LeasedTask&) = default;
};

struct FetchOutcome {
  LeaseId lease_id = 0;
  OutcomeClass outcome = OutcomeClass::kFetched;
  int http_status = 0;  // 0 when there was no HTTP response
  // When the fetch happened; InfinitePast: the frontier's clock at Complete.
  absl::Time fetch_time = absl::InfinitePast();
  std::string etag;
  std::string last_modified;
  uint64_t content_fingerprint = 0;  // SimHash of the content; 0 if not computed
  uint64_t content_length = 0;       // bytes of payload
  // Politeness hint for the host: not before this time. InfinitePast: no hint.
  absl::Time host_next_allowed = absl::InfinitePast();
  // Transient failure (503, timeout...): try again after a backoff, up to max_attempts.
  bool retry = false;
  // External links on the page that the collection had not seen before (a focused collection's
  // reward, docs/focused.md); 0 when links are not recorded.
  uint32_t new_external_links = 0;
  // Change digest of the page's main content (lib/fingerprint/change_digest.h); 0 if not
  // computed (not HTML, no main content, fingerprints off). Decides "changed" when the URL's
  // record has one from the previous visit; else the SimHash does.
  uint64_t change_digest = 0;

  friend bool operator==(const FetchOutcome&, const FetchOutcome&) = default;
};

struct CompleteResult {
  size_t accepted = 0;           // outcomes recorded (final or retry)
  size_t retries_scheduled = 0;  // of those, URLs now waiting for another attempt
  // Leases that are not (or no longer) out: never granted, already completed, or expired and
  // re-queued. Their outcomes were ignored, so a completed-after-expiry URL is fetched again.
  std::vector<LeaseId> unknown_leases;

  friend bool operator==(const CompleteResult&, const CompleteResult&) = default;
};

// This partition's side of the re-visit policy (FrontierOptions::revisit).
struct RevisitStatus {
  bool enabled = false;
  std::string policy;
  // The current change-rate estimates (recrawl::PolicyState::rate_per_day) of every URL
  // scheduled for re-visits. Policies that do not estimate rates put every page in the static
  // bin, which still counts it.
  recrawl::RateHistogram rates;
  // Evidence of the fleet's mean change rate, from every re-visit so far: the visits that found
  // a change, and the days between visits summed (changes_seen / days_observed is the fleet's
  // observed rate, which centres the estimators' prior).
  double changes_seen = 0;
  double days_observed = 0;
  // URLs queued or leased for their first visit (re-visits, already in the histogram, are not
  // counted): with rates.page_count() the size of the fleet while the crawl still discovers
  // pages.
  uint64_t pending_urls = 0;
  // The visit histories of the same URLs, binned (RevisitOptions::prior "fitted"); nullopt when
  // the partition keeps none (prior "fleet-mean", or a frontier from before the fitted prior).
  std::optional<recrawl::FleetEvidence> evidence;

  friend bool operator==(const RevisitStatus&, const RevisitStatus&) = default;
};

struct HostTime {
  std::string host_key;
  absl::Time next_allowed;

  friend bool operator==(const HostTime&, const HostTime&) = default;
};

struct FrontierStats {
  // Current state.
  uint64_t hosts = 0;  // hosts ever seen
  uint64_t hosts_with_queued_urls = 0;
  uint64_t ready_hosts = 0;   // hosts with queued URLs, below their in-flight and page caps
  uint64_t queued_urls = 0;   // in host queues (including hosts whose page cap is reached)
  uint64_t waiting_urls = 0;  // in the due index (retry backoff; later: re-visits)
  uint64_t in_flight_urls = 0;
  uint64_t seen_urls = 0;
  uint64_t pages_completed = 0;  // final outcomes counting as pages
  // Earliest next-allowed hint among ready hosts; InfiniteFuture if none.
  absl::Time next_ready_time = absl::InfiniteFuture();
  // Resharding: URLs held for another partition (AddResult::held) and not delivered yet, and
  // hosts moving away now.
  uint64_t held_urls = 0;
  uint64_t hosts_moving = 0;

  // Counters since this Frontier was opened.
  uint64_t urls_added = 0;
  uint64_t urls_already_seen = 0;
  uint64_t seen_cache_hits = 0;  // of urls_already_seen, answered by the seen cache (no read)
  uint64_t urls_rejected_by_limit = 0;
  uint64_t urls_invalid = 0;
  // URLs seen before that a sitemap listed with a newer lastmod, and the re-visits it brought
  // forward (AddResult::lastmod_updates, lastmod_pulls).
  uint64_t sitemap_lastmod_updates = 0;
  uint64_t lastmod_pulls = 0;
  uint64_t leases_granted = 0;
  uint64_t leases_expired = 0;
  uint64_t leases_recovered = 0;  // leases of a previous process re-queued at Open
  uint64_t leases_restored = 0;   // leases of a previous process restored at Open (until grace)
  uint64_t leases_released = 0;   // leases handed back unstarted (ReleaseLeases) and re-queued
  uint64_t completions_accepted = 0;
  uint64_t completions_unknown = 0;
  uint64_t retries_scheduled = 0;
  uint64_t revisits_scheduled = 0;  // visits after which a URL went back to the due index
  uint64_t changes_detected = 0;    // of those, visits that found the content changed
  uint64_t due_promoted = 0;  // due-index entries moved back into host queues
  // Re-visits that were due while this partition's budget had no token left, and their waits
  // in total (from the due time to the release into the host queue).
  uint64_t revisits_waited = 0;
  double revisit_wait_seconds = 0;
  // This partition's share of the collection's re-visit budget (the cap); 0 before the
  // scheduler's first tuning (no cap yet). Summed over partitions: the collection's budget.
  double revisit_budget_visits_per_day = 0;
  // Measured spend: re-visits made (completed leases of URLs visited before, retries included:
  // each is a request), and their rate now (RevisitBudget::spent_visits_per_day), per day. Summed
  // over partitions: the collection's measured spend, to set against the budget above.
  uint64_t revisits_completed = 0;
  double revisit_spend_visits_per_day = 0;
  uint64_t repairs = 0;       // inconsistent entries found and fixed (should stay 0)
  // Focused collections (FrontierOptions::focus): pages the bandit was told of, the new external
  // links they brought, and how often it was rebuilt for hosts joining or leaving the game.
  uint64_t focus_pulls = 0;
  uint64_t focus_reward = 0;
  uint64_t focus_rebuilds = 0;

  // Frontier::IsExhausted at the moment these figures were taken (one consistent snapshot).
  bool exhausted = false;

  friend bool operator==(const FrontierStats&, const FrontierStats&) = default;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_FRONTIER_API_H_
