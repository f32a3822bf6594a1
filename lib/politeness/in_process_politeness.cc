#include "lib/politeness/in_process_politeness.h"

#include <algorithm>
#include <random>

#include "absl/status/status.h"

namespace crawler::politeness {
InProcessPoliteness::InProcessPoliteness(const PolitenessOptions& options, const Clock& clock,
                                         uint64_t seed)
    : policy_(options), clock_(clock), rng_(seed) {}

absl::StatusOr<ClaimResult> InProcessPoliteness::Claim(const ClaimRequest& request) {
  const absl::Duration now = clock_.MonotonicNow();
  const int max_connections = policy_.options().max_connections_per_host;

  absl::MutexLock lock(&mu_);
  ++stats_.claims;
  Slot& host = hosts_[request.host_key];
  if (request.crawl_delay.has_value()) host.feedback.crawl_delay = request.crawl_delay;
  host.feedback.host_delay = request.host_delay;
  Slot* address = request.ip.empty() ? nullptr : &addresses_[request.ip];

  absl::Duration wait = std::max(host.next_allowed - now, absl::ZeroDuration());
  if (address != nullptr) wait = std::max(wait, address->next_allowed - now);
  const bool connections_free = host.in_flight < max_connections &&
                                (address == nullptr || address->in_flight < max_connections);
  if (wait > absl::ZeroDuration() || !connections_free) {
    return ClaimResult{.granted = false, .wait = wait};
  }

  // The spacing between request starts: the base delay, without the failure terms (those were
  // already applied to next_allowed by Release).
  HostFeedback base = host.feedback;
  base.consecutive_failures = 0;
  base.retry_after.reset();
  const absl::Duration delay = policy_.NextDelay(base, 0.0);
  host.next_allowed = now + delay;
  ++host.in_flight;
  ++stats_.granted;
  if (address != nullptr) {
    address->next_allowed = now + delay;
    ++address->in_flight;
  }
  return ClaimResult{.granted = true, .wait = absl::ZeroDuration()};
}

absl::StatusOr<ReleaseResult> InProcessPoliteness::Release(const ReleaseRequest& request) {
  const absl::Duration now = clock_.MonotonicNow();
  absl::MutexLock lock(&mu_);
  auto host_it = hosts_.find(request.host_key);
  if (host_it == hosts_.end() || host_it->second.in_flight <= 0) {
    return absl::FailedPreconditionError("Release without a granted claim for " + request.host_key);
  }
  Slot& host = host_it->second;
  --host.in_flight;
  ++stats_.releases;
  host.feedback.last_response_time = request.response_time;
  host.feedback.consecutive_failures = request.failed ? host.feedback.consecutive_failures + 1 : 0;
  host.feedback.retry_after = request.retry_after;
  // The gap after a response: a slow or failing host gets room after it answered, not only
  // between request starts.
  const absl::Duration delay = policy_.NextDelay(host.feedback, JitterUnit(rng_));
  host.feedback.retry_after.reset();  // a Retry-After blocks once, it is not a standing delay
  host.next_allowed = std::max(host.next_allowed, now + delay);
  absl::Duration next = host.next_allowed;

  if (!request.ip.empty()) {
    auto address_it = addresses_.find(request.ip);
    if (address_it != addresses_.end() && address_it->second.in_flight > 0) {
      Slot& address = address_it->second;
      --address.in_flight;
      address.next_allowed = std::max(address.next_allowed, now + delay);
      next = std::max(next, address.next_allowed);
    }
  }
  return ReleaseResult{.wait = next - now};
}

size_t InProcessPoliteness::Forget(absl::Duration idle) {
  const absl::Duration now = clock_.MonotonicNow();
  absl::MutexLock lock(&mu_);
  auto idle_slot = [&](const Slot& slot) {
    return slot.in_flight == 0 && slot.feedback.consecutive_failures == 0 &&
           slot.next_allowed + idle < now;
  };
  const size_t before = hosts_.size() + addresses_.size();
  absl::erase_if(hosts_, [&](const auto& entry) { return idle_slot(entry.second); });
  absl::erase_if(addresses_, [&](const auto& entry) { return idle_slot(entry.second); });
  return before - hosts_.size() - addresses_.size();
}

PolitenessStats InProcessPoliteness::Stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

size_t InProcessPoliteness::HostCount() const {
  absl::MutexLock lock(&mu_);
  return hosts_.size();
}

size_t InProcessPoliteness::AddressCount() const {
  absl::MutexLock lock(&mu_);
  return addresses_.size();
}

}  // namespace crawler::politeness
