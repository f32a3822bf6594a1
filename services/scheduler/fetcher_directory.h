// FetcherDirectory: where the fetchers are, as their reports say (ReportFetcherStatsRequest's
// incarnation, partition and archive_address), so that the scheduler can ask each one for its
// archive files (ArchiveAdmin, docs/archive.md). Fetchers are not configured in the scheduler:
// their addresses come and go with their pods, and a report every few seconds says which are
// there.
//
// A fetcher is named by the volume its files are on (ReportFetcherStatsRequest.archive_volume),
// so a fetcher restarted elsewhere takes its own place at once. It is live while it reported
// within `ttl`. One address is one fetcher: a report from an address drops the entry of any
// other fetcher there.
//
// Thread-safety: thread-safe.
#ifndef CRAWLER_SERVICES_SCHEDULER_FETCHER_DIRECTORY_H_
#define CRAWLER_SERVICES_SCHEDULER_FETCHER_DIRECTORY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"

namespace crawler::scheduler {

struct KnownFetcher {
  std::string id;  // the volume of its files (or its incarnation)
  uint32_t partition = 0;
  std::string address;  // HOST:PORT of its ArchiveFiles service
  absl::Time last_report;
};

class FetcherDirectory {
 public:
  // `clock` must outlive the directory.
  FetcherDirectory(absl::Duration ttl, const Clock& clock) : ttl_(ttl), clock_(clock) {}

  // A report of fetcher `id`, serving ArchiveFiles at `address`, now; ignored when the address
  // is empty (a fetcher that does not serve it).
  void Note(const std::string& id, uint32_t partition, const std::string& address)
      ABSL_LOCKS_EXCLUDED(mu_);

  // The live fetchers, by partition then id.
  std::vector<KnownFetcher> Live() const ABSL_LOCKS_EXCLUDED(mu_);
  // Live fetcher `id`, if there is one.
  std::optional<KnownFetcher> Find(const std::string& id) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const absl::Duration ttl_;
  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, KnownFetcher> by_id_ ABSL_GUARDED_BY(mu_);
};

// The address to reach a fetcher at: `reported` as it is, or, when its host is empty
// (":PORT"), the host of `peer` (gRPC's ServerContext::peer(): "ipv4:10.0.0.7:41234",
// "ipv6:[::1]:41234") with that port. Empty when neither gives one.
std::string FetcherAddress(std::string_view reported, std::string_view peer);

}  // namespace crawler::scheduler

#endif  // CRAWLER_SERVICES_SCHEDULER_FETCHER_DIRECTORY_H_
