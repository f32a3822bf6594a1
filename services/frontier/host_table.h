// HostTable: the Frontier's in-memory header of every host it has seen (frontier memory grows
// with hosts, not URLs: docs/architecture.md §2.3). A host's header holds its counters (the
// persisted part mirrors its frontier.hosts record, storage_format.h), its politeness hint, and
// the lower bound of its queue's keys in the store. The table keeps, in step with every header
// change, the totals over all hosts and the index of hosts ready to lease from, by hint.
//
// Memory per host, measured by bench/frontier-scale (docs/benchmarks.md): the key's bytes in a
// chunked arena (no allocation per host), a 16-byte view of it, a 4-byte slot in the key index
// (ids hashed by their key), the header, and one entry in the ready index while the host is
// ready.
//
// Host ids are dense and never reused: the n-th host added has id n - 1.
//
// Thread-safety: not thread-safe; the Frontier's mutex guards it.
#ifndef CRAWLER_SERVICES_FRONTIER_HOST_TABLE_H_
#define CRAWLER_SERVICES_FRONTIER_HOST_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "services/frontier/host_api.h"
#include "services/frontier/storage_format.h"

namespace crawler::frontier {

class HostTable {
 public:
  // One host's header.
  struct State {
    uint64_t next_seq = 0;
    uint64_t queued = 0;  // queued and not leased
    uint64_t waiting = 0;
    uint64_t seen = 0;
    uint64_t pages = 0;
    uint32_t in_flight = 0;
    // 1 + the index of the host's controls in the table's list of them; 0: none set. Hosts with
    // controls are few, so they live beside the headers (this field fills padding).
    uint32_t controls = 0;
    absl::Time next_allowed = absl::InfinitePast();
    // Lower bound of the host's live queue keys: scans start here instead of wading through
    // the tombstones of entries already popped.
    storage::QueuePos cursor;
    // Attempts ended by a network error, a 5xx or a 429 (saturating).
    uint32_t errors = 0;
    // Moving to another partition (Frontier::BeginHostMove): never ready, whatever it holds.
    // Not in the host record: the move's own key in the meta family keeps it.
    bool moving = false;

    // False for a host that moved to another partition: its id stays, its header is empty (a
    // host is added with its first URL, so every other host has seen one).
    bool HoldsUrls() const { return seen > 0; }
  };
  // Totals over all hosts.
  struct Totals {
    // Hosts holding URLs: all but those that moved to another partition (an empty header).
    uint64_t hosts = 0;
    uint64_t queued = 0;
    uint64_t waiting = 0;
    uint64_t in_flight = 0;
    uint64_t seen = 0;
    uint64_t pages = 0;
    uint64_t hosts_with_queued = 0;
    uint64_t ready_hosts = 0;
    // Queued + waiting URLs of hosts whose page cap is not reached: work that can still happen.
    uint64_t pending_uncapped = 0;
  };
  // What makes a host ready (FrontierOptions' fields of the same names).
  struct Limits {
    uint32_t max_in_flight_per_host = 1;
    uint64_t max_pages_per_host = std::numeric_limits<uint64_t>::max();
  };
  // Ready hosts by (ReadyTime, host id).
  using ReadyIndex = absl::btree_set<std::pair<absl::Time, uint32_t>>;

  explicit HostTable(const Limits& limits);
  HostTable(const HostTable&) = delete;
  HostTable& operator=(const HostTable&) = delete;

  size_t size() const { return states_.size(); }
  // The id of the host with this key, if it was added.
  std::optional<uint32_t> Find(std::string_view key) const;
  // REQUIRES: host < size(). The view stays valid for the table's life.
  std::string_view key(uint32_t host) const { return keys_[host]; }
  const State& state(uint32_t host) const { return states_[host]; }

  // Adds a host with an empty header; returns its id (the previous size()).
  // REQUIRES: Find(key) is empty.
  uint32_t Add(std::string_view key);
  // Replaces host `host`'s header, keeping the totals and the ready index in step.
  void Set(uint32_t host, const State& state);

  const Totals& totals() const { return totals_; }
  const ReadyIndex& ready() const { return ready_; }

  // The operator's controls of the host whose header is `state` (default ones if none).
  const HostControls& controls(const State& state) const;
  // Replaces host `host`'s controls, keeping the totals and the ready index in step.
  void SetControls(uint32_t host, const HostControls& controls);
  // Calls `visit(host, controls)` for every host whose controls were ever set.
  template <typename Visit>
  void ForEachControlled(Visit&& visit) const {
    for (const auto& [host, controls] : controls_) visit(host, controls);
  }

  // Has queued URLs, is below its in-flight cap, has pages left and is not moving. A blocked
  // host stays eligible: it waits in the ready index until its block ends (ReadyTime).
  bool Eligible(const State& state) const;
  // The host's page cap: its controls' max_pages, else the collection's (kUnlimited).
  uint64_t MaxPages(const State& state) const;
  bool PageCapped(const State& state) const { return state.pages >= MaxPages(state); }
  // Pages the host may still be leased for (kUnlimited without a per-host cap).
  uint64_t PagesLeft(const State& state) const;
  // Where the host sorts in the ready index: its next-allowed hint, or the end of its block if
  // later.
  absl::Time ReadyTime(const State& state) const;
  // The frontier.hosts record of `host` with header `state`.
  storage::HostRecord ToRecord(uint32_t host, const State& state) const;
  // Whether `host`'s stored record, written from header `before` or earlier, must be written
  // again for header `after` at `now`. Not when only a lease moved: entries from queued to
  // leased (their sum is the record's `queued`), the cursor forward past them, or the
  // politeness hint to a time not after `now` (a Lease moves it to now, which sends the host to
  // the back of the ready order; a restart is later anyway). A restart voids the leases and
  // reads those entries again from the older record's cursor, which lies at or before them.
  bool RecordChanged(uint32_t host, const State& before, const State& after,
                     absl::Time now) const;
  // The header a record describes (its controls aside: SetControls). Leased entries count as
  // queued: their leases ended with the process (or the partition) that gave them. A record
  // that counts leases starts the queue scan at the host's first key, where they may lie; one
  // that counts none, at its cursor (entries leased after it was written lie at or after it).
  static State FromRecord(const storage::HostRecord& record);

 private:
  // The key index hashes and compares host ids by their keys, and takes keys for lookups.
  struct KeyHash {
    using is_transparent = void;
    const HostTable* table;
    size_t operator()(uint32_t host) const { return (*this)(table->key(host)); }
    size_t operator()(std::string_view key) const;
  };
  struct KeyEq {
    using is_transparent = void;
    const HostTable* table;
    std::string_view View(uint32_t host) const { return table->key(host); }
    std::string_view View(std::string_view key) const { return key; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return View(a) == View(b);
    }
  };

  // Takes `state` out of (sign -1) or into (sign 1) the totals and the ready index of `host`.
  void Account(uint32_t host, const State& state, uint64_t sign);
  // Copies `key` into the arena; the view never moves.
  std::string_view Store(std::string_view key);

  const Limits limits_;
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = 0;
  std::deque<std::string_view> keys_;
  std::deque<State> states_;
  std::deque<std::pair<uint32_t, HostControls>> controls_;  // (host, its controls)
  absl::flat_hash_set<uint32_t, KeyHash, KeyEq> index_;
  ReadyIndex ready_;
  Totals totals_;
};

}  // namespace crawler::frontier

#endif  // CRAWLER_SERVICES_FRONTIER_HOST_TABLE_H_
