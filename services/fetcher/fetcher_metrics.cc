#include "services/fetcher/fetcher_metrics.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace crawler::fetcher {

using frontier::OutcomeClass;

std::string_view OutcomeLabelName(OutcomeLabel label) {
  switch (label) {
    case OutcomeLabel::kSuccess:
      return "success";
    case OutcomeLabel::kNotModified:
      return "not_modified";
    case OutcomeLabel::kRedirect:
      return "redirect";
    case OutcomeLabel::kClientError:
      return "client_error";
    case OutcomeLabel::kServerError:
      return "server_error";
    case OutcomeLabel::kNetworkError:
      return "network_error";
    case OutcomeLabel::kRobotsDenied:
      return "robots_denied";
    case OutcomeLabel::kBlocked:
      return "blocked";
  }
  return "server_error";
}

OutcomeLabel OutcomeLabelOf(const FetchEvent& event) {
  switch (event.outcome) {
    case OutcomeClass::kRobotsDenied:
      return OutcomeLabel::kRobotsDenied;
    case OutcomeClass::kOutOfScope:
      return OutcomeLabel::kBlocked;
    case OutcomeClass::kNetworkError:
      return OutcomeLabel::kNetworkError;
    default:
      break;
  }
  const int status = event.http_status;
  if (status == 0) return OutcomeLabel::kNetworkError;
  if (status >= 200 && status < 300) return OutcomeLabel::kSuccess;
  if (status == 304) return OutcomeLabel::kNotModified;
  if (status >= 300 && status < 400) return OutcomeLabel::kRedirect;
  if (status >= 400 && status < 500) return OutcomeLabel::kClientError;
  return OutcomeLabel::kServerError;
}

namespace {

// Request start to last byte: from a fast local answer to the slowest transfer a timeout allows.
const prometheus::Histogram::BucketBoundaries& FetchBuckets() {
  static const auto* const kBuckets = new prometheus::Histogram::BucketBoundaries{
      0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return *kBuckets;
}

}  // namespace

class FetcherMetrics::CollectionObserver final : public FetchObserver {
 public:
  CollectionObserver(FetcherMetrics& m, const std::string& collection)
      : duration_(m.duration_),
        robots_denied_(m.robots_denied_.Add({{"collection", collection}})),
        exact_(m.duplicates_.Add({{"collection", collection}, {"kind", "exact"}})),
        near_(m.duplicates_.Add({{"collection", collection}, {"kind", "near"}})) {
    for (size_t i = 0; i < kOutcomeLabels; ++i) {
      const std::string outcome(OutcomeLabelName(static_cast<OutcomeLabel>(i)));
      pages_[i] = &m.pages_.Add({{"collection", collection}, {"outcome", outcome}});
      bytes_[i] = &m.bytes_.Add({{"collection", collection}, {"outcome", outcome}});
    }
  }

  void OnFetch(const FetchEvent& e) override {
    const size_t i = static_cast<size_t>(OutcomeLabelOf(e));
    const bool requested = e.http_status > 0 || e.outcome == OutcomeClass::kNetworkError;
    if (requested) {
      bytes_[i]->Increment(static_cast<double>(e.bytes));
      duration_[i]->Observe(absl::ToDoubleSeconds(e.duration));
    }
    if (e.robots_txt || e.sitemap) return;
    pages_[i]->Increment();
    if (e.outcome == OutcomeClass::kRobotsDenied) robots_denied_.Increment();
    if (e.outcome == OutcomeClass::kDuplicate) {
      // PageProcessor's detail: "exact duplicate of ..." or "near duplicate of ...".
      (absl::StartsWith(e.detail, "near") ? near_ : exact_).Increment();
    }
  }

 private:
  const std::array<prometheus::Histogram*, kOutcomeLabels>& duration_;
  std::array<prometheus::Counter*, kOutcomeLabels> pages_{};
  std::array<prometheus::Counter*, kOutcomeLabels> bytes_{};
  prometheus::Counter& robots_denied_;
  prometheus::Counter& exact_;
  prometheus::Counter& near_;
};

FetcherMetrics::FetcherMetrics(prometheus::Registry& registry)
    : pages_(prometheus::BuildCounter()
                 .Name("crawler_fetcher_pages_total")
                 .Help("Pages whose fetch (or decision not to fetch) is final, by outcome class.")
                 .Register(registry)),
      bytes_(prometheus::BuildCounter()
                 .Name("crawler_fetcher_bytes_total")
                 .Help("Response body bytes received (as transferred), robots.txt included.")
                 .Register(registry)),
      robots_denied_(prometheus::BuildCounter()
                         .Name("crawler_fetcher_robots_denied_total")
                         .Help("Pages not requested because robots.txt disallows them.")
                         .Register(registry)),
      duplicates_(prometheus::BuildCounter()
                      .Name("crawler_fetcher_duplicates_total")
                      .Help("Pages whose content duplicates another page's, exactly or nearly.")
                      .Register(registry)) {
  auto& duration = prometheus::BuildHistogram()
                       .Name("crawler_fetcher_fetch_duration_seconds")
                       .Help("Requests from start to last byte, by outcome class.")
                       .Register(registry);
  for (size_t i = 0; i < kOutcomeLabels; ++i) {
    duration_[i] = &duration.Add(
        {{"outcome", std::string(OutcomeLabelName(static_cast<OutcomeLabel>(i)))}}, FetchBuckets());
  }
}

FetcherMetrics::~FetcherMetrics() = default;

FetchObserver& FetcherMetrics::ForCollection(const std::string& collection) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<CollectionObserver>& observer = collections_[collection];
  if (observer == nullptr) observer = std::make_unique<CollectionObserver>(*this, collection);
  return *observer;
}

