// InMemoryFleet: a PartitionFleet of real frontier cores in memory, one per partition and
// collection, opened and dropped like a frontier server does; a partition can be taken "down"
// (every call UNAVAILABLE) to test outages. For the scheduler service's unit tests.
#ifndef CRAWLER_TESTS_UNIT_SCHEDULER_IN_MEMORY_FLEET_H_
#define CRAWLER_TESTS_UNIT_SCHEDULER_IN_MEMORY_FLEET_H_

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/clock/clock.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "services/scheduler/partition_fleet.h"

namespace crawler::scheduler {

class InMemoryFleet final : public PartitionFleet {
 public:
  // `n` partitions; `reachable` of them can be reached (a fleet about to grow), at least n.
  InMemoryFleet(uint32_t n, const Clock& clock, uint32_t reachable = 0)
      : n_(std::max(n, reachable)), clock_(clock) {
    layout_.count = n;
    for (uint32_t k = 0; k < n_; ++k) down_.push_back(false);
  }

  uint32_t size() const override { return layout_.Span(); }
  partition::PartitionLayout layout() const override { return layout_; }
  absl::Status SetLayout(const partition::PartitionLayout& layout) override {
    if (layout.Span() > n_) return absl::InvalidArgumentError("beyond the partitions");
    layout_ = layout;
    return absl::OkStatus();
  }
  frontier::HostMoveClient& HostMove(uint32_t k, const std::string& collection) override {
    auto& slot = clients_[{k, collection}];
    if (slot == nullptr) slot = std::make_unique<Forwarding>(*this, k, collection);
    return *slot;
  }

  frontier::FrontierClient& Partition(uint32_t k, const std::string& collection) override {
    auto& slot = clients_[{k, collection}];
    if (slot == nullptr) slot = std::make_unique<Forwarding>(*this, k, collection);
    return *slot;
  }
  frontier::HostControlClient& HostControl(uint32_t k, const std::string& collection) override {
    auto& slot = clients_[{k, collection}];
    if (slot == nullptr) slot = std::make_unique<Forwarding>(*this, k, collection);
    return *slot;
  }

  absl::Status Open(uint32_t k, const Collection& c,
                    std::optional<uint64_t> max_pages = std::nullopt,
                    uint64_t /*generation*/ = 0) override {
    if (down_[k]) return absl::UnavailableError(absl::StrCat("partition ", k, " down"));
    ++opens_;
    CoreSlot& core = cores_[{k, c.name}];
    // A focused collection's budget: its split, or an even share (as GrpcPartitionFleet).
    const uint32_t n = layout_.count;
    const uint64_t budget = max_pages.value_or(c.limits.max_pages / n + (k < c.limits.max_pages % n));
    if (core.frontier != nullptr) {
      if (absl::Status s = core.frontier->SetLayout(layout_); !s.ok()) return s;
      if (c.focus.enabled()) return core.frontier->SetPageBudget(budget);
      return absl::OkStatus();
    }
    core.store = std::make_unique<kv::InMemoryKvStore>(frontier::Frontier::ColumnFamilies());
    frontier::FrontierOptions options;
    options.partition_index = k;
    options.partition_count = layout_.count;
    options.reshard_to = layout_.reshard_to;
    options.resharded_from = layout_.resharded_from;
    options.revisit = c.revisit.options;
    if (c.focus.enabled()) {
      options.focus = c.focus.FrontierOptions();
      options.max_pages_total = budget;
    }
    auto f = frontier::Frontier::Open(options, *core.store, clock_);
    if (!f.ok()) return f.status();
    core.frontier = *std::move(f);
    core.local = std::make_unique<frontier::LocalFrontierClient>(*core.frontier);
    return absl::OkStatus();
  }

  absl::Status Drop(uint32_t k, const std::string& name) override {
    if (down_[k]) return absl::UnavailableError(absl::StrCat("partition ", k, " down"));
    cores_.erase({k, name});
    return absl::OkStatus();
  }

  void SetDown(uint32_t k, bool down) { down_[k] = down; }
  bool Holds(uint32_t k, const std::string& name) const { return cores_.contains({k, name}); }
  frontier::Frontier* Core(uint32_t k, const std::string& name) {
    auto it = cores_.find({k, name});
    return it == cores_.end() ? nullptr : it->second.frontier.get();
  }
  int opens() const { return opens_; }
  // RetuneRevisits calls that reached a partition's core.
  int retunes() const { return retunes_; }

 private:
  struct CoreSlot {
    std::unique_ptr<kv::InMemoryKvStore> store;
    std::unique_ptr<frontier::Frontier> frontier;
    std::unique_ptr<frontier::LocalFrontierClient> local;
  };

