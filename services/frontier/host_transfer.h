// Moving one host between partitions (Frontier::ExportHost, ImportHost, ForgetHost): the values
// that carry a host's whole state from its old owner to its new one, in chunks.
//
// A host's state is its header (the frontier.hosts record: counters, politeness hint, queue
// cursor, errors, the operator's controls) and its URLs: each URL record (status, depth,
// re-visit history, validators, digests) and, for a queued URL, its queue entry's position
// (band, depth, sequence) and flags, so the new owner leases the host's URLs in the same order.
// Waiting URLs carry their due time in their records. Robots rules and politeness timers are
// not here: the fetchers keep robots.txt per host, Redis keeps the timers per host.
//
// Thread-safety: plain values.
#ifndef CRAWLER_SERVICES_FRONTIER_HOST_TRANSFER_H_
#define CRAWLER_SERVICES_FRONTIER_HOST_TRANSFER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "services/frontier/frontier_api.h"
#include "services/frontier/storage_format.h"
#include "services/frontier/url_record.h"

namespace crawler::frontier {

// One URL of a moving host.
struct MovedUrl {
  std::string url;
  UrlRecord record;  // its host_id is the old owner's; the new owner writes its own
  // Set for a queued URL: where its queue entry sits, and the entry's flags.
  std::optional<storage::QueuePos> queue_pos;
  uint8_t queue_flags = 0;

  friend bool operator==(const MovedUrl&, const MovedUrl&) = default;
};

// One chunk of a host's export, in order: the queued URLs first (in queue order), then the
// other URLs (in URL order); the last chunk carries the header.
struct HostChunk {
  std::string host_key;
  std::vector<MovedUrl> urls;
  // Where the next chunk starts (ExportHost's `after`); empty on the last chunk.
  std::string next;
  // On the last chunk only: the host's record, as the old owner kept it (host_id aside).
  std::optional<storage::HostRecord> header;

  friend bool operator==(const HostChunk&, const HostChunk&) = default;
};

// One page of the hosts a partition holds that move elsewhere under the reshard in progress
// (Frontier::ListHostsToMove), in host id order.
struct HostsToMove {
  std::vector<std::string> host_keys;
  // Where the next page starts (ListHostsToMove's `after`); 0 once this page is the last.
  uint64_t next = 0;
  // All of this partition's hosts that move, this page's and the others'.
  uint64_t total = 0;
};

// A URL a partition holds for another one (it arrived during a reshard, routed by the layout
// before or after it), numbered in arrival order.
struct HeldUrl {
  uint64_t seq = 0;
  UrlToAdd url;

  friend bool operator==(const HeldUrl&, const HeldUrl&) = default;
};

// One page of them (Frontier::ListHeldUrls): only those whose host is not here any more (or
// never was), so they can go to its new owner now.
struct HeldUrls {
  std::vector<HeldUrl> urls;
  // Where the next page starts; 0 once this page is the last.
  uint64_t next = 0;
  // Held in all, deliverable now or not.
  uint64_t total = 0;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_HOST_TRANSFER_H_
