// The re-visit side of Frontier (docs/architecture.md §7): scheduling a page's next visit after a
// content outcome, and the fleet state the scheduler reads and tunes. Split from frontier.cc only
// for size; the class contract is in frontier.h.
#include <algorithm>
#include <memory>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/fingerprint/change_detection.h"
#include "lib/http/http_date.h"
#include "lib/recrawl/page_state.h"
#include "services/common/kv/kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/storage_format.h"

namespace crawler::frontier {
namespace {

// A number in (0, 1] that depends only on `text` (FNV-1a, then a murmur-style finaliser), the
// same in every process and on every machine.
double UnitPhase(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (static_cast<double>(h >> 11) + 1.0) / 9007199254740992.0;  // 2^53
}


// Stored fingerprints use 0 for "not computed".
fingerprint::ContentSignature Signature(uint64_t simhash, uint64_t change_digest) {
  fingerprint::ContentSignature signature;
  if (simhash != 0) signature.simhash = fingerprint::SimHash64(simhash);
  if (change_digest != 0) signature.digest = fingerprint::ChangeDigest(change_digest);
  return signature;
}

}  // namespace

Frontier::RevisitPlan Frontier::ScheduleRevisit(const FetchOutcome& outcome,
                                                const PreviousContent& previous,
                                                const std::string& url, UrlRecord& record,
                                                RevisitFleet& fleet) {
  const RevisitOptions& revisit = options_.revisit;
  recrawl::PageRevisitState page{.history = recrawl::VisitHistory(revisit.history_capacity)};
  bool in_histogram = false;
  if (!record.visit_history.empty()) {
    // A state that does not decode (a newer format, corruption) restarts the page's history:
    // re-visiting it is still right, only the evidence is lost.
    absl::StatusOr<recrawl::PageRevisitState> decoded =
        recrawl::PageRevisitState::Decode(record.visit_history);
    if (decoded.ok()) {
      page = *std::move(decoded);
      in_histogram = page.history.last_visit().has_value();
    } else {
      ++counters_.repairs;
    }
  }

  // Changed or not (docs/architecture.md §7): a 304 is unchanged; otherwise the main content's
  // change digests decide, then the SimHash (records from before digests, pages without main
  // content text: lib/fingerprint/change_detection.h), and only pages with neither (not HTML, too
  // little text) fall back to the validators or the length.
  bool changed = false;
  if (outcome.outcome != OutcomeClass::kNotModified) {
    const std::optional<bool> content_changed = fingerprint::ContentChanged(
        Signature(previous.fingerprint, previous.change_digest),
        Signature(outcome.content_fingerprint, outcome.change_digest),
        fingerprint::ChangeDetectionOptions{.threshold_bits = revisit.change_threshold_bits});
    if (content_changed.has_value()) {
      changed = *content_changed;
    } else if (!previous.etag.empty() && !outcome.etag.empty()) {
      changed = previous.etag != outcome.etag;
    } else {
      changed = previous.length != outcome.content_length;
    }
  }
  // When the page last changed: Last-Modified, else the lastmod of the sitemap that listed it
  // (one not after this visit, while the URL's lastmod is trusted). Either only counts where it
  // dates a change the content comparison found, inside the interval (docs/recrawl.md §3).
  std::optional<absl::Time> last_modified = http::ParseHttpDate(record.last_modified);
  if (!last_modified.has_value() && record.sitemap.lastmod != absl::InfinitePast() &&
      record.sitemap.lastmod <= record.fetch_time && LastmodTrusted(record)) {
    last_modified = record.sitemap.lastmod;
  }
  // The evidence holds the history as stored, with the decision made on it: out with the old
  // pair, in with the new one (a history without visits counts for nothing either way).
  if (fleet.evidence.has_value()) {
    fleet.evidence->Remove(page.history, 1.0, recrawl::CommittedVisitsPerDay(page.policy));
  }
  page.history.Record(record.fetch_time, changed, last_modified);
  if (in_histogram) {
    // A re-visit (the first visit only anchors the history): evidence of the fleet's rate.
    fleet.changes_seen += page.history.latest().changed ? 1 : 0;
    fleet.days_observed += page.history.latest().interval_days();
  }

  const double now_days = absl::ToDoubleSeconds(record.fetch_time - absl::UnixEpoch()) /
                          recrawl::kSecondsPerDay;
  const recrawl::Decision decision =
      revisit_policy_->Decide(recrawl::PageView{.history = page.history, .now_days = now_days},
                              page.policy);
  if (in_histogram) fleet.rates.Remove(page.policy.rate_per_day);
  page.policy = decision.state;
  fleet.rates.Add(page.policy.rate_per_day);
  if (fleet.evidence.has_value()) {
    fleet.evidence->Add(page.history, 1.0, recrawl::CommittedVisitsPerDay(page.policy));
  }
  record.visit_history = page.Encode();

  absl::Duration interval = revisit.max_interval;
  if (std::isfinite(decision.next_visit_in_days)) {
    interval = absl::Seconds(decision.next_visit_in_days * recrawl::kSecondsPerDay);
    // The first re-visit at a phase in (0, 1] of the interval (hash of the URL, deterministic):
    // pages discovered together then come back spread out, not as one burst per interval.
    if (!in_histogram) {
      interval *= UnitPhase(url);
    }
  }
  interval = std::clamp(interval, revisit.min_interval, revisit.max_interval);
  return RevisitPlan{.due = record.fetch_time + interval,
                     .changed = changed && page.history.size() > 0};
}

absl::Duration Frontier::SitemapRevisitIntervalLocked() const {
  // The interval the budget gives every page of the fleet on average (pages / budget): a
  // sitemap is read as often as a page is visited, so the lastmods it brings are about as
  // fresh as the visits they may bring forward.
  const RevisitOptions& revisit = options_.revisit;
  const double pages = static_cast<double>(revisit_fleet_.rates.page_count());
  const double budget = revisit_budget_.visits_per_day();
  absl::Duration interval = revisit.max_interval;
  if (pages > 0 && budget > 0) {
    interval = absl::Seconds(pages / budget * recrawl::kSecondsPerDay);
  }
  return std::clamp(interval, revisit.min_interval, revisit.max_interval);
}

absl::StatusOr<Frontier::RevisitSummaries> Frontier::RebuildRevisitSummariesLocked() const {
  RevisitSummaries summaries;
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> it =
      store_.NewIterator(storage::kUrlsFamily, "", "");
  if (!it.ok()) return it.status();
  for (; (*it)->Valid(); (*it)->Next()) {
    absl::StatusOr<UrlRecord> record = storage::DecodeUrlRecord((*it)->value());
    if (!record.ok() || record->visit_history.empty()) continue;
    absl::StatusOr<recrawl::PageRevisitState> page =
        recrawl::PageRevisitState::Decode(record->visit_history);
    // The same rules as ScheduleRevisit's: a page is in the histogram once it has a visit, and
    // its history is evidence whatever it holds.
    if (!page.ok()) continue;
    if (page->history.last_visit().has_value()) summaries.rates.Add(page->policy.rate_per_day);
    summaries.evidence.Add(page->history, 1.0, recrawl::CommittedVisitsPerDay(page->policy));
  }
  if (absl::Status status = (*it)->status(); !status.ok()) return status;
  return summaries;
}

absl::Status Frontier::RecoverRevisitEvidenceLocked() {
  const bool keep = revisit_policy_ != nullptr && options_.revisit.prior == "fitted";
  absl::StatusOr<std::string> stored =
      store_.Get(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey);
  if (!stored.ok() && !absl::IsNotFound(stored.status())) return stored.status();
  if (!keep) {
    // Not kept from here on, so not trusted later either.
    if (!stored.ok()) return absl::OkStatus();
    kv::WriteBatch batch;
    batch.Delete(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey);
    return store_.Write(batch);
  }
  std::string why;
  if (stored.ok()) {
    absl::StatusOr<recrawl::FleetEvidence> decoded = recrawl::FleetEvidence::Decode(*stored);
    if (decoded.ok()) {
      revisit_fleet_.evidence = *std::move(decoded);
      return absl::OkStatus();
    }
    why = absl::StrCat("did not decode (", decoded.status().message(), ")");
  } else if (revisit_fleet_.rates.page_count() > 0) {
    why = "is missing (an older version, or the fleet-mean prior, kept none)";
  } else {
    revisit_fleet_.evidence.emplace();  // a new fleet: nothing to rebuild
    return absl::OkStatus();
  }
  // Like the histogram, a summary of the URL records: rebuilt from them.
  absl::StatusOr<RevisitSummaries> rebuilt = RebuildRevisitSummariesLocked();
  if (!rebuilt.ok()) return rebuilt.status();
  revisit_fleet_.evidence = std::move(rebuilt->evidence);
  kv::WriteBatch batch;
  batch.Put(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey,
            revisit_fleet_.evidence->Encode());
  if (absl::Status status = store_.Write(batch); !status.ok()) return status;
  open_warnings_.push_back(absl::StrCat("frontier: the re-visit fleet evidence ", why,
                                        "; rebuilt from the URL records (",
                                        revisit_fleet_.evidence->page_count(), " pages)"));
  return absl::OkStatus();
}

uint64_t Frontier::PendingFirstVisitsLocked() const {
  const uint64_t queued = hosts_.totals().queued + hosts_.totals().in_flight;
  return queued > revisits_queued_ ? queued - revisits_queued_ : 0;
}

void Frontier::LeaveRevisitFleet(UrlRecord& record, RevisitFleet& fleet) {
  absl::StatusOr<recrawl::PageRevisitState> page =
      recrawl::PageRevisitState::Decode(record.visit_history);
  if (page.ok() && page->history.last_visit().has_value()) {
    fleet.rates.Remove(page->policy.rate_per_day);
  }
  if (page.ok() && fleet.evidence.has_value()) {
    fleet.evidence->Remove(page->history, 1.0, recrawl::CommittedVisitsPerDay(page->policy));
  }
  record.visit_history.clear();
}

void Frontier::JoinRevisitFleet(const UrlRecord& record, RevisitFleet& fleet) {
  absl::StatusOr<recrawl::PageRevisitState> page =
      recrawl::PageRevisitState::Decode(record.visit_history);
  if (!page.ok()) return;
  if (page->history.last_visit().has_value()) fleet.rates.Add(page->policy.rate_per_day);
  if (fleet.evidence.has_value()) {
    fleet.evidence->Add(page->history, 1.0, recrawl::CommittedVisitsPerDay(page->policy));
  }
}

void Frontier::PutRevisitFleet(const RevisitFleet& fleet, kv::WriteBatch& batch) {
  batch.Put(storage::kMetaFamily, storage::kMetaRevisitRatesKey, fleet.rates.Encode());
  batch.Put(storage::kMetaFamily, storage::kMetaRevisitObservationsKey,
            storage::EncodeRevisitObservations(fleet.changes_seen, fleet.days_observed));
  if (fleet.evidence.has_value()) {
    batch.Put(storage::kMetaFamily, storage::kMetaRevisitEvidenceKey, fleet.evidence->Encode());
  }
}

std::optional<absl::Time> Frontier::ScheduleFailedRevisit(const FetchOutcome& outcome,
                                                          const PreviousContent& previous,
                                                          UrlRecord& record,
                                                          RevisitFleet& fleet) const {
  auto gone = [](int status) { return status == 404 || status == 410; };
  if ((gone(outcome.http_status) && gone(previous.http_status)) ||
      outcome.outcome == OutcomeClass::kOutOfScope) {
    // Twice in a row: not a blip. The optimal solve must not spend budget on it any more.
    LeaveRevisitFleet(record, fleet);
    return std::nullopt;
  }
  // The previous visit may itself have failed: doubling the time since it doubles the interval
  // per consecutive failure, starting from the page's own interval, without a stored counter.
  const absl::Duration interval = std::clamp(2 * (record.fetch_time - previous.fetch_time),
                                             options_.revisit.min_interval,
                                             options_.revisit.max_interval);
  return record.fetch_time + interval;
}

RevisitStatus Frontier::GetRevisitStatus() const {
  absl::MutexLock lock(&mu_);
  RevisitStatus status;
  status.enabled = revisit_policy_ != nullptr;
  if (status.enabled) status.policy = std::string(revisit_policy_->name());
  status.rates = revisit_fleet_.rates;
  status.changes_seen = revisit_fleet_.changes_seen;
  status.days_observed = revisit_fleet_.days_observed;
  status.pending_urls = PendingFirstVisitsLocked();
  status.evidence = revisit_fleet_.evidence;
  return status;
}

absl::Status Frontier::RetuneRevisits(const recrawl::FleetSummary& fleet) {
  absl::MutexLock lock(&mu_);
  if (revisit_policy_ == nullptr) {
    return absl::FailedPreconditionError("re-visiting is off in this frontier");
  }
  if (!(fleet.budget_visits_per_day > 0) || !std::isfinite(fleet.budget_visits_per_day)) {
    return absl::InvalidArgumentError("re-visit budget must be a positive number");
  }
  // The scheduler re-tunes at its own period (and sooner while the crawl discovers pages): the
  // time since the previous tuning is the best guess of the time until the next, the period
  // over which decisions follow this one.
  const absl::Time now = clock_.Now();
  recrawl::FleetSummary tuned = fleet;
  if (last_retune_ != absl::InfinitePast() && now > last_retune_) {
    tuned.retune_period_days =
        std::max(tuned.retune_period_days,
                 absl::ToDoubleSeconds(now - last_retune_) / recrawl::kSecondsPerDay);
  }
  last_retune_ = now;
  revisit_policy_->Retune(tuned);
  double share = fleet.budget_visits_per_day;
  if (fleet.page_count > 0) {
    const double local =
        static_cast<double>(revisit_fleet_.rates.page_count() + PendingFirstVisitsLocked());
    share = std::min(share, share * local / static_cast<double>(fleet.page_count));
  }
  // A partition with no pages yet still gets a trickle, or its first re-visits would wait
  // for the next tuning.
  share = std::max(share, fleet.budget_visits_per_day * 1e-6);
  revisit_budget_.SetRate(share, options_.revisit.budget_burst, now);
  return absl::OkStatus();
}

}  // namespace crawler::frontier
