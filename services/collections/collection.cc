#include "services/collections/collection.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace crawler::collections {

absl::StatusOr<SitemapDiscovery> ParseSitemapDiscovery(std::string_view text) {
  if (text == "off") return SitemapDiscovery::kOff;
  if (text == "robots") return SitemapDiscovery::kRobots;
  if (text == "robots+well-known") return SitemapDiscovery::kRobotsAndWellKnown;
  return absl::InvalidArgumentError(absl::StrCat(
      "sitemap_discovery must be robots, robots+well-known or off, got \"", std::string(text),
      "\""));
}

std::string_view SitemapDiscoveryName(SitemapDiscovery discovery) {
  switch (discovery) {
    case SitemapDiscovery::kOff:
      return "off";
    case SitemapDiscovery::kRobots:
      return "robots";
    case SitemapDiscovery::kRobotsAndWellKnown:
      return "robots+well-known";
  }
  return "off";
}

absl::StatusOr<RenderMode> ParseRenderMode(std::string_view text) {
  for (RenderMode mode : {RenderMode::kNever, RenderMode::kAuto, RenderMode::kAlways}) {
    if (text == RenderModeName(mode)) return mode;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("render must be never, auto or always, got \"", std::string(text), "\""));
}

std::string_view RenderModeName(RenderMode mode) {
  switch (mode) {
    case RenderMode::kNever:
      return "never";
    case RenderMode::kAuto:
      return "auto";
    case RenderMode::kAlways:
      return "always";
  }
  return "never";
}

absl::Status Collection::Validate() const {
  if (name.empty()) return absl::InvalidArgumentError("collection name must not be empty");
  if (seeds.empty() && sitemap_seeds.empty()) {
    return absl::InvalidArgumentError("a collection needs at least one seed (or sitemap seed)");
  }
  if (absl::Status s = ParseSitemapDiscovery(sitemap_discovery).status(); !s.ok()) return s;
  if (absl::Status s = ParseRenderMode(render.mode).status(); !s.ok()) return s;
  if (render.time_per_page <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("render_time must be positive");
  }
  if (render.max_requests_per_page == 0 && render.mode != "never") {
    // Zero would render every page without its scripts: say "never" instead.
    return absl::InvalidArgumentError("render_max_requests must be >= 1");
  }
  if (render.max_bytes_per_page == 0) {
    return absl::InvalidArgumentError("render_max_bytes must be >= 1");
  }
  if (limits.max_pages == 0) return absl::InvalidArgumentError("max_pages must be >= 1");
  if (limits.max_pages_per_host == 0) {
    return absl::InvalidArgumentError("max_pages_per_host must be >= 1");
  }
  if (absl::Status s = politeness.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("politeness: ", s.message()));
  }
  if (revisit.options.enabled) {
    if (!(revisit.budget_visits_per_day > 0) || !std::isfinite(revisit.budget_visits_per_day)) {
      return absl::InvalidArgumentError(
          "revisit budget must be a positive number of visits per day");
    }
    if (limits.max_pages != CollectionLimits::kUnlimited ||
        limits.max_pages_per_host != CollectionLimits::kUnlimited) {
      return absl::InvalidArgumentError(
          "re-visiting cannot be combined with max_pages or max_pages_per_host yet (a host at "
          "its cap would never be re-visited); bound the crawl with scope and depth instead");
    }
    if (absl::Status s = ValidateRevisitOptions(revisit.options); !s.ok()) return s;
  }
  if (focus.target != "none" && focus.target != "external_links" &&
      focus.target != "external-links") {
    return absl::InvalidArgumentError(absl::StrCat(
        "focus must be none or external_links, got \"", focus.target, "\""));
  }
  if (focus.external != "domain" && focus.external != "host") {
    return absl::InvalidArgumentError(
        absl::StrCat("focus_external must be domain or host, got \"", focus.external, "\""));
  }
  if (focus.enabled()) {
    if (limits.max_pages == CollectionLimits::kUnlimited) {
      return absl::InvalidArgumentError("a focused collection needs a page budget (max_pages)");
    }
    if (revisit.options.enabled) {
      return absl::InvalidArgumentError("a focused collection cannot re-visit");
    }
    if (!sitemap_seeds.empty()) {
      return absl::InvalidArgumentError(
          "a focused collection cannot start from sitemaps (sitemap_seeds): a sitemap is no "
          "page for its bandit to be rewarded by");
    }
    if (absl::Status s = ValidateFocusOptions(focus.FrontierOptions(), limits.max_pages); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

void Collection::ApplyFocus() {
  if (!focus.enabled()) return;
  scope.same_site_only = true;
  record_links = true;
  // Every lease is a pull of the bandit, rewarded by the page's new external links: a sitemap
  // brings none, and its pull would steer the bandit away from the site it belongs to.
  sitemap_discovery = "off";
}

FocusOptions CollectionFocus::FrontierOptions() const {
  return {.enabled = enabled(), .policy = policy, .seed = seed, .max_in_flight = max_in_flight};
}

}  // namespace crawler::collections
