// FocusSites: the external links of websim's focused-collection sites (docs/websim.md, "Focused
// sites"), so a focused crawl (docs/focused.md) can run end to end on loopback against a site set
// whose yield is known in advance.
//
// Each host is one site of banditsim's model (tools/banditsim/site_set.h): a size in pages, a
// density of distinct external links per page and a placement of those links along the site's
// breadth-first order. websim's page ids are that order: in focused mode a host's pages form the
// 4-ary tree of SiteModel (page p links its children 4p+1..4p+4) with no other internal links, so
// a crawler that fetches a site breadth-first in discovery order fetches page ids in ascending
// order. The model's new_links[p] becomes the external links of page p whose target no earlier
// page of the site links to: the targets are numbered in order of their first page, page p holds
// targets [first[p], first[p] + new_links[p]), and repeats point back to earlier targets (the
// site's most popular target 0, and one seeded earlier target), which earn a crawler nothing.
//
// Targets are http://www.e<D>.test/<site host>/l<T>.html: distinct per site (the pools of
// different sites are disjoint, as in banditsim, so per-site yields add up), on kTargetDomains
// registrable domains e0.test .. e255.test shared by all sites (so "which domains does the set
// link to, from how many sites" has an interesting answer).
//
// Thread-safety: immutable after Create; every method is const.
#ifndef CRAWLER_TOOLS_WEBSIM_FOCUS_SITES_H_
#define CRAWLER_TOOLS_WEBSIM_FOCUS_SITES_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "tools/banditsim/site_set.h"

namespace crawler::websim {

struct ExternalLink {
  std::string url;          // absolute, canonical
  std::string anchor_text;  // "partner <T>"
};

class FocusSites {
 public:
  // Registrable domains the targets are spread over.
  static constexpr int kTargetDomains = 256;
  // Largest site, in pages (websim's page ids are int).
  static constexpr int64_t kMaxSitePages = 1'000'000;

  // Builds every site's links from `specs` (one per host, in host order) with banditsim's
  // BuildSite, drawing from one generator seeded with `seed`. kInvalidArgument for no sites, a
  // site outside [1, kMaxSitePages] pages or a negative density.
  static absl::StatusOr<FocusSites> Create(const std::vector<banditsim::SiteSpec>& specs,
                                           const banditsim::DuplicateModel& duplicates,
                                           uint64_t seed);

  int num_sites() const { return static_cast<int>(sites_.size()); }
  int PagesOf(int site) const { return static_cast<int>(sites_[site].new_links.size()); }
  int LargestSite() const;
  const banditsim::Site& site(int site) const { return sites_[site]; }

  // The external links of page `page` of site `site`, `host_name` being the site's host: first
  // the targets first seen on this page, then the repeats. REQUIRES: page < PagesOf(site).
  std::vector<ExternalLink> LinksOf(int site, int page, absl::string_view host_name) const;

  // The replay file of banditsim (--replay): one line per site, "<name>\t<n0>,<n1>,...", the new
  // external links of each page in breadth-first order; `names[i]` names site i.
  std::string FormatReplay(const std::vector<std::string>& names) const;

 private:
  FocusSites(std::vector<banditsim::Site> sites, uint64_t seed);

  std::vector<banditsim::Site> sites_;
  // first_target_[s][p]: id of the first target page p of site s holds (prefix sums).
  std::vector<std::vector<int64_t>> first_target_;
  uint64_t seed_ = 0;
};

// One site from "PAGES:DENSITY:PLACEMENT[:START:SCALE[:BURSTS:BURST_LINKS]]" (PLACEMENT: diffuse,
// front, late, bursty; START and SCALE in pages, defaults 0 and PAGES), the --focus-site flag.
// kInvalidArgument naming the problem.
absl::StatusOr<banditsim::SiteSpec> ParseFocusSite(absl::string_view text);

}  // namespace crawler::websim

#endif  // CRAWLER_TOOLS_WEBSIM_FOCUS_SITES_H_
