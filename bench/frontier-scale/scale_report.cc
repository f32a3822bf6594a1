#include "bench/frontier-scale/scale_report.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "lib/random/splitmix64.h"

namespace crawler::bench {
namespace {

double PerSecond(uint64_t count, double seconds) { return seconds > 0 ? count / seconds : 0; }

double MiB(uint64_t bytes) { return bytes / 1048576.0; }

double PerUrl(uint64_t bytes, uint64_t urls) {
  return urls == 0 ? 0 : static_cast<double>(bytes) / static_cast<double>(urls);
}

std::string Count(double x) {
  if (x >= 1e6) return absl::StrFormat("%.2fM", x / 1e6);
  if (x >= 1e4) return absl::StrFormat("%.0fk", x / 1e3);
  return absl::StrFormat("%.0f", x);
}

std::string Seconds(double s) { return s < 0 ? "—" : absl::StrFormat("%.1f", s); }

// "name": value pairs of one target's figures.
std::vector<std::string> TargetJson(const TargetFigures& t) {
  return {
      absl::StrFormat("\"offered\": %d", t.offered),
      absl::StrFormat("\"expected_new\": %d", t.expected_new),
      absl::StrFormat("\"added\": %d", t.added),
      absl::StrFormat("\"false_positives\": %d", t.false_positives),
      absl::StrFormat("\"cache_hits\": %d", t.cache_hits),
      absl::StrFormat("\"steady_completed\": %d", t.steady_completed),
      absl::StrFormat("\"outlinks_per_second\": %.1f", t.outlinks_per_second),
      absl::StrFormat("\"new_per_second\": %.1f", t.new_per_second),
      absl::StrFormat("\"add_p50_ms\": %.3f", t.add_p50_ms),
      absl::StrFormat("\"add_p99_ms\": %.3f", t.add_p99_ms),
      absl::StrFormat("\"add_cpu_us_per_link\": %.3f", t.add_cpu_us_per_link),
      absl::StrFormat("\"completed\": %d", t.completed),
      absl::StrFormat("\"lease_complete_urls_per_second\": %.1f",
                      t.lease_complete_urls_per_second),
      absl::StrFormat("\"lease_p50_ms\": %.3f", t.lease_p50_ms),
      absl::StrFormat("\"lease_p99_ms\": %.3f", t.lease_p99_ms),
      absl::StrFormat("\"complete_p50_ms\": %.3f", t.complete_p50_ms),
      absl::StrFormat("\"complete_p99_ms\": %.3f", t.complete_p99_ms),
      absl::StrFormat("\"lease_cpu_us_per_url\": %.3f", t.lease_cpu_us_per_url),
      absl::StrFormat("\"bloom_false_positive_rate\": %.5f", t.bloom_false_positive_rate),
      absl::StrFormat("\"data_reads_per_link\": %.4f", t.data_reads_per_link),
      absl::StrFormat("\"index_filter_reads_per_link\": %.4f", t.index_filter_reads_per_link),
      absl::StrFormat("\"data_reads_per_lease_url\": %.4f", t.data_reads_per_lease_url),
      absl::StrFormat("\"rss_bytes\": %d", t.memory.rss_bytes),
      absl::StrFormat("\"peak_rss_bytes\": %d", t.memory.peak_rss_bytes),
  };
}

std::string Object(const std::vector<std::string>& pairs) {
  return absl::StrCat("{", absl::StrJoin(pairs, ", "), "}");
}

std::string FamilyJson(const std::vector<std::pair<std::string, uint64_t>>& families) {
  std::vector<std::string> pairs;
  for (const auto& [name, bytes] : families) {
    pairs.push_back(absl::StrFormat("\"%s\": %d", name, bytes));
  }
  return Object(pairs);
}

}  // namespace

void TargetFigures::SetOutlinks(const OutlinkResult& r, double process_cpu_seconds) {
  offered = r.offered;
  expected_new = r.expected_new;
  added = r.added;
  false_positives = r.false_positives;
  cache_hits = r.cache_hits;
  steady_completed = r.steady_completed;
  outlinks_per_second = PerSecond(r.offered, r.add.total_seconds());
  new_per_second = PerSecond(r.added, r.add.total_seconds());
  add_p50_ms = r.add.QuantileMs(0.5);
  add_p99_ms = r.add.QuantileMs(0.99);
  const double cpu = process_cpu_seconds < 0 ? r.add.cpu_seconds() : process_cpu_seconds;
  add_cpu_us_per_link = 1e6 * cpu / static_cast<double>(std::max<uint64_t>(r.offered, 1));
}

void TargetFigures::SetLeases(const LeaseResult& r, double process_cpu_seconds) {
  completed = r.completed;
  lease_complete_urls_per_second =
      PerSecond(r.completed, r.lease.total_seconds() + r.complete.total_seconds());
  lease_p50_ms = r.lease.QuantileMs(0.5);
  lease_p99_ms = r.lease.QuantileMs(0.99);
  complete_p50_ms = r.complete.QuantileMs(0.5);
  complete_p99_ms = r.complete.QuantileMs(0.99);
  const double cpu = process_cpu_seconds < 0
                         ? r.lease.cpu_seconds() + r.complete.cpu_seconds()
                         : process_cpu_seconds;
  lease_cpu_us_per_url = 1e6 * cpu / static_cast<double>(std::max<uint64_t>(r.completed, 1));
}

void StepRow::SetGrowth(const GrowResult& r, uint64_t known, uint64_t disk_bytes) {
  known_after_growth = known;
  ingest_urls_per_second = PerSecond(r.added, r.call_seconds);
  ingest_wall_seconds = r.wall_seconds;
  const double added = static_cast<double>(std::max<uint64_t>(r.added, 1));
  ingest_cpu_us_per_url = 1e6 * r.call_cpu_seconds / added;
  ingest_background_cpu_us_per_url = 1e6 * r.background_cpu_seconds / added;
  disk_bytes_after_ingest = disk_bytes;
}

Report::Report(std::FILE* out, std::FILE* progress)
    : out_(out), progress_(progress), start_(absl::Now()) {}

void Report::Progress(const std::string& line) {
  std::fprintf(progress_, "[%7.1f s] %s\n", absl::ToDoubleSeconds(absl::Now() - start_),
               line.c_str());
  std::fflush(progress_);
}

void Report::DescribeWeb(const SyntheticWeb& web) {
  // URL lengths of a sample drawn as links are: hosts by size, URLs uniformly within them.
  std::vector<size_t> lengths;
  uint64_t state = 12345;
  double host_bytes = 0;
  constexpr int kSample = 100000;
  for (int i = 0; i < kSample; ++i) {
    const uint32_t host = web.HostBySize(random::Mix64(state++));
    lengths.push_back(web.Url(host, random::Mix64(state++) % web.Size(host)).size());
    host_bytes += web.HostKey(host).size();
  }
  std::sort(lengths.begin(), lengths.end());
  double sum = 0;
  for (size_t n : lengths) sum += static_cast<double>(n);
  uint64_t large = 0;
  for (uint32_t h = 0; h < web.hosts(); ++h) large += web.Size(h) >= 1'000'000 ? 1 : 0;
  web_ = {absl::StrFormat("\"hosts\": %d", web.hosts()),
          absl::StrFormat("\"urls\": %d", web.total_urls()),
          absl::StrFormat("\"largest_host_urls\": %d", web.Size(0)),
          absl::StrFormat("\"median_host_urls\": %d", web.Size(web.hosts() / 2)),
          absl::StrFormat("\"hosts_with_1m_urls\": %d", large),
          absl::StrFormat("\"url_bytes_mean\": %.1f", sum / kSample),
          absl::StrFormat("\"url_bytes_p50\": %d", lengths[kSample / 2]),
          absl::StrFormat("\"url_bytes_p90\": %d", lengths[kSample * 9 / 10]),
          absl::StrFormat("\"url_bytes_p99\": %d", lengths[kSample * 99 / 100]),
          absl::StrFormat("\"url_bytes_max\": %d", lengths.back()),
          absl::StrFormat("\"host_key_bytes_mean\": %.1f", host_bytes / kSample)};
  Progress(absl::StrCat("web: ", absl::StrJoin(web_, ", ")));
}

void Report::AddStep(const StepRow& row) {
  steps_.push_back(row);
  std::vector<std::string> families;
  for (const auto& [name, bytes] : row.family_bytes) {
    families.push_back(absl::StrFormat("%s %.1f", name, PerUrl(bytes, row.known_after)));
  }
  Progress(absl::StrFormat(
      "step %d done: %d URLs known, disk %.0f B/URL compacted (%s), server RSS %.0f MiB",
      row.step, row.known_after, PerUrl(row.disk_bytes_compacted, row.known_after),
      absl::StrJoin(families, ", "), MiB(row.grpc.memory.rss_bytes)));
}

void Report::AddReady(const ReadyRow& row) { ready_.push_back(row); }

void Report::PrintTables() const {
  absl::FPrintF(out_,
               "\n| known URLs | ingest URLs/s | outlinks/s core (new/s) | outlinks/s gRPC | "
               "AddUrls p50 / p99 ms (core; gRPC) | lease+complete URLs/s core; gRPC | "
               "Lease p50 / p99 ms (core; gRPC) | RSS MiB server (core proc) | "
               "disk B/URL ingest; compacted | seen FP | write amp | first lease s: restart; "
               "kill -9 (core open) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const StepRow& r : steps_) {
    absl::FPrintF(
        out_,
        "| %s | %s | %s (%s) | %s | %.2f / %.2f; %.2f / %.2f | %s; %s | %.2f / %.2f; %.2f / "
        "%.2f | %.0f (%.0f) | %.0f; %.0f | %d | %.1f | %s; %s (%.1f) |\n",
        Count(r.known_after), Count(r.ingest_urls_per_second), Count(r.core.outlinks_per_second),
        Count(r.core.new_per_second), Count(r.grpc.outlinks_per_second), r.core.add_p50_ms,
        r.core.add_p99_ms, r.grpc.add_p50_ms, r.grpc.add_p99_ms,
        Count(r.core.lease_complete_urls_per_second),
        Count(r.grpc.lease_complete_urls_per_second), r.core.lease_p50_ms, r.core.lease_p99_ms,
        r.grpc.lease_p50_ms, r.grpc.lease_p99_ms, MiB(r.grpc.memory.rss_bytes),
        MiB(r.core.memory.rss_bytes), PerUrl(r.disk_bytes_after_ingest, r.known_after_growth),
        PerUrl(r.disk_bytes_compacted, r.known_after),
        r.core.false_positives + r.grpc.false_positives, r.write_amplification,
        Seconds(r.restart_first_lease_seconds), Seconds(r.kill9_first_lease_seconds),
        r.core_open_seconds);
  }
  if (ready_.empty()) return;
  absl::FPrintF(out_,
               "\n| hosts ready | Lease p50 / p99 ms core | Lease p50 / p99 ms gRPC | "
               "lease+complete URLs/s core; gRPC | server RSS MiB |\n|---|---|---|---|---|\n");
  for (const ReadyRow& r : ready_) {
    absl::FPrintF(out_, "| %s | %.2f / %.2f | %.2f / %.2f | %s; %s | %.0f |\n",
                  Count(r.hosts), r.core.lease_p50_ms, r.core.lease_p99_ms, r.grpc.lease_p50_ms,
                  r.grpc.lease_p99_ms, Count(r.core.lease_complete_urls_per_second),
                  Count(r.grpc.lease_complete_urls_per_second), MiB(r.grpc.memory.rss_bytes));
  }
}

bool Report::WriteJson(const std::string& path) const {
  std::vector<std::string> steps;
  for (const StepRow& r : steps_) {
    std::vector<std::string> pairs = {
        absl::StrFormat("\"step\": %d", r.step),
        absl::StrFormat("\"known_after_growth\": %d", r.known_after_growth),
        absl::StrFormat("\"known_after\": %d", r.known_after),
        absl::StrFormat("\"ingest_urls_per_second\": %.1f", r.ingest_urls_per_second),
        absl::StrFormat("\"ingest_wall_seconds\": %.1f", r.ingest_wall_seconds),
        absl::StrFormat("\"ingest_cpu_us_per_url\": %.2f", r.ingest_cpu_us_per_url),
        absl::StrFormat("\"ingest_background_cpu_us_per_url\": %.2f",
                        r.ingest_background_cpu_us_per_url),
        absl::StrFormat("\"disk_bytes_after_ingest\": %d", r.disk_bytes_after_ingest),
        absl::StrFormat("\"disk_bytes_compacted\": %d", r.disk_bytes_compacted),
        absl::StrFormat("\"compaction_seconds\": %.1f", r.compaction_seconds),
        absl::StrCat("\"family_bytes\": ", FamilyJson(r.family_bytes)),
        absl::StrFormat("\"write_amplification\": %.2f", r.write_amplification),
        absl::StrFormat("\"core_open_seconds\": %.2f", r.core_open_seconds),
        absl::StrFormat("\"restart_first_lease_seconds\": %.2f", r.restart_first_lease_seconds),
        absl::StrFormat("\"kill9_first_lease_seconds\": %.2f", r.kill9_first_lease_seconds),
        absl::StrCat("\"core\": ", Object(TargetJson(r.core))),
        absl::StrCat("\"grpc\": ", Object(TargetJson(r.grpc)))};
    steps.push_back(Object(pairs));
  }
  std::vector<std::string> ready;
  for (const ReadyRow& r : ready_) {
    ready.push_back(Object({absl::StrFormat("\"hosts\": %d", r.hosts),
                            absl::StrCat("\"core\": ", Object(TargetJson(r.core))),
                            absl::StrCat("\"grpc\": ", Object(TargetJson(r.grpc)))}));
  }
  std::ofstream out(path);
  out << "{\"web\": " << Object(web_) << ",\n \"steps\": [" << absl::StrJoin(steps, ",\n  ")
      << "],\n \"ready\": [" << absl::StrJoin(ready, ",\n  ") << "]}\n";
  return static_cast<bool>(out);
}

}  // namespace crawler::bench
