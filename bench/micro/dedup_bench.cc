// Micro-benchmark of services/dedup: Dedup::Check on a RocksDbKvStore in a temporary directory,
// in batches of 16 pages as the fetcher sends them. The store is pre-filled with
// state.range(0) unique pages; state.range(1) = 1 flushes it to files first (the on-file read
// path, prefix Bloom filters) instead of leaving it in the memtables. Each batch holds 12 new
// pages (random 64-bit SimHashes), 2 exact copies and 2 near-copies (1-3 bits flipped) of
// earlier pages, so all three verdicts and the in-batch bookkeeping are exercised. The store
// keeps growing during the run, as in a crawl. One iteration = one batch; items = pages.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "lib/fingerprint/content_key.h"
#include "lib/fingerprint/simhash.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/dedup/dedup.h"

namespace crawler::bench {
namespace {

constexpr size_t kBatchPages = 16;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "dedup_bench_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Deterministic page generator: page n has payload "page-n" and a random SimHash.
class Pages {
 public:
  dedup::ContentQuery Page(uint64_t n, uint64_t simhash) const {
    const std::string url = absl::StrCat("http://host", n % 97, ".example/page/", n);
    return dedup::ContentQuery{
        .url = url,
        .content_key = fingerprint::ComputeContentKey(absl::StrCat("page-", n)),
        .simhash = fingerprint::SimHash64(simhash),
        .fetch_time = absl::FromUnixSeconds(1700000000),
        .warc_record_id = "<urn:uuid:0b5e4f1c-0000-4000-8000-000000000000>",
        .payload_digest = "sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"};
  }
};

void BM_DedupCheck(benchmark::State& state) {
  const uint64_t prefill = static_cast<uint64_t>(state.range(0));
  const bool flush = state.range(1) != 0;
  TempDir dir;
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
      kv::RocksDbKvStore::Open({.path = dir.path()}, dedup::Dedup::ColumnFamilies());
  if (!store.ok()) {
    state.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  absl::StatusOr<std::unique_ptr<dedup::Dedup>> dedup = dedup::Dedup::Open({}, **store);
  if (!dedup.ok()) {
    state.SkipWithError(std::string(dedup.status().message()).c_str());
    return;
  }

  std::mt19937_64 rng(42);
  Pages pages;
  std::vector<uint64_t> simhashes;  // of page n, for near-copies
  uint64_t next = 0;
  std::vector<dedup::ContentQuery> batch;
  while (next < prefill) {
    batch.clear();
    for (size_t i = 0; i < 256 && next < prefill; ++i, ++next) {
      simhashes.push_back(rng());
      batch.push_back(pages.Page(next, simhashes.back()));
    }
    if (!(*dedup)->Check(batch).ok()) {
      state.SkipWithError("prefill failed");
      return;
    }
  }
  if (flush && !(*store)->Flush().ok()) {
    state.SkipWithError("flush failed");
    return;
  }

  size_t duplicates = 0;
  for (auto _ : state) {
    state.PauseTiming();
    batch.clear();
    for (size_t i = 0; i < kBatchPages; ++i) {
      const uint64_t earlier = next == 0 ? 0 : rng() % next;
      if (i % 8 == 3 && next > 0) {  // exact copy of an earlier page, at another URL
        dedup::ContentQuery q = pages.Page(earlier, simhashes[earlier]);
        q.url += "?copy";
        batch.push_back(std::move(q));
      } else if (i % 8 == 6 && next > 0) {  // near-copy: 1..3 bits of an earlier page flipped
        uint64_t h = simhashes[earlier];
        const int flips = 1 + static_cast<int>(rng() % 3);
        for (int f = 0; f < flips; ++f) h ^= uint64_t{1} << (rng() % 64);
        simhashes.push_back(h);
        batch.push_back(pages.Page(next++, h));
      } else {
        simhashes.push_back(rng());
        batch.push_back(pages.Page(next++, simhashes.back()));
      }
    }
    state.ResumeTiming();
    absl::StatusOr<std::vector<dedup::ContentVerdict>> verdicts = (*dedup)->Check(batch);
    if (!verdicts.ok()) {
      state.SkipWithError(std::string(verdicts.status().message()).c_str());
      return;
    }
    for (const dedup::ContentVerdict& v : *verdicts) {
      duplicates += v.verdict != dedup::Verdict::kUnique;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBatchPages));
  state.counters["us_per_page"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kBatchPages),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["dup_fraction"] =
      static_cast<double>(duplicates) / static_cast<double>(state.iterations() * kBatchPages);
}
BENCHMARK(BM_DedupCheck)
    ->Args({10000, 0})
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace crawler::bench
