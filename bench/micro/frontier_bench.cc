// Micro-benchmark of services/frontier: the frontier's side of a crawl, as the fetcher's I/O
// thread drives it (services/fetcher/fetcher.cc IoLoop), on a RocksDbKvStore in a temporary
// directory. The web: 200 hosts of 50 pages (10,000 pages). Every page links to its host's 20
// navigation pages (home and sections), to 4 other pages of its host and to 1 page of another
// host: 25 outlinks, most of them already known, as on a real site. The crawl leases up to 512
// URLs (at most 8 per host), "fetches" them (no network) in a shuffled order (responses come
// back from many hosts at once), and hands back groups of 20 pages: AddUrls with their 500
// outlinks, then Complete with their 20 outcomes, as the fetcher flushes at 512 pending items. One
// iteration = one whole crawl in a fresh store (store set-up outside the timing); us_per_page is
// the frontier CPU per fetched page. The store is wrapped to count what each page costs it:
// URL-family keys read by MultiGet, ops and bytes written. state.range(0) =
// FrontierOptions::seen_cache_entries (0: no seen cache).
#include <stdlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "lib/clock/clock.h"
#include "services/common/kv/kv_store.h"
#include "services/common/kv/write_batch.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_options.h"

namespace crawler::bench {
namespace {

constexpr int kHosts = 200;
constexpr int kPagesPerHost = 50;
constexpr int kNavLinks = 20;          // pages 0..19 of each host: linked from all its pages
constexpr int kLocalLinks = 4;         // further pages of the same host
constexpr int kForeignLinks = 1;       // a page of another host
constexpr size_t kPagesPerFlush = 20;  // ~512 pending adds + outcomes, as the fetcher flushes
constexpr size_t kLeaseBatch = 512;
constexpr size_t kLeasePerHost = 8;

std::string HostKey(int host) { return absl::StrCat("host", host, ".example"); }
std::string PageUrl(int host, int page) {
  return absl::StrCat("http://", HostKey(host), "/section/page-", page, ".html");
}

// Outlinks of page `page` of `host`, deterministic.
std::vector<std::pair<int, int>> Outlinks(int host, int page) {
  std::vector<std::pair<int, int>> links;
  for (int i = 0; i < kNavLinks; ++i) links.emplace_back(host, i);
  for (int i = 1; i <= kLocalLinks; ++i) {
    links.emplace_back(host, (page * 7 + i * 13) % kPagesPerHost);
  }
  for (int i = 1; i <= kForeignLinks; ++i) {
    links.emplace_back((host * 31 + page * 17 + i) % kHosts, (page * 3 + i) % kPagesPerHost);
  }
  return links;
}

// Counts what the frontier asks of the store.
class CountingStore final : public kv::KvStore {
 public:
  explicit CountingStore(kv::KvStore& inner) : inner_(inner) {}

  mutable uint64_t keys_read = 0;  // MultiGet is const
  uint64_t ops_written = 0;
  uint64_t bytes_written = 0;

  bool HasColumnFamily(std::string_view cf) const override { return inner_.HasColumnFamily(cf); }
  absl::StatusOr<std::string> Get(std::string_view cf, std::string_view key) const override {
    return inner_.Get(cf, key);
  }
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      std::string_view cf, const std::vector<std::string>& keys) const override {
    keys_read += keys.size();
    return inner_.MultiGet(cf, keys);
  }
  absl::Status Write(const kv::WriteBatch& batch) override {
    ops_written += batch.size();
    bytes_written += batch.payload_bytes();
    return inner_.Write(batch);
  }
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> NewIterator(std::string_view cf,
                                                              std::string_view begin,
                                                              std::string_view end) const override {
    return inner_.NewIterator(cf, begin, end);
  }
  absl::StatusOr<std::unique_ptr<kv::KvIterator>> NewPrefixIterator(
      std::string_view cf) const override {
    return inner_.NewPrefixIterator(cf);
  }

