#include "services/frontier/frontier_metrics.h"

#include <sys/statvfs.h>

#include <map>

namespace crawler::frontier {

void AppendFrontierSnapshot(const std::vector<PartitionFigures>& partitions,
                            const std::string& data_dir, metrics::SnapshotFamilies& out) {
  auto both = [](const PartitionFigures& p) {
    return std::map<std::string, std::string>{{"collection", p.collection},
                                              {"partition", std::to_string(p.partition)}};
  };
  auto queued = out.Gauge("crawler_frontier_urls_queued",
                          "URLs waiting to be fetched, due or not (host queues and due index).");
  auto due =
      out.Gauge("crawler_frontier_due_backlog", "URLs in host queues (due now), not leased.");
  auto leases = out.Gauge("crawler_frontier_leases_active", "URLs leased to fetchers now.");
  auto seen = out.Gauge("crawler_frontier_urls_seen", "URLs in the seen-set.");
  auto hosts = out.Gauge("crawler_frontier_hosts_ready",
                         "Hosts with queued URLs, below their in-flight and page caps.");
  auto added = out.Counter("crawler_frontier_urls_added_total",
                           "URLs added to the frontier since it was opened (new to the seen-set).");
  auto already = out.Counter("crawler_frontier_urls_already_seen_total",
                             "URLs offered that the seen-set already held.");
  auto completed = out.Counter("crawler_frontier_completions_total",
                               "Fetch outcomes accepted since the frontier was opened.");
  auto expired = out.Counter("crawler_frontier_leases_expired_total",
                             "Leases that expired uncompleted (URL re-queued).");
  auto budget = out.Gauge("crawler_frontier_revisit_budget_visits_per_day",
                          "The partition's share of its collection's re-visit budget (the cap); "
                          "0 before the first tuning.");
  auto spend = out.Gauge("crawler_frontier_revisit_spend_visits_per_day",
                         "Re-visits made per day, measured (exponentially weighted over about "
                         "100 budgeted visits).");
  auto revisits = out.Counter("crawler_frontier_revisits_total",
                              "Re-visits made (completed leases of URLs visited before).");
  auto waited = out.Counter("crawler_frontier_revisits_waited_total",
                            "Re-visits held back by the re-visit budget when due.");
  auto held = out.Gauge("crawler_frontier_held_urls",
                        "URLs kept for hosts another partition owns or will own (a reshard), "
                        "until they are delivered.");
  auto moving = out.Gauge("crawler_frontier_hosts_moving",
                          "Hosts marked as moving to another partition (not leased).");
  auto pulls = out.Counter("crawler_frontier_focus_pulls_total",
                           "Focused collections: pages the partition's bandit was told of.");
  auto reward = out.Counter("crawler_frontier_focus_reward_total",
                            "Focused collections: new external links those pages brought.");
  for (const PartitionFigures& p : partitions) {
    const FrontierStats& s = p.stats;
    budget.Add(both(p), s.revisit_budget_visits_per_day);
    spend.Add(both(p), s.revisit_spend_visits_per_day);
    revisits.Add(both(p), static_cast<double>(s.revisits_completed));
    waited.Add(both(p), static_cast<double>(s.revisits_waited));
    queued.Add(both(p), static_cast<double>(s.queued_urls + s.waiting_urls));
    due.Add(both(p), static_cast<double>(s.queued_urls));
    leases.Add({{"partition", std::to_string(p.partition)}}, static_cast<double>(s.in_flight_urls));
    seen.Add(both(p), static_cast<double>(s.seen_urls));
    hosts.Add(both(p), static_cast<double>(s.ready_hosts));
    added.Add(both(p), static_cast<double>(s.urls_added));
    already.Add(both(p), static_cast<double>(s.urls_already_seen));
    completed.Add(both(p), static_cast<double>(s.completions_accepted));
    expired.Add(both(p), static_cast<double>(s.leases_expired));
    held.Add(both(p), static_cast<double>(s.held_urls));
    moving.Add(both(p), static_cast<double>(s.hosts_moving));
    // Only focused collections' partitions have pulls; the others would add zero series.
    if (s.focus_pulls > 0) {
      pulls.Add(both(p), static_cast<double>(s.focus_pulls));
      reward.Add(both(p), static_cast<double>(s.focus_reward));
    }
  }
  struct statvfs fs;
  if (!data_dir.empty() && ::statvfs(data_dir.c_str(), &fs) == 0) {
    out.Gauge("crawler_frontier_disk_free_bytes",
              "Bytes available to the crawler on the data directory's filesystem.")
        .Add({}, static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize));
    out.Gauge("crawler_frontier_disk_size_bytes", "Size of the data directory's filesystem.")
        .Add({}, static_cast<double>(fs.f_blocks) * static_cast<double>(fs.f_frsize));
  }
}

}  // namespace crawler::frontier
