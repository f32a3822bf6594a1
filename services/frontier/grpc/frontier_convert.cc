#include "services/frontier/grpc/frontier_convert.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "services/common/grpc/proto_convert.h"

namespace crawler::frontier {
namespace {

using grpc_common::DecodeEach;
using grpc_common::DurationFromProto;
using grpc_common::DurationToProto;
using grpc_common::FieldPath;
using grpc_common::InvalidField;
using grpc_common::OptionalDurationFromProto;
using grpc_common::OptionalTimeFromProto;
using grpc_common::TimeFromProto;
using grpc_common::TimeToProto;

// The wire numbers are the on-disk numbers of url_record.h.
static_assert(static_cast<int>(OutcomeClass::kFetched) == v1::OUTCOME_CLASS_FETCHED);
static_assert(static_cast<int>(OutcomeClass::kNotModified) == v1::OUTCOME_CLASS_NOT_MODIFIED);
static_assert(static_cast<int>(OutcomeClass::kRedirect) == v1::OUTCOME_CLASS_REDIRECT);
static_assert(static_cast<int>(OutcomeClass::kHttpError) == v1::OUTCOME_CLASS_HTTP_ERROR);
static_assert(static_cast<int>(OutcomeClass::kNetworkError) == v1::OUTCOME_CLASS_NETWORK_ERROR);
static_assert(static_cast<int>(OutcomeClass::kRobotsDenied) == v1::OUTCOME_CLASS_ROBOTS_DENIED);
static_assert(static_cast<int>(OutcomeClass::kDuplicate) == v1::OUTCOME_CLASS_DUPLICATE);
static_assert(static_cast<int>(OutcomeClass::kOutOfScope) == v1::OUTCOME_CLASS_OUT_OF_SCOPE);
static_assert(kMaxOutcomeClass == v1::OutcomeClass_MAX);
static_assert(static_cast<int>(UrlStatus::kQueued) == v1::URL_STATUS_QUEUED);
static_assert(static_cast<int>(UrlStatus::kWaiting) == v1::URL_STATUS_WAITING);
static_assert(static_cast<int>(UrlStatus::kDone) == v1::URL_STATUS_DONE);
static_assert(static_cast<int>(UrlStatus::kDropped) == v1::URL_STATUS_DROPPED);
static_assert(v1::UrlStatus_MAX == v1::URL_STATUS_DROPPED);

absl::Status Required(std::string_view field) { return InvalidField(field, "required"); }

absl::Status CheckCollection(std::string_view collection) {
  if (collection.empty()) return Required("collection");
  return absl::OkStatus();
}

absl::StatusOr<uint8_t> PriorityFromProto(uint32_t priority, std::string_view field) {
  if (priority > 255) return InvalidField(field, "must be in [0, 255]");
  return static_cast<uint8_t>(priority);
}

uint32_t SaturateToUint32(size_t n) {
  return n > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                  : static_cast<uint32_t>(n);
}

v1::PreviousFetch PreviousToProto(const PreviousFetch& previous) {
  v1::PreviousFetch p;
  p.set_outcome(ToProto(previous.outcome));
  p.set_http_status(previous.http_status);
  if (previous.fetch_time != absl::InfinitePast()) {
    *p.mutable_fetch_time() = TimeToProto(previous.fetch_time);
  }
  p.set_etag(previous.etag);
  p.set_last_modified(previous.last_modified);
  p.set_content_fingerprint(previous.content_fingerprint);
  return p;
}

absl::StatusOr<PreviousFetch> PreviousFromProto(const v1::PreviousFetch& p,
                                                std::string_view field) {
  PreviousFetch previous;
  absl::StatusOr<OutcomeClass> outcome = FromProto(p.outcome(), FieldPath(field, "outcome"));
  if (!outcome.ok()) return outcome.status();
  previous.outcome = *outcome;
  previous.http_status = p.http_status();
  absl::StatusOr<absl::Time> fetch_time = OptionalTimeFromProto(
      p.has_fetch_time(), p.fetch_time(), absl::InfinitePast(), FieldPath(field, "fetch_time"));
  if (!fetch_time.ok()) return fetch_time.status();
  previous.fetch_time = *fetch_time;
  previous.etag = p.etag();
  previous.last_modified = p.last_modified();
  previous.content_fingerprint = p.content_fingerprint();
  return previous;
}

v1::SitemapHints HintsToProto(const SitemapHints& hints) {
  v1::SitemapHints p;
  if (hints.lastmod != absl::InfinitePast()) *p.mutable_lastmod() = TimeToProto(hints.lastmod);
  p.set_changefreq(hints.changefreq);
  if (hints.priority_permille >= 0) {
    p.set_priority_permille(static_cast<uint32_t>(hints.priority_permille));
  }
  return p;
}

absl::StatusOr<SitemapHints> HintsFromProto(const v1::SitemapHints& p, std::string_view field) {
  SitemapHints hints;
  absl::StatusOr<absl::Time> lastmod = OptionalTimeFromProto(
      p.has_lastmod(), p.lastmod(), absl::InfinitePast(), FieldPath(field, "lastmod"));
  if (!lastmod.ok()) return lastmod.status();
  hints.lastmod = *lastmod;
  if (p.changefreq() > 7) return InvalidField(FieldPath(field, "changefreq"), "must be in [0, 7]");
  hints.changefreq = static_cast<uint8_t>(p.changefreq());
  if (p.has_priority_permille()) {
    if (p.priority_permille() > 1000) {
      return InvalidField(FieldPath(field, "priority_permille"), "must be in [0, 1000]");
    }
    hints.priority_permille = static_cast<int16_t>(p.priority_permille());
  }
  return hints;
}

absl::StatusOr<uint8_t> SitemapLevelFromProto(uint32_t level, std::string_view field) {
  if (level > kMaxSitemapLevel) {
    return InvalidField(field,
                        absl::StrCat("must be in [0, ", static_cast<int>(kMaxSitemapLevel), "]"));
  }
  return static_cast<uint8_t>(level);
}

// A URL's sitemap level and what a sitemap said of it (UrlToAdd, UrlRecord): `field`'s
// sitemap_level and sitemap, checked.
template <typename Proto>
absl::Status SitemapFieldsFromProto(const Proto& p, std::string_view field, uint8_t& level,
                                    SitemapHints& hints) {
  absl::StatusOr<uint8_t> checked_level =
      SitemapLevelFromProto(p.sitemap_level(), FieldPath(field, "sitemap_level"));
  if (!checked_level.ok()) return checked_level.status();
  absl::StatusOr<SitemapHints> checked_hints =
      HintsFromProto(p.sitemap(), FieldPath(field, "sitemap"));
  if (!checked_hints.ok()) return checked_hints.status();
  level = *checked_level;
  hints = *checked_hints;
  return absl::OkStatus();
}

v1::LeasedTask TaskToProto(const LeasedTask& task) {
  v1::LeasedTask p;
  p.set_lease_id(task.lease_id);
  p.set_canonical_url(task.canonical_url);
  p.set_host_key(task.host_key);
  p.set_depth(task.depth);
  p.set_priority(task.priority);
  *p.mutable_deadline() = TimeToProto(task.deadline);
  p.set_attempt(task.attempt);
  if (task.previous.has_value()) *p.mutable_previous() = PreviousToProto(*task.previous);
  p.set_sitemap_level(task.sitemap_level);
  return p;
}

absl::StatusOr<LeasedTask> TaskFromProto(const v1::LeasedTask& p, std::string_view field) {
  LeasedTask task;
  if (p.lease_id() == 0) return Required(FieldPath(field, "lease_id"));
  task.lease_id = p.lease_id();
  task.canonical_url = p.canonical_url();
  task.host_key = p.host_key();
  task.depth = p.depth();
  absl::StatusOr<uint8_t> priority = PriorityFromProto(p.priority(), FieldPath(field, "priority"));
  if (!priority.ok()) return priority.status();
  task.priority = *priority;
  absl::StatusOr<uint8_t> level =
      SitemapLevelFromProto(p.sitemap_level(), FieldPath(field, "sitemap_level"));
  if (!level.ok()) return level.status();
  task.sitemap_level = *level;
  if (!p.has_deadline()) return Required(FieldPath(field, "deadline"));
  absl::StatusOr<absl::Time> deadline = TimeFromProto(p.deadline(), FieldPath(field, "deadline"));
  if (!deadline.ok()) return deadline.status();
  task.deadline = *deadline;
  task.attempt = p.attempt();
  if (p.has_previous()) {
    absl::StatusOr<PreviousFetch> previous =
        PreviousFromProto(p.previous(), FieldPath(field, "previous"));
    if (!previous.ok()) return previous.status();
    task.previous = *std::move(previous);
  }
  return task;
}

v1::FetchOutcome OutcomeToProto(const FetchOutcome& outcome) {
  v1::FetchOutcome p;
  p.set_lease_id(outcome.lease_id);
  p.set_outcome(ToProto(outcome.outcome));
  p.set_http_status(outcome.http_status);
  if (outcome.fetch_time != absl::InfinitePast()) {
    *p.mutable_fetch_time() = TimeToProto(outcome.fetch_time);
  }
  p.set_etag(outcome.etag);
  p.set_last_modified(outcome.last_modified);
  p.set_content_fingerprint(outcome.content_fingerprint);
  p.set_content_length(outcome.content_length);
  if (outcome.host_next_allowed != absl::InfinitePast()) {
    *p.mutable_host_next_allowed() = TimeToProto(outcome.host_next_allowed);
  }
  p.set_retry(outcome.retry);
  p.set_change_digest(outcome.change_digest);
  p.set_new_external_links(outcome.new_external_links);
  return p;
}

absl::StatusOr<FetchOutcome> OutcomeFromProto(const v1::FetchOutcome& p, std::string_view field) {
  FetchOutcome outcome;
  if (p.lease_id() == 0) return Required(FieldPath(field, "lease_id"));
  outcome.lease_id = p.lease_id();
  absl::StatusOr<OutcomeClass> outcome_class = FromProto(p.outcome(), FieldPath(field, "outcome"));
  if (!outcome_class.ok()) return outcome_class.status();
  outcome.outcome = *outcome_class;
  outcome.http_status = p.http_status();
  absl::StatusOr<absl::Time> fetch_time = OptionalTimeFromProto(
      p.has_fetch_time(), p.fetch_time(), absl::InfinitePast(), FieldPath(field, "fetch_time"));
  if (!fetch_time.ok()) return fetch_time.status();
  outcome.fetch_time = *fetch_time;
  outcome.etag = p.etag();
  outcome.last_modified = p.last_modified();
  outcome.content_fingerprint = p.content_fingerprint();
  outcome.content_length = p.content_length();
  outcome.change_digest = p.change_digest();
  absl::StatusOr<absl::Time> next_allowed =
      OptionalTimeFromProto(p.has_host_next_allowed(), p.host_next_allowed(), absl::InfinitePast(),
                            FieldPath(field, "host_next_allowed"));
  if (!next_allowed.ok()) return next_allowed.status();
  outcome.host_next_allowed = *next_allowed;
  outcome.retry = p.retry();
  outcome.new_external_links = p.new_external_links();
  return outcome;
}

absl::StatusOr<recrawl::RateHistogram> HistogramFromProto(const std::string& bytes,
                                                          std::string_view field) {
  absl::StatusOr<recrawl::RateHistogram> histogram = recrawl::RateHistogram::Decode(bytes);
  if (!histogram.ok()) return InvalidField(field, std::string(histogram.status().message()));
  return histogram;
}

}  // namespace

v1::OutcomeClass ToProto(OutcomeClass outcome) {
  return static_cast<v1::OutcomeClass>(static_cast<int>(outcome));
}

absl::StatusOr<OutcomeClass> FromProto(v1::OutcomeClass outcome, std::string_view field) {
  if (outcome == v1::OUTCOME_CLASS_UNSPECIFIED) return Required(field);
  if (!v1::OutcomeClass_IsValid(outcome)) {
    return InvalidField(field, absl::StrCat("unknown outcome class ", static_cast<int>(outcome)));
  }
  return static_cast<OutcomeClass>(static_cast<int>(outcome));
}

v1::UrlStatus ToProto(UrlStatus status) {
  return static_cast<v1::UrlStatus>(static_cast<int>(status));
}

absl::StatusOr<UrlStatus> FromProto(v1::UrlStatus status, std::string_view field) {
  if (status == v1::URL_STATUS_UNSPECIFIED) return Required(field);
  if (!v1::UrlStatus_IsValid(status)) {
    return InvalidField(field, absl::StrCat("unknown URL status ", static_cast<int>(status)));
  }
  return static_cast<UrlStatus>(static_cast<int>(status));
}

v1::AddUrlsRequest ToAddUrlsRequest(std::string_view collection,
                                    const std::vector<UrlToAdd>& urls) {
  v1::AddUrlsRequest request;
  request.set_collection(std::string(collection));
  request.mutable_urls()->Reserve(static_cast<int>(urls.size()));
  for (const UrlToAdd& url : urls) ToProto(url, *request.add_urls());
  return request;
}

void ToProto(const UrlToAdd& url, v1::UrlToAdd& p) {
  p.set_canonical_url(url.canonical_url);
  p.set_host_key(url.host_key);
  p.set_depth(url.depth);
  p.set_discovered_from(url.discovered_from);
  p.set_priority(url.priority);
  p.set_sitemap_level(url.sitemap_level);
  if (!url.sitemap.empty()) *p.mutable_sitemap() = HintsToProto(url.sitemap);
}

absl::StatusOr<UrlToAdd> FromProto(const v1::UrlToAdd& p, std::string_view field) {
  absl::StatusOr<uint8_t> priority = PriorityFromProto(p.priority(), FieldPath(field, "priority"));
  if (!priority.ok()) return priority.status();
  // Empty or oversized URLs and host keys are the frontier's to count (AddResult::invalid),
  // not a malformed request.
  UrlToAdd url{.canonical_url = p.canonical_url(),
               .host_key = p.host_key(),
               .depth = p.depth(),
               .discovered_from = p.discovered_from(),
               .priority = *priority};
  if (absl::Status s = SitemapFieldsFromProto(p, field, url.sitemap_level, url.sitemap); !s.ok()) {
    return s;
  }
  return url;
}

absl::StatusOr<std::vector<UrlToAdd>> FromAddUrlsRequest(const v1::AddUrlsRequest& request) {
  if (absl::Status s = CheckCollection(request.collection()); !s.ok()) return s;
  std::vector<UrlToAdd> urls;
  urls.reserve(request.urls_size());
  for (int i = 0; i < request.urls_size(); ++i) {
    absl::StatusOr<UrlToAdd> url = FromProto(request.urls(i), FieldPath("urls", i));
    if (!url.ok()) return url.status();
    urls.push_back(*std::move(url));
  }
  return urls;
}

v1::AddUrlsResponse ToProto(const AddResult& result) {
  v1::AddUrlsResponse p;
  p.set_added(result.added);
  p.set_already_seen(result.already_seen);
  p.set_rejected_by_limit(result.rejected_by_limit);
  p.set_invalid(result.invalid);
  p.set_held(result.held);
  p.set_lastmod_updates(result.lastmod_updates);
  p.set_lastmod_pulls(result.lastmod_pulls);
  return p;
}

AddResult FromProto(const v1::AddUrlsResponse& p) {
  return {.added = p.added(),
          .already_seen = p.already_seen(),
          .rejected_by_limit = p.rejected_by_limit(),
          .invalid = p.invalid(),
          .held = p.held(),
          .lastmod_updates = p.lastmod_updates(),
          .lastmod_pulls = p.lastmod_pulls()};
}

v1::LeaseRequest ToLeaseRequest(std::string_view collection, const LeaseArgs& args) {
  v1::LeaseRequest request;
  request.set_collection(std::string(collection));
  request.set_max_urls(SaturateToUint32(args.max_urls));
  request.set_max_per_host(SaturateToUint32(args.max_per_host));
  return request;
}

absl::StatusOr<LeaseArgs> FromLeaseRequest(const v1::LeaseRequest& request) {
  if (absl::Status s = CheckCollection(request.collection()); !s.ok()) return s;
  if (request.max_urls() == 0) return InvalidField("max_urls", "must be >= 1");
  if (request.max_per_host() == 0) return InvalidField("max_per_host", "must be >= 1");
  return LeaseArgs{.max_urls = request.max_urls(), .max_per_host = request.max_per_host()};
}

v1::LeaseResponse ToLeaseResponse(const std::vector<LeasedTask>& tasks) {
  v1::LeaseResponse response;
  response.mutable_tasks()->Reserve(static_cast<int>(tasks.size()));
  for (const LeasedTask& task : tasks) *response.add_tasks() = TaskToProto(task);
  return response;
}

absl::StatusOr<std::vector<LeasedTask>> FromLeaseResponse(const v1::LeaseResponse& response) {
  return DecodeEach<LeasedTask>(response.tasks(), "tasks", TaskFromProto);
}

v1::CompleteRequest ToCompleteRequest(std::string_view collection,
                                      const std::vector<FetchOutcome>& outcomes) {
  v1::CompleteRequest request;
  request.set_collection(std::string(collection));
  request.mutable_outcomes()->Reserve(static_cast<int>(outcomes.size()));
  for (const FetchOutcome& outcome : outcomes) *request.add_outcomes() = OutcomeToProto(outcome);
  return request;
}

absl::StatusOr<std::vector<FetchOutcome>> FromCompleteRequest(const v1::CompleteRequest& request) {
  if (absl::Status s = CheckCollection(request.collection()); !s.ok()) return s;
  return DecodeEach<FetchOutcome>(request.outcomes(), "outcomes", OutcomeFromProto);
}

v1::CompleteResponse ToProto(const CompleteResult& result) {
  v1::CompleteResponse p;
  p.set_accepted(result.accepted);
  p.set_retries_scheduled(result.retries_scheduled);
  p.mutable_unknown_leases()->Add(result.unknown_leases.begin(), result.unknown_leases.end());
  return p;
}

CompleteResult FromProto(const v1::CompleteResponse& p) {
  return {.accepted = p.accepted(),
          .retries_scheduled = p.retries_scheduled(),
          .unknown_leases = {p.unknown_leases().begin(), p.unknown_leases().end()}};
}

v1::ReportHostTimesRequest ToReportHostTimesRequest(std::string_view collection,
                                                    const std::vector<HostTime>& times) {
  v1::ReportHostTimesRequest request;
  request.set_collection(std::string(collection));
  request.mutable_times()->Reserve(static_cast<int>(times.size()));
  for (const HostTime& time : times) {
    v1::HostTime& p = *request.add_times();
    p.set_host_key(time.host_key);
    *p.mutable_next_allowed() = TimeToProto(time.next_allowed);
  }
  return request;
}

absl::StatusOr<std::vector<HostTime>> FromReportHostTimesRequest(
    const v1::ReportHostTimesRequest& request) {
  if (absl::Status s = CheckCollection(request.collection()); !s.ok()) return s;
  std::vector<HostTime> times;
  times.reserve(request.times_size());
  for (int i = 0; i < request.times_size(); ++i) {
    const v1::HostTime& p = request.times(i);
    const std::string field = FieldPath("times", i);
    if (p.host_key().empty()) return Required(FieldPath(field, "host_key"));
    if (!p.has_next_allowed()) return Required(FieldPath(field, "next_allowed"));
    absl::StatusOr<absl::Time> next_allowed =
        TimeFromProto(p.next_allowed(), FieldPath(field, "next_allowed"));
    if (!next_allowed.ok()) return next_allowed.status();
    times.push_back({.host_key = p.host_key(), .next_allowed = *next_allowed});
  }
  return times;
}

v1::FrontierStats ToProto(const FrontierStats& stats) {
  v1::FrontierStats p;
  p.set_hosts(stats.hosts);
  p.set_hosts_with_queued_urls(stats.hosts_with_queued_urls);
  p.set_ready_hosts(stats.ready_hosts);
  p.set_queued_urls(stats.queued_urls);
  p.set_waiting_urls(stats.waiting_urls);
  p.set_in_flight_urls(stats.in_flight_urls);
  p.set_seen_urls(stats.seen_urls);
  p.set_pages_completed(stats.pages_completed);
  if (stats.next_ready_time != absl::InfiniteFuture()) {
    *p.mutable_next_ready_time() = TimeToProto(stats.next_ready_time);
  }
  p.set_urls_added(stats.urls_added);
  p.set_urls_already_seen(stats.urls_already_seen);
  p.set_seen_cache_hits(stats.seen_cache_hits);
  p.set_urls_rejected_by_limit(stats.urls_rejected_by_limit);
  p.set_urls_invalid(stats.urls_invalid);
  p.set_sitemap_lastmod_updates(stats.sitemap_lastmod_updates);
  p.set_lastmod_pulls(stats.lastmod_pulls);
  p.set_leases_granted(stats.leases_granted);
  p.set_leases_expired(stats.leases_expired);
  p.set_leases_recovered(stats.leases_recovered);
  p.set_leases_restored(stats.leases_restored);
  p.set_leases_released(stats.leases_released);
  p.set_completions_accepted(stats.completions_accepted);
  p.set_completions_unknown(stats.completions_unknown);
  p.set_retries_scheduled(stats.retries_scheduled);
  p.set_revisits_scheduled(stats.revisits_scheduled);
  p.set_changes_detected(stats.changes_detected);
  p.set_due_promoted(stats.due_promoted);
  p.set_revisits_waited(stats.revisits_waited);
  p.set_revisit_wait_seconds(stats.revisit_wait_seconds);
  p.set_revisit_budget_visits_per_day(stats.revisit_budget_visits_per_day);
  p.set_revisits_completed(stats.revisits_completed);
  p.set_revisit_spend_visits_per_day(stats.revisit_spend_visits_per_day);
  p.set_repairs(stats.repairs);
  p.set_focus_pulls(stats.focus_pulls);
  p.set_focus_reward(stats.focus_reward);
  p.set_exhausted(stats.exhausted);
  p.set_held_urls(stats.held_urls);
  p.set_hosts_moving(stats.hosts_moving);
  return p;
}

absl::StatusOr<FrontierStats> FromProto(const v1::FrontierStats& p, std::string_view field) {
  FrontierStats stats;
  stats.hosts = p.hosts();
  stats.hosts_with_queued_urls = p.hosts_with_queued_urls();
  stats.ready_hosts = p.ready_hosts();
  stats.queued_urls = p.queued_urls();
  stats.waiting_urls = p.waiting_urls();
  stats.in_flight_urls = p.in_flight_urls();
  stats.seen_urls = p.seen_urls();
  stats.pages_completed = p.pages_completed();
  absl::StatusOr<absl::Time> next_ready =
      OptionalTimeFromProto(p.has_next_ready_time(), p.next_ready_time(), absl::InfiniteFuture(),
                            FieldPath(field, "next_ready_time"));
  if (!next_ready.ok()) return next_ready.status();
  stats.next_ready_time = *next_ready;
  stats.urls_added = p.urls_added();
  stats.urls_already_seen = p.urls_already_seen();
  stats.seen_cache_hits = p.seen_cache_hits();
  stats.urls_rejected_by_limit = p.urls_rejected_by_limit();
  stats.urls_invalid = p.urls_invalid();
  stats.sitemap_lastmod_updates = p.sitemap_lastmod_updates();
  stats.lastmod_pulls = p.lastmod_pulls();
  stats.leases_granted = p.leases_granted();
  stats.leases_expired = p.leases_expired();
  stats.leases_recovered = p.leases_recovered();
  stats.leases_restored = p.leases_restored();
  stats.leases_released = p.leases_released();
  stats.completions_accepted = p.completions_accepted();
  stats.completions_unknown = p.completions_unknown();
  stats.retries_scheduled = p.retries_scheduled();
  stats.revisits_scheduled = p.revisits_scheduled();
  stats.changes_detected = p.changes_detected();
  stats.due_promoted = p.due_promoted();
  stats.revisits_waited = p.revisits_waited();
  stats.revisit_wait_seconds = p.revisit_wait_seconds();
  stats.revisit_budget_visits_per_day = p.revisit_budget_visits_per_day();
  stats.revisits_completed = p.revisits_completed();
  stats.revisit_spend_visits_per_day = p.revisit_spend_visits_per_day();
  stats.repairs = p.repairs();
  stats.focus_pulls = p.focus_pulls();
  stats.focus_reward = p.focus_reward();
  stats.exhausted = p.exhausted();
  stats.held_urls = p.held_urls();
  stats.hosts_moving = p.hosts_moving();
  return stats;
}

v1::LookupUrlsRequest ToLookupUrlsRequest(std::string_view collection,
                                          const std::vector<std::string>& canonical_urls) {
  v1::LookupUrlsRequest request;
  request.set_collection(std::string(collection));
  request.mutable_canonical_urls()->Add(canonical_urls.begin(), canonical_urls.end());
  return request;
}

absl::StatusOr<std::vector<std::string>> FromLookupUrlsRequest(
    const v1::LookupUrlsRequest& request) {
  if (absl::Status s = CheckCollection(request.collection()); !s.ok()) return s;
  if (static_cast<size_t>(request.canonical_urls_size()) > kMaxLookupUrls) {
    return InvalidField("canonical_urls", "at most " + std::to_string(kMaxLookupUrls) +
                                              " URLs per call");
  }
  return std::vector<std::string>(request.canonical_urls().begin(), request.canonical_urls().end());
}

v1::UrlRecord ToProto(const UrlRecord& record) {
  v1::UrlRecord p;
  p.set_status(ToProto(record.status));
  p.set_host_id(record.host_id);
  p.set_priority(record.priority);
  p.set_depth(record.depth);
  p.set_seq(record.seq);
  p.set_attempts(record.attempts);
  p.set_fetch_count(record.fetch_count);
  if (record.first_seen != absl::InfinitePast()) {
    *p.mutable_first_seen() = TimeToProto(record.first_seen);
  }
  p.set_discovered_from(record.discovered_from);
  if (record.last_outcome.has_value()) p.set_last_outcome(ToProto(*record.last_outcome));
  p.set_http_status(record.http_status);
  if (record.fetch_time != absl::InfinitePast()) {
    *p.mutable_fetch_time() = TimeToProto(record.fetch_time);
  }
  p.set_etag(record.etag);
  p.set_last_modified(record.last_modified);
  p.set_content_fingerprint(record.content_fingerprint);
  p.set_content_length(record.content_length);
  if (record.next_visit != absl::InfinitePast()) {
    *p.mutable_next_visit() = TimeToProto(record.next_visit);
  }
  p.set_visit_history(record.visit_history);
  p.set_change_digest(record.change_digest);
  p.set_sitemap_level(record.sitemap_level);
  if (!record.sitemap.empty()) *p.mutable_sitemap() = HintsToProto(record.sitemap);
  p.set_lastmod_pulls(record.lastmod_pulls);
  p.set_lastmod_pulls_changed(record.lastmod_pulls_changed);
  p.set_lastmod_pulled(record.lastmod_pulled);
  return p;
}

absl::StatusOr<UrlRecord> FromProto(const v1::UrlRecord& p, std::string_view field) {
  UrlRecord record;
  absl::StatusOr<UrlStatus> status = FromProto(p.status(), FieldPath(field, "status"));
  if (!status.ok()) return status.status();
  record.status = *status;
  record.host_id = p.host_id();
  absl::StatusOr<uint8_t> priority = PriorityFromProto(p.priority(), FieldPath(field, "priority"));
  if (!priority.ok()) return priority.status();
  record.priority = *priority;
  record.depth = p.depth();
  record.seq = p.seq();
  record.attempts = p.attempts();
  record.fetch_count = p.fetch_count();
  record.discovered_from = p.discovered_from();
  if (p.last_outcome() != v1::OUTCOME_CLASS_UNSPECIFIED) {
    absl::StatusOr<OutcomeClass> last =
        FromProto(p.last_outcome(), FieldPath(field, "last_outcome"));
    if (!last.ok()) return last.status();
    record.last_outcome = *last;
  }
  record.http_status = p.http_status();
  const std::pair<const char*, absl::Time*> unset_past_times[] = {
      {"first_seen", &record.first_seen},
      {"fetch_time", &record.fetch_time},
      {"next_visit", &record.next_visit},
  };
  const bool present[] = {p.has_first_seen(), p.has_fetch_time(), p.has_next_visit()};
  const google::protobuf::Timestamp* values[] = {&p.first_seen(), &p.fetch_time(), &p.next_visit()};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<absl::Time> time = OptionalTimeFromProto(
        present[i], *values[i], absl::InfinitePast(), FieldPath(field, unset_past_times[i].first));
    if (!time.ok()) return time.status();
    *unset_past_times[i].second = *time;
  }
  record.etag = p.etag();
  record.last_modified = p.last_modified();
  record.content_fingerprint = p.content_fingerprint();
  record.content_length = p.content_length();
  record.visit_history = p.visit_history();
  record.change_digest = p.change_digest();
  if (absl::Status s = SitemapFieldsFromProto(p, field, record.sitemap_level, record.sitemap);
      !s.ok()) {
    return s;
  }
  record.lastmod_pulls = p.lastmod_pulls();
  record.lastmod_pulls_changed = p.lastmod_pulls_changed();
  record.lastmod_pulled = p.lastmod_pulled();
  return record;
}

