// WebsimHandler: answers HTTP requests from a SiteModel, plus websim's own endpoints.
//
// Any Host is accepted: the SiteModel decides whether it is one of its hosts (404 otherwise).
// Paths under /__websim/ are answered on every host, without latency, and never appear in links:
//   /__websim/truth  the ground truth (ground_truth.h format), computed on first use
//   /__websim/seeds  the seed URLs, one per line
//   /__websim/changes  change log up to now (change_log.h; static web: every rate 0)
//   /__websim/rates    url<TAB>rate_per_day of every page
//
// Thread-safety: Handle() is safe to call concurrently (the model is immutable; the truth is
// computed once under absl::call_once). The model must outlive the handler.
#ifndef CRAWLER_TOOLS_WEBSIM_WEBSIM_HANDLER_H_
#define CRAWLER_TOOLS_WEBSIM_WEBSIM_HANDLER_H_

#include <cstdint>
#include <string>

#include "absl/base/call_once.h"
#include "tools/websim/http_server.h"
#include "tools/websim/site_model.h"

namespace crawler::websim {

class WebsimHandler : public HttpHandler {
 public:
  // `start_monotonic_ns` is time zero of the web: page content may later depend on the time
  // elapsed since then.
  WebsimHandler(const SiteModel* model, int64_t start_monotonic_ns)
      : model_(*model), start_ns_(start_monotonic_ns) {}

  HttpResponse Handle(const HttpRequest& request) override;

 private:
  const std::string& Truth();

  const SiteModel& model_;
  const int64_t start_ns_;
  absl::once_flag truth_once_;
  std::string truth_;  // written once under truth_once_
};

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_WEBSIM_HANDLER_H_
