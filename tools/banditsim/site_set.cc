#include "tools/banditsim/site_set.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace crawler::banditsim {
namespace {

using bandit::Random;

// BeeBot's Table 1 ranges.
constexpr double kMinPages = 431;
constexpr double kMaxPages = 39292;
constexpr double kMinDensity = 0.020;
constexpr double kMaxDensity = 0.232;

double UniformIn(Random& random, double low, double high) {
  return low + (high - low) * random.Uniform();
}

double LogUniformIn(Random& random, double low, double high) {
  return std::exp(UniformIn(random, std::log(low), std::log(high)));
}

int64_t PagesIn(Random& random, double low, double high) {
  return std::max<int64_t>(1, std::llround(LogUniformIn(random, low, high)));
}

// The page of one link occurrence.
class PagePlacer {
 public:
  PagePlacer(const SiteSpec& spec, int64_t targets, Random& random) : spec_(spec) {
    const int64_t pages = spec_.pages;
    start_ = std::clamp<int64_t>(std::llround(spec_.start), 0, pages - 1);
    span_ = std::clamp<int64_t>(std::llround(spec_.scale), 1, pages - start_);
    if (spec_.placement == Placement::kBursty) {
      for (int b = 0; b < std::max(1, spec_.bursts); ++b) {
        burst_pages_.push_back(start_ + static_cast<int64_t>(random.Below(span_)));
      }
      // A link-list page holds a fixed number of links, not a share of the site's; at most 90%
      // of the targets go to link-list pages.
      burst_share_ = std::min(0.9, static_cast<double>(burst_pages_.size()) * spec_.burst_links /
                                       static_cast<double>(targets));
    }
  }

  int64_t Draw(Random& random) const {
    const int64_t pages = spec_.pages;
    switch (spec_.placement) {
      case Placement::kDiffuse:
        break;
      case Placement::kFrontLoaded:
        // Truncated exponential by rejection; a scale much larger than the site is near-uniform.
        for (int attempt = 0; attempt < 64; ++attempt) {
          const double x = -std::max(spec_.scale, 1.0) * std::log(random.Uniform());
          if (x < static_cast<double>(pages)) return static_cast<int64_t>(x);
        }
        break;
      case Placement::kLate:
        return start_ + static_cast<int64_t>(random.Below(span_));
      case Placement::kBursty:
        if (random.Uniform() < burst_share_) {
          return burst_pages_[random.Below(burst_pages_.size())];
        }
        break;
    }
    return static_cast<int64_t>(random.Below(pages));
  }

 private:
  const SiteSpec& spec_;
  int64_t start_ = 0;
  int64_t span_ = 1;
  std::vector<int64_t> burst_pages_;
  double burst_share_ = 0;
};

SiteSpec Table1Site(Random& random) {
  SiteSpec s;
  s.pages = PagesIn(random, kMinPages, kMaxPages);
  s.density = LogUniformIn(random, kMinDensity, kMaxDensity);
  switch (random.Below(4)) {
    case 0:
      s.placement = Placement::kDiffuse;
      break;
    case 1:
      s.placement = Placement::kFrontLoaded;
      s.scale = std::max(50.0, static_cast<double>(s.pages) * LogUniformIn(random, 0.05, 0.5));
      break;
    case 2:
      s.placement = Placement::kLate;
      s.start = LogUniformIn(random, 50, 1000);
      s.scale = static_cast<double>(s.pages);
      break;
    default:
      s.placement = Placement::kBursty;
      s.bursts = 2 + static_cast<int>(random.Below(5));
      s.burst_links = LogUniformIn(random, 30, 300);
      s.scale = LogUniformIn(random, 100, 2000);
      break;
  }
  return s;
}

// A front-loaded site: pages log-uniform in [min_pages, max_pages], density uniform in
// [min_density, kMaxDensity], exponential placement with a mean uniform in [min_scale, max_scale].
SiteSpec FrontLoadedSite(Random& random, double min_pages, double max_pages, double min_density,
                         double min_scale, double max_scale) {
  SiteSpec s;
  s.pages = PagesIn(random, min_pages, max_pages);
  s.density = UniformIn(random, min_density, kMaxDensity);
  s.placement = Placement::kFrontLoaded;
  s.scale = UniformIn(random, min_scale, max_scale);
  return s;
}

// A big, dense site whose links thin out only slowly: ahead from its first pages to the end.
SiteSpec InstituteLeader(Random& random) {
  return FrontLoadedSite(random, 8000, kMaxPages, 0.15, 3000, 8000);
}

// A thin site; its few links are spread, late, or on deep link-list pages.
SiteSpec InstituteOther(Random& random) {
  SiteSpec s;
  s.pages = PagesIn(random, kMinPages, 5000);
  s.density = LogUniformIn(random, kMinDensity, 0.08);
  const uint64_t kind = random.Below(4);
  if (kind == 2) {
    s.placement = Placement::kLate;
    s.start = LogUniformIn(random, 100, 1000);
    s.scale = static_cast<double>(s.pages);
  } else if (kind == 3) {
    s.placement = Placement::kBursty;
    s.bursts = 2 + static_cast<int>(random.Below(4));
    s.burst_links = LogUniformIn(random, 10, 60);
    s.start = 200;
    s.scale = 1800;
  }
  return s;
}

// A small site with a burst of links on its first pages and nothing after: the early winner
// that a greedy rule stays with too long.
SiteSpec UniversityEarlyLeader(Random& random) {
  return FrontLoadedSite(random, kMinPages, 1500, 0.15, 30, 100);
}

// A site whose links come late or on link-list pages within the first few hundred pages.
SiteSpec UniversityOther(Random& random) {
  SiteSpec s;
  s.pages = PagesIn(random, 1000, kMaxPages);
  s.density = LogUniformIn(random, 0.05, kMaxDensity);
  const uint64_t kind = random.Below(10);
  if (kind < 4) {
    s.placement = Placement::kBursty;
    s.bursts = 3 + static_cast<int>(random.Below(6));
    s.burst_links = LogUniformIn(random, 30, 300);
    s.start = 20;
    s.scale = 380;
  } else if (kind < 7) {
    s.placement = Placement::kLate;
    s.start = LogUniformIn(random, 30, 300);
    s.scale = UniformIn(random, 0.25, 1.0) * (static_cast<double>(s.pages) - s.start);
  }
  return s;
}

template <typename Draw>
void Append(std::vector<SiteSpec>& specs, int count, Random& random, Draw draw) {
  for (int i = 0; i < count; ++i) specs.push_back(draw(random));
}

}  // namespace

