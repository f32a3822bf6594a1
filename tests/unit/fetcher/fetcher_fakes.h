// In-memory fakes of the fetcher core's collaborators, for its unit tests: a FrontierClient that
// hands out a fixed list of tasks (optionally queueing the URLs added to it) and records every
// completion and add, a Resolver answering from a table, and a FetchObserver that records
// events, and a Clock whose time a test moves ahead at once (ShiftedClock). Test-only. All are
// thread-safe.
#ifndef CRAWLER_TESTS_UNIT_FETCHER_FETCHER_FAKES_H_
#define CRAWLER_TESTS_UNIT_FETCHER_FETCHER_FAKES_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/net/ip_address.h"
#include "services/fetcher/fetch_event.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/frontier_api.h"
#include "services/frontier/frontier_client.h"

namespace crawler::testing {

class RecordingObserver final : public fetcher::FetchObserver {
 public:
  void OnFetch(const fetcher::FetchEvent& event) override {
    absl::MutexLock lock(&mu_);
    if (event.outcome == frontier::OutcomeClass::kFetched && !event.robots_txt) {
      // A held page keeps its worker here (bounded: a forgotten hold is not a hung test).
      mu_.AwaitWithTimeout(absl::Condition(
                               +[](bool* held) { return !*held; }, &hold_pages_),
                           absl::Seconds(10));
    }
    events_.push_back(event);
  }
  // While held, the worker threads that report a fetched page wait here, as slow workers would.
  void HoldPages(bool hold) {
    absl::MutexLock lock(&mu_);
    hold_pages_ = hold;
  }
  std::vector<fetcher::FetchEvent> events() const {
    absl::MutexLock lock(&mu_);
    return events_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<fetcher::FetchEvent> events_ ABSL_GUARDED_BY(mu_);
  bool hold_pages_ ABSL_GUARDED_BY(mu_) = false;
};

// The machine's clocks plus an offset the test moves ahead: the jump a process stopped for that
// long (SIGSTOP, a frozen VM) sees when it runs again.
class ShiftedClock final : public Clock {
 public:
  absl::Time Now() const override { return system_.Now() + Offset(); }
  absl::Duration MonotonicNow() const override { return system_.MonotonicNow() + Offset(); }
  void Advance(absl::Duration d) { offset_ns_ += absl::ToInt64Nanoseconds(d); }

 private:
  absl::Duration Offset() const { return absl::Nanoseconds(offset_ns_.load()); }
  SystemClock system_;
  std::atomic<int64_t> offset_ns_{0};
};

// A frontier holding a FIFO of tasks. Lease honours max_urls and max_per_host; a lease is
// outstanding until completed; IsExhausted when nothing is queued or outstanding. With
// enqueue_added, URLs passed to AddUrls that were never seen become new tasks.
class FakeFrontierClient final : public frontier::FrontierClient {
 public:
  // Queues a task; returns its lease id. `deadline` defaults to five minutes from now.
  frontier::LeaseId Add(const std::string& canonical_url, const std::string& host_key,
                        std::optional<frontier::PreviousFetch> previous = std::nullopt,
                        std::optional<absl::Time> deadline = std::nullopt, uint32_t depth = 0,
                        uint8_t sitemap_level = 0) {
    absl::MutexLock lock(&mu_);
    return AddLocked(canonical_url, host_key, std::move(previous), deadline, depth,
                     sitemap_level);
  }

  void set_enqueue_added(bool on) {
    absl::MutexLock lock(&mu_);
    enqueue_added_ = on;
  }

  // From the first call at which `when` holds, every lease, completion and hand-over of
  // outlinks is refused with kFailedPrecondition, as a frontier refuses a collection deleted
  // meanwhile; `then` runs at that first refusal. Both run under the fake's lock.
  void RefuseFrom(std::function<bool()> when, std::function<void()> then) {
    absl::MutexLock lock(&mu_);
    refuse_when_ = std::move(when);
    on_refusal_ = std::move(then);
  }

  // Every call from now on waits this long before it is answered (a slow or distant frontier).
  void set_answer_delay(absl::Duration d) { answer_delay_ns_ = absl::ToInt64Nanoseconds(d); }

  // ReleaseLeases calls with no lease in them (a fetcher's confirmation probes).
  int empty_releases() {
    absl::MutexLock lock(&mu_);
    return empty_releases_;
  }

  absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t max_urls,
                                                         size_t max_per_host) override {
    AnswerDelay();
    absl::MutexLock lock(&mu_);
    if (Refused()) return absl::FailedPreconditionError("the collection is gone");
    std::vector<frontier::LeasedTask> out;
    std::map<std::string, size_t> per_host;
    std::deque<frontier::LeasedTask> keep;
    while (!queue_.empty()) {
      frontier::LeasedTask task = std::move(queue_.front());
      queue_.pop_front();
      if (out.size() < max_urls && per_host[task.host_key] < max_per_host) {
        ++per_host[task.host_key];
        outstanding_.insert(task.lease_id);
        out.push_back(std::move(task));
      } else {
        keep.push_back(std::move(task));
      }
    }
    queue_ = std::move(keep);
    ++lease_calls_;
    return out;
  }

  absl::StatusOr<frontier::CompleteResult> Complete(
      const std::vector<frontier::FetchOutcome>& outcomes) override {
    AnswerDelay();
    absl::MutexLock lock(&mu_);
    if (Refused()) return absl::FailedPreconditionError("the collection is gone");
    frontier::CompleteResult result;
    for (const frontier::FetchOutcome& o : outcomes) {
      if (outstanding_.erase(o.lease_id) == 0) {
        ++unknown_completions_;
        result.unknown_leases.push_back(o.lease_id);
      } else {
        ++result.accepted;
      }
      completions_.push_back(o);
    }
    return result;
  }

  // Ends the leases still outstanding among `ids` (their URLs are not queued again).
  absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>& ids) override {
    AnswerDelay();
    absl::MutexLock lock(&mu_);
    if (Refused()) return absl::FailedPreconditionError("the collection is gone");
    if (ids.empty()) ++empty_releases_;
    size_t released = 0;
    for (frontier::LeaseId id : ids) {
      if (outstanding_.erase(id) == 0) continue;
      released_.push_back(id);
      ++released;
    }
    return released;
  }

