// Host control: the values of the operator's calls on one partition's hosts (Frontier::ListHosts,
// GetHost, ControlHost, DropHostQueue, ListHostUrls). Plain values, converted one to one by the
// gRPC layer (proto/crawler/v1/frontier.proto); docs/api.md ("Host control") gives the contract.
//
// A host's controls are stored with the rest of its state in its frontier.hosts record, keyed
// by the host key (storage_format.h): whatever moves a host's state to another partition moves
// them with it.
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_FRONTIER_HOST_API_H_
#define CRAWLER_SERVICES_FRONTIER_HOST_API_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

// The operator's settings of one host.
struct HostControls {
  // Nothing of the host is leased before this time. InfinitePast: not blocked.
  absl::Time blocked_until = absl::InfinitePast();
  // The least gap between two leases of the host (one URL per lease, the host's hint moved by
  // the delay each time), whatever caps the collection puts on Crawl-delay. Zero: none.
  absl::Duration delay = absl::ZeroDuration();
  // The host's page limit in place of the collection's max_pages_per_host; nullopt: the
  // collection's.
  std::optional<uint64_t> max_pages;
  // URLs dropped by DropHostQueue in all, and when last.
  uint64_t dropped_urls = 0;
  absl::Time dropped_at = absl::InfinitePast();
  // The partition's first lease id after the last drop: the drop voided the host's leases
  // with smaller ids, and leases taken since (of URLs found after the drop) stand. 0: not
  // known (a record written before the bound was kept), so every lease of the host held then.
  uint64_t dropped_leases_below = 0;
  // When any of these last changed; InfinitePast: never.
  absl::Time changed = absl::InfinitePast();

  // True when nothing was ever set: the host record carries no controls.
  bool IsDefault() const { return *this == HostControls{}; }

  friend bool operator==(const HostControls&, const HostControls&) = default;
};

// One host's counters and controls.
struct HostSummary {
  std::string host_key;
  uint64_t queued = 0;     // in its queue, not leased
  uint64_t in_flight = 0;  // leased to a fetcher
  uint64_t waiting = 0;    // in the due index (retries, re-visits)
  uint64_t done = 0;       // a final outcome recorded, nothing scheduled
  uint64_t dropped = 0;    // taken out by DropHostQueue
  uint64_t seen = 0;       // URL records: the sum of the five above
  uint64_t pages = 0;      // final outcomes that count as pages
  uint64_t errors = 0;     // attempts ended by a network error, a 5xx or a 429
  // The frontier's politeness hint (the fetchers' claims decide; this only orders leases).
  absl::Time next_allowed = absl::InfinitePast();
  // When the host can next be leased: its hint, or its block's end if later; InfiniteFuture
  // while it has nothing to lease (nothing queued, at its in-flight or page cap).
  absl::Time next_due = absl::InfiniteFuture();
  // The page cap in force (the operator's or the collection's); FrontierOptions::kUnlimited.
  uint64_t max_pages = 0;
  HostControls controls;
  // The partition that owns the host.
  uint32_t partition = 0;

  friend bool operator==(const HostSummary&, const HostSummary&) = default;
};

enum class HostOrder : uint8_t {
  kQueued = 1,   // most queued URLs first
  kErrors = 2,   // most errors first
  kNextDue = 3,  // soonest next_due first
};

struct ListHostsRequest {
  HostOrder order = HostOrder::kQueued;
  // Only hosts whose key is this or ends in "." + this (a domain and its subdomains); empty:
  // every host.
  std::string suffix;
  // Hosts per page, [1, 1000]; 0: 100.
  uint32_t page_size = 0;
  // next_page_token of the previous page (of the same order and suffix); empty: the first.
  std::string page_token;
};

struct ListHostsResult {
  std::vector<HostSummary> hosts;
  std::string next_page_token;  // empty: this was the last page
  uint64_t matched = 0;         // hosts matching the suffix, over all pages
};

