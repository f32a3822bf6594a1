#include "tools/websim/websim_options.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace crawler::websim {
namespace {

// The ground truth walks a bitmap of every page id, and page ids are ints: these bounds keep
// both small enough for one machine.
constexpr int64_t kMaxPageIds = 200'000'000;
// sitemaps.org: at most 50,000 URLs per sitemap file; sitemap-only pages are listed first so
// none of them is cut off.
constexpr int kMaxSitemapOnlyPages = 50'000;
constexpr int64_t kMaxPageBytes = int64_t{64} << 20;

absl::Status Fraction(const char* name, double value) {
  if (!(value >= 0.0 && value <= 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be in [0, 1], got ", value));
  }
  return absl::OkStatus();
}

constexpr double kMaxTimeScale = 1e6;
constexpr double kMaxGammaParameter = 1e3;

}  // namespace

absl::StatusOr<ChangeRates> ParseChangeRates(absl::string_view text) {
  ChangeRates rates;
  const auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "change rates must be fixed:RATE or gamma:SHAPE,SCALE (per day), got \"",
        text.substr(0, 100), "\""));
  };
  if (absl::ConsumePrefix(&text, "fixed:")) {
    rates.kind = ChangeRates::Kind::kFixed;
    if (!absl::SimpleAtod(text, &rates.rate_per_day)) return bad();
  } else if (absl::ConsumePrefix(&text, "gamma:")) {
    rates.kind = ChangeRates::Kind::kGamma;
    std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
    if (parts.size() != 2 || !absl::SimpleAtod(parts[0], &rates.shape) ||
        !absl::SimpleAtod(parts[1], &rates.scale)) {
      return bad();
    }
  } else {
    return bad();
  }
  return rates;
}

