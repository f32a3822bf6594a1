#include "services/frontier/grpc/host_convert.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/grpc/proto_convert.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/grpc/frontier_convert.h"

namespace crawler::frontier {
namespace {

using grpc_common::DurationFromProto;
using grpc_common::DurationToProto;
using grpc_common::FieldPath;
using grpc_common::InvalidField;
using grpc_common::OptionalTimeFromProto;
using grpc_common::TimeToProto;

static_assert(static_cast<int>(HostOrder::kQueued) == v1::HOST_ORDER_QUEUED);
static_assert(static_cast<int>(HostOrder::kErrors) == v1::HOST_ORDER_ERRORS);
static_assert(static_cast<int>(HostOrder::kNextDue) == v1::HOST_ORDER_NEXT_DUE);
static_assert(static_cast<int>(HostUrlState::kAny) == v1::HOST_URL_STATE_ANY);
static_assert(static_cast<int>(HostUrlState::kQueued) == v1::HOST_URL_STATE_QUEUED);
static_assert(static_cast<int>(HostUrlState::kLeased) == v1::HOST_URL_STATE_LEASED);
static_assert(static_cast<int>(HostUrlState::kWaiting) == v1::HOST_URL_STATE_WAITING);
static_assert(static_cast<int>(HostUrlState::kDone) == v1::HOST_URL_STATE_DONE);
static_assert(static_cast<int>(HostUrlState::kDropped) == v1::HOST_URL_STATE_DROPPED);

// Sets the field `mutable_field()` returns unless `time` is `unset` (asking for the field
// would make it present).
template <typename MutableField>
void PutTime(absl::Time time, absl::Time unset, MutableField mutable_field) {
  if (time != unset) *mutable_field() = TimeToProto(time);
}

absl::Status ReadTime(bool present, const google::protobuf::Timestamp& p, absl::Time unset,
                      std::string_view field, absl::Time& out) {
  absl::StatusOr<absl::Time> time = OptionalTimeFromProto(present, p, unset, field);
  if (!time.ok()) return time.status();
  out = *time;
  return absl::OkStatus();
}

v1::HostControls ToProto(const HostControls& c) {
  v1::HostControls p;
  PutTime(c.blocked_until, absl::InfinitePast(), [&] { return p.mutable_blocked_until(); });
  if (c.delay > absl::ZeroDuration()) *p.mutable_delay() = DurationToProto(c.delay);
  if (c.max_pages.has_value()) p.set_max_pages(*c.max_pages);
  p.set_dropped_urls(c.dropped_urls);
  PutTime(c.dropped_at, absl::InfinitePast(), [&] { return p.mutable_dropped_at(); });
  p.set_dropped_leases_below(c.dropped_leases_below);
  PutTime(c.changed, absl::InfinitePast(), [&] { return p.mutable_changed(); });
  return p;
}

absl::StatusOr<HostControls> FromProto(const v1::HostControls& p, std::string_view field) {
  HostControls c;
  const absl::Time never = absl::InfinitePast();
  if (absl::Status s = ReadTime(p.has_blocked_until(), p.blocked_until(), never,
                                FieldPath(field, "blocked_until"), c.blocked_until);
      !s.ok()) {
    return s;
  }
  if (p.has_delay()) {
    absl::StatusOr<absl::Duration> delay = DurationFromProto(p.delay(), FieldPath(field, "delay"));
    if (!delay.ok()) return delay.status();
    c.delay = *delay;
  }
  if (p.has_max_pages()) c.max_pages = p.max_pages();
  c.dropped_urls = p.dropped_urls();
  c.dropped_leases_below = p.dropped_leases_below();
  if (absl::Status s = ReadTime(p.has_dropped_at(), p.dropped_at(), never,
                                FieldPath(field, "dropped_at"), c.dropped_at);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          ReadTime(p.has_changed(), p.changed(), never, FieldPath(field, "changed"), c.changed);
      !s.ok()) {
    return s;
  }
  return c;
}

v1::HostUrl ToProto(const HostUrl& u) {
  v1::HostUrl p;
  p.set_url(u.url);
  p.set_state(static_cast<v1::HostUrlState>(u.state));
  p.set_depth(u.depth);
  if (u.last_outcome.has_value()) p.set_last_outcome(ToProto(*u.last_outcome));
  p.set_http_status(u.http_status);
  PutTime(u.fetch_time, absl::InfinitePast(), [&] { return p.mutable_fetch_time(); });
  PutTime(u.next_visit, absl::InfinitePast(), [&] { return p.mutable_next_visit(); });
  return p;
}

absl::StatusOr<HostUrlState> StateFromProto(v1::HostUrlState state, std::string_view field) {
  if (!v1::HostUrlState_IsValid(state)) return InvalidField(field, "unknown state");
  return static_cast<HostUrlState>(state);
}

absl::StatusOr<HostUrl> FromProto(const v1::HostUrl& p, std::string_view field) {
  HostUrl u;
  u.url = p.url();
  absl::StatusOr<HostUrlState> state = StateFromProto(p.state(), FieldPath(field, "state"));
  if (!state.ok()) return state.status();
  u.state = *state;
  u.depth = p.depth();
  if (p.last_outcome() != v1::OUTCOME_CLASS_UNSPECIFIED) {
    absl::StatusOr<OutcomeClass> outcome =
        frontier::FromProto(p.last_outcome(), FieldPath(field, "last_outcome"));
    if (!outcome.ok()) return outcome.status();
    u.last_outcome = *outcome;
  }
  u.http_status = p.http_status();
  if (absl::Status s = ReadTime(p.has_fetch_time(), p.fetch_time(), absl::InfinitePast(),
                                FieldPath(field, "fetch_time"), u.fetch_time);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ReadTime(p.has_next_visit(), p.next_visit(), absl::InfinitePast(),
                                FieldPath(field, "next_visit"), u.next_visit);
      !s.ok()) {
    return s;
  }
  return u;
}

}  // namespace

v1::HostSummary ToProto(const HostSummary& s) {
  v1::HostSummary p;
  p.set_host_key(s.host_key);
  p.set_queued(s.queued);
  p.set_in_flight(s.in_flight);
  p.set_waiting(s.waiting);
  p.set_done(s.done);
  p.set_dropped(s.dropped);
  p.set_seen(s.seen);
  p.set_pages(s.pages);
  p.set_errors(s.errors);
  PutTime(s.next_allowed, absl::InfinitePast(), [&] { return p.mutable_next_allowed(); });
  PutTime(s.next_due, absl::InfiniteFuture(), [&] { return p.mutable_next_due(); });
  if (s.max_pages != FrontierOptions::kUnlimited) p.set_max_pages(s.max_pages);
  *p.mutable_controls() = ToProto(s.controls);
  p.set_partition(s.partition);
  return p;
}

absl::StatusOr<HostSummary> FromProto(const v1::HostSummary& p, std::string_view field) {
  HostSummary s;
  s.host_key = p.host_key();
  s.queued = p.queued();
  s.in_flight = p.in_flight();
  s.waiting = p.waiting();
  s.done = p.done();
  s.dropped = p.dropped();
  s.seen = p.seen();
  s.pages = p.pages();
  s.errors = p.errors();
  if (absl::Status st = ReadTime(p.has_next_allowed(), p.next_allowed(), absl::InfinitePast(),
                                 FieldPath(field, "next_allowed"), s.next_allowed);
      !st.ok()) {
    return st;
  }
  if (absl::Status st = ReadTime(p.has_next_due(), p.next_due(), absl::InfiniteFuture(),
                                 FieldPath(field, "next_due"), s.next_due);
      !st.ok()) {
    return st;
  }
  s.max_pages = p.has_max_pages() ? p.max_pages() : FrontierOptions::kUnlimited;
  absl::StatusOr<HostControls> controls = FromProto(p.controls(), FieldPath(field, "controls"));
  if (!controls.ok()) return controls.status();
  s.controls = *std::move(controls);
  s.partition = p.partition();
  return s;
}

v1::ListHostsRequest ToProto(std::string_view collection, const ListHostsRequest& request) {
  v1::ListHostsRequest p;
  p.set_collection(std::string(collection));
  p.set_order(static_cast<v1::HostOrder>(request.order));
  p.set_suffix(request.suffix);
  p.set_page_size(request.page_size);
  p.set_page_token(request.page_token);
  return p;
}

absl::StatusOr<ListHostsRequest> FromProto(const v1::ListHostsRequest& p) {
  ListHostsRequest request;
  if (p.order() == v1::HOST_ORDER_UNSPECIFIED) {
    request.order = HostOrder::kQueued;
  } else if (v1::HostOrder_IsValid(p.order())) {
    request.order = static_cast<HostOrder>(p.order());
  } else {
    return InvalidField("order", "unknown order");
  }
  request.suffix = p.suffix();
  request.page_size = p.page_size();
  request.page_token = p.page_token();
  return request;
}

v1::ListHostsResponse ToProto(const ListHostsResult& result) {
  v1::ListHostsResponse p;
  for (const HostSummary& host : result.hosts) *p.add_hosts() = ToProto(host);
  p.set_next_page_token(result.next_page_token);
  p.set_matched(result.matched);
  return p;
}

absl::StatusOr<ListHostsResult> FromProto(const v1::ListHostsResponse& p) {
  ListHostsResult result;
  absl::StatusOr<std::vector<HostSummary>> hosts = grpc_common::DecodeEach<HostSummary>(
      p.hosts(), "hosts",
      [](const v1::HostSummary& h, const std::string& field) { return FromProto(h, field); });
  if (!hosts.ok()) return hosts.status();
  result.hosts = *std::move(hosts);
  result.next_page_token = p.next_page_token();
  result.matched = p.matched();
  return result;
}

v1::GetHostResponse ToProto(const HostDetail& detail) {
  v1::GetHostResponse p;
  *p.mutable_host() = ToProto(detail.summary);
  for (const HostError& error : detail.recent_errors) {
    v1::HostError* e = p.add_recent_errors();
    e->set_url(error.url);
    e->set_outcome(ToProto(error.outcome));
    e->set_http_status(error.http_status);
    PutTime(error.time, absl::InfinitePast(), [&] { return e->mutable_time(); });
    e->set_attempts(error.attempts);
  }
  p.set_robots_denied(detail.robots_denied);
  p.set_last_robots_denied_url(detail.last_robots_denied_url);
  PutTime(detail.last_robots_denied, absl::InfinitePast(),
          [&] { return p.mutable_last_robots_denied(); });
  p.set_urls_scanned(detail.urls_scanned);
  p.set_scan_complete(detail.scan_complete);
  return p;
}

absl::StatusOr<HostDetail> FromProto(const v1::GetHostResponse& p) {
  HostDetail detail;
  absl::StatusOr<HostSummary> summary = FromProto(p.host(), "host");
  if (!summary.ok()) return summary.status();
  detail.summary = *std::move(summary);
  for (int i = 0; i < p.recent_errors_size(); ++i) {
    const v1::HostError& e = p.recent_errors(i);
    const std::string field = FieldPath("recent_errors", static_cast<size_t>(i));
    HostError error{.url = e.url(), .http_status = e.http_status(), .attempts = e.attempts()};
    absl::StatusOr<OutcomeClass> outcome = FromProto(e.outcome(), FieldPath(field, "outcome"));
    if (!outcome.ok()) return outcome.status();
    error.outcome = *outcome;
    if (absl::Status s = ReadTime(e.has_time(), e.time(), absl::InfinitePast(),
                                  FieldPath(field, "time"), error.time);
        !s.ok()) {
      return s;
    }
    detail.recent_errors.push_back(std::move(error));
  }
  detail.robots_denied = p.robots_denied();
  detail.last_robots_denied_url = p.last_robots_denied_url();
  if (absl::Status s = ReadTime(p.has_last_robots_denied(), p.last_robots_denied(),
                                absl::InfinitePast(), "last_robots_denied",
                                detail.last_robots_denied);
      !s.ok()) {
    return s;
  }
  detail.urls_scanned = p.urls_scanned();
  detail.scan_complete = p.scan_complete();
  return detail;
}

v1::ControlHostRequest ToProto(std::string_view collection, std::string_view host_key,
                               const HostControlChange& change) {
  v1::ControlHostRequest p;
  p.set_collection(std::string(collection));
  p.set_host_key(std::string(host_key));
  switch (change.kind) {
    case HostControlChange::Kind::kBlock:
      *p.mutable_block_until() = TimeToProto(change.until);
      break;
    case HostControlChange::Kind::kUnblock:
      p.set_unblock(true);
      break;
    case HostControlChange::Kind::kSetDelay:
      *p.mutable_set_delay() = DurationToProto(change.delay);
      break;
    case HostControlChange::Kind::kSetPageLimit:
      if (change.max_pages.has_value()) {
        p.set_set_max_pages(*change.max_pages);
      } else {
        p.set_clear_max_pages(true);
      }
      break;
  }
  return p;
}

absl::StatusOr<std::pair<std::string, HostControlChange>> FromProto(
    const v1::ControlHostRequest& p) {
  HostControlChange change;
  switch (p.change_case()) {
    case v1::ControlHostRequest::kBlockUntil: {
      absl::StatusOr<absl::Time> until = grpc_common::TimeFromProto(p.block_until(), "block_until");
      if (!until.ok()) return until.status();
      change.kind = HostControlChange::Kind::kBlock;
      change.until = *until;
      break;
    }
    case v1::ControlHostRequest::kUnblock:
      change.kind = HostControlChange::Kind::kUnblock;
      break;
    case v1::ControlHostRequest::kSetDelay: {
      absl::StatusOr<absl::Duration> delay = DurationFromProto(p.set_delay(), "set_delay");
      if (!delay.ok()) return delay.status();
      change.kind = HostControlChange::Kind::kSetDelay;
      change.delay = *delay;
      break;
    }
    case v1::ControlHostRequest::kSetMaxPages:
      change.kind = HostControlChange::Kind::kSetPageLimit;
      change.max_pages = p.set_max_pages();
      break;
    case v1::ControlHostRequest::kClearMaxPages:
      change.kind = HostControlChange::Kind::kSetPageLimit;
      break;
    case v1::ControlHostRequest::CHANGE_NOT_SET:
      return InvalidField("change", "required");
  }
  return std::make_pair(p.host_key(), change);
}

v1::ControlHostResponse ToControlHostResponse(const HostChangeResult& result) {
  v1::ControlHostResponse p;
  *p.mutable_host() = ToProto(result.host);
  return p;
}

v1::DropHostQueueResponse ToDropHostQueueResponse(const HostChangeResult& result) {
  v1::DropHostQueueResponse p;
  *p.mutable_host() = ToProto(result.host);
  p.set_dropped(result.dropped);
  return p;
}

absl::StatusOr<HostChangeResult> FromProto(const v1::ControlHostResponse& p) {
  absl::StatusOr<HostSummary> host = FromProto(p.host(), "host");
  if (!host.ok()) return host.status();
  return HostChangeResult{.host = *std::move(host)};
}

absl::StatusOr<HostChangeResult> FromProto(const v1::DropHostQueueResponse& p) {
  absl::StatusOr<HostSummary> host = FromProto(p.host(), "host");
  if (!host.ok()) return host.status();
  return HostChangeResult{.host = *std::move(host), .dropped = p.dropped()};
}

v1::ListHostUrlsRequest ToProto(std::string_view collection, const ListHostUrlsRequest& request) {
  v1::ListHostUrlsRequest p;
  p.set_collection(std::string(collection));
  p.set_host_key(request.host_key);
  p.set_state(static_cast<v1::HostUrlState>(request.state));
  p.set_page_size(request.page_size);
  p.set_page_token(request.page_token);
  return p;
}

absl::StatusOr<ListHostUrlsRequest> FromProto(const v1::ListHostUrlsRequest& p) {
  absl::StatusOr<HostUrlState> state = StateFromProto(p.state(), "state");
  if (!state.ok()) return state.status();
  return ListHostUrlsRequest{.host_key = p.host_key(),
                             .state = *state,
                             .page_size = p.page_size(),
                             .page_token = p.page_token()};
}

v1::ListHostUrlsResponse ToProto(const ListHostUrlsResult& result) {
  v1::ListHostUrlsResponse p;
  *p.mutable_host() = ToProto(result.host);
  for (const HostUrl& url : result.urls) *p.add_urls() = ToProto(url);
  p.set_next_page_token(result.next_page_token);
  return p;
}

absl::StatusOr<ListHostUrlsResult> FromProto(const v1::ListHostUrlsResponse& p) {
  ListHostUrlsResult result;
  absl::StatusOr<HostSummary> host = FromProto(p.host(), "host");
  if (!host.ok()) return host.status();
  result.host = *std::move(host);
  absl::StatusOr<std::vector<HostUrl>> urls = grpc_common::DecodeEach<HostUrl>(
      p.urls(), "urls",
      [](const v1::HostUrl& u, const std::string& field) { return FromProto(u, field); });
  if (!urls.ok()) return urls.status();
  result.urls = *std::move(urls);
  result.next_page_token = p.next_page_token();
  return result;
}

v1::GetHostControlsResponse ToProto(const FetcherControlTable& table) {
  v1::GetHostControlsResponse p;
  p.set_version(table.version);
  p.set_unchanged(table.unchanged);
  for (const FetcherHostControl& h : table.hosts) {
    v1::FetcherHostControl* c = p.add_hosts();
    c->set_host_key(h.host_key);
    PutTime(h.blocked_until, absl::InfinitePast(), [&] { return c->mutable_blocked_until(); });
    if (h.delay > absl::ZeroDuration()) *c->mutable_delay() = DurationToProto(h.delay);
    PutTime(h.dropped_at, absl::InfinitePast(), [&] { return c->mutable_dropped_at(); });
    c->set_dropped_leases_below(h.dropped_leases_below);
  }
  return p;
}

absl::StatusOr<FetcherControlTable> FromProto(const v1::GetHostControlsResponse& p) {
  FetcherControlTable table{.version = p.version(), .unchanged = p.unchanged()};
  for (int i = 0; i < p.hosts_size(); ++i) {
    const v1::FetcherHostControl& c = p.hosts(i);
    const std::string field = FieldPath("hosts", static_cast<size_t>(i));
    FetcherHostControl h{.host_key = c.host_key(),
                         .dropped_leases_below = c.dropped_leases_below()};
    if (absl::Status s = ReadTime(c.has_blocked_until(), c.blocked_until(), absl::InfinitePast(),
                                  FieldPath(field, "blocked_until"), h.blocked_until);
        !s.ok()) {
      return s;
    }
    if (c.has_delay()) {
      absl::StatusOr<absl::Duration> delay = DurationFromProto(c.delay(), FieldPath(field, "delay"));
      if (!delay.ok()) return delay.status();
      h.delay = *delay;
    }
    if (absl::Status s = ReadTime(c.has_dropped_at(), c.dropped_at(), absl::InfinitePast(),
                                  FieldPath(field, "dropped_at"), h.dropped_at);
        !s.ok()) {
      return s;
    }
    table.hosts.push_back(std::move(h));
  }
  return table;
}

}  // namespace crawler::frontier
