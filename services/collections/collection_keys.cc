#include "services/collections/collection_keys.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "services/common/politeness/politeness_keys.h"

namespace crawler::collections {
namespace {

using config::ValueKind;
using Strings = std::vector<std::string>;

// The re-visit keys: revisit, revisit_policy, revisit_budget, the intervals, revisit_min_visits,
// revisit_prior, the Nutch schedule's own and change_threshold_bits.
void AddRevisitKeys(config::KeyTable<Collection>& t) {
  t.AddField<bool>({"revisit", "--revisit",
                    "Keep the pages fresh: re-visit each one when the re-visit policy says"},
                   [](Collection& c) -> bool& { return c.revisit.options.enabled; })
      .AddField<std::string>({"revisit_policy", "--revisit-policy",
                              "optimal, uniform, proportional, fixed, nutch, stormcrawler, step, "
                              "bayes-published, bayes-corrected"},
                             [](Collection& c) -> std::string& { return c.revisit.options.policy; })
      .AddField<double>(
          {"revisit_budget", "--revisit-budget",
           "Re-visits the collection may spend, e.g. 5/s, 20/h, 1000/d",
           "none (required with --revisit)"},
          [](Collection& c) -> double& { return c.revisit.budget_visits_per_day; },
          ValueKind::kVisitRate)
      .AddField<absl::Duration>(
          {"revisit_min_interval", "--revisit-min-interval", "No page re-visited sooner than this"},
          [](Collection& c) -> absl::Duration& { return c.revisit.options.min_interval; })
      .AddField<absl::Duration>(
          {"revisit_max_interval", "--revisit-max-interval",
           "Every page re-visited at least this often"},
          [](Collection& c) -> absl::Duration& { return c.revisit.options.max_interval; })
      .AddField<double>(
          {"revisit_min_visits", "--revisit-min-visits",
           "optimal: every page at least this often, e.g. 1/d (exploration)"},
          [](Collection& c) -> double& {
            return c.revisit.options.policy_options.optimal.min_visits_per_day;
          },
          ValueKind::kVisitRate)
      .AddField<std::string>(
          {"revisit_prior", "--revisit-prior",
           "optimal, proportional: the rate estimators' prior, fitted (to the fleet's visit "
           "histories) or fleet-mean (a Gamma prior centred on the fleet's observed rate)"},
          [](Collection& c) -> std::string& { return c.revisit.options.prior; })
      // Nutch's AdaptiveFetchSchedule in its own units, so that it can be tried on a test web
      // whose pages change in seconds (its shipped defaults are 60 s and 30 days).
      .AddField<double>(
          {"revisit_nutch_initial_interval", "--revisit-nutch-initial-interval",
           "nutch: interval after a page's first visit (db.fetch.interval.default)"},
          [](Collection& c) -> double& {
            return c.revisit.options.policy_options.nutch.initial_interval_days;
          },
          ValueKind::kDays)
      .AddField<double>(
          {"revisit_nutch_min_interval", "--revisit-nutch-min-interval",
           "nutch: shortest interval (db.fetch.schedule.adaptive.min_interval)"},
          [](Collection& c) -> double& {
            return c.revisit.options.policy_options.nutch.min_interval_days;
          },
          ValueKind::kDays)
      .AddField<int>({"change_threshold_bits", "--change-threshold-bits",
                      "SimHash bits that make a re-visit count as a change"},
                     [](Collection& c) -> int& { return c.revisit.options.change_threshold_bits; });
}

}  // namespace

const config::KeyTable<Collection>& CollectionKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<Collection>;
    t->Add({"name", "--name", "Collection name (WARC file prefix)"}, &Collection::name)
        .Add({"seeds", "", "Seed URLs"}, &Collection::seeds)
        .Add({"sitemap_seeds", "--sitemap",
              "Sitemap URL to read from the start (repeatable; plain, gzip or index)"},
             &Collection::sitemap_seeds)
        .Add({"sitemap_discovery", "--sitemap-discovery",
              "Where sitemaps are looked for: robots, robots+well-known (also /sitemap.xml) "
              "or off"},
             &Collection::sitemap_discovery)
        .Add({"store_bodies", "--no-warc", "Do not write WARC files"}, &Collection::store_bodies)
        .Add({"fingerprints", "--no-fingerprints",
              "No content fingerprints: no duplicate detection (a link-mapping crawl)"},
             &Collection::fingerprints)
        .Add({"store_content_types", "--store-content-type",
              "Only store these media types in WARC files (repeatable), e.g. text/html", "all"},
             &Collection::store_content_types)
        // scope
        .AddField<Strings>(
            {"allow_host_suffixes", "--allow-host-suffix",
             "Only hosts under this suffix (repeatable; gov.si admits gov.si and *.gov.si)",
             "any host"},
            [](Collection& c) -> Strings& { return c.scope.allowed_host_suffixes; })
        .AddField<bool>(
            {"same_site_only", "--same-site-only", "Only the seeds' registrable domains"},
            [](Collection& c) -> bool& { return c.scope.same_site_only; })
        .AddField<Strings>({"include", "--include", "URL regex (RE2) that must match (repeatable)"},
                           [](Collection& c) -> Strings& { return c.scope.include_patterns; })
        .AddField<Strings>(
            {"exclude", "--exclude", "URL regex (RE2) that must not match (repeatable)"},
            [](Collection& c) -> Strings& { return c.scope.exclude_patterns; })
        .AddField<std::optional<uint32_t>>(
            {"max_depth", "--max-depth", "Link depth from the seeds (seeds are 0)"},
            [](Collection& c) -> std::optional<uint32_t>& { return c.scope.max_depth; })
        // limits
        .AddField<uint64_t>({"max_pages", "--max-pages", "Stop after this many pages", "unlimited"},
                            [](Collection& c) -> uint64_t& { return c.limits.max_pages; })
        .AddField<uint64_t>(
            {"max_pages_per_host", "--max-pages-per-host", "Pages per host at most", "unlimited"},
            [](Collection& c) -> uint64_t& { return c.limits.max_pages_per_host; })
        .Include(politeness::PolitenessKeys(), &Collection::politeness);
    AddRevisitKeys(*t);
    // focused collections
    t->AddField<std::string>(
         {"focus", "--focus",
          "none, or external_links: a bandit picks the site to fetch next for new external "
          "links (needs max_pages)"},
         [](Collection& c) -> std::string& { return c.focus.target; })
        .AddField<std::string>({"focus_policy", "--focus-policy",
                                "r1, r2, r3, thompson, d-thompson, rested-thompson, d-ucb"},
                               [](Collection& c) -> std::string& { return c.focus.policy; })
        .AddField<std::string>(
            {"focus_external", "--focus-external",
             "domain (another registrable domain is external) or host (another host)"},
            [](Collection& c) -> std::string& { return c.focus.external; })
        .AddField<uint32_t>(
            {"focus_in_flight", "--focus-in-flight",
             "Pages chosen by the bandit and not yet seen, at most (1: strictly sequential)"},
            [](Collection& c) -> uint32_t& { return c.focus.max_in_flight; })
        .AddField<uint64_t>({"focus_seed", "--focus-seed", "Seed of the bandit's random draws"},
                            [](Collection& c) -> uint64_t& { return c.focus.seed; })
        .Add({"record_links", "--record-links",
              "Record every page's links for crawler export (on with focus)"},
             &Collection::record_links)
        // rendering
        .AddField<std::string>(
            {"render", "--render",
             "Render HTML pages in headless Chromium: never, auto (pages with scripts, on hosts "
             "where it finds links) or always"},
            [](Collection& c) -> std::string& { return c.render.mode; })
        .AddField<absl::Duration>(
            {"render_time", "--render-time", "Time one page's render may take, e.g. 15s"},
            [](Collection& c) -> absl::Duration& { return c.render.time_per_page; })
        .AddField<uint32_t>({"render_max_requests", "--render-max-requests",
                             "Requests (scripts, fetch/XHR, frames, style sheets) per rendered page"},
                            [](Collection& c) -> uint32_t& { return c.render.max_requests_per_page; })
        .AddField<uint64_t>(
            {"render_max_bytes", "--render-max-bytes", "Body bytes served to one rendered page"},
            [](Collection& c) -> uint64_t& { return c.render.max_bytes_per_page; });
    return t;
  }();
  return *table;
}

}  // namespace crawler::collections
