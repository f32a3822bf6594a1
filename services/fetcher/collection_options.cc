#include "services/fetcher/collection_options.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "services/collections/shares.h"

namespace crawler::fetcher {

size_t BufferedTasksFor(size_t lease_ahead, size_t max_in_flight,
                        const politeness::PolitenessOptions& politeness) {
  constexpr size_t kMax = size_t{1} << 16;
  const size_t connections = static_cast<size_t>(std::max(1, politeness.max_connections_per_host));
  const double slots = std::ceil(static_cast<double>(max_in_flight) / connections);
  // A polite host holds a transfer slot for a response and then rests min_delay, so one slot
  // serves up to 1 + min_delay / kFastResponse hosts in turn.
  const double turns =
      1 + std::ceil(absl::FDivDuration(std::max(politeness.min_delay, absl::ZeroDuration()),
                                       collections::kFastResponse));
  const double wanted = slots * turns * static_cast<double>(lease_ahead);
  return std::clamp(wanted >= kMax ? kMax : static_cast<size_t>(wanted),
                    FetcherOptions{}.max_buffered_tasks, kMax);
}

FetcherOptions FetcherOptionsFor(const FetcherOptions& base,
                                 const collections::Collection& collection,
                                 const std::string& user_agent, int partition_header) {
  FetcherOptions options = base;
  options.http.user_agent = user_agent;
  // The request head as sent is only kept for WARC request records.
  options.http.capture_request = collection.store_bodies;
  if (partition_header >= 0) {
    options.http.extra_headers.push_back(absl::StrCat("X-Crawler-Partition: ", partition_header));
  }
  options.robots_agent = RobotsProductToken(user_agent);
  options.processing.render =
      collections::ParseRenderMode(collection.render.mode).value_or(collections::RenderMode::kNever);
  if (options.processing.render != collections::RenderMode::kNever) {
    // A render holds its worker for up to render_time, so fetched pages wait for workers one at
    // a time and only a few at once: none may outlive its lease (2 minutes) in the queue. As
    // many workers as tabs, or the tabs go unused.
    options.worker_batch = 1;
    options.worker_threads = std::max(options.worker_threads, options.render.browser.max_tabs);
    options.max_in_flight =
        std::min(options.max_in_flight, static_cast<size_t>(4 * options.worker_threads));
  }
  options.lease_max_per_host = collections::LeaseAheadPerHost(
      collection.politeness, collections::RefillTime(base.flush_interval));
  options.max_buffered_tasks =
      BufferedTasksFor(options.lease_max_per_host, options.max_in_flight, collection.politeness);
  options.processing.store_content_types = collection.store_content_types;
  options.processing.fingerprints = collection.fingerprints;
  // Validated with the collection; a definition that slipped past reads as discovery off.
  options.sitemap_discovery = collections::ParseSitemapDiscovery(collection.sitemap_discovery)
                                  .value_or(collections::SitemapDiscovery::kOff);
  options.render.limits.time = collection.render.time_per_page;
  options.render.limits.max_requests = collection.render.max_requests_per_page;
  options.render.limits.max_bytes = collection.render.max_bytes_per_page;
  if (collection.focus.enabled()) {
    // Each reward is worth a choice: hand completions over and ask for the next lease soon,
    // rather than at the coverage crawl's batching pace.
    options.flush_interval = std::min(options.flush_interval, absl::Milliseconds(5));
    options.lease_pause_empty = std::min(options.lease_pause_empty, absl::Milliseconds(5));
  }
  return options;
}

std::string RobotsProductToken(std::string_view user_agent) {
  size_t end = 0;
  while (end < user_agent.size() && user_agent[end] != '/' && user_agent[end] != ' ' &&
         user_agent[end] != '(') {
    ++end;
  }
  std::string token(user_agent.substr(0, end));
  absl::AsciiStrToLower(&token);
  return token;
}

}  // namespace crawler::fetcher
