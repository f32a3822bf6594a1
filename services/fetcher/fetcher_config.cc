#include "services/fetcher/fetcher_config.h"

#include <string>
#include <vector>

namespace crawler::fetcher {

using Options = FetcherOptions;

const config::KeyTable<FetcherOptions>& FetcherKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<FetcherOptions>;
    t->Add({"max_in_flight", "--max-in-flight", "Concurrent requests in total"},
           &Options::max_in_flight)
        .Add({"workers", "--workers", "Page processing threads"}, &Options::worker_threads)
        .AddField<absl::Duration>(
            {"timeout", "--timeout", "Per-request time limit, e.g. 30s"},
            [](Options& o) -> absl::Duration& { return o.http.total_timeout; })
        .AddField<size_t>({"max_body_bytes", "--max-body-bytes", "Body bytes kept per response"},
                          [](Options& o) -> size_t& { return o.http.max_body_bytes; })
        .AddField<size_t>({"body_memory_bytes", "--body-memory-bytes",
                           "Body bytes held in memory over all transfers; beyond, they wait"},
                          [](Options& o) -> size_t& { return o.http.body_memory_bytes; })
        .AddField<absl::Duration>(
            {"transfer_drain_timeout", "--transfer-drain-timeout",
             "On a stop, transfers still running after this are cut and re-queued"},
            [](Options& o) -> absl::Duration& { return o.drain_timeout; })
        .AddField<std::string>(
            {"connect_to", "--connect-to", "Send every request to HOST:PORT (websim)"},
            [](Options& o) -> std::string& { return o.http.connect_to; })
        .AddField<std::vector<std::string>>(
            {"request_headers", "--header",
             "Header line sent with every request (repeatable), e.g. 'From: ops@example.org'"},
            [](Options& o) -> std::vector<std::string>& { return o.http.extra_headers; })
        .Add({"obey_robots", "--no-robots", "Ignore robots.txt (only for your own sites)"},
             &Options::obey_robots)
        // Sitemaps became a collection's setting with more choices (and on by default).
        .AddRetired({"queue_sitemaps", "--queue-sitemaps",
                     "Retired: use sitemap_discovery (--sitemap-discovery)"},
                    "queue_sitemaps was replaced by sitemap_discovery: robots, robots+well-known "
                    "(the default: also /sitemap.xml) or off")
        .AddField<bool>({"follow_embeds", "--follow-embeds", "Also follow <img> links"},
                        [](Options& o) -> bool& { return o.processing.follow_embeds; })
        .AddField<absl::Duration>(
            {"robots_retry_after", "--robots-retry-after",
             "An unreachable robots.txt is fetched again after this"},
            [](Options& o) -> absl::Duration& { return o.robots_policy.unreachable_retry_after; })
        // The browser of collections that render (their `render`).
        .AddField<std::string>(
            {"browser", "--browser",
             "Browser for rendering: chromium-headless-shell, chromium, or a path"},
            [](Options& o) -> std::string& { return o.render.browser.executable; })
        .AddField<int>({"render_tabs", "--render-tabs", "Pages rendered at once"},
                       [](Options& o) -> int& { return o.render.browser.max_tabs; })
        .AddField<uint64_t>(
            {"browser_memory_bytes", "--browser-memory-bytes",
             "Memory of the browser's processes (proportional set sizes); over it while a page renders, the "
             "renderer holding the most is killed (memory_limit)"},
            [](Options& o) -> uint64_t& { return o.render.browser.max_memory_bytes; })
        .AddField<bool>({"browser_no_sandbox", "--browser-no-sandbox",
                         "Start the browser without its sandbox (containers without user "
                         "namespaces; always so as root)"},
                        [](Options& o) -> bool& { return o.render.browser.no_sandbox; });
    return t;
  }();
  return *table;
}

}  // namespace crawler::fetcher
