#include "services/scheduler/scheduler.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/url/host_key.h"

namespace crawler::scheduler {

absl::StatusOr<std::unique_ptr<Scheduler>> Scheduler::Create(
    const Collection& collection, const url::CanonicalizeOptions& canonical) {
  if (absl::Status s = collection.Validate(); !s.ok()) return s;
  std::unique_ptr<url::PublicSuffixList> psl;
  if (collection.scope.same_site_only) {
    absl::StatusOr<url::PublicSuffixList> loaded = url::PublicSuffixList::LoadDefault();
    if (!loaded.ok()) return loaded.status();
    psl = std::make_unique<url::PublicSuffixList>(*std::move(loaded));
  }
  std::unique_ptr<Scheduler> scheduler(new Scheduler(collection, std::move(psl)));
  for (const std::string& seed : collection.seeds) {
    absl::StatusOr<url::Url> parsed = url::Url::Parse(seed);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid seed \"", seed, "\": ", parsed.status().message()));
    }
    absl::StatusOr<url::CanonicalUrl> canonical_url = url::Canonicalize(*parsed, canonical);
    if (!canonical_url.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid seed \"", seed, "\": ", canonical_url.status().message()));
    }
    scheduler->seed_urls_.push_back(*std::move(parsed));
    scheduler->seed_canonical_.push_back(*std::move(canonical_url));
  }
  absl::StatusOr<scope::Scope> built =
      scope::Scope::Create(collection.scope, scheduler->seed_urls_, scheduler->psl_.get());
  if (!built.ok()) return built.status();
  scheduler->scope_ = std::make_unique<scope::Scope>(*std::move(built));
  return scheduler;
}

absl::StatusOr<SeedReport> Scheduler::FeedSeeds(frontier::FrontierClient& frontier) const {
  SeedReport report;
  report.seeds = seed_urls_.size();
  std::vector<frontier::UrlToAdd> batch;
  for (size_t i = 0; i < seed_urls_.size(); ++i) {
    const scope::Verdict verdict = scope_->Check(seed_urls_[i], seed_canonical_[i].str(), 0);
    if (verdict != scope::Verdict::kInScope) {
      report.rejected.push_back(
          absl::StrCat(seed_canonical_[i].str(), ": ", std::string(scope::VerdictName(verdict))));
      continue;
    }
    batch.push_back(frontier::UrlToAdd{.canonical_url = seed_canonical_[i].str(),
                                       .host_key = url::HostKey::Of(seed_urls_[i]).str(),
                                       .depth = 0});
  }
  if (!batch.empty()) {
    absl::StatusOr<frontier::AddResult> added = frontier.AddUrls(batch);
    if (!added.ok()) return added.status();
    report.queued = added->added;
    report.already_seen = added->already_seen;
  }
  return report;
}

}  // namespace crawler::scheduler
