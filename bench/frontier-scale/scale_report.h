// The figures of bench/frontier-scale and how they are printed: one row per step of known URLs
// (through the core and through the gRPC server) and one per number of hosts ready at once, as
// Markdown tables on stdout and as JSON (`--json`) for scripts/capacity.py, which computes
// docs/capacity.md from them.
//
// Thread-safety: not thread-safe; one per run.
#ifndef CRAWLER_BENCH_FRONTIER_SCALE_SCALE_REPORT_H_
#define CRAWLER_BENCH_FRONTIER_SCALE_SCALE_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "bench/frontier-scale/scale_target.h"
#include "bench/frontier-scale/synthetic_web.h"
#include "bench/frontier-scale/workload.h"

namespace crawler::bench {

// What one target (core or gRPC server) did in one step.
struct TargetFigures {
  // Outlink phase.
  uint64_t offered = 0;
  uint64_t expected_new = 0;
  uint64_t added = 0;
  uint64_t false_positives = 0;
  uint64_t cache_hits = 0;
  uint64_t steady_completed = 0;
  double outlinks_per_second = 0;  // offered / time in AddUrls
  double new_per_second = 0;
  double add_p50_ms = 0;
  double add_p99_ms = 0;
  // CPU per offered link: the core's calling thread in AddUrls; the server's whole process
  // over the phase (its steady leases included).
  double add_cpu_us_per_link = 0;
  // Lease + complete phase.
  uint64_t completed = 0;
  double lease_complete_urls_per_second = 0;  // completed / time in Lease and Complete
  double lease_p50_ms = 0;
  double lease_p99_ms = 0;
  double complete_p50_ms = 0;
  double complete_p99_ms = 0;
  // CPU per URL leased and completed (the core's calling thread; the server's process).
  double lease_cpu_us_per_url = 0;
  // The frontier's process after the phases (the core: this whole process).
  Memory memory;
  // The store's reads in the outlink phase (the core only: RocksDB's counters): the share of
  // absent keys a Bloom filter let through, and blocks read from files (not the block cache)
  // per offered link: data blocks, and index or filter blocks.
  double bloom_false_positive_rate = 0;
  double data_reads_per_link = 0;
  double index_filter_reads_per_link = 0;
  // Data blocks read from files per URL leased and completed.
  double data_reads_per_lease_url = 0;

  // `process_cpu_seconds` < 0: take the calling thread's CPU from the result (the core).
  void SetOutlinks(const OutlinkResult& result, double process_cpu_seconds);
  void SetLeases(const LeaseResult& result, double process_cpu_seconds);
};

struct StepRow {
  uint64_t step = 0;
  uint64_t known_after_growth = 0;
  uint64_t known_after = 0;  // after every phase of the step (they add new URLs too)
  double ingest_urls_per_second = 0;  // growth: URLs / time in AddUrls
  double ingest_wall_seconds = 0;
  double ingest_cpu_us_per_url = 0;             // the calling thread in AddUrls
  double ingest_background_cpu_us_per_url = 0;  // RocksDB's threads meanwhile
  uint64_t disk_bytes_after_ingest = 0;  // the store right after growth (log included)
  uint64_t disk_bytes_compacted = 0;     // after a full compaction
  // After the compaction, by column family (live files).
  std::vector<std::pair<std::string, uint64_t>> family_bytes;
  double compaction_seconds = 0;
  // Bytes RocksDB wrote (log, flushes, compactions) per byte of keys and values it was asked to
  // write, over growth and the core's phases.
  double write_amplification = 0;
  double core_open_seconds = 0;                 // Frontier::Open after a clean close
  double restart_first_lease_seconds = -1;      // server: SIGTERM, start, first lease
  double kill9_first_lease_seconds = -1;        // server: SIGKILL under load, start, first lease
  TargetFigures core;
  TargetFigures grpc;

  void SetGrowth(const GrowResult& result, uint64_t known, uint64_t disk_bytes);
};

struct ReadyRow {
  uint64_t hosts = 0;
  TargetFigures core;
  TargetFigures grpc;
};

class Report {
 public:
  // Tables go to `out`, progress lines (with the time) to `progress`.
  Report(std::FILE* out, std::FILE* progress);

  // The web's host sizes and a sample of its URL lengths.
  void DescribeWeb(const SyntheticWeb& web);
  void Progress(const std::string& line);
  void AddStep(const StepRow& row);
  void AddReady(const ReadyRow& row);
  void PrintTables() const;
  // Every figure, as one JSON object; false if the file cannot be written.
  bool WriteJson(const std::string& path) const;

 private:
  std::FILE* const out_;
  std::FILE* const progress_;
  const absl::Time start_;
  std::vector<std::string> web_;  // the web's description, "key": value pairs
  std::vector<StepRow> steps_;
  std::vector<ReadyRow> ready_;
};

}  // namespace crawler::bench

#endif  // CRAWLER_BENCH_FRONTIER_SCALE_SCALE_REPORT_H_
