#include "services/scheduler/grpc/scheduler_convert.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/collections/grpc/collection_convert.h"
#include "services/common/grpc/proto_convert.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/frontier/grpc/host_convert.h"

namespace crawler::scheduler {
namespace {

using grpc_common::FieldPath;
using grpc_common::InvalidField;
using grpc_common::TimeFromProto;
using grpc_common::TimeToProto;

void ToProto(const std::map<frontier::OutcomeClass, uint64_t>& outcomes,
             google::protobuf::RepeatedPtrField<v1::OutcomeCount>& out) {
  for (const auto& [outcome, count] : outcomes) {
    v1::OutcomeCount* o = out.Add();
    o->set_outcome(frontier::ToProto(outcome));
    o->set_count(count);
  }
}

v1::FetcherCollectionStats ToProto(const FetcherCollectionStats& c) {
  v1::FetcherCollectionStats p;
  p.set_collection(c.collection);
  p.set_generation(c.generation);
  ToProto(c.outcomes, *p.mutable_outcomes());
  p.set_robots_denied(c.robots_denied);
  p.set_requests_started(c.requests_started);
  p.set_leases_abandoned(c.leases_abandoned);
  p.set_urls_routed(c.urls_routed);
  p.set_urls_suppressed(c.urls_suppressed);
  for (uint64_t sent : c.urls_sent) p.add_urls_sent(sent);
  p.set_in_flight(c.in_flight);
  p.set_duplicates(c.duplicates);
  p.set_dedup_unavailable(c.dedup_unavailable);
  p.set_pages_rendered(c.pages_rendered);
  p.set_renders_cut(c.renders_cut);
  return p;
}

FetcherCollectionStats FromProto(const v1::FetcherCollectionStats& p) {
  FetcherCollectionStats c;
  c.collection = p.collection();
  c.generation = p.generation();
  for (const v1::OutcomeCount& o : p.outcomes()) {
    absl::StatusOr<frontier::OutcomeClass> outcome = frontier::FromProto(o.outcome(), "outcome");
    if (outcome.ok()) c.outcomes[*outcome] += o.count();
  }
  c.robots_denied = p.robots_denied();
  c.requests_started = p.requests_started();
  c.leases_abandoned = p.leases_abandoned();
  c.urls_routed = p.urls_routed();
  c.urls_suppressed = p.urls_suppressed();
  c.urls_sent.assign(p.urls_sent().begin(), p.urls_sent().end());
  c.in_flight = p.in_flight();
  c.duplicates = p.duplicates();
  c.dedup_unavailable = p.dedup_unavailable();
  c.pages_rendered = p.pages_rendered();
  c.renders_cut = p.renders_cut();
  return c;
}

}  // namespace

absl::StatusOr<FetcherCollection> FromProto(const v1::FetcherCollection& p,
                                            std::string_view field) {
  FetcherCollection c;
  c.name = p.name();
  absl::StatusOr<CollectionState> state = FromProto(p.state(), FieldPath(field, "state"));
  if (!state.ok()) return state.status();
  c.state = *state;
  absl::StatusOr<absl::Time> created =
      TimeFromProto(p.create_time(), FieldPath(field, "create_time"));
  if (!created.ok()) return created.status();
  c.create_time = *created;
  c.definition_version = p.definition_version();
  if (p.has_definition()) {
    absl::StatusOr<collections::Collection> definition =
        collections::FromProto(p.definition(), FieldPath(field, "definition"));
    if (!definition.ok()) return definition.status();
    c.definition = *std::move(definition);
  }
  return c;
}

v1::CollectionState ToProto(CollectionState state) {
  switch (state) {
    case CollectionState::kActive:
      return v1::COLLECTION_STATE_ACTIVE;
    case CollectionState::kPaused:
      return v1::COLLECTION_STATE_PAUSED;
    case CollectionState::kFinished:
      return v1::COLLECTION_STATE_FINISHED;
  }
  return v1::COLLECTION_STATE_UNSPECIFIED;
}

absl::StatusOr<CollectionState> FromProto(v1::CollectionState state, std::string_view field) {
  switch (state) {
    case v1::COLLECTION_STATE_ACTIVE:
      return CollectionState::kActive;
    case v1::COLLECTION_STATE_PAUSED:
      return CollectionState::kPaused;
    case v1::COLLECTION_STATE_FINISHED:
      return CollectionState::kFinished;
    default:
      break;
  }
  return InvalidField(field, absl::StrCat("unknown collection state ", static_cast<int>(state)));
}

v1::CollectionInfo ToProto(const CollectionInfo& info) {
  v1::CollectionInfo p;
  *p.mutable_collection() = collections::ToProto(info.collection);
  p.set_state(ToProto(info.state));
  *p.mutable_create_time() = TimeToProto(info.create_time);
  *p.mutable_update_time() = TimeToProto(info.update_time);
  p.set_seed_count(info.seed_count);
  return p;
}

absl::StatusOr<CollectionInfo> FromProto(const v1::CollectionInfo& p, std::string_view field) {
  CollectionInfo info;
  absl::StatusOr<collections::Collection> collection =
      collections::FromProto(p.collection(), FieldPath(field, "collection"));
  if (!collection.ok()) return collection.status();
  info.collection = *std::move(collection);
  absl::StatusOr<CollectionState> state = FromProto(p.state(), FieldPath(field, "state"));
  if (!state.ok()) return state.status();
  info.state = *state;
  absl::StatusOr<absl::Time> created =
      TimeFromProto(p.create_time(), FieldPath(field, "create_time"));
  if (!created.ok()) return created.status();
  info.create_time = *created;
  absl::StatusOr<absl::Time> updated =
      TimeFromProto(p.update_time(), FieldPath(field, "update_time"));
  if (!updated.ok()) return updated.status();
  info.update_time = *updated;
  info.seed_count = p.seed_count();
  return info;
}

v1::StoredCollection ToProto(const StoredCollection& stored) {
  v1::StoredCollection p;
  *p.mutable_info() = ToProto(stored.info);
  p.set_seeds_pending(stored.seeds_pending);
  p.set_deleting(stored.deleting);
  return p;
}

absl::StatusOr<StoredCollection> FromProto(const v1::StoredCollection& p) {
  StoredCollection stored;
  absl::StatusOr<CollectionInfo> info = FromProto(p.info(), "info");
  if (!info.ok()) return info.status();
  stored.info = *std::move(info);
  stored.seeds_pending = p.seeds_pending();
  stored.deleting = p.deleting();
  return stored;
}

v1::ReportFetcherStatsRequest ToProto(const FetcherReport& report) {
  v1::ReportFetcherStatsRequest p;
  p.set_partition(report.partition);
  p.set_incarnation(report.incarnation);
  *p.mutable_start_time() = TimeToProto(report.start_time);
  for (const FetcherCollectionStats& c : report.collections) *p.add_collections() = ToProto(c);
  p.set_archive_address(report.archive_address);
  p.set_archive_volume(report.archive_volume);
  for (const HeldDefinition& h : report.held) {
    v1::HeldDefinition* held = p.add_held();
    held->set_name(h.name);
    held->set_version(h.version);
  }
  return p;
}

absl::StatusOr<FetcherReport> FromProto(const v1::ReportFetcherStatsRequest& p) {
  FetcherReport report;
  report.partition = p.partition();
  report.incarnation = p.incarnation();
  // Only orders a partition's incarnations (the oldest are folded first): a malformed start
  // time sorts first rather than refusing the counters.
  report.start_time = TimeFromProto(p.start_time(), "start_time").value_or(absl::InfinitePast());
  for (const v1::FetcherCollectionStats& c : p.collections()) {
    report.collections.push_back(FromProto(c));
  }
  report.archive_address = p.archive_address();
  report.archive_volume = p.archive_volume();
  for (const v1::HeldDefinition& h : p.held()) {
    report.held.push_back({.name = h.name(), .version = h.version()});
  }
  return report;
}

v1::ReportFetcherStatsResponse ToProto(const FetcherReportReply& reply) {
  v1::ReportFetcherStatsResponse p;
  for (const FetcherCollection& c : reply.collections) {
    v1::FetcherCollection* out = p.add_collections();
    out->set_name(c.name);
    out->set_state(ToProto(c.state));
    *out->mutable_create_time() = TimeToProto(c.create_time);
    out->set_definition_version(c.definition_version);
    if (c.definition.has_value()) *out->mutable_definition() = collections::ToProto(*c.definition);
  }
  if (reply.report_interval.has_value()) {
    *p.mutable_report_interval() = grpc_common::DurationToProto(*reply.report_interval);
  }
  if (reply.layout.has_value()) {
    v1::PartitionLayout* layout = p.mutable_layout();
    layout->set_epoch(reply.layout->epoch);
    layout->set_partition_count(reply.layout->count);
    layout->set_reshard_to(reply.layout->reshard_to);
    layout->set_resharded_from(reply.layout->resharded_from);
  }
  return p;
}

FetcherReportReply FromProto(const v1::ReportFetcherStatsResponse& p) {
  FetcherReportReply reply;
  for (int i = 0; i < p.collections_size(); ++i) {
    absl::StatusOr<FetcherCollection> c =
        FromProto(p.collections(i), FieldPath("collections", static_cast<size_t>(i)));
    if (c.ok()) {
      reply.collections.push_back(*std::move(c));
    } else {
      reply.unreadable.emplace_back(p.collections(i).name(), c.status());
    }
  }
  if (p.has_report_interval()) {
    absl::StatusOr<absl::Duration> interval =
        grpc_common::DurationFromProto(p.report_interval(), "report_interval");
    if (interval.ok()) reply.report_interval = *interval;
  }
  if (p.has_layout()) {
    const partition::PartitionLayout layout{.epoch = p.layout().epoch(),
                                            .count = p.layout().partition_count(),
                                            .reshard_to = p.layout().reshard_to(),
                                            .resharded_from = p.layout().resharded_from()};
    // A layout that does not hold together is left out: the fetcher keeps the one it has.
    if (partition::ValidateLayout(layout).ok()) reply.layout = layout;
  }
  return reply;
}

v1::CollectionStats ToProto(const CollectionStats& s) {
  v1::CollectionStats p;
  p.set_name(s.name);
  *p.mutable_as_of() = TimeToProto(s.as_of);
  p.set_partitions_reporting(s.partitions_reporting);
  p.set_partitions_total(s.partitions_total);
  p.set_pages(s.pages);
  ToProto(s.outcomes, *p.mutable_outcomes());
  p.set_queued_urls(s.queued_urls);
  p.set_waiting_urls(s.waiting_urls);
  p.set_in_flight_urls(s.in_flight_urls);
  p.set_seen_urls(s.seen_urls);
  p.set_hosts(s.hosts);
  p.set_robots_denied(s.robots_denied);
  p.set_duplicates(s.duplicates);
  p.set_urls_exchanged(s.urls_exchanged);
  p.set_urls_suppressed(s.urls_suppressed);
  p.set_pages_rendered(s.pages_rendered);
  p.set_renders_cut(s.renders_cut);
  p.set_exhausted(s.exhausted);
  p.set_revisits_waited(s.revisits_waited);
  p.set_revisit_wait_seconds(s.revisit_wait_seconds);
  p.set_revisit_budget_visits_per_day(s.revisit_budget_visits_per_day);
  p.set_revisits_completed(s.revisits_completed);
  p.set_revisit_spend_visits_per_day(s.revisit_spend_visits_per_day);
  p.set_focus_pulls(s.focus_pulls);
  p.set_focus_reward(s.focus_reward);
  for (uint64_t budget : s.focus_page_budgets) p.add_focus_page_budgets(budget);
  return p;
}

v1::ExplainUrlResponse ToProto(const std::vector<UrlExplanation>& explanations) {
  v1::ExplainUrlResponse p;
  for (const UrlExplanation& x : explanations) {
    v1::UrlExplanation* e = p.add_explanations();
    e->set_url(x.url);
    if (!x.error.empty()) {
      e->set_error(x.error);
      continue;
    }
    e->set_canonical_url(x.canonical_url);
    if (x.scope_verdict.has_value()) {
      e->set_scope_verdict(collections::ToProto(*x.scope_verdict));
    }
    e->set_partition(x.partition);
    if (x.record.has_value()) {
      e->set_found(true);
      *e->mutable_record() = frontier::ToProto(*x.record);
    }
    if (x.host.has_value()) *e->mutable_host() = frontier::ToProto(*x.host);
  }
  return p;
}

}  // namespace crawler::scheduler