void AddBrowserStats(const browser::BrowserStats& from, browser::BrowserStats& into) {
  into.renders += from.renders;
  into.launches += from.launches;
  into.crashes += from.crashes;
  into.hangs += from.hangs;
  into.memory_recycles += from.memory_recycles;
  into.memory_kills += from.memory_kills;
  into.memory_bytes += from.memory_bytes;
  into.peak_memory_bytes = std::max(into.peak_memory_bytes, from.peak_memory_bytes);
}

void AddFetcherStats(const FetcherStats& from, FetcherStats& into) {
  into.leased += from.leased;
  into.requests_started += from.requests_started;
  into.robots_requests += from.robots_requests;
  into.robots_denied += from.robots_denied;
  into.abandoned += from.abandoned;
  into.leases_released += from.leases_released;
  into.drain_aborted += from.drain_aborted;
  into.loop_stalls += from.loop_stalls;
  into.completed += from.completed;
  into.outlinks_sent += from.outlinks_sent;
  into.politeness_waits += from.politeness_waits;
  into.politeness_unavailable += from.politeness_unavailable;
  into.in_flight += from.in_flight;
  into.buffered += from.buffered;
  into.hosts += from.hosts;
  into.hosts_waiting += from.hosts_waiting;
  into.frontier_errors += from.frontier_errors;
  into.frontier_outages += from.frontier_outages;
  into.dedup_unavailable += from.dedup_unavailable;
  into.links_cut += from.links_cut;
  into.pages_with_links_cut += from.pages_with_links_cut;
  into.trap_links += from.trap_links;
  into.pages_rendered += from.pages_rendered;
  into.rendered_links += from.rendered_links;
  into.renders_cut += from.renders_cut;
  into.politeness_wait.Add(from.politeness_wait);
  into.claim_duration.Add(from.claim_duration);
}

