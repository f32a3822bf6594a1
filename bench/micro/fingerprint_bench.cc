// Micro-benchmarks of lib/fingerprint on websim pages (websim_corpus.h): SimHash of the visible
// text (and its tokeniser alone), the change digest of the same text, SHA-1 of the payload. One iteration = one page; bytes/s count
// the text (SimHash) or the payload (SHA-1).
#include <cstddef>
#include <string>

#include "bench/micro/websim_corpus.h"
#include "benchmark/benchmark.h"
#include "lib/fingerprint/change_digest.h"
#include "lib/fingerprint/sha1.h"
#include "lib/fingerprint/simhash.h"
#include "lib/fingerprint/text_normalizer.h"

namespace crawler::bench {
namespace {

void BM_SimHash(benchmark::State& state) {
  const Corpus& corpus = WebsimCorpus();
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string& text = corpus.pages[i].text;
    benchmark::DoNotOptimize(fingerprint::ComputeSimHash(text));
    bytes += text.size();
    if (++i == corpus.pages.size()) i = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations());
  state.counters["text_bytes_per_page"] =
      static_cast<double>(corpus.text_bytes) / static_cast<double>(corpus.pages.size());
}
BENCHMARK(BM_SimHash);

void BM_FingerprintTokens(benchmark::State& state) {
  const Corpus& corpus = WebsimCorpus();
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string& text = corpus.pages[i].text;
    size_t tokens = 0;
    fingerprint::ForEachFingerprintToken(text, [&](std::string_view) { ++tokens; });
    benchmark::DoNotOptimize(tokens);
    bytes += text.size();
    if (++i == corpus.pages.size()) i = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FingerprintTokens);

// The page processor digests the main text, a part of the visible text; the whole is the
// harder case.
void BM_ChangeDigest(benchmark::State& state) {
  const Corpus& corpus = WebsimCorpus();
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string& text = corpus.pages[i].text;
    benchmark::DoNotOptimize(fingerprint::ComputeChangeDigest(text));
    bytes += text.size();
    if (++i == corpus.pages.size()) i = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ChangeDigest);

void BM_Sha1Page(benchmark::State& state) {
  const Corpus& corpus = WebsimCorpus();
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string& body = corpus.pages[i].body;
    benchmark::DoNotOptimize(fingerprint::Sha1(body));
    bytes += body.size();
    if (++i == corpus.pages.size()) i = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Sha1Page);

void BM_Sha1Large(benchmark::State& state) {
  const std::string data(static_cast<size_t>(state.range(0)), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(fingerprint::Sha1(data));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha1Large)->Arg(1 << 20);

}  // namespace
}  // namespace crawler::bench
