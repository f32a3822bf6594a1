#include "services/frontier/host_table.h"

#include <xxhash.h>

#include <algorithm>
#include <limits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "services/frontier/frontier_options.h"
#include "services/frontier/storage_format.h"

namespace crawler::frontier {
namespace {

// Host keys are at most storage::kMaxHostKeyBytes (255), so one chunk holds hundreds of them
// and wastes at most one key's room at its end.
constexpr size_t kChunkBytes = 64 * 1024;
static_assert(kChunkBytes > storage::kMaxHostKeyBytes);

uint64_t SaturatingSub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

HostTable::HostTable(const Limits& limits)
    : limits_(limits), index_(0, KeyHash{this}, KeyEq{this}) {}

size_t HostTable::KeyHash::operator()(std::string_view key) const {
  return XXH3_64bits(key.data(), key.size());
}

std::optional<uint32_t> HostTable::Find(std::string_view key) const {
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  return *it;
}

std::string_view HostTable::Store(std::string_view key) {
  if (chunks_.empty() || chunk_used_ + key.size() > kChunkBytes) {
    chunks_.push_back(std::make_unique<char[]>(std::max(kChunkBytes, key.size())));
    chunk_used_ = 0;
  }
  char* at = chunks_.back().get() + chunk_used_;
  std::memcpy(at, key.data(), key.size());
  chunk_used_ += key.size();
  return std::string_view(at, key.size());
}

uint32_t HostTable::Add(std::string_view key) {
  const auto host = static_cast<uint32_t>(states_.size());
  keys_.push_back(Store(key));
  states_.emplace_back();
  index_.insert(host);
  return host;
}

const HostControls& HostTable::controls(const State& state) const {
  static const HostControls kNone;
  return state.controls == 0 ? kNone : controls_[state.controls - 1].second;
}

void HostTable::SetControls(uint32_t host, const HostControls& controls) {
  State& state = states_[host];
  Account(host, state, static_cast<uint64_t>(-1));
  if (state.controls == 0) {
    controls_.emplace_back(host, controls);
    state.controls = static_cast<uint32_t>(controls_.size());
  } else {
    controls_[state.controls - 1].second = controls;
  }
  Account(host, state, 1);
}

uint64_t HostTable::MaxPages(const State& state) const {
  const HostControls& set = controls(state);
  return set.max_pages.has_value() ? *set.max_pages : limits_.max_pages_per_host;
}

absl::Time HostTable::ReadyTime(const State& state) const {
  return std::max(state.next_allowed, controls(state).blocked_until);
}

uint64_t HostTable::PagesLeft(const State& state) const {
  const uint64_t max_pages = MaxPages(state);
  if (max_pages == FrontierOptions::kUnlimited) return FrontierOptions::kUnlimited;
  return SaturatingSub(max_pages, state.pages + state.in_flight);
}

bool HostTable::Eligible(const State& state) const {
  return state.queued > 0 && state.in_flight < limits_.max_in_flight_per_host &&
         PagesLeft(state) > 0 && !state.moving;
}

storage::HostRecord HostTable::ToRecord(uint32_t host, const State& state) const {
  storage::HostRecord record;
  record.host_id = host;
  record.next_seq = state.next_seq;
  // Leased URLs keep their queue entries until their completion.
  record.queued = state.queued + state.in_flight;
  record.leased = state.in_flight;
  record.waiting = state.waiting;
  record.seen = state.seen;
  record.pages = state.pages;
  record.next_allowed = state.next_allowed;
  record.cursor = state.cursor;
  record.errors = state.errors;
  record.controls = controls(state);
  return record;
}

bool HostTable::RecordChanged(uint32_t host, const State& before, const State& after,
                              absl::Time now) const {
  if (after.cursor < before.cursor) return true;
  storage::HostRecord was = ToRecord(host, before);
  storage::HostRecord is = ToRecord(host, after);
  was.leased = is.leased = 0;
  was.cursor = is.cursor;
  if (is.next_allowed <= now) was.next_allowed = is.next_allowed;
  return was != is;
}

HostTable::State HostTable::FromRecord(const storage::HostRecord& record) {
  State state;
  state.next_seq = record.next_seq;
  state.queued = record.queued;
  state.waiting = record.waiting;
  state.seen = record.seen;
  state.pages = record.pages;
  state.next_allowed = record.next_allowed;
  if (record.leased == 0) state.cursor = record.cursor;
  state.errors = static_cast<uint32_t>(
      std::min<uint64_t>(record.errors, std::numeric_limits<uint32_t>::max()));
  return state;
}

void HostTable::Account(uint32_t host, const State& s, uint64_t sign) {
  // Unsigned wrap-around makes "subtract old, add new" exact for every counter.
  totals_.hosts += sign * (s.HoldsUrls() ? 1 : 0);
  totals_.queued += sign * s.queued;
  totals_.waiting += sign * s.waiting;
  totals_.in_flight += sign * s.in_flight;
  totals_.seen += sign * s.seen;
  totals_.pages += sign * s.pages;
  totals_.hosts_with_queued += sign * (s.queued > 0 ? 1 : 0);
  totals_.ready_hosts += sign * (Eligible(s) ? 1 : 0);
  totals_.pending_uncapped += sign * (PageCapped(s) ? 0 : s.queued + s.waiting);
  if (!Eligible(s)) return;
  if (sign == 1) {
    ready_.insert({ReadyTime(s), host});
  } else {
    ready_.erase({ReadyTime(s), host});
  }
}

void HostTable::Set(uint32_t host, const State& state) {
  State& old = states_[host];
  Account(host, old, static_cast<uint64_t>(-1));
  old = state;
  Account(host, old, 1);
}

}  // namespace crawler::frontier