void AppendFetcherSnapshot(const FetcherSnapshot& s, metrics::SnapshotFamilies& out) {
  const FetcherStats& f = s.fetcher;
  out.Gauge("crawler_fetcher_transfers_in_flight", "HTTP transfers running now.")
      .Add({}, static_cast<double>(f.in_flight));
  out.Gauge("crawler_fetcher_hosts", "Hosts with leased URLs buffered in the fetcher.")
      .Add({}, static_cast<double>(f.hosts));
  out.Gauge("crawler_fetcher_hosts_waiting",
            "Hosts with a request ready, waiting for their (or their address's) politeness slot.")
      .Add({}, static_cast<double>(f.hosts_waiting));
  out.Histogram("crawler_fetcher_politeness_wait_seconds",
                "Per request started: from its host wanting a politeness slot for it to the grant.")
      .AddHistogram({}, f.politeness_wait.bounds, f.politeness_wait.counts,
                    f.politeness_wait.sum_seconds);
  out.Histogram("crawler_fetcher_politeness_claim_duration_seconds",
                "Wall time of one politeness Exchange (a batch of releases and claims).")
      .AddHistogram({}, f.claim_duration.bounds, f.claim_duration.counts,
                    f.claim_duration.sum_seconds);
  if (!s.warc.empty()) {
    metrics::SnapshotFamily records =
        out.Counter("crawler_fetcher_warc_records_total",
                    "WARC records written (each file's warcinfo included).");
    metrics::SnapshotFamily bytes =
        out.Counter("crawler_fetcher_warc_bytes_total", "Bytes written to WARC files (gzip).");
    for (const FetcherSnapshot::Warc& w : s.warc) {
      records.Add({{"collection", w.collection}}, static_cast<double>(w.records));
      bytes.Add({{"collection", w.collection}}, static_cast<double>(w.bytes));
    }
  }
  out.Gauge("crawler_fetcher_urls_buffered", "Leased URLs buffered, not yet started.")
      .Add({}, static_cast<double>(f.buffered));
  out.Counter("crawler_fetcher_leases_total",
              "Leases taken from the frontier, by how they ended when not completed.")
      .Add({{"result", "leased"}}, static_cast<double>(f.leased))
      .Add({{"result", "abandoned"}}, static_cast<double>(f.abandoned))
      .Add({{"result", "released"}}, static_cast<double>(f.leases_released));
  out.Counter("crawler_fetcher_frontier_errors_total",
              "Frontier calls of the fetcher that failed (each retried later).")
      .Add({}, static_cast<double>(f.frontier_errors));
  out.Counter("crawler_fetcher_loop_stalls_total",
              "Network loop turns that began late (the process stopped or starved); each waits "
              "for the frontier to confirm the collection before starting requests.")
      .Add({}, static_cast<double>(f.loop_stalls));
  out.Counter("crawler_fetcher_dedup_unavailable_total",
              "Pages archived in full because the dedup index could not be reached.")
      .Add({}, static_cast<double>(f.dedup_unavailable));
  out.Counter("crawler_fetcher_pages_rendered_total", "HTML pages rendered in the browser.")
      .Add({}, static_cast<double>(f.pages_rendered));
  out.Counter("crawler_fetcher_rendered_links_total",
              "Links the rendered DOM (or the page's attempted navigations) added to the static "
              "HTML's.")
      .Add({}, static_cast<double>(f.rendered_links));
  out.Counter("crawler_fetcher_renders_cut_total",
              "Renders ended by a limit, a hung script, a crash or a failed browser.")
      .Add({}, static_cast<double>(f.renders_cut));
  if (s.browser.has_value()) {
    const browser::BrowserStats& b = *s.browser;
    out.Counter("crawler_fetcher_browser_events_total",
                "The browser's starts (the first and every replacement), renderers or browsers "
                "that died under a render, hung scripts, renderers the memory watch killed, and "
                "browsers retired for their memory after a render.")
        .Add({{"event", "launch"}}, static_cast<double>(b.launches))
        .Add({{"event", "crash"}}, static_cast<double>(b.crashes))
        .Add({{"event", "hang"}}, static_cast<double>(b.hangs))
        .Add({{"event", "memory_kill"}}, static_cast<double>(b.memory_kills))
        .Add({{"event", "memory_recycle"}}, static_cast<double>(b.memory_recycles));
    out.Gauge("crawler_fetcher_browser_memory_bytes",
              "Memory of the browsers' processes (proportional set sizes) at the last check "
              "of their memory watch.")
        .Add({}, static_cast<double>(b.memory_bytes));
    out.Gauge("crawler_fetcher_browser_peak_memory_bytes",
              "The most memory any check of a browser's memory watch saw.")
        .Add({}, static_cast<double>(b.peak_memory_bytes));
  }
  if (s.politeness.has_value()) {
    const politeness::PolitenessStats& p = *s.politeness;
    const uint64_t answered = p.claims >= p.unavailable ? p.claims - p.unavailable : 0;
    const uint64_t refused = answered >= p.granted ? answered - p.granted : 0;
    out.Counter("crawler_fetcher_politeness_claims_total",
                "Politeness slot claims, by result (unavailable: the store could not be reached).")
        .Add({{"result", "granted"}}, static_cast<double>(p.granted))
        .Add({{"result", "refused"}}, static_cast<double>(refused))
        .Add({{"result", "unavailable"}}, static_cast<double>(p.unavailable));
    out.Gauge("crawler_fetcher_politeness_store_up",
              "1 while the politeness store answers (always 1 in process), 0 in an outage.")
        .Add({}, p.store_up ? 1 : 0);
  }
  if (s.routing.has_value()) {
    const frontier::RoutingStats& r = *s.routing;
    uint64_t sent = 0;
    uint64_t local = 0;
    for (size_t k = 0; k < r.sent.size(); ++k) (k == r.home ? local : sent) += r.sent[k];
    out.Counter("crawler_fetcher_exchange_urls_total",
                "Outlinks routed: sent to another partition, kept by this one (local), or not "
                "sent thanks to the popular-URL cache (suppressed).")
        .Add({{"direction", "sent"}}, static_cast<double>(sent))
        .Add({{"direction", "local"}}, static_cast<double>(local))
        .Add({{"direction", "suppressed"}}, static_cast<double>(r.suppressed));
  }
  if (s.outbox.has_value()) {
    const OutboxStats& o = *s.outbox;
    out.Gauge("crawler_fetcher_partitions_unreachable",
              "Other frontier partitions that do not take this fetcher's outlinks now.")
        .Add({}, static_cast<double>(o.partitions_unreachable));
    out.Gauge("crawler_fetcher_outlinks_held",
              "Outlinks kept on disk for unreachable partitions, delivered when they answer.")
        .Add({}, static_cast<double>(o.held_urls));
    out.Gauge("crawler_fetcher_outlinks_held_bytes", "Disk taken by the outlinks held.")
        .Add({}, static_cast<double>(o.held_bytes));
  }
}

}  // namespace crawler::fetcher