v1::LookupUrlsResponse ToLookupUrlsResponse(const std::vector<std::optional<UrlRecord>>& records) {
  v1::LookupUrlsResponse response;
  response.mutable_results()->Reserve(static_cast<int>(records.size()));
  for (const std::optional<UrlRecord>& record : records) {
    v1::UrlLookup& lookup = *response.add_results();
    lookup.set_found(record.has_value());
    if (record.has_value()) *lookup.mutable_record() = ToProto(*record);
  }
  return response;
}

absl::StatusOr<std::vector<std::optional<UrlRecord>>> FromLookupUrlsResponse(
    const v1::LookupUrlsResponse& response) {
  std::vector<std::optional<UrlRecord>> records;
  records.reserve(response.results_size());
  for (int i = 0; i < response.results_size(); ++i) {
    const v1::UrlLookup& lookup = response.results(i);
    if (!lookup.found()) {
      records.push_back(std::nullopt);
      continue;
    }
    const std::string field = FieldPath(FieldPath("results", i), "record");
    if (!lookup.has_record()) return Required(field);
    absl::StatusOr<UrlRecord> record = FromProto(lookup.record(), field);
    if (!record.ok()) return record.status();
    records.push_back(*std::move(record));
  }
  return records;
}

v1::GetRevisitStatusResponse ToProto(const RevisitStatus& status) {
  v1::GetRevisitStatusResponse p;
  p.set_enabled(status.enabled);
  p.set_policy(status.policy);
  p.set_rate_histogram(status.rates.Encode());
  p.set_changes_seen(status.changes_seen);
  p.set_days_observed(status.days_observed);
  p.set_pending_urls(status.pending_urls);
  if (status.evidence.has_value()) p.set_fleet_evidence(status.evidence->Encode());
  return p;
}

