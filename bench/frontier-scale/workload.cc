#include "bench/frontier-scale/workload.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/random/splitmix64.h"

namespace crawler::bench {
namespace {

using frontier::FetchOutcome;
using frontier::LeasedTask;
using frontier::UrlToAdd;

uint64_t Next(uint64_t& state) {
  state += random::kGoldenGamma;
  return random::Mix64(state);
}

double Unit(uint64_t& state) { return static_cast<double>(Next(state) >> 11) / 9007199254740992.0; }

// Times one call.
template <typename F>
auto Timed(Latencies& latencies, F&& call) {
  const absl::Time start = absl::Now();
  const absl::Duration cpu = ThreadCpu();
  auto result = call();
  latencies.Add(absl::Now() - start, ThreadCpu() - cpu);
  return result;
}

}  // namespace

absl::Duration ThreadCpu() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return absl::DurationFromTimespec(now);
}

absl::Duration ProcessCpu(int pid) {
  if (pid == 0) {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return absl::DurationFromTimespec(now);
  }
  // /proc/PID/stat: utime and stime are fields 14 and 15, after the ")" that ends the name.
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t end = stat.rfind(')');
  if (end == std::string::npos) return absl::ZeroDuration();
  std::istringstream fields(stat.substr(end + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;
  uint64_t utime = 0;
  uint64_t stime = 0;
  fields >> utime >> stime;
  return absl::Seconds(static_cast<double>(utime + stime) / sysconf(_SC_CLK_TCK));
}

double Latencies::QuantileMs(double q) const {
  if (samples_.empty()) return 0;
  std::vector<double> sorted = samples_;
  const size_t rank = std::min(sorted.size() - 1,
                               static_cast<size_t>(std::ceil(q * sorted.size())) - (q > 0 ? 1 : 0));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<ptrdiff_t>(rank), sorted.end());
  return sorted[rank];
}

double Latencies::total_seconds() const {
  return std::accumulate(samples_.begin(), samples_.end(), 0.0) / 1000;
}

Workload::Workload(const SyntheticWeb& web, const LinkMix& mix, uint64_t seed)
    : web_(web), mix_(mix), random_(seed), known_(web.hosts(), 0) {}

UrlToAdd Workload::ToAdd(const Link& link, const std::string& from, uint32_t depth) const {
  return UrlToAdd{.canonical_url = web_.Url(link.host, link.index),
                  .host_key = web_.HostKey(link.host),
                  .depth = depth,
                  .discovered_from = mix_.discovered_from ? from : std::string()};
}

absl::StatusOr<GrowResult> Workload::Grow(frontier::FrontierClient& client, uint64_t target,
                                          size_t batch,
                                          const std::function<void(uint64_t known)>& progress) {
  constexpr absl::Duration kProgressEvery = absl::Minutes(1);
  const uint32_t hosts = web_.hosts();
  const double total = static_cast<double>(web_.total_urls());
  const double f = total <= hosts ? 1.0
                                  : std::clamp((static_cast<double>(target) - hosts) /
                                                   (total - hosts), 0.0, 1.0);
  // Hosts in a shuffled order (Fisher-Yates), each round giving every host 1/kRounds of its
  // growth: batches mix hosts as a crawl's discoveries do.
  std::vector<uint32_t> order(hosts);
  std::iota(order.begin(), order.end(), 0);
  for (uint32_t i = hosts - 1; i > 0; --i) std::swap(order[i], order[Next(random_) % (i + 1)]);
  std::vector<uint32_t> goal(hosts);
  for (uint32_t h = 0; h < hosts; ++h) {
    goal[h] = std::max<uint32_t>(
        known_[h], static_cast<uint32_t>(1 + std::floor((web_.Size(h) - 1) * f)));
  }
  constexpr int kRounds = 16;
  GrowResult result;
  const absl::Time start = absl::Now();
  absl::Time last_progress = start;
  const absl::Duration process_start = ProcessCpu(0);
  const absl::Duration thread_start = ThreadCpu();
  Latencies calls;
  std::vector<UrlToAdd> urls;
  auto flush = [&]() -> absl::Status {
    if (urls.empty()) return absl::OkStatus();
    absl::StatusOr<frontier::AddResult> added = Timed(calls, [&] { return client.AddUrls(urls); });
    if (!added.ok()) return added.status();
    if (added->added != urls.size()) {
      return absl::InternalError(absl::StrCat("grow: ", urls.size(), " new URLs offered, ",
                                              added->added, " added"));
    }
    result.added += added->added;
    urls.clear();
    if (progress && absl::Now() - last_progress >= kProgressEvery) {
      last_progress = absl::Now();
      progress(known_total_);
    }
    return absl::OkStatus();
  };
  for (int round = 0; round < kRounds; ++round) {
    for (const uint32_t h : order) {
      if (known_[h] >= goal[h]) continue;
      const uint32_t quota = std::max<uint32_t>(1, (goal[h] - known_[h] + kRounds - round - 1) /
                                                       (kRounds - round));
      for (uint32_t n = 0; n < quota && known_[h] < goal[h]; ++n) {
        const uint64_t i = known_[h]++;
        ++known_total_;
        // A tree: page i was found on page (i - 1) / 8 of its site, the root is a seed.
        urls.push_back(ToAdd({h, i}, i == 0 ? std::string() : web_.Url(h, (i - 1) / 8),
                             i == 0 ? 0 : 1 + static_cast<uint32_t>(std::log2(i + 1.0) / 3)));
        if (urls.size() == batch) {
          if (absl::Status s = flush(); !s.ok()) return s;
        }
      }
    }
  }
  if (absl::Status s = flush(); !s.ok()) return s;
  result.call_seconds = calls.total_seconds();
  result.wall_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  result.call_cpu_seconds = calls.cpu_seconds();
  result.background_cpu_seconds = absl::ToDoubleSeconds((ProcessCpu(0) - process_start) -
                                                        (ThreadCpu() - thread_start));
  return result;
}

Workload::Link Workload::KnownLink(uint32_t host, uint64_t& random) const {
  const double kind = Unit(random);
  if (kind < mix_.nav_share) {
    return {host, Next(random) % std::min<uint64_t>(std::max<uint32_t>(known_[host], 1),
                                                     mix_.nav_pages)};
  }
  const uint32_t other = web_.HostBySize(Next(random));
  const uint64_t known = std::max<uint32_t>(known_[other], 1);
  if (kind < mix_.nav_share + mix_.popular_share) {
    return {other, Next(random) % std::min<uint64_t>(known, mix_.popular_pages)};
  }
  return {other, Next(random) % known};
}

void Workload::PageLinks(uint32_t host, uint64_t& random, std::vector<Link>& links,
                         uint64_t& new_links) {
  for (int l = 0; l < mix_.links_per_page; ++l) {
    if (Unit(random) < mix_.new_fraction) {
      // A new URL: of this site, or of another one with URLs left to discover.
      std::optional<uint32_t> target;
      if (Unit(random) < mix_.new_same_host && known_[host] < web_.Size(host)) target = host;
      for (int tries = 0; !target.has_value() && tries < 8; ++tries) {
        const uint32_t other = web_.HostBySize(Next(random));
        if (known_[other] < web_.Size(other)) target = other;
      }
      if (target.has_value()) {
        links.push_back({*target, known_[*target]++});
        ++known_total_;
        ++new_links;
        continue;
      }
    }
    const Link link = KnownLink(host, random);
    // A host never offered before has no known URL: its root is new.
    if (known_[link.host] == 0) {
      links.push_back({link.host, known_[link.host]++});
      ++known_total_;
      ++new_links;
      continue;
    }
    links.push_back(link);
  }
}

absl::StatusOr<OutlinkResult> Workload::Outlinks(frontier::FrontierClient& client,
                                                 uint64_t outlinks, size_t batch,
                                                 double steady_rate, size_t per_host) {
  OutlinkResult result;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> steady{0};
  std::thread leaser;
  if (steady_rate > 0) {
    leaser = std::thread([&, seed = Next(random_)] {
      uint64_t random = seed;
      const absl::Time start = absl::Now();
      while (!stop.load()) {
        const auto due = static_cast<uint64_t>(absl::ToDoubleSeconds(absl::Now() - start) *
                                               steady_rate);
        if (due > steady.load()) {
          absl::StatusOr<uint64_t> done = LeaseRound(
              client, std::min<uint64_t>(512, due - steady.load()), per_host, random, nullptr);
          if (!done.ok()) return;
          steady += *done;
        } else {
          absl::SleepFor(absl::Milliseconds(5));
        }
      }
    });
  }
  const absl::StatusOr<frontier::FrontierStats> before = client.Stats();
  const absl::Time start = absl::Now();
  std::vector<Link> links;
  std::vector<UrlToAdd> urls;
  absl::Status failure;
  while (result.offered < outlinks && failure.ok()) {
    links.clear();
    urls.clear();
    uint64_t new_links = 0;
    // Whole pages per batch, as a fetcher sends its pages' outlinks.
    while (urls.size() + mix_.links_per_page <= std::max<size_t>(batch, mix_.links_per_page)) {
      const uint32_t host = web_.HostBySize(Next(random_));
      const uint64_t page = Next(random_) % std::max<uint32_t>(known_[host], 1);
      const std::string from = web_.Url(host, page);
      const size_t first = links.size();
      PageLinks(host, random_, links, new_links);
      for (size_t i = first; i < links.size(); ++i) urls.push_back(ToAdd(links[i], from, 2));
    }
    absl::StatusOr<frontier::AddResult> added =
        Timed(result.add, [&] { return client.AddUrls(urls); });
    if (!added.ok()) {
      failure = added.status();
      break;
    }
    result.offered += urls.size();
    result.expected_new += new_links;
    result.added += added->added;
    if (added->added > new_links) result.known_added += added->added - new_links;
    if (added->added < new_links) result.false_positives += new_links - added->added;
  }
  result.wall_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  stop = true;
  if (leaser.joinable()) leaser.join();
  result.steady_completed = steady.load();
  if (!failure.ok()) return failure;
  const absl::StatusOr<frontier::FrontierStats> after = client.Stats();
  if (before.ok() && after.ok()) {
    result.cache_hits = after->seen_cache_hits - before->seen_cache_hits;
  }
  return result;
}

std::vector<FetchOutcome> Workload::OutcomesFor(const std::vector<LeasedTask>& tasks,
                                                uint64_t& random) const {
  std::vector<FetchOutcome> outcomes;
  outcomes.reserve(tasks.size());
  for (const LeasedTask& task : tasks) {
    FetchOutcome outcome;
    outcome.lease_id = task.lease_id;
    outcome.outcome = frontier::OutcomeClass::kFetched;
    outcome.http_status = 200;
    const uint64_t r = Next(random);
    // Validators as servers send them: an ETag on half the pages, a date on a third.
    if (r % 2 == 0) outcome.etag = absl::StrCat("\"", absl::Hex(Next(random)), "\"");
    if (r % 3 == 0) outcome.last_modified = "Tue, 15 Nov 2025 08:12:31 GMT";
    outcome.content_fingerprint = Next(random);
    outcome.change_digest = Next(random);
    outcome.content_length = 8000 + Next(random) % 60000;
    outcomes.push_back(std::move(outcome));
  }
  return outcomes;
}

absl::StatusOr<uint64_t> Workload::LeaseRound(frontier::FrontierClient& client, size_t urls,
                                              size_t per_host, uint64_t& random,
                                              LeaseResult* timing) const {
  Latencies unused;
  absl::StatusOr<std::vector<LeasedTask>> tasks =
      Timed(timing != nullptr ? timing->lease : unused,
            [&] { return client.Lease(urls, per_host); });
  if (!tasks.ok()) return tasks.status();
  if (tasks->empty()) return 0;
  const std::vector<FetchOutcome> outcomes = OutcomesFor(*tasks, random);
  absl::StatusOr<frontier::CompleteResult> done =
      Timed(timing != nullptr ? timing->complete : unused,
            [&] { return client.Complete(outcomes); });
  if (!done.ok()) return done.status();
  if (timing != nullptr) timing->leased += tasks->size();
  return done->accepted;
}

absl::StatusOr<LeaseResult> Workload::LeaseComplete(frontier::FrontierClient& client,
                                                    uint64_t urls, size_t batch, size_t per_host,
                                                    absl::Duration max_time) {
  LeaseResult result;
  const absl::Time until = absl::Now() + max_time;
  while (result.completed < urls && absl::Now() < until) {
    absl::StatusOr<uint64_t> done = LeaseRound(client, batch, per_host, random_, &result);
    if (!done.ok()) return done.status();
    if (*done == 0) break;  // nothing ready
    result.completed += *done;
  }
  if (result.completed != result.leased) {
    return absl::InternalError(absl::StrCat("lease+complete: ", result.leased, " leased, ",
                                            result.completed, " completions accepted"));
  }
  return result;
}

uint64_t Workload::Churn(frontier::FrontierClient& client, const std::atomic<bool>& stop) const {
  uint64_t random = random_ ^ 0x51ed27;
  uint64_t completed = 0;
  std::vector<UrlToAdd> urls;
  while (!stop.load()) {
    absl::StatusOr<uint64_t> done = LeaseRound(client, 256, 4, random, nullptr);
    if (!done.ok()) break;
    completed += *done;
    urls.clear();
    for (int i = 0; i < 512; ++i) {
      const Link link = KnownLink(web_.HostBySize(Next(random)), random);
      if (link.index < known_[link.host]) urls.push_back(ToAdd(link, std::string(), 2));
    }
    if (!client.AddUrls(urls).ok()) break;
  }
  return completed;
}

}  // namespace crawler::bench
