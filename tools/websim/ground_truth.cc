#include "tools/websim/ground_truth.h"

#include <cstdint>
#include <deque>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace crawler::websim {
namespace {

enum Flag : uint8_t {
  kVisited = 1,
  kLinkedDisallowed = 2,
  kLinkedNofollow = 4,
};

}  // namespace

GroundTruth ComputeGroundTruth(const SiteModel& model) {
  const int64_t ids = model.num_page_ids();
  std::vector<uint8_t> flags(static_cast<size_t>(ids * model.num_hosts()), 0);
  auto index = [ids](PageRef p) { return static_cast<size_t>(p.host * ids + p.page); };

  GroundTruth truth;
  truth.seeds = model.Seeds();
  std::deque<PageRef> queue;
  for (PageRef seed : truth.seeds) {
    if (!model.IsAllowed(model.PathOf(seed))) continue;
    if (flags[index(seed)] & kVisited) continue;
    flags[index(seed)] |= kVisited;
    queue.push_back(seed);
  }
  while (!queue.empty()) {
    const PageRef page = queue.front();
    queue.pop_front();
    for (const OutLink& link : model.LinksOf(page)) {
      uint8_t& f = flags[index(link.target)];
      if (!model.IsAllowed(model.PathOf(link.target))) {
        f |= kLinkedDisallowed;
      } else if (link.nofollow) {
        f |= kLinkedNofollow;
      } else if (!(f & kVisited)) {
        f |= kVisited;
        queue.push_back(link.target);
      }
    }
  }

  for (int host = 0; host < model.num_hosts(); ++host) {
    for (int page = 0; page < ids; ++page) {
      const PageRef ref{host, page};
      const uint8_t f = flags[index(ref)];
      if (f & kVisited) {
        truth.pages.push_back(ref);
      } else if (f & kLinkedDisallowed) {
        truth.disallowed.push_back(ref);
      } else if (f & kLinkedNofollow) {
        truth.nofollow_only.push_back(ref);
      }
      if (!(f & kVisited) && model.InSitemap(ref)) truth.sitemap_only.push_back(ref);
    }
  }
  return truth;
}

std::string FormatGroundTruth(const SiteModel& model, const GroundTruth& truth) {
  const WebsimOptions& o = model.options();
  std::string out = absl::StrFormat(
      "# websim ground truth v1\n"
      "# seed=%d hosts=%d pages_per_host=%d sitemap_only_pages=%d links_per_page=%d%s\n"
      "# counts: seed=%d page=%d disallowed=%d nofollow_only=%d sitemap_only=%d\n",
      o.seed, o.num_hosts, o.pages_per_host, o.sitemap_only_pages, o.links_per_page,
      o.equal_host_sizes ? " equal_host_sizes=1" : "", truth.seeds.size(), truth.pages.size(),
      truth.disallowed.size(), truth.nofollow_only.size(), truth.sitemap_only.size());
  auto emit = [&](absl::string_view kind, const std::vector<PageRef>& refs) {
    for (PageRef ref : refs) absl::StrAppend(&out, kind, "\t", model.UrlOf(ref), "\n");
  };
  emit("seed", truth.seeds);
  emit("page", truth.pages);
  emit("disallowed", truth.disallowed);
  emit("nofollow_only", truth.nofollow_only);
  emit("sitemap_only", truth.sitemap_only);
  return out;
}

std::string FormatSeeds(const SiteModel& model) {
  std::string out;
  for (PageRef seed : model.Seeds()) absl::StrAppend(&out, model.UrlOf(seed), "\n");
  return out;
}

}  // namespace crawler::websim
