#include "tools/websim/websim_handler.h"

#include <utility>

#include "absl/strings/match.h"
#include "tools/websim/ground_truth.h"

namespace crawler::websim {

const std::string& WebsimHandler::Truth() {
  absl::call_once(truth_once_,
                  [this] { truth_ = FormatGroundTruth(model_, ComputeGroundTruth(model_)); });
  return truth_;
}

HttpResponse WebsimHandler::Handle(const HttpRequest& request) {
  HttpResponse response;
  if (absl::StartsWith(request.target, "/__websim/")) {
    response.content_type = "text/plain; charset=utf-8";
    if (request.target == "/__websim/truth") {
      response.body = Truth();
    } else if (request.target == "/__websim/seeds") {
      response.body = FormatSeeds(model_);
    } else {
      response.status = 404;
      response.body = "websim: unknown endpoint\n";
    }
    return response;
  }
  SiteResponse site = model_.Respond(
      request.host, request.target,
      absl::Nanoseconds(request.received_monotonic_ns - start_ns_));
  response.status = site.status;
  response.content_type = std::move(site.content_type);
  response.body = std::move(site.body);
  response.delay = site.latency;
  return response;
}

}  // namespace crawler::websim
