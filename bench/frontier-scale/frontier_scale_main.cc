// bench/frontier-scale: one frontier partition at 10^6 .. 10^8 known URLs over 10^6 hosts,
// through the core and through its gRPC server (docs/benchmarks.md, "bench/frontier-scale").
// Run by `make bench-frontier`; `--help` lists every option, with the time and disk a run takes.
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/frontier-scale/scale_report.h"
#include "bench/frontier-scale/scale_target.h"
#include "bench/frontier-scale/synthetic_web.h"
#include "bench/frontier-scale/workload.h"

namespace crawler::bench {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string data_dir;
  std::string crawlerd;
  std::vector<double> steps = {1e6, 1e7, 1e8};
  double hosts = 1e6;
  double zipf = 1.0;
  uint64_t seed = 1;
  double outlinks = 2e6;        // offered per step and target
  double lease_urls = 3e5;      // completed per step and target (at most)
  double lease_seconds = 60;    // and at most this long
  double steady_rate = 2000;    // leases + completions per second during the outlink phase
  double seen_cache_entries = frontier::FrontierOptions().seen_cache_entries;
  size_t batch = 512;           // URLs per AddUrls (a fetcher's flush)
  size_t lease_batch = 512;     // URLs per Lease
  size_t per_host = 4;          // Lease's max_per_host (the fetcher's default)
  std::vector<double> ready_hosts = {1e4, 1e5, 1e6};
  double ready_urls_per_host = 4;
  bool server = true;
  bool keep = false;
  std::string json;
  LinkMix mix;
};

// What a run needs, as measured on the 2-core development machine while other work shared it
// (docs/benchmarks.md): the store's peak disk per known URL (the 10^7 step: 1.40 GB at 10.5 M
// URLs, during its full compaction); seconds per million URLs grown and compacted (growth at
// ~12,000 URLs/s, compaction ~12 s per million); and seconds per step or ready-host row for the
// rest (phases, restarts: 370 s at 10^6, 730 s at 10^7).
constexpr double kDiskBytesPerUrl = 140;
constexpr double kSecondsPerMillionUrls = 100;
constexpr double kSecondsPerRow = 600;

double LargestStep(const Options& o) {
  double largest = 0;
  for (double s : o.steps) largest = std::max(largest, s);
  for (double h : o.ready_hosts) largest = std::max(largest, h * o.ready_urls_per_host);
  return largest;
}

// The run's seconds: one store grows through the steps; each ready-host row grows its own.
double EstimatedSeconds(const Options& o) {
  double urls = 0;
  for (double s : o.steps) urls = std::max(urls, s);
  for (double h : o.ready_hosts) urls += h * o.ready_urls_per_host;
  return kSecondsPerRow * static_cast<double>(o.steps.size() + o.ready_hosts.size()) +
         urls / 1e6 * kSecondsPerMillionUrls;
}

absl::Status CheckDisk(const Options& o) {
  struct statvfs fs_info {};
  std::error_code ec;
  fs::create_directories(o.data_dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", o.data_dir));
  if (::statvfs(o.data_dir.c_str(), &fs_info) != 0) return absl::OkStatus();
  const double free_bytes = static_cast<double>(fs_info.f_bavail) * fs_info.f_frsize;
  const double need = LargestStep(o) * kDiskBytesPerUrl * 1.5;
  if (free_bytes < need) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s has %.1f GB free; the largest step needs about %.1f GB", o.data_dir, free_bytes / 1e9,
        need / 1e9));
  }
  return absl::OkStatus();
}

TargetConfig ConfigFor(const Options& o, const std::string& dir) {
  TargetConfig config;
  config.data_dir = dir;
  config.crawlerd = o.crawlerd;
  config.collection.name = "bench";
  config.collection.max_in_flight_per_host = 2;
  config.collection.revisit.enabled = true;  // every fetched page goes back to the due index
  // The largest synthetic hosts have millions of URLs: no trap cap in the way.
  config.max_urls_per_host = 1'000'000'000;
  config.seen_cache_entries = static_cast<size_t>(o.seen_cache_entries);
  return config;
}

absl::Status Expect(bool ok, const std::string& what) {
  return ok ? absl::OkStatus() : absl::InternalError(absl::StrCat("check failed: ", what));
}

// CPU seconds of process `pid` since the last call (the first call returns -1: no figure).
class CpuMeter {
 public:
  explicit CpuMeter(int pid) : pid_(pid), last_(ProcessCpu(pid)) {}
  double Lap() {
    if (pid_ == 0) return -1;  // the core: the calling thread's CPU is in the results
    const absl::Duration now = ProcessCpu(pid_);
    const double lap = absl::ToDoubleSeconds(now - last_);
    last_ = now;
    return lap;
  }