 private:
  kv::KvStore& inner_;
};

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "frontier_bench_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Crawls the whole web once; returns the pages completed.
absl::StatusOr<uint64_t> Crawl(frontier::Frontier& frontier) {
  std::vector<frontier::UrlToAdd> seeds;
  for (int host = 0; host < kHosts; ++host) {
    seeds.push_back({.canonical_url = PageUrl(host, 0), .host_key = HostKey(host)});
  }
  if (absl::Status status = frontier.AddUrls(seeds).status(); !status.ok()) return status;
  uint64_t pages = 0;
  std::mt19937_64 rng(42);
  // Bounded: each round completes at least one page, or the crawl is over.
  for (int round = 0; round < 1000000 && !frontier.IsExhausted(); ++round) {
    absl::StatusOr<std::vector<frontier::LeasedTask>> tasks =
        frontier.Lease(kLeaseBatch, kLeasePerHost);
    if (!tasks.ok()) return tasks.status();
    if (tasks->empty()) return absl::InternalError("nothing leased before the crawl ended");
    std::shuffle(tasks->begin(), tasks->end(), rng);
    for (size_t begin = 0; begin < tasks->size(); begin += kPagesPerFlush) {
      std::vector<frontier::UrlToAdd> adds;
      std::vector<frontier::FetchOutcome> outcomes;
      for (size_t i = begin; i < std::min(tasks->size(), begin + kPagesPerFlush); ++i) {
        const frontier::LeasedTask& task = (*tasks)[i];
        const std::string_view path(task.canonical_url);
        const int host = std::stoi(task.host_key.substr(4));
        const int page = std::stoi(std::string(path.substr(path.rfind('-') + 1)));
        for (const auto& [to_host, to_page] : Outlinks(host, page)) {
          adds.push_back({.canonical_url = PageUrl(to_host, to_page),
                          .host_key = HostKey(to_host),
                          .depth = task.depth + 1,
                          .discovered_from = task.canonical_url});
        }
        outcomes.push_back({.lease_id = task.lease_id,
                            .outcome = frontier::OutcomeClass::kFetched,
                            .http_status = 200,
                            .content_fingerprint = 0x0123456789abcdefull ^ pages,
                            .content_length = 4096});
        ++pages;
      }
      if (absl::Status status = frontier.AddUrls(adds).status(); !status.ok()) return status;
      if (absl::Status status = frontier.Complete(outcomes).status(); !status.ok()) {
        return status;
      }
    }
  }
  return pages;
}

void BM_FrontierCrawl(benchmark::State& state) {
  SystemClock clock;
  frontier::FrontierOptions options;
  options.max_in_flight_per_host = kLeasePerHost;
  options.seen_cache_entries = static_cast<size_t>(state.range(0));
  uint64_t pages = 0;
  uint64_t keys_read = 0;
  uint64_t ops_written = 0;
  uint64_t bytes_written = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::optional<TempDir> dir;
    dir.emplace();
    absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
        kv::RocksDbKvStore::Open({.path = dir->path()}, frontier::Frontier::ColumnFamilies());
    if (!store.ok()) {
      state.SkipWithError(std::string(store.status().message()).c_str());
      return;
    }
    CountingStore counting(**store);
    absl::StatusOr<std::unique_ptr<frontier::Frontier>> frontier =
        frontier::Frontier::Open(options, counting, clock);
    if (!frontier.ok()) {
      state.SkipWithError(std::string(frontier.status().message()).c_str());
      return;
    }
    state.ResumeTiming();
    absl::StatusOr<uint64_t> crawled = Crawl(**frontier);
    state.PauseTiming();
    if (!crawled.ok()) {
      state.SkipWithError(std::string(crawled.status().message()).c_str());
      return;
    }
    pages += *crawled;
    keys_read += counting.keys_read;
    ops_written += counting.ops_written;
    bytes_written += counting.bytes_written;
    frontier->reset();
    store->reset();
    dir.reset();
    state.ResumeTiming();
  }
  const double n = static_cast<double>(pages);
  state.SetItemsProcessed(static_cast<int64_t>(pages));
  state.counters["us_per_page"] =
      benchmark::Counter(n, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["keys_read_per_page"] = static_cast<double>(keys_read) / n;
  state.counters["ops_written_per_page"] = static_cast<double>(ops_written) / n;
  state.counters["bytes_written_per_page"] = static_cast<double>(bytes_written) / n;
}
BENCHMARK(BM_FrontierCrawl)
    ->Arg(0)
    ->Arg(int64_t{1} << 20)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace crawler::bench
