// Micro-benchmark of PageProcessor::Process, the page workers' whole path per page (HTTP head,
// HTML extraction, fingerprints, dedup, WARC records, outlinks), on the websim corpus
// (websim_corpus.h) in batches of 16 pages (FetcherOptions::worker_batch). Arg 1: as
// `crawler crawl` by default, WARC files in $TMPDIR (libdeflate, one write per batch) and dedup
// on a RocksDbKvStore; arg 0: `--no-warc --no-fingerprints`. Every pass over the 400 pages
// starts with a fresh store and WARC directory (outside the timing), so every page is new
// content, as in a first crawl. One iteration = one batch; items = pages.
#include <stdlib.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench/micro/websim_corpus.h"
#include "benchmark/benchmark.h"
#include "lib/clock/fake_clock.h"
#include "lib/scope/scope.h"
#include "lib/url/url.h"
#include "lib/warc/warc_writer.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/local_dedup_client.h"
#include "services/fetcher/page_processor.h"

namespace crawler::bench {
namespace {

constexpr size_t kBatchPages = 16;

// What one pass over the corpus writes to: a store and a WARC directory of its own.
class Sinks {
 public:
  explicit Sinks(bool archive) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "page_processor_bench_XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    if (!archive) return;
    absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store =
        kv::RocksDbKvStore::Open({.path = dir_ + "/db"}, dedup::Dedup::ColumnFamilies());
    if (!store.ok()) return;
    store_ = *std::move(store);
    absl::StatusOr<std::unique_ptr<dedup::Dedup>> dedup = dedup::Dedup::Open({}, *store_);
    if (!dedup.ok()) return;
    dedup_ = *std::move(dedup);
    client_ = std::make_unique<dedup::LocalDedupClient>(*dedup_);
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> writer =
        warc::WarcWriter::Open({.directory = dir_ + "/warc"}, clock_, /*seed=*/1);
    if (!writer.ok()) return;
    warc_ = *std::move(writer);
  }
  ~Sinks() {
    if (warc_ != nullptr) warc_->Close().IgnoreError();
    warc_.reset();
    client_.reset();
    dedup_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  bool ok(bool archive) const { return !archive || warc_ != nullptr; }
  dedup::DedupClient* dedup() { return client_.get(); }
  warc::WarcWriter* warc() { return warc_.get(); }

 private:
  FakeClock clock_{absl::FromUnixSeconds(1'700'000'000)};
  std::string dir_;
  std::unique_ptr<kv::RocksDbKvStore> store_;
  std::unique_ptr<dedup::Dedup> dedup_;
  std::unique_ptr<dedup::LocalDedupClient> client_;
  std::unique_ptr<warc::WarcWriter> warc_;
};

fetcher::FetchedPage Fetched(const CorpusPage& page, const url::Url& url) {
  frontier::LeasedTask task;
  task.lease_id = 1;
  task.canonical_url = page.url;
  task.host_key = std::string(url.host());
  task.depth = 1;
  fetcher::HttpResult http;
  const size_t head_end = page.http_response.find("\r\n\r\n") + 4;
  http.raw_headers = page.http_response.substr(0, head_end);
  http.body = page.http_response.substr(head_end);
  http.request_head =
      absl::StrCat("GET ", std::string(url.path()), " HTTP/1.1\r\nHost: ", std::string(url.host()),
                   "\r\nUser-Agent: crawler/0.1\r\nAccept: */*\r\nAccept-Encoding: gzip\r\n\r\n");
  http.remote_ip = "127.0.0.1";
  http.total_time = absl::Milliseconds(1);
  return fetcher::FetchedPage{.task = std::move(task),
                              .url = url,
                              .http = std::move(http),
                              .fetch_time = absl::FromUnixSeconds(1'700'000'000)};
}

void BM_PageProcessor(benchmark::State& state) {
  const bool archive = state.range(0) != 0;
  const Corpus& corpus = WebsimCorpus();
  std::vector<url::Url> urls;
  for (const CorpusPage& page : corpus.pages) urls.push_back(url::Url::Parse(page.url).value());
  absl::StatusOr<scope::Scope> scope = scope::Scope::Create({}, {}, nullptr);
  if (!scope.ok()) {
    state.SkipWithError(std::string(scope.status().message()).c_str());
    return;
  }
  fetcher::PageProcessorOptions options;
  options.fingerprints = archive;

  std::unique_ptr<Sinks> sinks;
  std::unique_ptr<fetcher::PageProcessor> processor;
  size_t next = corpus.pages.size();
  size_t outlinks = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (next + kBatchPages > corpus.pages.size()) {  // a new pass: fresh store and WARC files
      processor.reset();
      sinks.reset();
      sinks = std::make_unique<Sinks>(archive);
      if (!sinks->ok(archive)) {
        state.SkipWithError("cannot open the store or the WARC writer");
        break;
      }
      processor = std::make_unique<fetcher::PageProcessor>(options, *scope, sinks->dedup(),
                                                           sinks->warc(), nullptr);
      next = 0;
    }
    std::vector<fetcher::FetchedPage> batch;
    for (size_t i = 0; i < kBatchPages; ++i, ++next) {
      batch.push_back(Fetched(corpus.pages[next], urls[next]));
    }
    state.ResumeTiming();
    std::vector<fetcher::ProcessedPage> out = processor->Process(std::move(batch));
    for (const fetcher::ProcessedPage& page : out) outlinks += page.outlinks.size();
  }
  processor.reset();
  sinks.reset();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kBatchPages));
  state.counters["us_per_page"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kBatchPages),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["outlinks_per_page"] =
      static_cast<double>(outlinks) / static_cast<double>(state.iterations() * kBatchPages);
}
BENCHMARK(BM_PageProcessor)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace crawler::bench