 private:
  const int pid_;
  absl::Duration last_;
};

// What the store read from files between two calls of Lap (`store` null: nothing, the server).
class ReadMeter {
 public:
  explicit ReadMeter(const kv::RocksDbKvStore* store) : store_(store) { Lap(); }
  kv::RocksDbTickers Lap() {
    if (store_ == nullptr) return {};
    const kv::RocksDbTickers now = store_->Tickers();
    kv::RocksDbTickers lap = now;
    lap.bloom_useful -= last_.bloom_useful;
    lap.bloom_positive -= last_.bloom_positive;
    lap.bloom_true_positive -= last_.bloom_true_positive;
    lap.block_cache_data_miss -= last_.block_cache_data_miss;
    lap.block_cache_filter_miss -= last_.block_cache_filter_miss;
    lap.block_cache_index_miss -= last_.block_cache_index_miss;
    last_ = now;
    return lap;
  }

 private:
  const kv::RocksDbKvStore* const store_;
  kv::RocksDbTickers last_;
};

double Ratio(uint64_t a, uint64_t b) { return b == 0 ? 0 : static_cast<double>(a) / b; }

// Outlinks then leases + completions through `client`, into `row`. `server_pid`: the server's
// process, whose CPU is counted per phase (0: the core, counted per call); `store`: the core's
// store, whose reads are counted (null for the server).
absl::Status Phases(const Options& o, Workload& workload, frontier::FrontierClient& client,
                    int server_pid, const kv::RocksDbKvStore* store, Report& report,
                    TargetFigures& row) {
  CpuMeter cpu(server_pid);
  ReadMeter reads(store);
  report.Progress(absl::StrFormat("outlinks: %.0f links offered", o.outlinks));
  absl::StatusOr<OutlinkResult> links = workload.Outlinks(
      client, static_cast<uint64_t>(o.outlinks), o.batch, o.steady_rate, o.per_host);
  if (!links.ok()) return links.status();
  row.SetOutlinks(*links, cpu.Lap());
  const kv::RocksDbTickers link_reads = reads.Lap();
  const uint64_t false_positives = link_reads.bloom_positive - link_reads.bloom_true_positive;
  row.bloom_false_positive_rate =
      Ratio(false_positives, link_reads.bloom_useful + false_positives);
  row.data_reads_per_link = Ratio(link_reads.block_cache_data_miss, links->offered);
  row.index_filter_reads_per_link =
      Ratio(link_reads.block_cache_filter_miss + link_reads.block_cache_index_miss,
            links->offered);
  report.Progress(
      absl::StrFormat("outlinks: %.0f/s; leases and completions", row.outlinks_per_second));
  absl::StatusOr<LeaseResult> leases =
      workload.LeaseComplete(client, static_cast<uint64_t>(o.lease_urls), o.lease_batch,
                             o.per_host, absl::Seconds(o.lease_seconds));
  if (!leases.ok()) return leases.status();
  row.SetLeases(*leases, cpu.Lap());
  row.data_reads_per_lease_url = Ratio(reads.Lap().block_cache_data_miss, leases->completed);
  if (absl::Status s = Expect(links->known_added == 0, "a known URL was added again"); !s.ok()) {
    return s;
  }
  absl::StatusOr<frontier::FrontierStats> stats = client.Stats();
  if (!stats.ok()) return stats.status();
  return Expect(stats->seen_urls == workload.known(),
                absl::StrCat("the frontier holds ", stats->seen_urls, " URLs, the bench offered ",
                             workload.known(), " new ones"));
}