  // The control table the fake serves: `hosts` as version `version`.
  void SetControls(uint64_t version, std::vector<frontier::FetcherHostControl> hosts) {
    absl::MutexLock lock(&mu_);
    controls_ = frontier::FetcherControlTable{.version = version, .hosts = std::move(hosts)};
  }
  absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t known_version) override {
    absl::MutexLock lock(&mu_);
    if (known_version == controls_.version) {
      return frontier::FetcherControlTable{.version = known_version, .unchanged = true};
    }
    return controls_;
  }

  absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>& times) override {
    absl::MutexLock lock(&mu_);
    for (const frontier::HostTime& t : times) host_times_.push_back(t);
    return times.size();
  }

  absl::StatusOr<frontier::FrontierStats> Stats() override {
    absl::MutexLock lock(&mu_);
    frontier::FrontierStats stats;
    stats.queued_urls = queue_.size();
    stats.in_flight_urls = outstanding_.size();
    stats.seen_urls = seen_.size();
    stats.urls_added = added_.size();
    stats.exhausted = queue_.empty() && outstanding_.empty();
    return stats;
  }

  absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
      const std::vector<std::string>& canonical_urls) override {
    absl::MutexLock lock(&mu_);
    std::vector<std::optional<frontier::UrlRecord>> out;
    for (const std::string& u : canonical_urls) {
      out.push_back(seen_.contains(u) ? std::optional<frontier::UrlRecord>(frontier::UrlRecord{})
                                      : std::nullopt);
    }
    return out;
  }

  absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
    return frontier::RevisitStatus{};
  }
  absl::Status RetuneRevisits(const recrawl::FleetSummary&) override {
    return absl::FailedPreconditionError("the fake frontier does not re-visit");
  }

  absl::StatusOr<frontier::AddResult> AddUrls(const std::vector<frontier::UrlToAdd>& urls) override {
    AnswerDelay();
    absl::MutexLock lock(&mu_);
    if (Refused()) return absl::FailedPreconditionError("the collection is gone");
    frontier::AddResult result;
    for (const frontier::UrlToAdd& u : urls) {
      added_.push_back(u);
      if (!seen_.insert(u.canonical_url).second) {
        ++result.already_seen;
        continue;
      }
      ++result.added;
      if (enqueue_added_) {
        AddLocked(u.canonical_url, u.host_key, std::nullopt, std::nullopt, u.depth,
                  u.sitemap_level);
      }
    }
    return result;
  }

  absl::StatusOr<bool> IsExhausted() override {
    absl::MutexLock lock(&mu_);
    return queue_.empty() && outstanding_.empty();
  }

  std::vector<frontier::FetchOutcome> completions() const {
    absl::MutexLock lock(&mu_);
    return completions_;
  }
  // The completion of `lease`, if any.
  std::optional<frontier::FetchOutcome> CompletionOf(frontier::LeaseId lease) const {
    absl::MutexLock lock(&mu_);
    for (const frontier::FetchOutcome& o : completions_) {
      if (o.lease_id == lease) return o;
    }
    return std::nullopt;
  }
  std::vector<frontier::HostTime> host_times() const {
    absl::MutexLock lock(&mu_);
    return host_times_;
  }
  std::vector<frontier::UrlToAdd> added() const {
    absl::MutexLock lock(&mu_);
    return added_;
  }
  std::string UrlOf(frontier::LeaseId lease) const {
    absl::MutexLock lock(&mu_);
    auto it = urls_.find(lease);
    return it == urls_.end() ? std::string() : it->second;
  }
  int unknown_completions() const {
    absl::MutexLock lock(&mu_);
    return unknown_completions_;
  }
  std::vector<frontier::LeaseId> released() const {
    absl::MutexLock lock(&mu_);
    return released_;
  }
  size_t outstanding() const {
    absl::MutexLock lock(&mu_);
    return outstanding_.size();
  }

 private:
  frontier::LeaseId AddLocked(const std::string& canonical_url, const std::string& host_key,
                              std::optional<frontier::PreviousFetch> previous,
                              std::optional<absl::Time> deadline, uint32_t depth,
                              uint8_t sitemap_level = 0) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    frontier::LeasedTask task;
    task.lease_id = next_lease_++;
    task.canonical_url = canonical_url;
    task.host_key = host_key;
    task.depth = depth;
    task.sitemap_level = sitemap_level;
    task.deadline = deadline.value_or(absl::Now() + absl::Minutes(5));
    task.previous = std::move(previous);
    seen_.insert(canonical_url);
    urls_[task.lease_id] = canonical_url;
    queue_.push_back(task);
    return task.lease_id;
  }

  void AnswerDelay() const {
    if (const int64_t ns = answer_delay_ns_.load(); ns > 0) absl::SleepFor(absl::Nanoseconds(ns));
  }

  std::atomic<int64_t> answer_delay_ns_{0};
  mutable absl::Mutex mu_;
  bool Refused() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (refusing_) return true;
    if (!refuse_when_ || !refuse_when_()) return false;
    refusing_ = true;
    if (on_refusal_) on_refusal_();
    return true;
  }

  bool enqueue_added_ ABSL_GUARDED_BY(mu_) = false;
  std::function<bool()> refuse_when_ ABSL_GUARDED_BY(mu_);
  std::function<void()> on_refusal_ ABSL_GUARDED_BY(mu_);
  bool refusing_ ABSL_GUARDED_BY(mu_) = false;
  int empty_releases_ ABSL_GUARDED_BY(mu_) = 0;
  frontier::FetcherControlTable controls_ ABSL_GUARDED_BY(mu_);
  frontier::LeaseId next_lease_ ABSL_GUARDED_BY(mu_) = 1;
  std::deque<frontier::LeasedTask> queue_ ABSL_GUARDED_BY(mu_);
  std::set<frontier::LeaseId> outstanding_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> seen_ ABSL_GUARDED_BY(mu_);
  std::map<frontier::LeaseId, std::string> urls_ ABSL_GUARDED_BY(mu_);
  std::vector<frontier::FetchOutcome> completions_ ABSL_GUARDED_BY(mu_);
  std::vector<frontier::LeaseId> released_ ABSL_GUARDED_BY(mu_);
  std::vector<frontier::UrlToAdd> added_ ABSL_GUARDED_BY(mu_);
  std::vector<frontier::HostTime> host_times_ ABSL_GUARDED_BY(mu_);
  int unknown_completions_ ABSL_GUARDED_BY(mu_) = 0;
  int lease_calls_ ABSL_GUARDED_BY(mu_) = 0;
};

// Answers from a table; unknown names are kNotFound.
class TableResolver final : public fetcher::Resolver {
 public:
  void Set(const std::string& host, absl::StatusOr<std::vector<net::IpAddress>> answer) {
    absl::MutexLock lock(&mu_);
    answers_.insert_or_assign(host, std::move(answer));
  }
  int calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  absl::StatusOr<std::vector<net::IpAddress>> Resolve(const std::string& host) override {
    absl::MutexLock lock(&mu_);
    ++calls_;
    auto it = answers_.find(host);
    if (it == answers_.end()) return absl::NotFoundError("resolve " + host + ": unknown name");
    return it->second;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, absl::StatusOr<std::vector<net::IpAddress>>> answers_ ABSL_GUARDED_BY(mu_);
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace crawler::testing

#endif  // CRAWLER_TESTS_UNIT_FETCHER_FETCHER_FAKES_H_