std::string_view PlacementName(Placement placement) {
  switch (placement) {
    case Placement::kDiffuse:
      return "diffuse";
    case Placement::kFrontLoaded:
      return "front";
    case Placement::kLate:
      return "late";
    case Placement::kBursty:
      return "bursty";
  }
  return "?";
}

Site BuildSite(const SiteSpec& spec, const DuplicateModel& duplicates, Random& random) {
  Site site;
  site.spec = spec;
  site.spec.pages = std::max<int64_t>(1, spec.pages);
  const int64_t pages = site.spec.pages;
  const int64_t targets =
      std::max<int64_t>(1, std::llround(spec.density * static_cast<double>(pages)));
  const PagePlacer placer(site.spec, targets, random);
  std::vector<int64_t> first_page(targets);
  for (int64_t t = 0; t < targets; ++t) first_page[t] = placer.Draw(random);

  // Repeat occurrences: target by popularity rank (inverse CDF over cumulative weights).
  std::vector<double> cumulative(targets);
  double total = 0;
  for (int64_t t = 0; t < targets; ++t) {
    total += std::pow(static_cast<double>(t + 1), -duplicates.zipf);
    cumulative[t] = total;
  }
  const int64_t repeats = std::llround(std::max(0.0, duplicates.occurrences_per_link - 1.0) *
                                       static_cast<double>(targets));
  for (int64_t r = 0; r < repeats; ++r) {
    const double u = random.Uniform() * total;
    const int64_t t =
        std::min<int64_t>(targets - 1, std::lower_bound(cumulative.begin(), cumulative.end(), u) -
                                           cumulative.begin());
    first_page[t] = std::min(first_page[t], placer.Draw(random));
  }

  site.new_links.assign(pages, 0);
  for (const int64_t page : first_page) ++site.new_links[page];
  site.distinct_links = targets;
  site.occurrences = targets + repeats;
  return site;
}

std::vector<std::string> SetTypeNames() { return {"table1", "institute", "university", "mixed"}; }

absl::StatusOr<std::vector<SiteSpec>> DrawSiteSpecs(std::string_view type, int sites,
                                                    Random& random) {
  if (sites < 1) return absl::InvalidArgumentError("a site set needs at least one site");
  std::vector<SiteSpec> specs;
  if (type == "table1") {
    Append(specs, sites, random, Table1Site);
  } else if (type == "institute") {
    Append(specs, 1, random, InstituteLeader);
    Append(specs, sites - 1, random, InstituteOther);
  } else if (type == "university") {
    Append(specs, 1, random, UniversityEarlyLeader);
    Append(specs, sites - 1, random, UniversityOther);
  } else if (type == "mixed") {
    const int institute = sites / 2;
    if (institute > 0) {
      Append(specs, 1, random, InstituteLeader);
      Append(specs, institute - 1, random, InstituteOther);
    }
    Append(specs, 1, random, UniversityEarlyLeader);
    Append(specs, sites - institute - 1, random, UniversityOther);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown site set type \"", std::string(type), "\""));
  }
  // Shuffle (Fisher-Yates) so that the leader's position carries no information: every rule
  // breaks ties towards the lowest index.
  for (size_t i = specs.size(); i > 1; --i) std::swap(specs[i - 1], specs[random.Below(i)]);
  return specs;
}

absl::StatusOr<std::vector<Site>> ParseReplay(std::string_view text) {
  std::vector<Site> sites;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const size_t tab = line.find('\t');
    const auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat("replay line ", line_number, ": ", why));
    };
    if (tab == absl::string_view::npos) return bad("no tab between name and counts");
    Site site;
    const absl::string_view counts = line.substr(tab + 1);
    for (absl::string_view field : absl::StrSplit(counts, ',')) {
      int32_t n = 0;
      if (!absl::SimpleAtoi(field, &n) || n < 0) {
        return bad("counts must be non-negative integers");
      }
      site.new_links.push_back(n);
      site.distinct_links += n;
    }
    site.spec.pages = static_cast<int64_t>(site.new_links.size());
    site.occurrences = site.distinct_links;
    sites.push_back(std::move(site));
  }
  if (sites.empty()) return absl::InvalidArgumentError("replay: no site");
  return sites;
}

}  // namespace crawler::banditsim
