#include "tools/websim/focus_sites.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/bandit/random.h"
#include "tools/websim/seeded_random.h"

namespace crawler::websim {
namespace {

constexpr uint64_t kSaltFocusRepeat = 21;
constexpr uint64_t kSaltFocusDomain = 22;

}  // namespace

absl::StatusOr<FocusSites> FocusSites::Create(const std::vector<banditsim::SiteSpec>& specs,
                                              const banditsim::DuplicateModel& duplicates,
                                              uint64_t seed) {
  if (specs.empty()) return absl::InvalidArgumentError("focused sites: no site");
  if (!(duplicates.occurrences_per_link >= 1) || !(duplicates.zipf >= 0)) {
    return absl::InvalidArgumentError(
        "focused sites: occurrences per link must be >= 1 and zipf >= 0");
  }
  bandit::Random random(seed);
  std::vector<banditsim::Site> sites;
  for (const banditsim::SiteSpec& spec : specs) {
    if (spec.pages < 1 || spec.pages > kMaxSitePages) {
      return absl::InvalidArgumentError(absl::StrCat("focused sites: a site needs 1 to ",
                                                     kMaxSitePages, " pages, got ", spec.pages));
    }
    if (!(spec.density >= 0) || spec.density > 1000) {
      return absl::InvalidArgumentError(
          absl::StrCat("focused sites: density must be in [0, 1000], got ", spec.density));
    }
    sites.push_back(banditsim::BuildSite(spec, duplicates, random));
  }
  return FocusSites(std::move(sites), seed);
}

FocusSites::FocusSites(std::vector<banditsim::Site> sites, uint64_t seed)
    : sites_(std::move(sites)), seed_(seed) {
  for (const banditsim::Site& site : sites_) {
    std::vector<int64_t> first(site.new_links.size() + 1, 0);
    for (size_t p = 0; p < site.new_links.size(); ++p) first[p + 1] = first[p] + site.new_links[p];
    first_target_.push_back(std::move(first));
  }
}

int FocusSites::LargestSite() const {
  int largest = 0;
  for (int s = 0; s < num_sites(); ++s) largest = std::max(largest, PagesOf(s));
  return largest;
}

std::vector<ExternalLink> FocusSites::LinksOf(int site, int page,
                                              absl::string_view host_name) const {
  const std::vector<int64_t>& first = first_target_[site];
  const auto target = [&](int64_t t) {
    const uint64_t domain =
        SeededHash(seed_, kSaltFocusDomain, static_cast<uint64_t>(site), static_cast<uint64_t>(t)) %
        kTargetDomains;
    return ExternalLink{absl::StrCat("http://www.e", domain, ".test/", host_name, "/l", t, ".html"),
                        absl::StrCat("partner ", t)};
  };
  std::vector<ExternalLink> links;
  for (int64_t t = first[page]; t < first[page + 1]; ++t) links.push_back(target(t));
  // Repeats of targets earlier pages hold: the site-wide partner, and one drawn per page.
  const int64_t seen = first[page];
  if (seen > 0) {
    links.push_back(target(0));
    const uint64_t h = SeededHash(seed_, kSaltFocusRepeat, static_cast<uint64_t>(site),
                                  static_cast<uint64_t>(page));
    const int64_t t = static_cast<int64_t>(h % static_cast<uint64_t>(seen));
    if (t != 0) links.push_back(target(t));
  }
  return links;
}

std::string FocusSites::FormatReplay(const std::vector<std::string>& names) const {
  std::string out;
  for (int s = 0; s < num_sites(); ++s) {
    absl::StrAppend(&out, s < static_cast<int>(names.size()) ? names[s] : absl::StrCat("site", s),
                    "\t", absl::StrJoin(sites_[s].new_links, ","), "\n");
  }
  return out;
}

absl::StatusOr<banditsim::SiteSpec> ParseFocusSite(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--focus-site \"", text, "\": ", why,
        " (PAGES:DENSITY:PLACEMENT[:START:SCALE[:BURSTS:BURST_LINKS]])"));
  };
  if (parts.size() != 3 && parts.size() != 5 && parts.size() != 7) {
    return bad("wrong number of fields");
  }
  banditsim::SiteSpec spec;
  if (!absl::SimpleAtoi(parts[0], &spec.pages) || spec.pages < 1 ||
      spec.pages > FocusSites::kMaxSitePages) {
    return bad("PAGES must be an integer in [1, 1000000]");
  }
  if (!absl::SimpleAtod(parts[1], &spec.density) || !(spec.density >= 0) ||
      spec.density > 1000) {
    return bad("DENSITY must be a number in [0, 1000]");
  }
  bool known = false;
  for (banditsim::Placement p :
       {banditsim::Placement::kDiffuse, banditsim::Placement::kFrontLoaded,
        banditsim::Placement::kLate, banditsim::Placement::kBursty}) {
    if (banditsim::PlacementName(p) == std::string_view(parts[2].data(), parts[2].size())) {
      spec.placement = p;
      known = true;
    }
  }
  if (!known) return bad("PLACEMENT must be diffuse, front, late or bursty");
  spec.start = 0;
  spec.scale = static_cast<double>(spec.pages);
  if (parts.size() >= 5 && (!absl::SimpleAtod(parts[3], &spec.start) || !(spec.start >= 0) ||
                            !absl::SimpleAtod(parts[4], &spec.scale) || !(spec.scale > 0))) {
    return bad("START must be >= 0 and SCALE > 0");
  }
  if (parts.size() == 7 && (!absl::SimpleAtoi(parts[5], &spec.bursts) || spec.bursts < 0 ||
                            spec.bursts > 10'000 || !absl::SimpleAtod(parts[6], &spec.burst_links) ||
                            !(spec.burst_links >= 0))) {
    return bad("BURSTS must be in [0, 10000] and BURST_LINKS >= 0");
  }
  if (spec.placement == banditsim::Placement::kBursty && parts.size() != 7) {
    return bad("bursty needs START:SCALE:BURSTS:BURST_LINKS");
  }
  return spec;
}

}  // namespace crawler::websim