absl::StatusOr<RevisitStatus> FromProto(const v1::GetRevisitStatusResponse& p) {
  RevisitStatus status;
  status.enabled = p.enabled();
  status.policy = p.policy();
  if (p.rate_histogram().empty()) return Required("rate_histogram");
  absl::StatusOr<recrawl::RateHistogram> rates =
      HistogramFromProto(p.rate_histogram(), "rate_histogram");
  if (!rates.ok()) return rates.status();
  status.rates = *std::move(rates);
  status.changes_seen = p.changes_seen();
  status.days_observed = p.days_observed();
  status.pending_urls = p.pending_urls();
  if (!p.fleet_evidence().empty()) {
    absl::StatusOr<recrawl::FleetEvidence> evidence =
        recrawl::FleetEvidence::Decode(p.fleet_evidence());
    if (!evidence.ok()) return InvalidField("fleet_evidence", std::string(evidence.status().message()));
    status.evidence = *std::move(evidence);
  }
  return status;
}

v1::FrontierCollection ToProto(const CollectionSettings& collection) {
  v1::FrontierCollection p;
  p.set_name(collection.name);
  if (collection.max_pages.has_value()) p.set_max_pages(*collection.max_pages);
  if (collection.max_pages_per_host.has_value()) {
    p.set_max_pages_per_host(*collection.max_pages_per_host);
  }
  p.set_max_in_flight_per_host(collection.max_in_flight_per_host);
  if (collection.max_depth.has_value()) p.set_max_depth(*collection.max_depth);
  *p.mutable_revisit() = ToProto(collection.revisit);
  if (collection.focus.enabled) {
    v1::FocusOptions& focus = *p.mutable_focus();
    focus.set_policy(collection.focus.policy);
    focus.set_seed(collection.focus.seed);
    focus.set_max_in_flight(collection.focus.max_in_flight);
  }
  p.set_generation(collection.generation);
  return p;
}