// The core's part of a step: growth to `target` (its progress, with the process's memory and
// the store's disk, in `report` once a minute), then the phases.
absl::Status CoreSteps(const Options& o, const TargetConfig& config, Workload& workload,
                       uint64_t target, Report& report, StepRow& row) {
  absl::StatusOr<std::unique_ptr<CoreTarget>> core = CoreTarget::Open(config);
  if (!core.ok()) return core.status();
  const kv::RocksDbTickers before = (*core)->store().Tickers();
  absl::Time last_time = absl::Now();
  uint64_t last_known = workload.known();
  auto progress = [&](uint64_t known) {
    const absl::Time now = absl::Now();
    const uint64_t disk = DirectoryBytes(StorePath(config));
    report.Progress(absl::StrFormat(
        "grow: %.2f M URLs known, %.0f URLs/s, RSS %.0f MiB, disk %.2f GB (%.0f B/URL)",
        known / 1e6, (known - last_known) / absl::ToDoubleSeconds(now - last_time),
        MemoryOf(0).rss_bytes / 1048576.0, disk / 1e9, Ratio(disk, known)));
    last_time = now;
    last_known = known;
  };
  absl::StatusOr<GrowResult> grown = workload.Grow((*core)->client(), target, o.batch, progress);
  if (!grown.ok()) return grown.status();
  row.SetGrowth(*grown, workload.known(), DirectoryBytes(StorePath(config)));
  if (absl::Status s =
          Phases(o, workload, (*core)->client(), 0, &(*core)->store(), report, row.core);
      !s.ok()) {
    return s;
  }
  row.core.memory = MemoryOf(0);
  const kv::RocksDbTickers after = (*core)->store().Tickers();
  row.write_amplification =
      Ratio(after.wal_bytes + after.flush_bytes + after.compaction_bytes - before.wal_bytes -
                before.flush_bytes - before.compaction_bytes,
            after.user_bytes_written - before.user_bytes_written);
  (*core)->Close();
  // A clean reopen in this process: the core's own start-up, without a process or RPC.
  absl::StatusOr<std::unique_ptr<CoreTarget>> reopened = CoreTarget::Open(config);
  if (!reopened.ok()) return reopened.status();
  row.core_open_seconds = absl::ToDoubleSeconds((*reopened)->open_time());
  return absl::OkStatus();
}

// Starts the server and waits for its first lease; the time goes to `seconds`.
absl::StatusOr<std::unique_ptr<ServerTarget>> StartServer(const TargetConfig& config,
                                                          const std::string& log,
                                                          double* seconds) {
  absl::StatusOr<std::unique_ptr<ServerTarget>> server =
      ServerTarget::Start(config, log, absl::Minutes(30));
  if (!server.ok()) return server.status();
  if (absl::Status s = (*server)->WaitForFirstLease(absl::Minutes(30)); !s.ok()) return s;
  if (seconds != nullptr) *seconds = absl::ToDoubleSeconds((*server)->first_lease_time());
  return server;
}

// The server's part of a step: the phases over gRPC, its memory, then a kill -9 under load and
// a clean restart, each timed to the first lease.
absl::Status ServerSteps(const Options& o, const TargetConfig& config, Workload& workload,
                         const std::string& log, Report& report, StepRow& row) {
  absl::StatusOr<std::unique_ptr<ServerTarget>> server = StartServer(config, log, nullptr);
  if (!server.ok()) return server.status();
  if (absl::Status s =
          Phases(o, workload, (*server)->client(), (*server)->pid(), nullptr, report, row.grpc);
      !s.ok()) {
    return s;
  }
  row.grpc.memory = MemoryOf((*server)->pid());

  std::atomic<bool> stop{false};
  std::thread churn([&] { workload.Churn((*server)->client(), stop); });
  absl::SleepFor(absl::Seconds(3));
  absl::Status killed = (*server)->Stop(SIGKILL, absl::Seconds(30));
  stop = true;
  churn.join();
  if (!killed.ok()) return killed;
  server = StartServer(config, log, &row.kill9_first_lease_seconds);
  if (!server.ok()) return server.status();
  if (absl::Status s = (*server)->Stop(SIGTERM, absl::Minutes(10)); !s.ok()) return s;
  server = StartServer(config, log, &row.restart_first_lease_seconds);
  if (!server.ok()) return server.status();
  absl::StatusOr<frontier::FrontierStats> stats = (*server)->client().Stats();
  if (!stats.ok()) return stats.status();
  if (absl::Status s = Expect(stats->seen_urls == workload.known(),
                              "URLs lost across kill -9 and restart");
      !s.ok()) {
    return s;
  }
  return (*server)->Stop(SIGTERM, absl::Minutes(10));
}

absl::Status CompactStep(const TargetConfig& config, StepRow& row) {
  absl::StatusOr<std::unique_ptr<CoreTarget>> core = CoreTarget::Open(config);
  if (!core.ok()) return core.status();
  const absl::Time start = absl::Now();
  if (absl::Status s = (*core)->store().CompactAll(); !s.ok()) return s;
  row.compaction_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  row.family_bytes = (*core)->store().FamilyBytes();
  (*core)->Close();
  row.disk_bytes_compacted = DirectoryBytes(StorePath(config));
  return absl::OkStatus();
}

