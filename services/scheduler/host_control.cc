// CollectionManager's host control: the operator's calls on one host, routed to the partition
// that owns it, and the listing of hosts merged over every partition.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "lib/partition/layout.h"
#include "lib/url/host_key.h"
#include "services/scheduler/collection_manager.h"
#include "services/scheduler/collection_manager_internal.h"

namespace crawler::scheduler {
namespace {

constexpr uint32_t kDefaultHostPage = 100;
constexpr uint32_t kMaxHostPage = 1000;

// True when `a` goes before `b` in `order` (ties: by host key), as the frontier sorts.
bool Before(frontier::HostOrder order, const frontier::HostSummary& a,
            const frontier::HostSummary& b) {
  switch (order) {
    case frontier::HostOrder::kQueued:
      if (a.queued != b.queued) return a.queued > b.queued;
      break;
    case frontier::HostOrder::kErrors:
      if (a.errors != b.errors) return a.errors > b.errors;
      break;
    case frontier::HostOrder::kNextDue:
      if (a.next_due != b.next_due) return a.next_due < b.next_due;
      break;
  }
  return a.host_key < b.host_key;
}

// The page token of a merged listing: each partition's offset, comma-separated.
absl::StatusOr<std::vector<uint64_t>> DecodeOffsets(const std::string& token, uint32_t n) {
  std::vector<uint64_t> offsets(n, 0);
  if (token.empty()) return offsets;
  const std::vector<std::string> parts = absl::StrSplit(token, ',');
  if (parts.size() != n) {
    return absl::InvalidArgumentError("page_token is not from a previous page");
  }
  for (uint32_t k = 0; k < n; ++k) {
    if (!absl::SimpleAtoi(parts[k], &offsets[k])) {
      return absl::InvalidArgumentError("page_token is not from a previous page");
    }
  }
  return offsets;
}

}  // namespace

absl::StatusOr<frontier::HostControlClient*> CollectionManager::HostOwner(
    const std::string& name, const std::string& host_key) {
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  absl::StatusOr<url::HostKey> key = url::HostKey::FromString(host_key);
  if (!key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("host_key: '", host_key, "' is not a host key (host or host:port)"));
  }
  // Only the host-level verdicts: a path rule of the scope says nothing about the host.
  absl::StatusOr<Scheduler::Judged> judged =
      (*entry)->core->Judge(absl::StrCat("http://", host_key, "/"), 0);
  if (judged.ok() && (judged->verdict == scope::Verdict::kHostNotAllowed ||
                      judged->verdict == scope::Verdict::kOtherSite)) {
    return absl::InvalidArgumentError(absl::StrCat("host ", host_key, " is outside the scope of ",
                                                   name, " (", std::string(scope::VerdictName(judged->verdict)),
                                                   ")"));
  }
  // During a reshard a host is on its old owner until it moves, then on its new one.
  const partition::PartitionLayout layout = fleet_.layout();
  const uint32_t owner = layout.Owner(host_key);
  const uint32_t new_owner = layout.NewOwner(host_key);
  if (new_owner != owner && fleet_.HostControl(new_owner, name).GetHost(host_key).ok()) {
    return &fleet_.HostControl(new_owner, name);
  }
  return &fleet_.HostControl(owner, name);
}

absl::StatusOr<frontier::ListHostsResult> CollectionManager::ListHosts(
    const std::string& name, const frontier::ListHostsRequest& request) {
  if (request.page_size > kMaxHostPage) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size ", request.page_size, " is out of range [1, ", kMaxHostPage, "]"));
  }
  absl::StatusOr<std::shared_ptr<Entry>> entry = Find(name);
  if (!entry.ok()) return entry.status();
  const uint32_t n = fleet_.size();
  absl::StatusOr<std::vector<uint64_t>> offsets = DecodeOffsets(request.page_token, n);
  if (!offsets.ok()) return offsets.status();
  const uint32_t page = request.page_size == 0 ? kDefaultHostPage : request.page_size;
  // Each partition's next `page` hosts hold the merged page's hosts: a k-way merge, then each
  // partition's offset moves by the hosts it gave. The frontier's token is its offset.
  frontier::ListHostsResult merged;
  std::vector<frontier::HostSummary> candidates;
  std::vector<uint64_t> matched(n, 0);
  for (uint32_t k = 0; k < n; ++k) {
    frontier::ListHostsRequest part = request;
    part.page_size = page;
    part.page_token = (*offsets)[k] == 0 ? "" : absl::StrCat((*offsets)[k]);
    absl::StatusOr<frontier::ListHostsResult> got = fleet_.HostControl(k, name).ListHosts(part);
    if (!got.ok()) return got.status();
    merged.matched += got->matched;
    matched[k] = got->matched;
    for (frontier::HostSummary& host : got->hosts) {
      host.partition = k;
      candidates.push_back(std::move(host));
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](const auto& a, const auto& b) { return Before(request.order, a, b); });
  const size_t taken = std::min<size_t>(page, candidates.size());
  std::vector<uint64_t> next = *offsets;
  for (size_t i = 0; i < taken; ++i) ++next[candidates[i].partition];
  candidates.resize(taken);
  merged.hosts = std::move(candidates);
  bool any_left = false;
  for (uint32_t k = 0; k < n; ++k) any_left = any_left || next[k] < matched[k];
  if (any_left) merged.next_page_token = absl::StrJoin(next, ",");
  return merged;
}

absl::StatusOr<frontier::HostDetail> CollectionManager::GetHost(const std::string& name,
                                                                const std::string& host_key) {
  absl::StatusOr<frontier::HostControlClient*> owner = HostOwner(name, host_key);
  if (!owner.ok()) return owner.status();
  return (*owner)->GetHost(host_key);
}

absl::StatusOr<frontier::HostChangeResult> CollectionManager::ControlHost(
    const std::string& name, const std::string& host_key,
    const frontier::HostControlChange& change) {
  absl::StatusOr<frontier::HostControlClient*> owner = HostOwner(name, host_key);
  if (!owner.ok()) return owner.status();
  return (*owner)->ControlHost(host_key, change);
}

absl::StatusOr<frontier::HostChangeResult> CollectionManager::DropHostQueue(
    const std::string& name, const std::string& host_key) {
  absl::StatusOr<frontier::HostControlClient*> owner = HostOwner(name, host_key);
  if (!owner.ok()) return owner.status();
  return (*owner)->DropHostQueue(host_key);
}

absl::StatusOr<frontier::ListHostUrlsResult> CollectionManager::ListHostUrls(
    const std::string& name, const frontier::ListHostUrlsRequest& request) {
  absl::StatusOr<frontier::HostControlClient*> owner = HostOwner(name, request.host_key);
  if (!owner.ok()) return owner.status();
  return (*owner)->ListHostUrls(request);
}

}  // namespace crawler::scheduler