absl::StatusOr<CollectionSettings> FromProto(const v1::FrontierCollection& p,
                                             std::string_view field) {
  if (p.name().empty()) return Required(FieldPath(field, "name"));
  CollectionSettings collection;
  collection.name = p.name();
  if (p.has_max_pages()) collection.max_pages = p.max_pages();
  if (p.has_max_pages_per_host()) collection.max_pages_per_host = p.max_pages_per_host();
  collection.max_in_flight_per_host = p.max_in_flight_per_host();
  if (p.has_max_depth()) collection.max_depth = p.max_depth();
  if (p.has_revisit()) {
    absl::StatusOr<RevisitOptions> revisit = FromProto(p.revisit(), FieldPath(field, "revisit"));
    if (!revisit.ok()) return revisit.status();
    collection.revisit = *std::move(revisit);
  }
  if (p.has_focus()) {
    if (p.focus().policy().empty()) return Required(FieldPath(field, "focus.policy"));
    collection.focus.enabled = true;
    collection.focus.policy = p.focus().policy();
    collection.focus.seed = p.focus().seed();
    collection.focus.max_in_flight = p.focus().max_in_flight();
  }
  collection.generation = p.generation();
  return collection;
}

v1::OpenCollectionRequest ToOpenCollectionRequest(const OpenCollectionArgs& args) {
  v1::OpenCollectionRequest request;
  *request.mutable_collection() = ToProto(args.collection);
  request.set_partition_count(args.partition_count);
  request.set_reshard_to(args.reshard_to);
  request.set_resharded_from(args.resharded_from);
  request.set_layout_epoch(args.layout_epoch);
  return request;
}

