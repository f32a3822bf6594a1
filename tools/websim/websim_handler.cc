#include "tools/websim/websim_handler.h"

#include <utility>

#include "absl/strings/match.h"
#include "tools/websim/change_log.h"
#include "tools/websim/ground_truth.h"

namespace crawler::websim {

const std::string& WebsimHandler::Truth() {
  absl::call_once(truth_once_,
                  [this] { truth_ = FormatGroundTruth(model_, ComputeGroundTruth(model_)); });
  return truth_;
}

HttpResponse WebsimHandler::Handle(const HttpRequest& request) {
  HttpResponse response;
  const absl::Duration elapsed = absl::Nanoseconds(request.received_monotonic_ns - start_ns_);
  if (absl::StartsWith(request.target, "/__websim/")) {
    response.content_type = "text/plain; charset=utf-8";
    if (request.target == "/__websim/truth") {
      response.body = Truth();
    } else if (request.target == "/__websim/seeds") {
      response.body = FormatSeeds(model_);
    } else if (request.target == "/__websim/changes") {
      response.body = FormatChangeLog(model_, elapsed);
    } else if (request.target == "/__websim/rates") {
      response.body = FormatRates(model_);
    } else {
      response.status = 404;
      response.body = "websim: unknown endpoint\n";
    }
    return response;
  }
  RequestConditions conditions;
  conditions.if_none_match = request.if_none_match;
  conditions.if_modified_since = request.if_modified_since;
  SiteResponse site = model_.Respond(request.host, request.target, elapsed, conditions);
  response.status = site.status;
  response.content_type = std::move(site.content_type);
  response.body = std::move(site.body);
  response.delay = site.latency;
  response.headers = std::move(site.headers);
  return response;
}

}  // namespace crawler::websim