  // Looks the core up at every call, as a gRPC client reaches whatever the server holds.
  class Forwarding final : public frontier::FrontierClient,
                           public frontier::HostControlClient,
                           public frontier::HostMoveClient {
   public:
    Forwarding(InMemoryFleet& fleet, uint32_t k, std::string name)
        : fleet_(fleet), k_(k), name_(std::move(name)) {}
    absl::StatusOr<frontier::AddResult> AddUrls(
        const std::vector<frontier::UrlToAdd>& urls) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->AddUrls(urls);
    }
    absl::StatusOr<std::vector<frontier::LeasedTask>> Lease(size_t n, size_t per_host) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->Lease(n, per_host);
    }
    absl::StatusOr<frontier::CompleteResult> Complete(
        const std::vector<frontier::FetchOutcome>& outcomes) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->Complete(outcomes);
    }
    absl::StatusOr<size_t> ReportHostTimes(const std::vector<frontier::HostTime>& t) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ReportHostTimes(t);
    }
    absl::StatusOr<bool> IsExhausted() override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->IsExhausted();
    }
    absl::StatusOr<frontier::FrontierStats> Stats() override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->Stats();
    }
    absl::StatusOr<std::vector<std::optional<frontier::UrlRecord>>> LookupUrls(
        const std::vector<std::string>& urls) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->LookupUrls(urls);
    }
    absl::StatusOr<frontier::RevisitStatus> GetRevisitStatus() override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->GetRevisitStatus();
    }
    absl::Status RetuneRevisits(const recrawl::FleetSummary& fleet) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      ++fleet_.retunes_;
      return (*c)->RetuneRevisits(fleet);
    }
    absl::StatusOr<size_t> ReleaseLeases(const std::vector<frontier::LeaseId>& ids) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ReleaseLeases(ids);
    }
    absl::StatusOr<frontier::FetcherControlTable> HostControls(uint64_t known) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->HostControls(known);
    }
    absl::StatusOr<frontier::ListHostsResult> ListHosts(
        const frontier::ListHostsRequest& request) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ListHosts(request);
    }
    absl::StatusOr<frontier::HostDetail> GetHost(const std::string& host) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->GetHost(host);
    }
    absl::StatusOr<frontier::HostChangeResult> ControlHost(
        const std::string& host, const frontier::HostControlChange& change) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ControlHost(host, change);
    }
    absl::StatusOr<frontier::HostChangeResult> DropHostQueue(const std::string& host) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->DropHostQueue(host);
    }
    absl::StatusOr<frontier::ListHostUrlsResult> ListHostUrls(
        const frontier::ListHostUrlsRequest& request) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ListHostUrls(request);
    }
    absl::StatusOr<frontier::HostsToMove> ListHostsToMove(uint64_t after, size_t max) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ListHostsToMove(after, max);
    }
    absl::StatusOr<uint32_t> BeginHostMove(const std::string& host) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->BeginHostMove(host);
    }
    absl::StatusOr<frontier::HostChunk> ExportHost(const std::string& host,
                                                   const std::string& after,
                                                   size_t max) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ExportHost(host, after, max);
    }
    absl::Status ImportHost(const frontier::HostChunk& chunk) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ImportHost(chunk);
    }
    absl::StatusOr<uint64_t> ForgetHost(const std::string& host) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ForgetHost(host);
    }
    absl::StatusOr<frontier::HeldUrls> ListHeldUrls(uint64_t after, size_t max) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->ListHeldUrls(after, max);
    }
    absl::Status DeleteHeldUrls(const std::vector<uint64_t>& seqs) override {
      auto c = Get();
      if (!c.ok()) return c.status();
      return (*c)->DeleteHeldUrls(seqs);
    }


   private:
    absl::StatusOr<frontier::LocalFrontierClient*> Get() {
      if (fleet_.down_[k_]) return absl::UnavailableError("down");
      auto it = fleet_.cores_.find({k_, name_});
      if (it == fleet_.cores_.end()) return absl::NotFoundError(absl::StrCat("no ", name_));
      return it->second.local.get();
    }
    InMemoryFleet& fleet_;
    const uint32_t k_;
    const std::string name_;
  };

  const uint32_t n_;  // partitions reachable
  const Clock& clock_;
  partition::PartitionLayout layout_;
  std::vector<bool> down_;
  std::map<std::pair<uint32_t, std::string>, CoreSlot> cores_;
  std::map<std::pair<uint32_t, std::string>, std::unique_ptr<Forwarding>> clients_;
  int opens_ = 0;
  int retunes_ = 0;
};

}  // namespace crawler::scheduler

#endif  // CRAWLER_TESTS_UNIT_SCHEDULER_IN_MEMORY_FLEET_H_