absl::Status RunSteps(const Options& o, Report& report) {
  if (o.steps.empty()) return absl::OkStatus();
  // A web larger than the last step, so that its pages still link to URLs not yet known.
  const SyntheticWeb web(
      SyntheticWebOptions{.hosts = static_cast<uint32_t>(o.hosts),
                          .urls = static_cast<uint64_t>(LargestStep(o) * 1.25),
                          .zipf_exponent = o.zipf,
                          .seed = o.seed});
  report.DescribeWeb(web);
  Workload workload(web, o.mix, o.seed);
  const std::string dir = (fs::path(o.data_dir) / "steps").string();
  const TargetConfig config = ConfigFor(o, dir);
  for (const double step : o.steps) {
    if (static_cast<uint64_t>(step) > LargestStep(o)) continue;
    StepRow row;
    row.step = static_cast<uint64_t>(step);
    report.Progress(absl::StrCat("step ", row.step, ": core"));
    if (absl::Status s = CoreSteps(o, config, workload, row.step, report, row); !s.ok()) return s;
    if (o.server) {
      report.Progress(absl::StrCat("step ", row.step, ": server"));
      const std::string log = (fs::path(o.data_dir) / "frontier-server.log").string();
      if (absl::Status s = ServerSteps(o, config, workload, log, report, row); !s.ok()) return s;
    }
    report.Progress(absl::StrCat("step ", row.step, ": compaction"));
    if (absl::Status s = CompactStep(config, row); !s.ok()) return s;
    row.known_after = workload.known();
    report.AddStep(row);
    // After every step, so that a long run stopped later keeps what it measured.
    if (!o.json.empty()) report.WriteJson(o.json);
  }
  if (!o.keep) fs::remove_all(dir);
  return absl::OkStatus();
}

// The second axis: `hosts` hosts with a few URLs each, all ready at once.
absl::Status RunReadyHosts(const Options& o, double hosts, Report& report) {
  const auto urls = static_cast<uint64_t>(hosts * o.ready_urls_per_host);
  const SyntheticWeb web(SyntheticWebOptions{
      .hosts = static_cast<uint32_t>(hosts), .urls = urls, .zipf_exponent = 0, .seed = o.seed});
  LinkMix mix = o.mix;
  Workload workload(web, mix, o.seed + 1);
  const std::string dir = (fs::path(o.data_dir) / absl::StrCat("ready-", hosts)).string();
  const TargetConfig config = ConfigFor(o, dir);
  ReadyRow row;
  row.hosts = static_cast<uint64_t>(hosts);
  report.Progress(absl::StrCat("ready hosts ", row.hosts));
  const uint64_t leases = std::min<uint64_t>(urls / 2, static_cast<uint64_t>(o.lease_urls));
  {
    absl::StatusOr<std::unique_ptr<CoreTarget>> core = CoreTarget::Open(config);
    if (!core.ok()) return core.status();
    absl::StatusOr<GrowResult> grown = workload.Grow((*core)->client(), urls, o.batch);
    if (!grown.ok()) return grown.status();
    absl::StatusOr<LeaseResult> leased = workload.LeaseComplete(
        (*core)->client(), leases / 2, o.lease_batch, o.per_host, absl::Seconds(o.lease_seconds));
    if (!leased.ok()) return leased.status();
    row.core.SetLeases(*leased, -1);
  }
  if (o.server) {
    absl::StatusOr<std::unique_ptr<ServerTarget>> server = StartServer(
        config, (fs::path(o.data_dir) / "frontier-server.log").string(), nullptr);
    if (!server.ok()) return server.status();
    CpuMeter cpu((*server)->pid());
    absl::StatusOr<LeaseResult> leased =
        workload.LeaseComplete((*server)->client(), leases / 2, o.lease_batch, o.per_host,
                               absl::Seconds(o.lease_seconds));
    if (!leased.ok()) return leased.status();
    row.grpc.SetLeases(*leased, cpu.Lap());
    row.grpc.memory = MemoryOf((*server)->pid());
    if (absl::Status s = (*server)->Stop(SIGTERM, absl::Minutes(10)); !s.ok()) return s;
  }
  report.AddReady(row);
  if (!o.keep) fs::remove_all(dir);
  return absl::OkStatus();
}

std::string DefaultCrawlerd(const char* argv0) {
  // build/bench/frontier-scale/frontier_scale_bench -> build/tools/crawlerd/crawlerd
  std::error_code ec;
  const fs::path self = fs::canonical(fs::path(argv0), ec);
  return (self.parent_path().parent_path().parent_path() / "tools/crawlerd/crawlerd").string();
}

