#include "services/scheduler/revisit_tuner.h"

#include <optional>
#include <utility>

namespace crawler::scheduler {

RevisitTuner::RevisitTuner(RevisitTunerOptions options, const Scheduler& scheduler,
                           std::vector<frontier::FrontierClient*> partitions,
                           std::function<uint64_t()> known_urls,
                           std::function<void(const absl::Status&)> on_error)
    : options_(options),
      scheduler_(scheduler),
      partitions_(std::move(partitions)),
      known_urls_(std::move(known_urls)),
      on_error_(std::move(on_error)) {}

absl::Status RevisitTuner::TuneNow(absl::Time now) { return Tune(now); }

void RevisitTuner::Tick(absl::Time now) {
  const uint64_t known = known_urls_();
  const auto grown = static_cast<uint64_t>(static_cast<double>(known_at_tuning_) * options_.growth);
  if (now - last_tuning_ < options_.interval && known <= known_at_tuning_ + grown) return;
  if (absl::Status s = Tune(now); !s.ok() && on_error_) on_error_(s);
}

absl::Status RevisitTuner::Tune(absl::Time now) {
  known_at_tuning_ = known_urls_();
  last_tuning_ = now;
  std::optional<recrawl::RatePrior> previous_prior;
  {
    absl::MutexLock lock(&mu_);
    if (latest_.has_value()) previous_prior = latest_->prior;
  }
  absl::StatusOr<RevisitTuning> tuned = scheduler_.TuneRevisits(
      partitions_, previous_prior.has_value() ? &*previous_prior : nullptr);
  absl::MutexLock lock(&mu_);
  ++attempts_;
  if (!tuned.ok()) return tuned.status();
  latest_ = *std::move(tuned);
  return absl::OkStatus();
}

std::optional<RevisitTuning> RevisitTuner::latest() const {
  absl::MutexLock lock(&mu_);
  return latest_;
}

uint64_t RevisitTuner::attempts() const {
  absl::MutexLock lock(&mu_);
  return attempts_;
}

}  // namespace crawler::scheduler