absl::StatusOr<OpenCollectionArgs> FromOpenCollectionRequest(
    const v1::OpenCollectionRequest& request) {
  if (!request.has_collection()) return Required("collection");
  if (request.partition_count() == 0) return Required("partition_count");
  absl::StatusOr<CollectionSettings> collection = FromProto(request.collection(), "collection");
  if (!collection.ok()) return collection.status();
  OpenCollectionArgs args{.collection = *std::move(collection),
                          .partition_count = request.partition_count(),
                          .reshard_to = request.reshard_to(),
                          .resharded_from = request.resharded_from(),
                          .layout_epoch = request.layout_epoch()};
  if (absl::Status s = partition::ValidateLayout(args.Layout()); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("partition layout: ", s.message()));
  }
  return args;
}

v1::ReleaseLeasesRequest ToReleaseLeasesRequest(std::string_view collection,
                                                const std::vector<LeaseId>& lease_ids) {
  v1::ReleaseLeasesRequest request;
  request.set_collection(std::string(collection));
  request.mutable_lease_ids()->Add(lease_ids.begin(), lease_ids.end());
  return request;
}

absl::StatusOr<std::vector<LeaseId>> FromReleaseLeasesRequest(
    const v1::ReleaseLeasesRequest& request) {
  if (absl::Status s = CheckCollection(request.collection()); !s.ok()) return s;
  return std::vector<LeaseId>(request.lease_ids().begin(), request.lease_ids().end());
}