void AddFlags(CLI::App& app, Options& o) {
  app.add_option("--data-dir", o.data_dir,
                 "Scratch space: the stores go in a new directory there, removed at the end")
      ->required();
  app.add_option("--crawlerd", o.crawlerd, "crawlerd binary (default: beside this build's)");
  app.add_option("--steps", o.steps, "Known URLs at each step (0: none, the ready hosts only)")->delimiter(',');
  app.add_option("--hosts", o.hosts, "Hosts of the steps' web");
  app.add_option("--zipf", o.zipf, "Host size exponent (size of rank r ~ (r+1)^-zipf)");
  app.add_option("--seed", o.seed, "Seed of the web and the workload");
  app.add_option("--outlinks", o.outlinks, "Links offered per step and target");
  app.add_option("--new-fraction", o.mix.new_fraction, "Share of offered links that are new");
  app.add_flag("!--no-discovered-from", o.mix.discovered_from,
               "Send no discovered_from with the links (what the field costs on disk)");
  app.add_option("--lease-urls", o.lease_urls, "URLs leased and completed per step and target");
  app.add_option("--lease-seconds", o.lease_seconds, "... or for at most this long");
  app.add_option("--steady-rate", o.steady_rate,
                 "Leases + completions per second beside the outlink phase (0: none)");
  app.add_option("--seen-cache-entries", o.seen_cache_entries,
                 "The frontier's seen cache (FrontierOptions::seen_cache_entries; 0: off)");
  app.add_option("--ready-hosts", o.ready_hosts, "Hosts ready at once, second axis (0: skip)")
      ->delimiter(',');
  app.add_option("--ready-urls-per-host", o.ready_urls_per_host, "URLs per host there");
  app.add_flag("!--no-server", o.server, "Only the core (no crawlerd, no restart times)");
  app.add_flag("--keep", o.keep, "Keep the stores");
  app.add_option("--json", o.json, "Also write the figures as JSON here");
}

}  // namespace
}  // namespace crawler::bench

int main(int argc, char** argv) {
  using namespace crawler::bench;
  Options o;
  CLI::App app(absl::StrFormat(
      "bench/frontier-scale: one frontier partition at growing numbers of known URLs, through "
      "its core and its gRPC server (docs/benchmarks.md). The default run (10^6, 10^7, 10^8 "
      "URLs over 10^6 hosts, then 10^4..10^6 ready hosts) needs about %.0f GB of disk at its "
      "largest step and about %.1f hours on the 2-core development machine; it removes its "
      "stores as it goes. Everything runs on 127.0.0.1.",
      1e8 * kDiskBytesPerUrl / 1e9, EstimatedSeconds(Options{}) / 3600));
  AddFlags(app, o);
  CLI11_PARSE(app, argc, argv);
  // A count below 1 skips that axis (--steps 0: the ready hosts only; --ready-hosts 0: none).
  std::erase_if(o.steps, [](double s) { return s < 1; });
  std::erase_if(o.ready_hosts, [](double h) { return h < 1; });
  if (o.crawlerd.empty()) o.crawlerd = DefaultCrawlerd(argv[0]);
  // A directory of this run's own, so that removing it at the end removes nothing else.
  o.data_dir = (std::filesystem::path(o.data_dir) / absl::StrCat("frontier-scale.", ::getpid()))
                   .string();
  if (absl::Status s = CheckDisk(o); !s.ok()) {
    std::fprintf(stderr, "frontier-scale: %s\n", s.ToString().c_str());
    return 2;
  }
  Report report(stdout, stderr);
  report.Progress(absl::StrFormat("largest step %.0f URLs: expect about %.1f GB of disk and %.0f "
                                  "minutes",
                                  LargestStep(o), LargestStep(o) * kDiskBytesPerUrl / 1e9,
                                  EstimatedSeconds(o) / 60));
  absl::Status status = RunSteps(o, report);
  for (size_t i = 0; status.ok() && i < o.ready_hosts.size(); ++i) {
    status = RunReadyHosts(o, o.ready_hosts[i], report);
    if (status.ok() && !o.json.empty()) report.WriteJson(o.json);
  }
  report.PrintTables();
  if (!o.json.empty()) report.WriteJson(o.json);
  if (!o.keep) std::filesystem::remove_all(o.data_dir);
  if (!status.ok()) {
    std::fprintf(stderr, "frontier-scale: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
