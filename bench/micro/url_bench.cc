// Micro-benchmarks of lib/url: parsing canonical absolute URLs (what the fetcher does for every
// leased URL) and resolving relative links against a page (what link extraction does for every
// href). One iteration = one URL.
#include <array>
#include <cstddef>
#include <string>

#include "benchmark/benchmark.h"
#include "lib/url/url.h"

namespace crawler::bench {
namespace {

// The shapes of a websim crawl: short paths, a query now and then, one host per URL.
constexpr std::array<const char*, 6> kAbsolute = {
    "http://h7.websim.test/d1/p39.html",
    "http://h123.websim.test/",
    "http://h42.websim.test/d3/view?id=17&lang=en",
    "https://www.example.org/news/2026/11/21/a-longer-article-title.html",
    "http://h0.websim.test/robots.txt",
    "https://sub.domain.example.co.uk:8443/a/b/c?x=1#frag",
};

void BM_UrlParseAbsolute(benchmark::State& state) {
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(url::Url::Parse(kAbsolute[i]));
    if (++i == kAbsolute.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UrlParseAbsolute);

constexpr std::array<const char*, 6> kRelative = {
    "p40.html",
    "../d2/p5.html",
    "/d0/p1.html",
    "?page=2",
    "http://h9.websim.test/d1/p3.html",
    "//h8.websim.test/",
};

void BM_UrlResolveRelative(benchmark::State& state) {
  const url::Url base = url::Url::Parse("http://h7.websim.test/d1/p39.html").value();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(url::Url::Parse(kRelative[i], base));
    if (++i == kRelative.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UrlResolveRelative);

}  // namespace
}  // namespace crawler::bench