recrawl::FleetSummary FleetSummaryValue::View() const {
  return {.budget_visits_per_day = budget_visits_per_day,
          .page_count = page_count,
          .rates = rates.has_value() ? &*rates : nullptr,
          .mean_rate_per_day = mean_rate_per_day,
          .prior = prior.has_value() ? &*prior : nullptr,
          .evidence = evidence.has_value() ? &*evidence : nullptr};
}

v1::RetuneRevisitsRequest ToRetuneRevisitsRequest(std::string_view collection,
                                                  const recrawl::FleetSummary& fleet) {
  v1::RetuneRevisitsRequest request;
  request.set_collection(std::string(collection));
  v1::FleetSummary& p = *request.mutable_fleet();
  p.set_budget_visits_per_day(fleet.budget_visits_per_day);
  p.set_page_count(fleet.page_count);
  if (fleet.rates != nullptr) p.set_rate_histogram(fleet.rates->Encode());
  p.set_mean_rate_per_day(fleet.mean_rate_per_day);
  if (fleet.prior != nullptr) {
    p.mutable_prior_weights()->Add(fleet.prior->weights().begin(), fleet.prior->weights().end());
  }
  if (fleet.evidence != nullptr) p.set_fleet_evidence(fleet.evidence->Encode());
  return request;
}