// An attempt that ended in an error, for GetHost's recent errors.
struct HostError {
  std::string url;
  OutcomeClass outcome = OutcomeClass::kHttpError;
  int http_status = 0;
  absl::Time time = absl::InfinitePast();
  uint32_t attempts = 0;  // failed attempts of the URL since its last final outcome

  friend bool operator==(const HostError&, const HostError&) = default;
};

struct HostDetail {
  HostSummary summary;
  // The most recent errors, newest first (at most kMaxRecentErrors), and how robots.txt
  // treated the host's URLs: denials and the newest of them. Both come from a scan of the
  // host's URL records, stopped after `urls_scanned` records; `scan_complete` false: the host
  // has more.
  std::vector<HostError> recent_errors;
  uint64_t robots_denied = 0;
  std::string last_robots_denied_url;
  absl::Time last_robots_denied = absl::InfinitePast();
  uint64_t urls_scanned = 0;
  bool scan_complete = true;

  static constexpr size_t kMaxRecentErrors = 10;
};

// One change to a host's controls.
struct HostControlChange {
  enum class Kind : uint8_t {
    kBlock = 1,         // block until `until` (in the future)
    kUnblock = 2,       // end a block
    kSetDelay = 3,      // `delay`; zero clears it
    kSetPageLimit = 4,  // `max_pages`; nullopt: back to the collection's
  };
  Kind kind = Kind::kBlock;
  absl::Time until = absl::InfinitePast();
  absl::Duration delay = absl::ZeroDuration();
  std::optional<uint64_t> max_pages;
};

// What ControlHost and DropHostQueue did.
struct HostChangeResult {
  HostSummary host;  // after the change
  // DropHostQueue: URLs dropped (queued, leased and waiting).
  uint64_t dropped = 0;
};

// The states a host's URLs are listed by.
enum class HostUrlState : uint8_t {
  kAny = 0,
  kQueued = 1,  // in the queue, not leased
  kLeased = 2,
  kWaiting = 3,
  kDone = 4,
  kDropped = 5,
};

struct ListHostUrlsRequest {
  std::string host_key;
  HostUrlState state = HostUrlState::kAny;
  uint32_t page_size = 0;  // [1, 1000]; 0: 100
  std::string page_token;
};

struct HostUrl {
  std::string url;
  HostUrlState state = HostUrlState::kQueued;
  uint32_t depth = 0;
  std::optional<OutcomeClass> last_outcome;
  int http_status = 0;
  absl::Time fetch_time = absl::InfinitePast();
  absl::Time next_visit = absl::InfinitePast();  // kWaiting: when it is due

  friend bool operator==(const HostUrl&, const HostUrl&) = default;
};

struct ListHostUrlsResult {
  HostSummary host;  // its counts by state
  std::vector<HostUrl> urls;
  std::string next_page_token;
};

// What a fetcher must know of a host's controls: when its block ends, its delay, and when its
// queue was last dropped (a fetcher drops the URLs of the host it holds, not yet started).
struct FetcherHostControl {
  std::string host_key;
  absl::Time blocked_until = absl::InfinitePast();
  absl::Duration delay = absl::ZeroDuration();
  absl::Time dropped_at = absl::InfinitePast();
  // HostControls::dropped_leases_below of the last drop.
  uint64_t dropped_leases_below = 0;

  // True when the last drop voided the lease (a fetcher then neither fetches nor completes it).
  bool Voided(uint64_t lease_id) const {
    return dropped_at != absl::InfinitePast() &&
           (dropped_leases_below == 0 || lease_id < dropped_leases_below);
  }

  friend bool operator==(const FetcherHostControl&, const FetcherHostControl&) = default;
};

// The control table fetchers follow (Frontier::FetcherControls): every host of the partition
// blocked now, with a delay, or dropped lately, as of `version`.
struct FetcherControlTable {
  // Changes with every control set on the partition (and with every start of it): a fetcher
  // that holds this version holds the table.
  uint64_t version = 0;
  // True: the caller's known version is current, and `hosts` is empty.
  bool unchanged = false;
  std::vector<FetcherHostControl> hosts;

  friend bool operator==(const FetcherControlTable&, const FetcherControlTable&) = default;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_HOST_API_H_