namespace {

// A suffix every host name ends in: ".websim.test", not a name of its own.
absl::Status CheckHostSuffix(const std::string& host_suffix) {
  if (host_suffix.empty() || host_suffix.front() != '.' || host_suffix.size() > 200) {
    return absl::InvalidArgumentError("host_suffix must start with '.' (e.g. \".websim.test\")");
  }
  for (char c : host_suffix) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    if (!ok) {
      return absl::InvalidArgumentError("host_suffix must be lower-case letters, digits, '-', '.'");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WebsimOptions::Validate() const {
  if (num_hosts < 1 || num_hosts > 10'000'000) {
    return absl::InvalidArgumentError(absl::StrCat("num_hosts must be in [1, 1e7], got ", num_hosts));
  }
  if (pages_per_host < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("pages_per_host must be >= 1, got ", pages_per_host));
  }
  if (sitemap_only_pages < 0 || sitemap_only_pages > kMaxSitemapOnlyPages) {
    return absl::InvalidArgumentError(absl::StrCat("sitemap_only_pages must be in [0, ",
                                                   kMaxSitemapOnlyPages, "], got ",
                                                   sitemap_only_pages));
  }
  const int64_t ids_per_host = int64_t{pages_per_host} + sitemap_only_pages;
  if (ids_per_host * num_hosts > kMaxPageIds) {
    return absl::InvalidArgumentError(absl::StrCat("hosts x pages must be <= ", kMaxPageIds,
                                                   ", got ", ids_per_host * num_hosts));
  }
  if (absl::Status s = CheckHostSuffix(host_suffix); !s.ok()) return s;
  if (num_seed_hosts < 0 || num_seed_hosts > num_hosts) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_seed_hosts must be in [0, num_hosts], got ", num_seed_hosts));
  }
  if (popular_links < 0 || popular_links > num_hosts) {
    return absl::InvalidArgumentError(
        absl::StrCat("popular_links must be in [0, num_hosts], got ", popular_links));
  }
  if (links_per_page < 0 || links_per_page > 10'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("links_per_page must be in [0, 10000], got ", links_per_page));
  }
  for (absl::Status s :
       {Fraction("cross_host_fraction", cross_host_fraction),
        Fraction("nofollow_fraction", nofollow_fraction),
        Fraction("private_fraction", private_fraction),
        Fraction("private_open_fraction", private_open_fraction),
        Fraction("nofollow_only_fraction", nofollow_only_fraction),
        Fraction("sitemap_fraction", sitemap_fraction),
        Fraction("sitemap_lastmod_lie_fraction", sitemap_lastmod_lie_fraction),
        Fraction("sitemap_in_robots_fraction", sitemap_in_robots_fraction),
        Fraction("scripted_host_fraction", scripted_host_fraction),
        Fraction("scripted_static_page_fraction", scripted_static_page_fraction),
        Fraction("hostile_host_fraction", hostile_host_fraction)}) {
    if (!s.ok()) return s;
  }
  if (private_fraction + private_open_fraction + nofollow_only_fraction > 1.0) {
    return absl::InvalidArgumentError(
        "private_fraction + private_open_fraction + nofollow_only_fraction must be <= 1");
  }
  if (sitemap_max_urls < 1 || sitemap_max_urls > 50'000) {
    return absl::InvalidArgumentError(
        absl::StrCat("sitemap_max_urls must be in [1, 50000], got ", sitemap_max_urls));
  }
  if (hostile_probe_port < 0 || hostile_probe_port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("hostile_probe_port must be in [0, 65535], got ", hostile_probe_port));
  }
  if (crawl_delay < absl::ZeroDuration() || crawl_delay > absl::Hours(24)) {
    return absl::InvalidArgumentError("crawl_delay must be in [0, 24h]");
  }
  if (page_bytes_min < 0 || page_bytes_min > page_bytes_max || page_bytes_max > kMaxPageBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "page bytes must satisfy 0 <= min <= max <= ", kMaxPageBytes, ", got ", page_bytes_min,
        ",", page_bytes_max));
  }
  if (latency_min < absl::ZeroDuration() || latency_min > latency_max ||
      latency_max > absl::Seconds(60)) {
    return absl::InvalidArgumentError("latency must satisfy 0 <= min <= max <= 60s");
  }
  switch (change_rates.kind) {
    case ChangeRates::Kind::kNone:
      break;
    case ChangeRates::Kind::kFixed:
      if (!(change_rates.rate_per_day >= 0 &&
            change_rates.rate_per_day <= ChangeRates::kMaxRatePerDay)) {
        return absl::InvalidArgumentError(absl::StrCat("change rate must be in [0, ",
                                                       ChangeRates::kMaxRatePerDay,
                                                       "] per day, got ",
                                                       change_rates.rate_per_day));
      }
      break;
    case ChangeRates::Kind::kGamma:
      if (!(change_rates.shape > 0 && change_rates.shape <= kMaxGammaParameter &&
            change_rates.scale > 0 && change_rates.scale <= kMaxGammaParameter)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "gamma change rates need 0 < shape, scale <= ", kMaxGammaParameter, ", got ",
            change_rates.shape, ",", change_rates.scale));
      }
      break;
  }
  if (!(time_scale >= 0 && time_scale <= kMaxTimeScale)) {
    return absl::InvalidArgumentError(
        absl::StrCat("time_scale must be in [0, ", kMaxTimeScale, "], got ", time_scale));
  }
  if ((change_rates.kind == ChangeRates::Kind::kNone) != (time_scale == 0)) {
    return absl::InvalidArgumentError(
        "changing pages need both change rates and a time scale > 0 (or neither)");
  }
  if (!focus_sites.empty()) {
    int64_t largest = 0;
    for (const banditsim::SiteSpec& site : focus_sites) largest = std::max(largest, site.pages);
    if (num_hosts != static_cast<int>(focus_sites.size()) || pages_per_host != largest ||
        links_per_page != 0 || popular_links != 0 || private_fraction != 0 ||
        private_open_fraction != 0 || nofollow_only_fraction != 0 || sitemap_only_pages != 0 ||
        sitemap_fraction != 0 || equal_host_sizes) {
      return absl::InvalidArgumentError(
          "focus_sites: hosts, pages and link options must be set by UseFocusSites");
    }
    if (change_rates.kind != ChangeRates::Kind::kNone) {
      return absl::InvalidArgumentError("focus_sites cannot be combined with change_rates");
    }
  }
  return absl::OkStatus();
}

void WebsimOptions::UseFocusSites(std::vector<banditsim::SiteSpec> sites) {
  focus_sites = std::move(sites);
  num_hosts = static_cast<int>(focus_sites.size());
  int64_t largest = 1;
  for (const banditsim::SiteSpec& site : focus_sites) largest = std::max(largest, site.pages);
  pages_per_host = static_cast<int>(largest);
  links_per_page = 0;
  popular_links = 0;
  private_fraction = 0;
  private_open_fraction = 0;
  nofollow_only_fraction = 0;
  sitemap_only_pages = 0;
  sitemap_fraction = 0;
  equal_host_sizes = false;
}

}  // namespace crawler::websim
