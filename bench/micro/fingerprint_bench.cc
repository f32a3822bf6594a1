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

// Runs `work` on one page per iteration, cycling through the corpus; bytes/s count the part of
// the page `part` selects (the visible text or the payload).
template <typename Part, typename Work>
void OverPages(benchmark::State& state, Part part, Work work) {
  const Corpus& corpus = WebsimCorpus();
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string& input = part(corpus.pages[i]);
    work(input);
    bytes += input.size();
    if (++i == corpus.pages.size()) i = 0;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations());
}

const std::string& TextOf(const CorpusPage& page) { return page.text; }
const std::string& BodyOf(const CorpusPage& page) { return page.body; }

void BM_SimHash(benchmark::State& state) {
  OverPages(state, TextOf, [](const std::string& text) {
    benchmark::DoNotOptimize(fingerprint::ComputeSimHash(text));
  });
  const Corpus& corpus = WebsimCorpus();
  state.counters["text_bytes_per_page"] =
      static_cast<double>(corpus.text_bytes) / static_cast<double>(corpus.pages.size());
}
BENCHMARK(BM_SimHash);

void BM_FingerprintTokens(benchmark::State& state) {
  OverPages(state, TextOf, [](const std::string& text) {
    size_t tokens = 0;
    fingerprint::ForEachFingerprintToken(text, [&](std::string_view) { ++tokens; });
    benchmark::DoNotOptimize(tokens);
  });
}
BENCHMARK(BM_FingerprintTokens);

// The page processor digests the main text, a part of the visible text; the whole is the
// harder case.
void BM_ChangeDigest(benchmark::State& state) {
  OverPages(state, TextOf, [](const std::string& text) {
    benchmark::DoNotOptimize(fingerprint::ComputeChangeDigest(text));
  });
}
BENCHMARK(BM_ChangeDigest);

void BM_Sha1Page(benchmark::State& state) {
  OverPages(state, BodyOf, [](const std::string& body) {
    benchmark::DoNotOptimize(fingerprint::Sha1(body));
  });
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
