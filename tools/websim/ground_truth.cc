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
  // Reached by links visible without rendering (scripted sites only).
  kStaticVisited = 8,
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

  // The same walk over the links a crawler sees without running scripts. Only allowed,
  // followable links are taken, so what it reaches is a subset of the walk above.
  const bool scripted = model.options().scripted_host_fraction > 0;
  if (scripted) {
    for (PageRef seed : truth.seeds) {
      uint8_t& f = flags[index(seed)];
      if (!(f & kVisited) || (f & kStaticVisited)) continue;
      f |= kStaticVisited;
      queue.push_back(seed);
    }
    while (!queue.empty()) {
      const PageRef page = queue.front();
      queue.pop_front();
      for (const OutLink& link : model.LinksOf(page)) {
        uint8_t& f = flags[index(link.target)];
        if (NeedsRendering(link.delivery) || link.nofollow || !(f & kVisited) ||
            (f & kStaticVisited)) {
          continue;
        }
        f |= kStaticVisited;
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
      if (scripted && (f & kVisited) && !(f & kStaticVisited)) truth.render_only.push_back(ref);
    }
    if (model.HasHostilePages(host)) {
      for (int kind = 0; kind < kNumHostileKinds; ++kind) {
        truth.hostile.push_back(HostilePage{host, static_cast<HostileKind>(kind)});
      }
    }
  }
  return truth;
}

std::string FormatGroundTruth(const SiteModel& model, const GroundTruth& truth) {
  const WebsimOptions& o = model.options();
  // Scripted sites add to the comments only when they are on, so other truths stay as they were.
  std::string scripted_options;
  std::string scripted_counts;
  if (o.scripted_host_fraction > 0) {
    int scripted_hosts = 0;
    int hostile_hosts = 0;
    for (int host = 0; host < model.num_hosts(); ++host) {
      scripted_hosts += model.IsScripted(host);
      hostile_hosts += model.HasHostilePages(host);
    }
    scripted_options = absl::StrFormat(" scripted_hosts=%d hostile_hosts=%d", scripted_hosts,
                                       hostile_hosts);
    scripted_counts = absl::StrFormat(" render_only=%d hostile=%d", truth.render_only.size(),
                                      truth.hostile.size());
  }
  std::string out = absl::StrFormat(
      "# websim ground truth v1\n"
      "# seed=%d hosts=%d pages_per_host=%d sitemap_only_pages=%d links_per_page=%d%s%s\n"
      "# counts: seed=%d page=%d disallowed=%d nofollow_only=%d sitemap_only=%d%s\n",
      o.seed, o.num_hosts, o.pages_per_host, o.sitemap_only_pages, o.links_per_page,
      o.equal_host_sizes ? " equal_host_sizes=1" : "", scripted_options, truth.seeds.size(),
      truth.pages.size(), truth.disallowed.size(), truth.nofollow_only.size(),
      truth.sitemap_only.size(), scripted_counts);
  auto emit = [&](absl::string_view kind, const std::vector<PageRef>& refs) {
    for (PageRef ref : refs) absl::StrAppend(&out, kind, "\t", model.UrlOf(ref), "\n");
  };
  emit("seed", truth.seeds);
  emit("page", truth.pages);
  emit("disallowed", truth.disallowed);
  emit("nofollow_only", truth.nofollow_only);
  emit("sitemap_only", truth.sitemap_only);
  emit("render_only", truth.render_only);
  for (HostilePage page : truth.hostile) {
    absl::StrAppend(&out, "hostile\t", model.HostileUrlOf(page), "\n");
  }
  return out;
}

std::string FormatSeeds(const SiteModel& model) {
  std::string out;
  for (PageRef seed : model.Seeds()) absl::StrAppend(&out, model.UrlOf(seed), "\n");
  return out;
}

}  // namespace crawler::websim
