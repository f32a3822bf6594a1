#include "tools/crawlctl/host_commands.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "services/common/grpc/proto_convert.h"
#include "tools/crawlctl/output.h"

namespace crawler::crawlctl {
namespace {

// A failed host call: a host the collection does not know is bad input (2), like a malformed
// one; NOT_FOUND for the collection itself stays 5 (its message names the collection, which
// the scheduler checks first).
int FailHost(Session& session, const grpc::Status& status, const std::string& name) {
  if (status.error_code() == grpc::StatusCode::NOT_FOUND &&
      !absl::StartsWith(status.error_message(), "collection ")) {
    session.err() << "crawlctl: invalid: " << status.error_message() << "\n";
    return kExitInvalid;
  }
  return session.Fail(status, name);
}

std::string Optional(bool present, uint64_t value, const char* absent) {
  return present ? absl::StrCat(value) : absent;
}

std::string DelayText(const google::protobuf::Duration& delay) {
  if (delay.seconds() == 0 && delay.nanos() == 0) return "-";
  return absl::FormatDuration(absl::Seconds(delay.seconds()) + absl::Nanoseconds(delay.nanos()));
}

// Sends a ControlHost request and prints the host after it.
int Control(Session& session, v1::ControlHostRequest request) {
  v1::ControlHostResponse response;
  const grpc::Status status =
      session.stub().ControlHost(session.NewContext().get(), request, &response);
  if (!status.ok()) return FailHost(session, status, request.collection());
  return PrintReply(session, response,
                    [](const v1::ControlHostResponse& r) { return FormatHostSummary(r.host()); });
}

v1::ControlHostRequest ControlRequest(const std::string& name, const std::string& host) {
  v1::ControlHostRequest request;
  request.set_collection(name);
  request.set_host_key(host);
  return request;
}

}  // namespace

std::string FormatHostList(const v1::ListHostsResponse& response) {
  Table table({1, 2, 3, 4, 5, 6});
  table.AddRow({"HOST", "QUEUED", "IN FLIGHT", "WAITING", "PAGES", "ERRORS", "PARTITION",
                "NEXT DUE", "CONTROLS"});
  for (const v1::HostSummary& h : response.hosts()) {
    std::string controls;
    if (h.controls().has_blocked_until()) {
      absl::StrAppend(&controls, "blocked until ", FormatTimestamp(h.controls().blocked_until()));
    }
    if (h.controls().has_delay()) {
      absl::StrAppend(&controls, controls.empty() ? "" : ", ", "delay ",
                      DelayText(h.controls().delay()));
    }
    if (h.controls().has_max_pages()) {
      absl::StrAppend(&controls, controls.empty() ? "" : ", ", "limit ",
                      h.controls().max_pages());
    }
    table.AddRow({h.host_key(), absl::StrCat(h.queued()), absl::StrCat(h.in_flight()),
                  absl::StrCat(h.waiting()), absl::StrCat(h.pages()), absl::StrCat(h.errors()),
                  absl::StrCat(h.partition()), FormatTimestamp(h.next_due()),
                  controls.empty() ? "-" : controls});
  }
  std::string out = table.Render();
  absl::StrAppend(&out, response.hosts_size(), " of ", response.matched(), " hosts");
  if (!response.next_page_token().empty()) {
    absl::StrAppend(&out, "; next page: --page-token ", response.next_page_token());
  }
  return out + "\n";
}

std::string FormatHostSummary(const v1::HostSummary& h) {
  Table table;
  table.AddRow({"host", h.host_key()});
  table.AddRow({"partition", absl::StrCat(h.partition())});
  table.AddRow({"urls", absl::StrCat(h.seen(), " seen: ", h.queued(), " queued, ", h.in_flight(),
                                     " in flight, ", h.waiting(), " waiting, ", h.done(),
                                     " done, ", h.dropped(), " dropped")});
  table.AddRow({"pages", absl::StrCat(h.pages(), " of ",
                                      Optional(h.has_max_pages(), h.max_pages(), "unlimited"))});
  table.AddRow({"errors", absl::StrCat(h.errors())});
  table.AddRow({"next allowed", FormatTimestamp(h.next_allowed())});
  table.AddRow({"next due", FormatTimestamp(h.next_due())});
  const v1::HostControls& c = h.controls();
  table.AddRow({"blocked until", FormatTimestamp(c.blocked_until())});
  table.AddRow({"delay", DelayText(c.delay())});
  table.AddRow({"page limit", Optional(c.has_max_pages(), c.max_pages(), "the collection's")});
  table.AddRow({"dropped", absl::StrCat(c.dropped_urls(), " URLs, last ",
                                        FormatTimestamp(c.dropped_at()))});
  table.AddRow({"controls changed", FormatTimestamp(c.changed())});
  return table.Render();
}

std::string FormatHostDetail(const v1::GetHostResponse& r) {
  std::string out = FormatHostSummary(r.host());
  Table robots;
  robots.AddRow({"robots.txt denials",
                 absl::StrCat(r.robots_denied(), r.scan_complete() ? "" : " (partial scan)")});
  if (!r.last_robots_denied_url().empty()) {
    robots.AddRow({"last denied", absl::StrCat(r.last_robots_denied_url(), " at ",
                                               FormatTimestamp(r.last_robots_denied()))});
  }
  out += robots.Render();
  if (r.recent_errors_size() == 0) return out + "recent errors: none\n";
  out += "recent errors:\n";
  Table errors;
  errors.AddRow({"TIME", "OUTCOME", "HTTP", "ATTEMPTS", "URL"});
  for (const v1::HostError& e : r.recent_errors()) {
    errors.AddRow({FormatTimestamp(e.time()),
                   EnumLabel(v1::OutcomeClass_Name(e.outcome()), "OUTCOME_CLASS_"),
                   absl::StrCat(e.http_status()), absl::StrCat(e.attempts()), e.url()});
  }
  return out + errors.Render();
}

std::string FormatHostUrls(const v1::ListHostUrlsResponse& r) {
  Table table({2});
  table.AddRow({"STATE", "URL", "DEPTH", "LAST OUTCOME", "LAST FETCH", "NEXT VISIT"});
  for (const v1::HostUrl& u : r.urls()) {
    std::string last = "-";
    if (u.last_outcome() != v1::OUTCOME_CLASS_UNSPECIFIED) {
      last = EnumLabel(v1::OutcomeClass_Name(u.last_outcome()), "OUTCOME_CLASS_");
      if (u.http_status() != 0) absl::StrAppend(&last, " ", u.http_status());
    }
    table.AddRow({EnumLabel(v1::HostUrlState_Name(u.state()), "HOST_URL_STATE_"), u.url(),
                  absl::StrCat(u.depth()), last, FormatTimestamp(u.fetch_time()),
                  FormatTimestamp(u.next_visit())});
  }
  std::string out = table.Render();
  if (!r.next_page_token().empty()) {
    absl::StrAppend(&out, "next page: --page-token ", r.next_page_token(), "\n");
  }
  return out;
}

int ListHosts(Session& session, const std::string& name, const HostListOptions& options) {
  v1::ListHostsRequest request;
  request.set_collection(name);
  if (options.sort == "queued") {
    request.set_order(v1::HOST_ORDER_QUEUED);
  } else if (options.sort == "errors") {
    request.set_order(v1::HOST_ORDER_ERRORS);
  } else if (options.sort == "next-due") {
    request.set_order(v1::HOST_ORDER_NEXT_DUE);
  } else {
    return session.FailInput(absl::InvalidArgumentError(
        absl::StrCat("--sort ", options.sort, ": one of queued, errors, next-due")));
  }
  request.set_suffix(options.suffix);
  request.set_page_size(options.page_size);
  request.set_page_token(options.page_token);
  v1::ListHostsResponse response;
  const grpc::Status status =
      session.stub().ListHosts(session.NewContext().get(), request, &response);
  if (!status.ok()) return FailHost(session, status, name);
  return PrintReply(session, response, FormatHostList);
}

int GetHost(Session& session, const std::string& name, const std::string& host) {
  v1::GetHostRequest request;
  request.set_collection(name);
  request.set_host_key(host);
  v1::GetHostResponse response;
  const grpc::Status status =
      session.stub().GetHost(session.NewContext().get(), request, &response);
  if (!status.ok()) return FailHost(session, status, name);
  return PrintReply(session, response, FormatHostDetail);
}

int BlockHost(Session& session, const std::string& name, const std::string& host,
              absl::Time until) {
  v1::ControlHostRequest request = ControlRequest(name, host);
  *request.mutable_block_until() = grpc_common::TimeToProto(until);
  return Control(session, std::move(request));
}

int UnblockHost(Session& session, const std::string& name, const std::string& host) {
  v1::ControlHostRequest request = ControlRequest(name, host);
  request.set_unblock(true);
  return Control(session, std::move(request));
}

int SetHostDelay(Session& session, const std::string& name, const std::string& host,
                 absl::Duration delay) {
  v1::ControlHostRequest request = ControlRequest(name, host);
  *request.mutable_set_delay() = grpc_common::DurationToProto(delay);
  return Control(session, std::move(request));
}

int SetHostPageLimit(Session& session, const std::string& name, const std::string& host,
                     std::optional<uint64_t> max_pages) {
  v1::ControlHostRequest request = ControlRequest(name, host);
  if (max_pages.has_value()) {
    request.set_set_max_pages(*max_pages);
  } else {
    request.set_clear_max_pages(true);
  }
  return Control(session, std::move(request));
}

int DropHostQueue(Session& session, const std::string& name, const std::string& host) {
  v1::DropHostQueueRequest request;
  request.set_collection(name);
  request.set_host_key(host);
  v1::DropHostQueueResponse response;
  const grpc::Status status =
      session.stub().DropHostQueue(session.NewContext().get(), request, &response);
  if (!status.ok()) return FailHost(session, status, name);
  return PrintReply(session, response, [](const v1::DropHostQueueResponse& r) {
    return absl::StrCat("dropped ", r.dropped(), " URLs\n", FormatHostSummary(r.host()));
  });
}

int ListHostUrls(Session& session, const std::string& name, const std::string& host,
                 const HostUrlsOptions& options) {
  v1::ListHostUrlsRequest request;
  request.set_collection(name);
  request.set_host_key(host);
  v1::HostUrlState state = v1::HOST_URL_STATE_ANY;
  if (!v1::HostUrlState_Parse(absl::StrCat("HOST_URL_STATE_", absl::AsciiStrToUpper(options.state)),
                              &state)) {
    return session.FailInput(absl::InvalidArgumentError(absl::StrCat(
        "--state ", options.state, ": one of any, queued, leased, waiting, done, dropped")));
  }
  request.set_state(state);
  request.set_page_size(options.page_size);
  request.set_page_token(options.page_token);
  v1::ListHostUrlsResponse response;
  const grpc::Status status =
      session.stub().ListHostUrls(session.NewContext().get(), request, &response);
  if (!status.ok()) return FailHost(session, status, name);
  return PrintReply(session, response, FormatHostUrls);
}

}  // namespace crawler::crawlctl