absl::StatusOr<FleetSummaryValue> FromRetuneRevisitsRequest(
    const v1::RetuneRevisitsRequest& request) {
  if (absl::Status s = CheckCollection(request.collection()); !s.ok()) return s;
  if (!request.has_fleet()) return Required("fleet");
  const v1::FleetSummary& p = request.fleet();
  FleetSummaryValue fleet;
  fleet.budget_visits_per_day = p.budget_visits_per_day();
  fleet.page_count = p.page_count();
  if (!p.rate_histogram().empty()) {
    absl::StatusOr<recrawl::RateHistogram> rates =
        HistogramFromProto(p.rate_histogram(), "fleet.rate_histogram");
    if (!rates.ok()) return rates.status();
    fleet.rates = *std::move(rates);
  }
  fleet.mean_rate_per_day = p.mean_rate_per_day();
  if (!p.prior_weights().empty()) {
    absl::StatusOr<recrawl::RatePrior> prior = recrawl::RatePrior::FromWeights(
        absl::MakeConstSpan(p.prior_weights().data(), p.prior_weights().size()));
    if (!prior.ok()) return InvalidField("fleet.prior_weights", std::string(prior.status().message()));
    fleet.prior = *std::move(prior);
  }
  if (!p.fleet_evidence().empty()) {
    absl::StatusOr<recrawl::FleetEvidence> evidence =
        recrawl::FleetEvidence::Decode(p.fleet_evidence());
    if (!evidence.ok()) {
      return InvalidField("fleet.fleet_evidence", std::string(evidence.status().message()));
    }
    fleet.evidence = *std::move(evidence);
  }
  return fleet;
}

}  // namespace crawler::frontier
